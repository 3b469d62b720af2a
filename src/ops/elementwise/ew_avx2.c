/* AVX2 tier of the elementwise vector loops. */
#include "../kernels/vec_avx2.h"
#define EW_VEC_FN cannon_ew_vec_avx2
#include "ew_impl.h"
