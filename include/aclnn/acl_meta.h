/**
 * @file acl_meta.h
 * Host-side descriptors of the aclnn operator API (implemented in libnnopbase): tensors (views
 * into device memory), scalars, host arrays, tensor and scalar lists, and the executor handle
 * that an operator's phase 1 returns. Source-compatible with CANN's header of the same name.
 *
 * Conventions (every function):
 *  - Functions returning aclnnStatus return ACLNN_SUCCESS (0) or a code of aclnn/opdev/op_errno.h;
 *    constructors return NULL on failure. Either way the reason is recorded for
 *    aclGetRecentErrMsg(); nothing is printed and nothing aborts.
 *  - Handles are validated before use: libnnopbase keeps a registry of live objects, so a
 *    destroyed handle, a handle of another kind, or a foreign pointer is rejected
 *    (ACLNN_ERR_PARAM_INVALID, or ACLNN_ERR_INNER for executors, as CANN) and never dereferenced.
 *    (A pointer that the allocator has since reused for a new object of the same kind cannot be
 *    told apart from it.)
 *  - Destroying NULL is a no-op returning ACLNN_SUCCESS (CANN's behaviour), except for
 *    aclDestroyAclOpExecutor (ACLNN_ERR_INNER_NULLPTR, as CANN).
 *  - Threading: creating, destroying and querying different objects from different threads is
 *    safe. One object must not be destroyed while another thread uses it.
 *  - Descriptors never own device memory: destroying a tensor frees only the descriptor.
 */
#ifndef CANNON_ACLNN_ACL_META_H_
#define CANNON_ACLNN_ACL_META_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ACLNN_META
#define ACLNN_META
typedef struct aclOpExecutor aclOpExecutor; /**< a recorded operator plan (phase 1 → phase 2) */
typedef struct aclTensor aclTensor;         /**< a strided view into device memory */
typedef struct aclScalar aclScalar;         /**< a host value of some dtype */
typedef struct aclIntArray aclIntArray;     /**< a host array of int64_t */
typedef struct aclFloatArray aclFloatArray; /**< a host array of float */
typedef struct aclBoolArray aclBoolArray;   /**< a host array of bool */
typedef struct aclTensorList aclTensorList; /**< a list of tensors (owns them, see below) */
typedef struct aclScalarList aclScalarList; /**< a list of scalars (owns them, see below) */

/** Status of every aclnn call: ACLNN_SUCCESS or a code of aclnn/opdev/op_errno.h. */
typedef int32_t aclnnStatus;
#endif

/* ---- tensors -------------------------------------------------------------------------------- */

/**
 * Describe a view of @p viewDimsNum dimensions (0 = a scalar tensor, at most 32) into a storage
 * buffer at device address @p tensorData (may be NULL while only building descriptors).
 * @p stride (elements, one per view dim; NULL = row-major contiguous) and @p offset (elements
 * from @p tensorData) place the view like torch's as_strided. @p storageDims (may be NULL with
 * @p storageDimsNum 0) is the physical buffer's shape; when given, every element the view can
 * reach must lie inside it. All values are copied; the tensor does not own @p tensorData.
 * Returns NULL (with a message) for: NULL viewDims/storageDims with a non-zero count, a rank
 * above 32, negative dims, strides or offset, element counts overflowing int64, or a view that
 * does not fit its storage. Destroy with aclDestroyTensor.
 */
ACL_FUNC_VISIBILITY aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                                               const int64_t *stride, int64_t offset, aclFormat format,
                                               const int64_t *storageDims, uint64_t storageDimsNum,
                                               void *tensorData);

/**
 * Re-describe an existing tensor with the arguments of aclCreateTensor (same checks). On failure
 * the tensor is left unchanged. Errors: NULL @p tensor → ACLNN_ERR_PARAM_NULLPTR; a tensor that is
 * not live or invalid arguments → ACLNN_ERR_PARAM_INVALID. Executors built earlier keep the
 * description they recorded.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclInitTensor(aclTensor *tensor, const int64_t *viewDims, uint64_t viewDimsNum,
                                              aclDataType dataType, const int64_t *stride, int64_t offset,
                                              aclFormat format, const int64_t *storageDims, uint64_t storageDimsNum,
                                              void *tensorDataAddr);

/** Free a tensor descriptor (not its memory). NULL → ACLNN_SUCCESS; not live → ACLNN_ERR_PARAM_INVALID. */
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensor(const aclTensor *tensor);

/**
 * The view shape: @p *viewDims receives a new array of @p *viewDimsNum values allocated with
 * malloc, which the caller frees with free() (CANN allocates with new[]; the array is never NULL
 * on success, even for rank 0). Errors: any NULL argument → ACLNN_ERR_PARAM_NULLPTR; a tensor that
 * is not live → ACLNN_ERR_PARAM_INVALID; out of memory → ACLNN_ERR_INNER_NULLPTR.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum);
/** The storage shape as given at creation (possibly 0 dims), returned as aclGetViewShape does. */
ACL_FUNC_VISIBILITY aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims,
                                                   uint64_t *storageDimsNum);
