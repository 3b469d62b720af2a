/*
 * One tier of the flash attention gradient (fas_kernels.h). Included by the attention kernel's tier
 * file after fia_impl.h (whose helpers it uses), with FAS_KV_FN and FAS_Q_FN defined.
 *
 * Each row's probabilities are recomputed for one key block at a time: the scores q . k_j and the
 * products dO . v_j come from transposed fp32 blocks of keys and values (fia_scores, vectorised over
 * keys), then P = exp(s - m) / l (0 where s is -inf), and the accumulators take P z dO, scale dS q
 * (key units, over groups of FAS_QB rows kept transposed, rows in order) or scale dS k (query units,
 * keys in order), vectorised over the head dimension with the accumulator in registers (fia_pv).
 */
#include "fas_kernels.h"

/* Batch b's sequence record (fia_kernels.h), after the struct. */
static const fia_seq *fas_seq(const fas_bwd_args *a, int64_t b)
{
    return (const fia_seq *)(const void *)(a + 1) + b;
}

/* Keys [j0, j0 + nk) of key/value head g of batch b: transposed keys and values (Kt[d][c], Vt[d][c],
 * columns nk.. FIA_KB zero) and, when Kr is not NULL, key rows Kr[c][Dp]. */
static void fas_load_kv(const fas_bwd_args *a, const fia_seq *sq, int64_t b, int64_t g, int64_t j0, int64_t nk,
                        float *Kt, float *Vt, float *Kr, float *tmp)
{
    const int64_t D = a->D, Dp = a->Dp, es = FIA_ES(a->dt);
    const int64_t kb0 = b * a->ks[0] + sq->kv0 * a->ks[2], vb0 = b * a->vs[0] + sq->kv0 * a->vs[2];
    for (int64_t c = 0; c < nk; c++) {
        const int64_t j = j0 + c;
        const char *kp = a->k + (kb0 + g * a->ks[1] + j * a->ks[2]) * es;
        const char *vp = a->v + (vb0 + g * a->vs[1] + j * a->vs[2]) * es;
#if defined(FIA_HAVE_BF16DOT)
        if (a->bf16dot) { /* pairs in Kt / Vt's place (fia_scores_rows_bf16), fp32 key rows if asked */
            uint32_t *pr = (uint32_t *)(void *)tmp, *Kp = (uint32_t *)(void *)Kt, *Vp = (uint32_t *)(void *)Vt;
            const int64_t D2 = (D + 1) / 2;
            if (Kr)
                fia_row_in(Kr + c * Dp, kp, a->ks[3], D, Dp, a->dt);
            fia_pairs_in(pr, kp, a->ks[3], D);
            for (int64_t d = 0; d < D2; d++)
                Kp[d * FIA_KB + c] = pr[d];
            fia_pairs_in(pr, vp, a->vs[3], D);
            for (int64_t d = 0; d < D2; d++)
                Vp[d * FIA_KB + c] = pr[d];
            continue;
        }
#endif
        float *kr = Kr ? Kr + c * Dp : tmp;
        fia_row_in(kr, kp, a->ks[3], D, Dp, a->dt);
        for (int64_t d = 0; d < D; d++)
            Kt[d * FIA_KB + c] = kr[d];
        fia_row_in(tmp, vp, a->vs[3], D, Dp, a->dt);
        for (int64_t d = 0; d < D; d++)
            Vt[d * FIA_KB + c] = tmp[d];
    }
    if (nk < FIA_KB)
        for (int64_t d = 0; d < D; d++) {
            memset(Kt + d * FIA_KB + nk, 0, (size_t)(FIA_KB - nk) * sizeof(float));
            memset(Vt + d * FIA_KB + nk, 0, (size_t)(FIA_KB - nk) * sizeof(float));
        }
}

/* Row i of head h, batch b, key columns [ja, jb) of the block at j0 (ncols: jb rounded up to 4 VW):
 * Sc holds q . k, dP holds dO . v. Leaves Pz = P z in Sc and dS = P (z dP - Di) in dP, both 0
 * outside [ja, jb). */
