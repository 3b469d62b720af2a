/*
 * bench_exp16: what the exponential of the 16-bit softmax fast path costs on this core, in five
 * formulations, next to the core's own rate of 512-bit vector operations.
 *
 * The one-thread 16-bit softmax kernels are bound by their arithmetic, most of which is the
 * exponential (docs/softmax-kernels.md). This probe answers two
 * questions on the machine at hand, with no runtime and no operator in the way:
 *   1. How many 512-bit operations a cycle does one core issue, for multiply-adds alone, adds
 *      alone, an even mix of the two, and the other operations the formulations use
 *      (vrndscaleps, vreduceps, vscalefps, vpermt2d)? Printed in ns per operation and relative
 *      to the multiply-add (1.00: as cheap as a multiply-add; 2.00: takes two of its slots).
 *   2. What each formulation of 2^u costs in the fast path's exp pass (load 32 bf16 in the pair
 *      layout, two exponentials, two fp32 stores, two sums; 16 KiB in L1), and its worst
 *      relative error over the fast path's range (x - max in [-64, 0]) against double exp:
 *        poly3_scalef  round, f = u - n, degree-3 polynomial, vscalefps (the fast path's form)
 *        reduce_scalef f = vreduceps(u) in [0, 1), degree-3 polynomial on [0, 1), vscalefps by
 *                      floor(u) (one operation fewer)
 *        shifter       u + 1.5*2^23 rounds u, 2^n added to the exponent bits as an integer (the
 *                      AVX2 tier's form)
 *        table32       2^(j/32) from a 32-entry table (two vpermt2d, the exponent added as an
 *                      integer) times a linear correction (the fewest multiply-adds: 3)
 *        table32m      the same with one table, the correction's slope a multiply of the
 *                      looked-up value
 *   bench_exp16 [--ns N]      (one thread; AVX-512 with BF16 only, else it says so and exits 0)
 * Times are thread CPU time, minimum of N samples (default 7) of about 0.05 s.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h" /* bench_cmp */

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define T512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512bf16,fma"), noinline))
#define I512 static inline __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512bf16,fma"), always_inline))

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static volatile float g_sink;
#define LOG2E 0x1.715476p+0f
#define SHIFTER 0x1.8p23f

/* ---- 1. operation rates: 12 independent chains of one operation each ---- */
enum { OP_FMA, OP_ADD, OP_MIX, OP_RND, OP_RED, OP_SCF, OP_PERM2, OP_N };
static const char *const op_name[OP_N] = {"vfmadd (x12)", "vaddps (x12)", "12 vfmadd + 12 vaddps", "vrndscaleps",
                                          "vreduceps", "vscalefps", "vpermt2d"};

/* One loop per operation (OP: the update of chain a[k]), so that nothing but the operation runs. */
#define OPS_LOOP(NAME, OP)                                                                      \
    T512 static void NAME(long it)                                                              \
    {                                                                                           \
        __m512 a[12];                                                                           \
        _Pragma("GCC unroll 12") for (int k = 0; k < 12; k++) a[k] = _mm512_set1_ps(1.0f + 0.01f * (float)k); \
        const __m512 b = _mm512_set1_ps(0.999f), c = _mm512_set1_ps(0.001f);                    \
        const __m512i ti = _mm512_set1_epi32(5);                                                \
        (void)b;                                                                                \
        (void)c;                                                                                \
        (void)ti;                                                                               \
        for (long r = 0; r < it; r++) {                                                         \
            _Pragma("GCC unroll 12") for (int k = 0; k < 12; k++) a[k] = OP;                    \
        }                                                                                       \
        __m512 s = a[0];                                                                        \
        _Pragma("GCC unroll 12") for (int k = 1; k < 12; k++) s = _mm512_add_ps(s, a[k]);       \
        g_sink = _mm512_reduce_add_ps(s);                                                       \
    }
OPS_LOOP(ops_fma, _mm512_fmadd_ps(a[k], b, c))
OPS_LOOP(ops_add, _mm512_add_ps(a[k], c))
/* The mix: 12 multiply-add chains and 12 add chains (each chain long enough apart that latency
 * does not bound it); counted per operation. */
