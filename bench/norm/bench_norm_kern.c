/*
 * bench_norm_kern: where the time of the three-kernel BatchNorm goes. Runs its passes alone on
 * one thread, no runtime (the kernels' launch wrappers called block by block, the tier from
 * CANNON_ISA), fp32, channels-last (O rows, C channels) or, with I > 1, channel-first (O runs of
 * I elements per channel, the reduction in plane order with bn_plan.c's O-ranges and blocks):
 *   red_stats  read x                  (forward statistics)
 *   app_x      read x, write y         (forward normalisation)
 *   red_grad   read x and dy           (backward sums)
 *   app_xg     read x and dy, write dx (backward elementwise pass)
 * each timed twice per sample: "cold", right after reading a 128 MiB buffer (nothing of the
 * tensors in the caches; reading leaves no dirty lines to write back during the pass), and
 * "hot", in L2 (the first rows only, repeated). Every cold pass is compared with the simplest
 * loop moving the same bytes, timed the same way in the same sample:
 *   read1 / read2   sum of x / of x and dy (no arithmetic to speak of)
 *   ntcopy1/ntcopy2 y = x / dx = 1.5*x + dy, with streaming stores
 * so "vs ref" = reference time / pass time (1.0: the pass moves its bytes as fast as memory
 * allows here). hot ns/element is the arithmetic's own cost; cold ~ ref + hot says that memory
 * and arithmetic take turns instead of overlapping. Wall time, so run it on a quiet machine, or
 * compare the ratios, which both sides of share the load.
 *   bench_norm_kern [C O [NS [I]]]  (default 256 12544 9 1: [64,256,14,14] NHWC; 64 100352 is
 *                                     [32,64,56,56]; 256 64 9 196 is [64,256,14,14] NCHW)
 * Prints one line per pass: the minimum and median of NS samples (ns per element).
 */
#define _DEFAULT_SOURCE /* clock_gettime, posix_memalign, madvise */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/isa.h"
#include "norm_op.h"
#include "bench_common.h" /* bench/ops: bench_now, bench_cmp, bench_big */

static volatile double g_sink;

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Sum of n floats (read1) or of two arrays (read2), four independent vector chains, so the loop
 * is bound by memory, not by the adds' latency. */
static void readn(const float *a, const float *b, size_t n)
{
#if defined(__SSE2__)
    __m128 s0 = _mm_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    for (size_t i = 0; i + 16 <= n; i += 16) {
        s0 = _mm_add_ps(s0, _mm_load_ps(a + i));
        s1 = _mm_add_ps(s1, _mm_load_ps(a + i + 4));
        s2 = _mm_add_ps(s2, _mm_load_ps(a + i + 8));
        s3 = _mm_add_ps(s3, _mm_load_ps(a + i + 12));
        if (b) {
            s0 = _mm_add_ps(s0, _mm_load_ps(b + i));
            s1 = _mm_add_ps(s1, _mm_load_ps(b + i + 4));
            s2 = _mm_add_ps(s2, _mm_load_ps(b + i + 8));
            s3 = _mm_add_ps(s3, _mm_load_ps(b + i + 12));
        }
    }
    float t[4];
    _mm_storeu_ps(t, _mm_add_ps(_mm_add_ps(s0, s1), _mm_add_ps(s2, s3)));
    g_sink = (double)(t[0] + t[1] + t[2] + t[3]);
#else
    float s[8] = {0};
    for (size_t i = 0; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; k++)
            s[k] += a[i + k] + (b ? b[i + k] : 0.0f);
    g_sink = (double)(s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7]);
#endif
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* The reference loop with 64-byte streaming stores, one per cache line, as the kernels' AVX-512
 * tier writes (16-byte streaming stores are measurably slower on Zen 5). */
__attribute__((target("avx512f"))) static void ntcopy512(const float *x, const float *g, float *y, size_t n)
{
    const __m512 k = _mm512_set1_ps(1.5f);
    for (size_t i = 0; i + 16 <= n; i += 16) {
        __m512 v = _mm512_load_ps(x + i);
        _mm512_stream_ps(y + i, g ? _mm512_fmadd_ps(v, k, _mm512_load_ps(g + i)) : v);
    }
    _mm_sfence();
}
#define HAVE_NTCOPY512 1
#endif

