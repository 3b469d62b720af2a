/**
 * @file aclnn_group_norm.h
 * out = (self - mean) * rstd * gamma + beta per (sample, group of channels); meanOut = mean,
 * rstdOut = 1/sqrt(var + eps) (biased variance).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_GROUP_NORM_H_
#define OP_API_INC_GROUP_NORM_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnGroupNorm: @p self: FLOAT, FLOAT16 or BFLOAT16 (N, C, *), rank 2-8, any strides;
 * @p N, @p C, @p HxW its first two sizes and the product of the others (1 for rank 2). @p group > 0
 * divides C. @p eps > 0. @p gamma, @p beta (each may be NULL: 1, 0): 1-D, C elements, any of the
 * three dtypes. @p out: self's dtype and shape, any strides. @p meanOut, @p rstdOut (each may be
 * NULL): N * group values (shape (N, group)) of one float dtype. The variance is the biased one
 * (torch's group_norm). Errors: 161001 NULL self or out; 161002 bad dtype, rank, N/C/HxW, group,
 * eps or shape. self: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnGroupNormGetWorkspaceSize(const aclTensor *self, const aclTensor *gamma, const aclTensor *beta, int64_t N, int64_t C, int64_t HxW, int64_t group, double eps, aclTensor *out, aclTensor *meanOut, aclTensor *rstdOut, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnGroupNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_GROUP_NORM_H_ */
