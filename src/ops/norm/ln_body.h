/* Layer / rms norm bodies, included from norm_body.h once per data type (FN, LD, ST... come from there). */
/* ---- layer / rms norm: one unit = rows_per_unit rows ----
 * The [rows, R] tensors of interest are far larger than the caches, so the kernels are written to
 * keep the per-element arithmetic well under the memory time of the element (one read of x and
 * one streaming write of y forward; reads of x and dy and a streaming write of dx backward): the
 * inner loops take full vectors without per-element branches (the few variants are chosen once
 * per row), fp64 sums run in two independent accumulator chains, and the backward adds its
 * gradWeight / gradBias contributions to the fp64 column partials once per block of rows. */

#ifndef LN_BODY_ONCE_
#define LN_BODY_ONCE_
/* Rows per block of the backward's second pass: the block's x and dy rows stay in L2 while each
 * column's gradWeight/gradBias contributions of the block are summed in fp32 and added to the
 * column's fp64 partial once per block. The sums depend on the block boundaries, which depend
 * on the shape only (a unit starts a block). */
#define LN_BWD_BLOCK 4
#endif

/* Forward of one row. pfp: the row to prefetch meanwhile (the next one, or this row when there
 * is none). Its first half is requested during the statistics pass and its second half during
 * the normalisation (which runs from L1/L2), at a steady rate, so memory keeps reading all the
 * time instead of in bursts the core's miss queues cannot hold. */
