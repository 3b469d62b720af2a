/* z = alpha * x + y over float vectors: each block takes blockLength elements and streams them
 * through double-buffered queues in tiles of tileLength. */
#include "kernel_operator.h"
#include "scale_add_tiling.h"

using namespace AscendC;

namespace {

constexpr int32_t kDepth = 2;

class ScaleAdd {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const ScaleAddTiling &t)
    {
        tiling_ = t;
        const uint64_t off = static_cast<uint64_t>(t.blockLength) * GetBlockIdx();
        x_.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(x) + off, t.blockLength);
        y_.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(y) + off, t.blockLength);
        z_.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(z) + off, t.blockLength);
        pipe_.InitBuffer(inX_, kDepth, t.tileLength * sizeof(float));
        pipe_.InitBuffer(inY_, kDepth, t.tileLength * sizeof(float));
        pipe_.InitBuffer(outZ_, kDepth, t.tileLength * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        const uint32_t tiles = tiling_.blockLength / tiling_.tileLength;
        for (uint32_t i = 0; i < tiles; i++) {
            LocalTensor<float> x = inX_.AllocTensor<float>();
            LocalTensor<float> y = inY_.AllocTensor<float>();
            DataCopy(x, x_[i * tiling_.tileLength], tiling_.tileLength);
            DataCopy(y, y_[i * tiling_.tileLength], tiling_.tileLength);
            inX_.EnQue(x);
            inY_.EnQue(y);

            LocalTensor<float> xs = inX_.DeQue<float>();
            LocalTensor<float> ys = inY_.DeQue<float>();
            LocalTensor<float> z = outZ_.AllocTensor<float>();
            Muls(z, xs, tiling_.alpha, static_cast<int32_t>(tiling_.tileLength));
            Add(z, z, ys, static_cast<int32_t>(tiling_.tileLength));
            outZ_.EnQue<float>(z);
            inX_.FreeTensor(xs);
            inY_.FreeTensor(ys);

            LocalTensor<float> zs = outZ_.DeQue<float>();
            DataCopy(z_[i * tiling_.tileLength], zs, tiling_.tileLength);
            outZ_.FreeTensor(zs);
        }
    }

private:
    ScaleAddTiling tiling_{};
    TPipe pipe_;
    TQue<QuePosition::VECIN, kDepth> inX_, inY_;
    TQue<QuePosition::VECOUT, kDepth> outZ_;
    GlobalTensor<float> x_, y_, z_;
};

}  // namespace

extern "C" __global__ __aicore__ void scale_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, ScaleAddTiling tiling)
{
    ScaleAdd op;
    op.Init(x, y, z, tiling);
    op.Process();
}
