/**
 * @file cannon_ascendc/tcube_tiling.h
 * The matmul tiling's fields, in CANN's names and order, as one X-macro list: the kernel-side
 * `struct TCubeTiling` (lib/matmul_intf.h) and the host's tiling-data class
 * `optiling::TCubeTiling` (lib/matmul_tiling.h, set_<field>/get_<field>, SaveToBuffer) are both
 * generated from it, so their layouts are the same 4-byte fields back to back.
 */
#ifndef CANNON_ASCENDC_TCUBE_TILING_H_
#define CANNON_ASCENDC_TCUBE_TILING_H_

#include <cstdint>

#define CANNON_ASCENDC_TCUBE_TILING_FIELDS(X) \
    X(usedCoreNum) \
    X(M) \
    X(N) \
    X(Ka) \
    X(Kb) \
    X(singleCoreM) \
    X(singleCoreN) \
    X(singleCoreK) \
    X(baseM) \
    X(baseN) \
    X(baseK) \
    X(depthA1) \
    X(depthB1) \
    X(stepM) \
    X(stepN) \
    X(isBias) \
    X(transLength) \
    X(iterateOrder) \
    X(shareMode) \
    X(shareL1Size) \
    X(shareL0CSize) \
    X(shareUbSize) \
    X(batchM) \
    X(batchN) \
    X(singleBatchM) \
    X(singleBatchN) \
    X(stepKa) \
    X(stepKb) \
    X(depthAL1CacheUB) \
    X(depthBL1CacheUB) \
    X(dbL0A) \
    X(dbL0B) \
    X(dbL0C) \
    X(ALayoutInfoB) \
    X(ALayoutInfoS) \
    X(ALayoutInfoN) \
    X(ALayoutInfoG) \
    X(ALayoutInfoD) \
    X(BLayoutInfoB) \
    X(BLayoutInfoS) \
    X(BLayoutInfoN) \
    X(BLayoutInfoG) \
    X(BLayoutInfoD) \
    X(CLayoutInfoB) \
    X(CLayoutInfoS1) \
    X(CLayoutInfoN) \
    X(CLayoutInfoG) \
    X(CLayoutInfoS2) \
    X(BatchNum) \
    X(mxTypePara)

/** The kernel-side matmul tiling (plain int32_t fields). */
struct TCubeTiling {
#define CANNON_ASCENDC_TCUBE_FIELD(name) int32_t name;
    CANNON_ASCENDC_TCUBE_TILING_FIELDS(CANNON_ASCENDC_TCUBE_FIELD)
#undef CANNON_ASCENDC_TCUBE_FIELD
};

#endif /* CANNON_ASCENDC_TCUBE_TILING_H_ */
