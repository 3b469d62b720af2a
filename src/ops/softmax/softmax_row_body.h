/*
 * The softmax-family kernels' row path for one storage type (part of softmax_body.h, which
 * defines the type's macros first): a row's max and min, the sums of exponentials (the fast
 * path's and the exact fp64 one), the write passes, and FN(fwd_row), which takes one row through
 * them.
 */
#if SM_IS_F32
/* Largest and smallest element of a row (NaNs may be dropped from either; the sum of
 * exponentials brings them back). The max alone decides the result; the min only picks the path
 * (see FN(fwd_row)). */
/* FN(row_minmax)'s accumulators: four vectors each of maxima @p m and minima @p l. */
VI void FN(minmax_init)(vf m[4], vf l[4])
{
    for (int k = 0; k < 4; k++) {
        m[k] = vf_set1(-__builtin_inff());
        l[k] = vf_set1(__builtin_inff());
    }
}

/* One 4-vector step of FN(row_minmax) (shared with FN(fwd_pipe32), whose rows must get the same
 * max and min); the four vectors also go to @p w unless it is NULL. */
VI void FN(minmax_step4)(const SM_CT *x, vf m[4], vf l[4], SM_CT *w)
{
    for (int k = 0; k < 4; k++) {
        const vf v = LD(x + k * VW);
        if (w)
            vf_store_f32(w + k * VW, v);
        m[k] = vf_max(m[k], v);
        l[k] = vf_min(l[k], v);
    }
}

/* The row's max (returned) and min (*lo) from FN(row_minmax)'s accumulators. */
static inline float FN(minmax_fold)(const vf m[4], const vf l[4], float *lo)
{
    *lo = -vf_hmax(vf_sub(vf_set1(0.0f), vf_min(vf_min(l[0], l[1]), vf_min(l[2], l[3]))));
    return vf_hmax(vf_max(vf_max(m[0], m[1]), vf_max(m[2], m[3])));
}

static float FN(row_minmax)(const SM_CT *x, int64_t n, float *lo)
{
    vf m[4], l[4];
    FN(minmax_init)(m, l);
    int64_t i = 0;
    for (; i + 4 * VW <= n; i += 4 * VW)
        FN(minmax_step4)(x + i, m, l, NULL);
    for (; i + VW <= n; i += VW) {
        vf v0 = LD(x + i);
        m[0] = vf_max(m[0], v0);
        l[0] = vf_min(l[0], v0);
    }
    if (i < n) {
        m[1] = vf_max(m[1], LDN(x + i, (size_t)(n - i), -__builtin_inff()));
        l[1] = vf_min(l[1], LDN(x + i, (size_t)(n - i), __builtin_inff()));
    }
    return FN(minmax_fold)(m, l, lo);
}

#endif

/* Largest element of a row (NaNs may be dropped; the sum of exponentials brings them back). */
static float FN(row_max)(const SM_CT *x, int64_t n)
{
    vf m0 = vf_set1(-__builtin_inff()), m1 = m0, m2 = m0, m3 = m0;
    int64_t i = 0;
    for (; i + 4 * VW <= n; i += 4 * VW) {
        m0 = vf_max(m0, LD(x + i));
        m1 = vf_max(m1, LD(x + i + VW));
        m2 = vf_max(m2, LD(x + i + 2 * VW));
        m3 = vf_max(m3, LD(x + i + 3 * VW));
    }
    for (; i + VW <= n; i += VW)
        m0 = vf_max(m0, LD(x + i));
    if (i < n)
        m1 = vf_max(m1, LDN(x + i, (size_t)(n - i), -__builtin_inff()));
    return vf_hmax(vf_max(vf_max(m0, m1), vf_max(m2, m3)));
}

#if SM_IS_F32
/* Which fast path a row may take (see FN(fwd_row)): 1 when its spread max - min is at most
 * SM_FAST_RANGE (FN(row_sumexp_fast)), 2 when it is at most SM_WIDE_RANGE and |max| at most
 * SM_WIDE_MAX_ABS (FN(row_sumexp_wide), AVX-512 only), else 0 (NaN or infinite max/min give 0).
 * Sets *m to the row max either way. */
static inline int FN(fast_kind)(float m, float lo)
{
    const float d = m - lo;
    if (d <= SM_FAST_RANGE)
        return 1;
#ifdef SM_EXP_WIDE
    if (d <= SM_WIDE_RANGE && m <= SM_WIDE_MAX_ABS && m >= -SM_WIDE_MAX_ABS)
        return 2;
#endif
    return 0;
}

static inline int FN(fast_class)(const SM_CT *x, int64_t n, float *m)
{
    float lo;
    *m = FN(row_minmax)(x, n, &lo);
    return FN(fast_kind)(*m, lo);
}

/* The fast path's test (see FN(fwd_row)): the row's spread max - min is at most SM_FAST_RANGE
 * (NaN or infinite max/min fail it). Sets *m to the row max either way. */
