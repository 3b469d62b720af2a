/* Runtime API tests under concurrency (run under TSan in CI): many threads using devices,
 * streams, kernels and memory at once; concurrent aclInit / aclFinalizeReference; events
 * recorded in one thread and waited on in another. Loops are kept modest for TSan. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_util.h"

/* ---------------------------------------------------------------------------------------------- */
/* Many threads, each with its own streams                                                         */
/* ---------------------------------------------------------------------------------------------- */

#define WT_THREADS 16
#define WT_STREAMS 4
#define WT_KERNELS 100
#define WT_ELEMS 256
#define WT_BLOCKS 4

typedef struct worker_result {
    int id;
    int line;       /* source line of the first failure, 0 = none */
    aclError rc;    /* its code */
    int32_t dev_seen;
} worker_result;

#define W_CHECK(r, expr)                     \
    do {                                     \
        aclError c_ = (expr);                \
        if (c_ != ACL_SUCCESS) {             \
            (r)->line = __LINE__;            \
            (r)->rc = c_;                    \
            return NULL;                     \
        }                                    \
    } while (0)
#define W_TRUE(r, cond)                      \
    do {                                     \
        if (!(cond)) {                       \
            (r)->line = __LINE__;            \
            (r)->rc = -1;                    \
            return NULL;                     \
        }                                    \
    } while (0)

static int kernel_inc_quarter(const cannon_kernel_ctx *ctx, void *args)
{
    int32_t *p = *(int32_t **)args;
    uint32_t per = WT_ELEMS / ctx->block_dim;
    for (uint32_t i = ctx->block_idx * per; i < (ctx->block_idx + 1) * per; i++)
        p[i] += 1;
    return 0;
}

static void *worker_main(void *arg)
{
    worker_result *r = arg;
    int32_t dev = r->id % 8;
    W_CHECK(r, aclrtSetDevice(dev));
    W_CHECK(r, aclrtGetDevice(&r->dev_seen));
    W_TRUE(r, r->dev_seen == dev);

    aclrtStream s[WT_STREAMS];
    int32_t *buf[WT_STREAMS];
    int32_t host[WT_ELEMS];
    for (int i = 0; i < WT_STREAMS; i++) {
        W_CHECK(r, aclrtCreateStream(&s[i]));
        W_CHECK(r, aclrtMalloc((void **)&buf[i], WT_ELEMS * sizeof(int32_t), ACL_MEM_MALLOC_HUGE_FIRST));
        for (int j = 0; j < WT_ELEMS; j++)
            host[j] = r->id * 1000 + i * 10 + j;
        W_CHECK(r, aclrtMemcpy(buf[i], WT_ELEMS * sizeof(int32_t), host, sizeof(host), ACL_MEMCPY_HOST_TO_DEVICE));
    }
    for (int k = 0; k < WT_KERNELS; k++) {
        for (int i = 0; i < WT_STREAMS; i++) {
            cannon_launch_desc d = {.name = "inc", .fn = kernel_inc_quarter, .args = &buf[i],
                                    .args_size = sizeof(buf[i]), .block_dim = WT_BLOCKS};
            W_CHECK(r, cannonLaunchKernel(&d, s[i]));
        }
        if (k % 25 == 0) {
            /* Some allocation churn while kernels run. */
            void *tmp = NULL;
            W_CHECK(r, aclrtMalloc(&tmp, 4096 + (size_t)k * 64, ACL_MEM_MALLOC_NORMAL_ONLY));
            W_CHECK(r, aclrtMemset(tmp, 4096 + (size_t)k * 64, k, 4096));
            W_CHECK(r, aclrtFree(tmp));
        }
    }
    for (int i = 0; i < WT_STREAMS; i++)
        W_CHECK(r, aclrtSynchronizeStream(s[i]));
    for (int i = 0; i < WT_STREAMS; i++) {
        memset(host, 0, sizeof(host));
        W_CHECK(r, aclrtMemcpy(host, sizeof(host), buf[i], sizeof(host), ACL_MEMCPY_DEVICE_TO_HOST));
        for (int j = 0; j < WT_ELEMS; j++)
            W_TRUE(r, host[j] == r->id * 1000 + i * 10 + j + WT_KERNELS);
        W_CHECK(r, aclrtFree(buf[i]));
        W_CHECK(r, aclrtDestroyStream(s[i]));
    }
    W_CHECK(r, aclrtResetDevice(dev));
    return NULL;
}

