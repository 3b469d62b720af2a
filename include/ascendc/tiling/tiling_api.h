/**
 * @file tiling/tiling_api.h
 * The host tiling API of CANN's high-level kernel libraries, as host programs and op_host code
 * include it: the matmul tiling (matmul_tiling::MatmulApiTiling / MultiCoreMatmulTiling and
 * optiling::TCubeTiling, lib/matmul_tiling.h), the tiling-data macros and the platform query
 * (platform_ascendc::PlatformAscendC). Header-only; programs link libtiling_api as with CANN.
 */
#ifndef CANNON_TILING_TILING_API_H_
#define CANNON_TILING_TILING_API_H_

#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"
#include "lib/matmul_tiling.h"

#endif /* CANNON_TILING_TILING_API_H_ */
