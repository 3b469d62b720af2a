/*
 * Element-wise reductions over n sources, in rank order, for every HCCL type and op.
 *
 * Works in blocks: a block of the first source goes into an accumulator on the stack, the other
 * sources are folded in, then the block is stored. So dst may be one of the sources (the in-place
 * reduce-scatter writes over its own input), the sum order is fixed (rank 0, 1, ...) whichever
 * rank computes it, and fp16/bf16 are accumulated in fp32 and rounded once. The inner loops are
 * simple enough for the compiler to vectorise (this file is built with -O3).
 */
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "fp_convert.h"
#include "hccl_internal.h"

#define BLK 512

int hc_reduce_supported(HcclDataType t, HcclReduceOp op)
{
    if (op != HCCL_REDUCE_SUM && op != HCCL_REDUCE_PROD && op != HCCL_REDUCE_MAX && op != HCCL_REDUCE_MIN)
        return 0;
    switch (t) {
    case HCCL_DATA_TYPE_INT8: case HCCL_DATA_TYPE_INT16: case HCCL_DATA_TYPE_INT32: case HCCL_DATA_TYPE_FP16:
    case HCCL_DATA_TYPE_FP32: case HCCL_DATA_TYPE_INT64: case HCCL_DATA_TYPE_UINT64: case HCCL_DATA_TYPE_UINT8:
    case HCCL_DATA_TYPE_UINT16: case HCCL_DATA_TYPE_UINT32: case HCCL_DATA_TYPE_FP64: case HCCL_DATA_TYPE_BFP16:
    case HCCL_DATA_TYPE_INT128:
        return 1;
    default:
        return 0; /* the fp8 families have no agreed arithmetic */
    }
}

#define OP_SUM(a, b) ((a) + (b))
#define OP_PROD(a, b) ((a) * (b))
#define OP_MAX(a, b) ((a) > (b) ? (a) : (b))
#define OP_MIN(a, b) ((a) < (b) ? (a) : (b))

/* Integer sums wrap (as on the device): compute in the unsigned type of the same width. */
#define DEF_INT(NAME, T, U)                                                                         \
    static void NAME(T *dst, const void *const *srcs, int nsrc, size_t n, HcclReduceOp op)         \
    {                                                                                              \
        T acc[BLK];                                                                                \
        for (size_t i0 = 0; i0 < n; i0 += BLK) {                                                   \
            size_t m = n - i0 < BLK ? n - i0 : BLK;                                                \
            memcpy(acc, (const T *)srcs[0] + i0, m * sizeof(T));                                   \
            for (int k = 1; k < nsrc; k++) {                                                       \
                const T *s = (const T *)srcs[k] + i0;                                              \
                switch (op) {                                                                      \
                case HCCL_REDUCE_SUM:                                                              \
                    for (size_t i = 0; i < m; i++) acc[i] = (T)((U)acc[i] + (U)s[i]);              \
                    break;                                                                         \
                case HCCL_REDUCE_PROD:                                                             \
                    for (size_t i = 0; i < m; i++) acc[i] = (T)((U)acc[i] * (U)s[i]);              \
                    break;                                                                         \
                case HCCL_REDUCE_MAX:                                                              \
                    for (size_t i = 0; i < m; i++) acc[i] = OP_MAX(acc[i], s[i]);                  \
                    break;                                                                         \
                default:                                                                           \
                    for (size_t i = 0; i < m; i++) acc[i] = OP_MIN(acc[i], s[i]);                  \
                    break;                                                                         \
                }                                                                                  \
            }                                                                                      \
            memcpy(dst + i0, acc, m * sizeof(T));                                                  \
        }                                                                                          \
    }

DEF_INT(red_i8, int8_t, uint8_t)
DEF_INT(red_u8, uint8_t, uint32_t)
DEF_INT(red_i16, int16_t, uint16_t)
DEF_INT(red_u16, uint16_t, uint32_t)
DEF_INT(red_i32, int32_t, uint32_t)
DEF_INT(red_u32, uint32_t, uint32_t)
DEF_INT(red_i64, int64_t, uint64_t)
DEF_INT(red_u64, uint64_t, uint64_t)
#ifdef __SIZEOF_INT128__
DEF_INT(red_i128, __int128, unsigned __int128)
#endif