static void fas_row_grad(const fas_bwd_args *a, const fia_seq *sq, int64_t b, int64_t h, int64_t i, int64_t j0,
                         int64_t ja, int64_t jb, int64_t ncols, float m, float inv_l, float Di, float *Sc, float *dP)
{
    const int64_t es = FIA_ES(a->dt);
    const char *pse = a->has_pse && !a->pse_gen ? a->pse + (b * a->ps[0] + h * a->ps[1] + i * a->ps[2]) * es : NULL;
    const unsigned char *mk =
        a->has_mask ? (const unsigned char *)a->mask + b * a->ms[0] + h * a->ms[1] + i * a->ms[2] : NULL;
    float nslope = 0.0f;
    if (a->pse_gen) {
        memcpy(&nslope, a->pse + (b * a->ps[0] + h * a->ps[1]) * 4, sizeof nslope);
        nslope = -nslope;
    }
    if (!pse && !mk && !a->pse_gen)
        (void)fia_scale_row(Sc, ncols, ja, jb, a->scale);
    else
        for (int64_t c = 0; c < ncols; c++) {
            float s = FIA_NEG_INF;
            if (c >= ja && c < jb) {
                const int64_t jj = j0 + c;
                s = fia_biased(Sc[c], a->scale, a->pse_gen, nslope, jj + a->alibi_off - i,
                               pse ? pse + jj * a->ps[3] * es : NULL, a->pse_first, a->dt);
                if (mk && mk[jj * a->ms[3]])
                    s = FIA_NEG_INF;
            }
            Sc[c] = s;
        }
    const vf mv = vf_set1(m), iv = vf_set1(inv_l), ninf = vf_set1(FIA_NEG_INF), zero = vf_set1(0.0f);
    for (int64_t c = 0; c < ncols; c += VW) {
        const vf s = vf_load_f32(Sc + c);
        vf_store_f32(Sc + c, vf_blend(vf_eq(s, ninf), zero, vf_mul(vf_exp(vf_sub(s, mv)), iv)));
    }
    if (!a->drop) { /* dS = P (dP - Di) in [ja, jb), P z = P; both 0 outside */
        const vf dv = vf_set1(Di);
        for (int64_t c = 0; c < ncols; c += VW) {
            const vf p = vf_load_f32(Sc + c);
            vf_store_f32(dP + c, vf_mul(p, vf_sub(vf_load_f32(dP + c), dv)));
        }
        for (int64_t c = 0; c < ja; c++)
            Sc[c] = dP[c] = 0.0f;
        for (int64_t c = jb; c < ncols; c++)
            Sc[c] = dP[c] = 0.0f;
        return;
    }
    const int64_t f0 = sq->drop0 + (h * sq->dS + i) * sq->dSkv + j0;
    for (int64_t c = 0; c < ncols; c++) {
        if (c < ja || c >= jb) {
            Sc[c] = dP[c] = 0.0f;
            continue;
        }
        const float p = Sc[c];
        float dp = dP[c], pz = p;
        if (a->drop) {
            const float z = fia_kept(a->drop, f0 + c) ? a->keep_inv : 0.0f;
            dp *= z;
            pz *= z;
        }
        Sc[c] = pz;
        dP[c] = p * (dp - Di);
    }
}

/* The row's saved statistics: m and 1 / l; returns 0 for a row that saw no key (l = 0). */
static int fas_stats(const fas_bwd_args *a, const fia_seq *sq, int64_t b, int64_t h, int64_t i, float *m, float *inv_l)
{
    const int64_t off = (b * a->xs[0] + h * a->xs[1] + (sq->q0 + i) * a->xs[2]) * 4;
    float l;
    memcpy(m, a->smax + off, sizeof(float));
    memcpy(&l, a->ssum + off, sizeof(float));
    if (!(l > 0.0f) || *m == FIA_NEG_INF)
        return 0;
    *inv_l = 1.0f / l;
    return 1;
}

