/**
 * @file cannon_ascendc/vec.h
 * The vector instructions on unified-buffer tensors, in the count form (`Op(dst, src0, src1, count)`)
 * and the mask/repeat form (`Op(dst, src0, src1, mask, repeatTime, params)`: repeatTime repeats of
 * 8 blocks of 32 bytes, a continuous mask (first N elements of each repeat) or a bit mask
 * (uint64_t[2]), block and repeat strides in 32-byte blocks).
 *
 * half and bfloat16_t elements are computed in float and rounded once; float and the integer
 * types are computed in their own type. The arithmetic of contiguous runs (the count form, and
 * each repeat of the mask/repeat form whose mask is a continuous prefix with block stride 1)
 * runs in libcannon_ascendc's kernels, compiled per instruction-set tier and picked at run time
 * (cannon_ascendc/vec_kernels.h) for half, bfloat16_t, float, int16_t and int32_t; other element
 * types and the scattered mask forms run the loops here. The checker's bookkeeping stays here.
 */
#ifndef CANNON_ASCENDC_VEC_H_
#define CANNON_ASCENDC_VEC_H_

#include <cmath>
#include <limits>

#include "cannon_ascendc/core.h"
#include "cannon_ascendc/vec_kernels.h"

namespace AscendC {

constexpr uint32_t DEFAULT_BLK_NUM = 8;
constexpr uint8_t DEFAULT_BLK_STRIDE = 1;
constexpr uint8_t DEFAULT_REPEAT_STRIDE = 8;
constexpr uint32_t ONE_BLK_SIZE = 32;
constexpr uint32_t ONE_REPEAT_BYTE_SIZE = 256;
constexpr uint32_t MAX_REPEAT_TIMES = 255;

struct BinaryRepeatParams {
    BinaryRepeatParams() {}
    BinaryRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t src0BlkStrideIn, const uint8_t src1BlkStrideIn,
                       const uint8_t dstRepStrideIn, const uint8_t src0RepStrideIn, const uint8_t src1RepStrideIn)
        : dstBlkStride(dstBlkStrideIn), src0BlkStride(src0BlkStrideIn), src1BlkStride(src1BlkStrideIn),
          dstRepStride(dstRepStrideIn), src0RepStride(src0RepStrideIn), src1RepStride(src1RepStrideIn)
    {}
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint8_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src0BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src1BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src0RepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src1RepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
};

struct UnaryRepeatParams {
    UnaryRepeatParams() {}
    UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn, const uint8_t dstRepStrideIn,
                      const uint8_t srcRepStrideIn)
        : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn), dstRepStride(dstRepStrideIn),
          srcRepStride(srcRepStrideIn)
    {}
    UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn, const uint8_t dstRepStrideIn,
                      const uint8_t srcRepStrideIn, const bool halfBlockIn)
        : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn), dstRepStride(dstRepStrideIn),
          srcRepStride(srcRepStrideIn), halfBlock(halfBlockIn)
    {}
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint16_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint16_t srcBlkStride = DEFAULT_BLK_STRIDE;
    uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t srcRepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
    bool halfBlock = false;
};

struct CopyRepeatParams {
    CopyRepeatParams() {}
    CopyRepeatParams(const uint16_t dstStrideIn, const uint16_t srcStrideIn, uint16_t dstRepeatSizeIn,
                     uint16_t srcRepeatSizeIn)
        : dstStride(dstStrideIn), srcStride(srcStrideIn), dstRepeatSize(dstRepeatSizeIn), srcRepeatSize(srcRepeatSizeIn)
    {}
    uint16_t dstStride = DEFAULT_DATA_COPY_STRIDE_V;
    uint16_t srcStride = DEFAULT_DATA_COPY_STRIDE_V;
    uint16_t dstRepeatSize = DEFAULT_REPEAT_STRIDE;
    uint16_t srcRepeatSize = DEFAULT_REPEAT_STRIDE;

private:
    static constexpr uint16_t DEFAULT_DATA_COPY_STRIDE_V = 1;
};

struct GatherMaskParams {
    GatherMaskParams() {}
    GatherMaskParams(const uint8_t src0BlockStrideIn, const uint16_t repeatTimesIn, const uint16_t src0RepeatStrideIn,
                     const uint8_t src1RepeatStrideIn)
        : src0BlockStride(src0BlockStrideIn), repeatTimes(repeatTimesIn), src0RepeatStride(src0RepeatStrideIn),
          src1RepeatStride(src1RepeatStrideIn)
    {}
    uint8_t src0BlockStride = DEFAULT_BLK_STRIDE;
    uint16_t repeatTimes = 0;
    uint16_t src0RepeatStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src1RepeatStride = DEFAULT_REPEAT_STRIDE;
};

enum class RoundMode : uint8_t {
    CAST_NONE = 0,
    CAST_RINT,
    CAST_FLOOR,
    CAST_CEIL,
    CAST_ROUND,
    CAST_TRUNC,
    CAST_ODD,
    CAST_HYBRID,
    CAST_EVEN,
    CAST_ZERO,
    UNKNOWN = 0xFF,
};

enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };
enum class ReduceOrder : uint8_t { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };

/* The mask register modes: the count and mask forms below take their mask as an argument, so
 * these only exist for source compatibility. */
inline void SetMaskCount() {}
inline void SetMaskNorm() {}
inline void ResetMask() {}
template <typename T, bool isSetMask = true>
inline void SetVectorMask(const uint64_t, const uint64_t) {}
template <typename T, bool isSetMask = true>
inline void SetVectorMask(int32_t) {}

