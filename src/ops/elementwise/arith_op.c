/*
 * aclnnAdd / Adds / Sub / Subs / Mul / Muls / Div / Divs and their in-place forms, and aclnnCast.
 *
 * Phase 1 resolves the dtypes as torch does: the common (promoted) type of the two tensors, or of
 * the tensor and a scalar (a scalar only raises the category: int tensor + float scalar -> FLOAT,
 * fp16 tensor + float scalar -> FLOAT16), true division in FLOAT for integral types, and checks
 * that the result can be cast to the output. The arithmetic itself runs in the common type's
 * family (fp32 for the 16/32-bit floats, fp64, int64 wrapped to the common width, or bool) through
 * the elementwise framework (ew_plan.c). A scalar operand travels in the kernel arguments, already
 * converted to the compute type (fp32 for 16-bit floats, as torch keeps scalars in its op math type).
 */
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_div.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_sub.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "ew_kernels.h"

enum ar_kind { AR_ADD, AR_SUB, AR_MUL, AR_DIV };

static aclDataType tensor_dtype(const aclTensor *t)
{
    cannon_tensor_view v;
    return cannonTensorGetView(t, &v) ? v.dtype : ACL_DT_UNDEFINED;
}

/*
 * One plan for every arithmetic entry point. Exactly one of other / other_s is set. out is the
 * output (selfRef for the in-place forms).
 */
static aclnnStatus arith_plan(const char *api, int kind, const aclTensor *self, const aclTensor *other,
                              const aclScalar *other_s, int scalar_form, const aclScalar *alpha, int has_alpha,
                              const aclTensor *out, int inplace, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *self_name = inplace ? "selfRef" : "self";
    if (!self)
        return cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL", api, self_name);
    if (scalar_form ? !other_s : !other)
        return cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "%s: other is NULL", api);
    if (has_alpha && !alpha)
        return cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "%s: alpha is NULL", api);
    if (!out)
        return cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "%s: out is NULL", api);
    if (!workspaceSize || !executor)
        return cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL", api,
                                 !workspaceSize ? "workspaceSize" : "executor");
    const aclDataType ts = tensor_dtype(self), to = tensor_dtype(out);
    if (ts == ACL_DT_UNDEFINED || to == ACL_DT_UNDEFINED || (other && tensor_dtype(other) == ACL_DT_UNDEFINED))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: a tensor argument is not a live aclTensor, or its view is too large", api);
    if (!cannon_ew_esize(ts))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: %s dtype %s (%d) is not supported", api, self_name,
                                 cannon_ew_dtype_name(ts), (int)ts);
    if (!cannon_ew_esize(to))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: out dtype %s (%d) is not supported", api,
                                 cannon_ew_dtype_name(to), (int)to);
    aclDataType tb;
    if (scalar_form) {
        if (!cannonScalarGet(other_s, &tb, NULL))
            return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: other is not a live aclScalar", api);
    } else {
        tb = tensor_dtype(other);
    }
    const aclDataType pt = scalar_form ? cannon_ew_promote_scalar(ts, tb) : cannon_ew_promote(ts, tb);
    if (pt == ACL_DT_UNDEFINED || (scalar_form && tb == ACL_DT_UNDEFINED))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: no common dtype for %s %s and other %s", api, self_name,
                                 cannon_ew_dtype_name(ts), cannon_ew_dtype_name(tb));
    if (kind == AR_SUB && (ts == ACL_BOOL || (!scalar_form && tb == ACL_BOOL)))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID,
                                 "%s: subtraction with a BOOL tensor is not supported (as in torch)", api);
    /* true division: integral types divide in fp32 */
    const aclDataType ct = kind == AR_DIV && !cannon_ew_is_float(pt) ? ACL_FLOAT : pt;
    if (!cannon_ew_can_cast(ct, to))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: result type %s cannot be cast to %s dtype %s", api,
                                 cannon_ew_dtype_name(ct), inplace ? "selfRef" : "out", cannon_ew_dtype_name(to));
    aclDataType ta = ACL_DT_UNDEFINED;
    if (has_alpha) {
        if (!cannonScalarGet(alpha, &ta, NULL))
            return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: alpha is not a live aclScalar", api);
        if (!cannon_ew_is_float(ct) && (cannon_ew_is_float(ta) || ta == ACL_COMPLEX64 || ta == ACL_COMPLEX128))
            return cannonReportError(ACLNN_ERR_PARAM_INVALID,
                                     "%s: alpha of dtype %s cannot be cast to the integral result type %s", api,
                                     cannon_ew_dtype_name(ta), cannon_ew_dtype_name(ct));
        if (ta == ACL_BOOL && ct != ACL_BOOL)
            return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: a BOOL alpha needs a BOOL result type", api);
    }

    ew_args a;
    memset(&a, 0, sizeof a);
    a.mode = cannon_ew_mode_of(ct);
    a.ct = ct;
    a.op = kind == AR_ADD || kind == AR_SUB ? EW_ADD : kind == AR_MUL ? EW_MUL : EW_DIV;
    double al = has_alpha ? cannonScalarToDouble(alpha) : 1.0;
    int64_t ali = has_alpha ? cannonScalarToInt64(alpha) : 1;
    if (kind == AR_SUB) {
        al = -al;
        ali = (int64_t)(0 - (uint64_t)ali);
    }
    a.prm.alpha = (float)al;
    a.prm.alpha_d = al;
    a.prm.alpha_i = ali;
    if (scalar_form) {
        /* the scalar in the compute family's storage type: fp32, fp64, int64 or bool */
        const aclDataType st = a.mode == EW_MODE_F32 ? ACL_FLOAT : a.mode == EW_MODE_F64 ? ACL_DOUBLE
                               : a.mode == EW_MODE_I64 ? ACL_INT64 : ACL_BOOL;
        a.scalar_b = 1;
        a.dt[2] = st;
        cannon_ew_store_scalar(st, a.mode, cannonScalarToDouble(other_s), cannonScalarToInt64(other_s), a.sval);
    }
    if (inplace) {
        /* the broadcast result must have selfRef's own shape: checked by the plan (out == self) */
    }
    return cannon_ew_plan(api, &a, out, self, scalar_form ? NULL : other, inplace ? "selfRef" : "out",
                          self_name, "other", workspaceSize, executor);
}

