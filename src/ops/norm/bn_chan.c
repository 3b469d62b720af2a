/*
 * Batch norm's per-channel glue kernel (see bn_plan.h): it combines a channel's partial sums in
 * range order and does the per-channel arithmetic (mean and invstd, running statistics, the
 * gradients of weight and bias, the coefficients of the elementwise pass), and, for the
 * SyncBatchNorm pieces, pools the ranks' statistics and checks the counts.
 */
#include <math.h>

#include "bn_plan.h"

static double vget(const nm_vec *v, int64_t c, double dflt)
{
    return v->present ? (double)cannon_norm_ld(v->p, c * v->s1, v->dtype) : dflt;
}

static void vput(const nm_vec *v, int64_t c, double val)
{
    if (v->present)
        cannon_norm_st(v->p, c * v->s1, v->dtype, (float)val);
}

static void running_update(const ch_args *a, int64_t c, double mean, double var, double n)
{
    const double m = a->momentum;
    /* The running variance takes the unbiased batch variance; n == 1 gives NaN (0/0), as CANN's
     * kernels and PyTorch do. */
    const double unbiased = n > 1.0 ? var * n / (n - 1.0) : NAN;
    if (a->v[V_RM].present)
        vput(&a->v[V_RM], c, (1.0 - m) * vget(&a->v[V_RM], c, 0.0) + m * mean);
    if (a->v[V_RV].present)
        vput(&a->v[V_RV], c, (1.0 - m) * vget(&a->v[V_RV], c, 1.0) + m * unbiased);
}

/* Channel c's coefficients of the elementwise pass (rows NM_CO_*, see norm_kernels.h). */
static void set_co(const ch_args *a, int64_t c, float m, float s, float b, float k)
{
    const int64_t C = a->C;
    a->co[NM_CO_M * C + c] = m;
    a->co[NM_CO_A * C + c] = s;
    a->co[NM_CO_B * C + c] = b;
    a->co[NM_CO_K * C + c] = k;
}

/* The forward normalisation: y = (x - m) * s + b', m = the mean rounded to fp32, s = w * invstd
 * rounded to fp32, and b' = bias - (mean - m) * s in fp64, so the part of the mean that m drops is
 * not lost: a large mean (1e4 + N(0,1)) costs nothing, x - m being exact near it. The output is
 * rounded twice (the scale, then the multiply-add). One scale instead of a two-float (48-bit)
 * one, and no second subtraction, makes the elementwise pass two operations per vector instead
 * of four: from memory, that pass slows down with every operation that waits on the loaded data,
 * and the accuracy stays within the tests' bounds (docs/norm-kernels.md). */
static void fwd_co(const ch_args *a, int64_t c, double mean, double invstd)
{
    const float m = (float)mean;
    const float s = (float)(vget(&a->v[V_W], c, 1.0) * invstd);
    set_co(a, c, m, s, (float)(vget(&a->v[V_B], c, 0.0) - (mean - (double)m) * (double)s), 0.0f);
}

/* dx = k*dy + a*(x - mean) + b for training-mode statistics. */
static void bwd_co(const ch_args *a, int64_t c, float mean, float invstd, double sdy, double sdx, double n)
{
    const double w = vget(&a->v[V_W], c, 1.0), is = invstd;
    set_co(a, c, mean, (float)(-w * is * is * is * sdx / n), (float)(-w * is * sdy / n), (float)(w * is));
}

/* Whether @p op starts from the channel's partial sums. */
static int ch_folds(const ch_args *a, int op)
{
    return a->part && (op == CH_BN_FIN || op == CH_BWD_FIN || op == CH_RB_FIN);
}

/* The partial sums of channels [c0, c1) (at most CH_FOLD) folded in range order into s and q,
 * range by range over all the channels: the additions of neighbouring channels run side by side
 * in vector lanes, and each range's sums are read in address order. Each channel's own sum keeps
 * its order, so the bits are those of a channel-by-channel fold, which would be one long
 * dependent chain per channel over lines 2*C doubles apart (4 KiB for 256 channels: one L1 set),
 * run on one thread while the others wait. */
