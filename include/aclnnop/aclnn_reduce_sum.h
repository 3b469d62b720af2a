/**
 * @file aclnn_reduce_sum.h
 * out = sum of self over the axes @p dims.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_REDUCE_SUM_H_
#define OP_API_INC_REDUCE_SUM_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnReduceSum: @p dims: axes in [-rank, rank), no duplicates; an empty array reduces
 * every axis (NULL is 161001). @p keepDims keeps reduced axes as size 1. @p dtype must equal out's
 * dtype; self is converted to @p dtype element by element before summing (as torch.sum(dtype=)).
 * self: FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT8, UINT8, INT16, INT32, INT64 or BOOL, rank <= 8, any
 * strides; dtype/out: the same list without BOOL. Floating sums accumulate in fp32 lanes over
 * blocks of fixed size whose totals are added in fp64 (fp64 throughout for DOUBLE), integer sums in
 * int64 (wrapping to the output width); the order depends only on the shape, so results are the
 * same for any thread count. An empty reduction gives 0. Errors: 161001 NULL argument; 161002 bad
 * dtype, dims, rank or out shape. self: FLOAT, FLOAT16, BFLOAT16, DOUBLE, UINT8, INT8, INT16,
 * INT32, INT64, BOOL.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnReduceSumGetWorkspaceSize(const aclTensor *self, const aclIntArray *dims, bool keepDims, aclDataType dtype, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnReduceSum(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_REDUCE_SUM_H_ */
