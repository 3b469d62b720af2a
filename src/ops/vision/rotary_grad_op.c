/*
 * The rotary embedding's backward and its fused in-place form:
 *   - aclnnRotaryPositionEmbeddingGrad: dx of aclnnRotaryPositionEmbedding (every mode of the
 *     forward), and with xOptional the gradients of cos and sin summed over the dims they were
 *     broadcast along;
 *   - aclnnApplyRotaryPosEmb (half mode) and V2 ("half", "interleave", "quarter"): the forward on
 *     query and key in place, cos and sin broadcast over their other dims (the heads, a batch of 1).
 *
 * Every mode pairs the D positions of a row: pair j joins outputs o1, o2 with inputs a, b as
 *     y[o1] = x[a] c[o1] - x[b] s[o1],   y[o2] = x[b] c[o2] + x[a] s[o2]
 * (the forward op's table: half (i, i+h, i, i+h), interleave (2i, 2i+1, 2i, 2i+1), quarter the half
 * mode within each half of the row, interleave-half (i, h+i, 2i, 2i+1)). The backward is the
 * transposed map: dx[a] = dy[o1] c[o1] + dy[o2] s[o2], dx[b] = dy[o2] c[o2] - dy[o1] s[o1];
 * dcos[o] = sum dy[o] x[input of o], dsin[o1] = -sum dy[o1] x[b], dsin[o2] = sum dy[o2] x[a].
 *
 * Tensors are bound as contiguous buffers (strided views gathered / scattered by the framework).
 * dx and the in-place forward: one unit per row, the row converted to fp32 first (so out may be the
 * input), each result rounded once. dcos / dsin: one unit per row of cos, which sums the rows of dy
 * and x that broadcast onto it in a fixed order in fp64 (the same result for any worker count).
 */
#include <stddef.h>
#include <string.h>

#include "aclnnop/aclnn_apply_rotary_pos_emb.h"
#include "aclnnop/aclnn_apply_rotary_pos_emb_v2.h"
#include "aclnnop/aclnn_rotary_position_embedding_grad.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "vision_common.h"
#include "../kernels/isa.h"
#include "../kernels/kernels.h"

#define RG_BLOCK_ELEMS (32 * 1024)
#define RG_MAX_BLOCKS 256

typedef struct rg_args {
    const char *x, *cos, *sin, *xf; /* bound: x (dy), cos, sin, the forward's x (dcos / dsin) */
    char *out, *dcos, *dsin;        /* bound */
    char *ws;                       /* bound: per block scratch */
    int32_t dt, mode, backward, nd, isa, pad;
    int64_t es, d, rows, crows, per_block;
    int64_t shape[CANNON_OP_MAX_RANK];  /* x's row dims */
    int64_t cshape[CANNON_OP_MAX_RANK]; /* cos's row dims */
} rg_args;

static inline void rg_pair(int mode, int64_t d, int64_t j, int64_t *o1, int64_t *o2, int64_t *a, int64_t *b)
{
    const int64_t h = d / 2, q = d / 4;
    switch (mode) {
    case 0:
        *o1 = *a = j;
        *o2 = *b = j + h;
        break;
    case 1:
        *o1 = *a = 2 * j;
        *o2 = *b = 2 * j + 1;
        break;
    case 2: {
        const int64_t base = j < q ? 0 : 2 * q, i = j < q ? j : j - q;
        *o1 = *a = base + i;
        *o2 = *b = base + i + q;
        break;
    }
    default:
        *o1 = j;
        *o2 = h + j;
        *a = 2 * j;
        *b = 2 * j + 1;
        break;
    }
}

static void rg_load_row(const char *p, aclDataType dt, int64_t d, float *buf)
{
    for (int64_t i = 0; i < d; i++)
        buf[i] = vis_load_f32(p + i * (int64_t)cannonDtypeSize(dt), dt);
}

/* Row @p p of d values as fp32: fp32 rows are read in place, 16-bit rows widened into @p buf by the
 * tier's bulk converters (exact). */
static const float *rg_row_f32(const cannon_kernel_table *kt, const char *p, aclDataType dt, int64_t d, float *buf)
{
    if (dt == ACL_FLOAT)
        return (const float *)(const void *)p;
    if (dt == ACL_FLOAT16)
        kt->f16_to_f32(buf, (const uint16_t *)(const void *)p, (size_t)d);
    else
        kt->bf16_to_f32(buf, (const uint16_t *)(const void *)p, (size_t)d);
    return buf;
}

