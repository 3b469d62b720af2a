/* Runtime API tests: device and host allocations, pointer checks, copies (sync, async, 2-D) and
 * fills, out-of-memory behaviour and the allocator cache. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_util.h"

static int group_setup(void **state)
{
    (void)state;
    unsetenv("CANNON_CPU_DEVICE_MEMORY");
    return 0;
}

static int setup_dev(void **state)
{
    if (rt_setup(state) != 0)
        return -1;
    return aclrtSetDevice(0) == ACL_SUCCESS ? 0 : -1;
}

static void fill_pattern(uint8_t *p, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)((i * 2654435761u + seed) >> 13);
}

static bool check_pattern(const uint8_t *p, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (uint8_t)((i * 2654435761u + seed) >> 13))
            return false;
    return true;
}

/* ---------------------------------------------------------------------------------------------- */
/* Allocation                                                                                      */
/* ---------------------------------------------------------------------------------------------- */

static void test_malloc_policies(void **state)
{
    (void)state;
    const aclrtMemMallocPolicy policies[] = {
        ACL_MEM_MALLOC_HUGE_FIRST,     ACL_MEM_MALLOC_HUGE_ONLY,     ACL_MEM_MALLOC_NORMAL_ONLY,
        ACL_MEM_MALLOC_HUGE_FIRST_P2P, ACL_MEM_MALLOC_HUGE_ONLY_P2P, ACL_MEM_MALLOC_NORMAL_ONLY_P2P,
        ACL_MEM_MALLOC_HUGE1G_ONLY,    ACL_MEM_MALLOC_HUGE1G_ONLY_P2P, ACL_MEM_TYPE_LOW_BAND_WIDTH,
        ACL_MEM_TYPE_HIGH_BAND_WIDTH,
    };
    const size_t sizes[] = {1, 63, 100, 4096, 65537, (size_t)3 << 20};
    uint8_t *host = malloc((size_t)3 << 20), *back = malloc((size_t)3 << 20);
    assert_non_null(host);
    assert_non_null(back);
    for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++) {
        void *ptrs[sizeof(sizes) / sizeof(sizes[0])];
        for (size_t j = 0; j < sizeof(sizes) / sizeof(sizes[0]); j++) {
            void *p = NULL;
            RT_OK(aclrtMalloc(&p, sizes[j], policies[i]));
            assert_non_null(p);
            assert_int_equal((uintptr_t)p % 64, 0);
            assert_ptr_equal(cn_device_of_ptr(p), &g_rt.devices[0]);
            fill_pattern(host, sizes[j], (uint32_t)(i * 31 + j));
            RT_OK(aclrtMemcpy(p, sizes[j], host, sizes[j], ACL_MEMCPY_HOST_TO_DEVICE));
            ptrs[j] = p;
        }
        for (size_t j = 0; j < sizeof(sizes) / sizeof(sizes[0]); j++) {
            memset(back, 0, sizes[j]);
            RT_OK(aclrtMemcpy(back, sizes[j], ptrs[j], sizes[j], ACL_MEMCPY_DEVICE_TO_HOST));
            assert_true(check_pattern(back, sizes[j], (uint32_t)(i * 31 + j)));
            RT_OK(aclrtFree(ptrs[j]));
        }
    }
    /* The other allocation entry points. */
    void *a = NULL, *c = NULL;
    RT_OK(aclrtMallocAlign32(&a, 1000, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_OK(aclrtMallocCached(&c, 1000, ACL_MEM_MALLOC_NORMAL_ONLY));
    assert_int_equal((uintptr_t)a % 64, 0);
    assert_int_equal((uintptr_t)c % 64, 0);
    assert_ptr_not_equal(a, c);
    RT_OK(aclrtFree(a));
    RT_OK(aclrtFreeWithDevSync(c));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtFreeWithDevSync(NULL));
    free(host);
    free(back);
}

static void *thread_malloc_no_device(void *arg)
{
    aclError *rc = arg;
    void *p = NULL;
    *rc = aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST);
    return NULL;
}

static void test_malloc_errors(void **state)
{
    (void)state;
    void *p = (void *)0x1;
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMalloc(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMallocAlign32(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMallocCached(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMalloc(&p, 64, (aclrtMemMallocPolicy)-1));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMallocHost(NULL, 64));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMallocHost(&p, 0));
    assert_ptr_equal(p, (void *)0x1);
    aclError rc = -1;
    rt_thread_join(rt_thread_start(thread_malloc_no_device, &rc));
    assert_int_equal(rc, ACL_ERROR_RT_CONTEXT_NULL);
}