static inline int FN(fast_test)(const SM_CT *x, int64_t n, float *m)
{
    return FN(fast_class)(x, n, m) == 1;
}

/* The fast path's sum of exp(x - m): every x - m lies in [-SM_FAST_RANGE, 0], so exp needs no
 * clamps and no TwoSum. Eight vectors are added in fp32 (a fixed tree of depth 3; relative
 * error <= 3 * 2^-24) before each fp64 accumulation, which costs 5 ops per vector otherwise
 * (a tree of eight saves more fp64 additions than one of four). Keeps the fp32
 * exponentials in @p e unless it is NULL (log_softmax, and softmax rows whose write pass
 * computes them again, FN(write_soft_x)). @p kind: SM_KIND_* (a constant in each caller). */
/* One 8-vector step of the fast sum at x + i: the exponentials (SM_EXP_ROW: vm, kind and the
 * exp's tables in scope) into e + i unless e is NULL, added in fp32 by a fixed tree of depth 3,
 * then once into the fp64 accumulator a0. Shared with FN(fwd_pipe32), whose rows must get the
 * same sums. */
#define SM_SUMEXP_STEP8(x, i, e, a0)                                                                                  \
    do {                                                                                                              \
        vf e_[8];                                                                                                     \
        for (int k_ = 0; k_ < 8; k_++)                                                                                \
            e_[k_] = SM_EXP_ROW(LD((x) + (i) + k_ * VW));                                                             \
        if (e)                                                                                                        \
            for (int k_ = 0; k_ < 8; k_++)                                                                            \
                vf_store_f32((e) + (i) + k_ * VW, e_[k_]);                                                            \
        (a0) = vd_add((a0), vf_add(vf_add(vf_add(e_[0], e_[1]), vf_add(e_[2], e_[3])),                                \
                                   vf_add(vf_add(e_[4], e_[5]), vf_add(e_[6], e_[7]))));                              \
    } while (0)
static inline __attribute__((always_inline)) double FN(row_sumexp_body)(const SM_CT *x, int64_t n, float m, float *e,
                                                                       const char *pf, int kind)
{
    const vf vm = vf_set1(m);
    SM_EXP_FAST_SETUP;
    SM_EXP_WIDE_SETUP(m);
    vd a0 = vd_zero();
    int64_t i = 0;
    for (; i + 8 * VW <= n; i += 8 * VW) {
        /* Read-ahead (see FN(units)): the lines of the next row (@p pf) that correspond to this
         * iteration's input, scaled by SM_PF_EXP_K / 4 (the write pass prefetches the rest). */
        if (pf)
            for (size_t l = 0; l < (8 * VW * sizeof(SM_CT) * SM_PF_EXP_K / 4); l += 64)
                __builtin_prefetch(pf + ((size_t)i * sizeof(SM_CT) * SM_PF_EXP_K / 4) + l, 0, 2);
        SM_SUMEXP_STEP8(x, i, e, a0);
    }
    for (; i + 4 * VW <= n; i += 4 * VW) {
        if (pf)
            for (size_t l = 0; l < (4 * VW * sizeof(SM_CT) * SM_PF_EXP_K / 4); l += 64)
                __builtin_prefetch(pf + ((size_t)i * sizeof(SM_CT) * SM_PF_EXP_K / 4) + l, 0, 2);
        vf e0 = SM_EXP_ROW(LD(x + i)), e1 = SM_EXP_ROW(LD(x + i + VW));
        vf e2 = SM_EXP_ROW(LD(x + i + 2 * VW)), e3 = SM_EXP_ROW(LD(x + i + 3 * VW));
        if (e) {
            vf_store_f32(e + i, e0);
            vf_store_f32(e + i + VW, e1);
            vf_store_f32(e + i + 2 * VW, e2);
            vf_store_f32(e + i + 3 * VW, e3);
        }
        a0 = vd_add(a0, vf_add(vf_add(e0, e1), vf_add(e2, e3)));
    }
    for (; i < n; i += VW) {
        size_t k = (size_t)(n - i) < VW ? (size_t)(n - i) : VW;
        vf e0 = SM_EXP_ROW(LDN(x + i, k, m));
        if (k < VW)
            e0 = vf_keep(e0, k);
        if (e)
            vf_storen_f32(e + i, e0, k);
        a0 = vd_add(a0, e0);
    }
    return vd_hsum(a0);
}

/* FN(row_sumexp_body) for a kind known only at run time: one compiled loop per kind (a kind
 * tested per vector inside one loop costs a branch per vector and keeps every kind's tables). */
static double FN(row_sumexp_kind)(const SM_CT *x, int64_t n, float m, float *e, const char *pf, int kind)
{
    switch (kind) {
#ifdef SM_EXP_WIDE
    case SM_KIND_WIDE:
        return FN(row_sumexp_body)(x, n, m, e, pf, SM_KIND_WIDE);
#endif
    default:
        return FN(row_sumexp_body)(x, n, m, e, pf, SM_KIND_NARROW);
    }
}