/* n pairs j: o1 = o0 + j*os, o2 = o1 + og; a = a0 + j*as, b = a + ag (the table above). Inlined with
 * constant steps at each call, so the unit-step modes become plain vector loops. */
static inline void rg_pairs(int backward, const float *restrict x, const float *restrict c,
                            const float *restrict s, float *restrict y, int64_t n, int64_t o0, int64_t os,
                            int64_t og, int64_t a0, int64_t as, int64_t ag)
{
    if (backward) {
        for (int64_t j = 0; j < n; j++) {
            const int64_t o1 = o0 + j * os, o2 = o1 + og, a = a0 + j * as, b = a + ag;
            y[a] = x[o1] * c[o1] + x[o2] * s[o2];
            y[b] = x[o2] * c[o2] - x[o1] * s[o1];
        }
    } else {
        for (int64_t j = 0; j < n; j++) {
            const int64_t o1 = o0 + j * os, o2 = o1 + og, a = a0 + j * as, b = a + ag;
            y[o1] = x[a] * c[o1] - x[b] * s[o1];
            y[o2] = x[b] * c[o2] + x[a] * s[o2];
        }
    }
}

/* One row of the forward (or its transpose) in mode @p mode, d even (quarter: d % 4 == 0). */
static void rg_row(int mode, int backward, int64_t d, const float *x, const float *c, const float *s, float *y)
{
    const int64_t h = d / 2, q = d / 4;
    switch (mode) {
    case 0:
        rg_pairs(backward, x, c, s, y, h, 0, 1, h, 0, 1, h);
        break;
    case 1:
        rg_pairs(backward, x, c, s, y, h, 0, 2, 1, 0, 2, 1);
        break;
    case 2:
        rg_pairs(backward, x, c, s, y, q, 0, 1, q, 0, 1, q);
        rg_pairs(backward, x, c, s, y, q, 2 * q, 1, q, 2 * q, 1, q);
        break;
    default:
        rg_pairs(backward, x, c, s, y, h, 0, 1, h, 0, 2, 1);
        break;
    }
}

/* The cos row (its index among cos's rows) that x row @p r reads. */
static int64_t rg_crow(const rg_args *a, int64_t r)
{
    int64_t cr = 0, mul = 1;
    for (int32_t k = a->nd - 1; k >= 0; k--) {
        const int64_t i = r % a->shape[k];
        r /= a->shape[k];
        if (a->cshape[k] != 1)
            cr += i * mul;
        mul *= a->cshape[k];
    }
    return cr;
}

static int rg_rows_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const rg_args *a = (const rg_args *)args;
    const cannon_kernel_table *kt = cannon_kernels_for((cannon_isa)a->isa);
    const int64_t d = a->d, es = a->es;
    const aclDataType dt = (aclDataType)a->dt;
    float *buf = (float *)(void *)(a->ws + (int64_t)ctx->block_idx * 4 * d * (int64_t)sizeof(float));
    float *bx = buf, *bc = buf + d, *bs = buf + 2 * d, *by = buf + 3 * d;
    const int64_t r0 = (int64_t)ctx->block_idx * a->per_block;
    const int64_t r1 = a->rows - r0 < a->per_block ? a->rows : r0 + a->per_block;
    const float *c = NULL, *s = NULL;
    int64_t have = -1; /* the cos / sin row loaded (rows of x that share it reuse it) */
    for (int64_t r = r0; r < r1; r++) {
        const int64_t cr = rg_crow(a, r);
        if (cr != have) {
            c = rg_row_f32(kt, a->cos + cr * d * es, dt, d, bc);
            s = rg_row_f32(kt, a->sin + cr * d * es, dt, d, bs);
            have = cr;
        }
        const float *x = rg_row_f32(kt, a->x + r * d * es, dt, d, bx);
        /* y goes through by: out may be x's own row (the in-place forms). */
        rg_row(a->mode, a->backward, d, x, c, s, by);
        char *o = a->out + r * d * es;
        if (dt == ACL_FLOAT)
            memcpy(o, by, (size_t)d * sizeof(float));
        else if (dt == ACL_FLOAT16)
            kt->f32_to_f16((uint16_t *)(void *)o, by, (size_t)d);
        else
            kt->f32_to_bf16((uint16_t *)(void *)o, by, (size_t)d);
    }
    return 0;
}

