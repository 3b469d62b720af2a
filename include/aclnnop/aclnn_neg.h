/**
 * @file aclnn_neg.h
 * out = -self, elementwise.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_NEG_H_
#define OP_API_INC_NEG_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnNeg: self and out of one dtype and shape, any strides. Integers wrap (-INT_MIN is
 * INT_MIN); -0.0 and NaN keep IEEE semantics (the sign bit flips). self: FLOAT, FLOAT16, BFLOAT16,
 * DOUBLE, INT8, INT32, INT64.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnNegGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnNeg(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_NEG_H_ */
