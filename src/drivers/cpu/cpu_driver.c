/*
 * The CPU driver: N virtual devices backed by the host's memory and cores.
 *
 * Each open device owns one memory arena: a memfd of the device's capacity mapped MAP_SHARED |
 * MAP_NORESERVE, so it costs nothing until touched, can be mapped by a peer process (export_fd),
 * and can give pages back (hole punching). All devices share one worker pool (cpu_pool.c), created
 * by the first open and stopped by the last close. Streams and events are in cpu_stream.c.
 *
 * This file is compiled into libascendcl and into libcannon-driver-cpu.so; a process may load
 * both, so all state is file-static and every internal symbol is hidden.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cannon/cpu.h"
#include "cpu_driver.h"
#include "cpu_features.h"
#include "cpu_internal.h"
#include "env.h"

#define CPU_MAX_DEVICES 64
#define CPU_DEFAULT_DEVICES 8
#define CPU_DEFAULT_MEMORY ((size_t)8 << 30)
#define CPU_MAX_THREADS 1024

struct cannon_drv_device {
    uint32_t index;
    unsigned open_count; /* device_open calls not yet closed (under g_drv.lock) */
    int fd;
    void *base;
    size_t size;
    cpu_dev_objs objs;
};

static struct {
    pthread_mutex_t lock; /* init/fini/open/close */
    int initialised;
    uint32_t device_count;
    size_t mem_capacity;
    uint32_t num_threads;
    uint32_t isa;
    cannon_drv_device *devices[CPU_MAX_DEVICES];
} g_drv = {.lock = PTHREAD_MUTEX_INITIALIZER};

static _Atomic(cannon_cpu_log_fn) g_log;
/* A copy of g_drv.isa readable without the lock (get_props may run while a close holds it). */
static _Atomic uint32_t g_isa;

cannon_cpu_log_fn cannon_cpu_logger(void)
{
    return atomic_load_explicit(&g_log, memory_order_relaxed);
}

cpu_dev_objs *cannon_cpu_dev_objs(cannon_drv_device *dev)
{
    return &dev->objs;
}

/* ---- configuration ---- */

/* An unsigned integer with an optional K/M/G/T suffix (powers of 1024) and optional "B"/"iB".
 * Returns 0 on success. */
static int parse_size(const char *s, unsigned long long *out)
{
    if (s == NULL || !isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno != 0)
        return -1;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    case 'T': shift = 40; end++; break;
    default: break;
    }
    if (shift != 0 && (*end == 'i' || *end == 'I'))
        end++;
    if (*end == 'B' || *end == 'b')
        end++;
    while (isspace((unsigned char)*end))
        end++;
    if (*end != '\0' || (shift != 0 && v > (ULLONG_MAX >> shift)))
        return -1;
    *out = v << shift;
    return 0;
}

/* An integer environment variable in [lo, hi]; dflt when unset, logged and clamped or defaulted
 * when out of range or malformed. */
static unsigned long long env_uint(const char *name, unsigned long long dflt, unsigned long long lo,
                                   unsigned long long hi, int allow_suffix)
{
    const char *s = cannon_env_get(name);
    if (s == NULL || *s == '\0')
        return dflt;
    unsigned long long v;
    int bad = allow_suffix ? parse_size(s, &v) : -1;
    if (!allow_suffix) {
        char *end;
        errno = 0;
        v = strtoull(s, &end, 0);
        bad = (errno != 0 || end == s || *end != '\0' || *s == '-') ? -1 : 0;
    }
    if (bad) {
        CPU_LOG(CPU_LOG_WARN, "cpu driver: ignoring malformed %s=\"%s\"", name, s);
        return dflt;
    }
    if (v < lo || v > hi) {
        unsigned long long c = v < lo ? lo : hi;
        CPU_LOG(CPU_LOG_WARN, "cpu driver: %s=%llu out of range [%llu, %llu], using %llu", name, v,
                lo, hi, c);
        return c;
    }
    return v;
}

static uint32_t affinity_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0)
            return (uint32_t)n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (uint32_t)n : 1;
}

