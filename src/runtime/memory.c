/* Device and host memory: allocation, pointer checks, copies and fills. */
#include "internal.h"
#include "prof.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* Host (pinned) allocations: an array of [start, start + size) sorted by start, so FreeHost and */
/* the copy and fill checks can resolve any pointer into runtime-allocated host memory (a      */
/* buffer plus an offset is as common as the buffer itself) with a binary search. Insertion    */
/* and removal move the tail: cheap for the thousands of pinned buffers a process may hold.    */
/* ------------------------------------------------------------------------------------------ */

typedef struct host_entry {
    uintptr_t start;
    size_t size;
} host_entry;

static pthread_mutex_t g_host_lock = PTHREAD_MUTEX_INITIALIZER;
static host_entry *g_host;
static size_t g_host_n, g_host_cap;

/* The number of allocations starting at or below p. */
static size_t host_rank_locked(uintptr_t p)
{
    size_t lo = 0, hi = g_host_n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g_host[mid].start <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Index of the allocation containing p, or SIZE_MAX. */
static size_t host_find_locked(const void *ptr)
{
    uintptr_t p = (uintptr_t)ptr;
    size_t i = host_rank_locked(p);
    if (i == 0 || p - g_host[i - 1].start >= g_host[i - 1].size)
        return SIZE_MAX;
    return i - 1;
}

bool cn_host_mem_lookup(const void *ptr, void **start, size_t *size)
{
    pthread_mutex_lock(&g_host_lock);
    size_t j = host_find_locked(ptr);
    bool ok = j != SIZE_MAX;
    if (ok) {
        *start = (void *)g_host[j].start;
        *size = g_host[j].size;
    }
    pthread_mutex_unlock(&g_host_lock);
    return ok;
}

void cn_host_mem_release_all(cn_leak_stats *leaks)
{
    pthread_mutex_lock(&g_host_lock);
    for (size_t i = 0; i < g_host_n; i++) {
        leaks->host_allocs++;
        leaks->host_bytes += g_host[i].size;
        free((void *)g_host[i].start);
    }
    cn_free(g_host);
    g_host = NULL;
    g_host_n = g_host_cap = 0;
    pthread_mutex_unlock(&g_host_lock);
}

ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void **hostPtr, size_t size)
{
    if (!hostPtr || size == 0)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtMallocHost: %s", !hostPtr ? "hostPtr is NULL" : "size is 0");
    void *p = NULL;
    if (posix_memalign(&p, 64, size) != 0)
        return cn_error(ACL_ERROR_RT_MEMORY_ALLOCATION, "aclrtMallocHost: cannot allocate %zu bytes of host memory",
                        size);
    pthread_mutex_lock(&g_host_lock);
    if (g_host_n == g_host_cap) {
        size_t ncap = g_host_cap ? g_host_cap * 2 : 64;
        host_entry *n = cn_realloc(g_host, ncap * sizeof(*n));
        if (!n) {
            pthread_mutex_unlock(&g_host_lock);
            free(p);
            return cn_error(ACL_ERROR_BAD_ALLOC, "aclrtMallocHost: out of memory for bookkeeping");
        }
        g_host = n;
        g_host_cap = ncap;
    }
    size_t i = host_rank_locked((uintptr_t)p);
    memmove(&g_host[i + 1], &g_host[i], (g_host_n - i) * sizeof(*g_host));
    g_host[i].start = (uintptr_t)p;
    g_host[i].size = size;
    g_host_n++;
    pthread_mutex_unlock(&g_host_lock);
    *hostPtr = p;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void *hostPtr)
{
    if (!hostPtr)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtFreeHost: hostPtr is NULL");
    pthread_mutex_lock(&g_host_lock);
    size_t j = host_find_locked(hostPtr);
    bool start = j != SIZE_MAX && g_host[j].start == (uintptr_t)hostPtr;
    if (start) {
        memmove(&g_host[j], &g_host[j + 1], (g_host_n - j - 1) * sizeof(*g_host));
        g_host_n--;
    }
    pthread_mutex_unlock(&g_host_lock);
    if (j != SIZE_MAX && !start)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtFreeHost: %p points inside an aclrtMallocHost allocation, not "
                        "at its start", hostPtr);
    if (j == SIZE_MAX) {
        if (cn_device_of_ptr(hostPtr))
            return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtFreeHost: %p is device memory; use aclrtFree", hostPtr);
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtFreeHost: %p was not allocated by aclrtMallocHost (or was "
                        "already freed)", hostPtr);
    }
    free(hostPtr);
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------------------------------ */
/* Device allocations                                                                          */
/* ------------------------------------------------------------------------------------------ */