static double FN(row_sumexp_fast)(const SM_CT *x, int64_t n, float m, float *e, const char *pf, int perm)
{
    (void)perm;
    return FN(row_sumexp_body)(x, n, m, e, pf, SM_KIND_NARROW);
}

#else
/* 16-bit version of the test: max and min found on the integer keys of the bit patterns (one
 * 512-bit op covers 32 elements, no widening), and |max| bounded for sm16_arg's error. The test
 * from the largest and smallest key (shared with FN(fwd_pipe)'s FN(fast_test_keys)): */
static inline int FN(fast_test_hilo)(int16_t hi, int16_t lo, float *m)
{
    const float fh = sm16_key_value(hi, SM_IS_BF16), fl = sm16_key_value(lo, SM_IS_BF16);
    *m = fh;
    return fh - fl <= SM_FAST_RANGE && fh <= SM16_MAX_ABS_MAX && fh >= -SM16_MAX_ABS_MAX;
}

static inline int FN(fast_test)(const SM_CT *x, int64_t n, float *m)
{
    int16_t hi, lo;
    sm16_minmax_keys(x, n, &hi, &lo);
    return FN(fast_test_hilo)(hi, lo, m);
}

/* 16-bit version of the fast sum: exp(x - m) as 2^u with sm16_arg/sm16_exp2 (relative error
 * below 1.3e-4 all told, under a quarter of an fp16 ulp), summed in four fp32 accumulators
 * (at most n/(4 VW) additions per lane: relative error below 2^-24 n/(4 VW) <= 3.1e-5).
 * The exponentials go to the fp32 scratch for softmax rows of up to SM_SCRATCH_MAX elements
 * (unlike fp32, no 16-bit row computes them again: see SM_RECOMPUTE_MIN_BYTES). A
 * prefetch-for-write of the output row during this pass did not help (512x32000, 1 and 2 threads,
 * within the noise). */
/* The steps of the 16-bit fast sum, shared with the batch kernel (softmax_group.h), whose rows
 * must get the same bits: the exponentials of x[i, i + 4 VW) (pair layout when @p perm) into the
 * four accumulators @p a, and into @p e unless NULL. */
VI void FN(sum16_step4)(const SM_CT *x, int64_t i, vf vm, vf c, float *e, int perm, vf a[4])
{
    vf x0, x1, x2, x3;
    (void)perm;
#if SM_PAIRS
    if (perm) {
        sm_bf16_load2(x + i, &x0, &x1);
        sm_bf16_load2(x + i + 2 * VW, &x2, &x3);
    } else
#endif
    {
        x0 = LD(x + i);
        x1 = LD(x + i + VW);
        x2 = LD(x + i + 2 * VW);
        x3 = LD(x + i + 3 * VW);
    }
    vf e0 = sm16_exp2(sm16_arg(x0, vm, c)), e1 = sm16_exp2(sm16_arg(x1, vm, c));
    vf e2 = sm16_exp2(sm16_arg(x2, vm, c)), e3 = sm16_exp2(sm16_arg(x3, vm, c));
    if (e) {
        vf_store_f32(e + i, e0);
        vf_store_f32(e + i + VW, e1);
        vf_store_f32(e + i + 2 * VW, e2);
        vf_store_f32(e + i + 3 * VW, e3);
    }
    a[0] = vf_add(a[0], e0);
    a[1] = vf_add(a[1], e1);
    a[2] = vf_add(a[2], e2);
    a[3] = vf_add(a[3], e3);
}

/* The rest of the row from @p i, a vector at a time, into a[0]. */
VI void FN(sum16_tail)(const SM_CT *x, int64_t i, int64_t n, float m, vf vm, vf c, float *e, vf a[4])
{
    for (; i < n; i += VW) {
        const size_t k = (size_t)(n - i) < VW ? (size_t)(n - i) : VW;
        vf e0 = sm16_exp2(sm16_arg(LDN(x + i, k, m), vm, c));
        if (k < VW)
            e0 = vf_keep(e0, k);
        if (e)
            vf_storen_f32(e + i, e0, k);
        a[0] = vf_add(a[0], e0);
    }
}

static double FN(row_sumexp_fast)(const SM_CT *x, int64_t n, float m, float *e, const char *pf, int perm)
{
    const vf vm = vf_set1(m), c = vf_set1(-(m * CANNON_LOG2E));
    vf a[4] = {vf_set1(0.0f), vf_set1(0.0f), vf_set1(0.0f), vf_set1(0.0f)};
    int64_t i = 0;
    for (; i + 4 * VW <= n; i += 4 * VW) {
        if (pf)
            for (size_t l = 0; l < (4 * VW * sizeof(SM_CT) * SM_PF_EXP_K / 4); l += 64)
                __builtin_prefetch(pf + ((size_t)i * sizeof(SM_CT) * SM_PF_EXP_K / 4) + l, 0, 2);
        FN(sum16_step4)(x, i, vm, c, e, perm, a);
    }
    FN(sum16_tail)(x, i, n, m, vm, c, e, a);
    return sm_hsum(vf_add(vf_add(a[0], a[1]), vf_add(a[2], a[3])));
}
#endif

