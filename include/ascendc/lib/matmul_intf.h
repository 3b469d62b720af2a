/**
 * @file lib/matmul_intf.h
 * Ascend C's Matmul high-level API for cube kernels on cannon: `Matmul<MatmulType<...> A, B, C
 * [, Bias]>` registered with REGIST_MATMUL_OBJ, Init(tiling), SetTensorA/B (optionally
 * transposed), SetBias/DisableBias, SetOrgShape/SetSingleShape/SetTail, IterateAll(gm) or
 * Iterate() + GetTensorC(), End(); the kernel-side TCubeTiling; and the host tiling classes
 * matmul_tiling::MatmulApiTiling / MultiCoreMatmulTiling that fill it.
 *
 * A, B and C live in global memory in ND (row-major) format: A is M x Ka (Ka x M transposed),
 * B is Ka x N (N x Ka transposed), C is M x N; the org shape gives the row strides, the single
 * shape the block's part. Products accumulate in float (half and bfloat16_t inputs are widened
 * exactly) in libcannon_ascendc's blocked GEMM, compiled per instruction-set tier
 * (cannonAscendcGemm); a half or bfloat16_t C is rounded once.
 */
#ifndef CANNON_ASCENDC_LIB_MATMUL_INTF_H_
#define CANNON_ASCENDC_LIB_MATMUL_INTF_H_

#include <cstdint>

#include "kernel_operator.h"
#include "cannon_ascendc/vec_kernels.h"

#include "cannon_ascendc/tcube_tiling.h"

/* A kernel that uses the Matmul API is a MIX (cube + vector) kernel: see cannon_ascendc::SubBlocks
 * (launch.h) and ICPU_RUN_KF. */
#undef CANNON_ASCENDC_MIX_KERNEL_V
#define CANNON_ASCENDC_MIX_KERNEL_V 1

namespace AscendC {

enum class CubeFormat : uint8_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };
enum class LayoutMode : uint8_t { NONE = 0, BSNGD, SBNGD, BNGS1S2, NORMAL };

/** One operand's place, format and element type. */
template <TPosition POSITION, CubeFormat FORMAT, typename TYPE, bool ISTRANS = false,
          LayoutMode LAYOUT = LayoutMode::NONE, bool IBSHARE = false>
struct MatmulType {
    constexpr static TPosition pos = POSITION;
    constexpr static CubeFormat format = FORMAT;
    using T = TYPE;
    constexpr static bool isTrans = ISTRANS;
    constexpr static LayoutMode layout = LAYOUT;
    constexpr static bool ibShare = IBSHARE;
};

/** Matmul configurations (accepted; every one runs the same code here). */
struct MatmulConfig {
    bool doNorm = true;
};
constexpr MatmulConfig CFG_NORM{};
constexpr MatmulConfig CFG_MDL{};

namespace cannon_detail {
inline GM_ADDR &SysWorkspace()
{
    static thread_local GM_ADDR ws = nullptr;
    return ws;
}
}  // namespace cannon_detail
/** The system workspace: what the kernel last passed to SetSysWorkspace on this block's thread
 *  (the Matmul objects need none on a CPU; kernels pass it to REGIST_MATMUL_OBJ). */
inline GM_ADDR GetSysWorkSpacePtr()
{
    return cannon_detail::SysWorkspace();
}
inline void SetSysWorkspace(GM_ADDR workspace)
{
    cannon_detail::SysWorkspace() = workspace;
}

/** The cube unit's 32-byte fractal row (C0) size, which samples use as the DataCopy block unit. */
constexpr uint32_t DEFAULT_C0_SIZE = 32;

/** ceil(a / b) for the tiling arithmetic of matmul kernels (0 when b is 0). */
template <typename T, typename U>
inline constexpr auto Ceil(T a, U b) -> decltype(a + b)
{
    return b == 0 ? 0 : (a + b - 1) / b;
}

namespace cannon_detail {
template <typename T> constexpr int GemmDtype()
{
    return VecDtype<T>();
}
} // namespace cannon_detail

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const auto &MM_CFG = CFG_NORM>
class Matmul {
    using SrcAT = typename A_TYPE::T;
    using SrcBT = typename B_TYPE::T;
    using DstT = typename C_TYPE::T;
    using BiasT = typename BIAS_TYPE::T;
    static_assert(std::is_same<SrcAT, SrcBT>::value, "Matmul: A and B have one element type");
    static_assert(cannon_detail::GemmDtype<SrcAT>() == CANNON_ASCENDC_VDT_F16 ||
                      cannon_detail::GemmDtype<SrcAT>() == CANNON_ASCENDC_VDT_BF16 ||
                      cannon_detail::GemmDtype<SrcAT>() == CANNON_ASCENDC_VDT_F32,
                  "Matmul: A and B are half, bfloat16_t or float");

