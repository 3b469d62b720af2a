/* Scalar tier of the attention kernel (the reference for the vector tiers). */
#include "../kernels/vec_scalar.h"
#define FIA_UNITS_FN cannon_fia_units_scalar
#include "fia_impl.h"
#define FAS_KV_FN cannon_fas_kv_scalar
#define FAS_Q_FN cannon_fas_q_scalar
#define FAS_FUSED_FN cannon_fas_fused_scalar
#include "fas_bwd_impl.h"
