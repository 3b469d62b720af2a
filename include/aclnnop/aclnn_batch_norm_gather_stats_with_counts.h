/**
 * @file aclnn_batch_norm_gather_stats_with_counts.h
 * Pools per-rank statistics: mean, invstd [world, C] and counts [world] -> meanAll, invstdAll [C].
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_BATCH_NORM_GATHER_STATS_WITH_COUNTS_H_
#define OP_API_INC_BATCH_NORM_GATHER_STATS_WITH_COUNTS_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnBatchNormGatherStatsWithCounts: The pooled variance is sum(n_i (var_i + (mean_i -
 * meanAll)^2)) / sum(n_i) (var_i recovered from invstd_i and eps); runningMean/runningVar
 * (optional) are updated with momentum and the unbiased pooled variance. Ranks with count 0 are
 * skipped. Errors: 161001 NULL argument; 161002 bad shapes/dtypes, eps < 0; at run time a negative
 * or non-finite count, or counts summing to 0, fail the stream with 161002 and write nothing.
 * input: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize(const aclTensor *input, const aclTensor *mean, const aclTensor *invstd, aclTensor *runningMean, aclTensor *runningVar, double momentum, double eps, const aclTensor *counts, aclTensor *meanAll, aclTensor *invstdAll, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnBatchNormGatherStatsWithCounts(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_BATCH_NORM_GATHER_STATS_WITH_COUNTS_H_ */
