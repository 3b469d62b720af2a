/*
 * bench_norm_aff: who runs which unit of the channels-last batch-norm passes, and what it costs.
 * The four passes of a training step (fp32, O rows of C channels: forward statistics, forward
 * normalisation, backward sums, backward elementwise pass) run back to back on T threads
 * (pthreads, a barrier between passes, no runtime), the kernels' launch wrappers called unit by
 * unit, the tier from CANNON_ISA, in two ways interleaved step by step:
 *   fcfs   units handed out first come, first served from one atomic counter, as the runtime
 *          hands out the plain kernels' blocks
 *   share  the rows cut into one share per thread, thread t running the units of share t (what
 *          nm_bn_add_aff arranges when no worker falls behind)
 * On a machine whose cores do not share a cache the second reads each pass's data where the
 * previous pass left it. Prints per pass the median / minimum of NS steps (ms) of the slowest
 * thread, and the step total.
 *   bench_norm_aff [C O [NS [T]]]   (default 256 12544 25 2: [64,256,14,14] NHWC)
 */
#define _GNU_SOURCE /* pthread_barrier_t, posix_memalign, madvise */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/isa.h"
#include "norm_op.h"
#include "bench_common.h" /* bench/ops: bench_now, bench_cmp, bench_big */

#define MAXNS 64
#define MAXT 16

typedef int (*kfn)(const cannon_kernel_ctx *, void *);

static struct {
    int64_t C, O;
    int ns, nth;
    nb_args a[4];
    pthread_barrier_t bar;
    _Atomic int64_t next[4];
    double t[2][4][MAXNS][MAXT]; /* [mode][pass][step][thread] */
} g;

static void run_unit(int k, int64_t u, int nth)
{
    cannon_kernel_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.block_idx = (uint32_t)u;
    ctx.block_dim = (uint32_t)g.a[k].units;
    ctx.num_workers = (uint32_t)nth;
    (k % 2 == 0 ? (kfn)nm_bn_reduce_kernel : (kfn)nm_bn_apply_kernel)(&ctx, &g.a[k]);
}

static void *worker(void *arg)
{
    const int t = (int)(intptr_t)arg;
    for (int s = 0; s < g.ns; s++)
        for (int mode = 0; mode < 2; mode++)
            for (int k = 0; k < 4; k++) {
                pthread_barrier_wait(&g.bar);
                const double t0 = bench_now();
                const nb_args *a = &g.a[k];
                if (mode == 0) {
                    int64_t u;
                    while ((u = atomic_fetch_add(&g.next[k], 1)) < a->units)
                        run_unit(k, u, g.nth);
                } else {
                    /* The same cut as nm_bn_add_aff: share t starts at the unit holding row O*t/T. */
                    const int64_t r0 = g.O * t / g.nth, r1 = g.O * (t + 1) / g.nth;
                    const int64_t u0 = (r0 + a->span - 1) / a->span;
                    const int64_t u1 = t == g.nth - 1 ? a->units : (r1 + a->span - 1) / a->span;
                    for (int64_t u = u0; u < u1; u++)
                        run_unit(k, u, g.nth);
                }
                g.t[mode][k][s][t] = bench_now() - t0;
                pthread_barrier_wait(&g.bar);
                if (t == 0)
                    atomic_store(&g.next[k], 0);
            }
    return NULL;
}

int main(int argc, char **argv)
{
    g.C = argc > 1 ? atoll(argv[1]) : 256;
    g.O = argc > 2 ? atoll(argv[2]) : 12544;
    g.ns = argc > 3 ? atoi(argv[3]) : 25;
    g.nth = argc > 4 ? atoi(argv[4]) : 2;
    if (g.C < 1 || g.O < 1 || g.ns < 1 || g.nth < 1) {
        fprintf(stderr, "usage: bench_norm_aff [C O [NS [T]]]\n");
        return 2;
    }
    if (g.ns > MAXNS)
        g.ns = MAXNS;
    if (g.nth > MAXT)
        g.nth = MAXT;
    const int64_t C = g.C, O = g.O;
    const size_t n = (size_t)(O * C);
    float *x = bench_big(n * 4), *dy = bench_big(n * 4), *y = bench_big(n * 4), *dx = bench_big(n * 4);
    float *co = bench_big((size_t)(NM_CO_ROWS * C + 1) * 4), *center = bench_big((size_t)C * 4);
    int64_t span = (32768 + C - 1) / C;
    while ((O + span - 1) / span > 4096)
        span *= 2;
    const int64_t P = (O + span - 1) / span;
    double *part = bench_big((size_t)(P * 2 * C + 8) * sizeof(double));
    if (!x || !dy || !y || !dx || !co || !center || !part) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        x[i] = 1.0f + (float)(i % 97) * 0.01f;
        dy[i] = 0.1f + (float)(i % 89) * 0.01f;
    }
    for (int64_t i = 0; i < NM_CO_ROWS * C + 1; i++)
        co[i] = 0.5f;
    for (int64_t c = 0; c < C; c++)
        center[c] = 1.4f;
    const int isa = (int)cannon_isa_select();
    for (int k = 0; k < 4; k++) {
        nb_args *a = &g.a[k];
        const int red = k % 2 == 0, grad = k >= 2;
        a->x = x;
        a->g = dy;
        a->out = grad ? dx : y;
        a->part = part;
        a->center = center;
        a->co = co;
        a->O = O;
        a->C = C;
        a->I = 1;
        a->dtype = NM_F32;
        a->isa = isa;
        a->units_per_block = 1;
        if (red) {
            a->mode = grad ? NB_RED_GRAD : NB_RED_STATS;
            a->span = span;
            a->units = P;
        } else {
            a->use_x = 1;
            a->use_g = grad;
            a->span = (16384 + C - 1) / C;
            a->units = (O + a->span - 1) / a->span;
            a->nt = (int64_t)n * 4 >= NM_NT_BYTES;
        }
    }
    pthread_barrier_init(&g.bar, NULL, (unsigned)g.nth);
    pthread_t th[MAXT];
    for (int t = 1; t < g.nth; t++)
        pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    worker((void *)(intptr_t)0);
    for (int t = 1; t < g.nth; t++)
        pthread_join(th[t], NULL);
    static const char *names[4] = {"stats", "normalise", "bwd sums", "bwd dx"};
    printf("channels-last C=%lld O=%lld (%.1f MB per tensor), tier %d, %d threads, ms median / min of %d steps\n",
           (long long)C, (long long)O, (double)n * 4 / 1e6, isa, g.nth, g.ns);
    for (int mode = 0; mode < 2; mode++) {
        double tot[MAXNS], v[4][MAXNS];
        for (int s = 0; s < g.ns; s++) {
            tot[s] = 0.0;
            for (int k = 0; k < 4; k++) {
                double m = 0.0;
                for (int t = 0; t < g.nth; t++)
                    m = g.t[mode][k][s][t] > m ? g.t[mode][k][s][t] : m;
                v[k][s] = m * 1e3;
                tot[s] += v[k][s];
            }
        }
        printf("%-6s", mode ? "share" : "fcfs");
        for (int k = 0; k < 4; k++) {
            qsort(v[k], (size_t)g.ns, sizeof(double), bench_cmp);
            printf("  %s %.3f / %.3f", names[k], v[k][g.ns / 2], v[k][0]);
        }
        qsort(tot, (size_t)g.ns, sizeof(double), bench_cmp);
        printf("  | step %.3f / %.3f\n", tot[g.ns / 2], tot[0]);
    }
    return 0;
}
