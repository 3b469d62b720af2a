/*
 * The AVX2 tier's vector layer (8 fp32 lanes), included only by *_avx2.c files (compiled with
 * AVX2, FMA and F16C). Same names and contracts as vec_avx512.h; see there.
 */
#ifndef CANNON_OPS_KERNELS_VEC_AVX2_H_
#define CANNON_OPS_KERNELS_VEC_AVX2_H_

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "vmath_consts.h"

#define VW 8
typedef __m256 vf;

#define VI static inline __attribute__((always_inline))

VI vf vf_set1(float a) { return _mm256_set1_ps(a); }
VI vf vf_add(vf a, vf b) { return _mm256_add_ps(a, b); }
VI vf vf_sub(vf a, vf b) { return _mm256_sub_ps(a, b); }
VI vf vf_mul(vf a, vf b) { return _mm256_mul_ps(a, b); }
VI vf vf_fma(vf a, vf b, vf c) { return _mm256_fmadd_ps(a, b, c); }
VI vf vf_max(vf a, vf b) { return _mm256_max_ps(a, b); }
VI vf vf_min(vf a, vf b) { return _mm256_min_ps(a, b); }

static inline float vf_hmax(vf v)
{
    __m128 q = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    q = _mm_max_ps(q, _mm_movehl_ps(q, q));
    q = _mm_max_ss(q, _mm_movehdup_ps(q));
    return _mm_cvtss_f32(q);
}

static inline __m256i vw_imask(size_t n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

VI vf vf_keep(vf v, size_t n) { return _mm256_and_ps(v, _mm256_castsi256_ps(vw_imask(n))); }
VI vf vf_zero_nan(vf v) { return _mm256_and_ps(v, _mm256_cmp_ps(v, v, _CMP_ORD_Q)); }
/* v where a != b (or either is NaN), 0 where a == b. */
VI vf vf_zero_eq(vf v, vf a, vf b) { return _mm256_and_ps(v, _mm256_cmp_ps(a, b, _CMP_NEQ_UQ)); }

/* ---- lane masks, selects and bit operations (see vec_avx512.h) ---- */
typedef __m256 vmask; /* all-ones lanes */
VI vmask vf_lt(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
VI vmask vf_le(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_LE_OQ); }
VI vmask vf_gt(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
VI vmask vf_ge(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_GE_OQ); }
VI vmask vf_eq(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
VI vf vf_blend(vmask m, vf t, vf f) { return _mm256_blendv_ps(f, t, m); }
VI int vmask_any(vmask m) { return _mm256_movemask_ps(m) != 0; }
VI vmask vmask_not(vmask m) { return _mm256_xor_ps(m, _mm256_castsi256_ps(_mm256_set1_epi32(-1))); }
VI vf vf_abs(vf a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
VI vf vf_div(vf a, vf b) { return _mm256_div_ps(a, b); }
VI vf vf_sqrt(vf a) { return _mm256_sqrt_ps(a); }
VI vf vf_rint(vf a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
VI vf vf_orsign(vf y, vf x) { return _mm256_or_ps(y, _mm256_and_ps(x, _mm256_set1_ps(-0.0f))); }
VI vf vf_pow2i(vf n)
{
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23));
}
VI void vf_to_array(float *d, vf v) { _mm256_storeu_ps(d, v); }
VI vf vf_from_array(const float *s) { return _mm256_loadu_ps(s); }

/* ---- fp64 pairs (see vec_avx512.h) ---- */
typedef struct vw2 {
    __m256d lo, hi;
} vw2;
VI vw2 vw2_from(vf x)
{
    vw2 r = {_mm256_cvtps_pd(_mm256_castps256_ps128(x)), _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1))};
    return r;
}
VI vf vw2_to(vw2 a) { return _mm256_set_m128(_mm256_cvtpd_ps(a.hi), _mm256_cvtpd_ps(a.lo)); }
VI vw2 vw2_set1(double v)
{
    vw2 r = {_mm256_set1_pd(v), _mm256_set1_pd(v)};
    return r;
}
#define VW2_OP2(name, intr)                                                                        \
    VI vw2 name(vw2 a, vw2 b)                                                                      \
    {                                                                                              \
        vw2 r = {intr(a.lo, b.lo), intr(a.hi, b.hi)};                                              \
        return r;                                                                                  \
    }
