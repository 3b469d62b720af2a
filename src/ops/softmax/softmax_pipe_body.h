/*
 * The softmax-family kernels' pipelined forward paths for one storage type (part of
 * softmax_body.h, after softmax_row_body.h): several rows in flight at once, each stage of each
 * row computed exactly as FN(fwd_row) computes it. FN(fwd_pipe) for 16-bit rows on AVX-512,
 * FN(fwd_pipe32) for fp32 rows of up to SM_PIPE32_MAX_R, FN(fwd_lpipe32) for long fp32
 * log-softmax rows.
 */
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