namespace cannon_detail {
using cannon_ascendc::CalcT;
using cannon_ascendc::Narrow;
using cannon_ascendc::Widen;

/* The enabled elements of one repeat (at most 128 per repeat are addressable by a mask). */
struct MaskBits {
    uint64_t m[2];
};

template <typename T>
inline uint32_t RepElems()
{
    return 256u / static_cast<uint32_t>(sizeof(T));
}

template <typename T>
inline MaskBits CountMask(uint64_t mask)
{
    uint64_t n = mask < RepElems<T>() ? mask : RepElems<T>();
    MaskBits b{{0, 0}};
    b.m[0] = n >= 64 ? ~0ull : ((1ull << n) - 1);
    if (n > 64)
        b.m[1] = n >= 128 ? ~0ull : ((1ull << (n - 64)) - 1);
    return b;
}

template <typename T>
inline MaskBits ArrayMask(const uint64_t mask[])
{
    MaskBits b{{mask[0], sizeof(T) <= 2 ? mask[1] : 0ull}};
    return b;
}

inline bool Bit(const MaskBits &b, uint32_t k)
{
    return k < 128 && ((b.m[k >> 6] >> (k & 63)) & 1u);
}

/* Calls f(r, blk, j) for each enabled element: repeat r, block blk (0..7), element j in the block. */
template <typename T, class F>
inline void ForEachMasked(const MaskBits &mb, uint32_t repeat, F f)
{
    const uint32_t epb = 32u / static_cast<uint32_t>(sizeof(T));
    const uint32_t e = 8u * epb;
    for (uint32_t r = 0; r < repeat; r++)
        for (uint32_t k = 0; k < e; k++)
            if (Bit(mb, k))
                f(r, k / epb, k % epb);
}

template <typename T>
inline uint64_t ElemAt(uint32_t r, uint32_t blk, uint32_t j, uint32_t repStride, uint32_t blkStride)
{
    const uint64_t epb = 32u / sizeof(T);
    return (static_cast<uint64_t>(r) * repStride + static_cast<uint64_t>(blk) * blkStride) * epb + j;
}

/* The kernels' code of an element type, -1 where the loops here handle it. */
template <typename T>
constexpr int VecDtype()
{
    if constexpr (std::is_same<T, half>::value)
        return CANNON_ASCENDC_VDT_F16;
    else if constexpr (std::is_same<T, bfloat16_t>::value)
        return CANNON_ASCENDC_VDT_BF16;
    else if constexpr (std::is_same<T, float>::value)
        return CANNON_ASCENDC_VDT_F32;
    else if constexpr (std::is_same<T, int16_t>::value)
        return CANNON_ASCENDC_VDT_I16;
    else if constexpr (std::is_same<T, int32_t>::value)
        return CANNON_ASCENDC_VDT_I32;
    else
        return -1;
}

/* Whether the kernels compute Op on T (integer division stays here: its zero and overflow cases
 * are the compiler's). */
template <typename T, class Op>
constexpr bool InKernels()
{
    return VecDtype<T>() >= 0 && Op::kCode >= 0 &&
           (cannon_ascendc::IsF16<T>::value || std::is_same<T, float>::value || Op::kIntOk);
}

/* n when the mask enables exactly the first n elements of a repeat, else 0. */
template <typename T>
inline uint32_t PrefixLen(const MaskBits &mb)
{
    const uint32_t e = RepElems<T>() < 128u ? RepElems<T>() : 128u;
    uint32_t n = 0;
    while (n < e && Bit(mb, n))
        n++;
    for (uint32_t k = n; k < e; k++)
        if (Bit(mb, k))
            return 0;
    return n;
}

/* The contiguous runs of a mask/repeat instruction whose repeats each are n contiguous elements
 * (block stride 1): f(dst, src0, src1 element offsets, length) per run, in repeat order; repeats
 * that follow each other in every operand (repeat stride 8 blocks, full repeats) form one run.
 * Unary instructions pass 8 for the absent src1. */
struct RepStrides {
    uint32_t d, x, y;
};
template <typename T, class F>
inline void ForEachRun(uint32_t n, uint32_t repeat, RepStrides rs, F f)
{
    const uint64_t epb = 32u / sizeof(T);
    if (n == RepElems<T>() && rs.d == 8 && rs.x == 8 && rs.y == 8) {
        if (repeat)
            f(0, 0, 0, static_cast<uint64_t>(repeat) * n);
        return;
    }
    for (uint32_t r = 0; r < repeat; r++)
        f(r * rs.d * epb, r * rs.x * epb, r * rs.y * epb, n);
}

template <typename T, class Op>
inline void BinaryCount(const LocalTensor<T> &dst, const LocalTensor<T> &a, const LocalTensor<T> &b, int32_t count,
                        Op op)
{
    T *d = dst.GetPhyAddr();
    const T *x = a.GetPhyAddr();
    const T *y = b.GetPhyAddr();
    if constexpr (InKernels<T, Op>()) {
        if (count > 0)
            (void)cannonAscendcVecBinary(Op::kCode, VecDtype<T>(), d, x, y, static_cast<uint64_t>(count));
        return;
    }
    for (int32_t i = 0; i < count; i++)
        d[i] = Narrow<T>(op(Widen(x[i]), Widen(y[i])));
}

template <typename T, class Op>
inline void BinaryRepeat(const LocalTensor<T> &dst, const LocalTensor<T> &a, const LocalTensor<T> &b,
                         const MaskBits &mb, uint32_t repeat, const BinaryRepeatParams &p, Op op,
                         const cannon_ascendc::SrcLoc &loc)
{
    (void)loc;
    T *d = dst.GetPhyAddr();
    const T *x = a.GetPhyAddr();
    const T *y = b.GetPhyAddr();
    if constexpr (InKernels<T, Op>()) {
        const uint32_t n = PrefixLen<T>(mb);
        if (n && p.dstBlkStride == 1 && p.src0BlkStride == 1 && p.src1BlkStride == 1) {
            ForEachRun<T>(n, repeat, {p.dstRepStride, p.src0RepStride, p.src1RepStride},
                          [&](uint64_t di, uint64_t xi, uint64_t yi, uint64_t len) {
#if CANNON_ASCENDC_CHECK
                              dst.Check(di, len, loc);
                              a.Check(xi, len, loc);
                              b.Check(yi, len, loc);
#endif
                              (void)cannonAscendcVecBinary(Op::kCode, VecDtype<T>(), d + di, x + xi, y + yi, len);
                          });
            return;
        }
    }
    ForEachMasked<T>(mb, repeat, [&](uint32_t r, uint32_t blk, uint32_t j) {
        const uint64_t di = ElemAt<T>(r, blk, j, p.dstRepStride, p.dstBlkStride);
        const uint64_t xi = ElemAt<T>(r, blk, j, p.src0RepStride, p.src0BlkStride);
        const uint64_t yi = ElemAt<T>(r, blk, j, p.src1RepStride, p.src1BlkStride);
#if CANNON_ASCENDC_CHECK
        dst.Check(di, 1, loc);
        a.Check(xi, 1, loc);
        b.Check(yi, 1, loc);
#endif
        d[di] = Narrow<T>(op(Widen(x[xi]), Widen(y[yi])));
    });
}

template <typename T, class Op>
inline void UnaryCount(const LocalTensor<T> &dst, const LocalTensor<T> &a, int32_t count, Op op)
{
    T *d = dst.GetPhyAddr();
    const T *x = a.GetPhyAddr();
    if constexpr (InKernels<T, Op>()) {
        if (count > 0)
            RunUnary(op, VecDtype<T>(), d, x, static_cast<uint64_t>(count));
        return;
    }
    for (int32_t i = 0; i < count; i++)
        d[i] = Narrow<T>(op(Widen(x[i])));
}

template <typename T, class Op>
inline void UnaryRepeat(const LocalTensor<T> &dst, const LocalTensor<T> &a, const MaskBits &mb, uint32_t repeat,
                        const UnaryRepeatParams &p, Op op, const cannon_ascendc::SrcLoc &loc)
{
    (void)loc;
    T *d = dst.GetPhyAddr();
    const T *x = a.GetPhyAddr();
    if constexpr (InKernels<T, Op>()) {
        const uint32_t n = PrefixLen<T>(mb);
        if (n && p.dstBlkStride == 1 && p.srcBlkStride == 1) {
            ForEachRun<T>(n, repeat, {p.dstRepStride, p.srcRepStride, 8},
                          [&](uint64_t di, uint64_t xi, uint64_t, uint64_t len) {
#if CANNON_ASCENDC_CHECK
                              dst.Check(di, len, loc);
                              a.Check(xi, len, loc);
#endif
                              RunUnary(op, VecDtype<T>(), d + di, x + xi, len);
                          });
            return;
        }
    }
    ForEachMasked<T>(mb, repeat, [&](uint32_t r, uint32_t blk, uint32_t j) {
        const uint64_t di = ElemAt<T>(r, blk, j, p.dstRepStride, p.dstBlkStride);
        const uint64_t xi = ElemAt<T>(r, blk, j, p.srcRepStride, p.srcBlkStride);
#if CANNON_ASCENDC_CHECK
        dst.Check(di, 1, loc);
        a.Check(xi, 1, loc);
#endif
        d[di] = Narrow<T>(op(Widen(x[xi])));
    });
}

template <typename C>
inline C MaxOf(C a, C b)
{
    return a > b ? a : b;
}
template <typename C>
inline C MinOf(C a, C b)
{
    return a < b ? a : b;
}

/* Integer +, -, * that wrap (two's complement) without undefined behaviour: computed on the
 * unsigned type at least as wide as int, then narrowed. Floating types use the plain operators. */
template <class C>
using WrapT = typename std::conditional<(sizeof(C) > 4), unsigned long long, unsigned int>::type;
template <class C>
inline C WrapAdd(C a, C b)
{
    if constexpr (std::is_integral<C>::value)
        return static_cast<C>(static_cast<WrapT<C>>(a) + static_cast<WrapT<C>>(b));
    else
        return static_cast<C>(a + b);
}
template <class C>
inline C WrapSub(C a, C b)
{
    if constexpr (std::is_integral<C>::value)
        return static_cast<C>(static_cast<WrapT<C>>(a) - static_cast<WrapT<C>>(b));
    else
        return static_cast<C>(a - b);
}
template <class C>
inline C WrapMul(C a, C b)
{
    if constexpr (std::is_integral<C>::value)
        return static_cast<C>(static_cast<WrapT<C>>(a) * static_cast<WrapT<C>>(b));
    else
        return static_cast<C>(a * b);
}

/* Elementwise functions on the compute type (float for half/bfloat16_t). kCode is the kernels'
 * operation (cannon_ascendc/vec_kernels.h), kIntOk whether the kernels take it on integers. */
#define CANNON_ASCENDC_VOP(code, intOk)                                                                              \
    static constexpr int kCode = CANNON_ASCENDC_VOP_##code;                                                         \
    static constexpr bool kIntOk = intOk;
struct OpAdd {
    CANNON_ASCENDC_VOP(ADD, true)
    template <class C> C operator()(C a, C b) const { return WrapAdd(a, b); }
};
struct OpSub {
    CANNON_ASCENDC_VOP(SUB, true)
    template <class C> C operator()(C a, C b) const { return WrapSub(a, b); }
};
struct OpMul {
    CANNON_ASCENDC_VOP(MUL, true)
    template <class C> C operator()(C a, C b) const { return WrapMul(a, b); }
};
struct OpDiv {
    CANNON_ASCENDC_VOP(DIV, false)
    template <class C> C operator()(C a, C b) const { return static_cast<C>(a / b); }
};
struct OpMax { CANNON_ASCENDC_VOP(MAX, true) template <class C> C operator()(C a, C b) const { return MaxOf(a, b); } };
struct OpMin { CANNON_ASCENDC_VOP(MIN, true) template <class C> C operator()(C a, C b) const { return MinOf(a, b); } };
struct OpExp {
    CANNON_ASCENDC_VOP(EXP, false)
    template <class C> C operator()(C a) const { return static_cast<C>(std::exp(a)); }
};
struct OpLn {
    CANNON_ASCENDC_VOP(LN, false)
    template <class C> C operator()(C a) const { return static_cast<C>(std::log(a)); }
};
struct OpAbs {
    CANNON_ASCENDC_VOP(ABS, true)
    template <class C> C operator()(C a) const { return a < C(0) ? WrapSub(C(0), a) : a; }
    float operator()(float a) const { return std::fabs(a); }
};
struct OpRelu {
    CANNON_ASCENDC_VOP(RELU, true)
    template <class C> C operator()(C a) const { return a > C(0) ? a : C(0); }
};
struct OpSqrt {
    CANNON_ASCENDC_VOP(SQRT, false)
    template <class C> C operator()(C a) const { return static_cast<C>(std::sqrt(a)); }
};
struct OpRsqrt {
    CANNON_ASCENDC_VOP(RSQRT, false)
    template <class C> C operator()(C a) const { return static_cast<C>(C(1) / std::sqrt(a)); }
};
struct OpRecip {
    CANNON_ASCENDC_VOP(RECIP, false)
    template <class C> C operator()(C a) const { return static_cast<C>(C(1) / a); }
};
#undef CANNON_ASCENDC_VOP

template <class C, class Op>
struct WithScalar {
    static constexpr int kCode = Op::kCode;
    static constexpr bool kIntOk = Op::kIntOk;
    C s;
    Op op;
    C operator()(C a) const { return op(a, s); }
};
template <class C>
struct LeakyOp {
    static constexpr int kCode = CANNON_ASCENDC_VOP_LEAKY;
    static constexpr bool kIntOk = true;
    C s;
    C operator()(C a) const { return a >= C(0) ? a : WrapMul(a, s); }
};

/* A unary or tensor-scalar operation on a contiguous run, in the kernels. */
template <class Op>
inline void RunUnary(const Op &, int dtype, void *d, const void *x, uint64_t n)
{
    (void)cannonAscendcVecUnary(Op::kCode, dtype, d, x, n);
}
template <class C, class Op>
inline void RunUnary(const WithScalar<C, Op> &op, int dtype, void *d, const void *x, uint64_t n)
{
    (void)cannonAscendcVecScalar(Op::kCode, dtype, d, x, static_cast<double>(op.s), n);
}
template <class C>
inline void RunUnary(const LeakyOp<C> &op, int dtype, void *d, const void *x, uint64_t n)
{
    (void)cannonAscendcVecScalar(CANNON_ASCENDC_VOP_LEAKY, dtype, d, x, static_cast<double>(op.s), n);
}

template <typename T>
inline void CheckCount(const LocalTensor<T> &t, int64_t count, const cannon_ascendc::SrcLoc &loc)
{
#if CANNON_ASCENDC_CHECK
    if (count < 0)
        cannon_ascendc::Fail(loc, "negative count %lld", (long long)count);
    t.Check(0, static_cast<uint64_t>(count), loc);
#else
    (void)t;
    (void)count;
    (void)loc;
#endif
}
}  // namespace cannon_detail

