/* Channels-last (NHWC, I == 1) batch-norm bodies: the reduction over a unit of rows and the
 * elementwise pass row by row. Included from norm_body.h once per data type (FN, LD, ST,
 * app_one... come from there). */

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
         * L2) leaves memory idle during the arithmetic. Blocks of 2 or 4 rows taken a vector at
         * a time are slower than either. */
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
            const vf cm = vf_load_f32(co + NM_CO_M * C + c0), cs = vf_load_f32(co + NM_CO_A * C + c0),
                     cb = vf_load_f32(co + NM_CO_B * C + c0), ck = vf_load_f32(co + NM_CO_K * C + c0);
            vf xv = ux ? LD(x, base) : zero, gv = ug ? LD(g, base) : zero;
            if (nt)
                SS(out, base, FN(app_one)(ux, ug, xv, gv, cm, cs, cb, ck));
            else
                ST(out, base, FN(app_one)(ux, ug, xv, gv, cm, cs, cb, ck));
        }
        if (c0 < C) {
            const size_t n = (size_t)(C - c0);
            const int64_t base = o * C + c0;
            const vf cm = co_load(co + NM_CO_M * C + c0, n), cs = co_load(co + NM_CO_A * C + c0, n),
                     cb = co_load(co + NM_CO_B * C + c0, n), ck = co_load(co + NM_CO_K * C + c0, n);
            vf xv = ux ? LDN(x, base, n) : zero, gv = ug ? LDN(g, base, n) : zero;
            STN(out, base, FN(app_one)(ux, ug, xv, gv, cm, cs, cb, ck), n);
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
