/**
 * @file aclnn_softmax_cross_entropy_with_logits.h
 * Per row of the (batch, classes) logits: loss = sum(labels * (logsumexp(features) - features));
 * backprop = softmax(features) - labels.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_SOFTMAX_CROSS_ENTROPY_WITH_LOGITS_H_
#define OP_API_INC_SOFTMAX_CROSS_ENTROPY_WITH_LOGITS_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnSoftmaxCrossEntropyWithLogits: @p features, @p labels and @p backprop: one dtype
 * (FLOAT, FLOAT16 or BFLOAT16) and 2-D shape (B, C), any strides. @p loss: that dtype, shape [B],
 * any strides. Computed in fp64 (the row shifted by its maximum), each output rounded once. Errors:
 * 161001 NULL argument; 161002 bad dtype, rank or shape. features: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnSoftmaxCrossEntropyWithLogitsGetWorkspaceSize(const aclTensor *features, aclTensor *labels, aclTensor *loss, aclTensor *backprop, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnSoftmaxCrossEntropyWithLogits(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_SOFTMAX_CROSS_ENTROPY_WITH_LOGITS_H_ */
