/*
 * aclnnConvolution: 1-D, 2-D and 3-D convolution, forward or transposed, with stride, padding,
 * dilation, output padding, groups and an optional bias, computed directly (no im2col buffer).
 *
 * Forward:    out[n, co, o] = bias[co] + sum over ci of group g(co), k: w[co, ci - g·Cin/G, k] · x[n, ci, o·s − p + k·d]
 * Transposed: out[n, co, o] = bias[co] + sum over ci of group g(co), k with o + p − k·d = i·s, 0 <= i < in:
 *             w[ci, co − g·Cout/G, k] · x[n, ci, i]
 * (o, k, i, s, p, d per spatial axis; positions outside the input contribute nothing.)
 *
 * Every product and sum is in double, in the fixed order (ci, kd, kh, kw), and each output is
 * rounded once to out's dtype. One unit per output row (n, co, od, oh) over ow, blocks of whole
 * rows fixed by the shape: the same result for any thread count. All tensors are read and
 * written through their strides. The spatial axes are handled as three, missing leading ones
 * having size 1.
 */
#include <stddef.h>
#include <string.h>

#include "aclnnop/aclnn_convolution.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "vision_common.h"

#define CV_BLOCK_WORK (64 * 1024)
/* Limits on stride, padding, dilation, output padding (CV_MAX_PARAM) and on spatial and kernel
 * sizes (CV_MAX_SIZE): the output-size arithmetic stays within int64. */
#define CV_MAX_PARAM ((int64_t)1 << 24)
#define CV_MAX_SIZE ((int64_t)1 << 32)

typedef struct cv_args {
    const char *x, *w, *b; /* bound; b NULL without bias */
    char *out;             /* bound */
    int32_t xdt, wdt, bdt, odt;
    int32_t transposed, has_bias;
    int64_t xes, wes, bes, oes;
    int64_t rows, per_block, groups, cin_g, cout_g, cout;
    int64_t in[3], os[3], k[3], s[3], p[3], d[3];
    int64_t xs_n, xs_c, xs[3];
    int64_t ws_0, ws_1, wsk[3];
    int64_t bs;
    int64_t o_n, o_c, o_s[3];
} cv_args;

/* The input index of output position o and kernel tap k on axis @p ax, or -1 when none. */
static inline int64_t cv_src(const cv_args *a, int ax, int64_t o, int64_t k)
{
    if (!a->transposed) {
        const int64_t i = o * a->s[ax] - a->p[ax] + k * a->d[ax];
        return i >= 0 && i < a->in[ax] ? i : -1;
    }
    const int64_t t = o + a->p[ax] - k * a->d[ax];
    if (t < 0 || t % a->s[ax] != 0)
        return -1;
    const int64_t i = t / a->s[ax];
    return i < a->in[ax] ? i : -1;
}

static int cv_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const cv_args *a = (const cv_args *)args;
    const int64_t r0 = (int64_t)ctx->block_idx * a->per_block;
    const int64_t r1 = a->rows - r0 < a->per_block ? a->rows : r0 + a->per_block;
    for (int64_t r = r0; r < r1; r++) {
        int64_t t = r;
        const int64_t oh = t % a->os[1];
        t /= a->os[1];
        const int64_t od = t % a->os[0];
        t /= a->os[0];
        const int64_t co = t % a->cout, n = t / a->cout;
        const int64_t g = co / a->cout_g, col = co - g * a->cout_g;
        const double bias = a->has_bias ? vis_load(a->b + co * a->bs * a->bes, (aclDataType)a->bdt) : 0.0;
        char *orow = a->out + (n * a->o_n + co * a->o_c + od * a->o_s[0] + oh * a->o_s[1]) * a->oes;
        for (int64_t ow = 0; ow < a->os[2]; ow++) {
            double acc = bias;
            for (int64_t cl = 0; cl < a->cin_g; cl++) {
                const int64_t ci = g * a->cin_g + cl;
                /* weight (Cout, Cin/G, k...) forward, (Cin, Cout/G, k...) transposed */
                const char *wb = a->w + (a->transposed ? ci * a->ws_0 + col * a->ws_1 : co * a->ws_0 + cl * a->ws_1) * a->wes;
                const char *xb = a->x + (n * a->xs_n + ci * a->xs_c) * a->xes;
                for (int64_t kd = 0; kd < a->k[0]; kd++) {
                    const int64_t id = cv_src(a, 0, od, kd);
                    if (id < 0)
                        continue;
                    for (int64_t kh = 0; kh < a->k[1]; kh++) {
                        const int64_t ih = cv_src(a, 1, oh, kh);
                        if (ih < 0)
                            continue;
                        for (int64_t kw = 0; kw < a->k[2]; kw++) {
                            const int64_t iw = cv_src(a, 2, ow, kw);
                            if (iw < 0)
                                continue;
                            const double xv = vis_load(xb + (id * a->xs[0] + ih * a->xs[1] + iw * a->xs[2]) * a->xes,
                                                       (aclDataType)a->xdt);
                            const double wv = vis_load(wb + (kd * a->wsk[0] + kh * a->wsk[1] + kw * a->wsk[2]) * a->wes,
                                                       (aclDataType)a->wdt);
                            acc += xv * wv;
                        }
                    }
                }
            }
            vis_store(orow + ow * a->o_s[2] * a->oes, (aclDataType)a->odt, acc);
        }
    }
    return 0;
}