VW2_OP2(vw2_add, _mm256_add_pd)
VW2_OP2(vw2_sub, _mm256_sub_pd)
VW2_OP2(vw2_mul, _mm256_mul_pd)
#undef VW2_OP2
/* a * b + c, one rounding */
VI vw2 vw2_fma(vw2 a, vw2 b, vw2 c)
{
    vw2 r = {_mm256_fmadd_pd(a.lo, b.lo, c.lo), _mm256_fmadd_pd(a.hi, b.hi, c.hi)};
    return r;
}
VI vw2 vw2_rint(vw2 a)
{
    vw2 r = {_mm256_round_pd(a.lo, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
             _mm256_round_pd(a.hi, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)};
    return r;
}
VI vw2 vw2_floor(vw2 a)
{
    vw2 r = {_mm256_round_pd(a.lo, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC),
             _mm256_round_pd(a.hi, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)};
    return r;
}
VI vw2 vw2_sel_gt(vw2 x, double c, vw2 t, vw2 f)
{
    const __m256d cc = _mm256_set1_pd(c);
    vw2 r = {_mm256_blendv_pd(f.lo, t.lo, _mm256_cmp_pd(x.lo, cc, _CMP_GT_OQ)),
             _mm256_blendv_pd(f.hi, t.hi, _mm256_cmp_pd(x.hi, cc, _CMP_GT_OQ))};
    return r;
}
/* 2^k for integer-valued k in [-1022, 1023], through the exponent field */
VI __m256d vw2_pow2i_half(__m256d k)
{
    const __m256d magic = _mm256_set1_pd(6755399441055744.0); /* 1.5 * 2^52: k lands in the low bits */
    __m256i ki = _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(k, magic)), _mm256_castpd_si256(magic));
    return _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(ki, _mm256_set1_epi64x(1023)), 52));
}
/* x * 2^k for integer-valued k (|k| <= 2000): k split into two halves that are normal powers of two,
 * so x * 2^k1 is exact (x near 1) and the second product rounds once (subnormal results included) */
VI vw2 vw2_pow2i_mul(vw2 x, vw2 k)
{
    const __m256d half = _mm256_set1_pd(0.5);
    __m256d k1l = _mm256_floor_pd(_mm256_mul_pd(k.lo, half)), k1h = _mm256_floor_pd(_mm256_mul_pd(k.hi, half));
    __m256d k2l = _mm256_sub_pd(k.lo, k1l), k2h = _mm256_sub_pd(k.hi, k1h);
    vw2 r = {_mm256_mul_pd(_mm256_mul_pd(x.lo, vw2_pow2i_half(k1l)), vw2_pow2i_half(k2l)),
             _mm256_mul_pd(_mm256_mul_pd(x.hi, vw2_pow2i_half(k1h)), vw2_pow2i_half(k2h))};
    return r;
}
VI void vw2_store(double *p, vw2 a)
{
    _mm256_storeu_pd(p, a.lo);
    _mm256_storeu_pd(p + 4, a.hi);
}

VI vf vf_load_f32(const float *p) { return _mm256_loadu_ps(p); }
VI vf vf_loadn_f32(const float *p, size_t n, float fill)
{
    __m256i m = vw_imask(n);
    return _mm256_blendv_ps(_mm256_set1_ps(fill), _mm256_maskload_ps(p, m), _mm256_castsi256_ps(m));
}
VI void vf_store_f32(float *p, vf v) { _mm256_storeu_ps(p, v); }
VI void vf_storen_f32(float *p, vf v, size_t n) { _mm256_maskstore_ps(p, vw_imask(n), v); }
VI void vf_stream_f32(float *p, vf v) { _mm256_stream_ps(p, v); }

static inline vf vf_fill_tail(vf v, size_t n, float fill)
{
    return _mm256_blendv_ps(_mm256_set1_ps(fill), v, _mm256_castsi256_ps(vw_imask(n)));
}

