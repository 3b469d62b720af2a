/**
 * @file acl_rt.h
 * The ACL runtime API: lifecycle, devices, contexts, streams, events, host callbacks and memory.
 *
 * Conventions (all functions):
 *  - Every function returns ACL_SUCCESS or a CANN error code; on failure the reason can be read
 *    with aclGetRecentErrMsg() on the same thread (or process, with err_msg_mode "1").
 *  - Argument checks made by the ACL layer (NULL outputs, bad enums) return
 *    ACL_ERROR_INVALID_PARAM (100000); checks made by the runtime core (bad sizes, timeouts,
 *    device ids, missing context) return the ACL_ERROR_RT_* codes (107xxx/207xxx/507xxx).
 *  - Handles (contexts, streams, events) are opaque; a destroyed or foreign handle is detected
 *    and rejected with ACL_ERROR_INVALID_PARAM rather than dereferenced.
 *  - All functions are thread-safe. The current context (and so the current device) is
 *    per thread: a new thread has none until it calls aclrtSetDevice or aclrtSetCurrentContext.
 *  - A NULL stream argument means the default stream of the current context.
 */
#ifndef CANNON_ACL_RT_H_
#define CANNON_ACL_RT_H_

#include <stdint.h>
#include <stddef.h>
#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACL_EVENT_SYNC                   0x00000001U
#define ACL_EVENT_CAPTURE_STREAM_PROGRESS 0x00000002U
#define ACL_EVENT_TIME_LINE              0x00000008U
#define ACL_EVENT_DEVICE_USE_ONLY        0x00000010U
#define ACL_EVENT_EXTERNAL               0x00000020U
#define ACL_EVENT_IPC                    0x00000040U

#define ACL_STREAM_FAST_LAUNCH      0x00000001U
#define ACL_STREAM_FAST_SYNC        0x00000002U
#define ACL_STREAM_PERSISTENT       0x00000004U
#define ACL_STREAM_HUGE             0x00000008U
#define ACL_STREAM_CPU_SCHEDULE     0x00000010U
#define ACL_STREAM_DEVICE_USE_ONLY  0x00000020U

typedef enum aclrtRunMode {
    ACL_DEVICE = 0,
    ACL_HOST = 1
} aclrtRunMode;

typedef enum aclrtTsId {
    ACL_TS_ID_AICORE = 0,
    ACL_TS_ID_AIVECTOR = 1,
    ACL_TS_ID_RESERVED = 2
} aclrtTsId;

typedef enum aclrtEventStatus {
    ACL_EVENT_STATUS_COMPLETE = 0,
    ACL_EVENT_STATUS_NOT_READY = 1,
    ACL_EVENT_STATUS_RESERVED = 2
} aclrtEventStatus;

typedef enum aclrtEventRecordedStatus {
    ACL_EVENT_RECORDED_STATUS_NOT_READY = 0,
    ACL_EVENT_RECORDED_STATUS_COMPLETE = 1
} aclrtEventRecordedStatus;

typedef enum aclrtEventWaitStatus {
    ACL_EVENT_WAIT_STATUS_COMPLETE = 0,
    ACL_EVENT_WAIT_STATUS_NOT_READY = 1,
    ACL_EVENT_WAIT_STATUS_RESERVED = 0xFFFF
} aclrtEventWaitStatus;

typedef enum aclrtStreamStatus {
    ACL_STREAM_STATUS_COMPLETE = 0,
    ACL_STREAM_STATUS_NOT_READY = 1,
    ACL_STREAM_STATUS_RESERVED = 0xFFFF
} aclrtStreamStatus;

typedef enum aclrtCallbackBlockType {
    ACL_CALLBACK_NO_BLOCK,
    ACL_CALLBACK_BLOCK
} aclrtCallbackBlockType;

typedef enum aclrtMemcpyKind {
    ACL_MEMCPY_HOST_TO_HOST,
    ACL_MEMCPY_HOST_TO_DEVICE,
    ACL_MEMCPY_DEVICE_TO_HOST,
    ACL_MEMCPY_DEVICE_TO_DEVICE,
    ACL_MEMCPY_DEFAULT,
    ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE,
    ACL_MEMCPY_INNER_DEVICE_TO_DEVICE,
    ACL_MEMCPY_INTER_DEVICE_TO_DEVICE
} aclrtMemcpyKind;

