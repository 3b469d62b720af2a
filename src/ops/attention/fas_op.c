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

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_flash_attention_score.h"
#include "aclnnop/aclnn_flash_attention_score_grad.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "../kernels/isa.h"
#include "cannon/cpu.h"
#include "cpu_features.h"
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
/* The fused gradient's threshold of (batch, key/value head) pairs and its most blocks. */
#define FAS_FUSED_MIN_UNITS 8
#define FAS_FUSED_BLOCKS 16
/* The side of the optimised causal mask sparseMode 2, 3 and 4 take. */
#define FAS_OPT_MASK 2048

enum { L_BSH, L_SBH, L_BSND, L_BNSD, L_TND };

/* The arrays only some entries take (NULL where absent). */
typedef struct fas_extra {
    const aclIntArray *prefix, *qlens, *kvlens, *qstart, *kvstart;
    int varlen; /* aclnnFlashAttentionVarLenScore / UnpaddingScoreGrad: inputLayout TND */
} fas_extra;

/* What the forward and the gradient share: shapes, strides of q / k / v, pse, mask, dropout, and
 * one fia_seq record per batch (malloc'd: fas_common_free). */
typedef struct fas_common {
    int lay;
    int64_t B, N, Nkv, S, Skv, D, T, Tkv; /* TND: S, Skv the longest sequences, T, Tkv the rows */
    int64_t qs[4], ks[4], vs[4];
    int has_pse, has_mask, has_drop, pse_gen;
    int64_t ps[4], ms[4], alibi_off;
    float scale, keep_inv;
    fia_seq *seq;
} fas_common;

static void fas_common_free(fas_common *c)
{
    free(c->seq);
    c->seq = NULL;
}

static int64_t clamp_far(int64_t v)
{
    return v < -FIA_FAR ? -FIA_FAR : (v > FIA_FAR ? FIA_FAR : v);
}

/* Sizes (b, n, s, d) and element strides of @p v in layout @p lay; BSH and SBH split H by @p heads
 * (> 0) or, when 0, by @p d; TND gives b 1 and s T (the batches are cut by the length arrays).
 * Returns false (no message) when H does not split. */
static bool fas_dims(int lay, const cannon_tensor_view *v, int64_t heads, int64_t d, int64_t dims[4], int64_t st[4])
{
    const int64_t *sh = v->shape, *vs = v->strides;
    if (v->ndim != (lay == L_BSH || lay == L_SBH || lay == L_TND ? 3 : 4))
        return false;
    if (lay == L_TND) {
        dims[0] = 1, dims[1] = sh[1], dims[2] = sh[0], dims[3] = sh[2];
        st[0] = 0, st[1] = vs[1], st[2] = vs[0], st[3] = vs[2];
        return true;
    }
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
    static const char *const names[] = {"[B,S,H]", "[S,B,H]", "[B,S,N,D]", "[B,N,S,D]", "[T,N,D]"};
    return names[lay];
}

/* @p v (argument @p name) has the layout's shape for the query side (kv 0: B, N, S, D) or the
 * key side (kv 1: B, Nkv, Skv, D); TND: T or Tkv rows. Its strides into @p st. */
static bool fas_same_dims(cannon_op *op, const char *name, const cannon_tensor_view *v, const fas_common *c, int kv,
                          int64_t st[4])
{
    const int64_t n = kv ? c->Nkv : c->N;
    const int64_t S = c->lay == L_TND ? (kv ? c->Tkv : c->T) : (kv ? c->Skv : c->S);
    const int64_t B = c->lay == L_TND ? 1 : c->B;
    int64_t dims[4];
    if (!fas_dims(c->lay, v, n, 0, dims, st) || dims[0] != B || dims[1] != n || dims[2] != S || dims[3] != c->D) {
        char sh[96];
        cannonShapeFormat(v, sh, sizeof sh);
        if (c->lay == L_TND)
            FAS_FAIL("%s %s: layout TND with T %lld, N %lld, D %lld needs [T,N,D]", name, sh, (long long)S,
                     (long long)n, (long long)c->D);
        FAS_FAIL("%s %s: layout %s with B %lld, N %lld, S %lld, D %lld needs %s", name, sh, fas_lay_shape(c->lay),
                 (long long)c->B, (long long)n, (long long)S, (long long)c->D, fas_lay_shape(c->lay));
    }
    return true;
}

/* TND: the cumulative lengths @p arr (argument @p name, B values, non-decreasing, the last = @p T)
 * into the records' query (kv 0) or key (kv 1) starts and lengths, the longest into *maxlen. */
static bool fas_cum(cannon_op *op, const char *name, const aclIntArray *arr, int64_t B, int64_t T, int kv, fia_seq *seq,
                    int64_t *maxlen)
{
    uint64_t n = 0;
    const int64_t *p = cannonIntArrayData(arr, &n);
    if (!p || n != (uint64_t)B)
        FAS_FAIL("%s holds %llu values: the %lld of actualSeqQLenOptional are needed", name, (unsigned long long)n,
                 (long long)B);
    int64_t prev = 0;
    *maxlen = 0;
    for (int64_t b = 0; b < B; b++) {
        if (p[b] < prev)
            FAS_FAIL("%s[%lld] = %lld is below %lld: the cumulative lengths must not decrease (and start >= 0)", name,
                     (long long)b, (long long)p[b], (long long)prev);
        const int64_t len = p[b] - prev;
        if (kv)
            seq[b].kv0 = prev, seq[b].kvlen = len;
        else
            seq[b].q0 = prev, seq[b].qlen = len;
        *maxlen = len > *maxlen ? len : *maxlen;
        prev = p[b];
    }
    if (prev != T)
        FAS_FAIL("%s ends at %lld: the tensors hold T = %lld rows", name, (long long)prev, (long long)T);
    return true;
}

