/*
 * Short rows (R <= SM_GROUP_R_MAX), several at a time: included by softmax_body.h once per type,
 * with its FN/LD/ST macros and the row helpers above the include point.
 */

/* A group of g short rows (n <= SM_GROUP_R_MAX) at once, one phase after the other: the max
 * and min of every row, then every row's sum, then the scalars (1/s or log s) of all rows, then
 * the outputs. A short row's cost is dominated by its chain of dependent steps (horizontal
 * reductions, the exp pass, division or log, write); with the rows of a phase independent, one
 * row's latency hides behind the others' work, and the logs are computed as one vector. Each row
 * gets exactly FN(fwd_row)'s arithmetic, so grouping changes no bit of the result. Used by the
 * tiers without the batch kernel below (AVX2 and scalar). */
#if VW == 16
#define SMG_BATCH 1
#endif
#if SM_IS_F32 && VW == 8
#define SMG_PAIR 1
/* K (4 or 8) vectors of each row at xa + i / xb + i: the exponentials (into ea / eb unless NULL), added
 * in fp32 by the fixed tree of FN(row_sumexp_body)'s steps, ((e0 + e1) + (e2 + e3)) + ..., then
 * once into the row's fp64 accumulator. */
VI vf FN(pair_tree)(const vf *p, const int K)
{
    const vf lo = vf_add(vf_add(p[0], p[1]), vf_add(p[2], p[3]));
    return K == 8 ? vf_add(lo, vf_add(vf_add(p[4], p[5]), vf_add(p[6], p[7]))) : lo;
}
VI void FN(pair_step)(const float *xa, const float *xb, int64_t i, vf va, vf vb, float *ea, float *eb, vd *a0,
                      vd *b0, const int K)
{
    vf p[8], q[8];
    for (int k = 0; k < K; k++) {
        p[k] = SM_EXP_FAST(vf_sub(LD(xa + i + k * VW), va));
        q[k] = SM_EXP_FAST(vf_sub(LD(xb + i + k * VW), vb));
    }
    if (ea)
        for (int k = 0; k < K; k++) {
            vf_store_f32(ea + i + k * VW, p[k]);
            vf_store_f32(eb + i + k * VW, q[k]);
        }
    *a0 = vd_add(*a0, FN(pair_tree)(p, K));
    *b0 = vd_add(*b0, FN(pair_tree)(q, K));
}

/* FN(row_sumexp_fast) for two rows at once (the AVX2 tier, fp32), step for step in lockstep:
 * each row gets exactly the same operations in the same order as there (the same bits), and the
 * two rows' exp chains overlap: within one row the exp step's chains and the row's fp64 sum and
 * horizontal add are serial. */
static void FN(row_sumexp_fast2)(const float *xa, const float *xb, int64_t n, float ma, float mb, float *ea,
                                 float *eb, double *sa, double *sb)
{
    const vf va = vf_set1(ma), vb = vf_set1(mb);
    SM_EXP_FAST_SETUP;
    vd a0 = vd_zero(), b0 = vd_zero();
    int64_t i = 0;
    for (; i + 8 * VW <= n; i += 8 * VW)
        FN(pair_step)(xa, xb, i, va, vb, ea, eb, &a0, &b0, 8);
    for (; i + 4 * VW <= n; i += 4 * VW)
        FN(pair_step)(xa, xb, i, va, vb, ea, eb, &a0, &b0, 4);
    for (; i < n; i += VW) {
        const size_t k = (size_t)(n - i) < VW ? (size_t)(n - i) : VW;
        vf p = SM_EXP_FAST(vf_sub(LDN(xa + i, k, ma), va)), q = SM_EXP_FAST(vf_sub(LDN(xb + i, k, mb), vb));
        if (k < VW) {
            p = vf_keep(p, k);
            q = vf_keep(q, k);
        }
        if (ea) {
            vf_storen_f32(ea + i, p, k);
            vf_storen_f32(eb + i, q, k);
        }
        a0 = vd_add(a0, p);
        b0 = vd_add(b0, q);
    }
    *sa = vd_hsum(a0);
    *sb = vd_hsum(b0);
}
#endif
/* Row r of the group's exp phase: its counterpart in the next group read ahead (@p pf) and its
 * output lines fetched for writing (@p pw), as the batch kernel below does. */
VI void FN(group_ahead)(const SM_CT *x, SM_CT *y, int64_t g, int64_t n, int64_t r, int pf, int pw)
{
    const int64_t rb = n * (int64_t)sizeof(SM_CT);
    /* (Past the end of the tensor, a prefetch just does not fault; integer arithmetic keeps the
     * address computation defined.) */
    if (pf)
        for (int64_t l = 0; l < rb; l += 64)
            __builtin_prefetch((const char *)((uintptr_t)x + (uintptr_t)(((g + r) * n) * (int64_t)sizeof(SM_CT) + l)), 0, 2);
    if (pw)
        for (int64_t l = 0; l < rb; l += 64)
            __builtin_prefetch((const char *)(y + r * n) + l, 1, 3);
}

/* @p pf: the rows that follow the group are this worker's next (see FN(fwd_group_pf)). In the
 * tiers without the batch kernel (AVX2, scalar) the exp phase reads them ahead, and fetches the
 * group's output lines for writing where the group is at most 8 KiB and the stores are plain:
 * without that memory idles while a group is computed. AVX2 fp32 also sums two rows at a time
 * (FN(row_sumexp_fast2)). None of it changes a bit of the result. */
