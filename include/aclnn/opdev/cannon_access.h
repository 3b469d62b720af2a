/**
 * @file cannon_access.h
 * cannon extension (not in CANN): read-only access to scalars, host arrays and lists for operator
 * implementations (libopapi, custom operators), complementing cannon/opdev.h's tensor views.
 * Implemented in libnnopbase.
 *
 * Every function validates its handle against libnnopbase's registry of live objects and returns
 * false / NULL / 0 for a NULL or non-live handle (recording a message for aclGetRecentErrMsg()).
 * Returned pointers point into the object and stay valid while it lives. Thread-safe for
 * concurrent readers.
 */
#ifndef CANNON_ACLNN_ACCESS_H_
#define CANNON_ACLNN_ACCESS_H_

#include <stdbool.h>
#include <stdint.h>

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The scalar's dtype (into @p dtype, may be NULL) and raw value: copies the value's bytes (1 to 16,
 * as for its dtype) into @p out, which must hold 16 bytes (may be NULL). False for a bad handle.
 */
ACL_FUNC_VISIBILITY bool cannonScalarGet(const aclScalar *s, aclDataType *dtype, void *out);
/** The scalar's value converted to double (complex: the real part; fp16/bf16 widened). 0 on a bad handle. */
ACL_FUNC_VISIBILITY double cannonScalarToDouble(const aclScalar *s);
/** The scalar's value converted to int64 (floats truncated toward zero, saturating). 0 on a bad handle. */
ACL_FUNC_VISIBILITY int64_t cannonScalarToInt64(const aclScalar *s);

/** The array's values and count (into @p size, may be NULL). NULL (and size 0) on a bad handle or an empty array. */
ACL_FUNC_VISIBILITY const int64_t *cannonIntArrayData(const aclIntArray *a, uint64_t *size);
/** As cannonIntArrayData, for float arrays. */
ACL_FUNC_VISIBILITY const float *cannonFloatArrayData(const aclFloatArray *a, uint64_t *size);
/** As cannonIntArrayData, for bool arrays. */
ACL_FUNC_VISIBILITY const bool *cannonBoolArrayData(const aclBoolArray *a, uint64_t *size);

/** Element @p i of a tensor list (may be NULL: an absent element). NULL on a bad handle or index. */
ACL_FUNC_VISIBILITY const aclTensor *cannonTensorListGet(const aclTensorList *l, uint64_t i);
/** Element @p i of a scalar list. NULL on a bad handle or index. */
ACL_FUNC_VISIBILITY const aclScalar *cannonScalarListGet(const aclScalarList *l, uint64_t i);

#ifdef __cplusplus
}
#endif

#endif /* CANNON_ACLNN_ACCESS_H_ */
