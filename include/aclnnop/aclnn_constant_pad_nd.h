/**
 * @file aclnn_constant_pad_nd.h
 * out = self padded with @p value: pad = [last dim's before, after, the previous dim's before,
 * after, ...]; negative pads crop.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_CONSTANT_PAD_ND_H_
#define OP_API_INC_CONSTANT_PAD_ND_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnConstantPadNd: @p self: rank 0-8, any strides. @p pad: an even number of values,
 * at most 2 * rank. @p value: any real or complex scalar, converted to self's dtype (rounded once;
 * the 8-bit float types take only 0). @p out: self's dtype, shape self.shape[d] + before_d +
 * after_d, any strides. Errors: 161001 NULL argument; 161002 bad dtype, odd or too long pad, a
 * negative output size, an empty output while some pad is positive, or out's shape. self: FLOAT,
 * FLOAT16, BFLOAT16, DOUBLE, UINT8, INT8, INT16, INT32, INT64, BOOL, UINT16, UINT32, UINT64,
 * COMPLEX64, COMPLEX128, HIFLOAT8, FLOAT8_E5M2, FLOAT8_E4M3FN, FLOAT8_E8M0.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnConstantPadNdGetWorkspaceSize(const aclTensor *self, const aclIntArray *pad, const aclScalar *value, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnConstantPadNd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_CONSTANT_PAD_ND_H_ */
