/**
 * @file aclnn_index_copy.h
 * selfRef[..., index[j], ...] = source[..., j, ...] along dim (IndexCopy: into outRef, which first
 * receives selfRef).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_INDEX_COPY_H_
#define OP_API_INC_INDEX_COPY_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnIndexCopy: As aclnnInplaceIndexCopy, written to @p outRef (selfRef's dtype and
 * shape, any strides): outRef = selfRef, then the indexed slices of source; selfRef is not written.
 * selfRef: FLOAT, FLOAT16, BFLOAT16, DOUBLE, UINT8, INT8, INT16, INT32, INT64, BOOL, UINT32,
 * UINT64, COMPLEX64, COMPLEX128.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnIndexCopyGetWorkspaceSize(aclTensor *selfRef, int64_t dim, const aclTensor *index, const aclTensor *source, aclTensor *outRef, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnIndexCopy(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceIndexCopy: @p selfRef: rank 0-8 (0-D counts as [1]), any strides. @p dim
 * in [-rank, rank). @p index: INT32 or INT64, rank 0 or 1, N elements, values in [0,
 * selfRef.shape[dim]). @p source: selfRef's dtype and rank, size N along dim, selfRef's sizes
 * elsewhere, any strides. When an index repeats, the last position naming a slice writes it (for
 * any thread count). Errors: 161001 NULL argument; 161002 bad dtype, dim, rank or shape. An index
 * out of range is skipped (never written through) and the stream's next synchronize returns 507015
 * (ACL_ERROR_RT_AICORE_EXCEPTION) naming the first one. selfRef: FLOAT, FLOAT16, BFLOAT16, DOUBLE,
 * UINT8, INT8, INT16, INT32, INT64, BOOL, UINT32, UINT64, COMPLEX64, COMPLEX128.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceIndexCopyGetWorkspaceSize(aclTensor *selfRef, int64_t dim, const aclTensor *index, const aclTensor *source, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceIndexCopy(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_INDEX_COPY_H_ */
