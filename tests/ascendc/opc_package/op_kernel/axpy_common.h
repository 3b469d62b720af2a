/* The kernels' shared walk: block b takes elements [b * blockLength, min((b + 1) * blockLength,
 * totalLength)), in tiles of at most tileLength elements, each copied in and out with DataCopyPad
 * (any length). */
#ifndef AXPY_KERNEL_COMMON_H
#define AXPY_KERNEL_COMMON_H
#include "kernel_operator.h"

namespace axpy_kernel {
constexpr int32_t kBuffers = 2;

struct Range {
    uint32_t start;
    uint32_t count;
};

__aicore__ inline Range BlockRange(uint32_t total, uint32_t per)
{
    const uint32_t start = per * AscendC::GetBlockIdx();
    if (start >= total)
        return Range{total, 0};
    return Range{start, total - start < per ? total - start : per};
}

template <class T>
__aicore__ inline void CopyIn(AscendC::TQue<AscendC::TPosition::VECIN, kBuffers> &q, AscendC::GlobalTensor<T> &g,
                              uint32_t off, uint32_t n)
{
    AscendC::LocalTensor<T> l = q.template AllocTensor<T>();
    AscendC::DataCopyExtParams p(1, n * sizeof(T), 0, 0, 0);
    AscendC::DataCopyPadExtParams<T> pad(false, 0, 0, T());
    AscendC::DataCopyPad(l, g[off], p, pad);
    q.EnQue(l);
}

template <class T>
__aicore__ inline void CopyOut(AscendC::TQue<AscendC::TPosition::VECOUT, kBuffers> &q, AscendC::GlobalTensor<T> &g,
                               uint32_t off, uint32_t n)
{
    AscendC::LocalTensor<T> l = q.template DeQue<T>();
    AscendC::DataCopyExtParams p(1, n * sizeof(T), 0, 0, 0);
    AscendC::DataCopyPad(g[off], l, p);
    q.FreeTensor(l);
}
}  // namespace axpy_kernel
#endif
