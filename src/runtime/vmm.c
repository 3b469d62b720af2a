/* Virtual memory management: aclrtReserveMemAddress, aclrtMallocPhysical, aclrtMapMem and their
 * inverses, and the registry that makes mapped addresses device memory for every other API.
 *
 * Physical memory is a block of the device's arena taken from its caching allocator, so it counts
 * in aclrtGetMemInfo and against the device's capacity like aclrtMalloc memory. The driver maps
 * the block's pages at the reserved address (the CPU driver: the arena memfd, MAP_FIXED into a
 * PROT_NONE reservation), so the same memory is reachable through both addresses.
 *
 * Registry. Reservations are kept sorted by address; each keeps its mappings sorted. A pointer
 * resolves to its reservation by binary search, then to its mapping; the "allocation" a copy or a
 * fill may span is the run of adjacent mappings of the same device around it (a pool that maps
 * chunk after chunk at the end of one reservation sees one contiguous buffer). All under one
 * rwlock; g_vmm.nres lets every lookup be skipped while no reservation exists.
 *
 * Lifetimes. A handle freed while mapped stays until its last mapping goes (then its block goes
 * back to the allocator). A device that closes (its last reset) takes its blocks back: the
 * handles become orphans whose mappings no longer count as device memory, but aclrtUnmapMem,
 * aclrtFreePhysical and aclrtReleaseMemAddress still succeed, as a client tearing down after
 * the reset expects; the addresses stay readable (the mapping holds the memfd) until unmapped.
 * Unmapping first waits for the work queued on the device's streams, which may use the range.
 */
#include "internal.h"

#include <string.h>

typedef struct cn_phys cn_phys;
struct cn_phys {
    cn_device *dev;     /* NULL once the device closed (an orphan) */
    int32_t dev_id;
    void *block;        /* the arena block (meaningless for an orphan) */
    size_t size;
    int maps;           /* live mappings of it */
    bool freed;         /* aclrtFreePhysical called while mapped */
    cn_phys *prev, *next;
};

typedef struct vmap {
    char *va;
    size_t size;
    cn_phys *ph;
    size_t off;         /* offset in the physical allocation */
} vmap;

typedef struct vres {
    char *base;
    size_t size;        /* rounded up to the granularity */
    vmap *maps;         /* sorted by va */
    size_t n, cap;
} vres;

static struct {
    pthread_rwlock_t lock;
    vres **res;         /* sorted by base */
    size_t n, cap;
    cn_phys *phys;      /* every live handle */
    _Atomic size_t nres;
} g_vmm = {.lock = PTHREAD_RWLOCK_INITIALIZER};

#define VMM_GRANULARITY ((size_t)2 << 20)
#define VMM_EXPECT_ALIGN ((size_t)1 << 30)

bool cn_vmm_active(void) { return atomic_load_explicit(&g_vmm.nres, memory_order_acquire) != 0; }

static const cannon_memory_iface *mem_iface(void)
{
    const cannon_driver_iface *d = cn_drv();
    return d ? d->memory : NULL;
}

static bool drv_has_vm(void)
{
    const cannon_memory_iface *m = mem_iface();
    return m && m->vm_granularity && m->vm_reserve && m->vm_release && m->vm_map && m->vm_unmap;
}

/* ---- registry (callers hold g_vmm.lock) ---- */

/* Index of the reservation containing p, or SIZE_MAX. */
static size_t res_find_locked(const void *p)
{
    size_t lo = 0, hi = g_vmm.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((const char *)p < g_vmm.res[mid]->base)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (lo == 0)
        return SIZE_MAX;
    vres *r = g_vmm.res[lo - 1];
    return (const char *)p < r->base + r->size ? lo - 1 : SIZE_MAX;
}

