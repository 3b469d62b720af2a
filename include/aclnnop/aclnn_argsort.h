/**
 * @file aclnn_argsort.h
 * out = the indices that sort self along dim (stable).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_ARGSORT_H_
#define OP_API_INC_ARGSORT_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnArgsort: @p self: rank 0-8, any strides. @p out: INT64 of self's shape, any
 * strides. Equal values keep their order in both directions; -0 equals +0; NaNs sort above +inf
 * (last ascending, first descending), as torch's stable sort. Errors: 161001 NULL argument; 161002
 * bad dtype, dim or out shape. self: FLOAT, FLOAT16, BFLOAT16, UINT8, INT8, INT16, INT32, INT64,
 * UINT16, UINT32, UINT64.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnArgsortGetWorkspaceSize(const aclTensor *self, int64_t dim, bool descending, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnArgsort(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_ARGSORT_H_ */
