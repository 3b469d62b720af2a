/* z = max(alpha * x + y, 0) over float vectors: every block streams its blockLength elements
 * through double-buffered queues, one tile of tileLength at a time. */
#include "kernel_operator.h"
#include "axpy_relu_tiling.h"

using namespace AscendC;

namespace {

class AxpyRelu {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const AxpyReluTiling &t)
    {
        ASSERT(GetBlockNum() != 0 && t.tileLength != 0);
        t_ = t;
        const uint64_t first = static_cast<uint64_t>(t.blockLength) * GetBlockIdx();
        x_.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(x) + first, t.blockLength);
        y_.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(y) + first, t.blockLength);
        z_.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(z) + first, t.blockLength);
        pipe_.InitBuffer(qx_, 2, t.tileLength * sizeof(float));
        pipe_.InitBuffer(qy_, 2, t.tileLength * sizeof(float));
        pipe_.InitBuffer(qz_, 2, t.tileLength * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        const int32_t n = static_cast<int32_t>(t_.tileLength);
        for (uint32_t off = 0; off < t_.blockLength; off += t_.tileLength) {
            LocalTensor<float> xin = qx_.AllocTensor<float>();
            LocalTensor<float> yin = qy_.AllocTensor<float>();
            DataCopy(xin, x_[off], t_.tileLength);
            DataCopy(yin, y_[off], t_.tileLength);
            qx_.EnQue(xin);
            qy_.EnQue(yin);

            LocalTensor<float> xv = qx_.DeQue<float>();
            LocalTensor<float> yv = qy_.DeQue<float>();
            LocalTensor<float> zv = qz_.AllocTensor<float>();
            Muls(zv, xv, t_.alpha, n);
            Add(zv, zv, yv, n);
            Relu(zv, zv, n);
            qz_.EnQue<float>(zv);
            qx_.FreeTensor(xv);
            qy_.FreeTensor(yv);

            LocalTensor<float> zout = qz_.DeQue<float>();
            DataCopy(z_[off], zout, t_.tileLength);
            qz_.FreeTensor(zout);
        }
    }

private:
    AxpyReluTiling t_{};
    TPipe pipe_;
    TQue<QuePosition::VECIN, 2> qx_, qy_;
    TQue<QuePosition::VECOUT, 2> qz_;
    GlobalTensor<float> x_, y_, z_;
};

}  // namespace

extern "C" __global__ __aicore__ void axpy_relu(GM_ADDR x, GM_ADDR y, GM_ADDR z, AxpyReluTiling tiling)
{
    AxpyRelu op;
    op.Init(x, y, z, tiling);
    op.Process();
}
