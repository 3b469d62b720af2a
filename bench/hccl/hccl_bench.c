/*
 * hccl_bench - collective benchmark in the style of nccl-tests / hccl_test, one process per rank.
 *
 *   cannonrun -n 2 hccl_bench -b 4K -e 256M -f 2 -o allreduce -d fp32 -r sum -n 20 -w 5 -c 1
 *   mpirun -np 2 hccl_bench ...     (or srun; rank/size/device come from cannon_launch_env)
 *
 * Output columns follow nccl-tests so results drop into the same tooling:
 *   size (B), count (elements), type, redop, root, time (us), algbw, busbw (GB/s), #wrong.
 * size is the larger per-rank buffer (allgather: the gathered output; reducescatter: the
 * input; alltoall: the send buffer), as nccl-tests counts it. algbw = size / time;
 * busbw = algbw x (allreduce 2(n-1)/n, allgather/reducescatter/alltoall (n-1)/n, broadcast 1).
 * time = mean per-iteration time of the slowest rank (max over ranks of a timed loop of -n
 * back-to-back ops followed by one stream synchronisation; with -S, a synchronisation after each).
 * #wrong counts elements differing from the expected result in a checked run before timing.
 */
#include "acl/acl.h"
#include "cannon/launch_env.h"
#include "hccl/hccl.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

typedef enum { OP_ALLREDUCE, OP_ALLGATHER, OP_REDUCESCATTER, OP_BROADCAST, OP_ALLTOALL } bench_op;

typedef struct cfg {
    size_t min_bytes, max_bytes;
    double factor;
    bench_op op;
    HcclDataType dtype;
    HcclReduceOp redop;
    int iters, warmup, check;
    int sync_each; /* -S: synchronize after every op (blocking latency) */
    uint32_t root;
} cfg;

static const struct {
    const char *name;
    HcclDataType t;
    size_t size;
} k_types[] = {
    {"int8", HCCL_DATA_TYPE_INT8, 1},     {"int16", HCCL_DATA_TYPE_INT16, 2},
    {"int32", HCCL_DATA_TYPE_INT32, 4},   {"fp16", HCCL_DATA_TYPE_FP16, 2},
    {"fp32", HCCL_DATA_TYPE_FP32, 4},     {"int64", HCCL_DATA_TYPE_INT64, 8},
    {"uint64", HCCL_DATA_TYPE_UINT64, 8}, {"uint8", HCCL_DATA_TYPE_UINT8, 1},
    {"uint16", HCCL_DATA_TYPE_UINT16, 2}, {"uint32", HCCL_DATA_TYPE_UINT32, 4},
    {"fp64", HCCL_DATA_TYPE_FP64, 8},     {"bf16", HCCL_DATA_TYPE_BFP16, 2},
};
#define N_TYPES (sizeof k_types / sizeof k_types[0])
static const char *k_opnames[] = {"allreduce", "allgather", "reducescatter", "broadcast",
                                  "alltoall"};
static const char *k_rednames[] = {"sum", "prod", "max", "min"};

static int g_rank;

#define DIE(...)                                                                               \
    do {                                                                                       \
        fprintf(stderr, "hccl_bench[%d]: ", g_rank);                                           \
        fprintf(stderr, __VA_ARGS__);                                                          \
        fputc('\n', stderr);                                                                   \
        exit(1);                                                                               \
    } while (0)

