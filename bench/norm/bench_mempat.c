/*
 * bench_mempat: what one core's memory does with the access patterns of the two-phase
 * normalization kernels (LayerNorm / RmsNorm backward, batch norm's split passes), on one thread,
 * no runtime, 128 MiB per tensor.
 *
 *   read2      sum two tensors (8 bytes per element read)
 *   write1     stream one tensor out with non-temporal stores (4 bytes written)
 *   add2nt     o = x + g, one pass (8 read, 4 written): the single-pass bound
 *   phases B   blocks of B KiB of x and g: sum the block (from memory), then o = x + g over the
 *              same block again (from the cache) with non-temporal stores: the shape of
 *              LayerNorm's backward (row sums, then dx from L2)
 *   pieces B/P the same blocks, each cut into P pieces: piece p of block k's second pass, then
 *              piece p of block k + 1's sums, so that reads from memory and streaming stores
 *              alternate finely
 *   controls   the same phases with a second pass that only streams a constant out (no
 *              re-reads), and one that only re-reads (no stores; against read2)
 *
 *   copy       the floor's own copy loop (bench/ops/bench_copy.h: plain stores), 2 x 128 MiB
 *
 * Every figure is counted bytes (read + written, each tensor once) per second, median of the
 * samples, with its ratio to add2nt (or read2) in the same run, and to the copy: that last ratio
 * is the % of the floor a kernel of that shape would reach with no arithmetic at all.
 *   bench_mempat [--ns N]   (samples, default 7)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_common.h"
#include "bench_copy.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define MP_N ((size_t)32 << 20) /* floats per tensor */

/* 32-byte vectors (AVX): every x86-64 host this runs on has them, and one core's memory is the
 * limit either way. */
typedef float mp_v8 __attribute__((vector_size(32), aligned(32)));

__attribute__((target("avx"), noinline)) static float mp_read2(const float *x, const float *g, size_t n)
{
    __m256 a = _mm256_setzero_ps(), b = a, c = a, d = a;
    for (size_t i = 0; i < n; i += 16) {
        a = _mm256_add_ps(a, _mm256_load_ps(x + i));
        b = _mm256_add_ps(b, _mm256_load_ps(g + i));
        c = _mm256_add_ps(c, _mm256_load_ps(x + i + 8));
        d = _mm256_add_ps(d, _mm256_load_ps(g + i + 8));
    }
    mp_v8 s = (mp_v8)_mm256_add_ps(_mm256_add_ps(a, b), _mm256_add_ps(c, d));
    return s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7];
}

__attribute__((target("avx"), noinline)) static void mp_write1(float *o, size_t n)
{
    const __m256 c = _mm256_set1_ps(1.0f);
    for (size_t i = 0; i < n; i += 8)
        _mm256_stream_ps(o + i, c);
}

__attribute__((target("avx"), noinline)) static void mp_add2nt(float *o, const float *x, const float *g, size_t n)
{
    for (size_t i = 0; i < n; i += 8)
        _mm256_stream_ps(o + i, _mm256_add_ps(_mm256_load_ps(x + i), _mm256_load_ps(g + i)));
}

/* Blocks of @p blk floats in @p pieces pieces: piece p of this block's second pass, then piece
 * p of the next block's sums. pieces == 1 is the plain two-phase shape (sums of block k + 1 after
 * the whole second pass of block k). The second pass by @p mode: MP_REREAD_STORE o = x + g
 * again (from the cache), streamed out (the kernels' shape); MP_STORE a constant streamed out,
 * no loads (is it the alternation?); MP_REREAD x + g summed again, no stores (do the re-reads
 * alone slow the sums' reads?). */
enum { MP_REREAD_STORE, MP_STORE, MP_REREAD };

__attribute__((target("avx"), noinline)) static float mp_phases(float *o, const float *x, const float *g, size_t n,
                                                                size_t blk, size_t pieces, int mode)
{
    __m256 a = _mm256_setzero_ps(), b = a, c = a;
    const __m256 one = _mm256_set1_ps(1.0f);
    const size_t ep = blk / pieces;
    for (size_t i = 0; i < blk; i += 8) {
        a = _mm256_add_ps(a, _mm256_load_ps(x + i));
        b = _mm256_add_ps(b, _mm256_load_ps(g + i));
    }
    for (size_t s = 0; s < n; s += blk) {
        const int next = s + blk < n;
        for (size_t p = 0; p < pieces; p++) {
            const size_t i0 = s + p * ep, i1 = i0 + ep;
            if (mode == MP_REREAD_STORE)
                for (size_t i = i0; i < i1; i += 8)
                    _mm256_stream_ps(o + i, _mm256_add_ps(_mm256_load_ps(x + i), _mm256_load_ps(g + i)));
            else if (mode == MP_STORE)
                for (size_t i = i0; i < i1; i += 8)
                    _mm256_stream_ps(o + i, one);
            else
                for (size_t i = i0; i < i1; i += 8)
                    c = _mm256_add_ps(c, _mm256_add_ps(_mm256_load_ps(x + i), _mm256_load_ps(g + i)));
            if (next)
                for (size_t i = i0 + blk; i < i1 + blk; i += 8) {
                    a = _mm256_add_ps(a, _mm256_load_ps(x + i));
                    b = _mm256_add_ps(b, _mm256_load_ps(g + i));
                }
        }
    }
    mp_v8 t = (mp_v8)_mm256_add_ps(_mm256_add_ps(a, b), c);
    return t[0] + t[1] + t[2] + t[3] + t[4] + t[5] + t[6] + t[7];
}