static void test_many_threads(void **state)
{
    (void)state;
    pthread_t t[WT_THREADS];
    worker_result res[WT_THREADS];
    memset(res, 0, sizeof(res));
    for (int i = 0; i < WT_THREADS; i++) {
        res[i].id = i;
        t[i] = rt_thread_start(worker_main, &res[i]);
    }
    for (int i = 0; i < WT_THREADS; i++)
        rt_thread_join(t[i]);
    for (int i = 0; i < WT_THREADS; i++) {
        if (res[i].line)
            print_error("thread %d failed at line %d with %d\n", i, res[i].line, res[i].rc);
        assert_int_equal(res[i].line, 0);
    }
    /* Every device reference was dropped. */
    for (int d = 0; d < 8; d++)
        assert_int_equal(g_rt.devices[d].primary_refs, 0);
}

/* ---------------------------------------------------------------------------------------------- */
/* Concurrent aclInit / aclFinalizeReference                                                       */
/* ---------------------------------------------------------------------------------------------- */

#define IF_THREADS 8
#define IF_ROUNDS 40

typedef struct initfin_result {
    int id;
    int bad;          /* unexpected results */
    int inits_first;  /* aclInit returned ACL_SUCCESS */
    int inits_repeat; /* aclInit returned ACL_ERROR_REPEAT_INITIALIZE */
} initfin_result;

static void *initfin_main(void *arg)
{
    initfin_result *r = arg;
    for (int i = 0; i < IF_ROUNDS; i++) {
        aclError rc = aclInit(NULL);
        if (rc == ACL_SUCCESS)
            r->inits_first++;
        else if (rc == ACL_ERROR_REPEAT_INITIALIZE)
            r->inits_repeat++;
        else
            r->bad++;
        /* While the reference is held, the runtime is up. */
        uint32_t n = 0;
        if (aclrtGetDeviceCount(&n) != ACL_SUCCESS || n != 8)
            r->bad++;
        if (i % 10 == r->id % 10) {
            if (aclrtSetDevice(r->id % 8) != ACL_SUCCESS || aclrtResetDevice(r->id % 8) != ACL_SUCCESS)
                r->bad++;
        }
        uint64_t left = UINT64_MAX;
        if (aclFinalizeReference(&left) != ACL_SUCCESS || left >= IF_THREADS)
            r->bad++;
        (void)aclGetRecentErrMsg();
    }
    return NULL;
}

static void test_concurrent_init_finalize_reference(void **state)
{
    (void)state;
    RT_OK(aclFinalize()); /* start from zero references */
    pthread_t t[IF_THREADS];
    initfin_result res[IF_THREADS];
    memset(res, 0, sizeof(res));
    for (int i = 0; i < IF_THREADS; i++) {
        res[i].id = i;
        t[i] = rt_thread_start(initfin_main, &res[i]);
    }
    for (int i = 0; i < IF_THREADS; i++)
        rt_thread_join(t[i]);
    int first = 0, total = 0;
    for (int i = 0; i < IF_THREADS; i++) {
        assert_int_equal(res[i].bad, 0);
        first += res[i].inits_first;
        total += res[i].inits_first + res[i].inits_repeat;
    }
    assert_int_equal(total, IF_THREADS * IF_ROUNDS);
    assert_true(first >= 1);
    /* Every reference was dropped. */
    assert_int_equal(g_rt.init_refs, 0);
    assert_false(g_rt.core_up);
    RT_EXPECT(ACL_ERROR_REPEAT_FINALIZE, aclFinalizeReference(NULL));
    /* And the runtime can be used again. */
    RT_OK(aclInit(NULL));
    rt_check_runtime_works(3);
}