typedef enum aclrtMemMallocPolicy {
    ACL_MEM_MALLOC_HUGE_FIRST,
    ACL_MEM_MALLOC_HUGE_ONLY,
    ACL_MEM_MALLOC_NORMAL_ONLY,
    ACL_MEM_MALLOC_HUGE_FIRST_P2P,
    ACL_MEM_MALLOC_HUGE_ONLY_P2P,
    ACL_MEM_MALLOC_NORMAL_ONLY_P2P,
    ACL_MEM_MALLOC_HUGE1G_ONLY,
    ACL_MEM_MALLOC_HUGE1G_ONLY_P2P,
    ACL_MEM_TYPE_LOW_BAND_WIDTH = 0x0100,
    ACL_MEM_TYPE_HIGH_BAND_WIDTH = 0x1000,
    ACL_MEM_ACCESS_USER_SPACE_READONLY = 0x100000
} aclrtMemMallocPolicy;

typedef enum aclrtMemAttr {
    ACL_DDR_MEM,
    ACL_HBM_MEM,
    ACL_DDR_MEM_HUGE,
    ACL_DDR_MEM_NORMAL,
    ACL_HBM_MEM_HUGE,
    ACL_HBM_MEM_NORMAL,
    ACL_DDR_MEM_P2P_HUGE,
    ACL_DDR_MEM_P2P_NORMAL,
    ACL_HBM_MEM_P2P_HUGE,
    ACL_HBM_MEM_P2P_NORMAL,
    ACL_HBM_MEM_HUGE1G,
    ACL_HBM_MEM_P2P_HUGE1G,
    ACL_MEM_NORMAL,
    ACL_MEM_HUGE,
    ACL_MEM_HUGE1G,
    ACL_MEM_P2P_NORMAL,
    ACL_MEM_P2P_HUGE,
    ACL_MEM_P2P_HUGE1G
} aclrtMemAttr;

/** Handle types of physical memory (aclrtPhysicalMemProp.handleType). */
typedef enum aclrtMemHandleType {
    ACL_MEM_HANDLE_TYPE_NONE = 0,
    ACL_MEM_HANDLE_TYPE_POSIX = 2
} aclrtMemHandleType;

/** Allocation types of physical memory (aclrtPhysicalMemProp.allocationType). */
typedef enum aclrtMemAllocationType {
    ACL_MEM_ALLOCATION_TYPE_PINNED = 0
} aclrtMemAllocationType;

/** Where physical memory lives (aclrtMemLocation.type). */
typedef enum aclrtMemLocationType {
    ACL_MEM_LOCATION_TYPE_HOST = 0,
    ACL_MEM_LOCATION_TYPE_DEVICE,
    ACL_MEM_LOCATION_TYPE_UNREGISTERED,
    ACL_MEM_LOCATION_TYPE_MANAGED,
    ACL_MEM_LOCATION_TYPE_HOST_NUMA = 4
} aclrtMemLocationType;

typedef struct aclrtMemLocation {
    uint32_t id;               /**< device id for ACL_MEM_LOCATION_TYPE_DEVICE */
    aclrtMemLocationType type;
} aclrtMemLocation;

/** What aclrtMallocPhysical allocates (zero-initialise, then set the members). */
typedef struct aclrtPhysicalMemProp {
    aclrtMemHandleType handleType;         /**< ACL_MEM_HANDLE_TYPE_NONE */
    aclrtMemAllocationType allocationType; /**< ACL_MEM_ALLOCATION_TYPE_PINNED */
    aclrtMemAttr memAttr;                  /**< page kind, e.g. ACL_HBM_MEM_HUGE */
    aclrtMemLocation location;             /**< ACL_MEM_LOCATION_TYPE_DEVICE and the device id */
    uint64_t reserve;
} aclrtPhysicalMemProp;

typedef enum aclrtMemGranularityOptions {
    ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM,
    ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED,
    ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF = 0xFFFF
} aclrtMemGranularityOptions;

/** A physical memory allocation (aclrtMallocPhysical). */
typedef void *aclrtDrvMemHandle;

typedef enum aclrtLastErrLevel {
    ACL_RT_THREAD_LEVEL = 0
} aclrtLastErrLevel;

typedef enum aclrtDeviceStatus {
    ACL_RT_DEVICE_STATUS_NORMAL = 0,
    ACL_RT_DEVICE_STATUS_ABNORMAL = 1,
    ACL_RT_DEVICE_STATUS_END = 0xFFFF
} aclrtDeviceStatus;

/** Host callback run in the thread subscribed to the stream (see aclrtSubscribeReport). */
typedef void (*aclrtCallback)(void *userData);
/** Host function run by a runtime-owned thread, in stream order (aclrtLaunchHostFunc). */
typedef void (*aclrtHostFunc)(void *args);

