/**
 * @file aclnn_foreach_non_finite_check_and_unscale.h
 * Unscaling of mixed-precision gradients: every gradient of the list times invScale, in place, and
 * foundInf set to 1.0 when any gradient element is inf or NaN.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_FOREACH_NON_FINITE_CHECK_AND_UNSCALE_H_
#define OP_API_INC_FOREACH_NON_FINITE_CHECK_AND_UNSCALE_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnForeachNonFiniteCheckAndUnscale: @p scaledGrads: at most 65536 tensors (an empty
 * list does nothing) of one dtype (FLOAT, FLOAT16, BFLOAT16), rank <= 8, any strides, updated in
 * place: g = g * invScale in fp32, rounded once. @p foundInf: FLOAT, one element; set to 1.0 when
 * an element of a gradient (before scaling) is inf or NaN, otherwise left as it is. @p invScale:
 * FLOAT, one element. Both are read when the kernel runs. Errors: 161001 NULL list, entry or
 * tensor; 161002 bad dtype, dtypes differing within the list, foundInf or invScale not of one
 * element. scaledGrads: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachNonFiniteCheckAndUnscaleGetWorkspaceSize(const aclTensorList *scaledGrads, const aclTensor *foundInf, const aclTensor *invScale, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachNonFiniteCheckAndUnscale(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_FOREACH_NON_FINITE_CHECK_AND_UNSCALE_H_ */
