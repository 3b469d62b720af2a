/*
 * The kernel APIs of the PreLayerNorm, MoeSoftMaxTopk and MatmulLeakyRelu patterns, with the
 * project's own kernels, against float64 / exact references:
 *  - the synchronisation calls (event_t, set_flag/wait_flag, SetFlag/WaitFlag, pipe_barrier,
 *    PipeBarrier, HardEvent, GetTPipePtr()->FetchEventID) in a kernel that reads a reduced value
 *    back as a scalar between two vector stages;
 *  - the symbol overloads `dst = a + b` (and -, *, /);
 *  - Sort32 and MrgSort (half and float scores, ties, NaN) and a top-k built from Sort32 and
 *    GatherMask;
 *  - the host tiling headers (tiling/tiling_api.h: optiling::TCubeTiling, MatrixTraverse,
 *    platform_ascendc) and a matmul whose base blocks go through a UB tensor and LeakyRelu.
 * The kernels run under ICPU_RUN_KF on 1 and 3 blocks. Built with the checker on and off.
 */
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "tikicpulib.h"
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "tiling/tiling_api.h"
#include "ascendc_test.h"

using namespace AscendC;

namespace {

uint32_t g_seed = 0x13579bdu;
uint32_t Rand()
{
    g_seed = g_seed * 1664525u + 1013904223u;
    return g_seed >> 8;
}
double Uniform(double lo, double hi)
{
    return lo + (hi - lo) * (Rand() & 0xffffff) / 16777216.0;
}

/* ---- synchronisation: a row normalisation x * (1 / sqrt(mean(x^2) + eps)) per row ---- */
constexpr int32_t kRowLen = 256;
constexpr float kEps = 1e-5f;

class RmsRows {
public:
    void Init(GM_ADDR x, GM_ADDR z, int32_t rows)
    {
        rows_ = rows;
        xGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(x) + GetBlockIdx() * rows * kRowLen, rows * kRowLen);
        zGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(z) + GetBlockIdx() * rows * kRowLen, rows * kRowLen);
        pipe_.InitBuffer(inQ_, 2, kRowLen * sizeof(float));
        pipe_.InitBuffer(outQ_, 2, kRowLen * sizeof(float));
        pipe_.InitBuffer(tmp_, kRowLen * sizeof(float));
        pipe_.InitBuffer(red_, 32 * sizeof(float));
    }
    void Process()
    {
        for (int32_t r = 0; r < rows_; r++) {
            LocalTensor<float> x = inQ_.AllocTensor<float>();
            DataCopy(x, xGm_[r * kRowLen], kRowLen);
            inQ_.EnQue(x);
            x = inQ_.DeQue<float>();
            LocalTensor<float> t = tmp_.Get<float>();
            LocalTensor<float> s = red_.Get<float>();
            t = x * x;
            ReduceSum<float>(s, t, t, kRowLen);
            /* The vector unit's result read by the scalar unit: V -> S, then S -> V. */
            event_t vs = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
            set_flag(PIPE_V, PIPE_S, vs);
            wait_flag(PIPE_V, PIPE_S, vs);
            const float inv = 1.0f / std::sqrt(s.GetValue(0) / kRowLen + kEps);
            event_t sv = static_cast<event_t>(GetTPipePtr()->FetchEventID<HardEvent::S_V>());
            SetFlag<HardEvent::S_V>(sv);
            WaitFlag<HardEvent::S_V>(sv);
            LocalTensor<float> z = outQ_.AllocTensor<float>();
            Muls(z, x, inv, kRowLen);
            PipeBarrier<PIPE_V>();
            pipe_barrier(PIPE_ALL);
            outQ_.EnQue(z);
            inQ_.FreeTensor(x);
            z = outQ_.DeQue<float>();
            DataCopy(zGm_[r * kRowLen], z, kRowLen);
            outQ_.FreeTensor(z);
        }
    }
    TPipe *Pipe() { return &pipe_; }

private:
    TPipe pipe_;
    TQue<QuePosition::VECIN, 2> inQ_;
    TQue<QuePosition::VECOUT, 2> outQ_;
    TBuf<> tmp_, red_;
    GlobalTensor<float> xGm_, zGm_;
    int32_t rows_ = 0;
};

bool g_pipe_ok = true;

