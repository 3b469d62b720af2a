/**
 * @file aclnn_recurrent_gated_delta_rule.h
 * The recurrent gated delta rule of linear attention, per token t and value head: S = exp(g_t) * S
 * * diag(exp(gk_t)); S += beta_t (v_t - S k_t) k_t^T; o_t = S (scaleValue q_t), with the state S
 * (Dv x Dk) read from and written back to stateRef through ssmStateIndices.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_RECURRENT_GATED_DELTA_RULE_H_
#define OP_API_INC_RECURRENT_GATED_DELTA_RULE_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnRecurrentGatedDeltaRule: query, key (T, Nk, Dk), value (T, Nv, Dv), beta (T, Nv),
 * out (T, Nv, Dv): BFLOAT16; stateRef (BlockNum, Nv, Dv, Dk): BFLOAT16 or FLOAT; actualSeqLengths,
 * numAcceptedTokens (B): INT32; ssmStateIndices (T): INT32; g (T, Nv), gk (T, Nv, Dk): FLOAT,
 * optional (NULL: zeros). 0 < Nk <= Nv <= 256, Nv % Nk == 0 (value head h uses key head h / (Nv /
 * Nk)), 0 < Dk, Dv <= 512, T <= BlockNum. Sequence i (tokens after the previous ones) starts from
 * state [ssmStateIndices[start + numAcceptedTokens[i] - 1]] and each token writes its state to
 * [ssmStateIndices[t]]; sequences run in order. The state is carried in fp32 within a sequence. Run
 * time (507015): lengths negative or summing past T, numAcceptedTokens outside [1, L_i], indices
 * outside [0, BlockNum). Errors: 161001 NULL required argument; 161002 bad dtype, rank or shape.
 * query: BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnRecurrentGatedDeltaRuleGetWorkspaceSize(const aclTensor *query, const aclTensor *key, const aclTensor *value, const aclTensor *beta, aclTensor *stateRef, const aclTensor *actualSeqLengths, const aclTensor *ssmStateIndices, const aclTensor *g, const aclTensor *gk, const aclTensor *numAcceptedTokens, float scaleValue, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnRecurrentGatedDeltaRule(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_RECURRENT_GATED_DELTA_RULE_H_ */
