/* AVX2 + FMA + F16C tier of the attention kernel. */
#include "../kernels/vec_avx2.h"
#define FIA_UNITS_FN cannon_fia_units_avx2
#include "fia_impl.h"
#define FAS_KV_FN cannon_fas_kv_avx2
#define FAS_Q_FN cannon_fas_q_avx2
#define FAS_FUSED_FN cannon_fas_fused_avx2
#include "fas_bwd_impl.h"