/* Sum of exp(x - m) over a row in fp64; optionally keeps the fp32 exponentials in @p e. */
static double FN(row_sumexp)(const SM_CT *x, int64_t n, float m, float *e)
{
    const vf vm = vf_set1(m);
    vd a0 = vd_zero(), a1 = vd_zero();
    int64_t i = 0;
    for (; i + 2 * VW <= n; i += 2 * VW) {
        vf e0 = SM_EXP_DIFF(LD(x + i), vm);
        vf e1 = SM_EXP_DIFF(LD(x + i + VW), vm);
        if (e) {
            vf_store_f32(e + i, e0);
            vf_store_f32(e + i + VW, e1);
        }
        a0 = vd_add(a0, e0);
        a1 = vd_add(a1, e1);
    }
    for (; i < n; i += VW) {
        size_t k = (size_t)(n - i) < VW ? (size_t)(n - i) : VW;
        vf e0 = SM_EXP_DIFF(LDN(x + i, k, -__builtin_inff()), vm);
        if (k < VW) /* -inf - m is NaN when m is -inf; keep padding lanes out of the sum */
            e0 = vf_keep(e0, k);
        if (e)
            vf_storen_f32(e + i, e0, k);
        a0 = vd_add(a0, e0);
    }
    return vd_hsum(a0) + vd_hsum(a1);
}

/* log s for a row whose sum s = sum of exp(x - m) is below 2 (the log-softmax outputs near 0),
 * with m the row max, finite. There s is 1 (the max's own term) plus a small rest t, and log s
 * is about t: a sum s rounded in fp64 keeps t to an absolute 2^-53 only, so a rest of 1e-13 would
 * come out with a relative error of 1e-3 and more (every term below half an ulp of 1 is lost to
 * the running sum). So the terms of x == m
 * (each exactly 1) are counted apart, c of them, the others summed in fp64, and
 * log s = log1p((c - 1) + t): t to fp64 precision, then libm's log1p. The exponentials are
 * FN(row_sumexp)'s. A NaN in the row makes it NaN, as log s would. */
/* One vector of FN(row_log_near1)'s sums (also the column path's): exp(v - m) into *t where
 * v != m, 1 into *c where v == m. */
VI void FN(near1_step)(vf v, vf vm, vd *t, vd *c)
{
    const vf one = vf_set1(1.0f);
    *t = vd_add(*t, vf_zero_eq(SM_EXP_DIFF(v, vm), v, vm));
    *c = vd_add(*c, vf_sub(one, vf_zero_eq(one, v, vm)));
}

static double FN(row_log_near1)(const SM_CT *x, int64_t n, float m)
{
    const vf vm = vf_set1(m);
    vd t0 = vd_zero(), t1 = vd_zero(), c = vd_zero();
    int64_t i = 0;
    for (; i + 2 * VW <= n; i += 2 * VW) {
        FN(near1_step)(LD(x + i), vm, &t0, &c);
        FN(near1_step)(LD(x + i + VW), vm, &t1, &c);
    }
    /* Padding lanes read -inf: exp(-inf - m) = 0 and -inf != m. */
    for (; i < n; i += VW)
        FN(near1_step)(LDN(x + i, (size_t)(n - i) < VW ? (size_t)(n - i) : VW, -__builtin_inff()), vm, &t0, &c);
    return log1p((vd_hsum(c) - 1.0) + (vd_hsum(t0) + vd_hsum(t1)));
}

/* Write a row element by element from f(i) = vector i of the result: head up to a 64-byte
 * boundary with plain stores, the body with streaming stores when asked, the tail plain. */
#define SM_WRITE_ROW_WITH(y, n, nt, STF, STNTF, VEXPR_FULL, VEXPR_PART)                          \
    do {                                                                                       \
        int64_t i_ = 0;                                                                        \
        if (nt) {                                                                              \
            int64_t head_ = (int64_t)(((64u - ((uintptr_t)(y) & 63u)) & 63u) / sizeof(SM_CT)); \
            if (((uintptr_t)(y) % sizeof(SM_CT)) != 0)                                         \
                head_ = n;                                                                     \
            while (i_ < head_ && i_ < n) {                                                     \
                size_t k_ = (size_t)((head_ < n ? head_ : n) - i_);                            \
                if (k_ > VW)                                                                   \
                    k_ = VW;                                                                   \
                const int64_t i = i_;                                                          \
                const size_t k = k_;                                                           \
                STN((y) + i, VEXPR_PART, k);                                                   \
                i_ += (int64_t)k_;                                                             \
            }                                                                                  \
            for (; i_ + VW <= n; i_ += VW) {                                                   \
                const int64_t i = i_;                                                          \
                STNTF((y) + i, VEXPR_FULL);                                                    \
            }                                                                                  \
        } else {                                                                               \
            for (; i_ + VW <= n; i_ += VW) {                                                   \
                const int64_t i = i_;                                                          \
                STF((y) + i, VEXPR_FULL);                                                      \
            }                                                                                  \
        }                                                                                      \
        if (i_ < n) {                                                                          \
            const int64_t i = i_;                                                              \
            const size_t k = (size_t)(n - i_);                                                 \
            STN((y) + i, VEXPR_PART, k);                                                       \
        }                                                                                      \
    } while (0)
