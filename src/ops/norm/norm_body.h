/*
 * Norm kernel bodies for one data type: NT is the vec layer's storage-type suffix (f32, f16,
 * bf16) and NCT its C type. Instantiated by norm_impl.h once per dtype.
 */
#define FN(name) NM_CAT(name, NT)
#define LD(p, i) NM_CAT(vf_load, NT)((const NCT *)(p) + (i))
#define LDN(p, i, n) NM_CAT(vf_loadn, NT)((const NCT *)(p) + (i), (n), 0.0f)
#define ST(p, i, v) NM_CAT(vf_store, NT)((NCT *)(p) + (i), (v))
#define STN(p, i, v, n) NM_CAT(vf_storen, NT)((NCT *)(p) + (i), (v), (n))
#define SS(p, i, v) NM_CAT(vf_stream, NT)((NCT *)(p) + (i), (v))

/* One run of I elements at x (and g) into the accumulators; with pf, the data pfd elements ahead
 * (the same run of the channel this worker does next) are prefetched into L2 as the run is read,
 * so memory keeps streaming while the sums are computed from L2. The sums are the same either
 * way. Always inlined with constant stats/pf. */
VI void FN(red_run_k)(const NCT *x, const NCT *g, int64_t I, vf m, vd *s0, vd *q0, vd *s1, vd *q1, const int stats,
                      const int pf, int64_t pfd)
{
    int64_t i = 0;
    if (stats) {
        for (; i + 2 * VW <= I; i += 2 * VW) {
            if (pf) {
                __builtin_prefetch(x + i + pfd, 0, 2);
                __builtin_prefetch(x + i + VW + pfd, 0, 2);
            }
            vf d0 = vf_sub(LD(x, i), m), d1 = vf_sub(LD(x, i + VW), m);
            *s0 = vd_add(*s0, d0);
            *q0 = vd_add_mul(*q0, d0, d0);
            *s1 = vd_add(*s1, d1);
            *q1 = vd_add_mul(*q1, d1, d1);
        }
        for (; i < I; i += VW) {
            const size_t n = (size_t)(I - i < VW ? I - i : VW);
            if (pf)
                __builtin_prefetch(x + i + pfd, 0, 2);
            vf d = vf_keep(vf_sub(LDN(x, i, n), m), n);
            *s0 = vd_add(*s0, d);
            *q0 = vd_add_mul(*q0, d, d);
        }
    } else {
        for (; i + 2 * VW <= I; i += 2 * VW) {
            if (pf) {
                __builtin_prefetch(x + i + pfd, 0, 2);
                __builtin_prefetch(x + i + VW + pfd, 0, 2);
                __builtin_prefetch(g + i + pfd, 0, 2);
                __builtin_prefetch(g + i + VW + pfd, 0, 2);
            }
            vf g0 = LD(g, i), g1 = LD(g, i + VW);
            *s0 = vd_add(*s0, g0);
            *q0 = vd_add_mul(*q0, g0, vf_sub(LD(x, i), m));
            *s1 = vd_add(*s1, g1);
            *q1 = vd_add_mul(*q1, g1, vf_sub(LD(x, i + VW), m));
        }
        for (; i < I; i += VW) {
            const size_t n = (size_t)(I - i < VW ? I - i : VW);
            if (pf) {
                __builtin_prefetch(x + i + pfd, 0, 2);
                __builtin_prefetch(g + i + pfd, 0, 2);
            }
            vf gv = LDN(g, i, n);
            *s0 = vd_add(*s0, gv);
            *q0 = vd_add_mul(*q0, gv, vf_keep(vf_sub(LDN(x, i, n), m), n));
        }
    }
}

/* Reduction over one channel and one O-range (I > 1): contiguous runs of I elements. Runs
 * o < pf_split also prefetch channel c + pf_step (see red_run_k; pf_step 0: none). */