#if CANNON_ASCENDC_CHECK
#define CANNON_ASCENDC_LOCV loc_
#else
#define CANNON_ASCENDC_LOCV ::cannon_ascendc::SrcLoc()
#endif

/* Binary instructions: count form and both mask/repeat forms. */
#define CANNON_ASCENDC_BINARY(Name, OpT)                                                                              \
    template <typename T, bool isSetMask = true>                                                                     \
    inline void Name(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,            \
                     const int32_t &count CANNON_ASCENDC_LOC)                                                        \
    {                                                                                                                \
        cannon_detail::CheckCount(dst, count, CANNON_ASCENDC_LOCV);                                                  \
        cannon_detail::CheckCount(src0, count, CANNON_ASCENDC_LOCV);                                                 \
        cannon_detail::CheckCount(src1, count, CANNON_ASCENDC_LOCV);                                                 \
        cannon_detail::BinaryCount(dst, src0, src1, count, cannon_detail::OpT());                                     \
    }                                                                                                                \
    template <typename T, bool isSetMask = true>                                                                     \
    inline void Name(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,            \
                     uint64_t mask[], const uint8_t repeatTime, const BinaryRepeatParams &repeatParams CANNON_ASCENDC_LOC) \
    {                                                                                                                \
        cannon_detail::BinaryRepeat(dst, src0, src1, cannon_detail::ArrayMask<T>(mask), repeatTime, repeatParams,    \
                                    cannon_detail::OpT(), CANNON_ASCENDC_LOCV);                                      \
    }                                                                                                                \
    template <typename T, bool isSetMask = true>                                                                     \
    inline void Name(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,            \
                     uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams &repeatParams CANNON_ASCENDC_LOC) \
    {                                                                                                                \
        cannon_detail::BinaryRepeat(dst, src0, src1, cannon_detail::CountMask<T>(mask), repeatTime, repeatParams,    \
                                    cannon_detail::OpT(), CANNON_ASCENDC_LOCV);                                      \
    }

