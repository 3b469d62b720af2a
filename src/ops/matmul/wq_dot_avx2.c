/* The fused small-m kernel (wq_dot_impl.h) for the avx2 tier. */
#include "../kernels/vec_avx2.h"

VI vf wq_ld_i8(const int8_t *p)
{
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)p)));
}

/* Bytes t0..t3 each twice, sign-extended to 32 bits; lane 2t keeps the low nibble (shifted to
 * the top, then arithmetically back), lane 2t + 1 the high one. */
VI vf wq_ld_i4(const uint8_t *col, int64_t p)
{
    int32_t b;
    memcpy(&b, col + (p >> 1), 4);
    const __m128i d =
        _mm_shuffle_epi8(_mm_cvtsi32_si128(b), _mm_setr_epi8(0, 0, 1, 1, 2, 2, 3, 3, -1, -1, -1, -1, -1, -1, -1, -1));
    const __m256i v = _mm256_sllv_epi32(_mm256_cvtepi8_epi32(d), _mm256_setr_epi32(28, 24, 28, 24, 28, 24, 28, 24));
    return _mm256_cvtepi32_ps(_mm256_srai_epi32(v, 28));
}

#define WQ_PF_DIST 2048
#define WQ_DOT_FN cannon_wq_dot_avx2
#define WQ_DOT_R 1
#define WQ_DOT_C 4
#include "wq_dot_impl.h"
