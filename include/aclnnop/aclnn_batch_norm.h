/**
 * @file aclnn_batch_norm.h
 * y = (x - mean) / sqrt(var + eps) * weight + bias per channel (axis 1, or the last axis for
 * NHWC/NDHWC formats).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_BATCH_NORM_H_
#define OP_API_INC_BATCH_NORM_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnBatchNorm: Training uses the batch statistics (biased variance), writes saveMean
 * and saveInvstd = 1/sqrt(var + eps) (PyTorch's convention) and updates runningMean/runningVar with
 * momentum, the variance unbiased (N/(N-1)). Eval uses runningMean/runningVar. input/output FLOAT,
 * FLOAT16 or BFLOAT16, rank 2-8 (ND, NC, NCL, NCHW, NHWC, NCDHW, NDHWC); weight, bias, running and
 * save tensors 1-D of length C, any float dtype, optional except saveMean/saveInvstd in training.
 * Statistics in fp64. Errors: 161001 NULL argument; 161002 bad dtype, rank, format, channel count,
 * eps < 0, non-finite momentum, or an empty batch in training. input: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnBatchNormGetWorkspaceSize(const aclTensor *input, const aclTensor *weight, const aclTensor *bias, aclTensor *runningMean, aclTensor *runningVar, bool training, double momentum, double eps, aclTensor *output, aclTensor *saveMean, aclTensor *saveInvstd, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnBatchNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_BATCH_NORM_H_ */
