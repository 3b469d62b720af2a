/**
 * @file cannon_ascendc/positions.h
 * The logical positions of data (global memory, the cube's L1/L0 buffers, the vector unit's
 * queues) as one X-macro list. CANN has two distinct enumerations of them, the kernel's
 * AscendC::TPosition (cannon_ascendc/core.h) and the host tiling's matmul_tiling::TPosition
 * (lib/matmul_tiling.h); both are generated from this list, so they keep the same enumerators
 * and values while remaining different types.
 *
 * CANNON_ASCENDC_TPOSITIONS(X, A): X(name) for each position, A(alias, name) for the aliases.
 */
#ifndef CANNON_ASCENDC_POSITIONS_H_
#define CANNON_ASCENDC_POSITIONS_H_

#define CANNON_ASCENDC_TPOSITIONS(X, A)                                                                               \
    X(GM)                                                                                                             \
    X(A1)                                                                                                             \
    X(A2)                                                                                                             \
    X(B1)                                                                                                             \
    X(B2)                                                                                                             \
    X(C1)                                                                                                             \
    X(C2)                                                                                                             \
    X(CO1)                                                                                                            \
    X(CO2)                                                                                                            \
    X(VECIN)                                                                                                          \
    X(VECOUT)                                                                                                         \
    X(VECCALC)                                                                                                        \
    A(LCM, VECCALC)                                                                                                   \
    X(SPM)                                                                                                            \
    A(SHM, SPM)                                                                                                       \
    X(TSCM)

/* Helpers for an enumeration body: CANNON_ASCENDC_TPOSITIONS(CANNON_ASCENDC_POS_ENUM, CANNON_ASCENDC_POS_ALIAS). */
#define CANNON_ASCENDC_POS_ENUM(name) name,
#define CANNON_ASCENDC_POS_ALIAS(alias, name) alias = name,

#endif /* CANNON_ASCENDC_POSITIONS_H_ */
