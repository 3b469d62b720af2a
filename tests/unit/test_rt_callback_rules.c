/* Runtime API tests: the host-callback rules (docs/runtime.md, "Host callbacks").
 *
 * A callback (aclrtLaunchHostFunc, cannonLaunchHostTask, a BLOCK aclrtLaunchCallback) is waited
 * for by its stream, so from inside it every call that would wait for that stream — or tear it
 * down — must fail at once with 107000 instead of deadlocking or freeing the stream under its own
 * thread; a teardown on another thread while callbacks run must be safe; waits on an event that
 * another thread destroys end with an error; and work a teardown drops is reported. A watchdog
 * turns any deadlock into a failure of the program. */
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

/* Wait (bounded) until *flag becomes nonzero. */
static bool wait_flag(atomic_int *flag, int timeout_ms)
{
    double end = rt_now_ms() + timeout_ms;
    while (!atomic_load(flag)) {
        if (rt_now_ms() > end)
            return false;
        rt_sleep_ms(1);
    }
    return true;
}

/* A host function that runs a scenario function with the stream it was launched on. */
typedef struct cb_call {
    void (*body)(struct cb_call *);
    aclrtStream stream;
    aclrtStream other;
    aclrtContext ctx;
    aclError rc[16];
    int32_t dev;
    void *ptr;
    atomic_int ran;
} cb_call;

static void cb_run(void *arg)
{
    cb_call *c = arg;
    c->body(c);
    atomic_store(&c->ran, 1);
}

static void cb_init(cb_call *c, void (*body)(cb_call *), aclrtStream s)
{
    memset(c, 0, sizeof(*c));
    c->body = body;
    c->stream = s;
    for (size_t i = 0; i < CN_ARRAY_SIZE(c->rc); i++)
        c->rc[i] = -1;
    atomic_init(&c->ran, 0);
}

/* Launch c on its stream and wait for the stream, under the watchdog. */
static void cb_launch_and_wait(cb_call *c, const char *what)
{
    rt_watchdog_arm(60, what);
    RT_OK(aclrtLaunchHostFunc(c->stream, cb_run, c));
    RT_OK(aclrtSynchronizeStream(c->stream));
    rt_watchdog_disarm();
    assert_int_equal(atomic_load(&c->ran), 1);
}

/* ---------------------------------------------------------------------------------------------- */
/* Calls a callback may not make                                                                    */
/* ---------------------------------------------------------------------------------------------- */

static void body_finalize(cb_call *c)
{
    c->rc[0] = aclFinalize();
    c->rc[1] = aclrtGetDevice(&c->dev); /* the runtime is still up */
}

