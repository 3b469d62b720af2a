/* Runtime API tests: streams, the launch interface, kernel errors, stream queries and timeouts,
 * stream destruction, events (record / query / synchronize / elapsed time / cross-stream waits)
 * and host functions. */
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

/* ---------------------------------------------------------------------------------------------- */
/* Create / destroy                                                                                */
/* ---------------------------------------------------------------------------------------------- */

static void *thread_create_stream(void *arg)
{
    aclError *rc = arg;
    aclrtStream s = NULL;
    *rc = aclrtCreateStream(&s);
    return NULL;
}

static void test_stream_create_destroy(void **state)
{
    (void)state;
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtCreateStream(NULL));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtCreateStreamWithConfig(NULL, 0, 0));
    aclrtStream s[4] = {NULL};
    for (int i = 0; i < 3; i++) {
        RT_OK(aclrtCreateStream(&s[i]));
        assert_non_null(s[i]);
    }
    RT_OK(aclrtCreateStreamWithConfig(&s[3], 0, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC));
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < i; j++)
            assert_ptr_not_equal(s[i], s[j]);
    for (int i = 0; i < 4; i++) {
        RT_OK(aclrtSynchronizeStream(s[i]));
        RT_OK(aclrtDestroyStream(s[i]));
    }
    /* Double destroy and use after destroy. */
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDestroyStream(s[0]));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDestroyStreamForce(s[1]));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtSynchronizeStream(s[2]));
    /* The default stream cannot be destroyed, neither as NULL nor by its handle. */
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDestroyStream(NULL));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDestroyStreamForce(NULL));
    aclrtStream def = NULL;
    RT_OK(aclrtCtxGetCurrentDefaultStream(&def));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDestroyStream(def));
    RT_OK(aclrtSynchronizeStream(def));
    RT_OK(aclrtSynchronizeStream(NULL));
    /* Garbage handles. */
    int local = 0;
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDestroyStream(&local));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtSynchronizeStream(&local));
    aclrtStreamStatus st;
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtStreamQuery(&local, &st));
    assert_int_equal(local, 0);
    /* A thread without a device cannot create a stream. */
    aclError rc = -1;
    rt_thread_join(rt_thread_start(thread_create_stream, &rc));
    assert_int_equal(rc, ACL_ERROR_RT_CONTEXT_NULL);
}

/* ---------------------------------------------------------------------------------------------- */
/* Launches                                                                                        */
/* ---------------------------------------------------------------------------------------------- */

#define ORDER_N 1000

typedef struct order_log {
    atomic_int n;
    int seq[ORDER_N];
} order_log;

typedef struct order_args {
    order_log *log;
    int idx;
} order_args;

static int kernel_append(const cannon_kernel_ctx *ctx, void *args)
{
    const order_args *a = args;
    if (ctx->block_dim != 1 || ctx->block_idx != 0)
        return ACL_ERROR_RT_PARAM_INVALID;
    int pos = atomic_fetch_add(&a->log->n, 1);
    if (pos < ORDER_N)
        a->log->seq[pos] = a->idx;
    return 0;
}

static void test_launch_order(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    order_log *log = calloc(1, sizeof(*log));
    assert_non_null(log);
    atomic_init(&log->n, 0);
    order_args a; /* one variable reused: the launch must copy it */
    for (int i = 0; i < ORDER_N; i++) {
        a.log = log;
        a.idx = i;
        cannon_launch_desc d = {.name = "append", .fn = kernel_append, .args = &a, .args_size = sizeof(a),
                                .block_dim = 1};
        RT_OK(cannonLaunchKernel(&d, s));
    }
    a.idx = -1;
    RT_OK(aclrtSynchronizeStream(s));
    assert_int_equal(atomic_load(&log->n), ORDER_N);
    for (int i = 0; i < ORDER_N; i++)
        assert_int_equal(log->seq[i], i);
    free(log);
    RT_OK(aclrtDestroyStream(s));
}

typedef struct blocks_args {
    atomic_int hits[64];
    atomic_int bad;
} blocks_args;

