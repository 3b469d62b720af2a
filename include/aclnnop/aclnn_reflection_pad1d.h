/**
 * @file aclnn_reflection_pad1d.h
 * out = self padded along its last dim with the mirror image of its edges (edges not repeated).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_REFLECTION_PAD1D_H_
#define OP_API_INC_REFLECTION_PAD1D_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnReflectionPad1d: @p self: rank 2 or 3, any strides; empty only along the first
 * dim of a 3-D tensor. @p padding: (left, right), each in [0, W) for the last dim's size W. @p out:
 * self's dtype, last dim W + left + right, any strides. out[..., i] = self[..., left - i] for i <
 * left, out[..., left + W + k] = self[..., W - 2 - k]. Errors: 161001 NULL argument; 161002 bad
 * dtype, rank, padding or out shape. self: FLOAT, FLOAT16, BFLOAT16, DOUBLE, UINT8, INT8, INT16,
 * INT32, INT64, BOOL, UINT16, UINT32, UINT64, COMPLEX64, COMPLEX128, HIFLOAT8, FLOAT8_E5M2,
 * FLOAT8_E4M3FN, FLOAT8_E8M0.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnReflectionPad1dGetWorkspaceSize(const aclTensor *self, const aclIntArray *padding, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnReflectionPad1d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_REFLECTION_PAD1D_H_ */
