/*
 * The AVX-512 tier's vector layer (16 fp32 lanes), included only by *_avx512.c files, which are
 * compiled with AVX-512 F/BW/VL, FMA and F16C (and optionally BF16). Kernel templates
 * (e.g. softmax_impl.h) are written once against these names: the vf_* type and operations, the
 * loads/stores per storage type, vf_exp and vf_log, and the fp64 accumulator vd_*.
 *
 * Only F/BW/VL instructions are used (no DQ), matching CANNON_CPU_ISA_TIER_AVX512.
 */
#ifndef CANNON_OPS_KERNELS_VEC_AVX512_H_
#define CANNON_OPS_KERNELS_VEC_AVX512_H_

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "vmath_consts.h"

#define VW 16
typedef __m512 vf;

#define VI static inline __attribute__((always_inline))

VI vf vf_set1(float a) { return _mm512_set1_ps(a); }
VI vf vf_add(vf a, vf b) { return _mm512_add_ps(a, b); }
VI vf vf_sub(vf a, vf b) { return _mm512_sub_ps(a, b); }
VI vf vf_mul(vf a, vf b) { return _mm512_mul_ps(a, b); }
VI vf vf_fma(vf a, vf b, vf c) { return _mm512_fmadd_ps(a, b, c); }
/* max/min return the second operand when either is NaN; callers rely on that order. */
VI vf vf_max(vf a, vf b) { return _mm512_max_ps(a, b); }
VI vf vf_min(vf a, vf b) { return _mm512_min_ps(a, b); }

static inline float vf_hmax(vf v)
{
    __m256 h = _mm256_max_ps(_mm512_castps512_ps256(v),
                             _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
    __m128 q = _mm_max_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    q = _mm_max_ps(q, _mm_movehl_ps(q, q));
    q = _mm_max_ss(q, _mm_movehdup_ps(q));
    return _mm_cvtss_f32(q);
}

static inline __mmask16 vw_mask(size_t n) { return (__mmask16)((1u << n) - 1u); }

/* Lanes >= n set to 0 (n <= VW). */
VI vf vf_keep(vf v, size_t n) { return _mm512_maskz_mov_ps(vw_mask(n), v); }
/* NaN lanes set to 0. */
VI vf vf_zero_nan(vf v) { return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(v, v, _CMP_ORD_Q), v); }
/* v where a != b (or either is NaN), 0 where a == b. */
VI vf vf_zero_eq(vf v, vf a, vf b) { return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(a, b, _CMP_NEQ_UQ), v); }

/* ---- lane masks, selects and bit operations (the elementwise math of vmath_ext.h) ----
 * Comparisons are ordered (false when either operand is NaN), as C's. */
typedef __mmask16 vmask;
VI vmask vf_lt(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
VI vmask vf_le(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ); }
VI vmask vf_gt(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
VI vmask vf_ge(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ); }
VI vmask vf_eq(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
/* m ? t : f, lane by lane */
VI vf vf_blend(vmask m, vf t, vf f) { return _mm512_mask_blend_ps(m, f, t); }
VI int vmask_any(vmask m) { return m != 0; }
VI vmask vmask_not(vmask m) { return (vmask)~m; }
VI vf vf_abs(vf a) { return _mm512_abs_ps(a); }
VI vf vf_div(vf a, vf b) { return _mm512_div_ps(a, b); }
VI vf vf_sqrt(vf a) { return _mm512_sqrt_ps(a); }
/* nearest integer, ties to even (as rintf) */
VI vf vf_rint(vf a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
/* y with the sign bit of x or-ed in (y >= 0 or y already carrying x's sign: y with x's sign) */
VI vf vf_orsign(vf y, vf x)
{
    return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(y), _mm512_and_si512(_mm512_castps_si512(x),
                                                                                     _mm512_set1_epi32(INT32_MIN))));
}
/* 2^n for integral n in [-126, 127] (exact) */
VI vf vf_pow2i(vf n)
{
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23));
}
/* Lanes to and from memory, for the per-lane paths of rare inputs. */
VI void vf_to_array(float *d, vf v) { _mm512_storeu_ps(d, v); }
VI vf vf_from_array(const float *s) { return _mm512_loadu_ps(s); }

/* ---- fp64 pairs: VW lanes widened to double (two __m512d), for math that needs more than fp32
 * in its intermediate steps (the range reduction of sin/cos) ---- */
