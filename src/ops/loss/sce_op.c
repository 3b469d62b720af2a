/*
 * aclnnSoftmaxCrossEntropyWithLogits: per row b of the (B, C) logits x and labels y,
 *   lse = log(sum_c exp(x_c)),  loss[b] = sum_c y_c (lse - x_c),  backprop[b, c] = softmax(x)_c - y_c.
 * Strided tensors go through the workspace (cannonOpBind). One kernel, a unit per row, all in
 * fp64: the row's maximum, then the sum of exp(x - max) (so lse never overflows and a row of -inf
 * but one finite logit is exact) by the tier's vector fp64 exp (kernels.h: within an ulp of fp64,
 * summed per vector lane over runs of SCE_RUN logits, a fixed order), the loss as one fp64 sum in
 * element order, the backprop from the kept exp(x - max) / sum where the row fits SCE_KEEP (one exp
 * per logit); rows with a NaN or an infinite maximum take libm's exp element by element. Every
 * output is rounded once to its dtype. Blocks hold a number of rows fixed by the shape, so the
 * results do not depend on the thread count. A label times an infinite (lse - x) follows IEEE
 * arithmetic: y = 0 against a -inf logit gives NaN, as torch's formula does.
 */
#include <math.h>
#include <string.h>

#include "aclnnop/aclnn_softmax_cross_entropy_with_logits.h"
#include "cannon/opdev.h"
#include "fp_convert.h"
#include "op_manifest.h"
#include "../kernels/isa.h"
#include "../kernels/kernels.h"

#define SCE_RUN 256
#define SCE_KEEP 4096

enum { SCE_F32 = 0, SCE_F16 = 1, SCE_BF16 = 2 };

typedef struct sce_args {
    const void *x, *y;
    void *loss, *bp;
    int64_t B, C, rows_per_block;
    int32_t dt, isa;
} sce_args;

static void sce_widen(const void *p, int64_t i, int64_t n, int32_t dt, double *d)
{
    if (dt == SCE_F32) {
        const float *f = (const float *)p + i;
        for (int64_t k = 0; k < n; k++)
            d[k] = (double)f[k];
    } else if (dt == SCE_F16) {
        const uint16_t *h = (const uint16_t *)p + i;
        for (int64_t k = 0; k < n; k++)
            d[k] = (double)cannon_f16_to_f32(h[k]);
    } else {
        const uint16_t *h = (const uint16_t *)p + i;
        for (int64_t k = 0; k < n; k++)
            d[k] = (double)cannon_bf16_to_f32(h[k]);
    }
}

static void sce_store(void *p, int64_t i, int32_t dt, double v)
{
    const float f = (float)v;
    if (dt == SCE_F32)
        ((float *)p)[i] = f;
    else if (dt == SCE_F16)
        ((uint16_t *)p)[i] = cannon_f32_to_f16(f);
    else
        ((uint16_t *)p)[i] = cannon_f32_to_bf16(f);
}

/* Elements [i, i + n) of row @p base of tensor @p p as fp32: fp32 rows in place, 16-bit ones widened
 * (exactly) into @p buf by the tier's converters. */
static const float *sce_f32(const cannon_kernel_table *kt, const void *p, int64_t at, int64_t n, int32_t dt,
                            float *buf)
{
    if (dt == SCE_F32)
        return (const float *)p + at;
    if (dt == SCE_F16)
        kt->f16_to_f32(buf, (const uint16_t *)p + at, (size_t)n);
    else
        kt->bf16_to_f32(buf, (const uint16_t *)p + at, (size_t)n);
    return buf;
}

static void sce_row(const sce_args *a, const cannon_kernel_table *kt, int64_t b)
{
    double xs[SCE_RUN];
    float fx[SCE_RUN];
    const int64_t base = b * a->C;
    double mx = -INFINITY;
    int has_nan = 0;
    for (int64_t i = 0; i < a->C; i += SCE_RUN) {
        const int64_t n = a->C - i < SCE_RUN ? a->C - i : SCE_RUN;
        const float m = kt->max_f32(sce_f32(kt, a->x, base + i, n, a->dt, fx), (size_t)n);
        if (isnan(m))
            has_nan = 1;
        else if ((double)m > mx)
            mx = (double)m;
    }
    /* A row whose maximum is infinite (or all -inf): shift by 0 and let IEEE arithmetic decide. */
    const double sh = has_nan || isinf(mx) ? 0.0 : mx;
    /* finite: every x - sh is finite or -inf, the vector exp's domain (kernels.h) */
    const int finite = !has_nan && !isinf(mx);
    /* Rows of at most SCE_KEEP logits keep e_c = exp(x_c - sh) for the backprop, which is then
     * e_c / s - y_c instead of a second exp (both are exp(x_c - lse) to within an ulp of fp64). */
    double e[SCE_KEEP];
    const int keep = finite && a->C <= SCE_KEEP;
    double s = 0.0;
    for (int64_t i = 0; i < a->C; i += SCE_RUN) {
        const int64_t n = a->C - i < SCE_RUN ? a->C - i : SCE_RUN;
        if (finite) {
            s += kt->exp_sum_f64(keep ? e + i : NULL, sce_f32(kt, a->x, base + i, n, a->dt, fx), (size_t)n, sh);
            continue;
        }
        sce_widen(a->x, base + i, n, a->dt, xs);
        for (int64_t k = 0; k < n; k++)
            s += exp(xs[k] - sh);
    }
    const double lse = sh + log(s), inv = 1.0 / s;
    double loss = 0.0;
    float fy[SCE_RUN], fb[SCE_RUN];
    for (int64_t i = 0; i < a->C; i += SCE_RUN) {
        const int64_t n = a->C - i < SCE_RUN ? a->C - i : SCE_RUN;
        const float *px = sce_f32(kt, a->x, base + i, n, a->dt, fx);
        const float *py = sce_f32(kt, a->y, base + i, n, a->dt, fy);
        const double *p = keep ? e + i : xs;
        double q[SCE_RUN];
        if (!keep) {
            /* exp(x - lse) directly: by the vector exp where it is defined, else libm */
            if (finite && isfinite(lse))
                (void)kt->exp_sum_f64(q, px, (size_t)n, lse);
            else
                for (int64_t k = 0; k < n; k++)
                    q[k] = exp((double)px[k] - lse);
            p = q;
        }
        const double scale = keep ? inv : 1.0;
        for (int64_t k = 0; k < n; k++) {
            loss += (double)py[k] * (lse - (double)px[k]);
            fb[k] = (float)(p[k] * scale - (double)py[k]);
        }
        if (a->dt == SCE_F32)
            memcpy((float *)a->bp + base + i, fb, (size_t)n * sizeof(float));
        else if (a->dt == SCE_F16)
            kt->f32_to_f16((uint16_t *)a->bp + base + i, fb, (size_t)n);
        else
            kt->f32_to_bf16((uint16_t *)a->bp + base + i, fb, (size_t)n);
    }
    sce_store(a->loss, b, a->dt, loss);
}

