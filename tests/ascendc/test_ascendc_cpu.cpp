/*
 * CPU-debug mode (tikicpulib.h): ICPU_RUN_KF runs a kernel's blocks on the calling thread over
 * GmAlloc memory without any ACL runtime, the results match the exactly rounded sum, and a checker
 * violation stops the run with a message instead of crashing; so does a false ASSERT, naming its
 * condition and line, while a true one lets the kernel go on.
 */
#include <cstring>

#include "tikicpulib.h"
#include "ascendc_test.h"
#include "add_kernel.h"

using test_kernels::kTile;

extern "C" __global__ __aicore__ void cpu_add_half(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total)
{
    test_kernels::KernelAddHalf op;
    op.Init(x, y, z, total);
    op.Process();
}

extern "C" __global__ __aicore__ void cpu_bad_copy(GM_ADDR x)
{
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024);
    AscendC::GlobalTensor<float> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(x), 8);
    AscendC::DataCopy(buf.Get<float>(), g, 16); /* past the 8 floats */
}

extern "C" __global__ __aicore__ void cpu_tiling_key(GM_ADDR out)
{
    reinterpret_cast<uint32_t *>(out)[AscendC::GetBlockIdx()] = TILING_KEY_IS(7) ? 7u : 1u;
}

/* Blocks 0 and 1 pass the assertion and write; block 2 stops at it. */
extern "C" __global__ __aicore__ void cpu_assert(GM_ADDR out)
{
    const uint32_t b = AscendC::GetBlockIdx();
    ASSERT(b < 2 && "block 2 stops here");
    reinterpret_cast<uint32_t *>(out)[b] = b + 10u;
}

int main()
{
    const uint32_t n = 8 * 2048;
    const size_t bytes = n * sizeof(half);
    half *x = static_cast<half *>(AscendC::GmAlloc(bytes));
    half *y = static_cast<half *>(AscendC::GmAlloc(bytes));
    half *z = static_cast<half *>(AscendC::GmAlloc(bytes));
    for (uint32_t i = 0; i < n; i++) {
        x[i] = half(static_cast<float>(i % 1000) * 0.125f);
        y[i] = half(static_cast<float>(i % 77) - 30.0f);
    }
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF(cpu_add_half, 8, reinterpret_cast<uint8_t *>(x), reinterpret_cast<uint8_t *>(y),
                reinterpret_cast<uint8_t *>(z), n);
    int bad = 0;
    for (uint32_t i = 0; i < n; i++)
        bad += z[i].val != half(static_cast<float>(x[i]) + static_cast<float>(y[i])).val;
    EXPECT_MSG(bad == 0, "ICPU_RUN_KF add: %d wrong", bad);

    /* A violation: reported, the program goes on. */
    float *f = static_cast<float *>(AscendC::GmAlloc(8 * sizeof(float)));
    int rc = AscendC::cannon_cpu::RunKernelFunctionOnCpu(cpu_bad_copy, "cpu_bad_copy", 2,
                                                         reinterpret_cast<uint8_t *>(f));
    EXPECT(rc == CANNON_ASCENDC_ERROR);
    EXPECT(std::strstr(cannonAscendcLastMessage(), "cpu_bad_copy block 0") != nullptr);
    EXPECT(std::strstr(cannonAscendcLastMessage(), "outside SetGlobalBuffer") != nullptr);

    uint32_t *marks = static_cast<uint32_t *>(AscendC::GmAlloc(4 * sizeof(uint32_t)));
    rc = AscendC::cannon_cpu::RunKernelFunctionOnCpu(cpu_assert, "cpu_assert", 4, reinterpret_cast<uint8_t *>(marks));
    EXPECT(rc == CANNON_ASCENDC_ERROR);
    EXPECT(marks[0] == 10 && marks[1] == 11 && marks[2] == 0 && marks[3] == 0);
    EXPECT(std::strstr(cannonAscendcLastMessage(), "cpu_assert block 2") != nullptr);
    EXPECT(std::strstr(cannonAscendcLastMessage(), "ASSERT(b < 2 && \"block 2 stops here\") failed") != nullptr);
    EXPECT(std::strstr(cannonAscendcLastMessage(), "test_ascendc_cpu.cpp:") != nullptr);
    AscendC::GmFree(marks);

    uint32_t *keys = static_cast<uint32_t *>(AscendC::GmAlloc(4 * sizeof(uint32_t)));
    ICPU_SET_TILING_KEY(7);
    ICPU_RUN_KF(cpu_tiling_key, 4, keys);
    EXPECT(keys[0] == 7 && keys[3] == 7);
    ICPU_SET_TILING_KEY(1);
    ICPU_RUN_KF(cpu_tiling_key, 4, keys);
    EXPECT(keys[0] == 1 && keys[3] == 1);

    AscendC::GmFree(keys);
    AscendC::GmFree(f);
    AscendC::GmFree(x);
    AscendC::GmFree(y);
    AscendC::GmFree(z);
    return TestResult("test_ascendc_cpu");
}
