/*
 * Tier detection. The operator library does its own cpuid check rather than asking the device:
 * kernels run in this process on this CPU, and libopapi has no private channel to the driver's
 * capability bits. The same rule as the driver applies: an instruction set counts only when the
 * CPU has it and the OS saves its registers (XCR0), otherwise the first instruction would fault.
 */
#include "isa.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cannon/cpu.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static uint32_t detect_bits(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    if (!((c >> 27) & 1) || !((c >> 28) & 1)) /* OSXSAVE, AVX */
        return 0;
    const uint64_t xcr0 = xgetbv0();
    if ((xcr0 & 0x6) != 0x6)
        return 0;
    uint32_t bits = 0;
    if ((c >> 12) & 1)
        bits |= CANNON_CPU_ISA_FMA;
    if ((c >> 29) & 1)
        bits |= CANNON_CPU_ISA_F16C;
    if (__get_cpuid_max(0, NULL) < 7)
        return bits;
    __cpuid_count(7, 0, a, b, c, d);
    const unsigned sub7 = a;
    if ((b >> 5) & 1)
        bits |= CANNON_CPU_ISA_AVX2;
    if ((xcr0 & 0xE0) == 0xE0 && ((b >> 16) & 1)) {
        bits |= CANNON_CPU_ISA_AVX512F;
        if ((b >> 30) & 1)
            bits |= CANNON_CPU_ISA_AVX512BW;
        if ((b >> 31) & 1)
            bits |= CANNON_CPU_ISA_AVX512VL;
        if (sub7 >= 1) {
            __cpuid_count(7, 1, a, b, c, d);
            if ((a >> 5) & 1)
                bits |= CANNON_CPU_ISA_AVX512BF16;
        }
    }
    return bits;
}
#else
static uint32_t detect_bits(void)
{
    return 0;
}
#endif

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

static _Atomic uint32_t g_bits_plus1; /* 0: not detected yet */

static uint32_t hw_bits(void)
{
    uint32_t v = atomic_load_explicit(&g_bits_plus1, memory_order_relaxed);
    if (v == 0) {
        /* Racing first calls compute the same value, so a plain store is enough. */
        v = detect_bits() + 1;
        atomic_store_explicit(&g_bits_plus1, v, memory_order_relaxed);
    }
    return v - 1;
}

cannon_isa cannon_isa_hw(void)
{
    return tier_of(hw_bits());
}

cannon_isa cannon_isa_select(void)
{
    uint32_t bits = hw_bits();
    const char *mask = getenv(CANNON_CPU_ENV_ISA);
    if (mask && *mask) {
        char *end = NULL;
        unsigned long m = strtoul(mask, &end, 0);
        if (end && *end == '\0')
            bits &= (uint32_t)m;
    }
    cannon_isa t = tier_of(bits);
    const char *want = getenv("CANNON_ISA");
    if (want && *want) {
        cannon_isa cap = t;
        if (strcmp(want, "scalar") == 0)
            cap = CANNON_ISA_SCALAR;
        else if (strcmp(want, "avx2") == 0)
            cap = CANNON_ISA_AVX2;
        else if (strcmp(want, "avx512") == 0)
            cap = CANNON_ISA_AVX512;
        /* An unknown name changes nothing: the best available tier is always correct. */
        if (cap < t)
            t = cap;
    }
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
