/**
 * @file cannon_ascendc/types.h
 * Ascend C's scalar types and kernel qualifiers for a host compiler: `half` (IEEE binary16) and
 * `bfloat16_t` (bfloat16) as 16-bit storage types that convert to and from float exactly as the
 * rest of cannon does (exact widening; narrowing rounds to nearest even, overflows to infinity,
 * keeps subnormals and quietens NaNs), and the qualifiers `__aicore__`, `__global__`, `__gm__`,
 * `__ubuf__`, `__host__` (empty on a CPU) and `GM_ADDR`.
 *
 * Arithmetic on half/bfloat16_t goes through float: `a + b` is a float, and assigning it back to
 * a half rounds once.
 */
#ifndef CANNON_ASCENDC_TYPES_H_
#define CANNON_ASCENDC_TYPES_H_

#include <cstdint>
#include <cstring>
#include <type_traits>

#ifndef __aicore__
#define __aicore__
#endif
#ifndef __global__
#define __global__
#endif
#ifndef __gm__
#define __gm__
#endif
#ifndef __ubuf__
#define __ubuf__
#endif
#ifndef __host__
#define __host__
#endif
#ifndef __inout_pipe__
#define __inout_pipe__(...)
#endif
#ifndef GM_ADDR
#define GM_ADDR __gm__ uint8_t *
#endif

namespace cannon_ascendc {

inline uint32_t F32Bits(float f)
{
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

inline float BitsF32(uint32_t u)
{
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

/* The same results as cannon's C conversions (src/common/fp_convert.h: exact widening; narrowing
 * rounds to nearest even, overflows to infinity, keeps subnormals, quietens NaNs), written without
 * branches so that loops over arrays of half/bfloat16_t vectorize; the tests compare the two over
 * every 16-bit input and a sweep of floats. They rely on the default floating-point environment
 * (round to nearest, subnormals not flushed). */
/* All-ones when @p c holds, else zero: selects without branches. */
inline uint32_t Mask(bool c)
{
    return 0u - static_cast<uint32_t>(c);
}

inline uint32_t Select(uint32_t m, uint32_t a, uint32_t b)
{
    return (a & m) | (b & ~m);
}

inline float F16ToF32(uint16_t h)
{
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t em = h & 0x7fffu;
    const uint32_t shifted = em << 13;
    /* Normal and subnormal halves: rebias by scaling with 2^112 (exact). */
    const uint32_t finite = F32Bits(BitsF32(shifted) * 0x1p112f);
    /* Infinity and NaN (NaNs quietened). */
    const uint32_t special = 0x7f800000u | shifted | (Mask(em > 0x7c00u) & 0x400000u);
    return BitsF32(sign | Select(Mask(em >= 0x7c00u), special, finite));
}

inline uint16_t F32ToF16(float f)
{
    const uint32_t u = F32Bits(f);
    const uint32_t sign = (u >> 16) & 0x8000u;
    const uint32_t a = u & 0x7fffffffu;
    /* Normal results: rebias and round to nearest even on the 13 dropped bits. */
    uint32_t r = a - 0x38000000u;
    r = (r + 0xfffu + ((r >> 13) & 1u)) >> 13;
    /* Subnormal results (and zero): adding 0.5 lines the half's unit up with the float's last bit,
     * so the hardware rounds to nearest even. */
    const uint32_t sub = F32Bits(BitsF32(a) + 0.5f) - 0x3f000000u;
    const uint32_t nan = 0x7e00u | ((a >> 13) & 0x3ffu);
    uint32_t res = Select(Mask(a >= 0x38800000u), r, sub);
    res = Select(Mask(a >= 0x477ff000u), 0x7c00u, res);
    res = Select(Mask(a > 0x7f800000u), nan, res);
    return static_cast<uint16_t>(sign | res);
}

inline float Bf16ToF32(uint16_t h)
{
    return BitsF32(static_cast<uint32_t>(h) << 16);
}

inline uint16_t F32ToBf16(float f)
{
    const uint32_t u = F32Bits(f);
    const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    const uint32_t nan = (u >> 16) | 0x40u;
    return static_cast<uint16_t>(Select(Mask((u & 0x7fffffffu) > 0x7f800000u), nan, rounded));
}

/* A 16-bit float type: Tag picks the format (conversions in Traits). */
template <class Traits>
struct Float16Storage {
    uint16_t val;

    Float16Storage() = default;
    Float16Storage(float f) : val(Traits::FromF32(f)) {}
    Float16Storage(double d) : val(Traits::FromF32(static_cast<float>(d))) {}
    template <class I, typename std::enable_if<std::is_integral<I>::value, int>::type = 0>
    Float16Storage(I i) : val(Traits::FromF32(static_cast<float>(i)))
    {}
    operator float() const { return Traits::ToF32(val); }
    float ToFloat() const { return Traits::ToF32(val); }
    static Float16Storage FromBits(uint16_t bits)
    {
        Float16Storage r;
        r.val = bits;
        return r;
    }
    Float16Storage &operator+=(float o) { return *this = Float16Storage(ToFloat() + o); }
    Float16Storage &operator-=(float o) { return *this = Float16Storage(ToFloat() - o); }
    Float16Storage &operator*=(float o) { return *this = Float16Storage(ToFloat() * o); }
    Float16Storage &operator/=(float o) { return *this = Float16Storage(ToFloat() / o); }
    Float16Storage operator-() const { return FromBits(static_cast<uint16_t>(val ^ 0x8000u)); }
};

struct HalfTraits {
    static uint16_t FromF32(float f) { return F32ToF16(f); }
    static float ToF32(uint16_t h) { return F16ToF32(h); }
};
struct Bf16Traits {
    static uint16_t FromF32(float f) { return F32ToBf16(f); }
    static float ToF32(uint16_t h) { return Bf16ToF32(h); }
};

}  // namespace cannon_ascendc

/** IEEE 754 binary16, Ascend C's `half`. */
using half = cannon_ascendc::Float16Storage<cannon_ascendc::HalfTraits>;
/** bfloat16, Ascend C's `bfloat16_t`. */
using bfloat16_t = cannon_ascendc::Float16Storage<cannon_ascendc::Bf16Traits>;

static_assert(sizeof(half) == 2 && std::is_trivially_copyable<half>::value, "half is 16-bit storage");
static_assert(sizeof(bfloat16_t) == 2 && std::is_trivially_copyable<bfloat16_t>::value, "bfloat16_t is 16-bit");

namespace cannon_ascendc {

template <class T>
struct IsF16 : std::integral_constant<bool, std::is_same<T, half>::value || std::is_same<T, bfloat16_t>::value> {};

/** The type an element is computed in: float for half/bfloat16_t, the type itself otherwise. */
template <class T>
using CalcT = typename std::conditional<IsF16<T>::value, float, T>::type;

template <class T>
inline CalcT<T> Widen(T v)
{
    return static_cast<CalcT<T>>(v);
}

template <class T>
inline T Narrow(CalcT<T> v)
{
    return static_cast<T>(v);
}

}  // namespace cannon_ascendc

#endif /* CANNON_ASCENDC_TYPES_H_ */
