/**
 * @file aclnn_foreach_norm.h
 * out_i = the p-norm of x_i (all its elements) for every tensor of the list.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_FOREACH_NORM_H_
#define OP_API_INC_FOREACH_NORM_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnForeachNorm: Lists of at most 65536 tensors (an empty list does nothing), rank <=
 * 8, any strides, one dtype. @p scalar: the order p (an aclScalar: a floating value, or an
 * integer), p >= 0 or +inf: +inf max |x|, 0 the count of non-zero elements, 1 sum |x|, 2 sqrt(sum
 * x^2), else (sum |x|^p)^(1/p) (0 for an empty tensor). @p out: x's length and dtype, one element
 * per entry. Elements in fp32, sums in fp64 combined in a fixed order (the same result for any
 * worker count), rounded once. Errors: 161001 NULL list, list entry or scalar; 161002 unsupported
 * dtype, dtypes differing within or between lists, lists of different lengths or entries of
 * different shapes, a scalar tensor not of one element. 161002 also for p < 0 or NaN. x: FLOAT,
 * FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachNormGetWorkspaceSize(const aclTensorList *x, const aclScalar *scalar, const aclTensorList *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_FOREACH_NORM_H_ */
