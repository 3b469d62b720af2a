/* AVX2 tier of the vector kernels: the loops compiled for AVX2, half conversions with the
 * vcvtph2ps/vcvtps2ph instructions (round to nearest even, subnormals kept, NaNs
 * quietened: the bits of fp_convert.h). */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cannon_ascendc/vec_kernels.h"
#include "fp_convert.h"

#define VT_FN(name) cannon_ascendc_vavx2_##name
#define VT_TABLE cannon_ascendc_vec_avx2

static inline void cannon_ascendc_vavx2_widen_f16(const uint16_t *s, float *d, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 v = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(s + i)));
        _mm256_storeu_ps(d + i, v);
    }
    for (; i < n; i++)
        d[i] = cannon_f16_to_f32(s[i]);
}

static inline void cannon_ascendc_vavx2_narrow_f16(const float *s, uint16_t *d, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(void *)(d + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    for (; i < n; i++)
        d[i] = cannon_f32_to_f16(s[i]);
}

/* memcpy with non-temporal stores: the head up to a 64-byte boundary of dst and the tail are
 * plain copies; the fence orders the streamed stores before whatever the block does next. */
static void cannon_ascendc_vavx2_copy_stream(void *dst, const void *src, size_t n)
{
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    size_t h = (64u - ((uintptr_t)d & 63u)) & 63u;
    if (h > n)
        h = n;
    memcpy(d, s, h);
    d += h, s += h, n -= h;
    for (; n >= 256; d += 256, s += 256, n -= 256) {
        for (size_t k = 0; k < 256; k += 32) {
            const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(s + k));
            _mm256_stream_si256((__m256i *)(void *)(d + k), v);
        }
    }
    _mm_sfence();
    memcpy(d, s, n);
}

#define VT_COPY_STREAM cannon_ascendc_vavx2_copy_stream
/* half binary operations in one pass (widen, operate, round, store per vector) instead of
 * through the float chunk buffers; the same bits, the instructions computing exactly what the
 * float loops do (max/min return the second operand unless the first is greater/less, as
 * `a > b ? a : b` does). Returns how many leading elements it did (a multiple of 8). */
#define VT_F16_LOAD(p) _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(p)))
#define VT_F16_STORE(q, v)                                                                                             \
    _mm_storeu_si128((__m128i *)(void *)(q), _mm256_cvtps_ph((v), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC))
#define VT_F16_LOOP(expr)                                                                                              \
    for (; i + 8 <= n; i += 8) {                                                                                       \
        const __m256 a = VT_F16_LOAD(x + i), b = VT_F16_LOAD(y + i);                                                   \
        VT_F16_STORE(d + i, expr);                                                                                     \
    }
static size_t cannon_ascendc_vavx2_f16_binary(int op, uint16_t *d, const uint16_t *x, const uint16_t *y, size_t n)
{
    size_t i = 0;
    switch (op) {
    case CANNON_ASCENDC_VOP_ADD:
        VT_F16_LOOP(_mm256_add_ps(a, b))
        break;
    case CANNON_ASCENDC_VOP_SUB:
        VT_F16_LOOP(_mm256_sub_ps(a, b))
        break;
    case CANNON_ASCENDC_VOP_MUL:
        VT_F16_LOOP(_mm256_mul_ps(a, b))
        break;
    case CANNON_ASCENDC_VOP_DIV:
        VT_F16_LOOP(_mm256_div_ps(a, b))
        break;
    case CANNON_ASCENDC_VOP_MAX:
        VT_F16_LOOP(_mm256_max_ps(a, b))
        break;
    default: /* MIN */
        VT_F16_LOOP(_mm256_min_ps(a, b))
        break;
    }
    return i;
}
#undef VT_F16_LOOP
#undef VT_F16_STORE
#undef VT_F16_LOAD

#define VT_F16_BINARY cannon_ascendc_vavx2_f16_binary
#define VT_WIDEN_F16 cannon_ascendc_vavx2_widen_f16
#define VT_NARROW_F16 cannon_ascendc_vavx2_narrow_f16
#include "vec_tier.h"