/* ---- driver ---- */

static int cpu_probe(void)
{
    return 10;
}

static int cpu_init(const cannon_host_api *host, uint32_t *device_count)
{
    atomic_store(&g_log, host != NULL ? host->log : NULL);
    pthread_mutex_lock(&g_drv.lock);
    int busy = 0;
    for (uint32_t i = 0; i < CPU_MAX_DEVICES; i++)
        busy |= g_drv.devices[i] != NULL;
    if (!busy) {
        /* Settings are re-read by each init but cannot change under open devices. */
        g_drv.device_count = (uint32_t)env_uint(CANNON_CPU_ENV_DEVICES, CPU_DEFAULT_DEVICES, 1,
                                                CPU_MAX_DEVICES, 0);
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        unsigned long long mem =
            env_uint(CANNON_CPU_ENV_DEVICE_MEMORY, CPU_DEFAULT_MEMORY, 1, (size_t)1 << 50, 1);
        g_drv.mem_capacity = ((size_t)mem + page - 1) & ~(page - 1);
        uint32_t cpus = affinity_cpus();
        g_drv.num_threads =
            (uint32_t)env_uint(CANNON_CPU_ENV_THREADS, cpus, 1, CPU_MAX_THREADS, 0);
        cannon_cpu_set_spin_ns(
            (int64_t)env_uint(CANNON_CPU_ENV_SPIN_US, 30, 0, 1000000, 0) * 1000);
        uint32_t isa = cannon_cpu_features();
        g_drv.isa = isa & (uint32_t)env_uint(CANNON_CPU_ENV_ISA, UINT32_MAX, 0, UINT32_MAX, 0);
        atomic_store(&g_isa, g_drv.isa);
        cannon_cpu_copy_setup(g_drv.isa);
        CPU_LOG(CPU_LOG_INFO,
                "cpu driver: %u devices of %zu bytes, %u worker threads, isa 0x%x (cpu 0x%x)",
                g_drv.device_count, g_drv.mem_capacity, g_drv.num_threads, g_drv.isa, isa);
    }
    g_drv.initialised = 1;
    if (device_count != NULL)
        *device_count = g_drv.device_count;
    pthread_mutex_unlock(&g_drv.lock);
    return 0;
}

static void device_teardown(cannon_drv_device *dev)
{
    cannon_cpu_dev_reap(dev);
    cannon_cpu_join_ended_streams();
    munmap(dev->base, dev->size);
    close(dev->fd);
    pthread_mutex_destroy(&dev->objs.lock);
    free(dev);
    cannon_cpu_pool_release();
}

static void cpu_fini(void)
{
    pthread_mutex_lock(&g_drv.lock);
    for (uint32_t i = 0; i < CPU_MAX_DEVICES; i++) {
        if (g_drv.devices[i] != NULL) {
            CPU_LOG(CPU_LOG_WARN, "cpu driver: device %u still open at fini; closing it", i);
            device_teardown(g_drv.devices[i]);
            g_drv.devices[i] = NULL;
        }
    }
    g_drv.initialised = 0;
    pthread_mutex_unlock(&g_drv.lock);
    cannon_cpu_join_ended_streams();
    /* The logger belongs to the runtime, which may unload before init is called again. */
    atomic_store(&g_log, NULL);
}

