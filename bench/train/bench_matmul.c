/*
 * aclnnMatmul throughput (GFLOP/s, 2*M*N*K per call) against the BLAS's own GEMM in the same run.
 *
 * Variants, interleaved sample by sample (the machine is shared, so only same-run ratios mean
 * anything), each sample k calls long (k chosen so a sample lasts >= ~40 ms), medians of REPS:
 *   sgemm      OpenBLAS cblas_sgemm on the same device buffers (the CPU driver's memory is host
 *              memory), with as many OpenBLAS threads as the device has workers (set before each
 *              sample: aclnnMatmul keeps OpenBLAS at one thread, see mm_op.c); with 2 threads it
 *              is followed by a 0.2 s pause, so its idle threads (which spin for a while after a
 *              call) are asleep before the next variant runs
 *   fp32       aclnnMatmul fp32, the whole per-call cost: phase 1, workspace malloc, phase 2, sync
 *   fp32-ph2   the same with a repeatable executor: phase 2 + sync only (the plan cost is the gap)
 *   bf16       aclnnMatmul bf16, per call as fp32
 *   sbgemm     OpenBLAS cblas_sbgemm (bf16 in, fp32 out) when the library has it, for reference
 * Threads: run with CANNON_CPU_THREADS=1 or 2 (bench_matmul.py runs both and several passes).
 * BENCH_MM_VARIANTS=013 runs only the listed variants (0 sgemm ... 4 sbgemm).
 * Usage: bench_matmul [M N K]...   (default: 512^3, 1024^3, 2048^3 and two non-square cases)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnnop/aclnn_matmul.h"
#include "cannon/kernel.h"
#if defined(BENCH_HAVE_OPENBLAS)
#include <cblas.h>
/* cblas_sbgemm exists only in OpenBLAS >= 0.3.10 builds with BFLOAT16: bind it weakly under our
 * own prototype (bf16 as uint16_t) so the bench builds against any version. */
extern void bench_sbgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const uint16_t *a, int lda,
                         const uint16_t *b, int ldb, float beta, float *c, int ldc) __asm__("cblas_sbgemm")
    __attribute__((weak));
#endif

#define REPS 7
#define NVAR 5
static int g_threads = 1;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

typedef struct bcase {
    aclrtStream s;
    int64_t M, N, K;
    void *a32, *b32, *c32, *a16, *b16, *c16, *cf; /* device buffers */
    aclTensor *ta32, *tb32, *tc32, *ta16, *tb16, *tc16;
    aclOpExecutor *rep; /* repeatable fp32 executor */
    void *rep_ws;
    uint64_t rep_wss;
} bcase;

static int call_mm(bcase *c, aclTensor *a, aclTensor *b, aclTensor *o)
{
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    if (aclnnMatmulGetWorkspaceSize(a, b, o, 0, &ws, &ex))
        return -1;
    void *w = NULL;
    if (ws && aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST))
        return -1;
    int rc = aclnnMatmul(w, ws, ex, c->s) || aclrtSynchronizeStream(c->s);
    if (w)
        aclrtFree(w);
    return rc;
}

static int run_variant(bcase *c, int v)
{
    switch (v) {
    case 0:
#if defined(BENCH_HAVE_OPENBLAS)
        openblas_set_num_threads(g_threads);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)c->M, (int)c->N, (int)c->K, 1.0f, c->a32,
                    (int)c->K, c->b32, (int)c->N, 0.0f, c->cf, (int)c->N);
        return 0;
#else
        return -1;
#endif
    case 1: return call_mm(c, c->ta32, c->tb32, c->tc32);
    case 2: return aclnnMatmul(c->rep_ws, c->rep_wss, c->rep, c->s) || aclrtSynchronizeStream(c->s);
    case 3: return call_mm(c, c->ta16, c->tb16, c->tc16);
    case 4:
#if defined(BENCH_HAVE_OPENBLAS)
        if (!bench_sbgemm)
            return -1;
        bench_sbgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)c->M, (int)c->N, (int)c->K, 1.0f, c->a16,
                     (int)c->K, c->b16, (int)c->N, 0.0f, c->cf, (int)c->N);
        return 0;
#else
        return -1;
#endif
    default: return -1;
    }
}

static aclTensor *mk2(int64_t r, int64_t cdim, aclDataType dt, void *mem)
{
    const int64_t shp[2] = {r, cdim}, cnt = r * cdim;
    return aclCreateTensor(shp, 2, dt, NULL, 0, ACL_FORMAT_ND, &cnt, 1, mem);
}