#define ACL_CHECK(call)                                                                        \
    do {                                                                                       \
        aclError e_ = (call);                                                                  \
        if (e_ != ACL_SUCCESS)                                                                 \
            DIE("%s failed: %d (%s)", #call, (int)e_, aclGetRecentErrMsg());                   \
    } while (0)

#define HCCL_CHECK(call)                                                                       \
    do {                                                                                       \
        HcclResult r_ = (call);                                                                \
        if (r_ != HCCL_SUCCESS)                                                                \
            DIE("%s failed: %s (%d)", #call, HcclGetErrorString(r_), (int)r_);                 \
    } while (0)

static size_t type_size(HcclDataType t)
{
    for (size_t i = 0; i < N_TYPES; i++)
        if (k_types[i].t == t)
            return k_types[i].size;
    return 0;
}

static const char *type_name(HcclDataType t)
{
    for (size_t i = 0; i < N_TYPES; i++)
        if (k_types[i].t == t)
            return k_types[i].name;
    return "?";
}

/* "4K", "256M", "1G", "1000" -> bytes (powers of two, as nccl-tests). */
static int parse_size(const char *s, size_t *out)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || v < 0)
        return -1;
    double m = 1;
    switch (*end) {
    case 'k': case 'K': m = 1024.0; end++; break;
    case 'm': case 'M': m = 1024.0 * 1024; end++; break;
    case 'g': case 'G': m = 1024.0 * 1024 * 1024; end++; break;
    default: break;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end != '\0')
        return -1;
    *out = (size_t)(v * m);
    return 0;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: hccl_bench [-b MIN] [-e MAX] [-f FACTOR] [-o op] [-d type] [-r redop]\n"
            "                  [-n iters] [-w warmup] [-c 0|1] [-R root] [-S]\n"
            "  op: allreduce allgather reducescatter broadcast alltoall (default allreduce)\n"
            "  type: int8 int16 int32 int64 uint8 uint16 uint32 uint64 fp16 bf16 fp32 fp64\n"
            "  redop: sum prod max min; sizes accept K/M/G suffixes\n"
            "  -S: synchronize the stream after every op (blocking latency, as a loop that waits\n"
            "      for each collective); default: -n back-to-back ops, then one synchronize\n"
            "  run one process per rank: cannonrun -n N, mpirun -np N or srun -n N\n");
    exit(2);
}

static void parse_args(int argc, char **argv, cfg *c)
{
    c->min_bytes = c->max_bytes = 32u << 20;
    c->factor = 2;
    c->op = OP_ALLREDUCE;
    c->dtype = HCCL_DATA_TYPE_FP32;
    c->redop = HCCL_REDUCE_SUM;
    c->iters = 20;
    c->warmup = 5;
    c->check = 1;
    c->root = 0;
    c->sync_each = 0;
    int opt;
    while ((opt = getopt(argc, argv, "b:e:f:o:d:r:n:w:c:R:p:Sh")) != -1) {
        switch (opt) {
        case 'b': if (parse_size(optarg, &c->min_bytes)) usage(); break;
        case 'e': if (parse_size(optarg, &c->max_bytes)) usage(); break;
        case 'f': c->factor = atof(optarg); if (c->factor <= 1) usage(); break;
        case 'o': {
            size_t i;
            for (i = 0; i < 5; i++)
                if (strcasecmp(optarg, k_opnames[i]) == 0)
                    break;
            if (i == 5)
                usage();
            c->op = (bench_op)i;
            break;
        }
        case 'd': {
            size_t i;
            for (i = 0; i < N_TYPES; i++)
                if (strcasecmp(optarg, k_types[i].name) == 0)
                    break;
            if (i == N_TYPES) {
                if (strcasecmp(optarg, "float") == 0)
                    i = 4;
                else
                    usage();
            }
            c->dtype = k_types[i].t;
            break;
        }
        case 'r': {
            size_t i;
            for (i = 0; i < 4; i++)
                if (strcasecmp(optarg, k_rednames[i]) == 0)
                    break;
            if (i == 4)
                usage();
            c->redop = (HcclReduceOp)i;
            break;
        }
        case 'n': c->iters = atoi(optarg); if (c->iters < 1) usage(); break;
        case 'w': c->warmup = atoi(optarg); if (c->warmup < 0) usage(); break;
        case 'c': c->check = atoi(optarg); break;
        case 'R': c->root = (uint32_t)atoi(optarg); break;
        case 'S': c->sync_each = 1; break;
        case 'p': break; /* hccl_test's -p (NPUs per node): the launcher decides */
        default: usage();
        }
    }
    if (c->max_bytes < c->min_bytes)
        c->max_bytes = c->min_bytes;
}

/* ---- element access as double (test values are small integers, exact in every type) ---- */

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    float v;
    if (exp == 0)
        v = ldexpf((float)man, -24);
    else if (exp == 31)
        v = man ? NAN : INFINITY;
    else
        v = ldexpf((float)(man | 0x400), (int)exp - 25);
    return sign ? -v : v;
}