T512 static void ops_mix(long it)
{
    __m512 a[12], d[12];
    _Pragma("GCC unroll 12") for (int k = 0; k < 12; k++) {
        a[k] = _mm512_set1_ps(1.0f + 0.01f * (float)k);
        d[k] = _mm512_set1_ps(2.0f + 0.01f * (float)k);
    }
    const __m512 b = _mm512_set1_ps(0.999f), c = _mm512_set1_ps(0.001f);
    for (long r = 0; r < it / 2; r++) {
        _Pragma("GCC unroll 12") for (int k = 0; k < 12; k++) {
            a[k] = _mm512_fmadd_ps(a[k], b, c);
            d[k] = _mm512_add_ps(d[k], c);
        }
    }
    __m512 s = a[0];
    _Pragma("GCC unroll 12") for (int k = 1; k < 12; k++) s = _mm512_add_ps(s, _mm512_add_ps(a[k], d[k]));
    g_sink = _mm512_reduce_add_ps(_mm512_add_ps(s, d[0]));
}
OPS_LOOP(ops_rnd, _mm512_roundscale_ps(a[k], _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC))
OPS_LOOP(ops_red, _mm512_reduce_ps(a[k], _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC))
OPS_LOOP(ops_scf, _mm512_scalef_ps(a[k], c))
OPS_LOOP(ops_perm2, _mm512_castsi512_ps(_mm512_permutex2var_epi32(_mm512_castps_si512(a[k]), ti, _mm512_castps_si512(b))))
static void (*const ops_fn[OP_N])(long) = {ops_fma, ops_add, ops_mix, ops_rnd, ops_red, ops_scf, ops_perm2};

/* ---- 2. the formulations: 2^u for the fast path's u = x log2(e) - m log2(e) ---- */
/* 2^f on |f| <= 1/2 (poly3_scalef, shifter) and on [0, 1) (reduce_scalef), degree 3, fitted
 * (weighted least squares towards minimax relative error): 7.5e-5 each. */
#define P3_C0 0x1.fff692p-1f
#define P3_C1 0x1.62f31ap-1f
#define P3_C2 0x1.f0de1cp-3f
#define P3_C3 0x1.c3f74ap-5f
#define R3_C0 0x1.fff63p-1f
#define R3_C1 0x1.64445ap-1f
#define R3_C2 0x1.cefc4p-3f
#define R3_C3 0x1.3f961ep-4f
/* e^g ~ A + B g on |g| <= ln2/64, minimax relative error 2.9e-5. */
#define T32_A 1.0000293749999256
#define T32_B 0.9999996417336428

typedef struct tbl32 {
    __m512i a0, a1, b0, b1;
} tbl32;

I512 __m512 exp_poly3_scalef(__m512 x, __m512 c, const tbl32 *t)
{
    (void)t;
    const __m512 u = _mm512_fmadd_ps(x, _mm512_set1_ps(LOG2E), c);
    const __m512 n = _mm512_roundscale_ps(u, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m512 f = _mm512_sub_ps(u, n);
    __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(P3_C3), f, _mm512_set1_ps(P3_C2));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(P3_C1));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(P3_C0));
    return _mm512_scalef_ps(p, n);
}

I512 __m512 exp_reduce_scalef(__m512 x, __m512 c, const tbl32 *t)
{
    (void)t;
    const __m512 u = _mm512_fmadd_ps(x, _mm512_set1_ps(LOG2E), c);
    const __m512 f = _mm512_reduce_ps(u, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(R3_C3), f, _mm512_set1_ps(R3_C2));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(R3_C1));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(R3_C0));
    return _mm512_scalef_ps(p, u); /* vscalefps scales by 2^floor(u) */
}

I512 __m512 exp_shifter(__m512 x, __m512 c, const tbl32 *t)
{
    (void)t;
    const __m512 sh = _mm512_set1_ps(SHIFTER);
    const __m512 u = _mm512_fmadd_ps(x, _mm512_set1_ps(LOG2E), c);
    const __m512 tt = _mm512_add_ps(u, sh);
    const __m512 f = _mm512_sub_ps(u, _mm512_sub_ps(tt, sh));
    __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(P3_C3), f, _mm512_set1_ps(P3_C2));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(P3_C1));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(P3_C0));
    return _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(p), _mm512_slli_epi32(_mm512_castps_si512(tt), 23)));
}

/* c here is the shifter minus an integer M ~ 32 m log2(e): 2^((32 x log2(e) - M) / 32), which is
 * exp(x - m) times a per-row constant (it cancels in softmax; log-softmax would correct log s). */
