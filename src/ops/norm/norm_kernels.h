/*
 * Norm-family kernels (BatchNorm and its SyncBatchNorm pieces, LayerNorm, RmsNorm): argument
 * blocks and per-tier entry points. Big tensors are seen in a canonical contiguous form:
 *   batch norm: (O, C, I), channel c of element (o, c, i) at (o*C + c)*I + i. NCHW-like data have
 *               I = H*W...; channels-last data (NHWC, or an NCHW view with channels-last strides)
 *               have I = 1 and O = N*H*W.
 *   layer/rms norm: (rows, R), each row normalised over its R contiguous elements.
 * Work is split into units whose extent is a function of the shape only; every sum is taken in
 * fp64 in an order fixed by the unit and the tier, and per-unit partial sums are combined in unit
 * order, so results do not depend on the number of threads.
 */
#ifndef CANNON_OPS_NORM_KERNELS_H_
#define CANNON_OPS_NORM_KERNELS_H_

#include <stddef.h>
#include <stdint.h>

enum nm_dtype { NM_F32 = 0, NM_F16 = 1, NM_BF16 = 2 };

/* Batch-norm reduction modes. */
enum {
    NB_RED_STATS = 0, /* part[p][0][c] = sum(x - sh_c), part[p][1][c] = sum((x - sh_c)^2), sh_c = first x of c */
    NB_RED_GRAD = 1   /* part[p][0][c] = sum(dy), part[p][1][c] = sum(dy * (x - m_c)), m_c = center[c] */
};

/* The elementwise pass's coefficient rows in nb_args.co (row r of channel c at co[r * C + c]):
 * m, the mean rounded to fp32 (x - m is exact near the mean, so large means lose nothing); a, the
 * scale; b, the shift, which also carries the mean's rounding error (-(mean - m) * a, computed in
 * fp64); k, dy's factor (backward). Behind the rows, co[NM_CO_ROWS * C] is the gate. */
#define NM_CO_M 0
#define NM_CO_A 1
#define NM_CO_B 2
#define NM_CO_K 3
#define NM_CO_ROWS 4

typedef struct nb_args {
    const void *x;       /* input (O, C, I) */
    const void *g;       /* gradOut, same layout and dtype (NULL when unused) */
    void *out;           /* apply: output */
    double *part;        /* reduce: partial sums [units_p][2][C] */
    const float *center; /* reduce GRAD: per-channel mean (fp32, C) */
    const float *co;     /* apply: coefficients, NM_CO_ROWS arrays of C floats (rows NM_CO_M, _A, _B, _K) */
    const float *gate;   /* apply: skipped when *gate == 0 (an earlier glue kernel refused its inputs) */
    int64_t O, C, I;
    int64_t units, units_per_block;
    int64_t span; /* reduce: O-range per partial (I > 1: units = C * P; I == 1: units = P); apply: runs (I > 1) or rows per unit */
    int32_t mode, dtype, isa;
    int32_t use_x, use_g; /* apply: out = [(x - m) * a] + b + [g * k] */
    int32_t nt;           /* apply: write the output with streaming stores (it exceeds the caches) */
    int32_t rev;          /* apply: start with the blocks the reduction read last (see nm_bn_apply_kernel) */
    int32_t pf_step;      /* bn_red_chan / bn_app_chan: prefetch channel c + pf_step into L2 (0: none) */
    int64_t pf_split;     /* ... bn_red_chan prefetches its runs o < pf_split, bn_app_chan the others */
} nb_args;

/* Layer / rms norm modes. */
enum { NL_LN_FWD = 0, NL_RMS_FWD = 1, NL_LN_BWD = 2, NL_RMS_BWD = 3 };

typedef struct nl_args {
    const void *x, *g; /* input; gradOut (backward) */
    void *out;         /* y or dx (may be NULL in backward when dx is not wanted) */
    const float *w;    /* weight/gamma as fp32 (R), NULL: 1 */
    const float *b;    /* bias as fp32 (R), NULL: 0 */
    void *mean, *rstd; /* per row; forward writes (may be NULL), backward reads */
    double *part;      /* backward: column partial sums [P][2][R] (dw, db) */
    double eps;
    int64_t rows, R;
    int64_t units, units_per_block, rows_per_unit;
    int32_t mode, dtype, isa;
    int32_t stat_dtype; /* dtype of mean/rstd */
    int32_t want_dx, want_cols;
    int32_t nt; /* write y / dx with streaming stores (they exceed the caches) */
    int32_t pad;
} nl_args;

