/* Tiling of AxpyCustom and AxpyCustomGrad (cannon's test package): each block takes blockLength
 * elements (the last one what remains), in tiles of tileLength elements. */
#ifndef AXPY_CUSTOM_TILING_H
#define AXPY_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AxpyTiling)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(float, alpha);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(AxpyCustom, AxpyTiling)
}  // namespace optiling
#endif
