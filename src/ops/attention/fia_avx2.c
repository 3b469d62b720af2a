/* AVX2 + FMA + F16C tier of the attention kernel. */
#include "../kernels/vec_avx2.h"
#define FIA_UNITS_FN cannon_fia_units_avx2
#include "fia_impl.h"
