/*
 * libopapi's shared kernels on every tier this CPU runs (scalar, AVX2, AVX-512): worst-case error
 * of the vector exp and log against double-precision libm over the fp32 range that matters,
 * fp16/bf16 conversions over all 65536 values and around every fp32 rounding boundary, and the
 * row reductions. The measured worst cases are printed (cmocka's print_message) so the figures in
 * src/ops/kernels/kernels.h can be checked.
 */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/common/fp_convert.h"
#include "../../src/ops/kernels/kernels.h"

#define CHUNK 4096

/* Error of y against the exact value r, in units of the fp32 ulp at r (subnormal ulp below). */
static double ulp_err(float y, double r)
{
    if (isnan(r))
        return isnan(y) ? 0.0 : INFINITY;
    float rf = (float)r;
    if (isinf(rf) || isinf(y))
        return y == rf ? 0.0 : INFINITY;
    int e = r == 0.0 ? -126 : ilogb(r);
    if (e < -126)
        e = -126;
    return fabs((double)y - r) / ldexp(1.0, e - 23);
}

typedef void (*vfn)(float *, const float *, size_t);

/* Sweep fp32 bit patterns [lo, hi] (as uint32, same sign) with @p step; return the max error. */
static double sweep(vfn f, double (*ref)(double), uint32_t lo, uint32_t hi, uint32_t step, float *worst_x)
{
    static float in[CHUNK], out[CHUNK];
    double worst = 0.0;
    uint64_t u = lo;
    while (u <= hi) {
        size_t n = 0;
        for (; n < CHUNK && u <= hi; n++, u += step)
            in[n] = cannon_bits_f32((uint32_t)u);
        f(out, in, n);
        for (size_t i = 0; i < n; i++) {
            double e = ulp_err(out[i], ref((double)in[i]));
            if (e > worst) {
                worst = e;
                *worst_x = in[i];
            }
        }
    }
    return worst;
}

static const char *isa_names[] = {"scalar", "avx2", "avx512"};

static void test_exp(void **state)
{
    (void)state;
    for (int isa = 0; isa < CANNON_ISA_COUNT; isa++) {
        const cannon_kernel_table *t = cannonOpsKernelTable(isa);
        if (!t)
            continue;
        float wx = 0;
        /* Normal results: x in [-87.3, 88.72]; every 29th pattern, plus [-1, 1] fully near 1. */
        double e_pos = sweep(t->exp_f32, exp, 0x00000000u, cannon_f32_bits(88.72f), 29, &wx);
        float wx2 = 0;
        double e_neg = sweep(t->exp_f32, exp, 0x80000000u, cannon_f32_bits(-87.33f), 29, &wx2);
        float wx3 = 0;
        double e_one = sweep(t->exp_f32, exp, cannon_f32_bits(0.25f), cannon_f32_bits(1.0f), 1, &wx3);
        double e_norm = fmax(e_pos, fmax(e_neg, e_one));
        /* Subnormal results and the saturation edges: x in [-104, -87.33] and [88.72, 89]. */
        float wx4 = 0, wx5 = 0;
        double e_sub = sweep(t->exp_f32, exp, cannon_f32_bits(-87.33f), cannon_f32_bits(-104.0f), 1, &wx4);
        double e_top = sweep(t->exp_f32, exp, cannon_f32_bits(88.72f), cannon_f32_bits(89.0f), 1, &wx5);
        print_message("exp %-6s: normal results max %.3f ulp (x=%a), subnormal results max %.3f ulp, "
                      "overflow edge %.3f ulp\n",
                      isa_names[isa], e_norm, e_norm == e_pos ? wx : (e_norm == e_neg ? wx2 : wx3), e_sub, e_top);
        assert_true(e_norm <= (isa == 0 ? 2.0 : 1.5));
        assert_true(e_sub <= 1.0);
        assert_true(e_top <= 1.0);
        /* Specials and the clamped range. */
        float in[8] = {-INFINITY, INFINITY, NAN, -1000.0f, 1000.0f, -0.0f, 0.0f, -103.99f};
        float out[8];
        t->exp_f32(out, in, 8);
        assert_true(out[0] == 0.0f);
        assert_true(isinf(out[1]) && out[1] > 0);
        assert_true(isnan(out[2]));
        assert_true(out[3] == 0.0f);
        assert_true(isinf(out[4]));
        assert_true(out[5] == 1.0f && out[6] == 1.0f);
        assert_true(out[7] == (float)exp(-103.99));
    }
}