/* dcos / dsin: block b owns cos rows [b * per_block, ...); each sums its x rows in row order. */
static int rg_table_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const rg_args *a = (const rg_args *)args;
    const int64_t d = a->d, es = a->es;
    const aclDataType dt = (aclDataType)a->dt;
    char *w = a->ws + (int64_t)ctx->block_idx * d * (int64_t)(2 * sizeof(float) + 2 * sizeof(double));
    float *bdy = (float *)(void *)w, *bx = bdy + d;
    double *ac = (double *)(void *)(bx + d), *as = ac + d;
    const int64_t c0 = (int64_t)ctx->block_idx * a->per_block;
    const int64_t c1 = a->crows - c0 < a->per_block ? a->crows : c0 + a->per_block;
    int64_t bdims[CANNON_OP_MAX_RANK], nb = 0, nbr = 1;
    for (int32_t k = 0; k < a->nd; k++)
        if (a->cshape[k] == 1 && a->shape[k] != 1) {
            bdims[nb++] = k;
            nbr *= a->shape[k];
        }
    for (int64_t cr = c0; cr < c1; cr++) {
        /* cos row index -> its multi-index (broadcast dims at 0) */
        int64_t idx[CANNON_OP_MAX_RANK], t = cr;
        for (int32_t k = a->nd - 1; k >= 0; k--) {
            idx[k] = t % a->cshape[k];
            t /= a->cshape[k];
        }
        for (int64_t i = 0; i < d; i++)
            ac[i] = as[i] = 0.0;
        for (int64_t br = 0; br < nbr; br++) {
            int64_t u = br;
            for (int64_t k = nb - 1; k >= 0; k--) {
                idx[bdims[k]] = u % a->shape[bdims[k]];
                u /= a->shape[bdims[k]];
            }
            int64_t r = 0;
            for (int32_t k = 0; k < a->nd; k++)
                r = r * a->shape[k] + idx[k];
            rg_load_row(a->x + r * d * es, dt, d, bdy);
            rg_load_row(a->xf + r * d * es, dt, d, bx);
            for (int64_t j = 0; j < d / 2; j++) {
                int64_t o1, o2, ia, ib;
                rg_pair(a->mode, d, j, &o1, &o2, &ia, &ib);
                ac[o1] += (double)bdy[o1] * bx[ia];
                ac[o2] += (double)bdy[o2] * bx[ib];
                as[o1] -= (double)bdy[o1] * bx[ib];
                as[o2] += (double)bdy[o2] * bx[ia];
            }
        }
        for (int64_t i = 0; i < d; i++) {
            if (a->dcos)
                vis_store(a->dcos + (cr * d + i) * es, dt, ac[i]);
            if (a->dsin)
                vis_store(a->dsin + (cr * d + i) * es, dt, as[i]);
        }
    }
    return 0;
}

/* Shapes: x rank @p r0 or @p r1; cos and sin x's rank, one shape, each row dim x's size or 1, last
 * dim x's D; D a multiple of 2 (4 in quarter mode). */
static bool rg_shapes(cannon_op *op, aclnnStatus code, const char *xn, const cannon_tensor_view *vx,
                      const cannon_tensor_view *vc, const cannon_tensor_view *vs, int mode, int64_t r0, int64_t r1)
{
    if (!cannonOpOk(op))
        return false;
    if (vx->ndim != r0 && vx->ndim != r1)
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s must have %lld%s%.0lld dims, got %lld", xn,
                            (long long)r0, r0 != r1 ? " or " : "", r0 != r1 ? (long long)r1 : 0LL,
                            (long long)vx->ndim);
    if (vc->ndim != vx->ndim || vs->ndim != vx->ndim)
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "cos and sin must have %s's %lld dims", xn,
                            (long long)vx->ndim);
    const int64_t nd = vx->ndim, d = vx->shape[nd - 1];
    for (int64_t k = 0; k < nd; k++) {
        if (vs->shape[k] != vc->shape[k])
            return cannonOpFail(op, code, "sin's shape must equal cos's (dim %lld: %lld vs %lld)", (long long)k,
                                (long long)vs->shape[k], (long long)vc->shape[k]);
        if (k == nd - 1 ? vc->shape[k] != d : vc->shape[k] != vx->shape[k] && vc->shape[k] != 1)
            return cannonOpFail(op, code, "cos dim %lld has size %lld: must be %s's %lld%s", (long long)k,
                                (long long)vc->shape[k], xn, (long long)vx->shape[k], k == nd - 1 ? "" : " or 1");
    }
    if (d % (mode == 2 ? 4 : 2) != 0)
        return cannonOpFail(op, code, "the last dim D = %lld must be a multiple of %d", (long long)d,
                            mode == 2 ? 4 : 2);
    return true;
}

