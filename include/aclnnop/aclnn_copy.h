/**
 * @file aclnn_copy.h
 * selfRef = src: src broadcast to selfRef's shape and converted to its dtype.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_COPY_H_
#define OP_API_INC_COPY_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnInplaceCopy: Any strides and offsets on both sides, rank <= 8. Same dtypes copy
 * the bytes (complex and unsigned types too); different real dtypes convert as aclnnCast (one
 * rounding; floats to integers truncate, NaN gives 0); complex and real dtypes do not convert into
 * each other. Errors: 161001 NULL argument; 161002 unsupported dtype or conversion, src not
 * broadcastable to selfRef. selfRef: FLOAT, FLOAT16, BFLOAT16, DOUBLE, UINT8, INT8, INT16, INT32,
 * INT64, BOOL, UINT16, UINT32, UINT64, COMPLEX64, COMPLEX128.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceCopyGetWorkspaceSize(aclTensor *selfRef, const aclTensor *src, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceCopy(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_COPY_H_ */
