/*
 * aclnnRepeatInterleaveIntWithDim: one copy. The output's dim (S * R elements) is viewed as two
 * dims (S, R); the source reads them with strides (its own stride along dim, 0), so each source
 * slice lands R times in a row.
 */
#include "aclnnop/aclnn_repeat_interleave.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "shape_copy.h"

ACL_FUNC_VISIBILITY aclnnStatus aclnnRepeatInterleaveIntWithDimGetWorkspaceSize(const aclTensor *self, int64_t repeats,
                                                                                int64_t dim, int64_t outputSize,
                                                                                aclTensor *out, uint64_t *workspaceSize,
                                                                                aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vs, vo;
    cannonOpBegin(&op, "aclnnRepeatInterleaveIntWithDim", workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, "out", out, NULL);
    cannonOpTensor(&op, "self", self, cn_dts_RepeatInterleaveIntWithDim(), &vs);
    cannonOpTensor(&op, "out", out, cn_dts_RepeatInterleaveIntWithDim(), &vo);
    cannonOpSameDtype(&op, "out", &vo, "self", &vs);
    if (cannonOpOk(&op) && vs.ndim == 0)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "self is 0-D: it has no dim to repeat along");
    if (cannonOpOk(&op) && repeats < 0)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "repeats must be >= 0, got %lld", (long long)repeats);
    cannonOpDim(&op, "dim", &dim, vs.ndim);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const int64_t S = vs.shape[dim];
    if (S > 0 && repeats > INT64_MAX / S)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "repeats %lld times self.shape[dim] %lld overflows int64",
                     (long long)repeats, (long long)S);
    else if (outputSize != S * repeats)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "outputSize %lld must be repeats * self.shape[dim] = %lld",
                     (long long)outputSize, (long long)(S * repeats));
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    int64_t eshape[CANNON_OP_MAX_RANK];
    for (int64_t d = 0; d < vs.ndim; d++)
        eshape[d] = d == dim ? outputSize : vs.shape[d];
    if (!shape_expect(&op, "out", &vo, vs.ndim, eshape))
        return cannonOpFinish(&op);

    const int ss = cannonOpInput(&op, self);
    const int so = cannonOpOutput(&op, out);
    if (shape_numel(&vo) == 0)
        return cannonOpFinish(&op); /* nothing to copy (and repeats may be huge when S is 0) */
    int64_t sh[SHAPE_MAX_DIMS], sst[SHAPE_MAX_DIMS], dst[SHAPE_MAX_DIMS];
    int64_t n = 0;
    for (int64_t d = 0; d < vs.ndim; d++) {
        if (d == dim) {
            sh[n] = S;
            sst[n] = vs.strides[d];
            dst[n++] = vo.strides[d] * repeats;
            sh[n] = repeats;
            sst[n] = 0;
            dst[n++] = vo.strides[d];
        } else {
            sh[n] = vs.shape[d];
            sst[n] = vs.strides[d];
            dst[n++] = vo.strides[d];
        }
    }
    shape_geom g;
    shape_geom_init(&g, n, sh, sst, dst, cannonDtypeSize(vs.dtype));
    shape_record_copy(&op, ss, vs.offset, so, vo.offset, &g);
    return cannonOpFinish(&op);
}
