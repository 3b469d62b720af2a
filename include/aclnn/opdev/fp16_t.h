/**
 * @file fp16_t.h
 * op::fp16_t: an IEEE 754 binary16 value for host code, the half type CANN's calling programs use
 * to fill and read FLOAT16 tensors (`std::vector<op::fp16_t> data(n, 1.0)`, then
 * `static_cast<float>(data[i])` on the results).
 *
 * C++ only (C++11 and later), header-only; C code keeps FLOAT16 data in uint16_t and converts with
 * aclFloatToFloat16 / aclFloat16ToFloat (acl/acl_base.h).
 *
 * The type is two bytes holding the binary16 bit pattern (`val`), trivially copyable, so a
 * std::vector<op::fp16_t> is the byte image of a FLOAT16 tensor. Semantics:
 *  - construction and assignment from float, double, long double and every integer type round to
 *    nearest, ties to even, once (a double is converted from its own bits, not through float);
 *    magnitudes from 65520 up become infinity; NaN becomes 0x7FFF (0xFFFF when negative);
 *  - toFloat / toDouble (and the conversions to float and double) are exact;
 *  - toInt8 ... toUInt64 truncate toward zero and saturate to the target's range; NaN gives 0;
 *  - + - * / (and the compound forms) of two fp16_t are the exactly rounded binary16 results: they
 *    are computed in double, where the four operations of binary16 operands round innocuously, and
 *    rounded once; with an arithmetic operand of another type, that operand is converted to double
 *    and the result rounded once to binary16;
 *  - comparisons follow IEEE (NaN unordered, -0 == +0).
 */
#ifndef CANNON_ACLNN_OPDEV_FP16_T_H_
#define CANNON_ACLNN_OPDEV_FP16_T_H_

#ifndef __cplusplus
#error "aclnn/opdev/fp16_t.h declares the C++ type op::fp16_t; C code keeps FLOAT16 data in uint16_t (see acl/acl_base.h's aclFloatToFloat16)"
#else

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iosfwd>
#include <limits>
#include <type_traits>

namespace op {

namespace fp16_detail {

/* binary16 bits of @p d rounded to nearest, ties to even */
inline uint16_t FromDouble(double d)
{
    uint64_t b;
    std::memcpy(&b, &d, sizeof b);
    const uint16_t sign = static_cast<uint16_t>((b >> 48) & 0x8000u);
    const int bexp = static_cast<int>((b >> 52) & 0x7FF);
    const uint64_t frac = b & ((static_cast<uint64_t>(1) << 52) - 1);
    if (bexp == 0x7FF)
        return static_cast<uint16_t>(sign | (frac ? 0x7FFFu : 0x7C00u));
    if (bexp == 0)  // zero or a double subnormal: far below binary16's smallest subnormal
        return sign;
    const int e = bexp - 1023;                                       // value = sig * 2^(e - 52)
    const uint64_t sig = frac | (static_cast<uint64_t>(1) << 52);    // 53 significant bits
    if (e > 15)
        return static_cast<uint16_t>(sign | 0x7C00u);
    // binary16 normals keep 11 significant bits (shift 42); subnormals count units of 2^-24
    const int shift = e >= -14 ? 42 : 28 - e;
    if (shift > 62)
        return sign;
    uint64_t q = sig >> shift;
    const uint64_t rem = sig & ((static_cast<uint64_t>(1) << shift) - 1);
    const uint64_t halfway = static_cast<uint64_t>(1) << (shift - 1);
    if (rem > halfway || (rem == halfway && (q & 1)))
        q++;
    if (e < -14)  // subnormal (q may have rounded up to 0x400, the smallest normal: same bits)
        return static_cast<uint16_t>(sign | q);
    int he = e + 15;
    if (q == 0x800) {  // rounded up to the next binade
        q = 0x400;
        he++;
    }
    if (he >= 31)
        return static_cast<uint16_t>(sign | 0x7C00u);
    return static_cast<uint16_t>(sign | (static_cast<uint32_t>(he) << 10) | (q & 0x3FFu));
}

inline double ToDouble(uint16_t v)
{
    const int bexp = (v >> 10) & 0x1F;
    const int frac = v & 0x3FF;
    double m;
    if (bexp == 0)
        m = std::ldexp(static_cast<double>(frac), -24);
    else if (bexp == 31)
        m = frac ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    else
        m = std::ldexp(static_cast<double>(frac | 0x400), bexp - 25);
    return (v & 0x8000u) ? -m : m;
}

template <typename I>
inline I ToInt(double d)
{
    if (d != d)
        return 0;
    const double t = std::trunc(d);
    if (t <= static_cast<double>(std::numeric_limits<I>::min()))
        return std::numeric_limits<I>::min();
    if (t >= static_cast<double>(std::numeric_limits<I>::max()))
        return std::numeric_limits<I>::max();
    return static_cast<I>(t);
}

}  // namespace fp16_detail

struct fp16_t {
    /** The binary16 bit pattern. */
    uint16_t val;

