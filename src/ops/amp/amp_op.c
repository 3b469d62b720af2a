/*
 * Loss scaling and the AdamW step:
 *   - ForeachNonFiniteCheckAndUnscale: every gradient of the list times invScale, in place;
 *     foundInf set to 1.0 when any gradient element (before scaling) is inf or NaN, else left as it
 *     is. One launch of the list engine plus a one-block combine of the chunks' flags.
 *   - AmpUpdateScale: torch's _amp_update_scale_ on one-element tensors (one block).
 *   - ApplyAdamW / ApplyAdamWV2: the AdamW step on one parameter tensor, in place on var, m, v
 *     (and V2's max-of-v buffer), through the list engine as a one-item list.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "aclnnop/aclnn_amp_update_scale.h"
#include "aclnnop/aclnn_apply_adam_w.h"
#include "aclnnop/aclnn_apply_adam_w_v2.h"
#include "aclnnop/aclnn_foreach_non_finite_check_and_unscale.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "amp_engine.h"

#include <stdlib.h>

ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachNonFiniteCheckAndUnscaleGetWorkspaceSize(const aclTensorList *scaledGrads,
                                                                                     const aclTensor *foundInf,
                                                                                     const aclTensor *invScale,
                                                                                     uint64_t *workspaceSize,
                                                                                     aclOpExecutor **executor)
{
    cannon_op op;
    cannonOpBegin(&op, "aclnnForeachNonFiniteCheckAndUnscale", workspaceSize, executor);
    cannonOpNotNulls(&op, "scaledGrads", scaledGrads, "foundInf", foundInf, "invScale", invScale, NULL);
    const aclTensor **t = NULL;
    const uint64_t n =
        amp_list(&op, "scaledGrads", scaledGrads, cn_dts_ForeachNonFiniteCheckAndUnscale(), &t, NULL);
    amp_scalar_tensor(&op, "foundInf", foundInf, CANNON_DT_F32);
    amp_scalar_tensor(&op, "invScale", invScale, CANNON_DT_F32);
    amp_plan p = {.kind = AMP_UNSCALE, .nops = 1, .how = {CANNON_BIND_INOUT}, .n = n, .t = t, .nscal = 1,
                  .scal = {invScale}, .flag_out = foundInf};
    amp_record(&op, &p);
    free(t);
    return cannonOpFinish(&op);
}

/* ---- AmpUpdateScale ------------------------------------------------------------------------------ */

typedef struct aus_args {
    const char *scale, *tracker, *found; /* bound */
    char *scale_out, *tracker_out;       /* bound */
    double growth, backoff;
    int64_t interval;
} aus_args;