I512 __m512 exp_table32(__m512 x, __m512 c, const tbl32 *t)
{
    const __m512 l32 = _mm512_set1_ps(32.0f * LOG2E);
    const __m512 tt = _mm512_fmadd_ps(x, l32, c);
    const __m512 f = _mm512_fmadd_ps(x, l32, _mm512_sub_ps(c, tt));
    const __m512i ti = _mm512_castps_si512(tt), e = _mm512_slli_epi32(ti, 18);
    const __m512 a = _mm512_castsi512_ps(_mm512_add_epi32(_mm512_permutex2var_epi32(t->a0, ti, t->a1), e));
    const __m512 b = _mm512_castsi512_ps(_mm512_add_epi32(_mm512_permutex2var_epi32(t->b0, ti, t->b1), e));
    return _mm512_fmadd_ps(b, f, a);
}

/* table32 with one lookup: the slope is the looked-up value times B/A (a multiply instead of a
 * second vpermt2d). */
I512 __m512 exp_table32m(__m512 x, __m512 c, const tbl32 *t)
{
    const __m512 l32 = _mm512_set1_ps(32.0f * LOG2E);
    const __m512 tt = _mm512_fmadd_ps(x, l32, c);
    const __m512 f = _mm512_fmadd_ps(x, l32, _mm512_sub_ps(c, tt));
    const __m512i ti = _mm512_castps_si512(tt);
    const __m512 a = _mm512_castsi512_ps(_mm512_add_epi32(_mm512_permutex2var_epi32(t->a0, ti, t->a1), _mm512_slli_epi32(ti, 18)));
    return _mm512_fmadd_ps(_mm512_mul_ps(a, _mm512_set1_ps((float)(T32_B / T32_A * 0.6931471805599453 / 32))), f, a);
}

T512 static void table32_init(tbl32 *t)
{
    uint32_t a[32], b[32];
    for (int j = 0; j < 32; j++) {
        const float fa = (float)(T32_A * exp2(j / 32.0)), fb = (float)(T32_B * log(2.0) / 32 * exp2(j / 32.0));
        memcpy(&a[j], &fa, 4);
        memcpy(&b[j], &fb, 4);
        a[j] -= (uint32_t)j << 18; /* the table index bits, which the exponent add brings back */
        b[j] -= (uint32_t)j << 18;
    }
    t->a0 = _mm512_loadu_si512(a);
    t->a1 = _mm512_loadu_si512(a + 16);
    t->b0 = _mm512_loadu_si512(b);
    t->b1 = _mm512_loadu_si512(b + 16);
}

/* The row constant c for a row maximum m: -m log2(e), or for the table forms (int_m) the shifter
 * minus the integer M nearest 32 m log2(e). */
static float row_const(int int_m, float m)
{
    return int_m ? SHIFTER - nearbyintf(m * (32.0f * LOG2E)) : -(m * LOG2E);
}

/* For each formulation EXPF: NAME, the exp pass over n bf16 elements in the pair layout (as the
 * fast path: load 32, shift / mask into two fp32 vectors, two exponentials, two stores, two
 * sums), which is timed, and NAME_one, one vector of it, for the accuracy check. */
#define EXP_PASS(NAME, EXPF)                                                                    \
    T512 static float NAME(const uint16_t *x, float *e, long n, float cs, long it, const tbl32 *t) \
    {                                                                                           \
        const __m512 c = _mm512_set1_ps(cs);                                                    \
        const __m512i hi = _mm512_set1_epi32((int)0xffff0000u);                                 \
        __m512 s0 = _mm512_setzero_ps(), s1 = s0;                                               \
        for (long r = 0; r < it; r++)                                                           \
            for (long i = 0; i < n; i += 32) {                                                  \
                const __m512i v = _mm512_loadu_si512(x + i);                                    \
                const __m512 ev = EXPF(_mm512_castsi512_ps(_mm512_slli_epi32(v, 16)), c, t);    \
                const __m512 od = EXPF(_mm512_castsi512_ps(_mm512_and_si512(v, hi)), c, t);     \
                _mm512_store_ps(e + i, ev);                                                     \
                _mm512_store_ps(e + i + 16, od);                                                \
                s0 = _mm512_add_ps(s0, ev);                                                     \
                s1 = _mm512_add_ps(s1, od);                                                     \
            }                                                                                   \
        return _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));                                     \
    }                                                                                           \
    T512 static __m512 NAME##_one(__m512 x, __m512 c, const tbl32 *t) { return EXPF(x, c, t); }
EXP_PASS(pass_poly3, exp_poly3_scalef)
EXP_PASS(pass_reduce, exp_reduce_scalef)
EXP_PASS(pass_shifter, exp_shifter)
EXP_PASS(pass_table32, exp_table32)
EXP_PASS(pass_table32m, exp_table32m)