#define SM_WRITE_ROW(y, n, nt, VEXPR_FULL, VEXPR_PART) \
    SM_WRITE_ROW_WITH(y, n, nt, ST, STNT, VEXPR_FULL, VEXPR_PART)

/* SM_AVX2_BF16_2: on AVX2, bf16 outputs of the fast path (never NaN) go out two vectors a store
 * (vf_store2_bf16_nonan: vf_to_bf16's rounding without its NaN blend, one pack and permute for
 * 16 values; streamed by whole lines when the row starts on one): the same bits, fewer
 * instructions per element. */
/* The fast path's write passes. Softmax: the kept exponentials @p e times 1/s; no output is
 * subnormal (exp(x - m) >= e^-SM_FAST_RANGE and s <= n). The first n - n % (4 VW) of them are in
 * pair layout when @p perm (see FN(row_sumexp_fast)). */
static inline void FN(write_soft)(SM_CT *y, int64_t n, int nt, const float *e, float invf, int perm)
{
    const vf inv = vf_set1(invf);
    int64_t i0 = 0;
    (void)perm;
#if SM_PAIRS
    if (perm && nt && ((uintptr_t)y & 63u) == 0)
        for (const int64_t n4 = n - n % (4 * VW); i0 < n4; i0 += 2 * VW)
            sm_bf16_stream2_nosub(y + i0, vf_mul(vf_load_f32(e + i0), inv), vf_mul(vf_load_f32(e + i0 + VW), inv));
    else if (perm)
        for (const int64_t n4 = n - n % (4 * VW); i0 < n4; i0 += 2 * VW)
            sm_bf16_store2_nosub(y + i0, vf_mul(vf_load_f32(e + i0), inv), vf_mul(vf_load_f32(e + i0 + VW), inv));
#endif
#if SM_IS_BF16 && VW == 8
    /* AVX2: two vectors a store (SM_AVX2_BF16_2, above). */
    if (!nt)
        for (; i0 + 2 * VW <= n; i0 += 2 * VW)
            vf_store2_bf16_nonan(y + i0, vf_mul(vf_load_f32(e + i0), inv), vf_mul(vf_load_f32(e + i0 + VW), inv));
    else if (((uintptr_t)y & 63u) == 0)
        for (; i0 + 4 * VW <= n; i0 += 4 * VW) {
            vf_stream2_bf16_nonan(y + i0, vf_mul(vf_load_f32(e + i0), inv), vf_mul(vf_load_f32(e + i0 + VW), inv));
            vf_stream2_bf16_nonan(y + i0 + 2 * VW, vf_mul(vf_load_f32(e + i0 + 2 * VW), inv),
                                  vf_mul(vf_load_f32(e + i0 + 3 * VW), inv));
        }
#endif
    SM_CT *yt = y + i0;
    const float *et = e + i0;
    const int64_t nt_n = n - i0;
    SM_WRITE_ROW_WITH(yt, nt_n, nt, SM_ST_NOSUB, SM_STNT_NOSUB, vf_mul(vf_load_f32(et + i), inv),
                      vf_mul(vf_loadn_f32(et + i, k, 0.0f), inv));
}

/* Log-softmax: (x - m) - log s from x, which the sum pass has just brought into cache. x - m is
 * computed as fma(x, 1, -m) (the same rounding, hence the same bits) so that the two
 * subtractions split between the multiply-add and the add pipes (Zen 5 has two of each; the
 * 16-bit pass also converts on the add pipes).
 * Called for fast-path rows only (every tier, and the short-row code), whose outputs are never
 * subnormal: their sum s is at least 1 (sums below 2 are redone exactly), so l = log s is 0 or
 * at least log(1 + 2^-52) (fp32-normal), and |y| = |x - m| + l, with y = x - m only when l = 0,
 * i.e. when every other term of s fell below 2^-53 (x - m below -36) or x = m (y = 0). bf16 can
 * therefore store with vcvtne2ps2bf16 directly (it flushes subnormals; no exponent test is
 * needed). */
