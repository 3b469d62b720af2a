/**
 * @file aclnn_rotary_position_embedding_grad.h
 * The backward of RotaryPositionEmbedding: dx from dy, and with the forward's x the gradients of
 * cos and sin summed over the dims they were broadcast along.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_ROTARY_POSITION_EMBEDDING_GRAD_H_
#define OP_API_INC_ROTARY_POSITION_EMBEDDING_GRAD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnRotaryPositionEmbeddingGrad: @p dy: rank 3 or 4, any strides, last dim D even (a
 * multiple of 4 in mode 2). @p cos, @p sin: the forward's (dy's dtype and rank, one shape, each dim
 * dy's size or 1, the last D). @p xOptional: NULL, or the forward's x (dy's dtype and shape). @p
 * mode: as the forward (0 half, 1 interleave, 2 quarter, 3 interleave-half). @p dxOut: dy's dtype
 * and shape, the transposed rotation of dy (may be dy itself). @p dcosOut, @p dsinOut: computed
 * when xOptional is given (each may be NULL), cos's shape and dy's dtype: dcos = sum of dy * x,
 * dsin = sum of dy * rotate(x) over the broadcast dims, in fp64 in a fixed order. Computed in fp32,
 * each result rounded once. Errors: 161001 NULL dy, cos, sin or dxOut; 161002 bad dtype, rank,
 * differing dtypes or shapes of x, dx, dcos, dsin; 561002 (as the forward) mode outside 0-3, cos /
 * sin shapes that do not broadcast, D not a multiple of 2 (4). dy: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnRotaryPositionEmbeddingGradGetWorkspaceSize(const aclTensor *dy, const aclTensor *cos, const aclTensor *sin, const aclTensor *xOptional, int64_t mode, const aclTensor *dxOut, const aclTensor *dcosOut, const aclTensor *dsinOut, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnRotaryPositionEmbeddingGrad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_ROTARY_POSITION_EMBEDDING_GRAD_H_ */
