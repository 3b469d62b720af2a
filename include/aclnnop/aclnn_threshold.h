/**
 * @file aclnn_threshold.h
 * selfRef = selfRef <= threshold ? value : selfRef, in place (InplaceThreshold).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_THRESHOLD_H_
#define OP_API_INC_THRESHOLD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnInplaceThreshold: selfRef FLOAT, FLOAT16, BFLOAT16 or integral; threshold and
 * value scalars of those dtypes. Compared in selfRef's dtype promoted with the scalars, which must
 * cast back to selfRef (an integral selfRef with a floating scalar is 161002); the scalars
 * converted to it first. NaN stays NaN. Errors: 161001 NULL argument; 161002 unsupported dtype or
 * conversion. selfRef: FLOAT, FLOAT16, BFLOAT16, UINT8, INT8, INT16, INT32, INT64.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceThresholdGetWorkspaceSize(aclTensor *selfRef, const aclScalar *threshold, const aclScalar *value, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceThreshold(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_THRESHOLD_H_ */