/* The first value of an optional start-index array (0 when absent or empty). */
static int64_t fas_first(const aclIntArray *arr)
{
    uint64_t n = 0;
    const int64_t *p = arr ? cannonIntArrayData(arr, &n) : NULL;
    return p && n > 0 ? p[0] : 0;
}

/* Batch b's rule for sparse mode @p mode (sparseMode 7 and 8 give each batch 2, 3 or 4). */
static void fas_rule(int64_t mode, int64_t lo, int64_t hi, int64_t prefix, fia_seq *q)
{
    q->lo = -FIA_FAR, q->hi = FIA_FAR, q->shift = 0, q->prefix = 0;
    if (mode == 0) {
        q->lo = lo, q->hi = hi;
    } else if (mode == 2) {
        q->hi = 0;
    } else if (mode == 3) {
        q->hi = 0, q->shift = q->kvlen - q->qlen;
    } else if (mode == 4) {
        q->lo = lo, q->hi = hi, q->shift = q->kvlen - q->qlen;
    } else if (mode == 5 || mode == 6) {
        q->hi = 0, q->shift = q->kvlen - q->qlen, q->prefix = prefix;
    }
}

/* Shapes, layout, heads, pse, masks, sparse mode and dropout of both operators. */
static bool fas_parse(cannon_op *op, const cannon_tensor_view *vq, const cannon_tensor_view *vk,
                      const cannon_tensor_view *vv, const cannon_tensor_view *vp, const cannon_tensor_view *vd,
                      const cannon_tensor_view *vm, double scaleValue, double keepProb, int64_t preTokens,
                      int64_t nextTokens, int64_t headNum, const char *inputLayout, int64_t sparseMode, int64_t pseType,
                      const fas_extra *x, fas_common *c)
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
    else if (!strcmp(inputLayout, "TND"))
        c->lay = L_TND;
    else {
        char shown[24];
        snprintf(shown, sizeof shown, "%s", inputLayout);
        FAS_FAIL("inputLayout \"%s\" is not supported: BSH, SBH, BSND, BNSD and (variable lengths) TND are", shown);
    }
    if (x->varlen && c->lay != L_TND)
        FAS_FAIL("inputLayout \"%s\": the variable-length operators take TND", inputLayout);
    if (!x->varlen && c->lay == L_TND)
        FAS_FAIL("inputLayout TND needs the sequence lengths: use aclnnFlashAttentionVarLenScore(V2) and "
                 "aclnnFlashAttentionUnpaddingScoreGrad(V2)");
    if (headNum < 1 || headNum > FAS_MAX_N)
        FAS_FAIL("headNum = %lld is outside [1, %d]", (long long)headNum, FAS_MAX_N);
    int64_t qd[4], kd[4], vd4[4];
    const int rank = c->lay == L_BSH || c->lay == L_SBH || c->lay == L_TND ? 3 : 4;
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

    /* The batches: B x (S, Skv), or the cumulative lengths of TND. */
    if (c->lay == L_TND) {
        c->T = c->S, c->Tkv = c->Skv;
        if (!x->qlens || !x->kvlens) {
            cannonOpFail(op, ACLNN_ERR_PARAM_NULLPTR, "%s is NULL: layout TND needs both cumulative length arrays",
                         x->qlens ? "actualSeqKvLenOptional" : "actualSeqQLenOptional");
            return false;
        }
        uint64_t nb = 0;
        cannonIntArrayData(x->qlens, &nb);
        if (nb < 1 || nb > 65536)
            FAS_FAIL("actualSeqQLenOptional holds %llu values: 1 to 65536 batches are supported",
                     (unsigned long long)nb);
        c->B = (int64_t)nb;
    }
    c->seq = calloc((size_t)(c->B > 0 ? c->B : 1), sizeof(fia_seq));
    if (!c->seq) {
        cannonOpFail(op, ACLNN_ERR_INNER, "out of host memory for %lld sequence records", (long long)c->B);
        return false;
    }
    if (c->lay == L_TND) {
        int64_t mq = 0, mk = 0;
        if (!fas_cum(op, "actualSeqQLenOptional", x->qlens, c->B, c->T, 0, c->seq, &mq) ||
            !fas_cum(op, "actualSeqKvLenOptional", x->kvlens, c->B, c->Tkv, 1, c->seq, &mk))
            return false;
        c->S = mq, c->Skv = mk;
    } else {
        for (int64_t b = 0; b < c->B; b++)
            c->seq[b].qlen = c->S, c->seq[b].kvlen = c->Skv;
    }

    /* realShift / pseShift: [B,N,S,Skv], [B,N,1,Skv] or [1,N,S,Skv]; pseType 2 and 3: FLOAT slopes
     * [B,N] or [N] (dtype checked by the caller). */
    if (pseType < 0 || pseType > 3)
        FAS_FAIL("pseType = %lld is outside [0, 3]", (long long)pseType);
    if (vp && pseType >= 2) {
        const int64_t *p = vp->shape;
        const int ok = (vp->ndim == 2 && p[0] == c->B && p[1] == c->N) || (vp->ndim == 1 && p[0] == c->N);
        if (!ok) {
            char psh[96];
            cannonShapeFormat(vp, psh, sizeof psh);
            FAS_FAIL("realShiftOptional %s: pseType %lld takes the slopes [B,N] = [%lld,%lld] or [N] = [%lld]", psh,
                     (long long)pseType, (long long)c->B, (long long)c->N, (long long)c->N);
        }
        c->has_pse = 1;
        c->pse_gen = (int)pseType;
        c->ps[0] = vp->ndim == 2 ? vp->strides[0] : 0;
        c->ps[1] = vp->strides[vp->ndim - 1];
        c->alibi_off = fas_first(x->kvstart) - fas_first(x->qstart);
    } else if (vp) {
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
    }

    /* sparseMode / preTokens / nextTokens: without attenMask, every key is computed. */
    if (sparseMode < 0 || sparseMode > 8)
        FAS_FAIL("sparseMode = %lld is outside [0, 8]", (long long)sparseMode);
    int read_mask = vm != NULL;
    int64_t mode = vm ? sparseMode : 1, lo = -FIA_FAR, hi = FIA_FAR;
    const int64_t *pre = NULL;
    if (vm) {
        if (sparseMode == 5 && c->lay == L_TND)
            FAS_FAIL("sparseMode 5 (prefix, full mask) is not supported with variable lengths (TND): 6 is");
        if ((sparseMode == 7 || sparseMode == 8) && c->lay != L_TND)
            FAS_FAIL("sparseMode %lld (a split variable-length causal) needs layout TND", (long long)sparseMode);
        if (sparseMode == 5 || sparseMode == 6) {
            uint64_t np = 0;
            pre = x->prefix ? cannonIntArrayData(x->prefix, &np) : NULL;
            if (!pre) {
                cannonOpFail(op, ACLNN_ERR_PARAM_NULLPTR, "prefixOptional is NULL: sparseMode %lld needs it",
                             (long long)sparseMode);
                return false;
            }
            if (np < (uint64_t)c->B)
                FAS_FAIL("prefixOptional holds %llu values: one per batch (%lld) is needed", (unsigned long long)np,
                         (long long)c->B);
        }
        if (sparseMode >= 2 && sparseMode != 5) {
            const int64_t rows = sparseMode == 6 ? 3072 : FAS_OPT_MASK;
            const int64_t *m = vm->shape;
            int ok = vm->ndim >= 2 && m[vm->ndim - 1] == FAS_OPT_MASK && m[vm->ndim - 2] == rows;
            for (int64_t i = 0; i + 2 < vm->ndim; i++)
                ok = ok && m[i] == 1;
            if (!ok) {
                char msh[96];
                cannonShapeFormat(vm, msh, sizeof msh);
                FAS_FAIL("attenMaskOptional %s: sparseMode %lld takes the optimised mask [%lld,2048] or "
                         "[1,1,%lld,2048]",
                         msh, (long long)sparseMode, (long long)rows, (long long)rows);
            }
            read_mask = 0; /* its pattern is the rule */
        }
        if (sparseMode == 0 || sparseMode == 4 || sparseMode == 7 || sparseMode == 8) {
            lo = -clamp_far(preTokens);
            hi = clamp_far(nextTokens);
            if (lo > hi)
                FAS_FAIL("preTokens %lld and nextTokens %lld leave no key to any row: the band needs "
                         "-preTokens <= nextTokens",
                         (long long)preTokens, (long long)nextTokens);
        }
    }
    /* sparseMode 7 / 8: the last / first batch with rows is the band, the others causal */
    int64_t first = -1, last = -1;
    for (int64_t b = 0; b < c->B; b++)
        if (c->seq[b].qlen > 0) {
            last = b;
            first = first < 0 ? b : first;
        }
    for (int64_t b = 0; b < c->B; b++) {
        fia_seq *q = &c->seq[b];
        int64_t mb = mode;
        if (mode == 7)
            mb = b == last ? 4 : 3;
        else if (mode == 8)
            mb = b == first ? 4 : 2;
        int64_t pb = 0;
        if (pre) {
            pb = pre[b];
            const int64_t plo = q->qlen > q->kvlen ? 0 : q->kvlen - q->qlen;
            if (pb < plo || pb > q->kvlen)
                FAS_FAIL("prefixOptional[%lld] = %lld is outside [%lld, %lld] (Sq %lld, Skv %lld)", (long long)b,
                         (long long)pb, (long long)plo, (long long)q->kvlen, (long long)q->qlen, (long long)q->kvlen);
        }
        fas_rule(mb, lo, hi, pb, q);
    }
    /* attenMask: [B,N,S,Skv], [B,1,S,Skv], [1,1,S,Skv] or [S,Skv] (TND: the longest S and Skv). */
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

    /* Dropout: keepProb in (0, 1]; below 1 the keep bits come from dropMaskOptional, one [N, Sq, Skv]
     * block per batch, the batches one after another. */
    if (!(keepProb > 0.0 && keepProb <= 1.0))
        FAS_FAIL("keepProb = %g is outside (0, 1]", keepProb);
    int64_t bits = 0;
    for (int64_t b = 0; b < c->B; b++) {
        fia_seq *q = &c->seq[b];
        q->drop0 = bits;
        q->dS = c->lay == L_TND ? q->qlen : c->S;
        q->dSkv = c->lay == L_TND ? q->kvlen : c->Skv;
        bits += c->N * q->dS * q->dSkv;
    }
    if (keepProb < 1.0) {
        if (!vd) {
            cannonOpFail(op, ACLNN_ERR_PARAM_NULLPTR, "dropMaskOptional is NULL while keepProb (%g) is below 1",
                         keepProb);
            return false;
        }
        const int64_t need = (bits + 7) / 8;
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
            FAS_FAIL("dropMaskOptional %s: a contiguous UINT8 tensor of at least %lld bytes (one keep bit per "
                     "score) is needed",
                     dsh, (long long)need);
        }
        c->has_drop = 1;
        c->keep_inv = (float)(1.0 / keepProb);
    }
    return true;
}

