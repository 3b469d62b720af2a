/* libhccl fault handling: argument errors, bootstrap errors, mismatched calls across ranks, a
 * peer that stops calling (HCCL_EXEC_TIMEOUT), a peer killed with SIGKILL mid-loop, and a
 * rank-table init. Every case must end in an error code, never a hang. */
#include "hccl_test_util.h"

#include <dirent.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/socket.h>

#include <cmocka.h>

static int count_dev_shm(void)
{
    DIR *d = opendir("/dev/shm");
    if (d == NULL)
        return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n++;
    closedir(d);
    return n;
}

static void test_arguments(void **s)
{
    (void)s;
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    HcclRootInfo ri;
    HcclComm comm = NULL;
    assert_int_equal(HcclGetRootInfo(NULL), HCCL_E_PTR);
    assert_int_equal(HcclCommInitRootInfo(2, NULL, 0, &comm), HCCL_E_PTR);
    memset(&ri, 0x5a, sizeof ri);
    assert_int_equal(HcclCommInitRootInfo(2, &ri, 0, &comm), HCCL_E_PARA); /* not a root info */
    assert_int_equal(HcclGetRootInfo(&ri), HCCL_SUCCESS);
    assert_int_equal(HcclCommInitRootInfo(2, &ri, 2, &comm), HCCL_E_PARA); /* rank out of range */
    assert_int_equal(HcclCommInitRootInfo(0, &ri, 0, &comm), HCCL_E_PARA);
    assert_int_equal(HcclCommInitRootInfo(2, &ri, 0, NULL), HCCL_E_PTR);
    assert_int_equal(HcclGetRankSize(NULL, NULL), HCCL_E_PTR);
    assert_int_equal(HcclCommDestroy(NULL), HCCL_E_PTR);
    assert_int_equal(HcclCommInitClusterInfo("/nonexistent/rank_table.json", 0, &comm), HCCL_E_OPEN_FILE_FAILURE);
    assert_string_equal(HcclGetErrorString(HCCL_E_TIMEOUT), "timeout");
    assert_int_equal(HcclCommInitAll(2, NULL, &comm), HCCL_E_PTR);
    int32_t dup[2] = {0, 0};
    HcclComm two[2];
    assert_int_equal(HcclCommInitAll(2, dup, two), HCCL_E_PARA);

    /* A one-rank communicator exercises the per-call checks without peers. */
    assert_int_equal(HcclGetRootInfo(&ri), HCCL_SUCCESS);
    assert_int_equal(HcclCommInitRootInfo(1, &ri, 0, &comm), HCCL_SUCCESS);
    aclrtStream st;
    assert_int_equal(aclrtCreateStream(&st), ACL_SUCCESS);
    float buf[4] = {1, 2, 3, 4}, out[4];
    assert_int_equal(HcclAllReduce(NULL, out, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, st), HCCL_E_PTR);
    assert_int_equal(HcclAllReduce(buf, out, 4, (HcclDataType)99, HCCL_REDUCE_SUM, comm, st), HCCL_E_PARA);
    assert_int_equal(HcclAllReduce(buf, out, 4, HCCL_DATA_TYPE_FP32, (HcclReduceOp)9, comm, st), HCCL_E_PARA);
    assert_int_equal(HcclAllReduce(buf, out, UINT64_MAX / 2, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, st),
                     HCCL_E_PARA);
    assert_int_equal(HcclAllReduce(buf, out, 4, HCCL_DATA_TYPE_FP8E4M3, HCCL_REDUCE_SUM, comm, st),
                     HCCL_E_NOT_SUPPORT);
    assert_int_equal(HcclBroadcast(buf, 4, HCCL_DATA_TYPE_FP32, 1, comm, st), HCCL_E_PARA);
    assert_int_equal(HcclSend(buf, 4, HCCL_DATA_TYPE_FP32, 0, comm, st), HCCL_E_PARA);
    assert_int_equal(HcclAlltoAll(buf, 4, HCCL_DATA_TYPE_FP32, out, 3, HCCL_DATA_TYPE_FP32, comm, st), HCCL_E_PARA);
    assert_int_equal(HcclAllReduce(buf, out, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, st), HCCL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(st), ACL_SUCCESS);
    assert_true(out[3] == 4.0f);
    uint32_t n = 0;
    assert_int_equal(HcclGetRankSize(comm, &n), HCCL_SUCCESS);
    assert_int_equal(n, 1);
    HcclResult ae = HCCL_E_INTERNAL;
    assert_int_equal(HcclGetCommAsyncError(comm, &ae), HCCL_SUCCESS);
    assert_int_equal(ae, HCCL_SUCCESS);
    assert_int_equal(HcclCommDestroy(comm), HCCL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(st), ACL_SUCCESS);
    aclrtResetDevice(0);
    aclFinalize();
}

