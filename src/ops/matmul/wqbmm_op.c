/*
 * aclnnWeightQuantBatchMatmulV2: y = x @ ((weight + antiquantOffset) * antiquantScale) + bias with
 * an INT8 or INT4 weight (A16W8 / A16W4), FLOAT16 or BFLOAT16 activations.
 *
 * Plan, two launches, every split a function of the shape only:
 *  1. widen: blocks of WQ_XROWS rows of x are widened (exactly) to a contiguous fp32 copy in the
 *     workspace, through the kernel table's bulk conversion where a row is contiguous.
 *  2. product: one block per panel of WQ_NC output columns, by one of two paths.
 *     - fused (m <= wq_fused_max_m of the tier, the weight's unit stride along K, INT4 columns
 *       starting on a byte: ggml's decode calls): the panel's group scales (and offsets) are
 *       widened to fp32, then wq_dot_impl.h reads each column of the weight once, widens its
 *       quantised values (plus the group's offset) in registers and multiplies them into every row
 *       of x, one fp32 sum per group, scaled by the group's scale into the fp32 result. The weight is read at close to
 *       memory speed; the work per weight byte grows with m, which bounds the path to small m.
 *     - dequantise + sgemm (every other case): the block dequantises its panel of the weight into
 *       its worker's scratch in fp32, (q + offset) * scale with the scale and offset of the
 *       element's group (per tensor, per column, or per antiquantGroupSize rows of K), laid out
 *       along the weight's own unit-stride axis (so a transposed (n, k) storage is read and written
 *       sequentially), then multiplies rows of x by it with the family's single-threaded sgemm
 *       (fp32 sums), WQ_MR rows at a time.
 *     Both add the bias and round once to y's dtype.
 * Results are bit-identical for any worker count: each output element is one block's work, its
 * summation order fixed by the shape and the ISA tier (the fused path's also by the tier's vector
 * width, so its bits differ between tiers; the sgemm path's do not depend on the tier). Neither
 * rounds the weight to the activations' 16-bit type: both compute in fp32 from the exact quantised
 * values, which is closer to the float64 result than a 16-bit dequantised weight would be.
 *
 * INT4: two's-complement nibbles, element 2i of the storage in the low nibble of byte i (ggml's
 * Q4_0 upload writes them so); strides and the view offset count nibbles. The weight is bound as
 * its storage (byte offset 0) and the kernel adds the view's nibble offset itself.
 */
#include <stdint.h>
#include <string.h>

#include "aclnnop/aclnn_weight_quant_batch_matmul_v2.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "fp_convert.h"
#include "../kernels/kernels.h"
#include "mm_kernels.h"
#include "wq_kernels.h"

#define WQ_NC 64     /* output columns per block */
#define WQ_MR 256    /* rows of x per sgemm call */
#define WQ_XROWS 64  /* rows of x per widening block */
#define WQ_MAX_KN 65535

typedef struct wq_args {
    const void *x, *w, *scale, *offset, *bias;
    void *y, *ws;
    int64_t m, k, n;
    int64_t xm, xk, wk, wn, woff, sg, sn, og, on, bn, ym, yn;
    int64_t group;     /* K rows per scale row (k for per-tensor and per-channel scales) */
    int64_t nblk, nwork, scratch, ws_x, ws_s;
    int32_t dt;        /* MM_F16 or MM_BF16 (x, scale, offset, y) */
    int32_t int4, has_off, bias_dt; /* bias_dt: -1 none, else MM_F32 / MM_F16 */
    int32_t kmajor;    /* dequantise into [column][k] (the weight's unit stride is along k) */
    int32_t isa;       /* cannon_isa of the plan: the bulk conversions' table, the fused kernel's tier */
    int32_t fused;     /* the fused small-m path (wq_dot_impl.h) instead of dequantise + sgemm */
    int64_t ngroups;   /* scale rows along K: ceil(k / group) */
} wq_args;

static float wq_ld16(int dt, const void *p, int64_t i)
{
    const uint16_t h = ((const uint16_t *)p)[i];
    return dt == MM_F16 ? cannon_f16_to_f32(h) : cannon_bf16_to_f32(h);
}

