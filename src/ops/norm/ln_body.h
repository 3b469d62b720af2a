/* Layer / rms norm bodies, included from norm_body.h once per data type (FN, LD, ST... come from there). */
/* ---- layer / rms norm: one unit = rows_per_unit rows ----
 * The [rows, R] tensors of interest are far larger than the caches, and on one core the time is
 * close to the memory time plus the arithmetic time (the two overlap only in part), so the
 * kernels keep the work per element small: the inner loops take full vectors without
 * per-element branches (the few variants are chosen once per row or block). The forward's row
 * sums run in two fp64 chains with exact squares. The backward's row sums (c1, c2) are taken
 * in fp32 over short runs (LN_RUN vectors, four chains, 8 terms per lane and chain) and each run
 * is added to an fp64 sum, and its gradWeight / gradBias contributions are summed in fp32 per
 * block of rows, then per group of blocks, and added to the unit's fp64 column partials once
 * per group: short fp32 sums keep their rounding far below the fp32 results', at a fraction of
 * the fp64 work. Every sum's order depends on the shape only. */

#ifndef LN_BODY_ONCE_
#define LN_BODY_ONCE_
/* Rows per block of the backward's second pass: the block's x and dy rows stay in L2 while each
 * column's gradWeight/gradBias contributions of the block are summed in fp32 (its per-row
 * constants stay in registers). Blocks and groups start at a unit's first row. */
#define LN_BWD_BLOCK 4
/* Vectors per fp32 run of the backward's row sums (a multiple of 4): LN_RUN / 4 terms per lane
 * in each of four fp32 chains, then one fp64 addition per sum. */
#define LN_RUN 32
/* Blocks per group of the backward's fp32 column sums (see ln_unit). */
#define LN_COL_BLOCKS 4
/* Vectors of the including type per cache line (1 where a vector is a whole line). */
#define LN_LV (64 / (VW * (int)sizeof(NCT)) > 1 ? 64 / (VW * (int)sizeof(NCT)) : 1)
/* Columns per chunk of the backward where vectors are narrower than a line (see ln_bwd_block),
 * and the floats of a buffer that holds a chunk's two column sums half a page off a given
 * address. */
#define LN_CH 768
#define LN_CBUF (2 * LN_CH + 1024 + 16)
/* The chunk's column sums in @p buf (LN_CBUF floats, 64-byte aligned): 2 * LN_CH floats starting
 * half a page off @p ref modulo 4 KiB, so that they alias neither the rows read nor the rows
 * written (4K aliasing, see ln_bwd_block). */
static inline float *ln_chunk_sums(float *buf, const void *ref)
{
    const uintptr_t want = ((uintptr_t)ref + 2048u) & 4095u;
    return buf + (((want - (uintptr_t)buf) & 4095u) / sizeof(float));
}
#endif

/* n <= VW values of t to p + i: a partial vector masked, a whole one streamed (@p nt) or plain. */
VI void FN(ln_put)(NCT *p, int64_t i, vf t, size_t n, int nt)
{
    if (n != VW)
        STN(p, i, t, n);
    else if (nt)
        SS(p, i, t);
    else
        ST(p, i, t);
}

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
        FN(ln_put)(y, j, t, n, nt);
    }
}

/* The backward's per-row constants of @p row: its mean m (0 for RmsNorm), r = rstd, and the two
 * coefficients of dx,
 *   LayerNorm: dx = r*dy*w + k1*xhat + k0, k1 = -r*c2, k0 = -r*c1 (c1 = mean(dy*w),
 *              c2 = mean(dy*w*xhat));
 *   RmsNorm:   dx = r*dy*w + k1*x, k1 = -r^3 * mean(dy*w*x)
 * (a->w NULL: w = 1). With pf, the first quarter of the next block's row (pfx/pfg) is requested
 * along the way. Always inlined with constant rms and pf. */
