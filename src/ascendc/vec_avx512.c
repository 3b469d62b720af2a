/* AVX512 tier of the vector kernels: the loops compiled for AVX512, half conversions with the
 * vcvtph2ps/vcvtps2ph instructions (round to nearest even, subnormals kept,
 * NaNs quietened: the bits of fp_convert.h). */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cannon_ascendc/vec_kernels.h"
#include "fp_convert.h"

#define VT_FN(name) cannon_ascendc_vavx512_##name
#define VT_TABLE cannon_ascendc_vec_avx512

static inline void cannon_ascendc_vavx512_widen_f16(const uint16_t *s, float *d, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 v = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)(s + i)));
        _mm512_storeu_ps(d + i, v);
    }
    for (; i < n; i++)
        d[i] = cannon_f16_to_f32(s[i]);
}

static inline void cannon_ascendc_vavx512_narrow_f16(const float *s, uint16_t *d, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm256_storeu_si256((__m256i *)(void *)(d + i),
                            _mm512_cvtps_ph(_mm512_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    for (; i < n; i++)
        d[i] = cannon_f32_to_f16(s[i]);
}

/* memcpy with non-temporal stores: the head up to a 64-byte boundary of dst and the tail are
 * plain copies; the fence orders the streamed stores before whatever the block does next. */
static void cannon_ascendc_vavx512_copy_stream(void *dst, const void *src, size_t n)
{
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    size_t h = (64u - ((uintptr_t)d & 63u)) & 63u;
    if (h > n)
        h = n;
    memcpy(d, s, h);
    d += h, s += h, n -= h;
    for (; n >= 256; d += 256, s += 256, n -= 256) {
        for (size_t k = 0; k < 256; k += 64) {
            const __m512i v = _mm512_loadu_si512((const void *)(s + k));
            _mm512_stream_si512((void *)(d + k), v);
        }
    }
    _mm_sfence();
    memcpy(d, s, n);
}

#define VT_COPY_STREAM cannon_ascendc_vavx512_copy_stream
/* half binary operations in one pass (widen, operate, round, store per vector) instead of
 * through the float chunk buffers; the same bits, the instructions computing exactly what the
 * float loops do (max/min return the second operand unless the first is greater/less, as
 * `a > b ? a : b` does). Returns how many leading elements it did (a multiple of 16). */
#define VT_F16_LOAD(p) _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)(p)))
#define VT_F16_STORE(q, v)                                                                                             \
    _mm256_storeu_si256((__m256i *)(void *)(q), _mm512_cvtps_ph((v), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC))
#define VT_F16_LOOP(expr)                                                                                              \
    for (; i + 16 <= n; i += 16) {                                                                                     \
        const __m512 a = VT_F16_LOAD(x + i), b = VT_F16_LOAD(y + i);                                                   \
        VT_F16_STORE(d + i, expr);                                                                                     \
    }
static size_t cannon_ascendc_vavx512_f16_binary(int op, uint16_t *d, const uint16_t *x, const uint16_t *y, size_t n)
{
    size_t i = 0;
    switch (op) {
    case CANNON_ASCENDC_VOP_ADD:
        VT_F16_LOOP(_mm512_add_ps(a, b))
        break;
    case CANNON_ASCENDC_VOP_SUB:
        VT_F16_LOOP(_mm512_sub_ps(a, b))
        break;
    case CANNON_ASCENDC_VOP_MUL:
        VT_F16_LOOP(_mm512_mul_ps(a, b))
        break;
    case CANNON_ASCENDC_VOP_DIV:
        VT_F16_LOOP(_mm512_div_ps(a, b))
        break;
    case CANNON_ASCENDC_VOP_MAX:
        VT_F16_LOOP(_mm512_max_ps(a, b))
        break;
    default: /* MIN */
        VT_F16_LOOP(_mm512_min_ps(a, b))
        break;
    }
    return i;
}
#undef VT_F16_LOOP
#undef VT_F16_STORE
#undef VT_F16_LOAD

#define VT_F16_BINARY cannon_ascendc_vavx512_f16_binary
#define VT_WIDEN_F16 cannon_ascendc_vavx512_widen_f16
#define VT_NARROW_F16 cannon_ascendc_vavx512_narrow_f16
#include "vec_tier.h"
