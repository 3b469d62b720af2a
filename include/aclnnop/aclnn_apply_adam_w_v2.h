/**
 * @file aclnn_apply_adam_w_v2.h
 * The AdamW optimizer step of torch.optim.AdamW on one parameter tensor, in place on varRef, mRef,
 * vRef (and the amsgrad maximum), with the step count as a device tensor.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_APPLY_ADAM_W_V2_H_
#define OP_API_INC_APPLY_ADAM_W_V2_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnApplyAdamWV2: @p varRef, @p mRef, @p vRef, @p grad, @p maxGradNormOptionalRef:
 * one dtype (FLOAT, FLOAT16, BFLOAT16) and shape, rank <= 8, any strides. @p step: one element,
 * FLOAT or INT64, the step t counted from 1. g = maximize ? -grad : grad; var = var (1 - lr
 * weightDecay); m = beta1 m + (1 - beta1) g; v = beta2 v + (1 - beta2) g^2; with amsgrad
 * maxGradNorm = max(maxGradNorm, v) and d = maxGradNorm, else d = v; var = var - lr / (1 - beta1^t)
 * m / (sqrt(d) / sqrt(1 - beta2^t) + eps). Computed in fp32, each result rounded once. Errors:
 * 161001 NULL argument (maxGradNormOptionalRef with amsgrad); 161002 bad dtype, differing dtypes or
 * shapes, step not of one element. varRef: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnApplyAdamWV2GetWorkspaceSize(aclTensor *varRef, aclTensor *mRef, aclTensor *vRef, aclTensor *maxGradNormOptionalRef, const aclTensor *grad, const aclTensor *step, float lr, float beta1, float beta2, float weightDecay, float eps, bool amsgrad, bool maximize, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnApplyAdamWV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_APPLY_ADAM_W_V2_H_ */
