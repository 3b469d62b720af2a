/* libhccl with threads: HcclCommInitAll (all ranks in one process, one stream each, driven from
 * one thread), and two communicators used concurrently on two streams by forked ranks, with
 * compute (a memset) queued on a third stream meanwhile. */
#include "hccl_test_util.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>

#include <cmocka.h>

#include "cannon/kernel.h"

static void test_init_all(void **s)
{
    (void)s;
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    uint32_t ndev = 0;
    assert_int_equal(aclrtGetDeviceCount(&ndev), ACL_SUCCESS);
    uint32_t n = ndev < 4 ? ndev : 4;
    int32_t devs[4] = {0, 1, 2, 3};
    HcclComm comms[4];
    assert_int_equal(HcclCommInitAll(n, devs, comms), HCCL_SUCCESS);
    aclrtStream st[4];
    float *a[4], *b[4];
    const uint64_t cnt = 100003;
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(aclrtSetDevice(devs[i]), ACL_SUCCESS);
        assert_int_equal(aclrtCreateStream(&st[i]), ACL_SUCCESS);
        a[i] = malloc(cnt * 4);
        b[i] = malloc(cnt * 4);
        for (uint64_t k = 0; k < cnt; k++)
            a[i][k] = (float)(k % 100 + i);
        uint32_t r;
        assert_int_equal(HcclGetRankId(comms[i], &r), HCCL_SUCCESS);
        assert_int_equal(r, i);
    }
    for (int it = 0; it < 3; it++) {
        for (uint32_t i = 0; i < n; i++)
            assert_int_equal(HcclAllReduce(a[i], b[i], cnt, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comms[i], st[i]),
                             HCCL_SUCCESS);
        for (uint32_t i = 0; i < n; i++)
            assert_int_equal(HcclBroadcast(b[i], cnt, HCCL_DATA_TYPE_FP32, 1 % n, comms[i], st[i]), HCCL_SUCCESS);
        for (uint32_t i = 0; i < n; i++)
            assert_int_equal(aclrtSynchronizeStream(st[i]), ACL_SUCCESS);
        for (uint32_t i = 0; i < n; i++)
            for (uint64_t k = 0; k < cnt; k++)
                assert_true(b[i][k] == (float)(n * (k % 100) + n * (n - 1) / 2));
    }
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(HcclCommDestroy(comms[i]), HCCL_SUCCESS);
        aclrtDestroyStream(st[i]);
        free(a[i]);
        free(b[i]);
    }
    aclFinalize();
}

/* Two communicators over the same ranks (the second from a root info made by rank 0 and passed
 * through the first one's broadcast), each driven on its own stream, plus compute on a third. */
