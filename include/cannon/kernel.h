/**
 * @file kernel.h
 * cannon's launch interface: how device code runs. Operators (libopapi), collectives (libhccl)
 * and users' custom kernels all enqueue work on an ACL stream through these calls; the stream's
 * device driver runs a kernel's blocks in parallel on the device's worker pool.
 *
 * Threading: every function here is thread-safe. Kernels run on driver worker threads, never on
 * the calling thread, and must not call stream or device synchronisation APIs. Launches from
 * different streams or devices may run one after another (the CPU driver's pool runs one launch at
 * a time), so a kernel must never wait for another kernel: work that blocks (a collective waiting
 * for a peer) belongs in a host task (cannonLaunchHostTask), which does not hold the pool.
 */
#ifndef CANNON_KERNEL_H_
#define CANNON_KERNEL_H_

#include <stddef.h>
#include <stdint.h>
#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CANNON_API ACL_FUNC_VISIBILITY

struct cannon_kernel_ctx;

/** Hooks the driver gives each running block (filled by the driver, read by the runtime). */
typedef struct cannon_kernel_hooks {
    /** Record an error on the launching stream: the stream's next synchronize returns @p code
     *  and aclGetRecentErrMsg() then returns @p msg. The first error since the last sync wins. */
    void (*report)(void *stream_priv, int code, const char *msg);
} cannon_kernel_hooks;

/** What a block of a kernel knows about itself. */
typedef struct cannon_kernel_ctx {
    uint32_t block_idx;   /**< this block, in [0, block_dim) */
    uint32_t block_dim;   /**< number of blocks of the launch */
    uint32_t worker_id;   /**< worker thread running the block, in [0, num_workers) */
    uint32_t num_workers; /**< workers of the device's pool */
    const cannon_kernel_hooks *hooks; /**< for cannonKernelReportError */
    void *stream_priv;    /**< driver's stream, passed back to hooks */
} cannon_kernel_ctx;

/**
 * A kernel: called once per block with the launch's argument blob. Returns 0 or an ACL error code
 * (the first non-zero code of a launch becomes the stream's error). Blocks of one launch may run
 * concurrently and in any order; a kernel must give the same result whatever the worker count.
 */
typedef int (*cannon_kernel_fn)(const cannon_kernel_ctx *ctx, void *args);

/** A launch request. */
typedef struct cannon_launch_desc {
    const char *name;          /**< for logs and profiles; static storage */
    cannon_kernel_fn fn;       /**< the kernel */
    const void *args;          /**< argument blob, copied at enqueue time when args_size > 0 */
    size_t args_size;          /**< 0: @p args is passed as is and must outlive the launch */
    uint32_t block_dim;        /**< number of blocks, ≥ 1 */
} cannon_launch_desc;

/**
 * Enqueue a kernel launch on @p stream (NULL: the current context's default stream).
 * Errors: ACL_ERROR_INVALID_PARAM (NULL desc or fn, block_dim 0, bad stream),
 * ACL_ERROR_RT_CONTEXT_NULL (no current context), ACL_ERROR_BAD_ALLOC.
 */
CANNON_API aclError cannonLaunchKernel(const cannon_launch_desc *desc, aclrtStream stream);

/**
 * Report an error from inside a kernel with a formatted message (see cannon_kernel_hooks.report).
 * Returns @p code so a kernel can write `return cannonKernelReportError(ctx, code, ...)`.
 */
CANNON_API int cannonKernelReportError(const cannon_kernel_ctx *ctx, int code, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/** A host task: runs in stream order on a driver thread; returns 0 or an ACL error code. */
typedef int (*cannon_host_task_fn)(void *arg);

/**
 * Enqueue @p fn(@p arg) on @p stream; later work on the stream waits for it to return. Used by
 * libhccl to make a collective a stream task. Errors as cannonLaunchKernel.
 */
CANNON_API aclError cannonLaunchHostTask(aclrtStream stream, cannon_host_task_fn fn, void *arg);

/**
 * Flag of cannonLaunchHostTaskEx: the task may run on a thread that is synchronizing the stream
 * (aclrtSynchronizeStream without a timeout) instead of the stream's own thread, when that thread
 * is idle. For tasks that do not care which thread runs them: a collective whose caller waits for
 * it then costs no thread hand-off, and only one thread per rank competes for a core.
 */
#define CANNON_HOST_TASK_ANY_THREAD 0x1u

/** cannonLaunchHostTask with CANNON_HOST_TASK_* @p flags (unknown bits: ACL_ERROR_INVALID_PARAM). */
CANNON_API aclError cannonLaunchHostTaskEx(aclrtStream stream, cannon_host_task_fn fn, void *arg, uint32_t flags);

/**
 * Record an error for aclGetRecentErrMsg() on the calling thread (as the runtime's own failures
 * do) and return @p code. For libraries built on the runtime (operators, collectives) so their
 * argument errors read the same as the runtime's.
 */
CANNON_API aclError cannonReportError(aclError code, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/** Where a device allocation lives, for mapping it from another process (see cannonMemGetShareInfo). */
typedef struct cannon_mem_share_info {
    int fd;            /**< memfd of the whole device arena (owned by the runtime: dup() to keep it) */
    int32_t device_id; /**< device holding the allocation */
    uint64_t offset;   /**< byte offset of @p devPtr in the arena (mmap the fd at this offset) */
    uint64_t alloc_offset; /**< byte offset of the start of its allocation in the arena */
    uint64_t alloc_size;   /**< usable size of the allocation (the request rounded up to 64 bytes) */
    uint64_t arena_size;   /**< size of the whole arena */
} cannon_mem_share_info;

/**
 * Describe the live device allocation containing @p devPtr so a peer process on the same host can
 * map it: open /proc/<pid>/fd/<fd> (or receive the fd over a Unix socket) and mmap it shared. The
 * mapping stays valid while the allocation lives. Errors: ACL_ERROR_INVALID_PARAM (not device
 * memory, or not in a live allocation), ACL_ERROR_RT_FEATURE_NOT_SUPPORT (the driver's memory
 * cannot be shared).
 */
CANNON_API aclError cannonMemGetShareInfo(const void *devPtr, cannon_mem_share_info *info);

/**
 * Whether @p ptr lies inside a live device allocation of any device (1) or not (0: host memory,
 * freed memory, NULL). A pure query: it never fails and records nothing for aclGetRecentErrMsg,
 * so libraries can test a caller's buffer before choosing a path. Thread-safe.
 */
CANNON_API int cannonMemIsDevice(const void *ptr);

/** Number of worker threads of the current device (what num_workers will be). 0 with no device. */
CANNON_API uint32_t cannonGetWorkerCount(void);

#ifdef __cplusplus
}
#endif

#endif /* CANNON_KERNEL_H_ */
