/**
 * @file aclnn_mv.h
 * out[n] = self[n, m] @ vec[m]: a matrix times a vector (FLOAT, FLOAT16, BFLOAT16; self, vec and
 * out of one dtype), computed as aclnnMatmul computes a 2-D by 1-D product.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_MV_H_
#define OP_API_INC_MV_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnMv: @p self: 2-D, @p vec: 1-D of self's last dim, @p out: 1-D of self's first
 * dim; any strides and formats (read as ND); empty dims allowed (an empty reduction gives zeros).
 * @p cubeMathType 0..4 is accepted and computes as KEEP_DTYPE. Errors: 161001 NULL argument; 161002
 * bad dtype, differing dtypes, rank, shape or cubeMathType. self: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMvGetWorkspaceSize(const aclTensor *self, const aclTensor *vec, aclTensor *out, int8_t cubeMathType, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMv(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_MV_H_ */