static void FN(group_rows)(const SM_CT *x, SM_CT *y, int64_t g, int64_t n, int lg, int nt, float *scratch, int pf)
{
    const int pw = pf && !nt && g * n * (int64_t)sizeof(SM_CT) <= 8192;
    float m[SM_GROUP_ROWS], sc[SM_GROUP_ROWS + VW];
    double s[SM_GROUP_ROWS] = {0}; /* all set below; the initialiser quiets gcc -O1 maybe-uninitialized */
    int fast[SM_GROUP_ROWS];
    for (int64_t r = 0; r < g; r++)
        fast[r] = FN(fast_test)(x + r * n, n, &m[r]);
    /* Rows off the fast path (rare) are done first and alone: FN(fwd_row) uses the scratch. */
    for (int64_t r = 0; r < g; r++)
        if (!fast[r])
            FN(fwd_row)(x + r * n, y + r * n, n, lg, nt, scratch, NULL, NULL, NULL);
    for (int64_t r = 0; r < g;) {
        if (!fast[r]) {
            s[r++] = 2.0;
            continue;
        }
        FN(group_ahead)(x, y, g, n, r, pf, pw);
#ifdef SMG_PAIR
        int64_t r2 = r + 1;
        for (; r2 < g && !fast[r2]; r2++)
            s[r2] = 2.0;
        if (r2 < g) {
            FN(group_ahead)(x, y, g, n, r2, pf, pw);
            FN(row_sumexp_fast2)(x + r * n, x + r2 * n, n, m[r], m[r2], lg ? NULL : scratch + r * n,
                                 lg ? NULL : scratch + r2 * n, &s[r], &s[r2]);
            r = r2 + 1;
            continue;
        }
#endif
        s[r] = FN(row_sumexp_fast)(x + r * n, n, m[r], lg ? NULL : scratch + r * n, NULL, SM_PERM(nt, y + r * n));
        r++;
    }
    if (lg) {
        sm_log_sums(s, sc, g);
        for (int64_t r = 0; r < g; r++)
            if (fast[r] && s[r] < SM_FAST_LOG_RESUM)
                sc[r] = (float)FN(row_log_near1)(x + r * n, n, m[r]);
        for (int64_t r = 0; r < g; r++)
            if (fast[r])
                FN(write_log)(x + r * n, y + r * n, n, nt, m[r], sc[r]);
    } else {
        sm_inv_sums(s, sc, g);
        for (int64_t r = 0; r < g; r++)
            if (fast[r])
                FN(write_soft)(y + r * n, n, nt, scratch + r * n, sc[r], SM_PERM(nt, y + r * n));
    }
}

#ifdef SMG_BATCH
/*
 * The AVX-512 batch kernel (every dtype): 16 rows at a time. Even grouped, a 128-element row
 * pays for about as many cycles in per-row steps as in its 8 vectors of exp work: the horizontal
 * max, min and sum of each row (about four shuffles and ops each, a dependent chain), the
 * conversions around them. Here each row keeps vertical accumulators only (one vector per row
 * for its max, min and sum) and one transposing reduction tree per quantity turns the 16 rows'
 * vectors into one vector holding the 16 row results (15 shuffle pairs and ops for 16 rows),
 * which the fast test, the reciprocals and the logs then use whole.
 *
 * Determinism: the tree combines lanes of the same row only, and rows of a partial batch are
 * not mixed with anything, so every row's result is a function of that row alone (the batch
 * split, the block split and the thread count change nothing).
 */
#ifndef SMG_TREES_DEFINED
#define SMG_TREES_DEFINED
/* Locality of the read-ahead of the next batch (see FN(fwd_batch)): into L1 (prefetcht0); the
 * batch is at most 16 KiB of input (SM_GROUP_ELEMS fp32). */
#ifndef SMG_PF_LOC
#define SMG_PF_LOC 3
#endif
/* The address @p off bytes past @p p, for prefetches that may point past the tensor (they never
 * fault; integer arithmetic keeps the pointer arithmetic defined). */
static inline const char *smg_ahead(const void *p, int64_t off)
{
    return (const char *)((uintptr_t)p + (uintptr_t)off);
}
enum { SMG_MAXPS, SMG_MINPS, SMG_ADDPS, SMG_MAXW, SMG_MINW };
VI __m512i smg_op(__m512i a, __m512i b, int op)
{
    switch (op) {
    case SMG_MAXPS:
        return _mm512_castps_si512(_mm512_max_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b)));
    case SMG_MINPS:
        return _mm512_castps_si512(_mm512_min_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b)));
    case SMG_ADDPS:
        return _mm512_castps_si512(_mm512_add_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b)));
    case SMG_MAXW:
        return _mm512_max_epi16(a, b);
    default:
        return _mm512_min_epi16(a, b);
    }
}
VI __m512i smg_shps(__m512i a, __m512i b, int imm_is_lo)
{
    return imm_is_lo ? _mm512_castps_si512(_mm512_shuffle_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b), 0x44))
                     : _mm512_castps_si512(_mm512_shuffle_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b), 0xEE));
}
VI __m512i smg_shps2(__m512i a, __m512i b, int even)
{
    return even ? _mm512_castps_si512(_mm512_shuffle_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b), 0x88))
                : _mm512_castps_si512(_mm512_shuffle_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b), 0xDD));
}
/* Lane r of the result = op over the 16 32-bit lanes of v[r] (for the 16-bit ops, each 32-bit
 * lane of the result still holds two partial results, see smg_keys_fold). The levels halve 512,
 * 256, 128 and 64-bit pieces; after them lane 4b + q holds the row fed in at position 4q + b, so
 * v[4 (p % 4) + p / 4] goes in at position p (the map is its own inverse). */
