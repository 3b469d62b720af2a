/**
 * @file aclnn_pow_tensor_tensor.h
 * self = self ** exponent in place, exponent broadcast to self's shape (InplacePowTensorTensor).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_POW_TENSOR_TENSOR_H_
#define OP_API_INC_POW_TENSOR_TENSOR_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnInplacePowTensorTensor: self and exponent FLOAT, FLOAT16, BFLOAT16, DOUBLE or
 * integral; computed in their promoted type, which must cast to self. Powers as
 * aclnnPowScalarTensor. Errors: 161001 NULL argument; 161002 unsupported dtype, result type self
 * cannot take, exponent not broadcastable to self. self: FLOAT, FLOAT16, BFLOAT16, DOUBLE, UINT8,
 * INT8, INT16, INT32, INT64.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplacePowTensorTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *exponent, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplacePowTensorTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_POW_TENSOR_TENSOR_H_ */
