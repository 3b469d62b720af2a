/* Device and host memory: allocation, pointer checks, copies and fills. */
#include "internal.h"

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
    rc = cn_devalloc_alloc(c->dev->alloc, size, huge, devPtr);
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
    return device_malloc("aclrtMallocCached", devPtr, size, policy);
}

static aclError device_free(const char *api, void *devPtr)
{
    if (!devPtr)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: devPtr is NULL", api);
    cn_device *d = cn_device_of_ptr(devPtr);
    if (!d) {
        void *s;
        size_t n;
        if (cn_host_mem_lookup(devPtr, &s, &n))
            return cn_error(ACL_ERROR_INVALID_PARAM, "%s: %p is host memory from aclrtMallocHost; use aclrtFreeHost",
                            api, devPtr);
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: %p is not device memory", api, devPtr);
    }
    int r = cn_devalloc_free(d->alloc, devPtr);
    switch (r) {
    case CN_DEVALLOC_OK:
        return ACL_SUCCESS;
    case CN_DEVALLOC_INTERIOR:
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: %p points inside an allocation of device %d, not at its start",
                        api, devPtr, d->id);
    default:
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: %p is not a live allocation of device %d (double free?)", api,
                        devPtr, d->id);
    }
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

/* Check that [p, p+n) is usable; fills *info. Device ranges must lie inside one live allocation;
 * a range from aclrtMallocHost inside that allocation; any other host range must not wrap around
 * the address space nor reach into device memory (which would bypass the allocation checks).
 * All arithmetic is on sizes already known not to overflow. */
static aclError classify(const char *api, const char *what, const void *p, size_t n, ptr_info *info)
{
    info->dev = cn_device_of_ptr(p);
    info->pinned = false;
    if (info->dev) {
        void *start;
        size_t size;
        int r = cn_devalloc_find(info->dev->alloc, p, &start, &size);
        if (r != CN_DEVALLOC_OK)
            return cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: %s %p is in device %d's memory but not in a live "
                            "allocation (freed?)", api, what, p, info->dev->id);
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
    cn_device *d = cn_device_overlapping(p, n);
    if (d)
        return cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: host %s range [%p, +%zu) runs into device %d's memory",
                        api, what, p, n, d->id);
    void *start;
    size_t size;
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
    if (dst == src)
        *noop = true;
    return ACL_SUCCESS;
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
    cn_device *d = any_device(&di, &si);
    if (!d) {
        memmove(dst, src, count);
        return ACL_SUCCESS;
    }
    int drc = cn_drv()->memory->copy(d->drv, dst, src, count);
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
    if (wait && cn_callback_holds_stream(s)) {
        cn_obj_put(&s->obj);
        return cn_callback_refuse("aclrtMemcpyAsync", "a copy from or to pageable host memory waits for its "
                                  "place on the stream, behind the callback");
    }
    int drc = cn_drv()->stream->enqueue_copy(s->drv, dst, src, count);
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
    int drc = cn_drv()->stream->enqueue_fill(s->drv, devPtr, (uint8_t)value, count);
    if (drc != 0)
        rc = cn_error(drc, "aclrtMemsetAsync: the driver could not enqueue the fill");
    cn_obj_put(&s->obj);
    return rc;
}

CANNON_API int cannonMemIsDevice(const void *ptr)
{
    if (!ptr)
        return 0;
    cn_device *d = cn_device_of_ptr(ptr);
    void *start;
    size_t size;
    return d && cn_devalloc_find(d->alloc, ptr, &start, &size) == CN_DEVALLOC_OK;
}

CANNON_API aclError cannonMemGetShareInfo(const void *devPtr, cannon_mem_share_info *info)
{
    if (!devPtr || !info)
        return cn_error(ACL_ERROR_INVALID_PARAM, "cannonMemGetShareInfo: %s is NULL", !devPtr ? "devPtr" : "info");
    cn_device *d = cn_device_of_ptr(devPtr);
    void *start;
    size_t size;
    if (!d || cn_devalloc_find(d->alloc, devPtr, &start, &size) != CN_DEVALLOC_OK)
        return cn_error(ACL_ERROR_INVALID_PARAM, "cannonMemGetShareInfo: %p is not in a live device allocation", devPtr);
    int fd = cn_drv()->memory->export_fd ? cn_drv()->memory->export_fd(d->drv) : -1;
    if (fd < 0)
        return cn_error(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "cannonMemGetShareInfo: device %d's memory cannot be shared",
                        d->id);
    const char *base = __atomic_load_n(&d->arena_base, __ATOMIC_ACQUIRE);
    info->fd = fd;
    info->device_id = d->id;
    info->offset = (uint64_t)((const char *)devPtr - base);
    info->alloc_offset = (uint64_t)((const char *)start - base);
    info->alloc_size = size;
    info->arena_size = __atomic_load_n(&d->arena_size, __ATOMIC_RELAXED);
    return ACL_SUCCESS;
}
