/**
 * @file aclnn_layer_norm.h
 * out = (x - E[x]) / sqrt(Var[x] + eps) * weight + bias over the trailing dims given by
 * normalizedShape.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_LAYER_NORM_H_
#define OP_API_INC_LAYER_NORM_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnLayerNorm: input FLOAT, FLOAT16 or BFLOAT16; weight/bias (optional) shaped
 * normalizedShape, input's dtype or FLOAT; meanOut/rstdOut (optional) with one value per row (shape
 * [A..., 1...]), input's dtype or FLOAT. Statistics in fp64. Errors: 161001 NULL argument; 161002
 * bad dtype, shape, normalizedShape, eps < 0. input: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnLayerNormGetWorkspaceSize(const aclTensor *input, const aclIntArray *normalizedShape, const aclTensor *weightOptional, const aclTensor *biasOptional, double eps, aclTensor *out, aclTensor *meanOutOptional, aclTensor *rstdOutOptional, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnLayerNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_LAYER_NORM_H_ */
