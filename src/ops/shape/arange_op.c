/*
 * aclnnArange: out[i] = start + i * step, one kernel over blocks of elements. Floating outputs
 * compute in double and round once; integer outputs compute in int64 (wrapping to INT32). The
 * output is written contiguously (a strided out is written in the workspace and scattered).
 */
#include <math.h>
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_arange.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "shape_copy.h"

#define AR_BLOCK 65536

typedef struct ar_args {
    void *out;
    int64_t n;
    int32_t dt, pad_;
    double start, step;
    int64_t istart, istep;
} ar_args;

static int ar_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const ar_args *a = (const ar_args *)args;
    const int64_t i0 = (int64_t)ctx->block_idx * AR_BLOCK;
    const int64_t i1 = a->n - i0 < AR_BLOCK ? a->n : i0 + AR_BLOCK;
    switch ((aclDataType)a->dt) {
    case ACL_FLOAT:
        for (int64_t i = i0; i < i1; i++)
            ((float *)a->out)[i] = (float)(a->start + (double)i * a->step);
        break;
    case ACL_DOUBLE:
        for (int64_t i = i0; i < i1; i++)
            ((double *)a->out)[i] = a->start + (double)i * a->step;
        break;
    case ACL_FLOAT16:
        for (int64_t i = i0; i < i1; i++)
            ((uint16_t *)a->out)[i] = shape_f64_to_f16(a->start + (double)i * a->step);
        break;
    case ACL_BF16:
        for (int64_t i = i0; i < i1; i++)
            ((uint16_t *)a->out)[i] = shape_f64_to_bf16(a->start + (double)i * a->step);
        break;
    case ACL_INT32:
        for (int64_t i = i0; i < i1; i++)
            ((int32_t *)a->out)[i] = (int32_t)(uint32_t)((uint64_t)a->istart + (uint64_t)i * (uint64_t)a->istep);
        break;
    default:
        for (int64_t i = i0; i < i1; i++)
            ((int64_t *)a->out)[i] = (int64_t)((uint64_t)a->istart + (uint64_t)i * (uint64_t)a->istep);
        break;
    }
    return 0;
}

#define AR_SCALAR_DTS (CANNON_DTS_REAL)

ACL_FUNC_VISIBILITY aclnnStatus aclnnArangeGetWorkspaceSize(const aclScalar *start, const aclScalar *end,
                                                            const aclScalar *step, aclTensor *out,
                                                            uint64_t *workspaceSize, aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vo;
    cannonOpBegin(&op, "aclnnArange", workspaceSize, executor);
    cannonOpNotNulls(&op, "start", start, "end", end, "step", step, "out", out, NULL);
    cannonOpTensor(&op, "out", out, cn_dts_Arange(), &vo);
    const aclScalar *sc[3] = {start, end, step};
    static const char *const names[3] = {"start", "end", "step"};
    for (int k = 0; k < 3 && cannonOpOk(&op); k++) {
        aclDataType t;
        if (!cannonScalarGet(sc[k], &t, NULL))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%s is not a live aclScalar", names[k]);
        else if (!cannonDtypeIn(t, AR_SCALAR_DTS))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%s dtype %s is not supported", names[k], cannonDtypeName(t));
    }
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const bool is_int = vo.dtype == ACL_INT32 || vo.dtype == ACL_INT64;
    const double ds = cannonScalarToDouble(start), de = cannonScalarToDouble(end), dp = cannonScalarToDouble(step);
    const int64_t is = cannonScalarToInt64(start), ie = cannonScalarToInt64(end), ip = cannonScalarToInt64(step);
    int64_t n = 0, n_alt = -1;
    if (is_int) {
        if (ip == 0)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "step must be nonzero");
        else if ((ip > 0 && is > ie) || (ip < 0 && is < ie))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID,
                         "upper bound and lower bound inconsistent with step sign: start %lld, end %lld, step %lld",
                         (long long)is, (long long)ie, (long long)ip);
        else {
            const double nd = ceil(((double)ie - (double)is) / (double)ip);
            if (!(nd >= 0 && nd < 9.0e15))
                cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "the element count %g is not a valid size", nd);
            else
                n = (int64_t)nd;
        }
    } else {
        const bool f32 = vo.dtype != ACL_DOUBLE;
        const double s = f32 ? (float)ds : ds, e = f32 ? (float)de : de, p = f32 ? (float)dp : dp;
        if (!(p > 0 || p < 0))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "step must be nonzero (and not NaN)");
        else if ((p > 0 && s > e) || (p < 0 && s < e))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID,
                         "upper bound and lower bound inconsistent with step sign: start %g, end %g, step %g", ds, de,
                         dp);
        else {
            const double nd = ceil((de - ds) / dp);
            const double nf = ceilf(((float)de - (float)ds) / (float)dp);
            if (!(nd >= 0 && nd < 9.0e15))
                cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "the element count ceil((end - start) / step) = %g is "
                             "not a valid size", nd);
            else {
                n = (int64_t)nd;
                if (nf >= 0 && nf < 9.0e15)
                    n_alt = (int64_t)nf;
            }
        }
    }
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const int64_t numel = shape_numel(&vo);
    if (numel != n && numel != n_alt) {
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "out has %lld elements, the range has %lld", (long long)numel,
                     (long long)n);
        return cannonOpFinish(&op);
    }
    const int so = cannonOpOutput(&op, out);
    if (numel == 0)
        return cannonOpFinish(&op);
    ar_args a;
    memset(&a, 0, sizeof a);
    a.n = numel;
    a.dt = (int32_t)vo.dtype;
    a.start = ds;
    a.step = dp;
    a.istart = is;
    a.istep = ip;
    cannon_arg_ref ref;
    cannonOpBind(&op, so, CANNON_BIND_OUT, (uint32_t)offsetof(ar_args, out), &ref);
    cannonOpKernel(&op, "Arange", ar_kernel, (uint32_t)((numel + AR_BLOCK - 1) / AR_BLOCK), &a, sizeof a, &ref, 1);
    return cannonOpFinish(&op);
}
