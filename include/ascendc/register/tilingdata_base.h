/**
 * @file register/tilingdata_base.h
 * The tiling-data declarations of an operator's host code (BEGIN_TILING_DATA_DEF,
 * TILING_DATA_FIELD_DEF, REGISTER_TILING_DATA_CLASS, ...): the same packed classes the kernel
 * side reads with GET_TILING_DATA (see cannon_ascendc/tiling.h).
 */
#ifndef CANNON_REGISTER_TILINGDATA_BASE_H_
#define CANNON_REGISTER_TILINGDATA_BASE_H_
#include "cannon_ascendc/tiling.h"
#endif
