/**
 * @file lib/matmul_tiling.h
 * The host side of the Matmul API (CANN's `matmul_tiling` names): MatmulApiTiling for one core
 * and MultiCoreMatmulTiling for a split over SetDim() cores fill the TCubeTiling a kernel's
 * Matmul object is initialised with (lib/matmul_intf.h), either the plain struct or the host's
 * tiling-data class optiling::TCubeTiling (SaveToBuffer gives the bytes the kernel reads).
 * Host-only: it does not include the kernel headers (`tiling/tiling_api.h` includes it). Types and positions are recorded; the
 * split is along M (then N) into blocks of whole 16-row / 16-column units, and the base block
 * (Iterate's step) is at most 128 x 256.
 */
#ifndef CANNON_ASCENDC_LIB_MATMUL_TILING_H_
#define CANNON_ASCENDC_LIB_MATMUL_TILING_H_

#include <cstdint>
#include <cstring>

#include "cannon_ascendc/positions.h"
#include "cannon_ascendc/tcube_tiling.h"
#include "cannon_ascendc/tiling.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
/** The host's tiling-data class of the matmul tiling: set_<field>/get_<field>, SaveToBuffer and
 *  GetDataSize over the same fields, in the same layout, as the kernel's TCubeTiling. */
#define CANNON_ASCENDC_TCUBE_FIELD(name) TILING_DATA_FIELD_DEF(int32_t, name);
BEGIN_TILING_DATA_DEF(TCubeTiling)
CANNON_ASCENDC_TCUBE_TILING_FIELDS(CANNON_ASCENDC_TCUBE_FIELD)
END_TILING_DATA_DEF;
#undef CANNON_ASCENDC_TCUBE_FIELD
static_assert(sizeof(TCubeTiling) == sizeof(::TCubeTiling), "optiling::TCubeTiling has the kernel's layout");
}  // namespace optiling

namespace matmul_tiling {

/** The host tiling's positions: the kernel's list (positions.h), a distinct type. */
enum class TPosition : int32_t {
    CANNON_ASCENDC_TPOSITIONS(CANNON_ASCENDC_POS_ENUM, CANNON_ASCENDC_POS_ALIAS)
    MAX
};
enum class CubeFormat : int32_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };
/** Element types (the values of ge::DataType). */
enum class DataType : int32_t {
    DT_FLOAT = 0,
    DT_FLOAT16 = 1,
    DT_INT8 = 2,
    DT_INT32 = 3,
    DT_UINT8 = 4,
    DT_INT16 = 6,
    DT_UINT16 = 7,
    DT_UINT32 = 8,
    DT_INT64 = 9,
    DT_BF16 = 27,
};

/** The order Iterate() steps through the base blocks: M first (the M index varies fastest) or N first. */
enum class MatrixTraverse : int32_t { NOSET = 0, FIRSTM = 1, FIRSTN = 2 };

class MatmulApiTiling {
  public:
    MatmulApiTiling() = default;
    /** The platform is accepted (the split does not depend on it). */
    explicit MatmulApiTiling(const platform_ascendc::PlatformAscendC &ascendcPlatform)
    {
        (void)ascendcPlatform;
    }
    virtual ~MatmulApiTiling() = default;