/* ------------------------------------------------------------------------------------------ */
/* Lifecycle and errors                                                                       */
/* ------------------------------------------------------------------------------------------ */

/**
 * Initialise the runtime for the process. @p configPath names a JSON file (keys: dump, profiler,
 * err_msg_mode, defaultDevice, max_opqueue_num, StackSize, ...); NULL, "" or an empty file mean
 * defaults. Reference counted: while initialised, a further call increments the count, does not
 * re-read the file and returns ACL_ERROR_REPEAT_INITIALIZE (100002), which callers may ignore.
 * Errors: ACL_ERROR_INVALID_FILE (missing/unreadable file), ACL_ERROR_PARSE_FILE (malformed JSON
 * or nesting deeper than 10), ACL_ERROR_INVALID_PARAM (bad err_msg_mode, or a re-init after
 * finalize with a different configuration), ACL_ERROR_FAILURE (bad defaultDevice).
 */
ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath);

/**
 * Tear the runtime down whatever the reference count. Everything still alive (streams, events,
 * contexts, memory, devices) is released in reverse order of creation and reported as leaked.
 * A second call returns ACL_ERROR_REPEAT_FINALIZE (100037). Do not call from a static destructor.
 */
ACL_FUNC_VISIBILITY aclError aclFinalize(void);

/**
 * Drop one aclInit reference; the last one tears down as aclFinalize does. @p refCount (may be
 * NULL) receives the count left. With no reference held: ACL_ERROR_REPEAT_FINALIZE.
 * Safe to pair with aclInit concurrently from several threads.
 */
ACL_FUNC_VISIBILITY aclError aclFinalizeReference(uint64_t *refCount);

/**
 * The error text accumulated by failed calls on this thread (per process with err_msg_mode "1"),
 * newest first, and clear it. Returns NULL when there is none. The pointer stays valid until the
 * next call of this function on the same thread.
 */
ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void);

/** The calling thread's last runtime error, without clearing it. */
ACL_FUNC_VISIBILITY aclError aclrtPeekAtLastError(aclrtLastErrLevel level);
/** The calling thread's last runtime error, then reset it to ACL_SUCCESS. */
ACL_FUNC_VISIBILITY aclError aclrtGetLastError(aclrtLastErrLevel level);

/** Runtime version (ACL_MAJOR/MINOR/PATCH_VERSION). Any NULL output → ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion);

/* ------------------------------------------------------------------------------------------ */
/* Devices                                                                                    */
/* ------------------------------------------------------------------------------------------ */

/**
 * Bind the calling thread to device @p deviceId and its default (primary) context, creating
 * the context and its default stream on first use. Each call adds one reference to the device.
 * Errors: ACL_ERROR_RT_INVALID_DEVICEID (107001) for ids outside [0, count),
 * ACL_ERROR_RT_DEV_SETUP_ERROR (507033) when the device cannot be brought up.
 */
ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId);

/**
 * Drop one reference to the device; the last one destroys its default context, default stream
 * and every stream created under it (waiting for their work). With no reference held:
 * ACL_ERROR_RT_CONTEXT_RELEASE_ERROR (507007). Bad id: ACL_ERROR_RT_INVALID_DEVICEID.
 */
ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId);

/** Drop every reference to the device at once and tear it down (errors as aclrtResetDevice). */
ACL_FUNC_VISIBILITY aclError aclrtResetDeviceForce(int32_t deviceId);

/** Device of the calling thread's current context; none → ACL_ERROR_RT_CONTEXT_NULL (107002). */
ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t *deviceId);

/** Number of visible devices (after ASCEND_RT_VISIBLE_DEVICES). NULL → ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t *count);

/** Always ACL_HOST on cannon: the application runs on the host. */
ACL_FUNC_VISIBILITY aclError aclrtGetRunMode(aclrtRunMode *runMode);

/**
 * Wait until every stream of the current context has drained; returns the first error a task
 * reported. No current context → ACL_ERROR_RT_CONTEXT_NULL.
 */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice(void);

/**
 * aclrtSynchronizeDevice with a limit: @p timeout in ms, -1 waits forever; other values below 1
 * → ACL_ERROR_RT_PARAM_INVALID; expiry → ACL_ERROR_RT_STREAM_SYNC_TIMEOUT (507046).
 */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout);

