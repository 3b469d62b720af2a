/*
 * Body of the kernel table, written once against the vec_* layer; the including file defines
 * KERN_TABLE (the table's name) and KERN_ISA, and includes its tier's vec_<tier>.h first.
 */
#include <string.h>

#include "kernels.h"
#include "vmath_ext.h"

static void k_f16_to_f32(float *d, const uint16_t *s, size_t n)
{
    size_t i = 0;
    for (; i + VW <= n; i += VW)
        vf_store_f32(d + i, vf_load_f16(s + i));
    if (i < n)
        vf_storen_f32(d + i, vf_loadn_f16(s + i, n - i, 0.0f), n - i);
}

static void k_f32_to_f16(uint16_t *d, const float *s, size_t n)
{
    size_t i = 0;
    for (; i + VW <= n; i += VW)
        vf_store_f16(d + i, vf_load_f32(s + i));
    if (i < n)
        vf_storen_f16(d + i, vf_loadn_f32(s + i, n - i, 0.0f), n - i);
}

static void k_bf16_to_f32(float *d, const uint16_t *s, size_t n)
{
    size_t i = 0;
    for (; i + VW <= n; i += VW)
        vf_store_f32(d + i, vf_load_bf16(s + i));
    if (i < n)
        vf_storen_f32(d + i, vf_loadn_bf16(s + i, n - i, 0.0f), n - i);
}

static void k_f32_to_bf16(uint16_t *d, const float *s, size_t n)
{
    size_t i = 0;
    for (; i + VW <= n; i += VW)
        vf_store_bf16(d + i, vf_load_f32(s + i));
    if (i < n)
        vf_storen_bf16(d + i, vf_loadn_f32(s + i, n - i, 0.0f), n - i);
}

static void k_exp_f32(float *d, const float *s, size_t n)
{
    size_t i = 0;
    for (; i + VW <= n; i += VW)
        vf_store_f32(d + i, vf_exp(vf_load_f32(s + i)));
    if (i < n)
        vf_storen_f32(d + i, vf_exp(vf_loadn_f32(s + i, n - i, 0.0f)), n - i);
}

static void k_exp_small_f32(float *d, const float *s, size_t n)
{
    size_t i = 0;
    for (; i + VW <= n; i += VW)
        vf_store_f32(d + i, vf_exp_small(vf_load_f32(s + i)));
    if (i < n)
        vf_storen_f32(d + i, vf_exp_small(vf_loadn_f32(s + i, n - i, 0.0f)), n - i);
}

static void k_log_f32(float *d, const float *s, size_t n)
{
    size_t i = 0;
    for (; i + VW <= n; i += VW)
        vf_store_f32(d + i, vf_log(vf_load_f32(s + i)));
    if (i < n)
        vf_storen_f32(d + i, vf_log(vf_loadn_f32(s + i, n - i, 1.0f)), n - i);
}

static float k_max_f32(const float *s, size_t n)
{
    /* max() drops a NaN in one operand order, so NaNs are tracked separately: x != x. */
    vf m0 = vf_set1(-__builtin_inff()), m1 = m0;
    vd nanacc = vd_zero();
    size_t i = 0;
    for (; i + 2 * VW <= n; i += 2 * VW) {
        vf a = vf_load_f32(s + i), b = vf_load_f32(s + i + VW);
        m0 = vf_max(m0, a);
        m1 = vf_max(m1, b);
        nanacc = vd_add(nanacc, vf_sub(a, a)); /* 0, or NaN for NaN/inf lanes */
        nanacc = vd_add(nanacc, vf_sub(b, b));
    }
    for (; i < n; i += VW) {
        size_t k = n - i < VW ? n - i : VW;
        vf a = vf_loadn_f32(s + i, k, -__builtin_inff());
        m0 = vf_max(m0, a);
        vf z = vf_loadn_f32(s + i, k, 0.0f);
        nanacc = vd_add(nanacc, vf_sub(z, z));
    }
    float m = vf_hmax(vf_max(m0, m1));
    double t = vd_hsum(nanacc);
    if (t != t) {
        /* inf - inf is NaN too; only a real NaN makes the max NaN. */
        for (size_t j = 0; j < n; j++)
            if (s[j] != s[j])
                return s[j];
    }
    return m;
}

static double k_sum_f32(const float *s, size_t n)
{
    vd a0 = vd_zero(), a1 = vd_zero();
    size_t i = 0;
    for (; i + 2 * VW <= n; i += 2 * VW) {
        a0 = vd_add(a0, vf_load_f32(s + i));
        a1 = vd_add(a1, vf_load_f32(s + i + VW));
    }
    for (; i < n; i += VW) {
        size_t k = n - i < VW ? n - i : VW;
        a0 = vd_add(a0, vf_loadn_f32(s + i, k, 0.0f));
    }
    return vd_hsum(a0) + vd_hsum(a1);
}

static double k_exp_sum_f64(double *e, const float *x, size_t n, double shift)
{
    const vw2 sh = vw2_set1(shift);
    vw2 acc = vw2_set1(0.0);
    double lanes[VW];
    size_t i = 0;
    for (; i + VW <= n; i += VW) {
        const vw2 v = vw2_exp(vw2_sub(vw2_from(vf_load_f32(x + i)), sh));
        if (e)
            vw2_store(e + i, v);
        acc = vw2_add(acc, v);
    }
    if (i < n) {
        /* the missing lanes read -inf: exp gives 0, which the sum absorbs exactly */
        const vw2 v = vw2_exp(vw2_sub(vw2_from(vf_loadn_f32(x + i, n - i, -__builtin_inff())), sh));
        if (e) {
            vw2_store(lanes, v);
            memcpy(e + i, lanes, (n - i) * sizeof(double));
        }
        acc = vw2_add(acc, v);
    }
    vw2_store(lanes, acc);
    double s = 0.0;
    for (int l = 0; l < VW; l++)
        s += lanes[l];
    return s;
}

const cannon_kernel_table KERN_TABLE = {
    .isa = KERN_ISA,
    .f16_to_f32 = k_f16_to_f32,
    .f32_to_f16 = k_f32_to_f16,
    .bf16_to_f32 = k_bf16_to_f32,
    .f32_to_bf16 = k_f32_to_bf16,
    .exp_f32 = k_exp_f32,
    .log_f32 = k_log_f32,
    .max_f32 = k_max_f32,
    .sum_f32 = k_sum_f32,
    .exp_small_f32 = k_exp_small_f32,
    .exp_sum_f64 = k_exp_sum_f64,
};