static int aus_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    (void)ctx;
    const aus_args *a = (const aus_args *)args;
    float scale, found;
    int32_t tracker;
    memcpy(&scale, a->scale, 4);
    memcpy(&tracker, a->tracker, 4);
    memcpy(&found, a->found, 4);
    if (found != 0.0f) {
        scale = (float)((double)scale * a->backoff);
        tracker = 0;
    } else {
        const int64_t successful = (int64_t)tracker + 1;
        if (successful >= a->interval) {
            /* a growth that overflows fp32 keeps the old scale */
            const float grown = (float)((double)scale * a->growth);
            if (isfinite(grown))
                scale = grown;
            tracker = 0;
        } else {
            tracker = (int32_t)successful;
        }
    }
    memcpy(a->scale_out, &scale, 4);
    memcpy(a->tracker_out, &tracker, 4);
    return 0;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnAmpUpdateScaleGetWorkspaceSize(const aclTensor *currentScale,
                                                                    const aclTensor *growthTracker,
                                                                    const aclTensor *foundInf, double growthFactor,
                                                                    double backoffFactor, int64_t growthInterval,
                                                                    const aclTensor *updatedScaleOut,
                                                                    const aclTensor *updatedGrowthTrackerOut,
                                                                    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    cannon_op op;
    cannonOpBegin(&op, "aclnnAmpUpdateScale", workspaceSize, executor);
    cannonOpNotNulls(&op, "currentScale", currentScale, "growthTracker", growthTracker, "foundInf", foundInf,
                     "updatedScaleOut", updatedScaleOut, "updatedGrowthTrackerOut", updatedGrowthTrackerOut, NULL);
    amp_scalar_tensor(&op, "currentScale", currentScale, cn_dts_AmpUpdateScale());
    amp_scalar_tensor(&op, "growthTracker", growthTracker, CANNON_DT_I32);
    amp_scalar_tensor(&op, "foundInf", foundInf, CANNON_DT_F32);
    amp_scalar_tensor(&op, "updatedScaleOut", updatedScaleOut, CANNON_DT_F32);
    amp_scalar_tensor(&op, "updatedGrowthTrackerOut", updatedGrowthTrackerOut, CANNON_DT_I32);
    if (cannonOpOk(&op) && growthInterval <= 0)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "growthInterval is %lld: it must be positive",
                     (long long)growthInterval);
    const int s_scale = cannonOpInput(&op, currentScale);
    const int s_tracker = cannonOpInput(&op, growthTracker);
    const int s_found = cannonOpInput(&op, foundInf);
    const int s_so = cannonOpOutput(&op, updatedScaleOut);
    const int s_to = cannonOpOutput(&op, updatedGrowthTrackerOut);
    aus_args a = {.growth = growthFactor, .backoff = backoffFactor, .interval = growthInterval};
    cannon_arg_ref refs[5];
    cannonOpBindView(&op, s_scale, (uint32_t)offsetof(aus_args, scale), &refs[0]);
    cannonOpBindView(&op, s_tracker, (uint32_t)offsetof(aus_args, tracker), &refs[1]);
    cannonOpBindView(&op, s_found, (uint32_t)offsetof(aus_args, found), &refs[2]);
    cannonOpBindView(&op, s_so, (uint32_t)offsetof(aus_args, scale_out), &refs[3]);
    cannonOpBindView(&op, s_to, (uint32_t)offsetof(aus_args, tracker_out), &refs[4]);
    cannonOpKernel(&op, "AmpUpdateScale", aus_kernel, 1, &a, sizeof a, refs, 5);
    return cannonOpFinish(&op);
}

/* ---- ApplyAdamW -------------------------------------------------------------------------------------- */

