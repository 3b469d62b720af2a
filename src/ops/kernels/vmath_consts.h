/*
 * Constants of cannon's fp32 exp and log, shared by every tier so they approximate the same
 * functions. Polynomial coefficients were fitted for this project (weighted least squares,
 * iterated towards minimax, on Chebyshev nodes) and rounded to fp32:
 *   exp(r) ~ 1 + r + C2 r^2 + ... + C6 r^6 on |r| <= ln2/2: relative error 1.8e-8 (0.15 ulp)
 *   log(1+f) ~ f - f^2/2 + f^3 (C0 + C1 f + ... + C6 f^6) on [sqrt(1/2)-1, sqrt(2)-1]: 3.5e-8.
 * The measured end-to-end worst cases (tests/unit/test_aclnn_kernels.c) are stated in
 * vmath.h.
 */
#ifndef CANNON_OPS_KERNELS_VMATH_CONSTS_H_
#define CANNON_OPS_KERNELS_VMATH_CONSTS_H_

#define CANNON_LOG2E 0x1.715476p+0f
/* ln2 split so that n * LN2_HI is exact for |n| < 2^15 (LN2_HI has 9 significant bits). */
#define CANNON_LN2_HI 0x1.630000p-1f
#define CANNON_LN2_LO (-0x1.bd0106p-13f)
#define CANNON_SQRT2 0x1.6a09e6p+0f
/* Clamp range of exp's argument: below -104 the result rounds to 0, above 89 to inf; clamping
 * keeps the scale exponent within [-150, 129]. */
#define CANNON_EXP_LO (-104.0f)
#define CANNON_EXP_HI 89.0f

#define CANNON_EXP_C2 0x1.fffffap-2f
#define CANNON_EXP_C3 0x1.55540ap-3f
#define CANNON_EXP_C4 0x1.55589ap-5f
#define CANNON_EXP_C5 0x1.126d0cp-7f
#define CANNON_EXP_C6 0x1.6ab96cp-10f

/* vf_exp_small (exp on [-87.33, 88] without clamps, for softmax after the row max is subtracted):
 *   exp(r) ~ 1 + r + S2 r^2 + ... + S5 r^5 on |r| <= ln2/2, fitted for this project the same way:
 *   relative error 1.05e-7 (0.9 ulp) before rounding; measured end to end 2.2-2.4 ulp
 *   (see kernels.h).
 * CANNON_EXP_SHIFTER: adding 1.5*2^23 rounds a float of magnitude < 2^22 to an integer held in
 * the low mantissa bits. */
#define CANNON_EXP_SHIFTER 0x1.8p23f
#define CANNON_EXPS_C2 0x1.fffdfcp-2f
#define CANNON_EXPS_C3 0x1.5557aep-3f
#define CANNON_EXPS_C4 0x1.5729f0p-5f
#define CANNON_EXPS_C5 0x1.106288p-7f

#define CANNON_LOG_C0 0x1.5556d8p-2f
#define CANNON_LOG_C1 (-0x1.000382p-2f)
#define CANNON_LOG_C2 0x1.98d7f0p-3f
#define CANNON_LOG_C3 (-0x1.538244p-3f)
#define CANNON_LOG_C4 0x1.317482p-3f
#define CANNON_LOG_C5 (-0x1.2432d6p-3f)
#define CANNON_LOG_C6 0x1.645da4p-4f

/* ---- the elementwise math of vmath_ext.h ----
 * expm1(r) ~ r + r^2 (1/2 + r/3! + ... + r^6/8!) on |r| <= ln2/2: the Taylor coefficients
 * rounded to fp32 (truncation error 6e-10 relative). */
#define CANNON_EXPM1_E2 0.5f
#define CANNON_EXPM1_E3 ((float)(1.0 / 6.0))
#define CANNON_EXPM1_E4 ((float)(1.0 / 24.0))
#define CANNON_EXPM1_E5 ((float)(1.0 / 120.0))
#define CANNON_EXPM1_E6 ((float)(1.0 / 720.0))
#define CANNON_EXPM1_E7 ((float)(1.0 / 5040.0))
#define CANNON_EXPM1_E8 ((float)(1.0 / 40320.0))
/* expm1's argument range: below -18 the result rounds to -1, above 88 exp's own path (overflow). */
#define CANNON_EXPM1_LO (-18.0f)
#define CANNON_EXPM1_HI 88.0f

/* sin and cos, computed in double: x = q pi/2 + r with pi/2 = P1 + P2 + P3, P1 and P2 of 29
 * significant bits (so q P1 and q P2 are exact for q < 2^24) and P3 the next 53 bits (residual
 * 4e-35); then Taylor polynomials on |r| <= pi/4 (truncation below 7e-12 relative). Lanes with
 * |x| > CANNON_SINCOS_FAST (or not finite) are reduced by cannon_vm_sincos_big (vmath_big.c). */
#define CANNON_2_PI 0x1.45f306dc9c883p-1
#define CANNON_PIO2_1 0x1.921fb54p+0
#define CANNON_PIO2_2 0x1.10b4612p-30
#define CANNON_PIO2_3 (-0x1.676733ae8fe48p-60)
#define CANNON_SINCOS_FAST 0x1p24f
#define CANNON_SIN_S3 (-1.0 / 6.0)
#define CANNON_SIN_S5 (1.0 / 120.0)
#define CANNON_SIN_S7 (-1.0 / 5040.0)
#define CANNON_SIN_S9 (1.0 / 362880.0)
#define CANNON_SIN_S11 (-1.0 / 39916800.0)
#define CANNON_COS_C4 (1.0 / 24.0)
#define CANNON_COS_C6 (-1.0 / 720.0)
#define CANNON_COS_C8 (1.0 / 40320.0)
#define CANNON_COS_C10 (-1.0 / 3628800.0)
#define CANNON_COS_C12 (1.0 / 479001600.0)

#endif /* CANNON_OPS_KERNELS_VMATH_CONSTS_H_ */
