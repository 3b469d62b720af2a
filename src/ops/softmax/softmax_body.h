/*
 * Softmax-family row and column kernels for one storage type, written against the vec_* layer.
 * Included by softmax_impl.h once per type with SM_T (f32, f16, bf16: the suffix of the vec_*
 * loads/stores) and SM_CT (the C storage type) defined.
 */
#define SM_CAT2(a, b) a##_##b
#define SM_CAT(a, b) SM_CAT2(a, b)
#define FN(name) SM_CAT(name, SM_T)
#define LD SM_CAT(vf_load, SM_T)
#define LDN SM_CAT(vf_loadn, SM_T)
#define ST SM_CAT(vf_store, SM_T)
#define STN SM_CAT(vf_storen, SM_T)
#define STNT SM_CAT(vf_stream, SM_T)

/* bf16 rows on AVX-512 are read, summed and written in pair layout (softmax_vec.h) by the fast
 * path, whatever the stores: the layout sets the order of the fast sum's fp32 additions
 * (FN(sum16_step4)), so every row takes it and streaming stores never change a bit. Pairs go out
 * as whole-line streaming stores only from rows that start on a 64-byte line; the others store
 * their pairs plainly (a pair streamed as two 32-byte halves from different vectors would go
 * out as partial lines). SM_PERM(nt, y): whether a row of output y uses the pair layout. */
#if SM_IS_BF16 && defined(SM_BF16_PAIRS)
#define SM_PAIRS 1
#define SM_PERM(nt, y) ((void)(nt), (void)(y), 1)
#else
#define SM_PAIRS 0
#define SM_PERM(nt, y) (!(nt))
#endif

/* The share (in quarters) of the next row that a long row's exp pass prefetches (FN(units));
 * the write pass prefetches the rest (FN(fast_write_pf), FN(write_soft_x)). fp32: 3, so that
 * the next row's reads overlap the write pass too. The 16-bit rows take the whole row in the exp
 * pass: the look-ahead test of rows up to SM_LOOK_MAX_BYTES (sm_look) reads the next row before
 * the write pass, and for longer rows a split is no faster. */
#if SM_IS_F32
#define SM_PF_EXP_K 3
#else
#define SM_PF_EXP_K 4
#endif

/* fp32 inputs need x - max with its rounding error (TwoSum) for softmax to reach ~1e-7 relative
 * accuracy on rows with a wide spread; fp16/bf16 outputs cannot see that error. */
#if SM_IS_F32
#define SM_EXP_DIFF(v, m) sm_exp_diff_exact(v, m)
/* Largest max - min of a row taking the fast path (see FN(fwd_row)). */
#define SM_FAST_RANGE 8.0f
/* The exp of FN(row_sumexp_body) by the row's kind (SM_KIND_*): the wide one (class 2 rows) or
 * the fast one, of x - m. */
#define SM_KIND_NARROW 0
#define SM_KIND_WIDE 1
#ifdef SM_EXP_WIDE
#define SM_EXP_WIDE_SETUP(m) const sm_fexp sm_wx_ = sm_exp_wide_setup(m)
#define SM_EXP_ROW(v) (kind == SM_KIND_WIDE ? sm_exp_wide(v, &sm_wx_) : SM_EXP_FAST(vf_sub(v, vm)))
#else
#define SM_EXP_WIDE_SETUP(m) (void)0
#define SM_EXP_ROW(v) ((void)kind, SM_EXP_FAST(vf_sub(v, vm)))
#endif
#else
/* Within vf_exp_small's range, and small enough that no softmax output of a row up to
 * SM_SCRATCH_MAX elements is subnormal (e^-64 / 32768 > 2^-126); x - m is not exact beyond 2^-24
 * relative, invisible in a 16-bit result. */
#define SM_FAST_RANGE 64.0f
#define SM_EXP_DIFF(v, m) vf_exp(vf_sub(v, m))
#endif

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

#if !SM_IS_F32 && VW == 16
#define SM_PIPE 1
/* The fast test from a row's vertical key maxima and minima (sm16_minmax_vec's). */
static inline int FN(fast_test_keys)(__m512i mx, __m512i mn, float *m)
{
    int16_t hi, lo;
    sm16_keys_reduce(mx, mn, &hi, &lo);
    return FN(fast_test_hilo)(hi, lo, m);
}

/* One 4-vector step (64 elements at @p i) of up to three rows' passes, software-pipelined (see
 * FN(fwd_pipe)): A the keys of row xa into ka (max) / kb (min), prefetching the same part of
 * row pfa (the next row; NULL: none), B the exponentials of row xb into the sums sb (and the
 * scratch eb), C the output of row xc (softmax from the scratch ec times kc = 1/s; log-softmax
 * (x - m) - kc, kc = log s). Each pass's own operations as in FN(fwd_row). @p xw (NULL: none):
 * where A also copies row xa, for B to read it from there a loop later (see FN(fwd_pipe)).
 * Always inlined with constant dA, dB, dC, lg. */
VI void FN(pipe_step)(int64_t i, const int dA, const int dB, const int dC, const int lg, const int nt, const SM_CT *pfa,
                      const SM_CT *xa, SM_CT *xw, __m512i *ka, __m512i *kb, const SM_CT *xb, vf vmb, vf cb, float *eb, vf *sb,
                      const SM_CT *xc, SM_CT *yc, const float *ec, float mc, float kc)
{
    if (dA) {
        if (pfa) {
            __builtin_prefetch(pfa + i, 0, 2);
            __builtin_prefetch(pfa + i + 32, 0, 2);
        }
        sm16_keys_step64(xa + i, xw ? xw + i : NULL, ka, kb);
    }
    if (dB)
        FN(sum16_step4)(xb, i, vmb, cb, lg ? NULL : eb, 1, sb);
    if (dC) {
        if (lg)
            FN(write_log)(xc + i, yc + i, 4 * VW, nt, mc, kc);
        else
            FN(write_soft)(yc + i, 4 * VW, nt, ec + i, kc, 1);
    }
}