static bool policy_valid(aclrtMemMallocPolicy p)
{
    /* CANN: one policy value; an unknown one means "huge pages when large". Reject only values
     * that cannot be a policy at all (negative). */
    return (int)p >= 0;
}

static aclError device_malloc(const char *api, void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    if (!devPtr)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: devPtr is NULL", api);
    if (size == 0)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: size is 0", api);
    if (!policy_valid(policy))
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: policy %d is not an aclrtMemMallocPolicy", api, (int)policy);
    cn_context *c = NULL;
    aclError rc = cn_require_context(api, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    int base = (int)policy & 0xff;
    int huge = (base != ACL_MEM_MALLOC_NORMAL_ONLY && base != ACL_MEM_MALLOC_NORMAL_ONLY_P2P && size > (1u << 20));
    cn_device *d = c->dev;
    if (atomic_load_explicit(&d->n_pending, memory_order_relaxed) > 0)
        cn_mem_pending_reclaim(d, false);
    rc = cn_devalloc_alloc(d->alloc, size, huge, devPtr);
    if (rc == ACL_ERROR_RT_MEMORY_ALLOCATION && atomic_load(&d->n_pending) > 0) {
        /* Blocks freed while work still used them: wait for that work, then try again. */
        cn_mem_pending_reclaim(d, true);
        rc = cn_devalloc_alloc(d->alloc, size, huge, devPtr);
    }
    if (rc == ACL_ERROR_RT_MEMORY_ALLOCATION) {
        cn_devalloc_stats st;
        cn_devalloc_get_stats(c->dev->alloc, &st);
        cn_error(rc, "%s: device %d is out of memory: %zu bytes requested, %zu of %zu bytes in use", api, c->dev->id,
                 size, st.live_bytes, st.capacity);
    } else if (rc != ACL_SUCCESS) {
        cn_error(rc, "%s: out of host memory for bookkeeping", api);
    }
    cn_obj_put(&c->obj);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return device_malloc("aclrtMalloc", devPtr, size, policy);
}

ACL_FUNC_VISIBILITY aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return device_malloc("aclrtMallocAlign32", devPtr, size, policy);
}

ACL_FUNC_VISIBILITY aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    if (devPtr && size) {
        aclError rc = cn_capture_check_sync("aclrtMallocCached");
        if (rc != ACL_SUCCESS)
            return rc;
    }
    return device_malloc("aclrtMallocCached", devPtr, size, policy);
}

/* ------------------------------------------------------------------------------------------ */
/* Deferred frees                                                                              */
/*                                                                                             */
/* aclrtFree returns at once, but the block may still be read or written by work queued before  */
/* the free (a pool that frees its idle blocks while the stream runs). So a free looks at the    */
/* device's streams: if none has work pending, the block goes back to the allocator at once     */
/* (the usual case: frees after a synchronize). Otherwise the free records, for each busy       */
/* stream, its position (tasks enqueued so far); the block stays out of the allocator until     */
/* every such stream has completed up to its position. Pending blocks are handed back by later  */
/* allocations and frees (a check of a few atomic counters), and an allocation that would fail  */
/* first waits for them. A pending block does not count as live memory for any pointer check.  */
/* The cost of a free is one uncontended mutex and two atomic loads per stream of the device.   */
/* ------------------------------------------------------------------------------------------ */

struct cn_pending_free {
    void *ptr;
    cn_pending_free *next;
    uint32_t n;
    struct {
        cn_stream *s;       /* NULL once the stream is gone (its work finished or was dropped) */
        uint64_t pos;
    } w[];
};

static const cannon_stream_iface *stream_positions(void)
{
    const cannon_stream_iface *si = cn_drv()->stream;
    return si->position && si->completed && si->wait_position ? si : NULL;
}

void cn_mem_stream_added(cn_stream *s)
{
    cn_device *d = s->dev;
    pthread_mutex_lock(&d->free_lock);
    s->dprev = NULL;
    s->dnext = d->streams;
    if (d->streams)
        d->streams->dprev = s;
    d->streams = s;
    pthread_mutex_unlock(&d->free_lock);
}

void cn_mem_stream_gone(cn_stream *s)
{
    cn_device *d = s->dev;
    pthread_mutex_lock(&d->free_lock);
    if (s->dprev)
        s->dprev->dnext = s->dnext;
    else if (d->streams == s)
        d->streams = s->dnext;
    if (s->dnext)
        s->dnext->dprev = s->dprev;
    s->dnext = s->dprev = NULL;
    for (cn_pending_free *p = d->pending; p; p = p->next)
        for (uint32_t i = 0; i < p->n; i++)
            if (p->w[i].s == s)
                p->w[i].s = NULL;
    pthread_mutex_unlock(&d->free_lock);
}