typedef struct vw2 {
    __m512d lo, hi;
} vw2;
VI vw2 vw2_from(vf x)
{
    vw2 r = {_mm512_cvtps_pd(_mm512_castps512_ps256(x)),
             _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1)))};
    return r;
}
/* rounded to fp32 (once, to nearest even) */
VI vf vw2_to(vw2 a)
{
    __m256 lo = _mm512_cvtpd_ps(a.lo), hi = _mm512_cvtpd_ps(a.hi);
    return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(lo)), _mm256_castps_pd(hi), 1));
}
VI vw2 vw2_set1(double v)
{
    vw2 r = {_mm512_set1_pd(v), _mm512_set1_pd(v)};
    return r;
}
#define VW2_OP2(name, intr)                                                                        \
    VI vw2 name(vw2 a, vw2 b)                                                                      \
    {                                                                                              \
        vw2 r = {intr(a.lo, b.lo), intr(a.hi, b.hi)};                                              \
        return r;                                                                                  \
    }
VW2_OP2(vw2_add, _mm512_add_pd)
VW2_OP2(vw2_sub, _mm512_sub_pd)
VW2_OP2(vw2_mul, _mm512_mul_pd)
#undef VW2_OP2
/* a * b + c, one rounding */
VI vw2 vw2_fma(vw2 a, vw2 b, vw2 c)
{
    vw2 r = {_mm512_fmadd_pd(a.lo, b.lo, c.lo), _mm512_fmadd_pd(a.hi, b.hi, c.hi)};
    return r;
}
VI vw2 vw2_rint(vw2 a)
{
    vw2 r = {_mm512_roundscale_pd(a.lo, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
             _mm512_roundscale_pd(a.hi, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)};
    return r;
}
VI vw2 vw2_floor(vw2 a)
{
    vw2 r = {_mm512_roundscale_pd(a.lo, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC),
             _mm512_roundscale_pd(a.hi, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)};
    return r;
}
/* x > c ? t : f */
VI vw2 vw2_sel_gt(vw2 x, double c, vw2 t, vw2 f)
{
    const __m512d cc = _mm512_set1_pd(c);
    vw2 r = {_mm512_mask_blend_pd(_mm512_cmp_pd_mask(x.lo, cc, _CMP_GT_OQ), f.lo, t.lo),
             _mm512_mask_blend_pd(_mm512_cmp_pd_mask(x.hi, cc, _CMP_GT_OQ), f.hi, t.hi)};
    return r;
}

/* x * 2^k for integer-valued k (|k| <= 2200): one rounding, subnormal and overflow results included */
VI vw2 vw2_pow2i_mul(vw2 x, vw2 k)
{
    vw2 r = {_mm512_scalef_pd(x.lo, k.lo), _mm512_scalef_pd(x.hi, k.hi)};
    return r;
}
/* the VW doubles of a, in lane order */
VI void vw2_store(double *p, vw2 a)
{
    _mm512_storeu_pd(p, a.lo);
    _mm512_storeu_pd(p + 8, a.hi);
}

/* ---- loads (widen to fp32) and stores (narrow with round-to-nearest-even) ---- */
VI vf vf_load_f32(const float *p) { return _mm512_loadu_ps(p); }
VI vf vf_loadn_f32(const float *p, size_t n, float fill)
{
    return _mm512_mask_loadu_ps(_mm512_set1_ps(fill), vw_mask(n), p);
}
VI void vf_store_f32(float *p, vf v) { _mm512_storeu_ps(p, v); }
VI void vf_storen_f32(float *p, vf v, size_t n) { _mm512_mask_storeu_ps(p, vw_mask(n), v); }
VI void vf_stream_f32(float *p, vf v) { _mm512_stream_ps(p, v); }

VI vf vf_load_f16(const uint16_t *p) { return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)p)); }
VI vf vf_loadn_f16(const uint16_t *p, size_t n, float fill)
{
    vf v = _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(vw_mask(n), p));
    return _mm512_mask_blend_ps(vw_mask(n), _mm512_set1_ps(fill), v);
}
VI __m256i vf_to_f16(vf v) { return _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
VI void vf_store_f16(uint16_t *p, vf v) { _mm256_storeu_si256((__m256i *)p, vf_to_f16(v)); }
VI void vf_storen_f16(uint16_t *p, vf v, size_t n) { _mm256_mask_storeu_epi16(p, vw_mask(n), vf_to_f16(v)); }
VI void vf_stream_f16(uint16_t *p, vf v) { _mm256_stream_si256((__m256i *)p, vf_to_f16(v)); }

VI vf vf_load_bf16(const uint16_t *p)
{
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p)), 16));
}
VI vf vf_loadn_bf16(const uint16_t *p, size_t n, float fill)
{
    vf v = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(vw_mask(n), p)), 16));
    return _mm512_mask_blend_ps(vw_mask(n), _mm512_set1_ps(fill), v);
}
/* Integer round-to-nearest-even, the exact rule for every input (NaN quietened). */
static inline __m256i vf_to_bf16_soft(vf v)
{
    __m512i u = _mm512_castps_si512(v);
    __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
    __m512i r = _mm512_add_epi32(u, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff)));
    __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    r = _mm512_mask_or_epi32(r, nan, u, _mm512_set1_epi32(0x400000));
    return _mm512_cvtepi32_epi16(_mm512_srli_epi32(r, 16));
}
#if defined(__AVX512BF16__)
/* vcvtneps2bf16 flushes subnormal inputs to zero; lanes whose exponent field is zero (zeros and
 * subnormals) are rare in practice, so they take the exact integer path only when present. */