typedef struct form {
    const char *name;
    float (*pass)(const uint16_t *, float *, long, float, long, const tbl32 *);
    __m512 (*one)(__m512, __m512, const tbl32 *);
    int int_m; /* row constant from an integer M (see row_const) */
} form;
static const form forms[] = {
    {"poly3_scalef", pass_poly3, pass_poly3_one, 0},       {"reduce_scalef", pass_reduce, pass_reduce_one, 0},
    {"shifter", pass_shifter, pass_shifter_one, 0},        {"table32", pass_table32, pass_table32_one, 1},
    {"table32m", pass_table32m, pass_table32m_one, 1},
};

/* Worst relative error of formulation f against exp(x - m) over x - m in [-64, 0] (the row
 * constant of the table forms, 2^((32 m log2(e) - M) / 32), divided out). */
T512 static double max_rel_err(const form *f, const tbl32 *t)
{
    const float m = 3.75f;
    const __m512 c = _mm512_set1_ps(row_const(f->int_m, m));
    const double ml = (double)m * (double)(32.0f * LOG2E), k = f->int_m ? exp2((ml - nearbyint(ml)) / 32.0) : 1.0;
    double worst = 0.0;
    for (int i = 0; i <= 640000; i += 16) {
        float xs[16], ys[16];
        for (int j = 0; j < 16; j++)
            xs[j] = m - 64.0f * (float)(i + j) / 640000.0f;
        _mm512_storeu_ps(ys, f->one(_mm512_loadu_ps(xs), c, t));
        for (int j = 0; j < 16 && i + j <= 640000; j++) {
            const double ex = exp((double)xs[j] - (double)m) * k, er = fabs((double)ys[j] / ex - 1.0);
            worst = er > worst ? er : worst;
        }
    }
    return worst;
}

int main(int argc, char **argv)
{
    int ns = 7;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--ns") && i + 1 < argc)
            ns = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_exp16 [--ns N]\n");
            return 2;
        }
    }
    if (ns < 1)
        ns = 1;
    if (ns > 64)
        ns = 64;
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw") ||
        !__builtin_cpu_supports("avx512dq") || !__builtin_cpu_supports("avx512bf16")) {
        printf("bench_exp16: this CPU has no AVX-512 with BF16; nothing to measure\n");
        return 0;
    }
    double t[64];
    /* 1. operation rates */
    const long it_ops = 2000000;
    double fma_ns = 0.0;
    printf("512-bit operations, one thread, 12 independent chains (ns per operation; x FMA: cost in multiply-add slots)\n");
    for (int op = 0; op < OP_N; op++) {
        for (int s = 0; s < ns; s++) {
            const double t0 = cpu_s();
            ops_fn[op](it_ops);
            t[s] = (cpu_s() - t0) / ((double)it_ops * 12.0) * 1e9;
        }
        qsort(t, (size_t)ns, sizeof(double), bench_cmp);
        if (op == OP_FMA)
            fma_ns = t[0];
        printf("  %-22s %.4f ns  x FMA %.2f\n", op_name[op], t[0], t[0] / fma_ns);
    }
    /* 2. formulations in the exp pass */
    enum { N = 4096 };
    static uint16_t x[N] __attribute__((aligned(64)));
    static float e[N] __attribute__((aligned(64)));
    for (int i = 0; i < N; i++) {
        const float v = -4.0f + 8.0f * (float)((uint32_t)i * 2654435761u >> 8) / 16777216.0f;
        uint32_t u;
        memcpy(&u, &v, 4);
        x[i] = (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
    }
    tbl32 tb;
    table32_init(&tb);
    const long it = 3000;
    printf("exp pass of the 16-bit fast path in L1 (16 KiB), ns per element, and worst relative error on x - max in [-64, 0]\n");
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        const float c = row_const(forms[f].int_m, 4.0f);
        for (int s = 0; s < ns; s++) {
            const double t0 = cpu_s();
            g_sink = forms[f].pass(x, e, N, c, it, &tb);
            t[s] = (cpu_s() - t0) / ((double)it * N) * 1e9;
        }
        qsort(t, (size_t)ns, sizeof(double), bench_cmp);
        printf("  %-14s %.4f ns/el  = %.2f FMA slots per 16 elements   max rel err %.2e\n", forms[f].name, t[0],
               t[0] * 16.0 / fma_ns, max_rel_err(&forms[f], &tb));
    }
    return 0;
}
#else
int main(void)
{
    printf("bench_exp16: x86-64 with GCC or clang only\n");
    return 0;
}
#endif