static int kernel_blocks(const cannon_kernel_ctx *ctx, void *args)
{
    blocks_args *a = args;
    if (ctx->block_dim != 64 || ctx->block_idx >= 64 || ctx->worker_id >= ctx->num_workers || ctx->num_workers == 0)
        atomic_fetch_add(&a->bad, 1);
    else
        atomic_fetch_add(&a->hits[ctx->block_idx], 1);
    return 0;
}

static void test_launch_multi_block(void **state)
{
    (void)state;
    blocks_args *a = calloc(1, sizeof(*a));
    assert_non_null(a);
    uint32_t workers = cannonGetWorkerCount();
    assert_true(workers >= 1);
    cannon_launch_desc d = {.name = "blocks", .fn = kernel_blocks, .args = a, .args_size = 0, .block_dim = 64};
    RT_OK(cannonLaunchKernel(&d, NULL)); /* default stream; args passed as is */
    RT_OK(aclrtSynchronizeStream(NULL));
    assert_int_equal(atomic_load(&a->bad), 0);
    for (int i = 0; i < 64; i++)
        assert_int_equal(atomic_load(&a->hits[i]), 1);
    free(a);

    /* Bad launches. */
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, cannonLaunchKernel(NULL, NULL));
    cannon_launch_desc no_fn = {.name = "x", .fn = NULL, .block_dim = 1};
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, cannonLaunchKernel(&no_fn, NULL));
    cannon_launch_desc zero = {.name = "x", .fn = kernel_blocks, .args = NULL, .block_dim = 0};
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, cannonLaunchKernel(&zero, NULL));
    int local = 0;
    cannon_launch_desc ok = {.name = "x", .fn = kernel_blocks, .args = NULL, .block_dim = 1};
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, cannonLaunchKernel(&ok, &local));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, cannonLaunchHostTask(NULL, NULL, NULL));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, cannonLaunchHostTask(&local, rt_task_sleep, NULL));
}

static int kernel_fail(const cannon_kernel_ctx *ctx, void *args)
{
    const int *code = args;
    return cannonKernelReportError(ctx, *code, "kernel says boom %d", *code);
}

static void test_kernel_error(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    int code = ACL_ERROR_RT_PARAM_INVALID;
    cannon_launch_desc d = {.name = "fail", .fn = kernel_fail, .args = &code, .args_size = sizeof(code),
                            .block_dim = 1};
    RT_OK(cannonLaunchKernel(&d, s));
    /* Later work still runs. */
    atomic_int after;
    atomic_init(&after, 0);
    RT_OK(cannonLaunchHostTask(s, rt_task_set_flag, &after));
    (void)aclGetRecentErrMsg();
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeStream(s));
    assert_int_equal(atomic_load(&after), 1);
    const char *m = aclGetRecentErrMsg();
    assert_true(rt_contains(m, "kernel says boom 107000"));
    RT_OK(aclrtSynchronizeStream(s)); /* reported once */

    /* The first error since the last synchronize wins. */
    int first = ACL_ERROR_RT_PARAM_INVALID, second = 507035;
    cannon_launch_desc d1 = {.name = "fail1", .fn = kernel_fail, .args = &first, .args_size = sizeof(int),
                             .block_dim = 1};
    cannon_launch_desc d2 = {.name = "fail2", .fn = kernel_fail, .args = &second, .args_size = sizeof(int),
                             .block_dim = 1};
    RT_OK(cannonLaunchKernel(&d1, s));
    RT_OK(cannonLaunchKernel(&d2, s));
    (void)aclGetRecentErrMsg();
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeStream(s));
    m = aclGetRecentErrMsg();
    assert_true(rt_contains(m, "boom 107000"));
    assert_false(rt_contains(m, "boom 507035"));
    RT_OK(aclrtSynchronizeStream(s));

    /* A failing host task too, through the timeout variant. */
    RT_OK(cannonLaunchHostTask(s, rt_task_fail, (void *)(intptr_t)507035));
    RT_EXPECT(507035, aclrtSynchronizeStreamWithTimeout(s, 5000));
    RT_OK(aclrtSynchronizeStreamWithTimeout(s, 5000));
    RT_OK(aclrtDestroyStream(s));
}

/* ---------------------------------------------------------------------------------------------- */
/* Query, timeouts, destroy with pending work                                                      */
/* ---------------------------------------------------------------------------------------------- */

