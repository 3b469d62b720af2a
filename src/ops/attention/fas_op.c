/*
 * aclnnFlashAttentionScore(V2) and aclnnFlashAttentionScoreGrad(V2): attention for training,
 *   attentionOut = Dropout(Softmax(Mask(scale (pse + q k^T), attenMask)), keepProb) v
 * (pseType 0 of V2: scale q k^T + pse), per batch and query head, key/value head h / (N / Nkv).
 *
 * The forward is the inference operator's kernel (fia_impl.h) with its training options: fp32
 * inputs, the pse inside the scale, dropout through a keep-bit mask, and the row max and sum
 * written as softmaxMaxOut / softmaxSumOut ([B,N,S,8], each value 8 times). The gradient
 * (fas_bwd_impl.h) recomputes the probabilities from q, k and the saved max and sum. Both hold
 * O(rows x D) state per block (no S x Skv matrix), compute in fp32 with each output rounded once,
 * and give results independent of the worker count (every unit's arithmetic is fixed by the
 * shape).
 *
 * Phase 1 reduces each tensor to element strides per (batch, head, sequence, head-dim) whatever its
 * layout (BSH, SBH, BSND, BNSD) and view, and turns sparseMode / preTokens / nextTokens into the
 * band rule of fia_kernels.h.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aclnnop/aclnn_flash_attention_score.h"
#include "aclnnop/aclnn_flash_attention_score_grad.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "../kernels/isa.h"
#include "fas_kernels.h"

#define FAS_FAIL(...)                                                                                                  \
    do {                                                                                                               \
        cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, __VA_ARGS__);                                                        \
        return false;                                                                                                  \
    } while (0)
#define FAS_MAX_BLOCKS 64
/* CANN's limits: N <= 256, D <= 768; the kernel's: N / Nkv <= FIA_ROWS. */
#define FAS_MAX_N 256
#define FAS_MAX_D 768
#define FAS_MAX_GROUP FIA_ROWS
/* The side of the optimised causal mask sparseMode 2, 3 and 4 take. */
#define FAS_OPT_MASK 2048

enum { L_BSH, L_SBH, L_BSND, L_BNSD };

/* What the forward and the gradient share: shapes, strides of q / k / v, pse, mask, dropout. */
typedef struct fas_common {
    int lay;
    int64_t B, N, Nkv, S, Skv, D;
    int64_t qs[4], ks[4], vs[4];
    int has_pse, has_mask, rightdown, has_drop;
    int64_t ps[4], ms[4];
    int64_t lo, hi;
    float scale, keep_inv;
} fas_common;

static int64_t clamp_far(int64_t v)
{
    return v < -FIA_FAR ? -FIA_FAR : (v > FIA_FAR ? FIA_FAR : v);
}

/* Sizes (b, n, s, d) and element strides of @p v in layout @p lay; BSH and SBH split H by @p heads
 * (> 0) or, when 0, by @p d. Returns false (no message) when H does not split. */
static bool fas_dims(int lay, const cannon_tensor_view *v, int64_t heads, int64_t d, int64_t dims[4], int64_t st[4])
{
    const int64_t *sh = v->shape, *vs = v->strides;
    if (v->ndim != (lay == L_BSH || lay == L_SBH ? 3 : 4))
        return false;
    if (lay == L_BSH || lay == L_SBH) {
        const int64_t H = sh[2];
        if (heads > 0) {
            if (H % heads != 0)
                return false;
            d = H / heads;
        } else {
            if (d <= 0 || H % d != 0)
                return false;
            heads = H / d;
        }
        const int bsh = lay == L_BSH;
        dims[0] = bsh ? sh[0] : sh[1], dims[1] = heads, dims[2] = bsh ? sh[1] : sh[0], dims[3] = d;
        st[0] = bsh ? vs[0] : vs[1], st[1] = d * vs[2], st[2] = bsh ? vs[1] : vs[0], st[3] = vs[2];
        return true;
    }
    const int bsnd = lay == L_BSND;
    dims[0] = sh[0], dims[1] = bsnd ? sh[2] : sh[1], dims[2] = bsnd ? sh[1] : sh[2], dims[3] = sh[3];
    st[0] = vs[0], st[1] = bsnd ? vs[2] : vs[1], st[2] = bsnd ? vs[1] : vs[2], st[3] = vs[3];
    return true;
}

static const char *fas_lay_shape(int lay)
{
    static const char *const names[] = {"[B,S,H]", "[S,B,H]", "[B,S,N,D]", "[B,N,S,D]"};
    return names[lay];
}

/* @p v (argument @p name) has the layout's shape for (B, n, S, D): its strides into @p st. */
static bool fas_same_dims(cannon_op *op, const char *name, const cannon_tensor_view *v, const fas_common *c, int64_t n,
                          int64_t S, int64_t st[4])
{
    int64_t dims[4];
    if (!fas_dims(c->lay, v, n, 0, dims, st) || dims[0] != c->B || dims[1] != n || dims[2] != S || dims[3] != c->D) {
        char sh[96];
        cannonShapeFormat(v, sh, sizeof sh);
        FAS_FAIL("%s %s: layout %s with B %lld, N %lld, S %lld, D %lld needs %s", name, sh, fas_lay_shape(c->lay),
                 (long long)c->B, (long long)n, (long long)S, (long long)c->D, fas_lay_shape(c->lay));
    }
    return true;
}

