/**
 * @file aclnn_softmax.h
 * out = exp(self - max) / sum(exp(self - max)) along dim.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_SOFTMAX_H_
#define OP_API_INC_SOFTMAX_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnSoftmax: softmax along @p dim (in [-rank, rank); a 0-d tensor counts as rank 1).
 * @p self and @p out: FLOAT, FLOAT16, BFLOAT16 or DOUBLE, same dtype and shape, rank <= 8, any
 * strides. Computed in fp32 (fp64 for DOUBLE). Errors: 161001 NULL argument; 161002 bad dim, dtype,
 * shape or rank. self: FLOAT, FLOAT16, BFLOAT16, DOUBLE.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnSoftmaxGetWorkspaceSize(const aclTensor *self, int64_t dim, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnSoftmax(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_SOFTMAX_H_ */
