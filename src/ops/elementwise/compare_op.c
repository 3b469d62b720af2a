/*
 * aclnnGtScalar (out = self > other) and aclnnEqTensor (out = self == other, broadcasting): the
 * comparisons, 1 or 0 written in out's dtype (BOOL, or any other: BOOL casts to every type).
 *
 * Both compare in the promoted type, as torch: self with the scalar (the scalar only raises the
 * category: INT32 > 2.5 compares in FLOAT) or the two tensors. The scalar is converted to that type
 * first, as torch converts it (rounded to a 16-bit float, wrapped to a narrower integer: an INT8
 * tensor compares against 300 as against 44). NaN compares unequal and not greater. fp32 / fp16 /
 * bf16 inputs of the promoted type with a BOOL out take the vector loops (bytes written directly);
 * other combinations the framework's generic path. The unsigned types CANN lists besides torch's
 * (UINT16, UINT32, UINT64) compare exactly: see compare_type.
 */
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_eq_tensor.h"
#include "aclnnop/aclnn_gt_scalar.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "ew_kernels.h"

#define DTS_UNSIGNED (CANNON_DT(ACL_UINT16) | CANNON_DT(ACL_UINT32) | CANNON_DT(ACL_UINT64))
/* what out may be: every real type and the unsigned ones (1 and 0 fit them all) */
#define DTS_OUT (CANNON_DTS_REAL | DTS_UNSIGNED)

/*
 * The comparison type of @p a with @p b (ACL_DT_UNDEFINED: not comparable). torch's promotion for
 * its own types; the unsigned types outside its lattice compare exactly: UINT16 / UINT32 with an
 * integral or BOOL type in INT64, with a floating type in DOUBLE; UINT64 only with UINT64 (in
 * INT64: equality of the bit patterns).
 */
static aclDataType compare_type(aclDataType a, aclDataType b)
{
    const bool ua = cannonDtypeIn(a, DTS_UNSIGNED), ub = cannonDtypeIn(b, DTS_UNSIGNED);
    if (!ua && !ub)
        return cannonDtypePromote(a, b);
    if (a == ACL_UINT64 || b == ACL_UINT64)
        return a == b ? ACL_INT64 : ACL_DT_UNDEFINED;
    return cannonDtypeIn(a, CANNON_DTS_FLOAT) || cannonDtypeIn(b, CANNON_DTS_FLOAT) ? ACL_DOUBLE : ACL_INT64;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnGtScalarGetWorkspaceSize(const aclTensor *self, const aclScalar *other,
                                                              aclTensor *out, uint64_t *workspaceSize,
                                                              aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vs, vo;
    cannonOpBegin(&op, "aclnnGtScalar", workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, "other", other, "out", out, NULL);
    cannonOpTensor(&op, "self", self, cn_dts_GtScalar(), &vs);
    cannonOpTensor(&op, "out", out, DTS_OUT, &vo);
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
    /* an unsigned self compares in INT64 with an integral or BOOL scalar (a UINT64 above INT64_MAX
       is greater than all of them: the generic path's rule), in DOUBLE with a floating one */
    a.ct = cannonDtypeIn(vs.dtype, DTS_UNSIGNED) ? (cannonDtypeIn(st, CANNON_DTS_FLOAT) ? ACL_DOUBLE : ACL_INT64)
                                                 : cannonDtypePromoteScalar(vs.dtype, st);
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
    cannonOpTensor(&op, "out", out, DTS_OUT, &vo);
    const aclDataType ct = cannonOpOk(&op) ? compare_type(vs.dtype, vb.dtype) : ACL_DT_UNDEFINED;
    if (cannonOpOk(&op) && ct == ACL_DT_UNDEFINED)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "self dtype %s and other dtype %s do not compare (UINT64 only "
                     "with UINT64)", cannonDtypeName(vs.dtype), cannonDtypeName(vb.dtype));
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    ew_args a;
    memset(&a, 0, sizeof a);
    a.op = EW_EQ;
    a.ct = ct;
    a.mode = cannon_ew_mode_of((aclDataType)a.ct);
    cannon_ew_plan(&op, &a, out, self, other, "out", "self", "other");
    return cannonOpFinish(&op);
}
