/* Runtime API tests: peer access between devices (aclrtDeviceCanAccessPeer,
 * aclrtDeviceEnablePeerAccess, aclrtDeviceDisablePeerAccess) and the copies between devices they
 * allow. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_util.h"

enum { N = 4096 };

static void test_can_access_peer(void **state)
{
    (void)state;
    int32_t can = -1;
    uint32_t count = 0;
    RT_OK(aclrtGetDeviceCount(&count));
    assert_true(count >= 2);
    /* No current device is needed. */
    RT_OK(aclrtDeviceCanAccessPeer(&can, 0, 1));
    assert_int_equal(can, 1);
    can = -1;
    RT_OK(aclrtDeviceCanAccessPeer(&can, 1, 0));
    assert_int_equal(can, 1);
    /* CANN's order of checks: the same device first, then the ids, then the output. */
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDeviceCanAccessPeer(&can, 1, 1));
    assert_true(rt_contains(aclGetRecentErrMsg(), "cannot be equal"));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDeviceCanAccessPeer(NULL, 3, 3));
    RT_EXPECT(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceCanAccessPeer(&can, 0, (int32_t)count));
    RT_EXPECT(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceCanAccessPeer(&can, -1, 0));
    RT_EXPECT(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceCanAccessPeer(&can, 0, -5));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceCanAccessPeer(NULL, 0, 1));
    assert_true(rt_contains(aclGetRecentErrMsg(), "canAccessPeer"));
}

static void test_enable_disable_errors(void **state)
{
    (void)state;
    /* A current device is needed. */
    RT_EXPECT(ACL_ERROR_RT_CONTEXT_NULL, aclrtDeviceEnablePeerAccess(1, 0));
    RT_EXPECT(ACL_ERROR_RT_CONTEXT_NULL, aclrtDeviceDisablePeerAccess(1));
    RT_OK(aclrtSetDevice(0));
    /* flags is reserved: CANN answers 200006 before anything else. */
    RT_EXPECT(ACL_ERROR_FEATURE_UNSUPPORTED, aclrtDeviceEnablePeerAccess(1, 1));
    RT_EXPECT(ACL_ERROR_FEATURE_UNSUPPORTED, aclrtDeviceEnablePeerAccess(0, 7));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDeviceEnablePeerAccess(0, 0));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDeviceDisablePeerAccess(0));
    RT_EXPECT(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceEnablePeerAccess(64, 0));
    RT_EXPECT(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceEnablePeerAccess(-1, 0));
    RT_EXPECT(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceDisablePeerAccess(99));
    /* Enabling twice and disabling what is not enabled are successes (ggml enables before every
     * copy between devices). */
    RT_OK(aclrtDeviceEnablePeerAccess(1, 0));
    RT_OK(aclrtDeviceEnablePeerAccess(1, 0));
    RT_OK(aclrtDeviceDisablePeerAccess(1));
    RT_OK(aclrtDeviceDisablePeerAccess(1));
    RT_OK(aclrtDeviceDisablePeerAccess(2));
    RT_OK(aclrtResetDevice(0));
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(i * 31u + seed);
}

/* Copies between two devices, sync and async, through every gate: neither direction, one
 * direction, both, and after a disable. */
