/**
 * @file aclnn_avgpool2d.h
 * out = the mean of each kH x kW window of self (2-D average pooling, torch's avg_pool2d).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_AVGPOOL2D_H_
#define OP_API_INC_AVGPOOL2D_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnAvgPool2d: @p self: (N, C, H, W) or (C, H, W), format NCHW, NCL or ND, any
 * strides, not empty. @p kernelSize: 1 or 2 values > 0. @p strides: 1 or 2 values > 0 (none: the
 * kernel size). @p paddings: 1 or 2 values, 0 <= p <= k / 2, zeros around the image. @p ceilMode
 * rounds the output size up (a window starting in the end padding is dropped). @p countIncludePad
 * counts the padding in the divisor; a non-zero @p divisorOverride replaces it. @p cubeMathType 0-3
 * is accepted and ignored: the sum is accumulated in double and the mean rounded once. @p out:
 * self's dtype, (N, C, Hout, Wout), any strides. Errors: 161001 NULL argument; 161002 bad dtype,
 * rank, format, empty self, kernel, stride, padding, cubeMathType or out shape. self: FLOAT,
 * FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnAvgPool2dGetWorkspaceSize(const aclTensor *self, const aclIntArray *kernelSize, const aclIntArray *strides, const aclIntArray *paddings, const bool ceilMode, const bool countIncludePad, const int64_t divisorOverride, const int8_t cubeMathType, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnAvgPool2d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_AVGPOOL2D_H_ */
