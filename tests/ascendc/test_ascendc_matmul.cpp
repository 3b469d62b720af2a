/*
 * The Matmul high-level API (lib/matmul_intf.h, lib/matmul_tiling.h) against float64: a kernel in
 * the shape of the kernel-launch samples' matmul (REGIST_MATMUL_OBJ, per-block offsets from the
 * tiling's single-core shape, SetTail for the edge blocks, IterateAll or Iterate + GetTensorC,
 * End) launched on a cannon stream over the blocks MultiCoreMatmulTiling asks for; float, half and
 * bfloat16_t inputs, with and without bias, A and B each plain or transposed. Every element of C
 * is checked against the float64 product of the stored inputs.
 */
#include <cmath>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "lib/matmul_tiling.h"
#include "cannon_ascendc/launch.h"
#include "ascendc_test.h"

using namespace AscendC;

namespace {

enum : uint32_t { kTransA = 1, kTransB = 2, kIterate = 4, kBias = 8 };

template <class AT>
void MatmulBlock(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, const TCubeTiling &tiling, uint32_t flags)
{
    using AType = MatmulType<TPosition::GM, CubeFormat::ND, AT>;
    using CType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
    using BiasType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
    TPipe pipe;
    Matmul<AType, AType, CType, BiasType> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);

    GlobalTensor<AT> aGm, bGm;
    GlobalTensor<float> biasGm, cGm;
    aGm.SetGlobalBuffer(reinterpret_cast<__gm__ AT *>(a), static_cast<uint64_t>(tiling.M) * tiling.Ka);
    bGm.SetGlobalBuffer(reinterpret_cast<__gm__ AT *>(b), static_cast<uint64_t>(tiling.Kb) * tiling.N);
    biasGm.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(bias), tiling.N);
    cGm.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(c), static_cast<uint64_t>(tiling.M) * tiling.N);

    const bool ta = flags & kTransA, tb = flags & kTransB;
    const int32_t mBlocks = (tiling.M + tiling.singleCoreM - 1) / tiling.singleCoreM;
    const int32_t idx = GetBlockIdx();
    const int32_t mi = idx % mBlocks, ni = idx / mBlocks;
    const int32_t m0 = mi * tiling.singleCoreM, n0 = ni * tiling.singleCoreN;
    const uint64_t offA = ta ? static_cast<uint64_t>(m0) : static_cast<uint64_t>(m0) * tiling.Ka;
    const uint64_t offB = tb ? static_cast<uint64_t>(n0) * tiling.Kb : static_cast<uint64_t>(n0);
    const uint64_t offC = static_cast<uint64_t>(m0) * tiling.N + n0;
    const int32_t tailM = tiling.M - m0 < tiling.singleCoreM ? tiling.M - m0 : tiling.singleCoreM;
    const int32_t tailN = tiling.N - n0 < tiling.singleCoreN ? tiling.N - n0 : tiling.singleCoreN;

    mm.SetTensorA(aGm[offA], ta);
    mm.SetTensorB(bGm[offB], tb);
    if (flags & kBias)
        mm.SetBias(biasGm[n0]);
    mm.SetTail(tailM, tailN);
    if (flags & kIterate) {
        while (mm.Iterate())
            mm.GetTensorC(cGm[offC]);
    } else {
        mm.IterateAll(cGm[offC]);
    }
    mm.End();
}

} // namespace

extern "C" __global__ __aicore__ void test_mm_f32(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, TCubeTiling tiling,
                                                  uint32_t flags)
{
    MatmulBlock<float>(a, b, bias, c, tiling, flags);
}

extern "C" __global__ __aicore__ void test_mm_f16(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, TCubeTiling tiling,
                                                  uint32_t flags)
{
    MatmulBlock<half>(a, b, bias, c, tiling, flags);
}

extern "C" __global__ __aicore__ void test_mm_bf16(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, TCubeTiling tiling,
                                                   uint32_t flags)
{
    MatmulBlock<bfloat16_t>(a, b, bias, c, tiling, flags);
}