/* softmaxMax / softmaxSum (argument @p name): FLOAT [B,N,S,8] (TND: [T,N,8]); strides per (b, n, s)
 * into xs, the 8 contiguous. */
static bool fas_stats_shape(cannon_op *op, const char *name, const cannon_tensor_view *v, const fas_common *c,
                            int64_t xs[3])
{
    const int64_t *s = v->shape;
    if (c->lay == L_TND) {
        if (v->ndim != 3 || s[0] != c->T || s[1] != c->N || s[2] != 8 || v->strides[2] != 1) {
            char sh[96];
            cannonShapeFormat(v, sh, sizeof sh);
            FAS_FAIL("%s %s: [T,N,8] = [%lld,%lld,8] with its last dim contiguous is needed", name, sh, (long long)c->T,
                     (long long)c->N);
        }
        xs[0] = 0, xs[1] = v->strides[1], xs[2] = v->strides[0];
        return true;
    }
    if (v->ndim != 4 || s[0] != c->B || s[1] != c->N || s[2] != c->S || s[3] != 8 || v->strides[3] != 1) {
        char sh[96];
        cannonShapeFormat(v, sh, sizeof sh);
        FAS_FAIL("%s %s: [B,N,S,8] = [%lld,%lld,%lld,8] with its last dim contiguous is needed", name, sh,
                 (long long)c->B, (long long)c->N, (long long)c->S);
    }
    xs[0] = v->strides[0], xs[1] = v->strides[1], xs[2] = v->strides[2];
    return true;
}