static void FN(red_runs)(const nb_args *a, int64_t u)
{
    const int64_t C = a->C, I = a->I, c = u % C, p = u / C;
    const int64_t o0 = p * a->span, o1 = o0 + a->span < a->O ? o0 + a->span : a->O;
    const NCT *x = (const NCT *)a->x, *g = (const NCT *)a->g;
    const int stats = a->mode == NB_RED_STATS;
    const int64_t pfo = a->pf_step > 0 && c + a->pf_step < C ? a->pf_split : 0, pfd = a->pf_step * I;
    /* The shift (first element of the channel) keeps the single-pass variance free of
     * cancellation when |mean| >> std; every partial of the channel uses the same shift. */
    const vf m = vf_set1(stats ? cannon_norm_ld(x, c * I, a->dtype) : a->center[c]);
    vd s0 = vd_zero(), q0 = vd_zero(), s1 = vd_zero(), q1 = vd_zero();
    for (int64_t o = o0; o < o1; o++) {
        const int64_t base = (o * C + c) * I;
        const NCT *xr = x + base, *gr = stats ? NULL : g + base;
        if (stats) {
            if (o < pfo)
                FN(red_run_k)(xr, gr, I, m, &s0, &q0, &s1, &q1, 1, 1, pfd);
            else
                FN(red_run_k)(xr, gr, I, m, &s0, &q0, &s1, &q1, 1, 0, 0);
        } else {
            if (o < pfo)
                FN(red_run_k)(xr, gr, I, m, &s0, &q0, &s1, &q1, 0, 1, pfd);
            else
                FN(red_run_k)(xr, gr, I, m, &s0, &q0, &s1, &q1, 0, 0, 0);
        }
    }
    a->part[(p * 2 + 0) * C + c] = vd_hsum(s0) + vd_hsum(s1);
    a->part[(p * 2 + 1) * C + c] = vd_hsum(q0) + vd_hsum(q1);
}

/* Reduction over a range of rows of channels-last data (I == 1): one vector of channels at a
 * time down the rows; the rows of a unit (about 128 KiB) stay in L2 between channel vectors. */
