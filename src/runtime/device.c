/* Devices, contexts and the per-thread current context. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

/* The thread's current context. The id guards against a destroyed context whose address was
 * reused by a new one: the pointer is only trusted after the registry confirms it. */
static _Thread_local struct {
    cn_context *ctx;
    uint64_t id;
    uint64_t generation; /* g_generation when set: a finalize invalidates every thread's choice */
    bool default_tried;
} t_cur;

static _Atomic uint64_t g_generation = 1;

static void tls_set(cn_context *ctx)
{
    t_cur.ctx = ctx;
    t_cur.id = ctx ? ctx->obj.id : 0;
    t_cur.generation = atomic_load(&g_generation);
}

void cn_tls_forget(void)
{
    atomic_fetch_add(&g_generation, 1);
    t_cur.ctx = NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Host callbacks running on this thread                                                       */
/* ------------------------------------------------------------------------------------------ */

static _Thread_local cn_cb_frame *t_frames;

void cn_callback_enter(cn_cb_frame *f, cn_stream *s, bool adopt_context)
{
    f->stream = s;
    f->ctx = s ? s->ctx : NULL;
    f->adopted = adopt_context && s != NULL;
    if (f->adopted) {
        /* The context outlives the callback: destroying it destroys its streams first, and
         * that waits for their running callbacks. */
        f->saved_ctx = t_cur.ctx;
        f->saved_id = t_cur.id;
        f->saved_generation = t_cur.generation;
        f->saved_default_tried = t_cur.default_tried;
        tls_set(s->ctx);
        t_cur.default_tried = true;
    }
    f->outer = t_frames;
    t_frames = f;
}

void cn_callback_leave(cn_cb_frame *f)
{
    t_frames = f->outer;
    if (f->adopted) {
        t_cur.ctx = f->saved_ctx;
        t_cur.id = f->saved_id;
        t_cur.generation = f->saved_generation;
        t_cur.default_tried = f->saved_default_tried;
    }
}

bool cn_in_callback(void) { return t_frames != NULL; }

bool cn_callback_holds_stream(const cn_stream *s)
{
    for (const cn_cb_frame *f = t_frames; f; f = f->outer)
        if (f->stream == s)
            return true;
    return false;
}

bool cn_callback_holds_context(const cn_context *c)
{
    for (const cn_cb_frame *f = t_frames; f; f = f->outer)
        if (f->ctx == c)
            return true;
    return false;
}

aclError cn_callback_refuse(const char *api, const char *what)
{
    return cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: not allowed in a host callback: %s, and the stream running "
                    "the callback waits for it to return (this would deadlock); call it after the callback",
                    api, what);
}

/* ------------------------------------------------------------------------------------------ */
/* Devices                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/* Clear a device slot. arena_base/arena_size are read without the lock by cn_device_of_ptr,
 * so they are only ever written atomically (and are left alone here). */
static void device_clear(cn_device *d, int32_t id)
{
    d->id = id;
    d->open = false;
    d->primary_refs = 0;
    d->implicit_refs = 0;
    d->user_contexts = 0;
    d->drv = NULL;
    d->alloc = NULL;
    memset(&d->props, 0, sizeof(d->props));
    d->primary = NULL;
    atomic_store(&d->peer_mask, 0);
}

static int alloc_commit(void *ctx, void *p, size_t n, int huge)
{
    cn_device *d = ctx;
    return g_rt.driver.iface->memory->commit ? g_rt.driver.iface->memory->commit(d->drv, p, n, huge) : 0;
}

static int alloc_decommit(void *ctx, void *p, size_t n)
{
    cn_device *d = ctx;
    return g_rt.driver.iface->memory->decommit ? g_rt.driver.iface->memory->decommit(d->drv, p, n) : 0;
}