/* Shapes, layout, heads, pse, masks, sparse mode and dropout of both operators. */
static bool fas_parse(cannon_op *op, const cannon_tensor_view *vq, const cannon_tensor_view *vk,
                      const cannon_tensor_view *vv, const cannon_tensor_view *vp, const cannon_tensor_view *vd,
                      const cannon_tensor_view *vm, double scaleValue, double keepProb, int64_t preTokens,
                      int64_t nextTokens, int64_t headNum, const char *inputLayout, int64_t sparseMode, int64_t pseType,
                      fas_common *c)
{
    memset(c, 0, sizeof *c);
    if (!strcmp(inputLayout, "BSH"))
        c->lay = L_BSH;
    else if (!strcmp(inputLayout, "SBH"))
        c->lay = L_SBH;
    else if (!strcmp(inputLayout, "BSND"))
        c->lay = L_BSND;
    else if (!strcmp(inputLayout, "BNSD"))
        c->lay = L_BNSD;
    else {
        char shown[24];
        snprintf(shown, sizeof shown, "%s", inputLayout);
        FAS_FAIL("inputLayout \"%s\" is not supported: BSH, SBH, BSND and BNSD are (TND is not implemented)", shown);
    }
    if (headNum < 1 || headNum > FAS_MAX_N)
        FAS_FAIL("headNum = %lld is outside [1, %d]", (long long)headNum, FAS_MAX_N);
    int64_t qd[4], kd[4], vd4[4];
    const int rank = c->lay == L_BSH || c->lay == L_SBH ? 3 : 4;
    const char *names[3] = {"query", "key", "value"};
    const cannon_tensor_view *views[3] = {vq, vk, vv};
    for (int i = 0; i < 3; i++)
        if (views[i]->ndim != rank)
            FAS_FAIL("%s is %lld-D: layout %s takes %d-D tensors", names[i], (long long)views[i]->ndim, inputLayout,
                     rank);
    if (!fas_dims(c->lay, vq, headNum, 0, qd, c->qs))
        FAS_FAIL("query's H (%lld) is not a multiple of headNum (%lld)", (long long)vq->shape[2], (long long)headNum);
    if (qd[1] != headNum)
        FAS_FAIL("query has %lld heads, headNum is %lld", (long long)qd[1], (long long)headNum);
    c->B = qd[0], c->N = qd[1], c->S = qd[2], c->D = qd[3];
    if (c->D > FAS_MAX_D)
        FAS_FAIL("query's head dim D = %lld: at most %d is supported", (long long)c->D, FAS_MAX_D);
    const bool kok = fas_dims(c->lay, vk, 0, c->D, kd, c->ks);
    if (!kok || kd[0] != c->B || kd[3] != c->D || kd[1] < 1 || c->N % kd[1] != 0) {
        char ksh[96], qsh[96];
        cannonShapeFormat(vk, ksh, sizeof ksh);
        cannonShapeFormat(vq, qsh, sizeof qsh);
        FAS_FAIL("key %s does not match query %s in layout %s: same B and D, and a head count dividing headNum "
                 "(%lld) are needed",
                 ksh, qsh, inputLayout, (long long)headNum);
    }
    c->Nkv = kd[1], c->Skv = kd[2];
    if (c->N / c->Nkv > FAS_MAX_GROUP)
        FAS_FAIL("headNum / key heads = %lld: at most %d query heads per key/value head are supported",
                 (long long)(c->N / c->Nkv), FAS_MAX_GROUP);
    if (!fas_dims(c->lay, vv, 0, c->D, vd4, c->vs) || memcmp(vd4, kd, sizeof kd) != 0) {
        char vsh[96], ksh[96];
        cannonShapeFormat(vv, vsh, sizeof vsh);
        cannonShapeFormat(vk, ksh, sizeof ksh);
        FAS_FAIL("value %s differs from key %s (a value head dim below the key's is not supported)", vsh, ksh);
    }
    c->scale = (float)scaleValue;

    /* realShift / pseShift: [B,N,S,Skv], [B,N,1,Skv] or [1,N,S,Skv]. */
    if (vp) {
        if (pseType != 0 && pseType != 1)
            FAS_FAIL("pseType = %lld: 0 and 1 (an external pse) are supported, 2 and 3 (a generated alibi) are not",
                     (long long)pseType);
        const int64_t *p = vp->shape;
        if (vp->ndim != 4 || (p[0] != c->B && p[0] != 1) || p[1] != c->N || (p[2] != c->S && p[2] != 1) ||
            p[3] != c->Skv) {
            char psh[96];
            cannonShapeFormat(vp, psh, sizeof psh);
            FAS_FAIL("the pse %s: [B,N,S,Skv], [B,N,1,Skv] or [1,N,S,Skv] = [%lld,%lld,%lld,%lld] is needed (the "
                     "1024-row compressed alibi form is not supported)",
                     psh, (long long)c->B, (long long)c->N, (long long)c->S, (long long)c->Skv);
        }
        c->has_pse = 1;
        c->ps[0] = p[0] == 1 ? 0 : vp->strides[0];
        c->ps[1] = vp->strides[1];
        c->ps[2] = p[2] == 1 ? 0 : vp->strides[2];
        c->ps[3] = vp->strides[3];
    } else if (pseType < 0 || pseType > 3) {
        FAS_FAIL("pseType = %lld is outside [0, 3]", (long long)pseType);
    }

    /* sparseMode / preTokens / nextTokens: without attenMask, every key is computed. */
    c->lo = -FIA_FAR;
    c->hi = FIA_FAR;
    if (sparseMode < 0 || sparseMode > 8)
        FAS_FAIL("sparseMode = %lld is outside [0, 8]", (long long)sparseMode);
    int read_mask = vm != NULL;
    if (vm) {
        if (sparseMode >= 5)
            FAS_FAIL("sparseMode %lld (prefix or varlen) is not supported: 0 to 4 are", (long long)sparseMode);
        if (sparseMode >= 2) {
            const int64_t *m = vm->shape;
            int ok = vm->ndim >= 2 && m[vm->ndim - 1] == FAS_OPT_MASK && m[vm->ndim - 2] == FAS_OPT_MASK;
            for (int64_t i = 0; i + 2 < vm->ndim; i++)
                ok = ok && m[i] == 1;
            if (!ok) {
                char msh[96];
                cannonShapeFormat(vm, msh, sizeof msh);
                FAS_FAIL("attenMaskOptional %s: sparseMode %lld takes the optimised causal mask [2048,2048] or "
                         "[1,1,2048,2048]",
                         msh, (long long)sparseMode);
            }
            read_mask = 0; /* its lower triangle is the band rule */
        }
        if (sparseMode == 0 || sparseMode == 4) {
            c->lo = -clamp_far(preTokens);
            c->hi = clamp_far(nextTokens);
            if (c->lo > c->hi)
                FAS_FAIL("preTokens %lld and nextTokens %lld leave no key to any row: the band needs "
                         "-preTokens <= nextTokens",
                         (long long)preTokens, (long long)nextTokens);
        } else if (sparseMode == 2 || sparseMode == 3) {
            c->hi = 0;
        }
        c->rightdown = sparseMode == 3 || sparseMode == 4;
    }
    /* attenMask: [B,N,S,Skv], [B,1,S,Skv], [1,1,S,Skv] or [S,Skv]. */
    if (read_mask) {
        const int64_t *m = vm->shape, *st = vm->strides;
        int ok = 0;
        if (vm->ndim == 2) {
            ok = m[0] == c->S && m[1] == c->Skv;
            c->ms[2] = st[0], c->ms[3] = st[1];
        } else if (vm->ndim == 4) {
            ok = (m[0] == c->B || m[0] == 1) && (m[1] == c->N || m[1] == 1) && m[2] == c->S && m[3] == c->Skv;
            c->ms[0] = m[0] == 1 ? 0 : st[0];
            c->ms[1] = m[1] == 1 ? 0 : st[1];
            c->ms[2] = st[2], c->ms[3] = st[3];
        }
        if (!ok) {
            char msh[96];
            cannonShapeFormat(vm, msh, sizeof msh);
            FAS_FAIL("attenMaskOptional %s: [B,N,S,Skv], [B,1,S,Skv], [1,1,S,Skv] or [S,Skv] with B %lld, N %lld, S "
                     "%lld, Skv %lld is needed",
                     msh, (long long)c->B, (long long)c->N, (long long)c->S, (long long)c->Skv);
        }
        c->has_mask = 1;
    }

    /* Dropout: keepProb in (0, 1]; below 1 the keep bits come from dropMaskOptional. */
    if (!(keepProb > 0.0 && keepProb <= 1.0))
        FAS_FAIL("keepProb = %g is outside (0, 1]", keepProb);
    if (keepProb < 1.0) {
        if (!vd) {
            cannonOpFail(op, ACLNN_ERR_PARAM_NULLPTR, "dropMaskOptional is NULL while keepProb (%g) is below 1",
                         keepProb);
            return false;
        }
        const int64_t need = (c->B * c->N * c->S * c->Skv + 7) / 8;
        int64_t numel = 1, expect = 1;
        int contig = 1;
        for (int64_t i = vd->ndim - 1; i >= 0; i--) {
            contig = contig && (vd->shape[i] == 1 || vd->strides[i] == expect);
            expect *= vd->shape[i];
            numel *= vd->shape[i];
        }
        if (numel < need || !contig) {
            char dsh[96];
            cannonShapeFormat(vd, dsh, sizeof dsh);
            FAS_FAIL("dropMaskOptional %s: a contiguous UINT8 tensor of at least B*N*S*Skv/8 = %lld bytes (one keep "
                     "bit per score) is needed",
                     dsh, (long long)need);
        }
        c->has_drop = 1;
        c->keep_inv = (float)(1.0 / keepProb);
    }
    return true;
}

