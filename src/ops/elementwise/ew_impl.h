/*
 * One tier's elementwise vector loops: the including file includes its vec_<tier>.h, defines
 * EW_VEC_FN, and includes this file. Each (operator, storage type) pair becomes its own loop
 * (the operator and type are compile-time constants of an always-inlined template), so the
 * memory-bound arithmetic loops carry no per-element dispatch.
 *
 * Math (all in fp32, shared by every tier so they compute the same functions):
 *   gelu_tanh(x) = x * sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3), because
 *                  0.5 (1 + tanh u) = sigmoid(2u); written x / (1 + exp(-2u)) it keeps full
 *                  relative accuracy where the result is tiny (large negative x) and needs no tanh.
 *   gelu_erf(x)  = x * Phi(x) with Phi from erfc, never from 1 + erf (which cancels for x < 0):
 *                  Phi(x) = h for x < 0 and 1 - h otherwise, h = erfc(|x|/sqrt2) / 2;
 *                  erfc(z) = exp(-z^2) t P(t), t = 1 / (1 + 0.4 z), P of degree 10 fitted for this
 *                  project (relative least squares iterated towards minimax on Chebyshev nodes of
 *                  t in (0, 1]; relative error of t P(t) against erfcx: 2.2e-8 with these fp32
 *                  coefficients). exp(-z^2) gets z^2's rounding error as exp's correction term.
 *   silu(x)      = x / (1 + exp(-x)).
 *   derivatives: s = sigmoid(y) with 1 - s computed as e s (e = exp(-y), clamped at exp(80) so
 *                  e s stays finite), d gelu_tanh/dx = s + x s (1 - s) d(2u)/dx,
 *                  d silu/dx = s (1 + x (1 - s)).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../kernels/vmath_ext.h"
#include "ew_kernels.h"

#define EW_ERFC_P 0.4f
#define EW_ERFC_H0 0x1.ce2f22p-3f
#define EW_ERFC_H1 0x1.ce2f26p-3f
#define EW_ERFC_H2 0x1.a93162p-3f
#define EW_ERFC_H3 0x1.5fb8e4p-3f
#define EW_ERFC_H4 0x1.e774c2p-4f
#define EW_ERFC_H5 0x1.57ba6cp-4f
#define EW_ERFC_H6 (-0x1.803188p-5f)
#define EW_ERFC_H7 0x1.19bc38p-3f
#define EW_ERFC_H8 (-0x1.e25e18p-3f)
#define EW_ERFC_H9 0x1.1fa36ep-3f
#define EW_ERFC_H10 (-0x1.deaa7ep-6f)
/* 2 sqrt(2/pi) and 2 sqrt(2/pi) * 0.044715 */
#define EW_GT_C1 1.5957691216057308f
#define EW_GT_C2 0.071354816272081f
#define EW_SQRT1_2 0.70710678118654752f

/* ---- the few operations the shared vector layer does not have ---- */
#if VW == 16
VI vf ew_div(vf a, vf b) { return _mm512_div_ps(a, b); }
VI vf ew_abs(vf a) { return _mm512_abs_ps(a); }
VI vf ew_neg(vf a) { return _mm512_xor_ps(a, _mm512_set1_ps(-0.0f)); }
/* b <= t ? 0 : a (NaN b keeps a, as torch's threshold_backward) */
VI vf ew_zero_le(vf a, vf b, vf t) { return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(b, t, _CMP_NLE_UQ), a); }
/* x >= 0 ? p : q */
VI vf ew_sel_ge0(vf x, vf p, vf q)
{
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GE_OQ), q, p);
}
#elif VW == 8
VI vf ew_div(vf a, vf b) { return _mm256_div_ps(a, b); }
VI vf ew_abs(vf a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
VI vf ew_neg(vf a) { return _mm256_xor_ps(a, _mm256_set1_ps(-0.0f)); }
VI vf ew_zero_le(vf a, vf b, vf t) { return _mm256_and_ps(a, _mm256_cmp_ps(b, t, _CMP_NLE_UQ)); }
VI vf ew_sel_ge0(vf x, vf p, vf q)
{
    return _mm256_blendv_ps(q, p, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GE_OQ));
}
#else
VI vf ew_div(vf a, vf b) { return a / b; }
VI vf ew_abs(vf a) { return fabsf(a); }
VI vf ew_neg(vf a) { return -a; }
VI vf ew_zero_le(vf a, vf b, vf t) { return b <= t ? 0.0f : a; }
VI vf ew_sel_ge0(vf x, vf p, vf q) { return x >= 0.0f ? p : q; }
#endif

