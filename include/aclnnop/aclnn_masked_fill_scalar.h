/**
 * @file aclnn_masked_fill_scalar.h
 * selfRef = value where mask is true, selfRef elsewhere.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_MASKED_FILL_SCALAR_H_
#define OP_API_INC_MASKED_FILL_SCALAR_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnInplaceMaskedFillScalar: selfRef of any real dtype, any strides, rank <= 8; mask
 * BOOL, broadcasting to selfRef's shape (the broadcast shape of the two must be selfRef's own);
 * value of a dtype that casts to selfRef's (not floating into integral, nothing but BOOL into
 * BOOL), converted to it once. Errors: 161001 NULL argument; 161002 unsupported dtype, mask not
 * BOOL, shapes that do not broadcast to selfRef, a value dtype that does not cast. selfRef: FLOAT,
 * FLOAT16, BFLOAT16, DOUBLE, UINT8, INT8, INT16, INT32, INT64, BOOL.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceMaskedFillScalarGetWorkspaceSize(aclTensor *selfRef, const aclTensor *mask, const aclScalar *value, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceMaskedFillScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_MASKED_FILL_SCALAR_H_ */