/* vf_exp_small: the unclamped exp the softmax kernels use once the row max is subtracted. */
static void test_exp_small(void **state)
{
    (void)state;
    for (int isa = 0; isa < CANNON_ISA_COUNT; isa++) {
        const cannon_kernel_table *t = cannonOpsKernelTable(isa);
        if (!t)
            continue;
        float wx = 0, wx2 = 0, wx3 = 0;
        double e_pos = sweep(t->exp_small_f32, exp, 0x00000000u, cannon_f32_bits(88.0f), 29, &wx);
        double e_neg = sweep(t->exp_small_f32, exp, 0x80000000u, cannon_f32_bits(-87.33f), 29, &wx2);
        double e_one = sweep(t->exp_small_f32, exp, cannon_f32_bits(-0.25f), cannon_f32_bits(-16.0f), 5, &wx3);
        double e = fmax(e_pos, fmax(e_neg, e_one));
        print_message("exp_small %-6s: max %.3f ulp (x=%a)\n", isa_names[isa], e,
                      e == e_pos ? wx : (e == e_neg ? wx2 : wx3));
        /* Bounds: the degree-5 polynomial alone is 0.9 ulp; the scalar tier rounds each multiply and add. */
        assert_true(e <= (isa == 0 ? 3.0 : 2.5));
        float in[4] = {NAN, -0.0f, 0.0f, -87.33f};
        float out[4];
        t->exp_small_f32(out, in, 4);
        assert_true(isnan(out[0]));
        assert_true(out[1] == 1.0f && out[2] == 1.0f);
        assert_true(out[3] > 0.0f);
    }
}

/* Error of y against the exact value r, in units of the fp64 ulp at r (subnormal ulp below). */
static double ulp_err64(double y, long double r)
{
    if (isinf((double)r) || isinf(y))
        return y == (double)r ? 0.0 : INFINITY;
    int e = r == 0.0L ? -1022 : ilogbl(r);
    if (e < -1022)
        e = -1022;
    return (double)(fabsl((long double)y - r) / ldexpl(1.0L, e - 52));
}

/* exp_sum_f64: exp((double)x - shift) in fp64 against x87 expl, every 4099th fp32 pattern over
 * [-745, 709] after the shift, the subnormal and overflow edges, -inf, and the returned sum. */
static void test_exp_sum_f64(void **state)
{
    (void)state;
    static float in[CHUNK];
    static double out[CHUNK];
    const double shifts[] = {0.0, 3.5, -2.25, 88.72283935546875, -600.0};
    for (int isa = 0; isa < CANNON_ISA_COUNT; isa++) {
        const cannon_kernel_table *t = cannonOpsKernelTable(isa);
        if (!t)
            continue;
        double worst = 0.0, wx = 0.0;
        for (size_t si = 0; si < sizeof shifts / sizeof shifts[0]; si++) {
            const double sh = shifts[si];
            for (int sign = 0; sign < 2; sign++) {
                uint64_t u = sign ? 0x80000000u : 0u;
                const uint64_t end = sign ? cannon_f32_bits(-745.0f) : cannon_f32_bits(709.0f);
                while (u <= end) {
                    size_t n = 0;
                    for (; n < CHUNK && u <= end; n++, u += 4099)
                        in[n] = cannon_bits_f32((uint32_t)u);
                    long double ref_sum = 0.0L;
                    const double got_sum = t->exp_sum_f64(out, in, n, sh);
                    for (size_t i = 0; i < n; i++) {
                        const double xd = (double)in[i] - sh;
                        const long double r = expl((long double)xd);
                        ref_sum += r;
                        if (xd < -745.2 || xd > 709.7)
                            continue; /* 0 / inf territory, checked below */
                        double e = ulp_err64(out[i], r);
                        if (e > worst) {
                            worst = e;
                            wx = xd;
                        }
                    }
                    /* a recursive sum of n positive terms: within n rounding errors, each also at
                     * least the subnormal spacing where terms are subnormal */
                    if (ref_sum <= (long double)DBL_MAX)
                        assert_true(fabsl((long double)got_sum - ref_sum) <=
                                    ref_sum * (long double)n * 0x1p-52L + (long double)n * 0x1p-1074L);
                }
            }
        }
        print_message("exp_sum_f64 %-6s: max %.3f ulp of fp64 (x=%a)\n", isa_names[isa], worst, wx);
        /* Bounds: FMA tiers 1 ulp, the scalar tier (two roundings per Horner step) 2. */
        assert_true(worst <= (isa == 0 ? 2.0 : 1.0));
        float sp[6] = {-INFINITY, -1000.0f, 1000.0f, -744.0f, 0.0f, 709.5f};
        double so[6];
        double s = t->exp_sum_f64(so, sp, 6, 0.0);
        assert_true(so[0] == 0.0 && so[1] == 0.0);
        assert_true(isinf(so[2]) && so[2] > 0);
        assert_true(so[3] > 0.0 && so[3] < 0x1p-1022); /* subnormal */
        assert_true(so[4] == 1.0);
        assert_true(isfinite(so[5]) && so[5] > 1e308);
        assert_true(isinf(s));
        /* NULL e: only the sum; n = 0: 0 */
        assert_true(t->exp_sum_f64(NULL, sp + 4, 1, 0.0) == 1.0);
        assert_true(t->exp_sum_f64(NULL, sp, 0, 0.0) == 0.0);
    }
}