/* Index of the mapping of r containing p, or SIZE_MAX; *ins gets where one starting at p goes. */
static size_t map_find_locked(const vres *r, const void *p, size_t *ins)
{
    size_t lo = 0, hi = r->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((const char *)p < r->maps[mid].va)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (ins)
        *ins = lo;
    if (lo == 0)
        return SIZE_MAX;
    const vmap *m = &r->maps[lo - 1];
    return (const char *)p < m->va + m->size ? lo - 1 : SIZE_MAX;
}

static bool phys_live_locked(const cn_phys *h)
{
    for (const cn_phys *p = g_vmm.phys; p; p = p->next)
        if (p == h)
            return true;
    return false;
}

static void phys_unlink_locked(cn_phys *h)
{
    if (h->prev)
        h->prev->next = h->next;
    else
        g_vmm.phys = h->next;
    if (h->next)
        h->next->prev = h->prev;
}

/* Give a handle's block back and free the handle (no mapping left). */
static void phys_destroy_locked(cn_phys *h)
{
    phys_unlink_locked(h);
    if (h->dev)
        (void)cn_devalloc_free(h->dev->alloc, h->block);
    cn_free(h);
}

int cn_vmm_lookup(const void *p, cn_vmm_hit *hit)
{
    if (!cn_vmm_active())
        return CN_VMM_NONE;
    pthread_rwlock_rdlock(&g_vmm.lock);
    int rc = CN_VMM_NONE;
    size_t ri = res_find_locked(p);
    if (ri != SIZE_MAX) {
        rc = CN_VMM_UNMAPPED;
        const vres *r = g_vmm.res[ri];
        size_t mi = map_find_locked(r, p, NULL);
        if (mi != SIZE_MAX && r->maps[mi].ph->dev) {
            const vmap *m = &r->maps[mi];
            cn_device *d = m->ph->dev;
            size_t first = mi, last = mi;
            while (first > 0 && r->maps[first - 1].va + r->maps[first - 1].size == r->maps[first].va &&
                   r->maps[first - 1].ph->dev == d)
                first--;
            while (last + 1 < r->n && r->maps[last].va + r->maps[last].size == r->maps[last + 1].va &&
                   r->maps[last + 1].ph->dev == d)
                last++;
            hit->dev = d;
            hit->run = r->maps[first].va;
            hit->run_size = (size_t)(r->maps[last].va + r->maps[last].size - hit->run);
            hit->map = m->va;
            hit->map_size = m->size;
            hit->backing = (char *)m->ph->block + m->off;
            rc = CN_VMM_MAPPED;
        }
    }
    pthread_rwlock_unlock(&g_vmm.lock);
    return rc;
}

bool cn_vmm_overlaps(const void *p, size_t n)
{
    if (!cn_vmm_active() || n == 0)
        return false;
    uintptr_t lo = (uintptr_t)p, hi = lo + n;
    bool hit = false;
    pthread_rwlock_rdlock(&g_vmm.lock);
    for (size_t i = 0; i < g_vmm.n && !hit; i++) {
        uintptr_t b = (uintptr_t)g_vmm.res[i]->base, e = b + g_vmm.res[i]->size;
        hit = lo < e && b < hi;
    }
    pthread_rwlock_unlock(&g_vmm.lock);
    return hit;
}

void cn_vmm_device_closing(cn_device *d)
{
    pthread_rwlock_wrlock(&g_vmm.lock);
    for (cn_phys *h = g_vmm.phys, *next; h; h = next) {
        next = h->next;
        if (h->dev != d)
            continue;
        (void)cn_devalloc_free(d->alloc, h->block);
        h->dev = NULL;
        h->block = NULL;
        if (h->freed && h->maps == 0) {
            phys_unlink_locked(h);
            cn_free(h);
        }
    }
    pthread_rwlock_unlock(&g_vmm.lock);
}

