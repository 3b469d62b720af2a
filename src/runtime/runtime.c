/* Process-wide state, the handle registry and the lifecycle (aclInit / aclFinalize). */
#include "internal.h"
#include "prof.h"
#include "dump.h"

#include <stdlib.h>
#include <string.h>

cn_runtime g_rt = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .next_id = 1,
};

/* ------------------------------------------------------------------------------------------ */
/* Handle registry: an open-addressing hash set of live object pointers.                       */
/* ------------------------------------------------------------------------------------------ */

static pthread_rwlock_t g_reg_lock = PTHREAD_RWLOCK_INITIALIZER;
static cn_obj **g_reg_slots;   /* NULL = empty, TOMBSTONE = deleted */
static size_t g_reg_cap;       /* power of two */
static size_t g_reg_used;      /* live + tombstones */
static size_t g_reg_live;
#define TOMBSTONE ((cn_obj *)(uintptr_t)1)

static void retired_forget(uintptr_t h);

static size_t reg_hash(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x;
}

static bool reg_grow(void)
{
    size_t ncap = g_reg_cap ? g_reg_cap * 2 : 256;
    if (g_reg_live * 4 < g_reg_cap)
        ncap = g_reg_cap; /* mostly tombstones: rehash in place size */
    cn_obj **ns = cn_calloc(ncap, sizeof(*ns));
    if (!ns)
        return false;
    for (size_t i = 0; i < g_reg_cap; i++) {
        cn_obj *o = g_reg_slots[i];
        if (!o || o == TOMBSTONE)
            continue;
        size_t j = reg_hash(o) & (ncap - 1);
        while (ns[j])
            j = (j + 1) & (ncap - 1);
        ns[j] = o;
    }
    cn_free(g_reg_slots);
    g_reg_slots = ns;
    g_reg_cap = ncap;
    g_reg_used = g_reg_live;
    return true;
}

void cn_obj_init(cn_obj *o, cn_kind kind, void (*release)(cn_obj *))
{
    memset(o, 0, sizeof(*o));
    o->kind = kind;
    atomic_init(&o->refs, 1);
    o->release = release;
}

aclError cn_obj_register(cn_obj *o)
{
    pthread_rwlock_wrlock(&g_reg_lock);
    if ((g_reg_used + 1) * 2 > g_reg_cap && !reg_grow()) {
        pthread_rwlock_unlock(&g_reg_lock);
        return ACL_ERROR_BAD_ALLOC;
    }
    size_t j = reg_hash(o) & (g_reg_cap - 1);
    while (g_reg_slots[j] && g_reg_slots[j] != TOMBSTONE)
        j = (j + 1) & (g_reg_cap - 1);
    if (!g_reg_slots[j])
        g_reg_used++;
    g_reg_slots[j] = o;
    g_reg_live++;
    pthread_rwlock_unlock(&g_reg_lock);

    o->id = g_rt.next_id++;
    retired_forget((uintptr_t)o); /* a new object at a retired address */
    o->prev = g_rt.objects_tail;
    o->next = NULL;
    if (g_rt.objects_tail)
        g_rt.objects_tail->next = o;
    else
        g_rt.objects_head = o;
    g_rt.objects_tail = o;
    return ACL_SUCCESS;
}

static size_t reg_find_slot(const void *p)
{
    if (!g_reg_cap)
        return SIZE_MAX;
    size_t j = reg_hash(p) & (g_reg_cap - 1);
    for (size_t n = 0; n < g_reg_cap; n++) {
        cn_obj *o = g_reg_slots[j];
        if (!o)
            return SIZE_MAX;
        if (o == p)
            return j;
        j = (j + 1) & (g_reg_cap - 1);
    }
    return SIZE_MAX;
}