static inline __m512i smg_tree16(const __m512i *v, int op)
{
    __m512i c[8], d[4], e[2];
    for (int k = 0; k < 8; k++) {
        const __m512i a = v[4 * ((2 * k) % 4) + (2 * k) / 4], b = v[4 * ((2 * k + 1) % 4) + (2 * k + 1) / 4];
        c[k] = smg_op(_mm512_shuffle_i32x4(a, b, 0x44), _mm512_shuffle_i32x4(a, b, 0xEE), op);
    }
    for (int j = 0; j < 4; j++)
        d[j] = smg_op(_mm512_shuffle_i32x4(c[2 * j], c[2 * j + 1], 0x88),
                      _mm512_shuffle_i32x4(c[2 * j], c[2 * j + 1], 0xDD), op);
    for (int i = 0; i < 2; i++)
        e[i] = smg_op(smg_shps(d[2 * i], d[2 * i + 1], 1), smg_shps(d[2 * i], d[2 * i + 1], 0), op);
    return smg_op(smg_shps2(e[0], e[1], 1), smg_shps2(e[0], e[1], 0), op);
}
/* The same over 16 vectors of 8 fp64 lanes (sums), into two vectors: lane l of out[k] is the sum
 * of v[8k + 2 (p % 4) + p / 4]'s lanes with p = l, i.e. row 8k + l. */
static inline void smg_tree16_pd(const __m512d *v, __m512d out[2])
{
    __m512d c[8], d[4];
    for (int k = 0; k < 8; k++) {
        const int p0 = 2 * k, p1 = 2 * k + 1;
        const __m512d a = v[8 * (p0 / 8) + 2 * (p0 % 4) + (p0 % 8) / 4];
        const __m512d b = v[8 * (p1 / 8) + 2 * (p1 % 4) + (p1 % 8) / 4];
        c[k] = _mm512_add_pd(_mm512_shuffle_f64x2(a, b, 0x44), _mm512_shuffle_f64x2(a, b, 0xEE));
    }
    for (int j = 0; j < 4; j++)
        d[j] = _mm512_add_pd(_mm512_shuffle_f64x2(c[2 * j], c[2 * j + 1], 0x88),
                             _mm512_shuffle_f64x2(c[2 * j], c[2 * j + 1], 0xDD));
    for (int i = 0; i < 2; i++)
        out[i] = _mm512_add_pd(_mm512_unpacklo_pd(d[2 * i], d[2 * i + 1]), _mm512_unpackhi_pd(d[2 * i], d[2 * i + 1]));
}
/* 32-bit lanes holding two int16 keys of one row -> the larger (or smaller) one, as the fp32
 * value of the bf16 (@p bf16) or fp16 pattern it orders (the key map is its own inverse, see
 * sm16_key1); the pattern is in the low half of each lane. */
VI __m512 smg_keys_fold(__m512i v, int is_max, int bf16)
{
    const __m512i hi = _mm512_srai_epi32(v, 16), lo = _mm512_srai_epi32(_mm512_slli_epi32(v, 16), 16);
    const __m512i k = is_max ? _mm512_max_epi32(hi, lo) : _mm512_min_epi32(hi, lo);
    const __m512i b = _mm512_xor_si512(k, _mm512_and_si512(_mm512_srai_epi32(k, 31), _mm512_set1_epi32(0x7fff)));
    if (bf16)
        return _mm512_castsi512_ps(_mm512_slli_epi32(b, 16));
    return _mm512_cvtph_ps(_mm512_cvtepi32_epi16(b));
}
/* sm_log_sums for the 16 sums of a batch at once (the same values: vf_log of the sums rounded to
 * fp32, libm's double log for sums below 2), without its scalar conversion loops and the stall
 * of reloading their stores as a vector; lanes outside @p live are left to vf_log. */
static inline void smg_log_sums16(const double *s, float *out, __mmask16 live)
{
    const __m512d s0 = _mm512_load_pd(s), s1 = _mm512_load_pd(s + 8);
    const vf sf = _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(_mm512_cvtpd_ps(s0))),
                                                       _mm256_castps_pd(_mm512_cvtpd_ps(s1)), 1));
    _mm512_store_ps(out, vf_log(sf));
    const __m512d two = _mm512_set1_pd(2.0);
    unsigned lt2 = (unsigned)(_mm512_cmp_pd_mask(s0, two, _CMP_LT_OQ) |
                              ((unsigned)_mm512_cmp_pd_mask(s1, two, _CMP_LT_OQ) << 8)) & live;
    for (; lt2; lt2 &= lt2 - 1) {
        const int r = __builtin_ctz(lt2);
        out[r] = (float)log_d(s[r]);
    }
}
#endif /* SMG_TREES_DEFINED */