/* One pass over the 4-vector steps of a row length @p n with the stages @p dA, @p dB, @p dC. */
VI void FN(pipe_pass)(int64_t n, const int dA, const int dB, const int dC, const int lg, const int nt, const SM_CT *pfa,
                      const SM_CT *xa, SM_CT *xw, __m512i *ka, __m512i *kb, const SM_CT *xb, vf vmb, vf cb, float *eb, vf *sb,
                      const SM_CT *xc, SM_CT *yc, const float *ec, float mc, float kc)
{
    for (int64_t i = 0; i < n; i += 4 * VW)
        FN(pipe_step)(i, dA, dB, dC, lg, nt, pfa, xa, xw, ka, kb, xb, vmb, cb, eb, sb, xc, yc, ec, mc, kc);
}

/* Fast-path rows [u0, u1) of length n (a multiple of 4 VW, SM_PIPE_SOFT_MIN_R .. SM_PIPE_MAX_R with
 * plain stores, or SM_PIPE_LONG_MIN_R .. SM_SCRATCH_MAX with plain or, @p nt, streaming stores),
 * software-pipelined across rows: the step loop of row t's output (pass C) also
 * takes row t + 1's exponentials (B) and row t + 2's max and min (A). Row by row, the passes
 * take turns: the max/min pass waits on memory while the core has little to compute, the exp
 * pass computes while memory is idle, and each row's chain (horizontal max, 1/s or log s)
 * stalls both; in one loop the three overlap. Each row goes through the same operations in the
 * same order as in FN(fwd_row) (the max and min are exact whatever their order): the same
 * bits. A row whose fast test fails is done by FN(fwd_row) when its turn at C comes (it skips
 * B and C in the pipeline). Without @p ring, row t + 3 is prefetched during A (rows from memory
 * need it). @p pe: 2 n floats (the scratch of rows t and t + 1), @p scratch: FN(fwd_row)'s.
 * @p ring (softmax only; NULL: none): 2 n elements. Pass A then copies each row it reads into
 * it, B reads its row from there instead of from x, and no row is prefetched: a second read of x
 * one row behind the first (an L1 hit in the pages the first read is missing in) costs much of
 * the overlap of memory and compute, and with the copy a software prefetch costs more than it
 * gains. */
static void FN(fwd_pipe)(const SM_CT *x, SM_CT *y, int64_t u0, int64_t u1, int64_t n, int lg, int nt, float *scratch,
                         float *pe, SM_CT *ring)
{
    int fc[3] = {0, 0, 0};
    float mm[3] = {0.0f, 0.0f, 0.0f}, kk[3] = {0.0f, 0.0f, 0.0f};
    const vf z = vf_set1(0.0f);
    for (int64_t t = u0 - 2; t < u1; t++) {
        const int64_t ra = t + 2, rb = t + 1, rc = t;
        const int dA = ra < u1;
        const int dB = rb >= u0 && rb < u1 && fc[(rb - u0) % 3];
        const int dC = rc >= u0 && fc[(rc - u0) % 3];
        __m512i ka[2] = {_mm512_set1_epi16(INT16_MIN), _mm512_set1_epi16(INT16_MIN)};
        __m512i kb[2] = {_mm512_set1_epi16(INT16_MAX), _mm512_set1_epi16(INT16_MAX)};
        vf sb[4] = {z, z, z, z};
        const float mb = dB ? mm[(rb - u0) % 3] : 0.0f;
        const vf vmb = vf_set1(mb), cb = vf_set1(-(mb * CANNON_LOG2E));
        const SM_CT *xa = x + ra * n, *xb = x + rb * n, *xc = x + rc * n;
        SM_CT *xw = NULL;
        if (ring) {
            xw = ring + ((ra - u0) & 1) * n;
            xb = ring + ((rb - u0) & 1) * n;
        }
        const SM_CT *pfa = !ring && ra + 1 < u1 ? xa + n : NULL;
        SM_CT *yc = y + rc * n;
        float *eb = pe + ((rb - u0) & 1) * n;
        const float *ec = pe + ((rc - u0) & 1) * n;
        const float mc = dC ? mm[(rc - u0) % 3] : 0.0f, kc = dC ? kk[(rc - u0) % 3] : 0.0f;
#define SM_PIPE_PASS(A, B, C, L)                                                                                       \
    do {                                                                                                              \
        if (nt)                                                                                                       \
            FN(pipe_pass)(n, A, B, C, L, 1, pfa, xa, xw, ka, kb, xb, vmb, cb, eb, sb, xc, yc, ec, mc, kc);          \
        else                                                                                                          \
            FN(pipe_pass)(n, A, B, C, L, 0, pfa, xa, xw, ka, kb, xb, vmb, cb, eb, sb, xc, yc, ec, mc, kc);          \
    } while (0)
        /* One loop per combination of stages, each compiled with its stages as constants. */
        switch ((dA << 3) | (dB << 2) | (dC << 1) | lg) {
        case 14:
            SM_PIPE_PASS(1, 1, 1, 0);
            break;
        case 15:
            SM_PIPE_PASS(1, 1, 1, 1);
            break;
        case 12:
            SM_PIPE_PASS(1, 1, 0, 0);
            break;
        case 13:
            SM_PIPE_PASS(1, 1, 0, 1);
            break;
        case 10:
            SM_PIPE_PASS(1, 0, 1, 0);
            break;
        case 11:
            SM_PIPE_PASS(1, 0, 1, 1);
            break;
        case 8:
        case 9:
            SM_PIPE_PASS(1, 0, 0, 0);
            break;
        case 6:
            SM_PIPE_PASS(0, 1, 1, 0);
            break;
        case 7:
            SM_PIPE_PASS(0, 1, 1, 1);
            break;
        case 4:
            SM_PIPE_PASS(0, 1, 0, 0);
            break;
        case 5:
            SM_PIPE_PASS(0, 1, 0, 1);
            break;
        case 2:
            SM_PIPE_PASS(0, 0, 1, 0);
            break;
        case 3:
            SM_PIPE_PASS(0, 0, 1, 1);
            break;
        default:
            break;
        }
#undef SM_PIPE_PASS
        if (dA)
            fc[(ra - u0) % 3] = FN(fast_test_keys)(_mm512_max_epi16(ka[0], ka[1]), _mm512_min_epi16(kb[0], kb[1]),
                                                   &mm[(ra - u0) % 3]);
        if (dB) {
            const double s = sm_hsum(vf_add(vf_add(sb[0], sb[1]), vf_add(sb[2], sb[3])));
            kk[(rb - u0) % 3] = lg && s < SM_FAST_LOG_RESUM ? (float)FN(row_log_near1)(xb, n, mb) : FN(fast_scalar)(lg, s);
        }
        if (rc >= u0 && !fc[(rc - u0) % 3])
            FN(fwd_row)(x + rc * n, yc, n, lg, 0, scratch, NULL, NULL, NULL);
    }
}
#endif