static void test_log(void **state)
{
    (void)state;
    for (int isa = 0; isa < CANNON_ISA_COUNT; isa++) {
        const cannon_kernel_table *t = cannonOpsKernelTable(isa);
        if (!t)
            continue;
        float wx = 0, wx2 = 0;
        /* Every positive finite float (every 23rd pattern), and all of [0.5, 2). */
        double e_all = sweep(t->log_f32, log, 1u, 0x7f7fffffu, 5, &wx);
        double e_one = sweep(t->log_f32, log, cannon_f32_bits(0.5f), cannon_f32_bits(2.0f), 1, &wx2);
        double e = fmax(e_all, e_one);
        print_message("log %-6s: max %.3f ulp (x=%a)\n", isa_names[isa], e, e == e_all ? wx : wx2);
        assert_true(e <= 2.0);
        float in[7] = {0.0f, -0.0f, -1.0f, INFINITY, NAN, -INFINITY, 1.0f};
        float out[7];
        t->log_f32(out, in, 7);
        assert_true(isinf(out[0]) && out[0] < 0);
        assert_true(isinf(out[1]) && out[1] < 0);
        assert_true(isnan(out[2]));
        assert_true(isinf(out[3]) && out[3] > 0);
        assert_true(isnan(out[4]));
        assert_true(isnan(out[5]));
        assert_true(out[6] == 0.0f);
    }
}

/* Nearest-even check of a narrowing: h must be the representable value closest to x. */
static void check_narrow(float x, uint16_t h, float (*widen)(uint16_t), int is_f16)
{
    if (isnan(x)) {
        assert_true(isnan(widen(h)));
        return;
    }
    double v = widen(h);
    /* Neighbours of h towards zero and away from it (same sign), as doubles. */
    double lo = widen((uint16_t)(h - ((h & 0x7fff) ? 1 : 0)));
    uint16_t up = (uint16_t)(h + 1);
    double hi = ((up & 0x7fff) == (is_f16 ? 0x7c01 : 0x7f81)) ? INFINITY : widen(up);
    if (isinf(v)) {
        /* Overflow: x must be at least half an ulp beyond the largest finite value. */
        double maxf = is_f16 ? 65504.0 : (double)cannon_bf16_to_f32(0x7f7f);
        double half = is_f16 ? 16.0 : ldexp(1.0, 127 - 8);
        assert_true(fabs((double)x) >= maxf + half);
        return;
    }
    double d = fabs((double)x - v);
    assert_true(d <= fabs((double)x - lo));
    if (!isinf(hi))
        assert_true(d <= fabs((double)x - hi));
    if (d == fabs((double)x - lo) && lo != v)
        assert_true((h & 1) == 0);
}