static void test_out_of_memory(void **state)
{
    (void)state;
    RT_OK(aclFinalize());
    setenv("CANNON_CPU_DEVICE_MEMORY", "64M", 1);
    RT_OK(aclInit(NULL));
    RT_OK(aclrtSetDevice(0));
    size_t f = 0, t = 0;
    RT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &f, &t));
    assert_int_equal(t, (size_t)64 << 20);
    void *p = NULL;
    (void)aclGetRecentErrMsg();
    RT_EXPECT(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtMalloc(&p, (size_t)80 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
    assert_null(p);
    const char *m = aclGetRecentErrMsg();
    assert_true(rt_contains(m, "out of memory"));
    assert_true(rt_contains(m, "aclrtMalloc"));
    /* Smaller allocations still succeed, until the capacity is really used up. */
    void *q[3] = {NULL};
    for (int i = 0; i < 3; i++) {
        RT_OK(aclrtMalloc(&q[i], (size_t)16 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
        RT_OK(aclrtMemset(q[i], (size_t)16 << 20, i + 1, (size_t)16 << 20));
    }
    RT_EXPECT(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtMalloc(&p, (size_t)32 << 20, ACL_MEM_MALLOC_NORMAL_ONLY));
    for (int i = 0; i < 3; i++)
        RT_OK(aclrtFree(q[i]));
    /* After freeing, a large block fits again (the cache is given back when needed). */
    RT_OK(aclrtMalloc(&p, (size_t)48 << 20, ACL_MEM_MALLOC_NORMAL_ONLY));
    RT_OK(aclrtFree(p));
    RT_OK(aclrtResetDevice(0));
    RT_OK(aclFinalize());
    unsetenv("CANNON_CPU_DEVICE_MEMORY");
    RT_OK(aclInit(NULL));
}

static void test_free_errors(void **state)
{
    (void)state;
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtFree(NULL));
    void *d = NULL;
    RT_OK(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    /* Interior pointer. */
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtFree((char *)d + 64));
    assert_true(rt_contains(aclGetRecentErrMsg(), "inside"));
    /* Plain host memory. */
    char *h = malloc(256);
    assert_non_null(h);
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtFree(h));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtFreeHost(h));
    free(h);
    int local = 0;
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtFree(&local));
    /* Pinned host memory is not device memory, and vice versa. */
    void *pinned = NULL;
    RT_OK(aclrtMallocHost(&pinned, 1000));
    assert_non_null(pinned);
    assert_int_equal((uintptr_t)pinned % 64, 0);
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtFree(pinned));
    assert_true(rt_contains(aclGetRecentErrMsg(), "aclrtFreeHost"));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtFreeHost(d));
    assert_true(rt_contains(aclGetRecentErrMsg(), "device memory"));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtFreeHost(NULL));
    /* Both still live and usable. */
    memset(pinned, 0x5A, 1000);
    RT_OK(aclrtMemcpy(d, 4096, pinned, 1000, ACL_MEMCPY_HOST_TO_DEVICE));
    RT_OK(aclrtFreeHost(pinned));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtFreeHost(pinned)); /* double */
    RT_OK(aclrtFree(d));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtFree(d)); /* double */
    assert_true(rt_contains(aclGetRecentErrMsg(), "double free"));
}

/* ---------------------------------------------------------------------------------------------- */
/* Copies                                                                                          */
/* ---------------------------------------------------------------------------------------------- */

