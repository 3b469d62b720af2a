/**
 * @file cpu.h
 * Facts about cannon's CPU driver that its users (operator kernels, tests, tools) need: the ISA
 * capability bits it reports in cannon_device_props.isa_flags, its SoC name, and the environment
 * variables it reads. Macros only, so this header adds no link dependency.
 *
 * ISA bits are set only when both the CPU and the operating system support the instructions
 * (cpuid plus the XCR0 state checks for AVX and AVX-512), so a kernel may use every instruction set
 * whose bit it sees. Kernels pick their ISA at run time from these bits, never from compile flags.
 */
#ifndef CANNON_CPU_H_
#define CANNON_CPU_H_

/* ISA capability bits (cannon_device_props.isa_flags of a CPU device). */
#define CANNON_CPU_ISA_AVX2 (1u << 0)       /**< AVX2 (256-bit integer and float) */
#define CANNON_CPU_ISA_FMA (1u << 1)        /**< FMA3 fused multiply-add */
#define CANNON_CPU_ISA_F16C (1u << 2)       /**< fp16 <-> fp32 conversions */
#define CANNON_CPU_ISA_AVX512F (1u << 3)    /**< AVX-512 foundation */
#define CANNON_CPU_ISA_AVX512BW (1u << 4)   /**< AVX-512 byte and word */
#define CANNON_CPU_ISA_AVX512VL (1u << 5)   /**< AVX-512 on 128/256-bit vectors */
#define CANNON_CPU_ISA_AVX512BF16 (1u << 6) /**< AVX-512 bf16 conversions and dot products */

/** Every bit above: what a kernel built for the most capable level needs. */
#define CANNON_CPU_ISA_ALL                                                                         \
    (CANNON_CPU_ISA_AVX2 | CANNON_CPU_ISA_FMA | CANNON_CPU_ISA_F16C | CANNON_CPU_ISA_AVX512F |     \
     CANNON_CPU_ISA_AVX512BW | CANNON_CPU_ISA_AVX512VL | CANNON_CPU_ISA_AVX512BF16)

/** The usual tiers kernels are written for: test with (flags & TIER) == TIER. */
#define CANNON_CPU_ISA_TIER_AVX2 (CANNON_CPU_ISA_AVX2 | CANNON_CPU_ISA_FMA | CANNON_CPU_ISA_F16C)
#define CANNON_CPU_ISA_TIER_AVX512                                                                 \
    (CANNON_CPU_ISA_TIER_AVX2 | CANNON_CPU_ISA_AVX512F | CANNON_CPU_ISA_AVX512BW |                  \
     CANNON_CPU_ISA_AVX512VL)
#define CANNON_CPU_ISA_TIER_AVX512BF16 (CANNON_CPU_ISA_TIER_AVX512 | CANNON_CPU_ISA_AVX512BF16)

/** What every CPU device reports as its SoC name (aclrtGetSocName): a 910B-class part, the class
 * whose code paths CANN clients take for cannon (npu-smi prints it without "Ascend"). */
#define CANNON_CPU_SOC_NAME "Ascend910B3"

/* Environment variables read by the CPU driver when the runtime initialises it. */
/** Number of virtual devices, 1..64 (default 8). */
#define CANNON_CPU_ENV_DEVICES "CANNON_CPU_DEVICES"
/** Memory capacity of each device in bytes, optional K/M/G/T suffix (powers of 1024; default 8G). */
#define CANNON_CPU_ENV_DEVICE_MEMORY "CANNON_CPU_DEVICE_MEMORY"
/** Worker threads shared by all devices (default: the CPUs this process may run on). */
#define CANNON_CPU_ENV_THREADS "CANNON_CPU_THREADS"
/** Microseconds an idle thread spins before sleeping (default 30; 0 sleeps at once). */
#define CANNON_CPU_ENV_SPIN_US "CANNON_SPIN_US"
/**
 * A mask of CANNON_CPU_ISA_* bits (decimal or 0x hex) ANDed with what the CPU supports, to make
 * kernels take lower tiers, e.g. CANNON_CPU_ISA=0 for the scalar paths. Default: no restriction.
 */
#define CANNON_CPU_ENV_ISA "CANNON_CPU_ISA"

#endif /* CANNON_CPU_H_ */