extern "C" __global__ __aicore__ void rms_rows(GM_ADDR x, GM_ADDR z, GM_ADDR rowsArg)
{
    RmsRows op;
    op.Init(x, z, *reinterpret_cast<int32_t *>(rowsArg));
    if (GetTPipePtr() != op.Pipe())
        g_pipe_ok = false;
    op.Process();
}

void TestSync()
{
    const int32_t blocks = 3, rows = 5, n = blocks * rows * kRowLen;
    float *x = static_cast<float *>(AscendC::GmAlloc(n * sizeof(float)));
    float *z = static_cast<float *>(AscendC::GmAlloc(n * sizeof(float)));
    int32_t *rowsArg = static_cast<int32_t *>(AscendC::GmAlloc(sizeof(int32_t)));
    *rowsArg = rows;
    for (int32_t i = 0; i < n; i++)
        x[i] = static_cast<float>(Uniform(-3, 3));
    ICPU_RUN_KF(rms_rows, blocks, reinterpret_cast<uint8_t *>(x), reinterpret_cast<uint8_t *>(z),
                reinterpret_cast<uint8_t *>(rowsArg));
    EXPECT(g_pipe_ok);
    double worst = 0;
    for (int32_t r = 0; r < blocks * rows; r++) {
        double ss = 0;
        for (int32_t i = 0; i < kRowLen; i++)
            ss += static_cast<double>(x[r * kRowLen + i]) * x[r * kRowLen + i];
        const double inv = 1.0 / std::sqrt(ss / kRowLen + kEps);
        for (int32_t i = 0; i < kRowLen; i++) {
            const double ref = x[r * kRowLen + i] * inv;
            worst = std::max(worst, std::fabs(z[r * kRowLen + i] - ref) / (std::fabs(ref) + 1e-3));
        }
    }
    EXPECT_MSG(worst < 1e-5, "rms rows: worst relative error %g", worst);
    /* Outside a pipe's life GetTPipePtr() is the enclosing pipe again (here: none). */
    EXPECT(GetTPipePtr() == nullptr);
    {
        TPipe outer;
        {
            TPipe inner;
            EXPECT(GetTPipePtr() == &inner);
        }
        EXPECT(GetTPipePtr() == &outer);
    }
    AscendC::GmFree(x);
    AscendC::GmFree(z);
    AscendC::GmFree(rowsArg);
}

/* ---- symbol overloads ---- */
template <class T>
void TestSymbols()
{
    TPipe pipe;
    TBuf<> ba, bb, bd;
    const uint32_t n = 1024;
    pipe.InitBuffer(ba, n * sizeof(T));
    pipe.InitBuffer(bb, n * sizeof(T));
    pipe.InitBuffer(bd, n * sizeof(T));
    LocalTensor<T> a = ba.Get<T>(), b = bb.Get<T>(), d = bd.Get<T>();
    for (uint32_t i = 0; i < n; i++) {
        if constexpr (std::is_integral<T>::value) {
            a.SetValue(i, static_cast<T>(static_cast<int32_t>(Rand() % 2001) - 1000));
            b.SetValue(i, static_cast<T>(static_cast<int32_t>(Rand() % 999) + 1));
        } else {
            a.SetValue(i, static_cast<T>(static_cast<float>(Uniform(-4, 4))));
            b.SetValue(i, static_cast<T>(static_cast<float>(Uniform(0.5, 4))));
        }
    }
    for (int op = 0; op < 4; op++) {
        if (std::is_integral<T>::value && op == 3)
            continue;
        switch (op) {
        case 0: d = a + b; break;
        case 1: d = a - b; break;
        case 2: d = a * b; break;
        default: d = a / b; break;
        }
        int bad = 0;
        for (uint32_t i = 0; i < n; i++) {
            const double x = static_cast<double>(static_cast<float>(a.GetValue(i)));
            const double y = static_cast<double>(static_cast<float>(b.GetValue(i)));
            const double r = op == 0 ? x + y : op == 1 ? x - y : op == 2 ? x * y : x / y;
            /* One rounding to T: within half an ulp of T (exact for the integers). */
            const double got = static_cast<double>(static_cast<float>(d.GetValue(i)));
            const double ulp = std::is_same<T, half>::value ? 0x1p-10 : std::is_same<T, float>::value ? 0x1p-23 : 0;
            if (std::fabs(got - r) > std::fabs(r) * ulp * 0.5 + 1e-30)
                bad++;
        }
        EXPECT_MSG(bad == 0, "symbol operator %d: %d of %u elements off", op, bad, n);
    }
    /* The destination is a tensor's buffer, not a rebinding: a's buffer is untouched. */
    const T a0 = a.GetValue(0);
    d = a + b;
    EXPECT(std::memcmp(&a0, a.GetPhyAddr(), sizeof(T)) == 0);
    EXPECT(d.GetPhyAddr() == bd.Get<T>().GetPhyAddr());
}

