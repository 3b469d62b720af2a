/* Internal state of libascendcl: the runtime object model shared by its files (not installed).
 *
 * Objects (contexts, streams, events) carry a header with a kind, a unique id, an atomic
 * reference count and links in the global creation-order list. Public handles are the object
 * pointers, but they are only dereferenced after the handle registry (a hash set under a
 * rwlock) confirms they are live: a destroyed or foreign handle is reported, never followed.
 * A lookup takes a reference, so an object destroyed by another thread meanwhile stays valid
 * until the user of the reference drops it.
 *
 * Locking: g_rt.lock (a mutex) serialises control operations (init/finalize, device open/close,
 * create/destroy, subscriptions); the registry rwlock guards lookups; hot paths (launch,
 * malloc/free, memcpy) take only the registry read lock and the per-device allocator's mutex.
 *
 * Host callbacks (docs/runtime.md, "Host callbacks"): a stream waits for the callbacks it runs,
 * and a teardown holding g_rt.lock waits for the streams it destroys. So a callback must never
 * wait for its own stream, nor block on g_rt.lock while its holder waits for streams:
 * cn_lock() gives up (107000) in that case, and calls that would wait for the calling callback's
 * stream fail at once. The running callbacks of a thread are a stack of cn_cb_frame.
 */
#ifndef CANNON_RT_INTERNAL_H_
#define CANNON_RT_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>

#include "common.h"
#include "config.h"
#include "devalloc.h"
#include "log.h"
#include "cannon/driver.h"

#define CN_MAX_DEVICES 64

typedef enum cn_kind {
    CN_KIND_CONTEXT = 0x43545831, /* "CTX1" */
    CN_KIND_STREAM = 0x53544d31,  /* "STM1" */
    CN_KIND_EVENT = 0x45565431,   /* "EVT1" */
} cn_kind;

typedef struct cn_obj cn_obj;
struct cn_obj {
    cn_kind kind;
    uint64_t id;               /* unique for the process lifetime */
    atomic_int refs;           /* creation reference + lookups in flight */
    cn_obj *prev, *next;       /* creation-order list (g_rt.objects), under g_rt.lock */
    void (*release)(cn_obj *); /* called when refs reaches 0 */
};

typedef struct cn_device cn_device;
typedef struct cn_context cn_context;
typedef struct cn_stream cn_stream;
typedef struct cn_event cn_event;
typedef struct cn_report_queue cn_report_queue;
typedef struct cn_pending_free cn_pending_free;
typedef struct cn_capture cn_capture;

struct cn_device {
    int32_t id;
    bool open;
    int primary_refs;          /* aclrtSetDevice count, under g_rt.lock */
    int implicit_refs;         /* of which taken for the configured default device */
    int user_contexts;         /* live user contexts on this device */
    cannon_drv_device *drv;
    cn_devalloc *alloc;
    void *arena_base;          /* published for lock-free pointer classification */
    size_t arena_size;
    cannon_device_props props;
    cn_context *primary;       /* NULL when primary_refs == 0 */
    /* Streams and events of the device registered and not yet released (device.c's live lock):
     * closing the device waits for them, so no driver object outlives its device. */
    int live_objs;
    /* Peer access enabled from this device (bit j: to device j), aclrtDeviceEnablePeerAccess. */
    _Atomic uint64_t peer_mask;
    /* Deferred frees (memory.c): the device's streams, and the blocks freed while work queued
     * before their free may still use them. Both under free_lock (initialised once, kept across
     * closes); n_pending is read without it as a hint. */
    pthread_mutex_t free_lock;
    bool free_lock_ready;
    cn_stream *streams;
    cn_pending_free *pending;
    _Atomic size_t n_pending;
};

struct cn_context {
    cn_obj obj;
    cn_device *dev;
    bool primary;
    cn_stream *default_stream;
};

typedef struct cn_host_call cn_host_call;

struct cn_stream {
    cn_obj obj;
    cn_context *ctx;
    cn_device *dev;            /* ctx->dev, kept: the context may go before the last reference */
    cannon_drv_stream *drv;
    bool is_default;
    uint32_t flags;
    uint64_t subscriber;       /* thread id subscribed for callbacks, 0 = none */
    bool has_subscriber;
    cn_report_queue *reports;  /* queue of the subscriber (a reference) */
    cannon_drv_event *fence;   /* internal event for waits on one task (pageable copies) */
    /* Host calls (callbacks and host tasks) enqueued and not started, and those running; the
     * lock also guards creating `fence`. */
    pthread_mutex_t calls_lock;
    pthread_cond_t calls_idle; /* signalled when `running` drops */
    cn_host_call *calls;       /* not started yet, doubly linked */
    int running;
    bool dropping;             /* destroyed by force: calls not started are dropped */
    size_t dropped;            /* calls dropped that way */
    /* The device's stream list (memory.c's deferred frees), under dev->free_lock. */
    cn_stream *dnext, *dprev;
    /* Graph capture (capture.c): non-NULL while the stream records instead of running. Enqueues
     * read it without a lock; setting, clearing and recording take cap_lock. */
    pthread_mutex_t cap_lock;
    _Atomic(cn_capture *) capture;
};