static inline void FN(write_log)(const SM_CT *x, SM_CT *y, int64_t n, int nt, float m, float l)
{
    const vf nm = vf_set1(-m), one = vf_set1(1.0f), ls = vf_set1(l);
    int64_t i0 = 0;
#if SM_PAIRS
    if (!nt)
        for (; i0 + 2 * VW <= n; i0 += 2 * VW) {
            vf ev, od;
            sm_bf16_load2(x + i0, &ev, &od);
            sm_bf16_store2_nosub(y + i0, vf_sub(vf_fma(ev, one, nm), ls), vf_sub(vf_fma(od, one, nm), ls));
        }
    else if (((uintptr_t)y & 63u) == 0)
        for (; i0 + 2 * VW <= n; i0 += 2 * VW) {
            vf ev, od;
            sm_bf16_load2(x + i0, &ev, &od);
            sm_bf16_stream2_nosub(y + i0, vf_sub(vf_fma(ev, one, nm), ls), vf_sub(vf_fma(od, one, nm), ls));
        }
#endif
#if SM_IS_BF16 && VW == 8
    /* AVX2: two vectors a store (SM_AVX2_BF16_2, above). */
    if (!nt)
        for (; i0 + 2 * VW <= n; i0 += 2 * VW)
            vf_store2_bf16_nonan(y + i0, vf_sub(vf_fma(LD(x + i0), one, nm), ls),
                                 vf_sub(vf_fma(LD(x + i0 + VW), one, nm), ls));
    else if (((uintptr_t)y & 63u) == 0)
        for (; i0 + 4 * VW <= n; i0 += 4 * VW) {
            vf_stream2_bf16_nonan(y + i0, vf_sub(vf_fma(LD(x + i0), one, nm), ls),
                                  vf_sub(vf_fma(LD(x + i0 + VW), one, nm), ls));
            vf_stream2_bf16_nonan(y + i0 + 2 * VW, vf_sub(vf_fma(LD(x + i0 + 2 * VW), one, nm), ls),
                                  vf_sub(vf_fma(LD(x + i0 + 3 * VW), one, nm), ls));
        }
#endif
    const SM_CT *xt = x + i0;
    SM_CT *yt = y + i0;
    const int64_t nt_n = n - i0;
    SM_WRITE_ROW(yt, nt_n, nt, vf_sub(vf_fma(LD(xt + i), one, nm), ls),
                 vf_sub(vf_fma(LDN(xt + i, k, 0.0f), one, nm), ls));
}

/* @p k: log s (log-softmax) or 1/s (softmax), from FN(fast_scalar). */
static inline void FN(fast_write)(const SM_CT *x, SM_CT *y, int64_t n, int lg, int nt, const float *scratch, float m,
                                  float k)
{
    if (lg) {
        FN(write_log)(x, y, n, nt, m, k);
    } else {
        FN(write_soft)(y, n, nt, scratch, k, SM_PERM(nt, y));
    }
}

/* The fast write passes' scalar: log s for log-softmax, 1/s for softmax. */
static inline float FN(fast_scalar)(int lg, double s)
{
    return lg ? sm_log_sum1(s) : (float)(1.0 / s);
}

/* FN(fast_write) in chunks of SM_PF_WRITE_CHUNK elements, each preceded by the prefetch of its
 * share of the part of the next row (@p pf) that the exp pass left (SM_PF_EXP_K), so that the
 * next row's reads overlap both passes of this one. The same element operations as
 * FN(fast_write): chunks start at multiples of 4 VW (bf16 pair layout). @p k as there. */
static inline void FN(fast_write_pf)(const SM_CT *x, SM_CT *y, int64_t n, int lg, int nt, const float *scratch,
                                     float m, float k, const char *pf)
{
    const char *p2 = pf + ((size_t)n * sizeof(SM_CT) * SM_PF_EXP_K / 4);
    for (int64_t c = 0; c < n; c += SM_PF_WRITE_CHUNK) {
        const int64_t len = n - c < SM_PF_WRITE_CHUNK ? n - c : SM_PF_WRITE_CHUNK;
        for (size_t b = 0; b < ((size_t)len * sizeof(SM_CT) * (4 - SM_PF_EXP_K) / 4); b += 64)
            __builtin_prefetch(p2 + ((size_t)c * sizeof(SM_CT) * (4 - SM_PF_EXP_K) / 4) + b, 0, 2);
        if (lg)
            FN(write_log)(x + c, y + c, len, nt, m, k);
        else
            FN(write_soft)(y + c, len, nt, scratch + c, k, SM_PERM(nt, y));
    }
}

#if SM_IS_F32
/* A vector store for bodies compiled with a constant @p nt: streaming (nt) or plain. */
VI void FN(st_any)(SM_CT *p, vf v, int nt)
{
    if (nt)
        STNT(p, v);
    else
        ST(p, v);
}

