/* AVX-512 tier of the attention kernel. */
#include "../kernels/vec_avx512.h"
#define FIA_UNITS_FN cannon_fia_units_avx512
#include "fia_impl.h"
