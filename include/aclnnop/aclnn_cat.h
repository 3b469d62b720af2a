/**
 * @file aclnn_cat.h
 * out = the tensors of the list joined along dim.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_CAT_H_
#define OP_API_INC_CAT_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnCat: @p tensors: 1 or more tensors of rank 1-8 and equal rank, equal sizes except
 * along @p dim (in [-rank, rank)); a 1-D tensor of size 0 is skipped whatever the others' shapes
 * (torch's legacy rule). dtypes: FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT8/16/32/64, UINT8/16/32/64,
 * BOOL, COMPLEX64 and the 8-bit float types. Tensors of out's dtype are copied bit for bit; with
 * mixed dtypes (BOOL, integer and floating types only) the torch promotion of the list must be
 * castable to out's dtype and each element is converted once to out's dtype. Any strides in and
 * out. Errors: 161001 NULL list, element or out; 161002 empty list, bad dtype, rank, dim or shapes.
 * tensors: FLOAT, FLOAT16, BFLOAT16, DOUBLE, UINT8, INT8, INT16, INT32, INT64, BOOL, UINT16,
 * UINT32, UINT64, COMPLEX64, HIFLOAT8, FLOAT8_E5M2, FLOAT8_E4M3FN, FLOAT8_E8M0.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnCatGetWorkspaceSize(const aclTensorList *tensors, int64_t dim, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnCat(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_CAT_H_ */
