/*
 * bench_nhwc_groups: a probe of the one way a channels-last batch-norm forward could read x from
 * memory once instead of twice. The statistics must be complete before the first output element,
 * and in NHWC one cache line of channels spans every row, so the channel-first trick (a slice in
 * cache between its sums and its output) needs a slice of G channels down all O rows: O * G * 4
 * bytes, read line by line at a stride of C * 4 bytes, summed, then read again (from L2 or L3)
 * to write y. This times that schedule against the two full sweeps the kernels use (sums over
 * whole rows, then the elementwise pass), one thread, fp32, AVX2 (fp64 sums, streaming stores),
 * the caches flushed by a 64 MiB memset before each. Not the library's kernels: a model of the
 * two memory schedules with the same arithmetic per element.
 *
 *   bench_nhwc_groups O C G [REPS]     e.g. 100352 64 16 (= [32,64,56,56]), 12544 256 64
 *
 * Prints per repetition: rows ms, groups ms, and a memcpy of the tensor for scale.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double ps[4096], pq[4096];
static float co[2][4096];

/* Shifted sums of channels [c0, c1) over rows [0, O), row by row (accumulators in ps/pq). */
__attribute__((target("avx2,fma"))) static void sums(const float *x, long C, long O, long c0, long c1)
{
    for (long c = c0; c < c1; c++)
        ps[c] = pq[c] = 0.0;
    for (long o = 0; o < O; o++) {
        if (o + 8 < O)
            __builtin_prefetch(x + (o + 8) * C + c0, 0, 2);
        for (long c = c0; c < c1; c += 8) {
            __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x + o * C + c), _mm256_loadu_ps(x + c));
            __m256d lo = _mm256_cvtps_pd(_mm256_castps256_ps128(d)), hi = _mm256_cvtps_pd(_mm256_extractf128_ps(d, 1));
            _mm256_storeu_pd(ps + c, _mm256_add_pd(_mm256_loadu_pd(ps + c), lo));
            _mm256_storeu_pd(ps + c + 4, _mm256_add_pd(_mm256_loadu_pd(ps + c + 4), hi));
            _mm256_storeu_pd(pq + c, _mm256_fmadd_pd(lo, lo, _mm256_loadu_pd(pq + c)));
            _mm256_storeu_pd(pq + c + 4, _mm256_fmadd_pd(hi, hi, _mm256_loadu_pd(pq + c + 4)));
        }
    }
}

__attribute__((target("avx2,fma"))) static void apply(const float *x, float *y, long C, long O, long c0, long c1)
{
    for (long o = 0; o < O; o++)
        for (long c = c0; c < c1; c += 8) {
            __m256 v = _mm256_loadu_ps(x + o * C + c);
            _mm256_stream_ps(y + o * C + c, _mm256_fmadd_ps(v, _mm256_loadu_ps(co[0] + c), _mm256_loadu_ps(co[1] + c)));
        }
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench_nhwc_groups O C G [REPS]\n");
        return 2;
    }
    const long O = atol(argv[1]), C = atol(argv[2]), G = atol(argv[3]);
    const int reps = argc > 4 ? atoi(argv[4]) : 5;
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma") || O < 1 || C < 8 || C > 4096 ||
        C % 8 || G < 8 || G % 8 || C % G) {
        fprintf(stderr, "needs AVX2+FMA, O >= 1, C a multiple of 8 up to 4096, G a multiple of 8 dividing C\n");
        return 2;
    }
    const size_t bytes = (size_t)O * (size_t)C * 4, flush = (size_t)64 << 20;
    float *x = aligned_alloc(64, bytes), *y = aligned_alloc(64, bytes);
    char *big = aligned_alloc(64, flush);
    if (!x || !y || !big)
        return 1;
    for (size_t i = 0; i < (size_t)O * (size_t)C; i++) {
        x[i] = (float)(i % 97) * 0.01f;
        y[i] = 0.0f;
    }
    for (int c = 0; c < 4096; c++) {
        co[0][c] = 1.0f;
        co[1][c] = 0.5f;
    }
    for (int r = 0; r < reps; r++) {
        memset(big, r, flush);
        double t0 = now_s();
        sums(x, C, O, 0, C);
        apply(x, y, C, O, 0, C);
        _mm_sfence();
        double t1 = now_s();
        memset(big, r + 1, flush);
        double t2 = now_s();
        for (long g = 0; g < C; g += G) {
            sums(x, C, O, g, g + G);
            apply(x, y, C, O, g, g + G);
        }
        _mm_sfence();
        double t3 = now_s();
        memset(big, r + 2, flush);
        double t4 = now_s();
        memcpy(y, x, bytes);
        double t5 = now_s();
        printf("rows %.2f ms  groups(G=%ld) %.2f ms  memcpy %.2f ms (%.1f GB/s)  [check %.3g]\n", (t1 - t0) * 1e3, G,
               (t3 - t2) * 1e3, (t5 - t4) * 1e3, 2.0 * (double)bytes / (t5 - t4) / 1e9, ps[0] + pq[C - 1]);
    }
    free(x);
    free(y);
    free(big);
    return 0;
}
#else
int main(void)
{
    fprintf(stderr, "bench_nhwc_groups: x86-64 with gcc or clang only\n");
    return 0;
}
#endif
