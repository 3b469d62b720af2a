/*
 * op::fp16_t (include/aclnn/opdev/fp16_t.h): conversions round to nearest-even exactly once,
 * over every binary16 value and the midpoints between neighbours; integer, long double and
 * arithmetic forms; the conversions back. Exit status 0 when every check holds.
 */
#include "aclnn/opdev/fp16_t.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

static int g_failures = 0;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);         \
            if (++g_failures > 20)                                                                 \
                return 1;                                                                          \
        }                                                                                          \
    } while (0)

static bool is_nan_bits(uint16_t b)
{
    return (b & 0x7C00u) == 0x7C00u && (b & 0x3FFu) != 0;
}

int main()
{
    CHECK(sizeof(op::fp16_t) == 2);
    CHECK(std::is_trivially_copyable<op::fp16_t>::value);

    // every pattern converts to double exactly and back to itself; float goes the same way
    for (uint32_t b = 0; b < 0x10000u; b++) {
        const op::fp16_t h = op::fp16_t::FromBits(static_cast<uint16_t>(b));
        const double d = h.toDouble();
        if (is_nan_bits(static_cast<uint16_t>(b))) {
            CHECK(d != d && h.IsNaN());
            CHECK(op::fp16_t(d).val == ((b & 0x8000u) ? 0xFFFFu : 0x7FFFu));
            continue;
        }
        CHECK(op::fp16_t(d).val == b);
        CHECK(op::fp16_t(static_cast<float>(d)).val == b);
        CHECK(op::fp16_t(static_cast<long double>(d)).val == b);
        CHECK(static_cast<double>(static_cast<float>(h)) == d || (d != d));
    }

    // midpoints between neighbours (exact in double) go to the even one; anything off the
    // midpoint goes to the nearer one (so no value is rounded twice)
    for (uint32_t b = 0; b < 0x7BFFu; b++) {
        const double lo = op::fp16_t::FromBits(static_cast<uint16_t>(b)).toDouble();
        const double hi = op::fp16_t::FromBits(static_cast<uint16_t>(b + 1)).toDouble();
        const double mid = (lo + hi) / 2;
        const uint16_t even = (b & 1) ? static_cast<uint16_t>(b + 1) : static_cast<uint16_t>(b);
        CHECK(op::fp16_t(mid).val == even);
        CHECK(op::fp16_t(-mid).val == (even | 0x8000u));
        CHECK(op::fp16_t(std::nextafter(mid, 0.0)).val == b);
        CHECK(op::fp16_t(std::nextafter(mid, 1e9)).val == b + 1);
        CHECK(op::fp16_t(static_cast<long double>(mid)).val == even);
        CHECK(op::fp16_t(std::nextafter(static_cast<long double>(mid), 0.0L)).val == b);
        // a float just above the midpoint (the double path must not see a rounded midpoint)
        const float fm = static_cast<float>(mid);
        if (static_cast<double>(fm) == mid)
            CHECK(op::fp16_t(std::nextafter(fm, 1e9f)).val == b + 1);
    }

    // overflow: 65504 is the largest finite value, 65520 (its midpoint to 2^16) rounds to infinity
    CHECK(op::fp16_t(65504.0).val == 0x7BFF);
    CHECK(op::fp16_t(65519.99).val == 0x7BFF);
    CHECK(op::fp16_t(65520.0).val == 0x7C00);
    CHECK(op::fp16_t(-65520.0f).val == 0xFC00);
    CHECK(op::fp16_t(1e300).val == 0x7C00);
    CHECK(op::fp16_t(std::numeric_limits<double>::infinity()).val == 0x7C00);
    CHECK(op::fp16_t(-std::numeric_limits<float>::infinity()).val == 0xFC00);
    CHECK(op::fp16_t(std::numeric_limits<double>::quiet_NaN()).val == 0x7FFF);
    // underflow: half the smallest subnormal ties to zero, just above it to the subnormal
    CHECK(op::fp16_t(std::ldexp(1.0, -25)).val == 0);
    CHECK(op::fp16_t(std::nextafter(std::ldexp(1.0, -25), 1.0)).val == 1);
    CHECK(op::fp16_t(std::ldexp(3.0, -26)).val == 1);
    CHECK(op::fp16_t(-1e-300).val == 0x8000);
    CHECK(op::fp16_t(std::numeric_limits<double>::denorm_min()).val == 0);

    // integers: exact up to 2048, rounded above, infinity from 65520
    CHECK(op::fp16_t(0).val == 0 && op::fp16_t(1).val == 0x3C00 && op::fp16_t(-2).val == 0xC000);
    CHECK(op::fp16_t(2049).val == op::fp16_t(2048.0).val);
    CHECK(op::fp16_t(2051).val == op::fp16_t(2052.0).val);
    CHECK(op::fp16_t(static_cast<int8_t>(-128)).toDouble() == -128.0);
    CHECK(op::fp16_t(static_cast<uint8_t>(255)).toDouble() == 255.0);
    CHECK(op::fp16_t(static_cast<int16_t>(-32768)).toDouble() == -32768.0);
    CHECK(op::fp16_t(static_cast<uint16_t>(65504)).val == 0x7BFF);
    CHECK(op::fp16_t(static_cast<uint16_t>(65535)).val == 0x7C00);
    CHECK(op::fp16_t(65519).val == 0x7BFF);
    CHECK(op::fp16_t(65520).val == 0x7C00);
    CHECK(op::fp16_t(100000).val == 0x7C00);
    CHECK(op::fp16_t(static_cast<int64_t>(-100000)).val == 0xFC00);
    CHECK(op::fp16_t(std::numeric_limits<uint64_t>::max()).val == 0x7C00);
    CHECK(op::fp16_t(std::numeric_limits<int64_t>::min()).val == 0xFC00);
    CHECK(op::fp16_t(3LL).toDouble() == 3.0 && op::fp16_t(7UL).toDouble() == 7.0);
    CHECK(op::fp16_t(true).val == 0x3C00);

    // back to integers: truncation toward zero, saturation, NaN → 0
    CHECK(op::fp16_t(8.1).toInt32() == 8 && op::fp16_t(-8.9).toInt32() == -8);
    CHECK(op::fp16_t(300).toInt8() == 127 && op::fp16_t(-300).toInt8() == -128);
    CHECK(op::fp16_t(-3).toUInt8() == 0 && op::fp16_t(300).toUInt8() == 255);
    CHECK(op::fp16_t(65504).toUInt16() == 65504 && op::fp16_t(65504).toInt16() == 32767);
    CHECK(op::fp16_t(std::numeric_limits<double>::infinity()).toInt64() ==
          std::numeric_limits<int64_t>::max());
    CHECK(op::fp16_t(std::numeric_limits<double>::quiet_NaN()).toUInt32() == 0);
    CHECK(op::fp16_t(-2.5).toUInt64() == 0);

    // arithmetic: one rounding of the exact result
    const op::fp16_t one(1.0), ulp(std::ldexp(1.0, -10)), half_ulp(std::ldexp(1.0, -11));
    CHECK((one + half_ulp).val == one.val);                               // tie → even (1.0)
    CHECK((one + ulp + half_ulp).val == op::fp16_t(1.0 + 2 * std::ldexp(1.0, -10)).val); // tie → even
    CHECK((op::fp16_t(65504) + op::fp16_t(16)).val == 0x7C00);            // 65520 rounds up
    CHECK((op::fp16_t(65504) + op::fp16_t(8)).val == 0x7BFF);
    CHECK((op::fp16_t(1) / op::fp16_t(3)).val == op::fp16_t(1.0 / 3.0).val);
    CHECK((op::fp16_t(3) * op::fp16_t(0.1)).val == op::fp16_t(3 * op::fp16_t(0.1).toDouble()).val);
    CHECK((op::fp16_t(2) - op::fp16_t(0.5)).toDouble() == 1.5);
    CHECK((op::fp16_t(1) / op::fp16_t(0)).IsInf() && (op::fp16_t(0) / op::fp16_t(0)).IsNaN());
    CHECK((-op::fp16_t(2)).val == 0xC000 && (+op::fp16_t(2)).val == 0x4000);
    op::fp16_t acc(0);
    acc += op::fp16_t(8.1);
    acc -= op::fp16_t(9.5);
    acc *= op::fp16_t(2);
    acc /= op::fp16_t(4);
    CHECK(acc.val == op::fp16_t(((op::fp16_t(8.1).toDouble() - 9.5) * 2) / 4).val);
    // mixed with built-in types
    CHECK((op::fp16_t(1.5) * 2.0f).toDouble() == 3.0 && (2 * op::fp16_t(1.5)).toDouble() == 3.0);
    CHECK(op::fp16_t(0.5) > 0 && 1.0 >= op::fp16_t(1) && op::fp16_t(2) != 3);

    // comparisons: IEEE
    const op::fp16_t nan(std::numeric_limits<float>::quiet_NaN());
    CHECK(!(nan == nan) && nan != nan && !(nan < one) && !(nan >= one));
    CHECK(op::fp16_t(0.0) == op::fp16_t(-0.0));
    CHECK(op::fp16_t(3.2) > op::fp16_t(3.1) && op::fp16_t(3.2) < op::fp16_t(3.3));
    CHECK(op::fp16_t(3.2) <= op::fp16_t(3.2) && op::fp16_t(3.3) >= op::fp16_t(3.2));

    // fields
    uint16_t s = 9, m = 9;
    int16_t e = 9;
    op::ExtractFP16(op::fp16_t(65504).val, &s, &e, &m);
    CHECK(s == 0 && e == 30 && m == 0x7FF);
    op::ExtractFP16(op::fp16_t(-std::ldexp(1.0, -24)).val, &s, &e, &m);
    CHECK(s == 1 && e == 1 && m == 1);

    // what CANN's calling programs do with it
    std::vector<op::fp16_t> data(static_cast<int64_t>(4), 1.0), zeros(4, 0);
    CHECK(data[3].val == 0x3C00 && zeros[0].val == 0 && static_cast<float>(data[1]) == 1.0f);

    if (g_failures)
        std::fprintf(stderr, "%d checks failed\n", g_failures);
    return g_failures ? 1 : 0;
}
