/*
 * aclnnFusedInferAttentionScoreV2: attention for inference,
 *   attentionOut[b,h,i,:] = sum_j softmax_j(scale * q[b,h,i,:] . k[b,g,j,:] + pse[b,h,i,j], masked) v[b,g,j,:]
 * with g = h / (numHeads / numKeyValueHeads) (grouped-query heads).
 *
 * Phase 1 checks the arguments, reduces every tensor to element strides per (batch, head,
 * sequence, head-dim) whatever its layout (BSH, BSND, BNSD, BNSD_BSND) and views (any strides,
 * broadcast masks of stride 0), turns sparseMode / preTokens / nextTokens into one band rule per
 * row, and records one kernel over units of (batch, key/value head, query block), see
 * fia_kernels.h. The kernel walks the strides itself (no gather), keeps O(rows x D) state per unit
 * in the workspace of its block, and computes in fp32 with the result rounded once. Blocks hold
 * consecutive units and their count depends only on the shape; each unit's arithmetic is fixed by
 * the shape, so the result does not depend on the worker count.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_fused_infer_attention_score_v2.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "../kernels/isa.h"
#include "fia_kernels.h"
#include "fp_convert.h"

#define FIA_API "aclnnFusedInferAttentionScoreV2"
/* Record an invalid argument (161002) and end phase 1. */
#define FIA_FAIL(...)                                                                                                  \
    do {                                                                                                               \
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, __VA_ARGS__);                                                       \
        return cannonOpFinish(&op);                                                                                    \
    } while (0)
#define FIA_MAX_BLOCKS 64
/* CANN's limits: B <= 65536, N <= 256, D <= 512, numHeads / numKeyValueHeads <= 64. */
#define FIA_MAX_B 65536
#define FIA_MAX_N 256
#define FIA_MAX_D 512
#define FIA_MAX_GROUP 64
/* Key split (fia_kernels.h): launches of fewer than FIA_SPLIT_UNITS units cut each unit's keys into
 * chunks of at least FIA_SPLIT_KEYS keys, up to FIA_SPLIT_UNITS work items in all. */
#define FIA_SPLIT_UNITS 16
#define FIA_SPLIT_KEYS 512
/* The side of the optimised causal mask sparseMode 2, 3 and 4 take. */
#define FIA_OPT_MASK 2048

enum { L_BSH, L_BSND, L_BNSD, L_BNSD_BSND };

static int fia_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const fia_args *a = (const fia_args *)args;
    const int64_t u0 = (int64_t)ctx->block_idx * a->per_block;
    if (u0 >= a->items)
        return 0;
    const int64_t u1 = a->items - u0 < a->per_block ? a->items : u0 + a->per_block;
    float *ws = (float *)(void *)a->ws + (int64_t)ctx->block_idx * a->ws_floats;
    FIA_TIER_FN(cannon_fia_units, a->isa)(a, ws, u0, u1);
    return 0;
}

/* Block u of the key split's second kernel: unit u's rows from its chunks' (m, l, acc), in chunk
 * order: m* = max m_c, l = sum l_c e^(m_c - m*), out = sum acc_c e^(m_c - m*) / l (0 where l is 0). */
static int fia_combine_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const fia_args *a = (const fia_args *)args;
    const int64_t u = ctx->block_idx, Dp = a->Dp, D = a->D, G = a->group, stride = a->part_rows * (Dp + 2);
    const int64_t qb = u % a->nqb, t = u / a->nqb, g = t % a->Nkv, b = t / a->Nkv, i0 = qb * a->qblk;
    const int64_t ni = a->S - i0 < a->qblk ? a->S - i0 : a->qblk;
    const float *p0 = (const float *)(const void *)a->part + u * a->nsplit * stride;
    float *o = (float *)(void *)a->ws + (int64_t)ctx->block_idx * a->ws_floats;
    for (int64_t r = 0; r < G * ni; r++) {
        const int64_t h = g * G + r / ni, i = i0 + r % ni;
        float mx = -__builtin_inff();
        for (int64_t c = 0; c < a->nsplit; c++) {
            const float mc = p0[c * stride + r * (Dp + 2)];
            mx = mc > mx || mc != mc ? mc : mx;
        }
        float l = 0.0f;
        memset(o, 0, (size_t)D * sizeof(float));
        if (mx != -__builtin_inff())
            for (int64_t c = 0; c < a->nsplit; c++) {
                const float *pr = p0 + c * stride + r * (Dp + 2);
                if (pr[0] == -__builtin_inff())
                    continue;
                const float w = expf(pr[0] - mx);
                l += pr[1] * w;
                for (int64_t d = 0; d < D; d++)
                    o[d] += pr[2 + d] * w;
            }
        const float inv = l != 0.0f ? 1.0f / l : 0.0f;
        char *dst = a->out + (b * a->os[0] + h * a->os[1] + i * a->os[2]) * 2;
        for (int64_t d = 0; d < D; d++) {
            const float y = o[d] * inv;
            const uint16_t x = a->dt == FIA_F16 ? cannon_f32_to_f16(y) : cannon_f32_to_bf16(y);
            memcpy(dst + d * a->os[3] * 2, &x, sizeof x);
        }
        if (a->lse) {
            const float v = l != 0.0f ? (float)((double)mx + log((double)l)) : -__builtin_inff();
            memcpy(a->lse + (b * a->ls[0] + h * a->ls[1] + i * a->ls[2]) * 4, &v, sizeof v);
        }
    }
    return 0;
}

