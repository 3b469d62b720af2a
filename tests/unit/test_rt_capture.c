/* Runtime API tests: graph capture (aclmdlRICaptureBegin / End / GetInfo / ThreadExchangeMode,
 * aclmdlRIExecuteAsync, aclmdlRIDestroy): what is recorded and replayed, what a capturing stream
 * refuses, the capture modes, and bad input. */
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

typedef struct axpy_args {
    float *x, *y;
    float a;
} axpy_args;

/* y[i] = a * x[i] + y[i], one block per element. */
static int kernel_axpy(const cannon_kernel_ctx *ctx, void *args)
{
    const axpy_args *p = args;
    p->y[ctx->block_idx] = p->a * p->x[ctx->block_idx] + p->y[ctx->block_idx];
    return 0;
}

static int task_count(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
    return 0;
}

static void host_func_count(void *arg) { atomic_fetch_add((atomic_int *)arg, 10); }

enum { N = 64 };

/* Record a pipeline once (an upload from pinned memory, a fill, a kernel with a blob, a host
 * task and a host function, a download), replay it three times, with the inputs changed in
 * between: each replay reads the memory as it is then. */
static void test_capture_and_replay(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    float *x = NULL, *y = NULL, *hx = NULL, *hy = NULL;
    RT_OK(aclrtMalloc((void **)&x, N * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
    RT_OK(aclrtMalloc((void **)&y, N * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
    RT_OK(aclrtMallocHost((void **)&hx, N * sizeof(float)));
    RT_OK(aclrtMallocHost((void **)&hy, N * sizeof(float)));
    atomic_int count;
    atomic_init(&count, 0);

    RT_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    aclmdlRICaptureStatus st = ACL_MODEL_RI_CAPTURE_STATUS_NONE;
    aclmdlRI live = NULL;
    RT_OK(aclmdlRICaptureGetInfo(s, &st, &live));
    assert_int_equal(st, ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE);
    assert_non_null(live);
    RT_OK(aclrtMemcpyAsync(x, N * sizeof(float), hx, N * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE, s));
    RT_OK(aclrtMemsetAsync(y, N * sizeof(float), 0, N * sizeof(float), s));
    axpy_args a = {.x = x, .y = y, .a = 2.0f};
    cannon_launch_desc d = {.name = "axpy", .fn = kernel_axpy, .args = &a, .args_size = sizeof(a), .block_dim = N};
    RT_OK(cannonLaunchKernel(&d, s));
    a.a = 100.0f; /* the blob was copied when recorded */
    RT_OK(cannonLaunchKernel(&d, s));
    RT_OK(cannonLaunchHostTask(s, task_count, &count));
    RT_OK(aclrtLaunchHostFunc(s, host_func_count, &count));
    RT_OK(aclrtMemcpyAsync(hy, N * sizeof(float), y, N * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST, s));
    /* Nothing ran. */
    assert_int_equal(atomic_load(&count), 0);
    aclmdlRI ri = NULL;
    RT_OK(aclmdlRICaptureEnd(s, &ri));
    assert_ptr_equal(ri, live);
    RT_OK(aclmdlRICaptureGetInfo(s, &st, NULL));
    assert_int_equal(st, ACL_MODEL_RI_CAPTURE_STATUS_NONE);
    assert_int_equal(atomic_load(&count), 0);

    for (int r = 1; r <= 3; r++) {
        for (int i = 0; i < N; i++)
            hx[i] = (float)(i * r);
        RT_OK(aclmdlRIExecuteAsync(ri, s));
        RT_OK(aclrtSynchronizeStream(s));
        for (int i = 0; i < N; i++)
            assert_true(hy[i] == 2.0f * (float)(i * r) + 100.0f * (float)(i * r));
        assert_int_equal(atomic_load(&count), 11 * r);
    }
    /* The stream runs normally again; the instance may go right after an execute. */
    RT_OK(cannonLaunchHostTask(s, task_count, &count));
    RT_OK(aclmdlRIExecuteAsync(ri, s));
    RT_OK(aclmdlRIDestroy(ri));
    RT_OK(aclrtSynchronizeStream(s));
    assert_int_equal(atomic_load(&count), 11 * 4 + 1);
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclmdlRIDestroy(ri));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclmdlRIExecuteAsync(ri, s));

    /* An empty capture replays as nothing. */
    RT_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    RT_OK(aclmdlRICaptureEnd(s, &ri));
    RT_OK(aclmdlRIExecuteAsync(ri, NULL)); /* the default stream */
    RT_OK(aclmdlRIDestroy(ri));

    RT_OK(aclrtFreeHost(hx));
    RT_OK(aclrtFreeHost(hy));
    RT_OK(aclrtFree(x));
    RT_OK(aclrtFree(y));
    RT_OK(aclrtDestroyStream(s));
}

/* What a capturing stream, its events and its context refuse, with CANN's codes. */
static void test_capture_refusals(void **state)
{
    (void)state;
    aclrtStream s = NULL, other = NULL;
    RT_OK(aclrtCreateStream(&s));
    RT_OK(aclrtCreateStream(&other));
    aclrtEvent ev = NULL;
    RT_OK(aclrtCreateEvent(&ev));
    void *dev = NULL;
    RT_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    uint8_t pageable[64] = {0};

    RT_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    RT_EXPECT(ACL_ERROR_RT_STREAM_CAPTURED, aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    RT_EXPECT(ACL_ERROR_RT_STREAM_CAPTURED, aclrtSynchronizeStream(s));
    RT_EXPECT(ACL_ERROR_RT_STREAM_CAPTURED, aclrtSynchronizeStreamWithTimeout(s, 100));
    aclrtStreamStatus ss;
    RT_EXPECT(ACL_ERROR_RT_STREAM_CAPTURED, aclrtStreamQuery(s, &ss));
    RT_EXPECT(ACL_ERROR_RT_STREAM_CAPTURED, aclrtDestroyStream(s));
    RT_EXPECT(ACL_ERROR_RT_STREAM_CAPTURED, aclrtSynchronizeDevice());
    /* Pageable host memory cannot be captured; pinned memory can. */
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID,
              aclrtMemcpyAsync(dev, sizeof(pageable), pageable, sizeof(pageable), ACL_MEMCPY_HOST_TO_DEVICE, s));
    /* GLOBAL mode: synchronous copies and fills fail on every thread of the context... */
    RT_EXPECT(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,
              aclrtMemcpy(dev, sizeof(pageable), pageable, sizeof(pageable), ACL_MEMCPY_HOST_TO_DEVICE));
    RT_EXPECT(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, aclrtMemset(dev, 64, 0, 64));
    RT_EXPECT(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,
              aclrtMemcpy2d(dev, 64, pageable, 64, 64, 1, ACL_MEMCPY_HOST_TO_DEVICE));
    void *cached = NULL;
    RT_EXPECT(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, aclrtMallocCached(&cached, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    /* ...and so does a pageable copy on another stream (it turns into a synchronous one). */
    RT_EXPECT(ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC,
              aclrtMemcpyAsync(dev, 64, pageable, 64, ACL_MEMCPY_HOST_TO_DEVICE, other));
    /* A RELAXED thread may. */
    aclmdlRICaptureMode m = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
    RT_OK(aclmdlRICaptureThreadExchangeMode(&m));
    assert_int_equal(m, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
    RT_OK(aclrtMemcpy(dev, sizeof(pageable), pageable, sizeof(pageable), ACL_MEMCPY_HOST_TO_DEVICE));
    RT_OK(aclrtMemcpyAsync(dev, 64, pageable, 64, ACL_MEMCPY_HOST_TO_DEVICE, other));
    RT_OK(aclmdlRICaptureThreadExchangeMode(&m));
    assert_int_equal(m, ACL_MODEL_RI_CAPTURE_MODE_RELAXED);
    /* Events recorded in the capture. */
    RT_OK(aclrtRecordEvent(ev, s));
    RT_EXPECT(ACL_ERROR_RT_EVENT_CAPTURED, aclrtSynchronizeEvent(ev));
    aclrtEventRecordedStatus es;
    RT_EXPECT(ACL_ERROR_RT_EVENT_CAPTURED, aclrtQueryEventStatus(ev, &es));
    float ms = 0;
    RT_EXPECT(ACL_ERROR_RT_EVENT_CAPTURED, aclrtEventElapsedTime(&ms, ev, ev));
    RT_EXPECT(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtStreamWaitEvent(other, ev));
    /* Executing an instance on a capturing stream. */
    aclmdlRI live = NULL;
    RT_OK(aclmdlRICaptureGetInfo(s, NULL, &live));
    RT_EXPECT(ACL_ERROR_RT_MODEL_CAPTURED, aclmdlRIExecuteAsync(live, other));
    RT_EXPECT(ACL_ERROR_RT_MODEL_CAPTURED, aclmdlRIDestroy(live));
    /* End: a NULL output keeps the capture going. */
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICaptureEnd(s, NULL));
    aclmdlRI ri = NULL;
    RT_OK(aclmdlRICaptureEnd(s, &ri));
    RT_EXPECT(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclmdlRICaptureEnd(s, &ri));
    /* Everything works again. */
    RT_OK(aclrtMemset(dev, 64, 0, 64));
    RT_OK(aclmdlRIExecuteAsync(ri, s));
    RT_OK(aclrtSynchronizeEvent(ev));
    RT_OK(aclrtSynchronizeDevice());
    RT_OK(aclmdlRICaptureBegin(other, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    RT_EXPECT(ACL_ERROR_RT_STREAM_CAPTURED, aclmdlRIExecuteAsync(ri, other));
    aclmdlRI ri2 = NULL;
    RT_OK(aclmdlRICaptureEnd(other, &ri2));
    RT_OK(aclmdlRIDestroy(ri2));
    /* A destroyed event makes a replay fail with nothing enqueued. */
    RT_OK(aclrtDestroyEvent(ev));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclmdlRIExecuteAsync(ri, s));
    assert_true(rt_contains(aclGetRecentErrMsg(), "destroyed"));
    RT_OK(aclmdlRIDestroy(ri));
    RT_OK(aclrtFree(dev));
    RT_OK(aclrtDestroyStream(s));
    RT_OK(aclrtDestroyStream(other));
}

static void test_capture_bad_input(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureBegin(NULL, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICaptureBegin(s, (aclmdlRICaptureMode)3));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICaptureBegin(s, (aclmdlRICaptureMode)-1));
    int junk = 0;
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureBegin(&junk, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    aclrtStream def = NULL;
    RT_OK(aclrtCtxGetCurrentDefaultStream(&def));
    RT_EXPECT(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRICaptureBegin(def, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    aclmdlRI ri = NULL;
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureEnd(NULL, &ri));
    RT_EXPECT(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclmdlRICaptureEnd(s, &ri));
    aclmdlRICaptureStatus st;
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureGetInfo(NULL, &st, &ri));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureGetInfo(s, NULL, NULL));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclmdlRIExecuteAsync(NULL, s));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclmdlRIExecuteAsync(&junk, s));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclmdlRIDestroy(NULL));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclmdlRIDestroy(&junk));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureThreadExchangeMode(NULL));
    aclmdlRICaptureMode bad = (aclmdlRICaptureMode)9;
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureThreadExchangeMode(&bad));
    /* A stream of another context. */
    aclrtContext ctx = NULL, mine = NULL;
    RT_OK(aclrtGetCurrentContext(&mine));
    RT_OK(aclrtCreateContext(&ctx, 1));
    RT_EXPECT(ACL_ERROR_RT_STREAM_CONTEXT, aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    /* An instance replayed on another device's stream. */
    aclrtStream s1 = NULL;
    RT_OK(aclrtCreateStream(&s1));
    RT_OK(aclrtSetCurrentContext(mine));
    RT_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    RT_OK(aclmdlRICaptureEnd(s, &ri));
    RT_EXPECT(ACL_ERROR_RT_STREAM_CONTEXT, aclmdlRIExecuteAsync(ri, s1));
    RT_OK(aclmdlRIDestroy(ri));
    RT_OK(aclrtDestroyStream(s1));
    RT_OK(aclrtDestroyContext(ctx));
    RT_OK(aclrtSetCurrentContext(mine));
    RT_OK(aclrtDestroyStream(s));
}

