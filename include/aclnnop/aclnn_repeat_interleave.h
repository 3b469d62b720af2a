/**
 * @file aclnn_repeat_interleave.h
 * out = each slice of self along dim repeated @p repeats times in place (torch's repeat_interleave
 * with an integer count).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_REPEAT_INTERLEAVE_H_
#define OP_API_INC_REPEAT_INTERLEAVE_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnRepeatInterleaveIntWithDim: @p self: rank 1-8, any strides. @p repeats >= 0. @p
 * dim in [-rank, rank). @p outputSize must be repeats * self.shape[dim]. @p out: self's dtype,
 * self's shape with outputSize along dim, any strides. Errors: 161001 NULL argument; 161002 bad
 * dtype, rank, repeats, dim, outputSize or out shape. self: FLOAT, FLOAT16, BFLOAT16, UINT8, INT8,
 * INT16, INT32, INT64, BOOL.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnRepeatInterleaveIntWithDimGetWorkspaceSize(const aclTensor *self, int64_t repeats, int64_t dim, int64_t outputSize, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnRepeatInterleaveIntWithDim(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_REPEAT_INTERLEAVE_H_ */