/* var, m, v, grad (and maxGradNorm): one dtype and shape; a NULL maxGradNorm is absent. */
static bool adamw_tensors(cannon_op *op, cannon_dtype_set dts, const aclTensor *const *t, const char *const *names,
                          int n, bool same_dtype)
{
    cannon_tensor_view v[5];
    for (int k = 0; k < n; k++) {
        if (k == 4 && !t[k])
            break;
        if (!cannonOpTensor(op, names[k], t[k], dts, &v[k]))
            return false;
        if (k > 0) {
            if (same_dtype)
                cannonOpSameDtype(op, names[k], &v[k], names[0], &v[0]);
            cannonOpSameShape(op, names[k], &v[k], names[0], &v[0]);
        }
    }
    return cannonOpOk(op);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnApplyAdamWGetWorkspaceSize(aclTensor *varRef, aclTensor *mRef, aclTensor *vRef,
                                                                const aclTensor *beta1Power,
                                                                const aclTensor *beta2Power, const aclTensor *lr,
                                                                const aclTensor *weightDecay, const aclTensor *beta1,
                                                                const aclTensor *beta2, const aclTensor *eps,
                                                                const aclTensor *grad,
                                                                const aclTensor *maxGradNormOptional, bool amsgrad,
                                                                bool maximize, uint64_t *workspaceSize,
                                                                aclOpExecutor **executor)
{
    cannon_op op;
    cannonOpBegin(&op, "aclnnApplyAdamW", workspaceSize, executor);
    cannonOpNotNulls(&op, "varRef", varRef, "mRef", mRef, "vRef", vRef, "beta1Power", beta1Power, "beta2Power",
                     beta2Power, "lr", lr, "weightDecay", weightDecay, "beta1", beta1, "beta2", beta2, "eps", eps,
                     "grad", grad, NULL);
    if (amsgrad)
        cannonOpNotNull(&op, "maxGradNormOptional (required when amsgrad is true)", maxGradNormOptional);
    const aclTensor *t[5] = {varRef, mRef, vRef, grad, maxGradNormOptional};
    static const char *const names[5] = {"varRef", "mRef", "vRef", "grad", "maxGradNormOptional"};
    adamw_tensors(&op, cn_dts_ApplyAdamW(), t, names, 5, true);
    const aclTensor *sc[7] = {beta1Power, beta2Power, lr, weightDecay, beta1, beta2, eps};
    static const char *const snames[7] = {"beta1Power", "beta2Power", "lr", "weightDecay", "beta1", "beta2", "eps"};
    for (int k = 0; k < 7; k++)
        amp_scalar_tensor(&op, snames[k], sc[k], CANNON_DTS_F32_16);
    amp_plan p = {.kind = AMP_ADAMW, .nops = 5, .n = 1, .t = t, .nscal = 7,
                  .flags = (amsgrad ? AMP_F_AMSGRAD : 0) | (maximize ? AMP_F_MAXIMIZE : 0)};
    p.how[0] = p.how[1] = p.how[2] = CANNON_BIND_INOUT;
    p.how[3] = CANNON_BIND_IN;
    p.how[4] = maxGradNormOptional && amsgrad ? CANNON_BIND_IN : 0;
    if (!amsgrad)
        t[4] = NULL;
    for (int k = 0; k < 7; k++)
        p.scal[k] = sc[k];
    amp_record(&op, &p);
    return cannonOpFinish(&op);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnApplyAdamWV2GetWorkspaceSize(aclTensor *varRef, aclTensor *mRef, aclTensor *vRef,
                                                                  aclTensor *maxGradNormOptionalRef,
                                                                  const aclTensor *grad, const aclTensor *step,
                                                                  float lr, float beta1, float beta2,
                                                                  float weightDecay, float eps, bool amsgrad,
                                                                  bool maximize, uint64_t *workspaceSize,
                                                                  aclOpExecutor **executor)
{
    cannon_op op;
    cannonOpBegin(&op, "aclnnApplyAdamWV2", workspaceSize, executor);
    cannonOpNotNulls(&op, "varRef", varRef, "mRef", mRef, "vRef", vRef, "grad", grad, "step", step, NULL);
    if (amsgrad)
        cannonOpNotNull(&op, "maxGradNormOptionalRef (required when amsgrad is true)", maxGradNormOptionalRef);
    const aclTensor *t[5] = {varRef, mRef, vRef, grad, amsgrad ? maxGradNormOptionalRef : NULL};
    static const char *const names[5] = {"varRef", "mRef", "vRef", "grad", "maxGradNormOptionalRef"};
    adamw_tensors(&op, cn_dts_ApplyAdamWV2(), t, names, 5, true);
    amp_scalar_tensor(&op, "step", step, CANNON_DT_F32 | CANNON_DT_I64);
    amp_plan p = {.kind = AMP_ADAMW2, .nops = 5, .n = 1, .t = t, .nscal = 1, .scal = {step},
                  .konst = {0.0, lr, beta1, beta2, weightDecay, eps},
                  .flags = (amsgrad ? AMP_F_AMSGRAD : 0) | (maximize ? AMP_F_MAXIMIZE : 0)};
    p.how[0] = p.how[1] = p.how[2] = CANNON_BIND_INOUT;
    p.how[3] = CANNON_BIND_IN;
    p.how[4] = amsgrad ? CANNON_BIND_INOUT : 0;
    amp_record(&op, &p);
    return cannonOpFinish(&op);
}
