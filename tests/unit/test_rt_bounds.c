/* Runtime API tests: hostile sizes, pitches and pointers for the copy and fill APIs. Every extent
 * the runtime computes (pitch * rows + width, pointer + count) must be checked without wrapping,
 * and a call that would leave its allocation (device or pinned host) must fail with 107000 and
 * touch nothing. Guard allocations around the targets check that nothing was written. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_util.h"

static int setup_dev(void **state)
{
    if (rt_setup(state) != 0)
        return -1;
    return aclrtSetDevice(0) == ACL_SUCCESS ? 0 : -1;
}

enum { N = 256 };

/* Three neighbouring device allocations: the middle one is the target, the outer ones guards. */
typedef struct guarded {
    uint8_t *lo, *mid, *hi;
} guarded;

static void guarded_make(guarded *g)
{
    RT_OK(aclrtMalloc((void **)&g->lo, N, ACL_MEM_MALLOC_NORMAL_ONLY));
    RT_OK(aclrtMalloc((void **)&g->mid, N, ACL_MEM_MALLOC_NORMAL_ONLY));
    RT_OK(aclrtMalloc((void **)&g->hi, N, ACL_MEM_MALLOC_NORMAL_ONLY));
    RT_OK(aclrtMemset(g->lo, N, 0xA5, N));
    RT_OK(aclrtMemset(g->mid, N, 0x5A, N));
    RT_OK(aclrtMemset(g->hi, N, 0xA5, N));
}

/* The guards and the target still hold what guarded_make wrote. */
static void guarded_check_free(guarded *g)
{
    uint8_t back[N];
    RT_OK(aclrtMemcpy(back, N, g->lo, N, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < N; i++)
        assert_int_equal(back[i], 0xA5);
    RT_OK(aclrtMemcpy(back, N, g->mid, N, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < N; i++)
        assert_int_equal(back[i], 0x5A);
    RT_OK(aclrtMemcpy(back, N, g->hi, N, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < N; i++)
        assert_int_equal(back[i], 0xA5);
    RT_OK(aclrtFree(g->lo));
    RT_OK(aclrtFree(g->mid));
    RT_OK(aclrtFree(g->hi));
}

static void expect_overflow_msg(void)
{
    const char *m = aclGetRecentErrMsg();
    if (!rt_contains(m, "overflow") && !rt_contains(m, "past the end") && !rt_contains(m, "wraps"))
        fail_msg("unexpected message: %s", m ? m : "(none)");
}

/* ---------------------------------------------------------------------------------------------- */

/* pitch * (height - 1) + width wraps around 2^64: the extent looks tiny, the rows do not. */
static void test_memcpy2d_extent_overflow(void **state)
{
    (void)state;
    guarded g;
    guarded_make(&g);
    uint8_t host[64];
    memset(host, 0x11, sizeof(host));
    const size_t big = (size_t)1 << 63;
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy2d(g.mid, big, host, big, 16, 3, ACL_MEMCPY_HOST_TO_DEVICE));
    expect_overflow_msg();
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy2d(host, big, g.mid, big, 16, 3, ACL_MEMCPY_DEVICE_TO_HOST));
    expect_overflow_msg();
    /* 64 * 2^58 = 2^64: the extent wraps to the width. */
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID,
              aclrtMemcpy2d(g.mid, 64, g.lo, 64, 16, ((size_t)1 << 58) + 1, ACL_MEMCPY_DEVICE_TO_DEVICE));
    expect_overflow_msg();
    /* The multiplication fits, the added width does not. */
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID,
              aclrtMemcpy2d(g.mid, SIZE_MAX - 8, host, 16, 16, 2, ACL_MEMCPY_HOST_TO_DEVICE));
    expect_overflow_msg();
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID,
              aclrtMemcpy2d(g.mid, 16, host, SIZE_MAX - 8, 16, 2, ACL_MEMCPY_HOST_TO_DEVICE));
    expect_overflow_msg();
    /* Default kind (direction from the pointers) too. */
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy2d(g.mid, big, host, 16, 16, 3, ACL_MEMCPY_DEFAULT));
    /* A legal 2-D copy still works, up to the last byte of the target. */
    RT_OK(aclrtMemcpy2d(g.mid + N - 64 - 16, 64, host, 16, 16, 2, ACL_MEMCPY_HOST_TO_DEVICE));
    RT_OK(aclrtMemcpy2d(g.mid + N - 64 - 16, 64, g.hi, 16, 16, 1, ACL_MEMCPY_DEVICE_TO_DEVICE));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID,
              aclrtMemcpy2d(g.mid + N - 64 - 15, 64, host, 16, 16, 2, ACL_MEMCPY_HOST_TO_DEVICE));
    /* Restore the target's pattern for the guard check. */
    RT_OK(aclrtMemset(g.mid, N, 0x5A, N));
    guarded_check_free(&g);
}

