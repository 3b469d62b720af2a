/*
 * bench_overlap: how much arithmetic one core hides under its own memory traffic.
 *
 * Memory-bound kernels that stay short of the copy floor on one thread take about their memory
 * time plus part of their arithmetic time. This probe measures that
 * share on the machine at hand, with no runtime and no operator in the way: a loop over a
 * buffer far larger than the caches does K independent multiply-adds per vector and either
 * sums what it read ("read") or writes it out ("copy_nt": streaming stores; "copy": plain
 * stores). The same loop over a 16 KiB buffer (in L1) gives the arithmetic's own time. For each
 * K it prints, in ns per fp32 element (medians of --ns samples; each sample times every K in
 * turn, over memory then in L1):
 *   mem_ns   the loop over memory,
 *   l1_ns    the same loop in L1, plain stores (the arithmetic; K = 0 is the loop's own cost),
 *   hidden   the share of the added arithmetic, l1_ns(K) - l1_ns(0), that did not add to the
 *            memory time: 1 - (mem_ns(K) - mem_ns(0)) / (l1_ns(K) - l1_ns(0)), per sample, then
 *            the median; 1 means wholly hidden, 0 that the times add up.
 *   bench_overlap [--ns N] [--mib M]     (one thread; pin it with taskset for steadier figures)
 * AVX-512 when the CPU has it, else AVX2 with FMA; nothing is printed on other CPUs.
 */
#define _POSIX_C_SOURCE 200809L
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

enum { MODE_READ, MODE_COPY_NT, MODE_COPY, MODE_N };
static const char *const mode_name[MODE_N] = {"read", "copy_nt", "copy"};
#define NK 6
static const int ks[NK] = {0, 2, 4, 8, 12, 16};

/* One pass over n floats (a multiple of 64): four vectors per step, each taken through k
 * multiply-adds, then summed (read) or stored. The multiply-adds are independent across the four
 * vectors, so the arithmetic runs at the units' throughput, not their latency. */
#define OVERLAP_BODY(VT, W, LOAD, FMA, ADD, STORE, STREAM, SET1, ZERO, HSUM)                        \
    VT a = ZERO, m = SET1(0.999f), c = SET1(1e-3f);                                                  \
    for (size_t i = 0; i < n; i += 4 * (W)) {                                                       \
        VT v0 = LOAD(x + i), v1 = LOAD(x + i + (W)), v2 = LOAD(x + i + 2 * (W)), v3 = LOAD(x + i + 3 * (W)); \
        for (int q = 0; q < k; q++) {                                                               \
            v0 = FMA(v0, m, c);                                                                     \
            v1 = FMA(v1, m, c);                                                                     \
            v2 = FMA(v2, m, c);                                                                     \
            v3 = FMA(v3, m, c);                                                                     \
        }                                                                                           \
        if (mode == MODE_COPY_NT) {                                                                 \
            STREAM(y + i, v0);                                                                      \
            STREAM(y + i + (W), v1);                                                                \
            STREAM(y + i + 2 * (W), v2);                                                            \
            STREAM(y + i + 3 * (W), v3);                                                            \
        } else if (mode == MODE_COPY) {                                                             \
            STORE(y + i, v0);                                                                       \
            STORE(y + i + (W), v1);                                                                 \
            STORE(y + i + 2 * (W), v2);                                                             \
            STORE(y + i + 3 * (W), v3);                                                             \
        } else                                                                                      \
            a = ADD(a, ADD(ADD(v0, v1), ADD(v2, v3)));                                              \
    }                                                                                               \
    return HSUM(a)

__attribute__((target("avx512f"))) static float hsum512(__m512 v) { return _mm512_reduce_add_ps(v); }
__attribute__((target("avx512f"), noinline)) static float pass512(const float *x, float *y, size_t n, int k, int mode)
{
    OVERLAP_BODY(__m512, 16, _mm512_load_ps, _mm512_fmadd_ps, _mm512_add_ps, _mm512_store_ps, _mm512_stream_ps,
                 _mm512_set1_ps, _mm512_setzero_ps(), hsum512);
}
__attribute__((target("avx2,fma"))) static float hsum256(__m256 v)
{
    float t[8];
    _mm256_storeu_ps(t, v);
    return t[0] + t[1] + t[2] + t[3] + t[4] + t[5] + t[6] + t[7];
}
__attribute__((target("avx2,fma"), noinline)) static float pass256(const float *x, float *y, size_t n, int k, int mode)
{
    OVERLAP_BODY(__m256, 8, _mm256_load_ps, _mm256_fmadd_ps, _mm256_add_ps, _mm256_store_ps, _mm256_stream_ps,
                 _mm256_set1_ps, _mm256_setzero_ps(), hsum256);
}