/* Exact for the small integers used here (no rounding needed). */
static uint16_t float_to_half(float f)
{
    if (f == 0)
        return 0;
    uint16_t sign = f < 0 ? 0x8000 : 0;
    f = fabsf(f);
    int e;
    float m = frexpf(f, &e); /* f = m * 2^e, m in [0.5, 1) */
    int exp = e - 1 + 15;
    if (exp >= 31)
        return sign | 0x7c00;
    if (exp <= 0)
        return sign | (uint16_t)lrintf(ldexpf(f, 24));
    uint16_t man = (uint16_t)lrintf((m * 2 - 1) * 1024);
    return sign | (uint16_t)(exp << 10) | man;
}

static double get_el(const void *p, size_t i, HcclDataType t)
{
    switch (t) {
    case HCCL_DATA_TYPE_INT8: return ((const int8_t *)p)[i];
    case HCCL_DATA_TYPE_INT16: return ((const int16_t *)p)[i];
    case HCCL_DATA_TYPE_INT32: return ((const int32_t *)p)[i];
    case HCCL_DATA_TYPE_INT64: return (double)((const int64_t *)p)[i];
    case HCCL_DATA_TYPE_UINT8: return ((const uint8_t *)p)[i];
    case HCCL_DATA_TYPE_UINT16: return ((const uint16_t *)p)[i];
    case HCCL_DATA_TYPE_UINT32: return ((const uint32_t *)p)[i];
    case HCCL_DATA_TYPE_UINT64: return (double)((const uint64_t *)p)[i];
    case HCCL_DATA_TYPE_FP16: return half_to_float(((const uint16_t *)p)[i]);
    case HCCL_DATA_TYPE_BFP16: {
        uint32_t b = (uint32_t)((const uint16_t *)p)[i] << 16;
        float f;
        memcpy(&f, &b, 4);
        return f;
    }
    case HCCL_DATA_TYPE_FP32: return ((const float *)p)[i];
    case HCCL_DATA_TYPE_FP64: return ((const double *)p)[i];
    default: return NAN;
    }
}

static void set_el(void *p, size_t i, HcclDataType t, double v)
{
    switch (t) {
    case HCCL_DATA_TYPE_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
    case HCCL_DATA_TYPE_INT16: ((int16_t *)p)[i] = (int16_t)v; break;
    case HCCL_DATA_TYPE_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
    case HCCL_DATA_TYPE_INT64: ((int64_t *)p)[i] = (int64_t)v; break;
    case HCCL_DATA_TYPE_UINT8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case HCCL_DATA_TYPE_UINT16: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case HCCL_DATA_TYPE_UINT32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    case HCCL_DATA_TYPE_UINT64: ((uint64_t *)p)[i] = (uint64_t)v; break;
    case HCCL_DATA_TYPE_FP16: ((uint16_t *)p)[i] = float_to_half((float)v); break;
    case HCCL_DATA_TYPE_BFP16: {
        float f = (float)v; /* small integers: the top 16 bits are exact */
        uint32_t b;
        memcpy(&b, &f, 4);
        ((uint16_t *)p)[i] = (uint16_t)(b >> 16);
        break;
    }
    case HCCL_DATA_TYPE_FP32: ((float *)p)[i] = (float)v; break;
    case HCCL_DATA_TYPE_FP64: ((double *)p)[i] = v; break;
    default: break;
    }
}

/* Value rank r holds at element i. Products use {1, 2} so 2^nranks stays exact and in range;
 * the other ops use 1..4 so even int8 sums of 31 ranks fit. */
static double val(const cfg *c, int r, size_t i)
{
    if (c->op != OP_ALLREDUCE && c->op != OP_REDUCESCATTER)
        return (double)((i * 7 + (size_t)r * 3) % 61);
    if (c->redop == HCCL_REDUCE_PROD)
        return (double)(1 + (i + (size_t)r) % 2);
    return (double)(1 + (i + 3 * (size_t)r) % 4);
}

static double reduce_expected(const cfg *c, int nranks, size_t i)
{
    double acc = val(c, 0, i);
    for (int r = 1; r < nranks; r++) {
        double v = val(c, r, i);
        switch (c->redop) {
        case HCCL_REDUCE_SUM: acc += v; break;
        case HCCL_REDUCE_PROD: acc *= v; break;
        case HCCL_REDUCE_MAX: acc = v > acc ? v : acc; break;
        case HCCL_REDUCE_MIN: acc = v < acc ? v : acc; break;
        default: break;
        }
    }
    return acc;
}

