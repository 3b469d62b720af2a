/*
 * aclnnIm2col (torch's unfold): out[n, (c·kH + i)·kW + j, oh·OW + ow] =
 * self[n, c, oh·sH − pH + i·dH, ow·sW − pW + j·dW], zero where that position falls in the padding.
 *
 * One unit per output row (n, c, i, j): for each oh the source row is either outside the image
 * (OW zeros) or inside it, when the columns [ow0, ow1) whose source lies in the image are copied
 * with the source stride sW·strideW and the ones before and after are zeroed. Elements move bit for
 * bit, so every dtype of any element size is exact; both views are walked through their strides.
 * Blocks hold whole rows, their count a function of the shape.
 */
#include <stddef.h>
#include <string.h>

#include "aclnnop/aclnn_im2col.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "vision_common.h"

#define IM_BLOCK_ELEMS (64 * 1024)

typedef struct im_args {
    const char *x; /* bound */
    char *out;     /* bound */
    int64_t es, rows, per_block;
    int64_t kh, kw, dh, dw, ph, pw, sh, sw, oh, ow;
    int64_t on, orow, ocol; /* out strides: batch, row, column */
    vis_image in;
} im_args;

/* floor(a / b) for b > 0. */
static int64_t im_floordiv(int64_t a, int64_t b)
{
    const int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* The output positions o in [0, n) whose source o·s − p + off lies in [0, size): [*lo, *hi). */
static void im_range(int64_t n, int64_t s, int64_t p, int64_t off, int64_t size, int64_t *lo, int64_t *hi)
{
    int64_t a = -im_floordiv(-(p - off), s); /* ceil((p - off) / s) */
    int64_t b = im_floordiv(size - 1 + p - off, s) + 1;
    a = a < 0 ? 0 : a;
    b = b > n ? n : b;
    *lo = a;
    *hi = b > a ? b : a;
}

/* Copy @p n elements of @p es bytes from stride @p ss to stride @p ds (elements); zeros when src is NULL. */
static void im_run(char *dst, int64_t ds, const char *src, int64_t ss, int64_t n, int64_t es)
{
    static const unsigned char zero[16];
    for (int64_t k = 0; k < n; k++)
        memcpy(dst + k * ds * es, src ? src + k * ss * es : (const char *)zero, (size_t)es);
}

static int im_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const im_args *a = (const im_args *)args;
    const vis_image *im = &a->in;
    const int64_t es = a->es;
    const int64_t r0 = (int64_t)ctx->block_idx * a->per_block;
    const int64_t r1 = a->rows - r0 < a->per_block ? a->rows : r0 + a->per_block;
    for (int64_t r = r0; r < r1; r++) {
        const int64_t kk = a->kh * a->kw, tap = r % kk, nc = r / kk, c = nc % im->c, n = nc / im->c;
        const int64_t i = tap / a->kw, j = tap % a->kw;
        char *orow = a->out + (n * a->on + (c * kk + tap) * a->orow) * es;
        const char *plane = a->x + (n * im->sn + c * im->sc) * es;
        int64_t w0, w1;
        im_range(a->ow, a->sw, a->pw, j * a->dw, im->w, &w0, &w1);
        for (int64_t oh = 0; oh < a->oh; oh++) {
            char *o = orow + oh * a->ow * a->ocol * es;
            const int64_t h = oh * a->sh - a->ph + i * a->dh;
            if (h < 0 || h >= im->h || w1 <= w0) {
                im_run(o, a->ocol, NULL, 0, a->ow, es);
                continue;
            }
            const char *src = plane + (h * im->sh + (w0 * a->sw - a->pw + j * a->dw) * im->sw) * es;
            im_run(o, a->ocol, NULL, 0, w0, es);
            im_run(o + w0 * a->ocol * es, a->ocol, src, a->sw * im->sw, w1 - w0, es);
            im_run(o + w1 * a->ocol * es, a->ocol, NULL, 0, a->ow - w1, es);
        }
    }
    return 0;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnIm2colGetWorkspaceSize(const aclTensor *self, const aclIntArray *kernelSize,
                                                            const aclIntArray *dilation, const aclIntArray *padding,
                                                            const aclIntArray *stride, const aclTensor *out,
                                                            uint64_t *workspaceSize, aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vs, vo;
    cannonOpBegin(&op, "aclnnIm2col", workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, "kernelSize", kernelSize, "dilation", dilation, "padding", padding, "stride",
                     stride, "out", out, NULL);
    cannonOpTensor(&op, "self", self, cn_dts_Im2col(), &vs);
    cannonOpTensor(&op, "out", out, cn_dts_Im2col(), &vo);
    cannonOpSameDtype(&op, "out", &vo, "self", &vs);
    if (cannonOpOk(&op) && vs.ndim != 3 && vs.ndim != 4)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "self must have 3 or 4 dims, got %lld", (long long)vs.ndim);
    int64_t kh = 0, kw = 0, dh = 0, dw = 0, ph = 0, pw = 0, sh = 0, sw = 0;
    uint64_t n = 0;
    if (cannonOpOk(&op)) {
        const aclIntArray *arrs[4] = {kernelSize, dilation, padding, stride};
        const char *names[4] = {"kernelSize", "dilation", "padding", "stride"};
        int64_t *dsts[4][2] = {{&kh, &kw}, {&dh, &dw}, {&ph, &pw}, {&sh, &sw}};
        for (int k = 0; k < 4 && cannonOpOk(&op); k++) {
            const int64_t *p = cannonIntArrayData(arrs[k], &n);
            if (n != 2) {
                cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%s must hold 2 values, got %llu", names[k],
                             (unsigned long long)n);
                break;
            }
            *dsts[k][0] = p[0];
            *dsts[k][1] = p[1];
            const int64_t min = k == 2 ? 0 : 1;
            if (p[0] < min || p[1] < min)
                cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%s (%lld, %lld) must be %s", names[k], (long long)p[0],
                             (long long)p[1], k == 2 ? ">= 0" : "> 0");
        }
    }
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    vis_image im;
    vis_image_of(&im, &vs, false);
    /* Bound the arguments so that the shape arithmetic below cannot overflow. */
    const int64_t lim = (int64_t)1 << 40;
    if (kh > lim || kw > lim || dh > lim || dw > lim || ph > lim || pw > lim || sh > lim || sw > lim ||
        (kh - 1) > lim / dh || (kw - 1) > lim / dw)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "kernelSize, dilation, padding or stride too large");
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const int64_t oh_n = im_floordiv(im.h + 2 * ph - dh * (kh - 1) - 1, sh) + 1;
    const int64_t ow_n = im_floordiv(im.w + 2 * pw - dw * (kw - 1) - 1, sw) + 1;
    if (oh_n < 1 || ow_n < 1)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "no sliding block fits: input %lldx%lld, kernel %lldx%lld, "
                     "dilation %lldx%lld, padding %lldx%lld give %lldx%lld blocks", (long long)im.h, (long long)im.w,
                     (long long)kh, (long long)kw, (long long)dh, (long long)dw, (long long)ph, (long long)pw,
                     (long long)oh_n, (long long)ow_n);
    if (cannonOpOk(&op) && (kh > lim / kw || kh * kw > lim / (im.c > 0 ? im.c : 1) || oh_n > lim / ow_n))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "out would be too large");
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const int64_t kk = kh * kw, rows = im.c * kk, cols = oh_n * ow_n;
    const int64_t e4[3] = {im.n, rows, cols};
    if (!shape_expect(&op, "out", &vo, vs.ndim - 1, vs.ndim == 4 ? e4 : e4 + 1))
        return cannonOpFinish(&op);
    const int sx = cannonOpInput(&op, self);
    const int so = cannonOpOutput(&op, out);
    im_args a;
    memset(&a, 0, sizeof a);
    a.in = im;
    a.es = (int64_t)cannonDtypeSize(vs.dtype);
    a.kh = kh;
    a.kw = kw;
    a.dh = dh;
    a.dw = dw;
    a.ph = ph;
    a.pw = pw;
    a.sh = sh;
    a.sw = sw;
    a.oh = oh_n;
    a.ow = ow_n;
    a.on = vo.ndim == 3 ? vo.strides[0] : 0;
    a.orow = vo.strides[vo.ndim - 2];
    a.ocol = vo.strides[vo.ndim - 1];
    a.rows = im.n * rows;
    if (a.rows == 0)
        return cannonOpFinish(&op);
    a.per_block = vis_units_per_block(a.rows, cols, IM_BLOCK_ELEMS);
    const cannon_arg_ref refs[2] = {
        {(uint32_t)offsetof(im_args, x), sx, vs.offset * a.es},
        {(uint32_t)offsetof(im_args, out), so, vo.offset * a.es},
    };
    cannonOpKernel(&op, "Im2col", im_kernel, (uint32_t)((a.rows + a.per_block - 1) / a.per_block), &a, sizeof a,
                   refs, 2);
    return cannonOpFinish(&op);
}
