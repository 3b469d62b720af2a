/*
 * aclnnScatter / aclnnScatterValue and their in-place forms (torch's scatter / scatter_ with an
 * optional reduction): out = self, then for every position p of index (row-major order),
 * out[p with p[dim] = index[p]] becomes src[p] (reduce 0), out + src[p] (1) or out * src[p] (2).
 *
 * The copy self -> out is the shape family's strided copy; the scatter is one kernel walking
 * index's positions. Positions with different coordinates along dim 0 never share a target when
 * dim is not 0, so the blocks split index's first dim; along dim 0 one block walks everything.
 * Either way each target sees its updates in index's row-major order, whatever the thread count:
 * a repeated target keeps the last src value (reduce 0) and sums / products round in that order.
 * An index outside [0, self.size(dim)) never forms an address: the position is skipped and the
 * first one is reported as the stream's error (ACL_ERROR_RT_AICORE_EXCEPTION) at the next
 * synchronize. Arithmetic: FLOAT16 / BFLOAT16 in fp32 rounded once per update, integers wrap,
 * BOOL adds as or and multiplies as and, complex values as (re, im) pairs.
 */
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_scatter.h"
#include "cannon/opdev.h"
#include "fp_convert.h"
#include "op_manifest.h"

#include "shape_copy.h"

/* index positions a block handles at least (the split depends on the shape only) */
#define SC_MIN_PER_BLOCK 4096

typedef struct sc_args {
    const char *api;
    void *out, *index, *src;
    int32_t rank, dim, reduce, dt, idx64, scalar;
    int64_t ishape[CANNON_OP_MAX_RANK];
    int64_t istr[CANNON_OP_MAX_RANK], sstr[CANNON_OP_MAX_RANK], ostr[CANNON_OP_MAX_RANK]; /* elements */
    int64_t axis_size, es;
    int64_t n0, per_block; /* the split of index's dim 0 (1 and 1 when dim is 0) */
    unsigned char val[16];
} sc_args;

static void sc_apply(const sc_args *a, char *o, const char *s)
{
    if (a->reduce == 0) {
        memcpy(o, s, (size_t)a->es);
        return;
    }
    const int add = a->reduce == 1;
    switch ((aclDataType)a->dt) {
    case ACL_FLOAT: {
        float x, y;
        memcpy(&x, o, 4);
        memcpy(&y, s, 4);
        x = add ? x + y : x * y;
        memcpy(o, &x, 4);
        return;
    }
    case ACL_DOUBLE: {
        double x, y;
        memcpy(&x, o, 8);
        memcpy(&y, s, 8);
        x = add ? x + y : x * y;
        memcpy(o, &x, 8);
        return;
    }
    case ACL_FLOAT16:
    case ACL_BF16: {
        uint16_t hx, hy;
        memcpy(&hx, o, 2);
        memcpy(&hy, s, 2);
        const int h = a->dt == ACL_FLOAT16;
        const float x = h ? cannon_f16_to_f32(hx) : cannon_bf16_to_f32(hx);
        const float y = h ? cannon_f16_to_f32(hy) : cannon_bf16_to_f32(hy);
        const float r = add ? x + y : x * y;
        hx = h ? cannon_f32_to_f16(r) : cannon_f32_to_bf16(r);
        memcpy(o, &hx, 2);
        return;
    }
    case ACL_COMPLEX64: {
        float x[2], y[2], r[2];
        memcpy(x, o, 8);
        memcpy(y, s, 8);
        if (add) {
            r[0] = x[0] + y[0];
            r[1] = x[1] + y[1];
        } else {
            r[0] = x[0] * y[0] - x[1] * y[1];
            r[1] = x[0] * y[1] + x[1] * y[0];
        }
        memcpy(o, r, 8);
        return;
    }
    case ACL_COMPLEX128: {
        double x[2], y[2], r[2];
        memcpy(x, o, 16);
        memcpy(y, s, 16);
        if (add) {
            r[0] = x[0] + y[0];
            r[1] = x[1] + y[1];
        } else {
            r[0] = x[0] * y[0] - x[1] * y[1];
            r[1] = x[0] * y[1] + x[1] * y[0];
        }
        memcpy(o, r, 16);
        return;
    }
    case ACL_BOOL: {
        const unsigned char x = *(unsigned char *)o != 0, y = *(const unsigned char *)s != 0;
        *(unsigned char *)o = add ? (x | y) : (x & y);
        return;
    }
    default: { /* integers: wrapping arithmetic at the element's width */
        uint64_t x = 0, y = 0;
        memcpy(&x, o, (size_t)a->es);
        memcpy(&y, s, (size_t)a->es);
        x = add ? x + y : x * y; /* the low es bytes are right for signed and unsigned types */
        memcpy(o, &x, (size_t)a->es);
        return;
    }
    }
}