/* Element counts per op for a benchmark size (bytes): in / out elements per rank and the
 * count argument of the call. Sizes are rounded down to whole rank-sized blocks. */
typedef struct shape {
    size_t in_elems, out_elems, arg_count, size_bytes;
} shape;

static shape make_shape(const cfg *c, size_t bytes, int n)
{
    size_t es = type_size(c->dtype), total = bytes / es;
    shape s;
    switch (c->op) {
    case OP_ALLGATHER:
        s.arg_count = total / (size_t)n;
        s.in_elems = s.arg_count;
        s.out_elems = s.arg_count * (size_t)n;
        s.size_bytes = s.out_elems * es;
        break;
    case OP_REDUCESCATTER:
        s.arg_count = total / (size_t)n;
        s.in_elems = s.arg_count * (size_t)n;
        s.out_elems = s.arg_count;
        s.size_bytes = s.in_elems * es;
        break;
    case OP_ALLTOALL:
        s.arg_count = total / (size_t)n;
        s.in_elems = s.out_elems = s.arg_count * (size_t)n;
        s.size_bytes = s.in_elems * es;
        break;
    default:
        s.arg_count = s.in_elems = s.out_elems = total;
        s.size_bytes = total * es;
        break;
    }
    return s;
}

static double expected_out(const cfg *c, int rank, int n, const shape *s, size_t k)
{
    switch (c->op) {
    case OP_ALLREDUCE: return reduce_expected(c, n, k);
    case OP_REDUCESCATTER: return reduce_expected(c, n, (size_t)rank * s->arg_count + k);
    case OP_ALLGATHER: return val(c, (int)(k / s->arg_count), k % s->arg_count);
    case OP_BROADCAST: return val(c, (int)c->root, k);
    case OP_ALLTOALL: {
        /* Block b of the output comes from rank b, which sent its block `rank`. */
        size_t b = k / s->arg_count, j = k % s->arg_count;
        return val(c, (int)b, (size_t)rank * s->arg_count + j);
    }
    }
    return NAN;
}

static void run_op(const cfg *c, const shape *s, void *in, void *out, HcclComm comm,
                   aclrtStream st)
{
    switch (c->op) {
    case OP_ALLREDUCE:
        HCCL_CHECK(HcclAllReduce(in, out, s->arg_count, c->dtype, c->redop, comm, st));
        break;
    case OP_ALLGATHER:
        HCCL_CHECK(HcclAllGather(in, out, s->arg_count, c->dtype, comm, st));
        break;
    case OP_REDUCESCATTER:
        HCCL_CHECK(HcclReduceScatter(in, out, s->arg_count, c->dtype, c->redop, comm, st));
        break;
    case OP_BROADCAST:
        /* In place on the root's data, as HCCL defines broadcast on one buffer. */
        HCCL_CHECK(HcclBroadcast(out, s->arg_count, c->dtype, c->root, comm, st));
        break;
    case OP_ALLTOALL:
        HCCL_CHECK(HcclAlltoAll(in, s->arg_count, c->dtype, out, s->arg_count, c->dtype, comm,
                                st));
        break;
    }
}

