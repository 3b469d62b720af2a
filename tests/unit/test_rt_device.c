/* Runtime API tests: devices, contexts, the per-thread current context, SoC name, run mode,
 * memory info, device synchronisation and the configured default device. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "cannon/cpu.h"
#include "rt_test_util.h"

static int group_setup(void **state)
{
    (void)state;
    unsetenv("CANNON_CPU_DEVICES");
    unsetenv("CANNON_CPU_DEVICE_MEMORY");
    return 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Devices                                                                                         */
/* ---------------------------------------------------------------------------------------------- */

static void test_device_count_default(void **state)
{
    (void)state;
    uint32_t n = 0;
    RT_OK(aclrtGetDeviceCount(&n));
    assert_int_equal(n, 8);
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceCount(NULL));
}

static void test_device_count_env(void **state)
{
    (void)state;
    RT_OK(aclFinalize());
    setenv("CANNON_CPU_DEVICES", "3", 1);
    RT_OK(aclInit(NULL));
    uint32_t n = 0;
    RT_OK(aclrtGetDeviceCount(&n));
    assert_int_equal(n, 3);
    RT_EXPECT(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(3));
    RT_OK(aclrtSetDevice(2));
    int32_t d = -1;
    RT_OK(aclrtGetDevice(&d));
    assert_int_equal(d, 2);
    RT_OK(aclrtResetDevice(2));
    RT_OK(aclFinalize());

    setenv("CANNON_CPU_DEVICES", "1", 1);
    RT_OK(aclInit(NULL));
    RT_OK(aclrtGetDeviceCount(&n));
    assert_int_equal(n, 1);
    RT_EXPECT(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(1));
    RT_OK(aclFinalize());

    unsetenv("CANNON_CPU_DEVICES");
    RT_OK(aclInit(NULL));
    RT_OK(aclrtGetDeviceCount(&n));
    assert_int_equal(n, 8);
}

static void test_set_get_device(void **state)
{
    (void)state;
    int32_t d = -1;
    RT_EXPECT(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&d));
    assert_int_equal(d, -1);
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtGetDevice(NULL));
    RT_OK(aclrtSetDevice(3));
    RT_OK(aclrtGetDevice(&d));
    assert_int_equal(d, 3);
    RT_OK(aclrtSetDevice(5));
    RT_OK(aclrtGetDevice(&d));
    assert_int_equal(d, 5);
    RT_OK(aclrtSetDevice(7));
    RT_OK(aclrtGetDevice(&d));
    assert_int_equal(d, 7);
    RT_OK(aclrtResetDevice(3));
    RT_OK(aclrtResetDevice(5));
    RT_OK(aclrtResetDevice(7));
}

static void test_device_id_out_of_range(void **state)
{
    (void)state;
    const int32_t bad[] = {-1, 8, 9, 64, INT32_MAX, INT32_MIN};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        RT_EXPECT(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(bad[i]));
        RT_EXPECT(ACL_ERROR_RT_INVALID_DEVICEID, aclrtResetDevice(bad[i]));
        RT_EXPECT(ACL_ERROR_RT_INVALID_DEVICEID, aclrtResetDeviceForce(bad[i]));
        aclrtContext c = NULL;
        RT_EXPECT(ACL_ERROR_RT_INVALID_DEVICEID, aclrtCreateContext(&c, bad[i]));
        assert_null(c);
        aclrtDeviceStatus st;
        RT_EXPECT(ACL_ERROR_RT_INVALID_DEVICEID, aclrtQueryDeviceStatus(bad[i], &st));
    }
    assert_true(rt_contains(aclGetRecentErrMsg(), "out of range"));
    aclrtDeviceStatus st = ACL_RT_DEVICE_STATUS_ABNORMAL;
    RT_OK(aclrtQueryDeviceStatus(0, &st));
    assert_int_equal(st, ACL_RT_DEVICE_STATUS_NORMAL);
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtQueryDeviceStatus(0, NULL));
}

