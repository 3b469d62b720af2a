/**
 * @file aclnn_gt_scalar.h
 * out = self > other (1 or 0 in out's dtype), other a scalar.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_GT_SCALAR_H_
#define OP_API_INC_GT_SCALAR_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnGtScalar: Compared in self's dtype promoted with other's (torch's rules: the
 * scalar only raises the category), other converted to that type first (as torch: an INT8 self
 * compares against 300 wrapped to 44). An unsigned self (UINT16, UINT32, UINT64) compares with an
 * integral or BOOL scalar exactly (in INT64; a UINT64 above INT64_MAX exceeds every scalar), with a
 * floating one in DOUBLE (exact but for UINT64 values beyond 2^53). out of any real dtype, UINT16,
 * UINT32 or UINT64, self's shape. Errors: 161001 NULL argument; 161002 unsupported dtype, differing
 * shapes. self: FLOAT, FLOAT16, BFLOAT16, DOUBLE, UINT8, INT8, INT16, INT32, INT64, BOOL, UINT16,
 * UINT32, UINT64.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnGtScalarGetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnGtScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_GT_SCALAR_H_ */