#if SM_IS_F32 && VW == 16 && defined(SM_EXP_WIDE)
#define SM_PIPE32 1
/* FN(fwd_pipe) for fp32 rows (AVX-512): one 8-vector step (128 elements at @p i) of row xa's max
 * and min (pass A, FN(row_minmax)'s four accumulators in its order; the row is also copied to
 * @p xw), row xb's exponentials of kind @p kind (into eb for softmax) and the fp64 sum sb (pass B,
 * FN(row_sumexp_body)'s step: the same exp and the same fp32 tree per fp64 addition) and row
 * yc's output (pass C, with streaming stores when @p nt): softmax ec * kc (kc = 1/s),
 * log-softmax FN(write_log)'s (xc - m) - kc from the ring's copy xc (nmc = -m, kc = log s).
 * Always inlined with constant dA, dB, dC, kind, nt and lg. */
VI void FN(pipe32_step)(int64_t i, const int dA, const int dB, const int dC, const int kind, const int nt,
                        const int lg, const SM_CT *xa, SM_CT *xw, vf *am, vf *al, const SM_CT *xb, vf vm,
                        const sm_fexp *wx, __m512i tbl, float *eb, vd *sb, const SM_CT *xc, SM_CT *yc,
                        const float *ec, vf kc, vf nmc)
{
    if (dA) {
        FN(minmax_step4)(xa + i, am, al, xw + i);
        FN(minmax_step4)(xa + i + 4 * VW, am, al, xw + i + 4 * VW);
    }
    if (dB) {
        /* SM_EXP_ROW's names. */
        const sm_fexp sm_wx_ = *wx;
        const __m512i sm_tbl_ = tbl;
        float *e = lg ? NULL : eb;
        SM_SUMEXP_STEP8(xb, i, e, *sb);
    }
    if (dC)
        for (int k = 0; k < 8; k++)
            FN(st_any)(yc + i + k * VW,
                       lg ? vf_sub(vf_fma(LD(xc + i + k * VW), vf_set1(1.0f), nmc), kc)
                          : vf_mul(vf_load_f32(ec + i + k * VW), kc),
                       nt);
}

VI void FN(pipe32_pass)(int64_t n, const int dA, const int dB, const int dC, const int kind, const int nt,
                        const int lg, const SM_CT *xa, SM_CT *xw, vf *am, vf *al, const SM_CT *xb, vf vm,
                        const sm_fexp *wx, __m512i tbl, float *eb, vd *sb, const SM_CT *xc, SM_CT *yc,
                        const float *ec, vf kc, vf nmc)
{
    for (int64_t i = 0; i < n; i += 8 * VW)
        FN(pipe32_step)(i, dA, dB, dC, kind, nt, lg, xa, xw, am, al, xb, vm, wx, tbl, eb, sb, xc, yc, ec, kc, nmc);
}

/* fp32 rows [u0, u1) of length n (a multiple of 8 VW, at most SM_PIPE32_MAX_R) of softmax or
 * (@p lg) log-softmax through the pipeline of FN(fwd_pipe): the step loop of row t's output also
 * takes row t + 1's exponentials and row t + 2's max and min; pass A copies each row into
 * @p ring (3 n floats: rows t + 2, t + 1 and, for log-softmax's pass C, t), from which passes B
 * and C read it (no prefetch, see FN(fwd_pipe)). Log-softmax rows whose fast sum is below
 * SM_FAST_LOG_RESUM are summed again exactly, as in FN(fwd_row). Each row gets FN(fwd_row)'s
 * operations in its order (max and min are exact in any grouping, and A keeps FN(row_minmax)'s
 * accumulators): the same bits. Rows off both fast paths are done by FN(fwd_row) at their turn
 * for C. @p pe: 2 n floats (rows t and t + 1's exponentials). Streaming stores (@p nt) need
 * every row to start on a 64-byte line, i.e. y itself (n * 4 is a multiple of 512). */
