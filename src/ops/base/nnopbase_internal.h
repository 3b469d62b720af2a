/*
 * libnnopbase internals: object layouts and the registry of live handles.
 *
 * Every public object starts with an nn_obj header. The registry (registry.c) is a hash set of the
 * live objects' addresses, so asking "is p a live tensor?" compares pointer values only and never
 * reads through p: a destroyed or foreign handle is rejected without touching freed memory (which
 * keeps "destroy twice" and "run a consumed executor" safe, under ASan too).
 */
#ifndef CANNON_NNOPBASE_INTERNAL_H_
#define CANNON_NNOPBASE_INTERNAL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aclnn/aclnn_base.h"
#include "cannon/kernel.h"
#include "cannon/opdev.h"

typedef enum nn_kind {
    NN_TENSOR = 1,
    NN_SCALAR,
    NN_INT_ARRAY,
    NN_FLOAT_ARRAY,
    NN_BOOL_ARRAY,
    NN_TENSOR_LIST,
    NN_SCALAR_LIST,
    NN_EXECUTOR,
} nn_kind;

/* Poison written over a destroyed object's magic, to make stale handles obvious in a debugger. */
#define NN_MAGIC 0x6e6e6f70u /* "nnop" */
#define NN_MAGIC_DEAD 0xdeadbeefu

typedef struct nn_obj {
    uint32_t kind;
    uint32_t magic;
} nn_obj;

/* Add @p o (from malloc: 8-aligned) as a live object of kind @p k. Never fails while memory lasts (a
 * failed table growth costs speed until the table is full). */
void nn_register(nn_obj *o, nn_kind k);
/* Remove @p p if it is a live object of kind @p k; true when it was. */
bool nn_unregister(const void *p, nn_kind k);
/* Whether @p p is a live object of kind @p k (p may be anything, it is not dereferenced). */
bool nn_is_live(const void *p, nn_kind k);

struct aclTensor {
    nn_obj hdr;
    aclDataType dtype;
    aclFormat format;
    int64_t ndim;
    int64_t offset;
    void *data;
    uint64_t storage_ndim;
    bool size_ok; /* the view passed nn_tensor_size_ok when it was last described */
    int64_t shape[CANNON_MAX_DIMS];
    int64_t strides[CANNON_MAX_DIMS];
    int64_t storage_shape[CANNON_MAX_DIMS];
};

struct aclScalar {
    nn_obj hdr;
    aclDataType dtype;
    /* the value's bytes (complex128 is the widest); aligned for any of the types */
    union {
        unsigned char bytes[16];
        double d[2];
        int64_t i64[2];
    } v;
};

/* Int, float and bool arrays share one layout: a copied buffer of @p size elements. */
typedef struct nn_array {
    nn_obj hdr;
    uint64_t size;
    void *data;
} nn_array;

/* Tensor and scalar lists: a copied array of element pointers (the elements are owned). */
typedef struct nn_list {
    nn_obj hdr;
    uint64_t size;
    nn_obj **items;
} nn_list;

/* One registered tensor of an executor: its address (re-pointable) and the view recorded at
 * phase 1. @p tensor is kept only to recognise the tensor again (aclSetDynamic*TensorAddr); it is
 * compared, never dereferenced, since the caller may destroy it after phase 1. */
typedef struct nn_slot {
    const aclTensor *tensor; /* NULL for an absent optional tensor */
    void *addr;
    bool is_output;
    aclDataType dtype;
    int64_t ndim;
    int64_t offset;
    int64_t shape[CANNON_MAX_DIMS];
    int64_t strides[CANNON_MAX_DIMS];
} nn_slot;

/* Argument blob and references of a kernel that fit in this many bytes live inside its record, so a
 * reused executor records a typical operator's kernels without allocating. */
#define NN_KERNEL_INLINE 192

typedef struct nn_kernel {
    const char *name;
    cannon_kernel_fn fn;
    uint32_t block_dim;
    size_t args_size;
    void *args; /* template; refs are written over a copy at each run */
    size_t n_refs;
    cannon_arg_ref *refs;
    bool in_place; /* args and refs point into inline_buf (refs at args_room): re-pointed when the array moves */
    /* args and refs point here when they fit, else to their own allocations */
    _Alignas(16) unsigned char inline_buf[NN_KERNEL_INLINE];
} nn_kernel;

struct aclOpExecutor {
    nn_obj hdr;
    const char *name;
    nn_slot *slots;
    size_t n_slots, cap_slots;
    nn_kernel *kernels;
    size_t n_kernels, cap_kernels;
    uint64_t ws_size;
    void *scratch; /* binding buffer, as large as the largest argument blob */
    size_t scratch_size;
    bool repeatable;
    bool ran;
    aclnnStatus status; /* the plan's first error (ACLNN_SUCCESS while it is sound) */
    /* scatters of bound outputs, recorded after the kernels by cannonOpFinish */
    struct nn_pending {
        int slot;
        uint64_t ws_offset;
    } *pending;
    size_t n_pending, cap_pending;
};

/* The most workspace one plan may reserve: four times the largest tensor, far beyond any device. */
#define NN_WS_MAX ((uint64_t)CANNON_TENSOR_MAX_BYTES * 4)

/* Record @p rc as @p e's first error (later errors keep the first). */
void nn_executor_fail(aclOpExecutor *e, aclnnStatus rc);

/* Whether @p t's view stays inside CANNON_TENSOR_MAX_BYTES (element count, offset, every stride
 * and the highest element reached, in bytes); else false with the reason in @p why. */
bool nn_tensor_size_ok(const aclTensor *t, char *why, size_t why_size);

/* Per-thread stashes of freed objects (stash.c): a create takes a block of its kind from the calling
 * thread's stash before it allocates, a destroy puts its (unregistered) block there while there is
 * room. A taken block holds the previous object's bytes: the creator writes every field it reads. */
typedef enum nn_stash_kind { NN_STASH_TENSOR, NN_STASH_SCALAR, NN_STASH_EXECUTOR, NN_STASH_KINDS } nn_stash_kind;
void *nn_stash_take(nn_stash_kind k);
/* True when @p block was kept; else the caller frees it. */
bool nn_stash_put(nn_stash_kind k, void *block);
/* Free a stashed block for good. */
void nn_stash_release(nn_stash_kind k, void *block);
/* Free executor @p e and every buffer it owns (executor.c). */
void nn_executor_release(aclOpExecutor *e);

/* Bytes of one element of @p dt for copies; 0 when the type has no whole-byte element size. */
size_t nn_elem_size(aclDataType dt);

/* Error helper: record the message for aclGetRecentErrMsg and return @p code. */
#define NN_ERR(code, ...) ((aclnnStatus)cannonReportError((aclError)(code), __VA_ARGS__))

/* Gather / scatter kernels (gather.c); the executor records them with nn_record_copy. */
aclnnStatus nn_record_copy(aclOpExecutor *e, int slot, uint64_t ws_offset, bool scatter);

/* Operator dump (dump.c): describe a run to the runtime's dump before its kernels are enqueued
 * (NULL: not dumped), and close it after them. Call only when cannonDumpActive(). */
void *nn_dump_begin(const aclOpExecutor *e, aclrtStream stream);
void nn_dump_end(void *handle, aclrtStream stream, bool launched);

#endif /* CANNON_NNOPBASE_INTERNAL_H_ */