int main(int argc, char **argv)
{
    static const char *const names[] = {"--ns", NULL};
    const int ca = bench_check_args(argc, argv, names, "usage: bench_mempat [--ns N]\n");
    if (ca >= 0)
        return ca;
    int ns = argc > 2 ? atoi(argv[2]) : 7;
    if (ns < 1 || ns > 63)
        ns = 7;
    if (!__builtin_cpu_supports("avx")) {
        printf("bench_mempat: needs AVX; skipped\n");
        return 0;
    }
    const size_t n = MP_N;
    float *x = aligned_alloc(64, n * 4), *g = aligned_alloc(64, n * 4 + 4096), *o = aligned_alloc(64, n * 4 + 8192);
    if (!x || !g || !o) {
        fprintf(stderr, "bench_mempat: out of memory\n");
        return 1;
    }
    /* g and o a quarter and a half page off x modulo 4 KiB (no 4K aliasing between the streams). */
    float *gg = g + 256, *oo = o + 512;
    for (size_t i = 0; i < n; i++) {
        x[i] = 1.0f;
        gg[i] = 2.0f;
        oo[i] = 0.0f;
    }
    enum { NB = 3, NP = 3, NM = 3 };
    static const size_t blk_kib[NB] = {16, 128, 512}, pieces[NP] = {1, 8, 64};
    static const char *const mode_name[NM] = {"reread_store", "store", "reread"};
    /* Sample slots: the four reference loops, then the phases by mode, block size and pieces. */
    enum { T_READ2, T_WRITE1, T_ADD2NT, T_COPY, T_PHASES, T_ALL = T_PHASES + NM * NB * NP };
    double t[T_ALL][64];
    volatile float sink = 0.0f;
    for (int s = 0; s < ns; s++) {
        double t0 = bench_now();
        sink += mp_read2(x, gg, n);
        double t1 = bench_now();
        mp_write1(oo, n);
        double t2 = bench_now();
        mp_add2nt(oo, x, gg, n);
        double t3 = bench_now();
        t[T_READ2][s] = t1 - t0;
        t[T_WRITE1][s] = t2 - t1;
        t[T_ADD2NT][s] = t3 - t2;
        /* The size through a volatile: with it a constant, gcc's loop analysis of the copy's
         * tail loop warns (-Werror). */
        const volatile size_t copy_bytes = n * 4;
        bench_copy_bytes(oo, x, copy_bytes);
        t[T_COPY][s] = bench_now() - t3;
        for (int md = 0; md < NM; md++)
            for (int b = 0; b < NB; b++)
                for (int p = 0; p < NP; p++) {
                    /* blk_kib KiB of x and g together: blk_kib * 128 floats of each. */
                    const double a = bench_now();
                    sink += mp_phases(oo, x, gg, n, blk_kib[b] * 128, pieces[p], md);
                    t[T_PHASES + (md * NB + b) * NP + p][s] = bench_now() - a;
                }
    }
    for (int v = 0; v < T_ALL; v++)
        qsort(t[v], (size_t)ns, sizeof(double), bench_cmp);
    const double m = (double)n, rd = 8.0 * m / t[T_READ2][ns / 2] / 1e9, add = 12.0 * m / t[T_ADD2NT][ns / 2] / 1e9;
    const double cp = 8.0 * m / t[T_COPY][ns / 2] / 1e9;
    printf("{\"case\":\"copy\",\"gbs\":%.1f}\n", cp);
    printf("{\"case\":\"read2\",\"gbs\":%.1f,\"vs_copy\":%.2f}\n", rd, rd / cp);
    printf("{\"case\":\"write1_nt\",\"gbs\":%.1f}\n", 4.0 * m / t[T_WRITE1][ns / 2] / 1e9);
    printf("{\"case\":\"add2nt\",\"gbs\":%.1f,\"vs_copy\":%.2f}\n", add, add / cp);
    for (int md = 0; md < NM; md++)
        for (int b = 0; b < NB; b++)
            for (int p = 0; p < NP; p++) {
                /* Counted bytes: x and g once, o once where it is written. */
                const double bytes = (md == MP_REREAD ? 8.0 : 12.0) * m;
                const double gbs = bytes / t[T_PHASES + (md * NB + b) * NP + p][ns / 2] / 1e9;
                printf("{\"case\":\"phases\",\"second_pass\":\"%s\",\"block_kib\":%zu,\"pieces\":%zu,\"gbs\":%.1f,"
                       "\"vs_%s\":%.2f,\"vs_copy\":%.2f}\n",
                       mode_name[md], blk_kib[b], pieces[p], gbs, md == MP_REREAD ? "read2" : "add2nt",
                       gbs / (md == MP_REREAD ? rd : add), gbs / cp);
            }
    free(x);
    free(g);
    free(o);
    return sink == 12345.0f ? 2 : 0;
}
#else
int main(void)
{
    printf("bench_mempat: x86-64 only; skipped\n");
    return 0;
}
#endif
