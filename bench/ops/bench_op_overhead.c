/* bench_op_overhead: the fixed cost of one aclnn call, measured on a tiny aclnnAdd (out = self + alpha * other,
 * fp32, --n elements, default 16) where the arithmetic is negligible.
 *
 * Rows (each the median over samples of k calls, then synchronize, divided by k):
 *   phase1+2            aclnnAddGetWorkspaceSize + aclnnAdd on a stream, tensors and alpha made once:
 *                       the cost the "per-call overhead" names (the stream's worker runs the kernels
 *                       concurrently; a sample ends with aclrtSynchronizeStream, so their cost is included
 *                       whenever the worker is the slower side)
 *   phase1 only         aclnnAddGetWorkspaceSize, then aclDestroyAclOpExecutor (never launched)
 *   ggml-style          what ggml's CANN backend does per op: aclCreateTensor x3 + aclCreateScalar, phase 1 + 2,
 *                       the four destroys
 *   phase1+2+sync       phase 1 + 2 and aclrtSynchronizeStream after every call (a round trip to the worker)
 *
 * Usage: bench_op_overhead [--n ELEMS] [--samples NS] [--row NAME] [--clock wall|cpu]   (one line per row, µs per
 * call; --row: that row alone, e.g. for a profiler; --clock cpu: the calling thread's CPU time instead of wall
 * time, i.e. what the caller pays, leaving out the stream worker and any wait: steady on a loaded machine) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "bench_common.h"

typedef struct ctx {
    aclrtStream stream;
    void *dx, *dy, *dz;
    int64_t n;
    aclTensor *x, *y, *z;
    aclScalar *alpha;
    float one;
    int failed;
} ctx;

static aclTensor *mk(ctx *c, void *dev)
{
    const int64_t shape[1] = {c->n}, strides[1] = {1};
    return aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, dev);
}

static void call(ctx *c, aclTensor *x, aclTensor *y, aclTensor *z, aclScalar *alpha)
{
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    if (aclnnAddGetWorkspaceSize(x, y, alpha, z, &ws, &ex) != 0 || ws != 0 || aclnnAdd(NULL, 0, ex, c->stream) != 0)
        c->failed = 1;
}

static void run_12(void *p)
{
    ctx *c = p;
    call(c, c->x, c->y, c->z, c->alpha);
}

static void run_1(void *p)
{
    ctx *c = p;
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    if (aclnnAddGetWorkspaceSize(c->x, c->y, c->alpha, c->z, &ws, &ex) != 0 || aclDestroyAclOpExecutor(ex) != 0)
        c->failed = 1;
}

static void run_ggml(void *p)
{
    ctx *c = p;
    aclTensor *x = mk(c, c->dx), *y = mk(c, c->dy), *z = mk(c, c->dz);
    aclScalar *alpha = aclCreateScalar(&c->one, ACL_FLOAT);
    call(c, x, y, z, alpha);
    aclDestroyTensor(x);
    aclDestroyTensor(y);
    aclDestroyTensor(z);
    aclDestroyScalar(alpha);
}

static void run_sync(void *p)
{
    ctx *c = p;
    call(c, c->x, c->y, c->z, c->alpha);
    if (aclrtSynchronizeStream(c->stream) != 0)
        c->failed = 1;
}

static int g_cpu_clock; /* --clock cpu */