#if SM_IS_F32
/* Vertical max and min of one row (NaNs may be dropped, as in FN(row_minmax)). */
VI void FN(smg_minmax)(const float *x, int64_t n, __m512i *mx, __m512i *mn)
{
    vf m0 = vf_set1(-__builtin_inff()), m1 = m0, l0 = vf_set1(__builtin_inff()), l1 = l0;
    int64_t i = 0;
    for (; i + 2 * VW <= n; i += 2 * VW) {
        const vf v0 = _mm512_loadu_ps(x + i), v1 = _mm512_loadu_ps(x + i + VW);
        m0 = _mm512_max_ps(m0, v0);
        m1 = _mm512_max_ps(m1, v1);
        l0 = _mm512_min_ps(l0, v0);
        l1 = _mm512_min_ps(l1, v1);
    }
    if (i < n) {
        const __mmask16 k = n - i >= VW ? (__mmask16)0xffff : vw_mask((size_t)(n - i));
        const vf v0 = _mm512_maskz_loadu_ps(k, x + i);
        m0 = _mm512_mask_max_ps(m0, k, m0, v0);
        l0 = _mm512_mask_min_ps(l0, k, l0, v0);
        if ((i += VW) < n) {
            const __mmask16 k1 = vw_mask((size_t)(n - i));
            const vf v1 = _mm512_maskz_loadu_ps(k1, x + i);
            m1 = _mm512_mask_max_ps(m1, k1, m1, v1);
            l1 = _mm512_mask_min_ps(l1, k1, l1, v1);
        }
    }
    *mx = _mm512_castps_si512(_mm512_max_ps(m0, m1));
    *mn = _mm512_castps_si512(_mm512_min_ps(l0, l1));
}

/* FN(row_sumexp_fast)'s exponentials and sum for one row, the sum left as 8 fp64 lanes: eight
 * exp vectors added in fp32 (a fixed tree of depth 3) per fp64 accumulation; the rest (up to 7
 * vectors and a partial one) added in order in fp32, then accumulated once. Reads ahead the
 * bytes at @p pf (unless NULL) as far as it reads x (the same row of the next batch), and
 * fetches for writing those at @p pw (the row's output, see FN(fwd_batch)). */
VI __m512d FN(smg_sumexp)(const float *x, int64_t n, float m, float *e, const char *pf, const char *pw,
                          __m512i sm_tbl_)
{
    const vf vm = vf_set1(m);
    vd a = vd_zero();
    int64_t i = 0;
    for (; i + 8 * VW <= n; i += 8 * VW) {
        for (size_t l = 0; pf && l < 8 * VW * sizeof(SM_CT); l += 64)
            __builtin_prefetch(pf + (size_t)i * sizeof(SM_CT) + l, 0, SMG_PF_LOC);
        for (size_t l = 0; pw && l < 8 * VW * sizeof(SM_CT); l += 64)
            __builtin_prefetch(pw + (size_t)i * sizeof(SM_CT) + l, 1, SMG_PF_LOC);
        vf e0 = SM_EXP_FAST(vf_sub(LD(x + i), vm)), e1 = SM_EXP_FAST(vf_sub(LD(x + i + VW), vm));
        vf e2 = SM_EXP_FAST(vf_sub(LD(x + i + 2 * VW), vm)), e3 = SM_EXP_FAST(vf_sub(LD(x + i + 3 * VW), vm));
        vf e4 = SM_EXP_FAST(vf_sub(LD(x + i + 4 * VW), vm)), e5 = SM_EXP_FAST(vf_sub(LD(x + i + 5 * VW), vm));
        vf e6 = SM_EXP_FAST(vf_sub(LD(x + i + 6 * VW), vm)), e7 = SM_EXP_FAST(vf_sub(LD(x + i + 7 * VW), vm));
        if (e) {
            vf_store_f32(e + i, e0);
            vf_store_f32(e + i + VW, e1);
            vf_store_f32(e + i + 2 * VW, e2);
            vf_store_f32(e + i + 3 * VW, e3);
            vf_store_f32(e + i + 4 * VW, e4);
            vf_store_f32(e + i + 5 * VW, e5);
            vf_store_f32(e + i + 6 * VW, e6);
            vf_store_f32(e + i + 7 * VW, e7);
        }
        a = vd_add(a, vf_add(vf_add(vf_add(e0, e1), vf_add(e2, e3)), vf_add(vf_add(e4, e5), vf_add(e6, e7))));
    }
    if (i < n) {
        for (size_t l = 0; pf && l < (size_t)(n - i) * sizeof(SM_CT); l += 64)
            __builtin_prefetch(pf + (size_t)i * sizeof(SM_CT) + l, 0, SMG_PF_LOC);
        for (size_t l = 0; pw && l < (size_t)(n - i) * sizeof(SM_CT); l += 64)
            __builtin_prefetch(pw + (size_t)i * sizeof(SM_CT) + l, 1, SMG_PF_LOC);
        vf t = vf_set1(0.0f);
        for (; i < n; i += VW) {
            const size_t k = (size_t)(n - i) < VW ? (size_t)(n - i) : VW;
            vf e0 = SM_EXP_FAST(vf_sub(LDN(x + i, k, m), vm));
            if (k < VW)
                e0 = vf_keep(e0, k);
            if (e)
                vf_storen_f32(e + i, e0, k);
            t = vf_add(t, e0);
        }
        a = vd_add(a, t);
    }
    return _mm512_add_pd(a.lo, a.hi);
}
#else /* bf16, fp16 */
/* Vertical max and min of one row's keys, 32 per op (softmax_vec.h). */
VI void FN(smg_minmax)(const uint16_t *x, int64_t n, __m512i *mx, __m512i *mn) { sm16_minmax_vec(x, n, mx, mn); }

/* FN(row_sumexp_fast)'s exponentials (same layout, the same steps FN(sum16_step4) / FN(sum16_tail))
 * and its four fp32 accumulators, added; reads ahead at @p pf and @p pw as the fp32 version does. */