static void test_reset_device_refcount(void **state)
{
    (void)state;
    RT_OK(aclrtSetDevice(1));
    RT_OK(aclrtSetDevice(1));
    assert_int_equal(g_rt.devices[1].primary_refs, 2);
    RT_OK(aclrtResetDevice(1));
    /* Still set: the default context and its stream work. */
    int32_t d = -1;
    RT_OK(aclrtGetDevice(&d));
    assert_int_equal(d, 1);
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    RT_OK(aclrtSynchronizeStream(s));
    RT_OK(aclrtResetDevice(1)); /* last reference: destroys its streams too */
    assert_false(g_rt.devices[1].open);
    /* The stream went with the device; destroying it afterwards succeeds once, as on CANN. */
    RT_OK(aclrtDestroyStream(s));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDestroyStream(s));
    RT_EXPECT(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, aclrtResetDevice(1));
    RT_EXPECT(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&d));
    RT_EXPECT(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, aclrtResetDevice(4)); /* never set */
    /* And it can be set again. */
    RT_OK(aclrtSetDevice(1));
    RT_OK(aclrtGetDevice(&d));
    assert_int_equal(d, 1);
    RT_OK(aclrtResetDevice(1));
}

/* A client that tears down after the last aclrtResetDevice (ggml's backend does: reset, then it
 * destroys its streams and event and frees its buffers, each under a check) gets 0 from each of
 * those calls, once; a second destroy or free is an error again. A device set again has its memory
 * back as device memory, with the usual checks. */
static void test_teardown_after_reset(void **state)
{
    (void)state;
    RT_OK(aclrtSetDevice(4));
    aclrtStream s = NULL, s2 = NULL;
    aclrtEvent e = NULL;
    void *p = NULL, *q = NULL;
    RT_OK(aclrtCreateStream(&s));
    RT_OK(aclrtCreateStreamWithConfig(&s2, 0, 0));
    RT_OK(aclrtCreateEvent(&e));
    RT_OK(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_OK(aclrtMalloc(&q, 3 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_OK(aclrtMemsetAsync(p, 4096, 1, 4096, s));
    RT_OK(aclrtRecordEvent(e, s));
    RT_OK(aclrtSynchronizeDevice());
    RT_OK(aclrtResetDevice(4));
    assert_false(g_rt.devices[4].open);

    RT_OK(aclrtDestroyStream(s));
    RT_OK(aclrtDestroyStreamForce(s2));
    RT_OK(aclrtDestroyEvent(e));
    RT_OK(aclrtFree(p));
    RT_OK(aclrtFree(q));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDestroyStream(s));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDestroyEvent(e));
    /* Never a device's memory: still refused. */
    int local = 0;
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtFree(&local));
    /* Used rather than destroyed, the handles are still invalid. */
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtRecordEvent(e, NULL));

    /* Set again: its memory is device memory, freed once. */
    RT_OK(aclrtSetDevice(4));
    void *r = NULL;
    RT_OK(aclrtMalloc(&r, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_OK(aclrtFree(r));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtFree(r));
    aclrtStream s3 = NULL;
    RT_OK(aclrtCreateStream(&s3));
    RT_OK(aclrtDestroyStream(s3));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDestroyStream(s3));
    RT_OK(aclrtResetDevice(4));
}

static void test_reset_device_force(void **state)
{
    (void)state;
    RT_OK(aclrtSetDevice(2));
    RT_OK(aclrtSetDevice(2));
    RT_OK(aclrtSetDevice(2));
    atomic_int done;
    atomic_init(&done, 0);
    RT_OK(cannonLaunchHostTask(NULL, rt_task_sleep, (void *)(uintptr_t)30));
    RT_OK(cannonLaunchHostTask(NULL, rt_task_set_flag, &done));
    RT_OK(aclrtResetDeviceForce(2));
    /* Dropping every reference still waits for the default stream's pending work. */
    assert_int_equal(atomic_load(&done), 1);
    assert_int_equal(g_rt.devices[2].primary_refs, 0);
    RT_EXPECT(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, aclrtResetDevice(2));
    RT_EXPECT(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, aclrtResetDeviceForce(2));
}

typedef struct thread_dev_result {
    aclError get_before, set, get_after, reset;
    int32_t dev_after;
} thread_dev_result;

static void *thread_device(void *arg)
{
    thread_dev_result *r = arg;
    int32_t d = -1;
    r->get_before = aclrtGetDevice(&d);
    r->set = aclrtSetDevice(4);
    r->get_after = aclrtGetDevice(&r->dev_after);
    r->reset = aclrtResetDevice(4);
    return NULL;
}

