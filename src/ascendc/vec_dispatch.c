/*
 * The vector kernels' C interface: argument checks and the tier. The tier comes from the shared
 * CPU detection (src/common/cpu_features.c) capped by CANNON_CPU_ISA and CANNON_ISA, the rule
 * cannon's operators follow; it is picked on the first call and again on each
 * cannonAscendcVecSelectTier(), and kept in an atomic that every call reads.
 */
#include <stdatomic.h>

#include "cannon/cpu.h"
#include "cannon_ascendc/vec_kernels.h"
#include "cpu_features.h"
#include "vec_internal.h"

#define VEC_INVALID_PARAM 100000 /* ACL_ERROR_INVALID_PARAM */

static atomic_int g_tier = -1;

static int tier_of(uint32_t bits)
{
#if defined(CANNON_ASCENDC_HAVE_AVX512)
    if ((bits & CANNON_CPU_ISA_TIER_AVX512) == CANNON_CPU_ISA_TIER_AVX512)
        return CANNON_ASCENDC_TIER_AVX512;
#endif
#if defined(CANNON_ASCENDC_HAVE_AVX2)
    if ((bits & CANNON_CPU_ISA_TIER_AVX2) == CANNON_CPU_ISA_TIER_AVX2)
        return CANNON_ASCENDC_TIER_AVX2;
#endif
    (void)bits;
    return CANNON_ASCENDC_TIER_SCALAR;
}

_Static_assert((int)CANNON_ASCENDC_TIER_AVX2 == (int)CANNON_CPU_TIER_AVX2, "tier numbering");
_Static_assert((int)CANNON_ASCENDC_TIER_AVX512 == (int)CANNON_CPU_TIER_AVX512, "tier numbering");

int cannonAscendcVecSelectTier(void)
{
    int t = tier_of(cannon_cpu_features_masked());
    const int cap = cannon_cpu_tier_cap();
    if (cap < t)
        t = cap;
    atomic_store_explicit(&g_tier, t, memory_order_relaxed);
    return t;
}

int cannonAscendcVecTier(void)
{
    const int t = atomic_load_explicit(&g_tier, memory_order_relaxed);
    return t >= 0 ? t : cannonAscendcVecSelectTier();
}

static const cannon_ascendc_vtable *table(void)
{
    switch (cannonAscendcVecTier()) {
#if defined(CANNON_ASCENDC_HAVE_AVX512)
    case CANNON_ASCENDC_TIER_AVX512:
        return &cannon_ascendc_vec_avx512;
#endif
#if defined(CANNON_ASCENDC_HAVE_AVX2)
    case CANNON_ASCENDC_TIER_AVX2:
        return &cannon_ascendc_vec_avx2;
#endif
    default:
        return &cannon_ascendc_vec_scalar;
    }
}

static int is_float(int dtype)
{
    return dtype == CANNON_ASCENDC_VDT_F16 || dtype == CANNON_ASCENDC_VDT_BF16 || dtype == CANNON_ASCENDC_VDT_F32;
}

static int bad(const char *what, int op, int dtype)
{
    return cannonAscendcReport(VEC_INVALID_PARAM, __FILE__, __LINE__, "%s: op %d on dtype %d is not supported", what,
                               op, dtype);
}

int cannonAscendcVecBinary(int op, int dtype, void *dst, const void *a, const void *b, uint64_t n)
{
    if (dtype < 0 || dtype >= CANNON_ASCENDC_VDT_COUNT || op < CANNON_ASCENDC_VOP_ADD || op > CANNON_ASCENDC_VOP_MIN ||
        (op == CANNON_ASCENDC_VOP_DIV && !is_float(dtype)))
        return bad("cannonAscendcVecBinary", op, dtype);
    if (n == 0)
        return 0;
    if (!dst || !a || !b || n > SIZE_MAX / 4)
        return bad("cannonAscendcVecBinary (NULL pointer or size)", op, dtype);
    table()->binary(op, dtype, dst, a, b, (size_t)n);
    return 0;
}

int cannonAscendcVecUnary(int op, int dtype, void *dst, const void *a, uint64_t n)
{
    const int int_ok = op == CANNON_ASCENDC_VOP_ABS || op == CANNON_ASCENDC_VOP_RELU;
    if (dtype < 0 || dtype >= CANNON_ASCENDC_VDT_COUNT || op < CANNON_ASCENDC_VOP_EXP ||
        op > CANNON_ASCENDC_VOP_RECIP || (!int_ok && !is_float(dtype)))
        return bad("cannonAscendcVecUnary", op, dtype);
    if (n == 0)
        return 0;
    if (!dst || !a || n > SIZE_MAX / 4)
        return bad("cannonAscendcVecUnary (NULL pointer or size)", op, dtype);
    table()->unary(op, dtype, dst, a, (size_t)n);
    return 0;
}

int cannonAscendcVecScalar(int op, int dtype, void *dst, const void *a, double s, uint64_t n)
{
    const int op_ok = op == CANNON_ASCENDC_VOP_ADD || op == CANNON_ASCENDC_VOP_MUL || op == CANNON_ASCENDC_VOP_MAX ||
                      op == CANNON_ASCENDC_VOP_MIN || op == CANNON_ASCENDC_VOP_LEAKY;
    if (dtype < 0 || dtype >= CANNON_ASCENDC_VDT_COUNT || !op_ok)
        return bad("cannonAscendcVecScalar", op, dtype);
    if (n == 0)
        return 0;
    if (!dst || !a || n > SIZE_MAX / 4)
        return bad("cannonAscendcVecScalar (NULL pointer or size)", op, dtype);
    table()->scalar(op, dtype, dst, a, s, (size_t)n);
    return 0;
}

int cannonAscendcCopyStream(void *dst, const void *src, uint64_t bytes)
{
    if (bytes == 0)
        return 0;
    if (!dst || !src || bytes > SIZE_MAX)
        return cannonAscendcReport(VEC_INVALID_PARAM, __FILE__, __LINE__, "cannonAscendcCopyStream: NULL pointer");
    table()->copy_stream(dst, src, (size_t)bytes);
    return 0;
}

int cannonAscendcVecSum(int dtype, const void *a, uint64_t n, float *sum)
{
    if (dtype < 0 || dtype >= CANNON_ASCENDC_VDT_COUNT || !is_float(dtype) || !sum)
        return bad("cannonAscendcVecSum", -1, dtype);
    if (n == 0) {
        *sum = 0.0f;
        return 0;
    }
    if (!a || n > SIZE_MAX / 4)
        return bad("cannonAscendcVecSum (NULL pointer or size)", -1, dtype);
    *sum = table()->sum(dtype, a, (size_t)n);
    return 0;
}

int cannonAscendcGemm(const cannon_ascendc_gemm *g)
{
    if (!g || !g->a || !g->b || !g->c || (g->dtype_ab != CANNON_ASCENDC_VDT_F32 && g->dtype_ab != CANNON_ASCENDC_VDT_F16 &&
                                         g->dtype_ab != CANNON_ASCENDC_VDT_BF16) ||
        !is_float(g->dtype_c) || (g->bias && !is_float(g->dtype_bias)))
        return bad("cannonAscendcGemm", -1, g ? g->dtype_ab : -1);
    if (g->m == 0 || g->n == 0)
        return 0;
    if (table()->gemm(g) != 0)
        return cannonAscendcReport(207001 /* ACL_ERROR_RT_MEMORY_ALLOCATION */, __FILE__, __LINE__,
                                   "cannonAscendcGemm: out of memory");
    return 0;
}