/* aclFinalize from a callback would destroy the stream running it (and free the task being run). */
static void test_finalize_in_host_func(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    cb_call c;
    cb_init(&c, body_finalize, s);
    cb_launch_and_wait(&c, "aclFinalize inside a host callback");
    assert_int_equal(c.rc[0], ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(c.rc[1], ACL_SUCCESS);
    assert_int_equal(c.dev, 0);
    /* Everything still works, and the stream can go normally. */
    rt_check_runtime_works(0);
    RT_OK(aclrtDestroyStream(s));
}

static void body_finalize_reference(cb_call *c)
{
    uint64_t left = 99;
    c->rc[0] = aclFinalizeReference(&left); /* 2 -> 1: allowed, nothing is torn down */
    c->rc[1] = (aclError)left;
    left = 99;
    c->rc[2] = aclFinalizeReference(&left); /* 1 -> 0 would tear down: refused, count kept */
    c->rc[3] = (aclError)left;
}

static void test_finalize_reference_in_host_func(void **state)
{
    (void)state;
    RT_EXPECT(ACL_ERROR_REPEAT_INITIALIZE, aclInit(NULL)); /* two references */
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    cb_call c;
    cb_init(&c, body_finalize_reference, s);
    cb_launch_and_wait(&c, "aclFinalizeReference inside a host callback");
    assert_int_equal(c.rc[0], ACL_SUCCESS);
    assert_int_equal(c.rc[1], 1);
    assert_int_equal(c.rc[2], ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(c.rc[3], 1);
    RT_OK(aclrtDestroyStream(s));
}

static void body_own_stream(cb_call *c)
{
    uint8_t host[64] = {0};
    c->rc[0] = aclrtSynchronizeStream(c->stream);
    c->rc[1] = aclrtSynchronizeStreamWithTimeout(c->stream, 100);
    c->rc[2] = aclrtSynchronizeDevice();
    c->rc[3] = aclrtSynchronizeDeviceWithTimeout(100);
    c->rc[4] = aclrtDestroyStream(c->stream);
    c->rc[5] = aclrtDestroyStreamForce(c->stream);
    c->rc[6] = aclrtFreeWithDevSync(c->ptr);
    /* A copy from pageable memory waits for its own position on the stream. */
    c->rc[7] = aclrtMemcpyAsync(c->ptr, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE, c->stream);
    /* Allowed: waiting for another (idle) stream, queries, memory, enqueueing behind itself. */
    c->rc[8] = aclrtSynchronizeStream(c->other);
    c->rc[9] = aclrtGetDevice(&c->dev);
    void *p = NULL;
    c->rc[10] = aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST);
    if (c->rc[10] == ACL_SUCCESS)
        c->rc[11] = aclrtFree(p);
    c->rc[12] = aclrtMemsetAsync(c->ptr, 64, 0x7, 64, c->stream);
    aclrtStreamStatus st;
    c->rc[13] = aclrtStreamQuery(c->stream, &st);
}

static void check_own_stream(const cb_call *c, const char *what)
{
    for (int i = 0; i < 8; i++)
        if (c->rc[i] != ACL_ERROR_RT_PARAM_INVALID)
            fail_msg("%s: call %d returned %d, expected 107000", what, i, c->rc[i]);
    for (int i = 8; i < 14; i++)
        if (c->rc[i] != ACL_SUCCESS)
            fail_msg("%s: call %d returned %d, expected 0", what, i, c->rc[i]);
}

static void test_own_stream_waits_refused(void **state)
{
    (void)state;
    aclrtStream s = NULL, other = NULL;
    RT_OK(aclrtCreateStream(&s));
    RT_OK(aclrtCreateStream(&other));
    void *d = NULL;
    RT_OK(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST));

    cb_call c;
    cb_init(&c, body_own_stream, s);
    c.other = other;
    c.ptr = d;
    cb_launch_and_wait(&c, "waits on its own stream inside a host callback");
    check_own_stream(&c, "explicit stream");
    assert_int_equal(c.dev, 0);
    /* The fill the callback enqueued behind itself came after the synchronize's target. */
    RT_OK(aclrtSynchronizeStream(s));
    uint8_t back[64];
    RT_OK(aclrtMemcpy(back, 64, d, 64, ACL_MEMCPY_DEVICE_TO_HOST));
    assert_int_equal(back[63], 0x7);

    /* The same on the default stream (NULL): its callbacks run on it too. */
    aclrtStream def = NULL;
    RT_OK(aclrtCtxGetCurrentDefaultStream(&def));
    cb_init(&c, body_own_stream, def);
    c.other = other;
    c.ptr = d;
    cb_launch_and_wait(&c, "waits on the default stream inside its host callback");
    assert_int_equal(c.rc[0], ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(c.rc[1], ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(c.rc[2], ACL_ERROR_RT_PARAM_INVALID);
    /* A default stream cannot be destroyed at all. */
    assert_int_equal(c.rc[4], ACL_ERROR_INVALID_PARAM);
    assert_int_equal(c.rc[8], ACL_SUCCESS);

    /* The stream and the runtime are fine afterwards. */
    RT_OK(aclrtSynchronizeStream(s));
    RT_OK(aclrtFree(d));
    RT_OK(aclrtDestroyStream(other));
    RT_OK(aclrtDestroyStream(s));
}

static void body_reset(cb_call *c)
{
    c->rc[0] = aclrtResetDevice(0);
    c->rc[1] = aclrtResetDeviceForce(0);
}

static void body_destroy_ctx(cb_call *c) { c->rc[0] = aclrtDestroyContext(c->ctx); }

static void body_set_device(cb_call *c)
{
    /* A callback may use another device; what it sets ends with it. */
    c->rc[0] = aclrtSetDevice(1);
    c->rc[1] = aclrtGetDevice(&c->dev);
    c->rc[2] = aclrtResetDevice(1);
}

static void body_get_device(cb_call *c) { c->rc[0] = aclrtGetDevice(&c->dev); }

static void test_teardown_of_own_stream_refused(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    cb_call c;
    /* The last reference of device 0 would destroy the stream: refused. */
    cb_init(&c, body_reset, s);
    cb_launch_and_wait(&c, "aclrtResetDevice inside a host callback");
    assert_int_equal(c.rc[0], ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(c.rc[1], ACL_ERROR_RT_PARAM_INVALID);
    /* With a second reference, a reset only drops one: allowed. */
    RT_OK(aclrtSetDevice(0));
    cb_init(&c, body_reset, s);
    cb_launch_and_wait(&c, "aclrtResetDevice (not the last reference) inside a host callback");
    assert_int_equal(c.rc[0], ACL_SUCCESS);
    assert_int_equal(c.rc[1], ACL_ERROR_RT_PARAM_INVALID); /* the force form would still destroy it */

    /* Another device: allowed, and the callback's choice does not outlive it. */
    cb_init(&c, body_set_device, s);
    cb_launch_and_wait(&c, "aclrtSetDevice inside a host callback");
    assert_int_equal(c.rc[0], ACL_SUCCESS);
    assert_int_equal(c.rc[1], ACL_SUCCESS);
    assert_int_equal(c.dev, 1);
    assert_int_equal(c.rc[2], ACL_SUCCESS);
    cb_init(&c, body_get_device, s);
    cb_launch_and_wait(&c, "aclrtGetDevice inside a host callback");
    assert_int_equal(c.rc[0], ACL_SUCCESS);
    assert_int_equal(c.dev, 0);
    RT_OK(aclrtDestroyStream(s));

    /* A user context whose stream runs the callback. */
    aclrtContext ctx = NULL;
    RT_OK(aclrtCreateContext(&ctx, 2));
    aclrtStream s2 = NULL;
    RT_OK(aclrtCreateStream(&s2));
    cb_init(&c, body_destroy_ctx, s2);
    c.ctx = ctx;
    cb_launch_and_wait(&c, "aclrtDestroyContext inside a host callback");
    assert_int_equal(c.rc[0], ACL_ERROR_RT_PARAM_INVALID);
    cb_init(&c, body_get_device, s2);
    cb_launch_and_wait(&c, "aclrtGetDevice inside a user context's callback");
    assert_int_equal(c.dev, 2);
    RT_OK(aclrtDestroyStream(s2));
    RT_OK(aclrtDestroyContext(ctx));
    RT_OK(aclrtSetDevice(0));
}

/* ---------------------------------------------------------------------------------------------- */
/* Callbacks delivered to a subscribed thread (aclrtLaunchCallback)                                */
/* ---------------------------------------------------------------------------------------------- */

typedef struct reporter {
    pthread_t thread;
    atomic_int stop;
} reporter;

static void *reporter_main(void *arg)
{
    reporter *r = arg;
    while (!atomic_load(&r->stop)) {
        aclError rc = aclrtProcessReport(20);
        if (rc == ACL_ERROR_RT_THREAD_SUBSCRIBE)
            rt_sleep_ms(1);
    }
    return NULL;
}

static void body_report_block(cb_call *c)
{
    c->rc[0] = aclrtSynchronizeStream(c->stream);
    c->rc[1] = aclrtDestroyStream(c->stream);
    c->rc[2] = aclFinalize();
    c->rc[3] = aclrtSynchronizeStream(c->other);
}

static void test_block_report_callback_rules(void **state)
{
    (void)state;
    aclrtStream s = NULL, other = NULL;
    RT_OK(aclrtCreateStream(&s));
    RT_OK(aclrtCreateStream(&other));
    reporter r;
    atomic_init(&r.stop, 0);
    r.thread = rt_thread_start(reporter_main, &r);
    RT_OK(aclrtSubscribeReport((uint64_t)r.thread, s));
    cb_call c;
    cb_init(&c, body_report_block, s);
    c.other = other;
    rt_watchdog_arm(60, "a BLOCK callback waiting on its own stream");
    RT_OK(aclrtLaunchCallback(cb_run, &c, ACL_CALLBACK_BLOCK, s));
    RT_OK(aclrtSynchronizeStream(s));
    rt_watchdog_disarm();
    assert_int_equal(atomic_load(&c.ran), 1);
    assert_int_equal(c.rc[0], ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(c.rc[1], ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(c.rc[2], ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(c.rc[3], ACL_SUCCESS);
    RT_OK(aclrtUnSubscribeReport((uint64_t)r.thread, s));
    atomic_store(&r.stop, 1);
    rt_thread_join(r.thread);
    RT_OK(aclrtDestroyStream(other));
    RT_OK(aclrtDestroyStream(s));
}

/* ---------------------------------------------------------------------------------------------- */
/* Teardown on another thread while a callback runs                                                */
/* ---------------------------------------------------------------------------------------------- */

typedef struct td_probe {
    atomic_int entered;
    atomic_int tearing; /* the other thread is about to tear down */
    aclError get_device_rc, malloc_rc, free_rc, create_event_rc;
    int32_t dev;
    int reset; /* 1: the other thread resets device 0 instead of finalizing */
    aclError teardown_rc;
} td_probe;

/* Whether another thread holds the runtime's lock (probed without waiting for it). */
static bool lock_held_elsewhere(void)
{
    if (pthread_mutex_trylock(&g_rt.lock) != 0)
        return true;
    pthread_mutex_unlock(&g_rt.lock);
    return false;
}

static void cb_during_teardown(void *arg)
{
    td_probe *p = arg;
    atomic_store(&p->entered, 1);
    double end = rt_now_ms() + 10000.0;
    while (!atomic_load(&p->tearing) && rt_now_ms() < end)
        rt_sleep_ms(1);
    /* Wait until the tearing thread holds the runtime lock (it then waits for this callback). */
    while (!lock_held_elsewhere() && rt_now_ms() < end)
        rt_sleep_ms(1);
    p->get_device_rc = aclrtGetDevice(&p->dev);
    void *m = NULL;
    p->malloc_rc = aclrtMalloc(&m, 64, ACL_MEM_MALLOC_HUGE_FIRST);
    if (p->malloc_rc == ACL_SUCCESS)
        p->free_rc = aclrtFree(m);
    aclrtEvent e = NULL;
    p->create_event_rc = aclrtCreateEvent(&e);
    if (p->create_event_rc == ACL_SUCCESS)
        aclrtDestroyEvent(e);
}

static void *tear_main(void *arg)
{
    td_probe *p = arg;
    atomic_store(&p->tearing, 1);
    p->teardown_rc = p->reset ? aclrtResetDevice(0) : aclFinalize();
    return NULL;
}

static void teardown_while_callback_runs(int reset)
{
    td_probe p;
    memset(&p, 0, sizeof(p));
    atomic_init(&p.entered, 0);
    atomic_init(&p.tearing, 0);
    p.reset = reset;
    p.get_device_rc = p.malloc_rc = p.free_rc = p.create_event_rc = -1;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    RT_OK(aclrtLaunchHostFunc(s, cb_during_teardown, &p));
    assert_true(wait_flag(&p.entered, 10000));
    rt_watchdog_arm(60, reset ? "aclrtResetDevice while a callback runs" : "aclFinalize while a callback runs");
    pthread_t t = rt_thread_start(tear_main, &p);
    rt_thread_join(t);
    rt_watchdog_disarm();
    assert_int_equal(p.teardown_rc, ACL_SUCCESS);
    /* The callback keeps its stream's context: no lock needed, so these work. */
    assert_int_equal(p.get_device_rc, ACL_SUCCESS);
    assert_int_equal(p.dev, 0);
    assert_int_equal(p.malloc_rc, ACL_SUCCESS);
    assert_int_equal(p.free_rc, ACL_SUCCESS);
    /* Creating objects needs the lock the teardown holds while it waits for this callback. */
    assert_int_equal(p.create_event_rc, ACL_ERROR_RT_PARAM_INVALID);
}

static void test_finalize_while_host_func_runs(void **state)
{
    (void)state;
    teardown_while_callback_runs(0);
    RT_OK(aclInit(NULL)); /* for the fixture's teardown */
}

static void test_reset_while_host_func_runs(void **state)
{
    (void)state;
    teardown_while_callback_runs(1);
    /* The stream went with the device's default context. */
    RT_OK(aclrtSetDevice(0));
}

/* ---------------------------------------------------------------------------------------------- */
/* Events destroyed while another thread waits for them                                             */
/* ---------------------------------------------------------------------------------------------- */

typedef struct ev_waiter {
    aclrtEvent e;
    int32_t timeout; /* 0: aclrtSynchronizeEvent */
    atomic_int started, done;
    aclError rc;
} ev_waiter;

static void *ev_wait_main(void *arg)
{
    ev_waiter *w = arg;
    atomic_store(&w->started, 1);
    w->rc = w->timeout ? aclrtSynchronizeEventWithTimeout(w->e, w->timeout) : aclrtSynchronizeEvent(w->e);
    atomic_store(&w->done, 1);
    return NULL;
}

static void event_destroyed_while_waiting(int32_t timeout)
{
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    rt_gate g;
    rt_gate_init(&g);
    RT_OK(cannonLaunchHostTask(s, rt_task_gate, &g));
    aclrtEvent e = NULL;
    RT_OK(aclrtCreateEvent(&e));
    RT_OK(aclrtRecordEvent(e, s)); /* pending behind the gate */
    ev_waiter w;
    memset(&w, 0, sizeof(w));
    w.e = e;
    w.timeout = timeout;
    atomic_init(&w.started, 0);
    atomic_init(&w.done, 0);
    pthread_t t = rt_thread_start(ev_wait_main, &w);
    assert_true(wait_flag(&w.started, 5000));
    rt_sleep_ms(50);
    RT_OK(aclrtDestroyEvent(e));
    /* The waiter ends with an error while the record is still pending. */
    bool ended = wait_flag(&w.done, 3000);
    rt_gate_open(&g);
    rt_thread_join(t);
    assert_true(ended);
    assert_int_equal(w.rc, ACL_ERROR_INVALID_PARAM);
    RT_OK(aclrtSynchronizeStream(s));
    RT_OK(aclrtDestroyStream(s));
}

static void test_event_destroyed_while_waiting(void **state)
{
    (void)state;
    event_destroyed_while_waiting(20000);
    event_destroyed_while_waiting(0);
}

/* ---------------------------------------------------------------------------------------------- */
/* Callbacks a teardown drops are reported                                                           */
/* ---------------------------------------------------------------------------------------------- */

static void cb_count(void *arg) { atomic_fetch_add((atomic_int *)arg, 1); }

static void *open_gate_later(void *arg)
{
    rt_sleep_ms(200);
    rt_gate_open(arg);
    return NULL;
}

static void test_finalize_reports_dropped_callbacks(void **state)
{
    (void)state;
    setenv("ASCEND_GLOBAL_LOG_LEVEL", "2", 1);
    unsetenv("ASCEND_PROCESS_LOG_PATH");
    unsetenv("ASCEND_LOG_PRINT_TO_STDOUT");
    unsetenv("ASCEND_SLOG_PRINT_TO_STDOUT");
    RT_OK(aclInit(NULL));
    RT_OK(aclrtSetDevice(0));
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    rt_gate g;
    rt_gate_init(&g);
    atomic_int n;
    atomic_init(&n, 0);
    RT_OK(cannonLaunchHostTask(s, rt_task_gate, &g));
    for (int i = 0; i < 3; i++)
        RT_OK(aclrtLaunchHostFunc(s, cb_count, &n));
    while (!atomic_load(&g.entered))
        rt_sleep_ms(1);
    pthread_t t = rt_thread_start(open_gate_later, &g);

    /* aclFinalize discards what has not started; stderr gets the warning. */
    char tmpl[] = "/tmp/cannon_cbdrop_XXXXXX";
    int fd = mkstemp(tmpl);
    assert_true(fd >= 0);
    unlink(tmpl);
    fflush(stderr);
    int saved = dup(2);
    assert_true(saved >= 0);
    assert_true(dup2(fd, 2) >= 0);
    aclError rc = aclFinalize();
    fflush(stderr);
    assert_true(dup2(saved, 2) >= 0);
    close(saved);
    rt_thread_join(t);
    off_t size = lseek(fd, 0, SEEK_END);
    char *text = calloc(1, (size_t)size + 1);
    assert_non_null(text);
    assert_int_equal(pread(fd, text, (size_t)size, 0), size);
    close(fd);
    unsetenv("ASCEND_GLOBAL_LOG_LEVEL");
    cn_log_configure();

    assert_int_equal(rc, ACL_SUCCESS);
    assert_int_equal(atomic_load(&n), 0);
    if (!rt_contains(text, "3 queued host callback(s)"))
        fail_msg("no warning about the dropped callbacks in:\n%s", text);
    free(text);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup_dev, rt_teardown)
    const struct CMUnitTest tests[] = {
        T(test_finalize_in_host_func),
        T(test_finalize_reference_in_host_func),
        T(test_own_stream_waits_refused),
        T(test_teardown_of_own_stream_refused),
        T(test_block_report_callback_rules),
        T(test_finalize_while_host_func_runs),
        T(test_reset_while_host_func_runs),
        T(test_event_destroyed_while_waiting),
        cmocka_unit_test(test_finalize_reports_dropped_callbacks),
    };
    rt_apply_test_filter();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
