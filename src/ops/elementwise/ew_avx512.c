/* AVX-512 tier of the elementwise vector loops. */
#include "../kernels/vec_avx512.h"
#define EW_VEC_FN cannon_ew_vec_avx512
#include "ew_impl.h"