static void test_current_device_per_thread(void **state)
{
    (void)state;
    RT_OK(aclrtSetDevice(3));
    thread_dev_result r;
    memset(&r, 0, sizeof(r));
    rt_thread_join(rt_thread_start(thread_device, &r));
    assert_int_equal(r.get_before, ACL_ERROR_RT_CONTEXT_NULL); /* a new thread has no device */
    assert_int_equal(r.set, ACL_SUCCESS);
    assert_int_equal(r.get_after, ACL_SUCCESS);
    assert_int_equal(r.dev_after, 4);
    assert_int_equal(r.reset, ACL_SUCCESS);
    int32_t d = -1;
    RT_OK(aclrtGetDevice(&d));
    assert_int_equal(d, 3); /* unchanged here */
    RT_OK(aclrtResetDevice(3));
}

/* ---------------------------------------------------------------------------------------------- */
/* Contexts                                                                                        */
/* ---------------------------------------------------------------------------------------------- */

static void test_context_create_destroy(void **state)
{
    (void)state;
    aclrtContext cur = NULL;
    RT_EXPECT(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetCurrentContext(&cur));
    aclrtContext ctx = NULL;
    RT_OK(aclrtCreateContext(&ctx, 1));
    assert_non_null(ctx);
    RT_OK(aclrtGetCurrentContext(&cur));
    assert_ptr_equal(cur, ctx); /* creation makes it current */
    int32_t d = -1;
    RT_OK(aclrtGetDevice(&d));
    assert_int_equal(d, 1);
    aclrtStream def = NULL;
    RT_OK(aclrtCtxGetCurrentDefaultStream(&def));
    assert_non_null(def);
    RT_OK(aclrtSynchronizeStream(def));
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));

    /* Switch to device 0's default context and back. */
    RT_OK(aclrtSetDevice(0));
    aclrtContext primary0 = NULL;
    RT_OK(aclrtGetCurrentContext(&primary0));
    assert_ptr_not_equal(primary0, ctx);
    RT_OK(aclrtGetDevice(&d));
    assert_int_equal(d, 0);
    RT_OK(aclrtSetCurrentContext(ctx));
    RT_OK(aclrtGetDevice(&d));
    assert_int_equal(d, 1);
    RT_OK(aclrtGetCurrentContext(&cur));
    assert_ptr_equal(cur, ctx);

    RT_OK(aclrtDestroyContext(ctx));
    /* Its streams went with it (one destroy of each still succeeds), and the thread has no current
     * context any more. */
    RT_OK(aclrtDestroyStream(s));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDestroyStream(s));
    RT_EXPECT(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetCurrentContext(&cur));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDestroyContext(ctx));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtSetCurrentContext(ctx));
    assert_true(rt_contains(aclGetRecentErrMsg(), "not a live context"));

    /* Device 0's default context is untouched. */
    RT_OK(aclrtSetCurrentContext(primary0));
    RT_OK(aclrtGetDevice(&d));
    assert_int_equal(d, 0);
    RT_OK(aclrtResetDevice(0));
}

static void test_context_destroy_primary(void **state)
{
    (void)state;
    RT_OK(aclrtSetDevice(0));
    aclrtContext p = NULL;
    RT_OK(aclrtGetCurrentContext(&p));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDestroyContext(p));
    assert_true(rt_contains(aclGetRecentErrMsg(), "aclrtResetDevice"));
    /* Still usable. */
    aclrtContext again = NULL;
    RT_OK(aclrtGetCurrentContext(&again));
    assert_ptr_equal(again, p);
    rt_check_runtime_works(0);
    RT_OK(aclrtResetDevice(0));
}

static void test_context_bad_handles(void **state)
{
    (void)state;
    int local = 0;
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDestroyContext(&local));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtSetCurrentContext(&local));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDestroyContext(NULL));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtSetCurrentContext(NULL));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtCreateContext(NULL, 0));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtGetCurrentContext(NULL));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtCtxGetCurrentDefaultStream(NULL));
    assert_int_equal(local, 0);
    /* A handle of another kind is not a context. */
    RT_OK(aclrtSetDevice(0));
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDestroyContext(s));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtSetCurrentContext(s));
    aclrtEvent e = NULL;
    RT_OK(aclrtCreateEvent(&e));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDestroyContext(e));
    RT_OK(aclrtDestroyEvent(e));
    RT_OK(aclrtDestroyStream(s));
    RT_OK(aclrtResetDevice(0));
}

