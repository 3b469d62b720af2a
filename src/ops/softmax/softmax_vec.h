/*
 * Softmax-only vector helpers for the fast paths (mostly the 16-bit (fp16, bf16) one; also the
 * AVX-512 fp32 table exp and the groups' reciprocals), one version per tier chosen by VW
 * (16: AVX-512, 8: AVX2, 1: scalar). Included by softmax_impl.h after the tier's vec_<tier>.h.
 *
 * Why these exist: a 16-bit softmax moves half the bytes of an fp32 one, so at the copy floor
 * each element may cost only about half the cycles; the fp32 kernels' exp (degree 5, two-part
 * ln2) and a float max/min pass (two widening ops per vector) would be the bottleneck. A 16-bit
 * result tolerates a relative error far above fp32's, which these helpers spend on fewer
 * operations.
 */
#ifndef CANNON_OPS_SOFTMAX_VEC_H_
#define CANNON_OPS_SOFTMAX_VEC_H_

#include "fp_convert.h"

/* 2^f ~ C0 + C1 f + C2 f^2 + C3 f^3 on |f| <= 1/2, fitted for this project (iterated weighted
 * least squares towards minimax) and rounded to fp32: relative error 7.5e-5, a sixth of an fp16
 * ulp and a fiftieth of a bf16 ulp. */
#define SM16_C0 0x1.fff692p-1f
#define SM16_C1 0x1.62f31ap-1f
#define SM16_C2 0x1.f0de1cp-3f
#define SM16_C3 0x1.c3f74ap-5f
/* The fast path computes u = x*log2(e) - m*log2(e) with one fused multiply-add; its error,
 * about 2^-25 * |m| * log2(e) absolute (the rounding of m*log2(e)), stays below 5e-5 relative
 * in 2^u while |m| <= SM16_MAX_ABS_MAX. */
#define SM16_MAX_ABS_MAX 1024.0f

/* Sign-magnitude 16-bit float bits -> int16 keys ordered like the values (the map is its own
 * inverse): negative values get their magnitude bits flipped. -0 sorts just below +0, positive
 * NaNs above +inf and negative NaNs below -inf. */
static inline int16_t sm16_key1(uint16_t b)
{
    return (int16_t)(b ^ (uint16_t)((b & 0x8000u) ? 0x7fffu : 0u));
}

#if VW == 16
VI __m512i sm16_key(__m512i v) { return _mm512_xor_si512(v, _mm512_srli_epi16(_mm512_srai_epi16(v, 15), 1)); }

/* Max and min key of eight int16 lanes (phminposuw finds the unsigned minimum). */
static inline void sm16_hreduce(__m128i mx, __m128i mn, int16_t *hi, int16_t *lo)
{
    *hi = (int16_t)(_mm_extract_epi16(_mm_minpos_epu16(_mm_xor_si128(mx, _mm_set1_epi16(0x7fff))), 0) ^ 0x7fff);
    *lo = (int16_t)(_mm_extract_epi16(_mm_minpos_epu16(_mm_xor_si128(mn, _mm_set1_epi16((short)0x8000))), 0) ^ 0x8000);
}

/* One 64-element step of the vertical key max/min: the keys of x[0, 64) into mx[0..1] and
 * mn[0..1]; the 64 elements also go to @p w (64-byte aligned) unless it is NULL (the pipelines'
 * ring copies). Shared by sm16_minmax_vec and the pipelines' max/min passes. */
VI void sm16_keys_step64(const uint16_t *x, uint16_t *w, __m512i mx[2], __m512i mn[2])
{
    const __m512i r0 = _mm512_loadu_si512(x), r1 = _mm512_loadu_si512(x + 32);
    if (w) {
        _mm512_store_si512((void *)w, r0);
        _mm512_store_si512((void *)(w + 32), r1);
    }
    const __m512i k0 = sm16_key(r0), k1 = sm16_key(r1);
    mx[0] = _mm512_max_epi16(mx[0], k0);
    mx[1] = _mm512_max_epi16(mx[1], k1);
    mn[0] = _mm512_min_epi16(mn[0], k0);
    mn[1] = _mm512_min_epi16(mn[1], k1);
}

/* Vertical max and min keys of a row of n >= 1 16-bit floats, on 32 lanes of int16 (the short-row
 * batch kernel reduces 16 rows' vectors at once; sm16_minmax_keys reduces one). */