struct cn_event {
    cn_obj obj;
    cn_context *ctx;
    cn_device *dev;            /* ctx->dev, kept: the context may go before the last reference */
    cannon_drv_event *drv;
    uint32_t flags;
    atomic_int captured;       /* records of it in captures still active (capture.c) */
};

/* A driver found by the loader. */
typedef struct cn_driver_entry {
    const cannon_driver_iface *iface;
    void *dl;                  /* dlopen handle, NULL for the built-in driver */
    char source[512];          /* "built-in" or the module's path */
    int score;
} cn_driver_entry;

typedef struct cn_rejected_driver {
    char path[512];
    char reason[256];
} cn_rejected_driver;

typedef struct cn_leak_stats {
    size_t contexts, streams, events;
    size_t device_allocs, device_bytes;
    size_t host_allocs, host_bytes;
    size_t device_refs;
    size_t graphs, vm_reservations, vm_handles;
} cn_leak_stats;

typedef struct cn_runtime {
    pthread_mutex_t lock;
    uint64_t init_refs;        /* aclInit reference count */
    bool core_up;              /* drivers loaded (by aclInit or lazily) */
    bool config_hash_set;
    uint64_t config_hash;      /* first successful non-empty config */
    cn_config config;

    /* driver */
    cn_driver_entry driver;    /* the active one */
    cn_driver_entry *candidates; size_t n_candidates;
    cn_rejected_driver *rejected; size_t n_rejected;
    uint32_t device_count;
    cn_device devices[CN_MAX_DEVICES];

    cn_obj *objects_head, *objects_tail;
    uint64_t next_id;
    cn_leak_stats last_leaks;  /* what the last finalize released on the user's behalf */
    /* Holders of g_rt.lock now waiting for stream work (callbacks among it); see cn_lock. */
    atomic_int lock_waits;
    /* Streams capturing now, all contexts (capture.c): 0 makes the capture checks free. */
    atomic_int captures;
} cn_runtime;

extern cn_runtime g_rt;

/* ---- objects (runtime.c) ---- */
void cn_obj_init(cn_obj *o, cn_kind kind, void (*release)(cn_obj *));
/* Register a new object (handle becomes valid) and append to the creation list. Needs g_rt.lock.
 * Returns ACL_ERROR_BAD_ALLOC if the registry cannot grow. */
aclError cn_obj_register(cn_obj *o);
/* Remove from registry and creation list (handle becomes invalid). Needs g_rt.lock. */
void cn_obj_unregister(cn_obj *o);
/* Look a handle up: a referenced object of that kind, or NULL. */
cn_obj *cn_obj_get(const void *handle, cn_kind kind);
static inline void cn_obj_ref(cn_obj *o) { atomic_fetch_add_explicit(&o->refs, 1, memory_order_relaxed); }
/* Take a reference only while the object still has one (not being released). */
static inline bool cn_obj_tryref(cn_obj *o)
{
    int n = atomic_load_explicit(&o->refs, memory_order_relaxed);
    while (n > 0)
        if (atomic_compare_exchange_weak_explicit(&o->refs, &n, n + 1, memory_order_acquire, memory_order_relaxed))
            return true;
    return false;
}
void cn_obj_put(cn_obj *o);
/* Whether @p o (which the caller holds a reference to) is still registered, i.e. not destroyed. */
bool cn_obj_is_registered(const cn_obj *o);
/* Retired handles (runtime.c): streams and events a device reset or a context destroy took down;
 * one later destroy of each succeeds (clients tear down after aclrtResetDevice). The device
 * arenas of closed devices likewise: aclrtFree of an address in one succeeds. */
void cn_retired_add(const void *handle, cn_kind kind);
bool cn_retired_take(const void *handle, cn_kind kind);
void cn_retired_range_add(const void *base, size_t size);
void cn_retired_range_forget(const void *base, size_t size);
bool cn_retired_range_has(const void *p);

/* ---- the global lock (runtime.c) ---- */
/* Take g_rt.lock. Outside host callbacks it simply waits. Inside one it gives up with
 * ACL_ERROR_RT_PARAM_INVALID (and a message naming `api`) when the holder is waiting for stream
 * work, which may include the calling callback: waiting for the lock would then deadlock. */