static void FN(fwd_pipe32)(const SM_CT *x, SM_CT *y, int64_t u0, int64_t u1, int64_t n, int lg, int nt,
                           float *scratch, float *pe, SM_CT *ring)
{
    int fc[3] = {0, 0, 0};
    float mm[3] = {0.0f, 0.0f, 0.0f}, kk[3] = {0.0f, 0.0f, 0.0f};
    nt = nt && ((uintptr_t)y & 63u) == 0;
    SM_EXP_FAST_SETUP;
    for (int64_t t = u0 - 2; t < u1; t++) {
        const int64_t ra = t + 2, rb = t + 1, rc = t;
        const int dA = ra < u1;
        const int kb = rb >= u0 && rb < u1 ? fc[(rb - u0) % 3] : 0;
        const int dB = kb != 0;
        const int dC = rc >= u0 && fc[(rc - u0) % 3] != 0;
        vf am[4], al[4];
        FN(minmax_init)(am, al);
        vd sb = vd_zero();
        const float mb = dB ? mm[(rb - u0) % 3] : 0.0f;
        const vf vm = vf_set1(mb);
        sm_fexp wx;
        if (kb == 2)
            wx = sm_exp_wide_setup(mb);
        else
            wx.tbl = sm_tbl_, wx.c = vm;
        const SM_CT *xa = x + ra * n;
        const int nr = lg ? 3 : 2;
        SM_CT *xw = ring + ((ra - u0 + 3) % nr) * n;
        const SM_CT *xb = ring + ((rb - u0 + 3) % nr) * n, *xc = ring + ((rc - u0 + 3) % nr) * n;
        SM_CT *yc = y + rc * n;
        float *eb = pe + ((rb - u0) & 1) * n;
        const float *ec = pe + ((rc - u0) & 1) * n;
        const vf kc = vf_set1(dC ? kk[(rc - u0) % 3] : 0.0f), nmc = vf_set1(dC ? -mm[(rc - u0) % 3] : 0.0f);
#define SM_PIPE32_PASS(A, B, C, K, NT, L)                                                                             \
    FN(pipe32_pass)(n, A, B, C, K, NT, L, xa, xw, am, al, xb, vm, &wx, sm_tbl_, eb, &sb, xc, yc, ec, kc, nmc)
#define SM_PIPE32_NT(A, B, C, K)                                                                                      \
    do {                                                                                                              \
        if (lg && nt)                                                                                                 \
            SM_PIPE32_PASS(A, B, C, K, 1, 1);                                                                         \
        else if (lg)                                                                                                  \
            SM_PIPE32_PASS(A, B, C, K, 0, 1);                                                                         \
        else if (nt)                                                                                                  \
            SM_PIPE32_PASS(A, B, C, K, 1, 0);                                                                         \
        else                                                                                                          \
            SM_PIPE32_PASS(A, B, C, K, 0, 0);                                                                         \
    } while (0)
        /* One loop per combination of stages and kind, each compiled with them as constants. */
        switch ((dA << 4) | (dB << 3) | (dC << 2) | (kb == 2 ? 1 : 0)) {
        case 0x1c:
            SM_PIPE32_NT(1, 1, 1, SM_KIND_NARROW);
            break;
        case 0x1d:
            SM_PIPE32_NT(1, 1, 1, SM_KIND_WIDE);
            break;
        case 0x18:
            SM_PIPE32_NT(1, 1, 0, SM_KIND_NARROW);
            break;
        case 0x19:
            SM_PIPE32_NT(1, 1, 0, SM_KIND_WIDE);
            break;
        case 0x14:
            SM_PIPE32_NT(1, 0, 1, SM_KIND_NARROW);
            break;
        case 0x10:
            SM_PIPE32_NT(1, 0, 0, SM_KIND_NARROW);
            break;
        case 0x0c:
            SM_PIPE32_NT(0, 1, 1, SM_KIND_NARROW);
            break;
        case 0x0d:
            SM_PIPE32_NT(0, 1, 1, SM_KIND_WIDE);
            break;
        case 0x08:
            SM_PIPE32_NT(0, 1, 0, SM_KIND_NARROW);
            break;
        case 0x09:
            SM_PIPE32_NT(0, 1, 0, SM_KIND_WIDE);
            break;
        case 0x04:
            SM_PIPE32_NT(0, 0, 1, SM_KIND_NARROW);
            break;
        default:
            break;
        }
#undef SM_PIPE32_NT
#undef SM_PIPE32_PASS
        if (dA) {
            float lo;
            mm[(ra - u0) % 3] = FN(minmax_fold)(am, al, &lo);
            fc[(ra - u0) % 3] = FN(fast_kind)(mm[(ra - u0) % 3], lo);
        }
        if (dB) {
            const double sum = vd_hsum(sb);
            kk[(rb - u0) % 3] =
                lg && sum < SM_FAST_LOG_RESUM ? (float)FN(row_log_near1)(xb, n, mb) : FN(fast_scalar)(lg, sum);
        }
        if (rc >= u0 && !fc[(rc - u0) % 3])
            FN(fwd_row)(x + rc * n, yc, n, lg, nt, scratch, NULL, NULL, NULL);
    }
}
#endif

