/*
 * The vector instructions of kernel_operator.h against float64 references: every instruction in
 * the count form for half, bfloat16_t, float and the integer types it takes, the mask/repeat form
 * for the binary, unary and scalar instructions, Cast with every RoundMode, compare/select, the
 * reductions, GatherMask, Copy, DataCopy/DataCopyPad, and half/bfloat16_t's conversions against
 * cannon's C conversions. The instructions run on a TPipe over the thread's unified buffer (no
 * launch needed). Built twice: with the checker on and off.
 */
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "kernel_operator.h"
#include "fp_convert.h"
#include "ascendc_test.h"

using namespace AscendC;

namespace {

uint32_t g_seed = 0x2468aceu;
uint32_t Rand()
{
    g_seed = g_seed * 1664525u + 1013904223u;
    return g_seed >> 8;
}
double Uniform(double lo, double hi)
{
    return lo + (hi - lo) * (Rand() & 0xffffff) / 16777216.0;
}

template <class T>
double D(T v)
{
    return static_cast<double>(static_cast<cannon_ascendc::CalcT<T>>(v));
}

/* T's value nearest to d, rounded once (from float for the 16-bit types: exact for these ops). */
template <class T>
T FromD(double d)
{
    if constexpr (cannon_ascendc::IsF16<T>::value)
        return T(static_cast<float>(d));
    else if constexpr (std::is_integral<T>::value)
        return static_cast<T>(std::llround(d));
    else
        return static_cast<T>(d);
}

template <class T>
bool SameBits(T a, T b)
{
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
double Eps()
{
    if constexpr (std::is_same<T, half>::value)
        return 0x1p-10;
    else if constexpr (std::is_same<T, bfloat16_t>::value)
        return 0x1p-7;
    else if constexpr (std::is_same<T, float>::value)
        return 0x1p-23;
    else
        return 0;
}

template <class T>
const char *Name()
{
    if constexpr (std::is_same<T, half>::value) return "half";
    else if constexpr (std::is_same<T, bfloat16_t>::value) return "bfloat16_t";
    else if constexpr (std::is_same<T, float>::value) return "float";
    else if constexpr (std::is_same<T, int16_t>::value) return "int16_t";
    else if constexpr (std::is_same<T, int32_t>::value) return "int32_t";
    else if constexpr (std::is_same<T, uint16_t>::value) return "uint16_t";
    else if constexpr (std::is_same<T, uint32_t>::value) return "uint32_t";
    else if constexpr (std::is_same<T, int8_t>::value) return "int8_t";
    else if constexpr (std::is_same<T, uint8_t>::value) return "uint8_t";
    else return "int64_t";
}

/* A TPipe with three 8 KiB working tensors. */
struct Bench {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b0, b1, b2, b3;
    Bench()
    {
        pipe.InitBuffer(b0, 8192);
        pipe.InitBuffer(b1, 8192);
        pipe.InitBuffer(b2, 8192);
        pipe.InitBuffer(b3, 8192);
    }
};

constexpr int32_t kN = 1000; /* not a multiple of any repeat */

enum Kind { kExact, kTol };

template <class T, class Fn, class Ref>
void CheckBinary(const char *op, Fn fn, Ref ref, double lo, double hi, Kind kind, bool nonzeroB = false)
{
    Bench bench;
    LocalTensor<T> a = bench.b0.Get<T>(), b = bench.b1.Get<T>(), d = bench.b2.Get<T>();
    for (int32_t i = 0; i < kN; i++) {
        a.SetValue(i, FromD<T>(Uniform(lo, hi)));
        double bv = Uniform(lo, hi);
        if (nonzeroB && std::fabs(bv) < 0.5)
            bv = bv < 0 ? -1.5 : 1.5;
        b.SetValue(i, FromD<T>(bv));
    }
    fn(d, a, b, kN);
    int bad = 0;
    for (int32_t i = 0; i < kN; i++) {
        const double r = ref(D(a.GetValue(i)), D(b.GetValue(i)));
        const T want = FromD<T>(r);
        const T got = d.GetValue(i);
        const bool ok = kind == kExact ? SameBits(got, want) : std::fabs(D(got) - r) <= 2 * Eps<T>() * std::fabs(r);
        if (!ok && bad++ < 3)
            std::fprintf(stderr, "%s<%s>[%d]: %.9g op %.9g = %.9g, want %.9g\n", op, Name<T>(), i, D(a.GetValue(i)),
                         D(b.GetValue(i)), D(got), r);
    }
    EXPECT_MSG(bad == 0, "%s<%s>: %d wrong", op, Name<T>(), bad);
}

template <class T, class Fn, class Ref>
void CheckUnary(const char *op, Fn fn, Ref ref, double lo, double hi, Kind kind)
{
    Bench bench;
    LocalTensor<T> a = bench.b0.Get<T>(), d = bench.b2.Get<T>();
    for (int32_t i = 0; i < kN; i++)
        a.SetValue(i, FromD<T>(Uniform(lo, hi)));
    fn(d, a, kN);
    int bad = 0;
    for (int32_t i = 0; i < kN; i++) {
        const double r = ref(D(a.GetValue(i)));
        const T want = FromD<T>(r);
        const T got = d.GetValue(i);
        const double tol = (std::is_same<T, float>::value ? 4 : 1) * Eps<T>() * std::fabs(r);
        const bool ok = kind == kExact ? SameBits(got, want) : std::fabs(D(got) - r) <= tol;
        if (!ok && bad++ < 3)
            std::fprintf(stderr, "%s<%s>[%d]: f(%.9g) = %.9g, want %.9g\n", op, Name<T>(), i, D(a.GetValue(i)),
                         D(got), r);
    }
    EXPECT_MSG(bad == 0, "%s<%s>: %d wrong", op, Name<T>(), bad);
}

#define BIN(Op) [](auto &d, auto &a, auto &b, int32_t n) { Op(d, a, b, n); }
#define UN(Op) [](auto &d, auto &a, int32_t n) { Op(d, a, n); }

template <class T>
void FloatOps()
{
    CheckBinary<T>("Add", BIN(Add), [](double x, double y) { return x + y; }, -100, 100, kExact);
    CheckBinary<T>("Sub", BIN(Sub), [](double x, double y) { return x - y; }, -100, 100, kExact);
    CheckBinary<T>("Mul", BIN(Mul), [](double x, double y) { return x * y; }, -20, 20, kExact);
    CheckBinary<T>("Div", BIN(Div), [](double x, double y) { return x / y; }, -20, 20, kExact, true);
    CheckBinary<T>("Max", BIN(Max), [](double x, double y) { return x > y ? x : y; }, -100, 100, kExact);
    CheckBinary<T>("Min", BIN(Min), [](double x, double y) { return x < y ? x : y; }, -100, 100, kExact);
    CheckUnary<T>("Exp", UN(Exp), [](double x) { return std::exp(x); }, -8, 8, kTol);
    CheckUnary<T>("Ln", UN(Ln), [](double x) { return std::log(x); }, 0.01, 1000, kTol);
    CheckUnary<T>("Abs", UN(Abs), [](double x) { return std::fabs(x); }, -100, 100, kExact);
    CheckUnary<T>("Relu", UN(Relu), [](double x) { return x > 0 ? x : 0.0; }, -100, 100, kExact);
    CheckUnary<T>("Sqrt", UN(Sqrt), [](double x) { return std::sqrt(x); }, 0, 1000, kExact);
    CheckUnary<T>("Rsqrt", UN(Rsqrt), [](double x) { return 1 / std::sqrt(x); }, 0.01, 1000, kTol);
    CheckUnary<T>("Reciprocal", UN(Reciprocal), [](double x) { return 1 / x; }, 0.5, 100, kExact);
    const T s = FromD<T>(2.5);
    CheckUnary<T>("Adds", [s](auto &d, auto &a, int32_t n) { Adds(d, a, s, n); },
                  [](double x) { return x + 2.5; }, -100, 100, kExact);
    CheckUnary<T>("Muls", [s](auto &d, auto &a, int32_t n) { Muls(d, a, s, n); },
                  [](double x) { return x * 2.5; }, -100, 100, kExact);
    CheckUnary<T>("Maxs", [s](auto &d, auto &a, int32_t n) { Maxs(d, a, s, n); },
                  [](double x) { return x > 2.5 ? x : 2.5; }, -10, 10, kExact);
    CheckUnary<T>("Mins", [s](auto &d, auto &a, int32_t n) { Mins(d, a, s, n); },
                  [](double x) { return x < 2.5 ? x : 2.5; }, -10, 10, kExact);
    const T alpha = FromD<T>(0.125);
    CheckUnary<T>("LeakyRelu", [alpha](auto &d, auto &a, int32_t n) { LeakyRelu(d, a, alpha, n); },
                  [](double x) { return x >= 0 ? x : x * 0.125; }, -100, 100, kExact);
    CheckUnary<T>("Duplicate", [s](auto &d, auto &, int32_t n) { Duplicate(d, s, n); },
                  [](double) { return 2.5; }, -1, 1, kExact);
}

template <class T>
void IntOps()
{
    CheckBinary<T>("Add", BIN(Add), [](double x, double y) { return x + y; }, -1000, 1000, kExact);
    CheckBinary<T>("Sub", BIN(Sub), [](double x, double y) { return x - y; }, -1000, 1000, kExact);
    CheckBinary<T>("Mul", BIN(Mul), [](double x, double y) { return x * y; }, -100, 100, kExact);
    CheckBinary<T>("Max", BIN(Max), [](double x, double y) { return x > y ? x : y; }, -1000, 1000, kExact);
    CheckBinary<T>("Min", BIN(Min), [](double x, double y) { return x < y ? x : y; }, -1000, 1000, kExact);
    CheckUnary<T>("Abs", UN(Abs), [](double x) { return std::fabs(x); }, -1000, 1000, kExact);
    CheckUnary<T>("Relu", UN(Relu), [](double x) { return x > 0 ? x : 0.0; }, -1000, 1000, kExact);
    const T s = static_cast<T>(7);
    CheckUnary<T>("Adds", [s](auto &d, auto &a, int32_t n) { Adds(d, a, s, n); },
                  [](double x) { return x + 7; }, -1000, 1000, kExact);
    CheckUnary<T>("Muls", [s](auto &d, auto &a, int32_t n) { Muls(d, a, s, n); },
                  [](double x) { return x * 7; }, -1000, 1000, kExact);
    CheckUnary<T>("Maxs", [s](auto &d, auto &a, int32_t n) { Maxs(d, a, s, n); },
                  [](double x) { return x > 7 ? x : 7.0; }, -100, 100, kExact);
    CheckUnary<T>("Mins", [s](auto &d, auto &a, int32_t n) { Mins(d, a, s, n); },
                  [](double x) { return x < 7 ? x : 7.0; }, -100, 100, kExact);
    CheckUnary<T>("Duplicate", [s](auto &d, auto &, int32_t n) { Duplicate(d, s, n); },
                  [](double) { return 7.0; }, -1, 1, kExact);
}

template <class T>
void Reductions()
{
    Bench bench;
    LocalTensor<T> a = bench.b0.Get<T>(), d = bench.b2.Get<T>(), work = bench.b3.Get<T>();
    double sum = 0, mx = -1e300, mn = 1e300;
    uint32_t imx = 0, imn = 0;
    for (int32_t i = 0; i < kN; i++) {
        a.SetValue(i, FromD<T>(std::is_integral<T>::value ? Uniform(-50, 50) : Uniform(-4, 4)));
        const double v = D(a.GetValue(i));
        sum += v;
        if (v > mx) { mx = v; imx = static_cast<uint32_t>(i); }
        if (v < mn) { mn = v; imn = static_cast<uint32_t>(i); }
    }
    ReduceSum(d, a, work, kN);
    const double tol = std::is_integral<T>::value ? 0 : Eps<T>() * (std::fabs(sum) + 1) + kN * 4.0 * 0x1p-23;
    EXPECT_MSG(std::fabs(D(d.GetValue(0)) - sum) <= tol, "ReduceSum<%s>: %.9g want %.9g", Name<T>(),
               D(d.GetValue(0)), sum);
    ReduceMax(d, a, work, kN, true);
    uint32_t idx = 0;
    std::memcpy(&idx, reinterpret_cast<uint8_t *>(d.GetPhyAddr()) + sizeof(T), sizeof(T) < 4 ? sizeof(T) : 4);
    EXPECT_MSG(D(d.GetValue(0)) == mx && idx == imx, "ReduceMax<%s>: %g@%u want %g@%u", Name<T>(), D(d.GetValue(0)),
               idx, mx, imx);
    ReduceMin(d, a, work, kN, true);
    idx = 0;
    std::memcpy(&idx, reinterpret_cast<uint8_t *>(d.GetPhyAddr()) + sizeof(T), sizeof(T) < 4 ? sizeof(T) : 4);
    EXPECT_MSG(D(d.GetValue(0)) == mn && idx == imn, "ReduceMin<%s>: %g@%u want %g@%u", Name<T>(), D(d.GetValue(0)),
               idx, mn, imn);
}

/* Mask/repeat form: element (r, blk, j) at (r*repStride + blk*blkStride)*epb + j. */
template <class T>
void RepeatForms()
{
    Bench bench;
    LocalTensor<T> a = bench.b0.Get<T>(), b = bench.b1.Get<T>(), d = bench.b2.Get<T>();
    const uint32_t total = 8192 / sizeof(T);
    for (uint32_t i = 0; i < total; i++) {
        a.SetValue(i, FromD<T>(Uniform(-10, 10)));
        b.SetValue(i, FromD<T>(Uniform(-10, 10)));
    }
    const uint32_t epb = 32 / sizeof(T), per = 8 * epb;
    /* Continuous mask with source block stride 2 and repeat strides 16/16/8. */
    const T fill = FromD<T>(-777);
    Duplicate(d, fill, static_cast<int32_t>(total));
    const uint64_t cmask = per - 3;
    BinaryRepeatParams bp(1, 2, 1, 8, 16, 8);
    Add(d, a, b, cmask, 3, bp);
    int bad = 0;
    for (uint32_t r = 0; r < 3; r++)
        for (uint32_t k = 0; k < per; k++) {
            const uint32_t blk = k / epb, j = k % epb;
            const uint32_t di = (r * 8 + blk) * epb + j;
            const uint32_t ai = (r * 16 + blk * 2) * epb + j, bi = (r * 8 + blk) * epb + j;
            const T want = k < cmask ? FromD<T>(D(a.GetValue(ai)) + D(b.GetValue(bi))) : fill;
            bad += !SameBits(d.GetValue(di), want);
        }
    EXPECT_MSG(bad == 0, "Add mask/repeat<%s>: %d wrong", Name<T>(), bad);

    /* Bit mask: every third element of the repeat. */
    uint64_t bits[2] = {0, 0};
    for (uint32_t k = 0; k < per && k < 128; k += 3)
        bits[k >> 6] |= 1ull << (k & 63);
    Duplicate(d, fill, static_cast<int32_t>(total));
    Mul(d, a, b, bits, 2, BinaryRepeatParams());
    bad = 0;
    for (uint32_t i = 0; i < 2 * per; i++) {
        const uint32_t k = i % per;
        const T want = k % 3 == 0 ? FromD<T>(D(a.GetValue(i)) * D(b.GetValue(i))) : fill;
        bad += !SameBits(d.GetValue(i), want);
    }
    EXPECT_MSG(bad == 0, "Mul bit mask<%s>: %d wrong", Name<T>(), bad);

    /* Unary and scalar with destination block stride 2. */
    Duplicate(d, fill, static_cast<int32_t>(total));
    UnaryRepeatParams up(2, 1, 16, 8);
    Abs(d, a, per, 2, up);
    bad = 0;
    for (uint32_t r = 0; r < 2; r++)
        for (uint32_t k = 0; k < per; k++) {
            const uint32_t blk = k / epb, j = k % epb;
            bad += !SameBits(d.GetValue((r * 16 + blk * 2) * epb + j),
                             FromD<T>(std::fabs(D(a.GetValue((r * 8 + blk) * epb + j)))));
            /* the skipped blocks keep the fill */
            bad += !SameBits(d.GetValue((r * 16 + blk * 2 + 1) * epb + j), fill);
        }
    EXPECT_MSG(bad == 0, "Abs mask/repeat<%s>: %d wrong", Name<T>(), bad);

    Duplicate(d, fill, static_cast<int32_t>(total));
    Adds(d, a, FromD<T>(2), 10, 4, UnaryRepeatParams());
    bad = 0;
    for (uint32_t i = 0; i < 4 * per; i++)
        bad += !SameBits(d.GetValue(i), i % per < 10 ? FromD<T>(D(a.GetValue(i)) + 2) : fill);
    EXPECT_MSG(bad == 0, "Adds mask/repeat<%s>: %d wrong", Name<T>(), bad);

    if constexpr (!std::is_integral<T>::value) {
        /* Exp in the mask form, a repeat stride of 0 re-reading the same source repeat. */
        Duplicate(d, fill, static_cast<int32_t>(total));
        Exp(d, a, per, 2, UnaryRepeatParams(1, 1, 8, 0));
        bad = 0;
        for (uint32_t i = 0; i < 2 * per; i++) {
            const double r = std::exp(D(a.GetValue(i % per)));
            bad += std::fabs(D(d.GetValue(i)) - r) > 4 * Eps<T>() * r;
        }
        EXPECT_MSG(bad == 0, "Exp mask/repeat<%s>: %d wrong", Name<T>(), bad);
    }

    /* Duplicate and Copy in their mask forms. */
    Duplicate(d, fill, static_cast<int32_t>(total));
    Duplicate(d, FromD<T>(3), per / 2, 2, 1, 8);
    bad = 0;
    for (uint32_t i = 0; i < 3 * per; i++)
        bad += !SameBits(d.GetValue(i), (i < 2 * per && i % per < per / 2) ? FromD<T>(3) : fill);
    EXPECT_MSG(bad == 0, "Duplicate mask<%s>: %d wrong", Name<T>(), bad);
    Duplicate(d, fill, static_cast<int32_t>(total));
    Copy(d, a, per, 2, CopyRepeatParams(1, 1, 8, 16));
    bad = 0;
    for (uint32_t r = 0; r < 2; r++)
        for (uint32_t k = 0; k < per; k++)
            bad += !SameBits(d.GetValue(r * per + k), a.GetValue(r * 2 * per + k));
    EXPECT_MSG(bad == 0, "Copy<%s>: %d wrong", Name<T>(), bad);
}

template <class T>
void WholeAndBlockReduce()
{
    Bench bench;
    LocalTensor<T> a = bench.b0.Get<T>(), d = bench.b2.Get<T>();
    const uint32_t epb = 32 / sizeof(T), per = 8 * epb;
    for (uint32_t i = 0; i < 4 * per; i++)
        a.SetValue(i, FromD<T>(Uniform(-4, 4)));
    const int32_t mask = static_cast<int32_t>(per - 5);
    WholeReduceSum(d, a, mask, 4, 1, 1, 8);
    int bad = 0;
    for (uint32_t r = 0; r < 4; r++) {
        double s = 0;
        for (uint32_t k = 0; k < static_cast<uint32_t>(mask); k++)
            s += D(a.GetValue(r * per + k));
        bad += std::fabs(D(d.GetValue(r)) - s) > Eps<T>() * (std::fabs(s) + 1) + per * 0x1p-22;
    }
    EXPECT_MSG(bad == 0, "WholeReduceSum<%s>: %d wrong", Name<T>(), bad);

    WholeReduceMax(d, a, mask, 4, 1, 1, 8);
    bad = 0;
    for (uint32_t r = 0; r < 4; r++) {
        double m = -1e300;
        uint32_t im = 0;
        for (uint32_t k = 0; k < static_cast<uint32_t>(mask); k++)
            if (D(a.GetValue(r * per + k)) > m) {
                m = D(a.GetValue(r * per + k));
                im = k;
            }
        uint32_t idx = 0;
        std::memcpy(&idx, reinterpret_cast<uint8_t *>(d.GetPhyAddr()) + (2 * r + 1) * sizeof(T), sizeof(T));
        bad += D(d.GetValue(2 * r)) != m || idx != im;
    }
    EXPECT_MSG(bad == 0, "WholeReduceMax<%s>: %d wrong", Name<T>(), bad);

    WholeReduceMax(d, a, mask, 4, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
    bad = 0;
    for (uint32_t r = 0; r < 4; r++) {
        double m = -1e300;
        for (uint32_t k = 0; k < static_cast<uint32_t>(mask); k++)
            m = std::max(m, D(a.GetValue(r * per + k)));
        bad += D(d.GetValue(r)) != m;
    }
    EXPECT_MSG(bad == 0, "WholeReduceMax ORDER_ONLY_VALUE<%s>: %d wrong", Name<T>(), bad);

    BlockReduceSum(d, a, 2, static_cast<int32_t>(per), 1, 1, 8);
    bad = 0;
    for (uint32_t r = 0; r < 2; r++)
        for (uint32_t blk = 0; blk < 8; blk++) {
            double s = 0;
            for (uint32_t j = 0; j < epb; j++)
                s += D(a.GetValue((r * 8 + blk) * epb + j));
            bad += std::fabs(D(d.GetValue(r * 8 + blk)) - s) > Eps<T>() * (std::fabs(s) + 1);
        }
    EXPECT_MSG(bad == 0, "BlockReduceSum<%s>: %d wrong", Name<T>(), bad);
}

template <class T>
void CompareSelect()
{
    Bench bench;
    LocalTensor<T> a = bench.b0.Get<T>(), b = bench.b1.Get<T>(), d = bench.b2.Get<T>();
    LocalTensor<uint8_t> m = bench.b3.Get<uint8_t>();
    const uint32_t n = 512;
    for (uint32_t i = 0; i < n; i++) {
        a.SetValue(i, FromD<T>(std::floor(Uniform(-4, 4))));
        b.SetValue(i, FromD<T>(std::floor(Uniform(-4, 4))));
    }
    const CMPMODE modes[] = {CMPMODE::LT, CMPMODE::GT, CMPMODE::EQ, CMPMODE::LE, CMPMODE::GE, CMPMODE::NE};
    for (CMPMODE mode : modes) {
        Compare(m, a, b, mode, n);
        int bad = 0;
        for (uint32_t i = 0; i < n; i++) {
            const double x = D(a.GetValue(i)), y = D(b.GetValue(i));
            const bool want = mode == CMPMODE::LT ? x < y : mode == CMPMODE::GT ? x > y : mode == CMPMODE::EQ ? x == y
                            : mode == CMPMODE::LE ? x <= y : mode == CMPMODE::GE ? x >= y : x != y;
            bad += ((m.GetValue(i / 8) >> (i % 8)) & 1) != want;
        }
        EXPECT_MSG(bad == 0, "Compare<%s> mode %d: %d wrong", Name<T>(), static_cast<int>(mode), bad);
    }
    Compares(m, a, FromD<T>(0), CMPMODE::GE, n);
    int bad = 0;
    for (uint32_t i = 0; i < n; i++)
        bad += ((m.GetValue(i / 8) >> (i % 8)) & 1) != (D(a.GetValue(i)) >= 0);
    EXPECT_MSG(bad == 0, "Compares<%s>: %d wrong", Name<T>(), bad);

    /* Select with the Compares mask: max(a, 0) by tensor-scalar, then a or b by tensor-tensor. */
    Select(d, m, a, FromD<T>(0), SELMODE::VSEL_TENSOR_SCALAR_MODE, n);
    bad = 0;
    for (uint32_t i = 0; i < n; i++)
        bad += D(d.GetValue(i)) != std::max(D(a.GetValue(i)), 0.0);
    EXPECT_MSG(bad == 0, "Select scalar<%s>: %d wrong", Name<T>(), bad);
    Compare(m, a, b, CMPMODE::GT, n);
    Select(d, m, a, b, SELMODE::VSEL_TENSOR_TENSOR_MODE, n);
    bad = 0;
    for (uint32_t i = 0; i < n; i++)
        bad += D(d.GetValue(i)) != std::max(D(a.GetValue(i)), D(b.GetValue(i)));
    EXPECT_MSG(bad == 0, "Select tensor<%s>: %d wrong", Name<T>(), bad);
    /* VSEL_CMPMASK_SPR: every repeat uses the first repeat's bits. */
    Select(d, m, a, b, SELMODE::VSEL_CMPMASK_SPR, n);
    bad = 0;
    const uint32_t per = 256 / sizeof(T);
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t k = i % per;
        const bool bit = (m.GetValue(k / 8) >> (k % 8)) & 1;
        bad += !SameBits(d.GetValue(i), bit ? a.GetValue(i) : b.GetValue(i));
    }
    EXPECT_MSG(bad == 0, "Select CMPMASK_SPR<%s>: %d wrong", Name<T>(), bad);
}

template <class T>
void GatherMaskTest()
{
    Bench bench;
    LocalTensor<T> a = bench.b0.Get<T>(), d = bench.b2.Get<T>();
    const uint32_t per = 256 / sizeof(T);
    for (uint32_t i = 0; i < 4 * per; i++)
        a.SetValue(i, FromD<T>(static_cast<double>(i % 1000)));
    for (uint8_t pattern = 1; pattern <= 7; pattern++) {
        uint64_t cnt = 0;
        GatherMask(d, a, pattern, false, 0, GatherMaskParams(1, 2, 8, 0), cnt);
        std::vector<double> want;
        for (uint32_t i = 0; i < 2 * per; i++) {
            const uint32_t k = i % per;
            const bool keep = pattern == 1 ? k % 2 == 0 : pattern == 2 ? k % 2 == 1 : pattern == 7 ? true
                            : k % 4 == static_cast<uint32_t>(pattern - 3);
            if (keep)
                want.push_back(D(a.GetValue(i)));
        }
        int bad = cnt != want.size();
        for (uint32_t i = 0; i < want.size() && i < cnt; i++)
            bad += D(d.GetValue(i)) != want[i];
        EXPECT_MSG(bad == 0, "GatherMask<%s> pattern %u: %d wrong", Name<T>(), pattern, bad);
    }
    /* A user pattern in counter mode: 0b1001 in every nibble, 70 elements per repeat. */
    using U = typename std::conditional<sizeof(T) == 2, uint16_t, uint32_t>::type;
    LocalTensor<U> pat = bench.b3.Get<U>();
    for (uint32_t i = 0; i < 64; i++)
        pat.SetValue(i, static_cast<U>(sizeof(U) == 2 ? 0x9999u : 0x99999999u));
    uint64_t cnt = 0;
    GatherMask(d, a, pat, true, 70, GatherMaskParams(1, 2, 8, 0), cnt);
    std::vector<double> want;
    for (uint32_t r = 0; r < 2; r++)
        for (uint32_t k = 0; k < 70; k++)
            if (k % 4 == 0 || k % 4 == 3)
                want.push_back(D(a.GetValue(r * per + k)));
    int bad = cnt != want.size();
    for (uint32_t i = 0; i < want.size() && i < cnt; i++)
        bad += D(d.GetValue(i)) != want[i];
    EXPECT_MSG(bad == 0, "GatherMask<%s> user pattern: %d wrong (%llu kept)", Name<T>(), bad,
               (unsigned long long)cnt);
}

/* Cast with every RoundMode on values between two representable results. */
void CastTests()
{
    Bench bench;
    const RoundMode modes[] = {RoundMode::CAST_NONE, RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL,
                               RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC, RoundMode::CAST_ODD};
    /* float -> int32 */
    {
        const float in[] = {2.5f, -2.5f, 1.5f, 0.3f, -0.7f, 3.0f, 3e9f, -3e9f, std::nanf("")};
        const int32_t want[7][9] = {
            {2, -2, 2, 0, -1, 3, INT32_MAX, INT32_MIN, 0},  /* NONE = RINT */
            {2, -2, 2, 0, -1, 3, INT32_MAX, INT32_MIN, 0},  /* RINT */
            {2, -3, 1, 0, -1, 3, INT32_MAX, INT32_MIN, 0},  /* FLOOR */
            {3, -2, 2, 1, 0, 3, INT32_MAX, INT32_MIN, 0},   /* CEIL */
            {3, -3, 2, 0, -1, 3, INT32_MAX, INT32_MIN, 0},  /* ROUND: half away from zero */
            {2, -2, 1, 0, 0, 3, INT32_MAX, INT32_MIN, 0},   /* TRUNC */
            {3, -3, 1, 1, -1, 3, INT32_MAX, INT32_MIN, 0},  /* ODD */
        };
        LocalTensor<float> s = bench.b0.Get<float>();
        LocalTensor<int32_t> d = bench.b1.Get<int32_t>();
        for (uint32_t i = 0; i < 9; i++)
            s.SetValue(i, in[i]);
        for (int m = 0; m < 7; m++) {
            Cast(d, s, modes[m], 9);
            for (uint32_t i = 0; i < 9; i++)
                EXPECT_MSG(d.GetValue(i) == want[m][i], "Cast f32->s32 mode %d [%u]: %d want %d", m, i,
                           d.GetValue(i), want[m][i]);
        }
    }
    /* float -> half and float -> bfloat16_t: a tie, a value past the tie, their negatives. */
    {
        const float ulpH = 0x1p-10f, ulpB = 0x1p-7f;
        const float inH[] = {1 + ulpH / 2, 1 + 3 * ulpH / 4, -(1 + ulpH / 2), 1.0f};
        const float inB[] = {1 + ulpB / 2, 1 + 3 * ulpB / 4, -(1 + ulpB / 2), 1.0f};
        /* results as multiples: 0 -> 1, 1 -> 1+ulp (with the input's sign) */
        const int want[7][4] = {
            {0, 1, 0, 0}, /* NONE */
            {0, 1, 0, 0}, /* RINT: tie to even */
            {0, 0, 1, 0}, /* FLOOR */
            {1, 1, 0, 0}, /* CEIL */
            {1, 1, 1, 0}, /* ROUND: tie away */
            {0, 0, 0, 0}, /* TRUNC */
            {1, 1, 1, 0}, /* ODD */
        };
        LocalTensor<float> s = bench.b0.Get<float>();
        LocalTensor<half> dh = bench.b1.Get<half>();
        LocalTensor<bfloat16_t> db = bench.b2.Get<bfloat16_t>();
        for (int m = 0; m < 7; m++) {
            for (uint32_t i = 0; i < 4; i++)
                s.SetValue(i, inH[i]);
            Cast(dh, s, modes[m], 4);
            for (uint32_t i = 0; i < 4; i++) {
                const float mag = 1 + want[m][i] * ulpH;
                const float w = inH[i] < 0 ? -mag : mag;
                EXPECT_MSG(static_cast<float>(dh.GetValue(i)) == w, "Cast f32->f16 mode %d [%u]: %.9g want %.9g", m, i,
                           static_cast<float>(dh.GetValue(i)), w);
            }
            for (uint32_t i = 0; i < 4; i++)
                s.SetValue(i, inB[i]);
            Cast(db, s, modes[m], 4);
            for (uint32_t i = 0; i < 4; i++) {
                const float mag = 1 + want[m][i] * ulpB;
                const float w = inB[i] < 0 ? -mag : mag;
                EXPECT_MSG(static_cast<float>(db.GetValue(i)) == w, "Cast f32->bf16 mode %d [%u]: %.9g want %.9g", m,
                           i, static_cast<float>(db.GetValue(i)), w);
            }
        }
    }
    /* int32 -> float: 2^24+1 lies between 2^24 and 2^24+2. */
    {
        LocalTensor<int32_t> s = bench.b0.Get<int32_t>();
        LocalTensor<float> d = bench.b1.Get<float>();
        s.SetValue(0, (1 << 24) + 1);
        s.SetValue(1, -((1 << 24) + 1));
        const float lo = 16777216.0f, hi = 16777218.0f;
        const float want[7][2] = {{lo, -lo}, {lo, -lo}, {lo, -hi}, {hi, -lo}, {hi, -hi}, {lo, -lo}, {hi, -hi}};
        for (int m = 0; m < 7; m++) {
            Cast(d, s, modes[m], 2);
            EXPECT_MSG(d.GetValue(0) == want[m][0] && d.GetValue(1) == want[m][1], "Cast s32->f32 mode %d", m);
        }
    }
    /* Exact conversions in every mode: half <-> float, int16 -> half, half -> int16/int8, bf16 -> float. */
    {
        LocalTensor<half> h = bench.b0.Get<half>();
        LocalTensor<float> f = bench.b1.Get<float>();
        LocalTensor<int16_t> i16 = bench.b2.Get<int16_t>();
        LocalTensor<int8_t> i8 = bench.b3.Get<int8_t>();
        for (uint32_t i = 0; i < 256; i++)
            h.SetValue(i, half::FromBits(static_cast<uint16_t>(Rand())));
        for (int m = 0; m < 7; m++) {
            Cast(f, h, modes[m], 256);
            int bad = 0;
            for (uint32_t i = 0; i < 256; i++) {
                const float w = static_cast<float>(h.GetValue(i));
                bad += !(f.GetValue(i) == w || (std::isnan(w) && std::isnan(f.GetValue(i))));
            }
            EXPECT_MSG(bad == 0, "Cast f16->f32 mode %d: %d wrong", m, bad);
        }
        for (uint32_t i = 0; i < 64; i++)
            i16.SetValue(i, static_cast<int16_t>(static_cast<int32_t>(i) * 37 - 1000));
        Cast(h, i16, RoundMode::CAST_NONE, 64);
        for (uint32_t i = 0; i < 64; i++)
            EXPECT(static_cast<float>(h.GetValue(i)) == static_cast<float>(i16.GetValue(i)));
        h.SetValue(0, half(2.5f));
        h.SetValue(1, half(-200.75f));
        h.SetValue(2, half(300.0f));
        Cast(i16, h, RoundMode::CAST_ROUND, 3);
        EXPECT(i16.GetValue(0) == 3 && i16.GetValue(1) == -201 && i16.GetValue(2) == 300);
        Cast(i8, h, RoundMode::CAST_TRUNC, 3);
        EXPECT(i8.GetValue(0) == 2 && i8.GetValue(1) == -128 && i8.GetValue(2) == 127);
    }
}

/* DataCopy and DataCopyPad between "global memory" (host vectors) and the unified buffer. */
void CopyTests()
{
    Bench bench;
    std::vector<float> g(4096), out(4096, -1.0f);
    for (uint32_t i = 0; i < g.size(); i++)
        g[i] = static_cast<float>(i);
    GlobalTensor<float> gt, ot;
    gt.SetGlobalBuffer(g.data(), g.size());
    ot.SetGlobalBuffer(out.data(), out.size());
    LocalTensor<float> l = bench.b0.Get<float>();
    /* 3 blocks of 2x32 bytes, skipping 1 block in global memory, 2 in the unified buffer. */
    DataCopy(l, gt[8], DataCopyParams(3, 2, 1, 2));
    for (uint32_t b = 0; b < 3; b++)
        for (uint32_t i = 0; i < 16; i++)
            EXPECT(l.GetValue(b * 32 + i) == static_cast<float>(8 + b * 24 + i));
    DataCopy(ot, l, DataCopyParams(3, 2, 2, 0));
    for (uint32_t i = 0; i < 48; i++)
        EXPECT(out[i] == static_cast<float>(8 + (i / 16) * 24 + i % 16));
    /* Count form and UB -> UB. */
    LocalTensor<float> l2 = bench.b1.Get<float>();
    DataCopy(l, gt, 1024);
    DataCopy(l2, l, 1024);
    EXPECT(l2.GetValue(1023) == 1023.0f && l2.GetValue(5) == 5.0f);

    /* DataCopyPad: 3 rows of 5 floats (20 bytes), 1 pad element left, 2 right, value -9. */
    LocalTensor<float> p = bench.b2.Get<float>();
    Duplicate(p, -1.0f, 256);
    DataCopyPad(p, gt[100], DataCopyExtParams(3, 20, 8, 1, 0), DataCopyPadExtParams<float>(true, 1, 2, -9.0f));
    /* A row is 1+5+2 = 8 floats (32 bytes), then 1 block gap: rows 16 floats apart. */
    for (uint32_t r = 0; r < 3; r++) {
        EXPECT(p.GetValue(r * 16) == -9.0f);
        for (uint32_t i = 0; i < 5; i++)
            EXPECT(p.GetValue(r * 16 + 1 + i) == static_cast<float>(100 + r * 7 + i));
        EXPECT(p.GetValue(r * 16 + 6) == -9.0f && p.GetValue(r * 16 + 7) == -9.0f);
        EXPECT(p.GetValue(r * 16 + 8) == -1.0f);
    }
    /* Back out: 3 rows of 24 bytes (6 floats) from 32-byte aligned rows, 4 bytes apart in global memory. */
    std::fill(out.begin(), out.end(), -1.0f);
    DataCopyPad(ot, p, DataCopyExtParams(3, 24, 1, 4, 0));
    for (uint32_t r = 0; r < 3; r++) {
        for (uint32_t i = 0; i < 6; i++)
            EXPECT(out[r * 7 + i] == p.GetValue(r * 16 + i));
        EXPECT(out[r * 7 + 6] == -1.0f);
    }
}

/* half and bfloat16_t convert exactly as cannon's C library does. */
void ConversionTests()
{
    int bad = 0;
    for (uint32_t u = 0; u < 65536; u++) {
        const uint16_t h = static_cast<uint16_t>(u);
        const float a = static_cast<float>(half::FromBits(h)), b = cannon_f16_to_f32(h);
        bad += std::memcmp(&a, &b, 4) != 0;
        const float c = static_cast<float>(bfloat16_t::FromBits(h)), e = cannon_bf16_to_f32(h);
        bad += std::memcmp(&c, &e, 4) != 0;
    }
    for (uint32_t i = 0; i < (1u << 20); i++) {
        uint32_t bits = (Rand() << 8) ^ Rand();
        if (i < 4096)
            bits = 0x33000000u + i * 0x1000u; /* around the half subnormal range */
        const float f = cannon_bits_f32(bits);
        bad += half(f).val != cannon_f32_to_f16(f);
        bad += bfloat16_t(f).val != cannon_f32_to_bf16(f);
    }
    EXPECT_MSG(bad == 0, "half/bfloat16_t conversions: %d differ from cannon's", bad);
    /* Arithmetic through float, rounded once on assignment. */
    half x = 1.5f, y = 2.25f;
    half z = x * y;
    EXPECT(static_cast<float>(z) == 3.375f);
    z += 1;
    EXPECT(static_cast<float>(z) == 4.375f);
    EXPECT(static_cast<float>(-z) == -4.375f);
}

}  // namespace

int main()
{
    ConversionTests();
    FloatOps<half>();
    FloatOps<bfloat16_t>();
    FloatOps<float>();
    IntOps<int16_t>();
    IntOps<int32_t>();
    Reductions<half>();
    Reductions<float>();
    Reductions<int32_t>();
    RepeatForms<half>();
    RepeatForms<float>();
    RepeatForms<int16_t>();
    RepeatForms<int32_t>();
    WholeAndBlockReduce<half>();
    WholeAndBlockReduce<float>();
    CompareSelect<half>();
    CompareSelect<float>();
    CompareSelect<int32_t>();
    GatherMaskTest<half>();
    GatherMaskTest<float>();
    CastTests();
    CopyTests();
    return TestResult(CANNON_ASCENDC_CHECK ? "test_ascendc_vec (checker on)" : "test_ascendc_vec (checker off)");
}
