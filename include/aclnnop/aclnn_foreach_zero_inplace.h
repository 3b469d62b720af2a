/**
 * @file aclnn_foreach_zero_inplace.h
 * x_i = 0 for every tensor of the list, in place.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_FOREACH_ZERO_INPLACE_H_
#define OP_API_INC_FOREACH_ZERO_INPLACE_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnForeachZeroInplace: A list of at most 65536 tensors of one dtype (any with a byte
 * size), rank <= 8, any strides; every element becomes all-zero bytes (+0 for the floating types).
 * Errors: 161001 NULL list or entry; 161002 unsupported dtype, dtypes differing within the list. x:
 * any.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachZeroInplaceGetWorkspaceSize(const aclTensorList *x, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachZeroInplace(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_FOREACH_ZERO_INPLACE_H_ */