/* dO_i . O_i into *Di, with the rows dO_i (y) and O_i (o) converted; q_i into q when not NULL. */
static float fas_row_in(const fas_bwd_args *a, const fia_seq *sq, int64_t b, int64_t h, int64_t i, float *q, float *y,
                        float *o, uint32_t *qp, uint32_t *yp)
{
    const int64_t D = a->D, Dp = a->Dp, es = FIA_ES(a->dt), ii = sq->q0 + i;
    const char *qr = a->q + (b * a->qs[0] + h * a->qs[1] + ii * a->qs[2]) * es;
    const char *yr = a->dy + (b * a->ys[0] + h * a->ys[1] + ii * a->ys[2]) * es;
    if (q)
        fia_row_in(q, qr, a->qs[3], D, Dp, a->dt);
    fia_row_in(y, yr, a->ys[3], D, Dp, a->dt);
#if defined(FIA_HAVE_BF16DOT)
    if (qp) {
        fia_pairs_in(qp, qr, a->qs[3], D);
        fia_pairs_in(yp, yr, a->ys[3], D);
    }
#else
    (void)qp, (void)yp;
#endif
    fia_row_in(o, a->o + (b * a->os[0] + h * a->os[1] + ii * a->os[2]) * es, a->os[3], D, Dp, a->dt);
    return fia_dot(y, o, Dp);
}

/* Rows i0 .. i0 + n of head h against keys [j0, j0 + nk): each row's visible columns [ja, jb), stats
 * and dO . O; rows that see none get ja = jb = 0 and zero q / dO rows. Returns the columns to
 * compute (a multiple of 4 VW; 0: no row sees the block). */
static int64_t fas_rows_in(const fas_bwd_args *a, const fia_seq *sq, int64_t b, int64_t h, int64_t i0, int64_t n,
                           int64_t j0, int64_t nk, float *Q, float *Y, float *o, int64_t *ja, int64_t *jb, float *m,
                           float *il, float *Di, uint32_t *Qp, uint32_t *Yp)
{
    const int64_t Dp = a->Dp, D2 = (a->D + 1) / 2;
    int64_t ncols = 0;
    for (int64_t r = 0; r < n; r++) {
        const int64_t i = i0 + r;
        int64_t lo, hi;
        fia_seq_keys(sq, i, &lo, &hi);
        lo = (lo < j0 ? j0 : lo) - j0;
        hi = (hi > j0 + nk ? j0 + nk : hi) - j0;
        if (lo >= hi || !fas_stats(a, sq, b, h, i, &m[r], &il[r])) {
            ja[r] = jb[r] = 0;
            memset(Q + r * Dp, 0, (size_t)Dp * sizeof(float));
            memset(Y + r * Dp, 0, (size_t)Dp * sizeof(float));
            if (Qp) {
                memset(Qp + r * D2, 0, (size_t)D2 * sizeof(uint32_t));
                memset(Yp + r * D2, 0, (size_t)D2 * sizeof(uint32_t));
            }
            continue;
        }
        ja[r] = lo;
        jb[r] = hi;
        Di[r] = fas_row_in(a, sq, b, h, i, Q + r * Dp, Y + r * Dp, o, Qp ? Qp + r * D2 : NULL, Yp ? Yp + r * D2 : NULL);
        const int64_t nc = (hi + 4 * VW - 1) / (4 * VW) * (4 * VW);
        ncols = nc > ncols ? nc : ncols;
    }
    return ncols;
}

/* The scores q . k and dO . v of n rows against the block (fp32, or bf16 pairs). */
static void fas_scores2(const fas_bwd_args *a, const float *Q, const float *Y, const uint32_t *Qp, const uint32_t *Yp,
                        int64_t n, const float *Kt, const float *Vt, int64_t ncols, float *SS, float *DP)
{
#if defined(FIA_HAVE_BF16DOT)
    if (Qp) {
        const int64_t D2 = (a->D + 1) / 2;
        fia_scores_rows_bf16(Qp, D2, n, (const uint32_t *)(const void *)Kt, D2, ncols, SS);
        fia_scores_rows_bf16(Yp, D2, n, (const uint32_t *)(const void *)Vt, D2, ncols, DP);
        return;
    }
#else
    (void)Qp, (void)Yp;
#endif
    fia_scores_rows(Q, a->Dp, n, Kt, a->D, ncols, SS);
    fia_scores_rows(Y, a->Dp, n, Vt, a->D, ncols, DP);
}

/* Key block kb of key/value head g, batch b: dK and dV of its keys, written out; with @p dQa (the
 * fused kernel) also each row's scale dS K added to its accumulator dQa[((h - g G) S + i) Dp]. */