static bool pending_due_locked(const cannon_stream_iface *si, const cn_pending_free *p)
{
    for (uint32_t i = 0; i < p->n; i++)
        if (p->w[i].s && si->completed(p->w[i].s->drv) < p->w[i].pos)
            return false;
    return true;
}

static bool pending_has_locked(const cn_device *d, const void *ptr)
{
    for (const cn_pending_free *p = d->pending; p; p = p->next)
        if (p->ptr == ptr)
            return true;
    return false;
}

static void reclaim_locked(cn_device *d, bool all)
{
    const cannon_stream_iface *si = stream_positions();
    for (cn_pending_free **pp = &d->pending; *pp;) {
        cn_pending_free *p = *pp;
        if (all || !si || pending_due_locked(si, p)) {
            *pp = p->next;
            (void)cn_devalloc_free(d->alloc, p->ptr);
            cn_free(p);
            atomic_fetch_sub(&d->n_pending, 1);
        } else {
            pp = &p->next;
        }
    }
}

typedef struct stream_pos {
    cn_stream *s;
    uint64_t pos;
} stream_pos;

/* Wait until each stream reached its position; drops the references in the list. Streams held
 * by a callback running on this thread are not waited for (they wait for the callback). */
static void wait_positions(stream_pos *l, size_t n)
{
    const cannon_stream_iface *si = cn_drv()->stream;
    for (size_t i = 0; i < n; i++) {
        if (!cn_callback_holds_stream(l[i].s))
            (void)si->wait_position(l[i].s->drv, l[i].pos, -1);
        cn_obj_put(&l[i].s->obj);
    }
}

void cn_mem_pending_reclaim(cn_device *d, bool wait)
{
    if (atomic_load(&d->n_pending) == 0)
        return;
    const cannon_stream_iface *si = stream_positions();
    if (wait && si) {
        stream_pos *l = NULL;
        size_t n = 0, cap = 0;
        pthread_mutex_lock(&d->free_lock);
        for (cn_pending_free *p = d->pending; p; p = p->next) {
            for (uint32_t i = 0; i < p->n; i++) {
                cn_stream *s = p->w[i].s;
                if (!s || si->completed(s->drv) >= p->w[i].pos)
                    continue;
                size_t k = 0;
                while (k < n && l[k].s != s)
                    k++;
                if (k < n) {
                    if (l[k].pos < p->w[i].pos)
                        l[k].pos = p->w[i].pos;
                    continue;
                }
                if (n == cap) {
                    size_t ncap = cap ? cap * 2 : 8;
                    stream_pos *nl = cn_realloc(l, ncap * sizeof(*nl));
                    if (!nl)
                        continue; /* not waited for: the block stays pending */
                    l = nl;
                    cap = ncap;
                }
                /* A stream whose last reference is going is being released: its work is over. */
                if (cn_obj_tryref(&s->obj))
                    l[n++] = (stream_pos){.s = s, .pos = p->w[i].pos};
            }
        }
        pthread_mutex_unlock(&d->free_lock);
        wait_positions(l, n);
        cn_free(l);
    }
    pthread_mutex_lock(&d->free_lock);
    reclaim_locked(d, false);
    pthread_mutex_unlock(&d->free_lock);
}

void cn_mem_device_closing(cn_device *d)
{
    pthread_mutex_lock(&d->free_lock);
    reclaim_locked(d, true);
    pthread_mutex_unlock(&d->free_lock);
}

void cn_mem_wait_device_work(cn_device *d)
{
    const cannon_stream_iface *si = stream_positions();
    if (!si)
        return;
    stream_pos *l = NULL;
    size_t n = 0, cap = 0;
    pthread_mutex_lock(&d->free_lock);
    for (cn_stream *s = d->streams; s; s = s->dnext) {
        uint64_t pos = si->position(s->drv);
        if (si->completed(s->drv) >= pos)
            continue;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 8;
            stream_pos *nl = cn_realloc(l, ncap * sizeof(*nl));
            if (!nl)
                break;
            l = nl;
            cap = ncap;
        }
        if (cn_obj_tryref(&s->obj))
            l[n++] = (stream_pos){.s = s, .pos = pos};
    }
    pthread_mutex_unlock(&d->free_lock);
    wait_positions(l, n);
    cn_free(l);
}

