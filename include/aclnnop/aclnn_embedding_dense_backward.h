/**
 * @file aclnn_embedding_dense_backward.h
 * Gradient of an embedding lookup with respect to its dense table (torch's
 * embedding_dense_backward).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_EMBEDDING_DENSE_BACKWARD_H_
#define OP_API_INC_EMBEDDING_DENSE_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnEmbeddingDenseBackward: out[r, :] = sum of grad rows i (grad viewed as
 * [numel(indices), D]) with indices[i] == r, divided by the number of such i when @p
 * scaleGradByFreq; rows never indexed and row @p paddingIdx (uint64: a value >= numWeights, e.g.
 * (uint64_t)-1, disables it) are zero. @p grad: FLOAT, FLOAT16 or BFLOAT16, rank 1..8, any strides;
 * the product of its leading dims must equal numel(@p indices). @p indices: INT32 or INT64, any
 * shape and strides, values in [0, numWeights). @p out: [numWeights, D], grad's dtype. Sums are
 * accumulated in fp32 in index order, one worker per row: the result is bit-identical for any
 * thread count. Errors: 161001 NULL argument; 161002 bad dtype, rank or shape. An index outside [0,
 * numWeights) contributes nothing and makes the stream's next synchronize return 507015
 * (ACL_ERROR_RT_AICORE_EXCEPTION) with a message naming it. grad: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnEmbeddingDenseBackwardGetWorkspaceSize(const aclTensor *grad, const aclTensor *indices, uint64_t numWeights, uint64_t paddingIdx, bool scaleGradByFreq, const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnEmbeddingDenseBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_EMBEDDING_DENSE_BACKWARD_H_ */
