/*
 * aclnnAvgPool2d and aclnnMaxPool: 2-D pooling of (N, C, H, W) or (C, H, W) tensors, read and
 * written through the views' strides.
 *
 * Output size per spatial axis (both operators, as torch and CANN compute it):
 *   out = floor((in + padBegin + padEnd − (k − 1) − 1 + (ceilMode ? s − 1 : 0)) / s) + 1, then
 *   out − 1 when ceilMode and the last window would start at or after in + padBegin.
 * AvgPool2d (torch's avg_pool2d): the window [o·s − p, o·s − p + k) is cut at in + p for the
 * padded size and at [0, in) for the sum; the divisor is divisorOverride when non-zero, else the
 * padded window size (countIncludePad) or the count of real elements. The sum is accumulated in
 * double in row-major window order and the mean rounded once to out's dtype.
 * MaxPool: the maximum over the window's real elements (padding never wins), NaN propagating;
 * the winning element is copied bit for bit. Integers compare as int64.
 *
 * One unit per output row (n, c, oh); blocks of whole rows fixed by the shape.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "aclnnop/aclnn_avgpool2d.h"
#include "aclnnop/aclnn_max_pool.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "vision_common.h"

#define PL_BLOCK_WORK (64 * 1024)

typedef struct pl_args {
    const char *x; /* bound */
    char *out;     /* bound */
    int32_t dt, max;
    int32_t include_pad, pad_;
    int64_t es, rows, per_block, divisor;
    int64_t kh, kw, sh, sw, ph, pw, ph_end, pw_end;
    vis_image in, o;
} pl_args;