#if SM_IS_F32 && VW == 16 && defined(SM_EXP_WIDE)
#define SM_LPIPE32 1
/* Elements ahead of pass A's reads that FN(fwd_lpipe32) prefetches: 4 KiB (the hardware
 * prefetchers alone fall behind; farther ahead gains nothing more). */
#define SM_LPIPE32_PF 1024
/* One 8-vector step (at @p i) of FN(fwd_lpipe32): row xa's max and min (pass A, when @p dA),
 * row xb's sum of exponentials of kind @p kb into sb (pass B) and row yc's log-softmax output
 * (pass C) (xc - m) - kcv as FN(write_log) computes it (nmc = -m, kcv = log s). Always inlined
 * with constant dA, kb and nt. */
VI void FN(lpipe32_step)(int64_t i, const int dA, const int kb, const int nt, const SM_CT *xa, vf *am, vf *al,
                         const SM_CT *xb, vf vmb, const sm_fexp *wxb, __m512i tbl, vd *sb, const SM_CT *xc, SM_CT *yc,
                         vf nmc, vf kcv)
{
    if (dA) {
        for (int l = 0; l < 8; l++)
            __builtin_prefetch(xa + i + SM_LPIPE32_PF + l * (64 / sizeof(SM_CT)), 0, 2);
        FN(minmax_step4)(xa + i, am, al, NULL);
        FN(minmax_step4)(xa + i + 4 * VW, am, al, NULL);
    }
    /* SM_EXP_ROW's names, for row xb. */
    const sm_fexp sm_wx_ = *wxb;
    const __m512i sm_tbl_ = tbl;
    const int kind = kb;
    const vf vm = vmb;
    /* No exponentials kept: a null pointer variable, not a literal (the macro's dead store
     * branch would otherwise be pointer arithmetic on a null literal, which clang rejects). */
    float *const e = NULL;
    SM_SUMEXP_STEP8(xb, i, e, *sb);
    for (int k = 0; k < 8; k++)
        FN(st_any)(yc + i + k * VW, vf_sub(vf_fma(LD(xc + i + k * VW), vf_set1(1.0f), nmc), kcv), nt);
}

VI void FN(lpipe32_pass)(int64_t n, const int dA, const int kb, const int nt, const SM_CT *xa, vf *am, vf *al,
                         const SM_CT *xb, vf vmb, const sm_fexp *wxb, __m512i tbl, vd *sb, const SM_CT *xc, SM_CT *yc,
                         vf nmc, vf kcv)
{
    for (int64_t i = 0; i < n; i += 8 * VW)
        FN(lpipe32_step)(i, dA, kb, nt, xa, am, al, xb, vmb, wxb, tbl, sb, xc, yc, nmc, kcv);
}

/* Long fp32 log-softmax rows [u0, u1) (n a multiple of 8 VW, SM_PIPE_LONG_MIN_R to SM_SCRATCH_MAX),
 * AVX-512, as a software pipeline with no scratch and no ring: the step loop of row t's output
 * (pass C) also takes row t + 1's sum of exponentials (pass B) and row t + 2's max and min (pass
 * A, from memory, prefetched SM_LPIPE32_PF elements ahead). Rows t and t + 1 are still in L2
 * (three rows take at most 384 KiB), and memory sees reads and streaming writes side by side
 * all the time, as in a copy; row by row it saw the next row's reads during the exp pass and the
 * writes in the write pass. Softmax keeps the row path: with its exponentials computed again in
 * pass C (two exps a step) the same pipeline is slower than the row path. Every row gets
 * FN(fwd_row)'s operations in its order (the same max and min accumulators, sum steps, exp,
 * log s and its exact re-sum near 0): the same bits. Where not all three passes have a fast row
 * (the first and last rows, rows off both fast paths) each pass runs alone through the
 * functions FN(fwd_row) uses; rows off the fast paths go through FN(fwd_row) at their turn for
 * C. Streaming stores (@p nt) when y starts on a 64-byte line (every row then does: n * 4 is a
 * multiple of 512). */
