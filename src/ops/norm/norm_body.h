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

/* One pair of vectors at x + i (and g + i) into the accumulators, prefetching the pair pfd
 * elements ahead when pf: the step red_run_k and pipe_run_k share, so the fused pipeline sums in
 * exactly the three-kernel path's order (the same bits). Always inlined with constant stats/pf. */
VI void FN(red_pair)(const NCT *x, const NCT *g, int64_t i, vf m, vd *s0, vd *q0, vd *s1, vd *q1, const int stats,
                     const int pf, int64_t pfd)
{
    if (pf) {
        __builtin_prefetch(x + i + pfd, 0, 2);
        __builtin_prefetch(x + i + VW + pfd, 0, 2);
        if (!stats) {
            __builtin_prefetch(g + i + pfd, 0, 2);
            __builtin_prefetch(g + i + VW + pfd, 0, 2);
        }
    }
    if (stats) {
        vf d0 = vf_sub(LD(x, i), m), d1 = vf_sub(LD(x, i + VW), m);
        *s0 = vd_add(*s0, d0);
        *q0 = vd_add_mul(*q0, d0, d0);
        *s1 = vd_add(*s1, d1);
        *q1 = vd_add_mul(*q1, d1, d1);
    } else {
        vf g0 = LD(g, i), g1 = LD(g, i + VW);
        *s0 = vd_add(*s0, g0);
        *q0 = vd_add_mul(*q0, g0, vf_sub(LD(x, i), m));
        *s1 = vd_add(*s1, g1);
        *q1 = vd_add_mul(*q1, g1, vf_sub(LD(x, i + VW), m));
    }
}

/* One run of I elements at x (and g) into the accumulators; with pf, the data pfd elements ahead
 * (the same run of the channel this worker does next) are prefetched into L2 as the run is read,
 * so memory keeps streaming while the sums are computed from L2. The sums are the same either
 * way. Always inlined with constant stats/pf. */
