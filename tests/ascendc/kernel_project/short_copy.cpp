/* Copies 7 floats in one DataCopy: 28 bytes, not a multiple of 32. Built with the checker, the
 * launch fails on the stream with the kernel's name and this file's line. */
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void short_copy(GM_ADDR src, GM_ADDR dst)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 64);
    GlobalTensor<float> s, d;
    s.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(src), 16);
    d.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(dst), 16);
    LocalTensor<float> t = q.AllocTensor<float>();
    DataCopy(t, s, 7); /* SHORT_COPY_LINE */
    DataCopy(d, t, 8);
    q.FreeTensor(t);
}
