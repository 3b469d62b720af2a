/*
 * The scalar tier's "vector" layer: one fp32 lane in plain C, same names and contracts as
 * vec_avx512.h. It is both the fallback for CPUs without AVX2 and the reference the vector tiers
 * are checked against. No FMA is assumed (a software fmaf would be slow), so the polynomials
 * round after each multiply and add; the accuracy figures in vmath.h include that.
 */
#ifndef CANNON_OPS_KERNELS_VEC_SCALAR_H_
#define CANNON_OPS_KERNELS_VEC_SCALAR_H_

#include <stddef.h>
#include <stdint.h>

#include "fp_convert.h"
#include "vmath_consts.h"

#define VW 1
typedef float vf;

#define VI static inline __attribute__((always_inline))

VI vf vf_set1(float a) { return a; }
VI vf vf_add(vf a, vf b) { return a + b; }
VI vf vf_sub(vf a, vf b) { return a - b; }
VI vf vf_mul(vf a, vf b) { return a * b; }
VI vf vf_fma(vf a, vf b, vf c) { return a * b + c; }
/* Same NaN rule as the x86 max/min instructions: the second operand when either is NaN. */
VI vf vf_max(vf a, vf b) { return a > b ? a : b; }
VI vf vf_min(vf a, vf b) { return a < b ? a : b; }
VI float vf_hmax(vf v) { return v; }

VI vf vf_keep(vf v, size_t n) { return n ? v : 0.0f; }
VI vf vf_zero_nan(vf v) { return v == v ? v : 0.0f; }
/* v where a != b (or either is NaN), 0 where a == b. */
VI vf vf_zero_eq(vf v, vf a, vf b) { return a == b ? 0.0f : v; }

/* ---- lane masks, selects and bit operations (see vec_avx512.h) ---- */
typedef int vmask;
VI vmask vf_lt(vf a, vf b) { return a < b; }
VI vmask vf_le(vf a, vf b) { return a <= b; }
VI vmask vf_gt(vf a, vf b) { return a > b; }
VI vmask vf_ge(vf a, vf b) { return a >= b; }
VI vmask vf_eq(vf a, vf b) { return a == b; }
VI vf vf_blend(vmask m, vf t, vf f) { return m ? t : f; }
VI int vmask_any(vmask m) { return m; }
VI vmask vmask_not(vmask m) { return !m; }
VI vf vf_abs(vf a) { return cannon_bits_f32(cannon_f32_bits(a) & 0x7fffffffu); }
VI vf vf_div(vf a, vf b) { return a / b; }
VI vf vf_sqrt(vf a) { return __builtin_sqrtf(a); }
VI vf vf_rint(vf a) { return __builtin_rintf(a); }
VI vf vf_orsign(vf y, vf x) { return cannon_bits_f32(cannon_f32_bits(y) | (cannon_f32_bits(x) & 0x80000000u)); }
VI vf vf_pow2i(vf n) { return n == n ? cannon_bits_f32((uint32_t)((int32_t)n + 127) << 23) : n; }
VI void vf_to_array(float *d, vf v) { *d = v; }
VI vf vf_from_array(const float *s) { return *s; }

/* ---- fp64 "pairs": one double (see vec_avx512.h) ---- */
typedef struct vw2 {
    double v;
} vw2;
VI vw2 vw2_from(vf x) { vw2 r = {(double)x}; return r; }
VI vf vw2_to(vw2 a) { return (float)a.v; }
VI vw2 vw2_set1(double v) { vw2 r = {v}; return r; }
VI vw2 vw2_add(vw2 a, vw2 b) { vw2 r = {a.v + b.v}; return r; }
VI vw2 vw2_sub(vw2 a, vw2 b) { vw2 r = {a.v - b.v}; return r; }
VI vw2 vw2_mul(vw2 a, vw2 b) { vw2 r = {a.v * b.v}; return r; }
/* a * b + c with two roundings (no FMA assumed, as vf_fma) */
VI vw2 vw2_fma(vw2 a, vw2 b, vw2 c) { vw2 r = {a.v * b.v + c.v}; return r; }
VI vw2 vw2_rint(vw2 a) { vw2 r = {__builtin_rint(a.v)}; return r; }
VI vw2 vw2_floor(vw2 a) { vw2 r = {__builtin_floor(a.v)}; return r; }
VI vw2 vw2_sel_gt(vw2 x, double c, vw2 t, vw2 f) { return x.v > c ? t : f; }
VI vw2 vw2_pow2i_mul(vw2 x, vw2 k) { vw2 r = {__builtin_ldexp(x.v, (int)k.v)}; return r; }
VI void vw2_store(double *p, vw2 a) { *p = a.v; }