CANNON_ASCENDC_BINARY(Add, OpAdd)
CANNON_ASCENDC_BINARY(Sub, OpSub)
CANNON_ASCENDC_BINARY(Mul, OpMul)
CANNON_ASCENDC_BINARY(Div, OpDiv)
CANNON_ASCENDC_BINARY(Max, OpMax)
CANNON_ASCENDC_BINARY(Min, OpMin)
#undef CANNON_ASCENDC_BINARY

/* The symbol overloads: `dst = src0 + src1` runs Add(dst, src0, src1, src0.GetSize()) (likewise
 * -, *, /); the checker requires dst and src1 to hold that many elements. */
namespace cannon_detail {
template <typename T, class Op>
struct SymbolExpr {
    using CannonSymbolExpr = void;
    LocalTensor<T> a, b;
    void Eval(const LocalTensor<T> &dst) const
    {
        const int32_t count = static_cast<int32_t>(a.GetSize());
        const cannon_ascendc::SrcLoc loc_ = cannon_ascendc::SrcLoc();
        (void)loc_;
        CheckCount(dst, count, loc_);
        CheckCount(b, count, loc_);
        BinaryCount(dst, a, b, count, Op());
    }
};
}  // namespace cannon_detail
template <typename T>
inline cannon_detail::SymbolExpr<T, cannon_detail::OpAdd> operator+(const LocalTensor<T> &a, const LocalTensor<T> &b)
{
    return {a, b};
}
template <typename T>
inline cannon_detail::SymbolExpr<T, cannon_detail::OpSub> operator-(const LocalTensor<T> &a, const LocalTensor<T> &b)
{
    return {a, b};
}
template <typename T>
inline cannon_detail::SymbolExpr<T, cannon_detail::OpMul> operator*(const LocalTensor<T> &a, const LocalTensor<T> &b)
{
    return {a, b};
}
template <typename T>
inline cannon_detail::SymbolExpr<T, cannon_detail::OpDiv> operator/(const LocalTensor<T> &a, const LocalTensor<T> &b)
{
    return {a, b};
}

/* Unary instructions. */
#define CANNON_ASCENDC_UNARY(Name, OpT)                                                                               \
    template <typename T, bool isSetMask = true>                                                                     \
    inline void Name(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &count CANNON_ASCENDC_LOC)  \
    {                                                                                                                \
        cannon_detail::CheckCount(dst, count, CANNON_ASCENDC_LOCV);                                                  \
        cannon_detail::CheckCount(src, count, CANNON_ASCENDC_LOCV);                                                  \
        cannon_detail::UnaryCount(dst, src, count, cannon_detail::OpT());                                             \
    }                                                                                                                \
    template <typename T, bool isSetMask = true>                                                                     \
    inline void Name(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint64_t mask[], const uint8_t repeatTime, \
                     const UnaryRepeatParams &repeatParams CANNON_ASCENDC_LOC)                                       \
    {                                                                                                                \
        cannon_detail::UnaryRepeat(dst, src, cannon_detail::ArrayMask<T>(mask), repeatTime, repeatParams,           \
                                   cannon_detail::OpT(), CANNON_ASCENDC_LOCV);                                       \
    }                                                                                                                \
    template <typename T, bool isSetMask = true>                                                                     \
    inline void Name(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint64_t mask, const uint8_t repeatTime,  \
                     const UnaryRepeatParams &repeatParams CANNON_ASCENDC_LOC)                                       \
    {                                                                                                                \
        cannon_detail::UnaryRepeat(dst, src, cannon_detail::CountMask<T>(mask), repeatTime, repeatParams,           \
                                   cannon_detail::OpT(), CANNON_ASCENDC_LOCV);                                       \
    }

CANNON_ASCENDC_UNARY(Exp, OpExp)
CANNON_ASCENDC_UNARY(Ln, OpLn)
CANNON_ASCENDC_UNARY(Abs, OpAbs)
CANNON_ASCENDC_UNARY(Relu, OpRelu)
CANNON_ASCENDC_UNARY(Sqrt, OpSqrt)
CANNON_ASCENDC_UNARY(Rsqrt, OpRsqrt)
CANNON_ASCENDC_UNARY(Reciprocal, OpRecip)
#undef CANNON_ASCENDC_UNARY

/* Tensor-scalar instructions: the scalar has the tensor's element type. */
#define CANNON_ASCENDC_SCALAR(Name, MakeOp)                                                                           \
    template <typename T, bool isSetMask = true>                                                                     \
    inline void Name(const LocalTensor<T> &dst, const LocalTensor<T> &src,                                          \
                     const cannon_ascendc::NoDeduce<T> &scalarValue, const int32_t &count CANNON_ASCENDC_LOC)        \
    {                                                                                                                \
        using C = cannon_detail::CalcT<T>;                                                                           \
        cannon_detail::CheckCount(dst, count, CANNON_ASCENDC_LOCV);                                                  \
        cannon_detail::CheckCount(src, count, CANNON_ASCENDC_LOCV);                                                  \
        const C s = cannon_detail::Widen(scalarValue);                                                               \
        cannon_detail::UnaryCount(dst, src, count, MakeOp);                                                          \
    }                                                                                                                \
    template <typename T, bool isSetMask = true>                                                                     \
    inline void Name(const LocalTensor<T> &dst, const LocalTensor<T> &src,                                          \
                     const cannon_ascendc::NoDeduce<T> &scalarValue, uint64_t mask[], const uint8_t repeatTime,      \
                     const UnaryRepeatParams &repeatParams CANNON_ASCENDC_LOC)                                       \
    {                                                                                                                \
        using C = cannon_detail::CalcT<T>;                                                                           \
        const C s = cannon_detail::Widen(scalarValue);                                                               \
        cannon_detail::UnaryRepeat(dst, src, cannon_detail::ArrayMask<T>(mask), repeatTime, repeatParams, MakeOp,   \
                                   CANNON_ASCENDC_LOCV);                                                             \
    }                                                                                                                \
    template <typename T, bool isSetMask = true>                                                                     \
    inline void Name(const LocalTensor<T> &dst, const LocalTensor<T> &src,                                          \
                     const cannon_ascendc::NoDeduce<T> &scalarValue, uint64_t mask, const uint8_t repeatTime,        \
                     const UnaryRepeatParams &repeatParams CANNON_ASCENDC_LOC)                                       \
    {                                                                                                                \
        using C = cannon_detail::CalcT<T>;                                                                           \
        const C s = cannon_detail::Widen(scalarValue);                                                               \
        cannon_detail::UnaryRepeat(dst, src, cannon_detail::CountMask<T>(mask), repeatTime, repeatParams, MakeOp,   \
                                   CANNON_ASCENDC_LOCV);                                                             \
    }

