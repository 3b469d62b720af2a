/* avx2 tier of the norm kernels (see norm_impl.h). */
#include "../kernels/vec_avx2.h"
#define NM_SUFFIX avx2
#include "norm_impl.h"