static int cpu_device_open(uint32_t index, cannon_drv_device **out)
{
    if (out == NULL)
        return ACL_ERROR_INVALID_PARAM;
    pthread_mutex_lock(&g_drv.lock);
    if (!g_drv.initialised || index >= g_drv.device_count) {
        pthread_mutex_unlock(&g_drv.lock);
        return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    cannon_drv_device *dev = g_drv.devices[index];
    if (dev != NULL) {
        dev->open_count++;
        *out = dev;
        pthread_mutex_unlock(&g_drv.lock);
        return 0;
    }
    dev = calloc(1, sizeof *dev);
    if (dev == NULL) {
        pthread_mutex_unlock(&g_drv.lock);
        return ACL_ERROR_BAD_ALLOC;
    }
    dev->index = index;
    dev->size = g_drv.mem_capacity;
    char name[32];
    snprintf(name, sizeof name, "cannon-dev%u", index);
    dev->fd = memfd_create(name, MFD_CLOEXEC);
    if (dev->fd < 0 || ftruncate(dev->fd, (off_t)dev->size) != 0) {
        CPU_LOG(CPU_LOG_ERROR, "cpu driver: cannot create the %zu-byte arena of device %u: %s",
                dev->size, index, strerror(errno));
        goto fail;
    }
    dev->base = mmap(NULL, dev->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, dev->fd, 0);
    if (dev->base == MAP_FAILED) {
        CPU_LOG(CPU_LOG_ERROR, "cpu driver: cannot map the %zu-byte arena of device %u: %s",
                dev->size, index, strerror(errno));
        goto fail;
    }
    pthread_mutex_init(&dev->objs.lock, NULL);
    cannon_cpu_pool_acquire(g_drv.num_threads);
    dev->open_count = 1;
    g_drv.devices[index] = dev;
    *out = dev;
    pthread_mutex_unlock(&g_drv.lock);
    return 0;

fail:
    if (dev->fd >= 0)
        close(dev->fd);
    free(dev);
    pthread_mutex_unlock(&g_drv.lock);
    return ACL_ERROR_RT_DEV_SETUP_ERROR;
}

static void cpu_device_close(cannon_drv_device *dev)
{
    if (dev == NULL)
        return;
    pthread_mutex_lock(&g_drv.lock);
    if (dev->index < CPU_MAX_DEVICES && g_drv.devices[dev->index] == dev && --dev->open_count == 0) {
        g_drv.devices[dev->index] = NULL;
        device_teardown(dev);
    }
    pthread_mutex_unlock(&g_drv.lock);
}

/* ---- device ---- */

static int dev_get_props(cannon_drv_device *dev, cannon_device_props *props)
{
    if (dev == NULL || props == NULL)
        return ACL_ERROR_INVALID_PARAM;
    memset(props, 0, sizeof *props);
    snprintf(props->name, sizeof props->name, "cpu:%u", dev->index);
    snprintf(props->soc_name, sizeof props->soc_name, "%s", CANNON_CPU_SOC_NAME);
    props->mem_capacity = dev->size;
    props->num_workers = cannon_cpu_pool_workers();
    props->isa_flags = atomic_load(&g_isa);
    return 0;
}

static int dev_parallel_for(cannon_drv_device *dev, const cannon_launch_desc *desc)
{
    (void)dev;
    if (desc == NULL || desc->fn == NULL || desc->block_dim == 0)
        return ACL_ERROR_INVALID_PARAM;
    /* Synchronous: the caller's blob outlives the call, so it is never copied. */
    cpu_err err;
    cannon_cpu_err_init(&err);
    int r = cannon_cpu_pool_run(desc->name, desc->fn, (void *)(uintptr_t)desc->args,
                                desc->block_dim, &err);
    int reported = cannon_cpu_err_take(&err, NULL, 0);
    cannon_cpu_err_destroy(&err);
    return reported != 0 ? reported : r;
}

/* ---- memory ---- */

static int mem_arena(cannon_drv_device *dev, void **base, size_t *size)
{
    if (dev == NULL || base == NULL || size == NULL)
        return ACL_ERROR_INVALID_PARAM;
    *base = dev->base;
    *size = dev->size;
    return 0;
}

static int mem_export_fd(cannon_drv_device *dev)
{
    return dev != NULL ? dev->fd : -1;
}

/* The page-aligned part of [ptr, ptr+size) inside the arena: outward (grow) or inward (shrink). */
static int arena_pages(cannon_drv_device *dev, void *ptr, size_t size, int outward, size_t *off,
                       size_t *len)
{
    uintptr_t base = (uintptr_t)dev->base, p = (uintptr_t)ptr;
    if (p < base || p - base > dev->size || size > dev->size - (p - base))
        return ACL_ERROR_INVALID_PARAM;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = p - base, hi = lo + size;
    if (outward) {
        lo &= ~(page - 1);
        hi = (hi + page - 1) & ~(page - 1);
        if (hi > dev->size)
            hi = dev->size;
    } else {
        lo = (lo + page - 1) & ~(page - 1);
        hi &= ~(page - 1);
    }
    *off = lo;
    *len = hi > lo ? hi - lo : 0;
    return 0;
}

static int mem_commit(cannon_drv_device *dev, void *ptr, size_t size, int huge)
{
    if (dev == NULL)
        return ACL_ERROR_INVALID_PARAM;
    size_t off, len;
    int r = arena_pages(dev, ptr, size, 1, &off, &len);
    if (r != 0)
        return r;
#ifdef MADV_HUGEPAGE
    /* Best effort: shmem huge pages depend on /sys/kernel/mm/transparent_hugepage/shmem_enabled. */
    if (huge && len > 0)
        (void)madvise((char *)dev->base + off, len, MADV_HUGEPAGE);
#else
    (void)huge;
#endif
    return 0;
}

static int mem_decommit(cannon_drv_device *dev, void *ptr, size_t size)
{
    if (dev == NULL)
        return ACL_ERROR_INVALID_PARAM;
    size_t off, len;
    int r = arena_pages(dev, ptr, size, 0, &off, &len);
    if (r != 0 || len == 0)
        return r;
    /* Punching a hole frees the shmem pages (and so the memory) behind every mapping of them. */
    if (fallocate(dev->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) != 0 &&
        madvise((char *)dev->base + off, len, MADV_REMOVE) != 0) {
        CPU_LOG(CPU_LOG_DEBUG, "cpu driver: cannot decommit %zu bytes: %s", len, strerror(errno));
    }
    return 0;
}

int cannon_cpu_range_ok(cannon_drv_device *dev, const void *p, size_t n)
{
    uintptr_t lo = (uintptr_t)p, hi;
    if (__builtin_add_overflow(lo, n, &hi))
        return 0;
    if (dev == NULL)
        return 1;
    uintptr_t base = (uintptr_t)dev->base, end = base + dev->size;
    return !(lo >= base && lo < end && hi > end);
}

static int mem_copy(cannon_drv_device *dev, void *dst, const void *src, size_t n)
{
    if (n > 0 && (dst == NULL || src == NULL))
        return ACL_ERROR_INVALID_PARAM;
    if (!cannon_cpu_range_ok(dev, dst, n) || !cannon_cpu_range_ok(dev, src, n))
        return ACL_ERROR_INVALID_PARAM;
    cannon_cpu_copy(dst, src, n);
    return 0;
}

static int mem_fill(cannon_drv_device *dev, void *dst, int value, size_t n)
{
    if (n > 0 && dst == NULL)
        return ACL_ERROR_INVALID_PARAM;
    if (!cannon_cpu_range_ok(dev, dst, n))
        return ACL_ERROR_INVALID_PARAM;
    cannon_cpu_fill(dst, value, n);
    return 0;
}

/* ---- virtual memory ----
 *
 * A reservation is an anonymous PROT_NONE mapping (MAP_NORESERVE: it costs address space only);
 * mapping physical memory replaces part of it, MAP_FIXED, with a shared mapping of the device's
 * arena memfd at the block's offset, so the same pages are reachable through the arena and
 * through the reservation. Unmapping puts a PROT_NONE mapping back. A mapping keeps the memfd
 * alive by itself, so addresses stay valid (not faulting) after the device is closed. */

#define CPU_VM_GRANULARITY ((size_t)2 << 20)

static size_t vm_granularity(cannon_drv_device *dev)
{
    (void)dev;
    return CPU_VM_GRANULARITY;
}

static int vm_reserve(size_t size, void *hint, void **va)
{
    if (va == NULL || size == 0 || size % CPU_VM_GRANULARITY != 0)
        return ACL_ERROR_INVALID_PARAM;
    const int prot = PROT_NONE, flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    if (hint != NULL) {
        if ((uintptr_t)hint % CPU_VM_GRANULARITY != 0)
            return ACL_ERROR_INVALID_PARAM;
#ifdef MAP_FIXED_NOREPLACE
        void *p = mmap(hint, size, prot, flags | MAP_FIXED_NOREPLACE, -1, 0);
#else
        void *p = mmap(hint, size, prot, flags, -1, 0);
#endif
        if (p == MAP_FAILED)
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
        if (p != hint) { /* a kernel without MAP_FIXED_NOREPLACE treats it as a hint */
            munmap(p, size);
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
        }
        *va = p;
        return 0;
    }
    /* Over-reserve by one granule and trim, so the start is granule-aligned. */
    size_t total;
    if (__builtin_add_overflow(size, CPU_VM_GRANULARITY, &total))
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    char *p = mmap(NULL, total, prot, flags, -1, 0);
    if (p == MAP_FAILED)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    uintptr_t start = ((uintptr_t)p + CPU_VM_GRANULARITY - 1) & ~(uintptr_t)(CPU_VM_GRANULARITY - 1);
    size_t head = (size_t)(start - (uintptr_t)p), tail = total - head - size;
    if (head != 0)
        munmap(p, head);
    if (tail != 0)
        munmap((char *)start + size, tail);
    *va = (void *)start;
    return 0;
}

static int vm_release(void *va, size_t size)
{
    if (va == NULL || size == 0)
        return ACL_ERROR_INVALID_PARAM;
    return munmap(va, size) == 0 ? 0 : ACL_ERROR_RT_PARAM_INVALID;
}

static int vm_map(cannon_drv_device *dev, void *va, size_t size, void *arena_ptr)
{
    if (dev == NULL || va == NULL || size == 0)
        return ACL_ERROR_INVALID_PARAM;
    uintptr_t base = (uintptr_t)dev->base, p = (uintptr_t)arena_ptr;
    if (p < base || p - base > dev->size || size > dev->size - (p - base) || (p - base) % CPU_VM_GRANULARITY != 0 ||
        (uintptr_t)va % CPU_VM_GRANULARITY != 0 || size % CPU_VM_GRANULARITY != 0)
        return ACL_ERROR_INVALID_PARAM;
    void *m = mmap(va, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_NORESERVE, dev->fd,
                   (off_t)(p - base));
    if (m == MAP_FAILED) {
        CPU_LOG(CPU_LOG_ERROR, "cpu driver: cannot map %zu bytes of device %u at %p: %s", size, dev->index, va,
                strerror(errno));
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
#ifdef MADV_HUGEPAGE
    (void)madvise(va, size, MADV_HUGEPAGE);
#endif
    return 0;
}

static int vm_unmap(void *va, size_t size)
{
    if (va == NULL || size == 0)
        return ACL_ERROR_INVALID_PARAM;
    void *m = mmap(va, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    return m == MAP_FAILED ? ACL_ERROR_RT_INTERNAL_ERROR : 0;
}

/* ---- tables ---- */

static const cannon_device_iface g_device_iface = {
    .get_props = dev_get_props,
    .parallel_for = dev_parallel_for,
};

static const cannon_memory_iface g_memory_iface = {
    .arena = mem_arena,
    .export_fd = mem_export_fd,
    .commit = mem_commit,
    .decommit = mem_decommit,
    .copy = mem_copy,
    .fill = mem_fill,
    .vm_granularity = vm_granularity,
    .vm_reserve = vm_reserve,
    .vm_release = vm_release,
    .vm_map = vm_map,
    .vm_unmap = vm_unmap,
};

static const cannon_driver_iface g_driver_iface = {
    .abi_version = CANNON_DRIVER_ABI_VERSION,
    .struct_size = sizeof(cannon_driver_iface),
    .name = "cpu",
    .description = "host CPU: virtual devices on the machine's cores and memory",
    .probe = cpu_probe,
    .init = cpu_init,
    .fini = cpu_fini,
    .device_open = cpu_device_open,
    .device_close = cpu_device_close,
    .device = &g_device_iface,
    .memory = &g_memory_iface,
    .stream = &cannon_cpu_stream_iface,
};

const cannon_driver_iface *cannon_cpu_driver_iface(void)
{
    return &g_driver_iface;
}