VI vf FN(smg_sumexp)(const uint16_t *x, int64_t n, float m, float cm, float *e, const char *pf, const char *pw,
                     int perm)
{
    const vf vm = vf_set1(m), c = vf_set1(cm);
    vf a[4] = {vf_set1(0.0f), vf_set1(0.0f), vf_set1(0.0f), vf_set1(0.0f)};
    int64_t i = 0;
    for (; i + 4 * VW <= n; i += 4 * VW) {
        for (size_t l = 0; pf && l < 4 * VW * sizeof(SM_CT); l += 64)
            __builtin_prefetch(pf + (size_t)i * sizeof(SM_CT) + l, 0, SMG_PF_LOC);
        for (size_t l = 0; pw && l < 4 * VW * sizeof(SM_CT); l += 64)
            __builtin_prefetch(pw + (size_t)i * sizeof(SM_CT) + l, 1, SMG_PF_LOC);
        FN(sum16_step4)(x, i, vm, c, e, perm, a);
    }
    for (size_t l = 0; pf && i < n && l < (size_t)(n - i) * sizeof(SM_CT); l += 64)
        __builtin_prefetch(pf + (size_t)i * sizeof(SM_CT) + l, 0, SMG_PF_LOC);
    for (size_t l = 0; pw && i < n && l < (size_t)(n - i) * sizeof(SM_CT); l += 64)
        __builtin_prefetch(pw + (size_t)i * sizeof(SM_CT) + l, 1, SMG_PF_LOC);
    FN(sum16_tail)(x, i, n, m, vm, c, e, a);
    return vf_add(vf_add(a[0], a[1]), vf_add(a[2], a[3]));
}
/* FN(write_log) for a fast row (nt == 0): the same outputs, stored by vcvtne2ps2bf16 without
 * sm_bf16_store2's test for zero and subnormal lanes, which no output here has apart from exact
 * zeros (converted exactly): y = (x - m) - log s with x - m <= 0 and log s >= 0 (the sum counts
 * exp(0) = 1 for the max; sums below 2 are exact, so log s is 0 or at least 2^-53), no
 * cancellation, and a subnormal x - m makes its exponential 1, so s >= 2 and |y| >= log 2.
 * Leaving the test out matters for rows as short as 128. */
VI void FN(smg_write_log)(const uint16_t *x, uint16_t *y, int64_t n, float m, float l)
{
    const vf vm = vf_set1(m), ls = vf_set1(l);
    int64_t i = 0;
    for (; i + 2 * VW <= n; i += 2 * VW) {
        vf ev, od;
        sm_bf16_load2(x + i, &ev, &od);
        sm_bf16_store2_nosub(y + i, vf_sub(vf_sub(ev, vm), ls), vf_sub(vf_sub(od, vm), ls));
    }
    if (i < n)
        FN(write_log)(x + i, y + i, n - i, 0, m, l);
}
#endif

#if !SM_IS_F32
/* A 16-bit batch's fast test (FN(fast_test)'s, for 16 rows at once) from the rows' vertical key
 * maxima @p mx and minima @p mn: the mask of rows that pass; the rows' maxima go to @p mv and
 * -m log2(e) to @p cv (64-byte aligned). Shared by FN(fwd_batch) and FN(fwd_bpipe). */
VI __mmask16 FN(smg_fast16)(const __m512i *mx, const __m512i *mn, float *mv, float *cv)
{
    const vf M = smg_keys_fold(smg_tree16(mx, SMG_MAXW), 1, SM_IS_BF16),
             L = smg_keys_fold(smg_tree16(mn, SMG_MINW), 0, SM_IS_BF16);
    _mm512_store_ps(cv, _mm512_mul_ps(M, vf_set1(-CANNON_LOG2E)));
    _mm512_store_ps(mv, M);
    return _mm512_cmp_ps_mask(_mm512_sub_ps(M, L), vf_set1(SM_FAST_RANGE), _CMP_LE_OQ) &
           _mm512_cmp_ps_mask(M, vf_set1(SM16_MAX_ABS_MAX), _CMP_LE_OQ) &
           _mm512_cmp_ps_mask(M, vf_set1(-SM16_MAX_ABS_MAX), _CMP_GE_OQ);
}
#endif
#ifndef SMG_SUMS16_DEFINED
#define SMG_SUMS16_DEFINED
/* The 16 rows' fp32 sums of a 16-bit batch (one vector of accumulators per row, @p sf) as fp64:
 * S[0] rows 0-7, S[1] rows 8-15. Shared by FN(fwd_batch) and FN(fwd_bpipe). */
static inline void smg_sums16(const __m512i *sf, __m512d S[2])
{
    const vf Sf = _mm512_castsi512_ps(smg_tree16(sf, SMG_ADDPS));
    S[0] = _mm512_cvtps_pd(_mm512_castps512_ps256(Sf));
    S[1] = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(Sf), 1)));
}
#endif

/* Up to 16 rows (b >= 1) of n <= SM_GROUP_R_MAX elements; @p e holds b * n + VW floats.
 * Phases: every row's vertical max and min, the trees and the fast test; the rows off the fast
 * path, alone; every fast row's exponentials and sum, the sum tree, 1/s or log s; the writes.
 * The exp phase reads the next b rows ahead (the next batch, or the next group of FN(units),
 * which starts there) when @p pf: without it memory idles through the exp and write phases, the
 * max/min phase then stalling on every line. Past the end of the tensor, prefetches just do not
 * fault. The exp phase also fetches each row's output lines (for writing; not for streaming
 * stores or batches above 8 KiB), so that the write phase's stores hit the cache instead of
 * each waiting for its line. */