/**
 * Free and total memory of the current device (no id argument, as in CANN). Attributes that do
 * not apply report 0 and 0. No current device → ACL_ERROR_RT_CONTEXT_NULL.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total);

/** Health of a device: always NORMAL for an opened CPU device. */
ACL_FUNC_VISIBILITY aclError aclrtQueryDeviceStatus(int32_t deviceId, aclrtDeviceStatus *deviceStatus);

/* ------------------------------------------------------------------------------------------ */
/* Contexts                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/**
 * Create a user context (with its own default stream) on @p deviceId, retain the device and
 * make the context current on the calling thread. Destroy with aclrtDestroyContext.
 */
ACL_FUNC_VISIBILITY aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId);

/**
 * Destroy a user context, its default stream and the streams created in it, waiting for their
 * work. Default (primary) contexts cannot be destroyed: ACL_ERROR_INVALID_PARAM.
 */
ACL_FUNC_VISIBILITY aclError aclrtDestroyContext(aclrtContext context);

/** Make @p context current on the calling thread (and its device the thread's device). */
ACL_FUNC_VISIBILITY aclError aclrtSetCurrentContext(aclrtContext context);

/** The calling thread's current context; none → ACL_ERROR_RT_CONTEXT_NULL. */
ACL_FUNC_VISIBILITY aclError aclrtGetCurrentContext(aclrtContext *context);

/** The default stream of the current context (a real handle, usable wherever NULL is). */
ACL_FUNC_VISIBILITY aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream);

/* ------------------------------------------------------------------------------------------ */
/* Streams and host callbacks                                                                 */
/* ------------------------------------------------------------------------------------------ */

/**
 * Create a stream in the current context. Work on a stream runs asynchronously and in order;
 * different streams run concurrently and are ordered only through events.
 */
ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream *stream);

/** aclrtCreateStream with CANN's flags (ACL_STREAM_*); @p priority is reserved. */
ACL_FUNC_VISIBILITY aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag);

/**
 * Destroy a stream after its pending work completes. NULL (the default stream) →
 * ACL_ERROR_INVALID_PARAM. A stream of another context → ACL_ERROR_RT_STREAM_CONTEXT.
 */
ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream);

/** Destroy a stream without waiting: work not yet started is discarded. */
ACL_FUNC_VISIBILITY aclError aclrtDestroyStreamForce(aclrtStream stream);

/** Wait for all work on the stream; returns the first error a task reported since the last sync. */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream);

/**
 * aclrtSynchronizeStream with a limit in ms (-1 forever; 0 and values below -1 →
 * ACL_ERROR_RT_PARAM_INVALID); expiry → ACL_ERROR_RT_STREAM_SYNC_TIMEOUT (507046).
 */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout);

/** COMPLETE when every task enqueued so far has finished, else NOT_READY. */
ACL_FUNC_VISIBILITY aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status);

/** Later work on @p stream waits for the work @p event captured when it was recorded. */
ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event);

/**
 * Route the callbacks launched on @p stream to thread @p threadId (a pthread_t cast to uint64_t),
 * which must loop on aclrtProcessReport. A stream takes one subscriber:
 * ACL_ERROR_RT_STREAM_SUBSCRIBE when it already has one.
 */
ACL_FUNC_VISIBILITY aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream);

/**
 * Enqueue @p fn(@p userData) on @p stream, to run in the subscribed thread when the stream gets
 * there; with ACL_CALLBACK_BLOCK later work waits for it. No subscriber →
 * ACL_ERROR_RT_STREAM_NO_CB_REG (107015).
 */
ACL_FUNC_VISIBILITY aclError aclrtLaunchCallback(aclrtCallback fn, void *userData, aclrtCallbackBlockType blockType,
                                                 aclrtStream stream);

/**
 * Run the callbacks due to the calling (subscribed) thread, waiting up to @p timeout ms (-1:
 * forever) for one. 0 or below -1 → ACL_ERROR_INVALID_PARAM; not subscribed →
 * ACL_ERROR_RT_THREAD_SUBSCRIBE (107012); nothing arrived → ACL_ERROR_RT_REPORT_TIMEOUT (507012).
 */
ACL_FUNC_VISIBILITY aclError aclrtProcessReport(int32_t timeout);

/** Undo aclrtSubscribeReport for @p stream. */
ACL_FUNC_VISIBILITY aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream);

/** Enqueue @p fn(@p args) on @p stream, run by a runtime thread; later work waits for it. */
ACL_FUNC_VISIBILITY aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args);