static void rg_geometry(rg_args *a, const cannon_tensor_view *vx, const cannon_tensor_view *vc)
{
    const int64_t nd = vx->ndim;
    a->dt = (int32_t)vx->dtype;
    a->es = (int64_t)cannonDtypeSize(vx->dtype);
    a->d = vx->shape[nd - 1];
    a->nd = (int32_t)(nd - 1);
    a->rows = a->crows = 1;
    for (int64_t k = 0; k < nd - 1; k++) {
        a->shape[k] = vx->shape[k];
        a->cshape[k] = vc->shape[k];
        a->rows *= vx->shape[k];
        a->crows *= vc->shape[k];
    }
}

/* Record the row kernel over x -> out (slots bound by the caller's order: x, cos, sin, out). */
static void rg_record_rows(cannon_op *op, rg_args a, int sx, unsigned how_x, int sc, int ss, int so)
{
    if (!cannonOpOk(op) || a.rows == 0 || a.d == 0)
        return;
    a.isa = (int32_t)cannon_isa_select();
    a.per_block = vis_units_per_block(a.rows, a.d, RG_BLOCK_ELEMS);
    if ((a.rows + a.per_block - 1) / a.per_block > RG_MAX_BLOCKS)
        a.per_block = (a.rows + RG_MAX_BLOCKS - 1) / RG_MAX_BLOCKS;
    const int64_t blocks = (a.rows + a.per_block - 1) / a.per_block;
    uint64_t wso = 0;
    cannon_arg_ref refs[5];
    cannonOpBind(op, sx, how_x, (uint32_t)offsetof(rg_args, x), &refs[0]);
    cannonOpBind(op, sc, CANNON_BIND_IN, (uint32_t)offsetof(rg_args, cos), &refs[1]);
    cannonOpBind(op, ss, CANNON_BIND_IN, (uint32_t)offsetof(rg_args, sin), &refs[2]);
    if (so == sx) { /* in place: out is x's buffer */
        refs[3] = refs[0];
        refs[3].args_offset = (uint32_t)offsetof(rg_args, out);
    } else {
        cannonOpBind(op, so, CANNON_BIND_OUT, (uint32_t)offsetof(rg_args, out), &refs[3]);
    }
    if (!cannonOpWorkspace(op, (uint64_t)(blocks * 4 * a.d * (int64_t)sizeof(float)), &wso))
        return;
    refs[4] = (cannon_arg_ref){(uint32_t)offsetof(rg_args, ws), CANNON_SLOT_WORKSPACE, (int64_t)wso};
    cannonOpKernel(op, op->api + 5, rg_rows_kernel, (uint32_t)blocks, &a, sizeof a, refs, 5);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnRotaryPositionEmbeddingGradGetWorkspaceSize(
    const aclTensor *dy, const aclTensor *cos, const aclTensor *sin, const aclTensor *xOptional, int64_t mode,
    const aclTensor *dxOut, const aclTensor *dcosOut, const aclTensor *dsinOut, uint64_t *workspaceSize,
    aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vdy, vc, vs, vx, vdx, vdc, vds;
    cannonOpBegin(&op, "aclnnRotaryPositionEmbeddingGrad", workspaceSize, executor);
    cannonOpNotNulls(&op, "dy", dy, "cos", cos, "sin", sin, "dxOut", dxOut, NULL);
    const cannon_dtype_set dts = cn_dts_RotaryPositionEmbeddingGrad();
    cannonOpTensor(&op, "dy", dy, dts, &vdy);
    cannonOpTensor(&op, "cos", cos, dts, &vc);
    cannonOpTensor(&op, "sin", sin, dts, &vs);
    cannonOpTensorOpt(&op, "xOptional", xOptional, dts, &vx);
    cannonOpTensor(&op, "dxOut", dxOut, dts, &vdx);
    /* dcos / dsin are computed when x is given and the output is */
    const bool tables = xOptional != NULL && (dcosOut != NULL || dsinOut != NULL);
    cannonOpTensorOpt(&op, "dcosOut", tables ? dcosOut : NULL, dts, &vdc);
    cannonOpTensorOpt(&op, "dsinOut", tables ? dsinOut : NULL, dts, &vds);
    cannonOpSameDtype(&op, "cos", &vc, "dy", &vdy);
    cannonOpSameDtype(&op, "sin", &vs, "dy", &vdy);
    cannonOpSameDtype(&op, "dxOut", &vdx, "dy", &vdy);
    if (xOptional) {
        cannonOpSameDtype(&op, "xOptional", &vx, "dy", &vdy);
        cannonOpSameShape(&op, "xOptional", &vx, "dy", &vdy);
    }
    if (cannonOpOk(&op) && (mode < 0 || mode > 3))
        cannonOpFail(&op, ACLNN_ERR_INNER_TILING_ERROR, "mode must be 0 (half), 1 (interleave), 2 (quarter) or 3 "
                     "(interleave-half), got %lld", (long long)mode);
    rg_shapes(&op, ACLNN_ERR_INNER_TILING_ERROR, "dy", &vdy, &vc, &vs, (int)mode, 3, 4);
    cannonOpSameShape(&op, "dxOut", &vdx, "dy", &vdy);
    if (tables && dcosOut) {
        cannonOpSameDtype(&op, "dcosOut", &vdc, "dy", &vdy);
        cannonOpSameShape(&op, "dcosOut", &vdc, "cos", &vc);
    }
    if (tables && dsinOut) {
        cannonOpSameDtype(&op, "dsinOut", &vds, "dy", &vdy);
        cannonOpSameShape(&op, "dsinOut", &vds, "sin", &vs);
    }
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const int sdy = cannonOpInput(&op, dy);
    const int sc = cannonOpInput(&op, cos);
    const int ss = cannonOpInput(&op, sin);
    const int sx = tables ? cannonOpInput(&op, xOptional) : -1;
    const int sdx = cannonOpOutput(&op, dxOut);
    const int sdc = tables && dcosOut ? cannonOpOutput(&op, dcosOut) : -1;
    const int sds = tables && dsinOut ? cannonOpOutput(&op, dsinOut) : -1;
    rg_args a;
    memset(&a, 0, sizeof a);
    rg_geometry(&a, &vdy, &vc);
    a.mode = (int32_t)mode;
    a.backward = 1;
    if (tables && a.crows > 0 && a.d > 0) {
        rg_args t = a;
        t.per_block = (t.crows + RG_MAX_BLOCKS - 1) / RG_MAX_BLOCKS;
        const int64_t blocks = (t.crows + t.per_block - 1) / t.per_block;
        cannon_arg_ref refs[7];
        size_t nr = 0;
        uint64_t wso = 0;
        if (cannonOpBind(&op, sdy, CANNON_BIND_IN, (uint32_t)offsetof(rg_args, x), &refs[nr]))
            nr++;
        if (cannonOpBind(&op, sx, CANNON_BIND_IN, (uint32_t)offsetof(rg_args, xf), &refs[nr]))
            nr++;
        if (sdc >= 0 && cannonOpBind(&op, sdc, CANNON_BIND_OUT, (uint32_t)offsetof(rg_args, dcos), &refs[nr]))
            nr++;
        if (sds >= 0 && cannonOpBind(&op, sds, CANNON_BIND_OUT, (uint32_t)offsetof(rg_args, dsin), &refs[nr]))
            nr++;
        if (cannonOpWorkspace(&op, (uint64_t)(blocks * t.d * (int64_t)(2 * sizeof(float) + 2 * sizeof(double))),
                              &wso)) {
            refs[nr++] = (cannon_arg_ref){(uint32_t)offsetof(rg_args, ws), CANNON_SLOT_WORKSPACE, (int64_t)wso};
            cannonOpKernel(&op, "RotaryPositionEmbeddingGrad", rg_table_kernel, (uint32_t)blocks, &t, sizeof t,
                           refs, nr);
        }
    }
    rg_record_rows(&op, a, sdy, CANNON_BIND_IN, sc, ss, sdx);
    return cannonOpFinish(&op);
}

/* ApplyRotaryPosEmb(V2): the forward on queryRef and keyRef in place. */
static aclnnStatus apply_rope(const char *api, cannon_dtype_set dts, aclTensor *queryRef, aclTensor *keyRef,
                              const aclTensor *cos, const aclTensor *sin, int64_t layout, const char *rotaryMode,
                              bool v2, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vq, vk, vc, vs;
    cannonOpBegin(&op, api, workspaceSize, executor);
    cannonOpNotNulls(&op, "queryRef", queryRef, "keyRef", keyRef, "cos", cos, "sin", sin, NULL);
    if (v2)
        cannonOpNotNull(&op, "rotaryMode", rotaryMode);
    cannonOpTensor(&op, "queryRef", queryRef, dts, &vq);
    cannonOpTensor(&op, "keyRef", keyRef, dts, &vk);
    cannonOpTensor(&op, "cos", cos, dts, &vc);
    cannonOpTensor(&op, "sin", sin, dts, &vs);
    cannonOpSameDtype(&op, "keyRef", &vk, "queryRef", &vq);
    cannonOpSameDtype(&op, "cos", &vc, "queryRef", &vq);
    cannonOpSameDtype(&op, "sin", &vs, "queryRef", &vq);
    int mode = 0;
    if (cannonOpOk(&op) && v2) {
        if (strcmp(rotaryMode, "half") == 0)
            mode = 0;
        else if (strcmp(rotaryMode, "interleave") == 0)
            mode = 1;
        else if (strcmp(rotaryMode, "quarter") == 0)
            mode = 2;
        else
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "rotaryMode must be \"half\", \"interleave\" or \"quarter\"");
    }
    if (cannonOpOk(&op) && (layout < 1 || layout > 4))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "layout must be 1 (BSND), 2 (SBND), 3 (BNSD) or 4 (TND), got %lld",
                     (long long)layout);
    const int64_t rank = layout == 4 ? 3 : 4;
    rg_shapes(&op, ACLNN_ERR_PARAM_INVALID, "queryRef", &vq, &vc, &vs, mode, rank, rank);
    rg_shapes(&op, ACLNN_ERR_PARAM_INVALID, "keyRef", &vk, &vc, &vs, mode, rank, rank);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const int sc = cannonOpInput(&op, cos);
    const int ss = cannonOpInput(&op, sin);
    const int sq = cannonOpOutput(&op, queryRef);
    const int sk = cannonOpOutput(&op, keyRef);
    rg_args a;
    memset(&a, 0, sizeof a);
    a.mode = mode;
    rg_geometry(&a, &vq, &vc);
    rg_record_rows(&op, a, sq, CANNON_BIND_INOUT, sc, ss, sq);
    rg_geometry(&a, &vk, &vc);
    rg_record_rows(&op, a, sk, CANNON_BIND_INOUT, sc, ss, sk);
    return cannonOpFinish(&op);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnApplyRotaryPosEmbGetWorkspaceSize(aclTensor *queryRef, aclTensor *keyRef,
                                                                       const aclTensor *cos, const aclTensor *sin,
                                                                       int64_t layout, uint64_t *workspaceSize,
                                                                       aclOpExecutor **executor)
{
    return apply_rope("aclnnApplyRotaryPosEmb", cn_dts_ApplyRotaryPosEmb(), queryRef, keyRef, cos, sin, layout,
                      NULL, false, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnApplyRotaryPosEmbV2GetWorkspaceSize(aclTensor *queryRef, aclTensor *keyRef,
                                                                         const aclTensor *cos, const aclTensor *sin,
                                                                         int64_t layout, char *rotaryMode,
                                                                         uint64_t *workspaceSize,
                                                                         aclOpExecutor **executor)
{
    return apply_rope("aclnnApplyRotaryPosEmbV2", cn_dts_ApplyRotaryPosEmbV2(), queryRef, keyRef, cos, sin, layout,
                      rotaryMode, true, workspaceSize, executor);
}