CANNON_ASCENDC_SCALAR(Adds, (cannon_detail::WithScalar<C, cannon_detail::OpAdd>{s, {}}))
CANNON_ASCENDC_SCALAR(Muls, (cannon_detail::WithScalar<C, cannon_detail::OpMul>{s, {}}))
CANNON_ASCENDC_SCALAR(Maxs, (cannon_detail::WithScalar<C, cannon_detail::OpMax>{s, {}}))
CANNON_ASCENDC_SCALAR(Mins, (cannon_detail::WithScalar<C, cannon_detail::OpMin>{s, {}}))
CANNON_ASCENDC_SCALAR(LeakyRelu, (cannon_detail::LeakyOp<C>{s}))
#undef CANNON_ASCENDC_SCALAR

/* Duplicate: fill with a scalar. */
template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T> &dst, const cannon_ascendc::NoDeduce<T> &scalarValue,
                      const int32_t &count CANNON_ASCENDC_LOC)
{
    cannon_detail::CheckCount(dst, count, CANNON_ASCENDC_LOCV);
    T *d = dst.GetPhyAddr();
    for (int32_t i = 0; i < count; i++)
        d[i] = scalarValue;
}

namespace cannon_detail {
/* Duplicate's mask/repeat form over either kind of mask. */
template <typename T, typename Mask>
inline void DuplicateMasked(const LocalTensor<T> &dst, const T scalarValue, const Mask &mask, const uint8_t repeatTime,
                            const uint16_t dstBlockStride, const uint8_t dstRepeatStride CANNON_ASCENDC_LOC)
{
    T *d = dst.GetPhyAddr();
    ForEachMasked<T>(mask, repeatTime, [&](uint32_t r, uint32_t blk, uint32_t j) {
        const uint64_t di = ElemAt<T>(r, blk, j, dstRepeatStride, dstBlockStride);
#if CANNON_ASCENDC_CHECK
        dst.Check(di, 1, loc_);
#endif
        d[di] = scalarValue;
    });
}
}  // namespace cannon_detail

template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T> &dst, const cannon_ascendc::NoDeduce<T> &scalarValue, uint64_t mask,
                      const uint8_t repeatTime, const uint16_t dstBlockStride,
                      const uint8_t dstRepeatStride CANNON_ASCENDC_LOC)
{
    cannon_detail::DuplicateMasked(dst, static_cast<T>(scalarValue), cannon_detail::CountMask<T>(mask), repeatTime,
                                   dstBlockStride, dstRepeatStride CANNON_ASCENDC_CHECK_ARG);
}

template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T> &dst, const cannon_ascendc::NoDeduce<T> &scalarValue, uint64_t mask[],
                      const uint8_t repeatTime, const uint16_t dstBlockStride,
                      const uint8_t dstRepeatStride CANNON_ASCENDC_LOC)
{
    cannon_detail::DuplicateMasked(dst, static_cast<T>(scalarValue), cannon_detail::ArrayMask<T>(mask), repeatTime,
                                   dstBlockStride, dstRepeatStride CANNON_ASCENDC_CHECK_ARG);
}

/* Copy (unified buffer to unified buffer, mask/repeat form). */
template <typename T, bool isSetMask = true>
inline void CopyMasked(const LocalTensor<T> &dst, const LocalTensor<T> &src, const cannon_detail::MaskBits &mb,
                       const uint8_t repeatTime, const CopyRepeatParams &p, const cannon_ascendc::SrcLoc &loc)
{
    (void)loc;
    T *d = dst.GetPhyAddr();
    const T *s = src.GetPhyAddr();
    cannon_detail::ForEachMasked<T>(mb, repeatTime, [&](uint32_t r, uint32_t blk, uint32_t j) {
        const uint64_t di = cannon_detail::ElemAt<T>(r, blk, j, p.dstRepeatSize, p.dstStride);
        const uint64_t si = cannon_detail::ElemAt<T>(r, blk, j, p.srcRepeatSize, p.srcStride);
#if CANNON_ASCENDC_CHECK
        dst.Check(di, 1, loc);
        src.Check(si, 1, loc);
#endif
        d[di] = s[si];
    });
}

template <typename T, bool isSetMask = true>
inline void Copy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask, const uint8_t repeatTime,
                 const CopyRepeatParams &repeatParams CANNON_ASCENDC_LOC)
{
    CopyMasked(dst, src, cannon_detail::CountMask<T>(mask), repeatTime, repeatParams, CANNON_ASCENDC_LOCV);
}

template <typename T, bool isSetMask = true>
inline void Copy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[],
                 const uint8_t repeatTime, const CopyRepeatParams &repeatParams CANNON_ASCENDC_LOC)
{
    CopyMasked(dst, src, cannon_detail::ArrayMask<T>(mask), repeatTime, repeatParams, CANNON_ASCENDC_LOCV);
}

namespace cannon_detail {
/* Cast of one value with a rounding mode. */
template <typename U>
inline U NextToward(U v, bool up)
{
    if constexpr (cannon_ascendc::IsF16<U>::value) {
        uint16_t b = v.val;
        const bool neg = (b & 0x8000u) != 0;
        if ((b & 0x7fffu) == 0)
            return U::FromBits(up ? 0x0001u : 0x8001u);
        /* Moving away from zero increases the magnitude bits. */
        b = static_cast<uint16_t>((up != neg) ? b + 1 : b - 1);
        return U::FromBits(b);
    } else {
        return std::nextafter(v, up ? std::numeric_limits<U>::infinity() : -std::numeric_limits<U>::infinity());
    }
}

template <typename U>
inline bool LastBitOdd(U v)
{
    if constexpr (cannon_ascendc::IsF16<U>::value) {
        return (v.val & 1u) != 0;
    } else if constexpr (sizeof(U) == 4) {
        return (cannon_ascendc::F32Bits(static_cast<float>(v)) & 1u) != 0;
    } else {
        uint64_t u;
        std::memcpy(&u, &v, 8);
        return (u & 1u) != 0;
    }
}

inline double RoundDouble(double x, RoundMode m)
{
    switch (m) {
    case RoundMode::CAST_FLOOR:
        return std::floor(x);
    case RoundMode::CAST_CEIL:
        return std::ceil(x);
    case RoundMode::CAST_TRUNC:
    case RoundMode::CAST_ZERO:
        return std::trunc(x);
    case RoundMode::CAST_ROUND:
        return std::round(x);
    case RoundMode::CAST_ODD: {
        const double f = std::floor(x);
        if (f == x)
            return x;
        return std::fmod(f, 2.0) != 0.0 ? f : f + 1.0;
    }
    default: {
        const double f = std::floor(x), d = x - f;
        if (d > 0.5 || (d == 0.5 && std::fmod(f, 2.0) != 0.0))
            return f + 1.0;
        return f;
    }
    }
}

template <typename U, typename T>
inline U CastOne(T v, RoundMode m)
{
    const double x = static_cast<double>(Widen(v));
    if constexpr (std::is_integral<U>::value) {
        if (std::isnan(x))
            return U(0);
        double r = std::is_integral<T>::value ? x : RoundDouble(x, m);
        if (r <= static_cast<double>(std::numeric_limits<U>::min()))
            return std::numeric_limits<U>::min();
        if (r >= static_cast<double>(std::numeric_limits<U>::max()))
            return std::numeric_limits<U>::max();
        if constexpr (std::is_integral<T>::value)
            return static_cast<U>(v);
        return static_cast<U>(r);
    } else {
        U rn;
        if constexpr (std::is_integral<T>::value)
            rn = static_cast<U>(static_cast<float>(v));
        else
            rn = static_cast<U>(static_cast<float>(x));
        if constexpr (std::is_same<U, double>::value)
            rn = x;
        const double y = static_cast<double>(static_cast<CalcT<U>>(rn));
        if (y == x || std::isnan(x) || m == RoundMode::CAST_NONE || m == RoundMode::CAST_RINT ||
            m == RoundMode::CAST_EVEN || m == RoundMode::CAST_HYBRID)
            return rn;
        const U lo = y < x ? rn : NextToward(rn, false);
        const U hi = y < x ? NextToward(rn, true) : rn;
        switch (m) {
        case RoundMode::CAST_FLOOR:
            return lo;
        case RoundMode::CAST_CEIL:
            return hi;
        case RoundMode::CAST_TRUNC:
        case RoundMode::CAST_ZERO:
            return x > 0 ? lo : hi;
        case RoundMode::CAST_ROUND: {
            const double dl = x - static_cast<double>(static_cast<CalcT<U>>(lo));
            const double dh = static_cast<double>(static_cast<CalcT<U>>(hi)) - x;
            if (dl == dh)
                return x > 0 ? hi : lo;
            return rn;
        }
        case RoundMode::CAST_ODD:
            return LastBitOdd(lo) ? lo : hi;
        default:
            return rn;
        }
    }
}
}  // namespace cannon_detail

