/* Two kernels in one source, with scalar parameters: iota_i32 writes base + step * i for the
 * n elements of its block's slice; block_stamp writes each block's index and the block count.
 * iota_i32_do launches through the <<<>>> form, as device-compiler sources do. STAMP_SCALE
 * comes from ascendc_compile_definitions(). */
#include "kernel_operator.h"

#ifndef STAMP_SCALE
#error "STAMP_SCALE is not defined: ascendc_compile_definitions() did not reach the kernel"
#endif

using namespace AscendC;

extern "C" __global__ __aicore__ void iota_i32(GM_ADDR out, uint32_t n, int32_t base, int32_t step)
{
    GlobalTensor<int32_t> o;
    const uint32_t per = n / static_cast<uint32_t>(GetBlockNum());
    const uint32_t first = per * static_cast<uint32_t>(GetBlockIdx());
    o.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t *>(out) + first, per);
    for (uint32_t i = 0; i < per; i++)
        o.SetValue(i, base + step * static_cast<int32_t>(first + i));
}

/* Not an entry: no __global__. */
__aicore__ inline int32_t Stamp(int64_t idx, int64_t num) { return static_cast<int32_t>(idx * STAMP_SCALE + num); }

extern "C" __global__ __aicore__ void block_stamp(__gm__ int32_t *out)
{
    out[GetBlockIdx()] = Stamp(GetBlockIdx(), GetBlockNum());
}

#ifndef ASCENDC_CPU_DEBUG
void iota_i32_do(uint32_t blockDim, void *stream, uint8_t *out, uint32_t n, int32_t base, int32_t step)
{
    iota_i32<<<blockDim, nullptr, stream>>>(out, n, base, step);
}
#endif