static int cmp_d(const void *a, const void *b)
{
    double p = *(const double *)a, q = *(const double *)b;
    return p < q ? -1 : p > q;
}
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    int ns = 7;
    size_t mib = 256;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--ns") && i + 1 < argc)
            ns = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--mib") && i + 1 < argc)
            mib = (size_t)atol(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_overlap [--ns N] [--mib M]\n");
            return 2;
        }
    }
    if (ns < 1 || ns > 99 || mib < 64) {
        fprintf(stderr, "bench_overlap: --ns must be 1..99 and --mib at least 64\n");
        return 2;
    }
    __builtin_cpu_init();
    float (*pass)(const float *, float *, size_t, int, int);
    const char *isa;
    if (__builtin_cpu_supports("avx512f")) {
        pass = pass512;
        isa = "avx512";
    } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        pass = pass256;
        isa = "avx2";
    } else {
        fprintf(stderr, "bench_overlap: needs AVX2 with FMA\n");
        return 0;
    }
    const size_t n = mib << 18, nl1 = 4096; /* floats: M MiB, and 16 KiB */
    float *x = aligned_alloc(64, n * sizeof(float)), *y = aligned_alloc(64, n * sizeof(float));
    float *xs = aligned_alloc(64, nl1 * sizeof(float)), *ys = aligned_alloc(64, nl1 * sizeof(float));
    if (!x || !y || !xs || !ys) {
        fprintf(stderr, "bench_overlap: out of memory\n");
        return 1;
    }
    /* Real data in every page (a never-written buffer reads the shared zero page from cache). */
    for (size_t i = 0; i < n; i++) {
        x[i] = (float)(i & 1023) * 1e-3f;
        y[i] = 0.0f;
    }
    for (size_t i = 0; i < nl1; i++) {
        xs[i] = (float)i * 1e-3f;
        ys[i] = 0.0f;
    }
    volatile float sink = 0.0f;
    for (int mode = 0; mode < MODE_N; mode++) {
        /* Sample s times every K in turn, so that a drift of the machine's memory speed moves
         * all K of one sample alike; "hidden" is computed per sample, then its median taken. */
        static double tm[NK][99], tl[NK][99], hid[NK][99];
        for (int s = 0; s < ns; s++)
            for (int j = 0; j < NK; j++) {
                double t0 = now_s();
                sink += pass(x, y, n, ks[j], mode);
                tm[j][s] = (now_s() - t0) / (double)n * 1e9;
                t0 = now_s();
                for (size_t r = 0; r < n / nl1; r++)
                    sink += pass(xs, ys, nl1, ks[j], mode == MODE_READ ? MODE_READ : MODE_COPY);
                tl[j][s] = (now_s() - t0) / (double)n * 1e9;
            }
        for (int j = 1; j < NK; j++)
            for (int s = 0; s < ns; s++) {
                const double arith = tl[j][s] - tl[0][s];
                hid[j][s] = arith > 0.0 ? 1.0 - (tm[j][s] - tm[0][s]) / arith : 0.0;
            }
        for (int j = 0; j < NK; j++) {
            const double mem = median(tm[j], ns), l1 = median(tl[j], ns);
            printf("{\"isa\":\"%s\",\"mode\":\"%s\",\"fma_per_vec\":%d,\"mem_ns\":%.4f,\"l1_ns\":%.4f,\"gbs\":%.2f",
                   isa, mode_name[mode], ks[j], mem, l1, (mode == MODE_READ ? 4.0 : 8.0) / mem);
            if (j > 0)
                printf(",\"hidden\":%.2f", median(hid[j], ns));
            printf("}\n");
        }
    }
    (void)sink;
    free(x);
    free(y);
    free(xs);
    free(ys);
    return 0;
}