static void test_context_switches_device(void **state)
{
    (void)state;
    RT_OK(aclrtSetDevice(0));
    aclrtContext p0 = NULL;
    RT_OK(aclrtGetCurrentContext(&p0));
    aclrtContext c2 = NULL;
    RT_OK(aclrtCreateContext(&c2, 2));
    int32_t d = -1;
    RT_OK(aclrtGetDevice(&d));
    assert_int_equal(d, 2);
    /* Memory allocated now is on device 2. */
    void *p = NULL;
    RT_OK(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    assert_ptr_equal(cn_device_of_ptr(p), &g_rt.devices[2]);
    RT_OK(aclrtFree(p));
    RT_OK(aclrtSetCurrentContext(p0));
    RT_OK(aclrtGetDevice(&d));
    assert_int_equal(d, 0);
    RT_OK(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    assert_ptr_equal(cn_device_of_ptr(p), &g_rt.devices[0]);
    RT_OK(aclrtFree(p));
    /* Two user contexts on one device are independent. */
    aclrtContext c2b = NULL;
    RT_OK(aclrtCreateContext(&c2b, 2));
    assert_ptr_not_equal(c2b, c2);
    RT_OK(aclrtDestroyContext(c2));
    RT_OK(aclrtGetDevice(&d)); /* c2b is still current */
    assert_int_equal(d, 2);
    rt_check_runtime_works(2);
    RT_OK(aclrtDestroyContext(c2b));
    RT_OK(aclrtResetDevice(0));
    assert_false(g_rt.devices[2].open);
}

typedef struct ctx_thread_arg {
    aclrtContext ctx;
    aclError set, get;
    int32_t dev;
} ctx_thread_arg;

static void *thread_use_context(void *arg)
{
    ctx_thread_arg *a = arg;
    a->set = aclrtSetCurrentContext(a->ctx);
    a->get = aclrtGetDevice(&a->dev);
    return NULL;
}

static void test_context_shared_with_thread(void **state)
{
    (void)state;
    aclrtContext c = NULL;
    RT_OK(aclrtCreateContext(&c, 6));
    ctx_thread_arg a = {.ctx = c, .set = -1, .get = -1, .dev = -1};
    rt_thread_join(rt_thread_start(thread_use_context, &a));
    assert_int_equal(a.set, ACL_SUCCESS);
    assert_int_equal(a.get, ACL_SUCCESS);
    assert_int_equal(a.dev, 6);
    RT_OK(aclrtDestroyContext(c));
}

/* ---------------------------------------------------------------------------------------------- */
/* SoC name, run mode, memory info                                                                 */
/* ---------------------------------------------------------------------------------------------- */

static void test_soc_name_and_run_mode(void **state)
{
    (void)state;
    const char *a = aclrtGetSocName();
    assert_non_null(a);
    assert_string_equal(a, CANNON_CPU_SOC_NAME);
    const char *b = aclrtGetSocName();
    assert_non_null(b);
    assert_string_equal(a, b);
    /* Asking for the name does not leave a device open. */
    assert_false(g_rt.devices[0].open);

    aclrtRunMode m = ACL_DEVICE;
    RT_OK(aclrtGetRunMode(&m));
    assert_int_equal(m, ACL_HOST);
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtGetRunMode(NULL));
}

static void test_mem_info(void **state)
{
    (void)state;
    size_t f = 1, t = 1;
    RT_EXPECT(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetMemInfo(ACL_HBM_MEM, &f, &t));
    RT_OK(aclrtSetDevice(0));
    RT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &f, &t));
    assert_int_equal(t, (size_t)8 << 30); /* CANNON_CPU_DEVICE_MEMORY default */
    assert_int_equal(t, g_rt.devices[0].props.mem_capacity);
    assert_true(f <= t);
    size_t f_ddr = 0, t_ddr = 0;
    RT_OK(aclrtGetMemInfo(ACL_DDR_MEM, &f_ddr, &t_ddr));
    assert_int_equal(t_ddr, t);

    const size_t sz = (size_t)64 << 20;
    void *p = NULL;
    RT_OK(aclrtMalloc(&p, sz, ACL_MEM_MALLOC_HUGE_FIRST));
    size_t f2 = 0, t2 = 0;
    RT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &f2, &t2));
    assert_int_equal(t2, t);
    assert_true(f2 + sz <= f);
    RT_OK(aclrtFree(p));
    size_t f3 = 0, t3 = 0;
    RT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &f3, &t3));
    assert_int_equal(f3, f);
    assert_int_equal(t3, t);

    /* 1 GiB pages do not apply: 0 and 0. */
    RT_OK(aclrtGetMemInfo(ACL_MEM_HUGE1G, &f3, &t3));
    assert_int_equal(f3, 0);
    assert_int_equal(t3, 0);

    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtGetMemInfo((aclrtMemAttr)99, &f, &t));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtGetMemInfo((aclrtMemAttr)-1, &f, &t));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtGetMemInfo(ACL_HBM_MEM, NULL, &t));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtGetMemInfo(ACL_HBM_MEM, &f, NULL));
    RT_OK(aclrtResetDevice(0));
}