/* softmaxMax / softmaxSum (argument @p name): FLOAT [B,N,S,8]; strides per (b, n, s) into xs, the 8
 * contiguous. */
static bool fas_stats_shape(cannon_op *op, const char *name, const cannon_tensor_view *v, const fas_common *c,
                            int64_t xs[3])
{
    const int64_t *s = v->shape;
    if (v->ndim != 4 || s[0] != c->B || s[1] != c->N || s[2] != c->S || s[3] != 8 || v->strides[3] != 1) {
        char sh[96];
        cannonShapeFormat(v, sh, sizeof sh);
        FAS_FAIL("%s %s: [B,N,S,8] = [%lld,%lld,%lld,8] with its last dim contiguous is needed", name, sh,
                 (long long)c->B, (long long)c->N, (long long)c->S);
    }
    xs[0] = v->strides[0], xs[1] = v->strides[1], xs[2] = v->strides[2];
    return true;
}

static int32_t fas_dt(aclDataType t)
{
    return t == ACL_FLOAT16 ? FIA_F16 : (t == ACL_BF16 ? FIA_BF16 : FIA_F32);
}

/* ---- forward ------------------------------------------------------------------------------------ */

static int fas_fwd_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const fia_args *a = (const fia_args *)args;
    const int64_t u0 = (int64_t)ctx->block_idx * a->per_block;
    if (u0 >= a->items)
        return 0;
    const int64_t u1 = a->items - u0 < a->per_block ? a->items : u0 + a->per_block;
    float *ws = (float *)(void *)a->ws + (int64_t)ctx->block_idx * a->ws_floats;
    switch (a->isa) {
#if defined(CANNON_OPS_HAVE_AVX512)
    case CANNON_ISA_AVX512:
        cannon_fia_units_avx512(a, ws, u0, u1);
        break;
#endif
#if defined(CANNON_OPS_HAVE_AVX2)
    case CANNON_ISA_AVX2:
        cannon_fia_units_avx2(a, ws, u0, u1);
        break;
#endif
    default:
        cannon_fia_units_scalar(a, ws, u0, u1);
        break;
    }
    return 0;
}