/* Widen rows [r0, r1) of x into the contiguous fp32 copy. */
static int wq_widen_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const wq_args *g = (const wq_args *)args;
    const cannon_kernel_table *kt = cannon_kernels_for((cannon_isa)g->isa);
    const int64_t r0 = (int64_t)ctx->block_idx * WQ_XROWS, r1 = r0 + WQ_XROWS < g->m ? r0 + WQ_XROWS : g->m;
    float *xf = (float *)(void *)((char *)g->ws + g->ws_x);
    const uint16_t *x = (const uint16_t *)g->x;
    for (int64_t i = r0; i < r1; i++) {
        float *dst = xf + i * g->k;
        if (g->xk == 1) {
            if (g->dt == MM_F16)
                kt->f16_to_f32(dst, x + i * g->xm, (size_t)g->k);
            else
                kt->bf16_to_f32(dst, x + i * g->xm, (size_t)g->k);
        } else {
            for (int64_t p = 0; p < g->k; p++)
                dst[p] = wq_ld16(g->dt, x, i * g->xm + p * g->xk);
        }
    }
    return 0;
}

/* The quantised value at element offset e of the weight (nibbles for INT4). */
static inline int wq_q(const wq_args *g, const int8_t *w, int64_t e)
{
    if (!g->int4)
        return w[e];
    e += g->woff;
    const uint8_t b = (uint8_t)w[e >> 1];
    return (e & 1) ? (int)((int8_t)b >> 4) : (int)((int8_t)(uint8_t)(b << 4) >> 4);
}

static float wq_param(const wq_args *g, const void *p, int64_t gi, int64_t j, int64_t sg, int64_t sn)
{
    return wq_ld16(g->dt, p, gi * sg + j * sn);
}

/* Dequantise columns [j0, j0 + nc) into dst: [nc][k] when kmajor, else [k][nc]. */
static void wq_dequant(const wq_args *g, int64_t j0, int64_t nc, float *dst)
{
    const int8_t *w = (const int8_t *)g->w;
    const int64_t k = g->k, ngroups = (k + g->group - 1) / g->group;
    for (int64_t gi = 0; gi < ngroups; gi++) {
        const int64_t p0 = gi * g->group, p1 = p0 + g->group < k ? p0 + g->group : k;
        for (int64_t jj = 0; jj < nc; jj++) {
            const int64_t j = j0 + jj;
            const float s = wq_param(g, g->scale, gi, j, g->sg, g->sn);
            const float o = g->has_off ? wq_param(g, g->offset, gi, j, g->og, g->on) : 0.0f;
            if (g->kmajor) {
                float *d = dst + jj * k;
                if (!g->int4 && g->wk == 1) {
                    const int8_t *col = w + j * g->wn;
                    for (int64_t p = p0; p < p1; p++)
                        d[p] = ((float)col[p] + o) * s;
                } else {
                    for (int64_t p = p0; p < p1; p++)
                        d[p] = ((float)wq_q(g, w, p * g->wk + j * g->wn) + o) * s;
                }
            } else {
                for (int64_t p = p0; p < p1; p++)
                    dst[p * nc + jj] = ((float)wq_q(g, w, p * g->wk + j * g->wn) + o) * s;
            }
        }
    }
}

/* Rows [r0, r0 + mr) x columns [j0, j0 + nc) of y from their fp32 sums c ([mr][nc]): plus the
 * bias, rounded once to y's dtype. */
static void wq_store(const wq_args *g, const cannon_kernel_table *kt, float *cb, int64_t r0, int64_t mr, int64_t j0,
                     int64_t nc, const float *brow)
{
    uint16_t *y = (uint16_t *)g->y;
    for (int64_t i = 0; i < mr; i++) {
        float *c = cb + i * nc;
        if (g->bias_dt >= 0)
            for (int64_t jj = 0; jj < nc; jj++)
                c[jj] += brow[jj];
        uint16_t *yr = y + (r0 + i) * g->ym + j0 * g->yn;
        if (g->yn == 1) {
            if (g->dt == MM_F16)
                kt->f32_to_f16(yr, c, (size_t)nc);
            else
                kt->f32_to_bf16(yr, c, (size_t)nc);
        } else {
            for (int64_t jj = 0; jj < nc; jj++)
                yr[jj * g->yn] = g->dt == MM_F16 ? cannon_f32_to_f16(c[jj]) : cannon_f32_to_bf16(c[jj]);
        }
    }
}