    int32_t SetAType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans = false)
    {
        (void)pos, (void)type, (void)dataType;
        transA_ = isTrans;
        return 0;
    }
    int32_t SetBType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans = false)
    {
        (void)pos, (void)type, (void)dataType;
        transB_ = isTrans;
        return 0;
    }
    int32_t SetCType(TPosition pos, CubeFormat type, DataType dataType)
    {
        (void)pos, (void)type, (void)dataType;
        return 0;
    }
    int32_t SetBiasType(TPosition pos, CubeFormat type, DataType dataType)
    {
        (void)pos, (void)type, (void)dataType;
        return 0;
    }
    /** The shape this tiling computes (the whole matrix for MatmulApiTiling). */
    int32_t SetShape(int32_t m, int32_t n, int32_t k)
    {
        if (m <= 0 || n <= 0 || k <= 0)
            return -1;
        m_ = m, n_ = n, k_ = k;
        return 0;
    }
    /** The matrices' full shape (the row strides). */
    int32_t SetOrgShape(int32_t orgMIn, int32_t orgNIn, int32_t orgKIn)
    {
        return SetOrgShape(orgMIn, orgNIn, orgKIn, orgKIn);
    }
    int32_t SetOrgShape(int32_t orgMIn, int32_t orgNIn, int32_t orgKaIn, int32_t orgKbIn)
    {
        if (orgMIn <= 0 || orgNIn <= 0 || orgKaIn <= 0 || orgKbIn <= 0)
            return -1;
        orgM_ = orgMIn, orgN_ = orgNIn, orgKa_ = orgKaIn, orgKb_ = orgKbIn;
        return 0;
    }
    int32_t SetBias(bool isBiasIn = false)
    {
        bias_ = isBiasIn;
        return 0;
    }
    int32_t SetFixSplit(int32_t baseMIn = -1, int32_t baseNIn = -1, int32_t baseKIn = -1)
    {
        fixM_ = baseMIn, fixN_ = baseNIn, fixK_ = baseKIn;
        return 0;
    }
    /** The on-chip buffer sizes (recorded; a CPU has no such limits). */
    int32_t SetBufferSpace(int32_t l1Size = -1, int32_t l0CSize = -1, int32_t ubSize = -1, int32_t btSize = -1)
    {
        (void)l1Size, (void)l0CSize, (void)ubSize, (void)btSize;
        return 0;
    }
    int32_t SetTraverse(MatrixTraverse traverse)
    {
        order_ = traverse == MatrixTraverse::FIRSTN ? 1 : 0;
        return 0;
    }

    /** Fills @p tiling; returns 0, or -1 when the shape is missing. */
    int64_t GetTiling(TCubeTiling &tiling)
    {
        return Fill(tiling, 1);
    }
    int64_t GetTiling(optiling::TCubeTiling &tiling)
    {
        return FillHost(tiling, 1);
    }

  protected:
    int64_t FillHost(optiling::TCubeTiling &host, int32_t dim)
    {
        TCubeTiling t;
        const int64_t rc = Fill(t, dim);
        if (rc == 0)
            std::memcpy(static_cast<void *>(&host), &t, sizeof t);
        return rc;
    }
    static int32_t Up16(int32_t v)
    {
        return (v + 15) / 16 * 16;
    }
    static int32_t Min(int32_t a, int32_t b)
    {
        return a < b ? a : b;
    }

    int64_t Fill(TCubeTiling &t, int32_t dim)
    {
        if (m_ <= 0 && orgM_ > 0)
            m_ = orgM_, n_ = orgN_, k_ = orgKa_;
        if (m_ <= 0 || n_ <= 0 || k_ <= 0 || dim <= 0)
            return -1;
        std::memset(&t, 0, sizeof t);
        t.M = orgM_ > 0 ? orgM_ : m_;
        t.N = orgN_ > 0 ? orgN_ : n_;
        t.Ka = orgKa_ > 0 ? orgKa_ : k_;
        t.Kb = orgKb_ > 0 ? orgKb_ : k_;
        /* Split M over the cores first, then N with the cores left. */
        int32_t mDim = Min(dim, (m_ + 15) / 16);
        int32_t nDim = Min(dim / mDim, (n_ + 15) / 16);
        if (nDim < 1)
            nDim = 1;
        t.singleCoreM = Min(m_, Up16((m_ + mDim - 1) / mDim));
        t.singleCoreN = Min(n_, Up16((n_ + nDim - 1) / nDim));
        t.singleCoreK = k_;
        mDim_ = (m_ + t.singleCoreM - 1) / t.singleCoreM;
        nDim_ = (n_ + t.singleCoreN - 1) / t.singleCoreN;
        t.usedCoreNum = mDim_ * nDim_;
        t.baseM = fixM_ > 0 ? fixM_ : Min(t.singleCoreM, 128);
        t.baseN = fixN_ > 0 ? fixN_ : Min(t.singleCoreN, 256);
        t.baseK = fixK_ > 0 ? fixK_ : Min(t.singleCoreK, 64);
        t.depthA1 = t.depthB1 = 1;
        t.stepM = t.stepN = t.stepKa = t.stepKb = 1;
        t.isBias = bias_ ? 1 : 0;
        t.iterateOrder = order_;
        t.dbL0A = t.dbL0B = 2;
        t.dbL0C = 1;
        t.batchM = t.batchN = t.singleBatchM = t.singleBatchN = t.BatchNum = 1;
        return 0;
    }

    int32_t m_ = 0, n_ = 0, k_ = 0;
    int32_t orgM_ = 0, orgN_ = 0, orgKa_ = 0, orgKb_ = 0;
    int32_t fixM_ = -1, fixN_ = -1, fixK_ = -1, order_ = 0;
    int32_t mDim_ = 1, nDim_ = 1;
    bool bias_ = false, transA_ = false, transB_ = false;
};

class MultiCoreMatmulTiling : public MatmulApiTiling {
  public:
    MultiCoreMatmulTiling() = default;
    explicit MultiCoreMatmulTiling(const platform_ascendc::PlatformAscendC &ascendcPlatform)
        : MatmulApiTiling(ascendcPlatform)
    {}
    /** The number of cores the matmul may use. */
    int32_t SetDim(int32_t dim)
    {
        if (dim <= 0)
            return -1;
        dim_ = dim;
        return 0;
    }
    int32_t SetSingleShape(int32_t singleMIn = -1, int32_t singleNIn = -1, int32_t singleKIn = -1)
    {
        (void)singleMIn, (void)singleNIn, (void)singleKIn;
        return 0;
    }
    int64_t GetTiling(TCubeTiling &tiling)
    {
        return Fill(tiling, dim_);
    }
    int64_t GetTiling(optiling::TCubeTiling &tiling)
    {
        return FillHost(tiling, dim_);
    }
    int32_t GetSingleShape(int32_t &shapeM, int32_t &shapeN, int32_t &shapeK)
    {
        TCubeTiling t;
        if (Fill(t, dim_) != 0)
            return -1;
        shapeM = t.singleCoreM, shapeN = t.singleCoreN, shapeK = t.singleCoreK;
        return 0;
    }
    int32_t GetCoreNum(int32_t &dim, int32_t &mDim, int32_t &nDim)
    {
        TCubeTiling t;
        if (Fill(t, dim_) != 0)
            return -1;
        dim = t.usedCoreNum, mDim = mDim_, nDim = nDim_;
        return 0;
    }

  private:
    int32_t dim_ = 1;
};

} // namespace matmul_tiling

#endif /* CANNON_ASCENDC_LIB_MATMUL_TILING_H_ */