static void test_memcpy_kinds(void **state)
{
    (void)state;
    enum { N = 10000 };
    uint8_t *h1 = malloc(N), *h2 = malloc(N);
    assert_non_null(h1);
    assert_non_null(h2);
    void *d1 = NULL, *d2 = NULL, *pin = NULL;
    RT_OK(aclrtMalloc(&d1, N, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_OK(aclrtMalloc(&d2, N, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_OK(aclrtMallocHost(&pin, N));

    /* HOST_TO_HOST */
    fill_pattern(h1, N, 1);
    memset(h2, 0, N);
    RT_OK(aclrtMemcpy(h2, N, h1, N, ACL_MEMCPY_HOST_TO_HOST));
    assert_true(check_pattern(h2, N, 1));
    /* HOST_TO_DEVICE, DEVICE_TO_DEVICE, DEVICE_TO_HOST */
    fill_pattern(h1, N, 2);
    RT_OK(aclrtMemcpy(d1, N, h1, N, ACL_MEMCPY_HOST_TO_DEVICE));
    RT_OK(aclrtMemcpy(d2, N, d1, N, ACL_MEMCPY_DEVICE_TO_DEVICE));
    memset(h2, 0, N);
    RT_OK(aclrtMemcpy(h2, N, d2, N, ACL_MEMCPY_DEVICE_TO_HOST));
    assert_true(check_pattern(h2, N, 2));
    /* HOST_TO_BUF_TO_DEVICE behaves as HOST_TO_DEVICE. */
    fill_pattern(h1, N, 3);
    RT_OK(aclrtMemcpy(d1, N, h1, N, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE));
    RT_OK(aclrtMemcpy(h2, N, d1, N, ACL_MEMCPY_DEVICE_TO_HOST));
    assert_true(check_pattern(h2, N, 3));
    /* Pinned host memory on the host side. */
    fill_pattern(pin, N, 4);
    RT_OK(aclrtMemcpy(d2, N, pin, N, ACL_MEMCPY_HOST_TO_DEVICE));
    memset(pin, 0, N);
    RT_OK(aclrtMemcpy(pin, N, d2, N, ACL_MEMCPY_DEVICE_TO_HOST));
    assert_true(check_pattern(pin, N, 4));
    /* ACL_MEMCPY_DEFAULT infers every direction. */
    fill_pattern(h1, N, 5);
    RT_OK(aclrtMemcpy(d1, N, h1, N, ACL_MEMCPY_DEFAULT));
    RT_OK(aclrtMemcpy(d2, N, d1, N, ACL_MEMCPY_DEFAULT));
    memset(h2, 0, N);
    RT_OK(aclrtMemcpy(h2, N, d2, N, ACL_MEMCPY_DEFAULT));
    assert_true(check_pattern(h2, N, 5));
    memset(h1, 0, N);
    RT_OK(aclrtMemcpy(h1, N, h2, N, ACL_MEMCPY_DEFAULT));
    assert_true(check_pattern(h1, N, 5));
    /* Partial copies at offsets, within destMax. */
    memset(h2, 0xEE, N);
    RT_OK(aclrtMemcpy((uint8_t *)d1 + 100, N - 100, h2, 500, ACL_MEMCPY_HOST_TO_DEVICE));
    RT_OK(aclrtMemcpy(h1, N, d1, N, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < N; i++) {
        uint8_t want = (i >= 100 && i < 600) ? 0xEE : (uint8_t)((i * 2654435761u + 5) >> 13);
        assert_int_equal(h1[i], want);
    }
    /* A device allocation on another device: DEVICE_TO_DEVICE across devices needs peer access
     * enabled in both directions. */
    RT_OK(aclrtSetDevice(1));
    void *d3 = NULL;
    RT_OK(aclrtMalloc(&d3, N, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(d3, N, d2, N, ACL_MEMCPY_DEVICE_TO_DEVICE));
    RT_OK(aclrtDeviceEnablePeerAccess(0, 0));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(d3, N, d2, N, ACL_MEMCPY_DEVICE_TO_DEVICE));
    RT_OK(aclrtSetDevice(0));
    RT_OK(aclrtDeviceEnablePeerAccess(1, 0));
    RT_OK(aclrtSetDevice(1));
    RT_OK(aclrtMemcpy(d3, N, d2, N, ACL_MEMCPY_DEVICE_TO_DEVICE));
    memset(h2, 0, N);
    RT_OK(aclrtMemcpy(h2, N, d3, N, ACL_MEMCPY_DEVICE_TO_HOST));
    assert_true(check_pattern(h2, N, 5));
    RT_OK(aclrtFree(d3));
    RT_OK(aclrtResetDevice(1));

    RT_OK(aclrtFree(d1));
    RT_OK(aclrtFree(d2));
    RT_OK(aclrtFreeHost(pin));
    free(h1);
    free(h2);
}

static void test_memcpy_errors(void **state)
{
    (void)state;
    /* A multiple of 64: bounds are checked at the allocator's 64-byte granularity. */
    enum { N = 1024 };
    uint8_t host[N], host2[N];
    memset(host, 1, N);
    void *d = NULL, *d2 = NULL;
    RT_OK(aclrtMalloc(&d, N, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_OK(aclrtMalloc(&d2, N, ACL_MEM_MALLOC_HUGE_FIRST));

    /* count 0 is a no-op, whatever the pointers. */
    RT_OK(aclrtMemcpy(NULL, 0, NULL, 0, ACL_MEMCPY_HOST_TO_DEVICE));
    RT_OK(aclrtMemcpy(d, N, host, 0, ACL_MEMCPY_HOST_TO_DEVICE));
    /* count > destMax */
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(d, N - 1, host, N, ACL_MEMCPY_HOST_TO_DEVICE));
    /* NULL pointers */
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(NULL, N, host, N, ACL_MEMCPY_HOST_TO_DEVICE));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(d, N, NULL, N, ACL_MEMCPY_HOST_TO_DEVICE));
    /* Kinds this API does not take */
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(d2, N, d, N, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(d2, N, d, N, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(d2, N, d, N, (aclrtMemcpyKind)99));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(d2, N, d, N, (aclrtMemcpyKind)-1));
    /* Pointers on the wrong side of the kind */
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(host2, N, host, N, ACL_MEMCPY_HOST_TO_DEVICE));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(d, N, d2, N, ACL_MEMCPY_HOST_TO_DEVICE));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(host2, N, host, N, ACL_MEMCPY_DEVICE_TO_HOST));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(d2, N, d, N, ACL_MEMCPY_DEVICE_TO_HOST));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(host2, N, d, N, ACL_MEMCPY_DEVICE_TO_DEVICE));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(d2, N, host, N, ACL_MEMCPY_DEVICE_TO_DEVICE));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(d2, N, host, N, ACL_MEMCPY_HOST_TO_HOST));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(host2, N, d, N, ACL_MEMCPY_HOST_TO_HOST));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(host2, N, host, N, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE));
    /* A range running past the end of a device allocation */
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID,
              aclrtMemcpy((uint8_t *)d + 500, N, host, N - 499, ACL_MEMCPY_HOST_TO_DEVICE));
    assert_true(rt_contains(aclGetRecentErrMsg(), "past the end"));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID,
              aclrtMemcpy(host2, N, (uint8_t *)d + 1, N, ACL_MEMCPY_DEVICE_TO_HOST));
    /* ... but exactly to the end is fine. */
    RT_OK(aclrtMemcpy((uint8_t *)d + 500, N - 500, host, N - 500, ACL_MEMCPY_HOST_TO_DEVICE));
    /* Freed device memory */
    RT_OK(aclrtFree(d2));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(d2, N, host, N, ACL_MEMCPY_HOST_TO_DEVICE));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(host2, N, d2, N, ACL_MEMCPY_DEVICE_TO_HOST));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(d2, N, host, N, ACL_MEMCPY_DEFAULT));
    RT_OK(aclrtFree(d));
}

