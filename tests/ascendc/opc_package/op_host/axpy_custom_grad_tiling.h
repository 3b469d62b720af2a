/* AxpyCustomGrad's tiling: the same fields as AxpyCustom's. */
#ifndef AXPY_CUSTOM_GRAD_TILING_H
#define AXPY_CUSTOM_GRAD_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AxpyGradTiling)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(float, alpha);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(AxpyCustomGrad, AxpyGradTiling)
}  // namespace optiling
#endif
