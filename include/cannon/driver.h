/**
 * @file driver.h
 * The device-driver ABI of libascendcl (version CANNON_DRIVER_ABI_VERSION).
 *
 * A driver is a table of small per-object interfaces: the driver itself (probe, devices), a
 * device (properties, worker pool), its memory (one contiguous, shareable arena per device;
 * synchronous copies), its streams (ordered asynchronous queues of tasks) and events. The
 * runtime keeps all API semantics (argument checks, contexts, reference counts, the caching
 * allocator and the pointer registry); a driver only executes.
 *
 * A driver module is a shared object named `libcannon-driver-<name>.so` that exports
 *     const cannon_driver_iface *cannon_driver_entry(uint32_t host_abi_version);
 * The loader looks in $CANNON_DRIVER_PATH (a ':'-separated list of directories or files) and
 * then in the private module directory `<libdir>/cannon/drivers`. It rejects, with a logged
 * reason, a module without the entry point, one that returns NULL, one whose abi_version differs
 * from the runtime's, and one whose probe() scores 0. The CPU driver is also linked into
 * libascendcl so the runtime works with no module installed.
 *
 * Error convention: functions return 0 or an ACL/runtime error code (acl/acl_base.h).
 * Threading: every function may be called from any thread; the driver serialises what it must.
 * Lifetime: objects a driver returns stay valid until passed to their close/destroy function.
 */
#ifndef CANNON_DRIVER_H_
#define CANNON_DRIVER_H_

#include <stddef.h>
#include <stdint.h>
#include "cannon/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CANNON_DRIVER_ABI_VERSION 2u
#define CANNON_DRIVER_ENTRY_SYMBOL "cannon_driver_entry"

typedef struct cannon_drv_device cannon_drv_device; /* opaque, owned by the driver */
typedef struct cannon_drv_stream cannon_drv_stream;
typedef struct cannon_drv_event cannon_drv_event;

/** Services the runtime offers a driver (given to init). */
typedef struct cannon_host_api {
    uint32_t abi_version;
    /** Log through the runtime's logger; level as aclLogLevel (0 debug .. 3 error). */
    void (*log)(int level, const char *fmt, ...);
} cannon_host_api;

/** Static facts about a device. */
typedef struct cannon_device_props {
    char name[64];        /**< e.g. "cpu:3" */
    char soc_name[64];    /**< what aclrtGetSocName reports */
    size_t mem_capacity;  /**< bytes of device memory (size of the arena) */
    uint32_t num_workers; /**< worker threads of the device's pool */
    uint32_t isa_flags;   /**< driver-defined capability bits (CPU: CANNON_CPU_ISA_*) */
} cannon_device_props;

/** Device memory: one contiguous arena per device, shareable with other processes. */
typedef struct cannon_memory_iface {
    /** The arena [*base, *base + *size). Memory is committed lazily on first touch. */
    int (*arena)(cannon_drv_device *dev, void **base, size_t *size);
    /** A file descriptor another process can map (memfd) for the whole arena; -1 if none. The
     *  driver owns it: callers that keep it must dup() it. */
    int (*export_fd)(cannon_drv_device *dev);
    /** Hint that [ptr, ptr+size) will be used (CPU: huge pages); may be a no-op. */
    int (*commit)(cannon_drv_device *dev, void *ptr, size_t size, int huge);
    /** Give the pages of [ptr, ptr+size) back to the system; contents become zero/undefined. */
    int (*decommit)(cannon_drv_device *dev, void *ptr, size_t size);
    /** Synchronous copy; either side may be host memory. Large copies may use the pool. */
    int (*copy)(cannon_drv_device *dev, void *dst, const void *src, size_t n);
    /** Synchronous byte fill. */
    int (*fill)(cannon_drv_device *dev, void *dst, int value, size_t n);

    /* Virtual memory (aclrtReserveMemAddress / aclrtMapMem). Optional: a driver that leaves these
     * NULL has none, and the runtime reports the feature as not supported. Physical memory is
     * always a block of a device's arena (the runtime's allocator hands it out); these functions
     * only manage addresses. Reservations and unmaps need no device: they must keep working after
     * the device that backed a mapping was closed. */
    /** The granularity of vm_map: sizes, offsets and addresses are multiples of it. */
    size_t (*vm_granularity)(cannon_drv_device *dev);
    /**
     * Reserve @p size bytes (a multiple of the granularity) of inaccessible address space,
     * aligned to the granularity. @p hint: NULL, or the address wanted (then only that address;
     * taken → ACL_ERROR_RT_MEMORY_ALLOCATION).
     */
    int (*vm_reserve)(size_t size, void *hint, void **va);
    /** Give a reservation (and whatever is still mapped in it) back. */
    int (*vm_release)(void *va, size_t size);
    /** Map the arena's [@p arena_ptr, +@p size) read-write at @p va, inside a reservation. */
    int (*vm_map)(cannon_drv_device *dev, void *va, size_t size, void *arena_ptr);
    /** Make [@p va, +@p size) reserved and inaccessible again. */
    int (*vm_unmap)(void *va, size_t size);
} cannon_memory_iface;

/** Event flags understood by drivers (a subset of ACL_EVENT_*). */
#define CANNON_DRV_EVENT_TIMING 0x1u

/**
 * Streams: tasks run asynchronously, in enqueue order; streams of a device run concurrently.
 * enqueue_* copy what they need and return at once. A task that fails records the stream's
 * error (the first one since the last synchronize), later tasks still run.
 */