/* ---------------------------------------------------------------------------------------------- */
/* Events recorded in one thread, waited on in another                                             */
/* ---------------------------------------------------------------------------------------------- */

#define EV_ROUNDS 50

typedef struct ev_shared {
    aclrtEvent ev[EV_ROUNDS];
    int data[EV_ROUNDS];      /* written by producer-stream tasks, read by consumer-stream tasks */
    int seen[EV_ROUNDS];
    atomic_int recorded;      /* rounds whose event the producer has recorded */
    atomic_int mismatches;
    aclError prod_rc, cons_rc;
} ev_shared;

typedef struct ev_task {
    ev_shared *sh;
    int round;
} ev_task;

static ev_task g_ev_tasks[EV_ROUNDS];

static int task_produce(void *arg)
{
    ev_task *t = arg;
    if (t->round % 10 == 0)
        rt_sleep_ms(5);
    t->sh->data[t->round] = t->round * 7 + 1;
    return 0;
}

static int task_consume(void *arg)
{
    ev_task *t = arg;
    t->sh->seen[t->round] = t->sh->data[t->round];
    if (t->sh->seen[t->round] != t->round * 7 + 1)
        atomic_fetch_add(&t->sh->mismatches, 1);
    return 0;
}

static void *producer_main(void *arg)
{
    ev_shared *sh = arg;
    aclError rc = aclrtSetDevice(0);
    aclrtStream s = NULL;
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateStream(&s);
    for (int r = 0; r < EV_ROUNDS && rc == ACL_SUCCESS; r++) {
        rc = cannonLaunchHostTask(s, task_produce, &g_ev_tasks[r]);
        if (rc == ACL_SUCCESS)
            rc = aclrtRecordEvent(sh->ev[r], s);
        atomic_store(&sh->recorded, r + 1);
    }
    if (rc == ACL_SUCCESS)
        rc = aclrtSynchronizeStream(s);
    if (s && rc == ACL_SUCCESS)
        rc = aclrtDestroyStream(s);
    atomic_store(&sh->recorded, EV_ROUNDS);
    sh->prod_rc = rc;
    return NULL;
}

static void *consumer_main(void *arg)
{
    ev_shared *sh = arg;
    aclError rc = aclrtSetDevice(0);
    aclrtStream s = NULL;
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateStream(&s);
    for (int r = 0; r < EV_ROUNDS && rc == ACL_SUCCESS; r++) {
        double end = rt_now_ms() + 10000.0;
        while (atomic_load(&sh->recorded) <= r && rt_now_ms() < end)
            sched_yield();
        rc = aclrtStreamWaitEvent(s, sh->ev[r]);
        if (rc == ACL_SUCCESS)
            rc = cannonLaunchHostTask(s, task_consume, &g_ev_tasks[r]);
    }
    if (rc == ACL_SUCCESS)
        rc = aclrtSynchronizeStream(s);
    if (s && rc == ACL_SUCCESS)
        rc = aclrtDestroyStream(s);
    sh->cons_rc = rc;
    return NULL;
}

static void test_cross_thread_events(void **state)
{
    (void)state;
    RT_OK(aclrtSetDevice(0));
    ev_shared *sh = calloc(1, sizeof(*sh));
    assert_non_null(sh);
    atomic_init(&sh->recorded, 0);
    atomic_init(&sh->mismatches, 0);
    for (int r = 0; r < EV_ROUNDS; r++) {
        RT_OK(aclrtCreateEvent(&sh->ev[r]));
        g_ev_tasks[r].sh = sh;
        g_ev_tasks[r].round = r;
    }
    pthread_t c = rt_thread_start(consumer_main, sh);
    pthread_t p = rt_thread_start(producer_main, sh);
    rt_thread_join(p);
    rt_thread_join(c);
    assert_int_equal(sh->prod_rc, ACL_SUCCESS);
    assert_int_equal(sh->cons_rc, ACL_SUCCESS);
    assert_int_equal(atomic_load(&sh->mismatches), 0);
    for (int r = 0; r < EV_ROUNDS; r++)
        assert_int_equal(sh->seen[r], r * 7 + 1);
    for (int r = 0; r < EV_ROUNDS; r++)
        RT_OK(aclrtDestroyEvent(sh->ev[r]));
    free(sh);
    RT_OK(aclrtResetDevice(0));
}

