/**
 * @file aclnn_gelu_backward.h
 * gradInput = gradOutput * d/dx gelu_tanh(self) (the tanh approximation's derivative, as CANN).
 * gradOutput and self broadcast, of any real dtypes whose promoted type is FLOAT, FLOAT16, BFLOAT16
 * or DOUBLE (an INT32 gradient with a FLOAT self computes in FLOAT); gradInput any dtype that type
 * casts to.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_GELU_BACKWARD_H_
#define OP_API_INC_GELU_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnGeluBackward: checks the arguments and plans the computation. gradOutput: FLOAT,
 * FLOAT16, BFLOAT16, DOUBLE.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnGeluBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self, const aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnGeluBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_GELU_BACKWARD_H_ */
