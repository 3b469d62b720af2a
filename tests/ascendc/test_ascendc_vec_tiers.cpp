/*
 * The vector kernels of libcannon_ascendc give the same bits in every instruction-set tier: each
 * tier the CPU has is forced in turn (CANNON_ISA + cannonAscendcVecSelectTier) and every binary,
 * unary and tensor-scalar operation of cannon_ascendc/vec_kernels.h runs over every 16-bit
 * pattern of half and bfloat16_t (NaNs, infinities and subnormals included) and over float and
 * integer inputs with specials, at an odd offset and length so that the vector loops' tails run
 * too. Each result is compared bit for bit with the header's scalar definition of the
 * instruction (widen, compute in float, round once; with two NaN operands only NaN-ness, as IEEE
 * leaves the payload open), and the instructions of vec.h are checked
 * to go through the kernels with the same results. The floating sums (ReduceSum) follow the
 * kernels' fixed order in every tier.
 */
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "kernel_operator.h"
#include "ascendc_test.h"

using namespace AscendC;
namespace cd = AscendC::cannon_detail;

namespace {

uint32_t g_seed = 0x13579bdu;
uint32_t Rand()
{
    g_seed = g_seed * 1664525u + 1013904223u;
    return g_seed >> 8;
}

template <class T> std::vector<T> Inputs(size_t n, uint32_t salt)
{
    std::vector<T> v(n);
    for (size_t i = 0; i < n; i++) {
        if constexpr (cannon_ascendc::IsF16<T>::value) {
            /* Every bit pattern, in a different order per salt. */
            v[i] = T::FromBits(static_cast<uint16_t>((i * (2 * salt + 1) + salt * 977u) & 0xffffu));
        } else if constexpr (std::is_same<T, float>::value) {
            static const float special[] = {0.0f, -0.0f,  1.0f,    -1.0f,   INFINITY, -INFINITY,
                                            NAN,  1e-40f, -3e-39f, 3.4e38f, -2.5f,    65504.0f};
            if (Rand() % 8 == 0)
                v[i] = special[Rand() % 12];
            else
                v[i] = (static_cast<float>(Rand() & 0xffff) - 32768.0f) * 0x1p-7f;
        } else {
            const uint32_t r = Rand() ^ (Rand() << 16);
            T t;
            std::memcpy(&t, &r, sizeof t);
            if (Rand() % 16 == 0)
                t = std::numeric_limits<T>::min();
            v[i] = t;
        }
    }
    return v;
}

template <class T> bool SameBits(const T &a, const T &b)
{
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
bool IsNaN(const T &v)
{
    if constexpr (std::is_integral<T>::value)
        return false;
    else
        return std::isnan(cd::Widen(v));
}

template <class T> const char *Name()
{
    if constexpr (std::is_same<T, half>::value)
        return "half";
    else if constexpr (std::is_same<T, bfloat16_t>::value)
        return "bfloat16_t";
    else if constexpr (std::is_same<T, float>::value)
        return "float";
    else if constexpr (std::is_same<T, int16_t>::value)
        return "int16_t";
    else
        return "int32_t";
}

template <class T, class Op> void CheckBinary(const char *name, Op op, int tier)
{
    const size_t n = 65536 + 37;
    const std::vector<T> a = Inputs<T>(n + 1, 1), b = Inputs<T>(n + 1, 5);
    std::vector<T> d(n + 1);
    EXPECT(cannonAscendcVecBinary(Op::kCode, cd::VecDtype<T>(), d.data() + 1, a.data() + 1, b.data() + 1, n) == 0);
    size_t bad = 0;
    for (size_t i = 1; i <= n; i++) {
        const T ref = cd::Narrow<T>(op(cd::Widen(a[i]), cd::Widen(b[i])));
        /* Two NaN operands: IEEE leaves open which payload the result carries (a compiler may
         * swap the operands of + and *), so only NaN-ness is checked. */
        if (IsNaN(a[i]) && IsNaN(b[i]) && IsNaN(d[i]))
            continue;
        if (!SameBits(ref, d[i]) && bad++ < 3)
            std::fprintf(stderr, "  %s<%s> tier %d element %zu differs\n", name, Name<T>(), tier, i);
    }
    EXPECT_MSG(bad == 0, "%s<%s> tier %d: %zu elements differ", name, Name<T>(), tier, bad);
}

template <class T, class Op> void CheckUnary(const char *name, Op op, int tier)
{
    const size_t n = 65536 + 37;
    const std::vector<T> a = Inputs<T>(n + 1, 3);
    std::vector<T> d(n + 1);
    cd::RunUnary(op, cd::VecDtype<T>(), d.data() + 1, a.data() + 1, n);
    size_t bad = 0;
    for (size_t i = 1; i <= n; i++) {
        const T ref = cd::Narrow<T>(op(cd::Widen(a[i])));
        if (!SameBits(ref, d[i]) && bad++ < 3)
            std::fprintf(stderr, "  %s<%s> tier %d element %zu differs\n", name, Name<T>(), tier, i);
    }
    EXPECT_MSG(bad == 0, "%s<%s> tier %d: %zu elements differ", name, Name<T>(), tier, bad);
}

/* The kernels' sum: 32 partial sums in order, added pairwise; and close to the float64 sum. */
template <class T> void CheckSum(int tier)
{
    const size_t n = 100003;
    std::vector<T> a(n);
    for (size_t i = 0; i < n; i++)
        a[i] = T(static_cast<float>(static_cast<int>(Rand() % 2001) - 1000) * 0.01f);
    float acc[32] = {0};
    double exact = 0;
    for (size_t i = 0; i < n; i++) {
        acc[i % 32] += cd::Widen(a[i]);
        exact += static_cast<double>(cd::Widen(a[i]));
    }
    for (size_t w = 16; w; w /= 2)
        for (size_t k = 0; k < w; k++)
            acc[k] += acc[k + w];
    float got = -1.0f;
    EXPECT(cannonAscendcVecSum(cd::VecDtype<T>(), a.data(), n, &got) == 0);
    EXPECT_MSG(SameBits(got, acc[0]), "Sum<%s> tier %d: %.9g want %.9g", Name<T>(), tier, got, acc[0]);
    EXPECT_MSG(std::fabs(got - exact) < 1e-6 * n, "Sum<%s> tier %d: %.9g far from %.9g", Name<T>(), tier, got, exact);
}

template <class T> void CheckType(int tier)
{
    using C = cd::CalcT<T>;
    CheckBinary<T>("Add", cd::OpAdd(), tier);
    CheckBinary<T>("Sub", cd::OpSub(), tier);
    CheckBinary<T>("Mul", cd::OpMul(), tier);
    CheckBinary<T>("Max", cd::OpMax(), tier);
    CheckBinary<T>("Min", cd::OpMin(), tier);
    CheckUnary<T>("Abs", cd::OpAbs(), tier);
    CheckUnary<T>("Relu", cd::OpRelu(), tier);
    const C s = static_cast<C>(std::is_integral<T>::value ? -3 : -1.375);
    CheckUnary<T>("Adds", cd::WithScalar<C, cd::OpAdd>{s, {}}, tier);
    CheckUnary<T>("Muls", cd::WithScalar<C, cd::OpMul>{s, {}}, tier);
    CheckUnary<T>("Maxs", cd::WithScalar<C, cd::OpMax>{s, {}}, tier);
    CheckUnary<T>("Mins", cd::WithScalar<C, cd::OpMin>{s, {}}, tier);
    CheckUnary<T>("LeakyRelu", cd::LeakyOp<C>{s}, tier);
    if constexpr (!std::is_integral<T>::value) {
        CheckBinary<T>("Div", cd::OpDiv(), tier);
        CheckUnary<T>("Exp", cd::OpExp(), tier);
        CheckUnary<T>("Ln", cd::OpLn(), tier);
        CheckUnary<T>("Sqrt", cd::OpSqrt(), tier);
        CheckUnary<T>("Rsqrt", cd::OpRsqrt(), tier);
        CheckUnary<T>("Reciprocal", cd::OpRecip(), tier);
        CheckSum<T>(tier);
    }
}

/* The instructions of vec.h reach the kernels: a half Add through a TPipe in both forms. */
void CheckInstructions(int tier)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b0, b1, b2;
    pipe.InitBuffer(b0, 8192);
    pipe.InitBuffer(b1, 8192);
    pipe.InitBuffer(b2, 8192);
    LocalTensor<half> x = b0.Get<half>(), y = b1.Get<half>(), z = b2.Get<half>();
    const int32_t n = 4000;
    for (int32_t i = 0; i < n; i++) {
        x.SetValue(i, half(static_cast<float>(i % 97) * 0.37f));
        y.SetValue(i, half(static_cast<float>(i % 13) - 6.5f));
    }
    Add(z, x, y, n);
    size_t bad = 0;
    for (int32_t i = 0; i < n; i++)
        bad += !SameBits(z.GetValue(i), half(static_cast<float>(x.GetValue(i)) + static_cast<float>(y.GetValue(i))));
    /* The mask/repeat form with a continuous mask: 64 of each repeat's 128 elements. */
    Duplicate(z, half(0.0f), n);
    BinaryRepeatParams p;
    Mul(z, x, y, 64, 10, p);
    for (int32_t i = 0; i < 1280; i++) {
        const half want =
            (i % 128) < 64 ? half(static_cast<float>(x.GetValue(i)) * static_cast<float>(y.GetValue(i))) : half(0.0f);
        bad += !SameBits(z.GetValue(i), want);
    }
    /* src1 repeat stride 0: every repeat reads src1's first repeat. */
    BinaryRepeatParams q(1, 1, 1, 8, 8, 0);
    Sub(z, x, y, 128, 10, q);
    for (int32_t i = 0; i < 1280; i++)
        bad +=
            !SameBits(z.GetValue(i), half(static_cast<float>(x.GetValue(i)) - static_cast<float>(y.GetValue(i % 128))));
    EXPECT_MSG(bad == 0, "instructions tier %d: %zu elements differ", tier, bad);
}

} // namespace