#define DEF_FLT(NAME, T)                                                                           \
    static void NAME(T *dst, const void *const *srcs, int nsrc, size_t n, HcclReduceOp op)         \
    {                                                                                              \
        T acc[BLK];                                                                                \
        for (size_t i0 = 0; i0 < n; i0 += BLK) {                                                   \
            size_t m = n - i0 < BLK ? n - i0 : BLK;                                                \
            memcpy(acc, (const T *)srcs[0] + i0, m * sizeof(T));                                   \
            for (int k = 1; k < nsrc; k++) {                                                       \
                const T *s = (const T *)srcs[k] + i0;                                              \
                switch (op) {                                                                      \
                case HCCL_REDUCE_SUM: for (size_t i = 0; i < m; i++) acc[i] = OP_SUM(acc[i], s[i]); break;  \
                case HCCL_REDUCE_PROD: for (size_t i = 0; i < m; i++) acc[i] = OP_PROD(acc[i], s[i]); break; \
                case HCCL_REDUCE_MAX: for (size_t i = 0; i < m; i++) acc[i] = OP_MAX(acc[i], s[i]); break;  \
                default: for (size_t i = 0; i < m; i++) acc[i] = OP_MIN(acc[i], s[i]); break;              \
                }                                                                                  \
            }                                                                                      \
            memcpy(dst + i0, acc, m * sizeof(T));                                                  \
        }                                                                                          \
    }

DEF_FLT(red_f32, float)
DEF_FLT(red_f64, double)

