/**
 * @file aclnn_foreach_add_scalar.h
 * out_i = x_i + scalar for every tensor of the list (scalar: a one-element device tensor).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_FOREACH_ADD_SCALAR_H_
#define OP_API_INC_FOREACH_ADD_SCALAR_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnForeachAddScalar: Lists of at most 65536 tensors (an empty list does nothing),
 * rank <= 8, any strides, one dtype per list; entries of the lists and of out match in shape and
 * dtype. @p scalar: a one-element device tensor (FLOAT, FLOAT16, BFLOAT16), read when the kernel
 * runs. out may be the first input list itself. Computed in fp32, rounded once. Errors: 161001 NULL
 * list, list entry or scalar; 161002 unsupported dtype, dtypes differing within or between lists,
 * lists of different lengths or entries of different shapes, a scalar tensor not of one element. x:
 * FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachAddScalarGetWorkspaceSize(const aclTensorList *x, const aclTensor *scalar, const aclTensorList *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachAddScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_FOREACH_ADD_SCALAR_H_ */