aclError cn_device_open_locked(int32_t id)
{
    cn_device *d = &g_rt.devices[id];
    if (d->open)
        return ACL_SUCCESS;
    const cannon_driver_iface *drv = g_rt.driver.iface;
    if (!d->free_lock_ready) {
        pthread_mutex_init(&d->free_lock, NULL);
        d->free_lock_ready = true;
    }
    device_clear(d, id);
    int rc = drv->device_open((uint32_t)id, &d->drv);
    if (rc != 0 || !d->drv)
        return cn_error(ACL_ERROR_RT_DEV_SETUP_ERROR, "device %d: driver \"%s\" failed to open it (error %d)", id,
                        drv->name, rc);
    void *base = NULL;
    size_t size = 0;
    if (drv->device->get_props(d->drv, &d->props) != 0 || drv->memory->arena(d->drv, &base, &size) != 0) {
        drv->device_close(d->drv);
        d->drv = NULL;
        return cn_error(ACL_ERROR_RT_DEV_SETUP_ERROR, "device %d: cannot read its properties or memory arena", id);
    }
    cn_devalloc_ops ops = {.ctx = d, .commit = alloc_commit, .decommit = alloc_decommit};
    aclError arc = cn_devalloc_create(base, size, &ops, &d->alloc);
    if (arc != ACL_SUCCESS) {
        drv->device_close(d->drv);
        d->drv = NULL;
        return cn_error(arc, "device %d: cannot create its memory allocator", id);
    }
    cn_retired_range_forget(base, size); /* device memory again, not a closed device's */
    __atomic_store_n(&d->arena_size, size, __ATOMIC_RELAXED);
    __atomic_store_n(&d->arena_base, base, __ATOMIC_RELEASE);
    d->open = true;
    CN_LOGI("device %d opened: %s, %zu MiB, %u worker(s)", id, d->props.name, size >> 20, d->props.num_workers);
    return ACL_SUCCESS;
}

static pthread_mutex_t g_live_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_live_cv = PTHREAD_COND_INITIALIZER;

void cn_device_obj_add(cn_device *d)
{
    pthread_mutex_lock(&g_live_lock);
    d->live_objs++;
    pthread_mutex_unlock(&g_live_lock);
}

void cn_device_obj_remove(cn_device *d)
{
    pthread_mutex_lock(&g_live_lock);
    if (--d->live_objs == 0)
        pthread_cond_broadcast(&g_live_cv);
    pthread_mutex_unlock(&g_live_lock);
}

/* Wait until every stream and event of d is released. The destroy calls have unregistered them;
 * what is left are references of threads still inside a call (a synchronize waiting for the
 * stream's last task, a wait on an event), which end without the runtime's lock. Ending the
 * device under them would free the driver objects they use, and their release would free them
 * again. */
static void device_wait_objs_locked(cn_device *d)
{
    pthread_mutex_lock(&g_live_lock);
    if (d->live_objs > 0) {
        CN_LOGI("device %d: waiting for %d stream(s) or event(s) still used by other threads", d->id, d->live_objs);
        while (d->live_objs > 0)
            pthread_cond_wait(&g_live_cv, &g_live_lock);
    }
    pthread_mutex_unlock(&g_live_lock);
}

static void device_close_locked(cn_device *d, cn_leak_stats *leaks)
{
    if (!d->open)
        return;
    cn_lock_wait_begin();
    device_wait_objs_locked(d);
    cn_lock_wait_end();
    /* Its streams are gone: deferred frees are due; physical allocations go back (their handles
     * and mappings become orphans); peer access from and to it ends. */
    cn_mem_device_closing(d);
    cn_vmm_device_closing(d);
    for (uint32_t i = 0; i < g_rt.device_count && i < CN_MAX_DEVICES; i++)
        atomic_fetch_and(&g_rt.devices[i].peer_mask, ~(UINT64_C(1) << d->id));
    atomic_store(&d->peer_mask, 0);
    /* Its memory goes; one aclrtFree of each block it held still succeeds (teardown after the
     * reset), until aclFinalize or until the range is a device's memory again. */
    if (!leaks)
        cn_retired_range_add(d->arena_base, d->arena_size);
    __atomic_store_n(&d->arena_base, NULL, __ATOMIC_RELEASE);
    __atomic_store_n(&d->arena_size, 0, __ATOMIC_RELAXED);
    size_t n = 0, bytes = 0;
    cn_devalloc_destroy(d->alloc, &n, &bytes);
    if (n) {
        if (leaks) {
            leaks->device_allocs += n;
            leaks->device_bytes += bytes;
        } else {
            CN_LOGI("device %d reset: released %zu allocation(s) (%zu bytes) still held", d->id, n, bytes);
        }
    }
    cn_lock_wait_begin(); /* the driver ends streams still on the device, waiting for their tasks */
    g_rt.driver.iface->device_close(d->drv);
    cn_lock_wait_end();
    device_clear(d, d->id);
}

