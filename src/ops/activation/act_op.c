/*
 * The activations whose phase 1 is not one of the manifest's generic elementwise kinds:
 * aclnnGeluV2 (the approximation is an argument) and aclnnThresholdBackward (a scalar threshold;
 * integral types too). Relu, Gelu, Silu and their backward forms are generic kinds (ops.def,
 * generated in src/ops/elementwise/ew_generic.c). The math is the elementwise framework's
 * (ew_impl.h: fp32 for the 16/32-bit floats, fp64 for DOUBLE).
 */
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_gelu_v2.h"
#include "aclnnop/aclnn_threshold_backward.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "../elementwise/ew_kernels.h"

ACL_FUNC_VISIBILITY aclnnStatus aclnnThresholdBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                                       const aclTensor *self,
                                                                       const aclScalar *threshold, aclTensor *out,
                                                                       uint64_t *workspaceSize,
                                                                       aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vg, vx, vo;
    const cannon_dtype_set dts = cn_dts_ThresholdBackward();
    cannonOpBegin(&op, "aclnnThresholdBackward", workspaceSize, executor);
    cannonOpNotNulls(&op, "gradOutput", gradOutput, "self", self, "threshold", threshold, "out", out, NULL);
    cannonOpTensor(&op, "gradOutput", gradOutput, dts, &vg);
    cannonOpTensor(&op, "self", self, dts, &vx);
    cannonOpTensor(&op, "out", out, CANNON_DTS_REAL, &vo);
    aclDataType tt = ACL_DT_UNDEFINED;
    if (cannonOpOk(&op) && !cannonScalarGet(threshold, &tt, NULL))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "threshold is not a live aclScalar");
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const aclDataType pt = cannonDtypePromote(vg.dtype, vx.dtype);
    if (!cannonDtypeCanCast(pt, vo.dtype))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "result type %s cannot be cast to out dtype %s",
                     cannonDtypeName(pt), cannonDtypeName(vo.dtype));
    ew_args a;
    memset(&a, 0, sizeof a);
    a.op = EW_THRESH_BWD;
    a.ct = pt;
    a.mode = cannon_ew_mode_of(pt);
    const double t = cannonScalarToDouble(threshold);
    a.prm.thr_d = t;
    /* the threshold in the compute type, as torch converts it: a fractional threshold with
     * integer data compares against its truncation */
    a.prm.thr = (float)t;
    a.prm.thr_i = cannonScalarToInt64(threshold);
    cannon_ew_plan(&op, &a, out, gradOutput, self, "out", "gradOutput", "self");
    return cannonOpFinish(&op);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnGeluV2GetWorkspaceSize(const aclTensor *x, int64_t approximate, aclTensor *y,
                                                            uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (x && y && workspaceSize && executor && approximate != 0 && approximate != 1)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID,
                                 "aclnnGeluV2: approximate %lld is not supported (0 = none, 1 = tanh)",
                                 (long long)approximate);
    return cannon_ew_unary("aclnnGeluV2", approximate == 1 ? EW_GELU_TANH : EW_GELU_ERF, 0, cn_dts_GeluV2(), x, "x",
                           y, "y", workspaceSize, executor);
}
