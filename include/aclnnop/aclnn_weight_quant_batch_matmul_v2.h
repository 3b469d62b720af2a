/**
 * @file aclnn_weight_quant_batch_matmul_v2.h
 * y = x @ ((weight + antiquantOffset) * antiquantScale) + bias: a matmul with an INT8 or INT4
 * weight dequantised per tensor, per output channel or per group of K rows.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_WEIGHT_QUANT_BATCH_MATMUL_V2_H_
#define OP_API_INC_WEIGHT_QUANT_BATCH_MATMUL_V2_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnWeightQuantBatchMatmulV2: @p x: (m, k), FLOAT16 or BFLOAT16. @p weight: (k, n),
 * INT8 or INT4 (two's-complement nibbles, element 2i in the low nibble of byte i; strides and
 * offset count nibbles), format ND or FRACTAL_NZ (read as ND), any strides (a transposed (n, k)
 * view included); an INT4 weight's inner (unit-stride) dim is even. @p antiquantScale: x's dtype;
 * (1,) or (1, 1) per tensor, (n,) or (1, n) per channel, (ceil(k / antiquantGroupSize), n) per
 * group. @p antiquantOffsetOptional: NULL or antiquantScale's dtype and shape. @p
 * quantScaleOptional and @p quantOffsetOptional (INT8 output quantisation) must be NULL. @p
 * biasOptional: NULL, or (n,) / (1, n), FLOAT16 for a FLOAT16 x, FLOAT for a BFLOAT16 x. @p
 * antiquantGroupSize: 0, or for per-group scales a multiple of 32 in [32, k - 1]. @p y: (m, n), x's
 * dtype, any strides. m >= 1, k and n in [1, 65535]. The weight is dequantised in fp32 and
 * multiplied in fp32 (sums in fp32), y rounded once. Errors: 161001 NULL x, weight, antiquantScale
 * or y; 161002 bad dtype, rank, shape, format, group size, an empty tensor, or quantScale /
 * quantOffset given. x: FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(const aclTensor *x, const aclTensor *weight, const aclTensor *antiquantScale, const aclTensor *antiquantOffsetOptional, const aclTensor *quantScaleOptional, const aclTensor *quantOffsetOptional, const aclTensor *biasOptional, int antiquantGroupSize, const aclTensor *y, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnWeightQuantBatchMatmulV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_WEIGHT_QUANT_BATCH_MATMUL_V2_H_ */