/* Free ptr on d (deferred when work queued before may still use it). */
static aclError free_on_device(const char *api, cn_device *d, void *ptr)
{
    const cannon_stream_iface *si = stream_positions();
    pthread_mutex_lock(&d->free_lock);
    void *start;
    size_t size;
    int r = cn_devalloc_find(d->alloc, ptr, &start, &size);
    if (r == CN_DEVALLOC_OK && start != ptr)
        r = CN_DEVALLOC_INTERIOR;
    if (r == CN_DEVALLOC_OK && atomic_load(&d->n_pending) > 0 && pending_has_locked(d, ptr))
        r = CN_DEVALLOC_NOT_LIVE;
    if (r != CN_DEVALLOC_OK) {
        pthread_mutex_unlock(&d->free_lock);
        if (r == CN_DEVALLOC_INTERIOR)
            return cn_error(ACL_ERROR_INVALID_PARAM, "%s: %p points inside an allocation of device %d, not at its "
                            "start", api, ptr, d->id);
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: %p is not a live allocation of device %d (double free?)", api,
                        ptr, d->id);
    }
    uint32_t busy = 0;
    if (si)
        for (cn_stream *s = d->streams; s; s = s->dnext)
            busy += si->completed(s->drv) < si->position(s->drv);
    cn_pending_free *p = busy ? cn_malloc(sizeof(*p) + busy * sizeof(p->w[0])) : NULL;
    if (!p) {
        if (busy) {
            /* No memory for the record: wait for the device's queued work instead. */
            pthread_mutex_unlock(&d->free_lock);
            cn_mem_wait_device_work(d);
            pthread_mutex_lock(&d->free_lock);
        }
        (void)cn_devalloc_free(d->alloc, ptr);
        reclaim_locked(d, false);
        pthread_mutex_unlock(&d->free_lock);
        return ACL_SUCCESS;
    }
    p->ptr = ptr;
    p->n = 0;
    for (cn_stream *s = d->streams; s && p->n < busy; s = s->dnext) {
        uint64_t pos = si->position(s->drv);
        if (si->completed(s->drv) < pos)
            p->w[p->n++].s = s, p->w[p->n - 1].pos = pos;
    }
    p->next = d->pending;
    d->pending = p;
    atomic_fetch_add(&d->n_pending, 1);
    reclaim_locked(d, false);
    pthread_mutex_unlock(&d->free_lock);
    return ACL_SUCCESS;
}

static aclError device_free(const char *api, void *devPtr)
{
    if (!devPtr)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: devPtr is NULL", api);
    cn_device *d = cn_device_of_ptr(devPtr);
    if (!d) {
        void *s;
        size_t n;
        cn_vmm_hit hit;
        if (cn_host_mem_lookup(devPtr, &s, &n))
            return cn_error(ACL_ERROR_INVALID_PARAM, "%s: %p is host memory from aclrtMallocHost; use aclrtFreeHost",
                            api, devPtr);
        if (cn_vmm_lookup(devPtr, &hit) != CN_VMM_NONE)
            return cn_error(ACL_ERROR_INVALID_PARAM, "%s: %p is in an address range of aclrtReserveMemAddress; use "
                            "aclrtUnmapMem and aclrtFreePhysical", api, devPtr);
        if (cn_retired_range_has(devPtr)) {
            CN_LOGI("%s: %p was memory of a device since reset; it went with the device", api, devPtr);
            return ACL_SUCCESS;
        }
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: %p is not device memory", api, devPtr);
    }
    return free_on_device(api, d, devPtr);
}

ACL_FUNC_VISIBILITY aclError aclrtFree(void *devPtr) { return device_free("aclrtFree", devPtr); }

ACL_FUNC_VISIBILITY aclError aclrtFreeWithDevSync(void *devPtr)
{
    if (!devPtr)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtFreeWithDevSync: devPtr is NULL");
    aclError rc = aclrtSynchronizeDevice();
    if (rc != ACL_SUCCESS)
        return rc;
    return device_free("aclrtFreeWithDevSync", devPtr);
}

/* ------------------------------------------------------------------------------------------ */
/* Pointer classification for copies and fills                                                 */
/* ------------------------------------------------------------------------------------------ */

typedef struct ptr_info {
    cn_device *dev;   /* non-NULL: device memory */
    bool pinned;      /* host memory from aclrtMallocHost */
} ptr_info;

/* Resolve a pointer into device memory: REF_HOST (not device memory), REF_LIVE (in a live
 * allocation, or in memory mapped with aclrtMapMem: start and size: the allocation or the run of
 * mappings), REF_DEAD (in a device's arena or a reservation, but not in live memory: freed, a
 * deferred free, never allocated, unmapped). hit (may be NULL) receives the mapping for a mapped
 * address (hit->dev NULL for arena memory). */
