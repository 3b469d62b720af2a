/* Runtime API tests: virtual memory management (aclrtMemGetAllocationGranularity,
 * aclrtReserveMemAddress, aclrtReleaseMemAddress, aclrtMallocPhysical, aclrtFreePhysical,
 * aclrtMapMem, aclrtUnmapMem): argument checks with CANN's codes, mapped ranges as device memory
 * for copies, fills, kernels and the pointer queries, memory accounting, ggml's pool pattern and
 * teardown after a device reset. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_util.h"

#define MIB ((size_t)1 << 20)
#define G (2 * MIB)

static aclrtPhysicalMemProp dev_prop(uint32_t dev)
{
    aclrtPhysicalMemProp p;
    memset(&p, 0, sizeof(p));
    p.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    p.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    p.memAttr = ACL_HBM_MEM_HUGE;
    p.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = dev;
    p.reserve = 0;
    return p;
}

static int setup_dev(void **state)
{
    if (rt_setup(state) != 0)
        return -1;
    return aclrtSetDevice(0) == ACL_SUCCESS ? 0 : -1;
}

static void test_granularity(void **state)
{
    (void)state;
    aclrtPhysicalMemProp p = dev_prop(0);
    size_t g = 0;
    /* Needs no current device (ggml probes before setting one). */
    RT_OK(aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED, &g));
    assert_int_equal(g, G);
    g = 0;
    RT_OK(aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    assert_int_equal(g, G);
    p.memAttr = ACL_MEM_NORMAL;
    RT_OK(aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    /* Bad input. */
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemGetAllocationGranularity(NULL, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, NULL));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID,
              aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF, &g));
    p = dev_prop(0);
    p.memAttr = ACL_HBM_MEM; /* not a physical memory attribute */
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    assert_true(rt_contains(aclGetRecentErrMsg(), "memAttr"));
    p.memAttr = ACL_DDR_MEM_HUGE; /* host memory on a device location */
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    p = dev_prop(0);
    p.location.type = ACL_MEM_LOCATION_TYPE_MANAGED;
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    p.location.type = ACL_MEM_LOCATION_TYPE_HOST;
    RT_EXPECT(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
              aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    p = dev_prop(0);
    p.memAttr = ACL_HBM_MEM_HUGE1G;
    RT_EXPECT(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
              aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    p = dev_prop(1000);
    RT_EXPECT(ACL_ERROR_RT_INVALID_DEVICEID,
              aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
}

static void test_reserve_release(void **state)
{
    (void)state;
    void *va = NULL;
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddress(NULL, G, 0, NULL, 0));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddress(&va, 0, 0, NULL, 0));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddress(&va, G, 0, NULL, 2));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtReserveMemAddress(&va, G, 4096, NULL, 0));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtReserveMemAddress(&va, G, 0, (void *)(uintptr_t)0x1000, 0));
    /* Any size; addresses are granule-aligned. */
    RT_OK(aclrtReserveMemAddress(&va, 12345, 0, NULL, 1));
    assert_non_null(va);
    assert_int_equal((uintptr_t)va % G, 0);
    void *vb = NULL;
    RT_OK(aclrtReserveMemAddress(&vb, (size_t)1 << 34, 0, NULL, 0)); /* 16 GiB: address space only */
    assert_true(vb != va);
    /* Releasing: the start only, once. */
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtReleaseMemAddress(NULL));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtReleaseMemAddress((char *)vb + G));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtReleaseMemAddress(&va));
    RT_OK(aclrtReleaseMemAddress(vb));
    RT_OK(aclrtReleaseMemAddress(va));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtReleaseMemAddress(va));
    /* A wanted address: given back when free, refused when taken. */
    void *want = NULL;
    RT_OK(aclrtReserveMemAddress(&want, (size_t)4 << 30, 0, NULL, 0));
    void *at = (void *)(((uintptr_t)want + ((size_t)1 << 30) - 1) & ~(((uintptr_t)1 << 30) - 1));
    void *got = NULL;
    RT_EXPECT(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtReserveMemAddress(&got, G, 0, at, 0));
    RT_OK(aclrtReleaseMemAddress(want));
    RT_OK(aclrtReserveMemAddress(&got, G, 0, at, 0));
    assert_ptr_equal(got, at);
    RT_OK(aclrtReleaseMemAddress(got));
}