/* ---- Sort32 / MrgSort ---- */
struct Ref {
    double score;
    uint32_t index;
};
bool RefBefore(const Ref &a, const Ref &b)
{
    if (std::isnan(a.score))
        return !std::isnan(b.score);
    if (std::isnan(b.score))
        return false;
    return a.score > b.score;
}

template <class T>
Ref ReadProposal(const LocalTensor<T> &t, uint32_t k)
{
    const uint8_t *p = reinterpret_cast<const uint8_t *>(t.GetPhyAddr()) + 8u * k;
    T s;
    std::memcpy(&s, p, sizeof(T));
    Ref r{static_cast<double>(static_cast<float>(s)), 0};
    std::memcpy(&r.index, p + 4, 4);
    return r;
}

template <class T>
bool SameRef(const Ref &a, const Ref &b)
{
    return a.index == b.index && ((std::isnan(a.score) && std::isnan(b.score)) || a.score == b.score);
}

template <class T>
void TestSort()
{
    TPipe pipe;
    TBuf<> bs, bi, bd, bm;
    const uint32_t groups = 6, n = 32 * groups;
    pipe.InitBuffer(bs, n * sizeof(T));
    pipe.InitBuffer(bi, 32 * sizeof(uint32_t));
    pipe.InitBuffer(bd, n * 8);
    pipe.InitBuffer(bm, n * 8);
    LocalTensor<T> s = bs.Get<T>();
    LocalTensor<uint32_t> ix = bi.Get<uint32_t>();
    LocalTensor<T> d = bd.Get<T>();
    LocalTensor<T> m = bm.Get<T>();
    for (uint32_t i = 0; i < n; i++) {
        /* Few distinct values (ties), some negative, one NaN. */
        float v = static_cast<float>(static_cast<int32_t>(Rand() % 13) - 6) * 0.75f;
        if (i == 37)
            v = std::nanf("");
        s.SetValue(i, static_cast<T>(v));
    }
    for (uint32_t i = 0; i < 32; i++)
        ix.SetValue(i, 1000u + 7u * i);
    Sort32(d, s, ix, static_cast<int32_t>(groups));
    int bad = 0;
    for (uint32_t g = 0; g < groups; g++) {
        std::vector<Ref> ref;
        for (uint32_t i = 0; i < 32; i++)
            ref.push_back({static_cast<double>(static_cast<float>(s.GetValue(32 * g + i))), 1000u + 7u * i});
        std::stable_sort(ref.begin(), ref.end(), RefBefore);
        for (uint32_t i = 0; i < 32; i++)
            bad += !SameRef<T>(ReadProposal(d, 32 * g + i), ref[i]);
    }
    EXPECT_MSG(bad == 0, "Sort32: %d proposals differ from a stable descending sort", bad);

    /* MrgSort of 2, 3 and 4 sorted groups of d (unequal lengths for 2 and 3 lists). */
    const uint32_t per = 8 / sizeof(T);
    for (uint16_t lists = 2; lists <= 4; lists++) {
        uint16_t counts[4] = {32, 32, 32, 32};
        if (lists < 4)
            counts[0] = 20, counts[1] = 32, counts[2] = 9;
        MrgSortSrcList<T> src(d[0], d[32 * per], d[64 * per], d[96 * per]);
        uint32_t sorted[4] = {9, 9, 9, 9};
        const uint16_t valid = static_cast<uint16_t>((1u << lists) - 1);
        MrgSort(m, src, counts, sorted, valid, 1);
        std::vector<Ref> ref;
        for (uint32_t l = 0; l < lists; l++)
            for (uint32_t k = 0; k < counts[l]; k++)
                ref.push_back(ReadProposal(d, 32 * l + k));
        std::stable_sort(ref.begin(), ref.end(), RefBefore);
        int mbad = 0;
        for (uint32_t k = 0; k < ref.size(); k++)
            mbad += !SameRef<T>(ReadProposal(m, k), ref[k]);
        EXPECT_MSG(mbad == 0, "MrgSort of %u lists: %d proposals differ", lists, mbad);
        for (uint32_t l = 0; l < 4; l++)
            EXPECT(sorted[l] == (l < lists ? counts[l] : 0u));
    }
}

