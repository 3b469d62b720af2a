/*
 * aclnnRecurrentGatedDeltaRule: the recurrent (token by token) gated delta rule of linear attention.
 *
 * For value head h and token t of sequence i, with key head kh = h / (Nv / Nk) and the state S of
 * (Dv, Dk):
 *   S <- S * exp(g[t, h])                  (g NULL: a factor of 1)
 *   S <- S * diag(exp(gk[t, h, :]))        (gk NULL: the identity)
 *   S <- S + beta[t, h] (v[t, h] - S k[t, kh]) k[t, kh]^T
 *   out[t, h] = S (scaleValue q[t, kh])
 * Sequence i owns the actualSeqLengths[i] tokens after those of the sequences before it; its state
 * starts from stateRef[ssmStateIndices[start + numAcceptedTokens[i] - 1], h] and, after each token
 * t, is stored to stateRef[ssmStateIndices[t], h] (rounded to stateRef's dtype). Within a sequence
 * the state is carried in fp32 (the stored copies are not read back), as CANN's reference does.
 *
 * One launch, one block per value head: heads touch disjoint parts of stateRef, and inside a head
 * the sequences run in order, so a state written by one sequence and read by a later one is seen as
 * the reference sees it. Sums run in fp32 in index order: results depend on the shape only.
 * Every tensor is read and written through its strides (no copies).
 *
 * The lengths, counts and indices are device data, checked by every block before any write
 * (ACL_ERROR_RT_AICORE_EXCEPTION): lengths non-negative and summing to T, numAcceptedTokens[i] in
 * [1, L_i] for a non-empty sequence, ssmStateIndices in [0, BlockNum).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "aclnnop/aclnn_recurrent_gated_delta_rule.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "fp_convert.h"

#define GDR_MAX_HEADS 256
#define GDR_MAX_DIM 512

typedef struct gdr_args {
    const uint16_t *q, *k, *v, *beta;
    const float *g, *gk;
    const int32_t *asl, *idx, *nat;
    void *state;
    uint16_t *out;
    void *ws;
    int64_t T, B, Nk, Nv, Dk, Dv, nblk;
    int64_t sq[3], sk[3], sv[3], sb[2], sg[2], sgk[3], ss[4], so[3], sasl, sidx, snat;
    int64_t nwork, scratch, ws_off;
    float scale;
    int32_t state_f32, has_g, has_gk;
} gdr_args;

static int gdr_check(const cannon_kernel_ctx *ctx, const gdr_args *a)
{
    int64_t sum = 0;
    for (int64_t i = 0; i < a->B; i++) {
        const int64_t L = a->asl[i * a->sasl];
        if (L < 0 || L > a->T - sum)
            return cannonKernelReportError(ctx, ACL_ERROR_RT_AICORE_EXCEPTION,
                                           "aclnnRecurrentGatedDeltaRule: actualSeqLengths[%lld] = %lld: lengths "
                                           "must be non-negative and sum to T = %lld",
                                           (long long)i, (long long)L, (long long)a->T);
        const int64_t n = a->nat[i * a->snat];
        if (L > 0 && (n < 1 || n > L))
            return cannonKernelReportError(ctx, ACL_ERROR_RT_AICORE_EXCEPTION,
                                           "aclnnRecurrentGatedDeltaRule: numAcceptedTokens[%lld] = %lld is outside "
                                           "[1, %lld] (the sequence's length)",
                                           (long long)i, (long long)n, (long long)L);
        sum += L;
    }
    if (sum != a->T)
        return cannonKernelReportError(ctx, ACL_ERROR_RT_AICORE_EXCEPTION,
                                       "aclnnRecurrentGatedDeltaRule: actualSeqLengths sum to %lld, T is %lld",
                                       (long long)sum, (long long)a->T);
    for (int64_t t = 0; t < a->T; t++) {
        const int64_t s = a->idx[t * a->sidx];
        if (s < 0 || s >= a->nblk)
            return cannonKernelReportError(ctx, ACL_ERROR_RT_AICORE_EXCEPTION,
                                           "aclnnRecurrentGatedDeltaRule: ssmStateIndices[%lld] = %lld is outside "
                                           "[0, %lld)",
                                           (long long)t, (long long)s, (long long)a->nblk);
    }
    return 0;
}

static int gdr_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const gdr_args *a = (const gdr_args *)args;
    if (ctx->worker_id >= (uint32_t)a->nwork)
        return cannonKernelReportError(ctx, ACL_ERROR_RT_PARAM_INVALID,
                                       "aclnnRecurrentGatedDeltaRule: worker %u beyond the %lld planned",
                                       ctx->worker_id, (long long)a->nwork);
    const int rc = gdr_check(ctx, a);
    if (rc)
        return rc;
    const int64_t h = ctx->block_idx, kh = h / (a->Nv / a->Nk), Dk = a->Dk, Dv = a->Dv;
    float *S = (float *)(void *)((char *)a->ws + a->ws_off + (int64_t)ctx->worker_id * a->scratch);
    float *kv = S + Dv * Dk, *qv = kv + Dk, *ek = qv + Dk;
    int64_t start = 0;
    for (int64_t i = 0; i < a->B; i++) {
        const int64_t L = a->asl[i * a->sasl];
        if (L == 0)
            continue;
        const int64_t n = a->nat[i * a->snat];
        const int64_t s0 = a->idx[(start + n - 1) * a->sidx];
        const int64_t sbase = s0 * a->ss[0] + h * a->ss[1];
        for (int64_t r = 0; r < Dv; r++) {
            const int64_t off = sbase + r * a->ss[2];
            if (a->state_f32) {
                const float *src = (const float *)a->state + off;
                for (int64_t c = 0; c < Dk; c++)
                    S[r * Dk + c] = src[c * a->ss[3]];
            } else {
                const uint16_t *src = (const uint16_t *)a->state + off;
                for (int64_t c = 0; c < Dk; c++)
                    S[r * Dk + c] = cannon_bf16_to_f32(src[c * a->ss[3]]);
            }
        }
        for (int64_t t = start; t < start + L; t++) {
            for (int64_t c = 0; c < Dk; c++) {
                kv[c] = cannon_bf16_to_f32(a->k[t * a->sk[0] + kh * a->sk[1] + c * a->sk[2]]);
                qv[c] = cannon_bf16_to_f32(a->q[t * a->sq[0] + kh * a->sq[1] + c * a->sq[2]]) * a->scale;
                ek[c] = a->has_gk ? expf(a->gk[t * a->sgk[0] + h * a->sgk[1] + c * a->sgk[2]]) : 1.0f;
            }
            const float alpha = a->has_g ? expf(a->g[t * a->sg[0] + h * a->sg[1]]) : 1.0f;
            const float beta = cannon_bf16_to_f32(a->beta[t * a->sb[0] + h * a->sb[1]]);
            const int64_t st = a->idx[t * a->sidx] * a->ss[0] + h * a->ss[1];
            for (int64_t r = 0; r < Dv; r++) {
                float *row = S + r * Dk;
                float x = 0.0f;
                for (int64_t c = 0; c < Dk; c++) {
                    row[c] = row[c] * alpha * ek[c];
                    x += row[c] * kv[c];
                }
                const float vr = cannon_bf16_to_f32(a->v[t * a->sv[0] + h * a->sv[1] + r * a->sv[2]]);
                const float y = (vr - x) * beta;
                float o = 0.0f;
                for (int64_t c = 0; c < Dk; c++) {
                    row[c] += y * kv[c];
                    o += row[c] * qv[c];
                }
                a->out[t * a->so[0] + h * a->so[1] + r * a->so[2]] = cannon_f32_to_bf16(o);
                if (a->state_f32) {
                    float *dst = (float *)a->state + st + r * a->ss[2];
                    for (int64_t c = 0; c < Dk; c++)
                        dst[c * a->ss[3]] = row[c];
                } else {
                    uint16_t *dst = (uint16_t *)a->state + st + r * a->ss[2];
                    for (int64_t c = 0; c < Dk; c++)
                        dst[c * a->ss[3]] = cannon_f32_to_bf16(row[c]);
                }
            }
        }
        start += L;
    }
    return 0;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnRecurrentGatedDeltaRuleGetWorkspaceSize(
    const aclTensor *query, const aclTensor *key, const aclTensor *value, const aclTensor *beta, aclTensor *stateRef,
    const aclTensor *actualSeqLengths, const aclTensor *ssmStateIndices, const aclTensor *g, const aclTensor *gk,
    const aclTensor *numAcceptedTokens, float scaleValue, aclTensor *out, uint64_t *workspaceSize,
    aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vq, vk, vv, vb, vs, va, vi, vg, vgk, vn, vo;
    cannonOpBegin(&op, "aclnnRecurrentGatedDeltaRule", workspaceSize, executor);
    cannonOpNotNulls(&op, "query", query, "key", key, "value", value, "beta", beta, "stateRef", stateRef,
                     "actualSeqLengths", actualSeqLengths, "ssmStateIndices", ssmStateIndices, "numAcceptedTokens",
                     numAcceptedTokens, "out", out, NULL);
    cannonOpTensor(&op, "query", query, CANNON_DT_BF16, &vq);
    cannonOpTensor(&op, "key", key, CANNON_DT_BF16, &vk);
    cannonOpTensor(&op, "value", value, CANNON_DT_BF16, &vv);
    cannonOpTensor(&op, "beta", beta, CANNON_DT_BF16, &vb);
    cannonOpTensor(&op, "stateRef", stateRef, CANNON_DT_BF16 | CANNON_DT_F32, &vs);
    cannonOpTensor(&op, "actualSeqLengths", actualSeqLengths, CANNON_DT_I32, &va);
    cannonOpTensor(&op, "ssmStateIndices", ssmStateIndices, CANNON_DT_I32, &vi);
    cannonOpTensorOpt(&op, "g", g, CANNON_DT_F32, &vg);
    cannonOpTensorOpt(&op, "gk", gk, CANNON_DT_F32, &vgk);
    cannonOpTensor(&op, "numAcceptedTokens", numAcceptedTokens, CANNON_DT_I32, &vn);
    cannonOpTensor(&op, "out", out, CANNON_DT_BF16, &vo);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    if (vq.ndim != 3)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "query must be 3-D (T, Nk, Dk) (got %lld-D)", (long long)vq.ndim);
    else if (vv.ndim != 3)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "value must be 3-D (T, Nv, Dv) (got %lld-D)", (long long)vv.ndim);
    else if (vs.ndim != 4)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "stateRef must be 4-D (BlockNum, Nv, Dv, Dk) (got %lld-D)",
                     (long long)vs.ndim);
    else if (va.ndim != 1)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "actualSeqLengths must be 1-D (B) (got %lld-D)",
                     (long long)va.ndim);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const int64_t T = vq.shape[0], Nk = vq.shape[1], Dk = vq.shape[2], Nv = vv.shape[1], Dv = vv.shape[2];
    const int64_t B = va.shape[0], NB = vs.shape[0];
    if (T <= 0 || B <= 0)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "T (%lld) and B (%lld) must be positive (no empty tensors)",
                     (long long)T, (long long)B);
    else if (Nk <= 0 || Nk > GDR_MAX_HEADS || Nv < Nk || Nv > GDR_MAX_HEADS || Nv % Nk)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID,
                     "heads Nk = %lld, Nv = %lld: needs 0 < Nk <= Nv <= %d and Nv a multiple of Nk", (long long)Nk,
                     (long long)Nv, GDR_MAX_HEADS);
    else if (Dk <= 0 || Dk > GDR_MAX_DIM || Dv <= 0 || Dv > GDR_MAX_DIM)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "Dk = %lld, Dv = %lld: each must be in [1, %d]", (long long)Dk,
                     (long long)Dv, GDR_MAX_DIM);
    else if (NB < T)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "stateRef holds %lld states, fewer than T = %lld", (long long)NB,
                     (long long)T);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const int64_t sk[3] = {T, Nk, Dk}, sv[3] = {T, Nv, Dv}, sb[2] = {T, Nv}, ss[4] = {NB, Nv, Dv, Dk};
    const int64_t sgk[3] = {T, Nv, Dk};
    cannonOpShapeIs(&op, "key", &vk, 3, sk);
    cannonOpShapeIs(&op, "beta", &vb, 2, sb);
    cannonOpShapeIs(&op, "stateRef", &vs, 4, ss);
    cannonOpShapeIs(&op, "ssmStateIndices", &vi, 1, &T);
    if (vg.ndim >= 0)
        cannonOpShapeIs(&op, "g", &vg, 2, sb);
    if (vgk.ndim >= 0)
        cannonOpShapeIs(&op, "gk", &vgk, 3, sgk);
    cannonOpShapeIs(&op, "numAcceptedTokens", &vn, 1, &B);
    cannonOpShapeIs(&op, "out", &vo, 3, sv);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);

    const int s_q = cannonOpInput(&op, query), s_k = cannonOpInput(&op, key), s_v = cannonOpInput(&op, value);
    const int s_b = cannonOpInput(&op, beta);
    (void)cannonOpInput(&op, stateRef);
    const int s_a = cannonOpInput(&op, actualSeqLengths), s_i = cannonOpInput(&op, ssmStateIndices);
    const int s_g = cannonOpInput(&op, g), s_gk = cannonOpInput(&op, gk), s_n = cannonOpInput(&op, numAcceptedTokens);
    const int s_o = cannonOpOutput(&op, out);
    const int s_so = cannonOpOutput(&op, stateRef); /* in place: an output too (out first, as CANN) */

    gdr_args a = {0};
    cannon_arg_ref refs[13];
    size_t nr = 0;
    cannonOpBindView(&op, s_q, (uint32_t)offsetof(gdr_args, q), &refs[nr++]);
    cannonOpBindView(&op, s_k, (uint32_t)offsetof(gdr_args, k), &refs[nr++]);
    cannonOpBindView(&op, s_v, (uint32_t)offsetof(gdr_args, v), &refs[nr++]);
    cannonOpBindView(&op, s_b, (uint32_t)offsetof(gdr_args, beta), &refs[nr++]);
    cannonOpBindView(&op, s_so, (uint32_t)offsetof(gdr_args, state), &refs[nr++]);
    cannonOpBindView(&op, s_a, (uint32_t)offsetof(gdr_args, asl), &refs[nr++]);
    cannonOpBindView(&op, s_i, (uint32_t)offsetof(gdr_args, idx), &refs[nr++]);
    if (vg.ndim >= 0)
        cannonOpBindView(&op, s_g, (uint32_t)offsetof(gdr_args, g), &refs[nr++]);
    if (vgk.ndim >= 0)
        cannonOpBindView(&op, s_gk, (uint32_t)offsetof(gdr_args, gk), &refs[nr++]);
    cannonOpBindView(&op, s_n, (uint32_t)offsetof(gdr_args, nat), &refs[nr++]);
    cannonOpBindView(&op, s_o, (uint32_t)offsetof(gdr_args, out), &refs[nr++]);
    refs[nr].args_offset = (uint32_t)offsetof(gdr_args, ws);
    refs[nr].slot = CANNON_SLOT_WORKSPACE;
    refs[nr++].byte_offset = 0;

    a.T = T;
    a.B = B;
    a.Nk = Nk;
    a.Nv = Nv;
    a.Dk = Dk;
    a.Dv = Dv;
    a.nblk = NB;
    for (int d = 0; d < 3; d++) {
        a.sq[d] = vq.strides[d];
        a.sk[d] = vk.strides[d];
        a.sv[d] = vv.strides[d];
        a.so[d] = vo.strides[d];
        a.sgk[d] = vgk.ndim >= 0 ? vgk.strides[d] : 0;
    }
    for (int d = 0; d < 2; d++) {
        a.sb[d] = vb.strides[d];
        a.sg[d] = vg.ndim >= 0 ? vg.strides[d] : 0;
    }
    for (int d = 0; d < 4; d++)
        a.ss[d] = vs.strides[d];
    a.sasl = va.strides[0];
    a.sidx = vi.strides[0];
    a.snat = vn.strides[0];
    a.scale = scaleValue;
    a.state_f32 = vs.dtype == ACL_FLOAT;
    a.has_g = vg.ndim >= 0;
    a.has_gk = vgk.ndim >= 0;
    const uint32_t w = cannonGetWorkerCount();
    a.nwork = w > 0 ? (int64_t)w : 1;
    a.scratch = (int64_t)(((Dv * Dk + 3 * Dk) * (int64_t)sizeof(float) + 63) & ~(int64_t)63);
    uint64_t off = 0;
    cannonOpWorkspace(&op, (uint64_t)(a.nwork * a.scratch), &off);
    a.ws_off = (int64_t)off;
    cannonOpKernel(&op, "recurrent_gated_delta_rule", gdr_kernel, (uint32_t)Nv, &a, sizeof a, refs, nr);
    return cannonOpFinish(&op);
}
