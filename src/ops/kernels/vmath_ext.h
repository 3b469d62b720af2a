/*
 * Elementwise math on the vector layer, written once for every tier: the including file includes
 * its vec_<tier>.h first. Each function computes in fp32 unless said otherwise; the accuracy
 * figures below are measured against float64 (the golden tests assert them, see docs/ops.md).
 *
 *   vf_expm1(x)    exp(x) - 1 without cancellation near 0: x = n ln2 + r (Cody-Waite, as vf_exp),
 *                  expm1(r) = r + r^2 P(r) with P the Taylor polynomial of degree 6, then
 *                  2^n expm1(r) + (2^n - 1) with one rounding (FMA); the sign of x kept (-0 -> -0).
 *                  Inputs above 88 take vf_exp (overflow to inf), below -18 the result is -1.
 *   vf_tanh(x)     t = -e / (2 + e) with e = expm1(-2|x|), then x's sign: no cancellation anywhere
 *                  (for small x, e ~ -2|x| is accurate to its last bit), 2|x| capped at 20 where
 *                  tanh is 1 in fp32.
 *   vf_sigmoid(x)  e = exp(-|x|) in (0, 1]; (x >= 0 ? 1 : e) / (1 + e): one division, and the
 *                  tiny results of large negative x keep their relative accuracy down into the
 *                  subnormals (1 / (1 + exp(-x)) would round them to 0 below -88.7).
 *   vf_log1p_01(u) log(1 + u) for u in [0, 1]: log(w) with w = 1 + u rounded, plus the rounding
 *                  error of w (u - (w - 1), exact) divided by w.
 *   vf_sincos(x,c) sin (c = 0) or cos (c = 1), in double: x = q pi/2 + r with the three-part pi/2
 *                  of vmath_consts.h (exact products for |x| <= 2^24), Taylor polynomials for
 *                  sin r and cos r, the quadrant (q + c) mod 4 picking and negating one of them,
 *                  one rounding to fp32 at the end. Lanes with |x| > 2^24, inf or NaN are redone
 *                  by cannon_vm_sincos_big (Payne-Hanek reduction, vmath_big.c).
 *   vw2_exp(x)     exp in double, for x finite or -inf (NaN lanes give 0): x clamped to
 *                  [-1100, 710] (0 and inf beyond), x = k ln2 + r with fdlibm's two-part ln2
 *                  (k ln2_hi exact), |r| <= ln2/2, exp(r) by its Taylor polynomial of degree 13
 *                  (truncation below 1e-17 relative) in Horner form, then r scaled by 2^k with one
 *                  rounding (vw2_pow2i_mul). Within 1 ulp of fp64 with FMA, 2 ulp without (the
 *                  scalar tier); checked against libm's exp by tests/unit/test_aclnn_kernels.c.
 */
#ifndef CANNON_OPS_KERNELS_VMATH_EXT_H_
#define CANNON_OPS_KERNELS_VMATH_EXT_H_

#include "vmath_consts.h"

/* sin (want_cos 0) or cos (1) of any float, through the Payne-Hanek reduction: the path of
 * vf_sincos for |x| > 2^24, inf and NaN (vmath_big.c). */
float cannon_vm_sincos_big(float x, int want_cos);

VI vf vf_expm1(vf x)
{
    /* NaN passes the clamps (max/min return their second operand on NaN) */
    const vf xc = vf_min(vf_set1(CANNON_EXPM1_HI), vf_max(vf_set1(CANNON_EXPM1_LO), x));
    const vf n = vf_rint(vf_mul(xc, vf_set1(CANNON_LOG2E)));
    vf r = vf_fma(n, vf_set1(-CANNON_LN2_HI), xc); /* exact: n ln2_hi has at most 17 bits */
    r = vf_fma(n, vf_set1(-CANNON_LN2_LO), r);
    vf p = vf_set1(CANNON_EXPM1_E8);
    p = vf_fma(p, r, vf_set1(CANNON_EXPM1_E7));
    p = vf_fma(p, r, vf_set1(CANNON_EXPM1_E6));
    p = vf_fma(p, r, vf_set1(CANNON_EXPM1_E5));
    p = vf_fma(p, r, vf_set1(CANNON_EXPM1_E4));
    p = vf_fma(p, r, vf_set1(CANNON_EXPM1_E3));
    p = vf_fma(p, r, vf_set1(CANNON_EXPM1_E2));
    const vf em = vf_fma(vf_mul(r, r), p, r); /* expm1(r) */
    const vf s = vf_pow2i(n);                  /* n in [-26, 127]: a normal float */
    vf y = vf_fma(s, em, vf_sub(s, vf_set1(1.0f)));
    const vmask big = vf_gt(x, vf_set1(CANNON_EXPM1_HI));
    if (vmask_any(big))
        y = vf_blend(big, vf_exp(x), y);
    return vf_orsign(y, x); /* expm1 has x's sign: keeps -0 */
}

VI vf vf_tanh(vf x)
{
    const vf a = vf_abs(x);
    const vf a2 = vf_min(vf_set1(20.0f), vf_add(a, a)); /* NaN passes */
    const vf e = vf_expm1(vf_sub(vf_set1(0.0f), a2));   /* in [-1, 0] */
    const vf t = vf_div(vf_sub(vf_set1(0.0f), e), vf_add(vf_set1(2.0f), e));
    return vf_orsign(t, x);
}