/* ---- top-k of rows of 32 (the MoeSoftMaxTopk pattern): Sort32, then GatherMask of the scores
 * and of the indices with a pattern tensor ---- */
void TestTopK()
{
    TPipe pipe;
    TBuf<> bs, bi, bd, bp, bo;
    const uint32_t rows = 8, k = 5;
    pipe.InitBuffer(bs, rows * 32 * sizeof(float));
    pipe.InitBuffer(bi, 32 * sizeof(uint32_t));
    pipe.InitBuffer(bd, rows * 32 * 8);
    pipe.InitBuffer(bp, 2 * 32 * sizeof(uint32_t));
    pipe.InitBuffer(bo, rows * 32 * sizeof(float));
    LocalTensor<float> s = bs.Get<float>(), d = bd.Get<float>(), o = bo.Get<float>();
    LocalTensor<uint32_t> ix = bi.Get<uint32_t>(), pat = bp.Get<uint32_t>();
    for (uint32_t i = 0; i < rows * 32; i++)
        s.SetValue(i, static_cast<float>(Uniform(0, 1)));
    for (uint32_t i = 0; i < 32; i++)
        ix.SetValue(i, i);
    for (uint32_t r = 0; r < rows; r++)
        Sort32(d[64 * r], s[32 * r], ix, 1);
    /* Pattern word 0 keeps the first k scores (even elements), word 32 the first k indices. */
    Duplicate(pat, 0u, 64);
    uint32_t scoreBits = 0, indexBits = 0;
    for (uint32_t j = 0; j < k; j++)
        scoreBits |= 1u << (2 * j), indexBits |= 1u << (2 * j + 1);
    pat.SetValue(0, scoreBits);
    pat.SetValue(32, indexBits);
    uint64_t kept = 0;
    GatherMaskParams params(1, static_cast<uint16_t>(rows), 8, 0);
    GatherMask(o, d, pat, true, 64, params, kept);
    EXPECT(kept == rows * k);
    uint64_t keptIdx = 0;
    LocalTensor<uint32_t> oi = o[rows * k].ReinterpretCast<uint32_t>();
    GatherMask(oi, d.ReinterpretCast<uint32_t>(), pat[32], true, 64, params, keptIdx);
    EXPECT(keptIdx == rows * k);
    int bad = 0;
    for (uint32_t r = 0; r < rows; r++) {
        std::vector<Ref> ref;
        for (uint32_t i = 0; i < 32; i++)
            ref.push_back({static_cast<double>(s.GetValue(32 * r + i)), i});
        std::stable_sort(ref.begin(), ref.end(), RefBefore);
        for (uint32_t j = 0; j < k; j++) {
            bad += static_cast<double>(o.GetValue(r * k + j)) != ref[j].score;
            bad += oi.GetValue(r * k + j) != ref[j].index;
        }
    }
    EXPECT_MSG(bad == 0, "top-%u of %u rows: %d values differ", k, rows, bad);
}