/* Whether bf16 scores go through vdpbf16ps: the avx512 tier built with AVX512-BF16 and a CPU (and
 * CANNON_CPU_ISA mask) that has it. */
static int32_t fas_bf16dot(int32_t isa, int32_t dt)
{
#if defined(CANNON_OPS_HAVE_AVX512)
    return isa == CANNON_ISA_AVX512 && dt == FIA_BF16 && cannon_avx512_uses_bf16 &&
           (cannon_cpu_features_masked() & CANNON_CPU_ISA_AVX512BF16) != 0;
#else
    (void)isa, (void)dt;
    return 0;
#endif
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
    FIA_TIER_FN(cannon_fia_units, a->isa)(a, ws, u0, u1);
    return 0;
}

static aclnnStatus fas_forward_c(const char *api, const aclTensor *query, const aclTensor *key, const aclTensor *value,
                                 const aclTensor *pse, const aclTensor *dropMask, const aclTensor *attenMask,
                                 double scaleValue, double keepProb, int64_t preTokens, int64_t nextTokens,
                                 int64_t headNum, const char *inputLayout, int64_t sparseMode, int64_t pseType,
                                 const fas_extra *x, const aclTensor *softmaxMaxOut, const aclTensor *softmaxSumOut,
                                 const aclTensor *attentionOutOut, uint64_t *workspaceSize, aclOpExecutor **executor,
                                 fas_common *cp)
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
    const int gen = pseType == 2 || pseType == 3; /* the pse holds FLOAT slopes */
    cannonOpTensorOpt(op, "realShiftOptional", pse, gen ? CANNON_DT_F32 : dts, &vp);
    if (cannonOpOk(op) && pse && !gen)
        cannonOpSameDtype(op, "realShiftOptional", &vp, "query", &vq);
    const int use_drop = keepProb < 1.0 && dropMask;
    if (use_drop)
        cannonOpTensor(op, "dropMaskOptional", dropMask, CANNON_DT_U8, &vd);
    cannonOpTensorOpt(op, "attenMaskOptional", attenMask, CANNON_DT_BOOL | CANNON_DT_U8, &vm);
    cannonOpTensor(op, "softmaxMaxOut", softmaxMaxOut, CANNON_DT_F32, &vx);
    cannonOpTensor(op, "softmaxSumOut", softmaxSumOut, CANNON_DT_F32, &vl);
    if (!cannonOpOk(op))
        return cannonOpFinish(op);
    fas_common *cq = cp, c;
    int64_t os[4], xs[3], ls[3];
    if (!fas_parse(op, &vq, &vk, &vv, pse ? &vp : NULL, use_drop ? &vd : NULL, attenMask ? &vm : NULL, scaleValue,
                   keepProb, preTokens, nextTokens, headNum, inputLayout, sparseMode, pseType, x, cq))
        return cannonOpFinish(op);
    c = *cq;
    if (!fas_same_dims(op, "attentionOutOut", &vo, &c, 0, os) || !fas_stats_shape(op, "softmaxMaxOut", &vx, &c, xs) ||
        !fas_stats_shape(op, "softmaxSumOut", &vl, &c, ls))
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

    const size_t blob = sizeof(fia_args) + (size_t)c.B * sizeof(fia_seq);
    fia_args *ap = calloc(1, blob);
    if (!ap) {
        cannonOpFail(op, ACLNN_ERR_INNER, "out of host memory for the kernel arguments");
        return cannonOpFinish(op);
    }
    memcpy(ap + 1, c.seq, (size_t)c.B * sizeof(fia_seq));
    fia_args a;
    memset(&a, 0, sizeof a);
    a.isa = (int32_t)cannon_isa_select();
    a.dt = fas_dt(vq.dtype);
    a.has_pse = c.has_pse, a.has_mask = c.has_mask, a.has_seq = 1;
    a.bf16dot = fas_bf16dot(a.isa, a.dt);
    a.pse_gen = c.pse_gen, a.alibi_off = c.alibi_off;
    a.B = c.B, a.N = c.N, a.S = c.S, a.D = c.D, a.Nkv = c.Nkv, a.Skv = c.Skv, a.group = c.N / c.Nkv;
    a.Dp = (c.D + 15) / 16 * 16;
    memcpy(a.qs, c.qs, sizeof a.qs);
    memcpy(a.ks, c.ks, sizeof a.ks);
    memcpy(a.vs, c.vs, sizeof a.vs);
    memcpy(a.os, os, sizeof a.os);
    memcpy(a.ps, c.ps, sizeof a.ps);
    memcpy(a.ms, c.ms, sizeof a.ms);
    memcpy(a.xs, xs, sizeof a.xs);
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
    a.ws_floats = (3 * FIA_ROWS * a.Dp + 2 * FIA_KB * a.Dp + FIA_ROWS * FIA_KB + 2 * FIA_ROWS + 15) / 16 * 16;
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
    memcpy(ap, &a, sizeof a);
    cannonOpKernel(op, api, fas_fwd_kernel, (uint32_t)blocks, ap, blob, refs, n);
    free(ap);
    return cannonOpFinish(op);
}