/* ---------------------------------------------------------------------------------------------- */
/* Device synchronisation                                                                          */
/* ---------------------------------------------------------------------------------------------- */

static void test_synchronize_device(void **state)
{
    (void)state;
    RT_EXPECT(ACL_ERROR_RT_CONTEXT_NULL, aclrtSynchronizeDevice());
    RT_EXPECT(ACL_ERROR_RT_CONTEXT_NULL, aclrtSynchronizeDeviceWithTimeout(100));
    RT_OK(aclrtSetDevice(0));
    RT_OK(aclrtSynchronizeDevice()); /* nothing to wait for */

    aclrtStream s1 = NULL, s2 = NULL;
    RT_OK(aclrtCreateStream(&s1));
    RT_OK(aclrtCreateStream(&s2));
    atomic_int f0, f1, f2;
    atomic_init(&f0, 0);
    atomic_init(&f1, 0);
    atomic_init(&f2, 0);
    RT_OK(cannonLaunchHostTask(NULL, rt_task_sleep, (void *)(uintptr_t)40));
    RT_OK(cannonLaunchHostTask(NULL, rt_task_set_flag, &f0));
    RT_OK(cannonLaunchHostTask(s1, rt_task_sleep, (void *)(uintptr_t)60));
    RT_OK(cannonLaunchHostTask(s1, rt_task_set_flag, &f1));
    RT_OK(cannonLaunchHostTask(s2, rt_task_sleep, (void *)(uintptr_t)20));
    RT_OK(cannonLaunchHostTask(s2, rt_task_set_flag, &f2));
    RT_OK(aclrtSynchronizeDevice());
    assert_int_equal(atomic_load(&f0), 1);
    assert_int_equal(atomic_load(&f1), 1);
    assert_int_equal(atomic_load(&f2), 1);

    /* A failing task's code comes back once. */
    RT_OK(cannonLaunchHostTask(s2, rt_task_fail, (void *)(intptr_t)ACL_ERROR_RT_PARAM_INVALID));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeDevice());
    RT_OK(aclrtSynchronizeDevice());

    RT_OK(aclrtDestroyStream(s1));
    RT_OK(aclrtDestroyStream(s2));
    RT_OK(aclrtResetDevice(0));
}

static void test_synchronize_device_timeout(void **state)
{
    (void)state;
    RT_OK(aclrtSetDevice(0));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeDeviceWithTimeout(0));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeDeviceWithTimeout(-2));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeDeviceWithTimeout(INT32_MIN));
    RT_OK(aclrtSynchronizeDeviceWithTimeout(-1));
    RT_OK(aclrtSynchronizeDeviceWithTimeout(50));

    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    atomic_int done;
    atomic_init(&done, 0);
    RT_OK(cannonLaunchHostTask(s, rt_task_sleep, (void *)(uintptr_t)300));
    RT_OK(cannonLaunchHostTask(s, rt_task_set_flag, &done));
    double t0 = rt_now_ms();
    RT_EXPECT(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeDeviceWithTimeout(30));
    double waited = rt_now_ms() - t0;
    assert_true(waited >= 25.0);
    assert_int_equal(atomic_load(&done), 0);
    RT_OK(aclrtSynchronizeDeviceWithTimeout(-1));
    assert_int_equal(atomic_load(&done), 1);
    RT_OK(aclrtDestroyStream(s));
    RT_OK(aclrtResetDevice(0));
}

/* ---------------------------------------------------------------------------------------------- */
/* Default device from the configuration                                                           */
/* ---------------------------------------------------------------------------------------------- */

