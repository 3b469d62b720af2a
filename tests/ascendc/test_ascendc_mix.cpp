/*
 * MIX kernels (kernels using the Matmul API) on a split-core SoC: built with __NPU_ARCH__ 2201
 * (the Ascend 910B series), a MIX kernel launched with blockDim AI cores runs on their 2 x blockDim
 * vector cores, under ICPU_RUN_KF in MIX mode (not in AIV mode) and through a launch on a stream
 * written `k<<<blockDim, l2ctrl, stream>>>` (what the launch generator turns it into). Each block
 * records its GetBlockIdx/GetBlockNum (and GetSubBlockIdx/GetSubBlockNum/GetTaskRation: block i is
 * vector core i % 2 of AI core i / 2), and a two-block-per-core matmul split (the kernel-launch
 * samples' MatMul shape: tiling for 2 cores, blockDim 1) is checked against float64.
 */
#include <cmath>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "tikicpulib.h"
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "lib/matmul_tiling.h"
#include "cannon_ascendc/launch.h"
#include "ascendc_test.h"

#if !defined(__NPU_ARCH__) || __NPU_ARCH__ != 2201
#error "test_ascendc_mix is built for __NPU_ARCH__ 2201"
#endif

using namespace AscendC;

extern "C" __global__ __aicore__ void mix_record(GM_ADDR out)
{
    int32_t *o = reinterpret_cast<int32_t *>(out);
    const int64_t i = GetBlockIdx();
    o[2 * i] = static_cast<int32_t>(i) + 1;
    o[2 * i + 1] = static_cast<int32_t>(GetBlockNum());
}

/* Each block records (GetBlockIdx + 1, GetSubBlockIdx, GetSubBlockNum, GetTaskRation). */
extern "C" __global__ __aicore__ void mix_sub(GM_ADDR out)
{
    int32_t *o = reinterpret_cast<int32_t *>(out) + 4 * GetBlockIdx();
    o[0] = static_cast<int32_t>(GetBlockIdx()) + 1;
    o[1] = static_cast<int32_t>(GetSubBlockIdx());
    o[2] = static_cast<int32_t>(GetSubBlockNum());
    o[3] = static_cast<int32_t>(GetTaskRation());
}

/* C = A B (float), the block's rows of A by the tiling's M split. */
extern "C" __global__ __aicore__ void mix_matmul(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR tilingGm)
{
    TCubeTiling t;
    std::memcpy(&t, tilingGm, sizeof t);
    if (GetBlockIdx() >= t.usedCoreNum)
        return;
    TPipe pipe;
    using F = MatmulType<TPosition::GM, CubeFormat::ND, float>;
    Matmul<F, F, F> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    const int32_t m0 = static_cast<int32_t>(GetBlockIdx()) * t.singleCoreM;
    GlobalTensor<float> aG, bG, cG;
    aG.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(a) + m0 * t.Ka);
    bG.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(b));
    cG.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(c) + m0 * t.N);
    mm.SetTensorA(aG);
    mm.SetTensorB(bG);
    mm.SetTail(t.M - m0 < t.singleCoreM ? t.M - m0 : t.singleCoreM, t.N, t.Ka);
    mm.IterateAll(cG);
    mm.End();
}

namespace {

void CheckRecord(const int32_t *rec, uint32_t blocks, const char *what)
{
    for (uint32_t i = 0; i < blocks; i++)
        EXPECT_MSG(rec[2 * i] == static_cast<int32_t>(i) + 1 && rec[2 * i + 1] == static_cast<int32_t>(blocks),
                   "%s: block %u recorded (%d, %d)", what, i, rec[2 * i], rec[2 * i + 1]);
    EXPECT_MSG(rec[2 * blocks] == 0, "%s: more than %u blocks ran", what, blocks);
}

/* blocks ran, each vector core @p sub of its AI core (sub 1: every block is sub-block 0). */
void CheckSub(const int32_t *rec, uint32_t blocks, int32_t sub, const char *what)
{
    for (uint32_t i = 0; i < blocks; i++) {
        const int32_t *r = rec + 4 * i;
        EXPECT_MSG(r[0] == static_cast<int32_t>(i) + 1 && r[1] == static_cast<int32_t>(i) % sub && r[2] == sub &&
                       r[3] == sub,
                   "%s: block %u recorded (%d, sub %d of %d, ration %d)", what, i, r[0], r[1], r[2], r[3]);
    }
    EXPECT_MSG(rec[4 * blocks] == 0, "%s: more than %u blocks ran", what, blocks);
}

}  // namespace