static inline void sm16_minmax_vec(const uint16_t *x, int64_t n, __m512i *mx, __m512i *mn)
{
    __m512i ma[2] = {_mm512_set1_epi16(INT16_MIN), _mm512_set1_epi16(INT16_MIN)};
    __m512i mi[2] = {_mm512_set1_epi16(INT16_MAX), _mm512_set1_epi16(INT16_MAX)};
    int64_t i = 0;
    for (; i + 64 <= n; i += 64)
        sm16_keys_step64(x + i, NULL, ma, mi);
    for (; i < n; i += 32) {
        const __mmask32 mk = n - i >= 32 ? ~(__mmask32)0 : (__mmask32)((1u << (n - i)) - 1u);
        __m512i k0 = sm16_key(_mm512_maskz_loadu_epi16(mk, x + i));
        ma[0] = _mm512_mask_max_epi16(ma[0], mk, ma[0], k0);
        mi[0] = _mm512_mask_min_epi16(mi[0], mk, mi[0], k0);
    }
    *mx = _mm512_max_epi16(ma[0], ma[1]);
    *mn = _mm512_min_epi16(mi[0], mi[1]);
}

/* Largest and smallest of the keys in @p mx0 / @p mn0. */
static inline void sm16_keys_reduce(__m512i mx0, __m512i mn0, int16_t *hi, int16_t *lo)
{
    __m256i mx = _mm256_max_epi16(_mm512_castsi512_si256(mx0), _mm512_extracti64x4_epi64(mx0, 1));
    __m256i mn = _mm256_min_epi16(_mm512_castsi512_si256(mn0), _mm512_extracti64x4_epi64(mn0, 1));
    sm16_hreduce(_mm_max_epi16(_mm256_castsi256_si128(mx), _mm256_extracti128_si256(mx, 1)),
                 _mm_min_epi16(_mm256_castsi256_si128(mn), _mm256_extracti128_si256(mn, 1)), hi, lo);
}

/* Largest and smallest key of a row of n >= 1 16-bit floats. */
static inline void sm16_minmax_keys(const uint16_t *x, int64_t n, int16_t *hi, int16_t *lo)
{
    __m512i mx0, mn0;
    sm16_minmax_vec(x, n, &mx0, &mn0);
    sm16_keys_reduce(mx0, mn0, hi, lo);
}

/* u = (x - m) * log2(e) as x*log2(e) + c with c = -m*log2(e) (see SM16_MAX_ABS_MAX). */
VI vf sm16_arg(vf x, vf vm, vf c)
{
    (void)vm;
    return _mm512_fmadd_ps(x, _mm512_set1_ps(CANNON_LOG2E), c);
}

/* 2^u for u in [-100, 1] (NaN in, NaN out): round, degree-3 polynomial, exact scaling.
 * vrndscaleps and vscalefps are cheap on AVX-512 cores: the shifter form (add, sub, and the
 * exponent added in integer arithmetic; the same bits) is no faster. */
VI vf sm16_exp2(vf u)
{
    vf n = _mm512_roundscale_ps(u, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    vf f = _mm512_sub_ps(u, n);
    vf p = _mm512_fmadd_ps(_mm512_set1_ps(SM16_C3), f, _mm512_set1_ps(SM16_C2));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(SM16_C1));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(SM16_C0));
    return _mm512_scalef_ps(p, n);
}

/* Horizontal sum of an fp32 vector in a fixed order, in fp64. */
VI double sm_hsum(vf v) { return vd_hsum(vd_add(vd_zero(), v)); }

/* fp32 fast path's exp(d) for d in [-SM_FAST_RANGE, 0] (no NaN: the fast test excludes them).
 * Why not vf_exp_small: with full-width 512-bit units the loop is bound by its multiply-adds
 * (8 of 10 ops there); this version needs 6 of 10, the rest going to the add and integer
 * pipes.
 * n = round(16 d log2 e) from the shifter; 2^(n/16) = 2^(n>>4) * 2^((n&15)/16) is built in
 * integer arithmetic: vpermd picks, by the low 4 bits of the shifter sum's bits, a table entry
 * holding bits(2^(j/16)) - (j << 19), and adding the sum's bits shifted left by 19 adds
 * (n>>4) << 23 + (j << 19) (the shifter's own bits leave through the top), so the entry's bias
 * cancels and the exponent gets n>>4. f = 16 d log2 e - n, one rounding (|f| <= 1/2), and
 * 2^(f/16) - 1 by its Taylor polynomial of degree 3 (truncation 9.2e-9 at |f| = 1/2).
 * Relative error: table entries <= 4.8e-8, the fp32 16 log2 e (1.3e-8 relative, times
 * |16 d log2 e| <= 185) 1.1e-7, the final multiply-add 6e-8; measured 1.85e-7 over
 * d in [-8.5, 0] (vf_exp_small: 1.76e-7). */
