/*
 * Softmax-family row and column kernels for one storage type, written against the vec_* layer.
 * Included by softmax_impl.h once per type with SM_T (f32, f16, bf16: the suffix of the vec_*
 * loads/stores) and SM_CT (the C storage type) defined. The paths, one file each: rows
 * (softmax_row_body.h), pipelined rows (softmax_pipe_body.h), short rows in groups and batches
 * (softmax_group.h), and here the backward rows, the column tiles and the dispatch (FN(units)).
 */
#define SM_CAT2(a, b) a##_##b
#define SM_CAT(a, b) SM_CAT2(a, b)
#define FN(name) SM_CAT(name, SM_T)
#define LD SM_CAT(vf_load, SM_T)
#define LDN SM_CAT(vf_loadn, SM_T)
#define ST SM_CAT(vf_store, SM_T)
#define STN SM_CAT(vf_storen, SM_T)
#define STNT SM_CAT(vf_stream, SM_T)

/* bf16 rows on AVX-512 are read, summed and written in pair layout (softmax_vec.h) by the fast
 * path, whatever the stores: the layout sets the order of the fast sum's fp32 additions
 * (FN(sum16_step4)), so every row takes it and streaming stores never change a bit. Pairs go out
 * as whole-line streaming stores only from rows that start on a 64-byte line; the others store
 * their pairs plainly (a pair streamed as two 32-byte halves from different vectors would go
 * out as partial lines). SM_PERM(nt, y): whether a row of output y uses the pair layout. */
#if SM_IS_BF16 && defined(SM_BF16_PAIRS)
#define SM_PAIRS 1
#define SM_PERM(nt, y) ((void)(nt), (void)(y), 1)
#else
#define SM_PAIRS 0
#define SM_PERM(nt, y) (!(nt))
#endif

/* The share (in quarters) of the next row that a long row's exp pass prefetches (FN(units));
 * the write pass prefetches the rest (FN(fast_write_pf), FN(write_soft_x)). fp32: 3, so that
 * the next row's reads overlap the write pass too. The 16-bit rows take the whole row in the exp
 * pass: the look-ahead test of rows up to SM_LOOK_MAX_BYTES (sm_look) reads the next row before
 * the write pass, and for longer rows a split is no faster. */
#if SM_IS_F32
#define SM_PF_EXP_K 3
#else
#define SM_PF_EXP_K 4
#endif

/* fp32 inputs need x - max with its rounding error (TwoSum) for softmax to reach ~1e-7 relative
 * accuracy on rows with a wide spread; fp16/bf16 outputs cannot see that error. */
#if SM_IS_F32
#define SM_EXP_DIFF(v, m) sm_exp_diff_exact(v, m)
/* Largest max - min of a row taking the fast path (see FN(fwd_row)). */
#define SM_FAST_RANGE 8.0f
/* The exp of FN(row_sumexp_body) by the row's kind (SM_KIND_*): the wide one (class 2 rows) or
 * the fast one, of x - m. */
#define SM_KIND_NARROW 0
#define SM_KIND_WIDE 1
#ifdef SM_EXP_WIDE
#define SM_EXP_WIDE_SETUP(m) const sm_fexp sm_wx_ = sm_exp_wide_setup(m)
#define SM_EXP_ROW(v) (kind == SM_KIND_WIDE ? sm_exp_wide(v, &sm_wx_) : SM_EXP_FAST(vf_sub(v, vm)))
#else
#define SM_EXP_WIDE_SETUP(m) (void)0
#define SM_EXP_ROW(v) ((void)kind, SM_EXP_FAST(vf_sub(v, vm)))
#endif
#else
/* Within vf_exp_small's range, and small enough that no softmax output of a row up to
 * SM_SCRATCH_MAX elements is subnormal (e^-64 / 32768 > 2^-126); x - m is not exact beyond 2^-24
 * relative, invisible in a 16-bit result. */
#define SM_FAST_RANGE 64.0f
#define SM_EXP_DIFF(v, m) vf_exp(vf_sub(v, m))
#endif

#include "softmax_row_body.h"
#include "softmax_pipe_body.h"

/* Backward over a row: y is the forward output, g the incoming gradient.
 *   softmax:     out = y * (g - sum(g * y))
 *   log_softmax: out = g - exp(y) * sum(g)                                                   */