    fp16_t() : val(0) {}
    fp16_t(float f) : val(fp16_detail::FromDouble(static_cast<double>(f))) {}
    fp16_t(double d) : val(fp16_detail::FromDouble(d)) {}
    /** Rounded from its own bits too (assumes the default rounding mode, to nearest). */
    fp16_t(long double d) : val(FromLongDouble(d)) {}
    /** Any integer (bool included): its value, rounded. */
    template <typename I, typename std::enable_if<std::is_integral<I>::value, int>::type = 0>
    fp16_t(I i) : val(FromInteger(i))
    {
    }

    /** An fp16_t holding the bit pattern @p bits. */
    static fp16_t FromBits(uint16_t bits)
    {
        fp16_t r;
        r.val = bits;
        return r;
    }

    float toFloat() const { return static_cast<float>(fp16_detail::ToDouble(val)); }
    double toDouble() const { return fp16_detail::ToDouble(val); }
    int8_t toInt8() const { return fp16_detail::ToInt<int8_t>(toDouble()); }
    uint8_t toUInt8() const { return fp16_detail::ToInt<uint8_t>(toDouble()); }
    int16_t toInt16() const { return fp16_detail::ToInt<int16_t>(toDouble()); }
    uint16_t toUInt16() const { return fp16_detail::ToInt<uint16_t>(toDouble()); }
    int32_t toInt32() const { return fp16_detail::ToInt<int32_t>(toDouble()); }
    uint32_t toUInt32() const { return fp16_detail::ToInt<uint32_t>(toDouble()); }
    int64_t toInt64() const { return fp16_detail::ToInt<int64_t>(toDouble()); }
    uint64_t toUInt64() const { return fp16_detail::ToInt<uint64_t>(toDouble()); }

    operator float() const { return toFloat(); }
    operator double() const { return toDouble(); }

    bool IsNaN() const { return (val & 0x7C00u) == 0x7C00u && (val & 0x3FFu) != 0; }
    bool IsInf() const { return (val & 0x7FFFu) == 0x7C00u; }

    fp16_t operator-() const { return FromBits(static_cast<uint16_t>(val ^ 0x8000u)); }
    fp16_t operator+() const { return *this; }

