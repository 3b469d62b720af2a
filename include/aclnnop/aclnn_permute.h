/**
 * @file aclnn_permute.h
 * out = self with its dims reordered: out.shape[i] = self.shape[dims[i]].
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_PERMUTE_H_
#define OP_API_INC_PERMUTE_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnPermute: @p dims: a permutation of the rank's axes, each in [-rank, rank). self
 * and out: rank 0-8, the same dtype, any strides. Errors: 161001 NULL argument; 161002 bad dtype,
 * dims not a permutation, out's shape. self: FLOAT, FLOAT16, BFLOAT16, DOUBLE, UINT8, INT8, INT16,
 * INT32, INT64, BOOL, UINT16, UINT32, UINT64, COMPLEX64, COMPLEX128, HIFLOAT8, FLOAT8_E5M2,
 * FLOAT8_E4M3FN.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnPermuteGetWorkspaceSize(const aclTensor *self, const aclIntArray *dims, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnPermute(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_PERMUTE_H_ */
