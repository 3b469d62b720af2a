/**
 * @file aclnn_swi_glu.h
 * x cut in halves A, B along dim; out = silu(A) * B = A * sigmoid(A) * B.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_SWI_GLU_H_
#define OP_API_INC_SWI_GLU_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnSwiGlu: @p x: FLOAT, FLOAT16 or BFLOAT16, rank 1-8, any strides, an even size
 * along @p dim (in [-rank, rank)). @p out: x's dtype, x's shape with half the size along dim, any
 * strides. Computed in fp32 and rounded once. Errors: 161001 NULL argument; 161002 bad dtype, rank,
 * dim, odd size or out shape. x: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnSwiGluGetWorkspaceSize(const aclTensor *x, int64_t dim, const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnSwiGlu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_SWI_GLU_H_ */
