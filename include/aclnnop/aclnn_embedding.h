/**
 * @file aclnn_embedding.h
 * out = weight[indices]: row lookup in a 2-D table.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_EMBEDDING_H_
#define OP_API_INC_EMBEDDING_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnEmbedding: the embedding lookup. @p weight: 2-D [m, n], any dtype of non-zero
 * byte size, any strides. @p indices: INT32 or INT64, any shape (rank <= 7) and strides, values in
 * [0, m). @p out: shape indices.shape + [n], weight's dtype (declared const as in CANN, written
 * anyway). Errors: 161001 NULL argument; 161002 bad dtype, rank or shape. An index outside [0, m)
 * is found by the kernel: its output row is zeroed and the stream's next synchronize returns 507015
 * (ACL_ERROR_RT_AICORE_EXCEPTION) with a message naming the index. weight: any.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnEmbeddingGetWorkspaceSize(const aclTensor *weight, const aclTensor *indices, const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnEmbedding(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_EMBEDDING_H_ */
