/**
 * @file aclnn_roll.h
 * out = x rolled: each element moves shifts[i] places along dims[i] (cyclically).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_ROLL_H_
#define OP_API_INC_ROLL_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnRoll: @p x: rank 0-8, any strides. @p dims: axes in [-rank, rank), repeats adding
 * up; with dims NULL or empty, @p shifts holds one value and x rolls as one flat sequence. @p
 * shifts: as many values as dims, any sign and size. @p out: x's dtype and shape, any strides.
 * Errors: 161001 NULL x, shifts or out; 161002 bad dtype, dims, a count mismatch or out shape. x:
 * FLOAT, FLOAT16, BFLOAT16, INT8, UINT8, INT16, INT32, INT64, UINT32, BOOL, COMPLEX64.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnRollGetWorkspaceSize(const aclTensor *x, const aclIntArray *shifts, const aclIntArray *dims, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnRoll(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_ROLL_H_ */