static const uint32_t SM_EXP16_TBL[16] __attribute__((aligned(64))) = {
    0x3f800000u, 0x3f7daac3u, 0x3f7b95c2u, 0x3f79c3d3u, 0x3f7837f0u, 0x3f76f532u, 0x3f75fed7u, 0x3f75583fu,
    0x3f7504f3u, 0x3f7508a4u, 0x3f75672au, 0x3f76248cu, 0x3f7744fdu, 0x3f78ccdfu, 0x3f7ac0c7u, 0x3f7d257du};
#define SM_EXPT_L16 (16.0f * CANNON_LOG2E)
/* ln2/16, (ln2/16)^2/2, (ln2/16)^3/6 */
#define SM_EXPT_C1 0x1.62e430p-5f
#define SM_EXPT_C2 0x1.ebfbe0p-11f
#define SM_EXPT_C3 0x1.c6b08ep-17f
#define SM_EXP_FAST_TBL 1
VI vf sm_exp_fast(vf d, __m512i tbl)
{
    const vf shift = _mm512_set1_ps(CANNON_EXP_SHIFTER), l16 = _mm512_set1_ps(SM_EXPT_L16);
    vf t = _mm512_fmadd_ps(d, l16, shift);
    vf f = _mm512_fmsub_ps(d, l16, _mm512_sub_ps(t, shift));
    vf p = _mm512_fmadd_ps(_mm512_set1_ps(SM_EXPT_C3), f, _mm512_set1_ps(SM_EXPT_C2));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(SM_EXPT_C1));
    p = _mm512_mul_ps(p, f);
    __m512i ti = _mm512_castps_si512(t);
    vf s = _mm512_castsi512_ps(_mm512_add_epi32(_mm512_permutexvar_epi32(ti, tbl), _mm512_slli_epi32(ti, 19)));
    return _mm512_fmadd_ps(s, p, s);
}
#define SM_EXP_FAST_SETUP const __m512i sm_tbl_ = _mm512_load_si512((const void *)SM_EXP16_TBL)
#define SM_EXP_FAST(d) sm_exp_fast(d, sm_tbl_)
/* fp32 "wide" fast path's exp(x - m) for x - m in [-SM_WIDE_RANGE, 0] and |m| <= SM_WIDE_MAX_ABS
 * (a NaN x, which the max may have dropped, gives NaN, carried to the row by the sum).
 * sm_exp_fast needs x - m rounded, whose error (up to 2^-24 |x - m| relative in the result)
 * allows it only a spread of 8; this version never forms x - m, so rows of logits or of 32000
 * normal samples (spread 8 to 30) need not take the TwoSum path, which costs about three times
 * as much per vector. It has one multiply-add more than sm_exp_fast, which is why rows of spread
 * <= 8 keep sm_exp_fast.
 * With L = 16 log2 e split as Lh + Ll (fp32 each) and a per-row integer M ~ m L:
 *   t = x Lh + (shifter - M) rounds u' = x Lh - M to the integer n (the constant is exact: an
 *   integer below 2^24), f = x Lh - (M + n) with one rounding (|f| <= 1/2; M + n = t - the
 *   constant, exact), then f += x Ll. What is left out, c = M - m L (|c| <= 1/2, the same for
 *   the whole row), goes into the row's table: entry j holds bits(K 2^(j/16)) - (j << 19) with
 *   K = 2^(c/16), and vpermd picks it by the low 4 bits of t's bits; adding those bits shifted
 *   left by 19 adds (n>>4) << 23 + (j << 19) (the shifter's own bits leave through the top), so
 *   the entry's bias cancels and the exponent gets n>>4 (n >= -1480: no underflow). Last,
 *   2^(f/16) - 1 by its Taylor polynomial of degree 3 (truncation 1e-8 at |f| = 1/2 + |x Ll|).
 * Relative error: the table entries (fp32 of K 2^(j/16)) 6e-8, the final multiply-add 6e-8, the
 * rest (f's two roundings, the polynomial) below 2e-8; x - m is never formed, so the error does
 * not grow with the spread. */