static void test_physical_errors(void **state)
{
    (void)state;
    aclrtPhysicalMemProp p = dev_prop(0);
    aclrtDrvMemHandle h = NULL;
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(NULL, G, &p, 0));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, G, NULL, 0));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, 0, &p, 0));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, G, &p, 1));
    p.handleType = ACL_MEM_HANDLE_TYPE_POSIX;
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, G, &p, 0));
    p = dev_prop(0);
    p.allocationType = (aclrtMemAllocationType)1;
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, G, &p, 0));
    p = dev_prop(0);
    p.memAttr = (aclrtMemAttr)99;
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, G, &p, 0));
    p = dev_prop(77);
    RT_EXPECT(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMallocPhysical(&h, G, &p, 0));
    p = dev_prop(0);
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMallocPhysical(&h, G + 4096, &p, 0));
    assert_true(rt_contains(aclGetRecentErrMsg(), "granularity"));
    /* A device nobody set. */
    p = dev_prop(3);
    RT_EXPECT(ACL_ERROR_RT_CONTEXT_NULL, aclrtMallocPhysical(&h, G, &p, 0));
    /* More than the device holds. */
    p = dev_prop(0);
    size_t freeb = 0, total = 0;
    RT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &freeb, &total));
    RT_EXPECT(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtMallocPhysical(&h, (total / G + 1) * G, &p, 0));
    /* Freeing. */
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtFreePhysical(NULL));
    int junk = 0;
    RT_EXPECT(ACL_ERROR_RT_INVALID_HANDLE, aclrtFreePhysical(&junk));
    RT_OK(aclrtMallocPhysical(&h, G, &p, 0));
    RT_OK(aclrtFreePhysical(h));
    RT_EXPECT(ACL_ERROR_RT_INVALID_HANDLE, aclrtFreePhysical(h));
}

static void test_map_errors(void **state)
{
    (void)state;
    aclrtPhysicalMemProp p = dev_prop(0);
    aclrtDrvMemHandle h = NULL;
    RT_OK(aclrtMallocPhysical(&h, 2 * G, &p, 0));
    char *va = NULL;
    RT_OK(aclrtReserveMemAddress((void **)&va, 4 * G, 0, NULL, 0));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMapMem(NULL, G, 0, h, 0));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va, G, 0, NULL, 0));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va, 0, 0, h, 0));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va, G, 0, h, 1));
    int junk = 0;
    RT_EXPECT(ACL_ERROR_RT_INVALID_HANDLE, aclrtMapMem(va, G, 0, &junk, 0));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(va + 4096, G, 0, h, 0));    /* unaligned address */
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(va, G + 64, 0, h, 0));      /* unaligned size */
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(va, G, 4096, h, 0));        /* unaligned offset */
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(va, 2 * G, G, h, 0));       /* past the handle */
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(va + 3 * G, 2 * G, 0, h, 0)); /* past the reservation */
    uint8_t *heap = aligned_alloc(G, G);
    assert_non_null(heap);
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(heap, G, 0, h, 0));         /* not reserved */
    free(heap);
    RT_OK(aclrtMapMem(va + G, 2 * G, 0, h, 0));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(va, 2 * G, 0, h, 0));       /* overlaps */
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(va + 2 * G, G, 0, h, 0));
    /* Unmapping: the start of a mapping only. */
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtUnmapMem(NULL));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtUnmapMem(va));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtUnmapMem(va + 2 * G));
    /* Release with a mapping left: refused. */
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtReleaseMemAddress(va));
    RT_OK(aclrtUnmapMem(va + G));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtUnmapMem(va + G));
    RT_OK(aclrtFreePhysical(h));
    RT_OK(aclrtReleaseMemAddress(va));
}

static int kernel_add_index(const cannon_kernel_ctx *ctx, void *args)
{
    float *p = *(float **)args;
    p[ctx->block_idx] += (float)ctx->block_idx;
    return 0;
}

