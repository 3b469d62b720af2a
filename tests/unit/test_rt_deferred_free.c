/* Runtime API tests: aclrtFree while work queued before it may still use the block. The block
 * must not be handed out again (nor count as live memory) until that work has finished; frees
 * with no work pending are immediate; an allocation that would fail waits for pending blocks. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_util.h"

static int setup_dev(void **state)
{
    unsetenv("CANNON_CPU_DEVICE_MEMORY");
    if (rt_setup(state) != 0)
        return -1;
    return aclrtSetDevice(0) == ACL_SUCCESS ? 0 : -1;
}

static int setup_small_dev(void **state)
{
    setenv("CANNON_CPU_DEVICE_MEMORY", "64M", 1);
    if (rt_setup(state) != 0)
        return -1;
    return aclrtSetDevice(0) == ACL_SUCCESS ? 0 : -1;
}

static int teardown_small(void **state)
{
    int rc = rt_teardown(state);
    unsetenv("CANNON_CPU_DEVICE_MEMORY");
    return rc;
}

enum { SZ = 65536 };

static void test_idle_free_is_immediate(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    void *a = NULL, *b = NULL;
    RT_OK(aclrtMalloc(&a, SZ, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_OK(aclrtMemsetAsync(a, SZ, 1, SZ, s));
    RT_OK(aclrtSynchronizeStream(s));
    RT_OK(aclrtFree(a));
    assert_int_equal(atomic_load(&g_rt.devices[0].n_pending), 0);
    RT_OK(aclrtMalloc(&b, SZ, ACL_MEM_MALLOC_HUGE_FIRST));
    assert_ptr_equal(a, b); /* the cache hands the same block back at once */
    RT_OK(aclrtFree(b));
    RT_OK(aclrtDestroyStream(s));
}

/* Free while a task queued before still writes the block: the block is not reused until then. */
static void test_free_with_work_queued(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    rt_gate g;
    rt_gate_init(&g);
    void *a = NULL;
    RT_OK(aclrtMalloc(&a, SZ, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_OK(cannonLaunchHostTask(s, rt_task_gate, &g));
    RT_OK(aclrtMemsetAsync(a, SZ, 0xAB, SZ, s)); /* runs after the gate opens */
    size_t free0 = 0, total = 0, free1 = 0;
    RT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total));
    RT_OK(aclrtFree(a)); /* returns at once */
    assert_int_equal(atomic_load(&g_rt.devices[0].n_pending), 1);
    /* Pending: not live for any API, not free either. */
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtFree(a));
    assert_true(rt_contains(aclGetRecentErrMsg(), "double free"));
    uint8_t host[16] = {0};
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(a, 16, host, 16, ACL_MEMCPY_HOST_TO_DEVICE));
    assert_int_equal(cannonMemIsDevice(a), 0);
    RT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total));
    assert_int_equal(free1, free0);
    /* A new allocation of the same size gets another block. */
    void *b = NULL;
    RT_OK(aclrtMalloc(&b, SZ, ACL_MEM_MALLOC_HUGE_FIRST));
    assert_ptr_not_equal(a, b);
    RT_OK(aclrtMemset(b, SZ, 0x11, SZ));
    /* The queued fill runs into the old block, not into b. */
    rt_gate_open(&g);
    RT_OK(aclrtSynchronizeStream(s));
    uint8_t back[SZ];
    RT_OK(aclrtMemcpy(back, SZ, b, SZ, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < SZ; i++)
        assert_int_equal(back[i], 0x11);
    /* Now due: the next allocation hands it back, and the memory counts as free again. */
    void *c = NULL;
    RT_OK(aclrtMalloc(&c, SZ, ACL_MEM_MALLOC_HUGE_FIRST));
    assert_int_equal(atomic_load(&g_rt.devices[0].n_pending), 0);
    assert_ptr_equal(c, a);
    RT_OK(aclrtFree(c));
    RT_OK(aclrtFree(b));
    RT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total));
    assert_int_equal(free1, free0 + SZ);
    RT_OK(aclrtDestroyStream(s));
}

/* Work on any stream of the device counts, not only the caller's; destroying that stream (which
 * waits for its work) makes the block due. */
