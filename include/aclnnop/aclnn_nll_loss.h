/**
 * @file aclnn_nll_loss.h
 * Negative log-likelihood loss (torch.nn.functional.nll_loss); with log-softmax, cross-entropy.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_NLL_LOSS_H_
#define OP_API_INC_NLL_LOSS_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnNLLLoss: @p self: (N, C) or (C) log-probabilities, FLOAT, FLOAT16 or BFLOAT16,
 * any strides. @p target: (N) or () (1 element), INT64, INT32 or UINT8, values in [0, C) or @p
 * ignoreIndex. @p weight: (C), self's dtype, required. @p reduction: 0 none, 1 mean, 2 sum. loss_i
 * = -weight[t_i] * self[i, t_i] (0 when t_i == ignoreIndex). @p out: (N) for none with 2-D self,
 * else one element: sum (2) or sum / totalWeight (1; NaN when totalWeight is 0). @p totalWeightOut:
 * one element, sum of weight[t_i] over non-ignored targets (0 for none). Accumulated in fp32 per
 * fixed block, blocks added in fp64 in order: deterministic. Errors: 161001 NULL argument; 161002
 * bad dtype, shape or reduction. A target outside [0, C) (other than ignoreIndex) counts as ignored
 * and makes the stream's next synchronize return 507015 (ACL_ERROR_RT_AICORE_EXCEPTION) with a
 * message naming it. self: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnNLLLossGetWorkspaceSize(const aclTensor *self, const aclTensor *target, const aclTensor *weight, int64_t reduction, int64_t ignoreIndex, aclTensor *out, aclTensor *totalWeightOut, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnNLLLoss(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_NLL_LOSS_H_ */
