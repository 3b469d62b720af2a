/* Runtime API tests: host callbacks routed to a subscribed user thread (aclrtSubscribeReport,
 * aclrtLaunchCallback, aclrtProcessReport, aclrtUnSubscribeReport). */
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

/* A user thread looping on aclrtProcessReport until told to stop. */
typedef struct reporter {
    pthread_t thread;
    atomic_int stop;
    atomic_int rounds_ok;    /* ProcessReport calls that ran callbacks */
    atomic_int rounds_other; /* calls returning anything but 0 / 507012 / 107012 */
    atomic_int last_rc;
} reporter;

static void *reporter_main(void *arg)
{
    reporter *r = arg;
    while (!atomic_load(&r->stop)) {
        aclError rc = aclrtProcessReport(20);
        atomic_store(&r->last_rc, rc);
        if (rc == ACL_SUCCESS)
            atomic_fetch_add(&r->rounds_ok, 1);
        else if (rc == ACL_ERROR_RT_THREAD_SUBSCRIBE)
            rt_sleep_ms(1); /* not subscribed yet (or any more) */
        else if (rc != ACL_ERROR_RT_REPORT_TIMEOUT)
            atomic_fetch_add(&r->rounds_other, 1);
    }
    return NULL;
}

static void reporter_start(reporter *r)
{
    atomic_init(&r->stop, 0);
    atomic_init(&r->rounds_ok, 0);
    atomic_init(&r->rounds_other, 0);
    atomic_init(&r->last_rc, 0);
    r->thread = rt_thread_start(reporter_main, r);
}

static void reporter_stop(reporter *r)
{
    atomic_store(&r->stop, 1);
    rt_thread_join(r->thread);
    assert_int_equal(atomic_load(&r->rounds_other), 0);
}

static uint64_t tid_of(pthread_t t) { return (uint64_t)t; }

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

/* ---------------------------------------------------------------------------------------------- */

typedef struct cb_probe {
    pthread_t expected;
    atomic_int ran;
    atomic_int in_expected_thread;
    atomic_int order[8];
    atomic_int n;
} cb_probe;

static void cb_record_thread(void *arg)
{
    cb_probe *p = arg;
    atomic_store(&p->in_expected_thread, pthread_equal(pthread_self(), p->expected) ? 1 : 0);
    atomic_fetch_add(&p->ran, 1);
}

static void test_callback_runs_in_subscribed_thread(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    reporter r;
    reporter_start(&r);
    RT_OK(aclrtSubscribeReport(tid_of(r.thread), s));

    cb_probe p;
    memset(&p, 0, sizeof(p));
    p.expected = r.thread;
    RT_OK(aclrtLaunchCallback(cb_record_thread, &p, ACL_CALLBACK_NO_BLOCK, s));
    assert_true(wait_flag(&p.ran, 5000));
    assert_int_equal(atomic_load(&p.ran), 1);
    assert_int_equal(atomic_load(&p.in_expected_thread), 1);

    /* A BLOCK one too. */
    RT_OK(aclrtLaunchCallback(cb_record_thread, &p, ACL_CALLBACK_BLOCK, s));
    RT_OK(aclrtSynchronizeStreamWithTimeout(s, 5000)); /* returns only after the callback ran */
    assert_int_equal(atomic_load(&p.ran), 2);
    assert_int_equal(atomic_load(&p.in_expected_thread), 1);
    assert_true(atomic_load(&r.rounds_ok) >= 1);

    RT_OK(aclrtUnSubscribeReport(tid_of(r.thread), s));
    reporter_stop(&r);
    RT_OK(aclrtDestroyStream(s));
}

typedef struct block_data {
    int value;     /* written by the callback, read by a later stream task */
    int observed;
} block_data;

static void cb_slow_write(void *arg)
{
    block_data *d = arg;
    rt_sleep_ms(50);
    d->value = 7;
}

static int kernel_observe(const cannon_kernel_ctx *ctx, void *args)
{
    (void)ctx;
    block_data *d = *(block_data **)args;
    d->observed = d->value;
    return 0;
}

static void test_block_callback_holds_stream(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    reporter r;
    reporter_start(&r);
    RT_OK(aclrtSubscribeReport(tid_of(r.thread), s));

    block_data d = {0, -1};
    block_data *dp = &d;
    RT_OK(aclrtLaunchCallback(cb_slow_write, &d, ACL_CALLBACK_BLOCK, s));
    cannon_launch_desc k = {.name = "observe", .fn = kernel_observe, .args = &dp, .args_size = sizeof(dp),
                            .block_dim = 1};
    RT_OK(cannonLaunchKernel(&k, s));
    RT_OK(aclrtSynchronizeStreamWithTimeout(s, 5000));
    assert_int_equal(d.observed, 7);

    RT_OK(aclrtUnSubscribeReport(tid_of(r.thread), s));
    reporter_stop(&r);
    RT_OK(aclrtDestroyStream(s));
}

