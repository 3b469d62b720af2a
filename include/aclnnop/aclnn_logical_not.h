/**
 * @file aclnn_logical_not.h
 * out = !self: 1 where self is zero, else 0, in out's dtype (LogicalNot; InplaceLogicalNot into
 * selfRef).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_LOGICAL_NOT_H_
#define OP_API_INC_LOGICAL_NOT_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnLogicalNot: self and out of any real dtype (BOOL, UINT8, INT8, INT16, INT32,
 * INT64, FLOAT, FLOAT16, BFLOAT16, DOUBLE), one shape, any strides, rank <= 8. -0.0 counts as zero,
 * NaN as nonzero. Errors: 161001 NULL argument; 161002 unsupported dtype, differing shapes. self:
 * FLOAT, FLOAT16, BFLOAT16, DOUBLE, UINT8, INT8, INT16, INT32, INT64, BOOL.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnLogicalNotGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnLogicalNot(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceLogicalNot: selfRef = !selfRef, written in selfRef's dtype (1 or 0).
 * selfRef: FLOAT, FLOAT16, BFLOAT16, DOUBLE, UINT8, INT8, INT16, INT32, INT64, BOOL.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceLogicalNotGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceLogicalNot(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_LOGICAL_NOT_H_ */
