/**
 * @file aclnn_slice.h
 * out = self[..., start:end:step, ...] along dim.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_SLICE_H_
#define OP_API_INC_SLICE_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnSlice: @p self: rank 1-8, any strides. @p dim in [-rank, rank). With N =
 * self.shape[dim]: start < -N becomes 0, start >= N becomes N, otherwise (start + N) % N; end < -N
 * becomes start, end >= N becomes N, otherwise max(start, (end + N) % N). @p step > 0. @p out:
 * self's dtype and shape with ceil((end - start) / step) along dim, any strides. Errors: 161001
 * NULL argument; 161002 bad dtype, rank, dim, step or out shape. self: FLOAT, FLOAT16, BFLOAT16,
 * INT32, INT64, INT8, UINT8, BOOL.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnSliceGetWorkspaceSize(const aclTensor *self, int64_t dim, int64_t start, int64_t end, int64_t step, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnSlice(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_SLICE_H_ */
