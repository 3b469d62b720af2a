/*
 * What this CPU and its operating system let a program use, detected once per process: the CPU
 * driver reports it as its devices' capability bits, the operators and libhccl choose their
 * kernel tiers from it. Each applies its own environment caps on top (CANNON_CPU_ISA, CANNON_ISA;
 * see env_table.h).
 *
 * Compiled into every library that needs it (src/common/CMakeLists.txt); depends on the C
 * library only.
 */
#ifndef CANNON_COMMON_CPU_FEATURES_H_
#define CANNON_COMMON_CPU_FEATURES_H_

#include <stdint.h>

/**
 * CANNON_CPU_ISA_* bits (cannon/cpu.h) of the instruction sets this CPU has and whose registers
 * the OS saves (XCR0); 0 on other architectures. Detected on the first call, then cached;
 * ignores the environment.
 */
uint32_t cannon_cpu_features(void);

/**
 * cannon_cpu_features() masked by CANNON_CPU_ISA (a number: the CANNON_CPU_ISA_* bits a program
 * may use), read now; unset, empty or not a number: no mask.
 */
uint32_t cannon_cpu_features_masked(void);

/** Kernel tiers, lowest first: what CANNON_ISA names. */
enum { CANNON_CPU_TIER_SCALAR = 0, CANNON_CPU_TIER_AVX2 = 1, CANNON_CPU_TIER_AVX512 = 2 };

/**
 * The tier CANNON_ISA asks for (scalar, avx2, avx512), read now: a cap a library applies to the
 * best tier it can run. Unset, empty or an unknown name: CANNON_CPU_TIER_AVX512 (no cap).
 */
int cannon_cpu_tier_cap(void);

#endif /* CANNON_COMMON_CPU_FEATURES_H_ */