VI vf vf_load_f16(const uint16_t *p) { return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p)); }
static inline vf vf_loadn_f16(const uint16_t *p, size_t n, float fill)
{
    uint16_t b[8] = {0};
    memcpy(b, p, n * 2);
    return vf_fill_tail(vf_load_f16(b), n, fill);
}
VI __m128i vf_to_f16(vf v) { return _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
VI void vf_store_f16(uint16_t *p, vf v) { _mm_storeu_si128((__m128i *)p, vf_to_f16(v)); }
static inline void vf_storen_f16(uint16_t *p, vf v, size_t n)
{
    uint16_t b[8];
    _mm_storeu_si128((__m128i *)b, vf_to_f16(v));
    memcpy(p, b, n * 2);
}
VI void vf_stream_f16(uint16_t *p, vf v) { _mm_stream_si128((__m128i *)p, vf_to_f16(v)); }

VI vf vf_load_bf16(const uint16_t *p)
{
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p)), 16));
}
static inline vf vf_loadn_bf16(const uint16_t *p, size_t n, float fill)
{
    uint16_t b[8] = {0};
    memcpy(b, p, n * 2);
    return vf_fill_tail(vf_load_bf16(b), n, fill);
}
/* Integer round-to-nearest-even; NaN quietened. */
static inline __m128i vf_to_bf16(vf v)
{
    __m256i u = _mm256_castps_si256(v);
    __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    __m256i r = _mm256_add_epi32(u, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7fff)));
    __m256 nan = _mm256_cmp_ps(v, v, _CMP_UNORD_Q);
    __m256i qn = _mm256_or_si256(u, _mm256_set1_epi32(0x400000));
    r = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(r), _mm256_castsi256_ps(qn), nan));
    r = _mm256_srli_epi32(r, 16);
    /* packus works per 128-bit lane: pack then put the two 64-bit halves together. */
    __m256i pk = _mm256_packus_epi32(r, r);
    pk = _mm256_permute4x64_epi64(pk, 0x08);
    return _mm256_castsi256_si128(pk);
}
VI void vf_store_bf16(uint16_t *p, vf v) { _mm_storeu_si128((__m128i *)p, vf_to_bf16(v)); }
static inline void vf_storen_bf16(uint16_t *p, vf v, size_t n)
{
    uint16_t b[8];
    _mm_storeu_si128((__m128i *)b, vf_to_bf16(v));
    memcpy(p, b, n * 2);
}
VI void vf_stream_bf16(uint16_t *p, vf v) { _mm_stream_si128((__m128i *)p, vf_to_bf16(v)); }
/* As vf_store_bf16 / vf_stream_bf16 (vec_avx512.h's variants for vectors without subnormal lanes
 * skip a test; this tier has none to skip). */
#define vf_store_bf16_nosub vf_store_bf16
#define vf_stream_bf16_nosub vf_stream_bf16
/* Two vectors as 16 bf16 at p, for vectors without NaN lanes: vf_to_bf16's rounding without its
 * NaN blend, and one pack, permute and store for both (the same bits as two vf_store_bf16 of
 * NaN-free vectors). packus sees the rounded patterns as int32 in [0, 65535]: exact. */
VI __m256i vf_bf16_bits_nonan(vf v)
{
    const __m256i u = _mm256_castps_si256(v);
    const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    return _mm256_srli_epi32(_mm256_add_epi32(u, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7fff))), 16);
}
VI __m256i vf_bf16_pack2_nonan(vf a, vf b)
{
    const __m256i pk = _mm256_packus_epi32(vf_bf16_bits_nonan(a), vf_bf16_bits_nonan(b));
    return _mm256_permute4x64_epi64(pk, 0xD8);
}
VI void vf_store2_bf16_nonan(uint16_t *p, vf a, vf b) { _mm256_storeu_si256((__m256i *)p, vf_bf16_pack2_nonan(a, b)); }
/* The same with a streaming store (p 32-byte aligned). */
VI void vf_stream2_bf16_nonan(uint16_t *p, vf a, vf b) { _mm256_stream_si256((__m256i *)p, vf_bf16_pack2_nonan(a, b)); }

VI void vf_sfence(void) { _mm_sfence(); }

/* exp as in vec_avx512.h; without vscalefps, 2^n is applied as two exact power-of-two factors
 * 2^(n>>1) * 2^(n - (n>>1)), each a normal float, so the product rounds only once. */
VI vf vf_exp2(vf x, vf e)
{
    x = _mm256_min_ps(_mm256_set1_ps(CANNON_EXP_HI), _mm256_max_ps(_mm256_set1_ps(CANNON_EXP_LO), x));
    vf n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(CANNON_LOG2E)),
                           _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    vf r = _mm256_fnmadd_ps(n, _mm256_set1_ps(CANNON_LN2_HI), x);
    r = _mm256_add_ps(r, e);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(CANNON_LN2_LO), r);
    vf p = _mm256_set1_ps(CANNON_EXP_C6);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(CANNON_EXP_C5));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(CANNON_EXP_C4));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(CANNON_EXP_C3));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(CANNON_EXP_C2));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    __m256i ni = _mm256_cvtps_epi32(n); /* NaN lanes give INT_MIN; p is NaN there anyway */
    __m256i n1 = _mm256_srai_epi32(ni, 1);
    __m256i n2 = _mm256_sub_epi32(ni, n1);
    vf s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, _mm256_set1_epi32(127)), 23));
    vf s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, _mm256_set1_epi32(127)), 23));
    return _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
}
VI vf vf_exp(vf x) { return vf_exp2(x, _mm256_setzero_ps()); }

/* vf_exp_small as in vec_avx512.h. 2^n is built from the shifter sum t, whose low mantissa bits
 * hold n: t's bits << 23 put n (mod 2^9) in the exponent field and adding 127 << 23 biases it;
 * for n in [-126, 127] that is exactly 2^n (a normal float), and p * 2^n rounds once. */