VI void FN(ln_bwd_coef)(const nl_args *a, int64_t row, const int rms, const int pf, const NCT *pfx, const NCT *pfg,
                        float *mo, float *ro, float *k0o, float *k1o)
{
    const int64_t R = a->R;
    const NCT *x = (const NCT *)a->x + row * R, *g = (const NCT *)a->g + row * R;
    const float *w = a->w;
    const float m = rms ? 0.0f : cannon_norm_ld(a->mean, row, a->stat_dtype);
    const float r = cannon_norm_ld(a->rstd, row, a->stat_dtype);
    const vf one = vf_set1(1.0f), z = vf_set1(0.0f), mv = vf_set1(m);
    /* s1 = sum(dy*w), s2 = sum(dy*w*(x - mean)) (RmsNorm: sum(dy*w*x)); runs of LN_RUN vectors
     * in fp32 (four chains), each run added to the fp64 sums. c1 and c2 are rounded to fp32. */
    vd s1a = vd_zero(), s2a = vd_zero();
    int64_t j = 0;
    if (w) {
        while (j + 4 * VW <= R) {
            const int64_t je = j + LN_RUN * VW < R ? j + LN_RUN * VW : R;
            vf t0 = z, t1 = z, t2 = z, t3 = z, u0 = z, u1 = z, u2 = z, u3 = z;
            for (; j + 4 * VW <= je; j += 4 * VW) {
                if (pf) {
                    __builtin_prefetch(pfx + j / 4, 0, 2);
                    __builtin_prefetch(pfg + j / 4, 0, 2);
                }
                const vf gw0 = vf_mul(LD(g, j), vf_load_f32(w + j));
                const vf gw1 = vf_mul(LD(g, j + VW), vf_load_f32(w + j + VW));
                const vf gw2 = vf_mul(LD(g, j + 2 * VW), vf_load_f32(w + j + 2 * VW));
                const vf gw3 = vf_mul(LD(g, j + 3 * VW), vf_load_f32(w + j + 3 * VW));
                if (rms) {
                    u0 = vf_fma(gw0, LD(x, j), u0);
                    u1 = vf_fma(gw1, LD(x, j + VW), u1);
                    u2 = vf_fma(gw2, LD(x, j + 2 * VW), u2);
                    u3 = vf_fma(gw3, LD(x, j + 3 * VW), u3);
                } else {
                    t0 = vf_add(t0, gw0);
                    t1 = vf_add(t1, gw1);
                    t2 = vf_add(t2, gw2);
                    t3 = vf_add(t3, gw3);
                    u0 = vf_fma(gw0, vf_sub(LD(x, j), mv), u0);
                    u1 = vf_fma(gw1, vf_sub(LD(x, j + VW), mv), u1);
                    u2 = vf_fma(gw2, vf_sub(LD(x, j + 2 * VW), mv), u2);
                    u3 = vf_fma(gw3, vf_sub(LD(x, j + 3 * VW), mv), u3);
                }
            }
            if (!rms)
                s1a = vd_add(s1a, vf_add(vf_add(t0, t1), vf_add(t2, t3)));
            s2a = vd_add(s2a, vf_add(vf_add(u0, u1), vf_add(u2, u3)));
        }
    }
    /* The last vectors (all of them without weight), exact fp64 products. */
    for (; j < R; j += VW) {
        const size_t n = (size_t)(R - j < VW ? R - j : VW);
        const vf xm = vf_keep(vf_sub(n == VW ? LD(x, j) : LDN(x, j, n), mv), n);
        const vf gv = n == VW ? LD(g, j) : LDN(g, j, n);
        const vf gw = vf_mul(gv, w ? co_load(w + j, n) : one);
        s1a = vd_add(s1a, gw);
        s2a = vd_add_mul(s2a, gw, xm);
    }
    const double c1 = vd_hsum(s1a) / (double)R, c2 = vd_hsum(s2a) / (double)R;
    *mo = m;
    *ro = r;
    *k1o = rms ? -(float)((double)r * r * r * c2) : -(float)((double)r * r * c2);
    *k0o = -(float)((double)r * c1);
}

/* One vector (n <= VW lanes) of dx at x / g, its column sums into *sc (and *sg): the arithmetic of
 * ln_bwd_rows and ln_bwd_block, shared so both give the same bits. @p whole (a constant): n == VW
 * is known, so the tail mask of x - mean is left out (ln_bwd_block; AVX2 does not fold a mask of
 * all lanes away). */
