/**
 * @file aclnn_tril.h
 * out = self with the elements above diagonal @p diagonal of its last two dims set to 0 (j > i +
 * diagonal).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_TRIL_H_
#define OP_API_INC_TRIL_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnTril: @p self: rank 2-8 (or 0: copied), any strides; any @p diagonal. @p out:
 * self's dtype and shape, any strides. Errors: 161001 NULL argument; 161002 bad dtype, rank or
 * shape. self: FLOAT, FLOAT16, BFLOAT16, DOUBLE, UINT8, INT8, INT16, INT32, INT64, BOOL, UINT16,
 * UINT32, UINT64, COMPLEX32, COMPLEX64.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnTrilGetWorkspaceSize(const aclTensor *self, int64_t diagonal, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnTril(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceTril: As aclnnTril, in place (only the zeros are written). selfRef: FLOAT,
 * FLOAT16, BFLOAT16, DOUBLE, UINT8, INT8, INT16, INT32, INT64, BOOL, UINT16, UINT32, UINT64,
 * COMPLEX32, COMPLEX64.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceTrilGetWorkspaceSize(const aclTensor *selfRef, int64_t diagonal, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceTril(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_TRIL_H_ */
