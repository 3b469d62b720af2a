/**
 * @file platform/platform_infos_def.h
 * fe::PlatFormInfos, the platform description a TilingFunc reads through
 * TilingContext::GetPlatformInfo() and platform_ascendc::PlatformAscendC. On cannon it is the
 * description of the SoC a cannon device presents: its name, core counts and on-chip memory
 * sizes (an Ascend 910B's by default). Kernels run on CPU workers whatever these numbers say;
 * they only shape how a TilingFunc splits the work.
 */
#ifndef CANNON_PLATFORM_INFOS_DEF_H_
#define CANNON_PLATFORM_INFOS_DEF_H_

#include <cstdint>
#include <cstring>

namespace fe {

class PlatFormInfos {
public:
    /** The series the description is for: 0 Ascend910 (A), 1 Ascend910B, 2 Ascend310P,
     *  3 Ascend310B (platform_ascendc::SocVersion's values). */
    int32_t socVersion = 1;
    char socName[32] = "Ascend910B1";
    uint32_t aicNum = 24;
    uint32_t aivNum = 48;
    /* On-chip memory sizes in bytes, indexed by platform_ascendc::CoreMemType. */
    uint64_t memSize[9] = {64ull << 10, 64ull << 10, 128ull << 10, 512ull << 10, 192ull << 20, 192ull << 10,
                           64ull << 30, 1ull << 10, 2ull << 10};
    uint32_t libApiWorkspace = 16u << 20;

    /** The description of a SoC by name (Ascend910A…, Ascend910B1–B4, Ascend910_93…, Ascend310P…,
     *  Ascend310B…, case-insensitive); false, leaving the description as it was, for other names. */
    bool InitSoc(const char *name)
    {
        if (name == nullptr)
            return false;
        char up[32] = {0};
        for (size_t i = 0; i < sizeof up - 1 && name[i]; i++)
            up[i] = static_cast<char>(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 32 : name[i]);
        auto starts = [&](const char *p) { return std::strncmp(up, p, std::strlen(p)) == 0; };
        /* Ascend910B<n>… and Ascend910_93… are the 910B series; a plain "Ascend910B" is a 910A part. */
        if ((starts("ASCEND910B") && up[10] >= '0' && up[10] <= '9') || starts("ASCEND910_93")) {
            socVersion = 1;
            /* The B1/B2 parts have 24 cube cores, the B3/B4 parts 20. */
            const bool small = up[10] == '3' || up[10] == '4';
            aicNum = small ? 20 : 24;
            aivNum = 2 * aicNum;
            memSize[5] = 192ull << 10;
        } else if (starts("ASCEND910")) {
            socVersion = 0;
            aicNum = 32;
            aivNum = 0;
            memSize[5] = 256ull << 10;
        } else if (starts("ASCEND310P")) {
            socVersion = 2;
            aicNum = 8;
            aivNum = 7;
            memSize[5] = 256ull << 10;
        } else if (starts("ASCEND310B")) {
            socVersion = 3;
            aicNum = 1;
            aivNum = 1;
            memSize[5] = 256ull << 10;
        } else {
            return false;
        }
        std::strncpy(socName, name, sizeof socName - 1);
        socName[sizeof socName - 1] = '\0';
        return true;
    }
};

}  // namespace fe

#endif /* CANNON_PLATFORM_INFOS_DEF_H_ */
