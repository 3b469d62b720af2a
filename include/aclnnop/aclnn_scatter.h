/**
 * @file aclnn_scatter.h
 * Scatter along dim: out = self, then for every position p of index, out[p with p[dim] = index[p]]
 * = src[p] (reduce 0), += src[p] (1) or *= src[p] (2); the Value forms scatter one scalar; the
 * Inplace forms write selfRef.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_SCATTER_H_
#define OP_API_INC_SCATTER_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnScatter: self, src and out of one dtype (any real or complex one), out of self's
 * shape; index INT32 or INT64; self, index and src of one rank (0-8); index.size(d) <= src.size(d)
 * for every d and <= self.size(d) for d != dim; dim in [-rank, rank) (a 0-D tensor counts as rank
 * 1); reduce 0 (replace), 1 (add) or 2 (multiply). Positions are visited in index's row-major
 * order, so a repeated target keeps the last value (reduce 0). Any strides; empty index or src: out
 * = self. An index outside [0, self.size(dim)) is reported at the next synchronize (507015) and
 * writes nothing. Errors: 161001 NULL argument; 161002 bad dtype, rank, shape, dim or reduce. self:
 * FLOAT, FLOAT16, BFLOAT16, DOUBLE, UINT8, INT8, INT16, INT32, INT64, BOOL, COMPLEX64, COMPLEX128.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnScatterGetWorkspaceSize(const aclTensor *self, int64_t dim, const aclTensor *index, const aclTensor *src, int64_t reduce, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnScatter(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * Phase 1 of aclnnScatterValue: As Scatter with every src element equal to value, converted to
 * self's dtype (a real value into a complex self has a zero imaginary part); index.size(d) <=
 * self.size(d) for d != dim. self: FLOAT, FLOAT16, BFLOAT16, DOUBLE, UINT8, INT8, INT16, INT32,
 * INT64, BOOL, COMPLEX64, COMPLEX128.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnScatterValueGetWorkspaceSize(const aclTensor *self, int64_t dim, const aclTensor *index, const aclScalar *value, int64_t reduce, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnScatterValue(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceScatter: As Scatter, written into selfRef. selfRef: FLOAT, FLOAT16,
 * BFLOAT16, DOUBLE, UINT8, INT8, INT16, INT32, INT64, BOOL, COMPLEX64, COMPLEX128.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceScatterGetWorkspaceSize(aclTensor *selfRef, int64_t dim, const aclTensor *index, const aclTensor *src, int64_t reduce, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceScatter(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceScatterValue: As ScatterValue, written into selfRef. selfRef: FLOAT,
 * FLOAT16, BFLOAT16, DOUBLE, UINT8, INT8, INT16, INT32, INT64, BOOL, COMPLEX64, COMPLEX128.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceScatterValueGetWorkspaceSize(aclTensor *selfRef, int64_t dim, const aclTensor *index, const aclScalar *value, int64_t reduce, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceScatterValue(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_SCATTER_H_ */