static inline __m256i vf_to_bf16(vf v)
{
    __m256i h = (__m256i)_mm512_cvtneps_pbh(v);
    __mmask16 tiny = _mm512_testn_epi32_mask(_mm512_castps_si512(v), _mm512_set1_epi32(0x7f800000));
    if (__builtin_expect(tiny != 0, 0))
        h = vf_to_bf16_soft(v);
    return h;
}
#else
#define vf_to_bf16 vf_to_bf16_soft
#endif
VI void vf_store_bf16(uint16_t *p, vf v) { _mm256_storeu_si256((__m256i *)p, vf_to_bf16(v)); }
VI void vf_storen_bf16(uint16_t *p, vf v, size_t n) { _mm256_mask_storeu_epi16(p, vw_mask(n), vf_to_bf16(v)); }
VI void vf_stream_bf16(uint16_t *p, vf v) { _mm256_stream_si256((__m256i *)p, vf_to_bf16(v)); }
/* Stores for vectors known to hold no subnormal lane (zeros, normals, inf and NaN are fine):
 * they skip vf_to_bf16's subnormal test. */
#if defined(__AVX512BF16__)
VI void vf_store_bf16_nosub(uint16_t *p, vf v) { _mm256_storeu_si256((__m256i *)p, (__m256i)_mm512_cvtneps_pbh(v)); }
VI void vf_stream_bf16_nosub(uint16_t *p, vf v) { _mm256_stream_si256((__m256i *)p, (__m256i)_mm512_cvtneps_pbh(v)); }
#else
#define vf_store_bf16_nosub vf_store_bf16
#define vf_stream_bf16_nosub vf_stream_bf16
#endif

VI void vf_sfence(void) { _mm_sfence(); }

/* ---- exp ----
 * exp(x + e) for x in fp32 and a small correction e (the rounding error of x when x came from a
 * subtraction; pass 0 otherwise). n = round(x/ln2); r = x - n*ln2 (Cody-Waite, the hi part exact)
 * + e; exp(r) by a degree-6 polynomial on |r| <= ln2/2; the result scaled by 2^n with vscalefps,
 * which rounds once and so gives correct overflow to inf, gradual underflow and 0. Inputs are
 * clamped first so n stays small; NaN passes the clamps (max/min return their second operand on
 * NaN) and comes out NaN; -inf gives 0, +inf gives inf. */
VI vf vf_exp2(vf x, vf e)
{
    x = _mm512_min_ps(_mm512_set1_ps(CANNON_EXP_HI), _mm512_max_ps(_mm512_set1_ps(CANNON_EXP_LO), x));
    vf n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(CANNON_LOG2E)),
                                _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    vf r = _mm512_fnmadd_ps(n, _mm512_set1_ps(CANNON_LN2_HI), x);
    r = _mm512_add_ps(r, e);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(CANNON_LN2_LO), r);
    vf p = _mm512_set1_ps(CANNON_EXP_C6);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(CANNON_EXP_C5));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(CANNON_EXP_C4));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(CANNON_EXP_C3));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(CANNON_EXP_C2));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    return _mm512_scalef_ps(p, n);
}
VI vf vf_exp(vf x) { return vf_exp2(x, _mm512_setzero_ps()); }

/* exp(x) for x in [-87.33, 88] or NaN, without vf_exp's clamps and with a degree-5 polynomial:
 * 10 vector ops instead of 14, for callers that know their range (softmax, after subtracting the
 * row max). n comes from the 1.5*2^23 shifter (round to nearest, exact); in range the result is
 * a normal float or one rounding into the subnormals (vscalefps). NaN gives NaN.
 * (softmax's AVX-512 fast path uses a 2^(j/16) table in a register instead, with a degree-3
 * polynomial: sm_exp_fast in src/ops/softmax/softmax_vec.h.) */
VI vf vf_exp_small(vf x)
{
    const vf shift = _mm512_set1_ps(CANNON_EXP_SHIFTER);
    vf n = _mm512_sub_ps(_mm512_fmadd_ps(x, _mm512_set1_ps(CANNON_LOG2E), shift), shift);
    vf r = _mm512_fnmadd_ps(n, _mm512_set1_ps(CANNON_LN2_HI), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(CANNON_LN2_LO), r);
    vf p = _mm512_fmadd_ps(_mm512_set1_ps(CANNON_EXPS_C5), r, _mm512_set1_ps(CANNON_EXPS_C4));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(CANNON_EXPS_C3));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(CANNON_EXPS_C2));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    return _mm512_scalef_ps(p, n);
}