/* A mapped range is device memory for copies, fills, kernels, and the pointer queries; the
 * physical memory counts in aclrtGetMemInfo. */
static void test_mapped_range_is_device_memory(void **state)
{
    (void)state;
    size_t free0 = 0, total = 0, free1 = 0;
    RT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total));
    aclrtPhysicalMemProp p = dev_prop(0);
    aclrtDrvMemHandle h1 = NULL, h2 = NULL;
    RT_OK(aclrtMallocPhysical(&h1, G, &p, 0));
    RT_OK(aclrtMallocPhysical(&h2, 2 * G, &p, 0));
    RT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total));
    assert_int_equal(free0 - free1, 3 * G);
    char *va = NULL;
    RT_OK(aclrtReserveMemAddress((void **)&va, 8 * G, 0, NULL, 1));
    RT_OK(aclrtMapMem(va, G, 0, h1, 0));
    RT_OK(aclrtMapMem(va + G, 2 * G, 0, h2, 0));
    /* Not yet: the reservation's unmapped part. */
    assert_int_equal(cannonMemIsDevice(va + 3 * G), 0);
    assert_int_equal(cannonMemIsDevice(va), 1);
    assert_int_equal(cannonMemIsDevice(va + 3 * G - 1), 1);

    /* A copy across the two chunks (one contiguous buffer), both ways. */
    size_t n = 3 * G - 4096;
    uint8_t *host = malloc(n), *back = malloc(n);
    assert_non_null(host);
    assert_non_null(back);
    for (size_t i = 0; i < n; i++)
        host[i] = (uint8_t)(i * 7 + 3);
    RT_OK(aclrtMemcpy(va + 4096, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE));
    memset(back, 0, n);
    RT_OK(aclrtMemcpy(back, n, va + 4096, n, ACL_MEMCPY_DEVICE_TO_HOST));
    assert_memory_equal(back, host, n);
    /* Past the mapped run, and into the unmapped part. */
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(va + 8192, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE));
    assert_true(rt_contains(aclGetRecentErrMsg(), "runs past"));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(va + 3 * G, 16, host, 16, ACL_MEMCPY_HOST_TO_DEVICE));
    assert_true(rt_contains(aclGetRecentErrMsg(), "not mapped"));
    /* A host range running into the reservation. */
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(va - 16, 64, host, 64, ACL_MEMCPY_HOST_TO_HOST));
    /* The same pages through the arena: the physical memory is device memory too. */
    void *dev = NULL;
    RT_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_OK(aclrtMemcpy(dev, 4096, va + G, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE));
    RT_OK(aclrtMemcpy(back, 4096, dev, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
    assert_memory_equal(back, host + G - 4096, 4096);
    /* aclrtFree and aclrtFreeHost refuse it. */
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtFree(va));
    assert_true(rt_contains(aclGetRecentErrMsg(), "aclrtUnmapMem"));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtFreeHost(va));

    /* Fills and a kernel on a stream. */
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    RT_OK(aclrtMemsetAsync(va + G - 512, 1024, 0, 1024, s));
    float *f = (float *)(void *)(va + G - 512);
    cannon_launch_desc d = {.name = "add_index", .fn = kernel_add_index, .args = &f, .args_size = sizeof(f),
                            .block_dim = 256};
    RT_OK(cannonLaunchKernel(&d, s));
    RT_OK(aclrtSynchronizeStream(s));
    float out[256];
    RT_OK(aclrtMemcpy(out, sizeof(out), f, sizeof(out), ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < 256; i++)
        assert_true(out[i] == (float)i);
    RT_OK(aclrtMemset(va, G, 0x5a, G));
    uint8_t b = 0;
    RT_OK(aclrtMemcpy(&b, 1, va + G - 1, 1, ACL_MEMCPY_DEVICE_TO_HOST));
    assert_int_equal(b, 0x5a);

    /* Share info: the arena offset of the backing block, within one mapping. */
    cannon_mem_share_info si;
    RT_OK(cannonMemGetShareInfo(va + G + 100, &si));
    assert_int_equal(si.device_id, 0);
    assert_int_equal(si.alloc_size, 2 * G);
    assert_int_equal(si.offset, si.alloc_offset + 100);
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, cannonMemGetShareInfo(va + 5 * G, &si));

    RT_OK(aclrtDestroyStream(s));
    RT_OK(aclrtFree(dev));
    RT_OK(aclrtUnmapMem(va + G));
    RT_OK(aclrtUnmapMem(va));
    assert_int_equal(cannonMemIsDevice(va), 0);
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(va, 16, host, 16, ACL_MEMCPY_HOST_TO_DEVICE));
    RT_OK(aclrtFreePhysical(h1));
    RT_OK(aclrtFreePhysical(h2));
    RT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total));
    assert_int_equal(free1, free0);
    RT_OK(aclrtReleaseMemAddress(va));
    free(host);
    free(back);
}

