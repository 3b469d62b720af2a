/*
 * One tier's softmax-family kernels: the including file includes its vec_<tier>.h, defines
 * SM_UNITS_FN (the exported entry), and includes this file.
 */
#include <math.h>

#include "softmax_kernels.h"

#define log_d log

/* exp(v - m) with the rounding error of the subtraction fed into exp's range reduction (TwoSum;
 * exact unless v - m overflows). Infinite operands make the error term NaN; it is dropped then,
 * leaving the IEEE result of exp(v - m). */
VI vf sm_exp_diff_exact(vf v, vf m)
{
    vf s = vf_sub(v, m);
    vf bp = vf_sub(s, v);
    vf ap = vf_sub(s, bp);
    vf err = vf_sub(vf_sub(v, ap), vf_add(m, bp));
    return vf_exp2(s, vf_zero_nan(err));
}

#define SM_T f32
#define SM_ST_NOSUB vf_store_f32
#define SM_STNT_NOSUB vf_stream_f32
#define SM_CT float
#define SM_IS_F32 1
#include "softmax_body.h"
#undef SM_T
#undef SM_CT
#undef SM_IS_F32
#undef SM_ST_NOSUB
#undef SM_STNT_NOSUB

#define SM_T f16
#define SM_ST_NOSUB vf_store_f16
#define SM_STNT_NOSUB vf_stream_f16
#define SM_CT uint16_t
#define SM_IS_F32 0
#include "softmax_body.h"
#undef SM_T
#undef SM_CT
#undef SM_IS_F32
#undef SM_ST_NOSUB
#undef SM_STNT_NOSUB

#define SM_T bf16
#define SM_ST_NOSUB vf_store_bf16_nosub
#define SM_STNT_NOSUB vf_stream_bf16_nosub
#define SM_CT uint16_t
#define SM_IS_F32 0
#include "softmax_body.h"
#undef SM_T
#undef SM_CT
#undef SM_IS_F32
#undef SM_ST_NOSUB
#undef SM_STNT_NOSUB

void SM_UNITS_FN(const sm_args *a, int64_t u0, int64_t u1)
{
    switch (a->dtype) {
    case SM_F32:
        units_f32(a, u0, u1);
        break;
    case SM_F16:
        units_f16(a, u0, u1);
        break;
    case SM_BF16:
        units_bf16(a, u0, u1);
        break;
    default:
        break;
    }
    /* Streaming stores are weakly ordered: make them visible before the block counts as done. */
    if (a->nt)
        vf_sfence();
}