static void fas_kv_unit(const fas_bwd_args *a, float *ws, int64_t b, int64_t g, int64_t kb, float *dQa)
{
    const int64_t D = a->D, Dp = a->Dp, G = a->group, es = FIA_ES(a->dt);
    float *Kt = ws, *Vt = Kt + D * FIA_KB, *dK = Vt + D * FIA_KB, *dV = dK + FIA_KB * Dp;
    float *Q = dV + FIA_KB * Dp, *Y = Q + FAS_QB * Dp, *PT = Y + FAS_QB * Dp, *ST = PT + FIA_KB * FAS_QB;
    float *SS = ST + FIA_KB * FAS_QB, *DP = SS + FAS_QB * FIA_KB, *o = DP + FAS_QB * FIA_KB, *tmp = o + Dp;
    float *m = tmp + Dp, *il = m + FAS_QB, *Di = il + FAS_QB, *Kr = Di + FAS_QB;
    uint32_t *Qp = a->bf16dot ? (uint32_t *)(void *)(Kr + FIA_KB * Dp) : NULL, *Yp = Qp ? Qp + FAS_QB * Dp : NULL;
    int64_t ja[FAS_QB], jb[FAS_QB];
    const fia_seq *sq = fas_seq(a, b);
    const int64_t j0 = kb * FIA_KB, nk = sq->kvlen - j0 < FIA_KB ? sq->kvlen - j0 : FIA_KB;
    if (nk <= 0)
        return; /* past this sequence's keys */
    fas_load_kv(a, sq, b, g, j0, nk, Kt, Vt, dQa ? Kr : NULL, tmp);
    memset(dK, 0, (size_t)(2 * FIA_KB * Dp) * sizeof(float));
    /* rows that see a key of the block: lo <= j - i - shift <= hi for some j in it (any row when the
     * block starts inside the prefix) */
    int64_t ilo = j0 - sq->shift - sq->hi, ihi = j0 + nk - sq->shift - sq->lo;
    if (sq->prefix > j0)
        ilo = 0, ihi = sq->qlen;
    ilo = ilo < 0 ? 0 : ilo;
    ihi = ihi > sq->qlen ? sq->qlen : ihi;
    /* groups of FAS_QB rows: each row's P z and scale dS go to column c of PT / ST (transposed),
     * then every key's dV and dK take the group's rows in order (fia_pv) */
    for (int64_t h = g * G; h < (g + 1) * G; h++)
        for (int64_t r0 = ilo; r0 < ihi; r0 += FAS_QB) {
            const int64_t nr = ihi - r0 < FAS_QB ? ihi - r0 : FAS_QB;
            const int64_t ncols = fas_rows_in(a, sq, b, h, r0, nr, j0, nk, Q, Y, o, ja, jb, m, il, Di, Qp, Yp);
            if (ncols == 0)
                continue;
            fas_scores2(a, Q, Y, Qp, Yp, nr, Kt, Vt, ncols, SS, DP);
            for (int64_t r = 0; r < nr; r++) {
                float *sc = SS + r * FIA_KB, *dp = DP + r * FIA_KB;
                const int live = ja[r] < jb[r];
                if (live) {
                    fas_row_grad(a, sq, b, h, r0 + r, j0, ja[r], jb[r], ncols, m[r], il[r], Di[r], sc, dp);
                    for (int64_t c = 0; c < ncols; c++)
                        dp[c] = a->scale * dp[c];
                }
                for (int64_t c = 0; c < nk; c++) {
                    const int on = live && c < ncols;
                    PT[c * FAS_QB + r] = on ? sc[c] : 0.0f;
                    ST[c * FAS_QB + r] = on ? dp[c] : 0.0f;
                }
            }
            static const float one[4] = {1.0f, 1.0f, 1.0f, 1.0f};
            /* dQ += scale dS K, keys in order as the query kernel adds them, four rows with the same
             * key range at a time */
            for (int64_t r = 0; dQa && r < nr;) {
                float *dq = dQa + ((h - g * G) * a->S + r0 + r) * Dp;
                if (r + 4 <= nr && ja[r] < jb[r] && ja[r + 1] == ja[r] && ja[r + 2] == ja[r] && ja[r + 3] == ja[r] &&
                    jb[r + 1] == jb[r] && jb[r + 2] == jb[r] && jb[r + 3] == jb[r]) {
                    float *const aq[4] = {dq, dq + Dp, dq + 2 * Dp, dq + 3 * Dp};
                    const float *const pq[4] = {DP + r * FIA_KB, DP + (r + 1) * FIA_KB, DP + (r + 2) * FIA_KB,
                                                DP + (r + 3) * FIA_KB};
                    fia_pv4(aq, pq, Kr, Dp, ja[r], jb[r], one);
                    r += 4;
                    continue;
                }
                if (ja[r] < jb[r])
                    fia_pv(dq, DP + r * FIA_KB, Kr, Dp, ja[r], jb[r], 1.0f);
                r++;
            }
            int64_t c = 0;
            for (; c + 4 <= nk; c += 4) { /* four keys share each row of dO (Q) */
                float *const av[4] = {dV + c * Dp, dV + (c + 1) * Dp, dV + (c + 2) * Dp, dV + (c + 3) * Dp};
                float *const ak[4] = {dK + c * Dp, dK + (c + 1) * Dp, dK + (c + 2) * Dp, dK + (c + 3) * Dp};
                const float *const pv[4] = {PT + c * FAS_QB, PT + (c + 1) * FAS_QB, PT + (c + 2) * FAS_QB,
                                            PT + (c + 3) * FAS_QB};
                const float *const pk[4] = {ST + c * FAS_QB, ST + (c + 1) * FAS_QB, ST + (c + 2) * FAS_QB,
                                            ST + (c + 3) * FAS_QB};
                fia_pv4(av, pv, Y, Dp, 0, nr, one);
                fia_pv4(ak, pk, Q, Dp, 0, nr, one);
            }
            for (; c < nk; c++) {
                fia_pv(dV + c * Dp, PT + c * FAS_QB, Y, Dp, 0, nr, 1.0f);
                fia_pv(dK + c * Dp, ST + c * FAS_QB, Q, Dp, 0, nr, 1.0f);
            }
        }
    for (int64_t c = 0; c < nk; c++) {
        const int64_t j = sq->kv0 + j0 + c;
        fia_row_out(a->dk + (b * a->dks[0] + g * a->dks[1] + j * a->dks[2]) * es, a->dks[3], dK + c * Dp, D, a->dt);
        fia_row_out(a->dv + (b * a->dvs[0] + g * a->dvs[1] + j * a->dvs[2]) * es, a->dvs[3], dV + c * Dp, D, a->dt);
    }
}