static void device_maybe_close_locked(cn_device *d)
{
    if (d->open && d->primary_refs == 0 && d->user_contexts == 0)
        device_close_locked(d, NULL);
}

cn_device *cn_device_of_ptr(const void *ptr)
{
    uint32_t n = g_rt.device_count;
    for (uint32_t i = 0; i < n && i < CN_MAX_DEVICES; i++) {
        cn_device *d = &g_rt.devices[i];
        char *base = __atomic_load_n(&d->arena_base, __ATOMIC_ACQUIRE);
        if (!base)
            continue;
        size_t size = __atomic_load_n(&d->arena_size, __ATOMIC_RELAXED);
        if ((const char *)ptr >= base && (const char *)ptr < base + size)
            return d;
    }
    return NULL;
}

cn_device *cn_device_overlapping(const void *ptr, size_t n)
{
    uintptr_t lo = (uintptr_t)ptr, hi = lo + n;
    uint32_t count = g_rt.device_count;
    for (uint32_t i = 0; i < count && i < CN_MAX_DEVICES; i++) {
        cn_device *d = &g_rt.devices[i];
        char *base = __atomic_load_n(&d->arena_base, __ATOMIC_ACQUIRE);
        if (!base)
            continue;
        uintptr_t b = (uintptr_t)base, e = b + __atomic_load_n(&d->arena_size, __ATOMIC_RELAXED);
        if (lo < e && b < hi)
            return d;
    }
    return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Contexts                                                                                    */
/* ------------------------------------------------------------------------------------------ */

static void context_release(cn_obj *o) { cn_free(o); }

static aclError context_create_locked(cn_device *d, bool primary, cn_context **out)
{
    cn_context *c = cn_calloc(1, sizeof(*c));
    if (!c)
        return cn_error(ACL_ERROR_BAD_ALLOC, "device %d: out of memory creating a context", d->id);
    cn_obj_init(&c->obj, CN_KIND_CONTEXT, context_release);
    c->dev = d;
    c->primary = primary;
    aclError rc = cn_obj_register(&c->obj);
    if (rc != ACL_SUCCESS) {
        cn_free(c);
        return cn_error(rc, "device %d: out of memory registering a context", d->id);
    }
    rc = cn_stream_create_locked(c, true, 0, &c->default_stream);
    if (rc != ACL_SUCCESS) {
        cn_obj_unregister(&c->obj);
        cn_free(c);
        return rc;
    }
    *out = c;
    return ACL_SUCCESS;
}

void cn_context_destroy_locked(cn_context *ctx, bool force)
{
    /* Streams and events of the context, newest first, then its default stream. */
    for (;;) {
        cn_obj *o = g_rt.objects_tail;
        while (o && !((o->kind == CN_KIND_STREAM && ((cn_stream *)o)->ctx == ctx && !((cn_stream *)o)->is_default) ||
                      (o->kind == CN_KIND_EVENT && ((cn_event *)o)->ctx == ctx)))
            o = o->prev;
        if (!o)
            break;
        cn_retired_add(o, o->kind); /* a later destroy of the handle succeeds */
        if (o->kind == CN_KIND_STREAM)
            cn_stream_destroy_locked((cn_stream *)o, force);
        else
            cn_event_destroy_locked((cn_event *)o);
    }
    if (ctx->default_stream)
        cn_stream_destroy_locked(ctx->default_stream, force);
    ctx->default_stream = NULL;
    cn_device *d = ctx->dev;
    if (ctx->primary)
        d->primary = NULL;
    else
        d->user_contexts--;
    cn_obj_unregister(&ctx->obj);
    cn_obj_put(&ctx->obj);
}

void cn_device_teardown_all_locked(cn_leak_stats *leaks)
{
    for (int i = 0; i < CN_MAX_DEVICES; i++) {
        cn_device *d = &g_rt.devices[i];
        if (!d->open)
            continue;
        if (d->primary) {
            leaks->device_refs += (size_t)(d->primary_refs - d->implicit_refs);
            d->primary_refs = 0;
            cn_context_destroy_locked(d->primary, true);
        }
        device_close_locked(d, leaks);
    }
}

static aclError set_device_locked(int32_t id, bool implicit, cn_context **ctx_out)
{
    cn_device *d = &g_rt.devices[id];
    if (d->primary_refs == 0) {
        bool was_open = d->open;
        aclError rc = cn_device_open_locked(id);
        if (rc != ACL_SUCCESS)
            return rc;
        rc = context_create_locked(d, true, &d->primary);
        if (rc != ACL_SUCCESS) {
            if (!was_open)
                device_close_locked(d, NULL);
            return rc;
        }
    }
    d->primary_refs++;
    if (implicit)
        d->implicit_refs++;
    *ctx_out = d->primary;
    return ACL_SUCCESS;
}

cn_context *cn_current_context(void)
{
    uint64_t gen = atomic_load_explicit(&g_generation, memory_order_relaxed);
    if (t_cur.generation != gen) {
        /* A finalize happened since this thread chose: forget the choice entirely. */
        t_cur.ctx = NULL;
        t_cur.default_tried = false;
        t_cur.generation = gen;
    }
    if (t_cur.ctx) {
        cn_context *c = (cn_context *)cn_obj_get(t_cur.ctx, CN_KIND_CONTEXT);
        if (c && c->obj.id == t_cur.id)
            return c;
        if (c)
            cn_obj_put(&c->obj);
        t_cur.ctx = NULL;
    }
    /* A thread that never chose a device gets the configured default device, once. */
    if (t_cur.default_tried)
        return NULL;
    t_cur.default_tried = true;
    cn_context *c = NULL;
    if (cn_lock("the configured default device") != ACL_SUCCESS) {
        t_cur.default_tried = false; /* not decided: try again on a later call */
        return NULL;
    }
    int dd = g_rt.config.default_device;
    if (g_rt.init_refs && g_rt.core_up && dd >= 0 && (uint32_t)dd < g_rt.device_count &&
        set_device_locked(dd, true, &c) == ACL_SUCCESS) {
        tls_set(c);
        cn_obj_ref(&c->obj);
    } else {
        c = NULL;
    }
    cn_unlock();
    return c;
}

aclError cn_require_context(const char *api, cn_context **out)
{
    cn_context *c = cn_current_context();
    if (!c)
        return cn_error(ACL_ERROR_RT_CONTEXT_NULL, "%s: the calling thread has no current context; "
                        "call aclrtSetDevice or aclrtSetCurrentContext first", api);
    *out = c;
    return ACL_SUCCESS;
}

static aclError check_device_id(const char *api, int32_t id)
{
    aclError rc = cn_core_ensure();
    if (rc != ACL_SUCCESS)
        return rc;
    if (id < 0 || (uint32_t)id >= g_rt.device_count)
        return cn_error(ACL_ERROR_RT_INVALID_DEVICEID, "%s: device id %d is out of range: valid ids are 0..%u", api,
                        id, g_rt.device_count ? g_rt.device_count - 1 : 0);
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------------------------------ */
/* Device API                                                                                  */
/* ------------------------------------------------------------------------------------------ */

ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId)
{
    aclError rc = check_device_id("aclrtSetDevice", deviceId);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = cn_lock("aclrtSetDevice");
    if (rc != ACL_SUCCESS)
        return rc;
    cn_context *c = NULL;
    rc = g_rt.core_up ? set_device_locked(deviceId, false, &c)
                      : cn_error(ACL_ERROR_RT_DEV_SETUP_ERROR, "aclrtSetDevice: the runtime was finalized meanwhile");
    if (rc == ACL_SUCCESS)
        tls_set(c);
    cn_unlock();
    return rc;
}

static aclError reset_device(const char *api, int32_t id, bool force)
{
    aclError rc = check_device_id(api, id);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = cn_lock(api);
    if (rc != ACL_SUCCESS)
        return rc;
    cn_device *d = &g_rt.devices[id];
    if (d->primary_refs == 0) {
        cn_unlock();
        return cn_error(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, "%s: device %d holds no reference: it was not set, "
                        "or was already reset", api, id);
    }
    if ((force || d->primary_refs == 1) && cn_callback_holds_context(d->primary)) {
        cn_unlock();
        return cn_callback_refuse(api, "releasing the last reference destroys the device's default context, "
                                       "whose stream runs the callback");
    }
    d->primary_refs = force ? 0 : d->primary_refs - 1;
    if (d->implicit_refs > d->primary_refs)
        d->implicit_refs = d->primary_refs;
    if (d->primary_refs == 0) {
        if (t_cur.ctx == d->primary)
            t_cur.ctx = NULL;
        cn_context_destroy_locked(d->primary, false);
        device_maybe_close_locked(d);
    }
    cn_unlock();
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId) { return reset_device("aclrtResetDevice", deviceId, false); }

ACL_FUNC_VISIBILITY aclError aclrtResetDeviceForce(int32_t deviceId)
{
    return reset_device("aclrtResetDeviceForce", deviceId, true);
}

ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t *deviceId)
{
    if (!deviceId)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtGetDevice: deviceId is NULL");
    cn_context *c = cn_current_context();
    if (!c)
        return cn_error(ACL_ERROR_RT_CONTEXT_NULL, "aclrtGetDevice: the calling thread has no current device");
    *deviceId = c->dev->id;
    cn_obj_put(&c->obj);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t *count)
{
    if (!count)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCount: count is NULL");
    aclError rc = cn_core_ensure();
    if (rc != ACL_SUCCESS)
        return rc;
    *count = g_rt.device_count;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetRunMode(aclrtRunMode *runMode)
{
    if (!runMode)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtGetRunMode: runMode is NULL");
    *runMode = ACL_HOST;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtQueryDeviceStatus(int32_t deviceId, aclrtDeviceStatus *deviceStatus)
{
    if (!deviceStatus)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtQueryDeviceStatus: deviceStatus is NULL");
    aclError rc = check_device_id("aclrtQueryDeviceStatus", deviceId);
    if (rc != ACL_SUCCESS)
        return rc;
    *deviceStatus = ACL_RT_DEVICE_STATUS_NORMAL;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY const char *aclrtGetSocName(void)
{
    static char name[64];
    static _Atomic int cached;
    if (atomic_load(&cached))
        return name;
    if (cn_core_ensure() != ACL_SUCCESS || g_rt.device_count == 0)
        return NULL;
    if (cn_lock("aclrtGetSocName") != ACL_SUCCESS)
        return NULL;
    const char *res = NULL;
    if (atomic_load(&cached)) {
        res = name;
    } else if (g_rt.core_up) {
        cn_device *d = &g_rt.devices[0];
        if (cn_device_open_locked(0) == ACL_SUCCESS) {
            snprintf(name, sizeof(name), "%s", d->props.soc_name);
            atomic_store(&cached, 1);
            res = name;
            device_maybe_close_locked(d);
        }
    }
    cn_unlock();
    return res;
}

static aclError sync_device(const char *api, int32_t timeout)
{
    cn_context *c = NULL;
    aclError rc = cn_require_context(api, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    /* Take references to every stream of the device, then wait outside the lock. */
    cn_stream **list = NULL;
    size_t n = 0, cap = 0;
    rc = cn_lock(api);
    if (rc != ACL_SUCCESS) {
        cn_obj_put(&c->obj);
        return rc;
    }
    for (cn_obj *o = g_rt.objects_head; o; o = o->next) {
        if (o->kind != CN_KIND_STREAM || ((cn_stream *)o)->ctx->dev != c->dev)
            continue;
        if (cn_stream_capturing((cn_stream *)o)) {
            rc = cn_error(ACL_ERROR_RT_STREAM_CAPTURED, "%s: stream %p of the device is capturing "
                          "(aclmdlRICaptureBegin); synchronize after aclmdlRICaptureEnd", api, (void *)o);
            break;
        }
        if (cn_callback_holds_stream((cn_stream *)o)) {
            rc = cn_callback_refuse(api, "the device's streams include the one running the callback");
            break;
        }
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            cn_stream **nl = cn_realloc(list, ncap * sizeof(*nl));
            if (!nl) {
                rc = cn_error(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
                break;
            }
            list = nl;
            cap = ncap;
        }
        cn_obj_ref(o);
        list[n++] = (cn_stream *)o;
    }
    cn_unlock();
    uint64_t deadline = timeout > 0 ? cn_now_ns() + (uint64_t)timeout * 1000000ull : 0;
    for (size_t i = 0; i < n; i++) {
        if (rc == ACL_SUCCESS) {
            int32_t left = -1;
            if (timeout > 0) {
                uint64_t now = cn_now_ns();
                left = now >= deadline ? 1 : (int32_t)((deadline - now + 999999) / 1000000);
            }
            rc = cn_stream_sync(list[i], left, api);
        }
        cn_obj_put(&list[i]->obj);
    }
    cn_free(list);
    cn_obj_put(&c->obj);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice(void) { return sync_device("aclrtSynchronizeDevice", -1); }

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout)
{
    if (timeout < -1 || timeout == 0)
        return cn_error(ACL_ERROR_RT_PARAM_INVALID, "aclrtSynchronizeDeviceWithTimeout: timeout %d ms is invalid "
                        "(use -1 to wait forever or a positive number of milliseconds)", timeout);
    return sync_device("aclrtSynchronizeDeviceWithTimeout", timeout);
}

ACL_FUNC_VISIBILITY aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total)
{
    if (!free || !total)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtGetMemInfo: free or total is NULL");
    if ((int)attr < ACL_DDR_MEM || (int)attr > ACL_MEM_P2P_HUGE1G)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtGetMemInfo: attr %d is not an aclrtMemAttr", (int)attr);
    cn_context *c = NULL;
    aclError rc = cn_require_context("aclrtGetMemInfo", &c);
    if (rc != ACL_SUCCESS)
        return rc;
    if (attr == ACL_HBM_MEM_HUGE1G || attr == ACL_HBM_MEM_P2P_HUGE1G || attr == ACL_MEM_HUGE1G ||
        attr == ACL_MEM_P2P_HUGE1G) {
        /* No 1 GiB pages on the CPU device: the attribute does not apply. */
        *free = *total = 0;
    } else {
        cn_mem_pending_reclaim(c->dev, false);
        cn_devalloc_stats st;
        cn_devalloc_get_stats(c->dev->alloc, &st);
        *total = st.capacity;
        *free = st.capacity - st.live_bytes;
    }
    cn_obj_put(&c->obj);
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------------------------------ */
/* Context API                                                                                 */
/* ------------------------------------------------------------------------------------------ */

ACL_FUNC_VISIBILITY aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId)
{
    if (!context)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtCreateContext: context is NULL");
    aclError rc = check_device_id("aclrtCreateContext", deviceId);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = cn_lock("aclrtCreateContext");
    if (rc != ACL_SUCCESS)
        return rc;
    cn_device *d = &g_rt.devices[deviceId];
    bool was_open = d->open;
    rc = g_rt.core_up ? cn_device_open_locked(deviceId) : ACL_ERROR_RT_DEV_SETUP_ERROR;
    cn_context *c = NULL;
    if (rc == ACL_SUCCESS) {
        rc = context_create_locked(d, false, &c);
        if (rc == ACL_SUCCESS) {
            d->user_contexts++;
            tls_set(c);
            *context = c;
        } else if (!was_open) {
            device_close_locked(d, NULL);
        }
    }
    cn_unlock();
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyContext(aclrtContext context)
{
    if (!context)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtDestroyContext: context is NULL");
    aclError rc = cn_lock("aclrtDestroyContext");
    if (rc != ACL_SUCCESS)
        return rc;
    cn_context *c = (cn_context *)cn_obj_get(context, CN_KIND_CONTEXT);
    if (!c) {
        rc = cn_error(ACL_ERROR_INVALID_PARAM, "aclrtDestroyContext: %p is not a live context "
                      "(destroyed already, or not a context handle)", context);
    } else if (c->primary) {
        rc = cn_error(ACL_ERROR_INVALID_PARAM, "aclrtDestroyContext: %p is the default context of device %d; "
                      "release it with aclrtResetDevice", context, c->dev->id);
        cn_obj_put(&c->obj);
    } else if (cn_callback_holds_context(c)) {
        rc = cn_callback_refuse("aclrtDestroyContext", "the context's streams include the one running the callback");
        cn_obj_put(&c->obj);
    } else {
        cn_device *d = c->dev;
        if (t_cur.ctx == c)
            t_cur.ctx = NULL;
        cn_context_destroy_locked(c, false);
        cn_obj_put(&c->obj);
        device_maybe_close_locked(d);
    }
    cn_unlock();
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtSetCurrentContext(aclrtContext context)
{
    if (!context)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtSetCurrentContext: context is NULL");
    cn_context *c = (cn_context *)cn_obj_get(context, CN_KIND_CONTEXT);
    if (!c)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtSetCurrentContext: %p is not a live context", context);
    tls_set(c);
    cn_obj_put(&c->obj);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetCurrentContext(aclrtContext *context)
{
    if (!context)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtGetCurrentContext: context is NULL");
    cn_context *c = NULL;
    aclError rc = cn_require_context("aclrtGetCurrentContext", &c);
    if (rc != ACL_SUCCESS)
        return rc;
    *context = c;
    cn_obj_put(&c->obj);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream)
{
    if (!stream)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtCtxGetCurrentDefaultStream: stream is NULL");
    cn_context *c = NULL;
    aclError rc = cn_require_context("aclrtCtxGetCurrentDefaultStream", &c);
    if (rc != ACL_SUCCESS)
        return rc;
    *stream = c->default_stream;
    cn_obj_put(&c->obj);
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------------------------------ */
/* Peer access                                                                                 */
/* ------------------------------------------------------------------------------------------ */

bool cn_peer_allowed(const cn_device *a, const cn_device *b)
{
    uint64_t ab = atomic_load(&((cn_device *)a)->peer_mask) >> b->id & 1u;
    uint64_t ba = atomic_load(&((cn_device *)b)->peer_mask) >> a->id & 1u;
    return ab && ba;
}

ACL_FUNC_VISIBILITY aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId)
{
    const char *api = "aclrtDeviceCanAccessPeer";
    if (deviceId == peerDeviceId)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: deviceId %d cannot be equal to peerDeviceId %d", api, deviceId,
                        peerDeviceId);
    aclError rc = check_device_id(api, peerDeviceId);
    if (rc == ACL_SUCCESS)
        rc = check_device_id(api, deviceId);
    if (rc != ACL_SUCCESS)
        return rc;
    if (!canAccessPeer)
        return cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: canAccessPeer is NULL", api);
    /* Devices of one driver share the host's memory: every pair can exchange data. */
    *canAccessPeer = 1;
    return ACL_SUCCESS;
}

static aclError peer_access(const char *api, int32_t peerDeviceId, bool enable)
{
    cn_context *c = NULL;
    aclError rc = cn_require_context(api, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    cn_device *d = c->dev;
    cn_obj_put(&c->obj);
    if (d->id == peerDeviceId)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: deviceId %d cannot be equal to peerDeviceId %d", api, d->id,
                        peerDeviceId);
    rc = check_device_id(api, peerDeviceId);
    if (rc != ACL_SUCCESS)
        return rc;
    uint64_t bit = UINT64_C(1) << peerDeviceId;
    if (enable)
        atomic_fetch_or(&d->peer_mask, bit);
    else
        atomic_fetch_and(&d->peer_mask, ~bit);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags)
{
    if (flags != 0)
        return cn_error(ACL_ERROR_FEATURE_UNSUPPORTED, "aclrtDeviceEnablePeerAccess: flags is a reserved parameter "
                        "and must be 0 (got %u)", flags);
    return peer_access("aclrtDeviceEnablePeerAccess", peerDeviceId, true);
}

ACL_FUNC_VISIBILITY aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId)
{
    return peer_access("aclrtDeviceDisablePeerAccess", peerDeviceId, false);
}
