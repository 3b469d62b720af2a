/**
 * @file aclnn_sum.h
 * out = the sum of a list of tensors, each broadcast to out's shape.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_SUM_H_
#define OP_API_INC_SUM_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnSum: tensors (at least one) and out of one dtype: FLOAT, FLOAT16, INT8, INT32 or
 * UINT8; each tensor broadcasts to out, whose shape is their broadcast shape; any strides, rank <=
 * 8. Summed in list order, FLOAT16 in fp32 rounded once, integers wrapping at their width. Errors:
 * 161001 NULL tensors, out or list item; 161002 empty list, unsupported or differing dtypes, shapes
 * that do not broadcast to out. tensors: FLOAT, FLOAT16, INT8, INT32, UINT8.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnSumGetWorkspaceSize(const aclTensorList *tensors, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnSum(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_SUM_H_ */
