/*
 * The AddCustom pattern written for cannon's tests: z = x + y in half, each block adding its share
 * in double-buffered tiles (two buffers per queue, CopyIn / Compute / CopyOut), launched on a cannon
 * stream with 1, 2 and 8 blocks. Every run must give the exactly rounded sum, so the bits are the
 * same whatever the block and worker counts. Also a kernel with a tiling struct by value and one
 * reading its tiling through GET_TILING_DATA.
 */
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "kernel_operator.h"
#include "cannon_ascendc/launch.h"
#include "ascendc_test.h"
#include "add_kernel.h"

using namespace AscendC;

using test_kernels::KernelAddHalf;
using test_kernels::kTile;

namespace {

struct AddTiling {
    uint32_t totalLength;
    uint32_t tileNum;
};

}  // namespace

BEGIN_TILING_DATA_DEF(TestAddTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tileNum);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(TestAdd, TestAddTilingData)

extern "C" __global__ __aicore__ void test_add_half(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total)
{
    KernelAddHalf op;
    op.Init(x, y, z, total);
    op.Process();
}

extern "C" __global__ __aicore__ void test_add_tiling_struct(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                                             AddTiling tiling)
{
    (void)workspace;
    KernelAddHalf op;
    op.Init(x, y, z, tiling.totalLength);
    op.Process();
}

extern "C" __global__ __aicore__ void test_add_get_tiling(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                                          GM_ADDR tiling)
{
    (void)workspace;
    GET_TILING_DATA(tilingData, tiling);
    KernelAddHalf op;
    op.Init(x, y, z, tilingData.totalLength);
    op.Process();
}

int main()
{
    ACL_OK(aclInit(nullptr));
    ACL_OK(aclrtSetDevice(0));
    aclrtStream stream = nullptr;
    ACL_OK(aclrtCreateStream(&stream));

    const uint32_t n = 8 * 2048 * 3 + 5 * kTile; /* tiles do not divide evenly between blocks */
    const size_t bytes = n * sizeof(half);
    std::vector<half> hx(n), hy(n), want(n);
    uint32_t s = 12345;
    for (uint32_t i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        hx[i] = half(static_cast<float>(s >> 8 & 0xffff) / 655.36f - 50.0f);
        s = s * 1103515245u + 12345u;
        hy[i] = half(static_cast<float>(s >> 8 & 0xffff) / 6553.6f - 5.0f);
        want[i] = half(static_cast<float>(hx[i]) + static_cast<float>(hy[i]));
    }
    void *x = nullptr, *y = nullptr, *z = nullptr, *ws = nullptr, *tl = nullptr;
    ACL_OK(aclrtMalloc(&x, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc(&y, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc(&z, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc(&ws, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc(&tl, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemcpy(x, bytes, hx.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpy(y, bytes, hy.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));

    std::vector<half> got(n);
    const uint32_t blockDims[] = {1, 2, 8};
    for (uint32_t bd : blockDims) {
        ACL_OK(aclrtMemset(z, bytes, 0, bytes));
        ACL_OK(CANNON_ASCENDC_LAUNCH(test_add_half, bd, stream, x, y, z, n));
        ACL_OK(aclrtSynchronizeStream(stream));
        ACL_OK(aclrtMemcpy(got.data(), bytes, z, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
        EXPECT_MSG(std::memcmp(got.data(), want.data(), bytes) == 0, "blockDim %u: bits differ", bd);
    }

    /* Tiling as a struct by value (the kernel-launch samples' form). */
    ACL_OK(aclrtMemset(z, bytes, 0, bytes));
    AddTiling t{n, 8};
    ACL_OK(CANNON_ASCENDC_LAUNCH(test_add_tiling_struct, 8, stream, x, y, z, ws, t));
    ACL_OK(aclrtSynchronizeStream(stream));
    ACL_OK(aclrtMemcpy(got.data(), bytes, z, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(std::memcmp(got.data(), want.data(), bytes) == 0);

    /* Tiling through the host tiling class and GET_TILING_DATA. */
    TestAddTilingData td;
    td.set_totalLength(n);
    td.set_tileNum(8);
    EXPECT(td.get_totalLength() == n && td.GetDataSize() == 8);
    unsigned char raw[64];
    EXPECT(td.SaveToBuffer(raw, sizeof raw));
    EXPECT(!td.SaveToBuffer(raw, 4));
    ACL_OK(aclrtMemcpy(tl, 64, raw, 64, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemset(z, bytes, 0, bytes));
    ACL_OK(CANNON_ASCENDC_LAUNCH(test_add_get_tiling, 8, stream, x, y, z, ws, tl));
    ACL_OK(aclrtSynchronizeStream(stream));
    ACL_OK(aclrtMemcpy(got.data(), bytes, z, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(std::memcmp(got.data(), want.data(), bytes) == 0);

    /* Bad launches are argument errors, not crashes. */
    EXPECT(CANNON_ASCENDC_LAUNCH(test_add_half, 0, stream, x, y, z, n) == ACL_ERROR_INVALID_PARAM);

    ACL_OK(aclrtFree(x));
    ACL_OK(aclrtFree(y));
    ACL_OK(aclrtFree(z));
    ACL_OK(aclrtFree(ws));
    ACL_OK(aclrtFree(tl));
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtResetDevice(0));
    ACL_OK(aclFinalize());
    return TestResult("test_ascendc_add");
}
