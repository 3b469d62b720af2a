/**
 * @file opdev.h
 * Writing aclnn operators on cannon: the interface between an operator's two-phase API and the
 * executor that records its plan. libopapi's operators use it, and so can custom operators.
 * Implemented in libnnopbase.
 *
 * An operator's phase 1 (aclnnXxxGetWorkspaceSize) checks its arguments, creates an executor,
 * registers its tensors in CANN's input/output order (so aclSetInputTensorAddr /
 * aclSetOutputTensorAddr can re-point a repeatable executor), reserves workspace, and records
 * kernel launches whose argument blobs hold device pointers as *references* (tensor slot or
 * workspace + byte offset) that are resolved at phase 2. Phase 2 (aclnnXxx) is one call to
 * cannonExecutorRun, which checks the workspace, binds the pointers, enqueues the kernels on the
 * stream through cannonLaunchKernel, and frees a non-repeatable executor.
 *
 * Threading: an executor is used by one thread at a time. Errors: functions returning aclnnStatus
 * report the reason through cannonReportError (readable with aclGetRecentErrMsg).
 */
#ifndef CANNON_OPDEV_H_
#define CANNON_OPDEV_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aclnn/aclnn_base.h"
#include "cannon/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Ranks a tensor descriptor can hold (operators themselves accept at most 8). */
#define CANNON_MAX_DIMS 32
/** The rank limit of CANN operators. */
#define CANNON_OP_MAX_RANK 8

/**
 * The most bytes a tensor view may span, counted over its elements and over the highest element
 * it reaches (2^48: more than any device or host address space). Every offset and stride must
 * stay below it too. Keeping views inside this bound lets operators compute byte counts,
 * workspace sizes and addresses in int64 with no overflow check of their own.
 */
#define CANNON_TENSOR_MAX_BYTES ((int64_t)1 << 48)

/** A read-only look at a tensor descriptor (pointers valid while the tensor lives). */
typedef struct cannon_tensor_view {
    aclDataType dtype;
    aclFormat format;
    int64_t ndim;
    const int64_t *shape;   /**< view shape */
    const int64_t *strides; /**< in elements */
    int64_t offset;         /**< in elements, from data */
    void *data;             /**< storage start (device address) */
} cannon_tensor_view;

/**
 * Fill @p v from @p t. Returns false when @p t is not a live tensor descriptor, or (with a message
 * for aclGetRecentErrMsg) when its view exceeds CANNON_TENSOR_MAX_BYTES.
 */
CANNON_API bool cannonTensorGetView(const aclTensor *t, cannon_tensor_view *v);
/** Number of elements of the view (1 for rank 0). */
CANNON_API int64_t cannonTensorNumel(const aclTensor *t);
/** Whether the view is row-major contiguous (size-1 dims' strides ignored). */
CANNON_API bool cannonTensorIsContiguous(const aclTensor *t);

/** Executor slot meaning "the workspace" in a cannon_arg_ref. */
#define CANNON_SLOT_WORKSPACE (-1)

/**
 * A device pointer inside a kernel's argument blob, bound at phase 2:
 * `*(void **)(args + args_offset) = base(slot) + byte_offset`, where base is the tensor's current
 * storage address (slot ≥ 0) or the workspace (CANNON_SLOT_WORKSPACE).
 */
typedef struct cannon_arg_ref {
    uint32_t args_offset;
    int32_t slot;
    int64_t byte_offset;
} cannon_arg_ref;

/** A new, empty executor for operator @p op_name (static string). NULL when out of memory. */
CANNON_API aclOpExecutor *cannonExecutorCreate(const char *op_name);

/** Register the next input / output tensor; returns its slot (≥ 0), or -1 when out of memory. */
CANNON_API int cannonExecutorAddInput(aclOpExecutor *e, const aclTensor *t);
CANNON_API int cannonExecutorAddOutput(aclOpExecutor *e, const aclTensor *t);

/** Reserve @p bytes of workspace (64-byte aligned); returns the byte offset of the reservation. */
CANNON_API uint64_t cannonExecutorReserveWorkspace(aclOpExecutor *e, uint64_t bytes);

/** Total workspace the plan needs (what phase 1 reports). */
CANNON_API uint64_t cannonExecutorWorkspaceSize(const aclOpExecutor *e);

/**
 * Record a kernel launch of @p block_dim blocks. @p args (args_size bytes, copied) is the
 * argument blob; @p refs lists the device pointers in it to bind at phase 2.
 * Returns ACLNN_SUCCESS or ACLNN_ERR_INNER_CREATE_EXECUTOR (out of memory).
 */
CANNON_API aclnnStatus cannonExecutorAddKernel(aclOpExecutor *e, const char *name, cannon_kernel_fn fn,
                                               uint32_t block_dim, const void *args, size_t args_size,
                                               const cannon_arg_ref *refs, size_t n_refs);

/**
 * Record a copy of the strided view of tensor slot @p slot into a contiguous buffer at workspace
 * byte offset @p ws_offset (which must hold numel × element-size bytes). Any element size.
 */
CANNON_API aclnnStatus cannonExecutorAddGather(aclOpExecutor *e, int slot, uint64_t ws_offset);

/** Record the reverse: a contiguous workspace buffer written into the strided view of @p slot. */
CANNON_API aclnnStatus cannonExecutorAddScatter(aclOpExecutor *e, int slot, uint64_t ws_offset);

/**
 * Phase 2. Checks: executor NULL → ACLNN_ERR_PARAM_NULLPTR; already run and not repeatable →
 * ACLNN_ERR_PARAM_INVALID; workspace NULL or smaller than needed → ACLNN_ERR_PARAM_INVALID; a
 * runtime failure → ACLNN_ERR_RUNTIME_ERROR. Frees a non-repeatable executor once its kernels are
 * enqueued (whatever the outcome). @p api names the caller in messages.
 */
CANNON_API aclnnStatus cannonExecutorRun(void *workspace, uint64_t workspaceSize, aclOpExecutor *e,
                                         aclrtStream stream, const char *api);

/** Free an executor whose phase 1 failed (never handed to the caller). NULL is ignored. */
CANNON_API void cannonExecutorDiscard(aclOpExecutor *e);

#ifdef __cplusplus
}
#endif

#endif /* CANNON_OPDEV_H_ */
