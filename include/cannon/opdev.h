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

/* ==== dtypes: one table for every operator ===================================================== */

/** A set of aclDataType values, one bit per value (ACL_DT_UNDEFINED is never a member). */
typedef uint64_t cannon_dtype_set;
/** The set holding @p t alone. */
#define CANNON_DT(t) ((cannon_dtype_set)1 << (unsigned)(t))
#define CANNON_DT_F32 CANNON_DT(ACL_FLOAT)
#define CANNON_DT_F16 CANNON_DT(ACL_FLOAT16)
#define CANNON_DT_BF16 CANNON_DT(ACL_BF16)
#define CANNON_DT_F64 CANNON_DT(ACL_DOUBLE)
#define CANNON_DT_I8 CANNON_DT(ACL_INT8)
#define CANNON_DT_I16 CANNON_DT(ACL_INT16)
#define CANNON_DT_I32 CANNON_DT(ACL_INT32)
#define CANNON_DT_I64 CANNON_DT(ACL_INT64)
#define CANNON_DT_U8 CANNON_DT(ACL_UINT8)
#define CANNON_DT_BOOL CANNON_DT(ACL_BOOL)
/** FLOAT, FLOAT16, BFLOAT16 (the types computed in fp32). */
#define CANNON_DTS_F32_16 (CANNON_DT_F32 | CANNON_DT_F16 | CANNON_DT_BF16)
/** The floating types: FLOAT, FLOAT16, BFLOAT16, DOUBLE. */
#define CANNON_DTS_FLOAT (CANNON_DTS_F32_16 | CANNON_DT_F64)
/** The integral types of torch's promotion lattice: UINT8, INT8, INT16, INT32, INT64. */
#define CANNON_DTS_INTEGRAL (CANNON_DT_U8 | CANNON_DT_I8 | CANNON_DT_I16 | CANNON_DT_I32 | CANNON_DT_I64)
/** Every type the elementwise framework computes with: floating, integral and BOOL. */
#define CANNON_DTS_REAL (CANNON_DTS_FLOAT | CANNON_DTS_INTEGRAL | CANNON_DT_BOOL)
/** Index types. */
#define CANNON_DTS_INDEX (CANNON_DT_I32 | CANNON_DT_I64)

/** CANN's name of @p t ("FLOAT", "FLOAT16", "BFLOAT16", "INT32", ...), "UNDEFINED" for values
 *  that name no type. Static storage. */
CANNON_API const char *cannonDtypeName(aclDataType t);
/** Bytes of one element; 0 for sub-byte types, STRING and unknown values. */
CANNON_API size_t cannonDtypeSize(aclDataType t);
/** Whether @p t is in @p set. */
CANNON_API bool cannonDtypeIn(aclDataType t, cannon_dtype_set set);
/** Write the names of @p set's members, comma-separated, into @p buf (always terminated). */
CANNON_API void cannonDtypeSetFormat(cannon_dtype_set set, char *buf, size_t cap);
/**
 * torch's result type of two tensor operands: BOOL < integral < floating; within the floating
 * types the wider, FLOAT16 with BFLOAT16 giving FLOAT; within the integral types the wider,
 * UINT8 with a signed type needing INT16 for INT8. ACL_DT_UNDEFINED when either is outside
 * CANNON_DTS_REAL.
 */
CANNON_API aclDataType cannonDtypePromote(aclDataType a, aclDataType b);
/**
 * torch's result type of a tensor of dtype @p tensor with a scalar of dtype @p scalar: the scalar
 * only raises the category (BOOL < integral < floating), to FLOAT or INT64; ACL_DT_UNDEFINED when
 * @p tensor is outside CANNON_DTS_REAL.
 */
CANNON_API aclDataType cannonDtypePromoteScalar(aclDataType tensor, aclDataType scalar);
/** torch's can_cast for results: no floating → integral/BOOL, nothing but BOOL → BOOL. */
CANNON_API bool cannonDtypeCanCast(aclDataType from, aclDataType to);

/* ==== phase 1 of an operator ===================================================================== */

/**
 * The state of one operator's phase 1. Checks and planning steps are called in sequence; the
 * first failure is kept (code and message) and every later step becomes a no-op returning false,
 * so phase 1 reads as straight-line code ending in `return cannonOpFinish(&op);`, which hands the
 * executor and its workspace size to the caller, or discards the executor and returns the first
 * error. Fields are read-only for operators.
 */
typedef struct cannon_op {
    const char *api;            /**< "aclnnXxx", used in every message */
    aclnnStatus status;         /**< the first error, ACLNN_SUCCESS while sound */
    aclOpExecutor *e;           /**< created by cannonOpBegin */
    uint64_t *workspace_size;   /**< the caller's out-pointers */
    aclOpExecutor **executor;
} cannon_op;

/**
 * Begin phase 1 of @p api (a static string). NULL @p workspaceSize or @p executor is reported
 * as ACLNN_ERR_PARAM_NULLPTR naming them; the executor is created here. The tensor and other
 * argument checks follow. Returns whether the operator is still sound.
 */