static void FN(fwd_lpipe32)(const SM_CT *x, SM_CT *y, int64_t u0, int64_t u1, int64_t n, int nt, float *scratch)
{
    int fc[3] = {0, 0, 0};
    float mm[3] = {0.0f, 0.0f, 0.0f}, kk[3] = {0.0f, 0.0f, 0.0f};
    nt = nt && ((uintptr_t)y & 63u) == 0;
    SM_EXP_FAST_SETUP;
    for (int64_t t = u0 - 2; t < u1; t++) {
        const int64_t ra = t + 2, rb = t + 1, rc = t;
        const int dA = ra < u1;
        const int kb = rb >= u0 && rb < u1 ? fc[(rb - u0) % 3] : 0;
        const int kc = rc >= u0 ? fc[(rc - u0) % 3] : 0;
        const SM_CT *xa = x + (dA ? ra : u0) * n, *xb = x + (kb ? rb : u0) * n, *xc = x + (rc >= u0 ? rc : u0) * n;
        SM_CT *yc = y + (rc >= u0 ? rc : u0) * n;
        const float mb = kb ? mm[(rb - u0) % 3] : 0.0f, mc = kc ? mm[(rc - u0) % 3] : 0.0f;
        const float kcs = kc ? kk[(rc - u0) % 3] : 0.0f;
        double sum = 0.0;
        if (dA && kb && kc) {
            vf am[4], al[4];
            FN(minmax_init)(am, al);
            vd sb = vd_zero();
            sm_fexp wb;
            if (kb == 2) {
                wb = sm_exp_wide_setup(mb);
            } else {
                wb.tbl = sm_tbl_;
                wb.c = vf_set1(mb);
            }
            const vf vmb = vf_set1(mb), nmc = vf_set1(-mc), kcv = vf_set1(kcs);
#define SM_LP32(KB, NT) FN(lpipe32_pass)(n, 1, KB, NT, xa, am, al, xb, vmb, &wb, sm_tbl_, &sb, xc, yc, nmc, kcv)
            switch ((nt << 1) | (kb == 2)) {
            case 0:
                SM_LP32(SM_KIND_NARROW, 0);
                break;
            case 1:
                SM_LP32(SM_KIND_WIDE, 0);
                break;
            case 2:
                SM_LP32(SM_KIND_NARROW, 1);
                break;
            default:
                SM_LP32(SM_KIND_WIDE, 1);
                break;
            }
#undef SM_LP32
            float lo;
            mm[(ra - u0) % 3] = FN(minmax_fold)(am, al, &lo);
            fc[(ra - u0) % 3] = FN(fast_kind)(mm[(ra - u0) % 3], lo);
            sum = vd_hsum(sb);
        } else {
            /* The passes one after the other, each through FN(fwd_row)'s own functions. */
            if (dA) {
                float lo;
                mm[(ra - u0) % 3] = FN(row_minmax)(xa, n, &lo);
                fc[(ra - u0) % 3] = FN(fast_kind)(mm[(ra - u0) % 3], lo);
            }
            if (kb)
                sum = FN(row_sumexp_kind)(xb, n, mb, NULL, NULL, kb == 2 ? SM_KIND_WIDE : SM_KIND_NARROW);
            if (kc)
                FN(write_log)(xc, yc, n, nt, mc, kcs);
        }
        if (kb)
            kk[(rb - u0) % 3] = sum < SM_FAST_LOG_RESUM ? (float)FN(row_log_near1)(xb, n, mb) : FN(fast_scalar)(1, sum);
        if (rc >= u0 && !kc)
            FN(fwd_row)(xc, yc, n, 1, nt, scratch, NULL, NULL, NULL);
    }
}
#endif

/* Backward over a row: y is the forward output, g the incoming gradient.
 *   softmax:     out = y * (g - sum(g * y))
 *   log_softmax: out = g - exp(y) * sum(g)                                                   */
static void FN(bwd_row)(const SM_CT *y, const SM_CT *g, SM_CT *o, int64_t n, int lg, int nt)
{
    vd a0 = vd_zero(), a1 = vd_zero();
    int64_t i0 = 0;
    for (; i0 + 2 * VW <= n; i0 += 2 * VW) {
        vf g0 = LD(g + i0), g1 = LD(g + i0 + VW);
        if (!lg) {
            g0 = vf_mul(g0, LD(y + i0));
            g1 = vf_mul(g1, LD(y + i0 + VW));
        }
        a0 = vd_add(a0, g0);
        a1 = vd_add(a1, g1);
    }
    for (; i0 < n; i0 += VW) {
        size_t k = (size_t)(n - i0) < VW ? (size_t)(n - i0) : VW;
        vf g0 = LDN(g + i0, k, 0.0f);
        if (!lg)
            g0 = vf_mul(g0, LDN(y + i0, k, 0.0f));
        a0 = vd_add(a0, g0);
    }
    const vf s = vf_set1((float)(vd_hsum(a0) + vd_hsum(a1)));
    if (lg) {
        SM_WRITE_ROW(o, n, nt, vf_sub(LD(g + i), vf_mul(vf_exp(LD(y + i)), s)),
                     vf_sub(LDN(g + i, k, 0.0f), vf_mul(vf_exp(LDN(y + i, k, 0.0f)), s)));
    } else {
        SM_WRITE_ROW(o, n, nt, vf_mul(LD(y + i), vf_sub(LD(g + i), s)),
                     vf_mul(LDN(y + i, k, 0.0f), vf_sub(LDN(g + i, k, 0.0f), s)));
    }
}

/* Columns [c0, c0 + nc) of one outer slice (R rows of stride `inner`), VW columns at a time:
 * each lane runs the row algorithm of its own column. */
