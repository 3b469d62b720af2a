/**
 * @file aclnn_eq_tensor.h
 * out = self == other (1 or 0 in out's dtype), broadcasting.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_EQ_TENSOR_H_
#define OP_API_INC_EQ_TENSOR_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnEqTensor: self and other of any real dtype, UINT32 or UINT64, compared in their
 * promoted type (torch's rules); UINT32 with an integral or BOOL type in INT64, with a floating one
 * in DOUBLE (exact); UINT64 only with UINT64. out of any real dtype, UINT16, UINT32 or UINT64 and
 * the broadcast shape. NaN is unequal to everything. COMPLEX64/128 are not supported. Errors:
 * 161001 NULL argument; 161002 unsupported dtype or pair, shapes that do not broadcast, out not of
 * the broadcast shape. self: FLOAT, FLOAT16, BFLOAT16, DOUBLE, UINT8, INT8, INT16, INT32, INT64,
 * BOOL, UINT32, UINT64.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnEqTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnEqTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_EQ_TENSOR_H_ */
