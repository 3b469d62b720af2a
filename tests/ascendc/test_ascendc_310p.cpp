/*
 * Kernels built for the Ascend 310P (__NPU_ARCH__ 2002, what tikicpulib::Ascend310P* and
 * ascendc_library with SOC_VERSION Ascend310P* define): the UB is 256 KiB, TOTAL_VEC_LOCAL_SIZE
 * (the Matmul API's local workspace, SetLocalWorkspace) is 248 KiB, and the AI cores are not split:
 * a MIX kernel launched with blockDim runs blockDim blocks, each sub-block 0. A matmul kernel of
 * the MatMul samples' 310P form (the 248 KiB workspace, then the rest of the UB) is checked
 * against float64 under ICPU_RUN_KF and on a stream; a pipe asking for more than 256 KiB is the
 * checker's UB overflow.
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

#if !defined(__NPU_ARCH__) || __NPU_ARCH__ != 2002
#error "test_ascendc_310p is built for __NPU_ARCH__ 2002"
#endif

using namespace AscendC;

static_assert(AscendC::TOTAL_VEC_LOCAL_SIZE == 248 * 1024, "310P matmul local workspace");
static_assert(AscendC::TOTAL_UB_SIZE == 256u * 1024u && CANNON_ASCENDC_UB_SIZE == 256u * 1024u, "310P UB");
static_assert(cannon_ascendc::SubBlocks<CANNON_ASCENDC_MIX_KERNEL_V>() == 1, "the 310P's AI cores are not split");

/* C = A B (float), the block's rows by the tiling's M split; the UB is filled as the 310P
 * MatMul samples fill it (TOTAL_VEC_LOCAL_SIZE for the matmul) and the rest by a queue. Block i
 * records (i + 1, GetSubBlockIdx, GetBlockNum, UB bytes handed out) in rec[4i..]. */