/* BOOL stores of 1.0 / 0.0 lanes (the comparisons' results) as bytes 1 / 0 */
#if VW == 16
VI void ew_st_u8(uint8_t *p, vf v) { _mm_storeu_si128((__m128i *)p, _mm512_cvtepi32_epi8(_mm512_cvttps_epi32(v))); }
VI void ew_stn_u8(uint8_t *p, vf v, size_t n)
{
    _mm_mask_storeu_epi8(p, (__mmask16)((1u << n) - 1u), _mm512_cvtepi32_epi8(_mm512_cvttps_epi32(v)));
}
#elif VW == 8
VI __m128i ew_u8_bytes(vf v)
{
    const __m256i i = _mm256_cvttps_epi32(v);
    const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(i), _mm256_extracti128_si256(i, 1));
    return _mm_packus_epi16(w, w);
}
VI void ew_st_u8(uint8_t *p, vf v) { _mm_storel_epi64((__m128i *)p, ew_u8_bytes(v)); }
VI void ew_stn_u8(uint8_t *p, vf v, size_t n)
{
    uint8_t b[16];
    _mm_storeu_si128((__m128i *)b, ew_u8_bytes(v));
    memcpy(p, b, n);
}
#else
VI void ew_st_u8(uint8_t *p, vf v) { *p = v != 0.0f; }
VI void ew_stn_u8(uint8_t *p, vf v, size_t n)
{
    if (n)
        *p = v != 0.0f;
}
#endif

/* a ** b lane by lane in double (C's pow: pow(x, 0) = 1 and pow(1, y) = 1 even for NaN), rounded
 * once to fp32: pow has no vector form here, its callers are not memory-bound hot paths */
VI vf ew_pow(vf a, vf b)
{
    float xa[VW], xb[VW];
    vf_to_array(xa, a);
    vf_to_array(xb, b);
    for (int i = 0; i < VW; i++)
        xa[i] = (float)pow((double)xa[i], (double)xb[i]);
    return vf_from_array(xa);
}

VI vf ew_sigmoid_parts(vf y, vf *oms)
{
    vf e = vf_exp(vf_min(vf_sub(vf_set1(0.0f), y), vf_set1(80.0f)));
    vf s = ew_div(vf_set1(1.0f), vf_add(vf_set1(1.0f), e));
    *oms = vf_mul(e, s);
    return s;
}

/* erfc(|x| / sqrt2) / 2. z^2 = x^2 / 2 is formed from x itself (x^2 with its FMA rounding error,
 * halved exactly), not from the rounded z, whose error exp(-z^2) would multiply by 2 z^2. */
VI vf ew_half_erfc(vf x)
{
    vf z = vf_mul(ew_abs(x), vf_set1(EW_SQRT1_2));
    vf t = ew_div(vf_set1(1.0f), vf_fma(z, vf_set1(EW_ERFC_P), vf_set1(1.0f)));
    vf p = vf_set1(EW_ERFC_H10);
    p = vf_fma(p, t, vf_set1(EW_ERFC_H9));
    p = vf_fma(p, t, vf_set1(EW_ERFC_H8));
    p = vf_fma(p, t, vf_set1(EW_ERFC_H7));
    p = vf_fma(p, t, vf_set1(EW_ERFC_H6));
    p = vf_fma(p, t, vf_set1(EW_ERFC_H5));
    p = vf_fma(p, t, vf_set1(EW_ERFC_H4));
    p = vf_fma(p, t, vf_set1(EW_ERFC_H3));
    p = vf_fma(p, t, vf_set1(EW_ERFC_H2));
    p = vf_fma(p, t, vf_set1(EW_ERFC_H1));
    p = vf_fma(p, t, vf_set1(EW_ERFC_H0));
    vf xx = vf_mul(x, x);
    vf err = vf_zero_nan(vf_fma(x, x, vf_sub(vf_set1(0.0f), xx))); /* x*x - xx, exact with FMA */
    vf e = vf_exp2(vf_mul(xx, vf_set1(-0.5f)), vf_mul(err, vf_set1(-0.5f)));
    return vf_mul(vf_mul(e, vf_set1(0.5f)), vf_mul(t, p));
}

/* Optimised builds inline ew_compute into each operation's loop and fold the switch on the
 * constant op. Unoptimised builds (Debug, the sanitizer runs) call it instead: forced inlining at
 * -O0 copies every case into every loop, code that grows with the square of the number of
 * operations (minutes of compile time per tier). */
#if defined(__OPTIMIZE__)
#define EW_COMPUTE_FN VI
#else
#define EW_COMPUTE_FN static __attribute__((noinline))
#endif

