/*
 * Element access of the elementwise family: one value of any real dtype read or written at a
 * byte address, and runs of values loaded to / stored from fp32 buffers. Shared by the two-input
 * planner (ew_plan.c) and the multi-operand walker (ew_walk.h), so every elementwise operator
 * converts the same way: floats round once to nearest even, float -> integer truncates toward
 * zero (NaN 0, saturating at the int64 range) and narrower integers keep the low bits, BOOL is
 * value != 0.
 */
#ifndef CANNON_OPS_ELEMENTWISE_EW_ACCESS_H_
#define CANNON_OPS_ELEMENTWISE_EW_ACCESS_H_

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "aclnn/aclnn_base.h"
#include "cannon/opdev.h"
#include "fp_convert.h"
#include "../kernels/kernels.h"

/* float -> integer as torch on x86 in practice: NaN -> 0, truncation toward zero, saturation at
 * the int64 range; narrower integers then keep the low bits (two's complement wrap). */
static inline int64_t ew_f2i(double v)
{
    if (v != v)
        return 0;
    if (v >= 9223372036854775807.0)
        return INT64_MAX;
    if (v <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)v;
}

/* double -> float rounded to odd: narrowing that to fp16/bf16 afterwards rounds exactly as one
 * direct rounding would (the extra bits of fp32 are enough to make the double rounding exact). */
static inline float ew_d2f_odd(double d)
{
    float f = (float)d;
    if ((double)f != d && d == d) {
        if (fabs((double)f) > fabs(d))
            f = nextafterf(f, 0.0f);
        uint32_t u = cannon_f32_bits(f) | 1u;
        f = cannon_bits_f32(u);
    }
    return f;
}

static inline void ew_put_int(aclDataType t, char *p, int64_t v)
{
    switch (t) {
    case ACL_UINT8: { uint8_t x = (uint8_t)(uint64_t)v; memcpy(p, &x, 1); break; }
    case ACL_INT8: { uint8_t x = (uint8_t)(uint64_t)v; memcpy(p, &x, 1); break; }
    case ACL_INT16: { uint16_t x = (uint16_t)(uint64_t)v; memcpy(p, &x, 2); break; }
    case ACL_INT32: { uint32_t x = (uint32_t)(uint64_t)v; memcpy(p, &x, 4); break; }
    case ACL_INT64: memcpy(p, &v, 8); break;
    case ACL_UINT16: { uint16_t x = (uint16_t)(uint64_t)v; memcpy(p, &x, 2); break; }
    case ACL_UINT32: { uint32_t x = (uint32_t)(uint64_t)v; memcpy(p, &x, 4); break; }
    case ACL_UINT64: memcpy(p, &v, 8); break;
    case ACL_BOOL: { uint8_t x = v != 0; memcpy(p, &x, 1); break; }
    default: break;
    }
}

static inline int64_t ew_get_int(aclDataType t, const char *p)
{
    switch (t) {
    case ACL_UINT8: return *(const uint8_t *)p;
    case ACL_INT8: return *(const int8_t *)p;
    case ACL_INT16: { int16_t x; memcpy(&x, p, 2); return x; }
    case ACL_INT32: { int32_t x; memcpy(&x, p, 4); return x; }
    case ACL_INT64: { int64_t x; memcpy(&x, p, 8); return x; }
    case ACL_UINT16: { uint16_t x; memcpy(&x, p, 2); return x; }
    case ACL_UINT32: { uint32_t x; memcpy(&x, p, 4); return x; }
    case ACL_UINT64: { int64_t x; memcpy(&x, p, 8); return x; } /* values above INT64_MAX wrap */
    case ACL_BOOL: return *(const uint8_t *)p != 0;
    default: return 0;
    }
}

static inline double ew_get_d(aclDataType t, const char *p)
{
    switch (t) {
    case ACL_FLOAT: { float x; memcpy(&x, p, 4); return x; }
    case ACL_FLOAT16: { uint16_t h; memcpy(&h, p, 2); return cannon_f16_to_f32(h); }
    case ACL_BF16: { uint16_t h; memcpy(&h, p, 2); return cannon_bf16_to_f32(h); }
    case ACL_DOUBLE: { double x; memcpy(&x, p, 8); return x; }
    case ACL_UINT64: { uint64_t x; memcpy(&x, p, 8); return (double)x; }
    default: return (double)ew_get_int(t, p);
    }
}

static inline float ew_get_f(aclDataType t, const char *p)
{
    switch (t) {
    case ACL_DOUBLE: { double x; memcpy(&x, p, 8); return (float)x; }
    case ACL_INT64: return (float)ew_get_int(t, p); /* one rounding, as torch's static_cast */
    case ACL_INT32: return (float)ew_get_int(t, p);
    default: return (float)ew_get_d(t, p);
    }
}