extern "C" __global__ __aicore__ void p310_matmul(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR tilingGm, GM_ADDR rec)
{
    TCubeTiling t;
    std::memcpy(&t, tilingGm, sizeof t);
    int32_t *r = reinterpret_cast<int32_t *>(rec) + 4 * GetBlockIdx();
    r[0] = static_cast<int32_t>(GetBlockIdx()) + 1;
    r[1] = static_cast<int32_t>(GetSubBlockIdx());
    r[2] = static_cast<int32_t>(GetBlockNum());
    if (GetBlockIdx() >= t.usedCoreNum)
        return;
    TPipe pipe;
    using F = MatmulType<TPosition::GM, CubeFormat::ND, float>;
    Matmul<F, F, F> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    TBuf<> tmpMMFormatUb;
    pipe.InitBuffer(tmpMMFormatUb, TOTAL_VEC_LOCAL_SIZE);
    LocalTensor<uint8_t> mmFormatUb = tmpMMFormatUb.Get<uint8_t>(TOTAL_VEC_LOCAL_SIZE);
    mm.SetLocalWorkspace(mmFormatUb);
    TQue<QuePosition::VECOUT, 1> rest;
    pipe.InitBuffer(rest, 1, TOTAL_UB_SIZE - TOTAL_VEC_LOCAL_SIZE);
    LocalTensor<float> tail = rest.AllocTensor<float>();
    Duplicate(tail, 1.0f, static_cast<int32_t>((TOTAL_UB_SIZE - TOTAL_VEC_LOCAL_SIZE) / sizeof(float)));
    rest.FreeTensor(tail);
    r[3] = static_cast<int32_t>(cannonAscendcCurrentBlock()->ub_used);
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

/* One buffer past the 256 KiB. */
extern "C" __global__ __aicore__ void p310_overflow(GM_ADDR unused)
{
    (void)unused;
    TPipe pipe;
    TBuf<> all, more;
    pipe.InitBuffer(all, TOTAL_UB_SIZE);
    pipe.InitBuffer(more, 32);
}

namespace {

void CheckRecord(const int32_t *rec, uint32_t blocks, const char *what)
{
    for (uint32_t i = 0; i < blocks; i++) {
        const int32_t *r = rec + 4 * i;
        EXPECT_MSG(r[0] == static_cast<int32_t>(i) + 1 && r[1] == 0 && r[2] == static_cast<int32_t>(blocks) &&
                       r[3] == 256 * 1024,
                   "%s: block %u recorded (%d, sub %d, of %d, UB %d)", what, i, r[0], r[1], r[2], r[3]);
    }
    EXPECT_MSG(rec[4 * blocks] == 0, "%s: more than %u blocks ran", what, blocks);
}

}  // namespace

int main()
{
    /* Tiled for 2 cores and launched with blockDim 2 (the MatMul samples' 310P form). */
    const int32_t M = 64, N = 48, K = 40;
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

    /* ICPU_RUN_KF in MIX mode (the default): blockDim blocks. */
    float *a = static_cast<float *>(AscendC::GmAlloc(ha.size() * 4));
    float *b = static_cast<float *>(AscendC::GmAlloc(hb.size() * 4));
    float *c = static_cast<float *>(AscendC::GmAlloc(want.size() * 4));
    uint8_t *tg = static_cast<uint8_t *>(AscendC::GmAlloc(sizeof t));
    int32_t *rec = static_cast<int32_t *>(AscendC::GmAlloc(64 * sizeof(int32_t)));
    std::memcpy(a, ha.data(), ha.size() * 4);
    std::memcpy(b, hb.data(), hb.size() * 4);
    std::memcpy(tg, &t, sizeof t);
    ICPU_RUN_KF(p310_matmul, 2, reinterpret_cast<uint8_t *>(a), reinterpret_cast<uint8_t *>(b),
                reinterpret_cast<uint8_t *>(c), tg, reinterpret_cast<uint8_t *>(rec));
    EXPECT_MSG(std::memcmp(c, want.data(), want.size() * 4) == 0, "ICPU_RUN_KF 310P matmul differs");
    CheckRecord(rec, 2, "ICPU_RUN_KF");

    /* More than the 256 KiB: the checker's overflow, reported at the second InitBuffer. */
    const int rc = AscendC::cannon_cpu::RunKernelFunctionOnCpu(p310_overflow, "p310_overflow", 1,
                                                               reinterpret_cast<uint8_t *>(rec));
    EXPECT_MSG(rc == CANNON_ASCENDC_ERROR && std::strstr(cannonAscendcLastMessage(), "unified buffer overflow") &&
                   std::strstr(cannonAscendcLastMessage(), "of 262144 bytes"),
               "overflow past 256 KiB: rc %d, message \"%s\"", rc, cannonAscendcLastMessage());

    /* On a stream through the generated stubs' launch: blockDim blocks again. */
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
    ACL_OK(::cannon_ascendc::LaunchCores<::cannon_ascendc::SubBlocks<CANNON_ASCENDC_MIX_KERNEL_V>()>(
        "p310_matmul", p310_matmul, 2, stream, da, db, dc, dt, dr));
    ACL_OK(aclrtSynchronizeStream(stream));
    std::vector<float> got(want.size());
    std::vector<int32_t> hr(64);
    ACL_OK(aclrtMemcpy(got.data(), got.size() * 4, dc, got.size() * 4, ACL_MEMCPY_DEVICE_TO_HOST));
    ACL_OK(aclrtMemcpy(hr.data(), 64 * sizeof(int32_t), dr, 64 * sizeof(int32_t), ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT_MSG(std::memcmp(got.data(), want.data(), want.size() * 4) == 0, "stream 310P matmul differs");
    CheckRecord(hr.data(), 2, "stream launch");
    for (void *p : {da, db, dc, dt, dr})
        ACL_OK(aclrtFree(p));
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtResetDevice(0));
    ACL_OK(aclFinalize());
    for (void *p : {static_cast<void *>(a), static_cast<void *>(b), static_cast<void *>(c), static_cast<void *>(tg),
                    static_cast<void *>(rec)})
        AscendC::GmFree(p);
    return TestResult("test_ascendc_310p");
}