static void FN(bwd_row)(const SM_CT *y, const SM_CT *g, SM_CT *o, int64_t n, int lg, int nt)
{
    vd a0 = vd_zero(), a1 = vd_zero();
    int64_t i0 = 0;
    for (; i0 + 2 * VW <= n; i0 += 2 * VW) {
        vf g0 = LD(g + i0), g1 = LD(g + i0 + VW);
        if (!lg) {
            g0 = vf_mul(g0, LD(y + i0));
            g1 = vf_mul(g1, LD(y + i0 + VW));
        }
        a0 = vd_add(a0, g0);
        a1 = vd_add(a1, g1);
    }
    for (; i0 < n; i0 += VW) {
        size_t k = (size_t)(n - i0) < VW ? (size_t)(n - i0) : VW;
        vf g0 = LDN(g + i0, k, 0.0f);
        if (!lg)
            g0 = vf_mul(g0, LDN(y + i0, k, 0.0f));
        a0 = vd_add(a0, g0);
    }
    const vf s = vf_set1((float)(vd_hsum(a0) + vd_hsum(a1)));
    if (lg) {
        SM_WRITE_ROW(o, n, nt, vf_sub(LD(g + i), vf_mul(vf_exp(LD(y + i)), s)),
                     vf_sub(LDN(g + i, k, 0.0f), vf_mul(vf_exp(LDN(y + i, k, 0.0f)), s)));
    } else {
        SM_WRITE_ROW(o, n, nt, vf_mul(LD(y + i), vf_sub(LD(g + i), s)),
                     vf_mul(LDN(y + i, k, 0.0f), vf_sub(LDN(g + i, k, 0.0f), s)));
    }
}

/* Columns [c0, c0 + nc) of one outer slice (R rows of stride `inner`), VW columns at a time:
 * each lane runs the row algorithm of its own column. */
static void FN(cols)(const sm_args *a, const SM_CT *x, const SM_CT *g, SM_CT *o, int64_t nc)
{
    const int64_t R = a->R, ld = a->inner;
    const int op = a->op;
    for (int64_t c = 0; c < nc; c += VW) {
        const size_t k = (size_t)(nc - c) < VW ? (size_t)(nc - c) : VW;
        double sums[VW];
        float lane[VW];
        if (op == SM_SOFTMAX || op == SM_LOG_SOFTMAX) {
            vf m = vf_set1(-__builtin_inff());
            for (int64_t r = 0; r < R; r++)
                m = vf_max(m, LDN(x + r * ld + c, k, -__builtin_inff()));
            vd acc = vd_zero();
            for (int64_t r = 0; r < R; r++)
                acc = vd_add(acc, vf_keep(SM_EXP_DIFF(LDN(x + r * ld + c, k, 0.0f), m), k));
            vd_store(sums, acc);
            if (op == SM_SOFTMAX) {
                for (int j = 0; j < VW; j++)
                    lane[j] = (float)(1.0 / sums[j]);
                const vf inv = vf_loadn_f32(lane, k, 0.0f);
                for (int64_t r = 0; r < R; r++)
                    STN(o + r * ld + c, vf_mul(SM_EXP_DIFF(LDN(x + r * ld + c, k, 0.0f), m), inv), k);
            } else {
                /* Columns whose sum is below 2 (max finite): log s as FN(row_log_near1) takes it. */
                float mj[VW];
                int near1[VW], any = 0;
                vf_storen_f32(mj, m, VW);
                for (size_t j = 0; j < VW; j++) {
                    near1[j] = j < k && sums[j] < SM_FAST_LOG_RESUM && mj[j] > -__builtin_inff() &&
                               mj[j] < __builtin_inff();
                    any |= near1[j];
                    lane[j] = (float)log_d(sums[j]);
                }
                if (any) {
                    vd t = vd_zero(), cn = vd_zero();
                    for (int64_t r = 0; r < R; r++)
                        FN(near1_step)(LDN(x + r * ld + c, k, -__builtin_inff()), m, &t, &cn);
                    double tj[VW], cj[VW];
                    vd_store(tj, t);
                    vd_store(cj, cn);
                    for (size_t j = 0; j < k; j++)
                        if (near1[j])
                            lane[j] = (float)log1p((cj[j] - 1.0) + tj[j]);
                }
                const vf ls = vf_loadn_f32(lane, k, 0.0f);
                for (int64_t r = 0; r < R; r++)
                    STN(o + r * ld + c, vf_sub(vf_sub(LDN(x + r * ld + c, k, 0.0f), m), ls), k);
            }
        } else {
            const int lg = op == SM_LOG_SOFTMAX_BWD;
            vd acc = vd_zero();
            for (int64_t r = 0; r < R; r++) {
                vf gv = LDN(g + r * ld + c, k, 0.0f);
                if (!lg)
                    gv = vf_mul(gv, LDN(x + r * ld + c, k, 0.0f));
                acc = vd_add(acc, gv);
            }
            vd_store(sums, acc);
            for (int j = 0; j < VW; j++)
                lane[j] = (float)sums[j];
            const vf s = vf_loadn_f32(lane, k, 0.0f);
            for (int64_t r = 0; r < R; r++) {
                vf yv = LDN(x + r * ld + c, k, 0.0f), gv = LDN(g + r * ld + c, k, 0.0f);
                vf ov = lg ? vf_sub(gv, vf_mul(vf_exp(yv), s)) : vf_mul(yv, vf_sub(gv, s));
                STN(o + r * ld + c, ov, k);
            }
        }
    }
}

