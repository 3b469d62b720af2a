/* The benchmarks' Ascend C kernels: the AddCustom pattern (fp16, double-buffered), an empty
 * kernel (launch latency), a LayerNorm over the last dimension (fp32) and a matmul through the
 * Matmul API (fp32, the kernel-launch samples' shape), each launched from
 * bench_ascendc.cpp through its generated ACLRT_LAUNCH_KERNEL header. */
#include "kernel_operator.h"
#include "lib/matmul_intf.h"

using namespace AscendC;

namespace {

constexpr int32_t kBufferNum = 2;
constexpr uint32_t kAddTile = 2048; /* halves per tile: 4 KiB, six of them in the unified buffer */

class KernelAdd {
  public:
    void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total)
    {
        const uint32_t blocks = static_cast<uint32_t>(GetBlockNum());
        const uint32_t idx = static_cast<uint32_t>(GetBlockIdx());
        const uint32_t per = total / blocks; /* the bench passes a multiple of blocks * kAddTile */
        tiles_ = per / kAddTile;
        xGm_.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(x) + idx * per, per);
        yGm_.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(y) + idx * per, per);
        zGm_.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(z) + idx * per, per);
        pipe_.InitBuffer(inX_, kBufferNum, kAddTile * sizeof(half));
        pipe_.InitBuffer(inY_, kBufferNum, kAddTile * sizeof(half));
        pipe_.InitBuffer(outZ_, kBufferNum, kAddTile * sizeof(half));
    }
    void Process()
    {
        for (uint32_t i = 0; i < tiles_; i++) {
            LocalTensor<half> x = inX_.AllocTensor<half>();
            LocalTensor<half> y = inY_.AllocTensor<half>();
            DataCopy(x, xGm_[i * kAddTile], kAddTile);
            DataCopy(y, yGm_[i * kAddTile], kAddTile);
            inX_.EnQue(x);
            inY_.EnQue(y);

            x = inX_.DeQue<half>();
            y = inY_.DeQue<half>();
            LocalTensor<half> z = outZ_.AllocTensor<half>();
            Add(z, x, y, kAddTile);
            outZ_.EnQue<half>(z);
            inX_.FreeTensor(x);
            inY_.FreeTensor(y);

            z = outZ_.DeQue<half>();
            DataCopy(zGm_[i * kAddTile], z, kAddTile);
            outZ_.FreeTensor(z);
        }
    }

  private:
    TPipe pipe_;
    TQue<QuePosition::VECIN, kBufferNum> inX_, inY_;
    TQue<QuePosition::VECOUT, kBufferNum> outZ_;
    GlobalTensor<half> xGm_, yGm_, zGm_;
    uint32_t tiles_ = 0;
};

/* y = (x - mean) * rstd * gamma + beta per row of cols floats (cols a multiple of 8, at most
 * 4096); the rows are split evenly between the blocks. */