void cannon_norm_bn_reduce_scalar(const nb_args *a, int64_t u0, int64_t u1);
void cannon_norm_bn_reduce_avx2(const nb_args *a, int64_t u0, int64_t u1);
void cannon_norm_bn_reduce_avx512(const nb_args *a, int64_t u0, int64_t u1);
void cannon_norm_bn_apply_scalar(const nb_args *a, int64_t u0, int64_t u1);
void cannon_norm_bn_apply_avx2(const nb_args *a, int64_t u0, int64_t u1);
void cannon_norm_bn_apply_avx512(const nb_args *a, int64_t u0, int64_t u1);
/* One channel at a time of channel-first data (I > 1): bn_red_chan computes the partials
 * part[p][.][c] of channels [c0, c1) for every O-range p exactly as bn_reduce's units (p*C + c)
 * do; bn_app_chan applies the coefficients to every run (o, c) of those channels. Used by the
 * fused per-channel kernel, which keeps a channel's slice in L2 between the two. */
void cannon_norm_bn_red_chan_scalar(const nb_args *a, int64_t c0, int64_t c1);
void cannon_norm_bn_red_chan_avx2(const nb_args *a, int64_t c0, int64_t c1);
void cannon_norm_bn_red_chan_avx512(const nb_args *a, int64_t c0, int64_t c1);
void cannon_norm_bn_app_chan_scalar(const nb_args *a, int64_t c0, int64_t c1);
void cannon_norm_bn_app_chan_avx2(const nb_args *a, int64_t c0, int64_t c1);
void cannon_norm_bn_app_chan_avx512(const nb_args *a, int64_t c0, int64_t c1);
/* One step of the fused kernel's pipeline: channel cr's partials (as bn_red_chan) and channel
 * ca's elementwise pass (as bn_app_chan) run by run, the runs of cr read pf_runs runs ahead (then
 * channel nxt's first runs); cr, ca or nxt < 0: none. */
void cannon_norm_bn_pipe_chan_scalar(const nb_args *r, const nb_args *a, int64_t cr, int64_t ca, int64_t nxt,
                                     int64_t pf_runs);
void cannon_norm_bn_pipe_chan_avx2(const nb_args *r, const nb_args *a, int64_t cr, int64_t ca, int64_t nxt,
                                   int64_t pf_runs);
void cannon_norm_bn_pipe_chan_avx512(const nb_args *r, const nb_args *a, int64_t cr, int64_t ca, int64_t nxt,
                                     int64_t pf_runs);
/* One step of the fused kernel's grouped pipeline (channel-first data whose runs fill whole
 * cache lines in groups): the partials of channels [g0, g1) (as bn_red_chan) and the elementwise
 * pass of [p0, p1) (as bn_app_chan, the output streamed in whole lines across each row of the
 * group), row by row; the runs summed prefetch pf_rows rows ahead, then channels [n0, n1). g0, p0
 * or n0 < 0: none. */
void cannon_norm_bn_pipe_grp_scalar(const nb_args *r, const nb_args *a, int64_t g0, int64_t g1, int64_t p0,
                                    int64_t p1, int64_t n0, int64_t n1, int64_t pf_rows);
void cannon_norm_bn_pipe_grp_avx2(const nb_args *r, const nb_args *a, int64_t g0, int64_t g1, int64_t p0,
                                  int64_t p1, int64_t n0, int64_t n1, int64_t pf_rows);
void cannon_norm_bn_pipe_grp_avx512(const nb_args *r, const nb_args *a, int64_t g0, int64_t g1, int64_t p0,
                                    int64_t p1, int64_t n0, int64_t n1, int64_t pf_rows);
void cannon_norm_ln_scalar(const nl_args *a, int64_t u0, int64_t u1);
void cannon_norm_ln_avx2(const nl_args *a, int64_t u0, int64_t u1);
void cannon_norm_ln_avx512(const nl_args *a, int64_t u0, int64_t u1);

/* Scalar element access used by the per-channel / per-row glue (any of the three dtypes). */
float cannon_norm_ld(const void *p, int64_t i, int32_t dtype);
void cannon_norm_st(void *p, int64_t i, int32_t dtype, float v);

#endif /* CANNON_OPS_NORM_KERNELS_H_ */