/** The view strides in elements (computed when created with NULL), returned as aclGetViewShape does. */
ACL_FUNC_VISIBILITY aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue,
                                                  uint64_t *stridesNum);
/** The view offset in elements. Errors as aclGetViewShape. */
ACL_FUNC_VISIBILITY aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset);
/** The format given at creation. Errors as aclGetViewShape. */
ACL_FUNC_VISIBILITY aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format);
/** The element type given at creation. Errors as aclGetViewShape. */
ACL_FUNC_VISIBILITY aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType);

/**
 * Point the tensor at other storage (shape, strides and offset unchanged). Executors already built
 * are not affected: re-point those with aclSetInputTensorAddr / aclSetOutputTensorAddr.
 * Errors: NULL tensor → ACLNN_ERR_PARAM_NULLPTR; not live → ACLNN_ERR_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclSetRawTensorAddr(aclTensor *tensor, void *addr);
/** The storage address. Errors: any NULL argument → ACLNN_ERR_PARAM_NULLPTR; not live → ACLNN_ERR_PARAM_INVALID. */
ACL_FUNC_VISIBILITY aclnnStatus aclGetRawTensorAddr(const aclTensor *tensor, void **addr);

/* ---- scalars and host arrays ------------------------------------------------------------------ */

/**
 * A scalar holding a copy of the host value at @p value, read as @p dataType: ACL_BOOL, (U)INT8,
 * (U)INT16, (U)INT32, (U)INT64, ACL_FLOAT16, ACL_BF16, ACL_FLOAT, ACL_DOUBLE, ACL_COMPLEX32,
 * ACL_COMPLEX64, ACL_COMPLEX128. Returns NULL (with a message) for a NULL @p value, another
 * dtype, or out of memory. Destroy with aclDestroyScalar.
 */
ACL_FUNC_VISIBILITY aclScalar *aclCreateScalar(void *value, aclDataType dataType);
/** Free a scalar. NULL → ACLNN_SUCCESS; not live → ACLNN_ERR_PARAM_INVALID. */
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyScalar(const aclScalar *scalar);

/**
 * A host array holding a copy of @p size values (size 0 allowed, @p value may then be NULL).
 * Returns NULL (with a message) for NULL @p value with size > 0, or out of memory.
 */
ACL_FUNC_VISIBILITY aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size);
/** As aclCreateIntArray, for float values. */
ACL_FUNC_VISIBILITY aclFloatArray *aclCreateFloatArray(const float *value, uint64_t size);
/** As aclCreateIntArray, for bool values. */
ACL_FUNC_VISIBILITY aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size);
/** Free an array. NULL → ACLNN_SUCCESS; not live → ACLNN_ERR_PARAM_INVALID. */
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyIntArray(const aclIntArray *array);
/** Free an array. NULL → ACLNN_SUCCESS; not live → ACLNN_ERR_PARAM_INVALID. */
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyFloatArray(const aclFloatArray *array);
/** Free an array. NULL → ACLNN_SUCCESS; not live → ACLNN_ERR_PARAM_INVALID. */
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyBoolArray(const aclBoolArray *array);
/** Number of values. Errors: NULL argument → ACLNN_ERR_PARAM_NULLPTR; not live → ACLNN_ERR_PARAM_INVALID. */
ACL_FUNC_VISIBILITY aclnnStatus aclGetIntArraySize(const aclIntArray *array, uint64_t *size);
/** Number of values. Errors as aclGetIntArraySize. */
ACL_FUNC_VISIBILITY aclnnStatus aclGetFloatArraySize(const aclFloatArray *array, uint64_t *size);
/** Number of values. Errors as aclGetIntArraySize. */
ACL_FUNC_VISIBILITY aclnnStatus aclGetBoolArraySize(const aclBoolArray *array, uint64_t *size);

/* ---- lists -------------------------------------------------------------------------------------- */

/**
 * A list of @p size tensors. As in CANN, the list takes ownership of its elements:
 * aclDestroyTensorList destroys them too, so the caller must not destroy them separately.
 * Elements may be NULL (absent optional tensors). The pointer array is copied.
 * Returns NULL (with a message) for NULL @p value with size > 0, an element that is not a live
 * tensor, or out of memory.
 */
ACL_FUNC_VISIBILITY aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size);
/** As aclCreateTensorList, for scalars (the list owns and destroys them). */
ACL_FUNC_VISIBILITY aclScalarList *aclCreateScalarList(const aclScalar *const *value, uint64_t size);
/**
 * Free a list and the tensors it holds (elements destroyed already are reported and skipped).
 * NULL → ACLNN_SUCCESS; not live → ACLNN_ERR_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensorList(const aclTensorList *array);
/** Free a list and the scalars it holds. NULL → ACLNN_SUCCESS; not live → ACLNN_ERR_PARAM_INVALID. */
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyScalarList(const aclScalarList *array);
/** Number of elements. Errors as aclGetIntArraySize. */
ACL_FUNC_VISIBILITY aclnnStatus aclGetTensorListSize(const aclTensorList *tensorList, uint64_t *size);
/** Number of elements. Errors as aclGetIntArraySize. */
ACL_FUNC_VISIBILITY aclnnStatus aclGetScalarListSize(const aclScalarList *scalarList, uint64_t *size);

