/*
 * aclnnNLLLoss and aclnnNLLLossBackward.
 *
 * Only one element per row of self is read (forward) or non-zero (backward), so the kernels
 * address every tensor through its own view (strides and offset) instead of gathering copies: a
 * strided (N, C) self is never copied whole.
 *
 * Forward: blocks of NLL_ROWS rows; each writes its rows' losses (reduction none) or its fp32 block
 * totals of loss and weight into the workspace; a one-block launch adds the block totals in fp64 in
 * block order and writes out / totalWeightOut. The order is fixed by N, so results are the same
 * for any thread count.
 *
 * Targets are device data: a target outside [0, C) that is not ignoreIndex is never used to
 * address self or weight; it counts as ignored and is reported as the stream's error
 * (ACL_ERROR_RT_AICORE_EXCEPTION, as an out-of-range read on an Ascend device raises), returned by
 * the next synchronize with a message naming it.
 */
#include <string.h>

#include "acl/error_codes/rt_error_codes.h"
#include "aclnnop/aclnn_nll_loss.h"
#include "aclnnop/aclnn_nll_loss_backward.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "fp_convert.h"

#define NLL_ROWS 4096

typedef struct nll_args {
    const void *self, *target, *weight, *gout, *tw;
    void *out, *tw_out;
    float *blk; /* forward: [blocks][2] block totals (loss, weight) */
    int64_t N, C;
    int64_t s0, s1;  /* self / out strides (elements) */
    int64_t ts, ws;  /* target, weight strides */
    int64_t os, gs;  /* out (reduction none, forward) and gradOutput strides */
    int64_t ignore;
    int64_t blocks;
    int32_t dt, tdt, reduction, per_row_grad;
} nll_args;

static inline float ld(const void *p, int dt, int64_t i)
{
    if (dt == ACL_FLOAT)
        return ((const float *)p)[i];
    if (dt == ACL_FLOAT16)
        return cannon_f16_to_f32(((const uint16_t *)p)[i]);
    return cannon_bf16_to_f32(((const uint16_t *)p)[i]);
}

static inline void st(void *p, int dt, int64_t i, float v)
{
    if (dt == ACL_FLOAT)
        ((float *)p)[i] = v;
    else if (dt == ACL_FLOAT16)
        ((uint16_t *)p)[i] = cannon_f32_to_f16(v);
    else
        ((uint16_t *)p)[i] = cannon_f32_to_bf16(v);
}

static inline int64_t ld_target(const void *p, int tdt, int64_t i)
{
    if (tdt == ACL_INT64)
        return ((const int64_t *)p)[i];
    if (tdt == ACL_INT32)
        return ((const int32_t *)p)[i];
    return ((const uint8_t *)p)[i];
}

static int report_target(const cannon_kernel_ctx *ctx, const char *api, int64_t i, int64_t t, int64_t C)
{
    return cannonKernelReportError(ctx, ACL_ERROR_RT_AICORE_EXCEPTION,
                                   "%s: target[%lld] = %lld is out of range [0, %lld) and is not ignoreIndex", api,
                                   (long long)i, (long long)t, (long long)C);
}

static int nll_fwd_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const nll_args *a = (const nll_args *)args;
    const int64_t i0 = (int64_t)ctx->block_idx * NLL_ROWS;
    const int64_t i1 = a->N - i0 < NLL_ROWS ? a->N : i0 + NLL_ROWS;
    float sl = 0.0f, sw = 0.0f;
    int64_t bad = -1, badv = 0;
    for (int64_t i = i0; i < i1; i++) {
        const int64_t t = ld_target(a->target, a->tdt, i * a->ts);
        float loss = 0.0f, w = 0.0f;
        if (t != a->ignore) {
            if (t < 0 || t >= a->C) {
                if (bad < 0) {
                    bad = i;
                    badv = t;
                }
            } else {
                w = ld(a->weight, a->dt, t * a->ws);
                loss = -w * ld(a->self, a->dt, i * a->s0 + t * a->s1);
            }
        }
        if (a->reduction == 0)
            st(a->out, a->dt, i * a->os, loss);
        sl += loss;
        sw += w;
    }
    a->blk[2 * ctx->block_idx] = sl;
    a->blk[2 * ctx->block_idx + 1] = sw;
    if (bad >= 0)
        return report_target(ctx, "aclnnNLLLoss", bad, badv, a->C);
    return 0;
}