/* ---- bootstrap failures ---- */

static int body_disagree(rank_ctx *x)
{
    const HcclRootInfo *ri = x->arg;
    HcclComm comm = NULL;
    HcclResult rc = HcclCommInitRootInfo(x->rank == 0 ? 2 : 3, ri, x->rank, &comm);
    CHECK(rc == HCCL_E_PARA);
    CHECK(strstr(aclGetRecentErrMsg(), "disagree") != NULL);
    return 0;
}

static void test_disagreeing_rank_counts(void **s)
{
    (void)s;
    assert_int_equal(run_ranks_opt(2, body_disagree, NULL, 0, 30), 0);
}

static int body_missing(rank_ctx *x)
{
    const HcclRootInfo *ri = x->arg;
    HcclComm comm = NULL;
    double t0 = t_now();
    HcclResult rc = HcclCommInitRootInfo(3, ri, x->rank, &comm); /* rank 2 never comes */
    CHECK(rc == HCCL_E_TIMEOUT);
    CHECK(t_now() - t0 < 1 + 4);
    return 0;
}

static void test_connect_timeout(void **s)
{
    (void)s;
    setenv("HCCL_CONNECT_TIMEOUT", "1", 1);
    assert_int_equal(run_ranks_opt(2, body_missing, NULL, 0, 30), 0);
    unsetenv("HCCL_CONNECT_TIMEOUT");
}

/* ---- mismatches ---- */

static int body_count_mismatch(rank_ctx *x)
{
    float a[16] = {0}, b[16];
    CHECK_HCCL(HcclAllReduce(a, b, x->rank == 0 ? 10 : 11, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, x->comm, x->stream));
    CHECK(aclrtSynchronizeStream(x->stream) != ACL_SUCCESS);
    HcclResult ae;
    CHECK_HCCL(HcclGetCommAsyncError(x->comm, &ae));
    CHECK(ae == HCCL_E_PARA);
    /* The communicator is now broken: the next call says why. */
    CHECK(HcclBarrier(x->comm, x->stream) == HCCL_E_PARA);
    const char *m = aclGetRecentErrMsg();
    CHECK(strstr(m, "mismatch") != NULL && strstr(m, "count=10") != NULL && strstr(m, "count=11") != NULL);
    return 0;
}

static int body_order_mismatch(rank_ctx *x)
{
    int32_t a[8] = {0}, b[8];
    if (x->rank == 1)
        CHECK_HCCL(HcclBroadcast(a, 8, HCCL_DATA_TYPE_INT32, 0, x->comm, x->stream));
    else
        CHECK_HCCL(HcclAllReduce(a, b, 8, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_MAX, x->comm, x->stream));
    CHECK(aclrtSynchronizeStream(x->stream) != ACL_SUCCESS);
    CHECK(HcclBarrier(x->comm, x->stream) == HCCL_E_PARA);
    const char *m = aclGetRecentErrMsg();
    CHECK(strstr(m, "Broadcast") != NULL && strstr(m, "AllReduce") != NULL);
    return 0;
}

static int body_root_mismatch(rank_ctx *x)
{
    int32_t a[8] = {0};
    CHECK_HCCL(HcclBroadcast(a, 8, HCCL_DATA_TYPE_INT32, x->rank, x->comm, x->stream));
    CHECK(aclrtSynchronizeStream(x->stream) != ACL_SUCCESS);
    HcclResult ae;
    CHECK_HCCL(HcclGetCommAsyncError(x->comm, &ae));
    CHECK(ae == HCCL_E_PARA);
    return 0;
}

static void test_mismatches(void **s)
{
    (void)s;
    setenv("HCCL_EXEC_TIMEOUT", "20", 1);
    assert_int_equal(run_ranks(2, body_count_mismatch, NULL), 0);
    assert_int_equal(run_ranks(3, body_order_mismatch, NULL), 0);
    assert_int_equal(run_ranks(3, body_root_mismatch, NULL), 0);
    unsetenv("HCCL_EXEC_TIMEOUT");
}

/* ---- a peer that does not call: HCCL_EXEC_TIMEOUT ---- */

