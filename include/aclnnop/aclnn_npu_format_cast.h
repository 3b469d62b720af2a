/**
 * @file aclnn_npu_format_cast.h
 * Format conversion between ND (or NCL, NCHW, NCDHW) and FRACTAL_NZ. cannon's FRACTAL_NZ storage is
 * the ND layout itself (see aclnn_trans_matmul_weight.h): NpuFormatCast copies srcTensor's elements
 * into dstTensor's view either way, and the matmuls read an NZ-tagged tensor as ND.
 * aclnnNpuFormatCastCalculateSizeAndFormat returns CANN's NZ storage shape (never fewer elements
 * than the view), so tensors built from it hold the ND data.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_NPU_FORMAT_CAST_H_
#define OP_API_INC_NPU_FORMAT_CAST_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnNpuFormatCast: @p srcTensor and @p dstTensor: the same dtype (INT8, UINT8, INT32,
 * UINT32, FLOAT, FLOAT16, BFLOAT16) and view shape, 2-6 dims, any strides; one of them ND, NCL,
 * NCHW or NCDHW, the other FRACTAL_NZ (29) or a FRACTAL_NZ_C0_x form (50-53). dstTensor's storage
 * shape is not read (CANN's is the one CalculateSizeAndFormat returns). Errors: 161001 NULL
 * argument; 161002 bad dtype, rank, shape or format pair. srcTensor: INT8, UINT8, INT32, UINT32,
 * FLOAT, FLOAT16, BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnNpuFormatCastGetWorkspaceSize(const aclTensor *srcTensor, aclTensor *dstTensor, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnNpuFormatCast(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * aclnnNpuFormatCastCalculateSizeAndFormat: One-phase: the storage shape and format of srcTensor
 * converted to @p dstFormat. srcTensor: INT8, UINT8, INT32, UINT32, FLOAT, FLOAT16 or BFLOAT16, 2-6
 * dims. To FRACTAL_NZ (29) from ND, NCL, NCHW or NCDHW: (batch..., ceil(d[-1] / C0), ceil(d[-2] /
 * 16), 16, C0), C0 = 32 bytes / the size of @p additionalDtype (-1: srcTensor's dtype; otherwise
 * one of srcTensor's dtypes), and *actualFormat = 29. From a FRACTAL_NZ form to ND, NCL, NCHW or
 * NCDHW: the view shape, *actualFormat = @p dstFormat. *dstShape is allocated with malloc and the
 * caller releases it (CANN's programs use delete[], which glibc accepts for this array of int64_t;
 * free is the matching call). Errors: 161001 NULL srcTensor, dstShape, dstShapeSize or
 * actualFormat; 161002 bad dtype, rank, additionalDtype or format pair; 561103 out of memory.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnNpuFormatCastCalculateSizeAndFormat(const aclTensor *srcTensor, const int dstFormat, int additionalDtype, int64_t **dstShape, uint64_t *dstShapeSize, int *actualFormat);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_NPU_FORMAT_CAST_H_ */
