/*
 * Input data of the softmax benchmarks, shared by bench_softmax (cannon) and bench_softmax_dnnl
 * (oneDNN); run_softmax_bench.py builds the same "normal" values for torch with numpy.
 *   uniform: a linear congruential sequence in [-4, 4) (spread 8: every fp32 row on the fast path);
 *   normal:  standard normal samples, as torch.randn (rows of 1024 spread about 6.5, rows of 32000
 *            about 8.5, i.e. partly beyond the fp32 narrow fast path's 8), from a counter-based
 *            hash so that the value of element i does not depend on how the data are generated.
 */
#ifndef CANNON_BENCH_SOFTMAX_DATA_H_
#define CANNON_BENCH_SOFTMAX_DATA_H_

#include <stdint.h>
#include <string.h>

/* The 32-bit finaliser of MurmurHash3 (a bijection with good avalanche). */
static inline uint32_t smb_mix(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

/* Box-Muller needs log, sqrt and cos; the peers' benches are not linked with libm, so double
 * versions accurate to about 1e-15 follow (the data need not be bit-exact: numpy's functions
 * give the same fp32 values except, rarely, in the last bit). */
static inline double smb_ln(double u) /* u > 0, normal */
{
    uint64_t b;
    memcpy(&b, &u, 8);
    int e = (int)((b >> 52) & 0x7ff) - 1023;
    b = (b & 0x000fffffffffffffull) | 0x3ff0000000000000ull;
    double m;
    memcpy(&m, &b, 8);
    if (m > 1.4142135623730951) { /* m in [sqrt(1/2), sqrt(2)]: |s| <= 0.172 */
        m *= 0.5;
        e += 1;
    }
    /* ln m = 2 atanh(s), s = (m - 1) / (m + 1) */
    const double s = (m - 1.0) / (m + 1.0), s2 = s * s;
    double t = 0.0;
    for (int k = 21; k >= 1; k -= 2)
        t = t * s2 + 1.0 / k;
    return 2.0 * s * t + e * 0.6931471805599453;
}
static inline double smb_sqrt(double a) /* a >= 0 */
{
    if (a == 0.0)
        return 0.0;
    double y = a > 1.0 ? a : 1.0;
    for (int k = 0; k < 60; k++) {
        const double ny = 0.5 * (y + a / y);
        if (ny >= y)
            break;
        y = ny;
    }
    return y;
}
static inline double smb_cos(double t) /* |t| <= pi: Taylor series to degree 36 */
{
    const double t2 = t * t;
    double c = 1.0;
    for (int k = 36; k >= 2; k -= 2)
        c = 1.0 - c * t2 / ((double)k * (k - 1));
    return c;
}

/* Standard normal sample number i: Box-Muller on two hashed uniforms, in double
 * (cos(2 pi u2) = -cos(2 pi (u2 - 1/2))). */
static inline float smb_normal(uint64_t i)
{
    const double u1 = ((double)(smb_mix((uint32_t)(2 * i)) >> 8) + 1.0) * 0x1p-24;
    const double u2 = (double)(smb_mix((uint32_t)(2 * i + 1)) >> 8) * 0x1p-24;
    return (float)(-smb_sqrt(-2.0 * smb_ln(u1)) * smb_cos(6.283185307179586 * (u2 - 0.5)));
}

/* Uniform sample: the next value of the sequence in *r, in [-4, 4). */
static inline float smb_uniform(uint32_t *r)
{
    *r = *r * 1664525u + 1013904223u;
    return (float)(*r >> 8) * 0x1p-21f - 4.0f;
}

/* fp32 -> bf16 bits, round to nearest even (finite values). */
static inline uint16_t smb_bf16(float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

#endif /* CANNON_BENCH_SOFTMAX_DATA_H_ */
