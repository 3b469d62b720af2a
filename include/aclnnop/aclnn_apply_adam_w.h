/**
 * @file aclnn_apply_adam_w.h
 * The AdamW optimizer step on one parameter tensor, in place on varRef, mRef and vRef; the powers
 * of beta1 and beta2 before this step and the hyperparameters are one-element device tensors.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_APPLY_ADAM_W_H_
#define OP_API_INC_APPLY_ADAM_W_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnApplyAdamW: @p varRef, @p mRef, @p vRef, @p grad, @p maxGradNormOptional: one
 * dtype (FLOAT, FLOAT16, BFLOAT16) and shape, rank <= 8, any strides. @p beta1Power, @p beta2Power
 * (beta^(t-1)), @p lr, @p weightDecay, @p beta1, @p beta2, @p eps: one element each, FLOAT, FLOAT16
 * or BFLOAT16. g = maximize ? -grad : grad; m = beta1 m + (1 - beta1) g; v = beta2 v + (1 - beta2)
 * g^2, then with amsgrad v = max(v, maxGradNorm) (stored in vRef); var = var (1 - lr weightDecay) -
 * lr (m / (1 - beta1Power beta1)) / (sqrt(v / (1 - beta2Power beta2)) + eps). Computed in fp32,
 * each result rounded once. Errors: 161001 NULL argument (maxGradNormOptional with amsgrad); 161002
 * bad dtype, differing dtypes or shapes, a scalar tensor not of one element. varRef: FLOAT,
 * FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnApplyAdamWGetWorkspaceSize(aclTensor *varRef, aclTensor *mRef, aclTensor *vRef, const aclTensor *beta1Power, const aclTensor *beta2Power, const aclTensor *lr, const aclTensor *weightDecay, const aclTensor *beta1, const aclTensor *beta2, const aclTensor *eps, const aclTensor *grad, const aclTensor *maxGradNormOptional, bool amsgrad, bool maximize, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnApplyAdamW(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_APPLY_ADAM_W_H_ */