enum { REF_HOST, REF_LIVE, REF_DEAD };
static int resolve(const void *p, cn_device **dev, void **start, size_t *size, cn_vmm_hit *hit)
{
    if (hit)
        hit->dev = NULL;
    cn_device *d = cn_device_of_ptr(p);
    *dev = d;
    if (d) {
        if (cn_devalloc_find(d->alloc, p, start, size) != CN_DEVALLOC_OK)
            return REF_DEAD;
        if (atomic_load_explicit(&d->n_pending, memory_order_relaxed) > 0) {
            pthread_mutex_lock(&d->free_lock);
            bool pending = pending_has_locked(d, *start);
            pthread_mutex_unlock(&d->free_lock);
            if (pending)
                return REF_DEAD;
        }
        return REF_LIVE;
    }
    cn_vmm_hit h;
    int r = cn_vmm_lookup(p, &h);
    if (r == CN_VMM_NONE)
        return REF_HOST;
    if (r != CN_VMM_MAPPED)
        return REF_DEAD;
    *dev = h.dev;
    *start = h.run;
    *size = h.run_size;
    if (hit)
        *hit = h;
    return REF_LIVE;
}

/* Check that [p, p+n) is usable; fills *info. Device ranges must lie inside one live allocation
 * (or one run of mappings of aclrtMapMem); a range from aclrtMallocHost inside that allocation;
 * any other host range must not wrap around the address space nor reach into device memory or
 * a reservation (which would bypass the allocation checks). All arithmetic is on sizes already
 * known not to overflow. */
static aclError classify(const char *api, const char *what, const void *p, size_t n, ptr_info *info)
{
    info->pinned = false;
    void *start;
    size_t size;
    cn_device *d = NULL;
    int r = resolve(p, &d, &start, &size, NULL);
    info->dev = r == REF_HOST ? NULL : d;
    if (r == REF_DEAD) {
        if (d)
            return cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: %s %p is in device %d's memory but not in a live "
                            "allocation (freed?)", api, what, p, d->id);
        return cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: %s %p is in an address range of aclrtReserveMemAddress "
                        "that is not mapped (aclrtMapMem)", api, what, p);
    }
    if (r == REF_LIVE) {
        size_t off = (size_t)((const char *)p - (const char *)start);
        if (n > size - off)
            return cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: %s range [%p, +%zu) runs past the end of its "
                            "allocation (%zu bytes from %p)", api, what, p, n, size, start);
        return ACL_SUCCESS;
    }
    uintptr_t end;
    if (__builtin_add_overflow((uintptr_t)p, n, &end))
        return cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: %s range [%p, +%zu) wraps around the address space", api,
                        what, p, n);
    d = cn_device_overlapping(p, n);
    if (d)
        return cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: host %s range [%p, +%zu) runs into device %d's memory",
                        api, what, p, n, d->id);
    if (cn_vmm_overlaps(p, n))
        return cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: host %s range [%p, +%zu) runs into an address range of "
                        "aclrtReserveMemAddress", api, what, p, n);
    if (cn_host_mem_lookup(p, &start, &size)) {
        info->pinned = true;
        size_t off = (size_t)((const char *)p - (const char *)start);
        if (n > size - off)
            return cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: %s range [%p, +%zu) runs past the end of its "
                            "aclrtMallocHost allocation (%zu bytes from %p)", api, what, p, n, size, start);
    }
    return ACL_SUCCESS;
}

static const char *kind_name(aclrtMemcpyKind k)
{
    static const char *names[] = {"ACL_MEMCPY_HOST_TO_HOST", "ACL_MEMCPY_HOST_TO_DEVICE", "ACL_MEMCPY_DEVICE_TO_HOST",
                                  "ACL_MEMCPY_DEVICE_TO_DEVICE", "ACL_MEMCPY_DEFAULT",
                                  "ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE"};
    return (unsigned)k < CN_ARRAY_SIZE(names) ? names[k] : "?";
}

