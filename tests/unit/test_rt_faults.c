/* Runtime API tests: allocation-failure injection on every creation path (each either succeeds or
 * fails cleanly with its documented code, and the runtime keeps working; ASan checks that the
 * error paths leak nothing), and the driver loader (the CPU driver as a module, a bogus module). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_util.h"
#include "cannon/cpu.h"

#define INJECT_CAP 500

static rt_tmpdir g_dir;
static const char *g_config; /* one configuration for the whole program (see aclInit's rule) */

static int group_setup(void **state)
{
    (void)state;
    rt_tmpdir_make(&g_dir);
    g_config = rt_tmpdir_write(&g_dir, "faults.json",
                               "{\"err_msg_mode\": \"0\", \"max_opqueue_num\": \"500\", "
                               "\"dump\": {\"dump_path\": \"/tmp\", \"dump_debug\": \"off\"}}");
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    rt_tmpdir_remove(&g_dir);
    return 0;
}

/* The path under test: preparation (not injected), the operation (injected), cleanup after a
 * success (not injected). */
typedef struct fault_path {
    const char *name;
    void (*prepare)(void);
    aclError (*op)(void);
    void (*cleanup_ok)(void);
    void (*cleanup_fail)(void);
    aclError allowed[3]; /* codes besides ACL_SUCCESS; 0-terminated */
} fault_path;

static aclrtStream g_stream;
static aclrtContext g_ctx;
static aclrtEvent g_event;
static void *g_mem;
static atomic_int g_cb_runs;

static void cb_count(void *arg)
{
    (void)arg;
    atomic_fetch_add(&g_cb_runs, 1);
}

/* ---- paths ---- */

static aclError op_init(void) { return aclInit(g_config); }
static void cleanup_init_ok(void) {}

static void prep_init_default(void) { assert_int_equal(aclInit(NULL), ACL_SUCCESS); }
static void prep_device(void)
{
    prep_init_default();
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
}
static void prep_stream(void)
{
    prep_device();
    assert_int_equal(aclrtCreateStream(&g_stream), ACL_SUCCESS);
}
static void prep_subscribed(void)
{
    prep_stream();
    assert_int_equal(aclrtSubscribeReport((uint64_t)pthread_self(), g_stream), ACL_SUCCESS);
}

static aclError op_set_device(void) { return aclrtSetDevice(0); }
static void cleanup_set_device_ok(void) { assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS); }

static aclError op_create_context(void) { return aclrtCreateContext(&g_ctx, 1); }
static void cleanup_context_ok(void) { assert_int_equal(aclrtDestroyContext(g_ctx), ACL_SUCCESS); }

static aclError op_create_stream(void)
{
    aclrtStream s = NULL;
    aclError rc = aclrtCreateStream(&s);
    if (rc == ACL_SUCCESS)
        g_stream = s;
    return rc;
}
static void cleanup_stream_ok(void) { assert_int_equal(aclrtDestroyStream(g_stream), ACL_SUCCESS); }

static aclError op_create_event(void) { return aclrtCreateEvent(&g_event); }
static void cleanup_event_ok(void) { assert_int_equal(aclrtDestroyEvent(g_event), ACL_SUCCESS); }

static aclError op_malloc(void) { return aclrtMalloc(&g_mem, 4096, ACL_MEM_MALLOC_HUGE_FIRST); }
static void cleanup_malloc_ok(void) { assert_int_equal(aclrtFree(g_mem), ACL_SUCCESS); }

static aclError op_malloc_host(void) { return aclrtMallocHost(&g_mem, 4096); }
static void cleanup_malloc_host_ok(void) { assert_int_equal(aclrtFreeHost(g_mem), ACL_SUCCESS); }

static aclError op_subscribe(void) { return aclrtSubscribeReport((uint64_t)pthread_self(), g_stream); }
static void cleanup_subscribe_ok(void)
{
    assert_int_equal(aclrtUnSubscribeReport((uint64_t)pthread_self(), g_stream), ACL_SUCCESS);
}

