/* What AxpyCustom and its gradient share on the host: the split of n elements into blocks and
 * tiles (at most 8 blocks of at least 512 elements; tiles of at most 2048 elements). */
#ifndef AXPY_HOST_H
#define AXPY_HOST_H
#include <cstdint>

#include "register/op_def_registry.h"

namespace axpy {
constexpr uint32_t kMaxBlocks = 8;
constexpr uint32_t kMinPerBlock = 512;
constexpr uint32_t kTile = 2048;

template <class Tiling>
inline ge::graphStatus Split(gert::TilingContext *ctx, int64_t n, float alpha)
{
    if (n < 0 || n > INT32_MAX)
        return ge::GRAPH_FAILED;
    const uint32_t total = static_cast<uint32_t>(n);
    uint32_t blocks = (total + kMinPerBlock - 1) / kMinPerBlock;
    blocks = blocks == 0 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks);
    const uint32_t per = (total + blocks - 1) / blocks;
    Tiling t;
    t.set_totalLength(total);
    t.set_blockLength(per);
    t.set_tileLength(kTile);
    t.set_alpha(alpha);
    ctx->SetBlockDim(blocks);
    if (!t.SaveToBuffer(ctx->GetRawTilingData()->GetData(), ctx->GetRawTilingData()->GetCapacity()))
        return ge::GRAPH_FAILED;
    ctx->GetRawTilingData()->SetDataSize(t.GetDataSize());
    size_t *ws = ctx->GetWorkspaceSizes(1);
    ws[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace axpy
#endif