static void test_stream_query(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;
    RT_OK(aclrtStreamQuery(s, &st));
    assert_int_equal(st, ACL_STREAM_STATUS_COMPLETE);
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtStreamQuery(s, NULL));

    rt_gate g;
    rt_gate_init(&g);
    atomic_int done;
    atomic_init(&done, 0);
    RT_OK(cannonLaunchHostTask(s, rt_task_gate, &g));
    RT_OK(cannonLaunchHostTask(s, rt_task_set_flag, &done));
    RT_OK(aclrtStreamQuery(s, &st));
    assert_int_equal(st, ACL_STREAM_STATUS_NOT_READY);
    rt_sleep_ms(20);
    RT_OK(aclrtStreamQuery(s, &st));
    assert_int_equal(st, ACL_STREAM_STATUS_NOT_READY);
    assert_int_equal(atomic_load(&done), 0);
    rt_gate_open(&g);
    RT_OK(aclrtSynchronizeStream(s));
    RT_OK(aclrtStreamQuery(s, &st));
    assert_int_equal(st, ACL_STREAM_STATUS_COMPLETE);
    assert_int_equal(atomic_load(&done), 1);
    RT_OK(aclrtStreamQuery(NULL, &st)); /* default stream */
    assert_int_equal(st, ACL_STREAM_STATUS_COMPLETE);
    RT_OK(aclrtDestroyStream(s));
}

static void test_stream_sync_timeout(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeStreamWithTimeout(s, 0));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeStreamWithTimeout(s, -2));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeStreamWithTimeout(NULL, -100));
    RT_OK(aclrtSynchronizeStreamWithTimeout(s, -1));
    RT_OK(aclrtSynchronizeStreamWithTimeout(s, 10));

    atomic_int done;
    atomic_init(&done, 0);
    RT_OK(cannonLaunchHostTask(s, rt_task_sleep, (void *)(uintptr_t)300));
    RT_OK(cannonLaunchHostTask(s, rt_task_set_flag, &done));
    double t0 = rt_now_ms();
    RT_EXPECT(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s, 30));
    assert_true(rt_now_ms() - t0 >= 25.0);
    assert_int_equal(atomic_load(&done), 0);
    assert_true(rt_contains(aclGetRecentErrMsg(), "30 ms"));
    RT_OK(aclrtSynchronizeStreamWithTimeout(s, -1));
    assert_int_equal(atomic_load(&done), 1);
    RT_OK(aclrtDestroyStream(s));
}

static int kernel_set_after_sleep(const cannon_kernel_ctx *ctx, void *args)
{
    (void)ctx;
    rt_sleep_ms(20);
    atomic_store((atomic_int *)args, 1);
    return 0;
}

static void test_destroy_waits(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    atomic_int done, kdone;
    atomic_init(&done, 0);
    atomic_init(&kdone, 0);
    RT_OK(cannonLaunchHostTask(s, rt_task_sleep, (void *)(uintptr_t)100));
    RT_OK(cannonLaunchHostTask(s, rt_task_set_flag, &done));
    cannon_launch_desc d = {.name = "late", .fn = kernel_set_after_sleep, .args = &kdone, .block_dim = 1};
    RT_OK(cannonLaunchKernel(&d, s));
    RT_OK(aclrtDestroyStream(s));
    assert_int_equal(atomic_load(&done), 1);
    assert_int_equal(atomic_load(&kdone), 1);
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtSynchronizeStream(s));
}

static void *thread_open_gate_later(void *arg)
{
    rt_gate *g = arg;
    rt_sleep_ms(200);
    rt_gate_open(g);
    return NULL;
}

static void test_destroy_force(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    rt_gate g;
    rt_gate_init(&g);
    atomic_int later;
    atomic_init(&later, 0);
    RT_OK(cannonLaunchHostTask(s, rt_task_gate, &g));
    RT_OK(cannonLaunchHostTask(s, rt_task_set_flag, &later));
    while (!atomic_load(&g.entered))
        rt_sleep_ms(1);
    pthread_t t = rt_thread_start(thread_open_gate_later, &g);
    RT_OK(aclrtDestroyStreamForce(s));
    rt_thread_join(t);
    /* The running task finished; the one not yet started was discarded. */
    assert_int_equal(atomic_load(&later), 0);
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDestroyStreamForce(s));
    /* Force-destroying an idle stream is fine. */
    RT_OK(aclrtCreateStream(&s));
    RT_OK(aclrtDestroyStreamForce(s));
}

