/* AVX-512 tier of the softmax-family kernels. */
#include "../kernels/vec_avx512.h"
#define SM_UNITS_FN cannon_softmax_units_avx512
#include "softmax_impl.h"
