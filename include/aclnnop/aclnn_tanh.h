/**
 * @file aclnn_tanh.h
 * out = tanh(self), elementwise.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_TANH_H_
#define OP_API_INC_TANH_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnTanh: self FLOAT, FLOAT16, BFLOAT16 or integral/BOOL (computed as FLOAT); out
 * FLOAT, FLOAT16 or BFLOAT16 that the result casts to, self's shape. Errors: 161001 NULL argument;
 * 161002 unsupported dtype, differing shapes. self: FLOAT, FLOAT16, BFLOAT16, UINT8, INT8, INT16,
 * INT32, INT64, BOOL.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnTanhGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnTanh(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceTanh: selfRef = tanh(selfRef): FLOAT, FLOAT16 or BFLOAT16, any strides.
 * Errors: 161001 NULL argument; 161002 unsupported dtype. selfRef: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceTanhGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceTanh(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_TANH_H_ */
