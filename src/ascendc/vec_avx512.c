/* AVX-512 tier of the vector kernels (compiled with -mavx512f/bw/vl/dq -mfma -mf16c): 16 floats
 * per vector, half conversions with vcvtph2ps/vcvtps2ph; the code is vec_simd.h's and
 * vec_tier.h's. */
#include <immintrin.h>

#define VT_FN(name) cannon_ascendc_vavx512_##name
#define VT_TABLE cannon_ascendc_vec_avx512

#define VS_LANES 16
#define VS_PS __m512
#define VS_LOAD_PH(p) _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)(p)))
#define VS_STORE_PH(q, v)                                                                                              \
    _mm256_storeu_si256((__m256i *)(void *)(q), _mm512_cvtps_ph((v), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC))
#define VS_LOADU_PS _mm512_loadu_ps
#define VS_STOREU_PS _mm512_storeu_ps
#define VS_NT_BYTES 64
#define VS_COPY_NT(d, s) _mm512_stream_si512((void *)(d), _mm512_loadu_si512((const void *)(s)))
#define VS_ADD _mm512_add_ps
#define VS_SUB _mm512_sub_ps
#define VS_MUL _mm512_mul_ps
#define VS_DIV _mm512_div_ps
#define VS_MAX _mm512_max_ps
#define VS_MIN _mm512_min_ps

#include "vec_simd.h"