static double bus_factor(bench_op op, int n)
{
    switch (op) {
    case OP_ALLREDUCE: return 2.0 * (n - 1) / n;
    case OP_ALLGATHER:
    case OP_REDUCESCATTER:
    case OP_ALLTOALL: return (double)(n - 1) / n;
    case OP_BROADCAST: return 1.0;
    }
    return 1.0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int produce_root(void *buf, size_t size, void *ctx, char *err, size_t errlen)
{
    (void)ctx;
    (void)size;
    HcclResult r = HcclGetRootInfo((HcclRootInfo *)buf);
    if (r != HCCL_SUCCESS) {
        snprintf(err, errlen, "HcclGetRootInfo: %s (%d)", HcclGetErrorString(r), (int)r);
        return -1;
    }
    return 0;
}

/* Reduces one double over the ranks through the library under test (FP64 allreduce). */
static double over_ranks(double v, HcclReduceOp op, double *dev, HcclComm comm, aclrtStream st)
{
    ACL_CHECK(aclrtMemcpy(dev, sizeof v, &v, sizeof v, ACL_MEMCPY_HOST_TO_DEVICE));
    HCCL_CHECK(HcclAllReduce(dev, dev, 1, HCCL_DATA_TYPE_FP64, op, comm, st));
    ACL_CHECK(aclrtSynchronizeStream(st));
    ACL_CHECK(aclrtMemcpy(&v, sizeof v, dev, sizeof v, ACL_MEMCPY_DEVICE_TO_HOST));
    return v;
}

int main(int argc, char **argv)
{
    cfg c;
    parse_args(argc, argv, &c);
    cannon_launch_env env;
    char err[1024];
    if (cannon_launch_env_read(&env, err, sizeof err) != 0) {
        fprintf(stderr, "hccl_bench: %s\n", err);
        return 1;
    }
    g_rank = env.rank;
    const int n = env.size, rank = env.rank;
    if (c.root >= (uint32_t)n)
        DIE("root %u is not a rank of %d", c.root, n);

    ACL_CHECK(aclInit(NULL));
    ACL_CHECK(aclrtSetDevice(env.device_id));
    aclrtStream st;
    ACL_CHECK(aclrtCreateStream(&st));

    HcclRootInfo ri;
    char created[4200];
    const char *cto = getenv("HCCL_CONNECT_TIMEOUT");
    double wait_s = (cto ? atof(cto) : 120.0) + 20.0;
    if (cannon_launch_share_root_info(&env, produce_root, NULL, &ri, sizeof ri, wait_s, created,
                                      sizeof created, err, sizeof err) != 0)
        DIE("root info: %s", err);
    HcclComm comm;
    HCCL_CHECK(HcclCommInitRootInfo((uint32_t)n, &ri, (uint32_t)rank, &comm));
    if (created[0] != '\0')
        unlink(created); /* every rank has joined, so every rank has read it */

    const size_t es = type_size(c.dtype);
    shape smax = make_shape(&c, c.max_bytes, n);
    size_t in_bytes = smax.in_elems * es, out_bytes = smax.out_elems * es;
    if (in_bytes == 0)
        in_bytes = es;
    if (out_bytes == 0)
        out_bytes = es;
    void *din, *dout, *hbuf;
    double *dscalar;
    ACL_CHECK(aclrtMalloc(&din, in_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_CHECK(aclrtMalloc(&dout, out_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_CHECK(aclrtMalloc((void **)&dscalar, sizeof(double), ACL_MEM_MALLOC_HUGE_FIRST));
    hbuf = malloc(in_bytes > out_bytes ? in_bytes : out_bytes);
    if (hbuf == NULL)
        DIE("out of host memory");

    if (rank == 0) {
        printf("# hccl_bench: op %s  type %s  redop %s  root %u  ranks %d  minBytes %zu  "
               "maxBytes %zu  step %g(factor)  warmup %d  iters %d  validation %d\n",
               k_opnames[c.op], type_name(c.dtype), k_rednames[c.redop], c.root, n,
               c.min_bytes, c.max_bytes, c.factor, c.warmup, c.iters, c.check);
        printf("# launcher: %s\n", cannon_launch_source_name(env.source));
        printf("#%12s %14s %8s %7s %6s %10s %8s %8s %7s\n", "size", "count", "type", "redop",
               "root", "time", "algbw", "busbw", "#wrong");
        printf("#%12s %14s %8s %7s %6s %10s %8s %8s %7s\n", "(B)", "(elements)", "", "", "",
               "(us)", "(GB/s)", "(GB/s)", "");
        fflush(stdout);
    }
    fflush(stdout);

    long total_wrong = 0;
    double bw_sum = 0;
    int bw_n = 0;
    for (size_t bytes = c.min_bytes; bytes <= c.max_bytes;) {
        shape s = make_shape(&c, bytes, n);
        if (s.arg_count == 0)
            goto next;
        /* Inputs: this rank's values; outputs poisoned so a skipped write shows up. For
         * broadcast the data lives in the output buffer (root's values). */
        for (size_t i = 0; i < s.in_elems; i++)
            set_el(hbuf, i, c.dtype, val(&c, rank, i));
        ACL_CHECK(aclrtMemcpy(din, in_bytes, hbuf, s.in_elems * es, ACL_MEMCPY_HOST_TO_DEVICE));
        long wrong = 0;
        if (c.check) {
            if (c.op == OP_BROADCAST)
                for (size_t i = 0; i < s.out_elems; i++)
                    set_el(hbuf, i, c.dtype, rank == (int)c.root ? val(&c, rank, i) : 99);
            else
                memset(hbuf, 0x7b, s.out_elems * es);
            ACL_CHECK(aclrtMemcpy(dout, out_bytes, hbuf, s.out_elems * es,
                                  ACL_MEMCPY_HOST_TO_DEVICE));
            run_op(&c, &s, din, dout, comm, st);
            ACL_CHECK(aclrtSynchronizeStream(st));
            ACL_CHECK(aclrtMemcpy(hbuf, s.out_elems * es, dout, s.out_elems * es,
                                  ACL_MEMCPY_DEVICE_TO_HOST));
            for (size_t k = 0; k < s.out_elems; k++)
                if (get_el(hbuf, k, c.dtype) != expected_out(&c, rank, n, &s, k))
                    wrong++;
        }
        for (int i = 0; i < c.warmup; i++) {
            run_op(&c, &s, din, dout, comm, st);
            if (c.sync_each)
                ACL_CHECK(aclrtSynchronizeStream(st));
        }
        ACL_CHECK(aclrtSynchronizeStream(st));
        /* Start together: without the barrier the first rank's clock would include waiting
         * for the last one to arrive. */
        HCCL_CHECK(HcclBarrier(comm, st));
        ACL_CHECK(aclrtSynchronizeStream(st));
        double t0 = now_s();
        for (int i = 0; i < c.iters; i++) {
            run_op(&c, &s, din, dout, comm, st);
            if (c.sync_each)
                ACL_CHECK(aclrtSynchronizeStream(st));
        }
        double t_enq = now_s() - t0;
        ACL_CHECK(aclrtSynchronizeStream(st));
        /* Diagnostic: how long the app thread spent enqueuing (task pools growing on first use
         * show up here as ~1 us per call instead of ~0.1). */
        if (getenv("HCCL_BENCH_ENQ"))
            fprintf(stderr, "# rank %d: enqueue %.3f us/op\n", rank, t_enq / c.iters * 1e6);
        double dt = (now_s() - t0) / c.iters;
        dt = over_ranks(dt, HCCL_REDUCE_MAX, dscalar, comm, st);
        double wsum = over_ranks((double)wrong, HCCL_REDUCE_SUM, dscalar, comm, st);
        total_wrong += (long)wsum;
        double algbw = (double)s.size_bytes / dt / 1e9;
        double busbw = algbw * bus_factor(c.op, n);
        bw_sum += busbw;
        bw_n++;
        if (rank == 0) {
            int rooted = c.op == OP_BROADCAST;
            printf(" %12zu %14zu %8s %7s %6d %10.2f %8.2f %8.2f %7ld\n", s.size_bytes,
                   s.size_bytes / es, type_name(c.dtype),
                   (c.op == OP_ALLREDUCE || c.op == OP_REDUCESCATTER) ? k_rednames[c.redop]
                                                                       : "none",
                   rooted ? (int)c.root : -1, dt * 1e6, algbw, busbw,
                   c.check ? (long)wsum : -1L);
            fflush(stdout);
        }
    next:;
        size_t nb = (size_t)((double)bytes * c.factor);
        if (nb <= bytes)
            nb = bytes + 1;
        bytes = nb;
    }
    if (rank == 0) {
        printf("# Errors with wrong values: %ld %s\n", total_wrong, total_wrong ? "FAILED" : "OK");
        printf("# Avg bus bandwidth    : %.4f\n", bw_n ? bw_sum / bw_n : 0.0);
    }
    HCCL_CHECK(HcclCommDestroy(comm));
    free(hbuf);
    aclrtFree(din);
    aclrtFree(dout);
    aclrtFree(dscalar);
    aclrtDestroyStream(st);
    aclrtResetDevice(env.device_id);
    aclFinalize();
    return total_wrong ? 1 : 0;
}
