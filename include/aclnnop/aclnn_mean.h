/**
 * @file aclnn_mean.h
 * out = mean of self over the axes @p dim.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_MEAN_H_
#define OP_API_INC_MEAN_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnMean: Shape rules as aclnnReduceSum (an empty @p dim reduces every axis). self is
 * converted to @p dtype element by element, summed as by aclnnReduceSum, divided by the reduced
 * count, and converted to out's dtype. @p dtype and out: FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT8,
 * UINT8, INT16, INT32 or INT64; self: those or BOOL; self -> dtype -> out must each be a conversion
 * CANN allows (no floating -> integer). An integer mean is the exact sum divided by the count,
 * truncated toward zero, in @p dtype's width. An empty reduction gives NaN (0 for an integer
 * dtype). Errors: 161001 NULL argument; 161002 bad dtype, conversion, dims, rank or out shape.
 * self: FLOAT, FLOAT16, BFLOAT16, DOUBLE, UINT8, INT8, INT16, INT32, INT64, BOOL.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMeanGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, bool keepDim, aclDataType dtype, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMean(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_MEAN_H_ */