    fp16_t &operator+=(fp16_t o) { return *this = fp16_t(toDouble() + o.toDouble()); }
    fp16_t &operator-=(fp16_t o) { return *this = fp16_t(toDouble() - o.toDouble()); }
    fp16_t &operator*=(fp16_t o) { return *this = fp16_t(toDouble() * o.toDouble()); }
    fp16_t &operator/=(fp16_t o) { return *this = fp16_t(toDouble() / o.toDouble()); }

private:
    static uint16_t FromLongDouble(long double d)
    {
        if (d != d)
            return std::signbit(d) ? 0xFFFFu : 0x7FFFu;
        if (std::fabs(d) >= 65520.0L)
            return d < 0 ? 0xFC00u : 0x7C00u;
        if (d == 0)
            return std::signbit(d) ? 0x8000u : 0u;
        // round at binary16's last kept bit (11 significant bits, or the 2^-24 unit of subnormals)
        // in long double, where the scaling is exact; nearbyint rounds ties to even in the default
        // rounding mode; the rounded value is exact in double and in binary16
        int e = 0;
        (void)std::frexp(d, &e);
        const int unit = e - 11 > -24 ? e - 11 : -24;
        const long double q = std::nearbyint(std::ldexp(d, -unit));
        return fp16_detail::FromDouble(std::ldexp(static_cast<double>(q), unit));
    }
    template <typename I>
    static uint16_t FromInteger(I i)
    {
        return FromInteger(i, std::is_signed<I>());
    }
    // |i| >= 65520 is infinity; below, the integer is exact in double
    template <typename I>
    static uint16_t FromInteger(I i, std::true_type)
    {
        const intmax_t v = static_cast<intmax_t>(i);
        if (v <= -65520)
            return 0xFC00u;
        if (v >= 65520)
            return 0x7C00u;
        return fp16_detail::FromDouble(static_cast<double>(v));
    }
    template <typename I>
    static uint16_t FromInteger(I i, std::false_type)
    {
        const uintmax_t v = static_cast<uintmax_t>(i);
        if (v >= 65520u)
            return 0x7C00u;
        return fp16_detail::FromDouble(static_cast<double>(v));
    }
};

inline fp16_t operator+(fp16_t a, fp16_t b) { return fp16_t(a.toDouble() + b.toDouble()); }
inline fp16_t operator-(fp16_t a, fp16_t b) { return fp16_t(a.toDouble() - b.toDouble()); }
inline fp16_t operator*(fp16_t a, fp16_t b) { return fp16_t(a.toDouble() * b.toDouble()); }
inline fp16_t operator/(fp16_t a, fp16_t b) { return fp16_t(a.toDouble() / b.toDouble()); }
inline bool operator==(fp16_t a, fp16_t b) { return a.toDouble() == b.toDouble(); }
inline bool operator!=(fp16_t a, fp16_t b) { return a.toDouble() != b.toDouble(); }
inline bool operator<(fp16_t a, fp16_t b) { return a.toDouble() < b.toDouble(); }
inline bool operator<=(fp16_t a, fp16_t b) { return a.toDouble() <= b.toDouble(); }
inline bool operator>(fp16_t a, fp16_t b) { return a.toDouble() > b.toDouble(); }
inline bool operator>=(fp16_t a, fp16_t b) { return a.toDouble() >= b.toDouble(); }

/* mixed with another arithmetic type: exact matches, so `h * 2.0f` or `h > 0` are not ambiguous
   between these and the built-in operators reached through the conversions to float / double */
#define CANNON_FP16_MIXED_(OP, RET)                                                              \
    template <typename T, typename std::enable_if<std::is_arithmetic<T>::value, int>::type = 0>        \
    inline RET operator OP(fp16_t a, T b)                                                              \
    {                                                                                                  \
        return RET(a.toDouble() OP static_cast<double>(b));                                            \
    }                                                                                                  \
    template <typename T, typename std::enable_if<std::is_arithmetic<T>::value, int>::type = 0>        \
    inline RET operator OP(T a, fp16_t b)                                                              \
    {                                                                                                  \
        return RET(static_cast<double>(a) OP b.toDouble());                                            \
    }
CANNON_FP16_MIXED_(+, fp16_t)
CANNON_FP16_MIXED_(-, fp16_t)
CANNON_FP16_MIXED_(*, fp16_t)
CANNON_FP16_MIXED_(/, fp16_t)
CANNON_FP16_MIXED_(==, bool)
CANNON_FP16_MIXED_(!=, bool)
CANNON_FP16_MIXED_(<, bool)
CANNON_FP16_MIXED_(<=, bool)
CANNON_FP16_MIXED_(>, bool)
CANNON_FP16_MIXED_(>=, bool)
#undef CANNON_FP16_MIXED_

/** Printed as its float value. */
template <typename C, typename Tr>
inline std::basic_ostream<C, Tr> &operator<<(std::basic_ostream<C, Tr> &os, fp16_t h)
{
    return os << h.toFloat();
}

/**
 * The fields of binary16 @p v: sign bit, exponent (biased; 1 for subnormals and zero, so that
 * value = man * 2^(exp - 25) for every finite value) and significand with the implicit bit of
 * normal numbers (0x400) set.
 */
inline void ExtractFP16(uint16_t v, uint16_t *sign, int16_t *exp, uint16_t *man)
{
    const uint16_t e = static_cast<uint16_t>((v >> 10) & 0x1F);
    *sign = static_cast<uint16_t>(v >> 15);
    *exp = static_cast<int16_t>(e == 0 ? 1 : e);
    *man = static_cast<uint16_t>((v & 0x3FFu) | (e != 0 && e != 31 ? 0x400u : 0u));
}

}  // namespace op

#endif /* __cplusplus */
#endif /* CANNON_ACLNN_OPDEV_FP16_T_H_ */