static aclnnStatus fas_forward(const char *api, const aclTensor *query, const aclTensor *key, const aclTensor *value,
                               const aclTensor *pse, const aclTensor *dropMask, const aclTensor *attenMask,
                               double scaleValue, double keepProb, int64_t preTokens, int64_t nextTokens,
                               int64_t headNum, const char *inputLayout, int64_t sparseMode, int64_t pseType,
                               const fas_extra *x, const aclTensor *softmaxMaxOut, const aclTensor *softmaxSumOut,
                               const aclTensor *attentionOutOut, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    fas_common c;
    memset(&c, 0, sizeof c);
    const aclnnStatus st = fas_forward_c(api, query, key, value, pse, dropMask, attenMask, scaleValue, keepProb,
                                         preTokens, nextTokens, headNum, inputLayout, sparseMode, pseType, x,
                                         softmaxMaxOut, softmaxSumOut, attentionOutOut, workspaceSize, executor, &c);
    fas_common_free(&c);
    return st;
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
     * masked rows are always handled). */
    (void)paddingMaskOptional;
    (void)innerPrecise;
    (void)softmaxOutOut;
    const fas_extra x = {prefixOptional, NULL, NULL, NULL, NULL, 0};
    return fas_forward("aclnnFlashAttentionScore", query, key, value, realShiftOptional, dropMaskOptional,
                       attenMaskOptional, scaleValue, keepProb, preTokens, nextTokens, headNum, inputLayout, sparseMode,
                       1, &x, softmaxMaxOut, softmaxSumOut, attentionOutOut, workspaceSize, executor);
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
    /* qStartIdx / kvStartIdx place the generated pse of pseType 2 and 3 (their first values). */
    (void)paddingMaskOptional;
    (void)innerPrecise;
    (void)softmaxOutOut;
    const fas_extra x = {prefixOptional, NULL, NULL, qStartIdxOptional, kvStartIdxOptional, 0};
    return fas_forward("aclnnFlashAttentionScoreV2", query, key, value, realShiftOptional, dropMaskOptional,
                       attenMaskOptional, scaleValue, keepProb, preTokens, nextTokens, headNum, inputLayout, sparseMode,
                       pseType, &x, softmaxMaxOut, softmaxSumOut, attentionOutOut, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnFlashAttentionVarLenScoreGetWorkspaceSize(
    const aclTensor *query, const aclTensor *key, const aclTensor *value, const aclTensor *realShiftOptional,
    const aclTensor *dropMaskOptional, const aclTensor *paddingMaskOptional, const aclTensor *attenMaskOptional,
    const aclIntArray *prefixOptional, const aclIntArray *actualSeqQLenOptional,
    const aclIntArray *actualSeqKvLenOptional, double scaleValue, double keepProb, int64_t preTokens,
    int64_t nextTokens, int64_t headNum, char *inputLayout, int64_t innerPrecise, int64_t sparseMode,
    const aclTensor *softmaxMaxOut, const aclTensor *softmaxSumOut, const aclTensor *softmaxOutOut,
    const aclTensor *attentionOutOut, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    (void)paddingMaskOptional;
    (void)innerPrecise;
    (void)softmaxOutOut;
    const fas_extra x = {prefixOptional, actualSeqQLenOptional, actualSeqKvLenOptional, NULL, NULL, 1};
    return fas_forward("aclnnFlashAttentionVarLenScore", query, key, value, realShiftOptional, dropMaskOptional,
                       attenMaskOptional, scaleValue, keepProb, preTokens, nextTokens, headNum, inputLayout, sparseMode,
                       1, &x, softmaxMaxOut, softmaxSumOut, attentionOutOut, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnFlashAttentionVarLenScoreV2GetWorkspaceSize(
    const aclTensor *query, const aclTensor *key, const aclTensor *value, const aclTensor *realShiftOptional,
    const aclTensor *dropMaskOptional, const aclTensor *paddingMaskOptional, const aclTensor *attenMaskOptional,
    const aclIntArray *prefixOptional, const aclIntArray *actualSeqQLenOptional,
    const aclIntArray *actualSeqKvLenOptional, const aclIntArray *qStartIdxOptional,
    const aclIntArray *kvStartIdxOptional, double scaleValue, double keepProb, int64_t preTokens, int64_t nextTokens,
    int64_t headNum, char *inputLayout, int64_t innerPrecise, int64_t sparseMode, int64_t pseType,
    const aclTensor *softmaxMaxOut, const aclTensor *softmaxSumOut, const aclTensor *softmaxOutOut,
    const aclTensor *attentionOutOut, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    (void)paddingMaskOptional;
    (void)innerPrecise;
    (void)softmaxOutOut;
    const fas_extra x = {prefixOptional,    actualSeqQLenOptional, actualSeqKvLenOptional,
                         qStartIdxOptional, kvStartIdxOptional,    1};
    return fas_forward("aclnnFlashAttentionVarLenScoreV2", query, key, value, realShiftOptional, dropMaskOptional,
                       attenMaskOptional, scaleValue, keepProb, preTokens, nextTokens, headNum, inputLayout, sparseMode,
                       pseType, &x, softmaxMaxOut, softmaxSumOut, attentionOutOut, workspaceSize, executor);
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
    FIA_TIER_FN(cannon_fas_kv, a->isa)(a, ws, u0, u1);
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
    FIA_TIER_FN(cannon_fas_q, a->isa)(a, ws, u0, u1);
    return 0;
}

static int fas_fused_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const fas_bwd_args *a = (const fas_bwd_args *)args;
    const int64_t units = a->B * a->Nkv;
    const int64_t u0 = (int64_t)ctx->block_idx * a->kper;
    if (u0 >= units)
        return 0;
    const int64_t u1 = units - u0 < a->kper ? units : u0 + a->kper;
    float *ws = (float *)(void *)a->ws + (int64_t)ctx->block_idx * a->ws_floats;
    FIA_TIER_FN(cannon_fas_fused, a->isa)(a, ws, u0, u1);
    return 0;
}

static aclnnStatus fas_backward_c(const char *api, const aclTensor *query, const aclTensor *key, const aclTensor *value,
                                  const aclTensor *dy, const aclTensor *pse, const aclTensor *dropMask,
                                  const aclTensor *attenMask, const aclTensor *softmaxMax, const aclTensor *softmaxSum,
                                  const aclTensor *attentionIn, double scaleValue, double keepProb, int64_t preTokens,
                                  int64_t nextTokens, int64_t headNum, const char *inputLayout, int64_t sparseMode,
                                  int64_t pseType, const fas_extra *x, const aclTensor *dqOut, const aclTensor *dkOut,
                                  const aclTensor *dvOut, const aclTensor *dpseOut, uint64_t *workspaceSize,
                                  aclOpExecutor **executor, fas_common *cq)
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
    const int gen = pseType == 2 || pseType == 3; /* the pse holds FLOAT slopes; no dpse */
    cannonOpTensorOpt(op, "pseShiftOptional", pse, gen ? CANNON_DT_F32 : dts, &vp);
    if (cannonOpOk(op) && pse && !gen)
        cannonOpSameDtype(op, "pseShiftOptional", &vp, "query", &vq);
    const int want_dpse = pse && dpseOut && !gen;
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
                   keepProb, preTokens, nextTokens, headNum, inputLayout, sparseMode, pseType, x, cq))
        return cannonOpFinish(op);
    c = *cq;
    if (!fas_same_dims(op, "dy", &vy, &c, 0, a.ys) || !fas_same_dims(op, "attentionInOptional", &vo, &c, 0, a.os) ||
        !fas_same_dims(op, "dqOut", &vdq, &c, 0, a.dqs) || !fas_same_dims(op, "dkOut", &vdk, &c, 1, a.dks) ||
        !fas_same_dims(op, "dvOut", &vdv, &c, 1, a.dvs) || !fas_stats_shape(op, "softmaxMaxOptional", &vx, &c, a.xs) ||
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
    a.has_pse = c.has_pse, a.has_mask = c.has_mask, a.pse_first = pseType == 1;
    a.bf16dot = fas_bf16dot(a.isa, a.dt);
    a.pse_gen = c.pse_gen, a.alibi_off = c.alibi_off;
    a.B = c.B, a.N = c.N, a.S = c.S, a.D = c.D, a.Nkv = c.Nkv, a.Skv = c.Skv, a.group = c.N / c.Nkv;
    a.Dp = (c.D + 15) / 16 * 16;
    memcpy(a.qs, c.qs, sizeof a.qs);
    memcpy(a.ks, c.ks, sizeof a.ks);
    memcpy(a.vs, c.vs, sizeof a.vs);
    memcpy(a.ps, c.ps, sizeof a.ps);
    memcpy(a.ms, c.ms, sizeof a.ms);
    a.scale = c.scale, a.keep_inv = c.keep_inv;
    a.nkb = (c.Skv + FIA_KB - 1) / FIA_KB;
    a.nqb = (c.S + FAS_QB - 1) / FAS_QB;
    a.kunits = c.B * c.Nkv * a.nkb;
    a.qunits = c.B * c.N * a.nqb;
    /* Enough (batch, key/value head) pairs to share out: one fused kernel (a unit per pair, its dQ
     * accumulated in the workspace, G S Dp floats); else key units and query units. Both give the
     * same bits. dpse is written by the query units. */
    const int fused = !want_dpse && c.B * c.Nkv >= FAS_FUSED_MIN_UNITS && a.kunits > 0;
    const int64_t funits = c.B * c.Nkv;
    const int64_t kb0 = fused ? (funits < FAS_FUSED_BLOCKS ? funits : FAS_FUSED_BLOCKS)
                              : (a.kunits < FAS_MAX_BLOCKS ? a.kunits : FAS_MAX_BLOCKS);
    const int64_t qb0 = a.qunits < FAS_MAX_BLOCKS ? a.qunits : FAS_MAX_BLOCKS;
    a.kper = kb0 ? ((fused ? funits : a.kunits) + kb0 - 1) / kb0 : 1;
    a.qper = qb0 ? (a.qunits + qb0 - 1) / qb0 : 1;
    const int64_t kblocks = ((fused ? funits : a.kunits) + a.kper - 1) / a.kper;
    const int64_t qblocks = fused ? 0 : (a.qunits + a.qper - 1) / a.qper;
    const int64_t D = c.D, Dp = a.Dp;
    /* key units: + FIA_KB Dp key rows (fused) and 2 FAS_QB Dp for the rows' bf16 pairs (bf16dot) */
    const int64_t kv_ws =
        2 * D * FIA_KB + 3 * FIA_KB * Dp + 4 * FAS_QB * Dp + 4 * FIA_KB * FAS_QB + 2 * Dp + 3 * FAS_QB;
    const int64_t q_ws = 2 * D * FIA_KB + FIA_KB * Dp + 5 * FAS_QB * Dp + 2 * FAS_QB * FIA_KB + 2 * Dp + 3 * FAS_QB;
    a.ws_floats = ((kv_ws > q_ws ? kv_ws : q_ws) + 15) / 16 * 16;
    if (fused) {
        a.fused_off = a.ws_floats;
        a.ws_floats += (a.group * c.S * Dp + 15) / 16 * 16;
    }
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
    const size_t blob = sizeof(fas_bwd_args) + (size_t)c.B * sizeof(fia_seq);
    fas_bwd_args *ap = calloc(1, blob);
    if (!ap) {
        cannonOpFail(op, ACLNN_ERR_INNER, "out of host memory for the kernel arguments");
        return cannonOpFinish(op);
    }
    memcpy(ap, &a, sizeof a);
    memcpy(ap + 1, c.seq, (size_t)c.B * sizeof(fia_seq));
    if (fused)
        cannonOpKernel(op, api, fas_fused_kernel, (uint32_t)kblocks, ap, blob, refs, n);
    if (!fused && a.kunits > 0)
        cannonOpKernel(op, api, fas_kv_kernel, (uint32_t)kblocks, ap, blob, refs, n);
    if (!fused && a.qunits > 0)
        cannonOpKernel(op, api, fas_q_kernel, (uint32_t)qblocks, ap, blob, refs, n);
    free(ap);
    return cannonOpFinish(op);
}

