/**
 * @file aclnn_hardsigmoid.h
 * out = min(max(self + 3, 0), 6) / 6 (self / 6 + 1/2 clipped to [0, 1]).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_HARDSIGMOID_H_
#define OP_API_INC_HARDSIGMOID_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnHardsigmoid: self and out of one dtype (FLOAT, FLOAT16, BFLOAT16 or INT32) and
 * shape. INT32 truncates the result: 1 for self >= 3, else 0. NaN stays NaN. Errors: 161001 NULL
 * argument; 161002 unsupported dtype, differing dtypes or shapes. self: FLOAT, FLOAT16, BFLOAT16,
 * INT32.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnHardsigmoidGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnHardsigmoid(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_HARDSIGMOID_H_ */
