/* AxpyCustomGrad's kernel: grad_x = grad_z, grad_y = alpha * grad_z (x and y are not read). */
#include "axpy_common.h"
#include "kernel_operator.h"

using namespace AscendC;

class KernelAxpyGrad {
public:
    __aicore__ inline void Init(GM_ADDR dz, GM_ADDR dx, GM_ADDR dy, uint32_t total, uint32_t per, uint32_t tile,
                                float alpha)
    {
        range_ = axpy_kernel::BlockRange(total, per);
        tile_ = tile;
        alpha_ = alpha;
        dzGm_.SetGlobalBuffer((__gm__ DTYPE_GRAD_Z *)dz + range_.start, range_.count);
        dxGm_.SetGlobalBuffer((__gm__ DTYPE_GRAD_X *)dx + range_.start, range_.count);
        dyGm_.SetGlobalBuffer((__gm__ DTYPE_GRAD_Y *)dy + range_.start, range_.count);
        pipe_.InitBuffer(in_, axpy_kernel::kBuffers, tile * sizeof(DTYPE_GRAD_Z));
        pipe_.InitBuffer(outX_, axpy_kernel::kBuffers, tile * sizeof(DTYPE_GRAD_X));
        pipe_.InitBuffer(outY_, axpy_kernel::kBuffers, tile * sizeof(DTYPE_GRAD_Y));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t off = 0; off < range_.count; off += tile_) {
            const uint32_t n = range_.count - off < tile_ ? range_.count - off : tile_;
            axpy_kernel::CopyIn(in_, dzGm_, off, n);
            LocalTensor<DTYPE_GRAD_Z> dz = in_.DeQue<DTYPE_GRAD_Z>();
            LocalTensor<DTYPE_GRAD_X> dx = outX_.AllocTensor<DTYPE_GRAD_X>();
            LocalTensor<DTYPE_GRAD_Y> dy = outY_.AllocTensor<DTYPE_GRAD_Y>();
            DataCopy(dx, dz, (n * sizeof(DTYPE_GRAD_Z) + 31) / 32 * 32 / sizeof(DTYPE_GRAD_Z));
            Muls(dy, dz, static_cast<DTYPE_GRAD_Z>(alpha_), n);
            outX_.EnQue(dx);
            outY_.EnQue(dy);
            in_.FreeTensor(dz);
            axpy_kernel::CopyOut(outX_, dxGm_, off, n);
            axpy_kernel::CopyOut(outY_, dyGm_, off, n);
        }
    }

private:
    TPipe pipe_;
    TQue<TPosition::VECIN, axpy_kernel::kBuffers> in_;
    TQue<TPosition::VECOUT, axpy_kernel::kBuffers> outX_, outY_;
    GlobalTensor<DTYPE_GRAD_Z> dzGm_;
    GlobalTensor<DTYPE_GRAD_X> dxGm_;
    GlobalTensor<DTYPE_GRAD_Y> dyGm_;
    axpy_kernel::Range range_;
    uint32_t tile_;
    float alpha_;
};

extern "C" __global__ __aicore__ void axpy_custom_grad(GM_ADDR grad_z, GM_ADDR x, GM_ADDR y, GM_ADDR grad_x,
                                                       GM_ADDR grad_y, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)x;
    (void)y;
    (void)workspace;
    GET_TILING_DATA(t, tiling);
    KernelAxpyGrad op;
    op.Init(grad_z, grad_x, grad_y, t.totalLength, t.blockLength, t.tileLength, t.alpha);
    op.Process();
}