static void ch_fold(const ch_args *a, int64_t c0, int64_t c1, double *s, double *q)
{
    const int64_t C = a->C, n = c1 - c0;
    for (int64_t i = 0; i < n; i++)
        s[i] = q[i] = 0.0;
    for (int64_t p = 0; p < a->P; p++) {
        const double *ps = a->part + (p * 2 + 0) * C + c0, *pq = a->part + (p * 2 + 1) * C + c0;
        for (int64_t i = 0; i < n; i++) {
            s[i] += ps[i];
            q[i] += pq[i];
        }
    }
}

/* One channel's arithmetic, from its folded sums s and q (0 where the op folds none). */
static void ch_one_sums(const ch_args *a, int op, int64_t c, double s, double q)
{
    switch (op) {
    case CH_CENTER:
        a->center[c] = (float)vget(&a->v[V_SM], c, 0.0);
        break;
    case CH_BN_FIN: {
        const double n = (double)a->N, sm = s / n;
        const double mean = (double)cannon_norm_ld(a->x, c * a->I, a->xdtype) + sm;
        double var = q / n - sm * sm;
        if (var < 0.0)
            var = 0.0;
        const double invstd = 1.0 / sqrt(var + a->eps);
        vput(&a->v[V_SM], c, mean);
        vput(&a->v[V_SI], c, invstd);
        running_update(a, c, mean, var, n);
        if (a->want_co)
            fwd_co(a, c, mean, invstd);
        break;
    }
    case CH_BN_EVAL: {
        const double rm = (float)vget(&a->v[V_RM], c, 0.0);
        fwd_co(a, c, rm, 1.0 / sqrt(vget(&a->v[V_RV], c, 1.0) + a->eps));
        break;
    }
    case CH_ELEMT:
        fwd_co(a, c, (float)vget(&a->v[V_SM], c, 0.0), (float)vget(&a->v[V_SI], c, 1.0));
        break;
    case CH_BWD_FIN: {
        const float invstd = a->training ? (float)vget(&a->v[V_SI], c, 1.0)
                                         : (float)(1.0 / sqrt(vget(&a->v[V_RV], c, 1.0) + a->eps));
        vput(&a->v[V_GW], c, q * (double)invstd);
        vput(&a->v[V_GB], c, s);
        if (a->want_co) {
            if (a->training) {
                bwd_co(a, c, a->center[c], invstd, s, q, (double)a->N);
            } else {
                set_co(a, c, 0.0f, 0.0f, 0.0f, (float)(vget(&a->v[V_W], c, 1.0) * (double)invstd));
            }
        }
        break;
    }
    default: /* CH_RB_FIN */
        vput(&a->v[V_SDY], c, s);
        vput(&a->v[V_SDX], c, q);
        vput(&a->v[V_GW], c, q * vget(&a->v[V_SI], c, 1.0));
        vput(&a->v[V_GB], c, s);
        break;
    }
}

/* One channel of the per-channel ops (all but CH_GATHER and CH_EB): combine the channel's
 * partial sums in range order, then its arithmetic. The fused kernel's per-channel step; the
 * same bits as bn_ch_kernel, which folds CH_FOLD channels at a time. */
void bn_ch_one(const ch_args *a, int op, int64_t c)
{
    double s = 0.0, q = 0.0;
    if (ch_folds(a, op))
        ch_fold(a, c, c + 1, &s, &q);
    ch_one_sums(a, op, c, s, q);
}