void cn_vmm_release_all(size_t *reservations, size_t *handles)
{
    const cannon_memory_iface *m = mem_iface();
    pthread_rwlock_wrlock(&g_vmm.lock);
    for (size_t i = 0; i < g_vmm.n; i++) {
        vres *r = g_vmm.res[i];
        if (m && m->vm_release)
            (void)m->vm_release(r->base, r->size);
        for (size_t k = 0; k < r->n; k++)
            r->maps[k].ph->maps--;
        cn_free(r->maps);
        cn_free(r);
        (*reservations)++;
    }
    cn_free(g_vmm.res);
    g_vmm.res = NULL;
    g_vmm.n = g_vmm.cap = 0;
    atomic_store(&g_vmm.nres, 0);
    for (cn_phys *h = g_vmm.phys, *next; h; h = next) {
        next = h->next;
        if (!h->freed)
            (*handles)++;
        if (h->dev)
            (void)cn_devalloc_free(h->dev->alloc, h->block);
        cn_free(h);
    }
    g_vmm.phys = NULL;
    pthread_rwlock_unlock(&g_vmm.lock);
}

/* ---- argument checks ---- */

static const char *attr_name(aclrtMemAttr a)
{
    static const char *n[] = {"ACL_DDR_MEM",         "ACL_HBM_MEM",           "ACL_DDR_MEM_HUGE",
                              "ACL_DDR_MEM_NORMAL",  "ACL_HBM_MEM_HUGE",      "ACL_HBM_MEM_NORMAL",
                              "ACL_DDR_MEM_P2P_HUGE", "ACL_DDR_MEM_P2P_NORMAL", "ACL_HBM_MEM_P2P_HUGE",
                              "ACL_HBM_MEM_P2P_NORMAL", "ACL_HBM_MEM_HUGE1G",  "ACL_HBM_MEM_P2P_HUGE1G",
                              "ACL_MEM_NORMAL",      "ACL_MEM_HUGE",          "ACL_MEM_HUGE1G",
                              "ACL_MEM_P2P_NORMAL",  "ACL_MEM_P2P_HUGE",      "ACL_MEM_P2P_HUGE1G"};
    return (unsigned)a < CN_ARRAY_SIZE(n) ? n[a] : "an unknown value";
}

/* The checks CANN's ACL layer and runtime make on a physical memory description, in its order.
 * Returns ACL_SUCCESS and the device id, or the error (reported). */
static aclError check_prop(const char *api, const aclrtPhysicalMemProp *prop, bool allocating, int32_t *dev_id)
{
    if (allocating && prop->handleType != ACL_MEM_HANDLE_TYPE_NONE)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: prop->handleType %d is not supported; it must be "
                        "ACL_MEM_HANDLE_TYPE_NONE", api, (int)prop->handleType);
    if (allocating && prop->allocationType != ACL_MEM_ALLOCATION_TYPE_PINNED)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: prop->allocationType %d is not supported; it must be "
                        "ACL_MEM_ALLOCATION_TYPE_PINNED", api, (int)prop->allocationType);
    aclrtMemLocationType lt = prop->location.type;
    if (lt != ACL_MEM_LOCATION_TYPE_HOST && lt != ACL_MEM_LOCATION_TYPE_DEVICE && lt != ACL_MEM_LOCATION_TYPE_HOST_NUMA)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: prop->location.type %d is not supported (host or device "
                        "memory is)", api, (int)lt);
    aclrtMemAttr a = prop->memAttr;
    bool ddr = a == ACL_DDR_MEM_HUGE || a == ACL_DDR_MEM_NORMAL || a == ACL_DDR_MEM_P2P_HUGE || a == ACL_DDR_MEM_P2P_NORMAL;
    if (lt == ACL_MEM_LOCATION_TYPE_DEVICE && ddr)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: prop->memAttr %s is host memory; it needs "
                        "ACL_MEM_LOCATION_TYPE_HOST", api, attr_name(a));
    bool known = ddr || a == ACL_HBM_MEM_HUGE || a == ACL_HBM_MEM_NORMAL || a == ACL_HBM_MEM_HUGE1G ||
                 a == ACL_MEM_NORMAL || a == ACL_MEM_HUGE || a == ACL_MEM_HUGE1G || a == ACL_MEM_P2P_NORMAL ||
                 a == ACL_MEM_P2P_HUGE || a == ACL_MEM_P2P_HUGE1G;
    if (!known)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: prop->memAttr %s (%d) is not a physical memory attribute "
                        "(e.g. ACL_HBM_MEM_HUGE)", api, attr_name(a), (int)a);
    if (lt != ACL_MEM_LOCATION_TYPE_DEVICE)
        return cn_error(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "%s: host physical memory is not supported; use "
                        "ACL_MEM_LOCATION_TYPE_DEVICE", api);
    aclError rc = cn_core_ensure();
    if (rc != ACL_SUCCESS)
        return rc;
    if (prop->location.id >= g_rt.device_count)
        return cn_error(ACL_ERROR_RT_INVALID_DEVICEID, "%s: prop->location.id %u is out of range: valid device "
                        "ids are 0..%u", api, prop->location.id, g_rt.device_count ? g_rt.device_count - 1 : 0);
    if (a == ACL_HBM_MEM_HUGE1G || a == ACL_MEM_HUGE1G || a == ACL_MEM_P2P_HUGE1G)
        return cn_error(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "%s: 1 GiB pages (%s) are not supported by the "
                        "device", api, attr_name(a));
    if (!drv_has_vm())
        return cn_error(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "%s: driver \"%s\" has no virtual memory support", api,
                        g_rt.driver.iface->name);
    *dev_id = (int32_t)prop->location.id;
    return ACL_SUCCESS;
}

