/* The AddCustom pattern written for cannon's tests: a double-buffered half add over whole tiles,
 * the tiles split between GetBlockNum() blocks. Shared by the launch and CPU-debug tests. */
#ifndef CANNON_TESTS_ASCENDC_ADD_KERNEL_H_
#define CANNON_TESTS_ASCENDC_ADD_KERNEL_H_

#include "kernel_operator.h"

namespace test_kernels {

using namespace AscendC;

constexpr int32_t kBufferNum = 2;
constexpr uint32_t kTile = 256; /* halves per tile */

class KernelAddHalf {
public:
    void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total)
    {
        const uint32_t blocks = static_cast<uint32_t>(GetBlockNum());
        const uint32_t idx = static_cast<uint32_t>(GetBlockIdx());
        /* Whole tiles per block; the last block takes the remainder. */
        const uint32_t tiles = total / kTile;
        const uint32_t per = tiles / blocks, extra = tiles % blocks;
        const uint32_t first = idx * per + (idx < extra ? idx : extra);
        tiles_ = per + (idx < extra ? 1 : 0);
        xGm_.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(x) + first * kTile, tiles_ * kTile);
        yGm_.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(y) + first * kTile, tiles_ * kTile);
        zGm_.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(z) + first * kTile, tiles_ * kTile);
        pipe_.InitBuffer(inX_, kBufferNum, kTile * sizeof(half));
        pipe_.InitBuffer(inY_, kBufferNum, kTile * sizeof(half));
        pipe_.InitBuffer(outZ_, kBufferNum, kTile * sizeof(half));
    }
    void Process()
    {
        for (uint32_t i = 0; i < tiles_; i++) {
            CopyIn(i);
            Compute();
            CopyOut(i);
        }
    }

private:
    void CopyIn(uint32_t i)
    {
        LocalTensor<half> x = inX_.AllocTensor<half>();
        LocalTensor<half> y = inY_.AllocTensor<half>();
        DataCopy(x, xGm_[i * kTile], kTile);
        DataCopy(y, yGm_[i * kTile], kTile);
        inX_.EnQue(x);
        inY_.EnQue(y);
    }
    void Compute()
    {
        LocalTensor<half> x = inX_.DeQue<half>();
        LocalTensor<half> y = inY_.DeQue<half>();
        LocalTensor<half> z = outZ_.AllocTensor<half>();
        Add(z, x, y, kTile);
        outZ_.EnQue<half>(z);
        inX_.FreeTensor(x);
        inY_.FreeTensor(y);
    }
    void CopyOut(uint32_t i)
    {
        LocalTensor<half> z = outZ_.DeQue<half>();
        DataCopy(zGm_[i * kTile], z, kTile);
        outZ_.FreeTensor(z);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, kBufferNum> inX_, inY_;
    TQue<QuePosition::VECOUT, kBufferNum> outZ_;
    GlobalTensor<half> xGm_, yGm_, zGm_;
    uint32_t tiles_ = 0;
};

}  // namespace test_kernels

#endif