static const double SM_EXP2_16THS[16] __attribute__((aligned(64))) = {
    0x1.0000000000000p+0, 0x1.0b5586cf9890fp+0, 0x1.172b83c7d517bp+0, 0x1.2387a6e756238p+0,
    0x1.306fe0a31b715p+0, 0x1.3dea64c123422p+0, 0x1.4bfdad5362a27p+0, 0x1.5ab07dd485429p+0,
    0x1.6a09e667f3bcdp+0, 0x1.7a11473eb0187p+0, 0x1.8ace5422aa0dbp+0, 0x1.9c49182a3f090p+0,
    0x1.ae89f995ad3adp+0, 0x1.c199bdd85529cp+0, 0x1.d5818dcfba487p+0, 0x1.ea4afa2a490dap+0};
/* 16 log2 e: in double, and split as fp32 high + low parts. */
#define SM_EXPT_L16D 23.083120654223414
#define SM_EXPT_L16H 0x1.715476p+4f
#define SM_EXPT_L16L 0x1.4ae0c0p-22f
/* The wide path's limits (see FN(fast_class)): x - m >= -64 keeps every exponential and every
 * softmax output of a row up to SM_SCRATCH_MAX elements normal (e^-64 / 32768 > 2^-126);
 * |m| <= 4096 keeps M below 2^17 (the constant shifter - M exact) and |x Ll| below 2e-3. */
#define SM_EXP_WIDE 1
#define SM_WIDE_RANGE 64.0f
#define SM_WIDE_MAX_ABS 4096.0f

typedef struct sm_fexp {
    __m512i tbl;
    vf c; /* shifter - M */
} sm_fexp;

static inline sm_fexp sm_exp_wide_setup(float m)
{
    const double ml = (double)m * SM_EXPT_L16D, mi = floor(ml + 0.5);
    /* K = 2^(c/16) = e^y, |y| <= ln2/32: Taylor polynomial of degree 5 (error 2e-13). */
    const double y = (mi - ml) * (0.6931471805599453 / 16.0);
    const double k = 1.0 + y * (1.0 + y * (0.5 + y * (1.0 / 6 + y * (1.0 / 24 + y * (1.0 / 120)))));
    const __m512d kv = _mm512_set1_pd(k);
    const __m256 lo = _mm512_cvtpd_ps(_mm512_mul_pd(kv, _mm512_load_pd(SM_EXP2_16THS)));
    const __m256 hi = _mm512_cvtpd_ps(_mm512_mul_pd(kv, _mm512_load_pd(SM_EXP2_16THS + 8)));
    const __m512i t = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_castps_si256(lo)), _mm256_castps_si256(hi), 1);
    const __m512i j = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    sm_fexp r;
    r.tbl = _mm512_sub_epi32(t, _mm512_slli_epi32(j, 19));
    r.c = _mm512_set1_ps((float)(CANNON_EXP_SHIFTER - mi));
    return r;
}

VI vf sm_exp_wide(vf x, const sm_fexp *k)
{
    const vf lh = _mm512_set1_ps(SM_EXPT_L16H);
    vf t = _mm512_fmadd_ps(x, lh, k->c);
    vf f = _mm512_fmsub_ps(x, lh, _mm512_sub_ps(t, k->c));
    f = _mm512_fmadd_ps(x, _mm512_set1_ps(SM_EXPT_L16L), f);
    vf p = _mm512_fmadd_ps(_mm512_set1_ps(SM_EXPT_C3), f, _mm512_set1_ps(SM_EXPT_C2));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(SM_EXPT_C1));
    p = _mm512_mul_ps(p, f);
    __m512i ti = _mm512_castps_si512(t);
    vf s = _mm512_castsi512_ps(_mm512_add_epi32(_mm512_permutexvar_epi32(ti, k->tbl), _mm512_slli_epi32(ti, 19)));
    return _mm512_fmadd_ps(s, p, s);
}

/* out[r] = (float)(1 / s[r]) for g rows, eight divisions per instruction rather than g scalar
 * ones queued on the divider at the end of a group's sum phase (each lane is the IEEE quotient,
 * so the values are those of the scalar loop). */
