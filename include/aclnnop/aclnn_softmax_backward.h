/**
 * @file aclnn_softmax_backward.h
 * Gradient of softmax: out = output * (gradOutput - sum(gradOutput * output, dim)).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_SOFTMAX_BACKWARD_H_
#define OP_API_INC_SOFTMAX_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnSoftmaxBackward: @p gradOutput, @p output (the forward result) and @p out: same
 * dtype (FLOAT, FLOAT16, BFLOAT16, DOUBLE) and shape, rank <= 8, any strides. Errors as
 * aclnnSoftmaxGetWorkspaceSize. gradOutput: FLOAT, FLOAT16, BFLOAT16, DOUBLE.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnSoftmaxBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *output, int64_t dim, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnSoftmaxBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_SOFTMAX_BACKWARD_H_ */
