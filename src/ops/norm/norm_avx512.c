/* avx512 tier of the norm kernels (see norm_impl.h). */
#include "../kernels/vec_avx512.h"
#define NM_SUFFIX avx512
#include "norm_impl.h"
