/*
 * Unit tests of the CPU driver, driven directly through its interface table (no runtime): devices
 * and their settings, the memory arena, copies and fills, launches on the worker pool, stream
 * ordering and concurrency, events, error reporting, timeouts and stream destruction.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl_base.h"
#include "cannon/cpu.h"
#include "cannon/driver.h"
#include "cpu_driver.h"

static const cannon_driver_iface *drv;
static const cannon_stream_iface *st;
static _Atomic int log_lines;

static void test_log(int level, const char *fmt, ...)
{
    (void)level;
    (void)fmt;
    atomic_fetch_add(&log_lines, 1);
}

static const cannon_host_api host = {.abi_version = CANNON_DRIVER_ABI_VERSION, .log = test_log};

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* Initialise the driver with the environment as the test set it; open device 0. */
static cannon_drv_device *open_dev0(void)
{
    uint32_t n = 0;
    assert_int_equal(drv->init(&host, &n), 0);
    assert_true(n >= 1);
    cannon_drv_device *dev = NULL;
    assert_int_equal(drv->device_open(0, &dev), 0);
    assert_non_null(dev);
    return dev;
}

static int setup(void **state)
{
    (void)state;
    drv = cannon_cpu_driver_iface();
    st = drv->stream;
    /* Small arenas keep the tests light; two workers exercise the pool even on one core. */
    setenv("CANNON_CPU_DEVICE_MEMORY", "256M", 1);
    setenv("CANNON_CPU_THREADS", "2", 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    drv->fini();
    return 0;
}

/* ---- driver and devices ---- */

static void test_table(void **state)
{
    (void)state;
    assert_int_equal(drv->abi_version, CANNON_DRIVER_ABI_VERSION);
    assert_int_equal(drv->struct_size, sizeof(cannon_driver_iface));
    assert_string_equal(drv->name, "cpu");
    assert_true(drv->probe() > 0);
    assert_non_null(drv->device);
    assert_non_null(drv->memory);
    assert_non_null(drv->stream);
}

static void test_device_count_env(void **state)
{
    (void)state;
    uint32_t n = 0;
    unsetenv("CANNON_CPU_DEVICES");
    assert_int_equal(drv->init(&host, &n), 0);
    assert_int_equal(n, 8);
    drv->fini();

    setenv("CANNON_CPU_DEVICES", "3", 1);
    assert_int_equal(drv->init(&host, &n), 0);
    assert_int_equal(n, 3);
    cannon_drv_device *dev = NULL;
    assert_int_equal(drv->device_open(3, &dev), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_int_equal(drv->device_open(2, &dev), 0);
    cannon_device_props p;
    assert_int_equal(drv->device->get_props(dev, &p), 0);
    assert_string_equal(p.name, "cpu:2");
    assert_string_equal(p.soc_name, CANNON_CPU_SOC_NAME);
    assert_int_equal(p.mem_capacity, (size_t)256 << 20);
    assert_int_equal(p.num_workers, 2);
    /* ISA bits are consistent: AVX-512 implies the AVX2 tier on every x86 that has it. */
    if (p.isa_flags & CANNON_CPU_ISA_AVX512F)
        assert_true(p.isa_flags & CANNON_CPU_ISA_AVX2);
    assert_int_equal(p.isa_flags & ~CANNON_CPU_ISA_ALL, 0);
    /* A second open of the same index shares the device. */
    cannon_drv_device *again = NULL;
    assert_int_equal(drv->device_open(2, &again), 0);
    assert_ptr_equal(again, dev);
    drv->device_close(again);
    drv->device_close(dev);
    drv->fini();

    /* Out of range is clamped and logged; garbage falls back to the default. */
    int before = atomic_load(&log_lines);
    setenv("CANNON_CPU_DEVICES", "500", 1);
    assert_int_equal(drv->init(&host, &n), 0);
    assert_int_equal(n, 64);
    assert_true(atomic_load(&log_lines) > before);
    drv->fini();
    setenv("CANNON_CPU_DEVICES", "lots", 1);
    assert_int_equal(drv->init(&host, &n), 0);
    assert_int_equal(n, 8);
    drv->fini();
    unsetenv("CANNON_CPU_DEVICES");

    /* Memory suffixes and the ISA mask. */
    setenv("CANNON_CPU_DEVICE_MEMORY", "3M", 1);
    setenv("CANNON_CPU_ISA", "0", 1);
    dev = open_dev0();
    assert_int_equal(drv->device->get_props(dev, &p), 0);
    assert_int_equal(p.mem_capacity, (size_t)3 << 20);
    assert_int_equal(p.isa_flags, 0);
    drv->device_close(dev);
    drv->fini();
    unsetenv("CANNON_CPU_ISA");
    setenv("CANNON_CPU_DEVICE_MEMORY", "256M", 1);

    /* NULL host api: no logging, still works. */
    assert_int_equal(drv->init(NULL, &n), 0);
    drv->fini();
}

/* ---- memory ---- */

static void test_arena(void **state)
{
    (void)state;
    cannon_drv_device *dev = open_dev0();
    const cannon_memory_iface *m = drv->memory;
    void *base = NULL;
    size_t size = 0;
    assert_int_equal(m->arena(dev, &base, &size), 0);
    assert_non_null(base);
    assert_int_equal(size, (size_t)256 << 20);
    assert_int_equal((uintptr_t)base % 4096, 0);

    unsigned char *b = base;
    memset(b, 0xAB, 64 << 10);
    b[size - 1] = 7;

    /* The exported fd maps the same memory (as a peer process would). */
    int fd = m->export_fd(dev);
    assert_true(fd >= 0);
    unsigned char *peer = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    assert_true(peer != MAP_FAILED);
    assert_int_equal(peer[100], 0xAB);
    assert_int_equal(peer[size - 1], 7);
    peer[200] = 0x11;
    assert_int_equal(b[200], 0x11);

    assert_int_equal(m->commit(dev, b, 2 << 20, 1), 0);
    assert_int_equal(m->commit(dev, b + 4096, 100, 0), 0);

    /* Decommit gives whole pages back: they read as zero; partial pages are left alone. */
    assert_int_equal(m->decommit(dev, b + 4096, 8192), 0);
    assert_int_equal(b[4096], 0);
    assert_int_equal(b[4096 + 8191], 0);
    assert_int_equal(peer[4096 + 100], 0);
    assert_int_equal(b[4095], 0xAB);
    assert_int_equal(b[4096 + 8192], 0xAB);
    assert_int_equal(m->decommit(dev, b + 10, 100), 0);
    assert_int_equal(b[10], 0xAB);

    /* Ranges outside the arena are refused. */
    assert_int_not_equal(m->decommit(dev, b + size - 4096, 8192), 0);
    unsigned char local[16];
    assert_int_not_equal(m->commit(dev, local, sizeof local, 0), 0);

    munmap(peer, size);
    drv->device_close(dev);
    drv->fini();
}

static void test_copy_fill(void **state)
{
    (void)state;
    cannon_drv_device *dev = open_dev0();
    const cannon_memory_iface *m = drv->memory;
    void *base;
    size_t size;
    assert_int_equal(m->arena(dev, &base, &size), 0);

    /* Sizes around every threshold, odd offsets so heads and tails are exercised. */
    const size_t sizes[] = {0, 1, 63, 4097, (1 << 20) - 3, (1 << 20) + 77, (9 << 20) + 13,
                            (40 << 20) + 5};
    unsigned char *host = malloc((41 << 20) + 64);
    assert_non_null(host);
    unsigned char *dst = (unsigned char *)base + 3;
    unsigned char *dst2 = (unsigned char *)base + (100 << 20) + 1;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        for (size_t k = 0; k < n + 2; k++)
            host[k] = (unsigned char)(k * 131 + i);
        /* host to device */
        assert_int_equal(m->copy(dev, dst, host + 1, n), 0);
        for (size_t k = 0; k < n; k += (k < 4096 ? 1 : 997))
            assert_int_equal(dst[k], host[k + 1]);
        if (n > 0)
            assert_int_equal(dst[n - 1], host[n]);
        /* device to device, then back to host */
        assert_int_equal(m->copy(dev, dst2, dst, n), 0);
        assert_int_equal(memcmp(dst2, host + 1, n), 0);
        /* fill, guarded on both sides */
        dst2[-1] = 0x5A;
        dst2[n] = 0x5A;
        assert_int_equal(m->fill(dev, dst2, 0xC3, n), 0);
        assert_int_equal(dst2[-1], 0x5A);
        assert_int_equal(dst2[n], 0x5A);
        for (size_t k = 0; k < n; k += (k < 4096 ? 1 : 991))
            assert_int_equal(dst2[k], 0xC3);
        if (n > 0)
            assert_int_equal(dst2[n - 1], 0xC3);
    }

    /* Overlapping ranges behave like memmove. */
    size_t n = 3 << 20;
    for (size_t k = 0; k < n; k++)
        host[k] = (unsigned char)(k * 7);
    assert_int_equal(m->copy(dev, dst, host, n), 0);
    assert_int_equal(m->copy(dev, dst + 4096, dst, n), 0);
    assert_int_equal(memcmp(dst + 4096, host, n), 0);

    free(host);
    drv->device_close(dev);
    drv->fini();
}

/* ---- launches ---- */

typedef struct count_args {
    _Atomic uint32_t *slots;
    _Atomic uint32_t *bad_ctx;
    uint32_t expect_dim;
} count_args;

static int count_kernel(const cannon_kernel_ctx *ctx, void *p)
{
    const count_args *a = p;
    if (ctx->block_dim != a->expect_dim || ctx->block_idx >= ctx->block_dim ||
        ctx->worker_id >= ctx->num_workers || ctx->hooks == NULL || ctx->stream_priv == NULL)
        atomic_fetch_add(a->bad_ctx, 1);
    atomic_fetch_add(&a->slots[ctx->block_idx], 1);
    return 0;
}

/* A blob larger than the inline buffer, to exercise the heap copy. */
typedef struct big_args {
    _Atomic uint32_t *out;
    uint32_t payload[100];
} big_args;

static int big_kernel(const cannon_kernel_ctx *ctx, void *p)
{
    const big_args *a = p;
    uint32_t sum = 0;
    for (int i = 0; i < 100; i++)
        sum += a->payload[i];
    atomic_fetch_add(&a->out[ctx->block_idx], sum);
    return 0;
}

static void test_launch_blocks(void **state)
{
    (void)state;
    cannon_drv_device *dev = open_dev0();
    cannon_drv_stream *s = NULL;
    assert_int_equal(st->create(dev, 0, &s), 0);

    enum { DIM = 1000 };
    _Atomic uint32_t *slots = calloc(DIM, sizeof *slots);
    _Atomic uint32_t bad = 0;
    count_args a = {.slots = slots, .bad_ctx = &bad, .expect_dim = DIM};
    cannon_launch_desc d = {.name = "count", .fn = count_kernel, .args = &a,
                            .args_size = sizeof a, .block_dim = DIM};
    assert_int_equal(st->enqueue_launch(s, &d), 0);
    /* The blob was copied: clobbering it now must not matter. */
    memset(&a, 0, sizeof a);
    char msg[256];
    assert_int_equal(st->synchronize(s, -1, msg, sizeof msg), 0);
    for (int i = 0; i < DIM; i++)
        assert_int_equal(atomic_load(&slots[i]), 1);
    assert_int_equal(atomic_load(&bad), 0);

    /* block_dim 1 runs inline; args_size 0 passes the pointer as is. */
    count_args a1 = {.slots = slots, .bad_ctx = &bad, .expect_dim = 1};
    cannon_launch_desc d1 = {.name = "one", .fn = count_kernel, .args = &a1, .block_dim = 1};
    assert_int_equal(st->enqueue_launch(s, &d1), 0);
    assert_int_equal(st->synchronize(s, -1, NULL, 0), 0);
    assert_int_equal(atomic_load(&slots[0]), 2);
    assert_int_equal(atomic_load(&bad), 0);

    /* Heap-copied blob. */
    big_args *b = calloc(1, sizeof *b);
    _Atomic uint32_t out[8] = {0};
    b->out = out;
    for (int i = 0; i < 100; i++)
        b->payload[i] = (uint32_t)i;
    cannon_launch_desc db = {.name = "big", .fn = big_kernel, .args = b, .args_size = sizeof *b,
                             .block_dim = 8};
    assert_int_equal(st->enqueue_launch(s, &db), 0);
    free(b);
    assert_int_equal(st->synchronize(s, -1, NULL, 0), 0);
    for (int i = 0; i < 8; i++)
        assert_int_equal(atomic_load(&out[i]), 4950);

    /* Bad descriptors are refused. */
    cannon_launch_desc bad_desc = {.fn = NULL, .block_dim = 1};
    assert_int_not_equal(st->enqueue_launch(s, &bad_desc), 0);
    bad_desc.fn = count_kernel;
    bad_desc.block_dim = 0;
    assert_int_not_equal(st->enqueue_launch(s, &bad_desc), 0);

    /* parallel_for runs synchronously and returns the first error. */
    memset(slots, 0, DIM * sizeof *slots);
    count_args ap = {.slots = slots, .bad_ctx = &bad, .expect_dim = 77};
    cannon_launch_desc dp = {.name = "pf", .fn = count_kernel, .args = &ap, .block_dim = 77};
    assert_int_equal(drv->device->parallel_for(dev, &dp), 0);
    for (int i = 0; i < 77; i++)
        assert_int_equal(atomic_load(&slots[i]), 1);

    assert_int_equal(st->destroy(s, 0), 0);
    free(slots);
    drv->device_close(dev);
    drv->fini();
}

/* ---- ordering ---- */

typedef struct order_log {
    _Atomic int n;
    int seq[64];
} order_log;

typedef struct order_arg {
    order_log *log;
    int id;
} order_arg;

static int order_host(void *p)
{
    order_arg *a = p;
    int i = atomic_fetch_add(&a->log->n, 1);
    a->log->seq[i] = a->id;
    return 0;
}

static int order_kernel(const cannon_kernel_ctx *ctx, void *p)
{
    order_arg *a = p;
    if (ctx->block_idx == 0) {
        int i = atomic_fetch_add(&a->log->n, 1);
        a->log->seq[i] = a->id;
    }
    return 0;
}

static void test_stream_order(void **state)
{
    (void)state;
    cannon_drv_device *dev = open_dev0();
    void *base;
    size_t size;
    assert_int_equal(drv->memory->arena(dev, &base, &size), 0);
    cannon_drv_stream *s = NULL;
    assert_int_equal(st->create(dev, 0, &s), 0);

    order_log log = {0};
    order_arg args[32];
    for (int i = 0; i < 32; i++) {
        args[i].log = &log;
        args[i].id = i;
        if (i % 2 == 0) {
            assert_int_equal(st->enqueue_host(s, order_host, &args[i]), 0);
        } else {
            cannon_launch_desc d = {.name = "order", .fn = order_kernel, .args = &args[i],
                                    .block_dim = 4};
            assert_int_equal(st->enqueue_launch(s, &d), 0);
        }
    }
    /* A fill then a copy from what it filled: the copy sees the fill. */
    unsigned char *a = base, *b = (unsigned char *)base + (8 << 20);
    size_t n = 5 << 20;
    assert_int_equal(st->enqueue_fill(s, a, 0x42, n), 0);
    assert_int_equal(st->enqueue_copy(s, b, a, n), 0);
    assert_int_equal(st->enqueue_fill(s, a, 0x17, 100), 0);
    assert_int_equal(st->synchronize(s, -1, NULL, 0), 0);
    assert_int_equal(st->query(s), 1);
    assert_int_equal(atomic_load(&log.n), 32);
    for (int i = 0; i < 32; i++)
        assert_int_equal(log.seq[i], i);
    assert_int_equal(b[0], 0x42);
    assert_int_equal(b[n - 1], 0x42);
    assert_int_equal(a[0], 0x17);
    assert_int_equal(a[100], 0x42);

    assert_int_equal(st->destroy(s, 0), 0);
    drv->device_close(dev);
    drv->fini();
}

/* ---- concurrent streams ---- */

typedef struct conc_ctx {
    cannon_drv_device *dev;
    _Atomic uint32_t *slots; /* [stream][block] */
    int id;
    int failed;
} conc_ctx;

typedef struct add_args {
    _Atomic uint32_t *slots;
} add_args;

static int add_kernel(const cannon_kernel_ctx *ctx, void *p)
{
    const add_args *a = p;
    atomic_fetch_add(&a->slots[ctx->block_idx], 1);
    return 0;
}

enum { CONC_STREAMS = 4, CONC_LAUNCHES = 200, CONC_DIM = 16 };

static void *conc_thread(void *p)
{
    conc_ctx *c = p;
    cannon_drv_stream *s = NULL;
    if (st->create(c->dev, 0, &s) != 0) {
        c->failed = 1;
        return NULL;
    }
    add_args a = {.slots = c->slots + c->id * CONC_DIM};
    for (int i = 0; i < CONC_LAUNCHES; i++) {
        cannon_launch_desc d = {.name = "add", .fn = add_kernel, .args = &a,
                                .args_size = sizeof a, .block_dim = (uint32_t)(1 + i % CONC_DIM)};
        if (st->enqueue_launch(s, &d) != 0)
            c->failed = 1;
        if (i % 50 == 49 && st->synchronize(s, -1, NULL, 0) != 0)
            c->failed = 1;
    }
    if (st->synchronize(s, -1, NULL, 0) != 0 || st->destroy(s, 0) != 0)
        c->failed = 1;
    return NULL;
}

static void test_concurrent_streams(void **state)
{
    (void)state;
    cannon_drv_device *dev = open_dev0();
    _Atomic uint32_t *slots = calloc(CONC_STREAMS * CONC_DIM, sizeof *slots);
    pthread_t th[CONC_STREAMS];
    conc_ctx c[CONC_STREAMS];
    for (int i = 0; i < CONC_STREAMS; i++) {
        c[i] = (conc_ctx){.dev = dev, .slots = slots, .id = i};
        assert_int_equal(pthread_create(&th[i], NULL, conc_thread, &c[i]), 0);
    }
    for (int i = 0; i < CONC_STREAMS; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(c[i].failed, 0);
    }
    /* Block b runs in every launch with block_dim > b. */
    for (int i = 0; i < CONC_STREAMS; i++)
        for (int b = 0; b < CONC_DIM; b++) {
            uint32_t expect = 0;
            for (int l = 0; l < CONC_LAUNCHES; l++)
                expect += (uint32_t)(1 + l % CONC_DIM) > (uint32_t)b;
            assert_int_equal(atomic_load(&slots[i * CONC_DIM + b]), expect);
        }
    free(slots);
    drv->device_close(dev);
    drv->fini();
}

/* ---- events ---- */

typedef struct flag_arg {
    _Atomic int flag;
    _Atomic int seen;
    int delay_ms;
} flag_arg;

static int set_flag_later(void *p)
{
    flag_arg *f = p;
    sleep_ms(f->delay_ms);
    atomic_store(&f->flag, 1);
    return 0;
}

static int check_flag(void *p)
{
    flag_arg *f = p;
    atomic_store(&f->seen, atomic_load(&f->flag));
    return 0;
}

static int sleep_host(void *p)
{
    sleep_ms((int)(intptr_t)p);
    return 0;
}

static void test_events(void **state)
{
    (void)state;
    cannon_drv_device *dev = open_dev0();
    cannon_drv_stream *a = NULL, *b = NULL;
    assert_int_equal(st->create(dev, 0, &a), 0);
    assert_int_equal(st->create(dev, 0, &b), 0);

    /* Never recorded: complete, no timestamp. */
    cannon_drv_event *e = NULL, *t0 = NULL, *t1 = NULL;
    assert_int_equal(st->event_create(dev, 0, &e), 0);
    assert_int_equal(st->event_create(dev, CANNON_DRV_EVENT_TIMING, &t0), 0);
    assert_int_equal(st->event_create(dev, CANNON_DRV_EVENT_TIMING, &t1), 0);
    assert_int_equal(st->event_query(e), 1);
    assert_int_equal(st->event_synchronize(e, 0), 0);
    float ms = -1;
    assert_int_equal(st->event_elapsed(t0, t1, &ms), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);

    /* Cross-stream wait: b's check runs only after a's delayed flag. */
    flag_arg f = {.delay_ms = 60};
    assert_int_equal(st->enqueue_record(a, t0), 0);
    assert_int_equal(st->enqueue_host(a, set_flag_later, &f), 0);
    assert_int_equal(st->enqueue_record(a, e), 0);
    assert_int_equal(st->enqueue_record(a, t1), 0);
    assert_int_equal(st->enqueue_wait(b, e), 0);
    assert_int_equal(st->enqueue_host(b, check_flag, &f), 0);
    assert_int_equal(st->event_query(e), 0);
    assert_int_equal(st->event_elapsed(t0, t1, &ms), ACL_ERROR_RT_EVENT_NOT_COMPLETE);
    assert_int_equal(st->query(b), 0);
    assert_int_equal(st->synchronize(b, -1, NULL, 0), 0);
    assert_int_equal(atomic_load(&f.seen), 1);
    assert_int_equal(st->event_query(e), 1);
    assert_int_equal(st->event_synchronize(t1, -1), 0);
    assert_int_equal(st->event_elapsed(t0, t1, &ms), 0);
    assert_true(ms >= 50.0f);
    assert_true(ms < 10000.0f);
    /* Not timed → invalid timestamp. */
    assert_int_equal(st->event_elapsed(e, t1, &ms), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);

    /* Event synchronize with a timeout. */
    assert_int_equal(st->enqueue_host(a, sleep_host, (void *)(intptr_t)200), 0);
    assert_int_equal(st->enqueue_record(a, e), 0);
    assert_int_equal(st->event_synchronize(e, 20), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
    assert_int_equal(st->event_synchronize(e, -1), 0);

    /* Reset: complete again, timestamp invalid. */
    assert_int_equal(st->enqueue_reset(a, t1), 0);
    assert_int_equal(st->synchronize(a, -1, NULL, 0), 0);
    assert_int_equal(st->event_query(t1), 1);
    assert_int_equal(st->event_elapsed(t0, t1, &ms), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
    assert_int_equal(st->enqueue_record(a, t1), 0);
    assert_int_equal(st->synchronize(a, -1, NULL, 0), 0);
    assert_int_equal(st->event_elapsed(t0, t1, &ms), 0);

    /* Destroying an event with a record and a wait still queued is safe. */
    cannon_drv_event *tmp = NULL;
    assert_int_equal(st->event_create(dev, CANNON_DRV_EVENT_TIMING, &tmp), 0);
    assert_int_equal(st->enqueue_host(a, sleep_host, (void *)(intptr_t)30), 0);
    assert_int_equal(st->enqueue_record(a, tmp), 0);
    assert_int_equal(st->enqueue_wait(b, tmp), 0);
    assert_int_equal(st->event_destroy(tmp), 0);
    assert_int_equal(st->synchronize(a, -1, NULL, 0), 0);
    assert_int_equal(st->synchronize(b, -1, NULL, 0), 0);

    assert_int_equal(st->event_destroy(e), 0);
    assert_int_equal(st->event_destroy(t0), 0);
    assert_int_equal(st->event_destroy(t1), 0);
    assert_int_equal(st->destroy(a, 0), 0);
    assert_int_equal(st->destroy(b, 0), 0);
    drv->device_close(dev);
    drv->fini();
}

/* ---- errors ---- */

static int failing_kernel(const cannon_kernel_ctx *ctx, void *p)
{
    (void)p;
    return ctx->block_idx == 5 ? 507015 : 0;
}

static int reporting_kernel(const cannon_kernel_ctx *ctx, void *p)
{
    (void)p;
    if (ctx->block_idx == 3) {
        ctx->hooks->report(ctx->stream_priv, 161002, "custom failure in block 3");
        return 161002;
    }
    return 0;
}

static int failing_host(void *p)
{
    (void)p;
    return 107000;
}

static void test_errors(void **state)
{
    (void)state;
    cannon_drv_device *dev = open_dev0();
    cannon_drv_stream *s = NULL;
    assert_int_equal(st->create(dev, 0, &s), 0);
    char msg[256];

    cannon_launch_desc d = {.name = "failing", .fn = failing_kernel, .block_dim = 16};
    assert_int_equal(st->enqueue_launch(s, &d), 0);
    /* Later tasks still run; the first error wins. */
    assert_int_equal(st->enqueue_host(s, failing_host, NULL), 0);
    assert_int_equal(st->synchronize(s, -1, msg, sizeof msg), 507015);
    assert_non_null(strstr(msg, "failing"));
    assert_int_equal(st->synchronize(s, -1, msg, sizeof msg), 0);
    assert_string_equal(msg, "");

    cannon_launch_desc r = {.name = "reporting", .fn = reporting_kernel, .block_dim = 8};
    assert_int_equal(st->enqueue_launch(s, &r), 0);
    assert_int_equal(st->synchronize(s, -1, msg, sizeof msg), 161002);
    assert_string_equal(msg, "custom failure in block 3");
    assert_int_equal(st->synchronize(s, -1, NULL, 0), 0);

    assert_int_equal(st->enqueue_host(s, failing_host, NULL), 0);
    assert_int_equal(st->synchronize(s, -1, msg, sizeof msg), 107000);
    assert_non_null(strstr(msg, "host task"));
    assert_int_equal(st->synchronize(s, -1, msg, sizeof msg), 0);

    /* parallel_for returns the kernel's error, reported message or not. */
    assert_int_equal(drv->device->parallel_for(dev, &d), 507015);
    assert_int_equal(drv->device->parallel_for(dev, &r), 161002);

    assert_int_equal(st->destroy(s, 0), 0);
    drv->device_close(dev);
    drv->fini();
}

static void test_sync_timeout(void **state)
{
    (void)state;
    cannon_drv_device *dev = open_dev0();
    cannon_drv_stream *s = NULL;
    assert_int_equal(st->create(dev, 0, &s), 0);
    assert_int_equal(st->enqueue_host(s, sleep_host, (void *)(intptr_t)200), 0);
    assert_int_equal(st->synchronize(s, 20, NULL, 0), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    assert_int_equal(st->query(s), 0);
    assert_int_equal(st->synchronize(s, -1, NULL, 0), 0);
    assert_int_equal(st->query(s), 1);
    assert_int_equal(st->synchronize(s, 0, NULL, 0), 0);
    assert_int_equal(st->destroy(s, 0), 0);
    drv->device_close(dev);
    drv->fini();
}

/* ---- destruction ---- */

static int count_host(void *p)
{
    atomic_fetch_add((_Atomic int *)p, 1);
    return 0;
}

static void test_destroy_pending(void **state)
{
    (void)state;
    cannon_drv_device *dev = open_dev0();
    cannon_drv_stream *s = NULL;
    _Atomic int count = 0;

    /* destroy(0) runs everything first. */
    assert_int_equal(st->create(dev, 0, &s), 0);
    assert_int_equal(st->enqueue_host(s, sleep_host, (void *)(intptr_t)50), 0);
    for (int i = 0; i < 10; i++)
        assert_int_equal(st->enqueue_host(s, count_host, &count), 0);
    assert_int_equal(st->destroy(s, 0), 0);
    assert_int_equal(atomic_load(&count), 10);

    /* destroy(1) drops what has not started; a record it drops still releases its waiters, and
     * a wait on an event nobody will record does not hang it. */
    atomic_store(&count, 0);
    cannon_drv_stream *other = NULL;
    cannon_drv_event *e = NULL, *never = NULL;
    assert_int_equal(st->create(dev, 0, &s), 0);
    assert_int_equal(st->create(dev, 0, &other), 0);
    assert_int_equal(st->event_create(dev, 0, &e), 0);
    assert_int_equal(st->event_create(dev, 0, &never), 0);
    assert_int_equal(st->enqueue_host(s, sleep_host, (void *)(intptr_t)100), 0);
    for (int i = 0; i < 10; i++)
        assert_int_equal(st->enqueue_host(s, count_host, &count), 0);
    assert_int_equal(st->enqueue_record(s, e), 0);
    assert_int_equal(st->enqueue_wait(other, e), 0);
    assert_int_equal(st->destroy(s, 1), 0);
    assert_int_equal(atomic_load(&count), 0);
    assert_int_equal(st->synchronize(other, 5000, NULL, 0), 0);

    /* A stream stuck waiting on another stream's pending record is force-destroyable. */
    cannon_drv_stream *blocker = NULL;
    assert_int_equal(st->create(dev, 0, &blocker), 0);
    assert_int_equal(st->enqueue_host(blocker, sleep_host, (void *)(intptr_t)300), 0);
    assert_int_equal(st->enqueue_record(blocker, never), 0);
    assert_int_equal(st->enqueue_wait(other, never), 0);
    assert_int_equal(st->enqueue_host(other, count_host, &count), 0);
    sleep_ms(20);
    assert_int_equal(st->destroy(other, 1), 0);
    assert_int_equal(atomic_load(&count), 0);
    assert_int_equal(st->destroy(blocker, 0), 0);

    assert_int_equal(st->event_destroy(e), 0);
    assert_int_equal(st->event_destroy(never), 0);

    /* Closing a device reaps streams and events left on it. */
    assert_int_equal(st->create(dev, 0, &s), 0);
    assert_int_equal(st->event_create(dev, 0, &e), 0);
    assert_int_equal(st->enqueue_record(s, e), 0);
    drv->device_close(dev);
    drv->fini();
}

/* A range whose end wraps the address space, or one that starts in the device's arena and runs
 * past its end, is refused by the copy and fill entry points (the runtime checks allocations; the
 * driver keeps its own arena). */
static void test_copy_ranges(void **state)
{
    (void)state;
    cannon_drv_device *dev = open_dev0();
    const cannon_memory_iface *m = drv->memory;
    void *base;
    size_t size;
    assert_int_equal(m->arena(dev, &base, &size), 0);
    unsigned char host[64] = {0};
    void *top = (void *)(UINTPTR_MAX - 15);
    unsigned char *end = (unsigned char *)base + size;
    assert_int_equal(m->copy(dev, base, top, 64), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(m->copy(dev, top, base, 64), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(m->fill(dev, top, 0, 64), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(m->copy(dev, end - 32, host, 64), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(m->copy(dev, host, end - 32, 64), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(m->fill(dev, end - 32, 0, 64), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(m->fill(dev, base, 0, SIZE_MAX), ACL_ERROR_INVALID_PARAM);
    /* Up to the last byte is fine. */
    assert_int_equal(m->fill(dev, end - 64, 0x5a, 64), 0);
    assert_int_equal(m->copy(dev, host, end - 64, 64), 0);
    assert_int_equal(host[63], 0x5a);

    cannon_drv_stream *s = NULL;
    assert_int_equal(st->create(dev, 0, &s), 0);
    assert_int_equal(st->enqueue_copy(s, base, top, 64), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(st->enqueue_copy(s, end - 32, host, 64), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(st->enqueue_fill(s, top, 0, 64), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(st->enqueue_fill(s, end - 32, 0, 64), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(st->synchronize(s, 5000, NULL, 0), 0);
    assert_int_equal(st->destroy(s, 0), 0);
    drv->device_close(dev);
}

/* A task that destroys its own stream: the executor cannot join itself or free the task it is
 * running, so the stream ends when its thread does (ASan checks that nothing is used after the
 * free, and LeakSanitizer that the stream is freed). */
typedef struct self_destroy {
    cannon_drv_stream *s;
    int force;
    _Atomic int rc;
    _Atomic int after;
} self_destroy;

static int destroy_own_stream(void *p)
{
    self_destroy *d = p;
    atomic_store(&d->rc, st->destroy(d->s, d->force));
    return 0;
}

/* Holds its stream until *p becomes nonzero (bounded, so a failing test cannot hang). */
static int gate_host(void *p)
{
    for (int i = 0; i < 10000 && !atomic_load((_Atomic int *)p); i++)
        sleep_ms(1);
    return 0;
}

static void test_destroy_from_own_task(void **state)
{
    (void)state;
    cannon_drv_device *dev = open_dev0();
    for (int force = 0; force <= 1; force++) {
        self_destroy d = {.force = force};
        atomic_init(&d.rc, -1);
        atomic_init(&d.after, 0);
        _Atomic int open = 0;
        assert_int_equal(st->create(dev, 0, &d.s), 0);
        /* Everything is enqueued before the stream can reach the destroy (after it, the stream
         * pointer is not the test's any more). */
        assert_int_equal(st->enqueue_host(d.s, gate_host, &open), 0);
        assert_int_equal(st->enqueue_host(d.s, destroy_own_stream, &d), 0);
        assert_int_equal(st->enqueue_host(d.s, count_host, &d.after), 0);
        atomic_store(&open, 1);
        /* The stream pointer is not ours any more: wait on the side effects. */
        for (int i = 0; i < 5000 && atomic_load(&d.rc) == -1; i++)
            sleep_ms(1);
        assert_int_equal(atomic_load(&d.rc), 0);
        /* Without force the work queued behind still runs; with force it is dropped. */
        for (int i = 0; i < 5000 && !force && atomic_load(&d.after) == 0; i++)
            sleep_ms(1);
        sleep_ms(20);
        assert_int_equal(atomic_load(&d.after), force ? 0 : 1);
    }
    drv->device_close(dev);
}

/* ---- the loadable module ---- */

/* The module is a second copy of the driver: its state must be independent of the built-in one,
 * and it exports only its entry point. Skipped when the module is not found (it is looked up in
 * $CANNON_DRIVER_PATH, which CTest sets to the build's module directory). */
static void test_module_copy(void **state)
{
    (void)state;
    const char *dir = getenv("CANNON_DRIVER_PATH");
    if (dir == NULL || strchr(dir, ':') != NULL)
        skip();
    char path[4096];
    snprintf(path, sizeof path, "%s/libcannon-driver-cpu.so", dir);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL)
        skip();
    cannon_driver_entry_fn entry = (cannon_driver_entry_fn)dlsym(h, CANNON_DRIVER_ENTRY_SYMBOL);
    assert_non_null(entry);
    assert_null(dlsym(h, "cannon_cpu_driver_iface"));
    assert_null(entry(CANNON_DRIVER_ABI_VERSION + 1));
    const cannon_driver_iface *mod = entry(CANNON_DRIVER_ABI_VERSION);
    assert_non_null(mod);
    assert_ptr_not_equal(mod, drv);

    /* Both copies run at once, each with its own devices, pool and settings. */
    setenv("CANNON_CPU_DEVICES", "2", 1);
    uint32_t n = 0;
    assert_int_equal(mod->init(NULL, &n), 0);
    assert_int_equal(n, 2);
    unsetenv("CANNON_CPU_DEVICES");
    cannon_drv_device *mdev = NULL;
    assert_int_equal(mod->device_open(1, &mdev), 0);
    cannon_drv_device *dev = open_dev0();
    cannon_drv_stream *ms = NULL, *s = NULL;
    assert_int_equal(mod->stream->create(mdev, 0, &ms), 0);
    assert_int_equal(st->create(dev, 0, &s), 0);
    _Atomic uint32_t slots[2][64] = {{0}};
    _Atomic uint32_t bad = 0;
    count_args a0 = {.slots = slots[0], .bad_ctx = &bad, .expect_dim = 64};
    count_args a1 = {.slots = slots[1], .bad_ctx = &bad, .expect_dim = 64};
    cannon_launch_desc d0 = {.name = "c0", .fn = count_kernel, .args = &a0, .block_dim = 64};
    cannon_launch_desc d1 = {.name = "c1", .fn = count_kernel, .args = &a1, .block_dim = 64};
    for (int i = 0; i < 20; i++) {
        assert_int_equal(st->enqueue_launch(s, &d0), 0);
        assert_int_equal(mod->stream->enqueue_launch(ms, &d1), 0);
    }
    assert_int_equal(st->synchronize(s, -1, NULL, 0), 0);
    assert_int_equal(mod->stream->synchronize(ms, -1, NULL, 0), 0);
    for (int b = 0; b < 64; b++) {
        assert_int_equal(atomic_load(&slots[0][b]), 20);
        assert_int_equal(atomic_load(&slots[1][b]), 20);
    }
    assert_int_equal(atomic_load(&bad), 0);
    assert_int_equal(mod->stream->destroy(ms, 0), 0);
    assert_int_equal(st->destroy(s, 0), 0);
    mod->device_close(mdev);
    mod->fini();
    drv->device_close(dev);
    drv->fini();
    dlclose(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test_setup_teardown(test_device_count_env, NULL, teardown),
        cmocka_unit_test_setup_teardown(test_arena, NULL, teardown),
        cmocka_unit_test_setup_teardown(test_copy_fill, NULL, teardown),
        cmocka_unit_test_setup_teardown(test_launch_blocks, NULL, teardown),
        cmocka_unit_test_setup_teardown(test_stream_order, NULL, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_streams, NULL, teardown),
        cmocka_unit_test_setup_teardown(test_events, NULL, teardown),
        cmocka_unit_test_setup_teardown(test_errors, NULL, teardown),
        cmocka_unit_test_setup_teardown(test_sync_timeout, NULL, teardown),
        cmocka_unit_test_setup_teardown(test_destroy_pending, NULL, teardown),
        cmocka_unit_test_setup_teardown(test_copy_ranges, NULL, teardown),
        cmocka_unit_test_setup_teardown(test_destroy_from_own_task, NULL, teardown),
        cmocka_unit_test_setup_teardown(test_module_copy, NULL, teardown),
    };
    if (getenv("CANNON_TEST_FILTER"))
        cmocka_set_test_filter(getenv("CANNON_TEST_FILTER"));
    return cmocka_run_group_tests(tests, setup, NULL);
}
