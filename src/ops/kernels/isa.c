/*
 * Tier selection. The CPU's instruction sets come from the shared detection (src/common/
 * cpu_features.c, which the CPU driver uses too): kernels run in this process on this CPU, and an
 * instruction set counts only when the CPU has it and the OS saves its registers.
 */
#include "isa.h"


#include "cannon/cpu.h"
#include "cpu_features.h"

/* A tier counts only when its files were compiled (src/ops/CMakeLists.txt builds the *_avx2.c /
 * *_avx512.c files only where the compiler and architecture allow, and says so with
 * CANNON_OPS_HAVE_AVX2 / CANNON_OPS_HAVE_AVX512). */
static cannon_isa tier_of(uint32_t bits)
{
#if defined(CANNON_OPS_HAVE_AVX512)
    uint32_t need512 = CANNON_CPU_ISA_TIER_AVX512;
    if (cannon_avx512_uses_bf16)
        need512 |= CANNON_CPU_ISA_AVX512BF16;
    if ((bits & need512) == need512)
        return CANNON_ISA_AVX512;
#endif
#if defined(CANNON_OPS_HAVE_AVX2)
    if ((bits & CANNON_CPU_ISA_TIER_AVX2) == CANNON_CPU_ISA_TIER_AVX2)
        return CANNON_ISA_AVX2;
#endif
    (void)bits;
    return CANNON_ISA_SCALAR;
}

/* The operators' tiers are the ones CANNON_ISA names (cannon_cpu_tier_cap). */
_Static_assert((int)CANNON_ISA_SCALAR == (int)CANNON_CPU_TIER_SCALAR, "tier numbering");
_Static_assert((int)CANNON_ISA_AVX2 == (int)CANNON_CPU_TIER_AVX2, "tier numbering");
_Static_assert((int)CANNON_ISA_AVX512 == (int)CANNON_CPU_TIER_AVX512, "tier numbering");

cannon_isa cannon_isa_hw(void)
{
    return tier_of(cannon_cpu_features());
}

cannon_isa cannon_isa_select(void)
{
    cannon_isa t = tier_of(cannon_cpu_features_masked());
    const int cap = cannon_cpu_tier_cap();
    if (cap < (int)t)
        t = (cannon_isa)cap;
    return t;
}

const char *cannon_isa_name(cannon_isa isa)
{
    switch (isa) {
    case CANNON_ISA_SCALAR:
        return "scalar";
    case CANNON_ISA_AVX2:
        return "avx2";
    case CANNON_ISA_AVX512:
        return "avx512";
    default:
        return "unknown";
    }
}
