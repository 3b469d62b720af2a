/* The skinny-product kernel (mm_dot_impl.h) for the scalar tier. */
#include "../kernels/vec_scalar.h"
#define MM_DOT_FN cannon_mm_dot_scalar
#include "mm_dot_impl.h"