/** Cast: each element converted with @p roundMode (CAST_NONE: exact when possible, else CAST_RINT).
 *  Float to integer saturates and maps NaN to 0. */
template <typename U, typename T>
inline void Cast(const LocalTensor<U> &dst, const LocalTensor<T> &src, const RoundMode &roundMode,
                 const uint32_t count CANNON_ASCENDC_LOC)
{
    cannon_detail::CheckCount(dst, count, CANNON_ASCENDC_LOCV);
    cannon_detail::CheckCount(src, count, CANNON_ASCENDC_LOCV);
    U *d = dst.GetPhyAddr();
    const T *s = src.GetPhyAddr();
    const RoundMode m = roundMode;
    for (uint32_t i = 0; i < count; i++)
        d[i] = cannon_detail::CastOne<U, T>(s[i], m);
}

namespace cannon_detail {
template <typename C>
inline bool CmpOne(C a, C b, CMPMODE m)
{
    switch (m) {
    case CMPMODE::LT: return a < b;
    case CMPMODE::GT: return a > b;
    case CMPMODE::EQ: return a == b;
    case CMPMODE::LE: return a <= b;
    case CMPMODE::GE: return a >= b;
    default: return a != b;
    }
}
}  // namespace cannon_detail

/** Compare: bit i of the uint8 mask tensor @p dst (LSB first) is src0[i] <op> src1[i]. */
template <typename T, typename U>
inline void Compare(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, CMPMODE cmpMode,
                    uint32_t count CANNON_ASCENDC_LOC)
{
    cannon_detail::CheckCount(src0, count, CANNON_ASCENDC_LOCV);
    cannon_detail::CheckCount(src1, count, CANNON_ASCENDC_LOCV);
    cannon_detail::CheckCount(dst.template ReinterpretCast<uint8_t>(), (count + 7) / 8, CANNON_ASCENDC_LOCV);
    uint8_t *d = reinterpret_cast<uint8_t *>(dst.GetPhyAddr());
    const T *a = src0.GetPhyAddr();
    const T *b = src1.GetPhyAddr();
    for (uint32_t i = 0; i < count; i += 8) {
        uint8_t byte = 0;
        for (uint32_t k = 0; k < 8 && i + k < count; k++)
            byte = static_cast<uint8_t>(byte | (cannon_detail::CmpOne(cannon_detail::Widen(a[i + k]),
                                                                      cannon_detail::Widen(b[i + k]), cmpMode)
                                                << k));
        d[i / 8] = byte;
    }
}

template <typename T, typename U>
inline void Compares(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const cannon_ascendc::NoDeduce<T> src1Scalar,
                     CMPMODE cmpMode, uint32_t count CANNON_ASCENDC_LOC)
{
    cannon_detail::CheckCount(src0, count, CANNON_ASCENDC_LOCV);
    cannon_detail::CheckCount(dst.template ReinterpretCast<uint8_t>(), (count + 7) / 8, CANNON_ASCENDC_LOCV);
    uint8_t *d = reinterpret_cast<uint8_t *>(dst.GetPhyAddr());
    const T *a = src0.GetPhyAddr();
    const auto s = cannon_detail::Widen(src1Scalar);
    for (uint32_t i = 0; i < count; i += 8) {
        uint8_t byte = 0;
        for (uint32_t k = 0; k < 8 && i + k < count; k++)
            byte = static_cast<uint8_t>(byte | (cannon_detail::CmpOne(cannon_detail::Widen(a[i + k]), s, cmpMode) << k));
        d[i / 8] = byte;
    }
}

namespace cannon_detail {
/* The selMask bit of element i: VSEL_CMPMASK_SPR reuses one repeat's bits for every repeat. */
template <typename T>
inline bool SelBit(const uint8_t *m, uint32_t i, SELMODE mode)
{
    const uint32_t k = mode == SELMODE::VSEL_CMPMASK_SPR ? i % RepElems<T>() : i;
    return (m[k / 8] >> (k % 8)) & 1u;
}
}  // namespace cannon_detail

/** Select: dst[i] = bit i of @p selMask ? src0[i] : src1[i]. */
template <typename T, typename U>
inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0,
                   const LocalTensor<T> &src1, SELMODE selMode, uint32_t count CANNON_ASCENDC_LOC)
{
    cannon_detail::CheckCount(dst, count, CANNON_ASCENDC_LOCV);
    cannon_detail::CheckCount(src0, count, CANNON_ASCENDC_LOCV);
    cannon_detail::CheckCount(src1, count, CANNON_ASCENDC_LOCV);
    const uint8_t *m = reinterpret_cast<const uint8_t *>(selMask.GetPhyAddr());
    T *d = dst.GetPhyAddr();
    const T *a = src0.GetPhyAddr();
    const T *b = src1.GetPhyAddr();
    for (uint32_t i = 0; i < count; i++)
        d[i] = cannon_detail::SelBit<T>(m, i, selMode) ? a[i] : b[i];
}

/** Select against a scalar: dst[i] = bit i of @p selMask ? src0[i] : src1. */
template <typename T, typename U>
inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0,
                   cannon_ascendc::NoDeduce<T> src1, SELMODE selMode, uint32_t count CANNON_ASCENDC_LOC)
{
    cannon_detail::CheckCount(dst, count, CANNON_ASCENDC_LOCV);
    cannon_detail::CheckCount(src0, count, CANNON_ASCENDC_LOCV);
    const uint8_t *m = reinterpret_cast<const uint8_t *>(selMask.GetPhyAddr());
    T *d = dst.GetPhyAddr();
    const T *a = src0.GetPhyAddr();
    for (uint32_t i = 0; i < count; i++)
        d[i] = cannon_detail::SelBit<T>(m, i, selMode) ? a[i] : src1;
}