class KernelLayerNorm {
  public:
    void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, uint32_t rows, uint32_t cols, float eps)
    {
        const uint32_t blocks = static_cast<uint32_t>(GetBlockNum());
        const uint32_t idx = static_cast<uint32_t>(GetBlockIdx());
        const uint32_t per = rows / blocks, extra = rows % blocks;
        const uint32_t first = idx * per + (idx < extra ? idx : extra);
        rows_ = per + (idx < extra ? 1 : 0);
        cols_ = cols;
        eps_ = eps;
        xGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(x) + static_cast<uint64_t>(first) * cols,
                             static_cast<uint64_t>(rows_) * cols);
        yGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(y) + static_cast<uint64_t>(first) * cols,
                             static_cast<uint64_t>(rows_) * cols);
        gGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(gamma), cols);
        bGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(beta), cols);
        pipe_.InitBuffer(inX_, kBufferNum, cols * sizeof(float));
        pipe_.InitBuffer(outY_, kBufferNum, cols * sizeof(float));
        pipe_.InitBuffer(gBuf_, cols * sizeof(float));
        pipe_.InitBuffer(bBuf_, cols * sizeof(float));
        pipe_.InitBuffer(sqBuf_, cols * sizeof(float));
        pipe_.InitBuffer(redBuf_, 64);
    }
    void Process()
    {
        LocalTensor<float> g = gBuf_.Get<float>(), b = bBuf_.Get<float>();
        DataCopy(g, gGm_, cols_);
        DataCopy(b, bGm_, cols_);
        LocalTensor<float> sq = sqBuf_.Get<float>(), red = redBuf_.Get<float>();
        const float inv = 1.0f / static_cast<float>(cols_);
        for (uint32_t r = 0; r < rows_; r++) {
            LocalTensor<float> x = inX_.AllocTensor<float>();
            DataCopy(x, xGm_[static_cast<uint64_t>(r) * cols_], cols_);
            inX_.EnQue(x);

            x = inX_.DeQue<float>();
            LocalTensor<float> y = outY_.AllocTensor<float>();
            ReduceSum(red, x, sq, cols_);
            const float mean = red.GetValue(0) * inv;
            Adds(y, x, -mean, cols_);
            Mul(sq, y, y, cols_);
            ReduceSum(red, sq, sq, cols_);
            const float rstd = 1.0f / std::sqrt(red.GetValue(0) * inv + eps_);
            Muls(y, y, rstd, cols_);
            Mul(y, y, g, cols_);
            Add(y, y, b, cols_);
            outY_.EnQue<float>(y);
            inX_.FreeTensor(x);

            y = outY_.DeQue<float>();
            DataCopy(yGm_[static_cast<uint64_t>(r) * cols_], y, cols_);
            outY_.FreeTensor(y);
        }
    }

  private:
    TPipe pipe_;
    TQue<QuePosition::VECIN, kBufferNum> inX_;
    TQue<QuePosition::VECOUT, kBufferNum> outY_;
    TBuf<TPosition::VECCALC> gBuf_, bBuf_, sqBuf_, redBuf_;
    GlobalTensor<float> xGm_, yGm_, gGm_, bGm_;
    uint32_t rows_ = 0, cols_ = 0;
    float eps_ = 0;
};

} // namespace

extern "C" __global__ __aicore__ void bench_add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total)
{
    KernelAdd op;
    op.Init(x, y, z, total);
    op.Process();
}

extern "C" __global__ __aicore__ void bench_empty(GM_ADDR x)
{
    (void)x;
}

extern "C" __global__ __aicore__ void bench_layer_norm(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, uint32_t rows,
                                                       uint32_t cols, float eps)
{
    KernelLayerNorm op;
    op.Init(x, gamma, beta, y, rows, cols, eps);
    op.Process();
}

extern "C" __global__ __aicore__ void bench_matmul(GM_ADDR a, GM_ADDR b, GM_ADDR c, TCubeTiling tiling)
{
    using T = MatmulType<TPosition::GM, CubeFormat::ND, float>;
    TPipe pipe;
    Matmul<T, T, T> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
    GlobalTensor<float> aGm, bGm, cGm;
    aGm.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(a), static_cast<uint64_t>(tiling.M) * tiling.Ka);
    bGm.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(b), static_cast<uint64_t>(tiling.Ka) * tiling.N);
    cGm.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(c), static_cast<uint64_t>(tiling.M) * tiling.N);
    const int32_t mBlocks = (tiling.M + tiling.singleCoreM - 1) / tiling.singleCoreM;
    const int32_t mi = GetBlockIdx() % mBlocks, ni = GetBlockIdx() / mBlocks;
    const int32_t m0 = mi * tiling.singleCoreM, n0 = ni * tiling.singleCoreN;
    mm.SetTensorA(aGm[static_cast<uint64_t>(m0) * tiling.Ka]);
    mm.SetTensorB(bGm[static_cast<uint64_t>(n0)]);
    mm.SetTail(tiling.M - m0 < tiling.singleCoreM ? tiling.M - m0 : tiling.singleCoreM,
               tiling.N - n0 < tiling.singleCoreN ? tiling.N - n0 : tiling.singleCoreN);
    mm.IterateAll(cGm[static_cast<uint64_t>(m0) * tiling.N + n0]);
    mm.End();
}