static aclnnStatus fas_backward(const char *api, const aclTensor *query, const aclTensor *key, const aclTensor *value,
                                const aclTensor *dy, const aclTensor *pse, const aclTensor *dropMask,
                                const aclTensor *attenMask, const aclTensor *softmaxMax, const aclTensor *softmaxSum,
                                const aclTensor *attentionIn, double scaleValue, double keepProb, int64_t preTokens,
                                int64_t nextTokens, int64_t headNum, const char *inputLayout, int64_t sparseMode,
                                int64_t pseType, const fas_extra *x, const aclTensor *dqOut, const aclTensor *dkOut,
                                const aclTensor *dvOut, const aclTensor *dpseOut, uint64_t *workspaceSize,
                                aclOpExecutor **executor)
{
    fas_common c;
    memset(&c, 0, sizeof c);
    const aclnnStatus st =
        fas_backward_c(api, query, key, value, dy, pse, dropMask, attenMask, softmaxMax, softmaxSum, attentionIn,
                       scaleValue, keepProb, preTokens, nextTokens, headNum, inputLayout, sparseMode, pseType, x, dqOut,
                       dkOut, dvOut, dpseOut, workspaceSize, executor, &c);
    fas_common_free(&c);
    return st;
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
    (void)innerPrecise;
    const fas_extra x = {prefixOptional, NULL, NULL, NULL, NULL, 0};
    return fas_backward("aclnnFlashAttentionScoreGrad", query, keyIn, value, dy, pseShiftOptional, dropMaskOptional,
                        attenMaskOptional, softmaxMaxOptional, softmaxSumOptional, attentionInOptional, scaleValue,
                        keepProb, preTokens, nextTokens, headNum, inputLayout, sparseMode, 1, &x, dqOut, dkOut, dvOut,
                        dpseOut, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnFlashAttentionScoreGradV2GetWorkspaceSize(
    const aclTensor *query, const aclTensor *keyIn, const aclTensor *value, const aclTensor *dy,
    const aclTensor *pseShiftOptional, const aclTensor *dropMaskOptional, const aclTensor *paddingMaskOptional,
    const aclTensor *attenMaskOptional, const aclTensor *softmaxMaxOptional, const aclTensor *softmaxSumOptional,
    const aclTensor *softmaxInOptional, const aclTensor *attentionInOptional, const aclIntArray *prefixOptional,
    const aclIntArray *qStartIdxOptional, const aclIntArray *kvStartIdxOptional, double scaleValue, double keepProb,
    int64_t preTokens, int64_t nextTokens, int64_t headNum, char *inputLayout, int64_t innerPrecise, int64_t sparseMode,
    int64_t pseType, const aclTensor *dqOut, const aclTensor *dkOut, const aclTensor *dvOut, const aclTensor *dpseOut,
    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    (void)paddingMaskOptional;
    (void)softmaxInOptional;
    (void)innerPrecise;
    const fas_extra x = {prefixOptional, NULL, NULL, qStartIdxOptional, kvStartIdxOptional, 0};
    return fas_backward("aclnnFlashAttentionScoreGradV2", query, keyIn, value, dy, pseShiftOptional, dropMaskOptional,
                        attenMaskOptional, softmaxMaxOptional, softmaxSumOptional, attentionInOptional, scaleValue,
                        keepProb, preTokens, nextTokens, headNum, inputLayout, sparseMode, pseType, &x, dqOut, dkOut,
                        dvOut, dpseOut, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnFlashAttentionUnpaddingScoreGradGetWorkspaceSize(
    const aclTensor *query, const aclTensor *keyIn, const aclTensor *value, const aclTensor *dy,
    const aclTensor *pseShiftOptional, const aclTensor *dropMaskOptional, const aclTensor *paddingMaskOptional,
    const aclTensor *attenMaskOptional, const aclTensor *softmaxMaxOptional, const aclTensor *softmaxSumOptional,
    const aclTensor *softmaxInOptional, const aclTensor *attentionInOptional, const aclIntArray *prefixOptional,
    const aclIntArray *actualSeqQLenOptional, const aclIntArray *actualSeqKvLenOptional, double scaleValue,
    double keepProb, int64_t preTokens, int64_t nextTokens, int64_t headNum, char *inputLayout, int64_t innerPrecise,
    int64_t sparseMode, const aclTensor *dqOut, const aclTensor *dkOut, const aclTensor *dvOut,
    const aclTensor *dpseOut, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    (void)paddingMaskOptional;
    (void)softmaxInOptional;
    (void)innerPrecise;
    const fas_extra x = {prefixOptional, actualSeqQLenOptional, actualSeqKvLenOptional, NULL, NULL, 1};
    return fas_backward("aclnnFlashAttentionUnpaddingScoreGrad", query, keyIn, value, dy, pseShiftOptional,
                        dropMaskOptional, attenMaskOptional, softmaxMaxOptional, softmaxSumOptional,
                        attentionInOptional, scaleValue, keepProb, preTokens, nextTokens, headNum, inputLayout,
                        sparseMode, 1, &x, dqOut, dkOut, dvOut, dpseOut, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnFlashAttentionUnpaddingScoreGradV2GetWorkspaceSize(
    const aclTensor *query, const aclTensor *keyIn, const aclTensor *value, const aclTensor *dy,
    const aclTensor *pseShiftOptional, const aclTensor *dropMaskOptional, const aclTensor *paddingMaskOptional,
    const aclTensor *attenMaskOptional, const aclTensor *softmaxMaxOptional, const aclTensor *softmaxSumOptional,
    const aclTensor *softmaxInOptional, const aclTensor *attentionInOptional, const aclIntArray *prefixOptional,
    const aclIntArray *actualSeqQLenOptional, const aclIntArray *actualSeqKvLenOptional,
    const aclIntArray *qStartIdxOptional, const aclIntArray *kvStartIdxOptional, double scaleValue, double keepProb,
    int64_t preTokens, int64_t nextTokens, int64_t headNum, char *inputLayout, int64_t innerPrecise, int64_t sparseMode,
    int64_t pseType, const aclTensor *dqOut, const aclTensor *dkOut, const aclTensor *dvOut, const aclTensor *dpseOut,
    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    (void)paddingMaskOptional;
    (void)softmaxInOptional;
    (void)innerPrecise;
    const fas_extra x = {prefixOptional,    actualSeqQLenOptional, actualSeqKvLenOptional,
                         qStartIdxOptional, kvStartIdxOptional,    1};
    return fas_backward("aclnnFlashAttentionUnpaddingScoreGradV2", query, keyIn, value, dy, pseShiftOptional,
                        dropMaskOptional, attenMaskOptional, softmaxMaxOptional, softmaxSumOptional,
                        attentionInOptional, scaleValue, keepProb, preTokens, nextTokens, headNum, inputLayout,
                        sparseMode, pseType, &x, dqOut, dkOut, dvOut, dpseOut, workspaceSize, executor);
}