static void FN(red_rows)(const nb_args *a, int64_t p)
{
    const int64_t C = a->C;
    const int64_t o0 = p * a->span, o1 = o0 + a->span < a->O ? o0 + a->span : a->O;
    const NCT *x = (const NCT *)a->x, *g = (const NCT *)a->g;
    const int stats = a->mode == NB_RED_STATS;
    double tmp[2][16];
    int64_t c0 = 0;
    /* Four vectors of channels at a time, their accumulators in registers: each row's 4*VW
     * channels are contiguous, so the unit is read in fewer, longer pieces. Every lane still adds
     * its rows in increasing order, exactly as the one-vector loop below does. */
    /* Rows wider than one sweep's channels are read in several sweeps down the unit; the first
     * one prefetches whole rows ahead, so memory streams the unit in order once and the later
     * sweeps read it from L2 (the sums are unchanged). */
    const int64_t row_lines = C * (int64_t)sizeof(NCT) / 64;
    const int wide = C > 4 * VW;
    if (wide && VW > 1) {
        /* Wide rows: one row at a time, in memory order, one vector of channels after another,
         * each vector's accumulators kept in the partials between rows (an fp64 store and reload
         * is exact, so every lane still adds its rows in increasing order from 0: the same bits
         * as the sweeps below). The hardware prefetchers then stream the unit as they do a
         * copy's, while the sweeps' pattern (a few lines of each row, then the unit again from
         * L2) left memory idle during the arithmetic: 1 thread, [64,256,14,14] channels-last,
         * from memory, 0.16-0.17 against 0.21-0.22 ns per element for the statistics and
         * 0.26-0.28 against 0.38-0.39 for the backward sums (bench_norm_kern). Blocks of 2 or 4
         * rows taken a vector at a time were slower than either (0.33-0.65). */
        double *ps = a->part + (p * 2 + 0) * C, *pq = a->part + (p * 2 + 1) * C;
        for (int64_t c = 0; c < C; c++)
            ps[c] = pq[c] = 0.0;
        const int64_t Cv = C / VW * VW;
        const size_t nt = (size_t)(C - Cv);
        vf mt = vf_set1(0.0f);
        if (nt)
            mt = stats ? LDN(x, Cv, nt) : co_load(a->center + Cv, nt);
        for (int64_t o = o0; o < o1; o++) {
            const int64_t b = o * C;
            for (int64_t c = 0; c < Cv; c += VW) {
                const vf m = stats ? LD(x, c) : co_load(a->center + c, VW);
                vd s = vd_ld(ps + c), q = vd_ld(pq + c);
                if (stats) {
                    vf d = vf_sub(LD(x, b + c), m);
                    s = vd_add(s, d);
                    q = vd_add_mul(q, d, d);
                } else {
                    vf gv = LD(g, b + c);
                    s = vd_add(s, gv);
                    q = vd_add_mul(q, gv, vf_sub(LD(x, b + c), m));
                }
                vd_st(ps + c, s);
                vd_st(pq + c, q);
            }
            if (nt) {
                /* The last channels through a zero-padded copy of their partials. */
                for (int64_t j = 0; j < VW; j++) {
                    tmp[0][j] = j < (int64_t)nt ? ps[Cv + j] : 0.0;
                    tmp[1][j] = j < (int64_t)nt ? pq[Cv + j] : 0.0;
                }
                vd s = vd_ld(tmp[0]), q = vd_ld(tmp[1]);
                if (stats) {
                    vf d = vf_keep(vf_sub(LDN(x, b + Cv, nt), mt), nt);
                    s = vd_add(s, d);
                    q = vd_add_mul(q, d, d);
                } else {
                    vf gv = LDN(g, b + Cv, nt);
                    s = vd_add(s, gv);
                    q = vd_add_mul(q, gv, vf_keep(vf_sub(LDN(x, b + Cv, nt), mt), nt));
                }
                vd_st(tmp[0], s);
                vd_st(tmp[1], q);
                for (size_t j = 0; j < nt; j++) {
                    ps[Cv + (int64_t)j] = tmp[0][j];
                    pq[Cv + (int64_t)j] = tmp[1][j];
                }
            }
        }
        return;
    }
    for (; c0 + 4 * VW <= C; c0 += 4 * VW) {
        vf m[4];
        for (int k = 0; k < 4; k++)
            m[k] = stats ? LD(x, c0 + k * VW) : co_load(a->center + c0 + k * VW, VW);
        vd s0 = vd_zero(), s1 = vd_zero(), s2 = vd_zero(), s3 = vd_zero();
        vd q0 = vd_zero(), q1 = vd_zero(), q2 = vd_zero(), q3 = vd_zero();
        const int pfr = wide && c0 == 0;
        if (stats) {
            for (int64_t o = o0; o < o1; o++) {
                const int64_t b = o * C + c0;
                if (pfr && o + NB_PF_ROWS < o1)
                    for (int64_t l = 0; l < row_lines; l++)
                        __builtin_prefetch((const char *)(x + (o + NB_PF_ROWS) * C) + 64 * l, 0, 2);
                vf d0 = vf_sub(LD(x, b), m[0]), d1 = vf_sub(LD(x, b + VW), m[1]);
                vf d2 = vf_sub(LD(x, b + 2 * VW), m[2]), d3 = vf_sub(LD(x, b + 3 * VW), m[3]);
                s0 = vd_add(s0, d0);
                q0 = vd_add_mul(q0, d0, d0);
                s1 = vd_add(s1, d1);
                q1 = vd_add_mul(q1, d1, d1);
                s2 = vd_add(s2, d2);
                q2 = vd_add_mul(q2, d2, d2);
                s3 = vd_add(s3, d3);
                q3 = vd_add_mul(q3, d3, d3);
            }
        } else {
            for (int64_t o = o0; o < o1; o++) {
                const int64_t b = o * C + c0;
                if (pfr && o + NB_PF_ROWS < o1)
                    for (int64_t l = 0; l < row_lines; l++) {
                        __builtin_prefetch((const char *)(x + (o + NB_PF_ROWS) * C) + 64 * l, 0, 2);
                        __builtin_prefetch((const char *)(g + (o + NB_PF_ROWS) * C) + 64 * l, 0, 2);
                    }
                vf g0 = LD(g, b), g1 = LD(g, b + VW), g2 = LD(g, b + 2 * VW), g3 = LD(g, b + 3 * VW);
                s0 = vd_add(s0, g0);
                q0 = vd_add_mul(q0, g0, vf_sub(LD(x, b), m[0]));
                s1 = vd_add(s1, g1);
                q1 = vd_add_mul(q1, g1, vf_sub(LD(x, b + VW), m[1]));
                s2 = vd_add(s2, g2);
                q2 = vd_add_mul(q2, g2, vf_sub(LD(x, b + 2 * VW), m[2]));
                s3 = vd_add(s3, g3);
                q3 = vd_add_mul(q3, g3, vf_sub(LD(x, b + 3 * VW), m[3]));
            }
        }
        const vd sv[4] = {s0, s1, s2, s3}, qv[4] = {q0, q1, q2, q3};
        for (int k = 0; k < 4; k++) {
            vd_store(tmp[0], sv[k]);
            vd_store(tmp[1], qv[k]);
            for (int64_t j = 0; j < VW; j++) {
                a->part[(p * 2 + 0) * C + c0 + k * VW + j] = tmp[0][j];
                a->part[(p * 2 + 1) * C + c0 + k * VW + j] = tmp[1][j];
            }
        }
    }
    for (; c0 < C; c0 += VW) {
        const size_t n = (size_t)(C - c0 < VW ? C - c0 : VW);
        vf m;
        if (stats)
            m = LDN(x, c0, n); /* row 0 holds each channel's shift */
        else
            m = co_load(a->center + c0, n);
        vd s = vd_zero(), q = vd_zero();
        if (n == VW) {
            for (int64_t o = o0; o < o1; o++) {
                vf v = LD(x, o * C + c0);
                if (stats) {
                    vf d = vf_sub(v, m);
                    s = vd_add(s, d);
                    q = vd_add_mul(q, d, d);
                } else {
                    vf gv = LD(g, o * C + c0);
                    s = vd_add(s, gv);
                    q = vd_add_mul(q, gv, vf_sub(v, m));
                }
            }
        } else {
            for (int64_t o = o0; o < o1; o++) {
                vf v = LDN(x, o * C + c0, n);
                if (stats) {
                    vf d = vf_keep(vf_sub(v, m), n);
                    s = vd_add(s, d);
                    q = vd_add_mul(q, d, d);
                } else {
                    vf gv = LDN(g, o * C + c0, n);
                    s = vd_add(s, gv);
                    q = vd_add_mul(q, gv, vf_keep(vf_sub(v, m), n));
                }
            }
        }
        vd_store(tmp[0], s);
        vd_store(tmp[1], q);
        for (size_t j = 0; j < n; j++) {
            a->part[(p * 2 + 0) * C + c0 + (int64_t)j] = tmp[0][j];
            a->part[(p * 2 + 1) * C + c0 + (int64_t)j] = tmp[1][j];
        }
    }
}