VI vf vf_sigmoid(vf x)
{
    const vf e = vf_exp(vf_sub(vf_set1(0.0f), vf_abs(x)));
    return vf_div(vf_blend(vf_ge(x, vf_set1(0.0f)), vf_set1(1.0f), e), vf_add(vf_set1(1.0f), e));
}

VI vf vf_log1p_01(vf u)
{
    const vf w = vf_add(vf_set1(1.0f), u);
    const vf c = vf_div(vf_sub(u, vf_sub(w, vf_set1(1.0f))), w);
    return vf_add(vf_log(w), c);
}

VI vf vf_sincos(vf x, const int want_cos)
{
    const vw2 d = vw2_from(x);
    vw2 q = vw2_rint(vw2_mul(d, vw2_set1(CANNON_2_PI)));
    vw2 r = vw2_sub(d, vw2_mul(q, vw2_set1(CANNON_PIO2_1))); /* exact */
    r = vw2_sub(r, vw2_mul(q, vw2_set1(CANNON_PIO2_2)));
    r = vw2_sub(r, vw2_mul(q, vw2_set1(CANNON_PIO2_3)));
    if (want_cos)
        q = vw2_add(q, vw2_set1(1.0)); /* cos x = sin(x + pi/2) */
    /* q mod 4 in {0, 1, 2, 3} (exact for |q| < 2^52); odd quadrants take cos r, 2 and 3 negate */
    const vw2 qm = vw2_sub(q, vw2_mul(vw2_set1(4.0), vw2_floor(vw2_mul(q, vw2_set1(0.25)))));
    const vw2 odd = vw2_sub(qm, vw2_mul(vw2_set1(2.0), vw2_floor(vw2_mul(qm, vw2_set1(0.5)))));
    const vw2 r2 = vw2_mul(r, r);
    vw2 ps = vw2_set1(CANNON_SIN_S11);
    ps = vw2_fma(ps, r2, vw2_set1(CANNON_SIN_S9));
    ps = vw2_fma(ps, r2, vw2_set1(CANNON_SIN_S7));
    ps = vw2_fma(ps, r2, vw2_set1(CANNON_SIN_S5));
    ps = vw2_fma(ps, r2, vw2_set1(CANNON_SIN_S3));
    const vw2 s = vw2_fma(vw2_mul(r, r2), ps, r);
    vw2 pc = vw2_set1(CANNON_COS_C12);
    pc = vw2_fma(pc, r2, vw2_set1(CANNON_COS_C10));
    pc = vw2_fma(pc, r2, vw2_set1(CANNON_COS_C8));
    pc = vw2_fma(pc, r2, vw2_set1(CANNON_COS_C6));
    pc = vw2_fma(pc, r2, vw2_set1(CANNON_COS_C4));
    const vw2 c = vw2_fma(vw2_mul(r2, r2), pc, vw2_fma(r2, vw2_set1(-0.5), vw2_set1(1.0)));
    vw2 v = vw2_sel_gt(odd, 0.5, c, s);
    v = vw2_sel_gt(qm, 1.5, vw2_mul(v, vw2_set1(-1.0)), v);
    vf y = vw2_to(v);
    if (!want_cos)
        y = vf_blend(vf_eq(x, vf_set1(0.0f)), x, y); /* sin(-0) = -0 */
    const vmask big = vmask_not(vf_le(vf_abs(x), vf_set1(CANNON_SINCOS_FAST)));
    if (vmask_any(big)) {
        float xs[VW], ys[VW];
        vf_to_array(xs, x);
        vf_to_array(ys, y);
        for (int i = 0; i < VW; i++)
            if (!(__builtin_fabsf(xs[i]) <= CANNON_SINCOS_FAST))
                ys[i] = cannon_vm_sincos_big(xs[i], want_cos);
        y = vf_from_array(ys);
    }
    return y;
}

VI vw2 vw2_exp(vw2 x)
{
    x = vw2_sel_gt(x, -1100.0, x, vw2_set1(-1100.0)); /* also -inf and NaN */
    x = vw2_sel_gt(x, 710.0, vw2_set1(710.0), x);
    const vw2 k = vw2_rint(vw2_mul(x, vw2_set1(1.44269504088896338700e+00)));
    vw2 r = vw2_fma(k, vw2_set1(-6.93147180369123816490e-01), x); /* exact: k ln2_hi has spare bits */
    r = vw2_fma(k, vw2_set1(-1.90821492927058770002e-10), r);
    /* Taylor coefficients 1/13! ... 1/2!, 1, 1 */
    static const double c[14] = {1.6059043836821613e-10, 2.08767569878681e-09,   2.505210838544172e-08,
                                 2.755731922398589e-07,  2.7557319223985893e-06, 2.48015873015873e-05,
                                 1.984126984126984e-04,  1.388888888888889e-03,  8.333333333333333e-03,
                                 4.1666666666666664e-02, 1.6666666666666666e-01, 0.5,
                                 1.0,                    1.0};
    vw2 p = vw2_set1(c[0]);
    for (int i = 1; i < 14; i++)
        p = vw2_fma(p, r, vw2_set1(c[i]));
    return vw2_pow2i_mul(p, k);
}

#endif /* CANNON_OPS_KERNELS_VMATH_EXT_H_ */
