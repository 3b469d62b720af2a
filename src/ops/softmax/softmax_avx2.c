/* AVX2 + FMA + F16C tier of the softmax-family kernels. */
#include "../kernels/vec_avx2.h"
#define SM_UNITS_FN cannon_softmax_units_avx2
#include "softmax_impl.h"