/* The one tensor of list @p l (argument @p name); NULL after a failure. */
static const aclTensor *fia_list_one(cannon_op *op, const char *name, const aclTensorList *l)
{
    uint64_t n = 0;
    if (!cannonOpOk(op))
        return NULL;
    if (aclGetTensorListSize(l, &n) != ACLNN_SUCCESS) {
        cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s is not a live aclTensorList", name);
        return NULL;
    }
    if (n != 1) {
        cannonOpFail(op, ACLNN_ERR_PARAM_INVALID,
                     "%s holds %llu tensors: only the one-tensor list (the whole batch in one tensor) is "
                     "supported",
                     name, (unsigned long long)n);
        return NULL;
    }
    const aclTensor *t = cannonTensorListGet(l, 0);
    if (!t)
        cannonOpFail(op, ACLNN_ERR_PARAM_NULLPTR, "%s[0] is NULL", name);
    return t;
}

/* Per-batch lengths from @p arr (NULL: @p full each) into @p out[B], each in [0, full]. */
static void fia_lengths(cannon_op *op, const char *name, const aclIntArray *arr, int64_t B, int64_t full, int64_t *out)
{
    for (int64_t b = 0; b < B; b++)
        out[b] = full;
    if (!arr || !cannonOpOk(op))
        return;
    uint64_t n = 0;
    const int64_t *p = cannonIntArrayData(arr, &n);
    if (!p || (n != 1 && n < (uint64_t)B)) {
        cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s holds %llu values: 1 or at least B (%lld) are accepted", name,
                     (unsigned long long)n, (long long)B);
        return;
    }
    for (int64_t b = 0; b < B; b++) {
        const int64_t v = p[n == 1 ? 0 : b];
        if (v < 0 || v > full) {
            cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s[%lld] = %lld is outside [0, %lld]", name,
                         (long long)(n == 1 ? 0 : b), (long long)v, (long long)full);
            return;
        }
        out[b] = v;
    }
}

