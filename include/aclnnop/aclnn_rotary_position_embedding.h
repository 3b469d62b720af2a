/**
 * @file aclnn_rotary_position_embedding.h
 * out = x * cos + rotate(x) * sin along the last dim (rotary position embedding), cos and sin
 * broadcast over x's other dims.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_ROTARY_POSITION_EMBEDDING_H_
#define OP_API_INC_ROTARY_POSITION_EMBEDDING_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnRotaryPositionEmbedding: @p x: rank 3 or 4, any strides; last dim D even (a
 * multiple of 4 in mode 2). @p cos, @p sin: x's dtype and rank, the same shape, each dim x's size
 * or 1 (broadcast), the last D; any strides. @p mode: 0 half (rotate = cat(-x2, x1) of the two
 * halves), 1 interleave (pairs (x[2i], x[2i+1]) -> (-x[2i+1], x[2i])), 2 quarter (half mode within
 * each half), 3 interleave-half (even elements, then odd ones, rotated as half). @p out: x's dtype
 * and shape, any strides; may be x itself. Computed in fp32, each output rounded once. Errors:
 * 161001 NULL argument; 161002 bad dtype or rank; 561002 mode outside 0-3, shapes that do not
 * match, D not a multiple of 2 (4). x: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnRotaryPositionEmbeddingGetWorkspaceSize(const aclTensor *x, const aclTensor *cos, const aclTensor *sin, int64_t mode, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnRotaryPositionEmbedding(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_ROTARY_POSITION_EMBEDDING_H_ */
