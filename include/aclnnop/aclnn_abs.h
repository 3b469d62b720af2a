/**
 * @file aclnn_abs.h
 * out = |self|, elementwise.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_ABS_H_
#define OP_API_INC_ABS_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnAbs: self and out of one dtype and shape, any strides, rank <= 8. Floats clear
 * the sign bit (NaN stays NaN); integers wrap (|INT_MIN| is INT_MIN, as torch); BOOL is unchanged.
 * COMPLEX32 and COMPLEX64 inputs (real outputs) are not supported. Errors: 161001 NULL argument;
 * 161002 unsupported dtype, differing dtypes or shapes. self: FLOAT, FLOAT16, BFLOAT16, DOUBLE,
 * UINT8, INT8, INT16, INT32, INT64, BOOL.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnAbsGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnAbs(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_ABS_H_ */
