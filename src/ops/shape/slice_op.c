/*
 * aclnnSlice: one copy from the strided subview self[..., start:end:step, ...] (CANN's clamping
 * of start and end, see the manifest).
 */
#include "aclnnop/aclnn_slice.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "shape_copy.h"

ACL_FUNC_VISIBILITY aclnnStatus aclnnSliceGetWorkspaceSize(const aclTensor *self, int64_t dim, int64_t start,
                                                           int64_t end, int64_t step, aclTensor *out,
                                                           uint64_t *workspaceSize, aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vs, vo;
    cannonOpBegin(&op, "aclnnSlice", workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, "out", out, NULL);
    cannonOpTensor(&op, "self", self, cn_dts_Slice(), &vs);
    cannonOpTensor(&op, "out", out, cn_dts_Slice(), &vo);
    cannonOpSameDtype(&op, "out", &vo, "self", &vs);
    if (cannonOpOk(&op) && vs.ndim == 0)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "self must have 1 to 8 dims, got 0");
    cannonOpDim(&op, "dim", &dim, vs.ndim);
    if (cannonOpOk(&op) && step <= 0)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "step must be > 0, got %lld", (long long)step);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const int64_t N = vs.shape[dim];
    int64_t b, e;
    if (N == 0) {
        b = e = 0;
    } else {
        b = start < -N ? 0 : start >= N ? N : (start + N) % N;
        if (end < -N)
            e = b;
        else if (end >= N)
            e = N;
        else
            e = (end + N) % N > b ? (end + N) % N : b;
    }
    const int64_t len = e > b ? (e - b - 1) / step + 1 : 0;
    int64_t eshape[CANNON_OP_MAX_RANK], sst[CANNON_OP_MAX_RANK];
    for (int64_t d = 0; d < vs.ndim; d++) {
        eshape[d] = d == dim ? len : vs.shape[d];
        /* with one element or none the step is never taken (and may be huge) */
        sst[d] = d == dim && len > 1 ? vs.strides[d] * step : vs.strides[d];
    }
    if (!shape_expect(&op, "out", &vo, vs.ndim, eshape))
        return cannonOpFinish(&op);
    const int ss = cannonOpInput(&op, self);
    const int so = cannonOpOutput(&op, out);
    shape_geom g;
    shape_geom_init(&g, vs.ndim, eshape, sst, vo.strides, cannonDtypeSize(vs.dtype));
    shape_record_copy(&op, ss, vs.offset + (len > 0 ? b * vs.strides[dim] : 0), so, vo.offset, &g);
    return cannonOpFinish(&op);
}
