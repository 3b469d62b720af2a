/**
 * @file aclnn_argmax.h
 * out = the index of the first maximum of self along dim.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_ARGMAX_H_
#define OP_API_INC_ARGMAX_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnArgMax: @p self: rank 0-8, any strides, non-empty along dim. @p dim in [-rank,
 * rank). @p out: INT32 or INT64, self's shape without dim (size 1 there with @p keepdim), any
 * strides. A NaN is larger than every number: the first NaN's index wins (as torch). Errors: 161001
 * NULL argument; 161002 bad dtype, dim, an empty lane or out shape. self: FLOAT, FLOAT16, BFLOAT16,
 * DOUBLE, UINT8, INT8, INT16, INT32, INT64.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnArgMaxGetWorkspaceSize(const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnArgMax(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_ARGMAX_H_ */