typedef struct noblock_data {
    atomic_int released;     /* set by a stream task enqueued after the callback */
    atomic_int saw_release;  /* the callback saw it while it waited */
    atomic_int done;
} noblock_data;

static void cb_wait_release(void *arg)
{
    noblock_data *d = arg;
    double end = rt_now_ms() + 3000.0;
    while (!atomic_load(&d->released) && rt_now_ms() < end)
        rt_sleep_ms(1);
    atomic_store(&d->saw_release, atomic_load(&d->released));
    atomic_store(&d->done, 1);
}

static void test_noblock_callback_does_not_hold_stream(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    reporter r;
    reporter_start(&r);
    RT_OK(aclrtSubscribeReport(tid_of(r.thread), s));

    noblock_data d;
    atomic_init(&d.released, 0);
    atomic_init(&d.saw_release, 0);
    atomic_init(&d.done, 0);
    RT_OK(aclrtLaunchCallback(cb_wait_release, &d, ACL_CALLBACK_NO_BLOCK, s));
    /* If the stream waited for the callback, this task could only run after the callback gave
     * up (3 s): the callback would not see the release, and the sync below would time out. */
    RT_OK(cannonLaunchHostTask(s, rt_task_set_flag, &d.released));
    RT_OK(aclrtSynchronizeStreamWithTimeout(s, 2000));
    assert_int_equal(atomic_load(&d.released), 1);
    assert_true(wait_flag(&d.done, 5000));
    assert_int_equal(atomic_load(&d.saw_release), 1);

    RT_OK(aclrtUnSubscribeReport(tid_of(r.thread), s));
    reporter_stop(&r);
    RT_OK(aclrtDestroyStream(s));
}

static void cb_append(void *arg)
{
    cb_probe *p = arg;
    int n = atomic_fetch_add(&p->n, 1);
    if (n < 8)
        atomic_store(&p->order[n], n + 1);
    atomic_fetch_add(&p->ran, 1);
}

static void test_process_report_in_own_thread(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    RT_OK(aclrtSubscribeReport(tid_of(pthread_self()), s));
    cb_probe p;
    memset(&p, 0, sizeof(p));
    p.expected = pthread_self();
    for (int i = 0; i < 4; i++)
        RT_OK(aclrtLaunchCallback(cb_append, &p, ACL_CALLBACK_NO_BLOCK, s));
    RT_OK(aclrtSynchronizeStream(s)); /* NO_BLOCK: queued for us, not run yet */
    assert_int_equal(atomic_load(&p.ran), 0);
    RT_OK(aclrtProcessReport(1000));
    assert_int_equal(atomic_load(&p.ran), 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(atomic_load(&p.order[i]), i + 1);
    /* Nothing left: times out after the given time. */
    double t0 = rt_now_ms();
    RT_EXPECT(ACL_ERROR_RT_REPORT_TIMEOUT, aclrtProcessReport(50));
    assert_true(rt_now_ms() - t0 >= 45.0);
    RT_OK(aclrtUnSubscribeReport(tid_of(pthread_self()), s));
    RT_EXPECT(ACL_ERROR_RT_THREAD_SUBSCRIBE, aclrtProcessReport(10));
    RT_OK(aclrtDestroyStream(s));
}

static void test_callback_errors(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    cb_probe p;
    memset(&p, 0, sizeof(p));
    /* No subscriber. */
    RT_EXPECT(ACL_ERROR_RT_STREAM_NO_CB_REG, aclrtLaunchCallback(cb_append, &p, ACL_CALLBACK_NO_BLOCK, s));
    RT_EXPECT(ACL_ERROR_RT_STREAM_NO_CB_REG, aclrtLaunchCallback(cb_append, &p, ACL_CALLBACK_BLOCK, NULL));
    /* Bad arguments. */
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtLaunchCallback(NULL, &p, ACL_CALLBACK_NO_BLOCK, s));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtLaunchCallback(cb_append, &p, (aclrtCallbackBlockType)2, s));
    int local = 0;
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtLaunchCallback(cb_append, &p, ACL_CALLBACK_NO_BLOCK, &local));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtSubscribeReport(tid_of(pthread_self()), &local));
    /* Not subscribed. */
    RT_EXPECT(ACL_ERROR_RT_THREAD_SUBSCRIBE, aclrtProcessReport(10));
    RT_EXPECT(ACL_ERROR_RT_THREAD_SUBSCRIBE, aclrtProcessReport(-1));
    /* Bad timeouts are rejected before anything else. */
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtProcessReport(0));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtProcessReport(-2));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtProcessReport(INT32_MIN));
    assert_int_equal(atomic_load(&p.ran), 0);
    RT_OK(aclrtDestroyStream(s));
}

