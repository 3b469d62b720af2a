/*
 * The skinny-product kernel of the matmul family, one body for every ISA tier: included by
 * mm_dot_<tier>.c after that tier's vec_<tier>.h, with MM_DOT_FN naming the entry point.
 *
 * r[w * nx + x] = sum over p < K of W_w[p] * X_x[p], for nw "wide" vectors W_w = w + w * ldw and
 * nx <= MM_DOT_NX "narrow" ones X_x = x + x * ldx, each contiguous along K and of its own dtype
 * (MM_F32, MM_F16 or MM_BF16, widened exactly). Each sum runs in fp32: MM_DOT_U interleaved vector
 * accumulators per narrow vector (lane l of accumulator u adds the products at p = (i * MM_DOT_U + u)
 * * VW + l), then the accumulators are added in order and the lanes pairwise: the order depends on
 * the shape and the tier only. Each wide vector is read once for up to MM_DOT_GROUP narrow ones.
 */
#include "mm_hsum.h"
#include "mm_kernels.h"

#define MM_DOT_U 2
#define MM_DOT_GROUP 4

static inline vf mm_dot_ld(const void *p, int dt, int64_t i)
{
    return dt == MM_F32   ? vf_load_f32((const float *)p + i)
           : dt == MM_F16 ? vf_load_f16((const uint16_t *)p + i)
                          : vf_load_bf16((const uint16_t *)p + i);
}

static inline vf mm_dot_ldn(const void *p, int dt, int64_t i, size_t n)
{
    return dt == MM_F32   ? vf_loadn_f32((const float *)p + i, n, 0.0f)
           : dt == MM_F16 ? vf_loadn_f16((const uint16_t *)p + i, n, 0.0f)
                          : vf_loadn_bf16((const uint16_t *)p + i, n, 0.0f);
}

static inline const void *mm_dot_at(const void *p, int dt, int64_t i)
{
    return dt == MM_F32 ? (const void *)((const float *)p + i) : (const void *)((const uint16_t *)p + i);
}

/* A software prefetch of the wide vector MM_DOT_PF_DIST bytes past element p (tiers that define
 * it), covering the bytes one step of the main loops reads: each wide vector is read once from
 * memory, and the hardware prefetchers alone keep too few lines in flight for one core to reach
 * the memory's bandwidth. */
static inline __attribute__((always_inline)) void mm_dot_pf(const void *wv, int dw, int64_t p)
{
#ifdef MM_DOT_PF_DIST
    const char *a = (const char *)mm_dot_at(wv, dw, p) + MM_DOT_PF_DIST;
    for (int b = 0; b < MM_DOT_U * VW * (dw == MM_F32 ? 4 : 2); b += 64)
        __builtin_prefetch(a + b, 0, 0);
#else
    (void)wv, (void)dw, (void)p;
#endif
}

/* One wide vector against n (1..MM_DOT_GROUP) narrow ones; n is a constant where it is inlined. */
static inline __attribute__((always_inline)) void mm_dot_group(const void *wv, int dw, const void *const *xv, int dx,
                                                               int n, int64_t K, float *out)
{
    vf acc[MM_DOT_GROUP][MM_DOT_U];
    for (int x = 0; x < n; x++)
        for (int u = 0; u < MM_DOT_U; u++)
            acc[x][u] = vf_set1(0.0f);
    int64_t p = 0;
    for (; p + MM_DOT_U * VW <= K; p += MM_DOT_U * VW) {
        mm_dot_pf(wv, dw, p);
        for (int u = 0; u < MM_DOT_U; u++) {
            const vf wl = mm_dot_ld(wv, dw, p + u * VW);
            for (int x = 0; x < n; x++)
                acc[x][u] = vf_fma(wl, mm_dot_ld(xv[x], dx, p + u * VW), acc[x][u]);
        }
    }
    for (int u = 0; p < K; p += VW, u++) {
        const size_t m = (size_t)(K - p < VW ? K - p : VW);
        const vf wl = mm_dot_ldn(wv, dw, p, m);
        for (int x = 0; x < n; x++)
            acc[x][u] = vf_fma(wl, mm_dot_ldn(xv[x], dx, p, m), acc[x][u]);
    }
    for (int x = 0; x < n; x++) {
        vf s = acc[x][0];
        for (int u = 1; u < MM_DOT_U; u++)
            s = vf_add(s, acc[x][u]);
        out[x] = mm_hsum_pairwise(s);
    }
}