VI vf vf_exp_small(vf x)
{
    const vf shift = _mm256_set1_ps(CANNON_EXP_SHIFTER);
    vf t = _mm256_fmadd_ps(x, _mm256_set1_ps(CANNON_LOG2E), shift);
    vf n = _mm256_sub_ps(t, shift);
    vf r = _mm256_fnmadd_ps(n, _mm256_set1_ps(CANNON_LN2_HI), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(CANNON_LN2_LO), r);
    vf p = _mm256_fmadd_ps(_mm256_set1_ps(CANNON_EXPS_C5), r, _mm256_set1_ps(CANNON_EXPS_C4));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(CANNON_EXPS_C3));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(CANNON_EXPS_C2));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    __m256i e = _mm256_add_epi32(_mm256_slli_epi32(_mm256_castps_si256(t), 23), _mm256_set1_epi32(127 << 23));
    return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

/* log as in vec_avx512.h; exponent and mantissa taken from the bits, subnormals first scaled by
 * 2^23 into the normal range. */
VI vf vf_log(vf x)
{
    __m256 sub = _mm256_cmp_ps(x, _mm256_set1_ps(0x1p-126f), _CMP_LT_OQ);
    vf xs = _mm256_blendv_ps(x, _mm256_mul_ps(x, _mm256_set1_ps(0x1p23f)), sub);
    vf kadj = _mm256_and_ps(sub, _mm256_set1_ps(-23.0f));
    __m256i u = _mm256_castps_si256(xs);
    /* Pick the exponent relative to sqrt(1/2): subtracting the bits of sqrt(1/2) makes the
     * mantissa land in [sqrt(1/2), sqrt(2)). */
    __m256i t = _mm256_sub_epi32(u, _mm256_set1_epi32(0x3f3504f3));
    __m256i ki = _mm256_srai_epi32(t, 23);
    __m256i mi = _mm256_add_epi32(_mm256_and_si256(t, _mm256_set1_epi32(0x007fffff)), _mm256_set1_epi32(0x3f3504f3));
    vf m = _mm256_castsi256_ps(mi);
    vf k = _mm256_add_ps(_mm256_cvtepi32_ps(ki), kadj);
    vf f = _mm256_sub_ps(m, _mm256_set1_ps(1.0f));
    vf p = _mm256_set1_ps(CANNON_LOG_C6);
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(CANNON_LOG_C5));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(CANNON_LOG_C4));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(CANNON_LOG_C3));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(CANNON_LOG_C2));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(CANNON_LOG_C1));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(CANNON_LOG_C0));
    vf f2 = _mm256_mul_ps(f, f);
    vf tt = _mm256_mul_ps(_mm256_mul_ps(f2, f), p);
    tt = _mm256_fnmadd_ps(f2, _mm256_set1_ps(0.5f), tt);
    tt = _mm256_fmadd_ps(k, _mm256_set1_ps(CANNON_LN2_LO), tt);
    tt = _mm256_add_ps(tt, f);
    vf y = _mm256_fmadd_ps(k, _mm256_set1_ps(CANNON_LN2_HI), tt);
    __m256 special = _mm256_or_ps(_mm256_cmp_ps(x, _mm256_set1_ps(0x1p-149f), _CMP_NGE_UQ),
                                  _mm256_cmp_ps(x, _mm256_set1_ps(__builtin_inff()), _CMP_EQ_OQ));
    if (__builtin_expect(_mm256_movemask_ps(special) != 0, 0)) {
        y = _mm256_blendv_ps(y, _mm256_set1_ps(-__builtin_inff()), _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_EQ_OQ));
        y = _mm256_blendv_ps(y, _mm256_set1_ps(__builtin_nanf("")), _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ));
        y = _mm256_blendv_ps(y, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
        y = _mm256_blendv_ps(y, x, _mm256_cmp_ps(x, _mm256_set1_ps(__builtin_inff()), _CMP_EQ_OQ));
    }
    return y;
}

typedef struct vd {
    __m256d lo, hi;
} vd;
VI vd vd_zero(void)
{
    vd a = {_mm256_setzero_pd(), _mm256_setzero_pd()};
    return a;
}
VI vd vd_add(vd a, vf v)
{
    a.lo = _mm256_add_pd(a.lo, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
    a.hi = _mm256_add_pd(a.hi, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
    return a;
}
static inline double vd_hsum(vd a)
{
    __m256d s = _mm256_add_pd(a.lo, a.hi);
    __m128d q = _mm_add_pd(_mm256_castpd256_pd128(s), _mm256_extractf128_pd(s, 1));
    return _mm_cvtsd_f64(_mm_add_sd(q, _mm_unpackhi_pd(q, q)));
}
static inline void vd_store(double *dst8, vd a)
{
    _mm256_storeu_pd(dst8, a.lo);
    _mm256_storeu_pd(dst8 + 4, a.hi);
}

#endif /* CANNON_OPS_KERNELS_VEC_AVX2_H_ */
