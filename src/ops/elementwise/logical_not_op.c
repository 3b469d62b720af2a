/*
 * aclnnLogicalNot / aclnnInplaceLogicalNot: out = (self == 0), written as 1 or 0 in out's dtype.
 *
 * The test is the elementwise framework's EW_EQ against a zero scalar, computed in self's own
 * family (fp32 for FLOAT, FLOAT16 and BFLOAT16, fp64, int64 or bool), so -0.0 is zero, NaN is
 * not, and fp32 / fp16 / bf16 inputs with a BOOL out take the tier's vector comparison. The
 * result converts to any real out dtype.
 */
#include <string.h>

#include "aclnnop/aclnn_logical_not.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "ew_kernels.h"

static aclnnStatus logical_not_plan(const char *api, const aclTensor *self, const aclTensor *out, int inplace,
                                    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *sn = inplace ? "selfRef" : "self", *on = inplace ? "selfRef" : "out";
    cannon_op op;
    cannon_tensor_view vs, vo;
    cannonOpBegin(&op, api, workspaceSize, executor);
    if (inplace)
        cannonOpNotNulls(&op, sn, self, NULL);
    else
        cannonOpNotNulls(&op, sn, self, on, out, NULL);
    cannonOpTensor(&op, sn, self, cn_dts_LogicalNot(), &vs);
    if (!inplace)
        cannonOpTensor(&op, on, out, cn_dts_LogicalNot(), &vo);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    ew_args a;
    memset(&a, 0, sizeof a);
    a.op = EW_EQ;
    a.ct = vs.dtype;
    a.mode = cannon_ew_mode_of(vs.dtype);
    const aclDataType ss = cannon_ew_mode_dtype(a.mode);
    a.scalar_b = 1;
    a.dt[2] = ss;
    cannon_ew_store_scalar(ss, a.mode, 0.0, 0, a.sval);
    cannon_ew_plan(&op, &a, out, self, NULL, on, sn, NULL);
    return cannonOpFinish(&op);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnLogicalNotGetWorkspaceSize(const aclTensor *self, aclTensor *out,
                                                                uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return logical_not_plan("aclnnLogicalNot", self, out, 0, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceLogicalNotGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize,
                                                                       aclOpExecutor **executor)
{
    return logical_not_plan("aclnnInplaceLogicalNot", selfRef, selfRef, 1, workspaceSize, executor);
}
