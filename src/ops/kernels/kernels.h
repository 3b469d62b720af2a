/*
 * The shared kernel library of libopapi: bulk conversions, vector exp/log and row reductions, one
 * implementation per tier (kern_scalar.c, kern_avx2.c, kern_avx512.c, all generated from
 * kern_impl.h) behind a table picked at run time. Operators with their own fused kernels include
 * the vec_<tier>.h layer directly (see src/ops/softmax) and use this table for the odd bulk job.
 *
 * Accuracy (measured by tests/unit/test_aclnn_kernels.c against double-precision libm: every
 * 29th fp32 bit pattern over the range, plus every pattern of [0.25, 1] for exp, [0.5, 2] for
 * log, and of the subnormal-result and overflow edges of exp):
 *   exp, x in [-104, 89] (everything else saturates to 0 / inf exactly):
 *       normal results: avx512 1.02 ulp, avx2 1.02 ulp, scalar (no FMA) 1.31 ulp
 *       (the test's bounds: 1.5 ulp vector, 2 ulp scalar);
 *       subnormal results: <= 0.93 ulp of the smallest subnormal; overflow edge 0.5 ulp
 *   log, x > 0 finite, normal and subnormal: avx512 1.20 ulp, avx2 1.20, scalar 1.21 (bound 2)
 *   specials: exp(-inf) = 0, exp(inf) = inf, log(0) = -inf, log(<0) = NaN, NaN -> NaN.
 *   exp_small, x in [-87.33, 88] (no clamps; outside that range the result is undefined):
 *       normal results: avx512 and avx2 2.18 ulp, scalar 2.38 ulp (the test's bounds: 2.5 ulp
 *       vector, 3 ulp scalar); NaN -> NaN. Softmax's fp32 budget (1e-6 = 8.4 ulp) covers it.
 * Conversions are exact (round-to-nearest-even, checked on all 65536 half/bf16 values and on
 * fp32 inputs around every rounding boundary).
 * Reductions: max returns NaN if any input is NaN; sum accumulates in fp64.
 */
#ifndef CANNON_OPS_KERNELS_KERNELS_H_
#define CANNON_OPS_KERNELS_KERNELS_H_

#include <stddef.h>
#include <stdint.h>

#include "cannon/kernel.h"
#include "isa.h"

typedef struct cannon_kernel_table {
    cannon_isa isa;
    void (*f16_to_f32)(float *dst, const uint16_t *src, size_t n);
    void (*f32_to_f16)(uint16_t *dst, const float *src, size_t n);
    void (*bf16_to_f32)(float *dst, const uint16_t *src, size_t n);
    void (*f32_to_bf16)(uint16_t *dst, const float *src, size_t n);
    void (*exp_f32)(float *dst, const float *src, size_t n);
    void (*log_f32)(float *dst, const float *src, size_t n);
    /** Largest element; NaN when any element is NaN; -inf for n == 0. */
    float (*max_f32)(const float *src, size_t n);
    /** Sum accumulated in fp64 in a fixed order (depends on n and the tier only). */
    double (*sum_f32)(const float *src, size_t n);
    /** exp for inputs in [-87.33, 88] (or NaN) only, cheaper than exp_f32 (no clamps, degree-5
     * polynomial): the vf_exp_small of the fused kernels, exposed for its tests. */
    void (*exp_small_f32)(float *dst, const float *src, size_t n);
    /** e[i] = exp((double)x[i] - shift) in fp64 for x[i] - shift finite or -inf (vw2_exp of
     * vmath_ext.h, within 1 ulp of fp64 on the vector tiers, 2 on the scalar one); e may be NULL.
     * Returns the sum of the e[i], accumulated per vector lane in element order and the lanes then
     * added in lane order (a fixed order for a given n and tier). */
    double (*exp_sum_f64)(double *e, const float *x, size_t n, double shift);
} cannon_kernel_table;

extern const cannon_kernel_table cannon_kernels_scalar;
extern const cannon_kernel_table cannon_kernels_avx2;
extern const cannon_kernel_table cannon_kernels_avx512;

/** The table of @p isa (which the CPU must support). */
const cannon_kernel_table *cannon_kernels_for(cannon_isa isa);
/** The table of cannon_isa_select(). */
const cannon_kernel_table *cannon_kernels(void);

/**
 * Test hook (exported from libopapi, not part of any public header): the table of tier @p isa
 * (a cannon_isa value), or NULL when this CPU cannot run it. Lets tests/unit/test_aclnn_kernels.c
 * check every tier through the shared library.
 */
CANNON_API const cannon_kernel_table *cannonOpsKernelTable(int isa);

#endif /* CANNON_OPS_KERNELS_KERNELS_H_ */
