/**
 * @file aclnn_gather_v2.h
 * out = self indexed along dim by index: out[..., j..., ...] = self[..., index[j...], ...].
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_GATHER_V2_H_
#define OP_API_INC_GATHER_V2_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnGatherV2: @p self: rank 0-8 (0-D counts as [1]), any strides. @p dim in [-rank,
 * rank). @p index: INT32 or INT64, any shape and strides, values in [-self.shape[dim],
 * self.shape[dim]) (a negative index counts from the end, as CANN's GatherV2 does). @p out: self's
 * dtype, shape self.shape[:dim] + index.shape + self.shape[dim+1:] (rank <= 8), any strides.
 * Errors: 161001 NULL argument; 161002 bad dtype, dim, rank or shape. An index out of range is
 * found by the kernel: its slice of out is zeroed and the stream's next synchronize returns 507015
 * (ACL_ERROR_RT_AICORE_EXCEPTION) naming the first one. self: FLOAT, FLOAT16, BFLOAT16, DOUBLE,
 * UINT8, INT8, INT16, INT32, INT64, BOOL, COMPLEX64, COMPLEX128.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnGatherV2GetWorkspaceSize(const aclTensor *self, int64_t dim, const aclTensor *index, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnGatherV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_GATHER_V2_H_ */