/* out = [((x - mh) - ml) * (ah + al)] + b + [g * k]: mh + ml is the mean and ah + al the scale,
 * each split into two floats, so x - mean loses nothing when |mean| >> std (x - mh is exact near
 * the mean) and the scale's rounding does not add to the output's. */
VI vf FN(app_one)(int ux, int ug, vf x, vf g, vf mh, vf ml, vf ah, vf al, vf cb, vf ck)
{
#if VW == 1
    /* The scalar tier has no fused multiply-add; double arithmetic gives the same single final
     * rounding the vector tiers get from FMA. */
    double t = cb;
    if (ux) {
        const double d = (double)vf_sub(vf_sub(x, mh), ml);
        t += d * (double)ah + d * (double)al;
    }
    if (ug)
        t += (double)g * (double)ck;
    return (float)t;
#else
    vf t = cb;
    if (ux) {
        vf d = vf_sub(vf_sub(x, mh), ml);
        t = vf_fma(d, ah, vf_fma(d, al, t));
    }
    if (ug)
        t = vf_fma(g, ck, t);
    return t;
#endif
}

/* out[base .. base+len) for one channel's coefficients. With nt, the full vectors from the first
 * 64-byte boundary on are written with streaming stores: the output then goes to memory without
 * being read into the cache first (the values are the same either way). With pf, the data pf
 * elements ahead are prefetched into L2 as the span is processed. Always inlined with constant
 * ux/ug, and every pointer is a local: vector stores may alias anything, so fields read through
 * @p a would be reloaded on every iteration. */