/* Two wide vectors against the same n narrow ones: each (wide, narrow) sum is accumulated exactly as
 * mm_dot_group does it (the same accumulators, in the same order), but every narrow load serves both
 * wide vectors. */
static inline __attribute__((always_inline)) void mm_dot_group2(const void *wv0, const void *wv1, int dw,
                                                                const void *const *xv, int dx, int n, int64_t K,
                                                                float *out0, float *out1)
{
    vf acc0[MM_DOT_GROUP][MM_DOT_U], acc1[MM_DOT_GROUP][MM_DOT_U];
    for (int x = 0; x < n; x++)
        for (int u = 0; u < MM_DOT_U; u++)
            acc0[x][u] = acc1[x][u] = vf_set1(0.0f);
    int64_t p = 0;
    for (; p + MM_DOT_U * VW <= K; p += MM_DOT_U * VW) {
        mm_dot_pf(wv0, dw, p);
        mm_dot_pf(wv1, dw, p);
        for (int u = 0; u < MM_DOT_U; u++) {
            const vf w0 = mm_dot_ld(wv0, dw, p + u * VW), w1 = mm_dot_ld(wv1, dw, p + u * VW);
            for (int x = 0; x < n; x++) {
                const vf xl = mm_dot_ld(xv[x], dx, p + u * VW);
                acc0[x][u] = vf_fma(w0, xl, acc0[x][u]);
                acc1[x][u] = vf_fma(w1, xl, acc1[x][u]);
            }
        }
    }
    for (int u = 0; p < K; p += VW, u++) {
        const size_t m = (size_t)(K - p < VW ? K - p : VW);
        const vf w0 = mm_dot_ldn(wv0, dw, p, m), w1 = mm_dot_ldn(wv1, dw, p, m);
        for (int x = 0; x < n; x++) {
            const vf xl = mm_dot_ldn(xv[x], dx, p, m);
            acc0[x][u] = vf_fma(w0, xl, acc0[x][u]);
            acc1[x][u] = vf_fma(w1, xl, acc1[x][u]);
        }
    }
    for (int x = 0; x < n; x++) {
        vf s0 = acc0[x][0], s1 = acc1[x][0];
        for (int u = 1; u < MM_DOT_U; u++) {
            s0 = vf_add(s0, acc0[x][u]);
            s1 = vf_add(s1, acc1[x][u]);
        }
        out0[x] = mm_hsum_pairwise(s0);
        out1[x] = mm_hsum_pairwise(s1);
    }
}

/* Narrow vectors per pass with two wide vectors: 2 x n x MM_DOT_U accumulators must fit the tier's
 * registers with the loads (32 with AVX-512, 16 with AVX2); none for the scalar tier. */
#define MM_DOT_PAIR_MAX (VW >= 16 ? 4 : VW >= 8 ? 2 : 0)

