/**
 * @file aclnn_cast.h
 * out = self converted to dtype (== out's dtype), any pair of BOOL, UINT8/16/32/64, INT8/16/32/64,
 * FLOAT16, BFLOAT16, FLOAT, DOUBLE. Floats round to nearest even (one rounding even from DOUBLE;
 * INT64 and UINT64 beyond 2^53 to FLOAT and the 16-bit floats through DOUBLE); float -> integer
 * truncates toward zero, NaN -> 0, out-of-range values saturate at the int64 range (UINT64: at
 * [int64 min, 2^64 - 1]) and then wrap to the narrower type; integers convert to each other keeping
 * the low bits (two's complement); anything -> BOOL is (value != 0). CANN's COMPLEX and 8/4-bit
 * float types are not supported.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_CAST_H_
#define OP_API_INC_CAST_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnCast: checks the arguments and plans the computation. self: FLOAT, FLOAT16,
 * BFLOAT16, DOUBLE, UINT8, INT8, INT16, INT32, INT64, BOOL, UINT16, UINT32, UINT64.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnCastGetWorkspaceSize(const aclTensor *self, const aclDataType dtype, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnCast(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_CAST_H_ */
