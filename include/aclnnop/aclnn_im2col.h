/**
 * @file aclnn_im2col.h
 * out = the sliding kH x kW blocks of self as columns (torch's unfold): out[n, (c*kH + i)*kW + j,
 * oh*OW + ow] = self[n, c, oh*sH - pH + i*dH, ow*sW - pW + j*dW], 0 in the padding.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_IM2COL_H_
#define OP_API_INC_IM2COL_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnIm2col: @p self: (N, C, H, W) or (C, H, W), any strides, may be empty. @p
 * kernelSize, @p dilation, @p stride: 2 values (H, W) > 0; @p padding: 2 values >= 0. @p out:
 * self's dtype, (N, C*kH*kW, L) or (C*kH*kW, L) with L = OH*OW blocks (at least one per axis), any
 * strides. Elements are copied bit for bit. Errors: 161001 NULL argument; 161002 bad dtype, rank,
 * array length or value, no block, out shape. self: FLOAT, FLOAT16, BFLOAT16, DOUBLE, UINT8, INT8,
 * INT16, INT32, INT64, BOOL, UINT16, UINT32, UINT64, COMPLEX32, COMPLEX64.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnIm2colGetWorkspaceSize(const aclTensor *self, const aclIntArray *kernelSize, const aclIntArray *dilation, const aclIntArray *padding, const aclIntArray *stride, const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnIm2col(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_IM2COL_H_ */