static int64_t pl_load_int(const char *p, aclDataType t)
{
    switch (t) {
    case ACL_INT8:
        return (int8_t)p[0];
    case ACL_UINT8:
        return (unsigned char)p[0];
    case ACL_INT16: {
        int16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case ACL_UINT16: {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case ACL_INT32: {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    default: {
        int64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    }
}

static bool pl_is_float(aclDataType t)
{
    return t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_BF16 || t == ACL_DOUBLE;
}

static void pl_lowest(char *dst, aclDataType t)
{
    if (pl_is_float(t)) {
        vis_store(dst, t, -INFINITY);
        return;
    }
    const int64_t v = t == ACL_INT8 ? INT8_MIN : t == ACL_INT16 ? INT16_MIN : t == ACL_INT32 ? INT32_MIN
                      : t == ACL_INT64 ? INT64_MIN : 0;
    memcpy(dst, &v, cannonDtypeSize(t)); /* little-endian: the low bytes hold the narrower value */
}

static void pl_max(const pl_args *a, const char *plane, int64_t h0, int64_t h1, int64_t w0, int64_t w1, char *dst)
{
    const aclDataType dt = (aclDataType)a->dt;
    const int64_t es = a->es;
    if (h0 >= h1 || w0 >= w1) { /* a window wholly in the padding: the padding value, the lowest */
        pl_lowest(dst, dt);
        return;
    }
    const char *best = plane + (h0 * a->in.sh + w0 * a->in.sw) * es;
    if (pl_is_float(dt)) {
        double bv = vis_load(best, dt);
        for (int64_t h = h0; h < h1 && !isnan(bv); h++)
            for (int64_t w = w0; w < w1; w++) {
                const char *p = plane + (h * a->in.sh + w * a->in.sw) * es;
                const double v = vis_load(p, dt);
                if (v > bv || isnan(v)) {
                    bv = v;
                    best = p;
                    if (isnan(v))
                        break;
                }
            }
    } else {
        int64_t bv = pl_load_int(best, dt);
        for (int64_t h = h0; h < h1; h++)
            for (int64_t w = w0; w < w1; w++) {
                const char *p = plane + (h * a->in.sh + w * a->in.sw) * es;
                const int64_t v = pl_load_int(p, dt);
                if (v > bv) {
                    bv = v;
                    best = p;
                }
            }
    }
    memcpy(dst, best, (size_t)es);
}

static int pl_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const pl_args *a = (const pl_args *)args;
    const vis_image *i = &a->in, *o = &a->o;
    const int64_t es = a->es;
    const int64_t r0 = (int64_t)ctx->block_idx * a->per_block;
    const int64_t r1 = a->rows - r0 < a->per_block ? a->rows : r0 + a->per_block;
    for (int64_t r = r0; r < r1; r++) {
        const int64_t oh = r % o->h, nc = r / o->h, c = nc % o->c, n = nc / o->c;
        const char *plane = a->x + (n * i->sn + c * i->sc) * es;
        char *dst = a->out + (n * o->sn + c * o->sc + oh * o->sh) * es;
        const int64_t hs = oh * a->sh - a->ph;
        const int64_t he_pad = hs + a->kh < i->h + a->ph_end ? hs + a->kh : i->h + a->ph_end;
        const int64_t h0 = hs > 0 ? hs : 0, h1 = he_pad < i->h ? he_pad : i->h;
        for (int64_t ow = 0; ow < o->w; ow++) {
            const int64_t ws = ow * a->sw - a->pw;
            const int64_t we_pad = ws + a->kw < i->w + a->pw_end ? ws + a->kw : i->w + a->pw_end;
            const int64_t w0 = ws > 0 ? ws : 0, w1 = we_pad < i->w ? we_pad : i->w;
            char *d = dst + ow * o->sw * es;
            if (a->max) {
                pl_max(a, plane, h0, h1, w0, w1, d);
                continue;
            }
            double sum = 0;
            for (int64_t h = h0; h < h1; h++)
                for (int64_t w = w0; w < w1; w++)
                    sum += vis_load(plane + (h * i->sh + w * i->sw) * es, (aclDataType)a->dt);
            /* the counts in double: exact below 2^53, no int64 overflow for any kernel size */
            double div = (double)a->divisor;
            if (a->divisor == 0)
                div = a->include_pad ? (double)(he_pad - hs) * (double)(we_pad - ws)
                                     : (double)(h1 - h0) * (double)(w1 - w0);
            vis_store(d, (aclDataType)a->dt, h1 > h0 && w1 > w0 ? sum / div : 0.0);
        }
    }
    return 0;
}

/* The pooled size of one axis (see the file comment); < 1 when no window fits. */
static int64_t pl_out_size(int64_t in, int64_t k, int64_t pb, int64_t pe, int64_t s, bool ceil_mode)
{
    const int64_t num = in + pb + pe - (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
    int64_t q = num / s;
    if (num % s != 0 && num < 0)
        q--;
    int64_t o = q + 1;
    if (ceil_mode && (o - 1) * s >= in + pb)
        o--;
    return o;
}

/* Checks shared by both operators after the tensors' own: rank, format, out's dtype and shape. */
static bool pl_check_io(cannon_op *op, const cannon_tensor_view *vs, const cannon_tensor_view *vo)
{
    cannonOpSameDtype(op, "out", vo, "self", vs);
    if (cannonOpOk(op) && vs->ndim != 3 && vs->ndim != 4)
        cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "self must have 3 or 4 dims, got %lld", (long long)vs->ndim);
    if (cannonOpOk(op) && vs->format != ACL_FORMAT_NCHW && vs->format != ACL_FORMAT_NCL && vs->format != ACL_FORMAT_ND)
        cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "self's format must be NCHW, NCL or ND, got %d", (int)vs->format);
    if (cannonOpOk(op) && vo->format != ACL_FORMAT_NCHW && vo->format != ACL_FORMAT_NCL && vo->format != ACL_FORMAT_ND)
        cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "out's format must be NCHW, NCL or ND, got %d", (int)vo->format);
    return cannonOpOk(op);
}

/* Finish the plan: out's shape, then the kernel. */
static aclnnStatus pl_plan(cannon_op *op, pl_args *a, const aclTensor *self, const aclTensor *out,
                           const cannon_tensor_view *vs, const cannon_tensor_view *vo, int64_t oh, int64_t ow)
{
    vis_image_of(&a->in, vs, false);
    if (oh < 1 || ow < 1)
        cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "no pooling window fits: input %lldx%lld gives %lldx%lld",
                     (long long)a->in.h, (long long)a->in.w, (long long)oh, (long long)ow);
    if (!cannonOpOk(op))
        return cannonOpFinish(op);
    const int64_t e4[4] = {a->in.n, a->in.c, oh, ow};
    if (!shape_expect(op, "out", vo, vs->ndim, vs->ndim == 4 ? e4 : e4 + 1))
        return cannonOpFinish(op);
    vis_image_of(&a->o, vo, false);
    const int sx = cannonOpInput(op, self);
    const int so = cannonOpOutput(op, out);
    a->dt = (int32_t)vs->dtype;
    a->es = (int64_t)cannonDtypeSize(vs->dtype);
    a->rows = a->o.n * a->o.c * a->o.h;
    if (a->rows == 0)
        return cannonOpFinish(op);
    /* work of one row, saturated at a block's worth */
    const double work = (double)a->o.w * (double)a->kh * (double)a->kw;
    a->per_block = vis_units_per_block(a->rows, work < PL_BLOCK_WORK ? (int64_t)work : PL_BLOCK_WORK, PL_BLOCK_WORK);
    const cannon_arg_ref refs[2] = {
        {(uint32_t)offsetof(pl_args, x), sx, vs->offset * a->es},
        {(uint32_t)offsetof(pl_args, out), so, vo->offset * a->es},
    };
    cannonOpKernel(op, a->max ? "MaxPool" : "AvgPool2d", pl_kernel,
                   (uint32_t)((a->rows + a->per_block - 1) / a->per_block), a, sizeof *a, refs, 2);
    return cannonOpFinish(op);
}

