/* Layer / rms norm bodies, included from norm_body.h once per data type (FN, LD, ST... come from there). */
/* ---- layer / rms norm: one unit = rows_per_unit rows ---- */
static void FN(ln_fwd_row)(const nl_args *a, int64_t row, int rms, int nt, int pf)
{
    const int64_t R = a->R;
    const vf one = vf_set1(1.0f), zero = vf_set1(0.0f);
    const NCT *x = (const NCT *)a->x + row * R;
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
    /* The row is still in L1/L2 from the statistics: this second read costs no memory traffic.
     * With pf, the next row is prefetched meanwhile, so memory keeps reading during this pass. */
    for (j = 0; j < R; j += VW) {
        const size_t n = (size_t)(R - j < VW ? R - j : VW);
        if (pf)
            __builtin_prefetch(x + R + j, 0, 2);
        vf v = n == VW ? LD(x, j) : LDN(x, j, n);
        vf w = a->w ? co_load(a->w + j, n) : one, b = a->b ? co_load(a->b + j, n) : zero;
        vf t = vf_mul(vf_sub(vf_sub(v, mhv), mlv), rv);
        t = rms ? vf_mul(t, w) : vf_fma(t, w, b);
        if (n != VW)
            STN(y, j, t, n);
        else if (nt)
            SS(y, j, t);
        else
            ST(y, j, t);
    }
}

/* Rows per block of the backward's second pass: the block's x and dy rows stay in L2 while each
 * column vector of the gradWeight/gradBias partials is loaded once per block, not once per row. */
#define LN_BWD_BLOCK 4

static void FN(ln_bwd_rows)(const nl_args *a, int64_t rb, int64_t nb, double *pw, double *pb, int rms, int nt,
                            int pf)
{
    const int64_t R = a->R;
    const vf one = vf_set1(1.0f);
    float mrow[LN_BWD_BLOCK], rrow[LN_BWD_BLOCK], c1row[LN_BWD_BLOCK], c2row[LN_BWD_BLOCK], krow[LN_BWD_BLOCK];
    for (int64_t k = 0; k < nb; k++) {
        const int64_t row = rb + k;
        const NCT *x = (const NCT *)a->x + row * R, *g = (const NCT *)a->g + row * R;
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
        mrow[k] = m;
        rrow[k] = r;
        c1row[k] = (float)c1;
        c2row[k] = (float)c2;
        /* RmsNorm: dx = r*dy*g - x * r^3 * c2. */
        krow[k] = -(float)((double)r * r * r * c2);
    }
    for (int64_t j = 0; j < R; j += VW) {
        const size_t n = (size_t)(R - j < VW ? R - j : VW);
        const vf w = a->w ? co_load(a->w + j, n) : one;
        vd aw = vd_zero(), ab = vd_zero();
        if (pw) {
            aw = vd_ld(pw + j);
            ab = vd_ld(pb + j);
        }
        for (int64_t k = 0; k < nb; k++) {
            const int64_t row = rb + k;
            const NCT *x = (const NCT *)a->x + row * R, *g = (const NCT *)a->g + row * R;
            const vf rv = vf_set1(rrow[k]);
            if (pf) {
                /* The next block's rows (nb rows on): memory reads overlap this pass. */
                __builtin_prefetch(x + nb * R + j, 0, 2);
                __builtin_prefetch(g + nb * R + j, 0, 2);
            }
            vf v = n == VW ? LD(x, j) : vf_keep(LDN(x, j, n), n);
            vf gv = n == VW ? LD(g, j) : LDN(g, j, n);
            vf gw = vf_mul(gv, w), t, col;
            if (rms) {
                t = vf_fma(v, vf_set1(krow[k]), vf_mul(gw, rv));
                col = vf_mul(v, rv); /* dgamma += dy * x * r */
            } else {
                vf xh = vf_mul(vf_sub(v, vf_set1(mrow[k])), rv);
                /* LayerNorm: dx = r * (dy*w - c1 - xhat*c2). */
                t = vf_mul(rv, vf_sub(gw, vf_fma(xh, vf_set1(c2row[k]), vf_set1(c1row[k]))));
                col = vf_keep(xh, n);
            }
            if (a->want_dx) {
                NCT *dx = (NCT *)a->out + row * R;
                if (n != VW)
                    STN(dx, j, t, n);
                else if (nt)
                    SS(dx, j, t);
                else
                    ST(dx, j, t);
            }
            if (pw) {
                /* Row by row into the same fp64 lanes: the order of the column sums is the row
                 * order whatever the block size. */
                aw = vd_add_mul(aw, gv, col);
                ab = vd_add(ab, gv);
            }
        }
        if (pw) {
            /* Rp is a multiple of 16, so a full vector always fits; tail lanes add 0. */
            vd_st(pw + j, aw);
            vd_st(pb + j, ab);
        }
    }
}

static void FN(ln_unit)(const nl_args *a, int64_t u)
{
    const int64_t R = a->R, Rp = (R + 15) / 16 * 16;
    const int64_t row0 = u * a->rows_per_unit;
    const int64_t row1 = row0 + a->rows_per_unit < a->rows ? row0 + a->rows_per_unit : a->rows;
    const int rms = a->mode == NL_RMS_FWD || a->mode == NL_RMS_BWD;
    /* Streaming stores when every row starts on a 64-byte boundary (then every full vector is
     * aligned and no line mixes streaming and ordinary stores). */
    const int nt = a->nt && a->out && (uintptr_t)a->out % 64 == 0 && (R * (int64_t)sizeof(NCT)) % 64 == 0;
    if (a->mode == NL_LN_FWD || a->mode == NL_RMS_FWD) {
        for (int64_t row = row0; row < row1; row++)
            FN(ln_fwd_row)(a, row, rms, nt, row + 1 < a->rows);
    } else {
        double *pw = NULL, *pb = NULL;
        if (a->want_cols) {
            pw = a->part + (u * 2 + 0) * Rp;
            pb = a->part + (u * 2 + 1) * Rp;
            for (int64_t j = 0; j < Rp; j++)
                pw[j] = pb[j] = 0.0;
        }
        for (int64_t rb = row0; rb < row1; rb += LN_BWD_BLOCK) {
            const int64_t nb = row1 - rb < LN_BWD_BLOCK ? row1 - rb : LN_BWD_BLOCK;
            FN(ln_bwd_rows)(a, rb, nb, pw, pb, rms, nt, rb + 2 * nb <= row1);
        }
    }
    if (nt)
        vf_sfence();
}

#undef LN_BWD_BLOCK