EW_COMPUTE_FN vf ew_compute(const int op, vf a, vf b, const ew_params *prm)
{
    switch (op) {
    case EW_ADD:
        return vf_fma(b, vf_set1(prm->alpha), a);
    case EW_MUL:
        return vf_mul(a, b);
    case EW_DIV:
        return ew_div(a, b);
    case EW_RELU:
        return vf_max(vf_set1(0.0f), a); /* second operand on NaN: NaN stays NaN */
    case EW_THRESH_BWD:
        return ew_zero_le(a, b, vf_set1(prm->thr));
    case EW_GELU_TANH: {
        vf u2 = vf_mul(a, vf_fma(vf_mul(a, a), vf_set1(EW_GT_C2), vf_set1(EW_GT_C1)));
        return ew_div(a, vf_add(vf_set1(1.0f), vf_exp(vf_sub(vf_set1(0.0f), u2))));
    }
    case EW_GELU_ERF: {
        vf h = ew_half_erfc(a);
        return vf_mul(a, ew_sel_ge0(a, vf_sub(vf_set1(1.0f), h), h));
    }
    case EW_SILU:
        return ew_div(a, vf_add(vf_set1(1.0f), vf_exp(vf_sub(vf_set1(0.0f), a))));
    case EW_GELU_BWD: {
        vf x2 = vf_mul(b, b);
        vf u2 = vf_mul(b, vf_fma(x2, vf_set1(EW_GT_C2), vf_set1(EW_GT_C1)));
        vf du2 = vf_fma(x2, vf_set1(3.0f * EW_GT_C2), vf_set1(EW_GT_C1));
        vf oms;
        vf s = ew_sigmoid_parts(u2, &oms);
        return vf_mul(a, vf_fma(vf_mul(b, s), vf_mul(oms, du2), s));
    }
    case EW_SILU_BWD: {
        vf oms;
        vf s = ew_sigmoid_parts(b, &oms);
        return vf_mul(a, vf_mul(s, vf_fma(b, oms, vf_set1(1.0f))));
    }
    case EW_NEG:
        return ew_neg(a);
    case EW_ABS:
        return vf_abs(a);
    case EW_SIGN: /* +0 for +-0 and NaN */
        return vf_sub(vf_blend(vf_gt(a, vf_set1(0.0f)), vf_set1(1.0f), vf_set1(0.0f)),
                      vf_blend(vf_lt(a, vf_set1(0.0f)), vf_set1(1.0f), vf_set1(0.0f)));
    case EW_EXP:
        return vf_exp(a);
    case EW_LOG:
        return vf_log(a);
    case EW_SQRT:
        return vf_sqrt(a);
    case EW_SIN:
        return vf_sincos(a, 0);
    case EW_COS:
        return vf_sincos(a, 1);
    case EW_TANH:
        return vf_tanh(a);
    case EW_SIGMOID:
        return vf_sigmoid(a);
    case EW_SOFTPLUS: {
        /* log(1 + exp(z)) = max(z, 0) + log1p(exp(-|z|)): no overflow, no cancellation */
        const vf z = vf_mul(a, vf_set1(prm->f[0]));
        const vf l = vf_log1p_01(vf_exp(vf_sub(vf_set1(0.0f), vf_abs(z))));
        const vf y = vf_div(vf_add(vf_max(vf_set1(0.0f), z), l), vf_set1(prm->f[0]));
        return vf_blend(vf_gt(z, vf_set1(prm->f[1])), a, y);
    }
    case EW_ELU: {
        const vf e = vf_mul(vf_expm1(vf_mul(a, vf_set1(prm->f[2]))), vf_set1(prm->f[0]));
        return vf_blend(vf_gt(a, vf_set1(0.0f)), vf_mul(a, vf_set1(prm->f[1])), e);
    }
    case EW_LEAKY_RELU:
        return vf_blend(vf_gt(a, vf_set1(0.0f)), a, vf_mul(a, vf_set1(prm->f[0])));
    case EW_HARDSIGMOID: /* NaN stays NaN: max/min return their second operand */
        return vf_div(vf_min(vf_set1(6.0f), vf_max(vf_set1(0.0f), vf_add(a, vf_set1(3.0f)))), vf_set1(6.0f));
    case EW_HARDSWISH: {
        const vf t = vf_min(vf_set1(6.0f), vf_max(vf_set1(0.0f), vf_add(a, vf_set1(3.0f))));
        return vf_blend(vf_ge(a, vf_set1(3.0f)), a, vf_div(vf_mul(a, t), vf_set1(6.0f)));
    }
    case EW_GT:
        return vf_blend(vf_gt(a, b), vf_set1(1.0f), vf_set1(0.0f));
    case EW_EQ:
        return vf_blend(vf_eq(a, b), vf_set1(1.0f), vf_set1(0.0f));
    case EW_CLAMP: /* the bounds are never NaN (phase 1); a NaN a passes as the second operand */
        return vf_min(vf_set1(prm->f[1]), vf_max(vf_set1(prm->f[0]), a));
    case EW_THRESHOLD:
        return vf_blend(vf_le(a, vf_set1(prm->f[0])), vf_set1(prm->f[1]), a);
    case EW_FILL:
        return vf_set1(prm->f[0]);
    case EW_POW:
        return ew_pow(a, b);
    case EW_RPOW:
        return ew_pow(b, a);
    default: /* EW_COPY */
        return a;
    }
}

