/**
 * @file aclnn_batch_norm_backward_reduce.h
 * Per-channel sumDy = sum(dy), sumDyXmu = sum(dy * (x - mean)), gradWeight = sumDyXmu * invstd,
 * gradBias = sumDy.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_BATCH_NORM_BACKWARD_REDUCE_H_
#define OP_API_INC_BATCH_NORM_BACKWARD_REDUCE_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnBatchNormReduceBackward: inputG gates sumDy/sumDyXmu, weightG gradWeight, biasG
 * gradBias. Sums in fp64. Errors: 161001 NULL argument; 161002 bad dtype, rank, format or channel
 * count. gradOut: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnBatchNormReduceBackwardGetWorkspaceSize(const aclTensor *gradOut, const aclTensor *input, const aclTensor *mean, const aclTensor *invstd, const aclTensor *weight, const bool inputG, const bool weightG, const bool biasG, aclTensor *sumDy, aclTensor *sumDyXmu, aclTensor *gradWeight, aclTensor *gradBias, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnBatchNormReduceBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_BATCH_NORM_BACKWARD_REDUCE_H_ */
