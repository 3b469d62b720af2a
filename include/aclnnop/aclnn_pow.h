/**
 * @file aclnn_pow.h
 * out = self ** exponent with a scalar base self (PowScalarTensor).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_POW_H_
#define OP_API_INC_POW_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnPowScalarTensor: self and exponent FLOAT, FLOAT16, BFLOAT16, DOUBLE or integral,
 * computed in their promoted type (torch's rules), self converted to it first; out of exponent's
 * shape and a dtype the result casts to. Floating powers as C's pow, rounded once; integral ones
 * wrap, a negative exponent giving 0 except for the bases 1 and -1. Errors: 161001 NULL argument;
 * 161002 unsupported dtype, result type out cannot take, differing shapes. self: FLOAT, FLOAT16,
 * BFLOAT16, DOUBLE, UINT8, INT8, INT16, INT32, INT64.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnPowScalarTensorGetWorkspaceSize(const aclScalar *self, const aclTensor *exponent, const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnPowScalarTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_POW_H_ */