VI void FN(app_span_k)(const NCT *x, const NCT *g, NCT *out, int64_t len, vf mh, vf ml, vf ah, vf al, vf cb, vf ck,
                       int nt, int64_t pf, const int ux, const int ug)
{
    const vf zero = vf_set1(0.0f);
    int64_t i = 0;
    if (nt) {
        const uintptr_t addr = (uintptr_t)out;
        int64_t head = (int64_t)(((64 - addr % 64) % 64) / sizeof(NCT));
        if (head > len)
            head = len;
        while (i < head) {
            const size_t n = (size_t)(head - i < VW ? head - i : VW);
            vf xv = ux ? LDN(x, i, n) : zero, gv = ug ? LDN(g, i, n) : zero;
            STN(out, i, FN(app_one)(ux, ug, xv, gv, mh, ml, ah, al, cb, ck), n);
            i += (int64_t)n;
        }
        if (pf) {
            for (; i + VW <= len; i += VW) {
                vf xv = ux ? LD(x, i) : zero, gv = ug ? LD(g, i) : zero;
                /* Pull the next channel's data into L2 while this one is computed from L2: the
                 * memory reads overlap this pass instead of following it. */
                if (ux)
                    __builtin_prefetch(x + i + pf, 0, 2);
                if (ug)
                    __builtin_prefetch(g + i + pf, 0, 2);
                SS(out, i, FN(app_one)(ux, ug, xv, gv, mh, ml, ah, al, cb, ck));
            }
        } else {
            for (; i + VW <= len; i += VW) {
                vf xv = ux ? LD(x, i) : zero, gv = ug ? LD(g, i) : zero;
                SS(out, i, FN(app_one)(ux, ug, xv, gv, mh, ml, ah, al, cb, ck));
            }
        }
    }
    if (pf) {
        for (; i + VW <= len; i += VW) {
            vf xv = ux ? LD(x, i) : zero, gv = ug ? LD(g, i) : zero;
            if (ux)
                __builtin_prefetch(x + i + pf, 0, 2);
            if (ug)
                __builtin_prefetch(g + i + pf, 0, 2);
            ST(out, i, FN(app_one)(ux, ug, xv, gv, mh, ml, ah, al, cb, ck));
        }
    }
    for (; i + VW <= len; i += VW) {
        vf xv = ux ? LD(x, i) : zero, gv = ug ? LD(g, i) : zero;
        ST(out, i, FN(app_one)(ux, ug, xv, gv, mh, ml, ah, al, cb, ck));
    }
    if (i < len) {
        const size_t n = (size_t)(len - i);
        vf xv = ux ? LDN(x, i, n) : zero, gv = ug ? LDN(g, i, n) : zero;
        STN(out, i, FN(app_one)(ux, ug, xv, gv, mh, ml, ah, al, cb, ck), n);
    }
}

static inline void FN(app_span)(const nb_args *a, int64_t base, int64_t len, vf mh, vf ml, vf ah, vf al, vf cb,
                                vf ck, int nt, int64_t pf)
{
    const NCT *x = a->use_x ? (const NCT *)a->x + base : NULL, *g = a->use_g ? (const NCT *)a->g + base : NULL;
    NCT *out = (NCT *)a->out + base;
    if (a->use_x && a->use_g)
        FN(app_span_k)(x, g, out, len, mh, ml, ah, al, cb, ck, nt, pf, 1, 1);
    else if (a->use_x)
        FN(app_span_k)(x, g, out, len, mh, ml, ah, al, cb, ck, nt, pf, 1, 0);
    else
        FN(app_span_k)(x, g, out, len, mh, ml, ah, al, cb, ck, nt, pf, 0, 1);
}

static void FN(app_runs)(const nb_args *a, int64_t u)
{
    const int64_t C = a->C, I = a->I, nruns = a->O * C;
    const int64_t r0 = u * a->span, r1 = r0 + a->span < nruns ? r0 + a->span : nruns;
    const float *co = a->co;
    for (int64_t r = r0; r < r1; r++) {
        const int64_t c = r % C;
        FN(app_span)(a, r * I, I, vf_set1(co[c]), vf_set1(co[C + c]), vf_set1(co[2 * C + c]), vf_set1(co[5 * C + c]),
                     vf_set1(co[3 * C + c]), vf_set1(co[4 * C + c]), a->nt, 0);
    }
}

