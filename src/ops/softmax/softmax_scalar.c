/* Scalar tier of the softmax-family kernels (the reference for the vector tiers). */
#include "../kernels/vec_scalar.h"
#define SM_UNITS_FN cannon_softmax_units_scalar
#include "softmax_impl.h"
