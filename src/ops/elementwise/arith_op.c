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

/*
 * One plan for every arithmetic entry point. Exactly one of other / other_s is set. out is the
 * output (selfRef for the in-place forms).
 */
static aclnnStatus arith_plan(const char *api, int kind, const aclTensor *self, const aclTensor *other,
                              const aclScalar *other_s, int scalar_form, const aclScalar *alpha, int has_alpha,
                              const aclTensor *out, int inplace, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *self_name = inplace ? "selfRef" : "self", *out_name = inplace ? "selfRef" : "out";
    cannon_op op;
    cannon_tensor_view vs, vb, vo;
    cannonOpBegin(&op, api, workspaceSize, executor);
    cannonOpNotNull(&op, self_name, self);
    cannonOpNotNull(&op, "other", scalar_form ? (const void *)other_s : (const void *)other);
    if (has_alpha)
        cannonOpNotNull(&op, "alpha", alpha);
    cannonOpNotNull(&op, out_name, out);
    cannonOpTensor(&op, self_name, self, CANNON_DTS_REAL, &vs);
    if (!scalar_form)
        cannonOpTensor(&op, "other", other, CANNON_DTS_REAL, &vb);
    if (!inplace)
        cannonOpTensor(&op, out_name, out, CANNON_DTS_REAL, &vo);
    else
        vo = vs;
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const aclDataType ts = vs.dtype, to = vo.dtype;
    aclDataType tb = ACL_DT_UNDEFINED;
    if (scalar_form) {
        if (!cannonScalarGet(other_s, &tb, NULL))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "other is not a live aclScalar");
    } else {
        tb = vb.dtype;
    }
    const aclDataType pt = scalar_form ? cannonDtypePromoteScalar(ts, tb) : cannonDtypePromote(ts, tb);
    if (pt == ACL_DT_UNDEFINED || (scalar_form && tb == ACL_DT_UNDEFINED))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "no common dtype for %s %s and other %s", self_name,
                     cannonDtypeName(ts), cannonDtypeName(tb));
    if (kind == AR_SUB && (ts == ACL_BOOL || (!scalar_form && tb == ACL_BOOL)))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "subtraction with a BOOL tensor is not supported (as in torch)");
    /* true division: integral types divide in fp32 */
    const aclDataType ct = kind == AR_DIV && !cannonDtypeIn(pt, CANNON_DTS_FLOAT) ? ACL_FLOAT : pt;
    if (cannonOpOk(&op) && !cannonDtypeCanCast(ct, to))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "result type %s cannot be cast to %s dtype %s",
                     cannonDtypeName(ct), out_name, cannonDtypeName(to));
    aclDataType ta = ACL_DT_UNDEFINED;
    if (has_alpha && cannonOpOk(&op)) {
        if (!cannonScalarGet(alpha, &ta, NULL))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "alpha is not a live aclScalar");
        else if (!cannonDtypeIn(ct, CANNON_DTS_FLOAT) &&
                 (cannonDtypeIn(ta, CANNON_DTS_FLOAT) || ta == ACL_COMPLEX64 || ta == ACL_COMPLEX128))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "alpha of dtype %s cannot be cast to the integral result type %s",
                         cannonDtypeName(ta), cannonDtypeName(ct));
        else if (ta == ACL_BOOL && ct != ACL_BOOL)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "a BOOL alpha needs a BOOL result type");
    }
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);

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
        const aclDataType st = cannon_ew_mode_dtype(a.mode);
        a.scalar_b = 1;
        a.dt[2] = st;
        cannon_ew_store_scalar(st, a.mode, cannonScalarToDouble(other_s), cannonScalarToInt64(other_s), a.sval);
    }
    /* in place, the broadcast result must have selfRef's own shape: checked by the plan (out == self) */
    cannon_ew_plan(&op, &a, out, self, scalar_form ? NULL : other, out_name, self_name, "other");
    return cannonOpFinish(&op);
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
    cannon_op op;
    cannon_tensor_view vs, vo;
    cannonOpBegin(&op, "aclnnCast", workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, "out", out, NULL);
    cannonOpTensor(&op, "self", self, cn_dts_Cast(), &vs);
    cannonOpTensor(&op, "out", out, cn_dts_Cast(), &vo);
    if (cannonOpOk(&op) && dtype != vo.dtype)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "dtype %s (%d) differs from out dtype %s", cannonDtypeName(dtype),
                     (int)dtype, cannonDtypeName(vo.dtype));
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const aclDataType ts = vs.dtype, to = vo.dtype;
    ew_args a;
    memset(&a, 0, sizeof a);
    a.op = EW_COPY;
    a.ct = to;
    a.mode = cannon_ew_convert_mode(ts, to);
    cannon_ew_plan(&op, &a, out, self, NULL, "out", "self", NULL);
    return cannonOpFinish(&op);
}
