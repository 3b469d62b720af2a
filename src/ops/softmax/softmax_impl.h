/*
 * One tier's softmax-family kernels: the including file includes its vec_<tier>.h, defines
 * SM_UNITS_FN (the exported entry), and includes this file.
 */
#include <math.h>

#include "softmax_kernels.h"
#include "softmax_vec.h"

#define log_d log

/* log(s) rounded to fp32 for g row sums s > 0 (the fast path's, so s >= 1 - 1e-4). Sums below 2
 * take libm's double log: log s near 0 needs s - 1 to full precision, which rounding s to fp32
 * would lose. The others take vf_log of s rounded to fp32, VW at a time: log s >= log 2 there,
 * so that rounding (2^-24 absolute in log s) and vf_log's 1.21 ulp stay within 2.2e-7 relative. */
static void sm_log_sums(const double *s, float *out, int64_t g)
{
    for (int64_t r = 0; r < g; r += VW) {
        const size_t k = (size_t)(g - r) < VW ? (size_t)(g - r) : VW;
        float t[VW];
        for (size_t j = 0; j < k; j++)
            t[j] = (float)s[r + (int64_t)j];
        vf_storen_f32(out + r, vf_log(vf_loadn_f32(t, k, 1.0f)), k);
        for (size_t j = 0; j < k; j++)
            if (s[r + (int64_t)j] < 2.0)
                out[r + (int64_t)j] = (float)log_d(s[r + (int64_t)j]);
    }
}

/* sm_log_sums for one sum, the same value: vf_log's lane 0 taken from a register. The array
 * version's scalar stores, masked vector load and masked store put store-forwarding stalls on a
 * long log_softmax row's per-row dependency chain (sum -> log -> write pass). */
static inline float sm_log_sum1(double s)
{
    if (s < 2.0)
        return (float)log_d(s);
#if VW == 16
    return _mm512_cvtss_f32(vf_log(vf_set1((float)s)));
#elif VW == 8
    return _mm256_cvtss_f32(vf_log(vf_set1((float)s)));
#else
    return vf_log((float)s);
#endif
}

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
#define SM_IS_BF16 0
#include "softmax_body.h"
#undef SM_T
#undef SM_CT
#undef SM_IS_F32
#undef SM_IS_BF16
#undef SM_ST_NOSUB
#undef SM_STNT_NOSUB

#define SM_T f16
#define SM_ST_NOSUB vf_store_f16
#define SM_STNT_NOSUB vf_stream_f16
#define SM_CT uint16_t
#define SM_IS_F32 0
#define SM_IS_BF16 0
#include "softmax_body.h"
#undef SM_T
#undef SM_CT
#undef SM_IS_F32
#undef SM_IS_BF16
#undef SM_ST_NOSUB
#undef SM_STNT_NOSUB

#define SM_T bf16
#define SM_ST_NOSUB vf_store_bf16_nosub
#define SM_STNT_NOSUB vf_stream_bf16_nosub
#define SM_CT uint16_t
#define SM_IS_F32 0
#define SM_IS_BF16 1
#include "softmax_body.h"
#undef SM_T
#undef SM_CT
#undef SM_IS_F32
#undef SM_IS_BF16
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