static int sc_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const sc_args *a = (const sc_args *)args;
    const int64_t i0 = (int64_t)ctx->block_idx * a->per_block;
    const int64_t i1 = a->n0 - i0 < a->per_block ? a->n0 : i0 + a->per_block;
    if (i0 >= i1)
        return 0;
    const int32_t r = a->rank;
    /* the positions of index whose dim-0 coordinate is in [i0, i1) (all of them when dim is 0) */
    int64_t shape[CANNON_OP_MAX_RANK], c[CANNON_OP_MAX_RANK];
    memcpy(shape, a->ishape, sizeof shape);
    if (a->dim != 0)
        shape[0] = i1 - i0;
    int64_t total = 1;
    for (int32_t d = 0; d < r; d++) {
        total *= shape[d];
        c[d] = 0;
    }
    int64_t bad = -1, badv = 0;
    /* rows of index's last dim: the offsets of a row's first position, then fixed steps */
    const int32_t L = r - 1;
    const int64_t nl = shape[L], rows = total / nl;
    const int64_t di = a->istr[L], ds = a->sstr[L], dout = L == a->dim ? 0 : a->ostr[L], dk = a->ostr[a->dim];
    const char *src = a->scalar ? (const char *)a->val : (const char *)a->src;
    const int64_t ses = a->scalar ? 0 : a->es;
    for (int64_t row = 0; row < rows; row++) {
        int64_t io = 0, so = 0, oo = 0;
        for (int32_t d = 0; d < L; d++) {
            const int64_t x = c[d] + (d == 0 && a->dim != 0 ? i0 : 0);
            io += x * a->istr[d];
            so += x * a->sstr[d];
            oo += d == a->dim ? 0 : x * a->ostr[d];
        }
        for (int64_t j = 0; j < nl; j++) {
            const int64_t q = io + j * di;
            const int64_t k = a->idx64 ? ((const int64_t *)a->index)[q] : (int64_t)((const int32_t *)a->index)[q];
            if (k < 0 || k >= a->axis_size) {
                if (bad < 0) {
                    bad = row * nl + j;
                    badv = k;
                }
                continue;
            }
            sc_apply(a, (char *)a->out + (oo + j * dout + k * dk) * a->es, src + (so + j * ds) * ses);
        }
        for (int32_t d = L - 1; d >= 0; d--) {
            if (++c[d] < shape[d])
                break;
            c[d] = 0;
        }
    }
    if (bad >= 0)
        return cannonKernelReportError(ctx, ACL_ERROR_RT_AICORE_EXCEPTION,
                                       "%s: index value %lld is out of range [0, %lld)", a->api, (long long)badv,
                                       (long long)a->axis_size);
    return 0;
}