/* ---- host tiling headers ---- */
void TestHostTiling()
{
    namespace mt = matmul_tiling;
    /* The two position enumerations: the same values, distinct types. */
    static_assert(static_cast<int>(mt::TPosition::VECCALC) == static_cast<int>(AscendC::TPosition::VECCALC), "");
    static_assert(static_cast<int>(mt::TPosition::TSCM) == static_cast<int>(AscendC::TPosition::TSCM), "");
    static_assert(static_cast<int>(mt::TPosition::LCM) == static_cast<int>(mt::TPosition::VECCALC), "");
    static_assert(!std::is_same<mt::TPosition, AscendC::TPosition>::value, "");

    optiling::TCubeTiling host;
    host.set_usedCoreNum(2);
    mt::MultiCoreMatmulTiling api(*platform_ascendc::PlatformAscendCManager::GetInstance());
    api.SetDim(2);
    api.SetAType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT16, false);
    api.SetBType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT16, false);
    api.SetCType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT);
    api.SetBiasType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT);
    api.SetOrgShape(256, 96, 64);
    api.SetShape(256, 96, 64);
    api.SetBias(true);
    api.SetTraverse(mt::MatrixTraverse::FIRSTN);
    api.SetFixSplit(64, 32, -1);
    api.SetBufferSpace(-1, -1, -1);
    EXPECT(api.GetTiling(host) == 0);
    TCubeTiling plain;
    EXPECT(api.GetTiling(plain) == 0);
    EXPECT(host.GetDataSize() == sizeof(TCubeTiling));
    std::vector<uint8_t> buf(host.GetDataSize());
    EXPECT(host.SaveToBuffer(buf.data(), buf.size()));
    EXPECT(std::memcmp(buf.data(), &plain, sizeof plain) == 0);
    EXPECT(host.get_M() == 256 && host.get_N() == 96 && host.get_Ka() == 64 && host.get_isBias() == 1);
    EXPECT(host.get_baseM() == 64 && host.get_baseN() == 32 && host.get_iterateOrder() == 1);
    EXPECT(host.get_usedCoreNum() == 2 && host.get_singleCoreM() == 128 && host.get_singleCoreN() == 96);
    host.set_stepM(3);
    EXPECT(host.get_stepM() == 3 && host.stepM == 3);
    api.SetTraverse(mt::MatrixTraverse::FIRSTM);
    EXPECT(api.GetTiling(plain) == 0 && plain.iterateOrder == 0);

    platform_ascendc::PlatformAscendC p(nullptr);
    uint64_t ub = 0, l1 = 0;
    p.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    p.GetCoreMemSize(platform_ascendc::CoreMemType::L1, l1);
    EXPECT(ub == 192u * 1024u && l1 == 512u * 1024u);
    EXPECT(p.GetSocVersion() == platform_ascendc::SocVersion::ASCEND910B);
    EXPECT(p.GetCoreNumAic() == 24 && p.GetCoreNumAiv() == 48 && p.GetCoreNum() == 24);
    EXPECT(p.CalcTschBlockDim(48, 24, 48) == 24 && p.CalcTschBlockDim(48, 0, 48) == 48);
    fe::PlatFormInfos b4;
    EXPECT(b4.InitSoc("Ascend910B4") && b4.aicNum == 20);
    fe::PlatFormInfos p310;
    EXPECT(p310.InitSoc("ascend310p3"));
    EXPECT(platform_ascendc::PlatformAscendC(&p310).GetSocVersion() == platform_ascendc::SocVersion::ASCEND310P);
    EXPECT(!b4.InitSoc("NotAChip"));
    fe::PlatFormInfos a910;
    EXPECT(a910.InitSoc("Ascend910B") && a910.socVersion == 0 && a910.aicNum == 32);
}

/* ---- matmul base blocks through the UB with LeakyRelu (the MatmulLeakyRelu pattern) ---- */
constexpr float kSlope = 0.125f;

extern "C" __global__ __aicore__ void mm_leaky(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, GM_ADDR workspace,
                                               GM_ADDR tilingGm)
{
    TCubeTiling t;
    std::memcpy(&t, tilingGm, sizeof t);
    TPipe pipe;
    SetSysWorkspace(workspace);
    const int32_t mBlocks = Ceil(t.M, t.singleCoreM);
    const int32_t mi = static_cast<int32_t>(GetBlockIdx()) % mBlocks, ni = static_cast<int32_t>(GetBlockIdx()) / mBlocks;
    GlobalTensor<half> aG, bG;
    GlobalTensor<float> biasG, cG;
    aG.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(a) + mi * t.singleCoreM * t.Ka);
    bG.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(b) + ni * t.singleCoreN);
    biasG.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(bias) + ni * t.singleCoreN);
    cG.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(c) + mi * t.singleCoreM * t.N + ni * t.singleCoreN);
    matmul::Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>,
                   MatmulType<TPosition::VECIN, CubeFormat::ND, float>, MatmulType<TPosition::GM, CubeFormat::ND, float>>
        mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    TQue<QuePosition::VECOUT, 1> outQ;
    pipe.InitBuffer(outQ, 1, t.baseM * t.baseN * sizeof(float));
    mm.SetTensorA(aG);
    mm.SetTensorB(bG);
    mm.SetBias(biasG);
    const uint32_t roundM = t.singleCoreM / t.baseM;
    uint32_t count = 0;
    while (mm.template Iterate<true>()) {
        LocalTensor<float> blk = outQ.AllocTensor<float>();
        mm.template GetTensorC<true>(blk, false, true);
        LeakyRelu(blk, blk, kSlope, t.baseM * t.baseN);
        outQ.EnQue(blk);
        blk = outQ.DeQue<float>();
        /* M first: block (count % roundM, count / roundM). */
        const uint32_t off = count % roundM * t.baseM * t.N + count / roundM * t.baseN;
        DataCopyParams cp(static_cast<uint16_t>(t.baseM), static_cast<uint16_t>(t.baseN * sizeof(float) / DEFAULT_C0_SIZE),
                          0, static_cast<uint16_t>((t.N - t.baseN) * sizeof(float) / DEFAULT_C0_SIZE));
        DataCopy(cG[off], blk, cp);
        outQ.FreeTensor(blk);
        count++;
    }
    mm.End();
}