static void test_subscribe_rules(void **state)
{
    (void)state;
    aclrtStream s = NULL, s2 = NULL;
    RT_OK(aclrtCreateStream(&s));
    RT_OK(aclrtCreateStream(&s2));
    reporter r;
    reporter_start(&r);
    uint64_t me = tid_of(pthread_self()), other = tid_of(r.thread);

    RT_OK(aclrtSubscribeReport(me, s));
    /* One subscriber per stream. */
    RT_EXPECT(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtSubscribeReport(other, s));
    RT_EXPECT(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtSubscribeReport(me, s));
    /* One thread may serve several streams. */
    RT_OK(aclrtSubscribeReport(me, s2));
    /* Unsubscribing the wrong thread. */
    RT_EXPECT(ACL_ERROR_STREAM_NOT_SUBSCRIBE, aclrtUnSubscribeReport(other, s));
    RT_OK(aclrtUnSubscribeReport(me, s));
    RT_EXPECT(ACL_ERROR_STREAM_NOT_SUBSCRIBE, aclrtUnSubscribeReport(me, s));
    /* Still subscribed through s2: callbacks of s2 come here. */
    cb_probe p;
    memset(&p, 0, sizeof(p));
    RT_OK(aclrtLaunchCallback(cb_append, &p, ACL_CALLBACK_NO_BLOCK, s2));
    RT_EXPECT(ACL_ERROR_RT_STREAM_NO_CB_REG, aclrtLaunchCallback(cb_append, &p, ACL_CALLBACK_NO_BLOCK, s));
    RT_OK(aclrtSynchronizeStream(s2));
    RT_OK(aclrtProcessReport(1000));
    assert_int_equal(atomic_load(&p.ran), 1);
    RT_OK(aclrtUnSubscribeReport(me, s2));

    /* Now the other thread may take s. */
    RT_OK(aclrtSubscribeReport(other, s));
    memset(&p, 0, sizeof(p));
    p.expected = r.thread;
    RT_OK(aclrtLaunchCallback(cb_record_thread, &p, ACL_CALLBACK_BLOCK, s));
    RT_OK(aclrtSynchronizeStreamWithTimeout(s, 5000));
    assert_int_equal(atomic_load(&p.ran), 1);
    assert_int_equal(atomic_load(&p.in_expected_thread), 1);
    RT_OK(aclrtUnSubscribeReport(other, s));

    reporter_stop(&r);
    RT_OK(aclrtDestroyStream(s));
    RT_OK(aclrtDestroyStream(s2));
}

static void test_unsubscribe_cancels_pending_block(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    uint64_t me = tid_of(pthread_self());
    RT_OK(aclrtSubscribeReport(me, s));
    cb_probe p;
    memset(&p, 0, sizeof(p));
    atomic_int after;
    atomic_init(&after, 0);
    RT_OK(aclrtLaunchCallback(cb_append, &p, ACL_CALLBACK_BLOCK, s));
    RT_OK(cannonLaunchHostTask(s, rt_task_set_flag, &after));
    /* Nobody processes: the stream is held by the BLOCK callback. */
    RT_EXPECT(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s, 50));
    assert_int_equal(atomic_load(&after), 0);
    /* Unsubscribing cancels it, so the stream is not stuck forever. */
    RT_OK(aclrtUnSubscribeReport(me, s));
    RT_OK(aclrtSynchronizeStreamWithTimeout(s, 5000));
    assert_int_equal(atomic_load(&after), 1);
    assert_int_equal(atomic_load(&p.ran), 0);
    RT_OK(aclrtDestroyStream(s));
}

static void test_destroy_subscribed_stream(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    uint64_t me = tid_of(pthread_self());
    RT_OK(aclrtSubscribeReport(me, s));
    cb_probe p;
    memset(&p, 0, sizeof(p));
    RT_OK(aclrtLaunchCallback(cb_append, &p, ACL_CALLBACK_NO_BLOCK, s));
    RT_OK(aclrtDestroyStream(s)); /* drops the subscription with it */
    RT_EXPECT(ACL_ERROR_RT_THREAD_SUBSCRIBE, aclrtProcessReport(10));
    assert_int_equal(atomic_load(&p.ran), 0);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup_dev, rt_teardown)
    const struct CMUnitTest tests[] = {
        T(test_callback_runs_in_subscribed_thread),
        T(test_block_callback_holds_stream),
        T(test_noblock_callback_does_not_hold_stream),
        T(test_process_report_in_own_thread),
        T(test_callback_errors),
        T(test_subscribe_rules),
        T(test_unsubscribe_cancels_pending_block),
        T(test_destroy_subscribed_stream),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
