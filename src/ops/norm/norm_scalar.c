/* scalar tier of the norm kernels (see norm_impl.h). */
#include "../kernels/vec_scalar.h"
#define NM_SUFFIX scalar
#include "norm_impl.h"