void TestMatmulLeaky()
{
    const int32_t M = 128, N = 64, K = 48;
    optiling::TCubeTiling host;
    matmul_tiling::MultiCoreMatmulTiling api;
    api.SetDim(2);
    api.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
    api.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
    api.SetCType(matmul_tiling::TPosition::VECIN, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    api.SetBiasType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    api.SetOrgShape(M, N, K);
    api.SetShape(M, N, K);
    api.SetBias(true);
    api.SetTraverse(matmul_tiling::MatrixTraverse::FIRSTM);
    api.SetFixSplit(32, 32, -1);
    EXPECT(api.GetTiling(host) == 0);
    const int32_t blocks = host.get_usedCoreNum();
    EXPECT(blocks == 2);
    half *a = static_cast<half *>(AscendC::GmAlloc(M * K * sizeof(half)));
    half *b = static_cast<half *>(AscendC::GmAlloc(K * N * sizeof(half)));
    float *bias = static_cast<float *>(AscendC::GmAlloc(N * sizeof(float)));
    float *c = static_cast<float *>(AscendC::GmAlloc(M * N * sizeof(float)));
    uint8_t *ws = static_cast<uint8_t *>(AscendC::GmAlloc(4096));
    uint8_t *tiling = static_cast<uint8_t *>(AscendC::GmAlloc(host.GetDataSize()));
    host.SaveToBuffer(tiling, host.GetDataSize());
    for (int32_t i = 0; i < M * K; i++)
        a[i] = half(static_cast<float>(Uniform(-1, 1)));
    for (int32_t i = 0; i < K * N; i++)
        b[i] = half(static_cast<float>(Uniform(-1, 1)));
    for (int32_t i = 0; i < N; i++)
        bias[i] = static_cast<float>(Uniform(-1, 1));
    ICPU_RUN_KF(mm_leaky, blocks, reinterpret_cast<uint8_t *>(a), reinterpret_cast<uint8_t *>(b),
                reinterpret_cast<uint8_t *>(bias), reinterpret_cast<uint8_t *>(c), ws, tiling);
    double worst = 0;
    for (int32_t i = 0; i < M; i++)
        for (int32_t j = 0; j < N; j++) {
            double r = bias[j];
            for (int32_t p = 0; p < K; p++)
                r += static_cast<double>(static_cast<float>(a[i * K + p])) * static_cast<float>(b[p * N + j]);
            r = r >= 0 ? r : r * kSlope;
            worst = std::max(worst, std::fabs(c[i * N + j] - r));
        }
    EXPECT_MSG(worst < 1e-4, "matmul + LeakyRelu: worst error %g", worst);
    AscendC::GmFree(a);
    AscendC::GmFree(b);
    AscendC::GmFree(bias);
    AscendC::GmFree(c);
    AscendC::GmFree(ws);
    AscendC::GmFree(tiling);
}

}  // namespace

int main()
{
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    TestSync();
    TestSymbols<float>();
    TestSymbols<half>();
    TestSymbols<int32_t>();
    TestSort<float>();
    TestSort<half>();
    TestTopK();
    TestHostTiling();
    AscendC::SetKernelMode(KernelMode::MIX_MODE);
    TestMatmulLeaky();
    return TestResult("test_ascendc_sort_sync");
}
