/* The skinny-product kernel (mm_dot_impl.h) for the avx512 tier. */
#include "../kernels/vec_avx512.h"
#define MM_DOT_PF_DIST 2048
#define MM_DOT_FN cannon_mm_dot_avx512
#include "mm_dot_impl.h"
