/*
 * Run-time detection of the CPU's instruction sets. A feature counts only when the CPU has it
 * (cpuid) and the OS saves its register state on context switches (XCR0 via xgetbv): a kernel that
 * uses AVX-512 on a system whose OS does not enable ZMM state would fault on its first instruction.
 */
#include "cpu_features.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cannon/cpu.h"
#include "env.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h> /* glibc >= 2.33 */
#endif
#endif

#if defined(CPU_FEATURE_ACTIVE)

/* CPU_FEATURE_ACTIVE itself, but shifting an unsigned 1: glibc's inline shifts an int 1 by up to
 * 31 bits, undefined behaviour that UBSan reports for bit 31 (AVX512VL). */
static int active(unsigned index)
{
    const struct cpuid_feature *f = __x86_get_cpuid_feature_leaf(index / 128u);
    unsigned reg = index % 128u;
    return (f->active_array[reg / 32u] >> (reg % 32u)) & 1u;
}
#define CPU_ACTIVE(name) active(x86_cpu_##name)

/* glibc has already run cpuid at start-up and keeps what it found; asking it costs nothing, while
 * each cpuid instruction traps to the hypervisor on a VM (~15 us). "Active" means the CPU has the
 * feature and the OS enabled its register state (glibc checks XCR0), as the cpuid path below does. */
static uint32_t detect(void)
{
    if (!CPU_ACTIVE(AVX))
        return 0;
    uint32_t isa = 0;
    if (CPU_ACTIVE(FMA))
        isa |= CANNON_CPU_ISA_FMA;
    if (CPU_ACTIVE(F16C))
        isa |= CANNON_CPU_ISA_F16C;
    if (CPU_ACTIVE(AVX2))
        isa |= CANNON_CPU_ISA_AVX2;
    if (CPU_ACTIVE(AVX512F)) {
        isa |= CANNON_CPU_ISA_AVX512F;
        if (CPU_ACTIVE(AVX512BW))
            isa |= CANNON_CPU_ISA_AVX512BW;
        if (CPU_ACTIVE(AVX512VL))
            isa |= CANNON_CPU_ISA_AVX512VL;
        if (CPU_ACTIVE(AVX512_BF16))
            isa |= CANNON_CPU_ISA_AVX512BF16;
    }
    return isa;
}

#elif defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

/* xgetbv is written as inline asm so this file needs no -mxsave. */
static uint64_t read_xcr0(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static uint32_t detect(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    const int has_fma = (c >> 12) & 1, has_osxsave = (c >> 27) & 1, has_avx = (c >> 28) & 1,
              has_f16c = (c >> 29) & 1;
    if (!has_osxsave || !has_avx)
        return 0;
    const uint64_t xcr0 = read_xcr0();
    /* XMM (bit 1) and YMM (bit 2) state for AVX; opmask, ZMM_Hi256, Hi16_ZMM (5..7) for AVX-512. */
    if ((xcr0 & 0x6) != 0x6)
        return 0;
    const int os_avx512 = (xcr0 & 0xE0) == 0xE0;

    uint32_t isa = 0;
    if (has_fma)
        isa |= CANNON_CPU_ISA_FMA;
    if (has_f16c)
        isa |= CANNON_CPU_ISA_F16C;
    unsigned max_leaf = __get_cpuid_max(0, NULL);
    if (max_leaf < 7)
        return isa;
    __cpuid_count(7, 0, a, b, c, d);
    const unsigned max_sub7 = a;
    if ((b >> 5) & 1)
        isa |= CANNON_CPU_ISA_AVX2;
    if (os_avx512 && ((b >> 16) & 1)) {
        isa |= CANNON_CPU_ISA_AVX512F;
        if ((b >> 30) & 1)
            isa |= CANNON_CPU_ISA_AVX512BW;
        if ((b >> 31) & 1)
            isa |= CANNON_CPU_ISA_AVX512VL;
        if (max_sub7 >= 1) {
            __cpuid_count(7, 1, a, b, c, d);
            if ((a >> 5) & 1)
                isa |= CANNON_CPU_ISA_AVX512BF16;
        }
    }
    return isa;
}

#else

static uint32_t detect(void)
{
    return 0;
}

#endif

static _Atomic uint32_t g_features_plus1; /* 0: not detected yet */

uint32_t cannon_cpu_features(void)
{
    uint32_t v = atomic_load_explicit(&g_features_plus1, memory_order_relaxed);
    if (v == 0) {
        /* Racing first calls compute the same value, so a plain store is enough. */
        v = detect() + 1;
        atomic_store_explicit(&g_features_plus1, v, memory_order_relaxed);
    }
    return v - 1;
}

uint32_t cannon_cpu_features_masked(void)
{
    uint32_t bits = cannon_cpu_features();
    const char *mask = cannon_env_get(CANNON_CPU_ENV_ISA);
    if (mask && *mask) {
        char *end = NULL;
        const unsigned long m = strtoul(mask, &end, 0);
        if (end && *end == '\0')
            bits &= (uint32_t)m;
    }
    return bits;
}

int cannon_cpu_tier_cap(void)
{
    const char *want = cannon_env_get("CANNON_ISA");
    if (want == NULL || *want == '\0')
        return CANNON_CPU_TIER_AVX512;
    if (strcmp(want, "scalar") == 0)
        return CANNON_CPU_TIER_SCALAR;
    if (strcmp(want, "avx2") == 0)
        return CANNON_CPU_TIER_AVX2;
    /* "avx512" and unknown names change nothing: the best available tier is always correct. */
    return CANNON_CPU_TIER_AVX512;
}