VI vf ew_ld(const int vdt, const void *p, int64_t i)
{
    if (vdt == EW_VF32)
        return vf_load_f32((const float *)p + i);
    if (vdt == EW_VF16)
        return vf_load_f16((const uint16_t *)p + i);
    return vf_load_bf16((const uint16_t *)p + i);
}
VI vf ew_ldn(const int vdt, const void *p, int64_t i, size_t n)
{
    if (vdt == EW_VF32)
        return vf_loadn_f32((const float *)p + i, n, 1.0f);
    if (vdt == EW_VF16)
        return vf_loadn_f16((const uint16_t *)p + i, n, 1.0f);
    return vf_loadn_bf16((const uint16_t *)p + i, n, 1.0f);
}
VI void ew_st(const int vdt, void *p, int64_t i, vf v, int nt)
{
    if (vdt == EW_VF32) {
        if (nt)
            vf_stream_f32((float *)p + i, v);
        else
            vf_store_f32((float *)p + i, v);
    } else if (vdt == EW_VF16) {
        if (nt)
            vf_stream_f16((uint16_t *)p + i, v);
        else
            vf_store_f16((uint16_t *)p + i, v);
    } else {
        if (nt)
            vf_stream_bf16((uint16_t *)p + i, v);
        else
            vf_store_bf16((uint16_t *)p + i, v);
    }
}
VI void ew_stn(const int vdt, void *p, int64_t i, vf v, size_t n)
{
    if (vdt == EW_VF32)
        vf_storen_f32((float *)p + i, v, n);
    else if (vdt == EW_VF16)
        vf_storen_f16((uint16_t *)p + i, v, n);
    else
        vf_storen_bf16((uint16_t *)p + i, v, n);
}

/* Elements [i, i + m) with m < VW through masked loads and stores. */
VI void ew_part(const int op, const int vdt, void *o, const void *a, int amode, vf ac, const void *b, int bmode,
                vf bc, int64_t i, size_t m, const ew_params *prm)
{
    vf va = amode ? ew_ldn(vdt, a, i, m) : ac;
    vf vb = bmode ? ew_ldn(vdt, b, i, m) : bc;
    ew_stn(vdt, o, i, ew_compute(op, va, vb, prm), m);
}

/* The comparisons' loop: inputs of storage type vdt, BOOL output bytes. */
VI void ew_loop_u8(const int op, const int vdt, uint8_t *o, const void *a, int amode, float as, const void *b,
                   int bmode, float bs, int64_t n, const ew_params *prm)
{
    const vf ac = vf_set1(as), bc = vf_set1(bs);
    int64_t i = 0;
    for (; i + VW <= n; i += VW) {
        vf va = amode ? ew_ld(vdt, a, i) : ac;
        vf vb = bmode ? ew_ld(vdt, b, i) : bc;
        ew_st_u8(o + i, ew_compute(op, va, vb, prm));
    }
    if (i < n) {
        const size_t m = (size_t)(n - i);
        vf va = amode ? ew_ldn(vdt, a, i, m) : ac;
        vf vb = bmode ? ew_ldn(vdt, b, i, m) : bc;
        ew_stn_u8(o + i, ew_compute(op, va, vb, prm), m);
    }
}

