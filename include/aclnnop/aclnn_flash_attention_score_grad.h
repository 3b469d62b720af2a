/**
 * @file aclnn_flash_attention_score_grad.h
 * The gradient of FlashAttentionScore: dq, dk, dv (and dpse) from dy, recomputing the softmax from
 * the forward's row max and sum.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_FLASH_ATTENTION_SCORE_GRAD_H_
#define OP_API_INC_FLASH_ATTENTION_SCORE_GRAD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnFlashAttentionScoreGrad: The gradient of FlashAttentionScore from query, keyIn,
 * value, dy (attentionOut's gradient), attentionInOptional (the forward's output) and
 * softmaxMaxOptional / softmaxSumOptional (its [B,N,S,8] statistics), all required; the other
 * arguments as the forward takes them. dqOut (query's shape), dkOut, dvOut (keyIn's shape): query's
 * dtype. dpseOut (NULL: not computed; not written for the generated pse of pseType 2 and 3): the
 * pse's shape and dtype, which must not be broadcast over batches or rows. softmaxInOptional and
 * paddingMaskOptional are reserved and ignored. Errors: 161001 NULL required argument; 161002 as
 * the forward, or an output of the wrong shape or dtype. query: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnFlashAttentionScoreGradGetWorkspaceSize(const aclTensor *query, const aclTensor *keyIn, const aclTensor *value, const aclTensor *dy, const aclTensor *pseShiftOptional, const aclTensor *dropMaskOptional, const aclTensor *paddingMaskOptional, const aclTensor *attenMaskOptional, const aclTensor *softmaxMaxOptional, const aclTensor *softmaxSumOptional, const aclTensor *softmaxInOptional, const aclTensor *attentionInOptional, const aclIntArray *prefixOptional, double scaleValue, double keepProb, int64_t preTokens, int64_t nextTokens, int64_t headNum, char *inputLayout, int64_t innerPrecise, int64_t sparseMode, const aclTensor *dqOut, const aclTensor *dkOut, const aclTensor *dvOut, const aclTensor *dpseOut, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnFlashAttentionScoreGrad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * Phase 1 of aclnnFlashAttentionScoreGradV2: checks the arguments and plans the computation. query:
 * FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnFlashAttentionScoreGradV2GetWorkspaceSize(const aclTensor *query, const aclTensor *keyIn, const aclTensor *value, const aclTensor *dy, const aclTensor *pseShiftOptional, const aclTensor *dropMaskOptional, const aclTensor *paddingMaskOptional, const aclTensor *attenMaskOptional, const aclTensor *softmaxMaxOptional, const aclTensor *softmaxSumOptional, const aclTensor *softmaxInOptional, const aclTensor *attentionInOptional, const aclIntArray *prefixOptional, const aclIntArray *qStartIdxOptional, const aclIntArray *kvStartIdxOptional, double scaleValue, double keepProb, int64_t preTokens, int64_t nextTokens, int64_t headNum, char *inputLayout, int64_t innerPrecise, int64_t sparseMode, int64_t pseType, const aclTensor *dqOut, const aclTensor *dkOut, const aclTensor *dvOut, const aclTensor *dpseOut, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnFlashAttentionScoreGradV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * Phase 1 of aclnnFlashAttentionUnpaddingScoreGrad: The gradient of FlashAttentionVarLenScore
 * (inputLayout TND, the cumulative lengths): dqOut [Tq,N,D], dkOut / dvOut [Tkv,Nkv,D], from the
 * forward's [Tq,N,8] statistics; the other arguments as FlashAttentionScoreGrad takes them. Errors
 * as FlashAttentionScoreGrad and FlashAttentionVarLenScore. query: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnFlashAttentionUnpaddingScoreGradGetWorkspaceSize(const aclTensor *query, const aclTensor *keyIn, const aclTensor *value, const aclTensor *dy, const aclTensor *pseShiftOptional, const aclTensor *dropMaskOptional, const aclTensor *paddingMaskOptional, const aclTensor *attenMaskOptional, const aclTensor *softmaxMaxOptional, const aclTensor *softmaxSumOptional, const aclTensor *softmaxInOptional, const aclTensor *attentionInOptional, const aclIntArray *prefixOptional, const aclIntArray *actualSeqQLenOptional, const aclIntArray *actualSeqKvLenOptional, double scaleValue, double keepProb, int64_t preTokens, int64_t nextTokens, int64_t headNum, char *inputLayout, int64_t innerPrecise, int64_t sparseMode, const aclTensor *dqOut, const aclTensor *dkOut, const aclTensor *dvOut, const aclTensor *dpseOut, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnFlashAttentionUnpaddingScoreGrad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * Phase 1 of aclnnFlashAttentionUnpaddingScoreGradV2: checks the arguments and plans the
 * computation. query: FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnFlashAttentionUnpaddingScoreGradV2GetWorkspaceSize(const aclTensor *query, const aclTensor *keyIn, const aclTensor *value, const aclTensor *dy, const aclTensor *pseShiftOptional, const aclTensor *dropMaskOptional, const aclTensor *paddingMaskOptional, const aclTensor *attenMaskOptional, const aclTensor *softmaxMaxOptional, const aclTensor *softmaxSumOptional, const aclTensor *softmaxInOptional, const aclTensor *attentionInOptional, const aclIntArray *prefixOptional, const aclIntArray *actualSeqQLenOptional, const aclIntArray *actualSeqKvLenOptional, const aclIntArray *qStartIdxOptional, const aclIntArray *kvStartIdxOptional, double scaleValue, double keepProb, int64_t preTokens, int64_t nextTokens, int64_t headNum, char *inputLayout, int64_t innerPrecise, int64_t sparseMode, int64_t pseType, const aclTensor *dqOut, const aclTensor *dkOut, const aclTensor *dvOut, const aclTensor *dpseOut, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnFlashAttentionUnpaddingScoreGradV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_FLASH_ATTENTION_SCORE_GRAD_H_ */
