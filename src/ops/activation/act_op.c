/*
 * aclnnRelu / InplaceRelu, aclnnThresholdBackward, aclnnGelu, aclnnGeluV2, aclnnGeluBackward,
 * aclnnSilu, aclnnSiluBackward: argument checks, then the shared elementwise framework
 * (src/ops/elementwise) whose kernels hold the activation math (ew_impl.h: fp32 for the 16/32-bit
 * floats, fp64 for DOUBLE).
 */
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_gelu.h"
#include "aclnnop/aclnn_gelu_backward.h"
#include "aclnnop/aclnn_gelu_v2.h"
#include "aclnnop/aclnn_relu.h"
#include "aclnnop/aclnn_silu.h"
#include "aclnnop/aclnn_silu_backward.h"
#include "aclnnop/aclnn_threshold_backward.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "../elementwise/ew_kernels.h"

static aclDataType tensor_dtype(const aclTensor *t)
{
    cannon_tensor_view v;
    return cannonTensorGetView(t, &v) ? v.dtype : ACL_DT_UNDEFINED;
}

/* Unary floating activations (Gelu, GeluV2, Silu): self floating, out floating of self's shape. */
static aclnnStatus unary_float(const char *api, int op, const aclTensor *self, const aclTensor *out,
                               const char *in_name, const char *out_name, uint64_t *workspaceSize,
                               aclOpExecutor **executor)
{
    if (!self || !out || !workspaceSize || !executor)
        return cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL", api,
                                 !self ? in_name : !out ? out_name : !workspaceSize ? "workspaceSize" : "executor");
    const aclDataType ts = tensor_dtype(self), to = tensor_dtype(out);
    if (ts == ACL_DT_UNDEFINED || to == ACL_DT_UNDEFINED)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: a tensor argument is not a live aclTensor, or its view is too large", api);
    if (!cannon_ew_is_float(ts))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID,
                                 "%s: %s dtype %s is not supported (FLOAT, FLOAT16, BFLOAT16, DOUBLE)", api, in_name,
                                 cannon_ew_dtype_name(ts));
    if (!cannon_ew_is_float(to))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: %s dtype %s is not a floating type", api, out_name,
                                 cannon_ew_dtype_name(to));
    ew_args a;
    memset(&a, 0, sizeof a);
    a.op = op;
    a.ct = ts;
    a.mode = cannon_ew_mode_of(ts);
    return cannon_ew_plan(api, &a, out, self, NULL, out_name, in_name, NULL, workspaceSize, executor);
}

/* Binary backward activations: grad and x broadcast, promoted floating type castable to out. */
static aclnnStatus binary_bwd(const char *api, int op, const aclTensor *grad, const aclTensor *x,
                              const aclScalar *thr, int has_thr, const aclTensor *out, uint64_t *workspaceSize,
                              aclOpExecutor **executor)
{
    const char *out_name = op == EW_THRESH_BWD ? "out" : "gradInput";
    if (!grad || !x || (has_thr && !thr) || !out || !workspaceSize || !executor)
        return cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL", api,
                                 !grad ? "gradOutput" : !x ? "self" : (has_thr && !thr) ? "threshold"
                                 : !out ? out_name : !workspaceSize ? "workspaceSize" : "executor");
    const aclDataType tg = tensor_dtype(grad), tx = tensor_dtype(x), to = tensor_dtype(out);
    if (tg == ACL_DT_UNDEFINED || tx == ACL_DT_UNDEFINED || to == ACL_DT_UNDEFINED)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: a tensor argument is not a live aclTensor, or its view is too large", api);
    const int ints_ok = op == EW_THRESH_BWD;
    const int g_ok = cannon_ew_is_float(tg) || (ints_ok && cannon_ew_is_integral(tg));
    const int x_ok = cannon_ew_is_float(tx) || (ints_ok && cannon_ew_is_integral(tx));
    if (!g_ok || !x_ok)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: %s dtype %s is not supported", api,
                                 !g_ok ? "gradOutput" : "self", cannon_ew_dtype_name(!g_ok ? tg : tx));
    const aclDataType pt = cannon_ew_promote(tg, tx);
    if (!cannon_ew_esize(to) || !cannon_ew_can_cast(pt, to))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: result type %s cannot be cast to %s dtype %s", api,
                                 cannon_ew_dtype_name(pt), out_name, cannon_ew_dtype_name(to));
    ew_args a;
    memset(&a, 0, sizeof a);
    a.op = op;
    a.ct = pt;
    a.mode = cannon_ew_mode_of(pt);
    if (has_thr) {
        aclDataType tt;
        if (!cannonScalarGet(thr, &tt, NULL))
            return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: threshold is not a live aclScalar", api);
        const double t = cannonScalarToDouble(thr);
        a.prm.thr_d = t;
        /* the threshold in the compute type, as torch converts it: a fractional threshold with
         * integer data compares against its truncation */
        a.prm.thr = (float)t;
        a.prm.thr_i = cannonScalarToInt64(thr);
    }
    return cannon_ew_plan(api, &a, out, grad, x, out_name, "gradOutput", "self", workspaceSize, executor);
}