namespace {

uint32_t g_seed = 777u;
float RandF()
{
    g_seed = g_seed * 1664525u + 1013904223u;
    return static_cast<float>((g_seed >> 8) % 2001) / 1000.0f - 1.0f;
}

template <class AT> void RunCase(aclrtStream stream, int32_t M, int32_t N, int32_t K, uint32_t flags, int32_t dim)
{
    const bool ta = flags & kTransA, tb = flags & kTransB;
    std::vector<AT> ha(static_cast<size_t>(M) * K), hb(static_cast<size_t>(K) * N);
    std::vector<float> hbias(N);
    for (auto &v : ha)
        v = AT(RandF());
    for (auto &v : hb)
        v = AT(RandF());
    for (auto &v : hbias)
        v = RandF();
    auto A = [&](int32_t i, int32_t p) {
        return static_cast<double>(static_cast<float>(ta ? ha[(size_t)p * M + i] : ha[(size_t)i * K + p]));
    };
    auto B = [&](int32_t p, int32_t j) {
        return static_cast<double>(static_cast<float>(tb ? hb[(size_t)j * K + p] : hb[(size_t)p * N + j]));
    };

    matmul_tiling::MultiCoreMatmulTiling tiler;
    const auto dt = std::is_same<AT, bfloat16_t>::value ? matmul_tiling::DataType::DT_BF16
                    : sizeof(AT) == 2                   ? matmul_tiling::DataType::DT_FLOAT16
                                                        : matmul_tiling::DataType::DT_FLOAT;
    EXPECT(tiler.SetDim(dim) == 0);
    tiler.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, dt, ta);
    tiler.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, dt, tb);
    tiler.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    tiler.SetBiasType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    EXPECT(tiler.SetShape(M, N, K) == 0);
    EXPECT(tiler.SetOrgShape(M, N, K) == 0);
    tiler.SetBias((flags & kBias) != 0);
    tiler.SetBufferSpace(-1, -1, -1);
    if (flags & kIterate)
        tiler.SetFixSplit(32, 48, -1); /* several base blocks per core, with partial edge blocks */
    TCubeTiling tiling;
    EXPECT(tiler.GetTiling(tiling) == 0);
    EXPECT(tiling.usedCoreNum >= 1 && tiling.usedCoreNum <= dim);
    EXPECT(tiling.M == M && tiling.N == N && tiling.Ka == K && tiling.Kb == K && tiling.singleCoreK == K);

    const size_t cb = static_cast<size_t>(M) * N * 4;
    void *da = nullptr, *db = nullptr, *dbias = nullptr, *dc = nullptr;
    ACL_OK(aclrtMalloc(&da, ha.size() * sizeof(AT), ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc(&db, hb.size() * sizeof(AT), ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc(&dbias, N * 4, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc(&dc, cb, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemcpy(da, ha.size() * sizeof(AT), ha.data(), ha.size() * sizeof(AT), ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpy(db, hb.size() * sizeof(AT), hb.data(), hb.size() * sizeof(AT), ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpy(dbias, N * 4, hbias.data(), N * 4, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemset(dc, cb, 0xff, cb)); /* NaNs: every element must be written */
    const uint32_t blocks = static_cast<uint32_t>(tiling.usedCoreNum);
    if constexpr (std::is_same<AT, bfloat16_t>::value)
        ACL_OK(CANNON_ASCENDC_LAUNCH(test_mm_bf16, blocks, stream, da, db, dbias, dc, tiling, flags));
    else if constexpr (sizeof(AT) == 2)
        ACL_OK(CANNON_ASCENDC_LAUNCH(test_mm_f16, blocks, stream, da, db, dbias, dc, tiling, flags));
    else
        ACL_OK(CANNON_ASCENDC_LAUNCH(test_mm_f32, blocks, stream, da, db, dbias, dc, tiling, flags));
    ACL_OK(aclrtSynchronizeStream(stream));
    std::vector<float> hc(static_cast<size_t>(M) * N);
    ACL_OK(aclrtMemcpy(hc.data(), cb, dc, cb, ACL_MEMCPY_DEVICE_TO_HOST));

    size_t bad = 0;
    for (int32_t i = 0; i < M; i++)
        for (int32_t j = 0; j < N; j++) {
            double ref = (flags & kBias) ? static_cast<double>(hbias[j]) : 0.0, mag = std::fabs(ref);
            for (int32_t p = 0; p < K; p++) {
                ref += A(i, p) * B(p, j);
                mag += std::fabs(A(i, p) * B(p, j));
            }
            const double got = hc[static_cast<size_t>(i) * N + j];
            if (!(std::fabs(got - ref) <= 1e-6 * mag + 1e-30) && bad++ < 3)
                std::fprintf(stderr, "  C[%d][%d] = %.9g want %.9g\n", i, j, got, ref);
        }
    EXPECT_MSG(bad == 0, "matmul %s M=%d N=%d K=%d flags %u on %u blocks: %zu wrong",
               sizeof(AT) == 2 ? "half" : "float", M, N, K, flags, blocks, bad);
    for (void *p : {da, db, dbias, dc})
        ACL_OK(aclrtFree(p));
}

} // namespace

int main()
{
    ACL_OK(aclInit(nullptr));
    ACL_OK(aclrtSetDevice(0));
    aclrtStream stream = nullptr;
    ACL_OK(aclrtCreateStream(&stream));

    RunCase<float>(stream, 200, 130, 70, kBias, 8);
    RunCase<float>(stream, 200, 130, 70, kTransA | kTransB | kIterate, 8);
    RunCase<float>(stream, 65, 300, 300, kTransA | kBias | kIterate, 4);
    RunCase<float>(stream, 16, 16, 16, 0, 1);
    RunCase<half>(stream, 200, 130, 70, kBias | kTransB, 8);
    RunCase<half>(stream, 96, 64, 40, kIterate | kTransA, 2);
    RunCase<bfloat16_t>(stream, 130, 90, 260, kBias | kTransA | kTransB, 8);

    /* The host tiling without a shape, and a single-core tiling. */
    matmul_tiling::MatmulApiTiling one;
    TCubeTiling t;
    EXPECT(one.GetTiling(t) == -1);
    EXPECT(one.SetShape(0, 1, 1) == -1);
    EXPECT(one.SetShape(100, 50, 30) == 0);
    EXPECT(one.GetTiling(t) == 0 && t.usedCoreNum == 1 && t.singleCoreM == 100 && t.singleCoreN == 50);

    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtResetDevice(0));
    ACL_OK(aclFinalize());
    return TestResult("test_ascendc_matmul");
}
