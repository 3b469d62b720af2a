/*
 * aclnnClamp, aclnnClampMin and aclnnInplaceClampMax: out = min(max(self, min), max), a bound
 * left out (NULL) where the operator has none.
 *
 * dtypes as torch's clamp: the result type is self's promoted with each bound present (a
 * floating bound makes an integral self compute in FLOAT), and it must cast to out (selfRef for
 * the in-place form). The bounds are converted to that type first (rounded to a 16-bit float;
 * an integral bound it cannot hold is rejected, as torch rejects it). min > max gives max
 * everywhere (the max is applied last, as CANN's kernel and torch do). A NaN self element stays
 * NaN; a NaN bound makes every element NaN (CANN's reference computes with NaN-propagating
 * maximum/minimum; torch 1.13's CPU kernels ignore a NaN bound on some paths and not others).
 * The arithmetic is the elementwise framework's EW_CLAMP.
 */
#include <math.h>
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_clamp.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "ew_kernels.h"

static aclnnStatus clamp_plan(const char *api, cannon_dtype_set dts, const aclTensor *self, const aclScalar *lo,
                              const aclScalar *hi, int has_lo, int has_hi, const aclTensor *out, int inplace,
                              uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *self_name = inplace ? "selfRef" : "self";
    cannon_op op;
    cannon_tensor_view vs, vo;
    cannonOpBegin(&op, api, workspaceSize, executor);
    cannonOpNotNull(&op, self_name, self);
    if (has_lo && !has_hi)
        cannonOpNotNull(&op, "clipValueMin", lo);
    if (has_hi && !has_lo)
        cannonOpNotNull(&op, "clipValueMax", hi);
    if (!inplace)
        cannonOpNotNull(&op, "out", out);
    if (has_lo && has_hi && !lo && !hi && cannonOpOk(&op))
        cannonOpFail(&op, ACLNN_ERR_PARAM_NULLPTR, "clipValueMin and clipValueMax are both NULL");
    cannonOpTensor(&op, self_name, self, dts, &vs);
    if (!inplace)
        cannonOpTensor(&op, "out", out, dts, &vo);
    else
        vo = vs;
    const aclScalar *bound[2] = {has_lo ? lo : NULL, has_hi ? hi : NULL};
    const char *bname[2] = {"clipValueMin", "clipValueMax"};
    aclDataType bt[2] = {ACL_DT_UNDEFINED, ACL_DT_UNDEFINED};
    for (int k = 0; k < 2 && cannonOpOk(&op); k++) {
        if (!bound[k])
            continue;
        if (!cannonScalarGet(bound[k], &bt[k], NULL))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%s is not a live aclScalar", bname[k]);
        else if (!cannonDtypeIn(bt[k], CANNON_DTS_REAL))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%s dtype %s is not supported", bname[k],
                         cannonDtypeName(bt[k]));
    }
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    aclDataType ct = vs.dtype;
    for (int k = 0; k < 2; k++)
        if (bound[k])
            ct = cannonDtypePromoteScalar(ct, bt[k]);
    if (!cannonDtypeCanCast(ct, vo.dtype)) {
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "result type %s cannot be cast to %s dtype %s", cannonDtypeName(ct),
                     inplace ? "selfRef" : "out", cannonDtypeName(vo.dtype));
        return cannonOpFinish(&op);
    }
    ew_args a;
    memset(&a, 0, sizeof a);
    a.op = EW_CLAMP;
    a.ct = ct;
    a.mode = cannon_ew_mode_of(ct);
    int nan_bound = 0;
    for (int k = 0; k < 2; k++) {
        double d = k ? INFINITY : -INFINITY;
        int64_t i = k ? INT64_MAX : INT64_MIN;
        if (bound[k] && !cannon_ew_scalar_to(ct, bound[k], true, &d, &i)) {
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%s value %g cannot be converted to %s without overflow",
                         bname[k], cannonScalarToDouble(bound[k]), cannonDtypeName(ct));
            return cannonOpFinish(&op);
        }
        nan_bound |= d != d;
        a.prm.d[k] = d;
        a.prm.f[k] = (float)d;
        a.prm.i[k] = i;
    }
    if (nan_bound) { /* every element NaN */
        a.op = EW_FILL;
        a.mode = EW_MODE_RAW;
        cannon_ew_store_scalar(vo.dtype, EW_MODE_F64, NAN, 0, a.sval);
    }
    cannon_ew_plan(&op, &a, out, self, NULL, inplace ? "selfRef" : "out", self_name, NULL);
    return cannonOpFinish(&op);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnClampGetWorkspaceSize(const aclTensor *self, const aclScalar *clipValueMin,
                                                           const aclScalar *clipValueMax, aclTensor *out,
                                                           uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return clamp_plan("aclnnClamp", cn_dts_Clamp(), self, clipValueMin, clipValueMax, 1, 1, out, 0, workspaceSize,
                      executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnClampMinGetWorkspaceSize(const aclTensor *self, const aclScalar *clipValueMin,
                                                              aclTensor *out, uint64_t *workspaceSize,
                                                              aclOpExecutor **executor)
{
    return clamp_plan("aclnnClampMin", cn_dts_ClampMin(), self, clipValueMin, NULL, 1, 0, out, 0, workspaceSize,
                      executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceClampMaxGetWorkspaceSize(const aclTensor *selfRef,
                                                                     const aclScalar *clipValueMax,
                                                                     uint64_t *workspaceSize,
                                                                     aclOpExecutor **executor)
{
    return clamp_plan("aclnnInplaceClampMax", cn_dts_InplaceClampMax(), selfRef, NULL, clipValueMax, 0, 1, selfRef,
                      1, workspaceSize, executor);
}
