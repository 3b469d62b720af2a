/**
 * @file aclnn_foreach_copy.h
 * out_i = x_i for every tensor of the list.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_FOREACH_COPY_H_
#define OP_API_INC_FOREACH_COPY_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnForeachCopy: Lists of at most 65536 tensors of one dtype (any with a byte size),
 * rank <= 8, any strides; out matches x in length, dtype and shapes. Elements are copied bit for
 * bit. Errors: 161001 NULL list or entry; 161002 unsupported dtype, dtypes differing within or
 * between the lists, different lengths or shapes. x: any.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachCopyGetWorkspaceSize(const aclTensorList *x, aclTensorList *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachCopy(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_FOREACH_COPY_H_ */