/* Freeing a handle that is still mapped: the memory stays until the last unmap. */
static void test_free_while_mapped(void **state)
{
    (void)state;
    size_t free0 = 0, total = 0, f = 0;
    RT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total));
    aclrtPhysicalMemProp p = dev_prop(0);
    aclrtDrvMemHandle h = NULL;
    RT_OK(aclrtMallocPhysical(&h, 2 * G, &p, 0));
    char *va = NULL;
    RT_OK(aclrtReserveMemAddress((void **)&va, 4 * G, 0, NULL, 0));
    RT_OK(aclrtMapMem(va, G, 0, h, 0));
    RT_OK(aclrtMapMem(va + 2 * G, G, G, h, 0)); /* the handle's second half, elsewhere */
    RT_OK(aclrtMemset(va, G, 1, G));
    RT_OK(aclrtMemset(va + 2 * G, G, 2, G));
    RT_OK(aclrtFreePhysical(h));
    RT_EXPECT(ACL_ERROR_RT_INVALID_HANDLE, aclrtMapMem(va + G, G, 0, h, 0));
    RT_EXPECT(ACL_ERROR_RT_INVALID_HANDLE, aclrtFreePhysical(h));
    uint8_t b = 0;
    RT_OK(aclrtMemcpy(&b, 1, va + 2 * G + 5, 1, ACL_MEMCPY_DEVICE_TO_HOST));
    assert_int_equal(b, 2);
    RT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &f, &total));
    assert_int_equal(free0 - f, 2 * G);
    RT_OK(aclrtUnmapMem(va));
    RT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &f, &total));
    assert_int_equal(free0 - f, 2 * G);
    RT_OK(aclrtUnmapMem(va + 2 * G));
    RT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &f, &total));
    assert_int_equal(f, free0);
    RT_OK(aclrtReleaseMemAddress(va));
}

/* ggml's VMM pool: one reservation of the free memory, chunks mapped at its end as the pool
 * grows, strict LIFO use, and teardown (unmap, free, release) after the device was reset. */
