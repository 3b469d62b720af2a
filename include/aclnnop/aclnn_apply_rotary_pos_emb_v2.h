/**
 * @file aclnn_apply_rotary_pos_emb_v2.h
 * ApplyRotaryPosEmb with a choice of rotation: "half", "interleave" or "quarter".
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_APPLY_ROTARY_POS_EMB_V2_H_
#define OP_API_INC_APPLY_ROTARY_POS_EMB_V2_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnApplyRotaryPosEmbV2: As ApplyRotaryPosEmb; @p rotaryMode: "half" (rotate =
 * cat(-x2, x1) of the halves), "interleave" (pairs (x[2i], x[2i+1]) -> (-x[2i+1], x[2i])) or
 * "quarter" (half mode within each half of the row; D a multiple of 4). Errors: 161001 NULL
 * argument (rotaryMode included); 161002 bad dtype, layout, rotaryMode, rank, shapes or D.
 * queryRef: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnApplyRotaryPosEmbV2GetWorkspaceSize(aclTensor *queryRef, aclTensor *keyRef, const aclTensor *cos, const aclTensor *sin, int64_t layout, char *rotaryMode, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnApplyRotaryPosEmbV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_APPLY_ROTARY_POS_EMB_V2_H_ */