/* y = x (g == NULL) or y = 1.5*x + g, with streaming stores: 64-byte ones where the CPU has
 * AVX-512, else SSE ones, which every x86-64 has. */
static void ntcopy(const float *x, const float *g, float *y, size_t n)
{
#if defined(HAVE_NTCOPY512)
    if (__builtin_cpu_supports("avx512f")) {
        ntcopy512(x, g, y, n);
        return;
    }
#endif
#if defined(__SSE2__)
    const __m128 k = _mm_set1_ps(1.5f);
    for (size_t i = 0; i + 4 <= n; i += 4) {
        __m128 v = _mm_load_ps(x + i);
        _mm_stream_ps(y + i, g ? _mm_add_ps(_mm_mul_ps(v, k), _mm_load_ps(g + i)) : v);
    }
    _mm_sfence();
#else
    for (size_t i = 0; i < n; i++)
        y[i] = g ? 1.5f * x[i] + g[i] : x[i];
#endif
}

typedef int (*kfn)(const cannon_kernel_ctx *, void *);

/* Every block of a launch in order on this thread (rev: last block first, as the apply does
 * after a reduction). */
static void launch(kfn f, nb_args *a, uint32_t bd)
{
    cannon_kernel_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.block_dim = bd;
    ctx.num_workers = 1;
    for (uint32_t b = 0; b < bd; b++) {
        ctx.block_idx = b;
        f(&ctx, a);
    }
}

