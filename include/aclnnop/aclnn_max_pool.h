/**
 * @file aclnn_max_pool.h
 * out = the maximum of each kH x kW window of self (2-D max pooling, ONNX MaxPool).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_MAX_POOL_H_
#define OP_API_INC_MAX_POOL_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnMaxPool: @p self: (N, C, H, W) or (C, H, W), format NCHW, NCL or ND, any strides;
 * only N may be 0. @p kernelShape: 1 or 2 values > 0. @p strides: 0 (all 1), 1 or 2 values > 0. @p
 * autoPad must be 0 (NOTSET). @p pads: 0, 1 (all), 2 (h, w) or 4 (top, left, bottom, right) values
 * >= 0, each axis' two adding up to at most its kernel size; padding never wins. @p dilations: 0,
 * 1, 2 or 4 values, all 1. @p ceilMode: non-zero rounds the output size up (a window starting in
 * the end padding is dropped). @p out: self's dtype and format, (N, C, Hout, Wout), any strides.
 * NaN propagates; the winning element is copied bit for bit. Errors: 161001 NULL argument; 161002
 * bad dtype, rank, format, empty dim, array length or value, autoPad, out shape. self: FLOAT,
 * FLOAT16, BFLOAT16, UINT8, INT8, INT16, INT32, INT64, UINT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMaxPoolGetWorkspaceSize(const aclTensor *self, const aclIntArray *kernelShape, const aclIntArray *strides, const int64_t autoPad, const aclIntArray *pads, const aclIntArray *dilations, const int64_t ceilMode, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMaxPool(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_MAX_POOL_H_ */
