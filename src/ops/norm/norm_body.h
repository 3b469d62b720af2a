/*
 * Norm kernel bodies for one data type: NT is the vec layer's storage-type suffix (f32, f16,
 * bf16) and NCT its C type. Instantiated by norm_impl.h once per dtype.
 */
#define FN(name) NM_CAT(name, NT)
#define LD(p, i) NM_CAT(vf_load, NT)((const NCT *)(p) + (i))
#define LDN(p, i, n) NM_CAT(vf_loadn, NT)((const NCT *)(p) + (i), (n), 0.0f)
#define ST(p, i, v) NM_CAT(vf_store, NT)((NCT *)(p) + (i), (v))
#define STN(p, i, v, n) NM_CAT(vf_storen, NT)((NCT *)(p) + (i), (v), (n))

/* Reduction over one channel and one O-range (I > 1): contiguous runs of I elements. */
static void FN(red_runs)(const nb_args *a, int64_t u)
{
    const int64_t C = a->C, I = a->I, c = u % C, p = u / C;
    const int64_t o0 = p * a->span, o1 = o0 + a->span < a->O ? o0 + a->span : a->O;
    const NCT *x = (const NCT *)a->x, *g = (const NCT *)a->g;
    const int stats = a->mode == NB_RED_STATS;
    /* The shift (first element of the channel) keeps the single-pass variance free of
     * cancellation when |mean| >> std; every partial of the channel uses the same shift. */
    const vf m = vf_set1(stats ? cannon_norm_ld(x, c * I, a->dtype) : a->center[c]);
    vd s0 = vd_zero(), q0 = vd_zero(), s1 = vd_zero(), q1 = vd_zero();
    for (int64_t o = o0; o < o1; o++) {
        const int64_t base = (o * C + c) * I;
        int64_t i = 0;
        if (stats) {
            for (; i + 2 * VW <= I; i += 2 * VW) {
                vf d0 = vf_sub(LD(x, base + i), m), d1 = vf_sub(LD(x, base + i + VW), m);
                s0 = vd_add(s0, d0);
                q0 = vd_add_mul(q0, d0, d0);
                s1 = vd_add(s1, d1);
                q1 = vd_add_mul(q1, d1, d1);
            }
            for (; i < I; i += VW) {
                const size_t n = (size_t)(I - i < VW ? I - i : VW);
                vf d = vf_keep(vf_sub(LDN(x, base + i, n), m), n);
                s0 = vd_add(s0, d);
                q0 = vd_add_mul(q0, d, d);
            }
        } else {
            for (; i + 2 * VW <= I; i += 2 * VW) {
                vf g0 = LD(g, base + i), g1 = LD(g, base + i + VW);
                s0 = vd_add(s0, g0);
                q0 = vd_add_mul(q0, g0, vf_sub(LD(x, base + i), m));
                s1 = vd_add(s1, g1);
                q1 = vd_add_mul(q1, g1, vf_sub(LD(x, base + i + VW), m));
            }
            for (; i < I; i += VW) {
                const size_t n = (size_t)(I - i < VW ? I - i : VW);
                vf gv = LDN(g, base + i, n);
                s0 = vd_add(s0, gv);
                q0 = vd_add_mul(q0, gv, vf_keep(vf_sub(LDN(x, base + i, n), m), n));
            }
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
    for (int64_t c0 = 0; c0 < C; c0 += VW) {
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
VI vf FN(app_one)(const nb_args *a, vf x, vf g, vf mh, vf ml, vf ah, vf al, vf cb, vf ck)
{
#if VW == 1
    /* The scalar tier has no fused multiply-add; double arithmetic gives the same single final
     * rounding the vector tiers get from FMA. */
    double t = cb;
    if (a->use_x) {
        const double d = (double)vf_sub(vf_sub(x, mh), ml);
        t += d * (double)ah + d * (double)al;
    }
    if (a->use_g)
        t += (double)g * (double)ck;
    return (float)t;
#else
    vf t = cb;
    if (a->use_x) {
        vf d = vf_sub(vf_sub(x, mh), ml);
        t = vf_fma(d, ah, vf_fma(d, al, t));
    }
    if (a->use_g)
        t = vf_fma(g, ck, t);
    return t;
#endif
}

static void FN(app_runs)(const nb_args *a, int64_t u)
{
    const int64_t C = a->C, I = a->I, nruns = a->O * C;
    const int64_t r0 = u * a->span, r1 = r0 + a->span < nruns ? r0 + a->span : nruns;
    const float *co = a->co;
    const vf zero = vf_set1(0.0f);
    for (int64_t r = r0; r < r1; r++) {
        const int64_t c = r % C, base = r * I;
        const vf mh = vf_set1(co[c]), ml = vf_set1(co[C + c]), ah = vf_set1(co[2 * C + c]),
                 al = vf_set1(co[5 * C + c]), cb = vf_set1(co[3 * C + c]), ck = vf_set1(co[4 * C + c]);
        int64_t i = 0;
        for (; i + VW <= I; i += VW) {
            vf xv = a->use_x ? LD(a->x, base + i) : zero, gv = a->use_g ? LD(a->g, base + i) : zero;
            ST(a->out, base + i, FN(app_one)(a, xv, gv, mh, ml, ah, al, cb, ck));
        }
        if (i < I) {
            const size_t n = (size_t)(I - i);
            vf xv = a->use_x ? LDN(a->x, base + i, n) : zero, gv = a->use_g ? LDN(a->g, base + i, n) : zero;
            STN(a->out, base + i, FN(app_one)(a, xv, gv, mh, ml, ah, al, cb, ck), n);
        }
    }
}

static void FN(app_rows)(const nb_args *a, int64_t u)
{
    const int64_t C = a->C;
    const int64_t o0 = u * a->span, o1 = o0 + a->span < a->O ? o0 + a->span : a->O;
    const float *co = a->co;
    const vf zero = vf_set1(0.0f);
    for (int64_t o = o0; o < o1; o++) {
        for (int64_t c0 = 0; c0 < C; c0 += VW) {
            const size_t n = (size_t)(C - c0 < VW ? C - c0 : VW);
            const int64_t base = o * C + c0;
            vf mh = co_load(co + c0, n), ml = co_load(co + C + c0, n), ah = co_load(co + 2 * C + c0, n),
               al = co_load(co + 5 * C + c0, n), cb = co_load(co + 3 * C + c0, n), ck = co_load(co + 4 * C + c0, n);
            if (n == VW) {
                vf xv = a->use_x ? LD(a->x, base) : zero, gv = a->use_g ? LD(a->g, base) : zero;
                ST(a->out, base, FN(app_one)(a, xv, gv, mh, ml, ah, al, cb, ck));
            } else {
                vf xv = a->use_x ? LDN(a->x, base, n) : zero, gv = a->use_g ? LDN(a->g, base, n) : zero;
                STN(a->out, base, FN(app_one)(a, xv, gv, mh, ml, ah, al, cb, ck), n);
            }
        }
    }
}

/* ---- layer / rms norm: one unit = rows_per_unit rows ---- */
static void FN(ln_unit)(const nl_args *a, int64_t u)
{
    const int64_t R = a->R, Rp = (R + 15) / 16 * 16;
    const int64_t row0 = u * a->rows_per_unit;
    const int64_t row1 = row0 + a->rows_per_unit < a->rows ? row0 + a->rows_per_unit : a->rows;
    const int rms = a->mode == NL_RMS_FWD || a->mode == NL_RMS_BWD;
    const vf one = vf_set1(1.0f), zero = vf_set1(0.0f);
    double *pw = NULL, *pb = NULL;
    if (a->mode >= NL_LN_BWD && a->want_cols) {
        pw = a->part + (u * 2 + 0) * Rp;
        pb = a->part + (u * 2 + 1) * Rp;
        for (int64_t j = 0; j < Rp; j++)
            pw[j] = pb[j] = 0.0;
    }
    for (int64_t row = row0; row < row1; row++) {
        const NCT *x = (const NCT *)a->x + row * R;
        if (a->mode == NL_LN_FWD || a->mode == NL_RMS_FWD) {
            const float sh = rms ? 0.0f : cannon_norm_ld(x, 0, a->dtype);
            const vf shv = vf_set1(sh);
            vd s = vd_zero(), q = vd_zero();
            int64_t j = 0;
            for (; j + VW <= R; j += VW) {
                vf d = vf_sub(LD(x, j), shv);
                s = vd_add(s, d);
                q = vd_add_mul(q, d, d);
            }
            if (j < R) {
                const size_t n = (size_t)(R - j);
                vf d = vf_keep(vf_sub(LDN(x, j, n), shv), n);
                s = vd_add(s, d);
                q = vd_add_mul(q, d, d);
            }
            const double sm = vd_hsum(s) / (double)R, qm = vd_hsum(q) / (double)R;
            double var = rms ? qm : qm - sm * sm;
            if (var < 0.0)
                var = 0.0;
            const double mean = (double)sh + sm;
            const float rstd = (float)(1.0 / sqrt(var + a->eps));
            const float mh = (float)mean, ml = (float)(mean - (double)mh);
            if (a->mean)
                cannon_norm_st(a->mean, row, a->stat_dtype, rms ? 0.0f : mh);
            if (a->rstd)
                cannon_norm_st(a->rstd, row, a->stat_dtype, rstd);
            NCT *y = (NCT *)a->out + row * R;
            const vf mhv = vf_set1(rms ? 0.0f : mh), mlv = vf_set1(rms ? 0.0f : ml), rv = vf_set1(rstd);
            for (j = 0; j < R; j += VW) {
                const size_t n = (size_t)(R - j < VW ? R - j : VW);
                vf v = n == VW ? LD(x, j) : LDN(x, j, n);
                vf w = a->w ? co_load(a->w + j, n) : one, b = a->b ? co_load(a->b + j, n) : zero;
                vf t = vf_mul(vf_sub(vf_sub(v, mhv), mlv), rv);
                t = rms ? vf_mul(t, w) : vf_fma(t, w, b);
                if (n == VW)
                    ST(y, j, t);
                else
                    STN(y, j, t, n);
            }
        } else {
            const NCT *g = (const NCT *)a->g + row * R;
            const float m = rms ? 0.0f : cannon_norm_ld(a->mean, row, a->stat_dtype);
            const float r = cannon_norm_ld(a->rstd, row, a->stat_dtype);
            const vf mv = vf_set1(m), rv = vf_set1(r);
            vd s1 = vd_zero(), s2 = vd_zero();
            for (int64_t j = 0; j < R; j += VW) {
                const size_t n = (size_t)(R - j < VW ? R - j : VW);
                vf v = n == VW ? LD(x, j) : vf_keep(LDN(x, j, n), n);
                vf gv = n == VW ? LD(g, j) : LDN(g, j, n);
                vf w = a->w ? co_load(a->w + j, n) : one;
                vf gw = vf_mul(gv, w);
                if (rms) {
                    s2 = vd_add_mul(s2, gw, v);
                } else {
                    vf xh = vf_keep(vf_mul(vf_sub(v, mv), rv), n);
                    s1 = vd_add(s1, gw);
                    s2 = vd_add_mul(s2, gw, xh);
                }
            }
            const double c1 = vd_hsum(s1) / (double)R, c2 = vd_hsum(s2) / (double)R;
            /* LayerNorm: dx = r * (dy*w - c1 - xhat*c2); RmsNorm: dx = r*dy*g - x * r^3 * c2. */
            const vf c1v = vf_set1((float)c1), c2v = vf_set1((float)c2);
            const vf kv = vf_set1((float)((double)r * r * r * c2)), nkv = vf_set1(-(float)((double)r * r * r * c2));
            (void)kv;
            NCT *dx = a->want_dx ? (NCT *)a->out + row * R : NULL;
            for (int64_t j = 0; j < R; j += VW) {
                const size_t n = (size_t)(R - j < VW ? R - j : VW);
                vf v = n == VW ? LD(x, j) : vf_keep(LDN(x, j, n), n);
                vf gv = n == VW ? LD(g, j) : LDN(g, j, n);
                vf w = a->w ? co_load(a->w + j, n) : one;
                vf gw = vf_mul(gv, w), t, col;
                if (rms) {
                    t = vf_fma(v, nkv, vf_mul(gw, rv));
                    col = vf_mul(v, rv); /* dgamma += dy * x * r */
                } else {
                    vf xh = vf_mul(vf_sub(v, mv), rv);
                    t = vf_mul(rv, vf_sub(gw, vf_fma(xh, c2v, c1v)));
                    col = vf_keep(xh, n);
                }
                if (dx) {
                    if (n == VW)
                        ST(dx, j, t);
                    else
                        STN(dx, j, t, n);
                }
                if (pw) {
                    /* Rp is a multiple of 16, so a full vector always fits; tail lanes add 0. */
                    vd_st(pw + j, vd_add_mul(vd_ld(pw + j), gv, col));
                    vd_st(pb + j, vd_add(vd_ld(pb + j), gv));
                }
            }
        }
    }
}

#undef FN
#undef LD
#undef LDN
#undef ST
#undef STN