static void test_memcpy_async_pinned(void **state)
{
    (void)state;
    enum { N = 1 << 16 };
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    void *pin_src = NULL, *pin_dst = NULL, *d = NULL;
    RT_OK(aclrtMallocHost(&pin_src, N));
    RT_OK(aclrtMallocHost(&pin_dst, N));
    RT_OK(aclrtMalloc(&d, N, ACL_MEM_MALLOC_HUGE_FIRST));
    fill_pattern(pin_src, N, 11);
    memset(pin_dst, 0, N);

    /* With pinned memory the call does not wait for the stream: it returns while the gate task
     * still blocks the stream (were it to wait, the gate would time out after 10 s and the query
     * below would see a completed stream). */
    rt_gate g;
    rt_gate_init(&g);
    RT_OK(cannonLaunchHostTask(s, rt_task_gate, &g));
    RT_OK(aclrtMemcpyAsync(d, N, pin_src, N, ACL_MEMCPY_HOST_TO_DEVICE, s));
    RT_OK(aclrtMemcpyAsync(pin_dst, N, d, N, ACL_MEMCPY_DEVICE_TO_HOST, s));
    aclrtStreamStatus st = ACL_STREAM_STATUS_COMPLETE;
    RT_OK(aclrtStreamQuery(s, &st));
    assert_int_equal(st, ACL_STREAM_STATUS_NOT_READY);
    assert_int_equal(atomic_load(&g.open), 0);
    rt_gate_open(&g);
    RT_OK(aclrtSynchronizeStream(s));
    assert_true(check_pattern(pin_dst, N, 11));

    /* D2D async and a zero-length one. */
    void *d2 = NULL;
    RT_OK(aclrtMalloc(&d2, N, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_OK(aclrtMemcpyAsync(d2, N, d, N, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    RT_OK(aclrtMemcpyAsync(d2, N, d, 0, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    RT_OK(aclrtSynchronizeStream(s)); /* streams are not ordered with each other */
    memset(pin_dst, 0, N);
    RT_OK(aclrtMemcpyAsync(pin_dst, N, d2, N, ACL_MEMCPY_DEVICE_TO_HOST, NULL)); /* default stream */
    RT_OK(aclrtSynchronizeStream(NULL));
    assert_true(check_pattern(pin_dst, N, 11));

    /* Same checks as the synchronous copy. */
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsync(d, N - 1, pin_src, N, ACL_MEMCPY_HOST_TO_DEVICE, s));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemcpyAsync(NULL, N, pin_src, N, ACL_MEMCPY_HOST_TO_DEVICE, s));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemcpyAsync(d, N, pin_src, N, (aclrtMemcpyKind)7, s));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsync(pin_dst, N, pin_src, N, ACL_MEMCPY_DEVICE_TO_HOST, s));
    int local = 0;
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemcpyAsync(d, N, pin_src, N, ACL_MEMCPY_HOST_TO_DEVICE, &local));

    RT_OK(aclrtFree(d));
    RT_OK(aclrtFree(d2));
    RT_OK(aclrtFreeHost(pin_src));
    RT_OK(aclrtFreeHost(pin_dst));
    RT_OK(aclrtDestroyStream(s));
}

static void test_memcpy_async_pageable(void **state)
{
    (void)state;
    enum { N = 1 << 16 };
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    uint8_t *src = malloc(N), *dst = malloc(N);
    assert_non_null(src);
    assert_non_null(dst);
    void *d = NULL;
    RT_OK(aclrtMalloc(&d, N, ACL_MEM_MALLOC_HUGE_FIRST));
    fill_pattern(src, N, 21);
    RT_OK(cannonLaunchHostTask(s, rt_task_sleep, (void *)(uintptr_t)50));
    RT_OK(aclrtMemcpyAsync(d, N, src, N, ACL_MEMCPY_HOST_TO_DEVICE, s));
    /* The source buffer may be reused at once. */
    memset(src, 0, N);
    memset(dst, 0, N);
    RT_OK(cannonLaunchHostTask(s, rt_task_sleep, (void *)(uintptr_t)50));
    RT_OK(aclrtMemcpyAsync(dst, N, d, N, ACL_MEMCPY_DEVICE_TO_HOST, s));
    /* No synchronisation: the data is already there. */
    assert_true(check_pattern(dst, N, 21));
    RT_OK(aclrtSynchronizeStream(s));
    RT_OK(aclrtFree(d));
    free(src);
    free(dst);
    RT_OK(aclrtDestroyStream(s));
}

/* ---------------------------------------------------------------------------------------------- */
/* Fills                                                                                           */
/* ---------------------------------------------------------------------------------------------- */

static void test_memset(void **state)
{
    (void)state;
    enum { N = 5056 }; /* a multiple of 64, see test_memcpy_errors */
    uint8_t back[N];
    void *d = NULL, *pin = NULL;
    RT_OK(aclrtMalloc(&d, N, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_OK(aclrtMallocHost(&pin, N));
    RT_OK(aclrtMemset(d, N, 0x1AB, N)); /* (uint8_t)value */
    RT_OK(aclrtMemcpy(back, N, d, N, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < N; i++)
        assert_int_equal(back[i], 0xAB);
    RT_OK(aclrtMemset((uint8_t *)d + 10, N - 10, 0, 100));
    RT_OK(aclrtMemcpy(back, N, d, N, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < N; i++)
        assert_int_equal(back[i], (i >= 10 && i < 110) ? 0 : 0xAB);
    RT_OK(aclrtMemset(d, N, 7, 0)); /* count 0 */
    /* Pinned host memory may be filled too. */
    RT_OK(aclrtMemset(pin, N, 0x42, N));
    for (int i = 0; i < N; i++)
        assert_int_equal(((uint8_t *)pin)[i], 0x42);

    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemset(d, N - 1, 0, N));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemset(NULL, N, 0, N));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemset(back, N, 0, N)); /* plain host memory */
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemset((uint8_t *)d + 1, N, 0, N)); /* past the end */

    /* Async. */
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    RT_OK(cannonLaunchHostTask(s, rt_task_sleep, (void *)(uintptr_t)20));
    RT_OK(aclrtMemsetAsync(d, N, 0x33, N, s));
    RT_OK(aclrtMemsetAsync(d, N, 0x44, N / 2, s));
    RT_OK(aclrtSynchronizeStream(s));
    RT_OK(aclrtMemcpy(back, N, d, N, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < N; i++)
        assert_int_equal(back[i], i < N / 2 ? 0x44 : 0x33);
    RT_OK(aclrtMemsetAsync(d, N, 0x55, N, NULL));
    RT_OK(aclrtSynchronizeStream(NULL));
    RT_OK(aclrtMemcpy(back, N, d, N, ACL_MEMCPY_DEVICE_TO_HOST));
    assert_int_equal(back[0], 0x55);
    assert_int_equal(back[N - 1], 0x55);
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemsetAsync(d, N - 1, 0, N, s));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemsetAsync(back, N, 0, N, s));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemsetAsync(NULL, N, 0, N, s));
    RT_OK(aclrtDestroyStream(s));
    RT_OK(aclrtFree(d));
    RT_OK(aclrtFreeHost(pin));
}