#define SM_INV_SUMS_VEC 1
static inline void sm_inv_sums(const double *s, float *out, int64_t g)
{
    for (int64_t r = 0; r < g; r += 8) {
        const __mmask8 k = (__mmask8)(g - r >= 8 ? 0xffu : (1u << (g - r)) - 1u);
        __m512d q = _mm512_div_pd(_mm512_set1_pd(1.0), _mm512_mask_loadu_pd(_mm512_set1_pd(1.0), k, s + r));
        _mm256_mask_storeu_ps(out + r, k, _mm512_cvtpd_ps(q));
    }
}

/* bf16 "pair layout": one 512-bit load of 32 elements gives the even elements (each 32-bit pair
 * shifted left by 16) and the odd ones (the pair's high half, masked), one op per 16 elements
 * instead of vf_load_bf16's two; sm_bf16_store2 puts such a pair of vectors back in order
 * (vcvtne2ps2bf16, then one word permute). The fast path keeps its exponentials in this layout. */
#define SM_BF16_PAIRS 1
VI void sm_bf16_load2(const uint16_t *p, vf *ev, vf *od)
{
    __m512i v = _mm512_loadu_si512(p);
    *ev = _mm512_castsi512_ps(_mm512_slli_epi32(v, 16));
    *od = _mm512_castsi512_ps(_mm512_and_si512(v, _mm512_set1_epi32((int)0xffff0000u)));
}
/* Words 2j and 2j+1 from words j and 16 + j of vcvtne2ps2bf16(od, ev). */
VI __m512i sm_bf16_interleave(__m512i h)
{
    const __m512i idx = _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8, 23, 7, 22, 6,
                                         21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
    return _mm512_permutexvar_epi16(idx, h);
}
/* For vectors without subnormal lanes (vcvtne2ps2bf16 flushes those). */
VI void sm_bf16_store2_nosub(uint16_t *p, vf ev, vf od)
{
    _mm512_storeu_si512(p, sm_bf16_interleave((__m512i)_mm512_cvtne2ps_pbh(od, ev)));
}
/* The same as one 64-byte streaming store: @p p must be 64-byte aligned. */
VI void sm_bf16_stream2_nosub(uint16_t *p, vf ev, vf od)
{
    _mm512_stream_si512((void *)p, sm_bf16_interleave((__m512i)_mm512_cvtne2ps_pbh(od, ev)));
}
/* Any vectors: lanes with a zero exponent field (zeros, subnormals) send the pair through the
 * exact integer rounding, as vf_to_bf16 does. */
VI void sm_bf16_store2(uint16_t *p, vf ev, vf od)
{
    const __m512i ex = _mm512_set1_epi32(0x7f800000);
    if (__builtin_expect((_mm512_testn_epi32_mask(_mm512_castps_si512(ev), ex) |
                          _mm512_testn_epi32_mask(_mm512_castps_si512(od), ex)) != 0, 0)) {
        __m512i h = _mm512_inserti64x4(_mm512_castsi256_si512(vf_to_bf16_soft(ev)), vf_to_bf16_soft(od), 1);
        _mm512_storeu_si512(p, sm_bf16_interleave(h));
        return;
    }
    sm_bf16_store2_nosub(p, ev, od);
}

#elif VW == 8
VI __m256i sm16_key(__m256i v) { return _mm256_xor_si256(v, _mm256_srli_epi16(_mm256_srai_epi16(v, 15), 1)); }

