/* Correctness of every libhccl collective across forked ranks (2, 3, 4 and 8), every data type
 * and reduce op, sizes from 0 elements to 64 MiB, in-place variants. Data are small integers so
 * every floating-point result is exact and can be compared for equality. */
#include "hccl_test_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "fp_convert.h"

static const HcclDataType k_types[] = {
    HCCL_DATA_TYPE_INT8,  HCCL_DATA_TYPE_INT16,  HCCL_DATA_TYPE_INT32,  HCCL_DATA_TYPE_FP16,  HCCL_DATA_TYPE_FP32,
    HCCL_DATA_TYPE_INT64, HCCL_DATA_TYPE_UINT64, HCCL_DATA_TYPE_UINT8,  HCCL_DATA_TYPE_UINT16, HCCL_DATA_TYPE_UINT32,
    HCCL_DATA_TYPE_FP64,  HCCL_DATA_TYPE_BFP16,  HCCL_DATA_TYPE_INT128,
};
#define NTYPES (sizeof k_types / sizeof k_types[0])

static size_t tsize(HcclDataType t)
{
    switch (t) {
    case HCCL_DATA_TYPE_INT8: case HCCL_DATA_TYPE_UINT8: return 1;
    case HCCL_DATA_TYPE_INT16: case HCCL_DATA_TYPE_UINT16: case HCCL_DATA_TYPE_FP16: case HCCL_DATA_TYPE_BFP16: return 2;
    case HCCL_DATA_TYPE_INT32: case HCCL_DATA_TYPE_UINT32: case HCCL_DATA_TYPE_FP32: return 4;
    case HCCL_DATA_TYPE_INT128: return 16;
    default: return 8;
    }
}

static void put(void *buf, size_t i, HcclDataType t, double v)
{
    switch (t) {
    case HCCL_DATA_TYPE_INT8: ((int8_t *)buf)[i] = (int8_t)v; break;
    case HCCL_DATA_TYPE_UINT8: ((uint8_t *)buf)[i] = (uint8_t)v; break;
    case HCCL_DATA_TYPE_INT16: ((int16_t *)buf)[i] = (int16_t)v; break;
    case HCCL_DATA_TYPE_UINT16: ((uint16_t *)buf)[i] = (uint16_t)v; break;
    case HCCL_DATA_TYPE_INT32: ((int32_t *)buf)[i] = (int32_t)v; break;
    case HCCL_DATA_TYPE_UINT32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
    case HCCL_DATA_TYPE_INT64: ((int64_t *)buf)[i] = (int64_t)v; break;
    case HCCL_DATA_TYPE_UINT64: ((uint64_t *)buf)[i] = (uint64_t)v; break;
    case HCCL_DATA_TYPE_FP32: ((float *)buf)[i] = (float)v; break;
    case HCCL_DATA_TYPE_FP64: ((double *)buf)[i] = v; break;
    case HCCL_DATA_TYPE_FP16: ((uint16_t *)buf)[i] = cannon_f32_to_f16((float)v); break;
    case HCCL_DATA_TYPE_BFP16: ((uint16_t *)buf)[i] = cannon_f32_to_bf16((float)v); break;
    case HCCL_DATA_TYPE_INT128: {
        __int128 x = (__int128)(int64_t)v;
        memcpy((char *)buf + i * 16, &x, 16);
        break;
    }
    default: break;
    }
}