/* ---- Relu ---- */
static aclnnStatus relu_plan(const char *api, const aclTensor *self, const aclTensor *out, int inplace,
                             uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *in_name = inplace ? "selfRef" : "self";
    if (!self || !out || !workspaceSize || !executor)
        return cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL", api,
                                 !self ? in_name : !out ? "out" : !workspaceSize ? "workspaceSize" : "executor");
    const aclDataType ts = tensor_dtype(self), to = tensor_dtype(out);
    if (ts == ACL_DT_UNDEFINED || to == ACL_DT_UNDEFINED)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: a tensor argument is not a live aclTensor, or its view is too large", api);
    if (!cannon_ew_is_float(ts) && !cannon_ew_is_integral(ts))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID,
                                 "%s: %s dtype %s is not supported (floating or integral types)", api, in_name,
                                 cannon_ew_dtype_name(ts));
    if (to != ts)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: out dtype %s differs from self dtype %s", api,
                                 cannon_ew_dtype_name(to), cannon_ew_dtype_name(ts));
    ew_args a;
    memset(&a, 0, sizeof a);
    a.op = EW_RELU;
    a.ct = ts;
    a.mode = cannon_ew_mode_of(ts);
    return cannon_ew_plan(api, &a, out, self, NULL, inplace ? "selfRef" : "out", in_name, NULL, workspaceSize,
                          executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnReluGetWorkspaceSize(const aclTensor *self, const aclTensor *out,
                                                          uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return relu_plan("aclnnRelu", self, out, 0, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceReluGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize,
                                                                 aclOpExecutor **executor)
{
    return relu_plan("aclnnInplaceRelu", selfRef, selfRef, 1, workspaceSize, executor);
}

/* ---- ThresholdBackward ---- */
ACL_FUNC_VISIBILITY aclnnStatus aclnnThresholdBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                                       const aclTensor *self,
                                                                       const aclScalar *threshold, aclTensor *out,
                                                                       uint64_t *workspaceSize,
                                                                       aclOpExecutor **executor)
{
    return binary_bwd("aclnnThresholdBackward", EW_THRESH_BWD, gradOutput, self, threshold, 1, out, workspaceSize,
                      executor);
}

/* ---- Gelu ---- */
ACL_FUNC_VISIBILITY aclnnStatus aclnnGeluGetWorkspaceSize(const aclTensor *self, aclTensor *out,
                                                          uint64_t *workspaceSize, aclOpExecutor **executor)
{
    /* CANN's aclnnGelu is the tanh approximation */
    return unary_float("aclnnGelu", EW_GELU_TANH, self, out, "self", "out", workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnGeluV2GetWorkspaceSize(const aclTensor *x, int64_t approximate, aclTensor *y,
                                                            uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (x && y && workspaceSize && executor && approximate != 0 && approximate != 1)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID,
                                 "aclnnGeluV2: approximate %lld is not supported (0 = none, 1 = tanh)",
                                 (long long)approximate);
    return unary_float("aclnnGeluV2", approximate == 1 ? EW_GELU_TANH : EW_GELU_ERF, x, y, "x", "y", workspaceSize,
                       executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnGeluBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                                  const aclTensor *gradInput,
                                                                  uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return binary_bwd("aclnnGeluBackward", EW_GELU_BWD, gradOutput, self, NULL, 0, gradInput, workspaceSize,
                      executor);
}

/* ---- Silu ---- */
ACL_FUNC_VISIBILITY aclnnStatus aclnnSiluGetWorkspaceSize(const aclTensor *self, aclTensor *out,
                                                          uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return unary_float("aclnnSilu", EW_SILU, self, out, "self", "out", workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnSiluBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                                  aclTensor *gradInput, uint64_t *workspaceSize,
                                                                  aclOpExecutor **executor)
{
    return binary_bwd("aclnnSiluBackward", EW_SILU_BWD, gradOutput, self, NULL, 0, gradInput, workspaceSize,
                      executor);
}