VI vf FN(ln_bwd_el)(const NCT *x, const NCT *g, size_t n, const int whole, vf wv, vf rv, float k1, float k0, float m,
                    vf *sc, vf *sg, int rms)
{
    const vf v = n == VW ? LD(x, 0) : vf_keep(LDN(x, 0, n), n);
    const vf gv = n == VW ? LD(g, 0) : LDN(g, 0, n);
    if (rms) {
        const vf gr = vf_mul(gv, rv);
        *sc = vf_fma(gr, v, *sc); /* dgamma += dy * r * x */
        return vf_fma(v, vf_set1(k1), vf_mul(gr, wv));
    }
    const vf d = vf_mul(vf_sub(v, vf_set1(m)), rv), xh = whole ? d : vf_keep(d, n);
    *sc = vf_fma(gv, xh, *sc);
    *sg = vf_add(*sg, gv);
    return vf_fma(vf_mul(gv, wv), rv, vf_fma(xh, vf_set1(k1), vf_set1(k0)));
}

/* Backward of the rows [rb, rb + nb) (nb <= LN_BWD_BLOCK) in general: partial blocks, no
 * weight, no column sums or no dx (whole blocks with all of them go through ln_bwd_block).
 * pfx/pfg: the next block's x and dy (or this block's when there is none), the first quarter of
 * each row requested during the first pass and each row whole during the second. pw/pb: the
 * fp32 column sums of the current group of blocks (pb NULL for RmsNorm, which has no bias). */
static void FN(ln_bwd_rows)(const nl_args *a, int64_t rb, int64_t nb, float *pw, float *pb, int rms, int nt,
                            const NCT *pfx, const NCT *pfg)
{
    const int64_t R = a->R;
    const vf one = vf_set1(1.0f), z = vf_set1(0.0f);
    const float *w = a->w;
    /* Per row: mean, rstd and the coefficients of dx (see ln_bwd_coef). */
    float mrow[LN_BWD_BLOCK], rrow[LN_BWD_BLOCK], k1row[LN_BWD_BLOCK], k0row[LN_BWD_BLOCK];
    for (int64_t k = 0; k < nb; k++)
        FN(ln_bwd_coef)(a, rb + k, rms, 1, pfx + k * R, pfg + k * R, &mrow[k], &rrow[k], &k0row[k], &k1row[k]);
    NCT *out = (NCT *)a->out;
    const int want_dx = a->want_dx;
    if (LN_LV > 1) {
        /* Vectors narrower than a line: the rows one after the other over chunks of columns, as
         * ln_bwd_block does it and for the same reasons (partial-line streaming, 4K aliasing);
         * the same operations per element and the same order of each lane's sums. */
        float cbuf[LN_CBUF] __attribute__((aligned(64)));
        const void *ref = out ? (const void *)(out + rb * R) : (const void *)((const NCT *)a->x + rb * R);
        float *cb = ln_chunk_sums(cbuf, ref);
        for (int64_t j0 = 0; j0 < R; j0 += LN_CH) {
            const int64_t je = R - j0 < LN_CH ? R : j0 + LN_CH;
            for (int64_t k = 0; k < nb; k++) {
                const vf rv = vf_set1(rrow[k]);
                for (int64_t j = j0; j < je; j += VW) {
                    const size_t n = (size_t)(R - j < VW ? R - j : VW);
                    const int64_t off = (rb + k) * R + j, c = j - j0;
                    const vf wv = w ? co_load(w + j, n) : one;
                    __builtin_prefetch(pfx + k * R + j, 0, 2);
                    __builtin_prefetch(pfg + k * R + j, 0, 2);
                    vf sg = k ? vf_load_f32(cb + LN_CH + c) : z, sc = k ? vf_load_f32(cb + c) : z;
                    const vf t = FN(ln_bwd_el)((const NCT *)a->x + off, (const NCT *)a->g + off, n, 0, wv, rv, k1row[k],
                                               k0row[k], mrow[k], &sc, &sg, rms);
                    vf_store_f32(cb + c, sc);
                    vf_store_f32(cb + LN_CH + c, sg);
                    if (want_dx)
                        FN(ln_put)(out, off, t, n, nt);
                }
            }
            if (pw)
                for (int64_t j = j0; j < je; j += VW) {
                    vf_store_f32(pw + j, vf_add(vf_load_f32(pw + j), vf_load_f32(cb + (j - j0))));
                    if (pb)
                        vf_store_f32(pb + j, vf_add(vf_load_f32(pb + j), vf_load_f32(cb + LN_CH + (j - j0))));
                }
        }
        return;
    }
    int64_t j = 0;
    for (; j < R; j += VW) {
        const size_t n = (size_t)(R - j < VW ? R - j : VW);
        const vf wv = w ? co_load(w + j, n) : one;
        /* The block's column sums, in fp32 row by row, then added to the group's fp32 sums. */
        vf sg = z, sc = z;
        for (int64_t k = 0; k < nb; k++) {
            const int64_t off = (rb + k) * R + j;
            /* The next block's rows: memory reads overlap this pass. */
            __builtin_prefetch(pfx + k * R + j, 0, 2);
            __builtin_prefetch(pfg + k * R + j, 0, 2);
            const vf t = FN(ln_bwd_el)((const NCT *)a->x + off, (const NCT *)a->g + off, n, 0, wv, vf_set1(rrow[k]),
                                       k1row[k], k0row[k], mrow[k], &sc, &sg, rms);
            if (want_dx)
                FN(ln_put)(out, off, t, n, nt);
        }
        if (pw) {
            /* Rp is a multiple of 16, so a full vector always fits; tail lanes add 0. */
            vf_store_f32(pw + j, vf_add(vf_load_f32(pw + j), sc));
            if (pb)
                vf_store_f32(pb + j, vf_add(vf_load_f32(pb + j), sg));
        }
    }
}