static wq_dot_fn wq_dot_for(int isa)
{
    switch (isa) {
#if defined(CANNON_OPS_HAVE_AVX512)
    case CANNON_ISA_AVX512:
        return cannon_wq_dot_avx512;
#endif
#if defined(CANNON_OPS_HAVE_AVX2)
    case CANNON_ISA_AVX2:
        return cannon_wq_dot_avx2;
#endif
    default:
        return cannon_wq_dot_scalar;
    }
}

/* The group parameters (scales or offsets, at p with strides sg, sn) of column j, widened to fp32. */
static void wq_params(const wq_args *g, const cannon_kernel_table *kt, const void *p, int64_t sg, int64_t sn,
                      int64_t j, float *dst)
{
    const uint16_t *src = (const uint16_t *)p + j * sn;
    if (sg == 1 && g->ngroups > 1) {
        if (g->dt == MM_F16)
            kt->f16_to_f32(dst, src, (size_t)g->ngroups);
        else
            kt->bf16_to_f32(dst, src, (size_t)g->ngroups);
    } else {
        for (int64_t gi = 0; gi < g->ngroups; gi++)
            dst[gi] = wq_ld16(g->dt, src, gi * sg);
    }
}

/* The fused path: each column of the panel read once, against all m rows of x. */
static void wq_fused_panel(const wq_args *g, const cannon_kernel_table *kt, int64_t j0, int64_t nc, float *wd,
                           const float *brow)
{
    const float *xf = (const float *)(const void *)((const char *)g->ws + g->ws_x);
    float *sb = wd, *ob = sb + nc * g->ngroups, *cb = ob + nc * g->ngroups;
    const void *cols[WQ_NC];
    for (int64_t jj = 0; jj < nc; jj++) {
        const int64_t j = j0 + jj;
        wq_params(g, kt, g->scale, g->sg, g->sn, j, sb + jj * g->ngroups);
        if (g->has_off)
            wq_params(g, kt, g->offset, g->og, g->on, j, ob + jj * g->ngroups);
        cols[jj] = g->int4 ? (const void *)((const uint8_t *)g->w + ((j * g->wn + g->woff) >> 1))
                           : (const void *)((const int8_t *)g->w + j * g->wn);
    }
    wq_dot_for(g->isa)(xf, g->k, g->m, g->k, cols, nc, g->int4, g->group, sb, g->has_off ? ob : NULL, cb, nc);
    wq_store(g, kt, cb, 0, g->m, j0, nc, brow);
}

static int wq_product_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const wq_args *g = (const wq_args *)args;
    if (ctx->worker_id >= (uint32_t)g->nwork)
        return cannonKernelReportError(ctx, ACL_ERROR_RT_PARAM_INVALID,
                                       "aclnnWeightQuantBatchMatmulV2: worker %u beyond the %lld planned",
                                       ctx->worker_id, (long long)g->nwork);
    cannon_mm_blas_one_thread();
    const cannon_kernel_table *kt = cannon_kernels_for((cannon_isa)g->isa);
    const int64_t j0 = (int64_t)ctx->block_idx * WQ_NC, nc = g->n - j0 < WQ_NC ? g->n - j0 : WQ_NC;
    const int64_t k = g->k;
    float *wd = (float *)(void *)((char *)g->ws + g->ws_s + (int64_t)ctx->worker_id * g->scratch);
    float *cb = wd + nc * k;
    float brow[WQ_NC];
    for (int64_t jj = 0; jj < nc; jj++)
        brow[jj] = g->bias_dt < 0 ? 0.0f
                   : g->bias_dt == MM_F32 ? ((const float *)g->bias)[(j0 + jj) * g->bn]
                                          : cannon_f16_to_f32(((const uint16_t *)g->bias)[(j0 + jj) * g->bn]);
    if (g->fused) {
        wq_fused_panel(g, kt, j0, nc, wd, brow);
        return 0;
    }
    wq_dequant(g, j0, nc, wd);
    const float *xf = (const float *)(const void *)((const char *)g->ws + g->ws_x);
    for (int64_t r0 = 0; r0 < g->m; r0 += WQ_MR) {
        const int64_t mr = g->m - r0 < WQ_MR ? g->m - r0 : WQ_MR;
        if (g->kmajor)
            cannon_mm_sgemm(0, 1, mr, nc, k, xf + r0 * k, k, wd, k, cb, nc);
        else
            cannon_mm_sgemm(0, 0, mr, nc, k, xf + r0 * k, k, wd, nc, cb, nc);
        wq_store(g, kt, cb, r0, mr, j0, nc, brow);
    }
    return 0;
}