void cn_obj_unregister(cn_obj *o)
{
    pthread_rwlock_wrlock(&g_reg_lock);
    size_t j = reg_find_slot(o);
    if (j != SIZE_MAX) {
        g_reg_slots[j] = TOMBSTONE;
        g_reg_live--;
    }
    if (g_reg_live == 0) {
        /* Drop the table when empty so a finalized process holds no runtime memory. */
        cn_free(g_reg_slots);
        g_reg_slots = NULL;
        g_reg_cap = g_reg_used = 0;
    }
    pthread_rwlock_unlock(&g_reg_lock);

    if (o->prev)
        o->prev->next = o->next;
    else if (g_rt.objects_head == o)
        g_rt.objects_head = o->next;
    if (o->next)
        o->next->prev = o->prev;
    else if (g_rt.objects_tail == o)
        g_rt.objects_tail = o->prev;
    o->prev = o->next = NULL;
}

cn_obj *cn_obj_get(const void *handle, cn_kind kind)
{
    if (!handle)
        return NULL;
    cn_obj *found = NULL;
    pthread_rwlock_rdlock(&g_reg_lock);
    size_t j = reg_find_slot(handle);
    if (j != SIZE_MAX) {
        cn_obj *o = g_reg_slots[j];
        if (o->kind == kind) {
            cn_obj_ref(o);
            found = o;
        }
    }
    pthread_rwlock_unlock(&g_reg_lock);
    return found;
}

bool cn_obj_is_registered(const cn_obj *o)
{
    pthread_rwlock_rdlock(&g_reg_lock);
    bool live = reg_find_slot(o) != SIZE_MAX;
    pthread_rwlock_unlock(&g_reg_lock);
    return live;
}

void cn_obj_put(cn_obj *o)
{
    if (o && atomic_fetch_sub_explicit(&o->refs, 1, memory_order_acq_rel) == 1)
        o->release(o);
}

/* ------------------------------------------------------------------------------------------ */
/* Retired handles: what a device reset (or a context destroy) took down with it.               */
/* ------------------------------------------------------------------------------------------ */

/* Streams and events die with their context, but clients that tear down after aclrtResetDevice
 * (ggml does) still destroy them, and CANN answers 0. Their addresses are kept, sorted, so that one
 * later destroy of each is a success; a new object at the same address, or aclFinalize, forgets
 * them. Bounded: past CN_RETIRED_MAX the oldest are not recorded and their destroy is 100000 again.
 * Device memory is tracked by address range instead (cn_retired_range_*). */
#define CN_RETIRED_MAX 4096
#define CN_RETIRED_RANGES 64
static pthread_mutex_t g_ret_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cn_retired {
    uintptr_t h;
    cn_kind kind;
} g_ret[CN_RETIRED_MAX];
static size_t g_ret_n;
static struct {
    uintptr_t lo, hi;
} g_ret_range[CN_RETIRED_RANGES];
static size_t g_ret_nrange;