/* Backward of one whole block of LN_BWD_BLOCK rows with weight, column sums and dx (nearly
 * every block): the same operations in the same order as ln_bwd_rows' general loops, written
 * as one plain loop nest per pass (the rows' sums row after row; then one column vector a step,
 * the block's rows inside it), with no software prefetch: the hardware prefetchers alone keep
 * memory busier than a loop of two column vectors a step with the next block prefetched over
 * both passes. Inlined into one function per norm (ln_bwd_block_ln, ln_bwd_block_rms): inlined
 * into ln_unit instead, LayerNorm's block loses that gain. */
VI void FN(ln_bwd_block)(const nl_args *a, int64_t rb, float *pw, float *pb, const int rms, int nt)
{
    const int64_t R = a->R;
    const NCT *x0 = (const NCT *)a->x + rb * R, *g0 = (const NCT *)a->g + rb * R;
    NCT *o0 = (NCT *)a->out + rb * R;
    const float *w = a->w;
    const vf z = vf_set1(0.0f);
    float mr[LN_BWD_BLOCK], rr[LN_BWD_BLOCK], k0[LN_BWD_BLOCK], k1[LN_BWD_BLOCK];
    for (int k = 0; k < LN_BWD_BLOCK; k++)
        FN(ln_bwd_coef)(a, rb + k, rms, 0, NULL, NULL, &mr[k], &rr[k], &k0[k], &k1[k]);
    /* Vectors narrower than a cache line (AVX2; 16-bit data on AVX-512) go by chunks, below.
     * Vectors of a whole line: one column vector a step, the block's rows inside it. */
    int64_t j = 0;
    if (LN_LV > 1) {
        /* The block's rows one after the other over a chunk of LN_CH columns, a whole line of
         * each row at a time, the chunk's column sums kept in cb (dgamma) and cb + LN_CH (dbeta)
         * between the rows. Two hazards of the column loop below with narrow vectors:
         * - one vector a row a step streams each row's line in parts with the other rows' stores
         *   between them, and the write-combining buffers go out as partial lines (an order of
         *   magnitude slower);
         * - with a line a row a step, each load still follows a store of the same column of the
         *   row before, and rows R apart (a multiple of 4 KiB) of tensors whose addresses agree
         *   modulo 4 KiB, as equal-sized allocations do, alias there (4K aliasing).
         * cb sits half a page off the output modulo 4 KiB, so it aliases neither. Each lane adds
         * the rows in order from zero, then into pw / pb, as the column loop does: the same bits. */
        float cbuf[LN_CBUF] __attribute__((aligned(64)));
        float *cb = ln_chunk_sums(cbuf, o0);
        const int64_t LL = LN_LV * VW, jend = R / LL * LL;
        for (int64_t j0 = 0; j0 < jend; j0 += LN_CH) {
            const int64_t je = jend - j0 < LN_CH ? jend : j0 + LN_CH;
            for (int k = 0; k < LN_BWD_BLOCK; k++) {
                for (int64_t jj = j0; jj < je; jj += LL) {
                    for (int l = 0; l < LN_LV; l++) {
                        const int64_t c = jj - j0 + l * VW, q = k * R + jj + l * VW;
                        vf sc = k ? vf_load_f32(cb + c) : z, sg = k && !rms ? vf_load_f32(cb + LN_CH + c) : z;
                        const vf t = FN(ln_bwd_el)(x0 + q, g0 + q, VW, 1, vf_load_f32(w + jj + l * VW), vf_set1(rr[k]),
                                                   k1[k], k0[k], mr[k], &sc, &sg, rms);
                        vf_store_f32(cb + c, sc);
                        if (!rms)
                            vf_store_f32(cb + LN_CH + c, sg);
                        FN(ln_put)(o0, q, t, VW, nt);
                    }
                }
            }
            for (int64_t jj = j0; jj < je; jj += VW) {
                vf_store_f32(pw + jj, vf_add(vf_load_f32(pw + jj), vf_load_f32(cb + (jj - j0))));
                if (!rms)
                    vf_store_f32(pb + jj, vf_add(vf_load_f32(pb + jj), vf_load_f32(cb + LN_CH + (jj - j0))));
            }
        }
        j = jend;
    } else {
        for (; j + VW <= R; j += VW) {
            const vf wv = vf_load_f32(w + j);
            vf sc = z, sg = z;
            /* Kept a loop: fully unrolled (gcc -O3 does it, -O2 does not) the block's four
             * streaming stores issue back to back and the backward from memory is slower; the
             * same bits either way. */
#pragma GCC unroll 1
            for (int k = 0; k < LN_BWD_BLOCK; k++) {
                const int64_t q = k * R + j;
                const vf t =
                    FN(ln_bwd_el)(x0 + q, g0 + q, VW, 1, wv, vf_set1(rr[k]), k1[k], k0[k], mr[k], &sc, &sg, rms);
                FN(ln_put)(o0, q, t, VW, nt);
            }
            vf_store_f32(pw + j, vf_add(vf_load_f32(pw + j), sc));
            if (!rms)
                vf_store_f32(pb + j, vf_add(vf_load_f32(pb + j), sg));
        }
    }
    /* Whole vectors left over (rows that are not whole lines, so never streamed: see ln_unit). */
    for (; j + VW <= R; j += VW) {
        const vf wv = vf_load_f32(w + j);
        vf sc = z, sg = z;
        for (int k = 0; k < LN_BWD_BLOCK; k++) {
            const int64_t q = k * R + j;
            ST(o0, q, FN(ln_bwd_el)(x0 + q, g0 + q, VW, 1, wv, vf_set1(rr[k]), k1[k], k0[k], mr[k], &sc, &sg, rms));
        }
        vf_store_f32(pw + j, vf_add(vf_load_f32(pw + j), sc));
        if (!rms)
            vf_store_f32(pb + j, vf_add(vf_load_f32(pb + j), sg));
    }
    if (j < R) {
        /* The last partial vector, as ln_bwd_rows' general loop does it. */
        const size_t n = (size_t)(R - j);
        const vf wv = co_load(w + j, n);
        vf sc = z, sg = z;
        for (int k = 0; k < LN_BWD_BLOCK; k++) {
            const int64_t q = k * R + j;
            const vf rv = vf_set1(rr[k]);
            const vf v = vf_keep(LDN(x0, q, n), n), gv = LDN(g0, q, n);
            vf t;
            if (rms) {
                const vf gr = vf_mul(gv, rv);
                t = vf_fma(v, vf_set1(k1[k]), vf_mul(gr, wv));
                sc = vf_fma(gr, v, sc);
            } else {
                const vf xh = vf_keep(vf_mul(vf_sub(v, vf_set1(mr[k])), rv), n);
                t = vf_fma(vf_mul(gv, wv), rv, vf_fma(xh, vf_set1(k1[k]), vf_set1(k0[k])));
                sc = vf_fma(gv, xh, sc);
                sg = vf_add(sg, gv);
            }
            STN(o0, q, t, n);
        }
        vf_store_f32(pw + j, vf_add(vf_load_f32(pw + j), sc));
        if (!rms)
            vf_store_f32(pb + j, vf_add(vf_load_f32(pb + j), sg));
    }
}