namespace cannon_detail {
/* Stores an index in an element of T's width (what the chip writes next to a max/min). */
template <typename T>
inline void StoreIndex(T *where, uint32_t idx)
{
    if constexpr (sizeof(T) == 2) {
        const uint16_t v = static_cast<uint16_t>(idx);
        std::memcpy(where, &v, 2);
    } else if constexpr (sizeof(T) == 4) {
        std::memcpy(where, &idx, 4);
    } else {
        const uint64_t v = idx;
        std::memcpy(where, &v, sizeof(T) < 8 ? sizeof(T) : 8);
    }
}

template <typename T>
inline void ReduceExt(const LocalTensor<T> &dst, const LocalTensor<T> &src, int32_t count, bool calIndex, bool isMax,
                      const cannon_ascendc::SrcLoc &loc)
{
    CheckCount(src, count, loc);
    CheckCount(dst, calIndex ? 2 : 1, loc);
    if (count <= 0)
        return;
    const T *s = src.GetPhyAddr();
    auto best = Widen(s[0]);
    uint32_t bi = 0;
    for (int32_t i = 1; i < count; i++) {
        const auto v = Widen(s[i]);
        if (isMax ? v > best : v < best) {
            best = v;
            bi = static_cast<uint32_t>(i);
        }
    }
    T *d = dst.GetPhyAddr();
    d[0] = s[bi];
    if (calIndex)
        StoreIndex(d + 1, bi);
}
}  // namespace cannon_detail

/** ReduceSum over @p count elements into dst[0]: half/bfloat16_t/float in float, in the kernels' fixed order
 *  (cannonAscendcVecSum); the integer types in order in their own type. */
template <typename T, bool isSetMask = true>
inline void ReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,
                      const int32_t count CANNON_ASCENDC_LOC)
{
    (void)sharedTmpBuffer;
    cannon_detail::CheckCount(src, count, CANNON_ASCENDC_LOCV);
    cannon_detail::CheckCount(dst, 1, CANNON_ASCENDC_LOCV);
    const T *s = src.GetPhyAddr();
    cannon_detail::CalcT<T> acc = 0;
    if constexpr (!std::is_integral<T>::value && cannon_detail::VecDtype<T>() >= 0) {
        /* Floating types: the kernels' fixed-order sum (32 partial sums added pairwise). */
        float f = 0.0f;
        (void)cannonAscendcVecSum(cannon_detail::VecDtype<T>(), s, count > 0 ? static_cast<uint64_t>(count) : 0, &f);
        dst.GetPhyAddr()[0] = cannon_detail::Narrow<T>(f);
        return;
    }
    for (int32_t i = 0; i < count; i++)
        acc = static_cast<cannon_detail::CalcT<T>>(acc + cannon_detail::Widen(s[i]));
    dst.GetPhyAddr()[0] = cannon_detail::Narrow<T>(acc);
}

/** ReduceMax: dst[0] = the maximum, dst[1] = its first index (as an integer of T's width) with calIndex. */
template <typename T>
inline void ReduceMax(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,
                      const int32_t count, bool calIndex = 0 CANNON_ASCENDC_LOC)
{
    (void)sharedTmpBuffer;
    cannon_detail::ReduceExt(dst, src, count, calIndex, true, CANNON_ASCENDC_LOCV);
}

template <typename T>
inline void ReduceMin(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,
                      const int32_t count, bool calIndex = 0 CANNON_ASCENDC_LOC)
{
    (void)sharedTmpBuffer;
    cannon_detail::ReduceExt(dst, src, count, calIndex, false, CANNON_ASCENDC_LOCV);
}

namespace cannon_detail {
/* One reduction per repeat (WholeReduce*): dst advances dstRepStride results per repeat. */
template <typename T>
inline void WholeReduce(const LocalTensor<T> &dst, const LocalTensor<T> &src, const MaskBits &mb, int32_t repeat,
                        int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride, int kind, ReduceOrder order,
                        const cannon_ascendc::SrcLoc &loc)
{
    (void)loc;
    const uint32_t epb = 32u / static_cast<uint32_t>(sizeof(T));
    const uint32_t e = 8u * epb;
    const T *s = src.GetPhyAddr();
    T *d = dst.GetPhyAddr();
    const bool pair = kind != 0 && (order == ReduceOrder::ORDER_VALUE_INDEX || order == ReduceOrder::ORDER_INDEX_VALUE);
    const uint64_t unit = pair ? 2 : 1;
    for (int32_t r = 0; r < repeat; r++) {
        CalcT<T> acc = 0;
        bool have = false;
        uint32_t bi = 0;
        for (uint32_t k = 0; k < e; k++) {
            if (!Bit(mb, k))
                continue;
            const uint64_t si = ElemAt<T>(static_cast<uint32_t>(r), k / epb, k % epb,
                                          static_cast<uint32_t>(srcRepStride), static_cast<uint32_t>(srcBlkStride));
#if CANNON_ASCENDC_CHECK
            src.Check(si, 1, loc);
#endif
            const CalcT<T> v = Widen(s[si]);
            if (kind == 0)
                acc = static_cast<CalcT<T>>(acc + v);
            else if (!have || (kind == 1 ? v > acc : v < acc)) {
                acc = v;
                bi = k;
            }
            have = true;
        }
        const uint64_t di = static_cast<uint64_t>(r) * static_cast<uint64_t>(dstRepStride) * unit;
#if CANNON_ASCENDC_CHECK
        dst.Check(di, unit, loc);
#endif
        if (kind == 0 || order == ReduceOrder::ORDER_ONLY_VALUE) {
            d[di] = Narrow<T>(acc);
        } else if (order == ReduceOrder::ORDER_ONLY_INDEX) {
            /* Only the index: one uint32_t per result. */
            std::memcpy(reinterpret_cast<uint8_t *>(d) +
                            static_cast<uint64_t>(r) * static_cast<uint64_t>(dstRepStride) * sizeof(uint32_t),
                        &bi, sizeof bi);
        } else if (order == ReduceOrder::ORDER_VALUE_INDEX) {
            d[di] = Narrow<T>(acc);
            StoreIndex(d + di + 1, bi);
        } else {
            StoreIndex(d + di, bi);
            d[di + 1] = Narrow<T>(acc);
        }
    }
}
}  // namespace cannon_detail

template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t mask,
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride CANNON_ASCENDC_LOC)
{
    cannon_detail::WholeReduce(dst, src, cannon_detail::CountMask<T>(static_cast<uint64_t>(mask)), repeatTime,
                               dstRepStride, srcBlkStride, srcRepStride, 0, ReduceOrder::ORDER_ONLY_VALUE,
                               CANNON_ASCENDC_LOCV);
}

template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[],
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride CANNON_ASCENDC_LOC)
{
    cannon_detail::WholeReduce(dst, src, cannon_detail::ArrayMask<T>(mask), repeatTime, dstRepStride, srcBlkStride,
                               srcRepStride, 0, ReduceOrder::ORDER_ONLY_VALUE, CANNON_ASCENDC_LOCV);
}

