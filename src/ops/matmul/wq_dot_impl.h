/*
 * The fused small-m kernel of aclnnWeightQuantBatchMatmulV2 (see wq_kernels.h), one body for every
 * ISA tier: included by wq_dot_<tier>.c after that tier's vec_<tier>.h and its two loaders,
 *   wq_ld_i8(p)     VW int8 values at p, widened to fp32;
 *   wq_ld_i4(c, p)  VW nibbles from element p (a multiple of VW) of the INT4 column at byte c,
 *                   sign-extended to fp32;
 * with WQ_DOT_FN naming the entry point, WQ_DOT_C the columns and WQ_DOT_R the rows of a tile.
 *
 * A tile is WQ_DOT_C columns (or one, for the columns left over) against WQ_DOT_R rows of x (or
 * fewer): each step widens VW values of every column in registers (plus the group's offset) and
 * multiplies each into every row, so a row's load serves WQ_DOT_C columns and a column's values
 * serve WQ_DOT_R rows; the tiles over further rows find the columns in cache. The weight is read
 * from memory once. Summation order, per row and column, fixed by the shape and the tier's VW:
 * a group's products go into one vector accumulator, VW lanes at a time from the group's start;
 * the accumulator, times the group's scale, is added (one fma) into the row's result vector; at
 * the end its lanes are summed pairwise. The tiling does not change it: a row's result does not
 * depend on m or on which tile holds it.
 */
#include "mm_hsum.h"
#include "wq_kernels.h"

/* n (<= VW) values of the column from element p, the lanes past n zero. */
static inline vf wq_ld_tail(const void *col, int int4, int64_t p, int64_t n)
{
    float t[VW];
    for (int64_t i = 0; i < VW; i++) {
        int v = 0;
        if (i < n) {
            if (int4) {
                const int64_t e = p + i;
                const uint8_t b = ((const uint8_t *)col)[e >> 1];
                v = (e & 1) ? (int)((int8_t)b >> 4) : (int)((int8_t)(uint8_t)(b << 4) >> 4);
            } else {
                v = ((const int8_t *)col)[p + i];
            }
        }
        t[i] = (float)v;
    }
    return vf_from_array(t);
}

static inline __attribute__((always_inline)) vf wq_ld(const void *col, int int4, int64_t p)
{
    return int4 ? wq_ld_i4((const uint8_t *)col, p) : wq_ld_i8((const int8_t *)col + p);
}

/* Group gi (elements [p0, p1)) of rows [0, R) and columns [0, C): acc[r][c] += s_c[gi] * the
 * group's sum. */
static inline __attribute__((always_inline)) void wq_dot_group(const float *x, int64_t ldx, int R, int C,
                                                               const void *const *cols, int int4, int64_t p0,
                                                               int64_t p1, const float *s, const float *o, int64_t ng,
                                                               int64_t gi, vf acc[][WQ_DOT_C])
{
    vf ov[WQ_DOT_C], gs[WQ_DOT_R][WQ_DOT_C];
    for (int c = 0; c < C; c++)
        ov[c] = vf_set1(o ? o[c * ng + gi] : 0.0f);
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++)
            gs[r][c] = vf_set1(0.0f);
    int64_t p = p0;
#ifdef WQ_PF_DIST
    /* Tiers that define WQ_PF_DIST prefetch each column's line that far ahead, once per 64 bytes
     * (groups start at multiples of the group size): one core reading a few columns at once
     * keeps too few lines in flight through the hardware prefetchers alone. */
    if (!((p0 >> int4) & 63))
        for (int c = 0; c < C; c++)
            __builtin_prefetch((const char *)cols[c] + (p0 >> int4) + WQ_PF_DIST, 0, 0);