/* A host range whose end wraps around the address space can never be valid memory. */
static void test_host_range_wraps(void **state)
{
    (void)state;
    guarded g;
    guarded_make(&g);
    void *top = (void *)(UINTPTR_MAX - 15);
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(g.mid, N, top, 64, ACL_MEMCPY_HOST_TO_DEVICE));
    expect_overflow_msg();
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(top, 64, g.mid, 64, ACL_MEMCPY_DEVICE_TO_HOST));
    expect_overflow_msg();
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy2d(top, 16, g.mid, 16, 16, 2, ACL_MEMCPY_DEVICE_TO_HOST));
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsync(g.mid, N, top, 64, ACL_MEMCPY_HOST_TO_DEVICE, s));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsync(top, 64, g.mid, 64, ACL_MEMCPY_DEVICE_TO_HOST, s));
    RT_OK(aclrtSynchronizeStream(s));
    RT_OK(aclrtDestroyStream(s));
    guarded_check_free(&g);
}

/* A "host" range that runs into a device arena would bypass the allocation checks. */
static void test_host_range_into_device_memory(void **state)
{
    (void)state;
    guarded g;
    guarded_make(&g);
    cannon_mem_share_info info;
    RT_OK(cannonMemGetShareInfo(g.mid, &info));
    uint8_t *arena = g.mid - info.offset;
    uint8_t host[64];
    memset(host, 0x22, sizeof(host));
    /* 32 bytes below the arena, 64 bytes long: half of it is device memory. */
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(host, sizeof(host), arena - 32, 64, ACL_MEMCPY_HOST_TO_HOST));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(arena - 32, 64, host, 64, ACL_MEMCPY_HOST_TO_HOST));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(g.mid, N, arena - 32, 64, ACL_MEMCPY_HOST_TO_DEVICE));
    guarded_check_free(&g);
}

/* Pinned host memory has a known size: copies and fills may not run past it. */
static void test_pinned_bounds(void **state)
{
    (void)state;
    guarded g;
    guarded_make(&g);
    uint8_t *pin = NULL;
    RT_OK(aclrtMallocHost((void **)&pin, 64));
    memset(pin, 0x33, 64);
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemset(pin, 128, 0, 128));
    expect_overflow_msg();
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(g.mid, N, pin, 128, ACL_MEMCPY_HOST_TO_DEVICE));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(pin, 128, g.mid, 128, ACL_MEMCPY_DEVICE_TO_HOST));
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemsetAsync(pin, 128, 0, 128, s));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsync(pin, 128, g.mid, 128, ACL_MEMCPY_DEVICE_TO_HOST, s));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsync(g.mid, N, pin, 128, ACL_MEMCPY_HOST_TO_DEVICE, s));
    /* Exactly the allocation is fine. */
    RT_OK(aclrtMemsetAsync(pin, 64, 0x44, 64, s));
    RT_OK(aclrtSynchronizeStream(s));
    RT_OK(aclrtDestroyStream(s));
    for (int i = 0; i < 64; i++)
        assert_int_equal(pin[i], 0x44);
    RT_OK(aclrtFreeHost(pin));
    guarded_check_free(&g);
}