/* ---------------------------------------------------------------------------------------------- */
/* 2-D copies, large copies, the cache                                                             */
/* ---------------------------------------------------------------------------------------------- */

static void test_memcpy2d(void **state)
{
    (void)state;
    enum { W = 40, H = 10, SP = 48, DP = 64, BP = 40 };
    uint8_t src[SP * (H + 1)], back[BP * H];
    for (int i = 0; i < SP * (H + 1); i++)
        src[i] = (uint8_t)(i * 7 + 1);
    void *d = NULL;
    RT_OK(aclrtMalloc(&d, DP * H, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_OK(aclrtMemset(d, DP * H, 0xFF, DP * H));
    RT_OK(aclrtMemcpy2d(d, DP, src, SP, W, H, ACL_MEMCPY_HOST_TO_DEVICE));
    memset(back, 0, sizeof(back));
    RT_OK(aclrtMemcpy2d(back, BP, d, DP, W, H, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int r = 0; r < H; r++)
        for (int c = 0; c < W; c++)
            assert_int_equal(back[r * BP + c], src[r * SP + c]);
    /* The pitch padding of the device buffer was left alone. */
    uint8_t whole[DP * H];
    RT_OK(aclrtMemcpy(whole, sizeof(whole), d, DP * H, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int r = 0; r < H; r++)
        for (int c = W; c < DP; c++)
            assert_int_equal(whole[r * DP + c], 0xFF);

    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy2d(d, 32, src, SP, W, H, ACL_MEMCPY_HOST_TO_DEVICE));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy2d(d, DP, src, 32, W, H, ACL_MEMCPY_HOST_TO_DEVICE));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(NULL, DP, src, SP, W, H, ACL_MEMCPY_HOST_TO_DEVICE));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(d, DP, NULL, SP, W, H, ACL_MEMCPY_HOST_TO_DEVICE));
    /* One row too many for the device allocation. */
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy2d(d, DP, src, SP, W, H + 1, ACL_MEMCPY_HOST_TO_DEVICE));
    /* Wrong side. */
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy2d(back, BP, src, SP, W, H, ACL_MEMCPY_HOST_TO_DEVICE));
    RT_OK(aclrtMemcpy2d(d, DP, src, SP, W, 0, ACL_MEMCPY_HOST_TO_DEVICE)); /* nothing to do */
    RT_OK(aclrtFree(d));
}