#define CANNON_ASCENDC_WHOLE_EXT(Name, kind)                                                                          \
    template <typename T, bool isSetMask = true>                                                                     \
    inline void Name(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t mask,                      \
                     const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,               \
                     const int32_t srcRepStride,                                                                     \
                     ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX CANNON_ASCENDC_LOC)                          \
    {                                                                                                                \
        cannon_detail::WholeReduce(dst, src, cannon_detail::CountMask<T>(static_cast<uint64_t>(mask)), repeatTime,   \
                                   dstRepStride, srcBlkStride, srcRepStride, kind, order, CANNON_ASCENDC_LOCV);      \
    }                                                                                                                \
    template <typename T, bool isSetMask = true>                                                                     \
    inline void Name(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[],                   \
                     const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,               \
                     const int32_t srcRepStride,                                                                     \
                     ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX CANNON_ASCENDC_LOC)                          \
    {                                                                                                                \
        cannon_detail::WholeReduce(dst, src, cannon_detail::ArrayMask<T>(mask), repeatTime, dstRepStride,           \
                                   srcBlkStride, srcRepStride, kind, order, CANNON_ASCENDC_LOCV);                    \
    }
CANNON_ASCENDC_WHOLE_EXT(WholeReduceMax, 1)
CANNON_ASCENDC_WHOLE_EXT(WholeReduceMin, 2)
#undef CANNON_ASCENDC_WHOLE_EXT

namespace cannon_detail {
/* One sum per 32-byte block (BlockReduceSum): 8 results per repeat, dstRepStride in units of 8. */
template <typename T>
inline void BlockReduce(const LocalTensor<T> &dst, const LocalTensor<T> &src, int32_t repeat, const MaskBits &mb,
                        int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride,
                        const cannon_ascendc::SrcLoc &loc)
{
    (void)loc;
    const uint32_t epb = 32u / static_cast<uint32_t>(sizeof(T));
    const T *s = src.GetPhyAddr();
    T *d = dst.GetPhyAddr();
    for (int32_t r = 0; r < repeat; r++) {
        for (uint32_t blk = 0; blk < 8; blk++) {
            CalcT<T> acc = 0;
            for (uint32_t j = 0; j < epb; j++) {
                if (!Bit(mb, blk * epb + j))
                    continue;
                const uint64_t si = ElemAt<T>(static_cast<uint32_t>(r), blk, j, static_cast<uint32_t>(srcRepStride),
                                              static_cast<uint32_t>(srcBlkStride));
#if CANNON_ASCENDC_CHECK
                src.Check(si, 1, loc);
#endif
                acc = static_cast<CalcT<T>>(acc + Widen(s[si]));
            }
            const uint64_t di = static_cast<uint64_t>(r) * static_cast<uint64_t>(dstRepStride) * 8u + blk;
#if CANNON_ASCENDC_CHECK
            dst.Check(di, 1, loc);
#endif
            d[di] = Narrow<T>(acc);
        }
    }
}
}  // namespace cannon_detail

template <typename T, bool isSetMask = true>
inline void BlockReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTime,
                           const int32_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride CANNON_ASCENDC_LOC)
{
    cannon_detail::BlockReduce(dst, src, repeatTime, cannon_detail::CountMask<T>(static_cast<uint64_t>(mask)),
                               dstRepStride, srcBlkStride, srcRepStride, CANNON_ASCENDC_LOCV);
}

template <typename T, bool isSetMask = true>
inline void BlockReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTime,
                           const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride CANNON_ASCENDC_LOC)
{
    cannon_detail::BlockReduce(dst, src, repeatTime, cannon_detail::ArrayMask<T>(mask), dstRepStride, srcBlkStride,
                               srcRepStride, CANNON_ASCENDC_LOCV);
}

namespace cannon_detail {
template <typename T, class PatternBit>
inline uint64_t Gather(const LocalTensor<T> &dst, const LocalTensor<T> &src0, bool reduceMode, uint32_t mask,
                       const GatherMaskParams &p, PatternBit bit, const cannon_ascendc::SrcLoc &loc)
{
    (void)loc;
    const uint32_t epb = 32u / static_cast<uint32_t>(sizeof(T));
    /* Normal mode: each repeat reads 256 bytes; counter mode: each repeat reads mask elements. */
    const uint32_t e = reduceMode ? mask : 8u * epb;
    const T *s = src0.GetPhyAddr();
    T *d = dst.GetPhyAddr();
    uint64_t out = 0;
    for (uint32_t r = 0; r < p.repeatTimes; r++) {
        for (uint32_t k = 0; k < e; k++) {
            if (!bit(r, k))
                continue;
            const uint64_t si = (static_cast<uint64_t>(r) * p.src0RepeatStride +
                                 static_cast<uint64_t>(k / epb) * p.src0BlockStride) * epb + k % epb;
#if CANNON_ASCENDC_CHECK
            src0.Check(si, 1, loc);
            dst.Check(out, 1, loc);
#endif
            d[out++] = s[si];
        }
    }
    return out;
}
}  // namespace cannon_detail

/** GatherMask with a pattern tensor: bit k of the pattern (LSB first, src1RepeatStride 32-byte
 *  blocks further per repeat) keeps element k; the kept elements are packed into dst. */
template <typename T, typename U>
inline void GatherMask(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<U> &src1Pattern,
                       const bool reduceMode, const uint32_t mask, const GatherMaskParams &gatherMaskParams,
                       uint64_t &rsvdCnt CANNON_ASCENDC_LOC)
{
    const U *pat = src1Pattern.GetPhyAddr();
    const uint32_t ubits = 8u * static_cast<uint32_t>(sizeof(U));
    const uint64_t repBits = static_cast<uint64_t>(gatherMaskParams.src1RepeatStride) * 256u;
    rsvdCnt = cannon_detail::Gather(
        dst, src0, reduceMode, mask, gatherMaskParams,
        [&](uint32_t r, uint32_t k) {
            const uint64_t b = r * repBits + k;
            return ((static_cast<uint64_t>(pat[b / ubits]) >> (b % ubits)) & 1u) != 0;
        },
        CANNON_ASCENDC_LOCV);
}

/** GatherMask with a built-in pattern: 1 even elements, 2 odd, 3..6 element 0..3 of every four, 7 all. */
template <typename T>
inline void GatherMask(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const uint8_t src1Pattern,
                       const bool reduceMode, const uint32_t mask, const GatherMaskParams &gatherMaskParams,
                       uint64_t &rsvdCnt CANNON_ASCENDC_LOC)
{
    const uint8_t pt = src1Pattern;
    CANNON_ASCENDC_CHECK_IF(pt < 1 || pt > 7, "GatherMask: built-in pattern %u is not in [1, 7]", pt);
    rsvdCnt = cannon_detail::Gather(
        dst, src0, reduceMode, mask, gatherMaskParams,
        [pt](uint32_t, uint32_t k) {
            switch (pt) {
            case 1: return k % 2 == 0;
            case 2: return k % 2 == 1;
            case 3: return k % 4 == 0;
            case 4: return k % 4 == 1;
            case 5: return k % 4 == 2;
            case 6: return k % 4 == 3;
            default: return true;
            }
        },
        CANNON_ASCENDC_LOCV);
}

}  // namespace AscendC

#endif /* CANNON_ASCENDC_VEC_H_ */