static void test_copies_between_devices(void **state)
{
    (void)state;
    uint8_t *host = malloc(N), *back = malloc(N);
    assert_non_null(host);
    assert_non_null(back);
    fill(host, N, 7);
    void *a = NULL, *b = NULL;
    RT_OK(aclrtSetDevice(0));
    RT_OK(aclrtMalloc(&a, N, ACL_MEM_MALLOC_HUGE_FIRST_P2P));
    RT_OK(aclrtMemcpy(a, N, host, N, ACL_MEMCPY_HOST_TO_DEVICE));
    RT_OK(aclrtSetDevice(1));
    RT_OK(aclrtMalloc(&b, N, ACL_MEM_MALLOC_HUGE_FIRST_P2P));
    RT_OK(aclrtMemset(b, N, 0, N));
    aclrtStream s1 = NULL;
    RT_OK(aclrtCreateStream(&s1));

    /* Neither direction. */
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(b, N, a, N, ACL_MEMCPY_DEVICE_TO_DEVICE));
    assert_true(rt_contains(aclGetRecentErrMsg(), "peer access"));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(b, N, a, N, ACL_MEMCPY_DEFAULT));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsync(b, N, a, N, ACL_MEMCPY_DEVICE_TO_DEVICE, s1));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy2d(b, 64, a, 64, 64, N / 64, ACL_MEMCPY_DEVICE_TO_DEVICE));
    /* One direction (1 → 0) is not enough. */
    RT_OK(aclrtDeviceEnablePeerAccess(0, 0));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(b, N, a, N, ACL_MEMCPY_DEVICE_TO_DEVICE));
    /* Both directions. */
    RT_OK(aclrtSetDevice(0));
    RT_OK(aclrtDeviceEnablePeerAccess(1, 0));
    RT_OK(aclrtSetDevice(1));
    RT_OK(aclrtMemcpy(b, N, a, N, ACL_MEMCPY_DEVICE_TO_DEVICE));
    RT_OK(aclrtMemcpy(back, N, b, N, ACL_MEMCPY_DEVICE_TO_HOST));
    assert_memory_equal(back, host, N);
    /* Async, and the other way round, and 2-D. */
    fill(host, N, 99);
    RT_OK(aclrtMemcpy(b, N, host, N, ACL_MEMCPY_HOST_TO_DEVICE));
    RT_OK(aclrtMemcpyAsync(a, N, b, N, ACL_MEMCPY_DEVICE_TO_DEVICE, s1));
    RT_OK(aclrtSynchronizeStream(s1));
    RT_OK(aclrtMemcpy(back, N, a, N, ACL_MEMCPY_DEVICE_TO_HOST));
    assert_memory_equal(back, host, N);
    RT_OK(aclrtMemset(a, N, 0, N));
    RT_OK(aclrtMemcpy2d(a, 64, b, 64, 64, N / 64, ACL_MEMCPY_DEVICE_TO_DEVICE));
    RT_OK(aclrtMemcpy(back, N, a, N, ACL_MEMCPY_DEVICE_TO_HOST));
    assert_memory_equal(back, host, N);
    /* Disabled again. */
    RT_OK(aclrtDeviceDisablePeerAccess(0));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(b, N, a, N, ACL_MEMCPY_DEVICE_TO_DEVICE));
    /* Copies within one device never need it. */
    RT_OK(aclrtMemcpy(b, N / 2, (uint8_t *)b + N / 2, N / 2, ACL_MEMCPY_DEVICE_TO_DEVICE));

    RT_OK(aclrtDestroyStream(s1));
    RT_OK(aclrtFree(b));
    RT_OK(aclrtFree(a));
    RT_OK(aclrtResetDevice(1));
    RT_OK(aclrtResetDevice(0));
    free(host);
    free(back);
}

/* Peer access ends with the device: a reset that closes it clears both directions. */
static void test_reset_clears_peer_access(void **state)
{
    (void)state;
    void *a = NULL, *b = NULL;
    RT_OK(aclrtSetDevice(0));
    RT_OK(aclrtDeviceEnablePeerAccess(1, 0));
    RT_OK(aclrtMalloc(&a, N, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_OK(aclrtSetDevice(1));
    RT_OK(aclrtDeviceEnablePeerAccess(0, 0));
    RT_OK(aclrtMalloc(&b, N, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_OK(aclrtMemcpy(b, N, a, N, ACL_MEMCPY_DEVICE_TO_DEVICE));
    RT_OK(aclrtFree(b));
    RT_OK(aclrtResetDevice(1)); /* device 1 closes */
    RT_OK(aclrtSetDevice(1));
    RT_OK(aclrtMalloc(&b, N, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(b, N, a, N, ACL_MEMCPY_DEVICE_TO_DEVICE));
    RT_OK(aclrtFree(b));
    RT_OK(aclrtFree(a));
    RT_OK(aclrtResetDevice(1));
    RT_OK(aclrtResetDevice(0));
}

int main(void)
{
    unsetenv("CANNON_CPU_DEVICE_MEMORY");
    unsetenv("CANNON_CPU_DEVICES");
    rt_apply_test_filter();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_can_access_peer, rt_setup, rt_teardown),
        cmocka_unit_test_setup_teardown(test_enable_disable_errors, rt_setup, rt_teardown),
        cmocka_unit_test_setup_teardown(test_copies_between_devices, rt_setup, rt_teardown),
        cmocka_unit_test_setup_teardown(test_reset_clears_peer_access, rt_setup, rt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