/* fp16 / bf16: widen to fp32, reduce, round once. */
#define DEF_HALF(NAME, TOF, FROMF)                                                                 \
    static void NAME(uint16_t *dst, const void *const *srcs, int nsrc, size_t n, HcclReduceOp op)  \
    {                                                                                              \
        float acc[BLK];                                                                            \
        for (size_t i0 = 0; i0 < n; i0 += BLK) {                                                   \
            size_t m = n - i0 < BLK ? n - i0 : BLK;                                                \
            const uint16_t *s0 = (const uint16_t *)srcs[0] + i0;                                   \
            for (size_t i = 0; i < m; i++) acc[i] = TOF(s0[i]);                                    \
            for (int k = 1; k < nsrc; k++) {                                                       \
                const uint16_t *s = (const uint16_t *)srcs[k] + i0;                                \
                for (size_t i = 0; i < m; i++) {                                                   \
                    float v = TOF(s[i]);                                                           \
                    switch (op) {                                                                  \
                    case HCCL_REDUCE_SUM: acc[i] += v; break;                                      \
                    case HCCL_REDUCE_PROD: acc[i] *= v; break;                                     \
                    case HCCL_REDUCE_MAX: acc[i] = OP_MAX(acc[i], v); break;                       \
                    default: acc[i] = OP_MIN(acc[i], v); break;                                    \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
            for (size_t i = 0; i < m; i++) dst[i0 + i] = FROMF(acc[i]);                            \
        }                                                                                          \
    }

DEF_HALF(red_f16, cannon_f16_to_f32, cannon_f32_to_f16)
DEF_HALF(red_bf16, cannon_bf16_to_f32, cannon_f32_to_bf16)

void hc_reduce(void *dst, const void *const *srcs, int nsrc, size_t n, HcclDataType t, HcclReduceOp op)
{
    if (n == 0)
        return;
    switch (t) {
    case HCCL_DATA_TYPE_INT8: red_i8(dst, srcs, nsrc, n, op); break;
    case HCCL_DATA_TYPE_UINT8: red_u8(dst, srcs, nsrc, n, op); break;
    case HCCL_DATA_TYPE_INT16: red_i16(dst, srcs, nsrc, n, op); break;
    case HCCL_DATA_TYPE_UINT16: red_u16(dst, srcs, nsrc, n, op); break;
    case HCCL_DATA_TYPE_INT32: red_i32(dst, srcs, nsrc, n, op); break;
    case HCCL_DATA_TYPE_UINT32: red_u32(dst, srcs, nsrc, n, op); break;
    case HCCL_DATA_TYPE_INT64: red_i64(dst, srcs, nsrc, n, op); break;
    case HCCL_DATA_TYPE_UINT64: red_u64(dst, srcs, nsrc, n, op); break;
#ifdef __SIZEOF_INT128__
    case HCCL_DATA_TYPE_INT128: red_i128(dst, srcs, nsrc, n, op); break;
#endif
    case HCCL_DATA_TYPE_FP32: red_f32(dst, srcs, nsrc, n, op); break;
    case HCCL_DATA_TYPE_FP64: red_f64(dst, srcs, nsrc, n, op); break;
    case HCCL_DATA_TYPE_FP16: red_f16(dst, srcs, nsrc, n, op); break;
    case HCCL_DATA_TYPE_BFP16: red_bf16(dst, srcs, nsrc, n, op); break;
    default: break;
    }
}

/* ---- several destinations, streaming stores ---- */

void hc_copy(void *dst, const void *src, size_t n, int nt)
{
    if (dst == src)
        return; /* in place (an allgather's own block) */
#if defined(__SSE2__)
    if (nt) {
        /* Non-temporal 16-byte stores (SSE2 is part of x86-64, so no dispatch is needed): the
         * written lines go to memory without being read first, which saves the read-for-ownership
         * of a regular store — a third of the traffic of a large copy. Head and tail go through
         * memcpy so the stream itself is aligned. */
        unsigned char *d = dst;
        const unsigned char *s = src;
        size_t head = (16 - ((uintptr_t)d & 15)) & 15;
        if (head > n)
            head = n;
        memcpy(d, s, head);
        d += head;
        s += head;
        n -= head;
        for (; n >= 64; n -= 64, d += 64, s += 64) {
            __m128i a = _mm_loadu_si128((const __m128i *)s), b = _mm_loadu_si128((const __m128i *)(s + 16));
            __m128i c = _mm_loadu_si128((const __m128i *)(s + 32)), e = _mm_loadu_si128((const __m128i *)(s + 48));
            _mm_stream_si128((__m128i *)d, a);
            _mm_stream_si128((__m128i *)(d + 16), b);
            _mm_stream_si128((__m128i *)(d + 32), c);
            _mm_stream_si128((__m128i *)(d + 48), e);
        }
        memcpy(d, s, n);
        return;
    }
#endif
    (void)nt;
    memcpy(dst, src, n);
}

void hc_store_fence(void)
{
#if defined(__SSE2__)
    /* Streaming stores are weakly ordered: without this, a peer that saw our next phase (a
     * release store) could still read stale lines of what we streamed. */
    _mm_sfence();
#endif
}

/* Bytes reduced at a time before being copied out: small enough to stay in L1 between the
 * reduction and the copies. */
#define MULTI_BLK 4096

void hc_reduce_multi(void *const *dsts, int ndst, const void *const *srcs, int nsrc, size_t n, HcclDataType t,
                     HcclReduceOp op, int nt)
{
    const size_t es = hc_dtype_size(t);
    if (n == 0 || es == 0)
        return;
    if (t == HCCL_DATA_TYPE_FP32 && hc_reduce_multi_f32(dsts, ndst, srcs, nsrc, n, op, nt))
        return;
    if (ndst == 1 && !nt) {
        hc_reduce(dsts[0], srcs, nsrc, n, t, op);
        return;
    }
    _Alignas(64) unsigned char tmp[MULTI_BLK];
    const size_t per = MULTI_BLK / es;
    const void *s[HC_MAX_RANKS];
    for (size_t i0 = 0; i0 < n; i0 += per) {
        size_t m = n - i0 < per ? n - i0 : per;
        for (int k = 0; k < nsrc; k++)
            s[k] = (const unsigned char *)srcs[k] + i0 * es;
        /* All sources of the block are read before any destination is written, so a
         * destination may be one of the sources (in place). */
        hc_reduce(tmp, s, nsrc, m, t, op);
        for (int k = 0; k < ndst; k++)
            hc_copy((unsigned char *)dsts[k] + i0 * es, tmp, m * es, nt);
    }
}
