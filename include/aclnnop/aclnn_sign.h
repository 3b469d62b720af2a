/**
 * @file aclnn_sign.h
 * result = 1, 0 or -1 by the sign of self, elementwise.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_SIGN_H_
#define OP_API_INC_SIGN_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnSign: self and result of one dtype (FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT32,
 * INT64 or BOOL) and shape. +-0 and NaN give +0 (as torch.sign); BOOL is unchanged. Errors: 161001
 * NULL argument; 161002 unsupported dtype, differing dtypes or shapes. self: FLOAT, FLOAT16,
 * BFLOAT16, DOUBLE, INT32, INT64, BOOL.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnSignGetWorkspaceSize(const aclTensor *self, aclTensor *result, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnSign(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_SIGN_H_ */