static aclnnStatus fas_forward(const char *api, const aclTensor *query, const aclTensor *key, const aclTensor *value,
                               const aclTensor *pse, const aclTensor *dropMask, const aclTensor *attenMask,
                               double scaleValue, double keepProb, int64_t preTokens, int64_t nextTokens,
                               int64_t headNum, const char *inputLayout, int64_t sparseMode, int64_t pseType,
                               const aclTensor *softmaxMaxOut, const aclTensor *softmaxSumOut,
                               const aclTensor *attentionOutOut, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    cannon_op op_, *op = &op_;
    cannon_tensor_view vq, vk, vv, vo, vp, vd, vm, vx, vl;
    cannonOpBegin(op, api, workspaceSize, executor);
    cannonOpNotNulls(op, "query", query, "key", key, "value", value, "inputLayout", inputLayout, "softmaxMaxOut",
                     softmaxMaxOut, "softmaxSumOut", softmaxSumOut, "attentionOutOut", attentionOutOut, NULL);
    const cannon_dtype_set dts = CANNON_DTS_F32_16;
    cannonOpTensor(op, "query", query, dts, &vq);
    cannonOpTensor(op, "key", key, dts, &vk);
    cannonOpTensor(op, "value", value, dts, &vv);
    cannonOpTensor(op, "attentionOutOut", attentionOutOut, dts, &vo);
    cannonOpSameDtype(op, "key", &vk, "query", &vq);
    cannonOpSameDtype(op, "value", &vv, "query", &vq);
    cannonOpSameDtype(op, "attentionOutOut", &vo, "query", &vq);
    cannonOpTensorOpt(op, "realShiftOptional", pse, dts, &vp);
    if (cannonOpOk(op) && pse)
        cannonOpSameDtype(op, "realShiftOptional", &vp, "query", &vq);
    const int use_drop = keepProb < 1.0 && dropMask;
    if (use_drop)
        cannonOpTensor(op, "dropMaskOptional", dropMask, CANNON_DT_U8, &vd);
    cannonOpTensorOpt(op, "attenMaskOptional", attenMask, CANNON_DT_BOOL | CANNON_DT_U8, &vm);
    cannonOpTensor(op, "softmaxMaxOut", softmaxMaxOut, CANNON_DT_F32, &vx);
    cannonOpTensor(op, "softmaxSumOut", softmaxSumOut, CANNON_DT_F32, &vl);
    if (!cannonOpOk(op))
        return cannonOpFinish(op);
    fas_common c;
    int64_t os[4], xs[3], ls[3];
    if (!fas_parse(op, &vq, &vk, &vv, pse ? &vp : NULL, use_drop ? &vd : NULL, attenMask ? &vm : NULL, scaleValue,
                   keepProb, preTokens, nextTokens, headNum, inputLayout, sparseMode, pseType, &c) ||
        !fas_same_dims(op, "attentionOutOut", &vo, &c, c.N, c.S, os) ||
        !fas_stats_shape(op, "softmaxMaxOut", &vx, &c, xs) || !fas_stats_shape(op, "softmaxSumOut", &vl, &c, ls))
        return cannonOpFinish(op);
    if (memcmp(xs, ls, sizeof xs) != 0) {
        cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "softmaxSumOut's strides differ from softmaxMaxOut's");
        return cannonOpFinish(op);
    }

    /* CANN's order: query, key, value, realShift, dropMask, attenMask; max, sum, attentionOut. */
    const int sq = cannonOpInput(op, query);
    const int sk = cannonOpInput(op, key);
    const int sv = cannonOpInput(op, value);
    const int sp = cannonOpInput(op, pse);
    const int sd = cannonOpInput(op, c.has_drop ? dropMask : NULL);
    const int sm = cannonOpInput(op, c.has_mask ? attenMask : NULL);
    const int sx = cannonOpOutput(op, softmaxMaxOut);
    const int sl = cannonOpOutput(op, softmaxSumOut);
    const int so = cannonOpOutput(op, attentionOutOut);
    if (!cannonOpOk(op) || c.B * c.N * c.S == 0 || c.D == 0)
        return cannonOpFinish(op); /* an empty output: nothing to compute */

    fia_args a;
    memset(&a, 0, sizeof a);
    a.isa = (int32_t)cannon_isa_select();
    a.dt = fas_dt(vq.dtype);
    a.has_pse = c.has_pse, a.has_mask = c.has_mask, a.rightdown = c.rightdown;
    a.B = c.B, a.N = c.N, a.S = c.S, a.D = c.D, a.Nkv = c.Nkv, a.Skv = c.Skv, a.group = c.N / c.Nkv;
    a.Dp = (c.D + 15) / 16 * 16;
    memcpy(a.qs, c.qs, sizeof a.qs);
    memcpy(a.ks, c.ks, sizeof a.ks);
    memcpy(a.vs, c.vs, sizeof a.vs);
    memcpy(a.os, os, sizeof a.os);
    memcpy(a.ps, c.ps, sizeof a.ps);
    memcpy(a.ms, c.ms, sizeof a.ms);
    memcpy(a.xs, xs, sizeof a.xs);
    a.lo = c.lo, a.hi = c.hi;
    a.scale = c.scale;
    a.pse_first = pseType == 1;
    a.keep_inv = c.keep_inv;
    a.qblk = FIA_ROWS / a.group < c.S ? FIA_ROWS / a.group : c.S;
    a.nqb = (c.S + a.qblk - 1) / a.qblk;
    a.units = c.B * c.Nkv * a.nqb;
    a.nsplit = 1;
    a.chunk = c.Skv;
    a.items = a.units;
    a.part_rows = a.group * a.qblk;
    const int64_t blocks0 = a.items < FAS_MAX_BLOCKS ? a.items : FAS_MAX_BLOCKS;
    a.per_block = (a.items + blocks0 - 1) / blocks0;
    const int64_t blocks = (a.items + a.per_block - 1) / a.per_block;
    a.ws_floats = (2 * FIA_ROWS * a.Dp + 2 * FIA_KB * a.Dp + FIA_ROWS * FIA_KB + 2 * FIA_ROWS + 15) / 16 * 16;
    uint64_t ws_off = 0;
    cannonOpWorkspace(op, (uint64_t)(blocks * a.ws_floats) * sizeof(float), &ws_off);

    cannon_arg_ref refs[10];
    size_t n = 0;
    cannonOpBindView(op, sq, (uint32_t)offsetof(fia_args, q), &refs[n++]);
    cannonOpBindView(op, sk, (uint32_t)offsetof(fia_args, k), &refs[n++]);
    cannonOpBindView(op, sv, (uint32_t)offsetof(fia_args, v), &refs[n++]);
    if (c.has_pse)
        cannonOpBindView(op, sp, (uint32_t)offsetof(fia_args, pse), &refs[n++]);
    if (c.has_mask)
        cannonOpBindView(op, sm, (uint32_t)offsetof(fia_args, mask), &refs[n++]);
    if (c.has_drop)
        cannonOpBindView(op, sd, (uint32_t)offsetof(fia_args, drop), &refs[n++]);
    cannonOpBindView(op, so, (uint32_t)offsetof(fia_args, out), &refs[n++]);
    cannonOpBindView(op, sx, (uint32_t)offsetof(fia_args, smax), &refs[n++]);
    cannonOpBindView(op, sl, (uint32_t)offsetof(fia_args, ssum), &refs[n++]);
    refs[n].args_offset = (uint32_t)offsetof(fia_args, ws);
    refs[n].slot = CANNON_SLOT_WORKSPACE;
    refs[n++].byte_offset = (int64_t)ws_off;
    cannonOpKernel(op, api, fas_fwd_kernel, (uint32_t)blocks, &a, sizeof a, refs, n);
    return cannonOpFinish(op);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnFlashAttentionScoreGetWorkspaceSize(
    const aclTensor *query, const aclTensor *key, const aclTensor *value, const aclTensor *realShiftOptional,
    const aclTensor *dropMaskOptional, const aclTensor *paddingMaskOptional, const aclTensor *attenMaskOptional,
    const aclIntArray *prefixOptional, double scaleValue, double keepProb, int64_t preTokens, int64_t nextTokens,
    int64_t headNum, char *inputLayout, int64_t innerPrecise, int64_t sparseMode, const aclTensor *softmaxMaxOut,
    const aclTensor *softmaxSumOut, const aclTensor *softmaxOutOut, const aclTensor *attentionOutOut,
    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    /* paddingMask and softmaxOut are reserved by CANN, innerPrecise changes nothing here (fully
     * masked rows are always handled), prefix only qualifies sparseMode 5 and 6 (rejected). */
    (void)paddingMaskOptional;
    (void)prefixOptional;
    (void)innerPrecise;
    (void)softmaxOutOut;
    return fas_forward("aclnnFlashAttentionScore", query, key, value, realShiftOptional, dropMaskOptional,
                       attenMaskOptional, scaleValue, keepProb, preTokens, nextTokens, headNum, inputLayout,
                       sparseMode, 1, softmaxMaxOut, softmaxSumOut, attentionOutOut, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnFlashAttentionScoreV2GetWorkspaceSize(
    const aclTensor *query, const aclTensor *key, const aclTensor *value, const aclTensor *realShiftOptional,
    const aclTensor *dropMaskOptional, const aclTensor *paddingMaskOptional, const aclTensor *attenMaskOptional,
    const aclIntArray *prefixOptional, const aclIntArray *qStartIdxOptional, const aclIntArray *kvStartIdxOptional,
    double scaleValue, double keepProb, int64_t preTokens, int64_t nextTokens, int64_t headNum, char *inputLayout,
    int64_t innerPrecise, int64_t sparseMode, int64_t pseType, const aclTensor *softmaxMaxOut,
    const aclTensor *softmaxSumOut, const aclTensor *softmaxOutOut, const aclTensor *attentionOutOut,
    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    /* qStartIdx / kvStartIdx only place the generated alibi of pseType 2 and 3 (rejected). */
    (void)paddingMaskOptional;
    (void)prefixOptional;
    (void)qStartIdxOptional;
    (void)kvStartIdxOptional;
    (void)innerPrecise;
    (void)softmaxOutOut;
    return fas_forward("aclnnFlashAttentionScoreV2", query, key, value, realShiftOptional, dropMaskOptional,
                       attenMaskOptional, scaleValue, keepProb, preTokens, nextTokens, headNum, inputLayout,
                       sparseMode, pseType, softmaxMaxOut, softmaxSumOut, attentionOutOut, workspaceSize, executor);
}

/* ---- gradient ----------------------------------------------------------------------------------- */

static int fas_kv_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const fas_bwd_args *a = (const fas_bwd_args *)args;
    const int64_t u0 = (int64_t)ctx->block_idx * a->kper;
    if (u0 >= a->kunits)
        return 0;
    const int64_t u1 = a->kunits - u0 < a->kper ? a->kunits : u0 + a->kper;
    float *ws = (float *)(void *)a->ws + (int64_t)ctx->block_idx * a->ws_floats;
    switch (a->isa) {
#if defined(CANNON_OPS_HAVE_AVX512)
    case CANNON_ISA_AVX512:
        cannon_fas_kv_avx512(a, ws, u0, u1);
        break;
#endif
#if defined(CANNON_OPS_HAVE_AVX2)
    case CANNON_ISA_AVX2:
        cannon_fas_kv_avx2(a, ws, u0, u1);
        break;
#endif
    default:
        cannon_fas_kv_scalar(a, ws, u0, u1);
        break;
    }
    return 0;
}

static int fas_q_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const fas_bwd_args *a = (const fas_bwd_args *)args;
    const int64_t u0 = (int64_t)ctx->block_idx * a->qper;
    if (u0 >= a->qunits)
        return 0;
    const int64_t u1 = a->qunits - u0 < a->qper ? a->qunits : u0 + a->qper;
    float *ws = (float *)(void *)a->ws + (int64_t)ctx->block_idx * a->ws_floats;
    switch (a->isa) {
#if defined(CANNON_OPS_HAVE_AVX512)
    case CANNON_ISA_AVX512:
        cannon_fas_q_avx512(a, ws, u0, u1);
        break;
#endif
#if defined(CANNON_OPS_HAVE_AVX2)
    case CANNON_ISA_AVX2:
        cannon_fas_q_avx2(a, ws, u0, u1);
        break;
#endif
    default:
        cannon_fas_q_scalar(a, ws, u0, u1);
        break;
    }
    return 0;
}