int bn_ch_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const ch_args *a = (const ch_args *)args;
    const int64_t C = a->C;
    if (a->op == CH_GATHER || a->op == CH_EB) {
        /* Validate the counts before writing anything; the gate stays closed until they pass, so
         * the elementwise pass after a refused counter writes nothing. */
        if (a->co)
            a->co[NM_CO_ROWS * C] = 0.0f;
        double total = 0.0;
        for (int64_t i = 0; i < a->cnt_n; i++) {
            const double n = vget(&a->v[V_CNT], i, 0.0);
            if (!(n >= 0.0) || isinf(n))
                return cannonKernelReportError(ctx, ACLNN_ERR_PARAM_INVALID,
                                               "%s: count %lld is %g (must be finite and >= 0)",
                                               a->op == CH_GATHER ? "aclnnBatchNormGatherStatsWithCounts"
                                                                  : "aclnnBatchNormElemtBackward",
                                               (long long)i, n);
            total += n;
        }
        if (!(total > 0.0)) {
            return cannonKernelReportError(ctx, ACLNN_ERR_PARAM_INVALID, "%s: the counts sum to zero",
                                           a->op == CH_GATHER ? "aclnnBatchNormGatherStatsWithCounts"
                                                              : "aclnnBatchNormElemtBackward");
        }
        if (a->co)
            a->co[NM_CO_ROWS * C] = 1.0f;
        for (int64_t c = 0; c < C; c++) {
            if (a->op == CH_GATHER) {
                /* Pool the ranks' (count, mean, biased var) exactly as one batch would:
                 * mean = sum(n_i m_i)/n, var = sum(n_i (v_i + (m_i - mean)^2))/n. */
                double sm = 0.0;
                for (int64_t r = 0; r < a->W; r++) {
                    const double n = vget(&a->v[V_CNT], r, 0.0);
                    if (n > 0.0)
                        sm += n * (double)cannon_norm_ld(a->v[V_SM].p, r * a->v[V_SM].s0 + c * a->v[V_SM].s1,
                                                         a->v[V_SM].dtype);
                }
                const double mean = sm / total;
                double m2 = 0.0;
                for (int64_t r = 0; r < a->W; r++) {
                    const double n = vget(&a->v[V_CNT], r, 0.0);
                    if (!(n > 0.0))
                        continue;
                    const double mi = cannon_norm_ld(a->v[V_SM].p, r * a->v[V_SM].s0 + c * a->v[V_SM].s1,
                                                     a->v[V_SM].dtype);
                    const double ii = cannon_norm_ld(a->v[V_SI].p, r * a->v[V_SI].s0 + c * a->v[V_SI].s1,
                                                     a->v[V_SI].dtype);
                    const double vi = 1.0 / (ii * ii) - a->eps;
                    m2 += n * (vi + (mi - mean) * (mi - mean));
                }
                double var = m2 / total;
                if (var < 0.0)
                    var = 0.0;
                vput(&a->v[V_MALL], c, mean);
                vput(&a->v[V_IALL], c, 1.0 / sqrt(var + a->eps));
                running_update(a, c, mean, var, total);
            } else {
                bwd_co(a, c, (float)vget(&a->v[V_SM], c, 0.0), (float)vget(&a->v[V_SI], c, 1.0),
                       vget(&a->v[V_SDY], c, 0.0), vget(&a->v[V_SDX], c, 0.0), total);
            }
        }
        return 0;
    }
    /* Block b takes channels [C*b/B, C*(b+1)/B): each channel's work is its own. */
    const int64_t B = ctx->block_dim > 0 ? (int64_t)ctx->block_dim : 1, b = (int64_t)ctx->block_idx;
    const int64_t lo = C * b / B, hi = C * (b + 1) / B;
    const int fold = ch_folds(a, a->op);
    for (int64_t c0 = lo; c0 < hi; c0 += CH_FOLD) {
        const int64_t c1 = hi - c0 < CH_FOLD ? hi : c0 + CH_FOLD;
        double s[CH_FOLD], q[CH_FOLD];
        if (fold)
            ch_fold(a, c0, c1, s, q);
        for (int64_t c = c0; c < c1; c++)
            ch_one_sums(a, a->op, c, fold ? s[c - c0] : 0.0, fold ? q[c - c0] : 0.0);
    }
    return 0;
}