static void test_other_stream_and_stream_destroy(void **state)
{
    (void)state;
    aclrtStream s1 = NULL, s2 = NULL;
    RT_OK(aclrtCreateStream(&s1));
    RT_OK(aclrtCreateStream(&s2));
    rt_gate g;
    rt_gate_init(&g);
    void *a = NULL;
    RT_OK(aclrtMalloc(&a, SZ, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_OK(cannonLaunchHostTask(s2, rt_task_gate, &g));
    RT_OK(aclrtMemsetAsync(a, SZ, 0, SZ, s2));
    RT_OK(aclrtFree(a));
    assert_int_equal(atomic_load(&g_rt.devices[0].n_pending), 1);
    rt_gate_open(&g);
    RT_OK(aclrtDestroyStream(s2));
    void *b = NULL;
    RT_OK(aclrtMalloc(&b, SZ, ACL_MEM_MALLOC_HUGE_FIRST));
    assert_int_equal(atomic_load(&g_rt.devices[0].n_pending), 0);
    assert_ptr_equal(a, b);
    RT_OK(aclrtFree(b));
    /* aclrtFreeWithDevSync never defers. */
    RT_OK(aclrtMalloc(&a, SZ, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_OK(cannonLaunchHostTask(s1, rt_task_sleep, (void *)(uintptr_t)20));
    RT_OK(aclrtFreeWithDevSync(a));
    assert_int_equal(atomic_load(&g_rt.devices[0].n_pending), 0);
    RT_OK(aclrtDestroyStream(s1));
}

static void *thread_open_gate_later(void *arg)
{
    rt_sleep_ms(60);
    rt_gate_open(arg);
    return NULL;
}

/* An allocation that only fits in pending memory waits for the work holding it. */
static void test_oom_waits_for_pending(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    rt_gate g;
    rt_gate_init(&g);
    size_t big = (size_t)40 << 20;
    void *a = NULL, *b = NULL;
    RT_OK(aclrtMalloc(&a, big, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_OK(cannonLaunchHostTask(s, rt_task_gate, &g));
    RT_OK(aclrtMemsetAsync(a, big, 7, big, s));
    RT_OK(aclrtFree(a));
    pthread_t t = rt_thread_start(thread_open_gate_later, &g);
    double t0 = rt_now_ms();
    RT_OK(aclrtMalloc(&b, big, ACL_MEM_MALLOC_HUGE_FIRST));
    double waited = rt_now_ms() - t0;
    rt_thread_join(t);
    assert_true(waited >= 30.0); /* it waited for the gate */
    assert_ptr_equal(a, b);
    /* Too big even with everything back: the usual error. */
    void *c = NULL;
    RT_EXPECT(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtMalloc(&c, big, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_OK(aclrtFree(b));
    RT_OK(aclrtDestroyStream(s));
}

/* A device reset with blocks still pending gives them back (no leak is reported). */
static void test_reset_with_pending(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    void *a = NULL;
    RT_OK(aclrtMalloc(&a, SZ, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_OK(cannonLaunchHostTask(s, rt_task_sleep, (void *)(uintptr_t)30));
    RT_OK(aclrtMemsetAsync(a, SZ, 0, SZ, s));
    RT_OK(aclrtFree(a));
    assert_int_equal(atomic_load(&g_rt.devices[0].n_pending), 1);
    RT_OK(aclrtDestroyStream(s));
    RT_OK(aclrtResetDevice(0));
    assert_int_equal(atomic_load(&g_rt.devices[0].n_pending), 0);
    RT_OK(aclFinalize());
    assert_int_equal(g_rt.last_leaks.device_allocs, 0);
    RT_OK(aclInit(NULL));
}

int main(void)
{
    unsetenv("CANNON_CPU_DEVICES");
    rt_apply_test_filter();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_idle_free_is_immediate, setup_dev, rt_teardown),
        cmocka_unit_test_setup_teardown(test_free_with_work_queued, setup_dev, rt_teardown),
        cmocka_unit_test_setup_teardown(test_other_stream_and_stream_destroy, setup_dev, rt_teardown),
        cmocka_unit_test_setup_teardown(test_oom_waits_for_pending, setup_small_dev, teardown_small),
        cmocka_unit_test_setup_teardown(test_reset_with_pending, setup_dev, rt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