/* ---- executors ---------------------------------------------------------------------------------- */

/**
 * Make an executor returned by an operator's phase 1 reusable: phase 2 may then run it any number
 * of times (one run at a time per executor) and it must be freed with aclDestroyAclOpExecutor.
 * Must be called before its first run (a non-repeatable executor is freed by its run).
 * Errors: NULL → ACLNN_ERR_INNER_NULLPTR; not a live executor → ACLNN_ERR_INNER.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor);

/**
 * Free an executor that will not be run (or a repeatable one). Not thread-safe with a concurrent
 * phase 2 on the same executor. Errors: NULL → ACLNN_ERR_INNER_NULLPTR; not a live executor
 * (already run and freed, destroyed, foreign) → ACLNN_ERR_INNER.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor);

/**
 * Re-point the @p index-th input (in the operator's documented input order, optional inputs
 * included) of @p executor at device address @p addr, and set @p tensor's storage address to it
 * too. Shape, strides and offset stay as recorded at phase 1. Typically used on a repeatable
 * executor between runs. Errors: NULL tensor or executor → ACLNN_ERR_INNER_NULLPTR (as CANN);
 * tensor not live or index out of range → ACLNN_ERR_PARAM_INVALID; not a live executor →
 * ACLNN_ERR_INNER.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclSetInputTensorAddr(aclOpExecutor *executor, const size_t index,
                                                      aclTensor *tensor, void *addr);
/** As aclSetInputTensorAddr, for the @p index-th output. */
ACL_FUNC_VISIBILITY aclnnStatus aclSetOutputTensorAddr(aclOpExecutor *executor, const size_t index,
                                                       aclTensor *tensor, void *addr);
/** As aclSetInputTensorAddr, with @p index counting the inputs first, then the outputs. */
ACL_FUNC_VISIBILITY aclnnStatus aclSetTensorAddr(aclOpExecutor *executor, const size_t index,
                                                 aclTensor *tensor, void *addr);
/**
 * Re-point element @p relativeIndex of a tensor-list input at @p addr. cannon's executors record
 * list elements as individual inputs, so the element is found by identity among the executor's
 * inputs and @p irIndex is not needed (accepted for compatibility). Errors as
 * aclSetInputTensorAddr; NULL list → ACLNN_ERR_INNER_NULLPTR; @p relativeIndex out of the list, or
 * an element the executor did not record → ACLNN_ERR_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclSetDynamicInputTensorAddr(aclOpExecutor *executor, size_t irIndex,
                                                             const size_t relativeIndex, aclTensorList *tensors,
                                                             void *addr);
/** As aclSetDynamicInputTensorAddr, for a tensor-list output. */
ACL_FUNC_VISIBILITY aclnnStatus aclSetDynamicOutputTensorAddr(aclOpExecutor *executor, size_t irIndex,
                                                              const size_t relativeIndex, aclTensorList *tensors,
                                                              void *addr);
/** As aclSetDynamicInputTensorAddr, searching inputs and outputs. */
ACL_FUNC_VISIBILITY aclnnStatus aclSetDynamicTensorAddr(aclOpExecutor *executor, size_t irIndex,
                                                        const size_t relativeIndex, aclTensorList *tensors,
                                                        void *addr);

/* CANN's legacy capitalised names of the setters above (same behaviour). */
ACL_FUNC_VISIBILITY aclnnStatus AclSetInputTensorAddr(aclOpExecutor *executor, const size_t index,
                                                      aclTensor *tensor, void *addr);
ACL_FUNC_VISIBILITY aclnnStatus AclSetOutputTensorAddr(aclOpExecutor *executor, const size_t index,
                                                       aclTensor *tensor, void *addr);
ACL_FUNC_VISIBILITY aclnnStatus AclSetTensorAddr(aclOpExecutor *executor, const size_t index,
                                                 aclTensor *tensor, void *addr);
ACL_FUNC_VISIBILITY aclnnStatus AclSetDynamicInputTensorAddr(aclOpExecutor *executor, size_t irIndex,
                                                             const size_t relativeIndex, aclTensorList *tensors,
                                                             void *addr);
ACL_FUNC_VISIBILITY aclnnStatus AclSetDynamicOutputTensorAddr(aclOpExecutor *executor, size_t irIndex,
                                                              const size_t relativeIndex, aclTensorList *tensors,
                                                              void *addr);
ACL_FUNC_VISIBILITY aclnnStatus AclSetDynamicTensorAddr(aclOpExecutor *executor, size_t irIndex,
                                                        const size_t relativeIndex, aclTensorList *tensors,
                                                        void *addr);

#ifdef __cplusplus
}
#endif

#endif /* CANNON_ACLNN_ACL_META_H_ */