/* fp32 softmax write pass of a long fast-path row (SM_RECOMPUTE_MIN_BYTES) from x instead of a
 * scratch: exp(x - m) computed again exactly as FN(row_sumexp_body) / FN(row_sumexp_fast) did
 * (the same exp of each element, lane by lane, so the same values whatever the grouping into
 * vectors, chunks or bf16 pairs), times 1/s, with plain or (@p nt, a row starting on a 64-byte
 * line) streaming stores. @p pf: as in FN(fast_write_pf) (fp32 prefetches the rest of the next row
 * here, in chunks), or NULL. */
static inline __attribute__((always_inline)) void FN(write_soft_x_body)(const SM_CT *x, SM_CT *y, int64_t n, float m,
                                                                       double s, const char *pf, int kind, int nt)
{
    const vf vm = vf_set1(m), inv = vf_set1((float)(1.0 / s));
    SM_EXP_FAST_SETUP;
    SM_EXP_WIDE_SETUP(m);
    const int64_t chunk = pf && SM_PF_EXP_K < 4 ? SM_PF_WRITE_CHUNK : n;
    const char *p2 = pf ? pf + ((size_t)n * sizeof(SM_CT) * SM_PF_EXP_K / 4) : NULL;
    for (int64_t c = 0; c < n; c += chunk) {
        const int64_t len = n - c < chunk ? n - c : chunk;
        if (chunk < n)
            for (size_t b = 0; b < ((size_t)len * sizeof(SM_CT) * (4 - SM_PF_EXP_K) / 4); b += 64)
                __builtin_prefetch(p2 + ((size_t)c * sizeof(SM_CT) * (4 - SM_PF_EXP_K) / 4) + b, 0, 2);
        const SM_CT *xc = x + c;
        SM_CT *yc = y + c;
        int64_t i = 0;
        for (; i + 4 * VW <= len; i += 4 * VW) {
            vf e0 = SM_EXP_ROW(LD(xc + i)), e1 = SM_EXP_ROW(LD(xc + i + VW));
            vf e2 = SM_EXP_ROW(LD(xc + i + 2 * VW)), e3 = SM_EXP_ROW(LD(xc + i + 3 * VW));
            FN(st_any)(yc + i, vf_mul(e0, inv), nt);
            FN(st_any)(yc + i + VW, vf_mul(e1, inv), nt);
            FN(st_any)(yc + i + 2 * VW, vf_mul(e2, inv), nt);
            FN(st_any)(yc + i + 3 * VW, vf_mul(e3, inv), nt);
        }
        for (; i < len; i += VW) {
            size_t k = (size_t)(len - i) < VW ? (size_t)(len - i) : VW;
            STN(yc + i, vf_mul(SM_EXP_ROW(LDN(xc + i, k, m)), inv), k);
        }
    }
}

/* FN(write_soft_x_body), one compiled loop per kind (see FN(row_sumexp_kind)). */
static void FN(write_soft_x)(const SM_CT *x, SM_CT *y, int64_t n, float m, double s, const char *pf, int kind, int nt)
{
    /* Streaming stores need the row to start on a 64-byte line (the vectors then stay aligned:
     * the chunks and the 4-vector steps are whole lines); other rows write plainly. */
    nt = nt && ((uintptr_t)y & 63u) == 0;
    switch (kind * 2 + (nt ? 1 : 0)) {
#ifdef SM_EXP_WIDE
    case SM_KIND_WIDE * 2:
        FN(write_soft_x_body)(x, y, n, m, s, pf, SM_KIND_WIDE, 0);
        return;
    case SM_KIND_WIDE * 2 + 1:
        FN(write_soft_x_body)(x, y, n, m, s, pf, SM_KIND_WIDE, 1);
        return;
#endif
    case SM_KIND_NARROW * 2 + 1:
        FN(write_soft_x_body)(x, y, n, m, s, pf, SM_KIND_NARROW, 1);
        return;
    default:
        FN(write_soft_x_body)(x, y, n, m, s, pf, SM_KIND_NARROW, 0);
        return;
    }
}
#endif

/* The fast sum is accurate to a small relative error of s, which log(s) turns into an absolute
 * one: harmless while log(s) >= log 2, but log_softmax outputs near 0 (the max of a row whose
 * other terms add up to little) need s - 1 to full precision. Rows with s < 2 are summed again
 * with the exact exponential and fp64 accumulation (they are in cache, and rare). */
#define SM_FAST_LOG_RESUM 2.0

/* Where this tier's fp32 softmax rows stop keeping their exponentials (SM_RECOMPUTE_MIN_BYTES,
 * AVX-512). On AVX2 the exp costs about twice as much per element, so a second one costs more
 * than the scratch's L2 traffic and every row keeps its scratch (the same values either way). */
#ifndef SM_RECOMPUTE_BYTES_T
#if VW == 16
#define SM_RECOMPUTE_BYTES_T SM_RECOMPUTE_MIN_BYTES
#else
#define SM_RECOMPUTE_BYTES_T INT64_MAX
#endif
#endif

#ifndef SM_LOOK_DEFINED
#define SM_LOOK_DEFINED
/* The fast test of the next row, done by FN(fwd_row) between a row's sum and its write pass
 * (have: fc and m hold it). */
