/**
 * @file aclnn_ger.h
 * out[i][j] = self[i] * vec2[j]: the outer product of two vectors.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_GER_H_
#define OP_API_INC_GER_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnGer: self and vec2 1-D of any real dtype (COMPLEX64 and COMPLEX128 are not
 * supported), any strides; the product is computed in their promoted type (16-bit floats in fp32,
 * rounded once; integers wrap at the promoted width; BOOL is logical and), which must cast to out;
 * out 2-D of shape [self.size(0), vec2.size(0)], any strides. Errors: 161001 NULL argument; 161002
 * unsupported dtype, a result dtype that does not cast to out, self or vec2 not 1-D, out not 2-D or
 * of the wrong size. self: FLOAT, FLOAT16, BFLOAT16, DOUBLE, UINT8, INT8, INT16, INT32, INT64,
 * BOOL.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnGerGetWorkspaceSize(const aclTensor *self, const aclTensor *vec2, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnGer(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_GER_H_ */
