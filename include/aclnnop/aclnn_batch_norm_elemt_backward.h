/**
 * @file aclnn_batch_norm_elemt_backward.h
 * gradInput = (dy - sumDy/N - (x - mean) * invstd^2 * sumDyXmu/N) * invstd * weight, N =
 * sum(counter).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_BATCH_NORM_ELEMT_BACKWARD_H_
#define OP_API_INC_BATCH_NORM_ELEMT_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnBatchNormElemtBackward: counter: INT32, FLOAT or FLOAT16, any shape. Errors:
 * 161001 NULL argument; 161002 bad dtype, rank, format, channel count, empty counter; at run time a
 * negative count or counts summing to 0 fail the stream with 161002 and gradInput is not written.
 * gradOut: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnBatchNormElemtBackwardGetWorkspaceSize(const aclTensor *gradOut, const aclTensor *input, const aclTensor *mean, const aclTensor *invstd, const aclTensor *weight, const aclTensor *sumDy, const aclTensor *sumDyXmu, aclTensor *counter, aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnBatchNormElemtBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_BATCH_NORM_ELEMT_BACKWARD_H_ */