static inline void ew_put_f(aclDataType t, char *p, float v)
{
    switch (t) {
    case ACL_FLOAT: memcpy(p, &v, 4); break;
    case ACL_FLOAT16: { uint16_t h = cannon_f32_to_f16(v); memcpy(p, &h, 2); break; }
    case ACL_BF16: { uint16_t h = cannon_f32_to_bf16(v); memcpy(p, &h, 2); break; }
    case ACL_DOUBLE: { double d = v; memcpy(p, &d, 8); break; }
    case ACL_BOOL: { uint8_t x = v != 0.0f; memcpy(p, &x, 1); break; }
    default: ew_put_int(t, p, ew_f2i(v)); break;
    }
}

static inline void ew_put_d(aclDataType t, char *p, double v)
{
    switch (t) {
    case ACL_FLOAT: { float f = (float)v; memcpy(p, &f, 4); break; }
    case ACL_FLOAT16: { uint16_t h = cannon_f32_to_f16(ew_d2f_odd(v)); memcpy(p, &h, 2); break; }
    case ACL_BF16: { uint16_t h = cannon_f32_to_bf16(ew_d2f_odd(v)); memcpy(p, &h, 2); break; }
    case ACL_DOUBLE: memcpy(p, &v, 8); break;
    case ACL_BOOL: { uint8_t x = v != 0.0; memcpy(p, &x, 1); break; }
    case ACL_UINT64:
        if (v >= 9223372036854775808.0) { /* beyond int64: converted as unsigned, saturating at 2^64 - 1 */
            const uint64_t x = v >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)v;
            memcpy(p, &x, 8);
            break;
        }
        ew_put_int(t, p, ew_f2i(v));
        break;
    default: ew_put_int(t, p, ew_f2i(v)); break;
    }
}

static inline void ew_put_i(aclDataType t, char *p, int64_t v)
{
    if (cannonDtypeIn(t, CANNON_DTS_FLOAT))
        ew_put_d(t, p, (double)v);
    else
        ew_put_int(t, p, v);
}

/* ---- bulk loads and stores of one run: contiguous 16-bit floats through the tier's bulk conversions ---- */
static inline void ew_load_f32(aclDataType t, const char *p, int64_t s, int64_t n, float *d, const cannon_kernel_table *kt)
{
    if (t == ACL_FLOAT && s == 4) {
        memcpy(d, p, (size_t)n * 4);
    } else if (t == ACL_FLOAT16 && s == 2) {
        kt->f16_to_f32(d, (const uint16_t *)(const void *)p, (size_t)n);
    } else if (t == ACL_BF16 && s == 2) {
        kt->bf16_to_f32(d, (const uint16_t *)(const void *)p, (size_t)n);
    } else {
        for (int64_t i = 0; i < n; i++)
            d[i] = ew_get_f(t, p + i * s);
    }
}

static inline void ew_store_f32(aclDataType t, char *p, int64_t s, int64_t n, const float *v, const cannon_kernel_table *kt)
{
    if (t == ACL_FLOAT && s == 4) {
        memcpy(p, v, (size_t)n * 4);
    } else if (t == ACL_FLOAT16 && s == 2) {
        kt->f32_to_f16((uint16_t *)(void *)p, v, (size_t)n);
    } else if (t == ACL_BF16 && s == 2) {
        kt->f32_to_bf16((uint16_t *)(void *)p, v, (size_t)n);
    } else {
        for (int64_t i = 0; i < n; i++)
            ew_put_f(t, p + i * s, v[i]);
    }
}

/* Round v[0, n) to FLOAT16 / BFLOAT16 @p t in place through the tier's bulk conversions (nothing for
 * another t). */
static inline void ew_round16(const cannon_kernel_table *kt, aclDataType t, float *v, int64_t n)
{
    uint16_t h[256];
    if (t != ACL_FLOAT16 && t != ACL_BF16)
        return;
    for (int64_t i = 0; i < n; i += 256) {
        const size_t m = (size_t)(n - i < 256 ? n - i : 256);
        if (t == ACL_FLOAT16) {
            kt->f32_to_f16(h, v + i, m);
            kt->f16_to_f32(v + i, h, m);
        } else {
            kt->f32_to_bf16(h, v + i, m);
            kt->bf16_to_f32(v + i, h, m);
        }
    }
}

#endif /* CANNON_OPS_ELEMENTWISE_EW_ACCESS_H_ */
