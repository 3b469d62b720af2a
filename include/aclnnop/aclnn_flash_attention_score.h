/**
 * @file aclnn_flash_attention_score.h
 * Attention for training: attentionOut = Dropout(Softmax(Mask(scaleValue * (pse + query key^T),
 * attenMask)), keepProb) value per batch and head, key/value heads shared by groups of query heads,
 * with the softmax's row max and sum for the gradient.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_FLASH_ATTENTION_SCORE_H_
#define OP_API_INC_FLASH_ATTENTION_SCORE_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnFlashAttentionScore: query, key, value, attentionOutOut and realShiftOptional:
 * FLOAT, FLOAT16 or BFLOAT16, one dtype, any strides; inputLayout BSH ([B,S,H], H = N*D), SBH, BSND
 * or BNSD; key/value heads divide headNum (ratio <= 64); D <= 768. realShiftOptional [B,N,S,Skv],
 * [B,N,1,Skv] or [1,N,S,Skv], added before the scale (pseType 0 of V2: after; pseType 2 and 3:
 * FLOAT slopes [B,N] or [N], the pse -slope*|j - i + kvStartIdx - qStartIdx| (3: its square root)
 * generated in the kernel). attenMaskOptional BOOL or UINT8, 1 = masked, [B,N,S,Skv], [B,1,S,Skv],
 * [1,1,S,Skv] or [S,Skv]; sparseMode 0-6 with preTokens/nextTokens and prefixOptional as CANN
 * defines them (2-4 take the 2048x2048 optimised mask, 6 the 3072x2048 one; without a mask every
 * key is computed). keepProb in (0, 1]: below 1, dropMaskOptional UINT8 holds one keep bit per
 * score, bit f % 8 of byte f / 8 for f = ((b*N + n)*S + i)*Skv + j. softmaxMaxOut / softmaxSumOut:
 * FLOAT [B,N,S,8], the row max of the scaled scores and the sum of exp(score - max), each 8 times
 * (-inf and 0 for a row that sees no key, whose output is 0). paddingMaskOptional and softmaxOutOut
 * are reserved and ignored. Errors: 161001 NULL query, key, value, inputLayout, softmaxMaxOut,
 * softmaxSumOut, attentionOutOut, or dropMaskOptional with keepProb < 1; 161002 bad dtype, layout,
 * shape, head counts, sparseMode, pseType or keepProb. query: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnFlashAttentionScoreGetWorkspaceSize(const aclTensor *query, const aclTensor *key, const aclTensor *value, const aclTensor *realShiftOptional, const aclTensor *dropMaskOptional, const aclTensor *paddingMaskOptional, const aclTensor *attenMaskOptional, const aclIntArray *prefixOptional, double scaleValue, double keepProb, int64_t preTokens, int64_t nextTokens, int64_t headNum, char *inputLayout, int64_t innerPrecise, int64_t sparseMode, const aclTensor *softmaxMaxOut, const aclTensor *softmaxSumOut, const aclTensor *softmaxOutOut, const aclTensor *attentionOutOut, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnFlashAttentionScore(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * Phase 1 of aclnnFlashAttentionScoreV2: checks the arguments and plans the computation. query:
 * FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnFlashAttentionScoreV2GetWorkspaceSize(const aclTensor *query, const aclTensor *key, const aclTensor *value, const aclTensor *realShiftOptional, const aclTensor *dropMaskOptional, const aclTensor *paddingMaskOptional, const aclTensor *attenMaskOptional, const aclIntArray *prefixOptional, const aclIntArray *qStartIdxOptional, const aclIntArray *kvStartIdxOptional, double scaleValue, double keepProb, int64_t preTokens, int64_t nextTokens, int64_t headNum, char *inputLayout, int64_t innerPrecise, int64_t sparseMode, int64_t pseType, const aclTensor *softmaxMaxOut, const aclTensor *softmaxSumOut, const aclTensor *softmaxOutOut, const aclTensor *attentionOutOut, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnFlashAttentionScoreV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * Phase 1 of aclnnFlashAttentionVarLenScore: FlashAttentionScore over B sequences of different
 * lengths packed in inputLayout TND: query [Tq,N,D], key and value [Tkv,Nkv,D],
 * actualSeqQLenOptional / actualSeqKvLenOptional the B cumulative lengths (the last = Tq / Tkv; a
 * length may be 0); each sequence attends to its own keys only. Masks, pse and sparseMode apply
 * within each sequence, S and Skv being the longest (sparseMode 5 is not supported, 7 and 8 cut a
 * causal mask across split sequences as CANN defines them). softmaxMaxOut / softmaxSumOut: FLOAT
 * [Tq,N,8]. dropMaskOptional: one [N,Sq_b,Skv_b] block of keep bits per batch, in order. Errors as
 * FlashAttentionScore; 161001 NULL length array; 161002 lengths that decrease or do not end at T.
 * query: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnFlashAttentionVarLenScoreGetWorkspaceSize(const aclTensor *query, const aclTensor *key, const aclTensor *value, const aclTensor *realShiftOptional, const aclTensor *dropMaskOptional, const aclTensor *paddingMaskOptional, const aclTensor *attenMaskOptional, const aclIntArray *prefixOptional, const aclIntArray *actualSeqQLenOptional, const aclIntArray *actualSeqKvLenOptional, double scaleValue, double keepProb, int64_t preTokens, int64_t nextTokens, int64_t headNum, char *inputLayout, int64_t innerPrecise, int64_t sparseMode, const aclTensor *softmaxMaxOut, const aclTensor *softmaxSumOut, const aclTensor *softmaxOutOut, const aclTensor *attentionOutOut, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnFlashAttentionVarLenScore(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * Phase 1 of aclnnFlashAttentionVarLenScoreV2: checks the arguments and plans the computation.
 * query: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnFlashAttentionVarLenScoreV2GetWorkspaceSize(const aclTensor *query, const aclTensor *key, const aclTensor *value, const aclTensor *realShiftOptional, const aclTensor *dropMaskOptional, const aclTensor *paddingMaskOptional, const aclTensor *attenMaskOptional, const aclIntArray *prefixOptional, const aclIntArray *actualSeqQLenOptional, const aclIntArray *actualSeqKvLenOptional, const aclIntArray *qStartIdxOptional, const aclIntArray *kvStartIdxOptional, double scaleValue, double keepProb, int64_t preTokens, int64_t nextTokens, int64_t headNum, char *inputLayout, int64_t innerPrecise, int64_t sparseMode, int64_t pseType, const aclTensor *softmaxMaxOut, const aclTensor *softmaxSumOut, const aclTensor *softmaxOutOut, const aclTensor *attentionOutOut, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnFlashAttentionVarLenScoreV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_FLASH_ATTENTION_SCORE_H_ */
