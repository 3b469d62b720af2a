/*
 * Scalar fp16 / bf16 <-> fp32 conversions: exact widening, round-to-nearest-even narrowing with
 * IEEE overflow to infinity, gradual underflow, and NaNs kept NaN (quietened). These are the
 * reference the vector conversions are tested against over all 65536 inputs, the operators'
 * scalar tier and libhccl's fp16/bf16 reductions. No hardware support is assumed.
 */
#ifndef CANNON_COMMON_FP_CONVERT_H_
#define CANNON_COMMON_FP_CONVERT_H_

#include <stdint.h>
#include <string.h>

static inline uint32_t cannon_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static inline float cannon_bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline float cannon_bf16_to_f32(uint16_t h)
{
    return cannon_bits_f32((uint32_t)h << 16);
}

static inline uint16_t cannon_f32_to_bf16(float f)
{
    uint32_t u = cannon_f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN: keep sign and top payload, force quiet */
        return (uint16_t)((u >> 16) | 0x40u);
    /* Adding 0x7fff plus the lowest kept bit rounds to nearest, ties to even; a carry into the
     * exponent is the correct result (up to infinity). */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

static inline float cannon_f16_to_f32(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    uint32_t u;
    if (exp == 0x1f) {
        u = sign | 0x7f800000u | (man << 13) | (man ? 0x400000u : 0);
    } else if (exp != 0) {
        u = sign | ((exp + 112u) << 23) | (man << 13);
    } else if (man == 0) {
        u = sign;
    } else {
        /* Subnormal half: value = man * 2^-24, exactly representable as a normal float. */
        float v = (float)man * 0x1p-24f;
        u = sign | cannon_f32_bits(v);
    }
    return cannon_bits_f32(u);
}

static inline uint16_t cannon_f32_to_f16(float f)
{
    const uint32_t u = cannon_f32_bits(f);
    const uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    const uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u) /* NaN */
        return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
    if (a >= 0x477ff000u) /* >= 65520 rounds to infinity (and inf stays inf) */
        return (uint16_t)(sign | 0x7c00u);
    if (a >= 0x38800000u) { /* normal half range: >= 2^-14 */
        uint32_t r = a - 0x38000000u; /* rebias exponent 127 -> 15 */
        r += 0xfffu + ((r >> 13) & 1u);
        return (uint16_t)(sign | (r >> 13));
    }
    if (a < 0x33000000u) /* < 2^-25: rounds to zero (2^-25 itself ties to even = 0) */
        return sign;
    /* Subnormal half: shift the full significand right, rounding to nearest even. */
    const uint32_t e = a >> 23;
    const uint32_t m = (a & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - e; /* 14..24: value = m * 2^(e-150), unit = 2^-24 */
    uint32_t q = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (q & 1u)))
        q++;
    return (uint16_t)(sign | q);
}

#endif /* CANNON_COMMON_FP_CONVERT_H_ */
