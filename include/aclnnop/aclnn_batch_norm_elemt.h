/**
 * @file aclnn_batch_norm_elemt.h
 * output = (input - mean) * invstd * weight + bias with given per-channel mean and invstd.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_BATCH_NORM_ELEMT_H_
#define OP_API_INC_BATCH_NORM_ELEMT_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnBatchNormElemt: eps is accepted for compatibility (invstd already includes it).
 * Errors: 161001 NULL argument; 161002 bad dtype, rank, format, channel count, eps < 0. input:
 * FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnBatchNormElemtGetWorkspaceSize(const aclTensor *input, const aclTensor *weight, const aclTensor *bias, aclTensor *mean, aclTensor *invstd, double eps, aclTensor *output, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnBatchNormElemt(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_BATCH_NORM_ELEMT_H_ */
