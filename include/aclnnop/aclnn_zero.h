/**
 * @file aclnn_zero.h
 * selfRef = 0 everywhere.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_ZERO_H_
#define OP_API_INC_ZERO_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnInplaceZero: Any strides, rank <= 8 (all-zero bytes: +0 for the floating types).
 * Errors: 161001 NULL selfRef; 161002 unsupported dtype. selfRef: FLOAT, FLOAT16, BFLOAT16, DOUBLE,
 * UINT8, INT8, INT16, INT32, INT64, BOOL, UINT16, COMPLEX64, COMPLEX128.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceZeroGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceZero(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_ZERO_H_ */
