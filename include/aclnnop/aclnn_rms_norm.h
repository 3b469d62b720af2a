/**
 * @file aclnn_rms_norm.h
 * yOut = x / sqrt(mean(x^2) + epsilon) * gamma over gamma's trailing dims; rstdOut =
 * 1/sqrt(mean(x^2) + epsilon).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_RMS_NORM_H_
#define OP_API_INC_RMS_NORM_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnRmsNorm: x FLOAT, FLOAT16 or BFLOAT16; gamma x's dtype or FLOAT; rstdOut (may be
 * NULL) FLOAT with one value per row. Errors: 161001 NULL argument; 161002 bad dtype, shape,
 * epsilon < 0. x: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnRmsNormGetWorkspaceSize(const aclTensor *x, const aclTensor *gamma, double epsilon, const aclTensor *yOut, const aclTensor *rstdOut, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnRmsNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_RMS_NORM_H_ */