static int body_exec_timeout(rank_ctx *x)
{
    float a[4] = {0}, b[4];
    if (x->rank == 1) {
        sleep(4); /* never calls; stays alive past rank 0's timeout */
        return 0;
    }
    double t0 = t_now();
    CHECK_HCCL(HcclAllReduce(a, b, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, x->comm, x->stream));
    CHECK(aclrtSynchronizeStream(x->stream) != ACL_SUCCESS);
    double dt = t_now() - t0;
    CHECK(dt >= 0.9 && dt < 1 + 2);
    HcclResult ae;
    CHECK_HCCL(HcclGetCommAsyncError(x->comm, &ae));
    CHECK(ae == HCCL_E_TIMEOUT);
    return 0;
}

static void test_exec_timeout(void **s)
{
    (void)s;
    setenv("HCCL_EXEC_TIMEOUT", "1", 1);
    assert_int_equal(run_ranks(2, body_exec_timeout, NULL), 0);
    unsetenv("HCCL_EXEC_TIMEOUT");
}

/* ---- a peer killed with SIGKILL in the middle of a loop ---- */

static int body_killed(rank_ctx *x)
{
    const uint64_t n = 1 << 16;
    float *a = calloc(n, 4), *b = calloc(n, 4);
    CHECK(a && b);
    for (int it = 0;; it++) {
        if (x->rank == 2 && it == 20)
            raise(SIGKILL);
        HcclResult rc = HcclAllReduce(a, b, n, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, x->comm, x->stream);
        double t0 = t_now();
        if (rc != HCCL_SUCCESS || aclrtSynchronizeStream(x->stream) != ACL_SUCCESS) {
            CHECK(t_now() - t0 < 2.0); /* far below HCCL_EXEC_TIMEOUT (30 s) */
            HcclResult ae;
            CHECK_HCCL(HcclGetCommAsyncError(x->comm, &ae));
            CHECK(ae == HCCL_E_REMOTE);
            CHECK(it >= 19);
            break;
        }
        CHECK(it < 100000);
    }
    free(a);
    free(b);
    return 0;
}

static void test_peer_killed(void **s)
{
    (void)s;
    int before = count_dev_shm();
    setenv("HCCL_EXEC_TIMEOUT", "30", 1);
    assert_int_equal(run_ranks(3, body_killed, NULL), 1); /* only the victim fails */
    unsetenv("HCCL_EXEC_TIMEOUT");
    assert_int_equal(count_dev_shm(), before); /* nothing left behind */
}

/* ---- rank table ---- */

static int body_ranktable(rank_ctx *x)
{
    HcclComm comm = NULL;
    CHECK_HCCL(HcclCommInitClusterInfo((const char *)x->arg, x->rank, &comm));
    uint32_t v;
    CHECK_HCCL(HcclGetRankId(comm, &v));
    CHECK(v == x->rank);
    int64_t a[3] = {x->rank, 1, 2}, b[3];
    CHECK_HCCL(HcclAllReduce(a, b, 3, HCCL_DATA_TYPE_INT64, HCCL_REDUCE_SUM, comm, x->stream));
    CHECK_ACL(aclrtSynchronizeStream(x->stream));
    CHECK(b[0] == 1 && b[1] == 2 && b[2] == 4);
    CHECK_HCCL(HcclCommDestroy(comm));
    return 0;
}

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t l = sizeof a;
    bind(fd, (struct sockaddr *)&a, sizeof a);
    getsockname(fd, (struct sockaddr *)&a, &l);
    close(fd);
    return ntohs(a.sin_port);
}

static void test_rank_table(void **s)
{
    (void)s;
    static const char *versions[] = {"1.0", "1.2"};
    for (int v = 0; v < 2; v++) {
        char path[] = "/tmp/cannon_hccl_rt_XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        FILE *f = fdopen(fd, "w");
        fprintf(f,
                "{\"status\":\"completed\",\"version\":\"%s\",\"server_count\":\"1\",\"server_list\":[{\"server_id\":"
                "\"node_0\",\"host_ip\":\"127.0.0.1\",\"device\":[{\"device_id\":\"0\",\"device_ip\":\"127.0.0.1\","
                "\"host_port\":\"%d\",\"rank_id\":\"0\"},{\"device_id\":\"1\",\"device_ip\":\"127.0.0.1\",\"rank_id\":"
                "\"1\"}]}]}",
                versions[v], free_port());
        fclose(f);
        assert_int_equal(run_ranks_opt(2, body_ranktable, path, 0, 60), 0);
        unlink(path);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_disagreeing_rank_counts),
        cmocka_unit_test(test_connect_timeout), cmocka_unit_test(test_mismatches),
        cmocka_unit_test(test_exec_timeout), cmocka_unit_test(test_peer_killed),
        cmocka_unit_test(test_rank_table),
        /* Last: it starts threads in this process, and the other tests fork. */
        cmocka_unit_test(test_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
