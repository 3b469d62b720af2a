/**
 * @file aclnn_norm.h
 * out = the vector p-norm of self over dim: (sum |x|^p)^(1/p); p = 0 counts the nonzero elements, p
 * = inf / -inf gives max / min |x|.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_NORM_H_
#define OP_API_INC_NORM_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnNorm: @p self: FLOAT, FLOAT16 or BFLOAT16, rank 0-8, any strides. @p pScalar: any
 * real dtype (CANN's page lists FLOAT), any value. @p dim: distinct axes in [-rank, rank); empty:
 * every axis. @p out: FLOAT, FLOAT16 or BFLOAT16, self's shape with the reduced axes 1 (@p keepdim)
 * or dropped, any strides. Accumulated in fp64, rounded once; NaN propagates. Errors: 161001 NULL
 * argument; 161002 bad dtype, a repeated or out-of-range dim, out shape. self: FLOAT, FLOAT16,
 * BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnNormGetWorkspaceSize(const aclTensor *self, const aclScalar *pScalar, const aclIntArray *dim, bool keepdim, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_NORM_H_ */
