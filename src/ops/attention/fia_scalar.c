/* Scalar tier of the attention kernel (the reference for the vector tiers). */
#include "../kernels/vec_scalar.h"
#define FIA_UNITS_FN cannon_fia_units_scalar
#include "fia_impl.h"