/* ---- API ---- */

ACL_FUNC_VISIBILITY aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop,
                                                              aclrtMemGranularityOptions option, size_t *granularity)
{
    const char *api = "aclrtMemGetAllocationGranularity";
    if (!prop || !granularity)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api, !prop ? "prop" : "granularity");
    int32_t dev = 0;
    aclError rc = check_prop(api, prop, false, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    if (option != ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM && option != ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED)
        return cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: option %d is not ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM or "
                        "_RECOMMENDED", api, (int)option);
    *granularity = VMM_GRANULARITY;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment, void *expectPtr,
                                                    uint64_t flags)
{
    const char *api = "aclrtReserveMemAddress";
    if (!virPtr)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: virPtr is NULL", api);
    if (size == 0)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: size is 0", api);
    if (flags != 0 && flags != 1)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: flags %llu is invalid (0: normal pages, 1: huge pages)", api,
                        (unsigned long long)flags);
    if (alignment != 0)
        return cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: alignment %zu is reserved and must be 0", api, alignment);
    if (expectPtr && (uintptr_t)expectPtr % VMM_EXPECT_ALIGN != 0)
        return cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: expectPtr %p is not 1 GiB aligned", api, expectPtr);
    aclError rc = cn_core_ensure();
    if (rc != ACL_SUCCESS)
        return rc;
    if (!drv_has_vm())
        return cn_error(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "%s: driver \"%s\" has no virtual memory support", api,
                        g_rt.driver.iface->name);
    size_t rounded = (size + VMM_GRANULARITY - 1) & ~(VMM_GRANULARITY - 1);
    if (rounded < size)
        return cn_error(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: size %zu is too large", api, size);
    vres *r = cn_calloc(1, sizeof(*r));
    if (!r)
        return cn_error(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
    void *va = NULL;
    int drc = mem_iface()->vm_reserve(rounded, expectPtr, &va);
    if (drc != 0) {
        cn_free(r);
        return cn_error(drc == ACL_ERROR_INVALID_PARAM ? ACL_ERROR_RT_PARAM_INVALID : ACL_ERROR_RT_MEMORY_ALLOCATION,
                        "%s: cannot reserve %zu bytes of address space%s", api, rounded,
                        expectPtr ? " at expectPtr (taken?)" : "");
    }
    r->base = va;
    r->size = rounded;
    pthread_rwlock_wrlock(&g_vmm.lock);
    if (g_vmm.n == g_vmm.cap) {
        size_t ncap = g_vmm.cap ? g_vmm.cap * 2 : 8;
        vres **nr = cn_realloc(g_vmm.res, ncap * sizeof(*nr));
        if (!nr) {
            pthread_rwlock_unlock(&g_vmm.lock);
            mem_iface()->vm_release(va, rounded);
            cn_free(r);
            return cn_error(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
        }
        g_vmm.res = nr;
        g_vmm.cap = ncap;
    }
    size_t at = 0;
    while (at < g_vmm.n && g_vmm.res[at]->base < r->base)
        at++;
    memmove(&g_vmm.res[at + 1], &g_vmm.res[at], (g_vmm.n - at) * sizeof(*g_vmm.res));
    g_vmm.res[at] = r;
    g_vmm.n++;
    atomic_store_explicit(&g_vmm.nres, g_vmm.n, memory_order_release);
    pthread_rwlock_unlock(&g_vmm.lock);
    *virPtr = va;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtReleaseMemAddress(void *virPtr)
{
    const char *api = "aclrtReleaseMemAddress";
    if (!virPtr)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: virPtr is NULL", api);
    pthread_rwlock_wrlock(&g_vmm.lock);
    size_t ri = res_find_locked(virPtr);
    aclError rc = ACL_SUCCESS;
    if (ri == SIZE_MAX || g_vmm.res[ri]->base != (char *)virPtr) {
        rc = cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: %p is not the start of a reservation of "
                      "aclrtReserveMemAddress%s", api, virPtr, ri == SIZE_MAX ? "" : " (it points inside one)");
    } else if (g_vmm.res[ri]->n > 0) {
        rc = cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: the reservation at %p still has %zu mapping(s); unmap them "
                      "first (aclrtUnmapMem)", api, virPtr, g_vmm.res[ri]->n);
    } else {
        vres *r = g_vmm.res[ri];
        memmove(&g_vmm.res[ri], &g_vmm.res[ri + 1], (g_vmm.n - ri - 1) * sizeof(*g_vmm.res));
        g_vmm.n--;
        atomic_store_explicit(&g_vmm.nres, g_vmm.n, memory_order_release);
        const cannon_memory_iface *m = mem_iface();
        if (m && m->vm_release)
            (void)m->vm_release(r->base, r->size);
        cn_free(r->maps);
        cn_free(r);
    }
    pthread_rwlock_unlock(&g_vmm.lock);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size,
                                                 const aclrtPhysicalMemProp *prop, uint64_t flags)
{
    const char *api = "aclrtMallocPhysical";
    if (!handle || !prop)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api, !handle ? "handle" : "prop");
    if (size == 0)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: size is 0", api);
    if (flags != 0)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: flags %llu is reserved and must be 0", api,
                        (unsigned long long)flags);
    int32_t id = 0;
    aclError rc = check_prop(api, prop, true, &id);
    if (rc != ACL_SUCCESS)
        return rc;
    if (size % VMM_GRANULARITY != 0)
        return cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: size %zu is not a multiple of the allocation granularity "
                        "(%zu bytes, aclrtMemGetAllocationGranularity)", api, size, VMM_GRANULARITY);
    cn_device *d = &g_rt.devices[id];
    cn_phys *h = cn_calloc(1, sizeof(*h));
    if (!h)
        return cn_error(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
    /* The device stays open while we allocate: closing it needs g_rt.lock. */
    rc = cn_lock(api);
    if (rc != ACL_SUCCESS) {
        cn_free(h);
        return rc;
    }
    if (!d->open) {
        cn_unlock();
        cn_free(h);
        return cn_error(ACL_ERROR_RT_CONTEXT_NULL, "%s: device %d is not set (aclrtSetDevice)", api, id);
    }
    void *block = NULL;
    rc = cn_devalloc_alloc(d->alloc, size, 1, &block);
    if (rc == ACL_ERROR_RT_MEMORY_ALLOCATION && atomic_load(&d->n_pending) > 0) {
        cn_lock_wait_begin(); /* waits for stream work under g_rt.lock */
        cn_mem_pending_reclaim(d, true);
        cn_lock_wait_end();
        rc = cn_devalloc_alloc(d->alloc, size, 1, &block);
    }
    if (rc == ACL_SUCCESS) {
        size_t off = (size_t)((char *)block - (char *)__atomic_load_n(&d->arena_base, __ATOMIC_ACQUIRE));
        if (off % VMM_GRANULARITY != 0) { /* large blocks are whole arena segments: cannot happen */
            (void)cn_devalloc_free(d->alloc, block);
            rc = cn_error(ACL_ERROR_RT_INTERNAL_ERROR, "%s: device %d gave a block not aligned to the "
                          "granularity", api, id);
        } else {
            h->dev = d;
            h->dev_id = id;
            h->block = block;
            h->size = size;
            pthread_rwlock_wrlock(&g_vmm.lock);
            h->next = g_vmm.phys;
            if (g_vmm.phys)
                g_vmm.phys->prev = h;
            g_vmm.phys = h;
            pthread_rwlock_unlock(&g_vmm.lock);
        }
    } else if (rc == ACL_ERROR_RT_MEMORY_ALLOCATION) {
        cn_devalloc_stats st;
        cn_devalloc_get_stats(d->alloc, &st);
        cn_error(rc, "%s: device %d is out of memory: %zu bytes requested, %zu of %zu bytes in use", api, id, size,
                 st.live_bytes, st.capacity);
    } else {
        cn_error(rc, "%s: out of host memory for bookkeeping", api);
    }
    cn_unlock();
    if (rc != ACL_SUCCESS) {
        cn_free(h);
        return rc;
    }
    *handle = h;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtFreePhysical(aclrtDrvMemHandle handle)
{
    const char *api = "aclrtFreePhysical";
    if (!handle)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: handle is NULL", api);
    pthread_rwlock_wrlock(&g_vmm.lock);
    cn_phys *h = handle;
    aclError rc = ACL_SUCCESS;
    if (!phys_live_locked(h) || h->freed)
        rc = cn_error(ACL_ERROR_RT_INVALID_HANDLE, "%s: %p is not a live handle of aclrtMallocPhysical (freed "
                      "already?)", api, handle);
    else if (h->maps > 0)
        h->freed = true; /* the last unmap gives the memory back */
    else
        phys_destroy_locked(h);
    pthread_rwlock_unlock(&g_vmm.lock);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
                                         uint64_t flags)
{
    const char *api = "aclrtMapMem";
    if (!virPtr || !handle)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api, !virPtr ? "virPtr" : "handle");
    if (size == 0)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: size is 0", api);
    if (flags != 0)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: flags %llu is reserved and must be 0", api,
                        (unsigned long long)flags);
    pthread_rwlock_wrlock(&g_vmm.lock);
    cn_phys *h = handle;
    aclError rc = ACL_SUCCESS;
    size_t ri = SIZE_MAX, at = 0;
    if (!phys_live_locked(h) || h->freed) {
        rc = cn_error(ACL_ERROR_RT_INVALID_HANDLE, "%s: %p is not a live handle of aclrtMallocPhysical", api, handle);
    } else if (!h->dev) {
        rc = cn_error(ACL_ERROR_RT_INVALID_HANDLE, "%s: handle %p belongs to device %d, which was reset since", api,
                      handle, h->dev_id);
    } else if ((uintptr_t)virPtr % VMM_GRANULARITY || size % VMM_GRANULARITY || offset % VMM_GRANULARITY) {
        rc = cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: virPtr %p, size %zu and offset %zu must be multiples of the "
                      "granularity (%zu bytes)", api, virPtr, size, offset, VMM_GRANULARITY);
    } else if (offset > h->size || size > h->size - offset) {
        rc = cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: [offset %zu, +%zu) runs past the %zu bytes of handle %p", api,
                      offset, size, h->size, handle);
    } else if ((ri = res_find_locked(virPtr)) == SIZE_MAX) {
        rc = cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: %p is not in a reservation of aclrtReserveMemAddress", api,
                      virPtr);
    } else {
        vres *r = g_vmm.res[ri];
        if ((size_t)(r->base + r->size - (char *)virPtr) < size)
            rc = cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: [%p, +%zu) runs past the end of its reservation "
                          "[%p, +%zu)", api, virPtr, size, (void *)r->base, r->size);
        else if (map_find_locked(r, virPtr, &at) != SIZE_MAX ||
                 (at < r->n && r->maps[at].va < (char *)virPtr + size))
            rc = cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: [%p, +%zu) overlaps a range already mapped; unmap it "
                          "first", api, virPtr, size);
        else if (r->n == r->cap) {
            size_t ncap = r->cap ? r->cap * 2 : 8;
            vmap *nm = cn_realloc(r->maps, ncap * sizeof(*nm));
            if (!nm)
                rc = cn_error(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
            else
                r->maps = nm, r->cap = ncap;
        }
        if (rc == ACL_SUCCESS) {
            int drc = mem_iface()->vm_map(h->dev->drv, virPtr, size, (char *)h->block + offset);
            if (drc != 0) {
                rc = cn_error(drc == ACL_ERROR_INVALID_PARAM ? ACL_ERROR_RT_PARAM_INVALID : drc,
                              "%s: the driver could not map %zu bytes at %p", api, size, virPtr);
            } else {
                memmove(&r->maps[at + 1], &r->maps[at], (r->n - at) * sizeof(*r->maps));
                r->maps[at] = (vmap){.va = virPtr, .size = size, .ph = h, .off = offset};
                r->n++;
                h->maps++;
            }
        }
    }
    pthread_rwlock_unlock(&g_vmm.lock);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtUnmapMem(void *virPtr)
{
    const char *api = "aclrtUnmapMem";
    if (!virPtr)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: virPtr is NULL", api);
    /* Find the mapping, wait (unlocked) for the work queued on its device, then unmap it if it is
     * still there. */
    cn_device *dev = NULL;
    aclError rc = ACL_SUCCESS;
    for (int pass = 0; pass < 2; pass++) {
        pthread_rwlock_wrlock(&g_vmm.lock);
        size_t ri = res_find_locked(virPtr), mi = SIZE_MAX;
        if (ri != SIZE_MAX)
            mi = map_find_locked(g_vmm.res[ri], virPtr, NULL);
        if (mi == SIZE_MAX || g_vmm.res[ri]->maps[mi].va != (char *)virPtr) {
            rc = cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: %p is not the start of a mapping of aclrtMapMem%s", api,
                          virPtr, pass ? " (another thread unmapped it meanwhile)" : "");
            pthread_rwlock_unlock(&g_vmm.lock);
            return rc;
        }
        vres *r = g_vmm.res[ri];
        vmap m = r->maps[mi];
        if (pass == 0 && m.ph->dev) {
            dev = m.ph->dev;
            pthread_rwlock_unlock(&g_vmm.lock);
            /* The device stays open: closing it waits for its streams, which we may be waiting for,
             * and takes g_rt.lock, which we do not hold. A close racing with us orphans the
             * handle; the second pass then finds it without a device. */
            cn_mem_wait_device_work(dev);
            continue;
        }
        const cannon_memory_iface *mi_if = mem_iface();
        if (mi_if && mi_if->vm_unmap && mi_if->vm_unmap(m.va, m.size) != 0)
            rc = cn_error(ACL_ERROR_RT_INTERNAL_ERROR, "%s: the driver could not unmap %zu bytes at %p", api, m.size,
                          virPtr);
        memmove(&r->maps[mi], &r->maps[mi + 1], (r->n - mi - 1) * sizeof(*r->maps));
        r->n--;
        cn_phys *h = m.ph;
        if (--h->maps == 0 && h->freed)
            phys_destroy_locked(h);
        pthread_rwlock_unlock(&g_vmm.lock);
        return rc;
    }
    return rc;
}