/* ---------------------------------------------------------------------------------------------- */
/* Events                                                                                          */
/* ---------------------------------------------------------------------------------------------- */

static void test_event_create(void **state)
{
    (void)state;
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtCreateEvent(NULL));
    aclrtEvent e = NULL;
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateEventWithFlag(&e, 0));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateEventWithFlag(&e, 0x80));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC | 0x100));
    assert_null(e);
    RT_OK(aclrtCreateEvent(&e));
    assert_non_null(e);
    aclrtEvent f[4] = {NULL};
    RT_OK(aclrtCreateEventWithFlag(&f[0], ACL_EVENT_SYNC));
    RT_OK(aclrtCreateEventWithFlag(&f[1], ACL_EVENT_TIME_LINE));
    RT_OK(aclrtCreateEventWithFlag(&f[2], ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE | ACL_EVENT_CAPTURE_STREAM_PROGRESS));
    RT_OK(aclrtCreateEventWithFlag(&f[3], ACL_EVENT_DEVICE_USE_ONLY | ACL_EVENT_EXTERNAL));
    /* A fresh event counts as complete. */
    aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    RT_OK(aclrtQueryEventStatus(e, &st));
    assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_COMPLETE);
    RT_OK(aclrtSynchronizeEvent(e));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtQueryEventStatus(e, NULL));
    for (int i = 0; i < 4; i++)
        RT_OK(aclrtDestroyEvent(f[i]));
    RT_OK(aclrtDestroyEvent(e));
    /* Destroyed and garbage handles. */
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDestroyEvent(e));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtRecordEvent(e, NULL));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtQueryEventStatus(e, &st));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtSynchronizeEvent(e));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEvent(NULL, e));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtResetEvent(e, NULL));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDestroyEvent(NULL));
    int local = 0;
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDestroyEvent(&local));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtRecordEvent(&local, NULL));
    /* A stream is not an event. */
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDestroyEvent(s));
    RT_OK(aclrtDestroyStream(s));
}

static void test_event_record_query_sync(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    aclrtEvent e = NULL;
    RT_OK(aclrtCreateEvent(&e));
    rt_gate g;
    rt_gate_init(&g);
    atomic_int done;
    atomic_init(&done, 0);
    RT_OK(cannonLaunchHostTask(s, rt_task_gate, &g));
    RT_OK(cannonLaunchHostTask(s, rt_task_set_flag, &done));
    RT_OK(aclrtRecordEvent(e, s));
    aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_COMPLETE;
    RT_OK(aclrtQueryEventStatus(e, &st));
    assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_NOT_READY);
    rt_gate_open(&g);
    RT_OK(aclrtSynchronizeEvent(e));
    assert_int_equal(atomic_load(&done), 1);
    RT_OK(aclrtQueryEventStatus(e, &st));
    assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_COMPLETE);

    /* Record on the default stream, and re-record. */
    RT_OK(aclrtRecordEvent(e, NULL));
    RT_OK(aclrtSynchronizeEvent(e));
    RT_OK(aclrtQueryEventStatus(e, &st));
    assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_COMPLETE);

    /* Reset returns the event to "not recorded": it can no longer be timed. */
    aclrtEvent e2 = NULL;
    RT_OK(aclrtCreateEvent(&e2));
    RT_OK(aclrtRecordEvent(e2, s));
    RT_OK(aclrtResetEvent(e, s));
    RT_OK(aclrtSynchronizeStream(s));
    float ms = -1.0f;
    RT_EXPECT(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, aclrtEventElapsedTime(&ms, e, e2));
    RT_OK(aclrtQueryEventStatus(e, &st));
    assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_COMPLETE);
    RT_OK(aclrtDestroyEvent(e2));
    RT_OK(aclrtDestroyEvent(e));
    RT_OK(aclrtDestroyStream(s));
}

