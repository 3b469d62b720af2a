/*
 * The activations whose phase 1 is not one of the manifest's generic elementwise kinds:
 * aclnnGeluV2 (the approximation is an argument), aclnnThresholdBackward and aclnnInplaceThreshold
 * (scalar thresholds; integral types too). Relu, Gelu, Silu, their backward forms and the other
 * activations are generic kinds (ops.def, generated in src/ops/elementwise/ew_generic.c). The math
 * is the elementwise framework's (ew_impl.h: fp32 for the 16/32-bit floats, fp64 for DOUBLE).
 */
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_gelu_v2.h"
#include "aclnnop/aclnn_threshold.h"
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

/*
 * aclnnInplaceThreshold: selfRef = selfRef <= threshold ? value : selfRef (NaN kept, as torch's
 * threshold; CANN's page writes the same as "x > threshold ? x : value" for ordered x). The
 * comparison and the result are in the type of selfRef promoted with both scalars, which must cast
 * back to selfRef (an integral selfRef with a floating scalar is rejected); the scalars are
 * converted to it first (an integral one it cannot hold is rejected).
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceThresholdGetWorkspaceSize(aclTensor *selfRef, const aclScalar *threshold,
                                                                      const aclScalar *value, uint64_t *workspaceSize,
                                                                      aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vs;
    const cannon_dtype_set dts = cn_dts_InplaceThreshold();
    cannonOpBegin(&op, "aclnnInplaceThreshold", workspaceSize, executor);
    cannonOpNotNulls(&op, "selfRef", selfRef, "threshold", threshold, "value", value, NULL);
    cannonOpTensor(&op, "selfRef", selfRef, dts, &vs);
    const aclScalar *sc[2] = {threshold, value};
    const char *sn[2] = {"threshold", "value"};
    aclDataType ct = vs.dtype;
    for (int k = 0; k < 2 && cannonOpOk(&op); k++) {
        aclDataType t = ACL_DT_UNDEFINED;
        if (!cannonScalarGet(sc[k], &t, NULL))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%s is not a live aclScalar", sn[k]);
        else if (!cannonDtypeIn(t, dts))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%s dtype %s is not supported", sn[k], cannonDtypeName(t));
        else
            ct = cannonDtypePromoteScalar(ct, t);
    }
    if (cannonOpOk(&op) && !cannonDtypeCanCast(ct, vs.dtype))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "result type %s cannot be cast to selfRef dtype %s",
                     cannonDtypeName(ct), cannonDtypeName(vs.dtype));
    ew_args a;
    memset(&a, 0, sizeof a);
    for (int k = 0; k < 2 && cannonOpOk(&op); k++)
        if (!cannon_ew_scalar_to(ct, sc[k], true, &a.prm.d[k], &a.prm.i[k]))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%s value %g cannot be converted to %s without overflow", sn[k],
                         cannonScalarToDouble(sc[k]), cannonDtypeName(ct));
        else
            a.prm.f[k] = (float)a.prm.d[k];
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    a.op = EW_THRESHOLD;
    a.ct = ct;
    a.mode = cannon_ew_mode_of(ct);
    cannon_ew_plan(&op, &a, selfRef, selfRef, NULL, "selfRef", "selfRef", NULL);
    return cannonOpFinish(&op);
}