static double get(const void *buf, size_t i, HcclDataType t)
{
    switch (t) {
    case HCCL_DATA_TYPE_INT8: return ((const int8_t *)buf)[i];
    case HCCL_DATA_TYPE_UINT8: return ((const uint8_t *)buf)[i];
    case HCCL_DATA_TYPE_INT16: return ((const int16_t *)buf)[i];
    case HCCL_DATA_TYPE_UINT16: return ((const uint16_t *)buf)[i];
    case HCCL_DATA_TYPE_INT32: return ((const int32_t *)buf)[i];
    case HCCL_DATA_TYPE_UINT32: return ((const uint32_t *)buf)[i];
    case HCCL_DATA_TYPE_INT64: return (double)((const int64_t *)buf)[i];
    case HCCL_DATA_TYPE_UINT64: return (double)((const uint64_t *)buf)[i];
    case HCCL_DATA_TYPE_FP32: return ((const float *)buf)[i];
    case HCCL_DATA_TYPE_FP64: return ((const double *)buf)[i];
    case HCCL_DATA_TYPE_FP16: return cannon_f16_to_f32(((const uint16_t *)buf)[i]);
    case HCCL_DATA_TYPE_BFP16: return cannon_bf16_to_f32(((const uint16_t *)buf)[i]);
    case HCCL_DATA_TYPE_INT128: {
        __int128 x;
        memcpy(&x, (const char *)buf + i * 16, 16);
        return (double)x;
    }
    default: return 0;
    }
}

static int is_unsigned(HcclDataType t)
{
    return t == HCCL_DATA_TYPE_UINT8 || t == HCCL_DATA_TYPE_UINT16 || t == HCCL_DATA_TYPE_UINT32 ||
           t == HCCL_DATA_TYPE_UINT64;
}

/* Rank r's element i for reduce op `op`: small, so sums, products, max and min are exact. */
static double val(uint32_t r, size_t i, HcclReduceOp op, HcclDataType t)
{
    switch (op) {
    case HCCL_REDUCE_SUM: return (double)((i % 5) + r);
    case HCCL_REDUCE_PROD: return ((i + r) % 4 == 0) ? 2.0 : 1.0;
    default: return (double)((i * 7 + r * 3) % 11) - (is_unsigned(t) ? 0.0 : 5.0);
    }
}

static double expect(uint32_t p, size_t i, HcclReduceOp op, HcclDataType t)
{
    double a = val(0, i, op, t);
    for (uint32_t r = 1; r < p; r++) {
        double v = val(r, i, op, t);
        switch (op) {
        case HCCL_REDUCE_SUM: a += v; break;
        case HCCL_REDUCE_PROD: a *= v; break;
        case HCCL_REDUCE_MAX: a = v > a ? v : a; break;
        default: a = v < a ? v : a; break;
        }
    }
    return a;
}