static __attribute__((noinline)) void FN(ln_bwd_block_ln)(const nl_args *a, int64_t rb, float *pw, float *pb, int nt)
{
    FN(ln_bwd_block)(a, rb, pw, pb, 0, nt);
}

static __attribute__((noinline)) void FN(ln_bwd_block_rms)(const nl_args *a, int64_t rb, float *pw, int nt)
{
    FN(ln_bwd_block)(a, rb, pw, NULL, 1, nt);
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
        /* Column partials: each block's column sums (fp32, 4 terms) are added to the fp32 sums of
         * its group of LN_COL_BLOCKS blocks, which are added to the unit's fp64 partials once per
         * group: at most 16 fp32 terms per sum keep the error far below the result's rounding,
         * and the fp64 work is paid once per 16 rows instead of once per 4. Groups start at the
         * unit's first row, so the sums depend on the shape only. The fp32 sums live after the
         * fp64 partials in the workspace ([units][2][Rp] floats). */
        double *pw = NULL, *pb = NULL;
        float *cw = NULL, *cb = NULL;
        if (a->want_cols) {
            pw = a->part + (u * 2 + 0) * Rp;
            pb = a->part + (u * 2 + 1) * Rp;
            cw = (float *)(a->part + a->units * 2 * Rp) + (u * 2 + 0) * Rp;
            cb = cw + Rp;
            for (int64_t j = 0; j < Rp; j++) {
                pw[j] = pb[j] = 0.0;
                cw[j] = cb[j] = 0.0f;
            }
        }
        const vf zero = vf_set1(0.0f);
        for (int64_t rb = row0; rb < row1; rb += LN_BWD_BLOCK) {
            const int64_t nb = row1 - rb < LN_BWD_BLOCK ? row1 - rb : LN_BWD_BLOCK;
            /* The next block when it is whole and in this unit (the next unit may run on another
             * worker), else this block again (already cached: no memory traffic). */
            const int64_t pr = rb + 2 * nb <= row1 ? rb + nb : rb;
            if (nb == LN_BWD_BLOCK && a->w && cw && a->want_dx) {
                if (rms)
                    FN(ln_bwd_block_rms)(a, rb, cw, nt);
                else
                    FN(ln_bwd_block_ln)(a, rb, cw, cb, nt);
            } else {
                FN(ln_bwd_rows)(a, rb, nb, cw, rms ? NULL : cb, rms, nt, x + pr * R, g + pr * R);
            }
            const int64_t done = rb + nb - row0;
            if (cw && (done % (LN_BWD_BLOCK * LN_COL_BLOCKS) == 0 || rb + nb == row1)) {
                for (int64_t j = 0; j < Rp; j += VW) {
                    vd_st(pw + j, vd_add(vd_ld(pw + j), vf_load_f32(cw + j)));
                    vf_store_f32(cw + j, zero);
                    if (!rms) {
                        vd_st(pb + j, vd_add(vd_ld(pb + j), vf_load_f32(cb + j)));
                        vf_store_f32(cb + j, zero);
                    }
                }
            }
        }
    }
    if (nt)
        vf_sfence();
}
