/**
 * @file aclnn_triangular_solve.h
 * Solves op(A) X = self for X, A triangular: op(A) = A, or A^T when @p transpose; A upper
 * triangular when @p upper, else lower (the other triangle is not read); a unit diagonal when @p
 * unitriangular (the diagonal is not read). torch.triangular_solve semantics.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_TRIANGULAR_SOLVE_H_
#define OP_API_INC_TRIANGULAR_SOLVE_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnTriangularSolve: @p self (b: [..., m, k]) and @p A ([..., m, m]): FLOAT or DOUBLE
 * (one dtype; FLOAT only with @p unitriangular), 2-8 dims, batch dims broadcast, any strides. @p
 * xOut: [batch..., m, k], @p mOut: [batch..., m, m] (the broadcast batch), self's dtype, any
 * strides; mOut receives a copy of the broadcast A (as torch). Substitution in double precision,
 * rounded once; a zero diagonal gives inf/NaN as IEEE division does. Errors: 161001 NULL argument;
 * 161002 bad dtype, rank, shapes that do not broadcast, or output shapes. self: FLOAT, DOUBLE.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnTriangularSolveGetWorkspaceSize(const aclTensor *self, const aclTensor *A, bool upper, bool transpose, bool unitriangular, aclTensor *xOut, aclTensor *mOut, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnTriangularSolve(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_TRIANGULAR_SOLVE_H_ */