/* Phase 1 of the four forms: @p src NULL is a Value form, @p out NULL an in-place one. */
static aclnnStatus scatter_plan(const char *api, cannon_dtype_set dts, const aclTensor *self, int64_t dim,
                                const aclTensor *index, const aclTensor *src, const aclScalar *value, int64_t reduce,
                                const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const int inplace = out == NULL, scalar = src == NULL;
    const char *sn = inplace ? "selfRef" : "self";
    cannon_op op;
    cannon_tensor_view vs, vi, vc, vo;
    cannonOpBegin(&op, api, workspaceSize, executor);
    cannonOpNotNull(&op, sn, self);
    cannonOpNotNull(&op, "index", index);
    if (scalar)
        cannonOpNotNull(&op, "value", value);
    else
        cannonOpNotNull(&op, "src", src);
    if (!inplace)
        cannonOpNotNull(&op, "out", out);
    cannonOpTensor(&op, sn, self, dts, &vs);
    cannonOpTensor(&op, "index", index, CANNON_DTS_INDEX, &vi);
    if (!scalar) {
        cannonOpTensor(&op, "src", src, dts, &vc);
        cannonOpSameDtype(&op, "src", &vc, sn, &vs);
    }
    if (!inplace) {
        cannonOpTensor(&op, "out", out, dts, &vo);
        cannonOpSameDtype(&op, "out", &vo, sn, &vs);
        cannonOpSameShape(&op, "out", &vo, sn, &vs);
    } else {
        vo = vs;
    }
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    if (vi.ndim != vs.ndim || (!scalar && vc.ndim != vs.ndim)) {
        if (scalar)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%s and index must have one rank, got %lld and %lld", sn,
                         (long long)vs.ndim, (long long)vi.ndim);
        else
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%s, index and src must have one rank, got %lld, %lld and %lld",
                         sn, (long long)vs.ndim, (long long)vi.ndim, (long long)vc.ndim);
    }
    cannonOpDim(&op, "dim", &dim, vs.ndim);
    if (cannonOpOk(&op) && (reduce < 0 || reduce > 2))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "reduce must be 0 (none), 1 (add) or 2 (mul), got %lld",
                     (long long)reduce);
    for (int64_t d = 0; cannonOpOk(&op) && d < vs.ndim; d++) {
        if (!scalar && vi.shape[d] > vc.shape[d])
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "index.size(%lld) = %lld exceeds src.size(%lld) = %lld",
                         (long long)d, (long long)vi.shape[d], (long long)d, (long long)vc.shape[d]);
        else if (d != dim && vi.shape[d] > vs.shape[d])
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "index.size(%lld) = %lld exceeds %s.size(%lld) = %lld",
                         (long long)d, (long long)vi.shape[d], sn, (long long)d, (long long)vs.shape[d]);
    }
    sc_args a;
    memset(&a, 0, sizeof a);
    if (cannonOpOk(&op) && scalar) {
        aclDataType vt = ACL_DT_UNDEFINED;
        if (!cannonScalarGet(value, &vt, NULL))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "value is not a live aclScalar");
        else if (!shape_scalar_to(value, vs.dtype, a.val))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "value of dtype %s cannot be converted to %s dtype %s",
                         cannonDtypeName(vt), sn, cannonDtypeName(vs.dtype));
    }
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);

    const int s_self = cannonOpInput(&op, self);
    const int s_index = cannonOpInput(&op, index);
    const int s_src = scalar ? -1 : cannonOpInput(&op, src);
    const int s_out = cannonOpOutput(&op, inplace ? self : out);
    const int64_t es = (int64_t)cannonDtypeSize(vs.dtype);
    /* a 0-D tensor counts as [1] */
    const int32_t r = vs.ndim > 0 ? (int32_t)vs.ndim : 1;
    const int64_t one = 1, zero = 0;
    if (!inplace) {
        shape_geom g;
        shape_geom_init(&g, r, vs.ndim ? vs.shape : &one, vs.ndim ? vs.strides : &zero, vo.ndim ? vo.strides : &zero,
                        (size_t)es);
        shape_record_copy(&op, s_self, vs.offset, s_out, vo.offset, &g);
    }
    const int64_t n_index = shape_numel(&vi);
    if (n_index == 0)
        return cannonOpFinish(&op);
    a.api = api;
    a.rank = r;
    a.dim = (int32_t)dim;
    a.reduce = (int32_t)reduce;
    a.dt = vs.dtype;
    a.idx64 = vi.dtype == ACL_INT64;
    a.scalar = scalar;
    a.es = es;
    for (int32_t d = 0; d < r; d++) {
        a.ishape[d] = vi.ndim ? vi.shape[d] : 1;
        a.istr[d] = vi.ndim ? vi.strides[d] : 0;
        a.sstr[d] = scalar || !vc.ndim ? 0 : vc.strides[d];
        a.ostr[d] = vo.ndim ? vo.strides[d] : 0;
    }
    a.axis_size = vs.ndim ? vs.shape[dim] : 1;
    uint32_t blocks = 1;
    a.n0 = 1;
    a.per_block = 1;
    if (dim != 0) {
        a.n0 = a.ishape[0];
        const int64_t per_row = n_index / a.n0;
        int64_t per = (SC_MIN_PER_BLOCK + per_row - 1) / per_row;
        if (per < 1)
            per = 1;
        a.per_block = per;
        blocks = (uint32_t)((a.n0 + per - 1) / per);
    }
    cannon_arg_ref refs[3];
    size_t nr = 0;
    cannonOpBindView(&op, s_out, (uint32_t)offsetof(sc_args, out), &refs[nr++]);
    cannonOpBindView(&op, s_index, (uint32_t)offsetof(sc_args, index), &refs[nr++]);
    if (!scalar)
        cannonOpBindView(&op, s_src, (uint32_t)offsetof(sc_args, src), &refs[nr++]);
    cannonOpKernel(&op, api, sc_kernel, blocks, &a, sizeof a, refs, nr);
    return cannonOpFinish(&op);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnScatterGetWorkspaceSize(const aclTensor *self, int64_t dim, const aclTensor *index,
                                                             const aclTensor *src, int64_t reduce, aclTensor *out,
                                                             uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (!out) { /* NULL out is an argument error, not the in-place form */
        cannon_op op;
        cannonOpBegin(&op, "aclnnScatter", workspaceSize, executor);
        cannonOpNotNulls(&op, "self", self, "index", index, "src", src, "out", out, NULL);
        return cannonOpFinish(&op);
    }
    return scatter_plan("aclnnScatter", cn_dts_Scatter(), self, dim, index, src, NULL, reduce, out, workspaceSize,
                        executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnScatterValueGetWorkspaceSize(const aclTensor *self, int64_t dim,
                                                                  const aclTensor *index, const aclScalar *value,
                                                                  int64_t reduce, aclTensor *out,
                                                                  uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (!out || !value) {
        cannon_op op;
        cannonOpBegin(&op, "aclnnScatterValue", workspaceSize, executor);
        cannonOpNotNulls(&op, "self", self, "index", index, "value", value, "out", out, NULL);
        return cannonOpFinish(&op);
    }
    return scatter_plan("aclnnScatterValue", cn_dts_ScatterValue(), self, dim, index, NULL, value, reduce, out,
                        workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceScatterGetWorkspaceSize(aclTensor *selfRef, int64_t dim,
                                                                    const aclTensor *index, const aclTensor *src,
                                                                    int64_t reduce, uint64_t *workspaceSize,
                                                                    aclOpExecutor **executor)
{
    if (!src) {
        cannon_op op;
        cannonOpBegin(&op, "aclnnInplaceScatter", workspaceSize, executor);
        cannonOpNotNulls(&op, "selfRef", selfRef, "index", index, "src", src, NULL);
        return cannonOpFinish(&op);
    }
    return scatter_plan("aclnnInplaceScatter", cn_dts_InplaceScatter(), selfRef, dim, index, src, NULL, reduce, NULL,
                        workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceScatterValueGetWorkspaceSize(aclTensor *selfRef, int64_t dim,
                                                                         const aclTensor *index, const aclScalar *value,
                                                                         int64_t reduce, uint64_t *workspaceSize,
                                                                         aclOpExecutor **executor)
{
    if (!value) {
        cannon_op op;
        cannonOpBegin(&op, "aclnnInplaceScatterValue", workspaceSize, executor);
        cannonOpNotNulls(&op, "selfRef", selfRef, "index", index, "value", value, NULL);
        return cannonOpFinish(&op);
    }
    return scatter_plan("aclnnInplaceScatterValue", cn_dts_InplaceScatterValue(), selfRef, dim, index, NULL, value,
                        reduce, NULL, workspaceSize, executor);
}