static void fill(void *dev, int64_t n, int bf16, unsigned seed)
{
    const size_t bytes = (size_t)n * (bf16 ? 2 : 4);
    void *h = malloc(bytes);
    for (int64_t i = 0; i < n; i++) {
        const float v = (float)(((uint64_t)i * 7919u + seed) % 1000u) / 1000.0f - 0.5f;
        if (bf16) {
            union { float f; uint32_t u; } x = {v};
            ((uint16_t *)h)[i] = (uint16_t)(x.u >> 16);
        } else {
            ((float *)h)[i] = v;
        }
    }
    aclrtMemcpy(dev, bytes, h, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    free(h);
}

static void bench_case(aclrtStream s, int64_t M, int64_t N, int64_t K, int threads)
{
    bcase c = {.s = s, .M = M, .N = N, .K = K};
    void **bufs[7] = {&c.a32, &c.b32, &c.c32, &c.a16, &c.b16, &c.c16, &c.cf};
    const int64_t cnt[7] = {M * K, K * N, M * N, M * K, K * N, M * N, M * N};
    const int es[7] = {4, 4, 4, 2, 2, 2, 4};
    for (int i = 0; i < 7; i++)
        if (aclrtMalloc(bufs[i], (size_t)cnt[i] * es[i], ACL_MEM_MALLOC_HUGE_FIRST))
            return;
    fill(c.a32, M * K, 0, 1), fill(c.b32, K * N, 0, 2), fill(c.a16, M * K, 1, 1), fill(c.b16, K * N, 1, 2);
    c.ta32 = mk2(M, K, ACL_FLOAT, c.a32), c.tb32 = mk2(K, N, ACL_FLOAT, c.b32), c.tc32 = mk2(M, N, ACL_FLOAT, c.c32);
    c.ta16 = mk2(M, K, ACL_BF16, c.a16), c.tb16 = mk2(K, N, ACL_BF16, c.b16), c.tc16 = mk2(M, N, ACL_BF16, c.c16);
    if (aclnnMatmulGetWorkspaceSize(c.ta32, c.tb32, c.tc32, 0, &c.rep_wss, &c.rep) ||
        aclSetAclOpExecutorRepeatable(c.rep))
        return;
    if (c.rep_wss)
        aclrtMalloc(&c.rep_ws, c.rep_wss, ACL_MEM_MALLOC_HUGE_FIRST);

    int avail[NVAR], k[NVAR];
    double t[NVAR][REPS];
    const char *only = getenv("BENCH_MM_VARIANTS"); /* e.g. "1,3": run only these variants */
    for (int v = 0; v < NVAR; v++) {
        if (only && !strchr(only, '0' + v)) {
            avail[v] = 0;
            continue;
        }
        /* warm up twice, then size a sample from the second call */
        avail[v] = run_variant(&c, v) == 0;
        const double t0 = now();
        avail[v] = avail[v] && run_variant(&c, v) == 0;
        const double dt = now() - t0;
        k[v] = dt > 0.04 ? 1 : (int)(0.04 / (dt > 1e-6 ? dt : 1e-6)) + 1;
    }
    for (int r = 0; r < REPS; r++)
        for (int v = 0; v < NVAR; v++) {
            if (!avail[v])
                continue;
            const double t0 = now();
            for (int i = 0; i < k[v]; i++)
                run_variant(&c, v);
            t[v][r] = (now() - t0) / k[v];
            if (v == 0 && threads > 1) {
                /* OpenBLAS's idle threads keep spinning (sched_yield) for 2^28 TSC ticks after a
                 * threaded call and would slow down whatever runs next on these cores: let
                 * them fall asleep before measuring the next variant */
                struct timespec ts = {0, 200000000};
                nanosleep(&ts, NULL);
            }
        }
    double gf[NVAR];
    const double fl = 2.0 * (double)M * (double)N * (double)K;
    for (int v = 0; v < NVAR; v++) {
        qsort(t[v], REPS, sizeof(double), cmp);
        gf[v] = avail[v] ? fl / t[v][REPS / 2] / 1e9 : 0.0;
    }
    printf("%5lld %5lld %5lld  %dT | %7.1f | %7.1f %5.1f%% | %7.1f %5.1f%% | %7.1f %5.2fx | %7.1f\n", (long long)M,
           (long long)N, (long long)K, threads, gf[0], gf[1], gf[0] > 0 ? 100.0 * gf[1] / gf[0] : 0.0, gf[2],
           gf[0] > 0 ? 100.0 * gf[2] / gf[0] : 0.0, gf[3], gf[1] > 0 ? gf[3] / gf[1] : 0.0, gf[4]);
    fflush(stdout);

    aclDestroyAclOpExecutor(c.rep);
    if (c.rep_ws)
        aclrtFree(c.rep_ws);
    aclTensor *ts[6] = {c.ta32, c.tb32, c.tc32, c.ta16, c.tb16, c.tc16};
    for (int i = 0; i < 6; i++)
        aclDestroyTensor(ts[i]);
    for (int i = 0; i < 7; i++)
        aclrtFree(*bufs[i]);
}

int main(int argc, char **argv)
{
    aclrtStream s;
    if (aclInit(NULL) || aclrtSetDevice(0) || aclrtCreateStream(&s))
        return 1;
    const int threads = (int)cannonGetWorkerCount();
    g_threads = threads;
#if defined(BENCH_HAVE_OPENBLAS)
    openblas_set_num_threads(threads);
    printf("# OpenBLAS: %s, core %s; sbgemm %s\n", openblas_get_config(), openblas_get_corename(),
           bench_sbgemm ? "present" : "absent");
#endif
    printf("#    M     N     K   T |  sgemm  |   fp32 (vs sgemm) | fp32-ph2 (vs sgemm) |   bf16 (vs fp32) | sbgemm"
           "   [GFLOP/s, medians of %d]\n", REPS);
    if (argc >= 4) {
        for (int i = 1; i + 2 < argc; i += 3)
            bench_case(s, atoll(argv[i]), atoll(argv[i + 1]), atoll(argv[i + 2]), threads);
    } else {
        static const int64_t cases[][3] = {{512, 512, 512}, {1024, 1024, 1024}, {2048, 2048, 2048},
                                           {2048, 512, 1024}, {128, 4096, 1024}};
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            bench_case(s, cases[i][0], cases[i][1], cases[i][2], threads);
    }
    aclrtDestroyStream(s);
    aclrtResetDevice(0);
    return aclFinalize() ? 1 : 0;
}