static void test_large_d2d(void **state)
{
    (void)state;
    const size_t n = (size_t)64 << 20;
    uint32_t *h = malloc(n);
    assert_non_null(h);
    for (size_t i = 0; i < n / 4; i++)
        h[i] = (uint32_t)(i * 2654435761u) ^ 0xA5A5A5A5u;
    void *a = NULL, *b = NULL;
    RT_OK(aclrtMalloc(&a, n, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_OK(aclrtMalloc(&b, n, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_OK(aclrtMemcpy(a, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE));
    RT_OK(aclrtMemcpy(b, n, a, n, ACL_MEMCPY_DEVICE_TO_DEVICE));
    memset(h, 0, n);
    RT_OK(aclrtMemcpy(h, n, b, n, ACL_MEMCPY_DEVICE_TO_HOST));
    size_t bad = 0;
    for (size_t i = 0; i < n / 4; i++)
        bad += h[i] != ((uint32_t)(i * 2654435761u) ^ 0xA5A5A5A5u);
    assert_int_equal(bad, 0);
    /* And asynchronously, at an odd offset and length. */
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    RT_OK(aclrtMemsetAsync(b, n, 0, n, s));
    RT_OK(aclrtMemcpyAsync((uint8_t *)b + 3, n - 3, (uint8_t *)a + 5, n - 8, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    RT_OK(aclrtSynchronizeStream(s));
    uint8_t *hb = (uint8_t *)h;
    RT_OK(aclrtMemcpy(hb, n, b, n, ACL_MEMCPY_DEVICE_TO_HOST));
    uint8_t *ha = malloc(n);
    assert_non_null(ha);
    RT_OK(aclrtMemcpy(ha, n, a, n, ACL_MEMCPY_DEVICE_TO_HOST));
    assert_int_equal(hb[0], 0);
    assert_int_equal(hb[2], 0);
    assert_int_equal(memcmp(hb + 3, ha + 5, n - 8), 0);
    assert_int_equal(hb[n - 5], 0);
    assert_int_equal(hb[n - 1], 0);
    free(ha);
    RT_OK(aclrtDestroyStream(s));
    RT_OK(aclrtFree(a));
    RT_OK(aclrtFree(b));
    free(h);
}

static void test_malloc_free_cache(void **state)
{
    (void)state;
    const size_t sizes[] = {64, 256, 1000, 4096, 65536, (size_t)2 << 20};
    const size_t ns = sizeof(sizes) / sizeof(sizes[0]);
    size_t f0 = 0, t0 = 0;
    /* Warm up every size class once. */
    for (size_t i = 0; i < ns; i++) {
        void *p = NULL;
        RT_OK(aclrtMalloc(&p, sizes[i], ACL_MEM_MALLOC_HUGE_FIRST));
        RT_OK(aclrtFree(p));
    }
    RT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &f0, &t0));
    cn_devalloc_stats st0;
    cn_devalloc_get_stats(g_rt.devices[0].alloc, &st0);
    for (int i = 0; i < 10000; i++) {
        void *p = NULL;
        RT_OK(aclrtMalloc(&p, sizes[i % ns], ACL_MEM_MALLOC_HUGE_FIRST));
        RT_OK(aclrtFree(p));
    }
    size_t f1 = 0, t1 = 0;
    RT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &f1, &t1));
    assert_int_equal(f1, f0);
    assert_int_equal(t1, t0);
    cn_devalloc_stats st1;
    cn_devalloc_get_stats(g_rt.devices[0].alloc, &st1);
    assert_int_equal(st1.live_count, 0);
    assert_int_equal(st1.live_bytes, 0);
    assert_true(st1.reserved_bytes <= st0.reserved_bytes); /* served from the cache */
}

static void test_mem_is_device(void **state)
{
    (void)state;
    void *p = NULL;
    RT_OK(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    char host[64];
    (void)aclGetRecentErrMsg();
    assert_int_equal(cannonMemIsDevice(p), 1);
    assert_int_equal(cannonMemIsDevice((char *)p + 4095), 1);
    assert_int_equal(cannonMemIsDevice(host), 0);
    assert_int_equal(cannonMemIsDevice(NULL), 0);
    /* A pure query: a host pointer is an answer, not an error. */
    const char *m = aclGetRecentErrMsg();
    assert_true(m == NULL || m[0] == '\0');
    cannon_mem_share_info si;
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, cannonMemGetShareInfo(host, &si));
    RT_OK(aclrtFree(p));
    assert_int_equal(cannonMemIsDevice(p), 0);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup_dev, rt_teardown)
    const struct CMUnitTest tests[] = {
        T(test_malloc_policies),
        T(test_malloc_errors),
        T(test_out_of_memory),
        T(test_free_errors),
        T(test_memcpy_kinds),
        T(test_memcpy_errors),
        T(test_memcpy_async_pinned),
        T(test_memcpy_async_pageable),
        T(test_memset),
        T(test_memcpy2d),
        T(test_large_d2d),
        T(test_malloc_free_cache),
        T(test_mem_is_device),
    };
#undef T
    return cmocka_run_group_tests(tests, group_setup, NULL);
}
