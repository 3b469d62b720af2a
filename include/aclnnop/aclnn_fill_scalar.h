/**
 * @file aclnn_fill_scalar.h
 * selfRef = value everywhere.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_FILL_SCALAR_H_
#define OP_API_INC_FILL_SCALAR_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnInplaceFillScalar: Any strides, rank <= 8. value is converted to selfRef's dtype
 * (rounded to a floating type); complex selfRef takes a real value as (value, 0). Errors: 161001
 * NULL argument; 161002 unsupported dtype, a value dtype that does not cast to selfRef's (floating
 * into integral, non-BOOL into BOOL), an integral value selfRef's type cannot hold. selfRef: FLOAT,
 * FLOAT16, BFLOAT16, DOUBLE, UINT8, INT8, INT16, INT32, INT64, BOOL, UINT16, UINT32, UINT64,
 * COMPLEX64, COMPLEX128.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceFillScalarGetWorkspaceSize(aclTensor *selfRef, const aclScalar *value, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceFillScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_FILL_SCALAR_H_ */