typedef struct end_arg {
    aclrtStream s;
    aclError rc;
    aclmdlRI ri;
    aclError memcpy_rc;
    void *dev;
} end_arg;

static void *thread_end_capture(void *p)
{
    end_arg *a = p;
    a->rc = aclmdlRICaptureEnd(a->s, &a->ri);
    return NULL;
}

static void *thread_sync_memcpy(void *p)
{
    end_arg *a = p;
    (void)aclrtSetDevice(0);
    uint8_t b[16] = {0};
    a->memcpy_rc = aclrtMemcpy(a->dev, 16, b, 16, ACL_MEMCPY_HOST_TO_DEVICE);
    (void)aclrtResetDevice(0);
    return NULL;
}

/* The modes: which threads may make synchronous calls, and who may end the capture. */
static void test_capture_modes_and_threads(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    void *dev = NULL;
    RT_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    end_arg a = {.s = s, .dev = dev};

    /* GLOBAL: another thread of the context is refused too; ending elsewhere fails and drops it. */
    RT_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    rt_thread_join(rt_thread_start(thread_sync_memcpy, &a));
    assert_int_equal(a.memcpy_rc, ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
    rt_thread_join(rt_thread_start(thread_end_capture, &a));
    assert_int_equal(a.rc, ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD);
    assert_null(a.ri);
    RT_EXPECT(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclmdlRICaptureEnd(s, &a.ri));
    RT_OK(aclrtMemset(dev, 16, 0, 16)); /* no capture is left */

    /* THREAD_LOCAL: only the capturing thread is refused. */
    RT_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
    RT_EXPECT(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, aclrtMemset(dev, 16, 0, 16));
    rt_thread_join(rt_thread_start(thread_sync_memcpy, &a));
    assert_int_equal(a.memcpy_rc, ACL_SUCCESS);
    aclmdlRI ri = NULL;
    RT_OK(aclmdlRICaptureEnd(s, &ri));
    RT_OK(aclmdlRIDestroy(ri));

    /* RELAXED: nobody is refused, and another thread may end it. */
    RT_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    RT_OK(aclrtMemset(dev, 16, 0, 16));
    rt_thread_join(rt_thread_start(thread_sync_memcpy, &a));
    assert_int_equal(a.memcpy_rc, ACL_SUCCESS);
    rt_thread_join(rt_thread_start(thread_end_capture, &a));
    assert_int_equal(a.rc, ACL_SUCCESS);
    assert_non_null(a.ri);
    RT_OK(aclmdlRIDestroy(a.ri));

    /* A stream destroyed with its context while capturing: the capture goes with it. */
    aclrtContext mine = NULL, ctx = NULL;
    RT_OK(aclrtGetCurrentContext(&mine));
    RT_OK(aclrtCreateContext(&ctx, 0));
    aclrtStream cs = NULL;
    RT_OK(aclrtCreateStream(&cs));
    RT_OK(aclmdlRICaptureBegin(cs, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    RT_OK(aclrtDestroyContext(ctx));
    RT_OK(aclrtSetCurrentContext(mine));
    RT_OK(aclrtMemset(dev, 16, 0, 16));
    assert_int_equal(atomic_load(&g_rt.captures), 0);

    RT_OK(aclrtFree(dev));
    RT_OK(aclrtDestroyStream(s));
}

static void on_callback(void *arg) { atomic_fetch_add((atomic_int *)arg, 1); }

typedef struct cb_thread {
    atomic_int stop;
} cb_thread;

static void *thread_process_reports(void *p)
{
    cb_thread *t = p;
    while (!atomic_load(&t->stop))
        (void)aclrtProcessReport(10);
    return NULL;
}

/* Events and callbacks inside a capture: a record on the capturing stream replays as a record
 * another stream can wait for; a callback replays to the executing stream's subscriber. */
static void test_capture_events_and_callbacks(void **state)
{
    (void)state;
    aclrtStream s = NULL, w = NULL;
    RT_OK(aclrtCreateStream(&s));
    RT_OK(aclrtCreateStream(&w));
    aclrtEvent ev = NULL;
    RT_OK(aclrtCreateEvent(&ev));
    cb_thread t;
    atomic_init(&t.stop, 0);
    pthread_t th = rt_thread_start(thread_process_reports, &t);
    RT_OK(aclrtSubscribeReport((uint64_t)th, s));
    atomic_int calls;
    atomic_init(&calls, 0);
    rt_gate g;
    rt_gate_init(&g);

    RT_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    RT_OK(cannonLaunchHostTask(s, rt_task_gate, &g));
    RT_OK(aclrtRecordEvent(ev, s));
    RT_OK(aclrtLaunchCallback(on_callback, &calls, ACL_CALLBACK_BLOCK, s));
    aclmdlRI ri = NULL;
    RT_OK(aclmdlRICaptureEnd(s, &ri));

    RT_OK(aclmdlRIExecuteAsync(ri, s));
    atomic_int after;
    atomic_init(&after, 0);
    RT_OK(aclrtStreamWaitEvent(w, ev));
    RT_OK(cannonLaunchHostTask(w, rt_task_set_flag, &after));
    rt_sleep_ms(30);
    assert_int_equal(atomic_load(&after), 0); /* w waits for the replayed record, behind the gate */
    rt_gate_open(&g);
    RT_OK(aclrtSynchronizeStream(w));
    RT_OK(aclrtSynchronizeStream(s));
    assert_int_equal(atomic_load(&after), 1);
    assert_int_equal(atomic_load(&calls), 1);
    RT_OK(aclmdlRIExecuteAsync(ri, s));
    RT_OK(aclrtSynchronizeStream(s));
    assert_int_equal(atomic_load(&calls), 2);

    RT_OK(aclmdlRIDestroy(ri));
    RT_OK(aclrtUnSubscribeReport((uint64_t)th, s));
    atomic_store(&t.stop, 1);
    rt_thread_join(th);
    RT_OK(aclrtDestroyEvent(ev));
    RT_OK(aclrtDestroyStream(s));
    RT_OK(aclrtDestroyStream(w));
}

/* aclFinalize releases instances still alive and ends captures still going on. */
static void test_finalize_releases_instances(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    void *dev = NULL;
    RT_OK(aclrtMalloc(&dev, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    aclmdlRI ri = NULL;
    RT_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    RT_OK(aclrtMemsetAsync(dev, 256, 1, 256, s));
    RT_OK(aclmdlRICaptureEnd(s, &ri));
    RT_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    RT_OK(aclFinalize());
    assert_int_equal(g_rt.last_leaks.graphs, 1);
    assert_int_equal(atomic_load(&g_rt.captures), 0);
    RT_OK(aclInit(NULL));
}

int main(void)
{
    unsetenv("CANNON_CPU_DEVICE_MEMORY");
    unsetenv("CANNON_CPU_DEVICES");
    rt_apply_test_filter();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_capture_and_replay, setup_dev, rt_teardown),
        cmocka_unit_test_setup_teardown(test_capture_refusals, setup_dev, rt_teardown),
        cmocka_unit_test_setup_teardown(test_capture_bad_input, setup_dev, rt_teardown),
        cmocka_unit_test_setup_teardown(test_capture_modes_and_threads, setup_dev, rt_teardown),
        cmocka_unit_test_setup_teardown(test_capture_events_and_callbacks, setup_dev, rt_teardown),
        cmocka_unit_test_setup_teardown(test_finalize_releases_instances, setup_dev, rt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
