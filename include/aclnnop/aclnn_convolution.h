/**
 * @file aclnn_convolution.h
 * output = the 1-D, 2-D or 3-D convolution (or transposed convolution) of input with weight, plus
 * bias.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_CONVOLUTION_H_
#define OP_API_INC_CONVOLUTION_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnConvolution: @p input: (N, Cin, spatial...) with 1-3 spatial dims, any strides,
 * may be empty. @p weight: input's rank, (Cout, Cin/groups, k...) or, transposed, (Cin,
 * Cout/groups, k...); FLOAT, FLOAT16 or BFLOAT16 in any mix with input. @p bias: NULL or Cout
 * values along one dim. @p stride, @p dilation: one value > 0 per spatial dim; @p padding: one
 * value >= 0 per spatial dim (both sides), or for a forward 1-D / 2-D convolution a (begin, end)
 * pair per dim. @p outputPadding (transposed only): one value per spatial dim, each below the dim's
 * stride or dilation. @p groups in [1, 65535]. @p output: (N, Cout, out...) with out = (in + pads -
 * dilation*(k-1) - 1) / stride + 1, or transposed (in - 1)*stride - 2*padding + dilation*(k-1) +
 * outputPadding + 1; any float dtype forward, the promoted input/weight dtype transposed; any
 * strides. @p cubeMathType 0-3 is accepted and ignored: products and sums are in double, each
 * output rounded once. Errors: 161001 NULL argument (outputPadding only when transposed); 161002
 * bad dtype, rank, array length or value, groups, channel counts, bias, a kernel larger than the
 * padded input, output shape. input: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnConvolutionGetWorkspaceSize(const aclTensor *input, const aclTensor *weight, const aclTensor *bias, const aclIntArray *stride, const aclIntArray *padding, const aclIntArray *dilation, bool transposed, const aclIntArray *outputPadding, const int64_t groups, aclTensor *output, int8_t cubeMathType, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnConvolution(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_CONVOLUTION_H_ */