/* Shared validation of aclrtMemcpy / aclrtMemcpyAsync. Returns 1 in *noop when nothing to do. */
static aclError check_copy(const char *api, void *dst, size_t destMax, const void *src, size_t count,
                           aclrtMemcpyKind kind, ptr_info *di, ptr_info *si, bool *noop)
{
    *noop = false;
    if (count == 0) {
        *noop = true;
        return ACL_SUCCESS;
    }
    if (!dst || !src)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api, !dst ? "dst" : "src");
    if ((unsigned)kind > ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: kind %d is not supported by this API", api, (int)kind);
    if (count > destMax)
        return cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: count %zu is larger than destMax %zu", api, count, destMax);
    aclError rc = classify(api, "dst", dst, count, di);
    if (rc == ACL_SUCCESS)
        rc = classify(api, "src", src, count, si);
    if (rc != ACL_SUCCESS)
        return rc;
    bool want_dst_dev, want_src_dev;
    switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST: want_dst_dev = false, want_src_dev = false; break;
    case ACL_MEMCPY_HOST_TO_DEVICE:
    case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE: want_dst_dev = true, want_src_dev = false; break;
    case ACL_MEMCPY_DEVICE_TO_HOST: want_dst_dev = false, want_src_dev = true; break;
    case ACL_MEMCPY_DEVICE_TO_DEVICE: want_dst_dev = true, want_src_dev = true; break;
    default: /* ACL_MEMCPY_DEFAULT: the direction follows the pointers */
        want_dst_dev = di->dev != NULL, want_src_dev = si->dev != NULL;
        break;
    }
    if ((di->dev != NULL) != want_dst_dev)
        return cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: kind %s needs a %s destination, but dst %p is %s memory", api,
                        kind_name(kind), want_dst_dev ? "device" : "host", dst, di->dev ? "device" : "host");
    if ((si->dev != NULL) != want_src_dev)
        return cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: kind %s needs a %s source, but src %p is %s memory", api,
                        kind_name(kind), want_src_dev ? "device" : "host", src, si->dev ? "device" : "host");
    if (di->dev && si->dev && di->dev != si->dev && !cn_peer_allowed(di->dev, si->dev))
        return cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: a copy between device %d and device %d needs peer access "
                        "enabled in both directions (aclrtDeviceEnablePeerAccess on each)", api, si->dev->id,
                        di->dev->id);
    if (dst == src)
        *noop = true;
    return ACL_SUCCESS;
}

/* A copy's task name in a profile. */
static const char *copy_name(aclrtMemcpyKind k)
{
    switch (k) {
    case ACL_MEMCPY_HOST_TO_HOST: return "MemcpyH2H";
    case ACL_MEMCPY_HOST_TO_DEVICE: return "MemcpyH2D";
    case ACL_MEMCPY_DEVICE_TO_HOST: return "MemcpyD2H";
    case ACL_MEMCPY_DEVICE_TO_DEVICE: return "MemcpyD2D";
    default: return "Memcpy";
    }
}

static cn_device *any_device(const ptr_info *a, const ptr_info *b) { return a->dev ? a->dev : b->dev; }

ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                                         aclrtMemcpyKind kind)
{
    ptr_info di = {0}, si = {0}; /* set by check_copy; initialised for gcc -O3, which cannot see it */
    bool noop;
    aclError rc = check_copy("aclrtMemcpy", dst, destMax, src, count, kind, &di, &si, &noop);
    if (rc != ACL_SUCCESS || noop)
        return rc;
    rc = cn_capture_check_sync("aclrtMemcpy");
    if (rc != ACL_SUCCESS)
        return rc;
    cn_device *d = any_device(&di, &si);
    if (!d) {
        memmove(dst, src, count);
        return ACL_SUCCESS;
    }
    uint64_t t0 = CN_UNLIKELY(cn_prof_active()) ? cn_now_ns() : 0;
    int drc = cn_drv()->memory->copy(d->drv, dst, src, count);
    if (t0 && drc == 0)
        cn_prof_host_span(d, CN_PT_COPY, copy_name(kind), "synchronous", count, t0, cn_now_ns());
    return drc ? cn_error(drc, "aclrtMemcpy: the driver failed to copy %zu bytes", count) : ACL_SUCCESS;
}

