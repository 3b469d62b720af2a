/*
 * sin and cos of floats beyond vf_sincos's fast range (|x| > 2^24), inf and NaN: the scalar path
 * every tier's vf_sincos falls back to, lane by lane (vmath_ext.h).
 *
 * Payne-Hanek reduction: |x| = m 2^e with m a 24-bit integer and e >= 1, so x 2/pi = m sum_i b_i
 * 2^(e-i) over the bits b_i of 2/pi (b_1 first after the binary point). Bits with e - i >= 2 add
 * multiples of 4 (m is an integer) and cannot change the quadrant or the remainder, so only the
 * 96 bits i = e-1 .. e+94 are needed: T = that window as an integer, P = m T mod 2^96 (32-bit limb
 * products), and x 2/pi mod 4 = P / 2^94. Its integer part rounded to nearest is the quadrant q,
 * the rest the fraction f in [-1/2, 1/2), of which 64 bits are kept (the bits of 2/pi beyond the
 * window change it by less than 2^-70). r = f pi/2 in double is then accurate to about 2^-50
 * relative even for the x closest to a multiple of pi/2, far more than fp32 needs; sin or cos
 * of r come from the same Taylor polynomials as the fast path.
 */
#include <stdint.h>
#include <string.h>

#include "vmath_consts.h"

float cannon_vm_sincos_big(float x, int want_cos);

/* 2/pi in binary: 32 bits a word, the first word holding b_1 .. b_32. Seven words cover the
 * largest window (e = 104: bits 103 .. 198). */
static const uint32_t g_two_over_pi[8] = {0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u,
                                          0xdb629599u, 0x3c439041u, 0xfe5163abu, 0xdebbc561u};

static double sin_poly(double r)
{
    const double r2 = r * r;
    double p = CANNON_SIN_S11;
    p = p * r2 + CANNON_SIN_S9;
    p = p * r2 + CANNON_SIN_S7;
    p = p * r2 + CANNON_SIN_S5;
    p = p * r2 + CANNON_SIN_S3;
    return r + r * r2 * p;
}

static double cos_poly(double r)
{
    const double r2 = r * r;
    double p = CANNON_COS_C12;
    p = p * r2 + CANNON_COS_C10;
    p = p * r2 + CANNON_COS_C8;
    p = p * r2 + CANNON_COS_C6;
    p = p * r2 + CANNON_COS_C4;
    return (1.0 - 0.5 * r2) + r2 * r2 * p;
}

/* 32 bits of 2/pi starting at bit index @p k (0-based: index 0 is b_1; k >= -1, and index -1 is
 * b_0, the integer part of 2/pi: 0) */
static uint32_t window_word(int k)
{
    if (k < 0)
        return g_two_over_pi[0] >> -k;
    const int w = k >> 5, sh = k & 31;
    const uint32_t hi = g_two_over_pi[w];
    return sh ? (hi << sh) | (g_two_over_pi[w + 1] >> (32 - sh)) : hi;
}

/* sin (want_cos 0) or cos (1) of |x| = q pi/2 + r, q mod 4 given, negated for sin of x < 0 */
static float finish(int q, double r, int want_cos, int negative)
{
    const int k = (q + want_cos) & 3;
    double v = k & 1 ? cos_poly(r) : sin_poly(r);
    if (k & 2)
        v = -v;
    if (negative && !want_cos)
        v = -v;
    return (float)v;
}

float cannon_vm_sincos_big(float x, int want_cos)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    const uint32_t ex = (bits >> 23) & 0xffu;
    const int negative = (int)(bits >> 31);
    if (ex == 0xffu)
        return x - x; /* inf -> NaN, NaN -> NaN */
    const int e = (int)ex - 150; /* |x| = m 2^e */
    if (e < 1) {
        /* |x| < 2^24 (vf_sincos's fast range, not passed here by it): its reduction in double */
        const double d = __builtin_fabs((double)x);
        const double qd = __builtin_rint(d * CANNON_2_PI);
        const double r = ((d - qd * CANNON_PIO2_1) - qd * CANNON_PIO2_2) - qd * CANNON_PIO2_3;
        if (x == 0.0f)
            return want_cos ? 1.0f : x;
        return finish((int)((int64_t)qd & 3), r, want_cos, negative);
    }
    const uint64_t m = (bits & 0x7fffffu) | 0x800000u;
    const int start = e - 2; /* index of b_(e-1) */
    const uint64_t t2 = window_word(start), t1 = window_word(start + 32), t0 = window_word(start + 64);
    /* P = m T mod 2^96 in 32-bit limbs c2 c1 c0 */
    const uint64_t a0 = m * t0;
    const uint64_t a1 = m * t1 + (a0 >> 32);
    const uint64_t a2 = m * t2 + (a1 >> 32);
    const uint32_t c0 = (uint32_t)a0, c1 = (uint32_t)a1, c2 = (uint32_t)a2;
    /* P / 2^94: the integer part is c2's top 2 bits; the fraction's next 64 bits follow */
    int q = (int)(c2 >> 30);
    const uint64_t fr = ((uint64_t)(c2 & 0x3fffffffu) << 34) | ((uint64_t)c1 << 2) | (c0 >> 30);
    double f;
    if (fr >> 63) { /* fraction >= 1/2: the nearest quadrant is the next one, f = fraction - 1 */
        q = (q + 1) & 3;
        f = -(double)(0 - fr) * 0x1p-64;
    } else {
        f = (double)fr * 0x1p-64;
    }
    return finish(q, f * 0x1.921fb54442d18p+0, want_cos, negative); /* r = f pi/2 */
}