static void test_conversions(void **state)
{
    (void)state;
    static uint16_t h[65536], h2[65536];
    static float f[65536], g[65536];
    for (int isa = 0; isa < CANNON_ISA_COUNT; isa++) {
        const cannon_kernel_table *t = cannonOpsKernelTable(isa);
        if (!t)
            continue;
        for (uint32_t i = 0; i < 65536; i++)
            h[i] = (uint16_t)i;
        /* Widening: all 65536 values, bit-exact against the scalar reference; and the
         * round trip is the identity for every non-NaN value. */
        t->f16_to_f32(f, h, 65536);
        t->f32_to_f16(h2, f, 65536);
        for (uint32_t i = 0; i < 65536; i++) {
            float r = cannon_f16_to_f32((uint16_t)i);
            if (isnan(r)) {
                assert_true(isnan(f[i]) && (h2[i] & 0x7c00) == 0x7c00 && (h2[i] & 0x3ff));
            } else {
                assert_int_equal(cannon_f32_bits(f[i]), cannon_f32_bits(r));
                assert_int_equal(h2[i], i);
            }
        }
        t->bf16_to_f32(f, h, 65536);
        t->f32_to_bf16(h2, f, 65536);
        for (uint32_t i = 0; i < 65536; i++) {
            float r = cannon_bf16_to_f32((uint16_t)i);
            if (isnan(r)) {
                assert_true(isnan(f[i]) && isnan(cannon_bf16_to_f32(h2[i])));
            } else {
                assert_int_equal(cannon_f32_bits(f[i]), cannon_f32_bits(r));
                assert_int_equal(h2[i], i);
            }
        }
        /* Narrowing: fp32 inputs at, just below and just above every half/bf16 midpoint and a
         * pseudo-random sweep; bit-equal to the scalar reference, which is checked to round to
         * nearest even. */
        size_t n = 0;
        for (uint32_t i = 0; i < 65536 && n + 6 <= 65536; i += 4) {
            float a = cannon_f16_to_f32((uint16_t)i), b = cannon_f16_to_f32((uint16_t)(i + 1));
            if (isnan(a) || isnan(b) || isinf(a) || isinf(b))
                continue;
            float mid = (float)(((double)a + (double)b) / 2);
            f[n++] = mid;
            f[n++] = nextafterf(mid, -INFINITY);
            f[n++] = nextafterf(mid, INFINITY);
        }
        uint32_t s = 12345;
        while (n < 65536) {
            s = s * 1664525u + 1013904223u;
            f[n++] = cannon_bits_f32(s);
        }
        t->f32_to_f16(h, f, 65536);
        t->f32_to_bf16(h2, f, 65536);
        for (size_t i = 0; i < 65536; i++) {
            assert_int_equal(h[i], cannon_f32_to_f16(f[i]));
            check_narrow(f[i], h[i], cannon_f16_to_f32, 1);
            assert_int_equal(h2[i], cannon_f32_to_bf16(f[i]));
            check_narrow(f[i], h2[i], cannon_bf16_to_f32, 0);
        }
        /* bf16 midpoints and the subnormal range (where AVX512-BF16 flushes to zero). */
        n = 0;
        for (uint32_t i = 0; i < 65536 && n + 3 <= 65536; i += 3) {
            uint32_t base = ((uint32_t)i << 16);
            float m = cannon_bits_f32(base | 0x8000u);
            if (isnan(m) || isinf(m))
                continue;
            f[n++] = m;
            f[n++] = cannon_bits_f32(base | 0x7fffu);
            f[n++] = cannon_bits_f32(base | 0x0001u);
        }
        t->f32_to_bf16(h2, f, n);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(h2[i], cannon_f32_to_bf16(f[i]));
        (void)g;
    }
}

static void test_reductions(void **state)
{
    (void)state;
    static float x[10007];
    uint32_t s = 7;
    for (size_t i = 0; i < 10007; i++) {
        s = s * 1664525u + 1013904223u;
        x[i] = (float)((int32_t)(s >> 8) - (1 << 23)) * 0x1p-20f;
    }
    for (int isa = 0; isa < CANNON_ISA_COUNT; isa++) {
        const cannon_kernel_table *t = cannonOpsKernelTable(isa);
        if (!t)
            continue;
        for (size_t n = 0; n < 70; n++) {
            float m = -INFINITY;
            double sum = 0.0;
            for (size_t i = 0; i < n; i++) {
                m = x[i] > m ? x[i] : m;
                sum += x[i];
            }
            assert_true(t->max_f32(x, n) == m);
            assert_true(fabs(t->sum_f32(x, n) - sum) <= 1e-9 * (1 + fabs(sum)));
        }
        float m = -INFINITY;
        double sum = 0.0;
        for (size_t i = 0; i < 10007; i++) {
            m = x[i] > m ? x[i] : m;
            sum += x[i];
        }
        assert_true(t->max_f32(x, 10007) == m);
        assert_true(fabs(t->sum_f32(x, 10007) - sum) <= 1e-9 * (1 + fabs(sum)));
        float keep = x[5000];
        x[5000] = NAN;
        assert_true(isnan(t->max_f32(x, 10007)));
        assert_true(isnan(t->sum_f32(x, 10007)));
        x[5000] = INFINITY;
        assert_true(isinf(t->max_f32(x, 10007)));
        x[5000] = keep;
        /* Deterministic: same bits on repeated calls. */
        assert_true(t->sum_f32(x, 10007) == t->sum_f32(x, 10007));
    }
}

static void test_tiers(void **state)
{
    (void)state;
    assert_non_null(cannonOpsKernelTable(0));
    for (int isa = 0; isa < CANNON_ISA_COUNT; isa++) {
        const cannon_kernel_table *t = cannonOpsKernelTable(isa);
        print_message("tier %-6s: %s\n", isa_names[isa], t ? "available" : "not supported by this CPU");
        if (t)
            assert_int_equal(t->isa, isa);
    }
    assert_null(cannonOpsKernelTable(CANNON_ISA_COUNT));
    assert_null(cannonOpsKernelTable(-1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiers),        cmocka_unit_test(test_conversions),
        cmocka_unit_test(test_reductions),   cmocka_unit_test(test_exp), cmocka_unit_test(test_exp_small),
        cmocka_unit_test(test_exp_sum_f64),
        cmocka_unit_test(test_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