aclError cn_lock(const char *api);
static inline void cn_unlock(void) { pthread_mutex_unlock(&g_rt.lock); }
/* Bracket a wait for stream work while holding g_rt.lock (nests). */
static inline void cn_lock_wait_begin(void) { atomic_fetch_add(&g_rt.lock_waits, 1); }
static inline void cn_lock_wait_end(void) { atomic_fetch_sub(&g_rt.lock_waits, 1); }

/* ---- host callbacks (device.c) ---- */
/* One per callback running on the calling thread, innermost first (they nest when a callback
 * synchronizes another stream and helps run its host tasks). */
typedef struct cn_cb_frame {
    const cn_stream *stream;   /* the stream waiting for this callback (identity only) */
    const cn_context *ctx;     /* its context (identity only) */
    bool adopted;              /* the callback runs with ctx as the thread's current context */
    cn_context *saved_ctx;     /* the thread's own choice, restored on leave */
    uint64_t saved_id, saved_generation;
    bool saved_default_tried;
    struct cn_cb_frame *outer;
} cn_cb_frame;
/* Enter a callback that stream s waits for. adopt_context: make s's context current for its
 * duration (callbacks on runtime-owned threads); the thread's own choice comes back on leave. */
void cn_callback_enter(cn_cb_frame *f, cn_stream *s, bool adopt_context);
void cn_callback_leave(cn_cb_frame *f);
bool cn_in_callback(void);
/* Whether a callback running on this thread holds up stream s / a stream of context c. */
bool cn_callback_holds_stream(const cn_stream *s);
bool cn_callback_holds_context(const cn_context *c);
/* The error for a call a callback may not make: ACL_ERROR_RT_PARAM_INVALID with a message. */
aclError cn_callback_refuse(const char *api, const char *what);

/* ---- lifecycle (runtime.c) ---- */
/* Bring the driver layer up if it is not (aclrt* calls work without aclInit, as in CANN).
 * Needs g_rt.lock. */
aclError cn_core_ensure_locked(void);
aclError cn_core_ensure(void);

/* ---- loader (loader.c) ---- */
aclError cn_loader_load(void);   /* fills g_rt.driver, candidates, rejected; needs g_rt.lock */
void cn_loader_unload(void);

/* ---- devices and contexts (device.c) ---- */
/* The calling thread's current context, referenced (cn_obj_put it), or NULL. Applies the
 * configured default device for threads that never chose one. */
cn_context *cn_current_context(void);
/* Same, but returns ACL_ERROR_RT_CONTEXT_NULL (with a message naming `api`) when none. */
aclError cn_require_context(const char *api, cn_context **out);
aclError cn_device_open_locked(int32_t id);
void cn_device_teardown_all_locked(cn_leak_stats *leaks);
/* Device whose arena holds ptr, or NULL (lock-free). */
cn_device *cn_device_of_ptr(const void *ptr);
/* A device whose arena intersects [ptr, ptr + n) (the range must not wrap), or NULL. */
cn_device *cn_device_overlapping(const void *ptr, size_t n);
/* Count a stream or event of d from its registration to its release. A thread may hold a
 * reference past the destroy (a synchronize in progress); closing d waits for the count to reach
 * zero, so a runtime caller must never wait for g_rt.lock while it holds such a reference. */
void cn_device_obj_add(cn_device *d);
void cn_device_obj_remove(cn_device *d);
void cn_context_destroy_locked(cn_context *ctx, bool force);
void cn_tls_forget(void);

/* ---- streams and events (stream.c) ---- */
aclError cn_stream_create_locked(cn_context *ctx, bool is_default, uint32_t flags, cn_stream **out);
/* Resolve a stream argument (NULL → the current context's default), referenced. */
aclError cn_stream_resolve(aclrtStream stream, const char *api, cn_stream **out);
void cn_stream_destroy_locked(cn_stream *s, bool force);
void cn_event_destroy_locked(cn_event *e);
/* Wait for a stream (timeout_ms < 0: forever) and turn its recorded error into cn_error(). */
aclError cn_stream_sync(cn_stream *s, int32_t timeout_ms, const char *api);
const cannon_driver_iface *cn_drv(void);

/* Host calls a stream runs (stream.c). */
typedef enum { CN_CALL_TASK, CN_CALL_HOST_FUNC, CN_CALL_REPORT } cn_call_kind;
/* Enqueue on the driver directly (no capture): a host call, a callback for the stream's
 * subscriber, an event operation (which: 0 record, 1 wait, 2 reset). Used by graph replay. */
aclError cn_stream_enqueue_host(cn_stream *s, cn_call_kind kind, cannon_host_task_fn task, aclrtHostFunc func,
                                void *arg, uint32_t flags, const char *api);