/* The first index whose address is >= h. */
static size_t ret_lower(uintptr_t h)
{
    size_t lo = 0, hi = g_ret_n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g_ret[mid].h < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void ret_remove_locked(uintptr_t h)
{
    size_t i = ret_lower(h);
    if (i < g_ret_n && g_ret[i].h == h) {
        memmove(&g_ret[i], &g_ret[i + 1], (g_ret_n - i - 1) * sizeof(g_ret[0]));
        __atomic_store_n(&g_ret_n, g_ret_n - 1, __ATOMIC_RELAXED);
    }
}

static void retired_forget(uintptr_t h)
{
    if (!__atomic_load_n(&g_ret_n, __ATOMIC_RELAXED))
        return;
    pthread_mutex_lock(&g_ret_lock);
    ret_remove_locked(h);
    pthread_mutex_unlock(&g_ret_lock);
}

void cn_retired_add(const void *handle, cn_kind kind)
{
    uintptr_t h = (uintptr_t)handle;
    pthread_mutex_lock(&g_ret_lock);
    size_t i = ret_lower(h);
    if (i < g_ret_n && g_ret[i].h == h) {
        g_ret[i].kind = kind;
    } else if (g_ret_n < CN_RETIRED_MAX) {
        memmove(&g_ret[i + 1], &g_ret[i], (g_ret_n - i) * sizeof(g_ret[0]));
        g_ret[i].h = h;
        g_ret[i].kind = kind;
        __atomic_store_n(&g_ret_n, g_ret_n + 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&g_ret_lock);
}

bool cn_retired_take(const void *handle, cn_kind kind)
{
    uintptr_t h = (uintptr_t)handle;
    bool hit = false;
    if (!__atomic_load_n(&g_ret_n, __ATOMIC_RELAXED))
        return false; /* nothing retired: every destroy passes here */
    pthread_mutex_lock(&g_ret_lock);
    size_t i = ret_lower(h);
    if (i < g_ret_n && g_ret[i].h == h && g_ret[i].kind == kind) {
        ret_remove_locked(h);
        hit = true;
    }
    pthread_mutex_unlock(&g_ret_lock);
    return hit;
}

void cn_retired_range_add(const void *base, size_t size)
{
    if (!base || !size)
        return;
    pthread_mutex_lock(&g_ret_lock);
    if (g_ret_nrange == CN_RETIRED_RANGES) { /* forget the oldest */
        memmove(&g_ret_range[0], &g_ret_range[1], (CN_RETIRED_RANGES - 1) * sizeof(g_ret_range[0]));
        g_ret_nrange--;
    }
    g_ret_range[g_ret_nrange].lo = (uintptr_t)base;
    g_ret_range[g_ret_nrange].hi = (uintptr_t)base + size;
    g_ret_nrange++;
    pthread_mutex_unlock(&g_ret_lock);
}

void cn_retired_range_forget(const void *base, size_t size)
{
    uintptr_t lo = (uintptr_t)base, hi = lo + size;
    pthread_mutex_lock(&g_ret_lock);
    size_t k = 0;
    for (size_t i = 0; i < g_ret_nrange; i++)
        if (!(g_ret_range[i].lo < hi && lo < g_ret_range[i].hi))
            g_ret_range[k++] = g_ret_range[i];
    g_ret_nrange = k;
    pthread_mutex_unlock(&g_ret_lock);
}

bool cn_retired_range_has(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    bool hit = false;
    pthread_mutex_lock(&g_ret_lock);
    for (size_t i = 0; i < g_ret_nrange && !hit; i++)
        hit = g_ret_range[i].lo <= a && a < g_ret_range[i].hi;
    pthread_mutex_unlock(&g_ret_lock);
    return hit;
}

static void retired_clear(void)
{
    pthread_mutex_lock(&g_ret_lock);
    __atomic_store_n(&g_ret_n, 0, __ATOMIC_RELAXED);
    g_ret_nrange = 0;
    pthread_mutex_unlock(&g_ret_lock);
}

/* ------------------------------------------------------------------------------------------ */
/* The global lock                                                                             */
/* ------------------------------------------------------------------------------------------ */

aclError cn_lock(const char *api)
{
    if (CN_LIKELY(!cn_in_callback())) {
        pthread_mutex_lock(&g_rt.lock);
        return ACL_SUCCESS;
    }
    /* In a callback: wait in slices, giving up once the holder waits for stream work (it may be
     * waiting for this very callback). A holder that does not wait finishes soon. */
    for (;;) {
        if (pthread_mutex_trylock(&g_rt.lock) == 0)
            return ACL_SUCCESS;
        if (atomic_load(&g_rt.lock_waits) > 0)
            return cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: not allowed in a host callback while another thread "
                            "tears down (aclFinalize, a device reset, a context or stream destroy): the teardown "
                            "waits for running callbacks, this one included (this would deadlock)", api);
        struct timespec dl;
        clock_gettime(CLOCK_REALTIME, &dl);
        dl.tv_nsec += 1000000L;
        if (dl.tv_nsec >= 1000000000L) {
            dl.tv_sec++;
            dl.tv_nsec -= 1000000000L;
        }
        if (pthread_mutex_timedlock(&g_rt.lock, &dl) == 0)
            return ACL_SUCCESS;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Lifecycle                                                                                   */
/* ------------------------------------------------------------------------------------------ */

aclError cn_core_ensure_locked(void)
{
    if (g_rt.core_up)
        return ACL_SUCCESS;
    cn_log_configure();
    aclError rc = cn_loader_load();
    if (rc != ACL_SUCCESS)
        return rc;
    __atomic_store_n(&g_rt.core_up, true, __ATOMIC_RELEASE);
    return ACL_SUCCESS;
}

aclError cn_core_ensure(void)
{
    if (CN_LIKELY(__atomic_load_n(&g_rt.core_up, __ATOMIC_ACQUIRE)))
        return ACL_SUCCESS;
    pthread_mutex_lock(&g_rt.lock);
    aclError rc = cn_core_ensure_locked();
    pthread_mutex_unlock(&g_rt.lock);
    return rc;
}

static void report_leaks(const cn_leak_stats *l)
{
    size_t total = l->contexts + l->streams + l->events + l->device_allocs + l->host_allocs + l->device_refs +
                   l->graphs + l->vm_reservations + l->vm_handles;
    if (!total)
        return;
    CN_LOGW("aclFinalize released resources the application did not: %zu context(s), %zu stream(s), "
            "%zu event(s), %zu device allocation(s) (%zu bytes), %zu host allocation(s) (%zu bytes), "
            "%zu device reference(s), %zu captured instance(s), %zu address reservation(s), "
            "%zu physical allocation(s)",
            l->contexts, l->streams, l->events, l->device_allocs, l->device_bytes, l->host_allocs, l->host_bytes,
            l->device_refs, l->graphs, l->vm_reservations, l->vm_handles);
}

/* Tear everything down, newest object first. Needs g_rt.lock. */
static void teardown_locked(void)
{
    cn_leak_stats leaks;
    memset(&leaks, 0, sizeof(leaks));
    cn_lock_wait_begin(); /* destroying streams waits for their running tasks */

    /* User objects in reverse order of creation. Default streams and primary contexts belong to
     * devices and go with them below; destroying a context takes its streams and events along, so
     * restart from the tail after each destruction. */
    for (;;) {
        cn_obj *o = g_rt.objects_tail;
        while (o) {
            if (o->kind == CN_KIND_EVENT)
                break;
            if (o->kind == CN_KIND_STREAM && !((cn_stream *)o)->is_default)
                break;
            if (o->kind == CN_KIND_CONTEXT && !((cn_context *)o)->primary)
                break;
            o = o->prev;
        }
        if (!o)
            break;
        if (o->kind == CN_KIND_EVENT) {
            leaks.events++;
            cn_event_destroy_locked((cn_event *)o);
        } else if (o->kind == CN_KIND_STREAM) {
            leaks.streams++;
            cn_stream_destroy_locked((cn_stream *)o, true);
        } else {
            leaks.contexts++;
            cn_context_destroy_locked((cn_context *)o, true);
        }
    }
    cn_device_teardown_all_locked(&leaks);
    cn_lock_wait_end();
    cn_prof_process_finish(); /* every stream is gone: the profile is complete */
    cn_dump_process_finish();  /* and so is the dump */
    cn_vmm_release_all(&leaks.vm_reservations, &leaks.vm_handles);
    leaks.graphs = cn_capture_release_all();
    cn_host_mem_release_all(&leaks);
    cn_tls_forget();
    cn_loader_unload();
    __atomic_store_n(&g_rt.core_up, false, __ATOMIC_RELEASE);
    g_rt.last_leaks = leaks;
    report_leaks(&leaks);
    cn_config_free(&g_rt.config);
    cn_config_defaults(&g_rt.config);
    cn_error_set_mode(0);
    retired_clear();
}

ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath)
{
    aclError rc = cn_lock("aclInit");
    if (rc != ACL_SUCCESS)
        return rc;
    if (g_rt.init_refs > 0) {
        unsigned long long refs = ++g_rt.init_refs;
        cn_unlock();
        /* Benign by CANN's documentation: a second component initialising the runtime. */
        return cn_error(ACL_ERROR_REPEAT_INITIALIZE, "aclInit: the runtime is already initialized "
                        "(reference count now %llu); the configuration was not re-read", refs);
    }
    cn_log_configure();
    cn_config cfg;
    rc = cn_config_load(configPath, &cfg);
    if (rc != ACL_SUCCESS) {
        cn_unlock();
        return rc;
    }
    if (cfg.content_hash && g_rt.config_hash_set && cfg.content_hash != g_rt.config_hash) {
        cn_config_free(&cfg);
        cn_unlock();
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclInit: config file \"%s\" differs from the one of the first "
                        "initialization of this process; a re-initialization must use the same configuration",
                        configPath);
    }
    rc = cn_core_ensure_locked();
    if (rc != ACL_SUCCESS) {
        cn_config_free(&cfg);
        cn_unlock();
        return rc;
    }
    if (cfg.default_device >= 0 && (uint32_t)cfg.default_device >= g_rt.device_count) {
        int dd = cfg.default_device; /* cn_config_free resets cfg */
        uint32_t count = g_rt.device_count;
        cn_config_free(&cfg);
        cn_unlock();
        return cn_error(ACL_ERROR_FAILURE, "aclInit: config file \"%s\": defaultDevice.default_device %d is out of "
                        "range: %u device(s), valid ids are 0..%u", configPath, dd, count, count ? count - 1 : 0);
    }
    rc = cn_dump_process_start(&cfg);
    if (rc != ACL_SUCCESS) {
        cn_config_free(&cfg);
        cn_unlock();
        return rc;
    }
    rc = cn_prof_process_start(&cfg);
    if (rc != ACL_SUCCESS) {
        cn_dump_process_finish();
        cn_config_free(&cfg);
        cn_unlock();
        return rc;
    }
    if (cfg.content_hash && !g_rt.config_hash_set) {
        g_rt.config_hash = cfg.content_hash;
        g_rt.config_hash_set = true;
    }
    cn_config_free(&g_rt.config);
    g_rt.config = cfg;
    cn_error_set_mode(cfg.err_msg_mode);
    g_rt.init_refs = 1;
    cn_unlock();
    CN_LOGI("aclInit: runtime initialized (driver %s, %u device(s))", g_rt.driver.iface->name, g_rt.device_count);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclFinalize(void)
{
    /* A teardown from a callback would destroy the stream running it. */
    if (cn_in_callback())
        return cn_callback_refuse("aclFinalize", "it destroys every stream");
    pthread_mutex_lock(&g_rt.lock);
    if (g_rt.init_refs == 0 && !g_rt.core_up) {
        cn_unlock();
        return cn_error(ACL_ERROR_REPEAT_FINALIZE, "aclFinalize: the runtime is not initialized "
                        "(never initialized, or already finalized)");
    }
    g_rt.init_refs = 0;
    teardown_locked();
    cn_unlock();
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclFinalizeReference(uint64_t *refCount)
{
    aclError rc = cn_lock("aclFinalizeReference");
    if (rc != ACL_SUCCESS)
        return rc;
    if (g_rt.init_refs == 0) {
        cn_unlock();
        if (refCount)
            *refCount = 0;
        return cn_error(ACL_ERROR_REPEAT_FINALIZE, "aclFinalizeReference: no aclInit reference is held");
    }
    if (g_rt.init_refs == 1 && cn_in_callback()) {
        cn_unlock();
        if (refCount)
            *refCount = 1;
        return cn_callback_refuse("aclFinalizeReference", "dropping the last reference destroys every stream");
    }
    uint64_t left = --g_rt.init_refs;
    if (left == 0)
        teardown_locked();
    cn_unlock();
    if (refCount)
        *refCount = left;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void) { return cn_error_take_recent(); }

ACL_FUNC_VISIBILITY aclError aclrtPeekAtLastError(aclrtLastErrLevel level)
{
    if (level != ACL_RT_THREAD_LEVEL)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtPeekAtLastError: level %d is not ACL_RT_THREAD_LEVEL", (int)level);
    return cn_error_last(false);
}

ACL_FUNC_VISIBILITY aclError aclrtGetLastError(aclrtLastErrLevel level)
{
    if (level != ACL_RT_THREAD_LEVEL)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtGetLastError: level %d is not ACL_RT_THREAD_LEVEL", (int)level);
    return cn_error_last(true);
}

ACL_FUNC_VISIBILITY aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion)
{
    if (!majorVersion || !minorVersion || !patchVersion)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtGetVersion: an output pointer is NULL");
    *majorVersion = ACL_MAJOR_VERSION;
    *minorVersion = ACL_MINOR_VERSION;
    *patchVersion = ACL_PATCH_VERSION;
    return ACL_SUCCESS;
}