CANNON_API bool cannonOpBegin(cannon_op *op, const char *api, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Whether no step has failed yet. */
static inline bool cannonOpOk(const cannon_op *op)
{
    return op->status == ACLNN_SUCCESS;
}
/** Record a failure of @p code with a message prefixed by the operator's name (printf format);
 *  ignored when an earlier one is recorded. Returns false. */
CANNON_API bool cannonOpFail(cannon_op *op, aclnnStatus code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/** Check that argument @p name is not NULL (ACLNN_ERR_PARAM_NULLPTR). */
CANNON_API bool cannonOpNotNull(cannon_op *op, const char *name, const void *p);
/**
 * cannonOpNotNull over (name, pointer) pairs ending with a NULL name, in order: operators check
 * every required argument for NULL (161001) before anything else (161002), as CANN does.
 */
CANNON_API bool cannonOpNotNulls(cannon_op *op, ...);

/**
 * Check tensor argument @p name: not NULL (ACLNN_ERR_PARAM_NULLPTR), a live descriptor within
 * CANNON_TENSOR_MAX_BYTES, a dtype in @p dtypes (0: any dtype with a byte size) and a rank of at
 * most CANNON_OP_MAX_RANK (ACLNN_ERR_PARAM_INVALID, with the dtype's and the set's names).
 * Fills @p v when sound.
 */
CANNON_API bool cannonOpTensor(cannon_op *op, const char *name, const aclTensor *t, cannon_dtype_set dtypes,
                               cannon_tensor_view *v);
/** As cannonOpTensor for an optional tensor: NULL is accepted and leaves @p v's ndim at -1. */
CANNON_API bool cannonOpTensorOpt(cannon_op *op, const char *name, const aclTensor *t, cannon_dtype_set dtypes,
                                  cannon_tensor_view *v);
/** Check that tensor @p a (named @p an) has the shape of @p b (named @p bn). */
CANNON_API bool cannonOpSameShape(cannon_op *op, const char *an, const cannon_tensor_view *a, const char *bn,
                                  const cannon_tensor_view *b);
/** Check that tensor @p v (named @p name) has rank @p nd and the dims @p shape. */
CANNON_API bool cannonOpShapeIs(cannon_op *op, const char *name, const cannon_tensor_view *v, int64_t nd,
                                const int64_t *shape);
/** Check that tensor @p a (named @p an) has the dtype of @p b (named @p bn). */
CANNON_API bool cannonOpSameDtype(cannon_op *op, const char *an, const cannon_tensor_view *a, const char *bn,
                                  const cannon_tensor_view *b);
/** Check and normalise an axis argument: @p *dim in [-rank, rank) (rank 0 counts as 1) becomes
 *  dim + rank when negative. */
CANNON_API bool cannonOpDim(cannon_op *op, const char *name, int64_t *dim, int64_t rank);
/** Format @p v's shape as "[2,3,4]" into @p buf (always terminated). */
CANNON_API void cannonShapeFormat(const cannon_tensor_view *v, char *buf, size_t cap);

/** Register the next input / output tensor (CANN's order); returns its slot, or -1 after a
 *  failure. NULL registers an absent optional tensor. */
CANNON_API int cannonOpInput(cannon_op *op, const aclTensor *t);
CANNON_API int cannonOpOutput(cannon_op *op, const aclTensor *t);

/**
 * Bind tensor slot @p slot into a kernel's argument blob as a contiguous buffer: the reference
 * @p ref (args offset @p args_offset) points at the view's first element when the view is
 * row-major contiguous, else at a workspace buffer that a gather fills before the kernels (an
 * input) or that a scatter copies into the view after them (an output, recorded by
 * cannonOpFinish; an in-place tensor is both). Returns false after a failure.
 */
#define CANNON_BIND_IN 1u
#define CANNON_BIND_OUT 2u
#define CANNON_BIND_INOUT (CANNON_BIND_IN | CANNON_BIND_OUT)
CANNON_API bool cannonOpBind(cannon_op *op, int slot, unsigned how, uint32_t args_offset, cannon_arg_ref *ref);
/** Bind slot @p slot's storage as it is (the view's first element, no copy), for kernels that
 *  walk strides themselves. */
CANNON_API bool cannonOpBindView(cannon_op *op, int slot, uint32_t args_offset, cannon_arg_ref *ref);
/** Reserve @p bytes of workspace; its byte offset into @p *offset. */
CANNON_API bool cannonOpWorkspace(cannon_op *op, uint64_t bytes, uint64_t *offset);
/** Record a kernel launch (see cannonExecutorAddKernel). */
CANNON_API bool cannonOpKernel(cannon_op *op, const char *name, cannon_kernel_fn fn, uint32_t block_dim,
                               const void *args, size_t args_size, const cannon_arg_ref *refs, size_t n_refs);
/**
 * End phase 1: records the pending scatters of bound outputs, then on success stores the
 * workspace size and the executor through the caller's pointers and returns ACLNN_SUCCESS;
 * after a failure frees the executor and returns the first error.
 */
CANNON_API aclnnStatus cannonOpFinish(cannon_op *op);

#ifdef __cplusplus
}
#endif

#endif /* CANNON_OPDEV_H_ */