static void FN(cols)(const sm_args *a, const SM_CT *x, const SM_CT *g, SM_CT *o, int64_t nc)
{
    const int64_t R = a->R, ld = a->inner;
    const int op = a->op;
    for (int64_t c = 0; c < nc; c += VW) {
        const size_t k = (size_t)(nc - c) < VW ? (size_t)(nc - c) : VW;
        double sums[VW];
        float lane[VW];
        if (op == SM_SOFTMAX || op == SM_LOG_SOFTMAX) {
            vf m = vf_set1(-__builtin_inff());
            for (int64_t r = 0; r < R; r++)
                m = vf_max(m, LDN(x + r * ld + c, k, -__builtin_inff()));
            vd acc = vd_zero();
            for (int64_t r = 0; r < R; r++)
                acc = vd_add(acc, vf_keep(SM_EXP_DIFF(LDN(x + r * ld + c, k, 0.0f), m), k));
            vd_store(sums, acc);
            if (op == SM_SOFTMAX) {
                for (int j = 0; j < VW; j++)
                    lane[j] = (float)(1.0 / sums[j]);
                const vf inv = vf_loadn_f32(lane, k, 0.0f);
                for (int64_t r = 0; r < R; r++)
                    STN(o + r * ld + c, vf_mul(SM_EXP_DIFF(LDN(x + r * ld + c, k, 0.0f), m), inv), k);
            } else {
                /* Columns whose sum is below 2 (max finite): log s as FN(row_log_near1) takes it. */
                float mj[VW];
                int near1[VW], any = 0;
                vf_storen_f32(mj, m, VW);
                for (size_t j = 0; j < VW; j++) {
                    near1[j] = j < k && sums[j] < SM_FAST_LOG_RESUM && mj[j] > -__builtin_inff() &&
                               mj[j] < __builtin_inff();
                    any |= near1[j];
                    lane[j] = (float)log_d(sums[j]);
                }
                if (any) {
                    vd t = vd_zero(), cn = vd_zero();
                    for (int64_t r = 0; r < R; r++)
                        FN(near1_step)(LDN(x + r * ld + c, k, -__builtin_inff()), m, &t, &cn);
                    double tj[VW], cj[VW];
                    vd_store(tj, t);
                    vd_store(cj, cn);
                    for (size_t j = 0; j < k; j++)
                        if (near1[j])
                            lane[j] = (float)log1p((cj[j] - 1.0) + tj[j]);
                }
                const vf ls = vf_loadn_f32(lane, k, 0.0f);
                for (int64_t r = 0; r < R; r++)
                    STN(o + r * ld + c, vf_sub(vf_sub(LDN(x + r * ld + c, k, 0.0f), m), ls), k);
            }
        } else {
            const int lg = op == SM_LOG_SOFTMAX_BWD;
            vd acc = vd_zero();
            for (int64_t r = 0; r < R; r++) {
                vf gv = LDN(g + r * ld + c, k, 0.0f);
                if (!lg)
                    gv = vf_mul(gv, LDN(x + r * ld + c, k, 0.0f));
                acc = vd_add(acc, gv);
            }
            vd_store(sums, acc);
            for (int j = 0; j < VW; j++)
                lane[j] = (float)sums[j];
            const vf s = vf_loadn_f32(lane, k, 0.0f);
            for (int64_t r = 0; r < R; r++) {
                vf yv = LDN(x + r * ld + c, k, 0.0f), gv = LDN(g + r * ld + c, k, 0.0f);
                vf ov = lg ? vf_sub(gv, vf_mul(vf_exp(yv), s)) : vf_mul(yv, vf_sub(gv, s));
                STN(o + r * ld + c, ov, k);
            }
        }
    }
}

#include "softmax_group.h"

