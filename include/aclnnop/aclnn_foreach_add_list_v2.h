/**
 * @file aclnn_foreach_add_list_v2.h
 * out_i = x1_i + x2_i * alpha, entry by entry of two lists (alpha: an aclScalar).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_FOREACH_ADD_LIST_V2_H_
#define OP_API_INC_FOREACH_ADD_LIST_V2_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnForeachAddListV2: Lists of at most 65536 tensors (an empty list does nothing),
 * rank <= 8, any strides, one dtype per list; entries of the lists and of out match in shape and
 * dtype. @p alpha: an aclScalar (any numeric dtype), taken as fp32. out may be the first input list
 * itself. Computed in fp32, rounded once. Errors: 161001 NULL list, list entry or scalar; 161002
 * unsupported dtype, dtypes differing within or between lists, lists of different lengths or
 * entries of different shapes, a scalar tensor not of one element. x1: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachAddListV2GetWorkspaceSize(const aclTensorList *x1, const aclTensorList *x2, const aclScalar *alpha, aclTensorList *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachAddListV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_FOREACH_ADD_LIST_V2_H_ */
