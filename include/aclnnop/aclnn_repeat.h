/**
 * @file aclnn_repeat.h
 * out = self tiled repeats[d] times along each dim (torch's Tensor.repeat).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_REPEAT_H_
#define OP_API_INC_REPEAT_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnRepeat: @p repeats: rank(self) to 8 values >= 0; self is viewed with leading
 * size-1 dims up to that length. @p out: self's dtype, shape self.shape[d] * repeats[d], any
 * strides. Any number of repeated dims. Errors: 161001 NULL argument; 161002 bad dtype, repeats too
 * short, too long or negative, out's shape. self: FLOAT, FLOAT16, BFLOAT16, DOUBLE, UINT8, INT8,
 * INT16, INT32, INT64, BOOL, UINT16, UINT32, UINT64, COMPLEX64, COMPLEX128, HIFLOAT8, FLOAT8_E5M2,
 * FLOAT8_E4M3FN.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnRepeatGetWorkspaceSize(const aclTensor *self, const aclIntArray *repeats, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnRepeat(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_REPEAT_H_ */
