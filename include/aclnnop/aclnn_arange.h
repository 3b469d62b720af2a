/**
 * @file aclnn_arange.h
 * out[i] = start + i * step for i in [0, n), n = ceil((end - start) / step).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_ARANGE_H_
#define OP_API_INC_ARANGE_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnArange: @p start, @p end, @p step: FLOAT, FLOAT16, BFLOAT16, DOUBLE, UINT8, INT8,
 * INT16, INT32, INT64 or BOOL scalars. @p out: FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT32 or INT64,
 * any shape and strides, with n elements, n = ceil((end - start) / step) computed in double (the
 * count computed in float is accepted too). Floating outputs compute start + i * step in double and
 * round once; integer outputs compute in int64 from the scalars truncated to integers. Errors:
 * 161001 NULL argument; 161002 unsupported dtype, step 0 (compared in out's precision), step's sign
 * opposite to end - start, or out without n elements. start: FLOAT, FLOAT16, BFLOAT16, DOUBLE,
 * INT32, INT64.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnArangeGetWorkspaceSize(const aclScalar *start, const aclScalar *end, const aclScalar *step, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnArange(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_ARANGE_H_ */