/* Wait until the stream has executed what was enqueued so far, without consuming its error. */
static aclError wait_stream_position(cn_stream *s, const char *api)
{
    const cannon_stream_iface *si = cn_drv()->stream;
    pthread_mutex_lock(&s->calls_lock);
    if (!s->fence && si->event_create(s->ctx->dev->drv, 0, &s->fence) != 0)
        s->fence = NULL;
    cannon_drv_event *fence = s->fence;
    pthread_mutex_unlock(&s->calls_lock);
    if (!fence)
        return cn_error(ACL_ERROR_RT_NO_EVENT_RESOURCE, "%s: cannot create the stream's fence event", api);
    int drc = si->enqueue_record(s->drv, fence);
    if (drc == 0)
        drc = si->event_synchronize(fence, -1);
    return drc ? cn_error(drc, "%s: waiting for the copy failed", api) : ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                                              aclrtMemcpyKind kind, aclrtStream stream)
{
    ptr_info di = {0}, si = {0}; /* set by check_copy; initialised for gcc -O3, which cannot see it */
    bool noop;
    aclError rc = check_copy("aclrtMemcpyAsync", dst, destMax, src, count, kind, &di, &si, &noop);
    if (rc != ACL_SUCCESS)
        return rc;
    cn_stream *s = NULL;
    rc = cn_stream_resolve(stream, "aclrtMemcpyAsync", &s);
    if (rc != ACL_SUCCESS || noop) {
        if (rc == ACL_SUCCESS)
            cn_obj_put(&s->obj);
        return rc;
    }
    /* As in CANN: with pageable host memory the call returns only once the copy is done, so
     * the caller may reuse or free its buffer. Pinned memory and device-only copies stay
     * asynchronous. HOST_TO_BUF_TO_DEVICE promises the same for any host buffer. */
    bool host_dst_pageable = !di.dev && !di.pinned;
    bool host_src_pageable = !si.dev && !si.pinned;
    bool wait = host_dst_pageable || host_src_pageable || kind == ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE;
    if (cn_stream_capturing(s)) {
        if (wait) {
            cn_obj_put(&s->obj);
            return cn_error(ACL_ERROR_RT_PARAM_INVALID, "aclrtMemcpyAsync: stream %p is capturing, and a copy from "
                            "or to pageable host memory cannot be captured (use aclrtMallocHost memory)", stream);
        }
        cn_ctask t = {.kind = CN_CT_COPY, .u.copy = {.dst = dst, .src = src, .n = count}};
        if (cn_capture_record(s, &t, &rc)) {
            cn_obj_put(&s->obj);
            return rc;
        }
    }
    if (wait && cn_capture_blocks_sync()) {
        cn_obj_put(&s->obj);
        return cn_error(ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC, "aclrtMemcpyAsync: a copy from or to pageable host "
                        "memory waits for the copy like a synchronous call, which the capture mode of a stream "
                        "capturing now forbids on this thread (see aclmdlRICaptureThreadExchangeMode)");
    }
    if (wait && cn_callback_holds_stream(s)) {
        cn_obj_put(&s->obj);
        return cn_callback_refuse("aclrtMemcpyAsync", "a copy from or to pageable host memory waits for its "
                                  "place on the stream, behind the callback");
    }
    cn_prof_rec *pr = NULL;
    if (CN_UNLIKELY(cn_prof_active()))
        pr = cn_prof_task_begin(s, CN_PT_COPY, copy_name(kind), count);
    int drc = cn_drv()->stream->enqueue_copy(s->drv, dst, src, count);
    if (pr)
        cn_prof_task_end(s, pr, drc == 0);
    if (drc != 0)
        rc = cn_error(drc, "aclrtMemcpyAsync: the driver could not enqueue the copy");
    else if (wait)
        rc = wait_stream_position(s, "aclrtMemcpyAsync");
    cn_obj_put(&s->obj);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                           size_t height, aclrtMemcpyKind kind)
{
    if (!dst || !src)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy2d: %s is NULL", !dst ? "dst" : "src");
    if (width > dpitch || width > spitch)
        return cn_error(ACL_ERROR_RT_PARAM_INVALID, "aclrtMemcpy2d: width %zu exceeds dpitch %zu or spitch %zu", width,
                        dpitch, spitch);
    if (width == 0 || height == 0)
        return ACL_SUCCESS;
    /* Validate the whole extents once, then copy row by row. An extent that does not fit in
     * size_t could only wrap around to a small number that passes the range checks. */
    size_t dext, sext;
    if (__builtin_mul_overflow(dpitch, height - 1, &dext) || __builtin_add_overflow(dext, width, &dext))
        return cn_error(ACL_ERROR_RT_PARAM_INVALID, "aclrtMemcpy2d: the destination extent dpitch %zu x (height %zu "
                        "- 1) + width %zu overflows", dpitch, height, width);
    if (__builtin_mul_overflow(spitch, height - 1, &sext) || __builtin_add_overflow(sext, width, &sext))
        return cn_error(ACL_ERROR_RT_PARAM_INVALID, "aclrtMemcpy2d: the source extent spitch %zu x (height %zu "
                        "- 1) + width %zu overflows", spitch, height, width);
    ptr_info di = {0}, si = {0}; /* set by check_copy; initialised for gcc -O3, which cannot see it */
    bool noop;
    aclError rc = check_copy("aclrtMemcpy2d", dst, dext, src, sext < dext ? sext : dext, kind, &di, &si, &noop);
    if (rc == ACL_SUCCESS)
        rc = classify("aclrtMemcpy2d", "dst", dst, dext, &di);
    if (rc == ACL_SUCCESS)
        rc = classify("aclrtMemcpy2d", "src", src, sext, &si);
    if (rc == ACL_SUCCESS)
        rc = cn_capture_check_sync("aclrtMemcpy2d");
    if (rc != ACL_SUCCESS)
        return rc;
    for (size_t r = 0; r < height; r++)
        memmove((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
    return ACL_SUCCESS;
}

static aclError check_fill(const char *api, void *devPtr, size_t maxCount, size_t count, ptr_info *info, bool *noop)
{
    *noop = false;
    if (!devPtr)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: devPtr is NULL", api);
    if (count > maxCount)
        return cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: count %zu is larger than maxCount %zu", api, count, maxCount);
    if (count == 0) {
        *noop = true;
        return ACL_SUCCESS;
    }
    aclError rc = classify(api, "devPtr", devPtr, count, info);
    if (rc != ACL_SUCCESS)
        return rc;
    if (!info->dev && !info->pinned)
        return cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: %p is neither device memory nor host memory from "
                        "aclrtMallocHost", api, devPtr);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
    ptr_info info;
    bool noop;
    aclError rc = check_fill("aclrtMemset", devPtr, maxCount, count, &info, &noop);
    if (rc != ACL_SUCCESS || noop)
        return rc;
    rc = cn_capture_check_sync("aclrtMemset");
    if (rc != ACL_SUCCESS)
        return rc;
    if (!info.dev) {
        memset(devPtr, (uint8_t)value, count);
        return ACL_SUCCESS;
    }
    int drc = cn_drv()->memory->fill(info.dev->drv, devPtr, (uint8_t)value, count);
    return drc ? cn_error(drc, "aclrtMemset: the driver failed to fill %zu bytes", count) : ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
                                              aclrtStream stream)
{
    ptr_info info;
    bool noop;
    aclError rc = check_fill("aclrtMemsetAsync", devPtr, maxCount, count, &info, &noop);
    if (rc != ACL_SUCCESS)
        return rc;
    /* The stream is checked even when there is nothing to fill, as aclrtMemcpyAsync does. */
    cn_stream *s = NULL;
    rc = cn_stream_resolve(stream, "aclrtMemsetAsync", &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (noop) {
        cn_obj_put(&s->obj);
        return ACL_SUCCESS;
    }
    cn_ctask t = {.kind = CN_CT_FILL, .u.fill = {.dst = devPtr, .value = (uint8_t)value, .n = count}};
    if (cn_stream_capturing(s) && cn_capture_record(s, &t, &rc)) {
        cn_obj_put(&s->obj);
        return rc;
    }
    cn_prof_rec *pr = CN_UNLIKELY(cn_prof_active()) ? cn_prof_task_begin(s, CN_PT_FILL, "Memset", count) : NULL;
    int drc = cn_drv()->stream->enqueue_fill(s->drv, devPtr, (uint8_t)value, count);
    if (pr)
        cn_prof_task_end(s, pr, drc == 0);
    if (drc != 0)
        rc = cn_error(drc, "aclrtMemsetAsync: the driver could not enqueue the fill");
    cn_obj_put(&s->obj);
    return rc;
}

CANNON_API int cannonMemIsDevice(const void *ptr)
{
    if (!ptr)
        return 0;
    cn_device *d;
    void *start;
    size_t size;
    return resolve(ptr, &d, &start, &size, NULL) == REF_LIVE;
}

CANNON_API aclError cannonMemGetShareInfo(const void *devPtr, cannon_mem_share_info *info)
{
    if (!devPtr || !info)
        return cn_error(ACL_ERROR_INVALID_PARAM, "cannonMemGetShareInfo: %s is NULL", !devPtr ? "devPtr" : "info");
    cn_device *d = NULL;
    void *start;
    size_t size;
    cn_vmm_hit hit;
    if (resolve(devPtr, &d, &start, &size, &hit) != REF_LIVE)
        return cn_error(ACL_ERROR_INVALID_PARAM, "cannonMemGetShareInfo: %p is not in a live device allocation", devPtr);
    int fd = cn_drv()->memory->export_fd ? cn_drv()->memory->export_fd(d->drv) : -1;
    if (fd < 0)
        return cn_error(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "cannonMemGetShareInfo: device %d's memory cannot be shared",
                        d->id);
    const char *base = __atomic_load_n(&d->arena_base, __ATOMIC_ACQUIRE);
    info->fd = fd;
    info->device_id = d->id;
    if (hit.dev) {
        /* Mapped memory: where it lives in the arena, within the one mapping holding it. */
        info->offset = (uint64_t)(hit.backing + ((const char *)devPtr - hit.map) - base);
        info->alloc_offset = (uint64_t)(hit.backing - base);
        info->alloc_size = hit.map_size;
    } else {
        info->offset = (uint64_t)((const char *)devPtr - base);
        info->alloc_offset = (uint64_t)((const char *)start - base);
        info->alloc_size = size;
    }
    info->arena_size = __atomic_load_n(&d->arena_size, __ATOMIC_RELAXED);
    return ACL_SUCCESS;
}
