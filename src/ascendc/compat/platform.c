/*
 * libplatform: the library CANN's host programs link for the SoC description
 * (platform_ascendc). The vector kernel-launch samples link it without calling into it, so it has
 * no symbols of its own yet.
 */
typedef int cannon_platform_placeholder_t;
