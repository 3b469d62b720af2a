/**
 * @file aclnn_apply_rotary_pos_emb.h
 * The rotary position embedding (half mode) applied to query and key in place, cos and sin
 * broadcast over the heads: q = q * cos + rotate(q) * sin, k likewise.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_APPLY_ROTARY_POS_EMB_H_
#define OP_API_INC_APPLY_ROTARY_POS_EMB_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnApplyRotaryPosEmb: @p layout: 1 BSND, 2 SBND, 3 BNSD (rank 4) or 4 TND (rank 3).
 * @p queryRef, @p keyRef: that rank, one dtype (FLOAT, FLOAT16, BFLOAT16), any strides, the last
 * dim D even; updated in place. @p cos, @p sin: their dtype and rank, one shape, each dim the
 * query's and key's size or 1 (broadcast: N is 1 when query and key differ in heads), the last D.
 * rotate is cat(-x2, x1) of the row's halves. Computed in fp32, rounded once. Errors: 161001 NULL
 * argument; 161002 bad dtype, layout, rank, shapes or D. queryRef: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnApplyRotaryPosEmbGetWorkspaceSize(aclTensor *queryRef, aclTensor *keyRef, const aclTensor *cos, const aclTensor *sin, int64_t layout, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnApplyRotaryPosEmb(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_APPLY_ROTARY_POS_EMB_H_ */