VI void FN(fwd_batch)(const SM_CT *x, SM_CT *y, int64_t b, int64_t n, int lg, int nt, float *e, int pf)
{
    __m512i mx[16], mn[16];
    float mv[16] __attribute__((aligned(64))), sc[16] __attribute__((aligned(64)));
    /* Output lines fetched ahead (see above): not for streaming stores, nor for batches of more
     * than 8 KiB (fp32 rows of 512), whose input, scratch, next input and output would overflow
     * L1. */
    const int pwo = !nt && b * n * (int64_t)sizeof(SM_CT) <= 8192;
    double s[16] __attribute__((aligned(64)));
    for (int64_t r = 0; r < b; r++)
        FN(smg_minmax)(x + r * n, n, &mx[r], &mn[r]);
    /* The unused tree inputs of a partial batch (8 rows of 256 or more: every batch there). The
     * asm hides the index from gcc, which otherwise turns the loop into two `rep stos`, whose
     * start-up cost is a visible share of such a batch. */
    for (int64_t r = b; r < 16; r++) {
        __asm__("" : "+r"(r));
        mx[r] = mn[r] = _mm512_setzero_si512();
    }
    /* The fast test of FN(fwd_row) (FN(fast_test)), for the 16 rows at once. */
#if SM_IS_F32
    const vf M = _mm512_castsi512_ps(smg_tree16(mx, SMG_MAXPS)), L = _mm512_castsi512_ps(smg_tree16(mn, SMG_MINPS));
    __mmask16 fast = _mm512_cmp_ps_mask(_mm512_sub_ps(M, L), vf_set1(SM_FAST_RANGE), _CMP_LE_OQ);
#else
    float cv[16] __attribute__((aligned(64)));
    __mmask16 fast = FN(smg_fast16)(mx, mn, mv, cv);
#endif
    fast &= (__mmask16)((1u << b) - 1u);
#if SM_IS_F32
    _mm512_store_ps(mv, M);
#endif
    /* Rows off the fast path (rare) are done first and alone: FN(fwd_row) uses the scratch. */
    for (int64_t r = 0; r < b; r++)
        if (!((fast >> r) & 1u))
            FN(fwd_row)(x + r * n, y + r * n, n, lg, nt, e, NULL, NULL, NULL);
    /* The sums of the fast rows (the others get a dummy 1; lanes >= b are unused). */
#if SM_IS_F32
    __m512d sd[16], S[2];
    SM_EXP_FAST_SETUP;
    for (int r = 0; r < 16; r++) {
        const char *ahead = pf ? smg_ahead(x, (b + r) * n * (int64_t)sizeof(SM_CT)) : NULL;
        sd[r] = ((fast >> r) & 1u) ? FN(smg_sumexp)(x + r * n, n, mv[r], lg ? NULL : e + r * n, ahead,
                                                            pwo ? (const char *)(y + r * n) : NULL, sm_tbl_)
                                   : _mm512_set1_pd(0.125);
    }
    smg_tree16_pd(sd, S);
#else
    __m512i sf[16];
    for (int r = 0; r < 16; r++) {
        const char *ahead = pf ? smg_ahead(x, (b + r) * n * (int64_t)sizeof(SM_CT)) : NULL;
        sf[r] = _mm512_castps_si512(((fast >> r) & 1u)
                                        ? FN(smg_sumexp)(x + r * n, n, mv[r], cv[r], lg ? NULL : e + r * n, ahead,
                                                          pwo ? (const char *)(y + r * n) : NULL,
                                                          SM_PERM(nt, y + r * n))
                                        : vf_set1(0.0625f));
    }
    __m512d S[2];
    smg_sums16(sf, S);
#endif
    _mm512_store_pd(s, S[0]);
    _mm512_store_pd(s + 8, S[1]);
    if (!lg) { /* (float)(1 / s) per lane, as sm_inv_sums */
        _mm256_store_ps(sc, _mm512_cvtpd_ps(_mm512_div_pd(_mm512_set1_pd(1.0), S[0])));
        _mm256_store_ps(sc + 8, _mm512_cvtpd_ps(_mm512_div_pd(_mm512_set1_pd(1.0), S[1])));
    }
    if (lg) {
        smg_log_sums16(s, sc, fast);
        for (int r = 0; r < 16; r++)
            if (((fast >> r) & 1u) && s[r] < SM_FAST_LOG_RESUM)
                sc[r] = (float)FN(row_log_near1)(x + r * n, n, mv[r]);
        for (int64_t r = 0; r < b; r++)
            if ((fast >> r) & 1u) {
#if SM_IS_BF16
                if (!nt) {
                    FN(smg_write_log)(x + r * n, y + r * n, n, mv[r], sc[r]);
                    continue;
                }
#endif
                FN(write_log)(x + r * n, y + r * n, n, nt, mv[r], sc[r]);
            }
    } else {
        for (int64_t r = 0; r < b; r++)
            if ((fast >> r) & 1u)
                FN(write_soft)(y + r * n, n, nt, e + r * n, sc[r], SM_PERM(nt, y + r * n));
    }
}
/* The batch kernel compiled for the common row lengths as constants (the loops unrolled, no
 * tail code), and once for any length. */
