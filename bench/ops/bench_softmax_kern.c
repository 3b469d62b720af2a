/*
 * bench_softmax_kern: the softmax kernels alone, one thread, no runtime. Calls a tier's units
 * function over a whole shape ITERS times and reports thread CPU time per element (ns and, at
 * the given GHz, cycles), a measure far less sensitive to other processes than wall time.
 * Built with the benches (build/bin/bench_softmax_kern, linked to the static opapi so that the
 * per-tier entry points are reachable); the tiers' own flags come from src/ops/CMakeLists.txt.
 *   bench_softmax_kern TIER(scalar|avx2|avx512) OP(0..3) DT(f32|f16|bf16) ROWS R ITERS [NT] [GHZ]
 * NT: 1 writes with non-temporal stores; GHZ converts ns to cycles (no cycle counter in the VM).
 * SM_BENCH_DATA=normal in the environment: standard normal inputs instead of U(-4, 4).
 * Each iteration also copies x to y (the same bytes read and written, vectorised plain stores) and
 * the two are timed interleaved, so "floor" (median copy time / median kernel time, in CPU time)
 * says how close the kernel is to a copy under the same load. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "softmax_kernels.h"
#include "bench_copy.h"
#include "bench_softmax_data.h"

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 7) {
        fprintf(stderr, "usage: %s tier op dt rows R iters [nt] [ghz]\n", argv[0]);
        return 2;
    }
    const char *tier = argv[1];
    int op = atoi(argv[2]);
    int dt = !strcmp(argv[3], "bf16") ? SM_BF16 : !strcmp(argv[3], "f16") ? SM_F16 : SM_F32;
    int64_t rows = atoll(argv[4]), R = atoll(argv[5]);
    int iters = atoi(argv[6]);
    int nt = argc > 7 ? atoi(argv[7]) : 0;
    double ghz = argc > 8 ? atof(argv[8]) : 3.7;
    size_t es = dt == SM_F32 ? 4 : 2, n = (size_t)(rows * R);
    void *x = aligned_alloc(64, n * es + 64), *g = aligned_alloc(64, n * es + 64), *y = aligned_alloc(64, n * es + 64);
    uint32_t r = 1;
    const char *data = getenv("SM_BENCH_DATA");
    const int normal = data && !strcmp(data, "normal");
    for (size_t i = 0; i < n; i++) {
        /* SM_BENCH_DATA=normal: standard normal inputs (bench_softmax_data.h); the sequence r
         * advances either way (the f16 patterns below come from it). */
        const float uv = smb_uniform(&r);
        float v = normal ? smb_normal(i) : uv;
        uint32_t u;
        memcpy(&u, &v, 4);
        if (es == 4) {
            memcpy((char *)x + 4 * i, &v, 4);
            memcpy((char *)g + 4 * i, &v, 4);
        } else {
            uint16_t b = (uint16_t)(u >> 16); /* bf16 bits; for f16 any finite pattern will do */
            if (dt == SM_F16)
                b = (uint16_t)(0x3c00u + ((r >> 20) & 0x3ffu) - (((r >> 19) & 1u) << 15));
            memcpy((char *)x + 2 * i, &b, 2);
            memcpy((char *)g + 2 * i, &b, 2);
        }
    }
    memset(y, 0, n * es);
    sm_args a;
    memset(&a, 0, sizeof a);
    a.x = x;
    a.g = g;
    a.out = y;
    a.outer = rows;
    a.R = R;
    a.inner = 1;
    a.units = rows;
    a.units_per_block = rows;
    a.op = op;
    a.dtype = dt;
    a.nt = nt;
    void (*fn)(const sm_args *, int64_t, int64_t) = !strcmp(tier, "scalar") ? cannon_softmax_units_scalar
                                                    : !strcmp(tier, "avx2") ? cannon_softmax_units_avx2
                                                                            : cannon_softmax_units_avx512;
    fn(&a, 0, rows);
    bench_copy_bytes(y, x, n * es);
    /* Each sample repeats the call (and the copy) enough times to cover about 2^21 elements:
     * reading the thread CPU clock is a system call (about a microsecond on virtual machines), which
     * one call on cache-resident rows would otherwise carry in full. SM_BENCH_REPS overrides. */
    const char *reps_env = getenv("SM_BENCH_REPS");
    int reps = reps_env ? atoi(reps_env) : (int)((1u << 21) / (n ? n : 1));
    if (reps < 1)
        reps = 1;
    double best = 1e30, tot = 0, ks[256], cs[256];
    if (iters > 256)
        iters = 256;
    if (iters < 1)
        iters = 1;
    for (int it = 0; it < iters; it++) {
        double t0 = cpu_now();
        for (int k = 0; k < reps; k++)
            bench_copy_bytes(y, x, n * es);
        cs[it] = (cpu_now() - t0) / reps;
        t0 = cpu_now();
        for (int k = 0; k < reps; k++)
            fn(&a, 0, rows);
        double t = (cpu_now() - t0) / reps;
        ks[it] = t;
        tot += t;
        if (t < best)
            best = t;
    }
    qsort(ks, (size_t)iters, sizeof ks[0], cmp_d);
    qsort(cs, (size_t)iters, sizeof cs[0], cmp_d);
    double ns_el = best * 1e9 / (double)n;
    printf("%s op%d %s %lldx%lld nt%d: best %.3f ns/el = %.2f cyc/el @%.1fGHz (mean %.3f ns/el); median %.3f, "
           "copy median %.3f ns/el: %.1f%% of floor\n",
           tier, op, argv[3], (long long)rows, (long long)R, nt, ns_el, ns_el * ghz, ghz, tot * 1e9 / iters / (double)n,
           ks[iters / 2] * 1e9 / (double)n, cs[iters / 2] * 1e9 / (double)n, 100.0 * cs[iters / 2] / ks[iters / 2]);
    free(x);
    free(g);
    free(y);
    return 0;
}
