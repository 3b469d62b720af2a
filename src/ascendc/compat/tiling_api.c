/*
 * libtiling_api: the library CANN's host programs link for the tiling helpers (matmul_tiling and
 * the like). The vector kernel-launch samples link it without calling into it, so it has no
 * symbols of its own yet.
 */
typedef int cannon_tiling_api_placeholder_t;