static void FN(fwd_batch_128)(const SM_CT *x, SM_CT *y, int64_t b, int lg, int nt, float *e, int pf)
{
    FN(fwd_batch)(x, y, b, 128, lg, nt, e, pf);
}
static void FN(fwd_batch_512)(const SM_CT *x, SM_CT *y, int64_t b, int lg, int nt, float *e, int pf)
{
    FN(fwd_batch)(x, y, b, 512, lg, nt, e, pf);
}
static void FN(fwd_batch_any)(const SM_CT *x, SM_CT *y, int64_t b, int64_t n, int lg, int nt, float *e, int pf)
{
    FN(fwd_batch)(x, y, b, n, lg, nt, e, pf);
}

#if !SM_IS_F32
/* 16-bit log-softmax rows of SM_BPIPE_R elements go through FN(fwd_bpipe) (see there). */
#define SM_BPIPE 1
#define SM_BPIPE_R 64
/* One batch's state between the stages of FN(fwd_bpipe): the keys' vertical max/min (A), the
 * fast test's mask, the rows' maxima m and -m log2(e) (A's result, B's input), log s (B's result,
 * C's input). */
typedef struct FN(bp_slot) {
    __m512i mx[16], mn[16];
    float mv[16] __attribute__((aligned(64))), cv[16] __attribute__((aligned(64)));
    float sc[16] __attribute__((aligned(64)));
    unsigned fast;
} FN(bp_slot);

/* One row's stages of FN(fwd_bpipe) (log-softmax), inlined with constant flags and n: A the keys
 * of row xa (copied to wa), B its sum of exponentials from the ring row xb, C its output from the
 * ring row xc. */
VI void FN(bp_row)(const int dA, const int dB, const int dC, int64_t n, const SM_CT *xa, SM_CT *wa, __m512i *mx,
                   __m512i *mn, const SM_CT *xb, float mb, float cb, vf *sb, const SM_CT *xc, SM_CT *yc, float mc,
                   float kc)
{
    if (dA) {
        __m512i ma[2] = {_mm512_set1_epi16(INT16_MIN), _mm512_set1_epi16(INT16_MIN)};
        __m512i mi[2] = {_mm512_set1_epi16(INT16_MAX), _mm512_set1_epi16(INT16_MAX)};
        for (int64_t i = 0; i < n; i += 64)
            sm16_keys_step64(xa + i, wa + i, ma, mi);
        *mx = _mm512_max_epi16(ma[0], ma[1]);
        *mn = _mm512_min_epi16(mi[0], mi[1]);
    }
    if (dB)
        *sb = FN(smg_sumexp)(xb, n, mb, cb, NULL, NULL, NULL, 1);
    if (dC) {
#if SM_IS_BF16
        FN(smg_write_log)(xc, yc, n, mc, kc);
#else
        FN(write_log)(xc, yc, n, 0, mc, kc);
#endif
    }
}

/* The 16 rows of one batch through the stages @p dA, @p dB, @p dC (constants where inlined); rows
 * off the fast path skip B and C here (FN(fwd_bpipe) does them alone). */
VI void FN(bp_rows)(const int dA, const int dB, const int dC, int64_t n, const SM_CT *xa, SM_CT *wa,
                    FN(bp_slot) *sa, const SM_CT *xb, FN(bp_slot) *sb, vf *sf, const SM_CT *xc, SM_CT *yc,
                    FN(bp_slot) *sc)
{
    for (int r = 0; r < 16; r++) {
        const int b = dB && ((sb->fast >> r) & 1u), c = dC && ((sc->fast >> r) & 1u);
        const float mb = dB ? sb->mv[r] : 0.0f, cb = dB ? sb->cv[r] : 0.0f;
        const float mc = dC ? sc->mv[r] : 0.0f, kc = dC ? sc->sc[r] : 0.0f;
        if (b && c)
            FN(bp_row)(dA, 1, 1, n, xa + r * n, wa + r * n, &sa->mx[r], &sa->mn[r], xb + r * n, mb, cb, &sf[r],
                       xc + r * n, yc + r * n, mc, kc);
        else {
            FN(bp_row)(dA, 0, 0, n, xa + r * n, wa + r * n, &sa->mx[r], &sa->mn[r], xb, 0, 0, sf, xc, yc, 0, 0);
            if (b)
                FN(bp_row)(0, 1, 0, n, xa, wa, sa->mx, sa->mn, xb + r * n, mb, cb, &sf[r], xc, yc, 0, 0);
            if (c)
                FN(bp_row)(0, 0, 1, n, xa, wa, sa->mx, sa->mn, xb, 0, 0, sf, xc + r * n, yc + r * n, mc, kc);
        }
        if (dB && !b)
            sf[r] = vf_set1(0.0625f);
    }
}

/* Log-softmax over nb full batches of 16 rows of n elements (a multiple of 64, at most SM_BPIPE_R),
 * plain stores, software-pipelined across batches as FN(fwd_pipe) is across rows: one loop takes
 * row r of batch t's output (C), of batch t + 1's sum of exponentials (B) and of batch t + 2's
 * max and min (A), A copying its rows into a ring of three batches from which B and C read (no
 * software prefetch). Each row goes through FN(fwd_batch)'s operations on the same 16-row trees:
 * the same bits. Rows of 64 in the batch kernel spend as much on each batch's trees, log and
 * per-row steps as on their exponentials, with memory idle meanwhile; here those overlap the
 * next batches' reads. Rows of 128 and 256 are slower pipelined, and so are softmax rows of 64
 * (its two batches of fp32 exponentials next to the ring), so those keep the batch kernel.
 * @p scratch: FN(fwd_row)'s, for rows off the fast path. */
