/* The host program of the sample-shaped project, in both of its modes:
 *   CPU-debug (__CCE_KT_TEST__, from tikicpulib): GmAlloc'd memory, ICPU_RUN_KF on this thread;
 *   NPU: aclInit, device memory, ACLRT_LAUNCH_KERNEL(axpy_relu) on a stream, synchronize.
 * The inputs are filled with securec's memcpy_s; every output element is checked against a
 * float64 reference. Prints "sample_project <mode>: ok" (formatted with sprintf_s). */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "axpy_relu_tiling.h"
#include "securec.h"
#ifdef __CCE_KT_TEST__
#include "tikicpulib.h"
extern "C" __global__ __aicore__ void axpy_relu(GM_ADDR x, GM_ADDR y, GM_ADDR z, AxpyReluTiling tiling);
#else
#include "aclrtlaunch_axpy_relu.h"
#endif

#define CHECK(cond)                                                                                    \
    do {                                                                                               \
        if (!(cond)) {                                                                                 \
            std::fprintf(stderr, "sample_project: %s:%d: %s failed\n", __FILE__, __LINE__, #cond);   \
            return 1;                                                                                  \
        }                                                                                              \
    } while (0)

int main()
{
    const uint32_t blockDim = 6;
    AxpyReluTiling tiling{};
    tiling.blockLength = 3 * 512;
    tiling.tileLength = 512;
    tiling.alpha = -1.75f;
    const size_t n = static_cast<size_t>(blockDim) * tiling.blockLength;
    const size_t bytes = n * sizeof(float);

    std::vector<float> x(n), y(n), z(n);
    for (size_t i = 0; i < n; i++) {
        x[i] = static_cast<float>(static_cast<int>(i % 97) - 48) / 8.0f;
        y[i] = static_cast<float>(static_cast<int>((i * 7) % 61) - 30) / 3.0f;
    }

#ifdef __CCE_KT_TEST__
    const char *mode = "cpu";
    uint8_t *gx = static_cast<uint8_t *>(AscendC::GmAlloc(bytes));
    uint8_t *gy = static_cast<uint8_t *>(AscendC::GmAlloc(bytes));
    uint8_t *gz = static_cast<uint8_t *>(AscendC::GmAlloc(bytes));
    CHECK(gx != nullptr && gy != nullptr && gz != nullptr);
    CHECK(memcpy_s(gx, bytes, x.data(), bytes) == EOK);
    CHECK(memcpy_s(gy, bytes, y.data(), bytes) == EOK);
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF(axpy_relu, blockDim, gx, gy, gz, tiling);
    CHECK(memcpy_s(z.data(), bytes, gz, bytes) == EOK);
    AscendC::GmFree(gx);
    AscendC::GmFree(gy);
    AscendC::GmFree(gz);
#else
    const char *mode = "npu";
    CHECK(aclInit(nullptr) == ACL_SUCCESS);
    CHECK(aclrtSetDevice(0) == ACL_SUCCESS);
    aclrtStream stream = nullptr;
    CHECK(aclrtCreateStream(&stream) == ACL_SUCCESS);
    void *host = nullptr, *dx = nullptr, *dy = nullptr, *dz = nullptr;
    CHECK(aclrtMallocHost(&host, bytes) == ACL_SUCCESS);
    CHECK(aclrtMalloc(&dx, bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CHECK(aclrtMalloc(&dy, bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CHECK(aclrtMalloc(&dz, bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CHECK(memcpy_s(host, bytes, x.data(), bytes) == EOK);
    CHECK(aclrtMemcpy(dx, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
    CHECK(memcpy_s(host, bytes, y.data(), bytes) == EOK);
    CHECK(aclrtMemcpy(dy, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
    CHECK(ACLRT_LAUNCH_KERNEL(axpy_relu)(blockDim, stream, dx, dy, dz, &tiling) == 0);
    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
    CHECK(aclrtMemcpy(host, bytes, dz, bytes, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    CHECK(memcpy_s(z.data(), bytes, host, bytes) == EOK);
    CHECK(aclrtFree(dx) == ACL_SUCCESS && aclrtFree(dy) == ACL_SUCCESS && aclrtFree(dz) == ACL_SUCCESS);
    CHECK(aclrtFreeHost(host) == ACL_SUCCESS);
    CHECK(aclrtDestroyStream(stream) == ACL_SUCCESS);
    CHECK(aclrtResetDevice(0) == ACL_SUCCESS);
    CHECK(aclFinalize() == ACL_SUCCESS);
#endif

    /* Two float roundings (the product, the sum): within 2^-22 of the operands' magnitudes. */
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        const double ax = static_cast<double>(tiling.alpha) * x[i];
        const double ref = std::fmax(ax + y[i], 0.0);
        const double tol = std::ldexp(std::fabs(ax) + std::fabs(static_cast<double>(y[i])), -22);
        if (!(std::fabs(static_cast<double>(z[i]) - ref) <= tol)) {
            if (bad++ < 5)
                std::fprintf(stderr, "sample_project: z[%zu] = %.9g, expected %.9g\n", i, z[i], ref);
        }
    }
    CHECK(bad == 0);
    char line[64];
    CHECK(sprintf_s(line, sizeof line, "sample_project %s: ok", mode) > 0);
    std::puts(line);
    return 0;
}
