/**
 * @file aclnn_threshold_backward.h
 * out = (self <= threshold) ? 0 : gradOutput (ReLU backward with threshold 0). gradOutput and self
 * broadcast and promote; out takes the promoted type (or one it can be cast to).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_THRESHOLD_BACKWARD_H_
#define OP_API_INC_THRESHOLD_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnThresholdBackward: checks the arguments and plans the computation. gradOutput:
 * FLOAT, FLOAT16, BFLOAT16, DOUBLE, UINT8, INT8, INT16, INT32, INT64.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnThresholdBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self, const aclScalar *threshold, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnThresholdBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_THRESHOLD_BACKWARD_H_ */