typedef struct sm_look {
    int have, fc;
    float m;
} sm_look;
/* 16-bit rows up to this size test the next row early (see FN(units)). */
#define SM_LOOK_MAX_BYTES 8192
#endif

/* One row. @p nx, @p lk (16-bit types, NULL elsewhere): the next row, whose fast test this row
 * runs between its sum and its write pass and leaves in *lk for that row's call, which then skips
 * its own. The test is the same function of the same row either way, so the results are too. */
static void FN(fwd_row)(const SM_CT *x, SM_CT *y, int64_t n, int lg, int nt, float *scratch, const char *pf,
                        const SM_CT *nx, sm_look *lk)
{
    float m;
    double s;
    (void)nx;
    if (n <= SM_SCRATCH_MAX) {
        /* Fast path when the row's spread max - min is at most SM_FAST_RANGE (NaN or infinite
         * max/min fail the test): exp(x - m) then needs neither clamps nor, for fp32, the
         * TwoSum of x - m, whose rounding error (<= 2^-22 absolute for |x - m| < 8) is then far
         * below the 1e-6 relative target; 16-bit types use a cheaper exp (softmax_vec.h). fp32
         * rows of spread up to SM_WIDE_RANGE take the wide fast path on AVX-512 (an exp that
         * never forms x - m); its write passes are the fast path's. */
        int fc;
        if (lk && lk->have) {
            fc = lk->fc;
            m = lk->m;
            lk->have = 0;
        } else {
#if SM_IS_F32
            fc = FN(fast_class)(x, n, &m);
#else
            fc = FN(fast_test)(x, n, &m);
#endif
        }
        if (fc) {
#if SM_IS_F32
            const int recompute = !lg && n * (int64_t)sizeof(SM_CT) >= SM_RECOMPUTE_BYTES_T;
            const int kind = fc == 2 ? SM_KIND_WIDE : SM_KIND_NARROW;
            if (recompute) {
                FN(write_soft_x)(x, y, n, m, FN(row_sumexp_kind)(x, n, m, NULL, pf, kind), pf, kind, nt);
                return;
            }
            s = FN(row_sumexp_kind)(x, n, m, lg ? NULL : scratch, pf, kind);
#else
            s = FN(row_sumexp_fast)(x, n, m, lg ? NULL : scratch, pf, SM_PERM(nt, y));
#endif
            const float k = lg && s < SM_FAST_LOG_RESUM ? (float)FN(row_log_near1)(x, n, m) : FN(fast_scalar)(lg, s);
#if !SM_IS_F32
            /* The next row's max and min while log s (a chain of about 15 dependent vector ops)
             * or 1/s is computed: without independent work there, the write pass waits for it. */
            if (nx && lk) {
                lk->fc = FN(fast_test)(nx, n, &lk->m);
                lk->have = 1;
            }
#endif
            if (pf && SM_PF_EXP_K < 4)
                FN(fast_write_pf)(x, y, n, lg, nt, scratch, m, k, pf);
            else
                FN(fast_write)(x, y, n, lg, nt, scratch, m, k);
            return;
        }
        s = FN(row_sumexp)(x, n, m, lg ? NULL : scratch);
    } else {
        /* Online: one read pass keeps a running max and rescales the running sum. */
        m = -__builtin_inff();
        s = 0.0;
        for (int64_t c = 0; c < n; c += SM_ONLINE_CHUNK) {
            int64_t len = n - c < SM_ONLINE_CHUNK ? n - c : SM_ONLINE_CHUNK;
            float mc = FN(row_max)(x + c, len);
            if (mc > m) {
                if (s != 0.0)
                    s *= exp((double)m - (double)mc);
                m = mc;
            }
            s += FN(row_sumexp)(x + c, len, m, NULL);
        }
    }
    const vf vm = vf_set1(m);
    if (lg) {
        const vf ls = vf_set1((float)(s < SM_FAST_LOG_RESUM && m > -__builtin_inff() && m < __builtin_inff()
                                          ? FN(row_log_near1)(x, n, m)
                                          : log_d(s)));
        SM_WRITE_ROW(y, n, nt, vf_sub(vf_sub(LD(x + i), vm), ls),
                     vf_sub(vf_sub(LDN(x + i, k, 0.0f), vm), ls));
    } else {
        const vf inv = vf_set1((float)(1.0 / s));
        if (n <= SM_SCRATCH_MAX) {
            SM_WRITE_ROW(y, n, nt, vf_mul(vf_load_f32(scratch + i), inv),
                         vf_mul(vf_loadn_f32(scratch + i, k, 0.0f), inv));
        } else {
            SM_WRITE_ROW(y, n, nt, vf_mul(SM_EXP_DIFF(LD(x + i), vm), inv),
                         vf_mul(SM_EXP_DIFF(LDN(x + i, k, 0.0f), vm), inv));
        }
    }
}