/* A pointer inside an aclrtMallocHost allocation is pinned memory too: fills take it, and a range
 * from it may not run past the allocation's end (it was once taken for pageable memory: a fill
 * refused, a copy past the end made). */
static void test_pinned_interior(void **state)
{
    (void)state;
    guarded g;
    guarded_make(&g);
    uint8_t *pin = NULL;
    RT_OK(aclrtMallocHost((void **)&pin, 128));
    memset(pin, 0x33, 128);
    RT_OK(aclrtMemset(pin + 64, 64, 0x11, 64));
    for (int i = 0; i < 128; i++)
        assert_int_equal(pin[i], i < 64 ? 0x33 : 0x11);
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(g.mid, N, pin + 64, 128, ACL_MEMCPY_HOST_TO_DEVICE));
    expect_overflow_msg();
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(pin + 100, 128, g.mid, 29, ACL_MEMCPY_DEVICE_TO_HOST));
    expect_overflow_msg();
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemsetAsync(pin + 127, 2, 0, 2, s));
    expect_overflow_msg();
    RT_OK(aclrtMemsetAsync(pin + 120, 8, 0x22, 8, s));
    RT_OK(aclrtMemcpyAsync(pin + 1, 8, g.mid, 8, ACL_MEMCPY_DEVICE_TO_HOST, s));
    RT_OK(aclrtSynchronizeStream(s));
    RT_OK(aclrtDestroyStream(s));
    for (int i = 0; i < 128; i++)
        assert_int_equal(pin[i], i >= 1 && i < 9 ? 0x5A : i >= 120 ? 0x22 : i < 64 ? 0x33 : 0x11);
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtFreeHost(pin + 64));
    assert_true(rt_contains(aclGetRecentErrMsg(), "inside"));
    RT_OK(aclrtFreeHost(pin));
    guarded_check_free(&g);
}

/* A destroyed stream is refused by aclrtMemsetAsync even with nothing to fill, as by
 * aclrtMemcpyAsync. */
static void test_memset_async_dead_stream(void **state)
{
    (void)state;
    guarded g;
    guarded_make(&g);
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    RT_OK(aclrtDestroyStream(s));
    aclError memset_rc = aclrtMemsetAsync(g.mid, N, 0, 0, s);
    aclError memcpy_rc = aclrtMemcpyAsync(g.mid, N, g.lo, 0, ACL_MEMCPY_DEVICE_TO_DEVICE, s);
    assert_int_not_equal(memset_rc, ACL_SUCCESS);
    assert_int_equal(memset_rc, memcpy_rc);
    RT_EXPECT(memset_rc, aclrtMemsetAsync(g.mid, N, 0, 8, s));
    guarded_check_free(&g);
}

/* Sizes near SIZE_MAX against device memory: rejected by the allocation check, never wrapped. */
static void test_huge_counts(void **state)
{
    (void)state;
    guarded g;
    guarded_make(&g);
    uint8_t host[64] = {0};
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(g.mid, SIZE_MAX, host, SIZE_MAX, ACL_MEMCPY_HOST_TO_DEVICE));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(g.mid + 8, SIZE_MAX, g.lo, SIZE_MAX - 7,
                                                      ACL_MEMCPY_DEVICE_TO_DEVICE));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemset(g.mid + 8, SIZE_MAX, 0, SIZE_MAX));
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemsetAsync(g.mid + 8, SIZE_MAX, 0, SIZE_MAX - 7, s));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID,
              aclrtMemcpyAsync(g.mid, SIZE_MAX, g.lo, SIZE_MAX, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    RT_OK(aclrtSynchronizeStream(s));
    RT_OK(aclrtDestroyStream(s));
    guarded_check_free(&g);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup_dev, rt_teardown)
    const struct CMUnitTest tests[] = {
        T(test_memcpy2d_extent_overflow), T(test_host_range_wraps), T(test_host_range_into_device_memory),
        T(test_pinned_bounds), T(test_pinned_interior), T(test_memset_async_dead_stream), T(test_huge_counts),
    };
    rt_apply_test_filter();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