static void test_event_sync_timeout(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    aclrtEvent e = NULL;
    RT_OK(aclrtCreateEvent(&e));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeEventWithTimeout(e, 0));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeEventWithTimeout(e, -2));
    RT_OK(cannonLaunchHostTask(s, rt_task_sleep, (void *)(uintptr_t)300));
    RT_OK(aclrtRecordEvent(e, s));
    double t0 = rt_now_ms();
    RT_EXPECT(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, aclrtSynchronizeEventWithTimeout(e, 30));
    assert_true(rt_now_ms() - t0 >= 25.0);
    RT_OK(aclrtSynchronizeEventWithTimeout(e, -1));
    aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    RT_OK(aclrtQueryEventStatus(e, &st));
    assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_COMPLETE);
    RT_OK(aclrtSynchronizeEventWithTimeout(e, 10));
    RT_OK(aclrtDestroyEvent(e));
    RT_OK(aclrtDestroyStream(s));
}

static void test_event_elapsed(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    aclrtEvent a = NULL, b = NULL;
    RT_OK(aclrtCreateEvent(&a));
    RT_OK(aclrtCreateEvent(&b));
    float ms = -1.0f;
    /* Never recorded. */
    RT_EXPECT(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, aclrtEventElapsedTime(&ms, a, b));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtEventElapsedTime(NULL, a, b));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtEventElapsedTime(&ms, NULL, b));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtEventElapsedTime(&ms, a, NULL));

    RT_OK(aclrtRecordEvent(a, s));
    RT_OK(cannonLaunchHostTask(s, rt_task_sleep, (void *)(uintptr_t)20));
    RT_OK(aclrtRecordEvent(b, s));
    RT_OK(aclrtSynchronizeEvent(b));
    RT_OK(aclrtEventElapsedTime(&ms, a, b));
    assert_true(ms >= 15.0f);
    assert_true(ms <= 500.0f);

    /* Not complete yet. */
    rt_gate g;
    rt_gate_init(&g);
    RT_OK(aclrtRecordEvent(a, s));
    RT_OK(cannonLaunchHostTask(s, rt_task_gate, &g));
    RT_OK(aclrtRecordEvent(b, s));
    RT_OK(aclrtSynchronizeEvent(a));
    RT_EXPECT(ACL_ERROR_RT_EVENT_NOT_COMPLETE, aclrtEventElapsedTime(&ms, a, b));
    rt_gate_open(&g);
    RT_OK(aclrtSynchronizeStream(s));
    RT_OK(aclrtEventElapsedTime(&ms, a, b));
    assert_true(ms >= 0.0f);

    /* Events without ACL_EVENT_TIME_LINE cannot be timed. */
    aclrtEvent c = NULL;
    RT_OK(aclrtCreateEventWithFlag(&c, ACL_EVENT_SYNC));
    RT_OK(aclrtRecordEvent(c, s));
    RT_OK(aclrtSynchronizeStream(s));
    RT_EXPECT(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, aclrtEventElapsedTime(&ms, a, c));
    RT_EXPECT(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, aclrtEventElapsedTime(&ms, c, b));

    RT_OK(aclrtDestroyEvent(c));
    RT_OK(aclrtDestroyEvent(a));
    RT_OK(aclrtDestroyEvent(b));
    RT_OK(aclrtDestroyStream(s));
}

typedef struct cross_data {
    int value;    /* written by a task on stream A, read by a task on stream B */
    int observed;
} cross_data;

static int task_write_after_sleep(void *arg)
{
    cross_data *d = arg;
    rt_sleep_ms(100);
    d->value = 42;
    return 0;
}

static int task_observe(void *arg)
{
    cross_data *d = arg;
    d->observed = d->value;
    return 0;
}

