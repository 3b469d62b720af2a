/**
 * @file aclnn_add_rms_norm.h
 * xOut = x1 + x2; yOut = xOut / sqrt(mean(xOut^2) + epsilon) * gamma over gamma's trailing dims;
 * rstdOut = 1/sqrt(mean(xOut^2) + epsilon).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_ADD_RMS_NORM_H_
#define OP_API_INC_ADD_RMS_NORM_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnAddRmsNorm: @p x1, @p x2, @p yOut and @p xOut: one dtype (FLOAT, FLOAT16 or
 * BFLOAT16) and shape, rank 1-8, any strides. @p gamma: x1's trailing dims (leading size-1 dims are
 * ignored: [1, D] normalises the last dim), any of the three dtypes. @p rstdOut (may be NULL): one
 * FLOAT, FLOAT16 or BFLOAT16 value per row (e.g. x1's shape with 1 in the normalised dims). @p xOut
 * may be NULL when rstdOut is. The sum is rounded to the dtype first and normalised as stored: the
 * results equal aclnnAdd then aclnnRmsNorm. Errors: 161001 NULL x1, x2, gamma or yOut, or rstdOut
 * without xOut; 161002 bad dtype, shape, epsilon < 0. x1: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnAddRmsNormGetWorkspaceSize(const aclTensor *x1, const aclTensor *x2, const aclTensor *gamma, double epsilon, aclTensor *yOut, aclTensor *rstdOut, aclTensor *xOut, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnAddRmsNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_ADD_RMS_NORM_H_ */
