/**
 * @file aclnn_softplus.h
 * out = beta * self > threshold ? self : log(1 + exp(beta * self)) / beta.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_SOFTPLUS_H_
#define OP_API_INC_SOFTPLUS_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnSoftplus: self and out FLOAT, FLOAT16 or BFLOAT16 (out a type self's casts to),
 * one shape; beta and threshold scalars of any real dtype, used in fp32. log(1 + exp(z)) is
 * computed as max(z, 0) + log1p(exp(-|z|)): no overflow, full accuracy for large negative z.
 * Errors: 161001 NULL argument; 161002 unsupported dtype, differing shapes. self: FLOAT, FLOAT16,
 * BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnSoftplusGetWorkspaceSize(const aclTensor *self, const aclScalar *beta, const aclScalar *threshold, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnSoftplus(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_SOFTPLUS_H_ */