typedef struct default_dev_result {
    aclError get, malloc_rc, free_rc, set, get2;
    int32_t dev, dev2;
} default_dev_result;

static void *thread_default_device(void *arg)
{
    default_dev_result *r = arg;
    r->get = aclrtGetDevice(&r->dev);
    void *p = NULL;
    r->malloc_rc = aclrtMalloc(&p, 128, ACL_MEM_MALLOC_HUGE_FIRST);
    r->free_rc = p ? aclrtFree(p) : -1;
    return NULL;
}

static void *thread_explicit_device(void *arg)
{
    default_dev_result *r = arg;
    r->set = aclrtSetDevice(3); /* explicit choice wins */
    r->get = aclrtGetDevice(&r->dev);
    r->get2 = aclrtResetDevice(3);
    return NULL;
}

static void test_default_device_config(void **state)
{
    (void)state;
    rt_forget_config_hash();
    rt_tmpdir d;
    rt_tmpdir_make(&d);
    const char *cfg = rt_tmpdir_write(&d, "dd.json", "{\"defaultDevice\":{\"default_device\":\"1\"}}");
    const char *bad = rt_tmpdir_write(&d, "dd_bad.json", "{\"defaultDevice\":{\"default_device\":\"01\"}}");
    const char *range = rt_tmpdir_write(&d, "dd_range.json", "{\"defaultDevice\":{\"default_device\":\"8\"}}");

    RT_OK(aclFinalize());
    RT_OK(aclInit(cfg));
    default_dev_result r;
    memset(&r, 0, sizeof(r));
    r.dev = -1;
    rt_thread_join(rt_thread_start(thread_default_device, &r));
    assert_int_equal(r.get, ACL_SUCCESS);
    assert_int_equal(r.dev, 1);
    assert_int_equal(r.malloc_rc, ACL_SUCCESS);
    assert_int_equal(r.free_rc, ACL_SUCCESS);

    memset(&r, 0, sizeof(r));
    rt_thread_join(rt_thread_start(thread_explicit_device, &r));
    assert_int_equal(r.set, ACL_SUCCESS);
    assert_int_equal(r.get, ACL_SUCCESS);
    assert_int_equal(r.dev, 3);
    assert_int_equal(r.get2, ACL_SUCCESS);

    /* This thread never chose a device since the init either. */
    int32_t dev = -1;
    RT_OK(aclrtGetDevice(&dev));
    assert_int_equal(dev, 1);
    rt_check_runtime_works(4);
    RT_OK(aclFinalize());
    /* Implicit references to the default device are not the application's leaks. */
    assert_int_equal(g_rt.last_leaks.device_refs, 0);

    /* Without the config, a new thread has no device again. */
    RT_OK(aclInit(NULL));
    memset(&r, 0, sizeof(r));
    rt_thread_join(rt_thread_start(thread_default_device, &r));
    assert_int_equal(r.get, ACL_ERROR_RT_CONTEXT_NULL);
    assert_int_equal(r.malloc_rc, ACL_ERROR_RT_CONTEXT_NULL);
    RT_OK(aclFinalize());

    /* A malformed or out-of-range default device fails aclInit with ACL_ERROR_FAILURE. */
    rt_forget_config_hash();
    RT_EXPECT(ACL_ERROR_FAILURE, aclInit(bad));
    rt_forget_config_hash();
    RT_EXPECT(ACL_ERROR_FAILURE, aclInit(range));
    assert_int_equal(g_rt.init_refs, 0);
    rt_forget_config_hash();

    RT_OK(aclInit(NULL)); /* for the teardown */
    rt_tmpdir_remove(&d);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, rt_setup, rt_teardown)
    const struct CMUnitTest tests[] = {
        T(test_device_count_default),
        T(test_device_count_env),
        T(test_set_get_device),
        T(test_device_id_out_of_range),
        T(test_reset_device_refcount),
        T(test_teardown_after_reset),
        T(test_reset_device_force),
        T(test_current_device_per_thread),
        T(test_context_create_destroy),
        T(test_context_destroy_primary),
        T(test_context_bad_handles),
        T(test_context_switches_device),
        T(test_context_shared_with_thread),
        T(test_soc_name_and_run_mode),
        T(test_mem_info),
        T(test_synchronize_device),
        T(test_synchronize_device_timeout),
        T(test_default_device_config),
    };
#undef T
    return cmocka_run_group_tests(tests, group_setup, NULL);
}
