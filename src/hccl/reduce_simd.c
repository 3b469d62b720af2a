/*
 * Fused fp32 reduction for the zero-copy collectives: every vector of every source is loaded,
 * folded in rank order and stored to each destination at once, with no accumulator or staging
 * block in between. The generic path (reduce.c) copies each 4 KiB block through L1 three times
 * before it reaches the destinations; at DRAM speed those extra loads and stores cost the core
 * time it needs to keep enough misses in flight, which is what the large all-reduces lose.
 *
 * The result equals the generic path's bit for bit: the same operation, the same order
 * (((s0 op s1) op s2) ...) per element, and max/min keep the generic path's "a > b ? a : b"
 * (which is what maxps/minps compute, NaNs included).
 *
 * Built with per-function target attributes and chosen at run time from the shared CPU feature
 * detection (src/common/cpu_features.c), so the library itself still runs on any x86-64;
 * CANNON_ISA=avx2|scalar forces a lower tier (as for the operators), read once per process.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cannon/cpu.h"
#include "cpu_features.h"
#include "hccl_internal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HC_SIMD 1
#endif

#ifdef HC_SIMD

/* 0: scalar (use the generic path), 1: AVX2, 2: AVX-512F. */
static int simd_tier(void)
{
    static int tier = -1;
    int t = __atomic_load_n(&tier, __ATOMIC_RELAXED);
    if (t >= 0)
        return t;
    const uint32_t f = cannon_cpu_features();
    if (f & CANNON_CPU_ISA_AVX512F)
        t = CANNON_CPU_TIER_AVX512;
    else if (f & CANNON_CPU_ISA_AVX2)
        t = CANNON_CPU_TIER_AVX2;
    else
        t = CANNON_CPU_TIER_SCALAR;
    const int cap = cannon_cpu_tier_cap();
    if (cap < t)
        t = cap;
    __atomic_store_n(&tier, t, __ATOMIC_RELAXED);
    return t;
}

static inline float op1(float a, float b, HcclReduceOp op)
{
    switch (op) {
    case HCCL_REDUCE_SUM: return a + b;
    case HCCL_REDUCE_PROD: return a * b;
    case HCCL_REDUCE_MAX: return a > b ? a : b;
    default: return a < b ? a : b;
    }
}

/* Elements [i0, i1) one at a time: heads before the destinations are aligned, and tails. */
static void fused_scalar(float *const *d, int nd, const float *const *s, int ns, size_t i0, size_t i1,
                         HcclReduceOp op)
{
    for (size_t i = i0; i < i1; i++) {
        float a = s[0][i];
        for (int k = 1; k < ns; k++)
            a = op1(a, s[k][i], op);
        for (int k = 0; k < nd; k++)
            d[k][i] = a;
    }
}

#define DEF_FUSED(NAME, TGT, VT, W, LOADU, STOREU, STREAM, ADD, MUL, MAX, MIN)                    \
    __attribute__((target(TGT))) static void NAME(float *const *d, int nd, const float *const *s, int ns,  \
                                                  size_t i0, size_t i1, HcclReduceOp op, int nt)  \
    {                                                                                              \
        size_t i = i0;                                                                             \
        for (; i + 2 * (W) <= i1; i += 2 * (W)) {                                                  \
            VT a = LOADU(s[0] + i), b = LOADU(s[0] + i + (W));                                     \
            for (int k = 1; k < ns; k++) {                                                         \
                VT x = LOADU(s[k] + i), y = LOADU(s[k] + i + (W));                                 \
                switch (op) {                                                                      \
                case HCCL_REDUCE_SUM: a = ADD(a, x); b = ADD(b, y); break;                         \
                case HCCL_REDUCE_PROD: a = MUL(a, x); b = MUL(b, y); break;                        \
                case HCCL_REDUCE_MAX: a = MAX(a, x); b = MAX(b, y); break;                         \
                default: a = MIN(a, x); b = MIN(b, y); break;                                      \
                }                                                                                  \
            }                                                                                      \
            if (nt) {                                                                              \
                for (int k = 0; k < nd; k++) {                                                     \
                    STREAM(d[k] + i, a);                                                           \
                    STREAM(d[k] + i + (W), b);                                                     \
                }                                                                                  \
            } else {                                                                               \
                for (int k = 0; k < nd; k++) {                                                     \
                    STOREU(d[k] + i, a);                                                           \
                    STOREU(d[k] + i + (W), b);                                                     \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        fused_scalar(d, nd, s, ns, i, i1, op);                                                     \
    }

DEF_FUSED(fused_avx512, "avx512f", __m512, 16, _mm512_loadu_ps, _mm512_storeu_ps, _mm512_stream_ps, _mm512_add_ps,
          _mm512_mul_ps, _mm512_max_ps, _mm512_min_ps)
DEF_FUSED(fused_avx2, "avx2", __m256, 8, _mm256_loadu_ps, _mm256_storeu_ps, _mm256_stream_ps, _mm256_add_ps,
          _mm256_mul_ps, _mm256_max_ps, _mm256_min_ps)

int hc_reduce_multi_f32(void *const *dsts, int ndst, const void *const *srcs, int nsrc, size_t n, HcclReduceOp op,
                        int nt)
{
    const int tier = simd_tier();
    if (tier == 0 || ndst < 1 || nsrc < 1 || ndst > HC_MAX_RANKS || nsrc > HC_MAX_RANKS)
        return 0;
    if (op != HCCL_REDUCE_SUM && op != HCCL_REDUCE_PROD && op != HCCL_REDUCE_MAX && op != HCCL_REDUCE_MIN)
        return 0;
    float *d[HC_MAX_RANKS];
    const float *s[HC_MAX_RANKS];
    for (int k = 0; k < ndst; k++)
        d[k] = dsts[k];
    for (int k = 0; k < nsrc; k++)
        s[k] = srcs[k];
    /* Streaming stores need aligned vectors: a scalar head brings the first destination to a
     * 64-byte boundary; the others must then be aligned too (the zero-copy buffers share their
     * offset within a cache line in practice), or every store is a regular one. A destination
     * that is also a source is the same range (in place), and each vector reads every source
     * before writing, so order within a vector is safe. */
    size_t head = 0;
    if (nt) {
        uintptr_t mis = (uintptr_t)d[0] & 63;
        if (mis % sizeof(float) != 0)
            nt = 0;
        else {
            head = mis ? (64 - mis) / sizeof(float) : 0;
            if (head > n)
                head = n;
            for (int k = 1; k < ndst && nt; k++)
                if ((((uintptr_t)(d[k] + head)) & 63) != 0)
                    nt = 0;
            if (!nt)
                head = 0;
        }
    }
    fused_scalar(d, ndst, s, nsrc, 0, head, op);
    if (tier == 2)
        fused_avx512(d, ndst, s, nsrc, head, n, op, nt);
    else
        fused_avx2(d, ndst, s, nsrc, head, n, op, nt);
    return 1;
}

#else

int hc_reduce_multi_f32(void *const *dsts, int ndst, const void *const *srcs, int nsrc, size_t n, HcclReduceOp op,
                        int nt)
{
    (void)dsts, (void)ndst, (void)srcs, (void)nsrc, (void)n, (void)op, (void)nt;
    return 0;
}

#endif
