/* The fused small-m kernel (wq_dot_impl.h) for the avx512 tier. */
#include <string.h>

#include "../kernels/vec_avx512.h"

VI vf wq_ld_i8(const int8_t *p)
{
    return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(const void *)p)));
}

/* 16 nibbles: their 8 bytes in every 128-bit lane; dword d takes byte d / 2 (zero-extended) and,
 * for odd d, shifts it right by 4. Its low nibble u, with the top bit flipped and ORed into the
 * bits of the float 2^23, gives 2^23 + (u ^ 8), and subtracting 2^23 + 8 leaves (u ^ 8) - 8: the
 * two's-complement value, exactly, in three integer operations and one subtraction. */
#define WQ_SEL(t) (-256 + (t)) /* byte t, then three zero bytes */
VI vf wq_ld_i4(const uint8_t *col, int64_t p)
{
    int64_t b;
    memcpy(&b, col + (p >> 1), 8);
    const __m512i sel =
        _mm512_set_epi32(WQ_SEL(7), WQ_SEL(7), WQ_SEL(6), WQ_SEL(6), WQ_SEL(5), WQ_SEL(5), WQ_SEL(4), WQ_SEL(4),
                         WQ_SEL(3), WQ_SEL(3), WQ_SEL(2), WQ_SEL(2), WQ_SEL(1), WQ_SEL(1), WQ_SEL(0), WQ_SEL(0));
    __m512i v = _mm512_shuffle_epi8(_mm512_set1_epi64(b), sel);
    v = _mm512_srlv_epi32(v, _mm512_set_epi32(4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0));
    v = _mm512_xor_si512(_mm512_and_si512(v, _mm512_set1_epi32(0xf)), _mm512_set1_epi32(0x4B000008));
    return _mm512_sub_ps(_mm512_castsi512_ps(v), _mm512_set1_ps(8388616.0f));
}

#define WQ_PF_DIST 2048
#define WQ_DOT_FN cannon_wq_dot_avx512
#define WQ_DOT_R 2
#define WQ_DOT_C 4
#include "wq_dot_impl.h"