/* ------------------------------------------------------------------------------------------ */
/* Events                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/** Create an event that can be recorded, waited on and timed. */
ACL_FUNC_VISIBILITY aclError aclrtCreateEvent(aclrtEvent *event);

/**
 * Create an event with ACL_EVENT_* flags (OR-ed). 0 or unknown bits → ACL_ERROR_RT_PARAM_INVALID.
 * Without ACL_EVENT_TIME_LINE the event cannot be timed.
 */
ACL_FUNC_VISIBILITY aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag);

/** Destroy an event; does not wait for the work it captured. */
ACL_FUNC_VISIBILITY aclError aclrtDestroyEvent(aclrtEvent event);

/** Capture the work enqueued so far on @p stream; the event completes when that work has. */
ACL_FUNC_VISIBILITY aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream);

/** Enqueue on @p stream a return of the event to its initial (not recorded) state. */
ACL_FUNC_VISIBILITY aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream);

/** COMPLETE when the captured work has finished (or the event was never recorded). */
ACL_FUNC_VISIBILITY aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status);

/** Wait on the host for the work the event captured. */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEvent(aclrtEvent event);

/**
 * aclrtSynchronizeEvent with a limit in ms (-1 forever; below -1 → ACL_ERROR_RT_PARAM_INVALID);
 * expiry → ACL_ERROR_RT_EVENT_SYNC_TIMEOUT (507047).
 */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout);

/**
 * Milliseconds between two completed, timed events. Events not yet complete →
 * ACL_ERROR_RT_EVENT_NOT_COMPLETE (507006); never recorded → ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent);

/* ------------------------------------------------------------------------------------------ */
/* Memory                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/**
 * Allocate @p size bytes of device memory on the current device, 64-byte aligned, uninitialised.
 * size 0 or NULL output → ACL_ERROR_INVALID_PARAM; no current device → ACL_ERROR_RT_CONTEXT_NULL;
 * device capacity exhausted → ACL_ERROR_RT_MEMORY_ALLOCATION (207001). Every policy is accepted;
 * HUGE policies request transparent huge pages. Free with aclrtFree.
 */
ACL_FUNC_VISIBILITY aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
/** As aclrtMalloc, without CANN's 32-byte tail padding. */
ACL_FUNC_VISIBILITY aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
/** As aclrtMalloc (memory is cache-coherent on cannon). */
ACL_FUNC_VISIBILITY aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy);

/**
 * Free device memory without waiting. Work queued before the call (on any stream of the device)
 * may still use the block: it is handed out again only once that work has finished. NULL →
 * ACL_ERROR_INVALID_PARAM; a pointer that is not the start of a live device allocation (host
 * memory, interior pointer, double free, memory mapped with aclrtMapMem) →
 * ACL_ERROR_INVALID_PARAM with a message saying which.
 */
ACL_FUNC_VISIBILITY aclError aclrtFree(void *devPtr);
/** Synchronise the device, then free. */
ACL_FUNC_VISIBILITY aclError aclrtFreeWithDevSync(void *devPtr);

/** Allocate page-locked host memory, 64-byte aligned. size 0 / NULL → ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void **hostPtr, size_t size);
/** Free memory from aclrtMallocHost; anything else → ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void *hostPtr);

/**
 * Synchronous copy of @p count bytes. count 0 → success; NULL pointers or an unknown kind →
 * ACL_ERROR_INVALID_PARAM; count > destMax → ACL_ERROR_RT_PARAM_INVALID (107000); a pointer on
 * the wrong side of the declared kind, or a range that runs past its allocation (its size being
 * the requested size rounded up to 64 bytes) →
 * ACL_ERROR_RT_PARAM_INVALID. ACL_MEMCPY_DEFAULT infers the direction. A copy between two devices
 * needs peer access enabled in both directions (aclrtDeviceEnablePeerAccess), else
 * ACL_ERROR_RT_PARAM_INVALID. While a stream of the current context captures in
 * ACL_MODEL_RI_CAPTURE_MODE_GLOBAL (acl_mdl.h), synchronous copies and fills fail with
 * ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT (107030).
 */
ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                                         aclrtMemcpyKind kind);

/** aclrtMemcpy enqueued on @p stream (same checks, made at enqueue time). */
ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                                              aclrtMemcpyKind kind, aclrtStream stream);

/** 2-D copy of @p height rows of @p width bytes between pitched buffers. */
ACL_FUNC_VISIBILITY aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                           size_t height, aclrtMemcpyKind kind);