static void test_ggml_pool_pattern(void **state)
{
    (void)state;
    aclrtPhysicalMemProp p = dev_prop(0);
    size_t gran = 0, freeb = 0, total = 0;
    RT_OK(aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED, &gran));
    RT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &freeb, &total));
    char *pool = NULL;
    RT_OK(aclrtReserveMemAddress((void **)&pool, freeb, 0, NULL, 1));
    aclrtDrvMemHandle handles[4];
    size_t pool_size = 0;
    const size_t grow[4] = {gran, 3 * gran, gran, 2 * gran};
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    for (int i = 0; i < 4; i++) {
        RT_OK(aclrtMallocPhysical(&handles[i], grow[i], &p, 0));
        RT_OK(aclrtMapMem(pool + pool_size, grow[i], 0, handles[i], 0));
        pool_size += grow[i];
        /* A buffer spanning every chunk so far, written asynchronously and read back. */
        RT_OK(aclrtMemsetAsync(pool, pool_size, i + 1, pool_size, s));
    }
    RT_OK(aclrtSynchronizeStream(s));
    uint8_t ends[2];
    RT_OK(aclrtMemcpy(&ends[0], 1, pool, 1, ACL_MEMCPY_DEVICE_TO_HOST));
    RT_OK(aclrtMemcpy(&ends[1], 1, pool + pool_size - 1, 1, ACL_MEMCPY_DEVICE_TO_HOST));
    assert_int_equal(ends[0], 4);
    assert_int_equal(ends[1], 4);
    size_t f = 0;
    RT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &f, &total));
    assert_int_equal(freeb - f, pool_size);
    RT_OK(aclrtDestroyStream(s));
    /* ggml's teardown: synchronize, reset, then unmap, free and release: all succeed. */
    RT_OK(aclrtSynchronizeDevice());
    RT_OK(aclrtResetDevice(0)); /* the last reference: device 0 closes */
    assert_int_equal(cannonMemIsDevice(pool), 0);
    size_t off = 0;
    for (int i = 0; i < 4; i++) {
        RT_OK(aclrtUnmapMem(pool + off));
        off += grow[i];
    }
    for (int i = 0; i < 4; i++)
        RT_OK(aclrtFreePhysical(handles[i]));
    RT_OK(aclrtReleaseMemAddress(pool));
    /* A handle of a closed device cannot be mapped again. */
    RT_OK(aclrtSetDevice(0));
    aclrtDrvMemHandle h = NULL;
    RT_OK(aclrtMallocPhysical(&h, gran, &p, 0));
    RT_OK(aclrtReserveMemAddress((void **)&pool, gran, 0, NULL, 0));
    RT_OK(aclrtResetDevice(0));
    RT_EXPECT(ACL_ERROR_RT_INVALID_HANDLE, aclrtMapMem(pool, gran, 0, h, 0));
    RT_OK(aclrtFreePhysical(h));
    RT_OK(aclrtReleaseMemAddress(pool));
    RT_OK(aclrtSetDevice(0)); /* for the teardown */
}

/* Mappings of two devices side by side are two allocations; aclFinalize releases what is left. */
static void test_two_devices_and_finalize(void **state)
{
    (void)state;
    RT_OK(aclrtSetDevice(1));
    aclrtPhysicalMemProp p0 = dev_prop(0), p1 = dev_prop(1);
    aclrtDrvMemHandle h0 = NULL, h1 = NULL;
    RT_OK(aclrtMallocPhysical(&h0, G, &p0, 0));
    RT_OK(aclrtMallocPhysical(&h1, G, &p1, 0));
    char *va = NULL;
    RT_OK(aclrtReserveMemAddress((void **)&va, 2 * G, 0, NULL, 0));
    RT_OK(aclrtMapMem(va, G, 0, h0, 0));
    RT_OK(aclrtMapMem(va + G, G, 0, h1, 0));
    uint8_t host[64] = {0};
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(va + G - 32, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE));
    RT_OK(aclrtMemcpy(va + G, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE));
    cannon_mem_share_info si;
    RT_OK(cannonMemGetShareInfo(va + G, &si));
    assert_int_equal(si.device_id, 1);
    /* Left mapped: aclFinalize (the teardown) releases it all and reports the leak. */
    RT_OK(aclFinalize());
    assert_int_equal(g_rt.last_leaks.vm_reservations, 1);
    assert_int_equal(g_rt.last_leaks.vm_handles, 2);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
}

int main(void)
{
    unsetenv("CANNON_CPU_DEVICE_MEMORY");
    unsetenv("CANNON_CPU_DEVICES");
    rt_apply_test_filter();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_granularity, rt_setup, rt_teardown),
        cmocka_unit_test_setup_teardown(test_reserve_release, rt_setup, rt_teardown),
        cmocka_unit_test_setup_teardown(test_physical_errors, setup_dev, rt_teardown),
        cmocka_unit_test_setup_teardown(test_map_errors, setup_dev, rt_teardown),
        cmocka_unit_test_setup_teardown(test_mapped_range_is_device_memory, setup_dev, rt_teardown),
        cmocka_unit_test_setup_teardown(test_free_while_mapped, setup_dev, rt_teardown),
        cmocka_unit_test_setup_teardown(test_ggml_pool_pattern, setup_dev, rt_teardown),
        cmocka_unit_test_setup_teardown(test_two_devices_and_finalize, setup_dev, rt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
