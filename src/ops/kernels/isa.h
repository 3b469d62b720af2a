/*
 * Run-time instruction-set selection for operator kernels.
 *
 * Kernels come in three tiers: scalar C (every CPU, and the reference the vector tiers are tested
 * against), AVX2 with FMA and F16C, and AVX-512 (F/BW/VL, plus BF16 when the AVX-512 files are
 * built with it). The tier used is the best one the CPU and OS support, capped by the environment:
 *   CANNON_ISA=scalar|avx2|avx512   (a name; a tier the CPU lacks falls back to the next lower one)
 *   CANNON_CPU_ISA=<mask>           (the CPU driver's capability mask, honoured too)
 * Operators read the tier when they plan (phase 1) and record it in their kernel arguments, so a
 * test can switch tiers between calls in one process by changing the environment.
 */
#ifndef CANNON_OPS_KERNELS_ISA_H_
#define CANNON_OPS_KERNELS_ISA_H_

#include <stdint.h>

typedef enum cannon_isa {
    CANNON_ISA_SCALAR = 0,
    CANNON_ISA_AVX2 = 1,
    CANNON_ISA_AVX512 = 2,
    CANNON_ISA_COUNT = 3
} cannon_isa;

/** Best tier the CPU supports (cached after the first call; ignores the environment). */
cannon_isa cannon_isa_hw(void);
/** Tier to use now: cannon_isa_hw() capped by CANNON_ISA and CANNON_CPU_ISA (read on each call). */
cannon_isa cannon_isa_select(void);
/** "scalar", "avx2", "avx512". */
const char *cannon_isa_name(cannon_isa isa);

/* Set by kern_avx512.c: whether the AVX-512 tier was compiled to use AVX512-BF16 instructions,
 * in which case it also needs the CPU to have them. */
extern const int cannon_avx512_uses_bf16;

#endif /* CANNON_OPS_KERNELS_ISA_H_ */