int main(int argc, char **argv)
{
    const int64_t C = argc > 1 ? atoll(argv[1]) : 256, O = argc > 2 ? atoll(argv[2]) : 12544;
    int ns = argc > 3 ? atoi(argv[3]) : 9;
    const int64_t I = argc > 4 ? atoll(argv[4]) : 1;
    if (C < 1 || O < 1 || ns < 1 || I < 1) {
        fprintf(stderr, "usage: bench_norm_kern [C O [NS [I]]]\n");
        return 2;
    }
    if (ns > 64)
        ns = 64;
    const size_t n = (size_t)(O * C * I), fl = (size_t)32 << 20;
    /* Rows of the hot case: about 256 KiB of x, well inside L2 with dy and y. */
    int64_t Oh = (65536 + C * I - 1) / (C * I);
    if (Oh > O)
        Oh = O;
    float *x = bench_big(n * 4), *g = bench_big(n * 4), *y = bench_big(n * 4);
    float *f0 = bench_big(fl * 4), *f1 = bench_big(fl * 4);
    /* The small arrays 64-byte aligned, as the executor's workspace reservations are (the
     * elementwise pass loads its coefficients as whole vectors). */
    float *co = bench_big((size_t)(NM_CO_ROWS * C + 1) * 4), *center = bench_big((size_t)C * 4);
    /* The reduction's O-ranges as bn_plan.c's bn_plan_ws makes them (at least 8 for channel-first
     * data). */
    int64_t span = I > 1 ? (16384 + I - 1) / I : (32768 + C - 1) / C;
    while ((O + span - 1) / span > 4096)
        span *= 2;
    if (I > 1 && O >= 8 && (O + span - 1) / span < 8)
        span = (O + 7) / 8;
    const int64_t P = (O + span - 1) / span;
    double *part = bench_big((size_t)(P * 2 * C + 8) * sizeof(double));
    if (!x || !g || !y || !f0 || !f1 || !co || !center || !part) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        x[i] = 1.0f + (float)(i % 97) * 0.01f;
        g[i] = 0.1f + (float)(i % 89) * 0.01f;
        y[i] = 0.0f;
    }
    for (size_t i = 0; i < fl; i++)
        f0[i] = f1[i] = (float)(i % 13);
    for (int64_t i = 0; i < NM_CO_ROWS * C + 1; i++)
        co[i] = 0.5f + (float)(i % 5) * 0.1f;
    for (int64_t c = 0; c < C; c++)
        center[c] = 1.4f;
    static const char *names[4] = {"red_stats", "app_x", "red_grad", "app_xg"};
    static const char *refs[4] = {"read1", "ntcopy1", "read2", "ntcopy2"};
    double tc[4][64], th[4][64], tr[4][64];
    const int isa = (int)cannon_isa_select();
    for (int s = 0; s < ns; s++) {
        for (int k = 0; k < 4; k++) {
            const int red = k % 2 == 0, grad = k >= 2;
            for (int hot = 0; hot < 2; hot++) {
                const int64_t OO = hot ? Oh : O;
                nb_args a;
                memset(&a, 0, sizeof a);
                a.x = x;
                a.g = g;
                a.out = y;
                a.part = part;
                a.center = center;
                a.co = co;
                a.O = OO;
                a.C = C;
                a.I = I;
                a.dtype = NM_F32;
                a.isa = isa;
                uint32_t bd;
                if (red) {
                    a.mode = grad ? NB_RED_GRAD : NB_RED_STATS;
                    a.span = span < OO ? span : OO;
                    a.units = (OO + a.span - 1) / a.span * (I > 1 ? C : 1);
                    if (I > 1) {
                        /* bn_plan.c's bn_add_reduce: 256 KiB of adjacent runs per block, at least 16
                         * blocks. */
                        int64_t upb = ((int64_t)256 << 10) / (I * 4) + 1;
                        if (a.units / upb < 16)
                            upb = a.units / 16 > 1 ? a.units / 16 : 1;
                        a.units_per_block = upb;
                        bd = (uint32_t)((a.units + upb - 1) / upb);
                    } else {
                        nm_blocks(a.units, (int64_t)64 << 10, &a.units_per_block, &bd);
                    }
                } else {
                    a.use_x = 1;
                    a.use_g = grad;
                    a.span = I > 1 ? (16384 + I - 1) / I : (16384 + C - 1) / C;
                    a.units = I > 1 ? (OO * C + a.span - 1) / a.span : (OO + a.span - 1) / a.span;
                    a.nt = !hot && (int64_t)n * 4 >= NM_NT_BYTES;
                    nm_blocks(a.units, (int64_t)64 << 10, &a.units_per_block, &bd);
                }
                kfn f = red ? nm_bn_reduce_kernel : nm_bn_apply_kernel;
                if (hot) {
                    /* Warm, then enough repeats for about as many elements as the cold pass. */
                    launch(f, &a, bd);
                    const int reps = (int)(n / (size_t)(OO * C * I)) > 0 ? (int)(n / (size_t)(OO * C * I)) : 1;
                    const double t0 = bench_now();
                    for (int r = 0; r < reps; r++)
                        launch(f, &a, bd);
                    th[k][s] = (bench_now() - t0) / ((double)reps * (double)(OO * C * I)) * 1e9;
                } else {
                    readn(f0, f1, fl);
                    const double t0 = bench_now();
                    launch(f, &a, bd);
                    tc[k][s] = (bench_now() - t0) / (double)n * 1e9;
                }
            }
            readn(f0, f1, fl);
            const double t0 = bench_now();
            if (red)
                readn(x, grad ? g : NULL, n);
            else
                ntcopy(x, grad ? g : NULL, y, n);
            tr[k][s] = (bench_now() - t0) / (double)n * 1e9;
        }
    }
    printf("%s C=%lld O=%lld I=%lld (%.1f MiB per tensor), tier %d, 1 thread, ns per element, min / median of %d\n",
           I > 1 ? "channel-first" : "channels-last", (long long)C, (long long)O, (long long)I,
           (double)n * 4 / (1 << 20), isa, ns);
    for (int k = 0; k < 4; k++) {
        qsort(tc[k], (size_t)ns, sizeof(double), bench_cmp);
        qsort(th[k], (size_t)ns, sizeof(double), bench_cmp);
        qsort(tr[k], (size_t)ns, sizeof(double), bench_cmp);
        printf("%-9s cold %.3f / %.3f  hot %.3f / %.3f  %-7s %.3f / %.3f  vs ref %.2f\n", names[k], tc[k][0],
               tc[k][ns / 2], th[k][0], th[k][ns / 2], refs[k], tr[k][0], tr[k][ns / 2], tr[k][ns / 2] / tc[k][ns / 2]);
    }
    free(part);
    free(center);
    free(co);
    free(f1);
    free(f0);
    free(y);
    free(g);
    free(x);
    return 0;
}
