/**
 * @file aclnn_addcdiv.h
 * out = self + value * (tensor1 / tensor2), elementwise over the broadcast of the three tensors
 * (Addcdiv; InplaceAddcdiv into selfRef).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_ADDCDIV_H_
#define OP_API_INC_ADDCDIV_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnAddcdiv: self, tensor1, tensor2 and out FLOAT, FLOAT16, BFLOAT16, DOUBLE or
 * INT64, any strides, rank <= 8; computed in the promoted type of the three tensors (16-bit floats
 * in fp32, rounded once; INT64 with a truncating quotient, 0 for a zero divisor), which must cast
 * to out; value converts to it (a floating value with an INT64 result is refused); out has the
 * broadcast shape. Errors: 161001 NULL argument; 161002 unsupported dtype, no castable result,
 * shapes that do not broadcast, out not of the broadcast shape. self: FLOAT, FLOAT16, BFLOAT16,
 * DOUBLE, INT64.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnAddcdivGetWorkspaceSize(const aclTensor *self, const aclTensor *tensor1, const aclTensor *tensor2, const aclScalar *value, const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnAddcdiv(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/**
 * Phase 1 of aclnnInplaceAddcdiv: As Addcdiv with out = selfRef: the broadcast shape must be
 * selfRef's own. selfRef: FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT64.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceAddcdivGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *tensor1, const aclTensor *tensor2, const aclScalar *value, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceAddcdiv(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_ADDCDIV_H_ */