VI void FN(red_run_k)(const NCT *x, const NCT *g, int64_t I, vf m, vd *s0, vd *q0, vd *s1, vd *q1, const int stats,
                      const int pf, int64_t pfd)
{
    int64_t i = 0;
    if (stats) {
        for (; i + 2 * VW <= I; i += 2 * VW)
            FN(red_pair)(x, g, i, m, s0, q0, s1, q1, 1, pf, pfd);
        for (; i < I; i += VW) {
            const size_t n = (size_t)(I - i < VW ? I - i : VW);
            if (pf)
                __builtin_prefetch(x + i + pfd, 0, 2);
            vf d = vf_keep(vf_sub(LDN(x, i, n), m), n);
            *s0 = vd_add(*s0, d);
            *q0 = vd_add_mul(*q0, d, d);
        }
    } else {
        for (; i + 2 * VW <= I; i += 2 * VW)
            FN(red_pair)(x, g, i, m, s0, q0, s1, q1, 0, pf, pfd);
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

/* The units p*C + c for c in [c0, c1) of one O-range p (I > 1), exactly as red_runs computes
 * each of them, but with the memory walked in address order: for each run index o of the range,
 * the runs (o, c0) .. (o, c1 - 1), which lie next to each other, one after the other. red_runs
 * reads one channel's runs, each I elements long and C*I apart; when runs are short (a 12.5 KB run
 * of [32,64,56,56]) the hardware prefetchers restart on every one, and one core read such a
 * channel at about half the rate it reads a plane in order. Each channel's four accumulators are
 * kept in a small array between its runs (stored and reloaded exactly) and each run is summed by
 * red_run_k in the same order as there, so every partial has the same bits as red_runs gives it.
 * Channels go NB_PLANE_CH at a time, so the accumulators stay in L1. No software prefetch: the
 * three-kernel path's reduction never had one (pf_step 0). */
#define NB_PLANE_CH 32
static void FN(red_plane)(const nb_args *a, int64_t p, int64_t c0, int64_t c1)
{
    const int64_t C = a->C, I = a->I;
    const int64_t o0 = p * a->span, o1 = o0 + a->span < a->O ? o0 + a->span : a->O;
    const NCT *x = (const NCT *)a->x, *g = (const NCT *)a->g;
    const int stats = a->mode == NB_RED_STATS;
    vd acc[NB_PLANE_CH][4];
    float mv[NB_PLANE_CH];
    for (int64_t cb = c0; cb < c1; cb += NB_PLANE_CH) {
        const int64_t ce = c1 - cb < NB_PLANE_CH ? c1 : cb + NB_PLANE_CH;
        for (int64_t c = cb; c < ce; c++) {
            mv[c - cb] = stats ? cannon_norm_ld(x, c * I, a->dtype) : a->center[c];
            for (int k = 0; k < 4; k++)
                acc[c - cb][k] = vd_zero();
        }
        for (int64_t o = o0; o < o1; o++) {
            for (int64_t c = cb; c < ce; c++) {
                const int64_t base = (o * C + c) * I;
                vd *ac = acc[c - cb];
                vd s0 = ac[0], q0 = ac[1], s1 = ac[2], q1 = ac[3];
                if (stats)
                    FN(red_run_k)(x + base, NULL, I, vf_set1(mv[c - cb]), &s0, &q0, &s1, &q1, 1, 0, 0);
                else
                    FN(red_run_k)(x + base, g + base, I, vf_set1(mv[c - cb]), &s0, &q0, &s1, &q1, 0, 0, 0);
                ac[0] = s0, ac[1] = q0, ac[2] = s1, ac[3] = q1;
            }
        }
        for (int64_t c = cb; c < ce; c++) {
            const vd *ac = acc[c - cb];
            a->part[(p * 2 + 0) * C + c] = vd_hsum(ac[0]) + vd_hsum(ac[2]);
            a->part[(p * 2 + 1) * C + c] = vd_hsum(ac[1]) + vd_hsum(ac[3]);
        }
    }
}

/* out = [(x - m) * s] + b + [g * k] (rows NM_CO_* of the coefficients): x - m is exact near the
 * mean, the part of the mean that m drops is in b. Two dependent operations per vector in the
 * forward (three with g): the elementwise passes from memory slow down with every operation that
 * waits on the loaded data, so the formula is kept to what the accuracy needs. */
VI vf FN(app_one)(int ux, int ug, vf x, vf g, vf cm, vf cs, vf cb, vf ck)
{
#if VW == 1
    /* The scalar tier has no fused multiply-add; fp64 arithmetic stands in for the vector tiers'
     * FMAs (the results agree to within the last bit). */
    double t = cb;
    if (ug)
        t += (double)g * (double)ck;
    if (ux)
        t += (double)vf_sub(x, cm) * (double)cs;
    return (float)t;
#else
    vf t = cb;
    if (ug)
        t = vf_fma(g, ck, t);
    if (ux)
        t = vf_fma(vf_sub(x, cm), cs, t);
    return t;
#endif
}

/* Channel c's coefficients (rows NM_CO_* of co, C channels) broadcast to vectors. */
VI void FN(co_chan)(const float *co, int64_t C, int64_t c, vf *cm, vf *cs, vf *cb, vf *ck)
{
    *cm = vf_set1(co[NM_CO_M * C + c]);
    *cs = vf_set1(co[NM_CO_A * C + c]);
    *cb = vf_set1(co[NM_CO_B * C + c]);
    *ck = vf_set1(co[NM_CO_K * C + c]);
}

/* out[base .. base+len) for one channel's coefficients. With nt, the full vectors from the first
 * 64-byte boundary on are written with streaming stores: the output then goes to memory without
 * being read into the cache first (the values are the same either way). With pf, the data pf
 * elements ahead are prefetched into L2 as the span is processed. Always inlined with constant
 * ux/ug, and every pointer is a local: vector stores may alias anything, so fields read through
 * @p a would be reloaded on every iteration. */
VI void FN(app_span_k)(const NCT *x, const NCT *g, NCT *out, int64_t len, vf cm, vf cs, vf cb, vf ck,
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
            STN(out, i, FN(app_one)(ux, ug, xv, gv, cm, cs, cb, ck), n);
            i += (int64_t)n;
        }
        /* Stream whole cache lines only: a line left partly streamed (a vector narrower than a
         * line, as AVX2's, at the end of a run) is written to memory as a partial line while the
         * run's tail writes the rest through the cache, which slows the output pass down badly
         * (AVX2, runs of 784 bytes as in [64,256,14,14] fp32). */
        const int64_t lw = (int64_t)(64 / sizeof(NCT)), nt_end = head + (len - head) / lw * lw;
        if (pf) {
            for (; i + VW <= nt_end; i += VW) {
                vf xv = ux ? LD(x, i) : zero, gv = ug ? LD(g, i) : zero;
                /* Pull the next channel's data into L2 while this one is computed from L2: the
                 * memory reads overlap this pass instead of following it. */
                if (ux)
                    __builtin_prefetch(x + i + pf, 0, 2);
                if (ug)
                    __builtin_prefetch(g + i + pf, 0, 2);
                SS(out, i, FN(app_one)(ux, ug, xv, gv, cm, cs, cb, ck));
            }
        } else {
            for (; i + VW <= nt_end; i += VW) {
                vf xv = ux ? LD(x, i) : zero, gv = ug ? LD(g, i) : zero;
                SS(out, i, FN(app_one)(ux, ug, xv, gv, cm, cs, cb, ck));
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
            ST(out, i, FN(app_one)(ux, ug, xv, gv, cm, cs, cb, ck));
        }
    }
    for (; i + VW <= len; i += VW) {
        vf xv = ux ? LD(x, i) : zero, gv = ug ? LD(g, i) : zero;
        ST(out, i, FN(app_one)(ux, ug, xv, gv, cm, cs, cb, ck));
    }
    if (i < len) {
        const size_t n = (size_t)(len - i);
        vf xv = ux ? LDN(x, i, n) : zero, gv = ug ? LDN(g, i, n) : zero;
        STN(out, i, FN(app_one)(ux, ug, xv, gv, cm, cs, cb, ck), n);
    }
}

static inline void FN(app_span)(const nb_args *a, int64_t base, int64_t len, vf cm, vf cs, vf cb,
                                vf ck, int nt, int64_t pf)
{
    const NCT *x = a->use_x ? (const NCT *)a->x + base : NULL, *g = a->use_g ? (const NCT *)a->g + base : NULL;
    NCT *out = (NCT *)a->out + base;
    if (a->use_x && a->use_g)
        FN(app_span_k)(x, g, out, len, cm, cs, cb, ck, nt, pf, 1, 1);
    else if (a->use_x)
        FN(app_span_k)(x, g, out, len, cm, cs, cb, ck, nt, pf, 1, 0);
    else
        FN(app_span_k)(x, g, out, len, cm, cs, cb, ck, nt, pf, 0, 1);
}

static void FN(app_runs)(const nb_args *a, int64_t u)
{
    const int64_t C = a->C, I = a->I, nruns = a->O * C;
    const int64_t r0 = u * a->span, r1 = r0 + a->span < nruns ? r0 + a->span : nruns;
    const float *co = a->co;
    for (int64_t r = r0; r < r1; r++) {
        vf cm, cs, cb, ck;
        FN(co_chan)(co, C, r % C, &cm, &cs, &cb, &ck);
        FN(app_span)(a, r * I, I, cm, cs, cb, ck, a->nt, 0);
    }
}

/* Every run (o, c) of channel c (channel-first data). */
static void FN(app_chan)(const nb_args *a, int64_t c)
{
    const int64_t C = a->C, I = a->I;
    const float *co = a->co;
    vf cm, cs, cb, ck;
    FN(co_chan)(co, C, c, &cm, &cs, &cb, &ck);
    /* Channel c + pf_step's run (o, c + pf_step) starts pf_step * I elements after run (o, c);
     * runs before pf_split were prefetched during the reduction. */
    const int64_t pf = a->pf_step > 0 && c + a->pf_step < C ? a->pf_step * I : 0;
    for (int64_t o = 0; o < a->O; o++)
        FN(app_span)(a, (o * C + c) * I, I, cm, cs, cb, ck, a->nt, o < a->pf_split ? 0 : pf);
}

/* Row o of a group of channels [c0, c1) (channel-first data, I*es >= 128): the runs (o, c0) ..
 * (o, c1 - 1) lie next to each other, so their outputs form one contiguous segment; it is
 * written with streaming stores in whole cache lines, the line that two runs share included
 * (both parts computed into an aligned scratch line first, each with its own channel's
 * coefficients, then streamed), and only the segment's first and last partial lines through the
 * cache. app_chan's runs start and end inside lines, and those lines are read into the cache
 * before they are written. Each element's value is app_one's with its channel's coefficients, as
 * everywhere. */
static void FN(app_grp_row)(const nb_args *a, int64_t o, int64_t c0, int64_t c1)
{
    const int64_t C = a->C, I = a->I, K = c1 - c0, L = (int64_t)(64 / sizeof(NCT));
    const int ux = a->use_x, ug = a->use_g;
    const int64_t base = (o * C + c0) * I;
    const NCT *x = ux ? (const NCT *)a->x + base : NULL, *g = ug ? (const NCT *)a->g + base : NULL;
    NCT *out = (NCT *)a->out + base;
    const float *co = a->co;
    /* Offsets (in elements from the segment's start) of the 64-byte boundaries: a0 + m*L. */
    const int64_t a0 = (int64_t)(((64 - (uintptr_t)out % 64) % 64) / sizeof(NCT));
    NCT tmp[64 / sizeof(NCT)] __attribute__((aligned(64)));
    const vf zero = vf_set1(0.0f);
    int64_t lo = 0;
    for (int64_t k = 0; k < K; k++) {
        const int64_t c = c0 + k, end = (k + 1) * I;
        vf cm, cs, cb, ck;
        FN(co_chan)(co, C, c, &cm, &cs, &cb, &ck);
        /* The run's own lines [lo, hi): the last run's tail goes through the cache. */
        const int64_t hi = k == K - 1 ? end : a0 + (end - a0) / L * L;
        if (hi > lo)
            FN(app_span)(a, base + lo, hi - lo, cm, cs, cb, ck, 1, 0);
        if (k == K - 1 || hi == end) {
            lo = end;
            continue;
        }
        /* The line [hi, hi + L) shared with run k + 1. */
        const int64_t c2 = c + 1, n1 = end - hi;
        vf cm2, cs2, cb2, ck2;
        FN(co_chan)(co, C, c2, &cm2, &cs2, &cb2, &ck2);
        for (int64_t j = 0; j < L;) {
            const int first = j < n1;
            const int64_t lim = first ? n1 : L;
            const size_t n = (size_t)(lim - j < VW ? lim - j : VW);
            vf xv = ux ? LDN(x, hi + j, n) : zero, gv = ug ? LDN(g, hi + j, n) : zero;
            vf y = first ? FN(app_one)(ux, ug, xv, gv, cm, cs, cb, ck)
                         : FN(app_one)(ux, ug, xv, gv, cm2, cs2, cb2, ck2);
            STN(tmp, j, y, n);
            j += (int64_t)n;
        }
        for (int64_t j = 0; j < L; j += VW)
            SS(out, hi + j, LD(tmp, j));
        lo = hi + L;
    }
}

/* One step of the grouped pipeline (channel-first data, groups whose rows are whole cache lines):
 * the partials of the channels [g0, g1) (red_plane's order: row by row, each channel's run into
 * its own accumulators; the same bits) and, row by row in the same loop, the elementwise pass of
 * the previous group [p0, p1) (app_grp_row), which the previous step read. The runs being summed
 * prefetch the same run pf_rows rows ahead, past the last row the runs of the group [n0, n1).
 * g0, p0 or n0 < 0: none. */
static void FN(pipe_grp)(const nb_args *r, const nb_args *a, int64_t g0, int64_t g1, int64_t p0, int64_t p1,
                         int64_t n0, int64_t n1, int64_t pf_rows)
{
    const int64_t C = r->C, I = r->I, O = r->O, span = r->span;
    const NCT *x = (const NCT *)r->x, *g = (const NCT *)r->g;
    const int stats = r->mode == NB_RED_STATS;
    const int64_t K = g0 >= 0 ? g1 - g0 : 0;
    vd acc[NB_PLANE_CH][4];
    float mv[NB_PLANE_CH];
    for (int64_t k = 0; k < K; k++)
        mv[k] = stats ? cannon_norm_ld(x, (g0 + k) * I, r->dtype) : r->center[g0 + k];
    for (int64_t o0 = 0, p = 0; o0 < O; o0 += span, p++) {
        const int64_t o1 = o0 + span < O ? o0 + span : O;
        for (int64_t k = 0; k < K; k++)
            acc[k][0] = acc[k][1] = acc[k][2] = acc[k][3] = vd_zero();
        for (int64_t o = o0; o < o1; o++) {
            for (int64_t k = 0; k < K; k++) {
                const int64_t base = (o * C + g0 + k) * I, pr = o + pf_rows;
                int64_t pfd = 0;
                if (pr < O)
                    pfd = pf_rows * C * I;
                else if (n0 >= 0 && k < n1 - n0)
                    pfd = ((pr - O) * C + n0 + k) * I - base;
                vd s0 = acc[k][0], q0 = acc[k][1], s1 = acc[k][2], q1 = acc[k][3];
                const vf m = vf_set1(mv[k]);
                if (stats)
                    FN(red_run_k)(x + base, NULL, I, m, &s0, &q0, &s1, &q1, 1, 1, pfd);
                else
                    FN(red_run_k)(x + base, g + base, I, m, &s0, &q0, &s1, &q1, 0, 1, pfd);
                acc[k][0] = s0, acc[k][1] = q0, acc[k][2] = s1, acc[k][3] = q1;
            }
            if (p0 >= 0)
                FN(app_grp_row)(a, o, p0, p1);
        }
        for (int64_t k = 0; k < K; k++) {
            r->part[(p * 2 + 0) * C + g0 + k] = vd_hsum(acc[k][0]) + vd_hsum(acc[k][2]);
            r->part[(p * 2 + 1) * C + g0 + k] = vd_hsum(acc[k][1]) + vd_hsum(acc[k][3]);
        }
    }
}

/* Run o of both halves of a pipeline step in one loop (see pipe_chan): the sums of a run of
 * channel cr at x/g (exactly red_run_k's order: pairs of vectors from the run's start, then the
 * tail) and the elementwise pass of a run of channel ca at ax/ag -> out, vector for vector, with
 * the prefetch of the run pfd elements ahead of x/g spread over it, so that memory is read at
 * an even rate while both compute instead of in bursts. The elementwise half is shifted by the
 * output's alignment head (written first), so its streaming stores are aligned. Always inlined
 * with constant stats/ux/ug/nt. */
VI void FN(pipe_run_k)(const NCT *x, const NCT *g, int64_t I, vf m, vd *s0, vd *q0, vd *s1, vd *q1, int64_t pfd,
                       const NCT *ax, const NCT *ag, NCT *out, vf cm, vf cs, vf cb, vf ck,
                       const int stats, const int ux, const int ug, const int nt)
{
    const vf zero = vf_set1(0.0f);
    int64_t h = 0;
    if (nt) {
        const uintptr_t addr = (uintptr_t)out;
        h = (int64_t)(((64 - addr % 64) % 64) / sizeof(NCT));
        if (h > I)
            h = I;
        for (int64_t j = 0; j < h;) {
            const size_t n = (size_t)(h - j < VW ? h - j : VW);
            vf xv = ux ? LDN(ax, j, n) : zero, gv = ug ? LDN(ag, j, n) : zero;
            STN(out, j, FN(app_one)(ux, ug, xv, gv, cm, cs, cb, ck), n);
            j += (int64_t)n;
        }
    }
    /* Streamed: whole cache lines only (see app_span_k); the rest goes to app_span_k. */
    const int64_t lw = (int64_t)(64 / sizeof(NCT)), lim = nt ? h + (I - h) / lw * lw : I;
    int64_t i = 0;
    for (; i + 2 * VW <= I && h + i + 2 * VW <= lim; i += 2 * VW) {
        FN(red_pair)(x, g, i, m, s0, q0, s1, q1, stats, 1, pfd);
        const int64_t j = h + i;
        vf xa = ux ? LD(ax, j) : zero, ga = ug ? LD(ag, j) : zero;
        vf xb = ux ? LD(ax, j + VW) : zero, gb = ug ? LD(ag, j + VW) : zero;
        vf ya = FN(app_one)(ux, ug, xa, ga, cm, cs, cb, ck);
        vf yb = FN(app_one)(ux, ug, xb, gb, cm, cs, cb, ck);
        if (nt) {
            SS(out, j, ya);
            SS(out, j + VW, yb);
        } else {
            ST(out, j, ya);
            ST(out, j + VW, yb);
        }
    }
    /* What is left of either half (the sums continue in the same order). */
    if (i < I)
        FN(red_run_k)(x + i, stats ? NULL : g + i, I - i, m, s0, q0, s1, q1, stats, 1, pfd);
    if (h + i < I)
        FN(app_span_k)(ux ? ax + h + i : NULL, ug ? ag + h + i : NULL, out + h + i, I - h - i, cm, cs, cb,
                       ck, nt, 0, ux, ug);
}

/* One step of the fused kernel's pipeline (channel-first data, I > 1): the sums of channel cr
 * (r's partials, the same O-ranges summed in the same order as red_runs, so the same bits) and
 * the elementwise pass of channel ca (a's coefficients), run by run: run o of both in one loop.
 * cr or ca < 0: that half is skipped. Channel ca was read (summed) in the previous step and is
 * still in L2 (or L3), so while its output is written, memory reads the next channel instead of
 * idling; the cache holds about one slice throughout, since ca's runs die in the order cr's
 * runs arrive. The runs of cr are read pf_runs runs ahead with software prefetches (the hardware
 * prefetchers do not follow runs strided by C*I elements), past the last one into channel nxt's
 * first runs (nxt < 0: none); the values never depend on them. */
static void FN(pipe_chan)(const nb_args *r, const nb_args *a, int64_t cr, int64_t ca, int64_t nxt, int64_t pf_runs)
{
    const int64_t C = r->C, I = r->I, O = r->O, span = r->span;
    const NCT *rx = (const NCT *)r->x, *rg = (const NCT *)r->g;
    const int stats = r->mode == NB_RED_STATS;
    const vf m = cr >= 0 ? vf_set1(stats ? cannon_norm_ld(rx, cr * I, r->dtype) : r->center[cr]) : vf_set1(0.0f);
    const float *co = a->co;
    vf cm = vf_set1(0.0f), cs = cm, cb = cm, ck = cm;
    if (co)
        FN(co_chan)(co, C, ca >= 0 ? ca : 0, &cm, &cs, &cb, &ck);
    const NCT *ax = (const NCT *)a->x, *ag = (const NCT *)a->g;
    NCT *out = (NCT *)a->out;
    const int nt = a->nt;
    /* The one-loop forms: forward (stats, x) and training backward (grad, x and dy). */
    const int fwd1 = stats && a->use_x && !a->use_g, bwd1 = !stats && a->use_x && a->use_g;
    for (int64_t o0 = 0, p = 0; o0 < O; o0 += span, p++) {
        const int64_t o1 = o0 + span < O ? o0 + span : O;
        vd s0 = vd_zero(), q0 = vd_zero(), s1 = vd_zero(), q1 = vd_zero();
        for (int64_t o = o0; o < o1; o++) {
            const int64_t base = (o * C + cr) * I, abase = (o * C + ca) * I;
            /* Distance to the run pf_runs ahead: same channel, or nxt's runs after the last. */
            int64_t pfd = 0;
            if (o + pf_runs < O)
                pfd = pf_runs * C * I;
            else if (nxt >= 0)
                pfd = ((o + pf_runs - O) * C + nxt) * I - base;
            if (cr >= 0 && ca >= 0 && (fwd1 || bwd1)) {
                if (fwd1 && nt)
                    FN(pipe_run_k)(rx + base, NULL, I, m, &s0, &q0, &s1, &q1, pfd, ax + abase, NULL, out + abase, cm,
                                   cs, cb, ck, 1, 1, 0, 1);
                else if (fwd1)
                    FN(pipe_run_k)(rx + base, NULL, I, m, &s0, &q0, &s1, &q1, pfd, ax + abase, NULL, out + abase, cm,
                                   cs, cb, ck, 1, 1, 0, 0);
                else if (nt)
                    FN(pipe_run_k)(rx + base, rg + base, I, m, &s0, &q0, &s1, &q1, pfd, ax + abase, ag + abase,
                                   out + abase, cm, cs, cb, ck, 0, 1, 1, 1);
                else
                    FN(pipe_run_k)(rx + base, rg + base, I, m, &s0, &q0, &s1, &q1, pfd, ax + abase, ag + abase,
                                   out + abase, cm, cs, cb, ck, 0, 1, 1, 0);
                continue;
            }
            if (cr >= 0) {
                if (stats)
                    FN(red_run_k)(rx + base, NULL, I, m, &s0, &q0, &s1, &q1, 1, 1, pfd);
                else
                    FN(red_run_k)(rx + base, rg + base, I, m, &s0, &q0, &s1, &q1, 0, 1, pfd);
            }
            if (ca >= 0)
                FN(app_span)(a, abase, I, cm, cs, cb, ck, nt, 0);
        }
        if (cr >= 0) {
            r->part[(p * 2 + 0) * C + cr] = vd_hsum(s0) + vd_hsum(s1);
            r->part[(p * 2 + 1) * C + cr] = vd_hsum(q0) + vd_hsum(q1);
        }
    }
}

#include "nhwc_body.h"

#include "ln_body.h"

#undef FN
#undef LD
#undef LDN
#undef ST
#undef STN
#undef SS
