/*
 * aclnnPowScalarTensor (out = self ** exponent, self a scalar) and aclnnInplacePowTensorTensor
 * (self = self ** exponent, exponent broadcast to self's shape).
 *
 * The power is computed in the promoted type, as torch: the scalar base with the exponent tensor
 * (the scalar only raises the category: 2.0 ** INT32 computes in FLOAT), or the two tensors; the
 * result must cast to out (to self in place: INT32 ** FLOAT is rejected). A scalar base is first
 * converted to that type. Floating powers follow C's pow (pow(x, 0) = 1 and pow(1, y) = 1 even for
 * NaN, a negative base with a fractional exponent gives NaN), evaluated in double and rounded
 * once (fp32, fp16, bf16) or in double (DOUBLE); integral powers wrap like torch's, and a negative
 * integral exponent gives 0 except for the bases 1 and -1.
 */
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_pow.h"
#include "aclnnop/aclnn_pow_tensor_tensor.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "ew_kernels.h"

ACL_FUNC_VISIBILITY aclnnStatus aclnnPowScalarTensorGetWorkspaceSize(const aclScalar *self, const aclTensor *exponent,
                                                                     const aclTensor *out, uint64_t *workspaceSize,
                                                                     aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view ve, vo;
    const cannon_dtype_set dts = cn_dts_PowScalarTensor();
    cannonOpBegin(&op, "aclnnPowScalarTensor", workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, "exponent", exponent, "out", out, NULL);
    cannonOpTensor(&op, "exponent", exponent, dts, &ve);
    cannonOpTensor(&op, "out", out, CANNON_DTS_REAL, &vo);
    aclDataType st = ACL_DT_UNDEFINED;
    if (cannonOpOk(&op) && !cannonScalarGet(self, &st, NULL))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "self is not a live aclScalar");
    else if (cannonOpOk(&op) && !cannonDtypeIn(st, dts))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "self dtype %s is not supported", cannonDtypeName(st));
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    ew_args a;
    memset(&a, 0, sizeof a);
    a.op = EW_RPOW;
    a.ct = cannonDtypePromoteScalar(ve.dtype, st);
    a.mode = cannon_ew_mode_of((aclDataType)a.ct);
    if (!cannonDtypeCanCast((aclDataType)a.ct, vo.dtype)) {
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "result type %s cannot be cast to out dtype %s",
                     cannonDtypeName((aclDataType)a.ct), cannonDtypeName(vo.dtype));
        return cannonOpFinish(&op);
    }
    double d;
    int64_t i;
    cannon_ew_scalar_to((aclDataType)a.ct, self, false, &d, &i);
    const aclDataType ss = cannon_ew_mode_dtype(a.mode); /* never BOOL: neither operand may be */
    a.scalar_b = 1;
    a.dt[2] = ss;
    cannon_ew_store_scalar(ss, a.mode, d, i, a.sval);
    cannon_ew_plan(&op, &a, out, exponent, NULL, "out", "exponent", NULL);
    return cannonOpFinish(&op);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplacePowTensorTensorGetWorkspaceSize(const aclTensor *self,
                                                                            const aclTensor *exponent,
                                                                            uint64_t *workspaceSize,
                                                                            aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vs, ve;
    const cannon_dtype_set dts = cn_dts_InplacePowTensorTensor();
    cannonOpBegin(&op, "aclnnInplacePowTensorTensor", workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, "exponent", exponent, NULL);
    cannonOpTensor(&op, "self", self, dts, &vs);
    cannonOpTensor(&op, "exponent", exponent, dts, &ve);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    ew_args a;
    memset(&a, 0, sizeof a);
    a.op = EW_POW;
    a.ct = cannonDtypePromote(vs.dtype, ve.dtype);
    a.mode = cannon_ew_mode_of((aclDataType)a.ct);
    if (!cannonDtypeCanCast((aclDataType)a.ct, vs.dtype)) {
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "result type %s cannot be cast to self dtype %s",
                     cannonDtypeName((aclDataType)a.ct), cannonDtypeName(vs.dtype));
        return cannonOpFinish(&op);
    }
    /* the broadcast result must have self's own shape: checked by the plan (out == self) */
    cannon_ew_plan(&op, &a, self, self, exponent, "self", "self", "exponent");
    return cannonOpFinish(&op);
}