static int nll_fwd_final(const cannon_kernel_ctx *ctx, void *args)
{
    (void)ctx;
    const nll_args *a = (const nll_args *)args;
    double sl = 0.0, sw = 0.0;
    for (int64_t b = 0; b < a->blocks; b++) {
        sl += a->blk[2 * b];
        sw += a->blk[2 * b + 1];
    }
    /* As torch: total weight is 0 for reduction none; mean divides by it (0/0 gives NaN). */
    st(a->tw_out, a->dt, 0, a->reduction == 0 ? 0.0f : (float)sw);
    if (a->reduction == 1)
        st(a->out, a->dt, 0, (float)(sl / sw));
    else if (a->reduction == 2)
        st(a->out, a->dt, 0, (float)sl);
    return 0;
}

static int nll_bwd_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const nll_args *a = (const nll_args *)args;
    const int64_t rows = a->blocks; /* rows per block in the backward */
    const int64_t i0 = (int64_t)ctx->block_idx * rows;
    const int64_t i1 = a->N - i0 < rows ? a->N : i0 + rows;
    float g = 0.0f;
    if (!a->per_row_grad) {
        g = ld(a->gout, a->dt, 0);
        if (a->reduction == 1)
            g = g / ld(a->tw, a->dt, 0);
    }
    int64_t bad = -1, badv = 0;
    const int esz = a->dt == ACL_FLOAT ? 4 : 2;
    for (int64_t i = i0; i < i1; i++) {
        if (a->s1 == 1) {
            memset((char *)a->out + i * a->s0 * esz, 0, (size_t)(a->C * esz));
        } else {
            for (int64_t c = 0; c < a->C; c++)
                st(a->out, a->dt, i * a->s0 + c * a->s1, 0.0f);
        }
        const int64_t t = ld_target(a->target, a->tdt, i * a->ts);
        if (t == a->ignore)
            continue;
        if (t < 0 || t >= a->C) {
            if (bad < 0) {
                bad = i;
                badv = t;
            }
            continue;
        }
        const float gi = a->per_row_grad ? ld(a->gout, a->dt, i * a->gs) : g;
        st(a->out, a->dt, i * a->s0 + t * a->s1, -ld(a->weight, a->dt, t * a->ws) * gi);
    }
    if (bad >= 0)
        return report_target(ctx, "aclnnNLLLossBackward", bad, badv, a->C);
    return 0;
}

/* Checks of target, weight, reduction and the shapes of self, target and weight (the tensors
 * themselves are checked by the caller); fills N, C and the self/target/weight strides. */
static bool check_common(cannon_op *op, const cannon_tensor_view *vs, const cannon_tensor_view *vt,
                         const cannon_tensor_view *vw, int64_t reduction, nll_args *a)
{
    cannonOpSameDtype(op, "weight", vw, "self", vs);
    if (cannonOpOk(op) && (reduction < 0 || reduction > 2))
        cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "reduction %lld is not 0 (none), 1 (mean) or 2 (sum)",
                     (long long)reduction);
    if (cannonOpOk(op) && vs->ndim != 1 && vs->ndim != 2)
        cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "self must be (N, C) or (C), got rank %lld", (long long)vs->ndim);
    if (!cannonOpOk(op))
        return false;
    a->C = vs->shape[vs->ndim - 1];
    a->N = vs->ndim == 2 ? vs->shape[0] : 1;
    a->s0 = vs->ndim == 2 ? vs->strides[0] : 0;
    a->s1 = vs->strides[vs->ndim - 1];
    if (vs->ndim == 2 ? (vt->ndim != 1 || vt->shape[0] != a->N) : (vt->ndim > 1 || (vt->ndim == 1 && vt->shape[0] != 1)))
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "target must have shape (%lld)%s", (long long)a->N,
                            vs->ndim == 2 ? "" : " or ()");
    a->ts = vt->ndim == 1 ? vt->strides[0] : 0;
    if (vw->ndim != 1 || vw->shape[0] != a->C)
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "weight must have shape (C) = (%lld)", (long long)a->C);
    a->ws = vw->strides[0];
    a->dt = vs->dtype;
    a->tdt = vt->dtype;
    a->reduction = (int32_t)reduction;
    return true;
}