aclError cn_stream_enqueue_callback(cn_stream *s, aclrtCallback fn, void *data, bool block, const char *api);
aclError cn_stream_enqueue_event(cn_stream *s, cn_event *e, int which, const char *api);

/* ---- graph capture (capture.c) ---- */
typedef enum { CN_CT_LAUNCH, CN_CT_COPY, CN_CT_FILL, CN_CT_HOST, CN_CT_EVENT } cn_ct_kind;
/* A recorded stream task. */
typedef struct cn_ctask {
    cn_ct_kind kind;
    union {
        struct {
            cannon_kernel_fn fn;
            const char *name;
            void *args;        /* owned copy when args_size > 0, else the pointer given */
            size_t args_size;
            uint32_t block_dim;
        } launch;
        struct {
            void *dst;
            const void *src;
            size_t n;
        } copy;
        struct {
            void *dst;
            int value;
            size_t n;
        } fill;
        struct {
            cn_call_kind kind;
            cannon_host_task_fn task;
            aclrtHostFunc func;
            aclrtCallback cb;
            void *arg;
            uint32_t flags;
            bool block;
        } host;
        struct {
            int which;         /* 0 record, 1 wait, 2 reset */
            aclrtEvent handle;
            uint64_t id;
        } ev;
    } u;
} cn_ctask;
static inline bool cn_stream_capturing(cn_stream *s)
{
    return atomic_load_explicit(&s->capture, memory_order_acquire) != NULL;
}
/* If s captures, record t (a launch's blob is copied) and return true with *rc the result; else
 * return false and the caller enqueues on the driver. An event record marks the event. */
bool cn_capture_record(cn_stream *s, const cn_ctask *t, aclError *rc);
/* ACL_SUCCESS, or ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT (with a message naming api) when the
 * capture mode forbids a synchronous call on this thread. */
aclError cn_capture_check_sync(const char *api);
/* The same decision, without a message. */
bool cn_capture_blocks_sync(void);
/* A stream being destroyed while it captures: the capture ends with no instance. */
void cn_capture_stream_destroyed(cn_stream *s);
/* aclFinalize: free every instance still alive; returns how many. */
size_t cn_capture_release_all(void);

/* ---- memory (memory.c) ---- */
void cn_host_mem_release_all(cn_leak_stats *leaks);
/* The aclrtMallocHost allocation containing ptr (anywhere inside it): its start and size. */
bool cn_host_mem_lookup(const void *ptr, void **start, size_t *size);
/* The device's stream list (stream creation and release). */
void cn_mem_stream_added(cn_stream *s);
void cn_mem_stream_gone(cn_stream *s);
/* Hand back the blocks whose deferred free is due; wait: first wait for the work they wait for. */
void cn_mem_pending_reclaim(cn_device *d, bool wait);
/* The device is closing (its streams are gone): every pending block goes back. */
void cn_mem_device_closing(cn_device *d);
/* Wait until the work queued so far on the device's streams has finished (the stream errors are
 * left alone; streams held by a callback of this thread are skipped). */
void cn_mem_wait_device_work(cn_device *d);
/* Whether the copy peer access allows a copy between devices a and b (both directions enabled). */
bool cn_peer_allowed(const cn_device *a, const cn_device *b);

/* ---- virtual memory (vmm.c) ---- */
typedef struct cn_vmm_hit {
    cn_device *dev;            /* the device of the mapping holding the pointer */
    char *run;                 /* start of the run of adjacent mappings of that device around it */
    size_t run_size;
    char *map;                 /* the mapping holding the pointer: its address, size, and the */
    size_t map_size;           /*   arena block bytes it shows */
    char *backing;
} cn_vmm_hit;
enum { CN_VMM_NONE = 0, CN_VMM_MAPPED = 1, CN_VMM_UNMAPPED = 2 };
/* Whether any reservation exists (a cheap check before the lookups). */
bool cn_vmm_active(void);
/* Resolve p: CN_VMM_NONE (in no reservation), CN_VMM_MAPPED (*hit filled), CN_VMM_UNMAPPED (in
 * a reservation, not mapped, or mapped to memory of a closed device). */
int cn_vmm_lookup(const void *p, cn_vmm_hit *hit);
/* Whether [p, p + n) intersects a reservation (the range must not wrap). */
bool cn_vmm_overlaps(const void *p, size_t n);
/* A device is closing: its physical allocations go back to its allocator and their handles and
 * mappings stop counting as device memory (unmap, free and release still succeed). */
void cn_vmm_device_closing(cn_device *d);
/* aclFinalize: unmap and release everything, free every handle; adds to the leak counts. */
void cn_vmm_release_all(size_t *reservations, size_t *handles);

#endif /* CANNON_RT_INTERNAL_H_ */
