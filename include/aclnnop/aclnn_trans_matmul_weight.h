/**
 * @file aclnn_trans_matmul_weight.h
 * Matmul weight preparation. cannon's FRACTAL_NZ storage is the ND layout itself: TransMatmulWeight
 * validates the weight and leaves its bytes as they are, and every matmul (Mm, BatchMatMul, Matmul,
 * Mv, WeightQuantBatchMatmulV2) reads a weight tagged ACL_FORMAT_FRACTAL_NZ through its view's
 * shape and strides, as ND. The size helpers return the element count CANN's NZ layout needs (the
 * last two dims rounded up), which is at least the ND size, so buffers sized by them hold the ND
 * weight.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_TRANS_MATMUL_WEIGHT_H_
#define OP_API_INC_TRANS_MATMUL_WEIGHT_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnTransMatmulWeight: @p mmWeightRef: 2-6 dims, not empty, format ND (or FRACTAL_NZ:
 * already converted), any strides. Records no kernel (workspace 0); phase 2 may run on a NULL
 * stream. Errors: 161001 NULL argument; 161002 bad dtype, rank, format or an empty weight.
 * mmWeightRef: FLOAT16, BFLOAT16, INT8.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnTransMatmulWeightGetWorkspaceSize(aclTensor *mmWeightRef, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnTransMatmulWeight(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * aclnnCalculateMatmulWeightSizeV2: One-phase: *weightTensorSize = the elements of a weight of
 * shape @p tensorShape (2-6 dims (batch..., n, k), each >= 0) in the NZ layout: the batch dims'
 * product times n rounded up to 16 times k rounded up to 16 (FLOAT16, BFLOAT16) or 32 (INT8).
 * Errors: 161001 NULL tensorShape or weightTensorSize; 161002 an empty array, a rank outside 2-6, a
 * negative dim, a size beyond int64, or another dataType.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnCalculateMatmulWeightSizeV2(const aclIntArray *tensorShape, aclDataType dataType, uint64_t *weightTensorSize);

/**
 * aclnnCalculateMatmulWeightSize: As aclnnCalculateMatmulWeightSizeV2 for a FLOAT16 weight.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnCalculateMatmulWeightSize(const aclIntArray *tensorShape, uint64_t *weightTensorSize);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_TRANS_MATMUL_WEIGHT_H_ */