static inline __attribute__((always_inline)) void mm_dot_all(const void *w, int dw, int64_t ldw, int64_t nw,
                                                             const void *x, int dx, int64_t ldx, int64_t nx, int64_t K,
                                                             float *r)
{
    int64_t i = 0;
    if (nx <= MM_DOT_PAIR_MAX)
        for (; i + 2 <= nw; i += 2) {
            const void *wv0 = mm_dot_at(w, dw, i * ldw), *wv1 = mm_dot_at(w, dw, (i + 1) * ldw);
            const void *xv[MM_DOT_GROUP];
            for (int k = 0; k < (int)nx; k++)
                xv[k] = mm_dot_at(x, dx, k * ldx);
            float *o0 = r + i * nx, *o1 = r + (i + 1) * nx;
            switch (nx) {
            case 1:
                mm_dot_group2(wv0, wv1, dw, xv, dx, 1, K, o0, o1);
                break;
            case 2:
                mm_dot_group2(wv0, wv1, dw, xv, dx, 2, K, o0, o1);
                break;
            case 3:
                mm_dot_group2(wv0, wv1, dw, xv, dx, 3, K, o0, o1);
                break;
            default:
                mm_dot_group2(wv0, wv1, dw, xv, dx, 4, K, o0, o1);
                break;
            }
        }
    for (; i < nw; i++) {
        const void *wv = mm_dot_at(w, dw, i * ldw);
        for (int64_t g = 0; g < nx; g += MM_DOT_GROUP) {
            const void *xv[MM_DOT_GROUP];
            const int n = (int)(nx - g < MM_DOT_GROUP ? nx - g : MM_DOT_GROUP);
            for (int k = 0; k < n; k++)
                xv[k] = mm_dot_at(x, dx, (g + k) * ldx);
            float *out = r + i * nx + g;
            switch (n) {
            case 1:
                mm_dot_group(wv, dw, xv, dx, 1, K, out);
                break;
            case 2:
                mm_dot_group(wv, dw, xv, dx, 2, K, out);
                break;
            case 3:
                mm_dot_group(wv, dw, xv, dx, 3, K, out);
                break;
            default:
                mm_dot_group(wv, dw, xv, dx, 4, K, out);
                break;
            }
        }
    }
}

/* One copy of the loops per (wide dtype, narrow dtype) pair, so the dtype tests of the loads fold
 * away instead of running in the inner loop. */
#define MM_DOT_PAIR(DW, DX)                                                                                    \
    static void mm_dot_##DW##_##DX(const void *w, int64_t ldw, int64_t nw, const void *x, int64_t ldx,       \
                                   int64_t nx, int64_t K, float *r)                                            \
    {                                                                                                          \
        mm_dot_all(w, DW, ldw, nw, x, DX, ldx, nx, K, r);                                                      \
    }
MM_DOT_PAIR(MM_F32, MM_F32)
MM_DOT_PAIR(MM_F32, MM_F16)
MM_DOT_PAIR(MM_F32, MM_BF16)
MM_DOT_PAIR(MM_F16, MM_F32)
MM_DOT_PAIR(MM_F16, MM_F16)
MM_DOT_PAIR(MM_F16, MM_BF16)
MM_DOT_PAIR(MM_BF16, MM_F32)
MM_DOT_PAIR(MM_BF16, MM_F16)
MM_DOT_PAIR(MM_BF16, MM_BF16)
#undef MM_DOT_PAIR

void MM_DOT_FN(const void *w, int dw, int64_t ldw, int64_t nw, const void *x, int dx, int64_t ldx, int64_t nx,
               int64_t K, float *r)
{
#define MM_DOT_CASE(DW, DX)                                                                                    \
    if (dw == DW && dx == DX) {                                                                                \
        mm_dot_##DW##_##DX(w, ldw, nw, x, ldx, nx, K, r);                                                      \
        return;                                                                                                \
    }
    MM_DOT_CASE(MM_F32, MM_F32)
    MM_DOT_CASE(MM_F32, MM_F16)
    MM_DOT_CASE(MM_F32, MM_BF16)
    MM_DOT_CASE(MM_F16, MM_F32)
    MM_DOT_CASE(MM_F16, MM_F16)
    MM_DOT_CASE(MM_F16, MM_BF16)
    MM_DOT_CASE(MM_BF16, MM_F32)
    MM_DOT_CASE(MM_BF16, MM_F16)
    mm_dot_MM_BF16_MM_BF16(w, ldw, nw, x, ldx, nx, K, r);
#undef MM_DOT_CASE
}