  public:
    /** Takes the shapes from @p cubeTiling (the single shape, the base block, isBias). */
    void Init(const TCubeTiling *cubeTiling, TPipe *tpipe = nullptr)
    {
        (void)tpipe;
        if (!cubeTiling)
            return;
        tiling_ = *cubeTiling;
        orgM_ = tiling_.M, orgN_ = tiling_.N, orgKa_ = tiling_.Ka, orgKb_ = tiling_.Kb;
        singleM_ = tiling_.singleCoreM, singleN_ = tiling_.singleCoreN, singleK_ = tiling_.singleCoreK;
        hasBias_ = false;
        iter_ = 0;
    }
    void SetOrgShape(int orgM, int orgN, int orgK)
    {
        SetOrgShape(orgM, orgN, orgK, orgK, orgN);
    }
    void SetOrgShape(int orgM, int orgN, int orgKa, int orgKb, int orgKc = 0)
    {
        (void)orgKc;
        orgM_ = orgM, orgN_ = orgN, orgKa_ = orgKa, orgKb_ = orgKb;
    }
    void SetSingleShape(int singleM, int singleN, int singleK)
    {
        singleM_ = singleM, singleN_ = singleN, singleK_ = singleK;
    }
    /** The block's shape where it is smaller than the single shape (-1: keep). */
    void SetTail(int tailM = -1, int tailN = -1, int tailK = -1)
    {
        if (tailM > 0)
            singleM_ = tailM;
        if (tailN > 0)
            singleN_ = tailN;
        if (tailK > 0)
            singleK_ = tailK;
    }
    void SetTensorA(const GlobalTensor<SrcAT> &gm, bool isTransposeA = false)
    {
        a_ = gm.GetPhyAddr();
        transA_ = isTransposeA || A_TYPE::isTrans;
        iter_ = 0;
    }
    void SetTensorB(const GlobalTensor<SrcBT> &gm, bool isTransposeB = false)
    {
        b_ = gm.GetPhyAddr();
        transB_ = isTransposeB || B_TYPE::isTrans;
        iter_ = 0;
    }
    void SetBias(const GlobalTensor<BiasT> &biasGlobal)
    {
        bias_ = biasGlobal.GetPhyAddr();
        hasBias_ = true;
    }
    void DisableBias()
    {
        hasBias_ = false;
    }
    void ClearBias()
    {
        hasBias_ = false;
    }

    /** The whole single-shape block of C into @p gm (row stride N of the org shape); enAtomic 1
     *  adds to what is there. */
    template <bool sync = true>
    void IterateAll(const GlobalTensor<DstT> &gm, uint8_t enAtomic = 0, bool enSequentialWrite = false,
                    bool waitIterateAll = false, bool fakeMsg = false)
    {
        (void)enSequentialWrite, (void)waitIterateAll, (void)fakeMsg;
        Run(0, 0, singleM_, singleN_, gm.GetPhyAddr(), static_cast<uint64_t>(orgN_), enAtomic != 0);
    }

    /** Steps to the next baseM x baseN block of C (M first with iterateOrder 0, N first with 1);
     *  false after the last. */
    template <bool sync = true> bool Iterate(bool enPartialSum = false)
    {
        (void)enPartialSum;
        const int bm = BaseM(), bn = BaseN();
        const int mIter = (singleM_ + bm - 1) / bm, nIter = (singleN_ + bn - 1) / bn;
        if (iter_ >= mIter * nIter)
            return false;
        if (tiling_.iterateOrder == 1)
            curM_ = iter_ / nIter, curN_ = iter_ % nIter;
        else
            curM_ = iter_ % mIter, curN_ = iter_ / mIter;
        iter_++;
        return true;
    }

    /** The current block into its place in @p gm (the block's C, row stride N of the org shape). */
    template <bool sync = true>
    void GetTensorC(const GlobalTensor<DstT> &gm, uint8_t enAtomic = 0, bool enSequentialWrite = false)
    {
        const int bm = BaseM(), bn = BaseN();
        const int m0 = curM_ * bm, n0 = curN_ * bn;
        const int rows = singleM_ - m0 < bm ? singleM_ - m0 : bm, cols = singleN_ - n0 < bn ? singleN_ - n0 : bn;
        if (enSequentialWrite)
            Run(m0, n0, rows, cols, gm.GetPhyAddr(), static_cast<uint64_t>(cols), enAtomic != 0, true);
        else
            Run(m0, n0, rows, cols, gm.GetPhyAddr() + static_cast<uint64_t>(m0) * orgN_ + n0,
                static_cast<uint64_t>(orgN_), enAtomic != 0);
    }