/* Kernel sizes and strides above this are refused (the window arithmetic stays in int64). */
#define PL_MAX_PARAM ((int64_t)1 << 40)

static bool pl_check_limits(cannon_op *op, const pl_args *a)
{
    if (a->kh > PL_MAX_PARAM || a->kw > PL_MAX_PARAM || a->sh > PL_MAX_PARAM || a->sw > PL_MAX_PARAM ||
        a->ph > PL_MAX_PARAM || a->pw > PL_MAX_PARAM || a->ph_end > PL_MAX_PARAM || a->pw_end > PL_MAX_PARAM)
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "kernel, stride or padding too large");
    return cannonOpOk(op);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnAvgPool2dGetWorkspaceSize(const aclTensor *self, const aclIntArray *kernelSize,
                                                               const aclIntArray *strides, const aclIntArray *paddings,
                                                               const bool ceilMode, const bool countIncludePad,
                                                               const int64_t divisorOverride,
                                                               const int8_t cubeMathType, aclTensor *out,
                                                               uint64_t *workspaceSize, aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vs, vo;
    pl_args a;
    memset(&a, 0, sizeof a);
    cannonOpBegin(&op, "aclnnAvgPool2d", workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, "kernelSize", kernelSize, "strides", strides, "paddings", paddings, "out", out,
                     NULL);
    cannonOpTensor(&op, "self", self, cn_dts_AvgPool2d(), &vs);
    cannonOpTensor(&op, "out", out, cn_dts_AvgPool2d(), &vo);
    if (cannonOpOk(&op))
        pl_check_io(&op, &vs, &vo);
    if (cannonOpOk(&op) && shape_numel(&vs) == 0)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "self must not be empty");
    vis_pair(&op, "kernelSize", kernelSize, false, 0, 1, &a.kh, &a.kw);
    vis_pair(&op, "strides", strides, true, 0, 1, &a.sh, &a.sw);
    vis_pair(&op, "paddings", paddings, false, 0, 0, &a.ph, &a.pw);
    if (cannonOpOk(&op) && a.sh == 0) { /* empty strides: the kernel size (torch's default) */
        a.sh = a.kh;
        a.sw = a.kw;
    }
    if (cannonOpOk(&op) && (a.ph > a.kh / 2 || a.pw > a.kw / 2)) /* 2 * ph > kh, without overflow */
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "paddings (%lld, %lld) must be at most half of kernelSize "
                     "(%lld, %lld)", (long long)a.ph, (long long)a.pw, (long long)a.kh, (long long)a.kw);
    if (cannonOpOk(&op) && (cubeMathType < 0 || cubeMathType > 3))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "cubeMathType must be 0, 1, 2 or 3, got %d", (int)cubeMathType);
    a.ph_end = a.ph;
    a.pw_end = a.pw;
    if (!pl_check_limits(&op, &a))
        return cannonOpFinish(&op);
    a.include_pad = countIncludePad ? 1 : 0;
    a.divisor = divisorOverride;
    const int64_t b = vs.ndim - 3;
    const int64_t oh = pl_out_size(vs.shape[b + 1], a.kh, a.ph, a.ph, a.sh, ceilMode);
    const int64_t ow = pl_out_size(vs.shape[b + 2], a.kw, a.pw, a.pw, a.sw, ceilMode);
    return pl_plan(&op, &a, self, out, &vs, &vo, oh, ow);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnMaxPoolGetWorkspaceSize(const aclTensor *self, const aclIntArray *kernelShape,
                                                             const aclIntArray *strides, const int64_t autoPad,
                                                             const aclIntArray *pads, const aclIntArray *dilations,
                                                             const int64_t ceilMode, aclTensor *out,
                                                             uint64_t *workspaceSize, aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vs, vo;
    pl_args a;
    memset(&a, 0, sizeof a);
    a.max = 1;
    cannonOpBegin(&op, "aclnnMaxPool", workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, "kernelShape", kernelShape, "strides", strides, "pads", pads, "dilations",
                     dilations, "out", out, NULL);
    cannonOpTensor(&op, "self", self, cn_dts_MaxPool(), &vs);
    cannonOpTensor(&op, "out", out, cn_dts_MaxPool(), &vo);
    if (cannonOpOk(&op))
        pl_check_io(&op, &vs, &vo);
    if (cannonOpOk(&op) && vs.format != vo.format)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "out's format (%d) must be self's (%d)", (int)vo.format,
                     (int)vs.format);
    if (cannonOpOk(&op)) {
        const int64_t b = vs.ndim - 3;
        if (vs.shape[b] == 0 || vs.shape[b + 1] == 0 || vs.shape[b + 2] == 0)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "self may be empty only along the batch dim");
    }
    vis_pair(&op, "kernelShape", kernelShape, false, 0, 1, &a.kh, &a.kw);
    vis_pair(&op, "strides", strides, true, 1, 1, &a.sh, &a.sw);
    if (cannonOpOk(&op) && autoPad != 0)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "autoPad must be 0 (NOTSET), got %lld", (long long)autoPad);
    uint64_t n = 0;
    const int64_t *p = cannonOpOk(&op) ? cannonIntArrayData(pads, &n) : NULL;
    if (cannonOpOk(&op)) {
        if (n != 0 && n != 1 && n != 2 && n != 4) {
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "pads must hold 0, 1, 2 or 4 values, got %llu",
                         (unsigned long long)n);
        } else if (n > 0) {
            /* (all), (h, w) or (top, left, bottom, right) */
            a.ph = p[0];
            a.pw = n == 1 ? p[0] : p[1];
            a.ph_end = n == 4 ? p[2] : a.ph;
            a.pw_end = n == 4 ? p[3] : a.pw;
        }
    }
    if (cannonOpOk(&op) && (a.ph < 0 || a.pw < 0 || a.ph_end < 0 || a.pw_end < 0))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "pads must be >= 0");
    if (cannonOpOk(&op) && (a.ph + a.ph_end > a.kh || a.pw + a.pw_end > a.kw))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "pads along each axis must add up to at most the kernel size "
                     "(%lld + %lld vs %lld, %lld + %lld vs %lld)", (long long)a.ph, (long long)a.ph_end,
                     (long long)a.kh, (long long)a.pw, (long long)a.pw_end, (long long)a.kw);
    n = 0;
    const int64_t *dl = cannonOpOk(&op) ? cannonIntArrayData(dilations, &n) : NULL;
    if (cannonOpOk(&op) && n != 0 && n != 1 && n != 2 && n != 4)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "dilations must hold 0, 1, 2 or 4 values, got %llu",
                     (unsigned long long)n);
    for (uint64_t k = 0; cannonOpOk(&op) && k < n; k++)
        if (dl[k] != 1)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "dilations must be 1, got %lld", (long long)dl[k]);
    if (!pl_check_limits(&op, &a))
        return cannonOpFinish(&op);
    const int64_t b = vs.ndim - 3;
    const int64_t oh = pl_out_size(vs.shape[b + 1], a.kh, a.ph, a.ph_end, a.sh, ceilMode != 0);
    const int64_t ow = pl_out_size(vs.shape[b + 2], a.kw, a.pw, a.pw_end, a.sw, ceilMode != 0);
    return pl_plan(&op, &a, self, out, &vs, &vo, oh, ow);
}