static aclnnStatus fas_backward(const char *api, const aclTensor *query, const aclTensor *key, const aclTensor *value,
                                const aclTensor *dy, const aclTensor *pse, const aclTensor *dropMask,
                                const aclTensor *attenMask, const aclTensor *softmaxMax, const aclTensor *softmaxSum,
                                const aclTensor *attentionIn, double scaleValue, double keepProb, int64_t preTokens,
                                int64_t nextTokens, int64_t headNum, const char *inputLayout, int64_t sparseMode,
                                int64_t pseType, const aclTensor *dqOut, const aclTensor *dkOut,
                                const aclTensor *dvOut, const aclTensor *dpseOut, uint64_t *workspaceSize,
                                aclOpExecutor **executor)
{
    cannon_op op_, *op = &op_;
    cannon_tensor_view vq, vk, vv, vy, vo, vp, vd, vm, vx, vl, vdq, vdk, vdv, vdp;
    cannonOpBegin(op, api, workspaceSize, executor);
    cannonOpNotNulls(op, "query", query, "keyIn", key, "value", value, "dy", dy, "inputLayout", inputLayout,
                     "softmaxMaxOptional", softmaxMax, "softmaxSumOptional", softmaxSum, "attentionInOptional",
                     attentionIn, "dqOut", dqOut, "dkOut", dkOut, "dvOut", dvOut, NULL);
    const cannon_dtype_set dts = CANNON_DTS_F32_16;
    cannonOpTensor(op, "query", query, dts, &vq);
    cannonOpTensor(op, "keyIn", key, dts, &vk);
    cannonOpTensor(op, "value", value, dts, &vv);
    cannonOpTensor(op, "dy", dy, dts, &vy);
    cannonOpTensor(op, "attentionInOptional", attentionIn, dts, &vo);
    cannonOpTensor(op, "dqOut", dqOut, dts, &vdq);
    cannonOpTensor(op, "dkOut", dkOut, dts, &vdk);
    cannonOpTensor(op, "dvOut", dvOut, dts, &vdv);
    const char *same[] = {"keyIn", "value", "dy", "attentionInOptional", "dqOut", "dkOut", "dvOut"};
    const cannon_tensor_view *sv_[] = {&vk, &vv, &vy, &vo, &vdq, &vdk, &vdv};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
        cannonOpSameDtype(op, same[i], sv_[i], "query", &vq);
    cannonOpTensorOpt(op, "pseShiftOptional", pse, dts, &vp);
    if (cannonOpOk(op) && pse)
        cannonOpSameDtype(op, "pseShiftOptional", &vp, "query", &vq);
    const int want_dpse = pse && dpseOut;
    if (want_dpse) {
        cannonOpTensor(op, "dpseOut", dpseOut, dts, &vdp);
        cannonOpSameDtype(op, "dpseOut", &vdp, "query", &vq);
    }
    const int use_drop = keepProb < 1.0 && dropMask;
    if (use_drop)
        cannonOpTensor(op, "dropMaskOptional", dropMask, CANNON_DT_U8, &vd);
    cannonOpTensorOpt(op, "attenMaskOptional", attenMask, CANNON_DT_BOOL | CANNON_DT_U8, &vm);
    cannonOpTensor(op, "softmaxMaxOptional", softmaxMax, CANNON_DT_F32, &vx);
    cannonOpTensor(op, "softmaxSumOptional", softmaxSum, CANNON_DT_F32, &vl);
    if (!cannonOpOk(op))
        return cannonOpFinish(op);
    fas_common c;
    fas_bwd_args a;
    memset(&a, 0, sizeof a);
    int64_t ls[3];
    if (!fas_parse(op, &vq, &vk, &vv, pse ? &vp : NULL, use_drop ? &vd : NULL, attenMask ? &vm : NULL, scaleValue,
                   keepProb, preTokens, nextTokens, headNum, inputLayout, sparseMode, pseType, &c) ||
        !fas_same_dims(op, "dy", &vy, &c, c.N, c.S, a.ys) ||
        !fas_same_dims(op, "attentionInOptional", &vo, &c, c.N, c.S, a.os) ||
        !fas_same_dims(op, "dqOut", &vdq, &c, c.N, c.S, a.dqs) ||
        !fas_same_dims(op, "dkOut", &vdk, &c, c.Nkv, c.Skv, a.dks) ||
        !fas_same_dims(op, "dvOut", &vdv, &c, c.Nkv, c.Skv, a.dvs) ||
        !fas_stats_shape(op, "softmaxMaxOptional", &vx, &c, a.xs) ||
        !fas_stats_shape(op, "softmaxSumOptional", &vl, &c, ls))
        return cannonOpFinish(op);
    if (memcmp(a.xs, ls, sizeof ls) != 0) {
        cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "softmaxSumOptional's strides differ from softmaxMaxOptional's");
        return cannonOpFinish(op);
    }
    if (want_dpse) {
        /* dpse has the pse's shape; a pse shared by several batches or rows would need their sum */
        if (!cannonOpSameShape(op, "dpseOut", &vdp, "pseShiftOptional", &vp))
            return cannonOpFinish(op);
        if ((vp.shape[0] == 1 && c.B > 1) || (vp.shape[2] == 1 && c.S > 1)) {
            cannonOpFail(op, ACLNN_ERR_PARAM_INVALID,
                         "dpseOut for a pseShiftOptional broadcast over batches or rows is not supported: pass "
                         "NULL dpseOut, or a [B,N,S,Skv] pse");
            return cannonOpFinish(op);
        }
        for (int i = 0; i < 4; i++)
            a.dps[i] = vdp.strides[i];
    }

    /* CANN's order: query, key, value, dy, pse, dropMask, attenMask, max, sum, attentionIn; dq, dk,
     * dv, dpse. */
    const int sq = cannonOpInput(op, query);
    const int sk = cannonOpInput(op, key);
    const int sv = cannonOpInput(op, value);
    const int sy = cannonOpInput(op, dy);
    const int sp = cannonOpInput(op, pse);
    const int sd = cannonOpInput(op, c.has_drop ? dropMask : NULL);
    const int sm = cannonOpInput(op, c.has_mask ? attenMask : NULL);
    const int sx = cannonOpInput(op, softmaxMax);
    const int sl = cannonOpInput(op, softmaxSum);
    const int so = cannonOpInput(op, attentionIn);
    const int sdq = cannonOpOutput(op, dqOut);
    const int sdk = cannonOpOutput(op, dkOut);
    const int sdv = cannonOpOutput(op, dvOut);
    const int sdp = cannonOpOutput(op, want_dpse ? dpseOut : NULL);
    if (!cannonOpOk(op) || c.B * c.N * c.D == 0 || c.S + c.Skv == 0)
        return cannonOpFinish(op);

    a.isa = (int32_t)cannon_isa_select();
    a.dt = fas_dt(vq.dtype);
    a.has_pse = c.has_pse, a.has_mask = c.has_mask, a.rightdown = c.rightdown, a.pse_first = pseType == 1;
    a.B = c.B, a.N = c.N, a.S = c.S, a.D = c.D, a.Nkv = c.Nkv, a.Skv = c.Skv, a.group = c.N / c.Nkv;
    a.Dp = (c.D + 15) / 16 * 16;
    memcpy(a.qs, c.qs, sizeof a.qs);
    memcpy(a.ks, c.ks, sizeof a.ks);
    memcpy(a.vs, c.vs, sizeof a.vs);
    memcpy(a.ps, c.ps, sizeof a.ps);
    memcpy(a.ms, c.ms, sizeof a.ms);
    a.lo = c.lo, a.hi = c.hi;
    a.scale = c.scale, a.keep_inv = c.keep_inv;
    a.nkb = (c.Skv + FIA_KB - 1) / FIA_KB;
    a.nqb = (c.S + FAS_QB - 1) / FAS_QB;
    a.kunits = c.B * c.Nkv * a.nkb;
    a.qunits = c.B * c.N * a.nqb;
    const int64_t kb0 = a.kunits < FAS_MAX_BLOCKS ? a.kunits : FAS_MAX_BLOCKS;
    const int64_t qb0 = a.qunits < FAS_MAX_BLOCKS ? a.qunits : FAS_MAX_BLOCKS;
    a.kper = kb0 ? (a.kunits + kb0 - 1) / kb0 : 1;
    a.qper = qb0 ? (a.qunits + qb0 - 1) / qb0 : 1;
    const int64_t kblocks = (a.kunits + a.kper - 1) / a.kper, qblocks = (a.qunits + a.qper - 1) / a.qper;
    const int64_t D = c.D, Dp = a.Dp;
    const int64_t kv_ws = 2 * D * FIA_KB + 2 * FIA_KB * Dp + 2 * FAS_QB * Dp + 4 * FIA_KB * FAS_QB + 2 * Dp + 3 * FAS_QB;
    const int64_t q_ws = 2 * D * FIA_KB + FIA_KB * Dp + 3 * FAS_QB * Dp + 2 * FAS_QB * FIA_KB + 2 * Dp + 3 * FAS_QB;
    a.ws_floats = ((kv_ws > q_ws ? kv_ws : q_ws) + 15) / 16 * 16;
    const int64_t blocks = kblocks > qblocks ? kblocks : qblocks;
    uint64_t ws_off = 0;
    cannonOpWorkspace(op, (uint64_t)(blocks * a.ws_floats) * sizeof(float), &ws_off);

    cannon_arg_ref refs[16];
    size_t n = 0;
    cannonOpBindView(op, sq, (uint32_t)offsetof(fas_bwd_args, q), &refs[n++]);
    cannonOpBindView(op, sk, (uint32_t)offsetof(fas_bwd_args, k), &refs[n++]);
    cannonOpBindView(op, sv, (uint32_t)offsetof(fas_bwd_args, v), &refs[n++]);
    cannonOpBindView(op, sy, (uint32_t)offsetof(fas_bwd_args, dy), &refs[n++]);
    cannonOpBindView(op, so, (uint32_t)offsetof(fas_bwd_args, o), &refs[n++]);
    cannonOpBindView(op, sx, (uint32_t)offsetof(fas_bwd_args, smax), &refs[n++]);
    cannonOpBindView(op, sl, (uint32_t)offsetof(fas_bwd_args, ssum), &refs[n++]);
    if (c.has_pse)
        cannonOpBindView(op, sp, (uint32_t)offsetof(fas_bwd_args, pse), &refs[n++]);
    if (c.has_mask)
        cannonOpBindView(op, sm, (uint32_t)offsetof(fas_bwd_args, mask), &refs[n++]);
    if (c.has_drop)
        cannonOpBindView(op, sd, (uint32_t)offsetof(fas_bwd_args, drop), &refs[n++]);
    cannonOpBindView(op, sdq, (uint32_t)offsetof(fas_bwd_args, dq), &refs[n++]);
    cannonOpBindView(op, sdk, (uint32_t)offsetof(fas_bwd_args, dk), &refs[n++]);
    cannonOpBindView(op, sdv, (uint32_t)offsetof(fas_bwd_args, dv), &refs[n++]);
    if (want_dpse)
        cannonOpBindView(op, sdp, (uint32_t)offsetof(fas_bwd_args, dpse), &refs[n++]);
    refs[n].args_offset = (uint32_t)offsetof(fas_bwd_args, ws);
    refs[n].slot = CANNON_SLOT_WORKSPACE;
    refs[n++].byte_offset = (int64_t)ws_off;
    if (a.kunits > 0)
        cannonOpKernel(op, api, fas_kv_kernel, (uint32_t)kblocks, &a, sizeof a, refs, n);
    if (a.qunits > 0)
        cannonOpKernel(op, api, fas_q_kernel, (uint32_t)qblocks, &a, sizeof a, refs, n);
    return cannonOpFinish(op);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnFlashAttentionScoreGradGetWorkspaceSize(
    const aclTensor *query, const aclTensor *keyIn, const aclTensor *value, const aclTensor *dy,
    const aclTensor *pseShiftOptional, const aclTensor *dropMaskOptional, const aclTensor *paddingMaskOptional,
    const aclTensor *attenMaskOptional, const aclTensor *softmaxMaxOptional, const aclTensor *softmaxSumOptional,
    const aclTensor *softmaxInOptional, const aclTensor *attentionInOptional, const aclIntArray *prefixOptional,
    double scaleValue, double keepProb, int64_t preTokens, int64_t nextTokens, int64_t headNum, char *inputLayout,
    int64_t innerPrecise, int64_t sparseMode, const aclTensor *dqOut, const aclTensor *dkOut, const aclTensor *dvOut,
    const aclTensor *dpseOut, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    (void)paddingMaskOptional;
    (void)softmaxInOptional;
    (void)prefixOptional;
    (void)innerPrecise;
    return fas_backward("aclnnFlashAttentionScoreGrad", query, keyIn, value, dy, pseShiftOptional, dropMaskOptional,
                        attenMaskOptional, softmaxMaxOptional, softmaxSumOptional, attentionInOptional, scaleValue,
                        keepProb, preTokens, nextTokens, headNum, inputLayout, sparseMode, 1, dqOut, dkOut, dvOut,
                        dpseOut, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnFlashAttentionScoreGradV2GetWorkspaceSize(
    const aclTensor *query, const aclTensor *keyIn, const aclTensor *value, const aclTensor *dy,
    const aclTensor *pseShiftOptional, const aclTensor *dropMaskOptional, const aclTensor *paddingMaskOptional,
    const aclTensor *attenMaskOptional, const aclTensor *softmaxMaxOptional, const aclTensor *softmaxSumOptional,
    const aclTensor *softmaxInOptional, const aclTensor *attentionInOptional, const aclIntArray *prefixOptional,
    const aclIntArray *qStartIdxOptional, const aclIntArray *kvStartIdxOptional, double scaleValue, double keepProb,
    int64_t preTokens, int64_t nextTokens, int64_t headNum, char *inputLayout, int64_t innerPrecise,
    int64_t sparseMode, int64_t pseType, const aclTensor *dqOut, const aclTensor *dkOut, const aclTensor *dvOut,
    const aclTensor *dpseOut, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    (void)paddingMaskOptional;
    (void)softmaxInOptional;
    (void)prefixOptional;
    (void)qStartIdxOptional;
    (void)kvStartIdxOptional;
    (void)innerPrecise;
    return fas_backward("aclnnFlashAttentionScoreGradV2", query, keyIn, value, dy, pseShiftOptional,
                        dropMaskOptional, attenMaskOptional, softmaxMaxOptional, softmaxSumOptional,
                        attentionInOptional, scaleValue, keepProb, preTokens, nextTokens, headNum, inputLayout,
                        sparseMode, pseType, dqOut, dkOut, dvOut, dpseOut, workspaceSize, executor);
}
