/**
 * @file aclnn_amp_update_scale.h
 * Dynamic loss scaling's update (torch's _amp_update_scale_): after an overflow the scale shrinks
 * by backoffFactor and the tracker restarts; otherwise the tracker counts finite steps and every
 * growthInterval of them the scale grows by growthFactor.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_AMP_UPDATE_SCALE_H_
#define OP_API_INC_AMP_UPDATE_SCALE_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnAmpUpdateScale: @p currentScale: FLOAT, one element. @p growthTracker: INT32, one
 * element. @p foundInf: FLOAT, one element (non-zero: the step overflowed). If foundInf: scale *
 * backoffFactor, tracker 0; else tracker + 1, and when that reaches @p growthInterval (> 0): scale
 * * growthFactor (kept only when finite in fp32), tracker 0. @p updatedScaleOut (FLOAT) and @p
 * updatedGrowthTrackerOut (INT32): one element each; may be the inputs themselves. Errors: 161001
 * NULL tensor; 161002 bad dtype or element count, growthInterval <= 0. currentScale: FLOAT.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnAmpUpdateScaleGetWorkspaceSize(const aclTensor *currentScale, const aclTensor *growthTracker, const aclTensor *foundInf, double growthFactor, double backoffFactor, int64_t growthInterval, const aclTensor *updatedScaleOut, const aclTensor *updatedGrowthTrackerOut, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnAmpUpdateScale(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_AMP_UPDATE_SCALE_H_ */