/* Several threads synchronising, querying and recording the same event and stream at once. */
typedef struct shared_ev_arg {
    aclrtEvent ev;
    aclrtStream stream;
    aclError rc;
} shared_ev_arg;

static void *shared_event_main(void *arg)
{
    shared_ev_arg *a = arg;
    aclError rc = aclrtSetDevice(0);
    for (int i = 0; i < 50 && rc == ACL_SUCCESS; i++) {
        aclrtEventRecordedStatus st;
        rc = aclrtRecordEvent(a->ev, a->stream);
        if (rc == ACL_SUCCESS)
            rc = aclrtQueryEventStatus(a->ev, &st);
        if (rc == ACL_SUCCESS)
            rc = aclrtSynchronizeEvent(a->ev);
        if (rc == ACL_SUCCESS)
            rc = cannonLaunchHostTask(a->stream, rt_task_sleep, (void *)(uintptr_t)0);
    }
    if (rc == ACL_SUCCESS)
        rc = aclrtSynchronizeStream(a->stream);
    if (rc == ACL_SUCCESS)
        rc = aclrtResetDevice(0);
    a->rc = rc;
    return NULL;
}

static void test_shared_event_and_stream(void **state)
{
    (void)state;
    RT_OK(aclrtSetDevice(0));
    aclrtEvent ev = NULL;
    aclrtStream s = NULL;
    RT_OK(aclrtCreateEvent(&ev));
    RT_OK(aclrtCreateStream(&s));
    enum { N = 4 };
    pthread_t t[N];
    shared_ev_arg a[N];
    for (int i = 0; i < N; i++) {
        a[i] = (shared_ev_arg){.ev = ev, .stream = s, .rc = -1};
        t[i] = rt_thread_start(shared_event_main, &a[i]);
    }
    for (int i = 0; i < N; i++)
        rt_thread_join(t[i]);
    for (int i = 0; i < N; i++)
        assert_int_equal(a[i].rc, ACL_SUCCESS);
    RT_OK(aclrtSynchronizeStream(s));
    RT_OK(aclrtDestroyEvent(ev));
    RT_OK(aclrtDestroyStream(s));
    RT_OK(aclrtResetDevice(0));
}

/* Destroying a stream in one thread while others launch on it: launches either succeed or report
 * a dead handle (ACL_ERROR_INVALID_PARAM), never crash. */
typedef struct race_arg {
    aclrtStream s;
    atomic_int *stop;
    int bad;
    int ok;
    int dead;
} race_arg;

static int task_nop(void *arg)
{
    (void)arg;
    return 0;
}

static void *launcher_main(void *arg)
{
    race_arg *a = arg;
    if (aclrtSetDevice(0) != ACL_SUCCESS) {
        a->bad++;
        return NULL;
    }
    while (!atomic_load(a->stop) && a->ok < 5000) {
        aclError rc = cannonLaunchHostTask(a->s, task_nop, NULL);
        if (rc == ACL_SUCCESS)
            a->ok++;
        else if (rc == ACL_ERROR_INVALID_PARAM)
            a->dead++;
        else
            a->bad++;
        if (a->dead > 0)
            break;
    }
    (void)aclGetRecentErrMsg();
    if (aclrtResetDevice(0) != ACL_SUCCESS)
        a->bad++;
    return NULL;
}