static int body_two_comms(rank_ctx *x)
{
    HcclRootInfo ri2;
    if (x->rank == 0)
        CHECK_HCCL(HcclGetRootInfo(&ri2));
    CHECK_HCCL(HcclBroadcast(&ri2, sizeof ri2, HCCL_DATA_TYPE_INT8, 0, x->comm, x->stream));
    CHECK_ACL(aclrtSynchronizeStream(x->stream));
    HcclComm c2;
    CHECK_HCCL(HcclCommInitRootInfo(x->nranks, &ri2, x->rank, &c2));
    aclrtStream s2, s3;
    CHECK_ACL(aclrtCreateStream(&s2));
    CHECK_ACL(aclrtCreateStream(&s3));
    const uint64_t n = 200000;
    int32_t *a = calloc(n, 4), *b = calloc(n, 4), *c = calloc(n, 4), *d = calloc(n, 4);
    void *scratch = NULL;
    CHECK_ACL(aclrtMalloc(&scratch, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
    for (uint64_t i = 0; i < n; i++) {
        a[i] = (int32_t)(i + x->rank);
        c[i] = (int32_t)(2 * i + x->rank);
    }
    for (int it = 0; it < 5; it++) {
        CHECK_HCCL(HcclAllReduce(a, b, n, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, x->comm, x->stream));
        CHECK_HCCL(HcclAllReduce(c, d, n, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_MAX, c2, s2));
        CHECK_ACL(aclrtMemsetAsync(scratch, 1 << 20, it, 1 << 20, s3));
    }
    CHECK_ACL(aclrtSynchronizeStream(x->stream));
    CHECK_ACL(aclrtSynchronizeStream(s2));
    CHECK_ACL(aclrtSynchronizeStream(s3));
    const uint32_t p = x->nranks;
    for (uint64_t i = 0; i < n; i++) {
        CHECK(b[i] == (int32_t)(p * i + p * (p - 1) / 2));
        CHECK(d[i] == (int32_t)(2 * i + p - 1));
    }
    CHECK_HCCL(HcclCommDestroy(c2));
    aclrtDestroyStream(s2);
    aclrtDestroyStream(s3);
    aclrtFree(scratch);
    free(a);
    free(b);
    free(c);
    free(d);
    return 0;
}

static void test_two_comms(void **s)
{
    (void)s;
    assert_int_equal(run_ranks(3, body_two_comms, NULL), 0);
}

/* Host tasks that may run on the synchronizing thread (what every collective is): they keep the
 * stream's order among plain host tasks and device work, a synchronize with a timeout never runs
 * them itself, and unknown flags are rejected. */
typedef struct order_rec {
    _Atomic int next;
    int seq[64];
    pthread_t who[64];
} order_rec;

typedef struct order_arg {
    order_rec *rec;
    int id;
} order_arg;

static int note_task(void *p)
{
    order_arg *a = p;
    int k = atomic_fetch_add(&a->rec->next, 1);
    if (k < 64) {
        a->rec->seq[k] = a->id;
        a->rec->who[k] = pthread_self();
    }
    return 0;
}

static void test_host_task_any_thread(void **s)
{
    (void)s;
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    aclrtStream st;
    assert_int_equal(aclrtCreateStream(&st), ACL_SUCCESS);
    order_rec rec;
    order_arg args[64];
    assert_int_not_equal(cannonLaunchHostTaskEx(st, note_task, &args[0], 0x80), ACL_SUCCESS);
    assert_int_not_equal(cannonLaunchHostTaskEx(st, NULL, NULL, CANNON_HOST_TASK_ANY_THREAD), ACL_SUCCESS);
    void *dev = NULL;
    assert_int_equal(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    for (int round = 0; round < 2; round++) {
        memset(&rec, 0, sizeof rec);
        for (int i = 0; i < 48; i++) {
            args[i] = (order_arg){&rec, i};
            uint32_t flags = i % 3 == 0 ? 0u : CANNON_HOST_TASK_ANY_THREAD;
            assert_int_equal(cannonLaunchHostTaskEx(st, note_task, &args[i], flags), ACL_SUCCESS);
            if (i % 8 == 0)
                assert_int_equal(aclrtMemsetAsync(dev, 4096, i & 0xff, 4096, st), ACL_SUCCESS);
        }
        /* Round 1: bounded, so every task must run on the stream's own thread. */
        if (round == 0)
            assert_int_equal(aclrtSynchronizeStream(st), ACL_SUCCESS);
        else
            assert_int_equal(aclrtSynchronizeStreamWithTimeout(st, 60000), ACL_SUCCESS);
        assert_int_equal(atomic_load(&rec.next), 48);
        for (int i = 0; i < 48; i++) {
            assert_int_equal(rec.seq[i], i);
            if (round == 1)
                assert_false(pthread_equal(rec.who[i], pthread_self()));
        }
    }
    unsigned char host[4096];
    assert_int_equal(aclrtMemcpy(host, sizeof host, dev, 4096, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(host[100], 40);
    aclrtFree(dev);
    aclrtDestroyStream(st);
    aclrtResetDevice(0);
    aclFinalize();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_task_any_thread),
        cmocka_unit_test(test_two_comms),
        cmocka_unit_test(test_init_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
