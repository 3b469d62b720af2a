/* AxpyCustom's kernel: z = x + alpha * y, one DataType column per build (DTYPE_X/Y/Z). */
#include "axpy_common.h"
#include "kernel_operator.h"

using namespace AscendC;

class KernelAxpy {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t per, uint32_t tile,
                                float alpha)
    {
        range_ = axpy_kernel::BlockRange(total, per);
        tile_ = tile;
        alpha_ = alpha;
        xGm_.SetGlobalBuffer((__gm__ DTYPE_X *)x + range_.start, range_.count);
        yGm_.SetGlobalBuffer((__gm__ DTYPE_Y *)y + range_.start, range_.count);
        zGm_.SetGlobalBuffer((__gm__ DTYPE_Z *)z + range_.start, range_.count);
        pipe_.InitBuffer(inX_, axpy_kernel::kBuffers, tile * sizeof(DTYPE_X));
        pipe_.InitBuffer(inY_, axpy_kernel::kBuffers, tile * sizeof(DTYPE_Y));
        pipe_.InitBuffer(outZ_, axpy_kernel::kBuffers, tile * sizeof(DTYPE_Z));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t off = 0; off < range_.count; off += tile_) {
            const uint32_t n = range_.count - off < tile_ ? range_.count - off : tile_;
            axpy_kernel::CopyIn(inX_, xGm_, off, n);
            axpy_kernel::CopyIn(inY_, yGm_, off, n);
            LocalTensor<DTYPE_X> x = inX_.DeQue<DTYPE_X>();
            LocalTensor<DTYPE_Y> y = inY_.DeQue<DTYPE_Y>();
            LocalTensor<DTYPE_Z> z = outZ_.AllocTensor<DTYPE_Z>();
            Muls(y, y, static_cast<DTYPE_Y>(alpha_), n);
            Add(z, x, y, n);
            outZ_.EnQue(z);
            inX_.FreeTensor(x);
            inY_.FreeTensor(y);
            axpy_kernel::CopyOut(outZ_, zGm_, off, n);
        }
    }

private:
    TPipe pipe_;
    TQue<TPosition::VECIN, axpy_kernel::kBuffers> inX_, inY_;
    TQue<TPosition::VECOUT, axpy_kernel::kBuffers> outZ_;
    GlobalTensor<DTYPE_X> xGm_;
    GlobalTensor<DTYPE_Y> yGm_;
    GlobalTensor<DTYPE_Z> zGm_;
    axpy_kernel::Range range_;
    uint32_t tile_;
    float alpha_;
};

extern "C" __global__ __aicore__ void axpy_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;
    GET_TILING_DATA(t, tiling);
    KernelAxpy op;
    op.Init(x, y, z, t.totalLength, t.blockLength, t.tileLength, t.alpha);
    op.Process();
}
