/**
 * @file aclnn_grouped_matmul_v3.h
 * Grouped matrix multiplication: y_i = x_i @ weight_i + bias_i over groups that split M (groupType
 * 0) or K (groupType 2) of single tensors by groupListOptional (cumulative INT64 bounds), or over
 * lists of independent matrices (groupType -1).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_GROUPED_MATMUL_V3_H_
#define OP_API_INC_GROUPED_MATMUL_V3_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnGroupedMatmulV3: Float paths (x, weight, y of one dtype; bias FLOAT16 with
 * FLOAT16, FLOAT with BFLOAT16 and FLOAT): groupType -1 with lists x/weight/y of one length
 * (splitItem 0 or 1, x_i 2-D to 6-D, weight_i (k, n_i), no groupList); groupType 0 with y one (m,
 * n) tensor (splitItem 2 or 3): x one (m, k) tensor and weight one (g, k, n) tensor or a list of g
 * (k, n) tensors, groupList required (g values), or x a list of g (m_i, k) tensors (groupList
 * optional, its differences must be the m_i); groupType 2 (splitItem 2 or 3): x one (m, k) tensor
 * stored transposed, weight one (k, n) tensor, y (g, m, n), groupList required. groupList:
 * non-decreasing, non-negative, at most the grouped size (checked at run time: 507015); rows past
 * its last value are left untouched. FLOAT needs every list to hold one tensor (as CANN). Weights
 * may be transposed views; bias per group (g, n) single or (n_i) per tensor. Products are fp32 sums
 * (the matmul family's sgemm), rounded once. Quantised and antiquant inputs (INT8 x or weight,
 * scaleOptional, offsetOptional, antiquant*) are not supported: 161002 naming the argument. Errors:
 * 161001 NULL x, weight, y or list element; 161002 bad dtype, shape, list length, splitItem,
 * groupType or groupList. x: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnGroupedMatmulV3GetWorkspaceSize(const aclTensorList *x, const aclTensorList *weight, const aclTensorList *biasOptional, const aclTensorList *scaleOptional, const aclTensorList *offsetOptional, const aclTensorList *antiquantScaleOptional, const aclTensorList *antiquantOffsetOptional, const aclTensor *groupListOptional, int64_t splitItem, int64_t groupType, const aclTensorList *y, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnGroupedMatmulV3(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_GROUPED_MATMUL_V3_H_ */