static void test_stream_wait_event(void **state)
{
    (void)state;
    aclrtStream a = NULL, b = NULL;
    RT_OK(aclrtCreateStream(&a));
    RT_OK(aclrtCreateStream(&b));
    aclrtEvent e = NULL;
    RT_OK(aclrtCreateEvent(&e));
    cross_data d = {0, -1};
    RT_OK(cannonLaunchHostTask(a, task_write_after_sleep, &d));
    RT_OK(aclrtRecordEvent(e, a));
    RT_OK(aclrtStreamWaitEvent(b, e));
    RT_OK(cannonLaunchHostTask(b, task_observe, &d));
    RT_OK(aclrtSynchronizeStream(b));
    assert_int_equal(d.observed, 42);
    RT_OK(aclrtSynchronizeStream(a));

    /* Waiting on a never-recorded event does not block. */
    aclrtEvent fresh = NULL;
    RT_OK(aclrtCreateEvent(&fresh));
    RT_OK(aclrtStreamWaitEvent(b, fresh));
    RT_OK(aclrtSynchronizeStreamWithTimeout(b, 5000));

    /* An event created with only ACL_EVENT_TIME_LINE cannot be waited on. */
    aclrtEvent timing = NULL;
    RT_OK(aclrtCreateEventWithFlag(&timing, ACL_EVENT_TIME_LINE));
    RT_OK(aclrtRecordEvent(timing, a));
    RT_EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEvent(b, timing));
    RT_OK(aclrtSynchronizeEvent(timing));

    int local = 0;
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEvent(&local, e));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEvent(b, NULL));

    RT_OK(aclrtDestroyEvent(timing));
    RT_OK(aclrtDestroyEvent(fresh));
    RT_OK(aclrtDestroyEvent(e));
    RT_OK(aclrtDestroyStream(a));
    RT_OK(aclrtDestroyStream(b));
}

static void test_event_destroy_while_pending(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    aclrtEvent e = NULL;
    RT_OK(aclrtCreateEvent(&e));
    RT_OK(cannonLaunchHostTask(s, rt_task_sleep, (void *)(uintptr_t)30));
    RT_OK(aclrtRecordEvent(e, s));
    RT_OK(aclrtDestroyEvent(e)); /* does not wait; the pending record stays valid */
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtSynchronizeEvent(e));
    RT_OK(aclrtSynchronizeStream(s));
    RT_OK(aclrtDestroyStream(s));
}

/* ---------------------------------------------------------------------------------------------- */
/* Host functions                                                                                  */
/* ---------------------------------------------------------------------------------------------- */

#define HOSTFN_N 200

typedef struct hostfn_log {
    int n;
    int seq[HOSTFN_N];
    int args[HOSTFN_N];
} hostfn_log;

static hostfn_log g_hostfn;

static void host_fn_append(void *arg)
{
    int idx = (int)(intptr_t)arg;
    if (g_hostfn.n < HOSTFN_N)
        g_hostfn.seq[g_hostfn.n++] = idx;
}

static void test_launch_host_func(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    memset(&g_hostfn, 0, sizeof(g_hostfn));
    for (int i = 0; i < HOSTFN_N; i++) {
        if (i % 50 == 0)
            RT_OK(cannonLaunchHostTask(s, rt_task_sleep, (void *)(uintptr_t)2));
        RT_OK(aclrtLaunchHostFunc(s, host_fn_append, (void *)(intptr_t)i));
    }
    RT_OK(aclrtSynchronizeStream(s));
    assert_int_equal(g_hostfn.n, HOSTFN_N);
    for (int i = 0; i < HOSTFN_N; i++)
        assert_int_equal(g_hostfn.seq[i], i);
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtLaunchHostFunc(s, NULL, NULL));
    int local = 0;
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtLaunchHostFunc(&local, host_fn_append, NULL));
    /* On the default stream. */
    g_hostfn.n = 0;
    RT_OK(aclrtLaunchHostFunc(NULL, host_fn_append, (void *)(intptr_t)7));
    RT_OK(aclrtSynchronizeStream(NULL));
    assert_int_equal(g_hostfn.n, 1);
    assert_int_equal(g_hostfn.seq[0], 7);
    RT_OK(aclrtDestroyStream(s));
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup_dev, rt_teardown)
    const struct CMUnitTest tests[] = {
        T(test_stream_create_destroy),
        T(test_launch_order),
        T(test_launch_multi_block),
        T(test_kernel_error),
        T(test_stream_query),
        T(test_stream_sync_timeout),
        T(test_destroy_waits),
        T(test_destroy_force),
        T(test_event_create),
        T(test_event_record_query_sync),
        T(test_event_sync_timeout),
        T(test_event_elapsed),
        T(test_stream_wait_event),
        T(test_event_destroy_while_pending),
        T(test_launch_host_func),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