VI void ew_loop(const int op, const int vdt, void *o, const void *a, int amode, float as, const void *b, int bmode,
                float bs, int64_t n, const ew_params *prm, int nt)
{
    const vf ac = vf_set1(as), bc = vf_set1(bs);
    const int64_t es = vdt == EW_VF32 ? 4 : 2;
    int64_t i = 0;
    if (nt && VW > 1) {
        /* Streaming stores need an aligned destination: the unaligned head goes through masked
         * stores, a partial vector at a time. */
        int64_t head = (int64_t)((64 - ((uintptr_t)o & 63)) & 63) / es;
        if (head > n)
            head = n;
        while (i < head) {
            size_t m = (size_t)(head - i < VW ? head - i : VW);
            ew_part(op, vdt, o, a, amode, ac, b, bmode, bc, i, m, prm);
            i += (int64_t)m;
        }
        for (; i + VW <= n; i += VW) {
            vf va = amode ? ew_ld(vdt, a, i) : ac;
            vf vb = bmode ? ew_ld(vdt, b, i) : bc;
            ew_st(vdt, o, i, ew_compute(op, va, vb, prm), 1);
        }
        vf_sfence();
    } else {
        for (; i + VW <= n; i += VW) {
            vf va = amode ? ew_ld(vdt, a, i) : ac;
            vf vb = bmode ? ew_ld(vdt, b, i) : bc;
            ew_st(vdt, o, i, ew_compute(op, va, vb, prm), 0);
        }
    }
    if (i < n)
        ew_part(op, vdt, o, a, amode, ac, b, bmode, bc, i, (size_t)(n - i), prm);
}

#define EW_CASE_OP(OP)                                                                  \
    case OP:                                                                            \
        if (vdt == EW_VF32)                                                             \
            ew_loop(OP, EW_VF32, o, a, amode, as, b, bmode, bs, n, prm, nt);            \
        else if (vdt == EW_VF16)                                                        \
            ew_loop(OP, EW_VF16, o, a, amode, as, b, bmode, bs, n, prm, nt);            \
        else                                                                            \
            ew_loop(OP, EW_VBF16, o, a, amode, as, b, bmode, bs, n, prm, nt);           \
        break;

#define EW_CASE_CMP(OP)                                                                 \
    case OP:                                                                            \
        if (vdt == EW_VF32)                                                             \
            ew_loop(OP, EW_VF32, o, a, amode, as, b, bmode, bs, n, prm, nt);            \
        else if (vdt == EW_VF16)                                                        \
            ew_loop(OP, EW_VF16, o, a, amode, as, b, bmode, bs, n, prm, nt);            \
        else if (vdt == EW_VBF16)                                                       \
            ew_loop(OP, EW_VBF16, o, a, amode, as, b, bmode, bs, n, prm, nt);           \
        else if (vdt == EW_VF32_U8)                                                     \
            ew_loop_u8(OP, EW_VF32, (uint8_t *)o, a, amode, as, b, bmode, bs, n, prm);  \
        else if (vdt == EW_VF16_U8)                                                     \
            ew_loop_u8(OP, EW_VF16, (uint8_t *)o, a, amode, as, b, bmode, bs, n, prm);  \
        else                                                                            \
            ew_loop_u8(OP, EW_VBF16, (uint8_t *)o, a, amode, as, b, bmode, bs, n, prm); \
        break;

void EW_VEC_FN(int op, int vdt, void *o, const void *a, int amode, float as, const void *b, int bmode, float bs,
               int64_t n, const ew_params *prm, int nt)
{
    switch (op) {
        EW_CASE_OP(EW_ADD)
        EW_CASE_OP(EW_MUL)
        EW_CASE_OP(EW_DIV)
        EW_CASE_OP(EW_RELU)
        EW_CASE_OP(EW_THRESH_BWD)
        EW_CASE_OP(EW_GELU_TANH)
        EW_CASE_OP(EW_GELU_ERF)
        EW_CASE_OP(EW_GELU_BWD)
        EW_CASE_OP(EW_SILU)
        EW_CASE_OP(EW_SILU_BWD)
        EW_CASE_OP(EW_NEG)
        EW_CASE_OP(EW_ABS)
        EW_CASE_OP(EW_SIGN)
        EW_CASE_OP(EW_EXP)
        EW_CASE_OP(EW_LOG)
        EW_CASE_OP(EW_SQRT)
        EW_CASE_OP(EW_SIN)
        EW_CASE_OP(EW_COS)
        EW_CASE_OP(EW_TANH)
        EW_CASE_OP(EW_SIGMOID)
        EW_CASE_OP(EW_SOFTPLUS)
        EW_CASE_OP(EW_ELU)
        EW_CASE_OP(EW_LEAKY_RELU)
        EW_CASE_OP(EW_HARDSIGMOID)
        EW_CASE_OP(EW_HARDSWISH)
        EW_CASE_CMP(EW_GT)
        EW_CASE_CMP(EW_EQ)
        EW_CASE_OP(EW_CLAMP)
        EW_CASE_OP(EW_THRESHOLD)
        EW_CASE_OP(EW_FILL)
        EW_CASE_OP(EW_POW)
        EW_CASE_OP(EW_RPOW)
    default:
        EW_CASE_OP(EW_COPY)
    }
}