static double now_s(void)
{
    if (!g_cpu_clock)
        return bench_now();
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One sample = k calls and the synchronize that drains them. */
static double sample_us(void (*fn)(void *), ctx *c, int k)
{
    const double t0 = now_s();
    for (int j = 0; j < k; j++)
        fn(c);
    if (aclrtSynchronizeStream(c->stream) != 0)
        c->failed = 1;
    return (now_s() - t0) / k * 1e6;
}

int main(int argc, char **argv)
{
    static const char *const names[] = {"--n", "--samples", "--row", "--clock", NULL};
    const int rc = bench_check_args(argc, argv, names,
                                    "usage: bench_op_overhead [--n ELEMS] [--samples NS] [--row NAME] [--clock wall|cpu]\n");
    if (rc >= 0)
        return rc;
    ctx c = {0};
    c.n = 16;
    c.one = 1.0f;
    int ns = 15;
    const char *only = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--n"))
            c.n = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--row"))
            only = argv[i + 1];
        else if (!strcmp(argv[i], "--clock")) {
            if (strcmp(argv[i + 1], "wall") && strcmp(argv[i + 1], "cpu")) {
                fprintf(stderr, "bench_op_overhead: --clock is wall or cpu\n");
                return 2;
            }
            g_cpu_clock = !strcmp(argv[i + 1], "cpu");
        }
        else
            ns = atoi(argv[i + 1]);
    }
    if (c.n < 1 || ns < 1 || ns > 64) {
        fprintf(stderr, "bench_op_overhead: --n must be >= 1 and --samples in 1..64\n");
        return 2;
    }
    if (aclInit(NULL) != 0 || aclrtSetDevice(0) != 0 || aclrtCreateStream(&c.stream) != 0) {
        fprintf(stderr, "bench_op_overhead: runtime set-up failed: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    const size_t bytes = (size_t)c.n * sizeof(float);
    if (aclrtMalloc(&c.dx, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != 0 ||
        aclrtMalloc(&c.dy, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != 0 ||
        aclrtMalloc(&c.dz, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != 0) {
        fprintf(stderr, "bench_op_overhead: aclrtMalloc failed\n");
        return 1;
    }
    c.x = mk(&c, c.dx);
    c.y = mk(&c, c.dy);
    c.z = mk(&c, c.dz);
    c.alpha = aclCreateScalar(&c.one, ACL_FLOAT);

    static const struct {
        const char *name;
        void (*fn)(void *);
    } rows[] = {{"phase1+2", run_12}, {"phase1 only", run_1}, {"ggml-style", run_ggml}, {"phase1+2+sync", run_sync}};
    enum { NR = sizeof rows / sizeof rows[0] };
    double s[NR][64];
    int k[NR];
    int on[NR];
    for (int r = 0; r < NR; r++)
        on[r] = !only || !strcmp(only, rows[r].name);
    for (int r = 0; r < NR; r++) {
        if (!on[r])
            continue;
        for (int w = 0; w < 2000; w++)
            rows[r].fn(&c);
        const double one = sample_us(rows[r].fn, &c, 1000);
        k[r] = (int)(20000.0 / (one > 0.01 ? one : 0.01)) + 1; /* about 20 ms per sample */
    }
    /* The rows are interleaved sample by sample, each sample starting from another row, so a change of
     * load touches all of them alike. */
    for (int i = 0; i < ns; i++)
        for (int j = 0; j < NR; j++) {
            const int r = (i + j) % NR;
            if (on[r])
                s[r][i] = sample_us(rows[r].fn, &c, k[r]);
        }
    printf("aclnnAdd fp32, %lld elements, %d samples, median (min..max) per call, %s\n", (long long)c.n, ns,
           g_cpu_clock ? "calling thread's CPU time" : "wall time");
    for (int r = 0; r < NR; r++) {
        if (!on[r])
            continue;
        qsort(s[r], (size_t)ns, sizeof s[r][0], bench_cmp);
        printf("%-16s %8.3f us  (%.3f..%.3f)\n", rows[r].name, s[r][ns / 2], s[r][0], s[r][ns - 1]);
    }
    aclDestroyTensor(c.x);
    aclDestroyTensor(c.y);
    aclDestroyTensor(c.z);
    aclDestroyScalar(c.alpha);
    aclrtFree(c.dx);
    aclrtFree(c.dy);
    aclrtFree(c.dz);
    aclrtDestroyStream(c.stream);
    aclrtResetDevice(0);
    aclFinalize();
    if (c.failed) {
        fprintf(stderr, "bench_op_overhead: a call failed: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    return 0;
}