static aclError op_launch_callback(void) { return aclrtLaunchCallback(cb_count, NULL, ACL_CALLBACK_NO_BLOCK, g_stream); }
static void cleanup_callback_ok(void)
{
    assert_int_equal(aclrtSynchronizeStream(g_stream), ACL_SUCCESS);
    assert_int_equal(aclrtProcessReport(2000), ACL_SUCCESS);
    assert_int_equal(atomic_load(&g_cb_runs), 1);
    assert_int_equal(aclrtUnSubscribeReport((uint64_t)pthread_self(), g_stream), ACL_SUCCESS);
}
static void cleanup_callback_fail(void)
{
    assert_int_equal(aclrtSynchronizeStream(g_stream), ACL_SUCCESS);
    assert_int_equal(aclrtProcessReport(10), ACL_ERROR_RT_REPORT_TIMEOUT);
    assert_int_equal(atomic_load(&g_cb_runs), 0);
    assert_int_equal(aclrtUnSubscribeReport((uint64_t)pthread_self(), g_stream), ACL_SUCCESS);
}

static aclError op_launch_host_func(void)
{
    return aclrtLaunchHostFunc(g_stream, cb_count, NULL);
}
static void cleanup_host_func_ok(void)
{
    assert_int_equal(aclrtSynchronizeStream(g_stream), ACL_SUCCESS);
    assert_int_equal(atomic_load(&g_cb_runs), 1);
}

/* ---- the driver of the loop ---- */

static bool allowed(const fault_path *p, aclError rc)
{
    if (rc == ACL_SUCCESS)
        return true;
    for (int i = 0; i < 3 && p->allowed[i]; i++)
        if (rc == p->allowed[i])
            return true;
    return false;
}

static void run_fault_path(const fault_path *p)
{
    int failures = 0;
    long n;
    for (n = 0; n < INJECT_CAP; n++) {
        g_stream = NULL;
        g_ctx = NULL;
        g_event = NULL;
        g_mem = NULL;
        atomic_store(&g_cb_runs, 0);
        if (p->prepare)
            p->prepare();
        (void)aclGetRecentErrMsg();
        cn_fault_inject_reset_count();
        cn_fault_inject_set(n);
        aclError rc = p->op();
        long made = cn_fault_inject_count();
        cn_fault_inject_set(-1);
        if (getenv("RT_FAULT_VERBOSE"))
            print_message("%s: fail allocation #%ld -> rc %d (%ld allocation(s) attempted)\n", p->name, n + 1, rc,
                          made);
        if (!allowed(p, rc)) {
            const char *m = aclGetRecentErrMsg();
            print_error("%s: with allocation %ld failing, it returned %d; error text: %s\n", p->name, n + 1, rc,
                        m ? m : "(none)");
        }
        assert_true(allowed(p, rc));
        if (rc != ACL_SUCCESS) {
            failures++;
            /* The failure is explained. */
            assert_non_null(aclGetRecentErrMsg());
            if (p->cleanup_fail)
                p->cleanup_fail();
            if (p->op == op_init) /* a failed init leaves the runtime uninitialised */
                assert_int_equal(aclInit(g_config), ACL_SUCCESS);
        } else if (p->cleanup_ok) {
            p->cleanup_ok();
        }
        /* The runtime still works, and finalizes cleanly. */
        rt_check_runtime_works(2);
        assert_int_equal(aclFinalize(), ACL_SUCCESS);
        (void)aclGetRecentErrMsg();
        if (rc == ACL_SUCCESS && made <= n)
            break; /* the whole path ran without reaching the injected failure */
    }
    print_message("%s: %d injected failure(s) handled, success after %ld allocation(s)\n", p->name, failures, n);
    assert_true(n < INJECT_CAP);
    /* Each path allocates at least once (else the test checks nothing). */
    if (failures == 0)
        print_error("%s: no allocation failure was ever hit\n", p->name);
    assert_true(failures >= 1);
}

static void test_fault_init(void **state)
{
    (void)state;
    fault_path p = {"aclInit(config)", NULL, op_init, cleanup_init_ok, NULL, {ACL_ERROR_BAD_ALLOC, 0, 0}};
    run_fault_path(&p);
}

