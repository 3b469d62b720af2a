/**
 * @file cannon_ascendc/vec_kernels.h
 * The C interface of the vector instructions' arithmetic in libcannon_ascendc. vec.h calls it for
 * the contiguous runs of the count form (and of the mask/repeat form where a repeat is one
 * contiguous run); the kernels behind it are compiled once per instruction-set tier (scalar C,
 * AVX2 with F16C, AVX-512) and the best tier the CPU has is picked at run time, capped by
 * CANNON_ISA=scalar|avx2|avx512 and CANNON_CPU_ISA=<mask> like cannon's operators.
 *
 * Every tier gives the same bits (but for the payload of a NaN computed from two NaN operands,
 * which IEEE leaves open): half and bfloat16_t elements are widened to float exactly,
 * computed in float and rounded to nearest even once; float and the integer types are computed
 * in their own type (integers wrap). Exp and Ln call the C library's expf/logf in every tier.
 *
 * Compiles as C and C++; needs only the C library.
 */
#ifndef CANNON_ASCENDC_VEC_KERNELS_H_
#define CANNON_ASCENDC_VEC_KERNELS_H_

#include <stddef.h>
#include <stdint.h>

#include "cannon_ascendc/block.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Element types the kernels take. */
typedef enum cannon_ascendc_vdtype {
    CANNON_ASCENDC_VDT_F16 = 0,  /**< half (IEEE binary16) */
    CANNON_ASCENDC_VDT_BF16 = 1, /**< bfloat16_t */
    CANNON_ASCENDC_VDT_F32 = 2,  /**< float */
    CANNON_ASCENDC_VDT_I16 = 3,  /**< int16_t */
    CANNON_ASCENDC_VDT_I32 = 4,  /**< int32_t */
    CANNON_ASCENDC_VDT_COUNT = 5
} cannon_ascendc_vdtype;

/** Operations: binary (dst = a op b), unary (dst = op a) and tensor-scalar (dst = a op s). */
typedef enum cannon_ascendc_vop {
    CANNON_ASCENDC_VOP_ADD = 0,
    CANNON_ASCENDC_VOP_SUB,
    CANNON_ASCENDC_VOP_MUL,
    CANNON_ASCENDC_VOP_DIV,   /**< floating types only */
    CANNON_ASCENDC_VOP_MAX,   /**< a > b ? a : b */
    CANNON_ASCENDC_VOP_MIN,   /**< a < b ? a : b */
    CANNON_ASCENDC_VOP_EXP,   /**< unary, floating types only */
    CANNON_ASCENDC_VOP_LN,    /**< unary, floating types only */
    CANNON_ASCENDC_VOP_ABS,   /**< unary */
    CANNON_ASCENDC_VOP_RELU,  /**< unary: a > 0 ? a : 0 */
    CANNON_ASCENDC_VOP_SQRT,  /**< unary, floating types only */
    CANNON_ASCENDC_VOP_RSQRT, /**< unary, floating types only: 1 / sqrt(a), two roundings */
    CANNON_ASCENDC_VOP_RECIP, /**< unary, floating types only */
    CANNON_ASCENDC_VOP_LEAKY, /**< tensor-scalar: a >= 0 ? a : a * s */
    CANNON_ASCENDC_VOP_COUNT
} cannon_ascendc_vop;

/** Instruction-set tiers (the numbers CANNON_ISA's names stand for). */
typedef enum cannon_ascendc_vtier {
    CANNON_ASCENDC_TIER_SCALAR = 0,
    CANNON_ASCENDC_TIER_AVX2 = 1,
    CANNON_ASCENDC_TIER_AVX512 = 2
} cannon_ascendc_vtier;

/**
 * dst[i] = a[i] op b[i] for i < n (ADD, SUB, MUL, DIV, MAX, MIN). dst may be a or b.
 * Returns 0, or ACL_ERROR_INVALID_PARAM (100000) for a NULL pointer with n > 0 or an op/dtype
 * pair the kernels lack.
 */
CANNON_ASCENDC_API int cannonAscendcVecBinary(int op, int dtype, void *dst, const void *a, const void *b, uint64_t n);

/** dst[i] = op(a[i]) (EXP, LN, ABS, RELU, SQRT, RSQRT, RECIP). Returns as cannonAscendcVecBinary. */
CANNON_ASCENDC_API int cannonAscendcVecUnary(int op, int dtype, void *dst, const void *a, uint64_t n);

/**
 * dst[i] = a[i] op s (ADD, MUL, MAX, MIN, LEAKY) with the scalar in the compute type (float for
 * half/bfloat16_t/float, the integer type otherwise), passed as a double that holds it exactly.
 * Returns as cannonAscendcVecBinary.
 */
CANNON_ASCENDC_API int cannonAscendcVecScalar(int op, int dtype, void *dst, const void *a, double s, uint64_t n);

/**
 * *sum = the sum of a[0..n) of a floating type, in float: 32 partial sums (element i to partial
 * i % 32, in order) added pairwise at the end, the same order in every tier. Returns 0, or
 * ACL_ERROR_INVALID_PARAM for an integer dtype or a NULL pointer.
 */
CANNON_ASCENDC_API int cannonAscendcVecSum(int dtype, const void *a, uint64_t n, float *sum);

/**
 * memcpy of @p bytes (no overlap) with non-temporal stores where the tier has them: DataCopy from
 * the unified buffer to a large global-memory range uses it, so that an output that will not stay
 * in cache is written without first being read. Returns 0, or ACL_ERROR_INVALID_PARAM for a NULL
 * pointer with bytes > 0.
 */
CANNON_ASCENDC_API int cannonAscendcCopyStream(void *dst, const void *src, uint64_t bytes);

/** One GEMM of the Matmul API: C (m x n) = A (m x k) B (k x n), plus bias[j] when bias is set,
 *  plus C's old value when accumulate is set; products accumulate in float. */
typedef struct cannon_ascendc_gemm {
    uint64_t m, n, k;
    int dtype_ab;          /**< A's and B's element type: F16, BF16 or F32 */
    int dtype_c;           /**< C's: F16, BF16 or F32 */
    int dtype_bias;        /**< the bias's: F16, BF16 or F32 */
    const void *a;         /**< A's element (i, p) at a[i * sai + p * sap] (elements) */
    uint64_t sai, sap;
    const void *b;         /**< B's element (p, j) at b[p * sbp + j * sbj] */
    uint64_t sbp, sbj;
    const void *bias;      /**< n elements, or NULL */
    void *c;               /**< row-major, row stride ldc elements */
    uint64_t ldc;
    int accumulate;
} cannon_ascendc_gemm;

/** Runs @p g with the tier's blocked kernel. Returns 0, ACL_ERROR_INVALID_PARAM for a NULL
 *  pointer or an unsupported type, ACL_ERROR_RT_MEMORY_ALLOCATION when out of memory. */
CANNON_ASCENDC_API int cannonAscendcGemm(const cannon_ascendc_gemm *g);

/** The tier the kernels use now. */
CANNON_ASCENDC_API int cannonAscendcVecTier(void);

/**
 * Pick the tier again from the CPU and the environment (CANNON_ISA, CANNON_CPU_ISA), as the first
 * call does, and return it; a tier the CPU or the build lacks falls back to the next lower one.
 * The kernels read the choice on each call, so a program can switch tiers between instructions.
 */
CANNON_ASCENDC_API int cannonAscendcVecSelectTier(void);

#ifdef __cplusplus
}
#endif

#endif /* CANNON_ASCENDC_VEC_KERNELS_H_ */