VI vf vf_load_f32(const float *p) { return *p; }
VI vf vf_loadn_f32(const float *p, size_t n, float fill) { return n ? *p : fill; }
VI void vf_store_f32(float *p, vf v) { *p = v; }
VI void vf_storen_f32(float *p, vf v, size_t n) { if (n) *p = v; }
VI void vf_stream_f32(float *p, vf v) { *p = v; }
VI vf vf_load_f16(const uint16_t *p) { return cannon_f16_to_f32(*p); }
VI vf vf_loadn_f16(const uint16_t *p, size_t n, float fill) { return n ? cannon_f16_to_f32(*p) : fill; }
VI void vf_store_f16(uint16_t *p, vf v) { *p = cannon_f32_to_f16(v); }
VI void vf_storen_f16(uint16_t *p, vf v, size_t n) { if (n) *p = cannon_f32_to_f16(v); }
VI void vf_stream_f16(uint16_t *p, vf v) { *p = cannon_f32_to_f16(v); }
VI vf vf_load_bf16(const uint16_t *p) { return cannon_bf16_to_f32(*p); }
VI vf vf_loadn_bf16(const uint16_t *p, size_t n, float fill) { return n ? cannon_bf16_to_f32(*p) : fill; }
VI void vf_store_bf16(uint16_t *p, vf v) { *p = cannon_f32_to_bf16(v); }
VI void vf_storen_bf16(uint16_t *p, vf v, size_t n) { if (n) *p = cannon_f32_to_bf16(v); }
VI void vf_stream_bf16(uint16_t *p, vf v) { *p = cannon_f32_to_bf16(v); }
/* As vf_store_bf16 / vf_stream_bf16 (vec_avx512.h's variants for vectors without subnormal lanes
 * skip a test; this tier has none to skip). */
#define vf_store_bf16_nosub vf_store_bf16
#define vf_stream_bf16_nosub vf_stream_bf16
VI void vf_sfence(void) {}

/* 2^k for k in [-126, 127] from its bits. */
VI float pow2i(int32_t k) { return cannon_bits_f32((uint32_t)(k + 127) << 23); }

/* exp as in vec_avx512.h. Rounding to an integer uses the 1.5*2^23 trick (exact for |v| < 2^22
 * under round-to-nearest), so no libm call is needed. */
static inline vf vf_exp2(vf x, vf e)
{
    if (x != x)
        return x + e;
    /* A clamped x has lost the value e corrects: drop e then (x - max of a row holding 3e38
     * would otherwise come back as a subnormal instead of 0). */
    if (x < CANNON_EXP_LO || x > CANNON_EXP_HI)
        e = 0.0f;
    x = x < CANNON_EXP_LO ? CANNON_EXP_LO : (x > CANNON_EXP_HI ? CANNON_EXP_HI : x);
    volatile float big = 0x1.8p23f; /* volatile: keep the compiler from folding the trick */
    float n = (x * CANNON_LOG2E + big) - big;
    float r = x - n * CANNON_LN2_HI;
    r = r + e;
    r = r - n * CANNON_LN2_LO;
    float p = CANNON_EXP_C6;
    p = p * r + CANNON_EXP_C5;
    p = p * r + CANNON_EXP_C4;
    p = p * r + CANNON_EXP_C3;
    p = p * r + CANNON_EXP_C2;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    int32_t ni = (int32_t)n, n1 = ni >> 1, n2 = ni - n1;
    return (p * pow2i(n1)) * pow2i(n2);
}
VI vf vf_exp(vf x) { return vf_exp2(x, 0.0f); }

/* vf_exp_small as in vec_avx512.h: x in [-87.33, 88] or NaN, no clamps, degree-5 polynomial. */
static inline vf vf_exp_small(vf x)
{
    if (x != x)
        return x;
    volatile float big = CANNON_EXP_SHIFTER; /* volatile: keep the compiler from folding the trick */
    float n = (x * CANNON_LOG2E + big) - big;
    float r = x - n * CANNON_LN2_HI;
    r = r - n * CANNON_LN2_LO;
    float p = CANNON_EXPS_C5;
    p = p * r + CANNON_EXPS_C4;
    p = p * r + CANNON_EXPS_C3;
    p = p * r + CANNON_EXPS_C2;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    return p * pow2i((int32_t)n);
}

static inline vf vf_log(vf x)
{
    if (x != x || x == __builtin_inff())
        return x;
    if (x == 0.0f)
        return -__builtin_inff();
    if (x < 0.0f)
        return __builtin_nanf("");
    float kadj = 0.0f;
    if (x < 0x1p-126f) {
        x *= 0x1p23f;
        kadj = -23.0f;
    }
    const uint32_t off = 0x3f3504f3u; /* bits of sqrt(1/2) */
    uint32_t t = cannon_f32_bits(x) - off;
    int32_t ki = (int32_t)t >> 23;
    float m = cannon_bits_f32((t & 0x7fffffu) + off);
    float k = (float)ki + kadj;
    float f = m - 1.0f;
    float p = CANNON_LOG_C6;
    p = p * f + CANNON_LOG_C5;
    p = p * f + CANNON_LOG_C4;
    p = p * f + CANNON_LOG_C3;
    p = p * f + CANNON_LOG_C2;
    p = p * f + CANNON_LOG_C1;
    p = p * f + CANNON_LOG_C0;
    float f2 = f * f;
    float tt = f2 * f * p;
    tt = tt - f2 * 0.5f;
    tt = tt + k * CANNON_LN2_LO;
    tt = tt + f;
    return tt + k * CANNON_LN2_HI;
}

typedef struct vd {
    double s;
} vd;
VI vd vd_zero(void) { vd a = {0.0}; return a; }
VI vd vd_add(vd a, vf v) { a.s += (double)v; return a; }
VI double vd_hsum(vd a) { return a.s; }
VI void vd_store(double *dst1, vd a) { *dst1 = a.s; }

#endif /* CANNON_OPS_KERNELS_VEC_SCALAR_H_ */