void FAS_KV_FN(const fas_bwd_args *a, float *ws, int64_t w0, int64_t w1)
{
    for (int64_t w = w0; w < w1; w++) {
        const int64_t kb = w % a->nkb, t = w / a->nkb;
        fas_kv_unit(a, ws, t / a->Nkv, t % a->Nkv, kb, NULL);
    }
}

void FAS_FUSED_FN(const fas_bwd_args *a, float *ws, int64_t w0, int64_t w1)
{
    const int64_t Dp = a->Dp, G = a->group, es = FIA_ES(a->dt);
    float *dQa = ws + a->fused_off;
    for (int64_t w = w0; w < w1; w++) {
        const int64_t g = w % a->Nkv, b = w / a->Nkv;
        const fia_seq *sq = fas_seq(a, b);
        for (int64_t hh = 0; hh < G; hh++) /* the rows of this sequence only (TND: S is the longest) */
            memset(dQa + hh * a->S * Dp, 0, (size_t)(sq->qlen * Dp) * sizeof(float));
        for (int64_t kb = 0; kb < a->nkb; kb++)
            fas_kv_unit(a, ws, b, g, kb, dQa);
        for (int64_t h = g * G; h < (g + 1) * G; h++)
            for (int64_t i = 0; i < sq->qlen; i++)
                fia_row_out(a->dq + (b * a->dqs[0] + h * a->dqs[1] + (sq->q0 + i) * a->dqs[2]) * es, a->dqs[3],
                            dQa + ((h - g * G) * a->S + i) * Dp, a->D, a->dt);
    }
}