/* The fused path serves m <= wq_fused_max_m[tier]. Its cost grows with m about linearly (every
 * row multiplies the whole weight once more, at the tier's vector width), the sgemm path's mostly
 * with the dequantisation, which it does once for all rows: at ggml's decode shapes (n = 4096,
 * k = 14336, group 32, 2 workers) the two cost the same near m = 3 for the scalar tier and m = 16
 * for avx2; for avx512 the fused path is still 1.4x faster at m = 48. */
static const int64_t wq_fused_max_m[CANNON_ISA_COUNT] = {2, 8, 32};

static int64_t abs64(int64_t v)
{
    return v < 0 ? -v : v;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(
    const aclTensor *x, const aclTensor *weight, const aclTensor *antiquantScale,
    const aclTensor *antiquantOffsetOptional, const aclTensor *quantScaleOptional,
    const aclTensor *quantOffsetOptional, const aclTensor *biasOptional, int antiquantGroupSize, const aclTensor *y,
    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char api[] = "aclnnWeightQuantBatchMatmulV2";
    const cannon_dtype_set f16s = cn_dts_WeightQuantBatchMatmulV2();
    cannon_op op;
    cannon_tensor_view vx, vw, vs, vo, vb, vy;
    cannonOpBegin(&op, api, workspaceSize, executor);
    cannonOpNotNulls(&op, "x", x, "weight", weight, "antiquantScale", antiquantScale, "y", y, NULL);
    cannonOpTensor(&op, "x", x, f16s, &vx);
    cannonOpTensor(&op, "weight", weight, CANNON_DT_I8 | CANNON_DT(ACL_INT4), &vw);
    cannonOpTensor(&op, "antiquantScale", antiquantScale, f16s, &vs);
    cannonOpTensorOpt(&op, "antiquantOffsetOptional", antiquantOffsetOptional, f16s, &vo);
    cannonOpTensorOpt(&op, "biasOptional", biasOptional, CANNON_DT_F16 | CANNON_DT_F32, &vb);
    cannonOpTensor(&op, "y", y, f16s, &vy);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    if (quantScaleOptional)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID,
                     "quantScaleOptional (INT8 output quantisation) is not supported: pass NULL and a FLOAT16 or "
                     "BFLOAT16 y");
    else if (quantOffsetOptional)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "quantOffsetOptional needs quantScaleOptional, which is NULL");
    cannonOpSameDtype(&op, "antiquantScale", &vs, "x", &vx);
    cannonOpSameDtype(&op, "y", &vy, "x", &vx);
    if (vo.ndim >= 0)
        cannonOpSameDtype(&op, "antiquantOffsetOptional", &vo, "antiquantScale", &vs);
    if (cannonOpOk(&op) && vb.ndim >= 0 && vb.dtype != (vx.dtype == ACL_FLOAT16 ? ACL_FLOAT16 : ACL_FLOAT))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "biasOptional dtype %s does not go with x dtype %s (needs %s)",
                     cannonDtypeName(vb.dtype), cannonDtypeName(vx.dtype),
                     vx.dtype == ACL_FLOAT16 ? "FLOAT16" : "FLOAT");
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    if (vx.ndim != 2)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "x must be 2-D (m, k) (got %lld-D)", (long long)vx.ndim);
    else if (vw.ndim != 2)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "weight must be 2-D (k, n) (got %lld-D)", (long long)vw.ndim);
    else if (vy.ndim != 2)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "y must be 2-D (m, n) (got %lld-D)", (long long)vy.ndim);
    else if (vw.format != ACL_FORMAT_ND && vw.format != ACL_FORMAT_FRACTAL_NZ)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "weight's format %d is not ND (2) or FRACTAL_NZ (29)",
                     (int)vw.format);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const int64_t m = vx.shape[0], k = vx.shape[1], n = vw.shape[1];
    if (vw.shape[0] != k)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "weight's k (%lld) differs from x's (%lld)",
                     (long long)vw.shape[0], (long long)k);
    else if (m < 1 || k < 1 || k > WQ_MAX_KN || n < 1 || n > WQ_MAX_KN)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID,
                     "m = %lld must be >= 1 and k = %lld, n = %lld in [1, 65535] (empty tensors are not supported)",
                     (long long)m, (long long)k, (long long)n);
    else if (vy.shape[0] != m || vy.shape[1] != n)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "y's shape [%lld,%lld] is not (m, n) = [%lld,%lld]",
                     (long long)vy.shape[0], (long long)vy.shape[1], (long long)m, (long long)n);
    if (cannonOpOk(&op) && vw.dtype == ACL_INT4) {
        /* the inner axis (unit stride, or the last dim when neither is) holds whole bytes */
        const int inner = vw.strides[0] == 1 && vw.strides[1] != 1 ? 0 : 1;
        if (vw.shape[inner] % 2 != 0)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "an INT4 weight's inner dim must be even (got %lld)",
                         (long long)vw.shape[inner]);
    }
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    /* scale layout: per tensor (1,) / (1, 1); per channel (n,) / (1, n); per group (ceil(k/G), n) */
    wq_args g;
    memset(&g, 0, sizeof g);
    int mode = 0; /* 0 per tensor, 1 per channel, 2 per group */
    const int64_t s0 = vs.ndim == 2 ? vs.shape[0] : 1, s1 = vs.shape[vs.ndim - 1];
    const int64_t st0 = vs.ndim == 2 ? vs.strides[0] : 0, st1 = vs.strides[vs.ndim - 1];
    if (vs.ndim < 1 || vs.ndim > 2) {
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "antiquantScale must be 1-D or 2-D (got %lld-D)",
                     (long long)vs.ndim);
    } else if (antiquantGroupSize != 0) {
        const int64_t gs = antiquantGroupSize, ng = (k + gs - 1) / (gs > 0 ? gs : 1);
        if (gs < 32 || gs > k - 1 || gs % 32 != 0)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID,
                         "antiquantGroupSize %d must be 0, or a multiple of 32 in [32, k - 1 = %lld]",
                         antiquantGroupSize, (long long)(k - 1));
        else if (vs.ndim != 2 || s0 != ng || s1 != n)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID,
                         "antiquantScale must be (ceil(k / antiquantGroupSize), n) = [%lld,%lld] for per-group scales",
                         (long long)ng, (long long)n);
        mode = 2;
        g.group = gs;
        g.sg = st0;
        g.sn = st1;
    } else if (s0 == 1 && s1 == 1) {
        g.group = k; /* per tensor */
    } else if (s0 == 1 && s1 == n) {
        mode = 1;
        g.group = k; /* per channel */
        g.sn = st1;
    } else {
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID,
                     "antiquantScale must be (1,) or (1, 1) (per tensor) or (n,) or (1, n) with n = %lld (per "
                     "channel) when antiquantGroupSize is 0",
                     (long long)n);
    }
    if (cannonOpOk(&op) && vo.ndim >= 0)
        cannonOpSameShape(&op, "antiquantOffsetOptional", &vo, "antiquantScale", &vs);
    if (cannonOpOk(&op) && vb.ndim >= 0) {
        const int64_t b0 = vb.ndim == 2 ? vb.shape[0] : 1, b1 = vb.shape[vb.ndim - 1];
        if (vb.ndim < 1 || vb.ndim > 2 || b0 != 1 || b1 != n)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "biasOptional must be (n,) or (1, n) with n = %lld",
                         (long long)n);
        g.bn = vb.strides[vb.ndim - 1];
    }
    const int sx = cannonOpInput(&op, x), sw = cannonOpInput(&op, weight), ss = cannonOpInput(&op, antiquantScale);
    const int so = cannonOpInput(&op, antiquantOffsetOptional);
    cannonOpInput(&op, quantScaleOptional);
    cannonOpInput(&op, quantOffsetOptional);
    const int sb = cannonOpInput(&op, biasOptional);
    const int sy = cannonOpOutput(&op, y);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    if (vo.ndim >= 0) {
        g.has_off = 1;
        g.og = mode == 2 ? vo.strides[0] : 0;
        g.on = mode >= 1 ? vo.strides[vo.ndim - 1] : 0;
    }
    g.m = m;
    g.k = k;
    g.n = n;
    g.dt = vx.dtype == ACL_FLOAT16 ? MM_F16 : MM_BF16;
    g.int4 = vw.dtype == ACL_INT4;
    g.bias_dt = vb.ndim < 0 ? -1 : vb.dtype == ACL_FLOAT ? MM_F32 : MM_F16;
    g.xm = vx.strides[0];
    g.xk = vx.strides[1];
    g.wk = vw.strides[0];
    g.wn = vw.strides[1];
    g.woff = g.int4 ? vw.offset : 0;
    g.ym = vy.strides[0];
    g.yn = vy.strides[1];
    g.kmajor = abs64(g.wk) <= abs64(g.wn);
    g.isa = (int32_t)cannon_isa_select();
    g.nblk = (n + WQ_NC - 1) / WQ_NC;
    const int64_t nc = n < WQ_NC ? n : WQ_NC, mr = m < WQ_MR ? m : WQ_MR;
    const uint32_t w = cannonGetWorkerCount();
    g.nwork = w > 0 ? (int64_t)w : 1;
    g.ngroups = (k + g.group - 1) / g.group;
    /* the fused path wants each column contiguous along K (and, for INT4, starting on a byte) */
    g.fused = m <= wq_fused_max_m[g.isa] && g.wk == 1 && (!g.int4 || ((g.wn | g.woff) & 1) == 0);
    g.scratch = ((g.fused ? (2 * g.ngroups + m) * nc : nc * k + mr * nc) * 4 + 63) & ~(int64_t)63;
    uint64_t ws_x = 0, ws_s = 0;
    cannonOpWorkspace(&op, (uint64_t)(m * k * 4), &ws_x);
    cannonOpWorkspace(&op, (uint64_t)(g.nwork * g.scratch), &ws_s);
    g.ws_x = (int64_t)ws_x;
    g.ws_s = (int64_t)ws_s;
    cannon_arg_ref refs[7];
    size_t nr = 0;
    cannonOpBindView(&op, sx, (uint32_t)offsetof(wq_args, x), &refs[nr++]);
    cannonOpBindView(&op, sw, (uint32_t)offsetof(wq_args, w), &refs[nr++]);
    cannonOpBindView(&op, ss, (uint32_t)offsetof(wq_args, scale), &refs[nr++]);
    if (g.has_off)
        cannonOpBindView(&op, so, (uint32_t)offsetof(wq_args, offset), &refs[nr++]);
    if (g.bias_dt >= 0)
        cannonOpBindView(&op, sb, (uint32_t)offsetof(wq_args, bias), &refs[nr++]);
    cannonOpBindView(&op, sy, (uint32_t)offsetof(wq_args, y), &refs[nr++]);
    refs[nr++] = (cannon_arg_ref){(uint32_t)offsetof(wq_args, ws), CANNON_SLOT_WORKSPACE, 0};
    cannon_mm_blas_one_thread();
    const int64_t xblocks = (m + WQ_XROWS - 1) / WQ_XROWS;
    if (xblocks > (int64_t)UINT32_MAX) {
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "m = %lld is more rows than one launch covers", (long long)m);
        return cannonOpFinish(&op);
    }
    cannonOpKernel(&op, api, wq_widen_kernel, (uint32_t)xblocks, &g, sizeof g, refs, nr);
    cannonOpKernel(&op, api, wq_product_kernel, (uint32_t)g.nblk, &g, sizeof g, refs, nr);
    return cannonOpFinish(&op);
}