static inline void sm16_minmax_keys(const uint16_t *x, int64_t n, int16_t *hi, int16_t *lo)
{
    __m256i mx0 = _mm256_set1_epi16(INT16_MIN), mx1 = mx0, mn0 = _mm256_set1_epi16(INT16_MAX), mn1 = mn0;
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i k0 = sm16_key(_mm256_loadu_si256((const __m256i *)(x + i)));
        __m256i k1 = sm16_key(_mm256_loadu_si256((const __m256i *)(x + i + 16)));
        mx0 = _mm256_max_epi16(mx0, k0);
        mx1 = _mm256_max_epi16(mx1, k1);
        mn0 = _mm256_min_epi16(mn0, k0);
        mn1 = _mm256_min_epi16(mn1, k1);
    }
    for (; i + 16 <= n; i += 16) {
        __m256i k0 = sm16_key(_mm256_loadu_si256((const __m256i *)(x + i)));
        mx0 = _mm256_max_epi16(mx0, k0);
        mn0 = _mm256_min_epi16(mn0, k0);
    }
    mx0 = _mm256_max_epi16(mx0, mx1);
    mn0 = _mm256_min_epi16(mn0, mn1);
    __m128i mx = _mm_max_epi16(_mm256_castsi256_si128(mx0), _mm256_extracti128_si256(mx0, 1));
    __m128i mn = _mm_min_epi16(_mm256_castsi256_si128(mn0), _mm256_extracti128_si256(mn0, 1));
    int16_t h = (int16_t)(_mm_extract_epi16(_mm_minpos_epu16(_mm_xor_si128(mx, _mm_set1_epi16(0x7fff))), 0) ^ 0x7fff);
    int16_t l = (int16_t)(_mm_extract_epi16(_mm_minpos_epu16(_mm_xor_si128(mn, _mm_set1_epi16((short)0x8000))), 0) ^ 0x8000);
    for (; i < n; i++) { /* tail: at most 15 elements */
        int16_t k = sm16_key1(x[i]);
        h = k > h ? k : h;
        l = k < l ? k : l;
    }
    *hi = h;
    *lo = l;
}

VI vf sm16_arg(vf x, vf vm, vf c)
{
    (void)vm;
    return _mm256_fmadd_ps(x, _mm256_set1_ps(CANNON_LOG2E), c);
}

/* As the AVX-512 version; 2^n is built from the shifter sum's bits (n in [-126, 127]). */
VI vf sm16_exp2(vf u)
{
    const vf shift = _mm256_set1_ps(CANNON_EXP_SHIFTER);
    vf t = _mm256_add_ps(u, shift);
    vf n = _mm256_sub_ps(t, shift);
    vf f = _mm256_sub_ps(u, n);
    vf p = _mm256_fmadd_ps(_mm256_set1_ps(SM16_C3), f, _mm256_set1_ps(SM16_C2));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(SM16_C1));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(SM16_C0));
    __m256i e = _mm256_add_epi32(_mm256_slli_epi32(_mm256_castps_si256(t), 23), _mm256_set1_epi32(127 << 23));
    return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

VI double sm_hsum(vf v) { return vd_hsum(vd_add(vd_zero(), v)); }

#else /* scalar */
static inline void sm16_minmax_keys(const uint16_t *x, int64_t n, int16_t *hi, int16_t *lo)
{
    int16_t h = INT16_MIN, l = INT16_MAX;
    for (int64_t i = 0; i < n; i++) {
        int16_t k = sm16_key1(x[i]);
        h = k > h ? k : h;
        l = k < l ? k : l;
    }
    *hi = h;
    *lo = l;
}

/* No FMA here: (x - m) * log2(e), exact subtraction for 16-bit inputs within the fast range. */
VI vf sm16_arg(vf x, vf vm, vf c)
{
    (void)c;
    return (x - vm) * CANNON_LOG2E;
}

static inline vf sm16_exp2(vf u)
{
    if (u != u)
        return u;
    volatile float big = CANNON_EXP_SHIFTER; /* volatile: keep the compiler from folding the trick */
    float n = (u + big) - big;
    float f = u - n;
    float p = ((SM16_C3 * f + SM16_C2) * f + SM16_C1) * f + SM16_C0;
    return p * pow2i((int32_t)n);
}

VI double sm_hsum(vf v) { return (double)v; }
#endif

/* Tiers without the table exp (an 8-entry vpermps table would need a degree-4 polynomial and
 * save nothing over vf_exp_small). */
#ifndef SM_EXP_FAST_TBL
#define SM_EXP_FAST_SETUP (void)0
#define SM_EXP_FAST(d) vf_exp_small(d)
#endif

#ifndef SM_INV_SUMS_VEC
static inline void sm_inv_sums(const double *s, float *out, int64_t g)
{
    for (int64_t r = 0; r < g; r++)
        out[r] = (float)(1.0 / s[r]);
}
#endif

/* Key -> the float value of the 16-bit pattern. */
static inline float sm16_key_value(int16_t k, int is_bf16)
{
    uint16_t b = (uint16_t)k;
    b = (uint16_t)(b ^ ((b & 0x8000u) ? 0x7fffu : 0u));
    return is_bf16 ? cannon_bf16_to_f32(b) : cannon_f16_to_f32(b);
}

#endif /* CANNON_OPS_SOFTMAX_VEC_H_ */