static void FN(ln_fwd_row)(const nl_args *a, int64_t row, int rms, int nt, const NCT *pfp)
{
    const int64_t R = a->R;
    const NCT *x = (const NCT *)a->x + row * R;
    const float sh = rms ? 0.0f : cannon_norm_ld(x, 0, a->dtype);
    const vf shv = vf_set1(sh);
    /* Two chains: even and odd vectors; the sums are folded in that fixed order. */
    vd s0 = vd_zero(), q0 = vd_zero(), s1 = vd_zero(), q1 = vd_zero();
    int64_t j = 0;
    if (rms) {
        for (; j + 2 * VW <= R; j += 2 * VW) {
            __builtin_prefetch(pfp + j / 2, 0, 2);
            const vf d0 = LD(x, j), d1 = LD(x, j + VW);
            q0 = vd_add_mul(q0, d0, d0);
            q1 = vd_add_mul(q1, d1, d1);
        }
    } else {
        for (; j + 2 * VW <= R; j += 2 * VW) {
            __builtin_prefetch(pfp + j / 2, 0, 2);
            const vf d0 = vf_sub(LD(x, j), shv), d1 = vf_sub(LD(x, j + VW), shv);
            s0 = vd_add(s0, d0);
            q0 = vd_add_mul(q0, d0, d0);
            s1 = vd_add(s1, d1);
            q1 = vd_add_mul(q1, d1, d1);
        }
    }
    for (; j < R; j += VW) {
        const size_t n = (size_t)(R - j < VW ? R - j : VW);
        const vf d = vf_keep(vf_sub(n == VW ? LD(x, j) : LDN(x, j, n), shv), n);
        s0 = vd_add(s0, d);
        q0 = vd_add_mul(q0, d, d);
    }
    const double sm = (vd_hsum(s0) + vd_hsum(s1)) / (double)R, qm = (vd_hsum(q0) + vd_hsum(q1)) / (double)R;
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
    const float *w = a->w, *b = a->b;
    const vf one = vf_set1(1.0f), zero = vf_set1(0.0f);
    const vf mhv = vf_set1(mh), mlv = vf_set1(ml), rv = vf_set1(rstd);
    const NCT *pfq = pfp + R / 2;
    /* The row is still in L1/L2 from the statistics: this second read costs no memory traffic.
     * RmsNorm: x * r * g (the LayerNorm form with mean 0 gives the same bits: x - 0 - 0 == x). */
#define LN_FWD_LOOP(EXPR)                                                                                              \
    do {                                                                                                               \
        if (nt) {                                                                                                      \
            for (j = 0; j + VW <= R; j += VW) {                                                                        \
                __builtin_prefetch(pfq + j / 2, 0, 2);                                                                 \
                const vf v = LD(x, j);                                                                                 \
                SS(y, j, (EXPR));                                                                                      \
            }                                                                                                          \
        } else {                                                                                                       \
            for (j = 0; j + VW <= R; j += VW) {                                                                        \
                __builtin_prefetch(pfq + j / 2, 0, 2);                                                                 \
                const vf v = LD(x, j);                                                                                 \
                ST(y, j, (EXPR));                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
    } while (0)
    if (rms && w)
        LN_FWD_LOOP(vf_mul(vf_mul(v, rv), vf_load_f32(w + j)));
    else if (!rms && w && b)
        LN_FWD_LOOP(vf_fma(vf_mul(vf_sub(vf_sub(v, mhv), mlv), rv), vf_load_f32(w + j), vf_load_f32(b + j)));
    else
        j = 0;
#undef LN_FWD_LOOP
    /* The other weight/bias combinations and the last partial vector. */
    for (; j < R; j += VW) {
        const size_t n = (size_t)(R - j < VW ? R - j : VW);
        vf v = n == VW ? LD(x, j) : LDN(x, j, n);
        vf wv = w ? co_load(w + j, n) : one, bv = b ? co_load(b + j, n) : zero;
        vf t = rms ? vf_mul(v, rv) : vf_mul(vf_sub(vf_sub(v, mhv), mlv), rv);
        t = rms ? vf_mul(t, wv) : vf_fma(t, wv, bv);
        if (n != VW)
            STN(y, j, t, n);
        else if (nt)
            SS(y, j, t);
        else
            ST(y, j, t);
    }
}

/* Backward of the rows [rb, rb + nb) (nb <= LN_BWD_BLOCK). pfx/pfg: the next block's x and dy
 * (or this block's when there is none), the first half of each row requested during the first
 * pass and the second half during the second, so memory reads at a steady rate. */
static void FN(ln_bwd_rows)(const nl_args *a, int64_t rb, int64_t nb, double *pw, double *pb, int rms, int nt,
                            const NCT *pfx, const NCT *pfg)
{
    const int64_t R = a->R;
    const vf one = vf_set1(1.0f);
    const float *w = a->w;
    float mrow[LN_BWD_BLOCK], rrow[LN_BWD_BLOCK], c1row[LN_BWD_BLOCK], c2row[LN_BWD_BLOCK], krow[LN_BWD_BLOCK];
    for (int64_t k = 0; k < nb; k++) {
        const int64_t row = rb + k;
        const NCT *x = (const NCT *)a->x + row * R, *g = (const NCT *)a->g + row * R;
        const float m = rms ? 0.0f : cannon_norm_ld(a->mean, row, a->stat_dtype);
        const float r = cannon_norm_ld(a->rstd, row, a->stat_dtype);
        const vf mv = vf_set1(m), rv = vf_set1(r);
        /* Four vectors at a time: their terms are summed in fp32 (4 per lane), then added to the
         * fp64 sum; c1 and c2 are rounded to fp32 anyway, and this cuts the fp64 work by 4. */
        vd s1a = vd_zero(), s2a = vd_zero();
        int64_t j = 0;
        if (w && rms) {
            for (; j + 4 * VW <= R; j += 4 * VW) {
                __builtin_prefetch(pfx + k * R + j / 2, 0, 2);
                __builtin_prefetch(pfg + k * R + j / 2, 0, 2);
                __builtin_prefetch(pfx + k * R + j / 2 + VW, 0, 2);
                __builtin_prefetch(pfg + k * R + j / 2 + VW, 0, 2);
                const vf p0 = vf_mul(vf_mul(LD(g, j), vf_load_f32(w + j)), LD(x, j));
                const vf p1 = vf_mul(vf_mul(LD(g, j + VW), vf_load_f32(w + j + VW)), LD(x, j + VW));
                const vf p2 = vf_mul(vf_mul(LD(g, j + 2 * VW), vf_load_f32(w + j + 2 * VW)), LD(x, j + 2 * VW));
                const vf p3 = vf_mul(vf_mul(LD(g, j + 3 * VW), vf_load_f32(w + j + 3 * VW)), LD(x, j + 3 * VW));
                s2a = vd_add(s2a, vf_add(vf_add(p0, p1), vf_add(p2, p3)));
            }
        } else if (w) {
            for (; j + 4 * VW <= R; j += 4 * VW) {
                __builtin_prefetch(pfx + k * R + j / 2, 0, 2);
                __builtin_prefetch(pfg + k * R + j / 2, 0, 2);
                __builtin_prefetch(pfx + k * R + j / 2 + VW, 0, 2);
                __builtin_prefetch(pfg + k * R + j / 2 + VW, 0, 2);
                vf gw[4], xh[4];
                for (int i = 0; i < 4; i++) {
                    gw[i] = vf_mul(LD(g, j + i * VW), vf_load_f32(w + j + i * VW));
                    xh[i] = vf_mul(vf_sub(LD(x, j + i * VW), mv), rv);
                }
                s1a = vd_add(s1a, vf_add(vf_add(gw[0], gw[1]), vf_add(gw[2], gw[3])));
                s2a = vd_add(s2a, vf_add(vf_fma(gw[0], xh[0], vf_mul(gw[1], xh[1])),
                                         vf_fma(gw[2], xh[2], vf_mul(gw[3], xh[3]))));
            }
        }
        for (; j < R; j += VW) {
            const size_t n = (size_t)(R - j < VW ? R - j : VW);
            vf v = n == VW ? LD(x, j) : vf_keep(LDN(x, j, n), n);
            vf gv = n == VW ? LD(g, j) : LDN(g, j, n);
            vf gw = vf_mul(gv, w ? co_load(w + j, n) : one);
            if (rms) {
                s2a = vd_add_mul(s2a, gw, v);
            } else {
                vf xh = vf_keep(vf_mul(vf_sub(v, mv), rv), n);
                s1a = vd_add(s1a, gw);
                s2a = vd_add_mul(s2a, gw, xh);
            }
        }
        const double c1 = vd_hsum(s1a) / (double)R, c2 = vd_hsum(s2a) / (double)R;
        mrow[k] = m;
        rrow[k] = r;
        c1row[k] = (float)c1;
        c2row[k] = (float)c2;
        /* RmsNorm: dx = r*dy*g - x * r^3 * c2. */
        krow[k] = -(float)((double)r * r * r * c2);
    }
    NCT *out = (NCT *)a->out;
    const int want_dx = a->want_dx;
    int64_t j = 0;
#if LN_BWD_BLOCK == 4
    if (nb == 4 && w && pw && want_dx) {
        /* Whole blocks (nearly all of them): the per-row constants stay in registers and the
         * loop has no branches. Same operations, in the same order, as the general loop below. */
        const NCT *x = (const NCT *)a->x + rb * R, *g = (const NCT *)a->g + rb * R;
        NCT *o = out + rb * R;
        const vf zero = vf_set1(0.0f);
        const vf r0 = vf_set1(rrow[0]), r1 = vf_set1(rrow[1]), r2 = vf_set1(rrow[2]), r3 = vf_set1(rrow[3]);
        const vf m0 = vf_set1(rms ? krow[0] : mrow[0]), m1 = vf_set1(rms ? krow[1] : mrow[1]),
                 m2 = vf_set1(rms ? krow[2] : mrow[2]), m3 = vf_set1(rms ? krow[3] : mrow[3]);
        const vf a0 = vf_set1(c1row[0]), a1 = vf_set1(c1row[1]), a2 = vf_set1(c1row[2]), a3 = vf_set1(c1row[3]);
        const vf b0 = vf_set1(c2row[0]), b1 = vf_set1(c2row[1]), b2 = vf_set1(c2row[2]), b3 = vf_set1(c2row[3]);
        const NCT *pfx2 = pfx + R / 2, *pfg2 = pfg + R / 2;
#define LN_ROW_LN(K, STM)                                                                                              \
    do {                                                                                                               \
        const int64_t q = K * R + j;                                                                                   \
        const vf v = LD(x, q), gv = LD(g, q), gw = vf_mul(gv, wv);                                                     \
        const vf xh = vf_mul(vf_sub(v, m##K), r##K);                                                                   \
        STM(o, q, vf_mul(r##K, vf_sub(gw, vf_fma(xh, b##K, a##K))));                                                   \
        sc = vf_fma(gv, xh, sc);                                                                                       \
        sg = vf_add(sg, gv);                                                                                           \
    } while (0)
#define LN_ROW_RMS(K, STM)                                                                                             \
    do {                                                                                                               \
        const int64_t q = K * R + j;                                                                                   \
        const vf v = LD(x, q), gv = LD(g, q), gw = vf_mul(gv, wv);                                                     \
        STM(o, q, vf_fma(v, m##K, vf_mul(gw, r##K)));                                                                  \
        sc = vf_fma(gv, vf_mul(v, r##K), sc);                                                                          \
        sg = vf_add(sg, gv);                                                                                           \
    } while (0)
#define LN_BWD_COL(ROWM, STM)                                                                                          \
    do {                                                                                                               \
        const vf wv = vf_load_f32(w + j);                                                                              \
        vf sc = zero, sg = zero;                                                                                       \
        ROWM(0, STM);                                                                                                  \
        ROWM(1, STM);                                                                                                  \
        ROWM(2, STM);                                                                                                  \
        ROWM(3, STM);                                                                                                  \
        vd_st(pw + j, vd_add(vd_ld(pw + j), sc));                                                                      \
        vd_st(pb + j, vd_add(vd_ld(pb + j), sg));                                                                      \
    } while (0)
/* Two column vectors per step: one prefetch per line of the second halves of the next block's
 * rows (8 lines) per 8 lines read. */
#define LN_BWD_LOOP(ROWM, STM)                                                                                         \
    for (; j + 2 * VW <= R; j += VW) {                                                                                 \
        for (int k = 0; k < 4; k++) {                                                                                  \
            __builtin_prefetch(pfx2 + k * R + j / 2, 0, 2);                                                            \
            __builtin_prefetch(pfg2 + k * R + j / 2, 0, 2);                                                            \
        }                                                                                                              \
        LN_BWD_COL(ROWM, STM);                                                                                         \
        j += VW;                                                                                                       \
        LN_BWD_COL(ROWM, STM);                                                                                         \
    }
        if (rms && nt)
            LN_BWD_LOOP(LN_ROW_RMS, SS)
        else if (rms)
            LN_BWD_LOOP(LN_ROW_RMS, ST)
        else if (nt)
            LN_BWD_LOOP(LN_ROW_LN, SS)
        else
            LN_BWD_LOOP(LN_ROW_LN, ST)
#undef LN_BWD_LOOP
#undef LN_BWD_COL
#undef LN_ROW_RMS
#undef LN_ROW_LN
    }
#endif
    for (; j < R; j += VW) {
        const size_t n = (size_t)(R - j < VW ? R - j : VW);
        const vf wv = w ? co_load(w + j, n) : one;
        /* The block's column sums, in fp32 row by row, then added to the fp64 partial: a few
         * terms per fp32 sum, so the error stays far below the fp32 result's rounding. */
        vf sg = vf_set1(0.0f), sc = vf_set1(0.0f);
        for (int64_t k = 0; k < nb; k++) {
            const int64_t off = (rb + k) * R + j;
            const NCT *x = (const NCT *)a->x + off, *g = (const NCT *)a->g + off;
            const vf rv = vf_set1(rrow[k]);
            /* The next block's rows: memory reads overlap this pass. */
            __builtin_prefetch(pfx + k * R + j, 0, 2);
            __builtin_prefetch(pfg + k * R + j, 0, 2);
            const vf v = n == VW ? LD(x, 0) : vf_keep(LDN(x, 0, n), n);
            const vf gv = n == VW ? LD(g, 0) : LDN(g, 0, n);
            const vf gw = vf_mul(gv, wv);
            vf t, col;
            if (rms) {
                t = vf_fma(v, vf_set1(krow[k]), vf_mul(gw, rv));
                col = vf_mul(v, rv); /* dgamma += dy * x * r */
            } else {
                const vf xh = vf_mul(vf_sub(v, vf_set1(mrow[k])), rv);
                /* LayerNorm: dx = r * (dy*w - c1 - xhat*c2). */
                t = vf_mul(rv, vf_sub(gw, vf_fma(xh, vf_set1(c2row[k]), vf_set1(c1row[k]))));
                col = vf_keep(xh, n);
            }
            if (want_dx) {
                if (n != VW)
                    STN(out, off, t, n);
                else if (nt)
                    SS(out, off, t);
                else
                    ST(out, off, t);
            }
            sc = vf_fma(gv, col, sc);
            sg = vf_add(sg, gv);
        }
        if (pw) {
            /* Rp is a multiple of 16, so a full vector always fits; tail lanes add 0. */
            vd_st(pw + j, vd_add(vd_ld(pw + j), sc));
            vd_st(pb + j, vd_add(vd_ld(pb + j), sg));
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
    const NCT *x = (const NCT *)a->x, *g = (const NCT *)a->g;
    if (a->mode == NL_LN_FWD || a->mode == NL_RMS_FWD) {
        for (int64_t row = row0; row < row1; row++)
            FN(ln_fwd_row)(a, row, rms, nt, x + (row + 1 < a->rows ? row + 1 : row) * R);
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
            /* The next block when it is whole and in this unit (the next unit may run on another
             * worker), else this block again (already cached: no memory traffic). */
            const int64_t pr = rb + 2 * nb <= row1 ? rb + nb : rb;
            FN(ln_bwd_rows)(a, rb, nb, pw, pb, rms, nt, x + pr * R, g + pr * R);
        }
    }
    if (nt)
        vf_sfence();
}