static int64_t clamp_far(int64_t v)
{
    return v < -FIA_FAR ? -FIA_FAR : (v > FIA_FAR ? FIA_FAR : v);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnFusedInferAttentionScoreV2GetWorkspaceSize(
    const aclTensor *query, const aclTensorList *key, const aclTensorList *value, const aclTensor *pseShiftOptional,
    const aclTensor *attenMaskOptional, const aclIntArray *actualSeqLengthsOptional,
    const aclIntArray *actualSeqLengthsKvOptional, const aclTensor *deqScale1Optional,
    const aclTensor *quantScale1Optional, const aclTensor *deqScale2Optional, const aclTensor *quantScale2Optional,
    const aclTensor *quantOffset2Optional, const aclTensor *antiquantScaleOptional,
    const aclTensor *antiquantOffsetOptional, const aclTensor *blockTableOptional,
    const aclTensor *queryPaddingSizeOptional, const aclTensor *kvPaddingSizeOptional,
    const aclTensor *keyAntiquantScaleOptional, const aclTensor *keyAntiquantOffsetOptional,
    const aclTensor *valueAntiquantScaleOptional, const aclTensor *valueAntiquantOffsetOptional,
    const aclTensor *keySharedPrefixOptional, const aclTensor *valueSharedPrefixOptional,
    const aclIntArray *actualSharedPrefixLenOptional, int64_t numHeads, double scaleValue, int64_t preTokens,
    int64_t nextTokens, char *inputLayout, int64_t numKeyValueHeads, int64_t sparseMode, int64_t innerPrecise,
    int64_t blockSize, int64_t antiquantMode, bool softmaxLseFlag, int64_t keyAntiquantMode, int64_t valueAntiquantMode,
    const aclTensor *attentionOut, const aclTensor *softmaxLse, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    /* Page attention (blockSize) and the antiquant modes only qualify inputs that are rejected
     * below when present; without them CANN ignores these values too. */
    (void)blockSize;
    (void)antiquantMode;
    (void)keyAntiquantMode;
    (void)valueAntiquantMode;
    cannon_op op;
    cannon_tensor_view vq, vk, vv, vo, vp, vm, vl;
    cannonOpBegin(&op, FIA_API, workspaceSize, executor);
    cannonOpNotNulls(&op, "query", query, "key", key, "value", value, "inputLayout", inputLayout, "attentionOut",
                     attentionOut, NULL);
    if (softmaxLseFlag && cannonOpOk(&op) && !softmaxLse)
        cannonOpFail(&op, ACLNN_ERR_PARAM_NULLPTR, "softmaxLse is NULL while softmaxLseFlag is true");
    const aclTensor *kt = fia_list_one(&op, "key", key);
    const aclTensor *vt = fia_list_one(&op, "value", value);

    const struct {
        const char *name;
        const void *p;
    } unsupported[] = {
        {"deqScale1Optional", deqScale1Optional},
        {"quantScale1Optional", quantScale1Optional},
        {"deqScale2Optional", deqScale2Optional},
        {"quantScale2Optional", quantScale2Optional},
        {"quantOffset2Optional", quantOffset2Optional},
        {"antiquantScaleOptional", antiquantScaleOptional},
        {"antiquantOffsetOptional", antiquantOffsetOptional},
        {"blockTableOptional", blockTableOptional},
        {"queryPaddingSizeOptional", queryPaddingSizeOptional},
        {"kvPaddingSizeOptional", kvPaddingSizeOptional},
        {"keyAntiquantScaleOptional", keyAntiquantScaleOptional},
        {"keyAntiquantOffsetOptional", keyAntiquantOffsetOptional},
        {"valueAntiquantScaleOptional", valueAntiquantScaleOptional},
        {"valueAntiquantOffsetOptional", valueAntiquantOffsetOptional},
        {"keySharedPrefixOptional", keySharedPrefixOptional},
        {"valueSharedPrefixOptional", valueSharedPrefixOptional},
        {"actualSharedPrefixLenOptional", actualSharedPrefixLenOptional},
    };
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0] && cannonOpOk(&op); i++)
        if (unsupported[i].p)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID,
                         "%s is not supported (quantised, paged, padded and shared-prefix attention are not "
                         "implemented): pass NULL",
                         unsupported[i].name);

    const cannon_dtype_set dts = cn_dts_FusedInferAttentionScoreV2();
    cannonOpTensor(&op, "query", query, dts, &vq);
    cannonOpTensor(&op, "key[0]", kt, dts, &vk);
    cannonOpTensor(&op, "value[0]", vt, dts, &vv);
    cannonOpTensor(&op, "attentionOut", attentionOut, dts, &vo);
    cannonOpSameDtype(&op, "key[0]", &vk, "query", &vq);
    cannonOpSameDtype(&op, "value[0]", &vv, "query", &vq);
    cannonOpSameDtype(&op, "attentionOut", &vo, "query", &vq);
    cannonOpSameShape(&op, "value[0]", &vv, "key[0]", &vk);
    cannonOpTensorOpt(&op, "pseShiftOptional", pseShiftOptional, dts, &vp);
    if (cannonOpOk(&op) && pseShiftOptional)
        cannonOpSameDtype(&op, "pseShiftOptional", &vp, "query", &vq);
    cannonOpTensorOpt(&op, "attenMaskOptional", attenMaskOptional, CANNON_DT_BOOL | CANNON_DT_I8 | CANNON_DT_U8, &vm);
    if (softmaxLseFlag)
        cannonOpTensor(&op, "softmaxLse", softmaxLse, CANNON_DT_F32, &vl);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);

    int lay = -1;
    if (!strcmp(inputLayout, "BSH"))
        lay = L_BSH;
    else if (!strcmp(inputLayout, "BSND"))
        lay = L_BSND;
    else if (!strcmp(inputLayout, "BNSD"))
        lay = L_BNSD;
    else if (!strcmp(inputLayout, "BNSD_BSND"))
        lay = L_BNSD_BSND;
    else {
        char shown[24];
        snprintf(shown, sizeof shown, "%s", inputLayout);
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID,
                     "inputLayout \"%s\" is not supported: BSH, BSND, BNSD and BNSD_BSND are (TND and the other "
                     "layouts are not implemented)",
                     shown);
        return cannonOpFinish(&op);
    }
    const int64_t rank = lay == L_BSH ? 3 : 4;
    const char *tname[3] = {"query", "key[0]", "attentionOut"};
    const cannon_tensor_view *tv[3] = {&vq, &vk, &vo};
    for (int i = 0; i < 3; i++)
        if (tv[i]->ndim != rank)
            FIA_FAIL("%s is %lld-D: layout %s takes %lld-D tensors", tname[i], (long long)tv[i]->ndim, inputLayout,
                     (long long)rank);
    if (numHeads < 1 || numHeads > FIA_MAX_N)
        FIA_FAIL("numHeads = %lld is outside [1, %d]", (long long)numHeads, FIA_MAX_N);
    const int64_t N = numHeads, Nkv = numKeyValueHeads == 0 ? numHeads : numKeyValueHeads;
    if (Nkv < 1 || N % Nkv != 0 || N / Nkv > FIA_MAX_GROUP)
        FIA_FAIL("numKeyValueHeads = %lld: it must divide numHeads (%lld) with a ratio of at most %d "
                 "(0: numHeads)",
                 (long long)numKeyValueHeads, (long long)N, FIA_MAX_GROUP);

    /* (b, n, s, d) sizes and strides of query, key/value and attentionOut. */
    int64_t B, S, D, Skv, qn, kn, kd;
    int64_t qs[4], ks[4], vs[4], os[4];
    const int64_t *q = vq.shape, *k = vk.shape;
    if (lay == L_BSH) {
        B = q[0];
        S = q[1];
        if (q[2] % N != 0)
            FIA_FAIL("query's H (%lld) is not a multiple of numHeads (%lld)", (long long)q[2], (long long)N);
        D = q[2] / N;
        qn = N;
        Skv = k[1];
        kn = D ? k[2] / D : Nkv;
        kd = D ? (k[2] % D == 0 ? D : -1) : 0;
        const cannon_tensor_view *src[3] = {&vq, &vk, &vv};
        int64_t *dst[3] = {qs, ks, vs};
        for (int i = 0; i < 3; i++) {
            const int64_t *st = src[i]->strides;
            dst[i][0] = st[0];
            dst[i][1] = D * st[2];
            dst[i][2] = st[1];
            dst[i][3] = st[2];
        }
    } else {
        const int bsnd = lay == L_BSND;
        B = q[0];
        S = bsnd ? q[1] : q[2];
        qn = bsnd ? q[2] : q[1];
        D = q[3];
        Skv = bsnd ? k[1] : k[2];
        kn = bsnd ? k[2] : k[1];
        kd = k[3];
        const cannon_tensor_view *src[3] = {&vq, &vk, &vv};
        int64_t *dst[3] = {qs, ks, vs};
        for (int i = 0; i < 3; i++) {
            const int64_t *st = src[i]->strides;
            dst[i][0] = st[0];
            dst[i][1] = bsnd ? st[2] : st[1];
            dst[i][2] = bsnd ? st[1] : st[2];
            dst[i][3] = st[3];
        }
    }
    if (qn != N)
        FIA_FAIL("query has %lld heads, numHeads is %lld", (long long)qn, (long long)N);
    if (k[0] != B || kn != Nkv || kd != D) {
        char ksh[96], qsh[96];
        cannonShapeFormat(&vk, ksh, sizeof ksh);
        cannonShapeFormat(&vq, qsh, sizeof qsh);
        FIA_FAIL("key[0] %s does not match query %s in layout %s with %lld key/value heads", ksh, qsh, inputLayout,
                 (long long)Nkv);
    }
    if (B > FIA_MAX_B || D > FIA_MAX_D)
        FIA_FAIL("B = %lld, D = %lld: at most B %d, D %d are supported", (long long)B, (long long)D, FIA_MAX_B,
                 FIA_MAX_D);
    /* attentionOut: query's shape, BSND for BNSD_BSND. */
    {
        int64_t want[4];
        if (lay == L_BSH) {
            want[0] = B, want[1] = S, want[2] = N * D;
        } else if (lay == L_BNSD) {
            want[0] = B, want[1] = N, want[2] = S, want[3] = D;
        } else {
            want[0] = B, want[1] = S, want[2] = N, want[3] = D;
        }
        for (int64_t i = 0; i < rank; i++)
            if (vo.shape[i] != want[i]) {
                char osh[96];
                cannonShapeFormat(&vo, osh, sizeof osh);
                FIA_FAIL("attentionOut %s: layout %s with B %lld, S %lld, N %lld, D %lld needs %s", osh, inputLayout,
                         (long long)B, (long long)S, (long long)N, (long long)D,
                         lay == L_BSH ? "[B,S,H]" : (lay == L_BNSD ? "[B,N,S,D]" : "[B,S,N,D]"));
            }
        const int64_t *st = vo.strides;
        if (lay == L_BSH) {
            os[0] = st[0], os[1] = D * st[2], os[2] = st[1], os[3] = st[2];
        } else if (lay == L_BNSD) {
            os[0] = st[0], os[1] = st[1], os[2] = st[2], os[3] = st[3];
        } else {
            os[0] = st[0], os[1] = st[2], os[2] = st[1], os[3] = st[3];
        }
    }

    fia_args a;
    memset(&a, 0, sizeof a);
    /* pseShift: [B or 1, N, >= S, >= Skv]. */
    if (pseShiftOptional) {
        const int64_t *p = vp.shape;
        if (vp.ndim != 4 || (p[0] != B && p[0] != 1) || p[1] != N || p[2] < S || p[3] < Skv) {
            char psh[96];
            cannonShapeFormat(&vp, psh, sizeof psh);
            FIA_FAIL("pseShiftOptional %s: [B or 1, N, S, Skv] = [%lld or 1, %lld, %lld, %lld] is needed "
                     "(S and Skv may be padded larger)",
                     psh, (long long)B, (long long)N, (long long)S, (long long)Skv);
        }
        a.has_pse = 1;
        a.ps[0] = p[0] == 1 ? 0 : vp.strides[0];
        a.ps[1] = vp.strides[1];
        a.ps[2] = vp.strides[2];
        a.ps[3] = vp.strides[3];
    }

    /* sparseMode, preTokens, nextTokens -> the band rule (S = 1: ignored, as CANN does). */
    int read_mask = attenMaskOptional != NULL;
    a.lo = -FIA_FAR;
    a.hi = FIA_FAR;
    if (innerPrecise < 0 || innerPrecise > 3)
        FIA_FAIL("innerPrecise = %lld is outside [0, 3]", (long long)innerPrecise);
    if (S > 1) {
        if (sparseMode >= 5 && sparseMode <= 8)
            FIA_FAIL("sparseMode %lld (prefix, global, dilated, block_local) is not supported: 0 to 4 are",
                     (long long)sparseMode);
        if (sparseMode < 0 || sparseMode > 8)
            FIA_FAIL("sparseMode = %lld is outside [0, 4]", (long long)sparseMode);
        if (sparseMode >= 1 && !attenMaskOptional)
            FIA_FAIL("sparseMode %lld needs attenMaskOptional", (long long)sparseMode);
        if (sparseMode >= 2) {
            const int64_t *m = vm.shape;
            int ok = vm.ndim >= 2 && m[vm.ndim - 1] == FIA_OPT_MASK && m[vm.ndim - 2] == FIA_OPT_MASK;
            for (int64_t i = 0; i + 2 < vm.ndim; i++)
                ok = ok && m[i] == 1;
            if (!ok) {
                char msh[96];
                cannonShapeFormat(&vm, msh, sizeof msh);
                FIA_FAIL("attenMaskOptional %s: sparseMode %lld takes the optimised causal mask "
                         "[2048,2048], [1,2048,2048] or [1,1,2048,2048]",
                         msh, (long long)sparseMode);
            }
            read_mask = 0; /* its lower triangle is implied by the band rule */
        }
        switch (sparseMode) {
        case 0:
            if (attenMaskOptional) {
                a.lo = -clamp_far(preTokens);
                a.hi = clamp_far(nextTokens);
            }
            break;
        case 2:
            a.hi = 0;
            break;
        case 3:
            a.hi = 0;
            a.rightdown = 1;
            break;
        case 4:
            a.lo = -clamp_far(preTokens);
            a.hi = clamp_far(nextTokens);
            a.rightdown = 1;
            break;
        default:
            break;
        }
    }
    /* attenMask: [S,Skv], [B,Skv] (S = 1), [B or 1,S,Skv], [B or 1,N or 1,S,Skv]; S and Skv may be padded. */
    if (read_mask) {
        const int64_t *m = vm.shape, *st = vm.strides;
        int ok = vm.ndim >= 2 && vm.ndim <= 4 && m[vm.ndim - 1] >= Skv;
        int64_t ms[4] = {0, 0, 0, st[vm.ndim - 1]};
        if (ok && vm.ndim == 2) {
            if (S == 1 && m[0] == B && B > 1)
                ms[0] = st[0];
            else if (m[0] >= S)
                ms[2] = st[0];
            else
                ok = 0;
        } else if (ok) {
            const int64_t bm = m[0], nm = vm.ndim == 4 ? m[1] : 1, sm = m[vm.ndim - 2];
            ok = (bm == B || bm == 1) && (nm == N || nm == 1) && sm >= S;
            ms[0] = bm == 1 ? 0 : st[0];
            ms[1] = vm.ndim == 4 && nm != 1 ? st[1] : 0;
            ms[2] = sm == 1 ? 0 : st[vm.ndim - 2];
        }
        if (!ok) {
            char msh[96];
            cannonShapeFormat(&vm, msh, sizeof msh);
            FIA_FAIL("attenMaskOptional %s: [S,Skv], [B,Skv] (S = 1), [B or 1,S,Skv] or [B or 1,N or 1,"
                     "S,Skv] with B %lld, N %lld, S %lld, Skv %lld is needed (S and Skv may be padded "
                     "larger)",
                     msh, (long long)B, (long long)N, (long long)S, (long long)Skv);
        }
        a.has_mask = 1;
        memcpy(a.ms, ms, sizeof ms);
    }
    if (softmaxLseFlag) {
        const int64_t *l = vl.shape;
        if (vl.ndim != 4 || l[0] != B || l[1] != N || l[2] != S || l[3] != 1) {
            char lsh[96];
            cannonShapeFormat(&vl, lsh, sizeof lsh);
            FIA_FAIL("softmaxLse %s: [B,N,S,1] = [%lld,%lld,%lld,1] is needed", lsh, (long long)B, (long long)N,
                     (long long)S);
        }
        a.ls[0] = vl.strides[0];
        a.ls[1] = vl.strides[1];
        a.ls[2] = vl.strides[2];
    }

    /* Per-batch lengths (the query's are ignored when S is 1, as CANN does). */
    const int has_lens = (actualSeqLengthsOptional && S > 1) || actualSeqLengthsKvOptional;
    const size_t blob = sizeof(fia_args) + (has_lens ? (size_t)(2 * B) * sizeof(int64_t) : 0);
    char *args = malloc(blob);
    if (!args) {
        cannonOpFail(&op, ACLNN_ERR_INNER_CREATE_EXECUTOR, "out of memory");
        return cannonOpFinish(&op);
    }
    if (has_lens) {
        int64_t *lens = (int64_t *)(void *)(args + sizeof(fia_args));
        fia_lengths(&op, "actualSeqLengthsOptional", S > 1 ? actualSeqLengthsOptional : NULL, B, S, lens);
        fia_lengths(&op, "actualSeqLengthsKvOptional", actualSeqLengthsKvOptional, B, Skv, lens + B);
    }

    /* CANN's order: query, key, value, pseShift, attenMask; attentionOut, softmaxLse. */
    const int sq = cannonOpInput(&op, query);
    const int sk = cannonOpInput(&op, kt);
    const int sv = cannonOpInput(&op, vt);
    const int sp = cannonOpInput(&op, pseShiftOptional);
    const int sm = cannonOpInput(&op, attenMaskOptional);
    const int so = cannonOpOutput(&op, attentionOut);
    const int sl = cannonOpOutput(&op, softmaxLseFlag ? softmaxLse : NULL);
    if (!cannonOpOk(&op) || B * N * S == 0 || D == 0) {
        free(args);
        return cannonOpFinish(&op); /* an empty output: nothing to compute */
    }

    a.isa = (int32_t)cannon_isa_select();
    a.dt = vq.dtype == ACL_FLOAT16 ? FIA_F16 : FIA_BF16;
    a.has_lens = has_lens;
    a.B = B, a.N = N, a.S = S, a.D = D, a.Nkv = Nkv, a.Skv = Skv, a.group = N / Nkv;
    a.Dp = (D + 15) / 16 * 16;
    memcpy(a.qs, qs, sizeof qs);
    memcpy(a.ks, ks, sizeof ks);
    memcpy(a.vs, vs, sizeof vs);
    memcpy(a.os, os, sizeof os);
    a.scale = (float)scaleValue;
    a.qblk = FIA_ROWS / a.group < S ? FIA_ROWS / a.group : S;
    a.nqb = (S + a.qblk - 1) / a.qblk;
    a.units = B * Nkv * a.nqb;
    a.nsplit = 1;
    a.chunk = Skv;
    if (a.units < FIA_SPLIT_UNITS && Skv >= 2 * FIA_SPLIT_KEYS) {
        int64_t n = (FIA_SPLIT_UNITS + a.units - 1) / a.units;
        n = n < Skv / FIA_SPLIT_KEYS ? n : Skv / FIA_SPLIT_KEYS;
        a.chunk = (Skv + n - 1) / n;
        a.chunk = (a.chunk + FIA_KB - 1) / FIA_KB * FIA_KB;
        a.nsplit = (Skv + a.chunk - 1) / a.chunk;
    }
    a.items = a.units * a.nsplit;
    a.part_rows = a.group * a.qblk;
    const int64_t blocks0 = a.items < FIA_MAX_BLOCKS ? a.items : FIA_MAX_BLOCKS;
    a.per_block = (a.items + blocks0 - 1) / blocks0;
    const int64_t blocks = (a.items + a.per_block - 1) / a.per_block;
    a.ws_floats = (2 * FIA_ROWS * a.Dp + 2 * FIA_KB * a.Dp + FIA_ROWS * FIA_KB + 2 * FIA_ROWS + 15) / 16 * 16;
    uint64_t ws_off = 0, part_off = 0;
    cannonOpWorkspace(&op, (uint64_t)(blocks * a.ws_floats) * sizeof(float), &ws_off);
    if (a.nsplit > 1)
        cannonOpWorkspace(&op, (uint64_t)(a.items * a.part_rows * (a.Dp + 2)) * sizeof(float), &part_off);

    cannon_arg_ref refs[9];
    size_t nrefs = 0;
    cannonOpBindView(&op, sq, (uint32_t)offsetof(fia_args, q), &refs[nrefs++]);
    cannonOpBindView(&op, sk, (uint32_t)offsetof(fia_args, k), &refs[nrefs++]);
    cannonOpBindView(&op, sv, (uint32_t)offsetof(fia_args, v), &refs[nrefs++]);
    if (a.has_pse)
        cannonOpBindView(&op, sp, (uint32_t)offsetof(fia_args, pse), &refs[nrefs++]);
    if (a.has_mask)
        cannonOpBindView(&op, sm, (uint32_t)offsetof(fia_args, mask), &refs[nrefs++]);
    cannonOpBindView(&op, so, (uint32_t)offsetof(fia_args, out), &refs[nrefs++]);
    if (softmaxLseFlag)
        cannonOpBindView(&op, sl, (uint32_t)offsetof(fia_args, lse), &refs[nrefs++]);
    refs[nrefs].args_offset = (uint32_t)offsetof(fia_args, ws);
    refs[nrefs].slot = CANNON_SLOT_WORKSPACE;
    refs[nrefs++].byte_offset = (int64_t)ws_off;
    if (a.nsplit > 1) {
        refs[nrefs].args_offset = (uint32_t)offsetof(fia_args, part);
        refs[nrefs].slot = CANNON_SLOT_WORKSPACE;
        refs[nrefs++].byte_offset = (int64_t)part_off;
    }
    memcpy(args, &a, sizeof a);
    cannonOpKernel(&op, FIA_API, fia_kernel, (uint32_t)blocks, args, blob, refs, nrefs);
    /* the combine's blocks (one per unit, fewer than FIA_SPLIT_UNITS) use the first D floats of
     * the first kernel's per-block workspace */
    if (a.nsplit > 1)
        cannonOpKernel(&op, FIA_API, fia_combine_kernel, (uint32_t)a.units, args, blob, refs, nrefs);
    free(args);
    return cannonOpFinish(&op);
}