#endif
    for (; p + VW <= p1; p += VW) {
        vf w[WQ_DOT_C];
        for (int c = 0; c < C; c++) {
            w[c] = wq_ld(cols[c], int4, p);
            if (o)
                w[c] = vf_add(w[c], ov[c]);
        }
        for (int r = 0; r < R; r++) {
            const vf xv = vf_load_f32(x + r * ldx + p);
            for (int c = 0; c < C; c++)
                gs[r][c] = vf_fma(w[c], xv, gs[r][c]);
        }
    }
    if (p < p1) {
        const int64_t n = p1 - p;
        vf w[WQ_DOT_C];
        for (int c = 0; c < C; c++) {
            w[c] = wq_ld_tail(cols[c], int4, p, n);
            if (o)
                w[c] = vf_keep(vf_add(w[c], ov[c]), (size_t)n);
        }
        for (int r = 0; r < R; r++) {
            const vf xv = vf_loadn_f32(x + r * ldx + p, (size_t)n, 0.0f);
            for (int c = 0; c < C; c++)
                gs[r][c] = vf_fma(w[c], xv, gs[r][c]);
        }
    }
    for (int c = 0; c < C; c++) {
        const vf sv = vf_set1(s[c * ng + gi]);
        for (int r = 0; r < R; r++)
            acc[r][c] = vf_fma(gs[r][c], sv, acc[r][c]);
    }
}

/* Rows [0, R) and columns [0, C) of one pass; R, C, int4 and whether there is an offset are
 * constants where inlined. */
static inline __attribute__((always_inline)) void wq_dot_tile(const float *x, int64_t ldx, int R, int C, int64_t k,
                                                              const void *const *cols, int int4, int64_t group,
                                                              const float *s, const float *o, float *out, int64_t ldo)
{
    const int64_t ng = (k + group - 1) / group;
    vf acc[WQ_DOT_R][WQ_DOT_C];
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++)
            acc[r][c] = vf_set1(0.0f);
    for (int64_t gi = 0, p0 = 0; p0 < k; p0 += group, gi++)
        wq_dot_group(x, ldx, R, C, cols, int4, p0, k - p0 < group ? k : p0 + group, s, o, ng, gi, acc);
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++)
            out[r * ldo + c] = mm_hsum_pairwise(acc[r][c]);
}

/* R rows against WQ_DOT_C columns, or against one. */
static inline __attribute__((always_inline)) void wq_dot_rows(const float *x, int64_t ldx, int R, int full, int64_t k,
                                                              const void *const *cols, int int4, int64_t group,
                                                              const float *s, const float *o, float *out, int64_t ldo)
{
    if (full)
        wq_dot_tile(x, ldx, R, WQ_DOT_C, k, cols, int4, group, s, o, out, ldo);
    else
        wq_dot_tile(x, ldx, R, 1, k, cols, int4, group, s, o, out, ldo);
}

static inline __attribute__((always_inline)) void wq_dot_pass(const float *x, int64_t ldx, int R, int full, int64_t k,
                                                              const void *const *cols, int int4, int64_t group,
                                                              const float *s, const float *o, float *out, int64_t ldo)
{
    if (int4) {
        if (o)
            wq_dot_rows(x, ldx, R, full, k, cols, 1, group, s, o, out, ldo);
        else
            wq_dot_rows(x, ldx, R, full, k, cols, 1, group, s, NULL, out, ldo);
    } else {
        if (o)
            wq_dot_rows(x, ldx, R, full, k, cols, 0, group, s, o, out, ldo);
        else
            wq_dot_rows(x, ldx, R, full, k, cols, 0, group, s, NULL, out, ldo);
    }
}

void WQ_DOT_FN(WQ_DOT_ARGS)
{
    const int64_t ng = (k + group - 1) / group;
    for (int64_t c0 = 0; c0 < nc;) {
        const int full = nc - c0 >= WQ_DOT_C;
        const void *const *cc = cols + c0;
        const float *sc = s + c0 * ng, *oc = o ? o + c0 * ng : NULL;
        for (int64_t r0 = 0; r0 < m; r0 += WQ_DOT_R) {
            const float *xr = x + r0 * ldx;
            float *orow = out + r0 * ldo + c0;
            switch (m - r0 < WQ_DOT_R ? (int)(m - r0) : WQ_DOT_R) {
#if WQ_DOT_R >= 2
            case 2:
                wq_dot_pass(xr, ldx, 2, full, k, cc, int4, group, sc, oc, orow, ldo);
                break;
#endif
            default:
                wq_dot_pass(xr, ldx, 1, full, k, cc, int4, group, sc, oc, orow, ldo);
                break;
            }
        }
        c0 += full ? WQ_DOT_C : 1;
    }
}