int main()
{
    static_assert(CANNON_ASCENDC_MIX_KERNEL_V == 1, "lib/matmul_intf.h marks the translation unit MIX");
    static_assert(cannon_ascendc::SubBlocks<1>() == 2 && cannon_ascendc::SubBlocks<0>() == 1, "");

    /* ICPU_RUN_KF: MIX mode (the default) runs 2 x blockDim blocks, AIV mode blockDim. */
    int32_t *rec = static_cast<int32_t *>(AscendC::GmAlloc(64 * sizeof(int32_t)));
    ICPU_RUN_KF(mix_record, 3, reinterpret_cast<uint8_t *>(rec));
    CheckRecord(rec, 6, "ICPU_RUN_KF MIX");
    std::memset(rec, 0, 64 * sizeof(int32_t));
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF(mix_record, 3, reinterpret_cast<uint8_t *>(rec));
    CheckRecord(rec, 3, "ICPU_RUN_KF AIV");
    AscendC::SetKernelMode(KernelMode::MIX_MODE);
    std::memset(rec, 0, 64 * sizeof(int32_t));
    ICPU_RUN_KF(mix_sub, 3, reinterpret_cast<uint8_t *>(rec));
    CheckSub(rec, 6, 2, "ICPU_RUN_KF MIX sub-blocks");
    std::memset(rec, 0, 64 * sizeof(int32_t));
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF(mix_sub, 3, reinterpret_cast<uint8_t *>(rec));
    CheckSub(rec, 3, 1, "ICPU_RUN_KF AIV sub-blocks");
    AscendC::SetKernelMode(KernelMode::MIX_MODE);
    /* Outside a block: no sub-blocks. */
    EXPECT(GetSubBlockIdx() == 0 && GetSubBlockNum() == 1 && GetTaskRation() == 1);

    /* A matmul tiled for 2 cores, launched with blockDim 1 (the MatMul samples' 910B form). */
    const int32_t M = 96, N = 40, K = 24;
    matmul_tiling::MultiCoreMatmulTiling api;
    api.SetDim(2);
    api.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    api.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    api.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    api.SetOrgShape(M, N, K);
    api.SetShape(M, N, K);
    TCubeTiling t;
    EXPECT(api.GetTiling(t) == 0 && t.usedCoreNum == 2);
    std::vector<float> ha(M * K), hb(K * N), want(M * N);
    for (int32_t i = 0; i < M * K; i++)
        ha[i] = static_cast<float>((i * 7) % 11) - 5.0f;
    for (int32_t i = 0; i < K * N; i++)
        hb[i] = static_cast<float>((i * 5) % 13) * 0.25f;
    for (int32_t i = 0; i < M; i++)
        for (int32_t j = 0; j < N; j++) {
            double s = 0;
            for (int32_t p = 0; p < K; p++)
                s += static_cast<double>(ha[i * K + p]) * hb[p * N + j];
            want[i * N + j] = static_cast<float>(s);
        }
    float *a = static_cast<float *>(AscendC::GmAlloc(ha.size() * 4));
    float *b = static_cast<float *>(AscendC::GmAlloc(hb.size() * 4));
    float *c = static_cast<float *>(AscendC::GmAlloc(want.size() * 4));
    uint8_t *tg = static_cast<uint8_t *>(AscendC::GmAlloc(sizeof t));
    std::memcpy(a, ha.data(), ha.size() * 4);
    std::memcpy(b, hb.data(), hb.size() * 4);
    std::memcpy(tg, &t, sizeof t);
    ICPU_RUN_KF(mix_matmul, 1, reinterpret_cast<uint8_t *>(a), reinterpret_cast<uint8_t *>(b),
                reinterpret_cast<uint8_t *>(c), tg);
    EXPECT_MSG(std::memcmp(c, want.data(), want.size() * 4) == 0, "ICPU_RUN_KF matmul on 2 vector blocks differs");

    /* The same on a stream, launched as a `<<<1, nullptr, stream>>>` call is rewritten. */
    ACL_OK(aclInit(nullptr));
    ACL_OK(aclrtSetDevice(0));
    aclrtStream stream = nullptr;
    ACL_OK(aclrtCreateStream(&stream));
    void *da = nullptr, *db = nullptr, *dc = nullptr, *dt = nullptr, *dr = nullptr;
    ACL_OK(aclrtMalloc(&da, ha.size() * 4, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc(&db, hb.size() * 4, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc(&dc, want.size() * 4, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc(&dt, sizeof t, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc(&dr, 64 * sizeof(int32_t), ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemcpy(da, ha.size() * 4, ha.data(), ha.size() * 4, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpy(db, hb.size() * 4, hb.data(), hb.size() * 4, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpy(dt, sizeof t, &t, sizeof t, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemset(dc, want.size() * 4, 0, want.size() * 4));
    ACL_OK(aclrtMemset(dr, 64 * sizeof(int32_t), 0, 64 * sizeof(int32_t)));
    ACL_OK(::cannon_ascendc::ChevronLaunch<::cannon_ascendc::SubBlocks<CANNON_ASCENDC_MIX_KERNEL_V>()>(
        "mix_matmul", mix_matmul, 1, nullptr, stream)(da, db, dc, dt));
    ACL_OK(::cannon_ascendc::ChevronLaunch<::cannon_ascendc::SubBlocks<CANNON_ASCENDC_MIX_KERNEL_V>()>(
        "mix_record", mix_record, 4, nullptr, stream)(dr));
    ACL_OK(aclrtSynchronizeStream(stream));
    /* Sub-blocks on a stream: a <<<>>> call, the generated stubs' LaunchCores, and a plain launch
     * (blockDim blocks of one vector core each). */
    std::vector<int32_t> hs(64);
    void *ds = nullptr;
    ACL_OK(aclrtMalloc(&ds, 64 * sizeof(int32_t), ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(ds, 64 * sizeof(int32_t), 0, 64 * sizeof(int32_t)));
    ACL_OK(::cannon_ascendc::ChevronLaunch<::cannon_ascendc::SubBlocks<CANNON_ASCENDC_MIX_KERNEL_V>()>(
        "mix_sub", mix_sub, 5, nullptr, stream)(ds));
    ACL_OK(aclrtSynchronizeStream(stream));
    ACL_OK(aclrtMemcpy(hs.data(), 64 * sizeof(int32_t), ds, 64 * sizeof(int32_t), ACL_MEMCPY_DEVICE_TO_HOST));
    CheckSub(hs.data(), 10, 2, "<<<>>> sub-blocks");
    ACL_OK(aclrtMemset(ds, 64 * sizeof(int32_t), 0, 64 * sizeof(int32_t)));
    ACL_OK(::cannon_ascendc::LaunchCores<::cannon_ascendc::SubBlocks<CANNON_ASCENDC_MIX_KERNEL_V>()>(
        "mix_sub", mix_sub, 4, stream, ds));
    ACL_OK(aclrtSynchronizeStream(stream));
    ACL_OK(aclrtMemcpy(hs.data(), 64 * sizeof(int32_t), ds, 64 * sizeof(int32_t), ACL_MEMCPY_DEVICE_TO_HOST));
    CheckSub(hs.data(), 8, 2, "LaunchCores sub-blocks");
    ACL_OK(aclrtMemset(ds, 64 * sizeof(int32_t), 0, 64 * sizeof(int32_t)));
    ACL_OK(CANNON_ASCENDC_LAUNCH(mix_sub, 3, stream, ds));
    ACL_OK(aclrtSynchronizeStream(stream));
    ACL_OK(aclrtMemcpy(hs.data(), 64 * sizeof(int32_t), ds, 64 * sizeof(int32_t), ACL_MEMCPY_DEVICE_TO_HOST));
    CheckSub(hs.data(), 3, 1, "plain launch sub-blocks");
    ACL_OK(aclrtFree(ds));
    std::vector<float> got(want.size());
    ACL_OK(aclrtMemcpy(got.data(), got.size() * 4, dc, got.size() * 4, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT_MSG(std::memcmp(got.data(), want.data(), want.size() * 4) == 0, "stream matmul on 2 vector blocks differs");
    std::vector<int32_t> hr(64);
    ACL_OK(aclrtMemcpy(hr.data(), 64 * sizeof(int32_t), dr, 64 * sizeof(int32_t), ACL_MEMCPY_DEVICE_TO_HOST));
    CheckRecord(hr.data(), 8, "stream launch");
    for (void *p : {da, db, dc, dt, dr})
        ACL_OK(aclrtFree(p));
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtResetDevice(0));
    ACL_OK(aclFinalize());
    for (void *p : {static_cast<void *>(rec), static_cast<void *>(a), static_cast<void *>(b), static_cast<void *>(c),
                    static_cast<void *>(tg)})
        AscendC::GmFree(p);
    return TestResult("test_ascendc_mix");
}
