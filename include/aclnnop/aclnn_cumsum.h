/**
 * @file aclnn_cumsum.h
 * out = the running sum of self along dim.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_CUMSUM_H_
#define OP_API_INC_CUMSUM_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnCumsum: @p self: rank 0-8, any strides, a dtype castable to @p dtype (no floating
 * -> integer). @p dtype must equal out's dtype. @p out: self's shape, any strides. self is
 * converted to dtype first, then summed in order as torch's CPU kernel does: FLOAT in double,
 * FLOAT16 and BFLOAT16 in float, DOUBLE in double, integers in int64 wrapping to out's width; each
 * output rounded once. Deterministic. Errors: 161001 NULL argument; 161002 bad dtype, dtype !=
 * out's, dim or shape. self: FLOAT, FLOAT16, BFLOAT16, DOUBLE, UINT8, INT8, INT16, INT32, INT64.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnCumsumGetWorkspaceSize(const aclTensor *self, int64_t dim, aclDataType dtype, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnCumsum(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_CUMSUM_H_ */
