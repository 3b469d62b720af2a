/* Scalar tier of the elementwise vector loops (the reference for the vector tiers). */
#include "../kernels/vec_scalar.h"
#define EW_VEC_FN cannon_ew_vec_scalar
#include "ew_impl.h"
