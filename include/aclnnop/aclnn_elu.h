/**
 * @file aclnn_elu.h
 * out = self > 0 ? scale * self : alpha * scale * (exp(inputScale * self) - 1).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_ELU_H_
#define OP_API_INC_ELU_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnElu: self and out FLOAT, FLOAT16 or BFLOAT16 (out a type self's casts to), one
 * shape. alpha, scale, inputScale: scalars of any real dtype, used in fp32 (alpha * scale formed in
 * double first). The negative branch uses expm1 (no cancellation near 0). Errors: 161001 NULL
 * argument; 161002 unsupported dtype, differing shapes. self: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnEluGetWorkspaceSize(const aclTensor *self, const aclScalar *alpha, const aclScalar *scale, const aclScalar *inputScale, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnElu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_ELU_H_ */