VI void FN(fwd_bpipe)(const SM_CT *x, SM_CT *y, int64_t nb, int64_t n, float *scratch)
{
    FN(bp_slot) st[3];
    SM_CT ring[3 * (16 * SM_BPIPE_R + 64)] __attribute__((aligned(64)));
    vf sf[16];
    const int64_t bn = 16 * n, rs = bn + 64;
    for (int64_t t = -2; t < nb; t++) {
        const int64_t ta = t + 2, tb = t + 1, tc = t;
        const int dA = ta < nb, dB = tb >= 0 && tb < nb, dC = tc >= 0;
        FN(bp_slot) *sa = &st[(ta + 3) % 3], *sb = &st[(tb + 3) % 3], *sc = &st[(tc + 3) % 3];
        /* (Pointers into x and y only for batches that exist.) */
        const SM_CT *xa = dA ? x + ta * bn : x, *xb = ring + ((tb + 3) % 3) * rs, *xc = ring + ((tc + 3) % 3) * rs;
        SM_CT *wa = ring + ((ta + 3) % 3) * rs, *yc = dC ? y + tc * bn : y;
        if (dA && dB && dC)
            FN(bp_rows)(1, 1, 1, n, xa, wa, sa, xb, sb, sf, xc, yc, sc);
        else
            FN(bp_rows)(dA, dB, dC, n, xa, wa, sa, xb, sb, sf, xc, yc, sc);
        if (dA)
            sa->fast = FN(smg_fast16)(sa->mx, sa->mn, sa->mv, sa->cv);
        if (dB) {
            __m512d S[2];
            smg_sums16((const __m512i *)sf, S);
            double s[16] __attribute__((aligned(64)));
            _mm512_store_pd(s, S[0]);
            _mm512_store_pd(s + 8, S[1]);
            smg_log_sums16(s, sb->sc, (__mmask16)sb->fast);
            for (int r = 0; r < 16; r++)
                if (((sb->fast >> r) & 1u) && s[r] < SM_FAST_LOG_RESUM)
                    sb->sc[r] = (float)FN(row_log_near1)(xb + r * n, n, sb->mv[r]);
        }
        if (dC)
            for (unsigned slow = ~sc->fast & 0xffffu; slow; slow &= slow - 1) {
                const int r = __builtin_ctz(slow);
                FN(fwd_row)(x + tc * bn + r * n, yc + r * n, n, 1, 0, scratch, NULL, NULL, NULL);
            }
    }
}
/* FN(fwd_bpipe) compiled for its row length as a constant. */
static void FN(fwd_bpipe_64)(const SM_CT *x, SM_CT *y, int64_t nb, float *scratch)
{
    FN(fwd_bpipe)(x, y, nb, SM_BPIPE_R, scratch);
}
#endif
#endif /* SMG_BATCH */

/* g rows of n <= SM_GROUP_R_MAX elements; @p scratch holds g * n + VW floats. @p pf_next: the
 * batch kernel may read ahead the rows that follow the g (see FN(fwd_batch); the batches before
 * the last one always read ahead their successor). */
static void FN(fwd_group_pf)(const SM_CT *x, SM_CT *y, int64_t g, int64_t n, int lg, int nt, float *scratch,
                             int pf_next)
{
#ifdef SMG_BATCH
    /* FN(units)'s group size for this row length. The batch kernel's fixed costs (three trees of
     * 16 lanes, the vector division or log) pay off in full batches of 16 rows, and in batches of
     * 8 or more rows of 256 elements or more: every length up to SM_GROUP_R_MAX; smaller groups
     * would keep the group path. The choice depends on n and the type alone, so every row of a
     * tensor takes the same path whatever the block split. */
    int64_t grp = SM_GROUP_ELEMS / (n > 0 ? n : 1);
    grp = grp > SM_GROUP_ROWS ? SM_GROUP_ROWS : grp < 2 ? 2 : grp;
    if (!(grp >= 16 || (grp >= 8 && n >= 256))) {
        FN(group_rows)(x, y, g, n, lg, nt, scratch, 0);
        return;
    }
    for (int64_t r = 0; r < g; r += 16) {
        const int64_t b = g - r < 16 ? g - r : 16;
        const int pf = r + b < g || pf_next;
        switch (n) {
        case 128:
            FN(fwd_batch_128)(x + r * n, y + r * n, b, lg, nt, scratch, pf);
            break;
        case 512:
            FN(fwd_batch_512)(x + r * n, y + r * n, b, lg, nt, scratch, pf);
            break;
        default:
            FN(fwd_batch_any)(x + r * n, y + r * n, b, n, lg, nt, scratch, pf);
        }
    }
#else
    FN(group_rows)(x, y, g, n, lg, nt, scratch, pf_next);
#endif
}

/* FN(units)'s entry: groups follow each other within a block, so the next rows are read ahead. */
static __attribute__((unused)) void FN(fwd_group)(const SM_CT *x, SM_CT *y, int64_t g, int64_t n, int lg, int nt,
                                                  float *scratch)
{
    FN(fwd_group_pf)(x, y, g, n, lg, nt, scratch, 1);
}
#undef SMG_BATCH
#undef SMG_PAIR