static void *dalloc(size_t bytes)
{
    void *p = NULL;
    if (aclrtMalloc(&p, bytes ? bytes : 64, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        return NULL;
    return p;
}

static const uint64_t k_counts[] = {0, 1, 17, 4099};

static int body_reductions(rank_ctx *x)
{
    const uint32_t p = x->nranks, me = x->rank;
    for (size_t ti = 0; ti < NTYPES; ti++) {
        HcclDataType t = k_types[ti];
        size_t es = tsize(t);
        for (int op = 0; op < 4; op++) {
            for (size_t ci = 0; ci < sizeof k_counts / sizeof k_counts[0]; ci++) {
                uint64_t n = k_counts[ci];
                char *snd = dalloc(n * es * p), *rcv = dalloc(n * es * p);
                CHECK(snd && rcv);
                for (size_t i = 0; i < n * p; i++)
                    put(snd, i, t, val(me, i, (HcclReduceOp)op, t));
                /* AllReduce, out of place then in place. */
                CHECK_HCCL(HcclAllReduce(snd, rcv, n, t, (HcclReduceOp)op, x->comm, x->stream));
                CHECK_ACL(aclrtSynchronizeStream(x->stream));
                for (size_t i = 0; i < n; i++)
                    CHECK(get(rcv, i, t) == expect(p, i, (HcclReduceOp)op, t));
                CHECK_HCCL(HcclAllReduce(snd, snd, n, t, (HcclReduceOp)op, x->comm, x->stream));
                CHECK_ACL(aclrtSynchronizeStream(x->stream));
                for (size_t i = 0; i < n; i++)
                    CHECK(get(snd, i, t) == expect(p, i, (HcclReduceOp)op, t));
                /* Reduce to a rotating root. */
                for (size_t i = 0; i < n * p; i++)
                    put(snd, i, t, val(me, i, (HcclReduceOp)op, t));
                uint32_t root = (uint32_t)(ci + (size_t)op) % p;
                memset(rcv, 0, n * es + 1);
                CHECK_HCCL(HcclReduce(snd, rcv, n, t, (HcclReduceOp)op, root, x->comm, x->stream));
                CHECK_ACL(aclrtSynchronizeStream(x->stream));
                if (me == root)
                    for (size_t i = 0; i < n; i++)
                        CHECK(get(rcv, i, t) == expect(p, i, (HcclReduceOp)op, t));
                /* ReduceScatter: block j of everyone's send is reduced onto rank j. */
                CHECK_HCCL(HcclReduceScatter(snd, rcv, n, t, (HcclReduceOp)op, x->comm, x->stream));
                CHECK_ACL(aclrtSynchronizeStream(x->stream));
                for (size_t i = 0; i < n; i++)
                    CHECK(get(rcv, i, t) == expect(p, me * n + i, (HcclReduceOp)op, t));
                aclrtFree(snd);
                aclrtFree(rcv);
            }
        }
    }
    return 0;
}

static int body_movement(rank_ctx *x)
{
    const uint32_t p = x->nranks, me = x->rank;
    static const uint64_t counts[] = {0, 1, 33, 300001};
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
        uint64_t n = counts[ci];
        int32_t *a = dalloc(n * 4 * p), *b = dalloc(n * 4 * p);
        CHECK(a && b);
        /* Broadcast from each root. */
        for (uint32_t root = 0; root < p; root++) {
            for (uint64_t i = 0; i < n; i++)
                a[i] = me == root ? (int32_t)(i * 3 + root) : -1;
            CHECK_HCCL(HcclBroadcast(a, n, HCCL_DATA_TYPE_INT32, root, x->comm, x->stream));
            CHECK_ACL(aclrtSynchronizeStream(x->stream));
            for (uint64_t i = 0; i < n; i++)
                CHECK(a[i] == (int32_t)(i * 3 + root));
        }
        /* AllGather, out of place and in place (send = recv + rank * n). */
        for (uint64_t i = 0; i < n; i++)
            a[i] = (int32_t)(me * 100000 + i);
        CHECK_HCCL(HcclAllGather(a, b, n, HCCL_DATA_TYPE_INT32, x->comm, x->stream));
        CHECK_ACL(aclrtSynchronizeStream(x->stream));
        for (uint32_t j = 0; j < p; j++)
            for (uint64_t i = 0; i < n; i++)
                CHECK(b[j * n + i] == (int32_t)(j * 100000 + i));
        memset(b, 0, n * 4 * p);
        for (uint64_t i = 0; i < n; i++)
            b[me * n + i] = (int32_t)(me * 100000 + i);
        CHECK_HCCL(HcclAllGather(b + me * n, b, n, HCCL_DATA_TYPE_INT32, x->comm, x->stream));
        CHECK_ACL(aclrtSynchronizeStream(x->stream));
        for (uint32_t j = 0; j < p; j++)
            for (uint64_t i = 0; i < n; i++)
                CHECK(b[j * n + i] == (int32_t)(j * 100000 + i));
        /* In-place ReduceScatter (recv = send + rank * n). */
        for (uint64_t i = 0; i < n * p; i++)
            a[i] = (int32_t)(i + me);
        CHECK_HCCL(HcclReduceScatter(a, a + me * n, n, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, x->comm, x->stream));
        CHECK_ACL(aclrtSynchronizeStream(x->stream));
        for (uint64_t i = 0; i < n; i++)
            CHECK(a[me * n + i] == (int32_t)(p * (me * n + i) + p * (p - 1) / 2));
        /* AlltoAll: block j of rank r's send goes to rank j's block r. */
        for (uint32_t j = 0; j < p; j++)
            for (uint64_t i = 0; i < n; i++)
                a[j * n + i] = (int32_t)(me * 1000 + j * 10 + i);
        CHECK_HCCL(HcclAlltoAll(a, n, HCCL_DATA_TYPE_INT32, b, n, HCCL_DATA_TYPE_INT32, x->comm, x->stream));
        CHECK_ACL(aclrtSynchronizeStream(x->stream));
        for (uint32_t j = 0; j < p; j++)
            for (uint64_t i = 0; i < n; i++)
                CHECK(b[j * n + i] == (int32_t)(j * 1000 + me * 10 + i));
        aclrtFree(a);
        aclrtFree(b);
    }
    /* AlltoAllV: rank r sends (r + j) % 3 * k elements to rank j, packed in reverse order. */
    const uint64_t k = 50001;
    uint64_t sc[8], sd[8], rc[8], rd[8], stot = 0, rtot = 0;
    for (int jj = (int)p - 1; jj >= 0; jj--) {
        uint32_t j = (uint32_t)jj;
        sc[j] = (me + j) % 3 * k;
        sd[j] = stot;
        stot += sc[j];
    }
    for (uint32_t j = 0; j < p; j++) {
        rc[j] = (j + me) % 3 * k;
        rd[j] = rtot;
        rtot += rc[j];
    }
    int64_t *sv = dalloc(stot * 8), *rv = dalloc(rtot * 8);
    CHECK(sv && rv);
    for (uint32_t j = 0; j < p; j++)
        for (uint64_t i = 0; i < sc[j]; i++)
            sv[sd[j] + i] = (int64_t)(me * 1000000000ll + j * 1000000 + (int64_t)i);
    CHECK_HCCL(HcclAlltoAllV(sv, sc, sd, HCCL_DATA_TYPE_INT64, rv, rc, rd, HCCL_DATA_TYPE_INT64, x->comm, x->stream));
    CHECK_ACL(aclrtSynchronizeStream(x->stream));
    for (uint32_t j = 0; j < p; j++)
        for (uint64_t i = 0; i < rc[j]; i++)
            CHECK(rv[rd[j] + i] == (int64_t)(j * 1000000000ll + me * 1000000 + (int64_t)i));
    aclrtFree(sv);
    aclrtFree(rv);
    /* Send/Recv around the ring (even ranks send first so the pairs never deadlock), then a
     * barrier. Sizes cross the channel buffer size. */
    static const uint64_t pc[] = {0, 1, 1000, 700000};
    for (size_t ci = 0; ci < 4; ci++) {
        uint64_t n = pc[ci];
        int32_t *s = dalloc(n * 4), *r = dalloc(n * 4);
        CHECK(s && r);
        for (uint64_t i = 0; i < n; i++)
            s[i] = (int32_t)(me * 7 + i);
        uint32_t to = (me + 1) % p, from = (me + p - 1) % p;
        if (me % 2 == 0) {
            CHECK_HCCL(HcclSend(s, n, HCCL_DATA_TYPE_INT32, to, x->comm, x->stream));
            CHECK_HCCL(HcclRecv(r, n, HCCL_DATA_TYPE_INT32, from, x->comm, x->stream));
        } else {
            CHECK_HCCL(HcclRecv(r, n, HCCL_DATA_TYPE_INT32, from, x->comm, x->stream));
            CHECK_HCCL(HcclSend(s, n, HCCL_DATA_TYPE_INT32, to, x->comm, x->stream));
        }
        CHECK_ACL(aclrtSynchronizeStream(x->stream));
        for (uint64_t i = 0; i < n; i++)
            CHECK(r[i] == (int32_t)(from * 7 + i));
        aclrtFree(s);
        aclrtFree(r);
    }
    CHECK_HCCL(HcclBarrier(x->comm, x->stream));
    CHECK_ACL(aclrtSynchronizeStream(x->stream));
    uint32_t v = 0;
    CHECK_HCCL(HcclGetRankSize(x->comm, &v));
    CHECK(v == p);
    CHECK_HCCL(HcclGetRankId(x->comm, &v));
    CHECK(v == me);
    return 0;
}

/* Large fp32 allreduce (many chunks, both slots) plus a large allgather. */
static int body_large(rank_ctx *x)
{
    const uint32_t p = x->nranks, me = x->rank;
    const uint64_t n = *(uint64_t *)x->arg;
    float *a = dalloc(n * 4), *b = dalloc(n * 4);
    CHECK(a && b);
    for (uint64_t i = 0; i < n; i++)
        a[i] = (float)((i & 1023) + me);
    CHECK_HCCL(HcclAllReduce(a, b, n, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, x->comm, x->stream));
    CHECK_ACL(aclrtSynchronizeStream(x->stream));
    for (uint64_t i = 0; i < n; i++)
        if (b[i] != (float)(p * (i & 1023) + p * (p - 1) / 2)) {
            fprintf(stderr, "[rank %u] element %llu: %g\n", me, (unsigned long long)i, (double)b[i]);
            CHECK(0);
        }
    aclrtFree(a);
    aclrtFree(b);
    return 0;
}

/* Zero-copy allreduce (peers read each other's device buffers in place): in place and out of
 * place, repeated (cached arena mappings), and with rank 1 on host memory (*arg = 1), where every
 * rank must fall back to the staged path together. Sizes are odd so chunks and slices are ragged. */
static int body_zcopy(rank_ctx *x)
{
    const uint32_t p = x->nranks, me = x->rank;
    const int host = *(int *)x->arg && me == 1;
    const uint64_t n = 100003;
    float *a = host ? malloc(n * 4) : dalloc(n * 4), *b = dalloc(n * 4);
    CHECK(a && b);
    for (int rep = 0; rep < 3; rep++) {
        for (uint64_t i = 0; i < n; i++)
            a[i] = (float)((i % 977) + me + rep);
        float *dst = rep == 1 ? b : a;
        CHECK_HCCL(HcclAllReduce(a, dst, n, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, x->comm, x->stream));
        CHECK_ACL(aclrtSynchronizeStream(x->stream));
        for (uint64_t i = 0; i < n; i++)
            if (dst[i] != (float)(p * ((i % 977) + rep) + p * (p - 1) / 2)) {
                fprintf(stderr, "[rank %u] rep %d element %llu: %g\n", me, rep, (unsigned long long)i, (double)dst[i]);
                CHECK(0);
            }
    }
    if (host)
        free(a);
    else
        aclrtFree(a);
    aclrtFree(b);
    return 0;
}

static void test_zcopy(void **s)
{
    (void)s;
    setenv("CANNON_HCCL_ZCOPY_MIN_KB", "4", 1);
    setenv("CANNON_HCCL_NT_MIN_KB", "64", 1); /* both the cached and the streaming stores */
    for (int host = 0; host < 2; host++) {
        assert_int_equal(run_ranks(2, body_zcopy, &host), 0);
        assert_int_equal(run_ranks(3, body_zcopy, &host), 0);
    }
    /* Every zero-copy collective (allreduce, allgather, reduce-scatter, broadcast), every type and
     * op, in place and out of place, ragged slices, streaming stores on every size. */
    setenv("CANNON_HCCL_ZCOPY_MIN_KB", "1", 1);
    setenv("CANNON_HCCL_NT_MIN_KB", "1", 1);
    assert_int_equal(run_ranks(3, body_reductions, NULL), 0);
    assert_int_equal(run_ranks(3, body_movement, NULL), 0);
    unsetenv("CANNON_HCCL_ZCOPY_MIN_KB");
    unsetenv("CANNON_HCCL_NT_MIN_KB");
}

/* One rank arrives late to every call (longer than the others spin and yield), so the others go
 * to sleep on the flags and must be woken by its publish: phases (allreduce, staged and zero-copy),
 * and point-to-point counters (send/recv). Rank 0 is late on even calls, rank 1 on odd ones. */
static int body_late(rank_ctx *x)
{
    const uint32_t p = x->nranks, me = x->rank;
    static const uint64_t counts[] = {1000, 100000};
    for (int call = 0; call < 4; call++) {
        uint64_t n = counts[call % 2];
        float *a = dalloc(n * 4), *b = dalloc(n * 4);
        CHECK(a && b);
        for (uint64_t i = 0; i < n; i++)
            a[i] = (float)((i % 13) + me + call);
        if (me == (uint32_t)(call % 2)) {
            struct timespec ts = {0, 20 * 1000000};
            nanosleep(&ts, NULL);
        }
        CHECK_HCCL(HcclAllReduce(a, b, n, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, x->comm, x->stream));
        CHECK_ACL(aclrtSynchronizeStream(x->stream));
        for (uint64_t i = 0; i < n; i++)
            CHECK(b[i] == (float)(p * ((i % 13) + call) + p * (p - 1) / 2));
        if (p == 2) {
            if (me == (uint32_t)(call % 2)) {
                struct timespec ts = {0, 20 * 1000000};
                nanosleep(&ts, NULL);
                CHECK_HCCL(HcclSend(a, n, HCCL_DATA_TYPE_FP32, 1 - me, x->comm, x->stream));
            } else {
                CHECK_HCCL(HcclRecv(b, n, HCCL_DATA_TYPE_FP32, 1 - me, x->comm, x->stream));
            }
            CHECK_ACL(aclrtSynchronizeStream(x->stream));
            if (me != (uint32_t)(call % 2))
                for (uint64_t i = 0; i < n; i++)
                    CHECK(b[i] == (float)((i % 13) + (1 - me) + call));
        }
        aclrtFree(a);
        aclrtFree(b);
    }
    return 0;
}

static void test_late_rank(void **s)
{
    (void)s;
    setenv("CANNON_HCCL_YIELD_US", "2000", 1); /* spin 50 us, yield 2 ms, then sleep */
    assert_int_equal(run_ranks(2, body_late, NULL), 0);
    assert_int_equal(run_ranks(3, body_late, NULL), 0);
    unsetenv("CANNON_HCCL_YIELD_US");
}

static void test_reductions_2(void **s) { (void)s; assert_int_equal(run_ranks(2, body_reductions, NULL), 0); }
static void test_reductions_3(void **s) { (void)s; assert_int_equal(run_ranks(3, body_reductions, NULL), 0); }
static void test_movement_2(void **s) { (void)s; assert_int_equal(run_ranks(2, body_movement, NULL), 0); }
static void test_movement_3(void **s) { (void)s; assert_int_equal(run_ranks(3, body_movement, NULL), 0); }
static void test_movement_4(void **s) { (void)s; assert_int_equal(run_ranks(4, body_movement, NULL), 0); }
static void test_movement_8(void **s) { (void)s; assert_int_equal(run_ranks(8, body_movement, NULL), 0); }
static void test_reductions_8(void **s) { (void)s; assert_int_equal(run_ranks(8, body_reductions, NULL), 0); }

static void test_large_2(void **s)
{
    (void)s;
    uint64_t n = 16u << 20; /* 64 MiB of fp32 */
    assert_int_equal(run_ranks(2, body_large, &n), 0);
}

static void test_large_3_odd(void **s)
{
    (void)s;
    uint64_t n = (1u << 20) + 3;
    assert_int_equal(run_ranks(3, body_large, &n), 0);
}

/* Every algorithm on every size: forced through HCCL_ALGO (the children inherit it). */
static void test_forced_algorithms(void **s)
{
    (void)s;
    static const char *algos[] = {"level0:NA;level1:ring", "allreduce=level0:NA;level1:oneshot/reduce=level1:oneshot",
                                  "level0:mesh", "level0:NA;level1:H-D_R"};
    for (size_t i = 0; i < sizeof algos / sizeof algos[0]; i++) {
        setenv("HCCL_ALGO", algos[i], 1);
        uint64_t n = (1u << 19) + 5;
        assert_int_equal(run_ranks(3, body_large, &n), 0);
        assert_int_equal(run_ranks(4, body_reductions, NULL), 0);
    }
    unsetenv("HCCL_ALGO");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reductions_2), cmocka_unit_test(test_reductions_3), cmocka_unit_test(test_reductions_8),
        cmocka_unit_test(test_movement_2),   cmocka_unit_test(test_movement_3),   cmocka_unit_test(test_movement_4),
        cmocka_unit_test(test_movement_8),   cmocka_unit_test(test_large_2),      cmocka_unit_test(test_large_3_odd),
        cmocka_unit_test(test_forced_algorithms), cmocka_unit_test(test_zcopy),      cmocka_unit_test(test_late_rank),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