/* Target dtypes. */
#define NLL_DTS_TARGET (CANNON_DT_I64 | CANNON_DT_I32 | CANNON_DT_U8)

ACL_FUNC_VISIBILITY aclnnStatus aclnnNLLLossGetWorkspaceSize(const aclTensor *self, const aclTensor *target,
                                                             const aclTensor *weight, int64_t reduction,
                                                             int64_t ignoreIndex, aclTensor *out,
                                                             aclTensor *totalWeightOut, uint64_t *workspaceSize,
                                                             aclOpExecutor **executor)
{
    static const char api[] = "aclnnNLLLoss";
    const cannon_dtype_set dts = cn_dts_NLLLoss();
    cannon_op op;
    cannon_tensor_view vs, vt, vw, vo, vtw;
    cannonOpBegin(&op, api, workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, "target", target, "weight", weight, "out", out, "totalWeightOut",
                     totalWeightOut, NULL);
    cannonOpTensor(&op, "self", self, dts, &vs);
    cannonOpTensor(&op, "target", target, NLL_DTS_TARGET, &vt);
    cannonOpTensor(&op, "weight", weight, dts, &vw);
    cannonOpTensor(&op, "out", out, dts, &vo);
    cannonOpTensor(&op, "totalWeightOut", totalWeightOut, dts, &vtw);
    nll_args a;
    memset(&a, 0, sizeof a);
    if (!check_common(&op, &vs, &vt, &vw, reduction, &a))
        return cannonOpFinish(&op);
    cannonOpSameDtype(&op, "out", &vo, "self", &vs);
    cannonOpSameDtype(&op, "totalWeightOut", &vtw, "self", &vs);
    const int none2d = reduction == 0 && vs.ndim == 2;
    if (cannonOpOk(&op) && (none2d ? (vo.ndim != 1 || vo.shape[0] != a.N) : cannonTensorNumel(out) != 1))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "out must have %s", none2d ? "shape (N)" : "one element");
    if (cannonOpOk(&op) && cannonTensorNumel(totalWeightOut) != 1)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "totalWeightOut must have one element");
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    a.os = vo.ndim == 1 ? vo.strides[0] : 0;
    a.ignore = ignoreIndex;
    /* As torch: with 1-D self every reduction gives one element, and "none" is the sum of the
     * single term (with its total weight); only 2-D "none" writes per-row losses. */
    if (reduction == 0 && vs.ndim == 1)
        a.reduction = 2;

    /* Every tensor is addressed through its own view: only one element per row is read. */
    const int ss = cannonOpInput(&op, self), stt = cannonOpInput(&op, target), sw = cannonOpInput(&op, weight);
    const int so = cannonOpOutput(&op, out), stw = cannonOpOutput(&op, totalWeightOut);
    cannon_arg_ref refs[6];
    cannonOpBindView(&op, ss, (uint32_t)offsetof(nll_args, self), &refs[0]);
    cannonOpBindView(&op, stt, (uint32_t)offsetof(nll_args, target), &refs[1]);
    cannonOpBindView(&op, sw, (uint32_t)offsetof(nll_args, weight), &refs[2]);
    cannonOpBindView(&op, so, (uint32_t)offsetof(nll_args, out), &refs[3]);
    cannonOpBindView(&op, stw, (uint32_t)offsetof(nll_args, tw_out), &refs[4]);
    a.blocks = a.N > 0 ? (a.N + NLL_ROWS - 1) / NLL_ROWS : 0;
    uint64_t ws_blk = 0;
    cannonOpWorkspace(&op, (uint64_t)(a.blocks > 0 ? a.blocks : 1) * 2 * sizeof(float), &ws_blk);
    refs[5] = (cannon_arg_ref){(uint32_t)offsetof(nll_args, blk), CANNON_SLOT_WORKSPACE, (int64_t)ws_blk};
    if (a.blocks > 0)
        cannonOpKernel(&op, api, nll_fwd_kernel, (uint32_t)a.blocks, &a, sizeof a, refs, 6);
    cannonOpKernel(&op, api, nll_fwd_final, 1, &a, sizeof a, refs, 6);
    return cannonOpFinish(&op);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnNLLLossBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                                     const aclTensor *target, const aclTensor *weight,
                                                                     int64_t reduction, int64_t ignoreIndex,
                                                                     const aclTensor *totalWeight, aclTensor *out,
                                                                     uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char api[] = "aclnnNLLLossBackward";
    const cannon_dtype_set dts = cn_dts_NLLLossBackward();
    cannon_op op;
    cannon_tensor_view vg, vs, vt, vw, vtw, vo;
    cannonOpBegin(&op, api, workspaceSize, executor);
    cannonOpNotNulls(&op, "gradOutput", gradOutput, "self", self, "target", target, "weight", weight, "totalWeight",
                     totalWeight, "out", out, NULL);
    cannonOpTensor(&op, "gradOutput", gradOutput, dts, &vg);
    cannonOpTensor(&op, "self", self, dts, &vs);
    cannonOpTensor(&op, "target", target, NLL_DTS_TARGET, &vt);
    cannonOpTensor(&op, "weight", weight, dts, &vw);
    cannonOpTensor(&op, "totalWeight", totalWeight, dts, &vtw);
    cannonOpTensor(&op, "out", out, dts, &vo);
    nll_args a;
    memset(&a, 0, sizeof a);
    if (!check_common(&op, &vs, &vt, &vw, reduction, &a))
        return cannonOpFinish(&op);
    cannonOpSameDtype(&op, "gradOutput", &vg, "self", &vs);
    cannonOpSameDtype(&op, "totalWeight", &vtw, "self", &vs);
    cannonOpSameDtype(&op, "out", &vo, "self", &vs);
    cannonOpSameShape(&op, "out", &vo, "self", &vs);
    a.per_row_grad = reduction == 0 && vs.ndim == 2;
    if (cannonOpOk(&op) && (a.per_row_grad ? (vg.ndim != 1 || vg.shape[0] != a.N) : cannonTensorNumel(gradOutput) != 1))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "gradOutput must have %s",
                     a.per_row_grad ? "shape (N)" : "one element");
    if (cannonOpOk(&op) && cannonTensorNumel(totalWeight) != 1)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "totalWeight must have one element");
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    a.gs = vg.ndim == 1 ? vg.strides[0] : 0;
    a.ignore = ignoreIndex;
    /* out is addressed with self's layout fields: use out's own strides. */
    a.s0 = vo.ndim == 2 ? vo.strides[0] : 0;
    a.s1 = vo.strides[vo.ndim - 1];

    const int sg = cannonOpInput(&op, gradOutput);
    cannonOpInput(&op, self); /* registered in CANN's order; only its shape is used */
    const int stt = cannonOpInput(&op, target), sw = cannonOpInput(&op, weight);
    const int stw = cannonOpInput(&op, totalWeight), so = cannonOpOutput(&op, out);
    if (a.N == 0 || a.C == 0)
        return cannonOpFinish(&op);
    cannon_arg_ref refs[5];
    cannonOpBindView(&op, sg, (uint32_t)offsetof(nll_args, gout), &refs[0]);
    cannonOpBindView(&op, stt, (uint32_t)offsetof(nll_args, target), &refs[1]);
    cannonOpBindView(&op, sw, (uint32_t)offsetof(nll_args, weight), &refs[2]);
    cannonOpBindView(&op, stw, (uint32_t)offsetof(nll_args, tw), &refs[3]);
    cannonOpBindView(&op, so, (uint32_t)offsetof(nll_args, out), &refs[4]);
    /* About 64 KiB of output per block. */
    const int64_t rowb = a.C * (int64_t)cannonDtypeSize(vs.dtype);
    a.blocks = rowb >= 65536 ? 1 : 65536 / rowb;
    while ((a.N + a.blocks - 1) / a.blocks > ((int64_t)1 << 24))
        a.blocks *= 2;
    const uint32_t nb = (uint32_t)((a.N + a.blocks - 1) / a.blocks);
    cannonOpKernel(&op, api, nll_bwd_kernel, nb, &a, sizeof a, refs, 5);
    return cannonOpFinish(&op);
}