/* Every run (o, c) of channel c (channel-first data). */
static void FN(app_chan)(const nb_args *a, int64_t c)
{
    const int64_t C = a->C, I = a->I;
    const float *co = a->co;
    const vf mh = vf_set1(co[c]), ml = vf_set1(co[C + c]), ah = vf_set1(co[2 * C + c]), al = vf_set1(co[5 * C + c]),
             cb = vf_set1(co[3 * C + c]), ck = vf_set1(co[4 * C + c]);
    /* Channel c + pf_step's run (o, c + pf_step) starts pf_step * I elements after run (o, c);
     * runs before pf_split were prefetched during the reduction. */
    const int64_t pf = a->pf_step > 0 && c + a->pf_step < C ? a->pf_step * I : 0;
    for (int64_t o = 0; o < a->O; o++)
        FN(app_span)(a, (o * C + c) * I, I, mh, ml, ah, al, cb, ck, a->nt, o < a->pf_split ? 0 : pf);
}

/* Channels-last rows of a unit (I == 1), row by row (sequential in memory; the coefficient
 * vectors come from L1). Pointers are locals and ux/ug constants: see app_span_k. */
VI void FN(app_rows_k)(const NCT *x, const NCT *g, NCT *out, const float *co, int64_t C, int64_t o0, int64_t o1,
                       int nt, const int ux, const int ug)
{
    const vf zero = vf_set1(0.0f);
    const int64_t Cf = C / VW * VW;
    for (int64_t o = o0; o < o1; o++) {
        int64_t c0 = 0;
        for (; c0 < Cf; c0 += VW) {
            const int64_t base = o * C + c0;
            const vf mh = vf_load_f32(co + c0), ml = vf_load_f32(co + C + c0), ah = vf_load_f32(co + 2 * C + c0),
                     al = vf_load_f32(co + 5 * C + c0), cb = vf_load_f32(co + 3 * C + c0),
                     ck = vf_load_f32(co + 4 * C + c0);
            vf xv = ux ? LD(x, base) : zero, gv = ug ? LD(g, base) : zero;
            if (nt)
                SS(out, base, FN(app_one)(ux, ug, xv, gv, mh, ml, ah, al, cb, ck));
            else
                ST(out, base, FN(app_one)(ux, ug, xv, gv, mh, ml, ah, al, cb, ck));
        }
        if (c0 < C) {
            const size_t n = (size_t)(C - c0);
            const int64_t base = o * C + c0;
            const vf mh = co_load(co + c0, n), ml = co_load(co + C + c0, n), ah = co_load(co + 2 * C + c0, n),
                     al = co_load(co + 5 * C + c0, n), cb = co_load(co + 3 * C + c0, n),
                     ck = co_load(co + 4 * C + c0, n);
            vf xv = ux ? LDN(x, base, n) : zero, gv = ug ? LDN(g, base, n) : zero;
            STN(out, base, FN(app_one)(ux, ug, xv, gv, mh, ml, ah, al, cb, ck), n);
        }
    }
}

static void FN(app_rows)(const nb_args *a, int64_t u)
{
    const int64_t C = a->C;
    const int64_t o0 = u * a->span, o1 = o0 + a->span < a->O ? o0 + a->span : a->O;
    /* Streaming stores only when every row starts on a 64-byte boundary, so each full vector is
     * aligned and no cache line is shared between streaming and ordinary stores. */
    const int nt = a->nt && (uintptr_t)a->out % 64 == 0 && (C * (int64_t)sizeof(NCT)) % 64 == 0;
    const NCT *x = (const NCT *)a->x, *g = (const NCT *)a->g;
    NCT *out = (NCT *)a->out;
    if (a->use_x && a->use_g)
        FN(app_rows_k)(x, g, out, a->co, C, o0, o1, nt, 1, 1);
    else if (a->use_x)
        FN(app_rows_k)(x, g, out, a->co, C, o0, o1, nt, 1, 0);
    else
        FN(app_rows_k)(x, g, out, a->co, C, o0, o1, nt, 0, 1);
}

#include "ln_body.h"

#undef FN
#undef LD
#undef LDN
#undef ST
#undef STN
#undef SS