static void FN(units)(const sm_args *a, int64_t u0, int64_t u1)
{
    const SM_CT *x = (const SM_CT *)a->x, *g = (const SM_CT *)a->g;
    SM_CT *o = (SM_CT *)a->out;
    const int64_t R = a->R;
    if (a->inner == 1) {
        const int fwd = a->op == SM_SOFTMAX || a->op == SM_LOG_SOFTMAX;
        /* Rows per group: as many as SM_GROUP_ELEMS elements hold, 2 to SM_GROUP_ROWS. */
        int64_t grp = R <= SM_GROUP_R_MAX ? SM_GROUP_ELEMS / (R > 0 ? R : 1) : 1;
        grp = grp > SM_GROUP_ROWS ? SM_GROUP_ROWS : grp < 2 ? 2 : grp;
        float buf[fwd && R <= SM_SCRATCH_MAX ? (R <= SM_GROUP_R_MAX ? grp * R : R) + VW : 1] __attribute__((aligned(64)));
        float *scratch = buf;
        /* The read pass of a long row streams it from memory while the exp pass runs from
         * cache, and the hardware prefetcher does not bridge the gap; the exp pass (and for
         * fp32 the write pass, see SM_PF_EXP_K) therefore prefetches the next row into L2, so
         * the two overlap. Short rows (R <= SM_GROUP_R_MAX) prefetch the next group or batch
         * themselves (softmax_group.h). */
        const int pf_on = R * (int64_t)sizeof(SM_CT) >= SM_PREFETCH_MIN_BYTES;
        /* The next block may go to another worker: prefetching its first row would only move
         * that row into this core's L2 (see sm_args.pf_cross). */
        const int64_t pf_end = a->pf_cross ? a->outer : u1;
        int64_t u = u0;
#ifdef SM_PIPE
        /* 16-bit rows of 512 to 2048 elements (log-softmax: 576 to 4096) with plain stores, and
         * of SM_PIPE_LONG_MIN_R to SM_SCRATCH_MAX with either kind, go through the pipeline. */
        const int lgo = a->op == SM_LOG_SOFTMAX;
        /* Long rows (SM_PIPE_LONG_MIN_R), streaming stores or not: bf16 streams its pair layout
         * only from rows that start on a 64-byte line (FN(write_soft)), which then all do (R is a
         * multiple of 64 elements). */
        const int plong = R >= SM_PIPE_LONG_MIN_R && R <= SM_SCRATCH_MAX &&
                          (!a->nt || !SM_PAIRS || ((uintptr_t)o & 63u) == 0);
        if (fwd && R % (4 * VW) == 0 && u1 - u0 >= 3 &&
            (plong || (!a->nt && R >= (lgo ? SM_PIPE_MIN_R : SM_PIPE_SOFT_MIN_R) &&
                       R <= (lgo ? SM_PIPE_MAX_R : SM_PIPE_SOFT_MAX_R)))) {
            float pbuf[plong ? 2 * R : 2 * SM_PIPE_SOFT_MAX_R] __attribute__((aligned(64)));
            SM_CT ring[2 * SM_PIPE_RING_MAX_R] __attribute__((aligned(64)));
            FN(fwd_pipe)(x, o, u0, u1, R, lgo, a->nt, scratch, pbuf,
                         !lgo && R <= SM_PIPE_RING_MAX_R ? ring : NULL);
            return;
        }
#endif
#ifdef SM_LPIPE32
        /* Long fp32 log-softmax rows on AVX-512 (SM_PIPE_LONG_MIN_R to SM_SCRATCH_MAX, multiples of
         * 128): the pipeline without scratch (FN(fwd_lpipe32)). */
        if (a->op == SM_LOG_SOFTMAX && R % (8 * VW) == 0 && R >= SM_PIPE_LONG_MIN_R && R <= SM_SCRATCH_MAX &&
            u1 - u0 >= 3) {
            FN(fwd_lpipe32)(x, o, u0, u1, R, a->nt, scratch);
            return;
        }
#endif
#ifdef SM_PIPE32
        /* fp32 rows of 256 (log-softmax: 512) to 1024 elements, multiples of 128, on AVX-512: the
         * pipeline (SM_PIPE32_MIN_R). */
        if (fwd && R % (8 * VW) == 0 && R >= (a->op == SM_LOG_SOFTMAX ? SM_PIPE32_LOG_MIN_R : SM_PIPE32_MIN_R) &&
            R <= SM_PIPE32_MAX_R && u1 - u0 >= 3) {
            float pbuf[2 * SM_PIPE32_MAX_R] __attribute__((aligned(64)));
            float ring[3 * SM_PIPE32_MAX_R] __attribute__((aligned(64)));
            FN(fwd_pipe32)(x, o, u0, u1, R, a->op == SM_LOG_SOFTMAX, a->nt, scratch, pbuf, ring);
            return;
        }
#endif
#ifdef SM_BPIPE
        /* 16-bit log-softmax rows of 64 on AVX-512, plain stores: the full batches of 16 rows
         * through the batch pipeline (SM_BPIPE_R), the rest in groups as below. */
        if (a->op == SM_LOG_SOFTMAX && !a->nt && R == SM_BPIPE_R && u1 - u0 >= 3 * 16) {
            const int64_t nb = (u1 - u0) / 16;
            FN(fwd_bpipe_64)(x + u0 * R, o + u0 * R, nb, scratch);
            u = u0 + nb * 16;
        }
#endif
        /* Softmax rows long enough to read their successor ahead (SM_PREFETCH_MIN_BYTES; of
         * the group lengths, fp32 rows of 512) go row by row instead: from memory the row path
         * measured faster (see SM_PREFETCH_MIN_BYTES). Log-softmax keeps the groups, whose 16 logs
         * are one vector where the row path waits on each row's log chain. */
        if (fwd && R <= SM_GROUP_R_MAX && !(a->op == SM_SOFTMAX && pf_on))
            for (; u < u1; u += grp) {
                const int64_t g = u1 - u < grp ? u1 - u : grp;
                /* The last group of a block prefetches no further (its successor may be
                 * another worker's rows) unless one worker runs every block. */
                FN(fwd_group_pf)(x + u * R, o + u * R, g, R, a->op == SM_LOG_SOFTMAX, a->nt, scratch,
                                 a->pf_cross || u + g < u1);
            }
        /* 16-bit rows of up to SM_LOOK_MAX_BYTES test the next row of their block early (see
         * FN(fwd_row)); their exp pass prefetches the whole next row (SM_PF_EXP_K == 4), so that
         * test reads from cache. */
        const int look_on = !SM_IS_F32 && fwd && R * (int64_t)sizeof(SM_CT) <= SM_LOOK_MAX_BYTES;
        sm_look lk = {0, 0, 0.0f};
        for (; u < u1; u++) {
            const int64_t off = u * R;
            const char *pf = pf_on && u + 1 < pf_end ? (const char *)(x + off + R) : NULL;
            if (a->op == SM_SOFTMAX || a->op == SM_LOG_SOFTMAX)
                FN(fwd_row)(x + off, o + off, R, a->op == SM_LOG_SOFTMAX, a->nt, scratch, pf,
                            look_on && u + 1 < u1 ? x + off + R : NULL, look_on ? &lk : NULL);
            else
                FN(bwd_row)(x + off, g + off, o + off, R, a->op == SM_LOG_SOFTMAX_BWD, a->nt);
        }
    } else {
        const int64_t tiles = (a->inner + SM_TILE_COLS - 1) / SM_TILE_COLS;
        for (int64_t u = u0; u < u1; u++) {
            const int64_t ob = u / tiles, c0 = (u % tiles) * SM_TILE_COLS;
            const int64_t nc = a->inner - c0 < SM_TILE_COLS ? a->inner - c0 : SM_TILE_COLS;
            const int64_t off = ob * R * a->inner + c0;
            FN(cols)(a, x + off, g ? g + off : NULL, o + off, nc);
        }
    }
}

#undef SM_EXP_DIFF
#undef SM_PIPE
#undef SM_PIPE32
#undef SM_LPIPE32
#undef SM_LPIPE32_PF
#undef SM_BPIPE
#undef SM_BPIPE_R
#undef SM_SUMEXP_STEP8
#undef SM_FAST_LOG_RESUM
#undef SM_PAIRS
#undef SM_PERM
#undef SM_PF_EXP_K
#undef SM_FAST_RANGE
#undef SM_EXP_ROW
#undef SM_EXP_WIDE_SETUP
#undef SM_WRITE_ROW
#undef SM_WRITE_ROW_WITH
#undef FN
#undef LD
#undef LDN
#undef ST
#undef STN
#undef STNT
