/**
 * @file aclnn_fused_infer_attention_score_v2.h
 * Attention for inference (full and incremental): attentionOut = softmax(scaleValue * query key^T +
 * pseShift, masked) value per batch and head, key/value heads shared by groups of query heads.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_FUSED_INFER_ATTENTION_SCORE_V2_H_
#define OP_API_INC_FUSED_INFER_ATTENTION_SCORE_V2_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnFusedInferAttentionScoreV2: query, key and value (one-tensor lists) and
 * attentionOut: FLOAT16 or BFLOAT16, one dtype, any strides; inputLayout BSH ([B,S,H], H = N*D),
 * BSND, BNSD or BNSD_BSND (BNSD in, BSND out). numKeyValueHeads (0: numHeads) divides numHeads
 * (ratio <= 64). pseShiftOptional: query's dtype, [B or 1, N, >= S, >= Skv], added after the scale.
 * attenMaskOptional: BOOL, INT8 or UINT8, non-zero = masked, [S,Skv], [B or 1,S,Skv] or [B or 1,N
 * or 1,S,Skv] (trailing dims may be padded larger; [B,Skv] when S is 1). sparseMode 0-4 with
 * preTokens/nextTokens as CANN defines them (ignored when S is 1); actualSeqLengths(Kv)Optional
 * limit each batch's rows and keys. A fully masked row gives 0. softmaxLseFlag: softmaxLse FLOAT32
 * [B,N,S,1] gets log(sum(exp)) per row (-inf when fully masked). Quantisation, page attention,
 * padding sizes and shared prefixes are not supported. Errors: 161001 NULL query, key, value,
 * attentionOut, inputLayout (or softmaxLse with the flag); 161002 bad dtype, layout, shape, head
 * counts, sparseMode, or an unsupported optional input. query: FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnFusedInferAttentionScoreV2GetWorkspaceSize(const aclTensor *query, const aclTensorList *key, const aclTensorList *value, const aclTensor *pseShiftOptional, const aclTensor *attenMaskOptional, const aclIntArray *actualSeqLengthsOptional, const aclIntArray *actualSeqLengthsKvOptional, const aclTensor *deqScale1Optional, const aclTensor *quantScale1Optional, const aclTensor *deqScale2Optional, const aclTensor *quantScale2Optional, const aclTensor *quantOffset2Optional, const aclTensor *antiquantScaleOptional, const aclTensor *antiquantOffsetOptional, const aclTensor *blockTableOptional, const aclTensor *queryPaddingSizeOptional, const aclTensor *kvPaddingSizeOptional, const aclTensor *keyAntiquantScaleOptional, const aclTensor *keyAntiquantOffsetOptional, const aclTensor *valueAntiquantScaleOptional, const aclTensor *valueAntiquantOffsetOptional, const aclTensor *keySharedPrefixOptional, const aclTensor *valueSharedPrefixOptional, const aclIntArray *actualSharedPrefixLenOptional, int64_t numHeads, double scaleValue, int64_t preTokens, int64_t nextTokens, char *inputLayout, int64_t numKeyValueHeads, int64_t sparseMode, int64_t innerPrecise, int64_t blockSize, int64_t antiquantMode, bool softmaxLseFlag, int64_t keyAntiquantMode, int64_t valueAntiquantMode, const aclTensor *attentionOut, const aclTensor *softmaxLse, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnFusedInferAttentionScoreV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_FUSED_INFER_ATTENTION_SCORE_V2_H_ */