static void test_destroy_while_launching(void **state)
{
    (void)state;
    RT_OK(aclrtSetDevice(0));
    for (int round = 0; round < 5; round++) {
        aclrtStream s = NULL;
        RT_OK(aclrtCreateStream(&s));
        atomic_int stop;
        atomic_init(&stop, 0);
        enum { N = 3 };
        race_arg a[N];
        pthread_t t[N];
        for (int i = 0; i < N; i++) {
            a[i] = (race_arg){.s = s, .stop = &stop};
            t[i] = rt_thread_start(launcher_main, &a[i]);
        }
        rt_sleep_ms(10);
        RT_OK(aclrtDestroyStream(s));
        rt_sleep_ms(5);
        atomic_store(&stop, 1);
        for (int i = 0; i < N; i++)
            rt_thread_join(t[i]);
        int ok = 0;
        for (int i = 0; i < N; i++) {
            assert_int_equal(a[i].bad, 0);
            ok += a[i].ok;
        }
        assert_true(ok > 0);
    }
    RT_OK(aclrtResetDevice(0));
}

/* Another thread is inside aclrtSynchronizeStream / aclrtSynchronizeEvent (holding a reference)
 * when the stream and event are torn down by aclFinalize or aclrtResetDevice. The device must not
 * end the driver objects under that thread (whose release would end them a second time): the
 * teardown waits for the references, and both calls return. */
typedef struct sync_arg {
    aclrtStream s;
    aclrtEvent e;
    aclError stream_rc, event_rc;
    atomic_int started;
} sync_arg;

static int k_sleep_ms(const cannon_kernel_ctx *ctx, void *args)
{
    (void)ctx;
    rt_sleep_ms(*(unsigned *)args);
    return 0;
}

static void *stream_syncer(void *p)
{
    sync_arg *a = p;
    atomic_store(&a->started, 1);
    a->stream_rc = aclrtSynchronizeStream(a->s);
    return NULL;
}

static void *event_syncer(void *p)
{
    sync_arg *a = p;
    atomic_store(&a->started, 1);
    a->event_rc = aclrtSynchronizeEvent(a->e);
    return NULL;
}

static void teardown_while_synchronizing(int reset)
{
    RT_OK(aclrtSetDevice(0));
    sync_arg a;
    memset(&a, 0, sizeof(a));
    atomic_init(&a.started, 0);
    a.stream_rc = a.event_rc = -1;
    RT_OK(aclrtCreateStream(&a.s));
    RT_OK(aclrtCreateEvent(&a.e));
    unsigned ms = 300;
    cannon_launch_desc d = {.name = "sleep", .fn = k_sleep_ms, .args = &ms, .args_size = sizeof(ms), .block_dim = 1};
    RT_OK(cannonLaunchKernel(&d, a.s));
    RT_OK(aclrtRecordEvent(a.e, a.s));
    pthread_t ts = rt_thread_start(stream_syncer, &a);
    pthread_t te = rt_thread_start(event_syncer, &a);
    while (!atomic_load(&a.started))
        rt_sleep_ms(1);
    rt_sleep_ms(50); /* both wait in the runtime now */
    rt_watchdog_arm(60, reset ? "aclrtResetDevice while other threads synchronize"
                              : "aclFinalize while other threads synchronize");
    if (reset)
        RT_OK(aclrtResetDevice(0));
    else
        RT_OK(aclFinalize());
    rt_thread_join(ts);
    rt_thread_join(te);
    rt_watchdog_disarm();
    /* The stream's work ran (it was not discarded under the synchronize); the event wait either
     * saw the record or learnt that the event was destroyed. */
    assert_int_equal(a.stream_rc, ACL_SUCCESS);
    assert_true(a.event_rc == ACL_SUCCESS || a.event_rc == ACL_ERROR_INVALID_PARAM);
}

static void test_finalize_while_synchronizing(void **state)
{
    (void)state;
    teardown_while_synchronizing(0);
    RT_OK(aclInit(NULL)); /* for the fixture's teardown */
}

static void test_reset_while_synchronizing(void **state)
{
    (void)state;
    teardown_while_synchronizing(1);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, rt_setup, rt_teardown)
    const struct CMUnitTest tests[] = {
        T(test_many_threads),
        T(test_concurrent_init_finalize_reference),
        T(test_cross_thread_events),
        T(test_shared_event_and_stream),
        T(test_destroy_while_launching),
        T(test_finalize_while_synchronizing),
        T(test_reset_while_synchronizing),
    };
#undef T
    rt_apply_test_filter();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
