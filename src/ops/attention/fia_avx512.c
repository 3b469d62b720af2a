/* AVX-512 tier of the attention kernel. */
#include "../kernels/vec_avx512.h"
#define FIA_UNITS_FN cannon_fia_units_avx512
#include "fia_impl.h"
#define FAS_KV_FN cannon_fas_kv_avx512
#define FAS_Q_FN cannon_fas_q_avx512
#define FAS_FUSED_FN cannon_fas_fused_avx512
#include "fas_bwd_impl.h"