/* ---- log ----
 * x = 2^k * m with m in [sqrt(1/2), sqrt(2)) (vgetexp/vgetmant handle subnormals); f = m - 1;
 * log(1+f) = f - f^2/2 + f^3 P(f); log x = k*ln2_hi + (log(1+f) + k*ln2_lo). Special inputs are
 * patched at the end: log(+-0) = -inf, log(negative) = NaN, log(inf) = inf, NaN stays NaN. */
VI vf vf_log(vf x)
{
    vf m = _mm512_getmant_ps(x, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_zero);
    vf k = _mm512_getexp_ps(x);
    __mmask16 big = _mm512_cmp_ps_mask(m, _mm512_set1_ps(CANNON_SQRT2), _CMP_GE_OQ);
    m = _mm512_mask_mul_ps(m, big, m, _mm512_set1_ps(0.5f));
    k = _mm512_mask_add_ps(k, big, k, _mm512_set1_ps(1.0f));
    vf f = _mm512_sub_ps(m, _mm512_set1_ps(1.0f));
    vf p = _mm512_set1_ps(CANNON_LOG_C6);
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(CANNON_LOG_C5));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(CANNON_LOG_C4));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(CANNON_LOG_C3));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(CANNON_LOG_C2));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(CANNON_LOG_C1));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(CANNON_LOG_C0));
    vf f2 = _mm512_mul_ps(f, f);
    vf t = _mm512_mul_ps(_mm512_mul_ps(f2, f), p);          /* f^3 P */
    t = _mm512_fnmadd_ps(f2, _mm512_set1_ps(0.5f), t);      /* - f^2/2 */
    t = _mm512_fmadd_ps(k, _mm512_set1_ps(CANNON_LN2_LO), t);
    t = _mm512_add_ps(t, f);
    vf y = _mm512_fmadd_ps(k, _mm512_set1_ps(CANNON_LN2_HI), t);
    /* Specials: x <= 0 or not finite. */
    __mmask16 special = _mm512_cmp_ps_mask(x, _mm512_set1_ps(0x1p-149f), _CMP_NGE_UQ) |
                        _mm512_cmp_ps_mask(x, _mm512_set1_ps(__builtin_inff()), _CMP_EQ_OQ);
    if (__builtin_expect(special != 0, 0)) {
        __mmask16 zero = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_EQ_OQ);
        __mmask16 neg = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ);
        __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
        __mmask16 inf = _mm512_cmp_ps_mask(x, _mm512_set1_ps(__builtin_inff()), _CMP_EQ_OQ);
        y = _mm512_mask_mov_ps(y, zero, _mm512_set1_ps(-__builtin_inff()));
        y = _mm512_mask_mov_ps(y, neg, _mm512_set1_ps(__builtin_nanf("")));
        y = _mm512_mask_mov_ps(y, nan, x);
        y = _mm512_mask_mov_ps(y, inf, x);
    }
    return y;
}

/* ---- fp64 accumulation of fp32 vectors (sums that must not lose bits over long rows) ---- */
typedef struct vd {
    __m512d lo, hi;
} vd;
VI vd vd_zero(void)
{
    vd a = {_mm512_setzero_pd(), _mm512_setzero_pd()};
    return a;
}
VI vd vd_add(vd a, vf v)
{
    a.lo = _mm512_add_pd(a.lo, _mm512_cvtps_pd(_mm512_castps512_ps256(v)));
    a.hi = _mm512_add_pd(a.hi, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))));
    return a;
}
/* Horizontal sum in a fixed pairwise order (deterministic, independent of the caller). */
static inline double vd_hsum(vd a)
{
    __m512d s = _mm512_add_pd(a.lo, a.hi);
    __m256d h = _mm256_add_pd(_mm512_castpd512_pd256(s), _mm512_extractf64x4_pd(s, 1));
    __m128d q = _mm_add_pd(_mm256_castpd256_pd128(h), _mm256_extractf128_pd(h, 1));
    return _mm_cvtsd_f64(_mm_add_sd(q, _mm_unpackhi_pd(q, q)));
}
/* The 16 lanes of an fp64 accumulator pair as separate sums (per-column results). */
static inline void vd_store(double *dst16, vd a)
{
    _mm512_storeu_pd(dst16, a.lo);
    _mm512_storeu_pd(dst16 + 8, a.hi);
}

#endif /* CANNON_OPS_KERNELS_VEC_AVX512_H_ */