static void test_fault_set_device(void **state)
{
    (void)state;
    fault_path p = {"aclrtSetDevice", prep_init_default, op_set_device, cleanup_set_device_ok, NULL,
                    {ACL_ERROR_BAD_ALLOC, 0, 0}};
    run_fault_path(&p);
}

static void test_fault_create_context(void **state)
{
    (void)state;
    fault_path p = {"aclrtCreateContext", prep_init_default, op_create_context, cleanup_context_ok, NULL,
                    {ACL_ERROR_BAD_ALLOC, 0, 0}};
    run_fault_path(&p);
}

static void test_fault_create_stream(void **state)
{
    (void)state;
    fault_path p = {"aclrtCreateStream", prep_device, op_create_stream, cleanup_stream_ok, NULL,
                    {ACL_ERROR_BAD_ALLOC, 0, 0}};
    run_fault_path(&p);
}

static void test_fault_create_event(void **state)
{
    (void)state;
    fault_path p = {"aclrtCreateEvent", prep_device, op_create_event, cleanup_event_ok, NULL,
                    {ACL_ERROR_BAD_ALLOC, 0, 0}};
    run_fault_path(&p);
}

static void test_fault_malloc(void **state)
{
    (void)state;
    /* Bookkeeping failures are ACL_ERROR_BAD_ALLOC (devalloc.h); 207001 is for an exhausted device. */
    fault_path p = {"aclrtMalloc", prep_device, op_malloc, cleanup_malloc_ok, NULL, {ACL_ERROR_BAD_ALLOC, 0, 0}};
    run_fault_path(&p);
}

static void test_fault_malloc_host(void **state)
{
    (void)state;
    fault_path p = {"aclrtMallocHost", prep_device, op_malloc_host, cleanup_malloc_host_ok, NULL,
                    {ACL_ERROR_BAD_ALLOC, 0, 0}};
    run_fault_path(&p);
}

static void test_fault_subscribe(void **state)
{
    (void)state;
    fault_path p = {"aclrtSubscribeReport", prep_stream, op_subscribe, cleanup_subscribe_ok, NULL,
                    {ACL_ERROR_BAD_ALLOC, 0, 0}};
    run_fault_path(&p);
}

static void test_fault_launch_callback(void **state)
{
    (void)state;
    fault_path p = {"aclrtLaunchCallback", prep_subscribed, op_launch_callback, cleanup_callback_ok,
                    cleanup_callback_fail, {ACL_ERROR_BAD_ALLOC, 0, 0}};
    run_fault_path(&p);
}

static void test_fault_launch_host_func(void **state)
{
    (void)state;
    fault_path p = {"aclrtLaunchHostFunc", prep_stream, op_launch_host_func, cleanup_host_func_ok, NULL,
                    {ACL_ERROR_BAD_ALLOC, 0, 0}};
    run_fault_path(&p);
}

/* ---------------------------------------------------------------------------------------------- */
/* Driver modules                                                                                  */
/* ---------------------------------------------------------------------------------------------- */

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static void test_driver_module(void **state)
{
    (void)state;
    const char *path = getenv("CANNON_DRIVER_PATH");
    if (!path || !*path) {
        print_message("CANNON_DRIVER_PATH is not set (run through CTest); skipping\n");
        skip();
    }
    setenv("CANNON_DRIVER", "cpu", 1);
    RT_OK(aclInit(NULL));
    assert_non_null(g_rt.driver.iface);
    assert_string_equal(g_rt.driver.iface->name, "cpu");
    assert_string_not_equal(g_rt.driver.source, "built-in");
    assert_true(ends_with(g_rt.driver.source, "/libcannon-driver-cpu.so"));
    assert_non_null(g_rt.driver.dl);
    assert_int_equal(g_rt.driver.iface->abi_version, CANNON_DRIVER_ABI_VERSION);
    /* The module is a distinct copy of the driver, not the built-in table. */
    bool builtin_seen = false;
    for (size_t i = 0; i < g_rt.n_candidates; i++)
        if (strcmp(g_rt.candidates[i].source, "built-in") == 0) {
            builtin_seen = true;
            assert_ptr_not_equal(g_rt.candidates[i].iface, g_rt.driver.iface);
        }
    assert_true(builtin_seen);
    uint32_t n = 0;
    RT_OK(aclrtGetDeviceCount(&n));
    assert_int_equal(n, 8);
    assert_string_equal(aclrtGetSocName(), CANNON_CPU_SOC_NAME);
    rt_check_runtime_works(1);
    /* Events and async copies through the module too. */
    RT_OK(aclrtSetDevice(0));
    aclrtEvent e = NULL;
    RT_OK(aclrtCreateEvent(&e));
    RT_OK(cannonLaunchHostTask(NULL, rt_task_sleep, (void *)(uintptr_t)5));
    RT_OK(aclrtRecordEvent(e, NULL));
    RT_OK(aclrtSynchronizeEvent(e));
    RT_OK(aclrtDestroyEvent(e));
    RT_OK(aclrtResetDevice(0));
    RT_OK(aclFinalize());
    unsetenv("CANNON_DRIVER");

    /* Without CANNON_DRIVER the built-in driver wins the tie. */
    RT_OK(aclInit(NULL));
    assert_string_equal(g_rt.driver.source, "built-in");
    RT_OK(aclFinalize());
}