typedef struct cannon_stream_iface {
    int (*create)(cannon_drv_device *dev, uint32_t flags, cannon_drv_stream **out);
    /** Wait for pending work (force = 0) or discard what has not started (force = 1), then free. */
    int (*destroy)(cannon_drv_stream *s, int force);
    int (*enqueue_launch)(cannon_drv_stream *s, const cannon_launch_desc *desc);
    int (*enqueue_copy)(cannon_drv_stream *s, void *dst, const void *src, size_t n);
    int (*enqueue_fill)(cannon_drv_stream *s, void *dst, int value, size_t n);
    /** Run fn(arg) on the stream's thread, in order; its non-zero return is the stream's error. */
    int (*enqueue_host)(cannon_drv_stream *s, cannon_host_task_fn fn, void *arg);
    int (*enqueue_record)(cannon_drv_stream *s, cannon_drv_event *e);
    int (*enqueue_wait)(cannon_drv_stream *s, cannon_drv_event *e);
    int (*enqueue_reset)(cannon_drv_stream *s, cannon_drv_event *e);
    /**
     * Wait until everything enqueued before the call has finished. timeout_ms < 0: forever.
     * Returns ACL_ERROR_RT_STREAM_SYNC_TIMEOUT on expiry, else the stream's recorded error
     * (clearing it, and copying its message into msg when msg is not NULL), else 0.
     */
    int (*synchronize)(cannon_drv_stream *s, int32_t timeout_ms, char *msg, size_t msg_size);
    /** 1 when everything enqueued has finished, else 0. */
    int (*query)(cannon_drv_stream *s);

    int (*event_create)(cannon_drv_device *dev, uint32_t flags, cannon_drv_event **out);
    /** Free an event; a record still pending on a stream keeps it alive until it runs. */
    int (*event_destroy)(cannon_drv_event *e);
    /** 1 when the work captured by the last record (if any) has finished, else 0. */
    int (*event_query)(cannon_drv_event *e);
    /** Wait for the captured work; timeout_ms < 0: forever; expiry → ACL_ERROR_RT_EVENT_SYNC_TIMEOUT. */
    int (*event_synchronize)(cannon_drv_event *e, int32_t timeout_ms);
    /**
     * Milliseconds between two completed timed records. Not complete →
     * ACL_ERROR_RT_EVENT_NOT_COMPLETE; never recorded or not timed →
     * ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID.
     */
    int (*event_elapsed)(cannon_drv_event *start, cannon_drv_event *end, float *ms);
    /**
     * enqueue_host with CANNON_HOST_TASK_* flags (kernel.h). Optional: NULL means the driver runs
     * every host task on the stream's thread, and the runtime then ignores the flags (they are
     * hints that never change results).
     */
    int (*enqueue_host_ex)(cannon_drv_stream *s, cannon_host_task_fn fn, void *arg, uint32_t flags);

    /** Tasks enqueued so far: a position in the stream that only grows. */
    uint64_t (*position)(cannon_drv_stream *s);
    /** Tasks that have finished or been discarded: the work before position p is done once
     *  completed(s) >= p. */
    uint64_t (*completed)(cannon_drv_stream *s);
    /**
     * Wait until completed(s) >= @p pos (timeout_ms < 0: forever), leaving the stream's recorded
     * error alone. Returns 0 or ACL_ERROR_RT_STREAM_SYNC_TIMEOUT.
     */
    int (*wait_position)(cannon_drv_stream *s, uint64_t pos, int32_t timeout_ms);
} cannon_stream_iface;

/** A device. */
typedef struct cannon_device_iface {
    int (*get_props)(cannon_drv_device *dev, cannon_device_props *props);
    /** Run fn over n blocks on the pool and wait (for synchronous host-side work). Called from
     *  inside a kernel it runs inline on the calling worker. */
    int (*parallel_for)(cannon_drv_device *dev, const cannon_launch_desc *desc);
} cannon_device_iface;

/** The driver: its entry returns a pointer to a static table of this type. */
typedef struct cannon_driver_iface {
    uint32_t abi_version; /**< CANNON_DRIVER_ABI_VERSION the driver was built with */
    uint32_t struct_size; /**< sizeof(cannon_driver_iface) the driver was built with */
    const char *name;     /**< short name, e.g. "cpu" */
    const char *description;
    /** 0: cannot run on this machine; otherwise a score, the highest usable driver wins. */
    int (*probe)(void);
    /** Initialise the driver; count devices. */
    int (*init)(const cannon_host_api *host, uint32_t *device_count);
    void (*fini)(void);
    /** Open device index (0-based, < device_count); opening an open index returns the same
     *  device and needs one more close. The last close tears down its arena and destroys the
     *  streams and events still on the device (their handles become invalid). */
    int (*device_open)(uint32_t index, cannon_drv_device **out);
    void (*device_close)(cannon_drv_device *dev);
    const cannon_device_iface *device;
    const cannon_memory_iface *memory;
    const cannon_stream_iface *stream;
} cannon_driver_iface;

/** The symbol a driver module exports. Returns NULL when host_abi_version is not supported. */
typedef const cannon_driver_iface *(*cannon_driver_entry_fn)(uint32_t host_abi_version);

#ifdef __cplusplus
}
#endif

#endif /* CANNON_DRIVER_H_ */
