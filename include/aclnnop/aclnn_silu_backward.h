/**
 * @file aclnn_silu_backward.h
 * gradInput = gradOutput * s (1 + self (1 - s)), s = sigmoid(self) (self is the forward input).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_SILU_BACKWARD_H_
#define OP_API_INC_SILU_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnSiluBackward: checks the arguments and plans the computation. gradOutput: FLOAT,
 * FLOAT16, BFLOAT16, DOUBLE.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnSiluBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self, aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnSiluBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_SILU_BACKWARD_H_ */