int main()
{
    static const char *names[] = {"scalar", "avx2", "avx512"};
    for (int want = 0; want < 3; want++) {
        setenv("CANNON_ISA", names[want], 1);
        const int tier = cannonAscendcVecSelectTier();
        EXPECT(cannonAscendcVecTier() == tier);
        if (tier != want) {
            std::printf("tier %s: not on this CPU or build (runs %s)\n", names[want], names[tier]);
            continue;
        }
        CheckType<half>(tier);
        CheckType<bfloat16_t>(tier);
        CheckType<float>(tier);
        CheckType<int16_t>(tier);
        CheckType<int32_t>(tier);
        CheckInstructions(tier);
        std::printf("tier %s: checked\n", names[tier]);
    }
    unsetenv("CANNON_ISA");
    (void)cannonAscendcVecSelectTier();
    /* Arguments the kernels refuse. */
    float f = 0;
    EXPECT(cannonAscendcVecBinary(CANNON_ASCENDC_VOP_DIV, CANNON_ASCENDC_VDT_I32, &f, &f, &f, 1) == 100000);
    EXPECT(cannonAscendcVecBinary(CANNON_ASCENDC_VOP_ADD, CANNON_ASCENDC_VDT_F32, nullptr, &f, &f, 1) == 100000);
    EXPECT(cannonAscendcVecBinary(CANNON_ASCENDC_VOP_ADD, 99, &f, &f, &f, 1) == 100000);
    EXPECT(cannonAscendcVecUnary(CANNON_ASCENDC_VOP_EXP, CANNON_ASCENDC_VDT_I16, &f, &f, 1) == 100000);
    EXPECT(cannonAscendcVecSum(CANNON_ASCENDC_VDT_I32, &f, 1, &f) == 100000);
    EXPECT(cannonAscendcCopyStream(nullptr, &f, 4) == 100000);
    EXPECT(cannonAscendcVecScalar(CANNON_ASCENDC_VOP_SUB, CANNON_ASCENDC_VDT_F32, &f, &f, 1.0, 1) == 100000);
    EXPECT(cannonAscendcVecBinary(CANNON_ASCENDC_VOP_ADD, CANNON_ASCENDC_VDT_F32, nullptr, nullptr, nullptr, 0) == 0);
    return TestResult("test_ascendc_vec_tiers");
}