#include "softmax_group.h"

static void FN(units)(const sm_args *a, int64_t u0, int64_t u1)
{
    const SM_CT *x = (const SM_CT *)a->x, *g = (const SM_CT *)a->g;
    SM_CT *o = (SM_CT *)a->out;
    const int64_t R = a->R;
    if (a->inner == 1) {
        const int fwd = a->op == SM_SOFTMAX || a->op == SM_LOG_SOFTMAX;
        /* Rows per group: as many as SM_GROUP_ELEMS elements hold, 2 to SM_GROUP_ROWS. */
        int64_t grp = R <= SM_GROUP_R_MAX ? SM_GROUP_ELEMS / (R > 0 ? R : 1) : 1;
        grp = grp > SM_GROUP_ROWS ? SM_GROUP_ROWS : grp < 2 ? 2 : grp;
        float buf[fwd && R <= SM_SCRATCH_MAX ? (R <= SM_GROUP_R_MAX ? grp * R : R) + VW : 1] __attribute__((aligned(64)));
        float *scratch = buf;
        /* The read pass of a long row streams it from memory while the exp pass runs from
         * cache, and the hardware prefetcher does not bridge the gap; the exp pass (and for
         * fp32 the write pass, see SM_PF_EXP_K) therefore prefetches the next row into L2, so
         * the two overlap. Short rows (R <= SM_GROUP_R_MAX) prefetch the next group or batch
         * themselves (softmax_group.h). */
        const int pf_on = R * (int64_t)sizeof(SM_CT) >= SM_PREFETCH_MIN_BYTES;
        /* The next block may go to another worker: prefetching its first row would only move
         * that row into this core's L2 (see sm_args.pf_cross). */
        const int64_t pf_end = a->pf_cross ? a->outer : u1;
        int64_t u = u0;
#ifdef SM_PIPE
        /* 16-bit rows of 512 to 2048 elements (log-softmax: 576 to 4096) with plain stores, and
         * of SM_PIPE_LONG_MIN_R to SM_SCRATCH_MAX with either kind, go through the pipeline. */
        const int lgo = a->op == SM_LOG_SOFTMAX;
        /* Long rows (SM_PIPE_LONG_MIN_R), streaming stores or not: bf16 streams its pair layout
         * only from rows that start on a 64-byte line (FN(write_soft)), which then all do (R is a
         * multiple of 64 elements). */
        const int plong = R >= SM_PIPE_LONG_MIN_R && R <= SM_SCRATCH_MAX &&
                          (!a->nt || !SM_PAIRS || ((uintptr_t)o & 63u) == 0);
        if (fwd && R % (4 * VW) == 0 && u1 - u0 >= 3 &&
            (plong || (!a->nt && R >= (lgo ? SM_PIPE_MIN_R : SM_PIPE_SOFT_MIN_R) &&
                       R <= (lgo ? SM_PIPE_MAX_R : SM_PIPE_SOFT_MAX_R)))) {
            float pbuf[plong ? 2 * R : 2 * SM_PIPE_SOFT_MAX_R] __attribute__((aligned(64)));
            SM_CT ring[2 * SM_PIPE_RING_MAX_R] __attribute__((aligned(64)));
            FN(fwd_pipe)(x, o, u0, u1, R, lgo, a->nt, scratch, pbuf,
                         !lgo && R <= SM_PIPE_RING_MAX_R ? ring : NULL);
            return;
        }
#endif
#ifdef SM_LPIPE32
        /* Long fp32 log-softmax rows on AVX-512 (SM_PIPE_LONG_MIN_R to SM_SCRATCH_MAX, multiples of
         * 128): the pipeline without scratch (FN(fwd_lpipe32)). */
        if (a->op == SM_LOG_SOFTMAX && R % (8 * VW) == 0 && R >= SM_PIPE_LONG_MIN_R && R <= SM_SCRATCH_MAX &&
            u1 - u0 >= 3) {
            FN(fwd_lpipe32)(x, o, u0, u1, R, a->nt, scratch);
            return;
        }
#endif
#ifdef SM_PIPE32
        /* fp32 rows of 256 (log-softmax: 512) to 1024 elements, multiples of 128, on AVX-512: the
         * pipeline (SM_PIPE32_MIN_R). */
        if (fwd && R % (8 * VW) == 0 && R >= (a->op == SM_LOG_SOFTMAX ? SM_PIPE32_LOG_MIN_R : SM_PIPE32_MIN_R) &&
            R <= SM_PIPE32_MAX_R && u1 - u0 >= 3) {
            float pbuf[2 * SM_PIPE32_MAX_R] __attribute__((aligned(64)));
            float ring[3 * SM_PIPE32_MAX_R] __attribute__((aligned(64)));
            FN(fwd_pipe32)(x, o, u0, u1, R, a->op == SM_LOG_SOFTMAX, a->nt, scratch, pbuf, ring);
            return;
        }
#endif
#ifdef SM_BPIPE
        /* 16-bit log-softmax rows of 64 on AVX-512, plain stores: the full batches of 16 rows
         * through the batch pipeline (SM_BPIPE_R), the rest in groups as below. */
        if (a->op == SM_LOG_SOFTMAX && !a->nt && R == SM_BPIPE_R && u1 - u0 >= 3 * 16) {
            const int64_t nb = (u1 - u0) / 16;
            FN(fwd_bpipe_64)(x + u0 * R, o + u0 * R, nb, scratch);
            u = u0 + nb * 16;
        }
#endif
        /* Softmax rows long enough to read their successor ahead (SM_PREFETCH_MIN_BYTES; of
         * the group lengths, fp32 rows of 512) go row by row instead: from memory the row path
         * measured faster (see SM_PREFETCH_MIN_BYTES). Log-softmax keeps the groups, whose 16 logs
         * are one vector where the row path waits on each row's log chain. */
        if (fwd && R <= SM_GROUP_R_MAX && !(a->op == SM_SOFTMAX && pf_on))
            for (; u < u1; u += grp) {
                const int64_t g = u1 - u < grp ? u1 - u : grp;
                /* The last group of a block prefetches no further (its successor may be
                 * another worker's rows) unless one worker runs every block. */
                FN(fwd_group_pf)(x + u * R, o + u * R, g, R, a->op == SM_LOG_SOFTMAX, a->nt, scratch,
                                 a->pf_cross || u + g < u1);
            }
        /* 16-bit rows of up to SM_LOOK_MAX_BYTES test the next row of their block early (see
         * FN(fwd_row)); their exp pass prefetches the whole next row (SM_PF_EXP_K == 4), so that
         * test reads from cache. */
        const int look_on = !SM_IS_F32 && fwd && R * (int64_t)sizeof(SM_CT) <= SM_LOOK_MAX_BYTES;
        sm_look lk = {0, 0, 0.0f};
        for (; u < u1; u++) {
            const int64_t off = u * R;
            const char *pf = pf_on && u + 1 < pf_end ? (const char *)(x + off + R) : NULL;
            if (a->op == SM_SOFTMAX || a->op == SM_LOG_SOFTMAX)
                FN(fwd_row)(x + off, o + off, R, a->op == SM_LOG_SOFTMAX, a->nt, scratch, pf,
                            look_on && u + 1 < u1 ? x + off + R : NULL, look_on ? &lk : NULL);
            else
                FN(bwd_row)(x + off, g + off, o + off, R, a->op == SM_LOG_SOFTMAX_BWD, a->nt);
        }
    } else {
        const int64_t tiles = (a->inner + SM_TILE_COLS - 1) / SM_TILE_COLS;
        for (int64_t u = u0; u < u1; u++) {
            const int64_t ob = u / tiles, c0 = (u % tiles) * SM_TILE_COLS;
            const int64_t nc = a->inner - c0 < SM_TILE_COLS ? a->inner - c0 : SM_TILE_COLS;
            const int64_t off = ob * R * a->inner + c0;
            FN(cols)(a, x + off, g ? g + off : NULL, o + off, nc);
        }
    }
}

#undef SM_EXP_DIFF
#undef SM_PIPE
#undef SM_PIPE32
#undef SM_LPIPE32
#undef SM_LPIPE32_PF
#undef SM_BPIPE
#undef SM_BPIPE_R
#undef SM_SUMEXP_STEP8
#undef SM_FAST_LOG_RESUM
#undef SM_PAIRS
#undef SM_PERM
#undef SM_PF_EXP_K
#undef SM_FAST_RANGE
#undef SM_EXP_ROW
#undef SM_EXP_WIDE_SETUP
#undef SM_WRITE_ROW
#undef SM_WRITE_ROW_WITH
#undef FN
#undef LD
#undef LDN
#undef ST
#undef STN
#undef STNT