static void test_driver_bogus_module(void **state)
{
    (void)state;
    const char *old = getenv("CANNON_DRIVER_PATH");
    char *saved = old ? strdup(old) : NULL;
    rt_tmpdir d;
    rt_tmpdir_make(&d);
    rt_tmpdir_write(&d, "libcannon-driver-bogus.so", "this is not a shared object\n");
    rt_tmpdir_write(&d, "unrelated.so", "ignored: not named like a driver\n");
    setenv("CANNON_DRIVER_PATH", d.path, 1);
    unsetenv("CANNON_DRIVER");

    RT_OK(aclInit(NULL));
    assert_string_equal(g_rt.driver.source, "built-in");
    bool found = false;
    for (size_t i = 0; i < g_rt.n_rejected; i++) {
        if (strstr(g_rt.rejected[i].path, "libcannon-driver-bogus.so")) {
            found = true;
            assert_true(strlen(g_rt.rejected[i].reason) > 0);
            assert_true(rt_contains(g_rt.rejected[i].reason, "dlopen"));
        }
        assert_null(strstr(g_rt.rejected[i].path, "unrelated.so"));
    }
    assert_true(found);
    rt_check_runtime_works(0);
    RT_OK(aclFinalize());

    /* A path entry that does not exist is rejected too, and the runtime still works. */
    setenv("CANNON_DRIVER_PATH", "/nonexistent/cannon-driver-dir", 1);
    RT_OK(aclInit(NULL));
    found = false;
    for (size_t i = 0; i < g_rt.n_rejected; i++)
        if (strstr(g_rt.rejected[i].path, "/nonexistent/cannon-driver-dir"))
            found = rt_contains(g_rt.rejected[i].reason, "not found");
    assert_true(found);
    rt_check_runtime_works(0);
    RT_OK(aclFinalize());

    /* Asking for a driver that does not exist: no usable driver. */
    setenv("CANNON_DRIVER", "bogus", 1);
    RT_EXPECT(ACL_ERROR_RT_NO_DEVICE, aclInit(NULL));
    assert_int_equal(g_rt.init_refs, 0);
    unsetenv("CANNON_DRIVER");
    RT_OK(aclInit(NULL));
    rt_check_runtime_works(0);
    RT_OK(aclFinalize());

    if (saved) {
        setenv("CANNON_DRIVER_PATH", saved, 1);
        free(saved);
    } else {
        unsetenv("CANNON_DRIVER_PATH");
    }
    rt_tmpdir_remove(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fault_init),
        cmocka_unit_test(test_fault_set_device),
        cmocka_unit_test(test_fault_create_context),
        cmocka_unit_test(test_fault_create_stream),
        cmocka_unit_test(test_fault_create_event),
        cmocka_unit_test(test_fault_malloc),
        cmocka_unit_test(test_fault_malloc_host),
        cmocka_unit_test(test_fault_subscribe),
        cmocka_unit_test(test_fault_launch_callback),
        cmocka_unit_test(test_fault_launch_host_func),
        cmocka_unit_test(test_driver_module),
        cmocka_unit_test(test_driver_bogus_module),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