/* Read array @p arr of exactly @p sp values (or @p alt values when alt > 0) into @p v; values < min fail. */
static bool cv_array(cannon_op *op, const char *name, const aclIntArray *arr, int64_t sp, int64_t min, int64_t *v,
                     uint64_t *count)
{
    uint64_t n = 0;
    if (!cannonOpOk(op))
        return false;
    const int64_t *p = cannonIntArrayData(arr, &n);
    *count = n;
    if (n == 0 || n > 4)
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s must hold %lld values, got %llu", name, (long long)sp,
                            (unsigned long long)n);
    for (uint64_t k = 0; k < n; k++) {
        if (p[k] < min || p[k] > CV_MAX_PARAM)
            return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s[%llu] = %lld is out of range (>= %lld)", name,
                                (unsigned long long)k, (long long)p[k], (long long)min);
        v[k] = p[k];
    }
    return true;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnConvolutionGetWorkspaceSize(const aclTensor *input, const aclTensor *weight,
                                                                 const aclTensor *bias, const aclIntArray *stride,
                                                                 const aclIntArray *padding,
                                                                 const aclIntArray *dilation, bool transposed,
                                                                 const aclIntArray *outputPadding,
                                                                 const int64_t groups, aclTensor *output,
                                                                 int8_t cubeMathType, uint64_t *workspaceSize,
                                                                 aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vx, vw, vb, vo;
    cannonOpBegin(&op, "aclnnConvolution", workspaceSize, executor);
    cannonOpNotNulls(&op, "input", input, "weight", weight, "stride", stride, "padding", padding, "dilation",
                     dilation, "output", output, NULL);
    if (transposed)
        cannonOpNotNull(&op, "outputPadding", outputPadding);
    cannonOpTensor(&op, "input", input, cn_dts_Convolution(), &vx);
    cannonOpTensor(&op, "weight", weight, cn_dts_Convolution(), &vw);
    cannonOpTensorOpt(&op, "bias", bias, cn_dts_Convolution(), &vb);
    cannonOpTensor(&op, "output", output, cn_dts_Convolution(), &vo);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const int64_t nd = vx.ndim, sp = nd - 2;
    if (nd < 3 || nd > 5)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "input must have 3 to 5 dims, got %lld", (long long)nd);
    else if (vw.ndim != nd || vo.ndim != nd)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "weight and output must have input's %lld dims, got %lld and %lld",
                     (long long)nd, (long long)vw.ndim, (long long)vo.ndim);
    const aclDataType pt = cannonDtypePromote(vx.dtype, vw.dtype);
    if (cannonOpOk(&op) && transposed && vo.dtype != pt)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "output dtype %s must be %s (input %s with weight %s)",
                     cannonDtypeName(vo.dtype), cannonDtypeName(pt), cannonDtypeName(vx.dtype),
                     cannonDtypeName(vw.dtype));
    if (cannonOpOk(&op) && (groups < 1 || groups > 65535))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "groups must be in [1, 65535], got %lld", (long long)groups);
    if (cannonOpOk(&op) && (cubeMathType < 0 || cubeMathType > 3))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "cubeMathType must be 0, 1, 2 or 3, got %d", (int)cubeMathType);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    cv_args a;
    memset(&a, 0, sizeof a);
    int64_t s[4] = {1, 1, 1, 1}, pd[4] = {0, 0, 0, 0}, dl[4] = {1, 1, 1, 1}, op_[4] = {0, 0, 0, 0};
    uint64_t ns = 0, np = 0, nl = 0, no = 0;
    cv_array(&op, "stride", stride, sp, 1, s, &ns);
    cv_array(&op, "padding", padding, sp, 0, pd, &np);
    cv_array(&op, "dilation", dilation, sp, 1, dl, &nl);
    if (transposed)
        cv_array(&op, "outputPadding", outputPadding, sp, 0, op_, &no);
    if (cannonOpOk(&op) && ((int64_t)ns != sp || (int64_t)nl != sp || (transposed && (int64_t)no != sp)))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "stride, dilation%s must hold %lld values", transposed ?
                     " and outputPadding" : "", (long long)sp);
    /* padding: one value per spatial axis (both sides), or (begin, end) pairs for a forward 1-D
     * convolution (2 values) and a 2-D one (4 values: top, bottom, left, right) */
    int64_t pb[3] = {0, 0, 0}, pe[3] = {0, 0, 0};
    if (cannonOpOk(&op)) {
        if ((int64_t)np == sp) {
            for (int64_t k = 0; k < sp; k++)
                pb[k] = pe[k] = pd[k];
        } else if (!transposed && (int64_t)np == 2 * sp && sp <= 2) {
            for (int64_t k = 0; k < sp; k++) {
                pb[k] = pd[2 * k];
                pe[k] = pd[2 * k + 1];
            }
        } else {
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "padding must hold %lld values%s, got %llu", (long long)sp,
                         !transposed && sp <= 2 ? " (or a begin and an end per axis)" : "", (unsigned long long)np);
        }
    }
    for (int64_t k = 0; cannonOpOk(&op) && transposed && k < sp; k++)
        if (op_[k] >= s[k] && op_[k] >= dl[k])
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "outputPadding[%lld] = %lld must be below stride %lld or "
                         "dilation %lld", (long long)k, (long long)op_[k], (long long)s[k], (long long)dl[k]);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    /* channels */
    const int64_t cin = vx.shape[1];
    int64_t cout = 0;
    if (!transposed) {
        cout = vw.shape[0];
        if (cin % groups != 0 || vw.shape[1] != cin / groups)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "weight's dim 1 (%lld) times groups (%lld) must equal "
                         "input's channels %lld", (long long)vw.shape[1], (long long)groups, (long long)cin);
        else if (cout % groups != 0)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "weight's dim 0 (%lld) must be a multiple of groups %lld",
                         (long long)cout, (long long)groups);
    } else {
        cout = vw.shape[1] <= CV_MAX_SIZE ? vw.shape[1] * groups : 0;
        if (vw.shape[1] > CV_MAX_SIZE)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "weight's dim 1 (%lld) is too large", (long long)vw.shape[1]);
        else if (vw.shape[0] != cin)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "weight's dim 0 (%lld) must equal input's channels %lld",
                         (long long)vw.shape[0], (long long)cin);
        else if (cin % groups != 0)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "input's channels %lld must be a multiple of groups %lld",
                         (long long)cin, (long long)groups);
    }
    if (cannonOpOk(&op) && vb.ndim >= 0) {
        int64_t nb = shape_numel(&vb), big = 0;
        for (int64_t k = 0; k < vb.ndim; k++)
            big += vb.shape[k] != 1;
        if (nb != cout || big > 1)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "bias must hold %lld values along one dim", (long long)cout);
    }
    /* spatial sizes */
    int64_t oshape[5] = {vx.shape[0], cout, 1, 1, 1};
    for (int64_t k = 0; cannonOpOk(&op) && k < sp; k++) {
        const int64_t in = vx.shape[2 + k], kk = vw.shape[2 + k];
        if (kk > CV_MAX_SIZE || in > CV_MAX_SIZE) {
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "spatial size too large");
            break;
        }
        const int64_t span = dl[k] * (kk - 1) + 1;
        if (!transposed) {
            if (in + pb[k] + pe[k] < span)
                cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "padded input size %lld along spatial axis %lld is "
                             "smaller than the dilated kernel %lld", (long long)(in + pb[k] + pe[k]), (long long)k,
                             (long long)span);
            oshape[2 + k] = (in + pb[k] + pe[k] - span) / s[k] + 1;
        } else {
            oshape[2 + k] = (in - 1) * s[k] - 2 * pb[k] + span - 1 + op_[k] + 1;
            if (oshape[2 + k] < 0)
                cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "output size along spatial axis %lld is negative",
                             (long long)k);
        }
    }
    if (!cannonOpOk(&op) || !shape_expect(&op, "output", &vo, nd, oshape))
        return cannonOpFinish(&op);
    const int sx = cannonOpInput(&op, input);
    const int sw = cannonOpInput(&op, weight);
    const int sb = cannonOpInput(&op, bias);
    const int so = cannonOpOutput(&op, output);
    a.transposed = transposed ? 1 : 0;
    a.xdt = (int32_t)vx.dtype;
    a.wdt = (int32_t)vw.dtype;
    a.odt = (int32_t)vo.dtype;
    a.xes = (int64_t)cannonDtypeSize(vx.dtype);
    a.wes = (int64_t)cannonDtypeSize(vw.dtype);
    a.oes = (int64_t)cannonDtypeSize(vo.dtype);
    a.groups = groups;
    a.cout = cout;
    a.cout_g = cout / groups;
    a.cin_g = cin / groups;
    a.xs_n = vx.strides[0];
    a.xs_c = vx.strides[1];
    a.ws_0 = vw.strides[0];
    a.ws_1 = vw.strides[1];
    a.o_n = vo.strides[0];
    a.o_c = vo.strides[1];
    for (int k = 0; k < 3; k++) { /* axis k of the three; the first 3 - sp have size 1 */
        const int64_t src = k - (3 - sp);
        a.in[k] = src >= 0 ? vx.shape[2 + src] : 1;
        a.os[k] = src >= 0 ? vo.shape[2 + src] : 1;
        a.k[k] = src >= 0 ? vw.shape[2 + src] : 1;
        a.s[k] = src >= 0 ? s[src] : 1;
        a.p[k] = src >= 0 ? pb[src] : 0;
        a.d[k] = src >= 0 ? dl[src] : 1;
        a.xs[k] = src >= 0 ? vx.strides[2 + src] : 0;
        a.wsk[k] = src >= 0 ? vw.strides[2 + src] : 0;
        a.o_s[k] = src >= 0 ? vo.strides[2 + src] : 0;
    }
    if (vb.ndim >= 0) {
        a.has_bias = 1;
        a.bdt = (int32_t)vb.dtype;
        a.bes = (int64_t)cannonDtypeSize(vb.dtype);
        a.bs = 1;
        for (int64_t k = 0; k < vb.ndim; k++)
            if (vb.shape[k] != 1)
                a.bs = vb.strides[k];
    }
    a.rows = oshape[0] * cout * a.os[0] * a.os[1];
    if (a.rows == 0 || a.os[2] == 0)
        return cannonOpFinish(&op);
    /* work of one row, saturated (the taps are at most the weight's element count, below 2^48) */
    int64_t taps = a.cin_g * a.k[0] * a.k[1] * a.k[2] + 1, cols = a.os[2];
    taps = taps < CV_BLOCK_WORK ? taps : CV_BLOCK_WORK;
    cols = cols < CV_BLOCK_WORK ? cols : CV_BLOCK_WORK;
    a.per_block = vis_units_per_block(a.rows, taps * cols, CV_BLOCK_WORK);
    cannon_arg_ref refs[4];
    size_t nr = 0;
    refs[nr++] = (cannon_arg_ref){(uint32_t)offsetof(cv_args, x), sx, vx.offset * a.xes};
    refs[nr++] = (cannon_arg_ref){(uint32_t)offsetof(cv_args, w), sw, vw.offset * a.wes};
    if (a.has_bias)
        refs[nr++] = (cannon_arg_ref){(uint32_t)offsetof(cv_args, b), sb, vb.offset * a.bes};
    refs[nr++] = (cannon_arg_ref){(uint32_t)offsetof(cv_args, out), so, vo.offset * a.oes};
    cannonOpKernel(&op, "Convolution", cv_kernel, (uint32_t)((a.rows + a.per_block - 1) / a.per_block), &a, sizeof a,
                   refs, nr);
    return cannonOpFinish(&op);
}
