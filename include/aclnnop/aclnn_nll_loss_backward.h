/**
 * @file aclnn_nll_loss_backward.h
 * Gradient of aclnnNLLLoss with respect to self.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_NLL_LOSS_BACKWARD_H_
#define OP_API_INC_NLL_LOSS_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnNLLLossBackward: out (self's shape and dtype, any strides) is zero except out[i,
 * t_i] = -weight[t_i] * g_i, where g_i = gradOutput[i] for reduction none with 2-D self (gradOutput
 * (N)), else the single element of gradOutput, divided by @p totalWeight (one element) for mean.
 * Rows whose target is ignoreIndex are zero. Arguments as aclnnNLLLoss; gradOutput and totalWeight
 * have self's dtype. Errors: 161001 NULL argument; 161002 bad dtype, shape or reduction. A target
 * outside [0, C) leaves its row zero and makes the next synchronize return 507015 naming it.
 * gradOutput: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnNLLLossBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self, const aclTensor *target, const aclTensor *weight, int64_t reduction, int64_t ignoreIndex, const aclTensor *totalWeight, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnNLLLossBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_NLL_LOSS_BACKWARD_H_ */