    /** The current block into a unified-buffer tensor, baseM x baseN row-major. */
    template <bool sync = true>
    void GetTensorC(const LocalTensor<DstT> &c, uint8_t enAtomic = 0, bool enSequentialWrite = false)
    {
        (void)enSequentialWrite;
        const int bm = BaseM(), bn = BaseN();
        const int m0 = curM_ * bm, n0 = curN_ * bn;
        const int rows = singleM_ - m0 < bm ? singleM_ - m0 : bm, cols = singleN_ - n0 < bn ? singleN_ - n0 : bn;
        Run(m0, n0, rows, cols, c.GetPhyAddr(), static_cast<uint64_t>(bn), enAtomic != 0, true);
    }

    void End()
    {
        iter_ = 0;
    }
    /** The UB scratch a 310P-class SoC's matmul needs for format conversion: unused here. */
    void SetLocalWorkspace(const LocalTensor<uint8_t> &tmpBuffer)
    {
        (void)tmpBuffer;
    }
    void SetWorkspace(GM_ADDR addr, int size)
    {
        (void)addr, (void)size;
    }

  private:
    int BaseM() const
    {
        return tiling_.baseM > 0 ? tiling_.baseM : (singleM_ > 0 ? singleM_ : 1);
    }
    int BaseN() const
    {
        return tiling_.baseN > 0 ? tiling_.baseN : (singleN_ > 0 ? singleN_ : 1);
    }

    /* C block rows [m0, m0 + rows) x cols [n0, n0 + cols) of this block's product into dst. */
    void Run(int m0, int n0, int rows, int cols, DstT *dst, uint64_t ldc, bool accumulate, bool = false)
    {
        if (rows <= 0 || cols <= 0 || !a_ || !b_ || !dst)
            return;
        cannon_ascendc_gemm g{};
        g.m = static_cast<uint64_t>(rows);
        g.n = static_cast<uint64_t>(cols);
        g.k = static_cast<uint64_t>(singleK_ > 0 ? singleK_ : 0);
        g.dtype_ab = cannon_detail::GemmDtype<SrcAT>();
        g.dtype_c = cannon_detail::GemmDtype<DstT>();
        g.dtype_bias = cannon_detail::GemmDtype<BiasT>();
        /* A: M x Ka row-major, or Ka x M when transposed; B: Ka x N, or N x Kb when transposed. */
        if (transA_) {
            g.a = a_ + static_cast<uint64_t>(m0);
            g.sai = 1, g.sap = static_cast<uint64_t>(orgM_);
        } else {
            g.a = a_ + static_cast<uint64_t>(m0) * orgKa_;
            g.sai = static_cast<uint64_t>(orgKa_), g.sap = 1;
        }
        if (transB_) {
            g.b = b_ + static_cast<uint64_t>(n0) * orgKb_;
            g.sbp = 1, g.sbj = static_cast<uint64_t>(orgKb_);
        } else {
            g.b = b_ + static_cast<uint64_t>(n0);
            g.sbp = static_cast<uint64_t>(orgN_), g.sbj = 1;
        }
        g.bias = hasBias_ ? static_cast<const void *>(bias_ + n0) : nullptr;
        g.c = dst;
        g.ldc = ldc;
        g.accumulate = accumulate;
        (void)cannonAscendcGemm(&g);
    }

    TCubeTiling tiling_{};
    const SrcAT *a_ = nullptr;
    const SrcBT *b_ = nullptr;
    const BiasT *bias_ = nullptr;
    bool transA_ = false, transB_ = false, hasBias_ = false;
    int orgM_ = 0, orgN_ = 0, orgKa_ = 0, orgKb_ = 0;
    int singleM_ = 0, singleN_ = 0, singleK_ = 0;
    int iter_ = 0, curM_ = 0, curN_ = 0;
};

namespace cannon_detail {
inline void RegistMatmul(TPipe *, GM_ADDR)
{
}
template <class MM, class... Rest>
inline void RegistMatmul(TPipe *pipe, GM_ADDR workspace, MM &mm, const TCubeTiling *tiling, Rest &&...rest)
{
    mm.Init(tiling, pipe);
    RegistMatmul(pipe, workspace, rest...);
}
template <class MM, class... Rest> inline void RegistMatmul(TPipe *pipe, GM_ADDR workspace, MM &mm)
{
    (void)pipe, (void)workspace, (void)mm;
}
} // namespace cannon_detail

} // namespace AscendC

/* The Matmul API's older namespace (`using namespace matmul;`): the same classes. */
namespace matmul {
using namespace AscendC;
}

/** REGIST_MATMUL_OBJ(&pipe, workspace, mm1, &tiling1 [, mm2, &tiling2 ...]): Init each object with
 *  its tiling (an object without a tiling is initialised later by its own Init). */
#define REGIST_MATMUL_OBJ(tpipe, workspace, ...)                                                                       \
    ::AscendC::cannon_detail::RegistMatmul((tpipe), (workspace), __VA_ARGS__)

#endif /* CANNON_ASCENDC_LIB_MATMUL_INTF_H_ */
