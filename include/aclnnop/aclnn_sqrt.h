/**
 * @file aclnn_sqrt.h
 * out = sqrt(self) (NaN for self < 0), elementwise.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_SQRT_H_
#define OP_API_INC_SQRT_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnSqrt: self of any real dtype (integral and BOOL computed as FLOAT); out FLOAT,
 * FLOAT16, BFLOAT16 or DOUBLE that the result casts to, self's shape. Correctly rounded (sqrt(-0) =
 * -0). Errors: 161001 NULL argument; 161002 unsupported dtype, differing shapes. self: FLOAT,
 * FLOAT16, BFLOAT16, DOUBLE, UINT8, INT8, INT16, INT32, INT64, BOOL.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnSqrtGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnSqrt(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceSqrt: self = sqrt(self): FLOAT, FLOAT16, BFLOAT16 or DOUBLE, any strides.
 * Errors: 161001 NULL argument; 161002 unsupported dtype. self: FLOAT, FLOAT16, BFLOAT16, DOUBLE.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceSqrtGetWorkspaceSize(aclTensor *self, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceSqrt(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_SQRT_H_ */
