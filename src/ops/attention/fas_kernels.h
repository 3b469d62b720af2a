/*
 * The gradient kernels of aclnnFlashAttentionScoreGrad (fas_bwd_impl.h, one copy per tier, compiled
 * into the tier files of the attention kernel so that they share its row conversion, score and
 * exponential helpers).
 *
 * With s_ij = scale (q_i . k_j + pse_ij) (masked: -inf), the softmax P_ij = exp(s_ij - m_i) / l_i
 * is recomputed from the forward's saved row max m_i and sum l_i (no S x Skv matrix is stored),
 * z_ij = keep_ij / keepProb the dropout factor, and Di = dO_i . O_i:
 *   dV_j = sum_i P_ij z_ij dO_i,   dP_ij = z_ij (dO_i . v_j),   dS_ij = P_ij (dP_ij - Di),
 *   dQ_i = scale sum_j dS_ij k_j,  dK_j = scale sum_i dS_ij q_i,  dpse_ij = scale dS_ij (dS_ij when
 *   the pse is added after the scale, pseType 0).
 * Two kernels, each writing only its own outputs (no atomics, no reduction across blocks):
 *   - key units (b, key/value head g, key block of FIA_KB keys) accumulate dK and dV over every
 *     query head of group g and every query row that sees the block, heads then rows in order;
 *   - query units (b, query head h, query block of FAS_QB rows) accumulate dQ over the key blocks
 *     in order, and write dpse.
 * Every sum's order depends only on the shape, so the result does not depend on the thread count.
 */
#ifndef CANNON_OPS_ATTENTION_FAS_KERNELS_H_
#define CANNON_OPS_ATTENTION_FAS_KERNELS_H_

#include <stdint.h>

#include "fia_kernels.h"

/* Query rows per query unit. */
#define FAS_QB 32

typedef struct fas_bwd_args {
    const char *q, *k, *v, *dy, *o, *pse, *mask, *drop, *smax, *ssum; /* bound (optional: NULL) */
    char *dq, *dk, *dv, *dpse;                                        /* bound (dpse: NULL) */
    char *ws;                                                         /* bound: ws_floats per block */
    int32_t isa, dt;
    int32_t has_pse, has_mask, pse_first; /* pse_first: s = scale (q.k + pse), else scale q.k + pse */
    int32_t pse_gen;                      /* 2, 3: the pse is generated from slopes (fia_args) */
    int32_t bf16dot;                      /* scores by vdpbf16ps (fia_args); 2 FAS_QB Dp more floats */
    int32_t pad_;
    int64_t alibi_off;
    int64_t B, N, S, D, Nkv, Skv, group, Dp;
    /* element strides per (b, n, s, d); pse, mask and dpse per (b, n, s, kv); smax/ssum per (b, n, s) */
    int64_t qs[4], ks[4], vs[4], ys[4], os[4], dqs[4], dks[4], dvs[4], ps[4], ms[4], dps[4], xs[3];
    /* B fia_seq records (fia_kernels.h) follow the struct: each batch's rows, lengths and rule */
    float scale, keep_inv;
    int64_t nkb, nqb, kunits, qunits, kper, qper, ws_floats;
    int64_t fused_off; /* fused kernel: the dQ accumulators' offset (floats) in a block's workspace */
} fas_bwd_args;

/* Key units [w0, w1) (dK, dV) and query units [w0, w1) (dQ, dpse) of one tier. */
void cannon_fas_kv_scalar(const fas_bwd_args *a, float *ws, int64_t w0, int64_t w1);
void cannon_fas_kv_avx2(const fas_bwd_args *a, float *ws, int64_t w0, int64_t w1);
void cannon_fas_kv_avx512(const fas_bwd_args *a, float *ws, int64_t w0, int64_t w1);
void cannon_fas_q_scalar(const fas_bwd_args *a, float *ws, int64_t w0, int64_t w1);
void cannon_fas_q_avx2(const fas_bwd_args *a, float *ws, int64_t w0, int64_t w1);
void cannon_fas_q_avx512(const fas_bwd_args *a, float *ws, int64_t w0, int64_t w1);
/* The fused gradient: units [w0, w1) of (b, key/value head g), every key block of the unit in order
 * (dK, dV as the key units) with dQ accumulated in the workspace over the blocks and written at the
 * end: the same sums in the same order as the two kernels, without the query kernel's second
 * computation of the scores. */
void cannon_fas_fused_scalar(const fas_bwd_args *a, float *ws, int64_t w0, int64_t w1);
void cannon_fas_fused_avx2(const fas_bwd_args *a, float *ws, int64_t w0, int64_t w1);
void cannon_fas_fused_avx512(const fas_bwd_args *a, float *ws, int64_t w0, int64_t w1);

#endif /* CANNON_OPS_ATTENTION_FAS_KERNELS_H_ */