/* ---- Add ---- */
ACL_FUNC_VISIBILITY aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
                                                         const aclScalar *alpha, aclTensor *out,
                                                         uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return arith_plan("aclnnAdd", AR_ADD, self, other, NULL, 0, alpha, 1, out, 0, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceAddGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *other,
                                                                const aclScalar *alpha, uint64_t *workspaceSize,
                                                                aclOpExecutor **executor)
{
    return arith_plan("aclnnInplaceAdd", AR_ADD, selfRef, other, NULL, 0, alpha, 1, selfRef, 1, workspaceSize,
                      executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnAddsGetWorkspaceSize(const aclTensor *self, const aclScalar *other,
                                                          const aclScalar *alpha, aclTensor *out,
                                                          uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return arith_plan("aclnnAdds", AR_ADD, self, NULL, other, 1, alpha, 1, out, 0, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceAddsGetWorkspaceSize(const aclTensor *selfRef, const aclScalar *other,
                                                                 const aclScalar *alpha, uint64_t *workspaceSize,
                                                                 aclOpExecutor **executor)
{
    return arith_plan("aclnnInplaceAdds", AR_ADD, selfRef, NULL, other, 1, alpha, 1, selfRef, 1, workspaceSize,
                      executor);
}

/* ---- Sub ---- */
ACL_FUNC_VISIBILITY aclnnStatus aclnnSubGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
                                                         const aclScalar *alpha, aclTensor *out,
                                                         uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return arith_plan("aclnnSub", AR_SUB, self, other, NULL, 0, alpha, 1, out, 0, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceSubGetWorkspaceSize(aclTensor *selfRef, const aclTensor *other,
                                                                const aclScalar *alpha, uint64_t *workspaceSize,
                                                                aclOpExecutor **executor)
{
    return arith_plan("aclnnInplaceSub", AR_SUB, selfRef, other, NULL, 0, alpha, 1, selfRef, 1, workspaceSize,
                      executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnSubsGetWorkspaceSize(const aclTensor *self, const aclScalar *other,
                                                          const aclScalar *alpha, aclTensor *out,
                                                          uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return arith_plan("aclnnSubs", AR_SUB, self, NULL, other, 1, alpha, 1, out, 0, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceSubsGetWorkspaceSize(aclTensor *selfRef, const aclScalar *other,
                                                                 const aclScalar *alpha, uint64_t *workspaceSize,
                                                                 aclOpExecutor **executor)
{
    return arith_plan("aclnnInplaceSubs", AR_SUB, selfRef, NULL, other, 1, alpha, 1, selfRef, 1, workspaceSize,
                      executor);
}

/* ---- Mul ---- */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMulGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
                                                         uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return arith_plan("aclnnMul", AR_MUL, self, other, NULL, 0, NULL, 0, out, 0, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnMulsGetWorkspaceSize(const aclTensor *self, const aclScalar *other,
                                                          aclTensor *out, uint64_t *workspaceSize,
                                                          aclOpExecutor **executor)
{
    return arith_plan("aclnnMuls", AR_MUL, self, NULL, other, 1, NULL, 0, out, 0, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceMulGetWorkspaceSize(aclTensor *selfRef, const aclTensor *other,
                                                                uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return arith_plan("aclnnInplaceMul", AR_MUL, selfRef, other, NULL, 0, NULL, 0, selfRef, 1, workspaceSize,
                      executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceMulsGetWorkspaceSize(aclTensor *selfRef, const aclScalar *other,
                                                                 uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return arith_plan("aclnnInplaceMuls", AR_MUL, selfRef, NULL, other, 1, NULL, 0, selfRef, 1, workspaceSize,
                      executor);
}

/* ---- Div ---- */
ACL_FUNC_VISIBILITY aclnnStatus aclnnDivGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
                                                         uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return arith_plan("aclnnDiv", AR_DIV, self, other, NULL, 0, NULL, 0, out, 0, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnDivsGetWorkspaceSize(const aclTensor *self, const aclScalar *other,
                                                          aclTensor *out, uint64_t *workspaceSize,
                                                          aclOpExecutor **executor)
{
    return arith_plan("aclnnDivs", AR_DIV, self, NULL, other, 1, NULL, 0, out, 0, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceDivGetWorkspaceSize(aclTensor *selfRef, const aclTensor *other,
                                                                uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return arith_plan("aclnnInplaceDiv", AR_DIV, selfRef, other, NULL, 0, NULL, 0, selfRef, 1, workspaceSize,
                      executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceDivsGetWorkspaceSize(aclTensor *selfRef, const aclScalar *other,
                                                                 uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return arith_plan("aclnnInplaceDivs", AR_DIV, selfRef, NULL, other, 1, NULL, 0, selfRef, 1, workspaceSize,
                      executor);
}

/* ---- Cast ---- */
ACL_FUNC_VISIBILITY aclnnStatus aclnnCastGetWorkspaceSize(const aclTensor *self, const aclDataType dtype,
                                                          aclTensor *out, uint64_t *workspaceSize,
                                                          aclOpExecutor **executor)
{
    const char *api = "aclnnCast";
    if (!self || !out || !workspaceSize || !executor)
        return cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL", api,
                                 !self ? "self" : !out ? "out" : !workspaceSize ? "workspaceSize" : "executor");
    const aclDataType ts = tensor_dtype(self), to = tensor_dtype(out);
    if (ts == ACL_DT_UNDEFINED || to == ACL_DT_UNDEFINED)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: a tensor argument is not a live aclTensor, or its view is too large", api);
    if (!cannon_ew_esize(ts) || !cannon_ew_esize(to))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: cast from %s (%d) to %s (%d) is not supported", api,
                                 cannon_ew_dtype_name(ts), (int)ts, cannon_ew_dtype_name(to), (int)to);
    if (dtype != to)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: dtype %s (%d) differs from out dtype %s", api,
                                 cannon_ew_dtype_name(dtype), (int)dtype, cannon_ew_dtype_name(to));
    ew_args a;
    memset(&a, 0, sizeof a);
    a.op = EW_COPY;
    a.ct = to;
    /* the narrowest family that converts exactly: fp32 between the 16/32-bit floats, int64 among
     * integers and bools, fp64 for everything else (rounding to 16-bit floats from fp64 goes
     * through round-to-odd, so it is still one correct rounding) */
    const int fs = cannon_ew_is_float(ts), fo = cannon_ew_is_float(to);
    if (fs && fo && ts != ACL_DOUBLE && to != ACL_DOUBLE)
        a.mode = EW_MODE_F32;
    else if (!fs && !fo)
        a.mode = EW_MODE_I64;
    else
        a.mode = EW_MODE_F64;
    return cannon_ew_plan(api, &a, out, self, NULL, "out", "self", NULL, workspaceSize, executor);
}
