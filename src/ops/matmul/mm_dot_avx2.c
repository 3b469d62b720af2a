/* The skinny-product kernel (mm_dot_impl.h) for the avx2 tier. */
#include "../kernels/vec_avx2.h"
#define MM_DOT_PF_DIST 2048
#define MM_DOT_FN cannon_mm_dot_avx2
#include "mm_dot_impl.h"
