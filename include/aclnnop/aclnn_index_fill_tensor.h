/**
 * @file aclnn_index_fill_tensor.h
 * selfRef[..., index[j], ...] = value along dim, for every j.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_INDEX_FILL_TENSOR_H_
#define OP_API_INC_INDEX_FILL_TENSOR_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnInplaceIndexFillTensor: @p selfRef: rank 0-8 (0-D counts as [1]), any strides. @p
 * dim in [-rank, rank). @p index: host values in [-size, size) of dim (negative ones count from the
 * end), repeats allowed. @p value: a BOOL, integer or floating scalar converted once to selfRef's
 * dtype. Errors: 161001 NULL argument; 161002 bad dtype, dim, or an index out of range. selfRef:
 * FLOAT, FLOAT16, BFLOAT16, INT32, INT64, BOOL.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceIndexFillTensorGetWorkspaceSize(aclTensor *selfRef, int64_t dim, const aclIntArray *index, const aclScalar *value, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceIndexFillTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_INDEX_FILL_TENSOR_H_ */