static int sce_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const sce_args *a = (const sce_args *)args;
    const cannon_kernel_table *kt = cannon_kernels_for((cannon_isa)a->isa);
    const int64_t r0 = (int64_t)ctx->block_idx * a->rows_per_block;
    const int64_t r1 = r0 + a->rows_per_block < a->B ? r0 + a->rows_per_block : a->B;
    for (int64_t r = r0; r < r1; r++)
        sce_row(a, kt, r);
    return 0;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnSoftmaxCrossEntropyWithLogitsGetWorkspaceSize(const aclTensor *features,
                                                                                   aclTensor *labels, aclTensor *loss,
                                                                                   aclTensor *backprop,
                                                                                   uint64_t *workspaceSize,
                                                                                   aclOpExecutor **executor)
{
    const cannon_dtype_set dts = cn_dts_SoftmaxCrossEntropyWithLogits();
    cannon_op op;
    cannon_tensor_view vx, vy, vl, vb;
    memset(&vx, 0, sizeof vx);
    memset(&vy, 0, sizeof vy);
    memset(&vl, 0, sizeof vl);
    memset(&vb, 0, sizeof vb);
    cannonOpBegin(&op, "aclnnSoftmaxCrossEntropyWithLogits", workspaceSize, executor);
    cannonOpNotNulls(&op, "features", features, "labels", labels, "loss", loss, "backprop", backprop, NULL);
    cannonOpTensor(&op, "features", features, dts, &vx);
    cannonOpTensor(&op, "labels", labels, dts, &vy);
    cannonOpTensor(&op, "loss", loss, dts, &vl);
    cannonOpTensor(&op, "backprop", backprop, dts, &vb);
    if (cannonOpOk(&op) && vx.ndim != 2)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "features has %lld dims: it must be 2-D (batch, classes)",
                     (long long)vx.ndim);
    cannonOpSameDtype(&op, "labels", &vy, "features", &vx);
    cannonOpSameShape(&op, "labels", &vy, "features", &vx);
    cannonOpSameDtype(&op, "backprop", &vb, "features", &vx);
    cannonOpSameShape(&op, "backprop", &vb, "features", &vx);
    cannonOpSameDtype(&op, "loss", &vl, "features", &vx);
    if (cannonOpOk(&op) && (vl.ndim != 1 || vl.shape[0] != vx.shape[0])) {
        char sl[200];
        cannonShapeFormat(&vl, sl, sizeof sl);
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "loss shape %s must be [%lld] (one value per row)", sl,
                     (long long)vx.shape[0]);
    }
    const int sx = cannonOpInput(&op, features), sy = cannonOpInput(&op, labels);
    const int sl = cannonOpOutput(&op, loss), sb = cannonOpOutput(&op, backprop);
    if (!cannonOpOk(&op) || vx.shape[0] == 0)
        return cannonOpFinish(&op);
    sce_args a;
    memset(&a, 0, sizeof a);
    a.B = vx.shape[0];
    a.C = vx.shape[1];
    a.isa = (int32_t)cannon_isa_select();
    a.dt = vx.dtype == ACL_FLOAT16 ? SCE_F16 : vx.dtype == ACL_BF16 ? SCE_BF16 : SCE_F32;
    a.rows_per_block = a.C >= 16384 ? 1 : 16384 / (a.C > 0 ? a.C : 1);
    cannon_arg_ref refs[4];
    size_t n = 0;
    if (cannonOpBind(&op, sx, CANNON_BIND_IN, offsetof(sce_args, x), &refs[n]))
        n++;
    if (cannonOpBind(&op, sy, CANNON_BIND_IN, offsetof(sce_args, y), &refs[n]))
        n++;
    if (cannonOpBind(&op, sl, CANNON_BIND_OUT, offsetof(sce_args, loss), &refs[n]))
        n++;
    if (cannonOpBind(&op, sb, CANNON_BIND_OUT, offsetof(sce_args, bp), &refs[n]))
        n++;
    const uint32_t bd = (uint32_t)((a.B + a.rows_per_block - 1) / a.rows_per_block);
    cannonOpKernel(&op, op.api, sce_kernel, bd, &a, sizeof a, refs, n);
    return cannonOpFinish(&op);
}
