/**
 * @file aclnn_geglu.h
 * GeGluV3: self cut in halves A, B along dim; out = gelu(A) * B (activateLeft) or A * gelu(B);
 * outGelu = gelu of the activated half.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_GEGLU_H_
#define OP_API_INC_GEGLU_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnGeGluV3: @p self: FLOAT, FLOAT16 or BFLOAT16, rank 0-8, any strides, an even size
 * along @p dim (in [-rank, rank), a 0-d tensor counting as rank 1). @p approximate: 0 erf GELU, 1
 * tanh GELU. @p out and @p outGelu: self's dtype, self's shape with half the size along dim, any
 * strides. Computed in fp32 and rounded once. Errors: 161001 NULL argument; 161002 bad dtype, dim,
 * approximate, odd size or output shape. self: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnGeGluV3GetWorkspaceSize(const aclTensor *self, int64_t dim, int64_t approximate, bool activateLeft, aclTensor *out, aclTensor *outGelu, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnGeGluV3(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_GEGLU_H_ */