void FAS_Q_FN(const fas_bwd_args *a, float *ws, int64_t w0, int64_t w1)
{
    const int64_t D = a->D, Dp = a->Dp, G = a->group, es = FIA_ES(a->dt);
    float *Kt = ws, *Vt = Kt + D * FIA_KB, *Kr = Vt + D * FIA_KB, *dQ = Kr + FIA_KB * Dp;
    float *Q = dQ + FAS_QB * Dp, *Y = Q + FAS_QB * Dp, *SS = Y + FAS_QB * Dp, *DP = SS + FAS_QB * FIA_KB;
    float *o = DP + FAS_QB * FIA_KB, *tmp = o + Dp, *m = tmp + Dp, *il = m + FAS_QB, *Di = il + FAS_QB;
    uint32_t *Qp = a->bf16dot ? (uint32_t *)(void *)(Di + FAS_QB) : NULL, *Yp = Qp ? Qp + FAS_QB * Dp : NULL;
    int64_t ja[FAS_QB], jb[FAS_QB], jlo[FAS_QB], jhi[FAS_QB];
    for (int64_t w = w0; w < w1; w++) {
        const int64_t qb = w % a->nqb, t = w / a->nqb, h = t % a->N, b = t / a->N, g = h / G;
        const fia_seq *sq = fas_seq(a, b);
        const int64_t i0 = qb * FAS_QB, ni = sq->qlen - i0 < FAS_QB ? sq->qlen - i0 : FAS_QB;
        if (ni <= 0)
            continue; /* past this sequence's rows */
        memset(dQ, 0, (size_t)(FAS_QB * Dp) * sizeof(float));
        memset(tmp, 0, (size_t)Dp * sizeof(float));
        /* the rows against every key: their range, stats, q and dO rows */
        fas_rows_in(a, sq, b, h, i0, ni, 0, sq->kvlen, Q, Y, o, jlo, jhi, m, il, Di, Qp, Yp);
        int64_t jmin = sq->kvlen, jmax = 0;
        for (int64_t r = 0; r < ni; r++) {
            if (jlo[r] < jhi[r]) {
                jmin = jlo[r] < jmin ? jlo[r] : jmin;
                jmax = jhi[r] > jmax ? jhi[r] : jmax;
            }
            if (a->dpse) /* zeros where the row sees no key; the rest is overwritten below */
                for (int64_t j = 0; j < a->Skv; j += Dp)
                    fia_row_out(a->dpse + (b * a->dps[0] + h * a->dps[1] + (i0 + r) * a->dps[2] + j * a->dps[3]) * es,
                                a->dps[3], tmp, a->Skv - j < Dp ? a->Skv - j : Dp, a->dt);
        }
        for (int64_t j0 = jmin; j0 < jmax; j0 += FIA_KB) {
            const int64_t nk = jmax - j0 < FIA_KB ? jmax - j0 : FIA_KB;
            fas_load_kv(a, sq, b, g, j0, nk, Kt, Vt, Kr, tmp);
            int64_t ncols = 0;
            for (int64_t r = 0; r < ni; r++) {
                ja[r] = jlo[r] > j0 ? jlo[r] - j0 : 0;
                jb[r] = jhi[r] < j0 + nk ? jhi[r] - j0 : nk;
                if (ja[r] >= jb[r])
                    continue;
                const int64_t nc = (jb[r] + 4 * VW - 1) / (4 * VW) * (4 * VW);
                ncols = nc > ncols ? nc : ncols;
            }
            if (ncols == 0)
                continue;
            fas_scores2(a, Q, Y, Qp, Yp, ni, Kt, Vt, ncols, SS, DP);
            for (int64_t r = 0; r < ni; r++) {
                if (ja[r] >= jb[r])
                    continue;
                const int64_t i = i0 + r;
                float *sc = SS + r * FIA_KB, *dp = DP + r * FIA_KB;
                fas_row_grad(a, sq, b, h, i, j0, ja[r], jb[r], ncols, m[r], il[r], Di[r], sc, dp);
                for (int64_t c = ja[r]; c < jb[r]; c++)
                    sc[c] = a->scale * dp[c];
                fia_pv(dQ + r * Dp, sc, Kr, Dp, ja[r], jb[r], 1.0f);
                if (a->dpse) /* d s / d pse: scale, or 1 when the pse is added after the scale */
                    fia_row_out(a->dpse +
                                    (b * a->dps[0] + h * a->dps[1] + i * a->dps[2] + (j0 + ja[r]) * a->dps[3]) * es,
                                a->dps[3], (a->pse_first ? sc : dp) + ja[r], jb[r] - ja[r], a->dt);
            }
        }
        for (int64_t r = 0; r < ni; r++)
            fia_row_out(a->dq + (b * a->dqs[0] + h * a->dqs[1] + (sq->q0 + i0 + r) * a->dqs[2]) * es, a->dqs[3],
                        dQ + r * Dp, D, a->dt);
    }
}