/** Fill @p count bytes with (uint8_t)@p value. count > maxCount → ACL_ERROR_RT_PARAM_INVALID. */
ACL_FUNC_VISIBILITY aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count);

/** aclrtMemset enqueued on @p stream. */
ACL_FUNC_VISIBILITY aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
                                              aclrtStream stream);

/* ------------------------------------------------------------------------------------------ */
/* Peer access between devices                                                                */
/* ------------------------------------------------------------------------------------------ */

/**
 * Whether @p deviceId can exchange data with @p peerDeviceId (1: yes, 0: no). Needs no current
 * device. Same id for both → ACL_ERROR_INVALID_PARAM; an id out of range →
 * ACL_ERROR_RT_INVALID_DEVICEID (107001); NULL @p canAccessPeer → ACL_ERROR_RT_PARAM_INVALID.
 * Every pair of CPU devices can (they share the host's memory).
 */
ACL_FUNC_VISIBILITY aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId);

/**
 * Enable data exchange from the current device to @p peerDeviceId (one direction; a copy between
 * two devices needs both directions enabled, as on CANN's 910-class parts). Enabling again is a
 * success. @p flags must be 0 (else ACL_ERROR_FEATURE_UNSUPPORTED, 200006); no current device →
 * ACL_ERROR_RT_CONTEXT_NULL; the current device itself → ACL_ERROR_INVALID_PARAM; a bad id →
 * ACL_ERROR_RT_INVALID_DEVICEID. The setting lasts until disabled or the device is closed.
 */
ACL_FUNC_VISIBILITY aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags);

/** Undo aclrtDeviceEnablePeerAccess (disabling a direction never enabled is a success); errors as enable. */
ACL_FUNC_VISIBILITY aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId);

/* ------------------------------------------------------------------------------------------ */
/* Virtual memory management                                                                  */
/* ------------------------------------------------------------------------------------------ */

/**
 * Allocation granularity for @p prop: 2 MiB (both options). Sizes, addresses and offsets of the
 * calls below are multiples of it. NULL arguments or an unsupported @p prop →
 * ACL_ERROR_INVALID_PARAM; host location, 1 GiB pages, or a driver without virtual memory →
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT (207000); a bad option → ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop,
                                                              aclrtMemGranularityOptions option,
                                                              size_t *granularity);

/**
 * Reserve @p size bytes of address space (rounded up to the granularity), not backed by memory
 * until aclrtMapMem maps physical memory into it. @p alignment must be 0; @p expectPtr NULL or a
 * 1 GiB-aligned address wanted (taken → ACL_ERROR_RT_MEMORY_ALLOCATION); @p flags 0 (normal
 * pages) or 1 (huge pages). Release with aclrtReleaseMemAddress.
 */
ACL_FUNC_VISIBILITY aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment, void *expectPtr,
                                                    uint64_t flags);

/** Release a reservation (its start address) with no mapping left in it (else ACL_ERROR_RT_PARAM_INVALID). */
ACL_FUNC_VISIBILITY aclError aclrtReleaseMemAddress(void *virPtr);

/**
 * Allocate @p size bytes (a multiple of the granularity) of physical memory on the device of
 * @p prop->location.id, counted in its memory (aclrtGetMemInfo). The device must be set (else
 * ACL_ERROR_RT_CONTEXT_NULL); exhausted → ACL_ERROR_RT_MEMORY_ALLOCATION; @p flags must be 0.
 */
ACL_FUNC_VISIBILITY aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size,
                                                 const aclrtPhysicalMemProp *prop, uint64_t flags);

/**
 * Free physical memory. While mapped, the memory goes back to the device when its last mapping is
 * unmapped. Not a live handle → ACL_ERROR_RT_INVALID_HANDLE (107017).
 */
ACL_FUNC_VISIBILITY aclError aclrtFreePhysical(aclrtDrvMemHandle handle);

/**
 * Map [@p offset, @p offset + @p size) of @p handle at @p virPtr, inside a reservation and not
 * over an existing mapping; all three multiples of the granularity (else
 * ACL_ERROR_RT_PARAM_INVALID). The mapped range is device memory of the handle's device for every
 * API (copies, fills, operators). @p flags must be 0.
 */
ACL_FUNC_VISIBILITY aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
                                         uint64_t flags);

/**
 * Unmap the mapping that starts at @p virPtr, once the work queued before the call on its device's
 * streams has finished. Not the start of a mapping → ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtUnmapMem(void *virPtr);

#ifdef __cplusplus
}
#endif

#endif /* CANNON_ACL_RT_H_ */
