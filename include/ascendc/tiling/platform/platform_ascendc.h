/**
 * @file tiling/platform/platform_ascendc.h
 * platform_ascendc::PlatformAscendC: what a TilingFunc asks of the platform (core counts,
 * on-chip memory sizes, the SoC series, the library workspace size), read from the
 * fe::PlatFormInfos that TilingContext::GetPlatformInfo() returns; and
 * PlatformAscendCManager::GetInstance() for host code outside a TilingFunc (kernel-launch
 * programs). On cannon the description is an Ascend 910B1's unless CANNON_SOC_VERSION (or
 * GetInstance's argument) names another SoC; see platform/platform_infos_def.h.
 */
#ifndef CANNON_TILING_PLATFORM_ASCENDC_H_
#define CANNON_TILING_PLATFORM_ASCENDC_H_

#include <cstdint>
#include <cstdlib>
#include <mutex>

#include "platform/platform_infos_def.h"

namespace platform_ascendc {

enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, BT = 7, FB = 8, RESERVED };

enum class SocVersion { ASCEND910 = 0, ASCEND910B, ASCEND310P, ASCEND310B, KIRIN9020 = 5, RESERVED_VERSION = 99999 };

namespace cannon_detail {
/** The description used when a caller passes none (a TilingContext without one). */
inline fe::PlatFormInfos *DefaultInfos()
{
    static fe::PlatFormInfos infos = [] {
        fe::PlatFormInfos p;
        (void)p.InitSoc(std::getenv("CANNON_SOC_VERSION"));
        return p;
    }();
    return &infos;
}
}  // namespace cannon_detail

class PlatformAscendC {
public:
    PlatformAscendC() = delete;
    ~PlatformAscendC() = default;
    /** A NULL description reads as the default one. */
    explicit PlatformAscendC(fe::PlatFormInfos *platformInfo)
        : platformInfo_(platformInfo ? platformInfo : cannon_detail::DefaultInfos())
    {}
    /** The AI cores (the cube cores on split-core SoCs such as the 910B). */
    uint32_t GetCoreNum(void) const { return platformInfo_->aicNum; }
    uint32_t GetCoreNumAic(void) const { return platformInfo_->aicNum; }
    uint32_t GetCoreNumAiv(void) const { return platformInfo_->aivNum; }
    /** The separate vector cores of a 310P-class SoC, 0 elsewhere. */
    uint32_t GetCoreNumVector(void) const { return platformInfo_->socVersion == 2 ? platformInfo_->aivNum : 0; }
    /** The block dim for sliceNum slices: on split-core SoCs a kernel using only the vector
     *  units launches per vector core, one using the cube per cube core. */
    uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const
    {
        if (aicCoreNum == 0 || aivCoreNum == 0 || aicCoreNum > aivCoreNum)
            return sliceNum;
        const uint32_t ratio = aivCoreNum / aicCoreNum;
        return ratio ? (sliceNum + ratio - 1) / ratio : sliceNum;
    }
    uint32_t GetLibApiWorkSpaceSize(void) const { return platformInfo_->libApiWorkspace; }
    void GetCoreMemSize(const CoreMemType &memType, uint64_t &size) const
    {
        const int i = static_cast<int>(memType);
        size = i >= 0 && i < 9 ? platformInfo_->memSize[i] : 0;
    }
    /** Bandwidths are not described (0). */
    void GetCoreMemBw(const CoreMemType &memType, uint64_t &bwSize) const
    {
        (void)memType;
        bwSize = 0;
    }
    SocVersion GetSocVersion(void) const { return static_cast<SocVersion>(platformInfo_->socVersion); }

private:
    fe::PlatFormInfos *platformInfo_;
};

class PlatformAscendCManager {
public:
    /** The platform of this process (CANNON_SOC_VERSION, or the 910B1). */
    static PlatformAscendC *GetInstance() { return GetInstance(nullptr); }
    /** The platform of @p customSocVersion on the first call (later calls return the same one). */
    static PlatformAscendC *GetInstance(const char *customSocVersion)
    {
        static std::mutex mtx;
        static fe::PlatFormInfos infos;
        static PlatformAscendC *instance = nullptr;
        const std::lock_guard<std::mutex> lock(mtx);
        if (instance == nullptr) {
            infos = *cannon_detail::DefaultInfos();
            if (customSocVersion)
                (void)infos.InitSoc(customSocVersion);
            static PlatformAscendC platform(&infos);
            instance = &platform;
        }
        return instance;
    }

private:
    PlatformAscendCManager();
    ~PlatformAscendCManager() = default;
};

}  // namespace platform_ascendc

#endif /* CANNON_TILING_PLATFORM_ASCENDC_H_ */
