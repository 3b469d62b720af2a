/* AVX2 tier of the vector kernels (compiled with -mavx2 -mfma -mf16c): 8 floats per vector,
 * half conversions with vcvtph2ps/vcvtps2ph; the code is vec_simd.h's and vec_tier.h's. */
#include <immintrin.h>

#define VT_FN(name) cannon_ascendc_vavx2_##name
#define VT_TABLE cannon_ascendc_vec_avx2

#define VS_LANES 8
#define VS_PS __m256
#define VS_LOAD_PH(p) _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(p)))
#define VS_STORE_PH(q, v)                                                                                              \
    _mm_storeu_si128((__m128i *)(void *)(q), _mm256_cvtps_ph((v), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC))
#define VS_LOADU_PS _mm256_loadu_ps
#define VS_STOREU_PS _mm256_storeu_ps
#define VS_NT_BYTES 32
#define VS_COPY_NT(d, s)                                                                                               \
    _mm256_stream_si256((__m256i *)(void *)(d), _mm256_loadu_si256((const __m256i *)(const void *)(s)))
#define VS_ADD _mm256_add_ps
#define VS_SUB _mm256_sub_ps
#define VS_MUL _mm256_mul_ps
#define VS_DIV _mm256_div_ps
#define VS_MAX _mm256_max_ps
#define VS_MIN _mm256_min_ps

#include "vec_simd.h"
