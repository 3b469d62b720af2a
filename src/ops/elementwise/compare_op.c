/*
 * aclnnGtScalar (out = self > other) and aclnnEqTensor (out = self == other, broadcasting): the
 * comparisons, 1 or 0 written in out's dtype (BOOL, or any other: BOOL casts to every type).
 *
 * Both compare in the promoted type, as torch: self with the scalar (the scalar only raises the
 * category: INT32 > 2.5 compares in FLOAT) or the two tensors. The scalar is converted to that type
 * first, as torch converts it (rounded to a 16-bit float, wrapped to a narrower integer: an INT8
 * tensor compares against 300 as against 44). NaN compares unequal and not greater. fp32 / fp16 /
 * bf16 inputs of the promoted type with a BOOL out take the vector loops (bytes written directly);
 * other combinations the framework's generic path.
 */
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_eq_tensor.h"
#include "aclnnop/aclnn_gt_scalar.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "ew_kernels.h"

ACL_FUNC_VISIBILITY aclnnStatus aclnnGtScalarGetWorkspaceSize(const aclTensor *self, const aclScalar *other,
                                                              aclTensor *out, uint64_t *workspaceSize,
                                                              aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vs, vo;
    cannonOpBegin(&op, "aclnnGtScalar", workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, "other", other, "out", out, NULL);
    cannonOpTensor(&op, "self", self, cn_dts_GtScalar(), &vs);
    cannonOpTensor(&op, "out", out, CANNON_DTS_REAL, &vo);
    aclDataType st = ACL_DT_UNDEFINED;
    if (cannonOpOk(&op) && !cannonScalarGet(other, &st, NULL))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "other is not a live aclScalar");
    else if (cannonOpOk(&op) && !cannonDtypeIn(st, CANNON_DTS_REAL))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "other dtype %s is not supported", cannonDtypeName(st));
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    ew_args a;
    memset(&a, 0, sizeof a);
    a.op = EW_GT;
    a.ct = cannonDtypePromoteScalar(vs.dtype, st);
    a.mode = cannon_ew_mode_of((aclDataType)a.ct);
    double d;
    int64_t i;
    cannon_ew_scalar_to((aclDataType)a.ct, other, false, &d, &i);
    /* the scalar in the compute family's storage type: fp32, fp64, int64 or bool */
    const aclDataType ss = cannon_ew_mode_dtype(a.mode);
    a.scalar_b = 1;
    a.dt[2] = ss;
    cannon_ew_store_scalar(ss, a.mode, d, i, a.sval);
    cannon_ew_plan(&op, &a, out, self, NULL, "out", "self", NULL);
    return cannonOpFinish(&op);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnEqTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
                                                              aclTensor *out, uint64_t *workspaceSize,
                                                              aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vs, vb, vo;
    cannonOpBegin(&op, "aclnnEqTensor", workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, "other", other, "out", out, NULL);
    cannonOpTensor(&op, "self", self, cn_dts_EqTensor(), &vs);
    cannonOpTensor(&op, "other", other, cn_dts_EqTensor(), &vb);
    cannonOpTensor(&op, "out", out, CANNON_DTS_REAL, &vo);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    ew_args a;
    memset(&a, 0, sizeof a);
    a.op = EW_EQ;
    a.ct = cannonDtypePromote(vs.dtype, vb.dtype);
    a.mode = cannon_ew_mode_of((aclDataType)a.ct);
    cannon_ew_plan(&op, &a, out, self, other, "out", "self", "other");
    return cannonOpFinish(&op);
}
