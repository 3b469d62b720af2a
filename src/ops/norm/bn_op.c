/*
 * aclnnBatchNorm, aclnnBatchNormBackward and the SyncBatchNorm pieces (aclnnBatchNormStats,
 * aclnnBatchNormGatherStatsWithCounts, aclnnBatchNormElemt, aclnnBatchNormReduceBackward,
 * aclnnBatchNormElemtBackward).
 *
 * Every operator is a short sequence of three kernel kinds:
 *   reduce (tiered, many blocks): per-channel fp64 partial sums over fixed O-ranges;
 *   chan   (scalar, one block):   combines the partials in range order and does the per-channel
 *                                 arithmetic (mean/invstd, running stats, gradients of weight and
 *                                 bias, the coefficients of the elementwise pass);
 *   apply  (tiered, many blocks): out = (x - m)*a + b + dy*k per element.
 * Statistics: a shifted single pass (shift = the channel's first element) with exact fp64
 * squares, so a large mean costs no accuracy and the data are read once for the statistics.
 * saveInvstd holds 1/sqrt(var + eps) (PyTorch's and Ascend 950's convention), and
 * aclnnBatchNormBackward expects the same.
 * Layouts: the channel axis is dim 1 (formats ND, NC, NCL, NCHW, NCDHW) or the last dim (NHWC,
 * NDHWC). A dim-1 tensor whose strides are channels-last (torch.channels_last) is processed in
 * place as channels-last; other strided views go through a workspace copy.
 */
#include <math.h>
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_batch_norm.h"
#include "aclnnop/aclnn_batch_norm_backward.h"
#include "aclnnop/aclnn_batch_norm_backward_reduce.h"
#include "aclnnop/aclnn_batch_norm_elemt.h"
#include "aclnnop/aclnn_batch_norm_elemt_backward.h"
#include "aclnnop/aclnn_batch_norm_gather_stats_with_counts.h"
#include "aclnnop/aclnn_batch_norm_stats.h"
#include "op_manifest.h"

#include "../kernels/isa.h"
#include "norm_op.h"

/* ---- the per-channel glue kernel ---- */
enum { CH_CENTER, CH_BN_FIN, CH_BN_EVAL, CH_GATHER, CH_ELEMT, CH_BWD_FIN, CH_RB_FIN, CH_EB };
enum { V_W, V_B, V_RM, V_RV, V_SM, V_SI, V_GW, V_GB, V_SDY, V_SDX, V_CNT, V_MALL, V_IALL, NV };

typedef struct ch_args {
    const void *x; /* canonical input (its first element per channel is the shift) */
    const double *part;
    float *co; /* 6*C coefficients (see nb_args) + the gate */
    float *center;
    nm_vec v[NV];
    double eps, momentum;
    int64_t C, P, N, I, W, cnt_n;
    int32_t op, xdtype, training, want_co;
} ch_args;

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

/* Channels per fold, and the most blocks a per-channel kernel is split into. */
#define CH_FOLD 64
#define CH_BLOCKS 8

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
 * same bits as ch_kernel, which folds CH_FOLD channels at a time. */
static void ch_one(const ch_args *a, int op, int64_t c)
{
    double s = 0.0, q = 0.0;
    if (ch_folds(a, op))
        ch_fold(a, c, c + 1, &s, &q);
    ch_one_sums(a, op, c, s, q);
}

static int ch_kernel(const cannon_kernel_ctx *ctx, void *args)
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

/* ---- planning ---- */
typedef struct bn_plan {
    const char *api;
    aclOpExecutor *e;
    int64_t O, C, I, N; /* canonical shape; N = elements per channel */
    int dtype, cl;
    int slot_x, slot_g, slot_o;
    cannon_arg_ref rx, rg, ro; /* where x, g, out live (args_offset set per use) */
    uint64_t scatter_off;
    int64_t P, red_span;
    uint64_t ws_part, ws_co, ws_center;
} bn_plan;

static int channel_axis(const cannon_tensor_view *v)
{
    return (v->format == ACL_FORMAT_NHWC || v->format == ACL_FORMAT_NDHWC) ? (int)v->ndim - 1 : 1;
}

/* Check the data tensor's rank, format and dtype; set C and the channel axis. */
static aclnnStatus check_data(const char *api, const char *name, const aclTensor *t, cannon_tensor_view *v)
{
    if (!cannonTensorGetView(t, v))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: %s is not a live aclTensor, or its view is too large", api, name);
    if (nm_float_code(v->dtype) < 0)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: %s dtype %d is not supported (FLOAT, FLOAT16, BFLOAT16)",
                                 api, name, (int)v->dtype);
    if (v->ndim < 2 || v->ndim > CANNON_OP_MAX_RANK)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: %s rank %lld is outside [2, 8]", api, name,
                                 (long long)v->ndim);
    int want = 0;
    switch (v->format) {
    case ACL_FORMAT_ND:
    case ACL_FORMAT_UNDEFINED:
        break;
    case ACL_FORMAT_NC:
        want = 2;
        break;
    case ACL_FORMAT_NCL:
        want = 3;
        break;
    case ACL_FORMAT_NCHW:
    case ACL_FORMAT_NHWC:
        want = 4;
        break;
    case ACL_FORMAT_NCDHW:
    case ACL_FORMAT_NDHWC:
        want = 5;
        break;
    default:
        return cannonReportError(ACLNN_ERR_PARAM_INVALID,
                                 "%s: %s format %d is not supported (ND, NC, NCL, NCHW, NHWC, NCDHW, NDHWC)", api,
                                 name, (int)v->format);
    }
    if (want && v->ndim != want)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: %s has rank %lld but format %d needs rank %d", api,
                                 name, (long long)v->ndim, (int)v->format, want);
    return ACLNN_SUCCESS;
}

static int same_shape(const cannon_tensor_view *a, const cannon_tensor_view *b)
{
    if (a->ndim != b->ndim)
        return 0;
    for (int64_t i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i])
            return 0;
    return 1;
}

/* Another big tensor (gradOut, output, gradInput) must match x's shape, dtype and layout axis. */
static aclnnStatus check_like(const char *api, const char *name, const aclTensor *t, const cannon_tensor_view *vx)
{
    cannon_tensor_view v;
    aclnnStatus st = check_data(api, name, t, &v);
    if (st != ACLNN_SUCCESS)
        return st;
    if (!same_shape(&v, vx))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: %s shape differs from the input's", api, name);
    if (v.dtype != vx->dtype)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: %s dtype %d differs from the input's %d", api, name,
                                 (int)v.dtype, (int)vx->dtype);
    if (channel_axis(&v) != channel_axis(vx))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: %s format puts the channels on another axis than the input's",
                                 api, name);
    return ACLNN_SUCCESS;
}

/* Canonical shape and bindings of the big tensors (x, optional g, optional out). */
static aclnnStatus plan_begin(bn_plan *pl, const aclTensor *x, const aclTensor *g, const aclTensor *out)
{
    cannon_tensor_view v;
    cannonTensorGetView(x, &v);
    const int64_t ca = channel_axis(&v);
    pl->dtype = nm_float_code(v.dtype);
    pl->C = v.shape[ca];
    const int64_t numel = cannonTensorNumel(x);
    /* A dim-1 channel axis whose strides are channels-last for every big tensor is processed in
     * place as (N*spatial, C, 1). */
    pl->cl = ca == 1 && !cannonTensorIsContiguous(x) && nm_is_channels_last(x, 1) &&
             (!g || nm_is_channels_last(g, 1)) && (!out || nm_is_channels_last(out, 1));
    if (pl->cl || ca == v.ndim - 1) {
        pl->I = 1;
        pl->O = pl->C ? numel / pl->C : 0;
    } else {
        pl->O = v.shape[0];
        pl->I = 1;
        for (int64_t d = 2; d < v.ndim; d++)
            pl->I *= v.shape[d];
    }
    pl->N = pl->O * pl->I;
    pl->scatter_off = UINT64_MAX;
    aclnnStatus st = ACLNN_SUCCESS;
    uint64_t unused = 0;
    const size_t es = nm_esize(pl->dtype);
    if (pl->cl) {
        pl->rx.slot = pl->slot_x;
        pl->rx.byte_offset = v.offset * (int64_t)es;
        if (g) {
            cannon_tensor_view vg;
            cannonTensorGetView(g, &vg);
            pl->rg.slot = pl->slot_g;
            pl->rg.byte_offset = vg.offset * (int64_t)es;
        }
        if (out) {
            cannon_tensor_view vo;
            cannonTensorGetView(out, &vo);
            pl->ro.slot = pl->slot_o;
            pl->ro.byte_offset = vo.offset * (int64_t)es;
        }
        return ACLNN_SUCCESS;
    }
    if ((st = nm_bind(pl->e, x, pl->slot_x, 0, &pl->rx, 0, &unused)) != ACLNN_SUCCESS)
        return st;
    if (g && (st = nm_bind(pl->e, g, pl->slot_g, 0, &pl->rg, 0, &unused)) != ACLNN_SUCCESS)
        return st;
    if (out && (st = nm_bind(pl->e, out, pl->slot_o, 1, &pl->ro, 0, &pl->scatter_off)) != ACLNN_SUCCESS)
        return st;
    return ACLNN_SUCCESS;
}

static cannon_arg_ref at(cannon_arg_ref r, size_t off)
{
    r.args_offset = (uint32_t)off;
    return r;
}

static cannon_arg_ref ws_ref(uint64_t ws_off, size_t off)
{
    cannon_arg_ref r = {(uint32_t)off, CANNON_SLOT_WORKSPACE, (int64_t)ws_off};
    return r;
}

/* Reserve the workspace: partials, coefficients (+ gate), centers. */
#define BN_MIN_RANGES 8
static void plan_ws(bn_plan *pl)
{
    const int64_t C = pl->C;
    if (pl->I > 1) {
        pl->red_span = (16384 + pl->I - 1) / pl->I;
    } else {
        pl->red_span = (32768 + C - 1) / C;
    }
    if (pl->red_span < 1)
        pl->red_span = 1;
    while ((pl->O + pl->red_span - 1) / pl->red_span > 4096)
        pl->red_span *= 2;
    /* Channel-first data: at least BN_MIN_RANGES O-ranges, so that the worker-affine passes
     * (nm_bn_add_aff), whose shares are whole O-ranges, have enough to share among a few workers
     * ([64,256,14,14] would otherwise be one range of 64 runs per channel). The partials stay
     * fp64 sums of contiguous runs; a function of the shape only. */
    if (pl->I > 1 && pl->O >= BN_MIN_RANGES && (pl->O + pl->red_span - 1) / pl->red_span < BN_MIN_RANGES)
        pl->red_span = (pl->O + BN_MIN_RANGES - 1) / BN_MIN_RANGES;
    pl->P = (pl->O + pl->red_span - 1) / pl->red_span;
    pl->ws_part = cannonExecutorReserveWorkspace(pl->e, (uint64_t)(pl->P * 2 * C) * sizeof(double) + 8);
    pl->ws_co = cannonExecutorReserveWorkspace(pl->e, (uint64_t)(NM_CO_ROWS * C + 1) * sizeof(float));
    pl->ws_center = cannonExecutorReserveWorkspace(pl->e, (uint64_t)C * sizeof(float) + 4);
}

/* Whether a pass of the three-kernel path goes worker-affine (nm_bn_add_aff): only for data of
 * BN_AFF_MIN_BYTES or more, larger than a core's L2, where a line the other core read would come
 * from its cache or from memory. Smaller data fits in the caches either way, and the affine pass
 * costs a second launch (the cursor reset), which small steps (the SyncBN demo's) would feel.
 * Channels-last and channel-first data alike (the split backward, and what the fused kernel does
 * not take): each core re-reads the x and dy it summed from its own last-level cache instead of
 * half of them from the other core's. A function of the shape only; both kinds of pass give the
 * same bits. */
#define BN_AFF_MIN_BYTES ((int64_t)1 << 20)
static int bn_affine(const bn_plan *pl, int64_t units)
{
    return units > 1 && pl->N * pl->C * (int64_t)nm_esize(pl->dtype) >= BN_AFF_MIN_BYTES;
}

#define BN_PLANE_BYTES ((int64_t)256 << 10)
#define BN_PLANE_BLOCKS 16
static aclnnStatus add_reduce(bn_plan *pl, int mode)
{
    nb_args a;
    memset(&a, 0, sizeof a);
    a.O = pl->O;
    a.C = pl->C;
    a.I = pl->I;
    a.mode = mode;
    a.dtype = pl->dtype;
    a.isa = (int32_t)cannon_isa_select();
    a.span = pl->red_span;
    a.units = pl->I > 1 ? pl->C * pl->P : pl->P;
    uint32_t bd;
    if (pl->I > 1) {
        /* Channel-first data: a block takes consecutive units, i.e. consecutive channels of an
         * O-range, which red_plane walks in address order: about BN_PLANE_BYTES of adjacent runs
         * at a time, in at least BN_PLANE_BLOCKS blocks where there are enough units. The bits do
         * not depend on the blocking (each unit is summed alone, in a fixed order). */
        const int64_t run_bytes = pl->I * (int64_t)nm_esize(pl->dtype);
        int64_t upb = (BN_PLANE_BYTES + run_bytes - 1) / run_bytes;
        if (a.units / upb < BN_PLANE_BLOCKS)
            upb = a.units / BN_PLANE_BLOCKS > 1 ? a.units / BN_PLANE_BLOCKS : 1;
        while ((a.units + upb - 1) / upb > ((int64_t)1 << 24))
            upb *= 2;
        a.units_per_block = upb;
        bd = (uint32_t)((a.units + upb - 1) / upb);
    } else {
        nm_blocks(a.units, (int64_t)64 << 10, &a.units_per_block, &bd);
    }
    cannon_arg_ref refs[4];
    size_t n = 0;
    refs[n++] = at(pl->rx, offsetof(nb_args, x));
    if (mode == NB_RED_GRAD) {
        refs[n++] = at(pl->rg, offsetof(nb_args, g));
        refs[n++] = ws_ref(pl->ws_center, offsetof(nb_args, center));
    }
    refs[n++] = ws_ref(pl->ws_part, offsetof(nb_args, part));
    /* Large data: worker-affine units (each worker sums the rows it will normalise). */
    if (bn_affine(pl, a.units))
        return nm_bn_add_aff(pl->e, pl->api, &a, 0, pl->red_span, refs, n);
    return cannonExecutorAddKernel(pl->e, pl->api, nm_bn_reduce_kernel, bd, &a, sizeof a, refs, n);
}

static aclnnStatus add_apply(bn_plan *pl, int use_x, int use_g, int gated, int rev)
{
    nb_args a;
    memset(&a, 0, sizeof a);
    a.O = pl->O;
    a.C = pl->C;
    a.I = pl->I;
    a.dtype = pl->dtype;
    a.isa = (int32_t)cannon_isa_select();
    a.use_x = use_x;
    a.use_g = use_g;
    a.nt = pl->N * pl->C * (int64_t)nm_esize(pl->dtype) >= NM_NT_BYTES;
    a.rev = rev;
    if (pl->I > 1) {
        a.span = (16384 + pl->I - 1) / pl->I;
        a.units = (pl->O * pl->C + a.span - 1) / a.span;
    } else {
        a.span = (16384 + pl->C - 1) / pl->C;
        a.units = (pl->O + a.span - 1) / a.span;
    }
    uint32_t bd;
    nm_blocks(a.units, (int64_t)64 << 10, &a.units_per_block, &bd);
    cannon_arg_ref refs[5];
    size_t n = 0;
    if (use_x)
        refs[n++] = at(pl->rx, offsetof(nb_args, x));
    if (use_g)
        refs[n++] = at(pl->rg, offsetof(nb_args, g));
    refs[n++] = at(pl->ro, offsetof(nb_args, out));
    refs[n++] = ws_ref(pl->ws_co, offsetof(nb_args, co));
    if (gated)
        refs[n++] = ws_ref(pl->ws_co + (uint64_t)(NM_CO_ROWS * pl->C) * sizeof(float), offsetof(nb_args, gate));
    /* Large data: the rows each worker summed (see nm_bn_add_aff). */
    aclnnStatus st = bn_affine(pl, a.units)
                         ? nm_bn_add_aff(pl->e, pl->api, &a, 1, pl->red_span, refs, n)
                         : cannonExecutorAddKernel(pl->e, pl->api, nm_bn_apply_kernel, bd, &a, sizeof a, refs, n);
    if (st == ACLNN_SUCCESS && pl->scatter_off != UINT64_MAX)
        st = cannonExecutorAddScatter(pl->e, pl->slot_o, pl->scatter_off);
    return st;
}

/* The small per-channel tensors of a chan kernel (and their executor slots), by V_* index. */
typedef struct chan_set {
    const aclTensor *t[NV];
    int s[NV];
} chan_set;

static void chan_init(chan_set *cs)
{
    for (int i = 0; i < NV; i++) {
        cs->t[i] = NULL;
        cs->s[i] = -1;
    }
}

static void chan_put(chan_set *cs, int idx, const aclTensor *t, int slot)
{
    cs->t[idx] = t;
    cs->s[idx] = slot;
}

/* Describe every tensor of @p cs in @p a and append its pointer refs; returns how many. */
static size_t chan_refs_at(const chan_set *cs, ch_args *a, cannon_arg_ref *refs, size_t base)
{
    size_t n = 0;
    for (int i = 0; i < NV; i++)
        n += nm_vec_ref(cs->t[i], cs->s[i], &a->v[i],
                        (uint32_t)(base + offsetof(ch_args, v) + (size_t)i * sizeof(nm_vec)), &refs[n]);
    return n;
}

static size_t chan_refs(const chan_set *cs, ch_args *a, cannon_arg_ref *refs)
{
    return chan_refs_at(cs, a, refs, 0);
}

/* Fill @p a's shape fields and append the refs of a chan kernel's arguments placed at @p base
 * in the argument blob; returns how many. */
static size_t chan_fill(const bn_plan *pl, ch_args *a, const chan_set *cs, int with_x, int with_part,
                        cannon_arg_ref *refs, size_t base)
{
    a->C = pl->C;
    a->P = pl->P;
    a->N = pl->N;
    a->I = pl->I;
    a->xdtype = pl->dtype;
    size_t n = chan_refs_at(cs, a, refs, base);
    if (with_x)
        refs[n++] = at(pl->rx, base + offsetof(ch_args, x));
    if (with_part)
        refs[n++] = ws_ref(pl->ws_part, base + offsetof(ch_args, part));
    refs[n++] = ws_ref(pl->ws_co, base + offsetof(ch_args, co));
    refs[n++] = ws_ref(pl->ws_center, base + offsetof(ch_args, center));
    return n;
}

/* A chan kernel over the small tensors of @p cs. */
static aclnnStatus add_chan(bn_plan *pl, ch_args *a, const chan_set *cs, int with_x, int with_part)
{
    cannon_arg_ref refs[NV + 4];
    const size_t n = chan_fill(pl, a, cs, with_x, with_part, refs, 0);
    /* Per-channel ops split their channels over blocks of CH_FOLD or more (CH_GATHER and CH_EB
     * check every count before they write anything: one block). */
    int64_t bd = pl->C / CH_FOLD;
    if (a->op == CH_GATHER || a->op == CH_EB || bd < 1)
        bd = 1;
    else if (bd > CH_BLOCKS)
        bd = CH_BLOCKS;
    return cannonExecutorAddKernel(pl->e, pl->api, ch_kernel, (uint32_t)bd, a, sizeof *a, refs, n);
}

/* ---- the fused per-channel kernel (channel-first data) ----
 * Training BatchNorm and BatchNormBackward on channel-first data whose channel slice (N*H*W
 * elements of x, and of dy in the backward) fits in L2: each block takes a few consecutive
 * channels and computes each channel's partial sums, its per-channel arithmetic and its
 * elementwise pass, so the second read of the slice hits the cache instead of memory. The
 * forward then moves x once and y once, the backward x and dy once and dx once. The blocks
 * pipeline their channels (fz_pipe_block: the sums of channel c in the same loop as channel
 * c - 1's output) or, for one case, go channel by channel (fz_serial_block; see add_fused). The
 * partials are the same O-ranges summed in the same order as the three-kernel path's, so every
 * path gives the same bits. */
#define FZ_SLICE_MAX ((int64_t)2 << 20)
#define FZ_PF_BUDGET ((int64_t)768 << 10) /* of a 1 MiB L2: what a slice and the prefetched runs may take */
#define FZ_PF_AHEAD ((int64_t)4 << 10)    /* bytes of each input the pipelined sums read ahead */
#define FZ_BLOCKS 16                     /* pipelined blocks of consecutive channels (fewer: see add_fused) */

typedef struct fz_args {
    nb_args red, app;
    ch_args ch;
    int64_t units, upb;
    int32_t pre_op, fin_op; /* pre_op < 0: none */
    int32_t use_app;
    int32_t pipe; /* 1: the pipelined loop (fz_pipe_block), 0: channel by channel (fz_serial_block) */
    int64_t grp;  /* > 0: groups of grp channels (fz_grp_block) */
} fz_args;

/* The tier's pipeline step (see cannon_norm_bn_pipe_chan_*). */
static void fz_pipe(const nb_args *r, const nb_args *a, int64_t cr, int64_t ca, int64_t nxt, int64_t pf_runs)
{
    switch (r->isa) {
#if defined(CANNON_OPS_HAVE_AVX512)
    case CANNON_ISA_AVX512:
        cannon_norm_bn_pipe_chan_avx512(r, a, cr, ca, nxt, pf_runs);
        break;
#endif
#if defined(CANNON_OPS_HAVE_AVX2)
    case CANNON_ISA_AVX2:
        cannon_norm_bn_pipe_chan_avx2(r, a, cr, ca, nxt, pf_runs);
        break;
#endif
    default:
        cannon_norm_bn_pipe_chan_scalar(r, a, cr, ca, nxt, pf_runs);
        break;
    }
}

/* Channels [c0, c1) one after the other: the sums from L2, then the elementwise pass, each
 * prefetching the channel this worker most likely does next: the block's next channel, else
 * the first of the block W blocks on, as the W workers claim blocks in turn (a wrong guess costs
 * bandwidth, never a result). */
static void fz_serial_block(const fz_args *f, int64_t c0, int64_t c1, int64_t W)
{
    nb_args red = f->red, app = f->app;
    for (int64_t c = c0; c < c1; c++) {
        const int64_t nxt = c + 1 < c1 ? c + 1 : c1 + (W - 1) * f->upb;
        red.pf_step = app.pf_step = nxt < f->units ? (int32_t)(nxt - c) : 0;
        if (f->pre_op >= 0)
            ch_one(&f->ch, f->pre_op, c);
        nm_bn_red_chan(&red, c, c + 1);
        ch_one(&f->ch, f->fin_op, c);
        if (f->use_app)
            nm_bn_app_chan(&app, c, c + 1);
    }
}

/* Channels [c0, c1) as a software pipeline: step c sums channel c while it writes channel
 * c - 1's output, whose slice the previous step left in the cache; the per-channel arithmetic
 * of c runs between the steps. */
static void fz_pipe_block(const fz_args *f, int64_t c0, int64_t c1)
{
    const nb_args *r = &f->red, *a = &f->app;
    /* Runs of the channel being summed that its software prefetches run ahead: about
     * FZ_PF_AHEAD bytes of each input. */
    const int64_t run_bytes = r->I * (int64_t)nm_esize(r->dtype);
    const int64_t pf_runs = (FZ_PF_AHEAD + run_bytes - 1) / run_bytes;
    for (int64_t c = c0; c <= c1; c++) {
        const int64_t cr = c < c1 ? c : -1, ca = f->use_app && c > c0 ? c - 1 : -1;
        if (cr >= 0 && f->pre_op >= 0)
            ch_one(&f->ch, f->pre_op, cr);
        if (cr >= 0 || ca >= 0)
            fz_pipe(r, a, cr, ca, c + 1 < c1 ? c + 1 : -1, pf_runs);
        if (cr >= 0)
            ch_one(&f->ch, f->fin_op, cr);
    }
}

/* Channels [c0, c1) in groups of f->grp channels, as a software pipeline like fz_pipe_block's
 * with a group in place of a channel: step s sums group s while it writes group s - 1's output
 * row by row, each row of a group one segment of whole cache lines, streamed. The sums read about
 * FZ_PF_AHEAD bytes ahead, past the last row into the next group's first rows: the block's next
 * group, else the first of the block W blocks on, as the W workers claim blocks in turn (a wrong
 * guess costs bandwidth, never a result). */
static void fz_grp_block(const fz_args *f, int64_t c0, int64_t c1, int64_t W)
{
    const int64_t K = f->grp;
    const int64_t ng = (c1 - c0 + K - 1) / K;
    const int64_t row_bytes = K * f->red.I * (int64_t)nm_esize(f->red.dtype);
    const int64_t pf_rows = (FZ_PF_AHEAD + row_bytes - 1) / row_bytes;
    for (int64_t s = 0; s <= ng; s++) {
        const int64_t g0 = s < ng ? c0 + s * K : -1, g1 = g0 < 0 ? -1 : (c1 - g0 < K ? c1 : g0 + K);
        const int64_t p0 = s > 0 && f->use_app ? c0 + (s - 1) * K : -1;
        const int64_t p1 = p0 < 0 ? -1 : (c1 - p0 < K ? c1 : p0 + K);
        int64_t n0 = -1, n1 = -1;
        if (g0 >= 0) {
            n0 = g1 < c1 ? g1 : c1 + (W - 1) * f->upb;
            if (n0 >= f->units)
                n0 = -1;
            else
                n1 = g1 < c1 ? (c1 - g1 < K ? c1 : g1 + K) : (f->units - n0 < K ? f->units : n0 + K);
        }
        if (g0 >= 0 && f->pre_op >= 0)
            for (int64_t c = g0; c < g1; c++)
                ch_one(&f->ch, f->pre_op, c);
        nm_bn_pipe_grp(&f->red, &f->app, g0, g1, p0, p1, n0, n1, pf_rows);
        if (g0 >= 0)
            for (int64_t c = g0; c < g1; c++)
                ch_one(&f->ch, f->fin_op, c);
    }
}

static int fz_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const fz_args *f = (const fz_args *)args;
    const int64_t c0 = (int64_t)ctx->block_idx * f->upb;
    if (c0 >= f->units)
        return 0;
    const int64_t c1 = f->units - c0 < f->upb ? f->units : c0 + f->upb;
    if (f->grp > 0)
        fz_grp_block(f, c0, c1, ctx->num_workers > 0 ? (int64_t)ctx->num_workers : 1);
    else if (f->pipe)
        fz_pipe_block(f, c0, c1);
    else
        fz_serial_block(f, c0, c1, ctx->num_workers > 0 ? (int64_t)ctx->num_workers : 1);
    return 0;
}

/* Whether the fused kernel applies: channel-first data whose slice fits the budget, and enough
 * channels to share among workers (or so little data that it does not matter). */
static int fused_ok(const bn_plan *pl, int with_g)
{
    const int64_t es = (int64_t)nm_esize(pl->dtype);
    const int64_t slice = pl->N * es * (with_g ? 2 : 1);
    return pl->I > 1 && slice <= FZ_SLICE_MAX && (pl->C >= 8 || pl->N * pl->C * es <= ((int64_t)1 << 20));
}

/* Whether the kernels run at AVX-512 width. The choices below that depend on it (fused_nt,
 * add_fused's f.pipe, bwd_split, fwd_split) differ by tier: at AVX2 width, for runs that do not
 * fill whole cache lines (bwd_serial's shapes, runs of BN_SPLIT_SHORT_RUN or more), the fused
 * kernel's pipelined loop with streaming stores is the fastest at 1 and 2 threads, forward and
 * backward. Every path gives the same bits. */
static int isa_wide(void)
{
    return cannon_isa_select() == CANNON_ISA_AVX512;
}

/* Whether the fused kernel writes its output with streaming stores: outputs of NM_NT_BYTES or
 * more, except on one worker where the runs do not fill whole cache lines ((I * es) % 64 != 0,
 * e.g. the 784-byte runs of [64,256,14,14] fp32). There each run's first and last lines are
 * shared with its neighbours and written by plain stores, the rest streamed; plain stores
 * throughout (and with them the pipelined backward, see bwd_serial) are never slower there, and
 * faster when memory is slow. Where runs are whole lines plain stores are slower, so those keep
 * streaming. On two or more workers such shapes go through the three kernels (bwd_split,
 * fwd_split), by worker share. */
static int fused_nt(const bn_plan *pl)
{
    const int64_t es = (int64_t)nm_esize(pl->dtype);
    if (pl->N * pl->C * es < NM_NT_BYTES)
        return 0;
    return (pl->I * es) % 64 == 0 || cannonGetWorkerCount() >= 2 || !isa_wide();
}

/* Whether the fused kernel's backward would go channel by channel (fz_serial_block) rather
 * than pipelined: runs that start and end inside cache lines, with the output streamed. There
 * the pipelined loop is slower than channel by channel (the cause is not established), where
 * elsewhere it is faster. */
static int bwd_serial(const bn_plan *pl, int use_x, int use_g)
{
    const int64_t es = (int64_t)nm_esize(pl->dtype);
    return use_g && use_x && pl->N * pl->C * es >= NM_NT_BYTES && (pl->I * es) % 64 != 0;
}

/* Whether a training-shaped backward that the fused kernel could take goes through the three
 * kernels instead (the same bits either way): when a channel's slice of x and dy is larger than
 * the pipeline's L2 budget, so that the two slices it holds spill out of L2, its runs are short,
 * so that reading a channel run by run keeps restarting the hardware prefetchers, and x and dy
 * together exceed what L3 could keep. Then reading x and dy twice in address order (red_plane,
 * then the elementwise pass) is faster than once channel by channel (e.g. [32,64,56,56] fp32).
 * Smaller slices and long runs stay fused, where the fused kernel is faster.
 * Also taken where the fused kernel would go channel by channel (bwd_serial) and there are
 * several workers at AVX-512 width, or the runs are shorter than BN_SPLIT_SHORT_RUN: since the
 * three-kernel path's passes go by worker share (whole O-ranges, at least BN_MIN_RANGES of them),
 * each core re-reads the x and dy it summed from its own last-level cache, while the
 * channel-by-channel loop reads many short runs a channel apart. On one worker with runs of
 * BN_SPLIT_SHORT_RUN or more the fused kernel stays faster.
 * The worker count is the current device's at phase 1; a function of the shape and the device. */
#define BN_SPLIT_RUN_MAX ((int64_t)32 << 10)
#define BN_SPLIT_DATA_MIN ((int64_t)16 << 20)
#define BN_SPLIT_SHORT_RUN ((int64_t)512)
static int bwd_split(const bn_plan *pl, int training)
{
    const int64_t es = (int64_t)nm_esize(pl->dtype);
    if (pl->N * es * 2 > FZ_PF_BUDGET && pl->I * es < BN_SPLIT_RUN_MAX && pl->N * pl->C * es * 2 > BN_SPLIT_DATA_MIN)
        return 1;
    return bwd_serial(pl, training, 1) &&
           (pl->I * es < BN_SPLIT_SHORT_RUN || (cannonGetWorkerCount() >= 2 && isa_wide()));
}

/* Whether a training forward that the fused kernel could take goes through the three kernels
 * instead: on 2 or more workers, where the backward of the same shape does (bwd_split). Its
 * passes then go by worker share like the backward's, so each core finds the x it will sum in
 * the backward in its own cache rather than the other core's (the fused kernel hands out
 * channel blocks first come, first served). On one worker the fused forward stays faster. The
 * same bits either way. */
static int fwd_split(const bn_plan *pl)
{
    return cannonGetWorkerCount() >= 2 && bwd_split(pl, 1);
}

/* Channels per group of the fused kernel's grouped pipeline (fz_grp_block), 0: not taken. Taken
 * for the fp32 training forward and the training backward (dx wanted) at AVX-512 width (a vector
 * is a whole cache line) where a run of I elements does not fill whole lines but 2 or 4 runs
 * do, the output is streamed (NM_NT_BYTES or more) and two groups' slices (of x, and of dy in
 * the backward) fit the L2 budget: then every row of a group is one segment of whole lines, so
 * the whole output streams, where the channel-by-channel loops write each run's first and last
 * lines through the cache (on one worker, every line: fused_nt). Where two groups of the
 * backward exceed the budget, group sizes whose rows end inside lines, runs of 7x7 fp32, the
 * AVX2 tier and 16-bit data (whose vectors are half a line) gain nothing or lose, so those keep
 * the channel loop. At 2 or more workers these shapes go through the three kernels (fwd_split,
 * bwd_split). The same bits on every path. */
static int64_t fused_groups(const bn_plan *pl, int fin_op, int use_x, int use_g)
{
    const int64_t es = (int64_t)nm_esize(pl->dtype), run = pl->I * es;
    const int fwd = fin_op == CH_BN_FIN && use_x && !use_g, bwd = fin_op == CH_BWD_FIN && use_x && use_g;
    if (!(fwd || bwd) || es != 4 || !isa_wide() || pl->N * pl->C * es < NM_NT_BYTES || run < 128 ||
        run % 64 == 0)
        return 0;
    const int64_t k = run % 32 == 0 ? 2 : run % 16 == 0 ? 4 : 0;
    return k > 0 && 2 * k * pl->N * es * (bwd ? 2 : 1) <= FZ_PF_BUDGET ? k : 0;
}

static aclnnStatus add_fused(bn_plan *pl, ch_args *ca, const chan_set *cs, int mode, int pre_op, int fin_op,
                             int use_app, int use_x, int use_g)
{
    fz_args f;
    memset(&f, 0, sizeof f);
    const int64_t es = (int64_t)nm_esize(pl->dtype);
    nb_args *r = &f.red, *a = &f.app;
    r->O = a->O = pl->O;
    r->C = a->C = pl->C;
    r->I = a->I = pl->I;
    r->dtype = a->dtype = pl->dtype;
    r->isa = a->isa = (int32_t)cannon_isa_select();
    r->mode = mode;
    r->span = pl->red_span;
    a->use_x = use_x;
    a->use_g = use_g;
    a->nt = fused_nt(pl);
    /* The pipelined loop, except where bwd_serial says channel by channel (with this kernel's
     * own choice of streaming stores). */
    f.pipe = !(bwd_serial(pl, use_x, use_g) && a->nt && isa_wide());
    if (!f.pipe) {
        /* The reduction prefetches the first runs of the next channel while L2 has room for them
         * next to this channel's slice (at most half of them: the rest stream in during the
         * elementwise pass, which leaves no room until it has consumed part of the slice). */
        const int64_t slice = pl->N * es * (use_g ? 2 : 1);
        int64_t pct = slice < FZ_PF_BUDGET ? (FZ_PF_BUDGET - slice) * 100 / slice : 0;
        if (pct > 50)
            pct = 50;
        r->pf_split = a->pf_split = pl->O * pct / 100;
    }
    f.grp = fused_groups(pl, fin_op, use_app && use_x, use_g);
    if (f.grp > 0)
        f.pipe = 0;
    f.ch = *ca;
    f.pre_op = pre_op;
    f.fin_op = fin_op;
    f.use_app = use_app;
    f.units = pl->C;
    /* A pipelined block takes several channels: FZ_BLOCKS blocks still share out evenly among a
     * few workers, and the steps that cannot overlap (the first channel's sums, the last one's
     * output) are a small part of each. Channel by channel: one block per channel. */
    uint32_t bd;
    if (f.grp > 0) {
        /* Blocks of whole groups, so every group's segments start and end on line boundaries. */
        f.upb = (pl->C + FZ_BLOCKS - 1) / FZ_BLOCKS;
        f.upb = (f.upb + f.grp - 1) / f.grp * f.grp;
        bd = (uint32_t)((pl->C + f.upb - 1) / f.upb);
    } else if (f.pipe) {
        /* At least 2 channels a block, else nothing would overlap. */
        f.upb = (pl->C + FZ_BLOCKS - 1) / FZ_BLOCKS;
        if (f.upb < 2)
            f.upb = 2;
        bd = (uint32_t)((pl->C + f.upb - 1) / f.upb);
    } else {
        nm_blocks(pl->C, pl->N * es * (use_g ? 2 : 1), &f.upb, &bd);
    }
    cannon_arg_ref refs[NV + 16];
    size_t n = chan_fill(pl, &f.ch, cs, fin_op == CH_BN_FIN, 1, refs, offsetof(fz_args, ch));
    refs[n++] = at(pl->rx, offsetof(fz_args, red) + offsetof(nb_args, x));
    if (mode == NB_RED_GRAD) {
        refs[n++] = at(pl->rg, offsetof(fz_args, red) + offsetof(nb_args, g));
        refs[n++] = ws_ref(pl->ws_center, offsetof(fz_args, red) + offsetof(nb_args, center));
    }
    refs[n++] = ws_ref(pl->ws_part, offsetof(fz_args, red) + offsetof(nb_args, part));
    if (use_app) {
        if (use_x)
            refs[n++] = at(pl->rx, offsetof(fz_args, app) + offsetof(nb_args, x));
        if (use_g)
            refs[n++] = at(pl->rg, offsetof(fz_args, app) + offsetof(nb_args, g));
        refs[n++] = at(pl->ro, offsetof(fz_args, app) + offsetof(nb_args, out));
        refs[n++] = ws_ref(pl->ws_co, offsetof(fz_args, app) + offsetof(nb_args, co));
    }
    aclnnStatus st = cannonExecutorAddKernel(pl->e, pl->api, fz_kernel, bd, &f, sizeof f, refs, n);
    if (st == ACLNN_SUCCESS && use_app && pl->scatter_off != UINT64_MAX)
        st = cannonExecutorAddScatter(pl->e, pl->slot_o, pl->scatter_off);
    return st;
}

static aclnnStatus check_eps(const char *api, double eps)
{
    if (!(eps >= 0.0) || isinf(eps))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: eps %g must be finite and >= 0", api, eps);
    return ACLNN_SUCCESS;
}

static int add_in(aclOpExecutor *e, const aclTensor *t, int *ok)
{
    if (!t)
        return -1;
    int s = cannonExecutorAddInput(e, t);
    if (s < 0)
        *ok = 0;
    return s;
}

static int add_out(aclOpExecutor *e, const aclTensor *t, int *ok)
{
    if (!t)
        return -1;
    int s = cannonExecutorAddOutput(e, t);
    if (s < 0)
        *ok = 0;
    return s;
}

static aclnnStatus finish(bn_plan *pl, aclnnStatus st, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (st != ACLNN_SUCCESS) {
        cannonExecutorDiscard(pl->e);
        return st;
    }
    *workspaceSize = cannonExecutorWorkspaceSize(pl->e);
    *executor = pl->e;
    return ACLNN_SUCCESS;
}

static aclnnStatus create(bn_plan *pl, const char *api)
{
    memset(pl, 0, sizeof *pl);
    pl->api = api;
    pl->slot_x = pl->slot_g = pl->slot_o = -1;
    pl->e = cannonExecutorCreate(api);
    if (!pl->e)
        return cannonReportError(ACLNN_ERR_INNER_CREATE_EXECUTOR, "%s: out of memory", api);
    return ACLNN_SUCCESS;
}

#define OOM(pl) cannonReportError(ACLNN_ERR_INNER_CREATE_EXECUTOR, "%s: out of memory", (pl)->api)

/* ---- aclnnBatchNorm ---- */
ACL_FUNC_VISIBILITY aclnnStatus aclnnBatchNormGetWorkspaceSize(const aclTensor *input, const aclTensor *weight,
                                                               const aclTensor *bias, aclTensor *runningMean,
                                                               aclTensor *runningVar, bool training, double momentum,
                                                               double eps, aclTensor *output, aclTensor *saveMean,
                                                               aclTensor *saveInvstd, uint64_t *workspaceSize,
                                                               aclOpExecutor **executor)
{
    const char *api = "aclnnBatchNorm";
    if (!input || !output || !workspaceSize || !executor || (training && (!saveMean || !saveInvstd)))
        return cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL", api,
                                 !input ? "input" : !output ? "output" : !workspaceSize ? "workspaceSize"
                                 : !executor ? "executor" : !saveMean ? "saveMean" : "saveInvstd");
    cannon_tensor_view vx;
    aclnnStatus st;
    if ((st = check_data(api, "input", input, &vx)) != ACLNN_SUCCESS ||
        (st = check_like(api, "output", output, &vx)) != ACLNN_SUCCESS || (st = check_eps(api, eps)) != ACLNN_SUCCESS)
        return st;
    const int64_t C = vx.shape[channel_axis(&vx)];
    if ((st = nm_check_chan(api, "weight", weight, C, true)) != ACLNN_SUCCESS ||
        (st = nm_check_chan(api, "bias", bias, C, true)) != ACLNN_SUCCESS ||
        (st = nm_check_chan(api, "runningMean", runningMean, C, true)) != ACLNN_SUCCESS ||
        (st = nm_check_chan(api, "runningVar", runningVar, C, true)) != ACLNN_SUCCESS ||
        (training && (st = nm_check_chan(api, "saveMean", saveMean, C, false)) != ACLNN_SUCCESS) ||
        (training && (st = nm_check_chan(api, "saveInvstd", saveInvstd, C, false)) != ACLNN_SUCCESS))
        return st;
    if (!isfinite(momentum))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: momentum %g is not finite", api, momentum);
    const int64_t numel = cannonTensorNumel(input);
    if (training && C > 0 && numel == 0)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: training on an empty batch (no elements per channel)", api);
    bn_plan pl;
    if ((st = create(&pl, api)) != ACLNN_SUCCESS)
        return st;
    int ok = 1;
    pl.slot_x = add_in(pl.e, input, &ok);
    const int sw = add_in(pl.e, weight, &ok), sb = add_in(pl.e, bias, &ok);
    const int srm = add_in(pl.e, runningMean, &ok), srv = add_in(pl.e, runningVar, &ok);
    pl.slot_o = add_out(pl.e, output, &ok);
    const int ssm = training ? add_out(pl.e, saveMean, &ok) : -1, ssi = training ? add_out(pl.e, saveInvstd, &ok) : -1;
    if (!ok)
        return finish(&pl, OOM(&pl), workspaceSize, executor);
    if (numel == 0)
        return finish(&pl, ACLNN_SUCCESS, workspaceSize, executor);
    if ((st = plan_begin(&pl, input, NULL, output)) != ACLNN_SUCCESS)
        return finish(&pl, st, workspaceSize, executor);
    plan_ws(&pl);
    chan_set cs;
    chan_init(&cs);
    chan_put(&cs, V_W, weight, sw);
    chan_put(&cs, V_B, bias, sb);
    chan_put(&cs, V_RM, runningMean, srm);
    chan_put(&cs, V_RV, runningVar, srv);
    ch_args ca;
    memset(&ca, 0, sizeof ca);
    ca.eps = eps;
    ca.momentum = momentum;
    ca.want_co = 1;
    if (training) {
        chan_put(&cs, V_SM, saveMean, ssm);
        chan_put(&cs, V_SI, saveInvstd, ssi);
        ca.op = CH_BN_FIN;
        if (fused_ok(&pl, 0) && !fwd_split(&pl))
            return finish(&pl, add_fused(&pl, &ca, &cs, NB_RED_STATS, -1, CH_BN_FIN, 1, 1, 0), workspaceSize,
                          executor);
        if ((st = add_reduce(&pl, NB_RED_STATS)) == ACLNN_SUCCESS)
            st = add_chan(&pl, &ca, &cs, 1, 1);
    } else {
        ca.op = CH_BN_EVAL;
        st = add_chan(&pl, &ca, &cs, 0, 0);
    }
    if (st == ACLNN_SUCCESS)
        st = add_apply(&pl, 1, 0, 0, training);
    return finish(&pl, st, workspaceSize, executor);
}

/* ---- aclnnBatchNormBackward ---- */
ACL_FUNC_VISIBILITY aclnnStatus aclnnBatchNormBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclTensor *weight, const aclTensor *runningMean,
    const aclTensor *runningVar, const aclTensor *saveMean, const aclTensor *saveInvstd, bool training, double eps,
    const aclBoolArray *outputMask, aclTensor *gradInput, aclTensor *gradWeight, aclTensor *gradBias,
    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *api = "aclnnBatchNormBackward";
    if (!gradOut || !input || !outputMask || !workspaceSize || !executor)
        return cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL", api,
                                 !gradOut ? "gradOut" : !input ? "input" : !outputMask ? "outputMask"
                                 : !workspaceSize ? "workspaceSize" : "executor");
    uint64_t nmask = 0;
    const bool *mask = cannonBoolArrayData(outputMask, &nmask);
    if (!mask || nmask != 3)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: outputMask must hold 3 values", api);
    if ((mask[0] && !gradInput) || (mask[1] && !gradWeight) || (mask[2] && !gradBias) ||
        (training && (!saveMean || !saveInvstd)))
        return cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL", api,
                                 (mask[0] && !gradInput) ? "gradInput" : (mask[1] && !gradWeight) ? "gradWeight"
                                 : (mask[2] && !gradBias) ? "gradBias" : !saveMean ? "saveMean" : "saveInvstd");
    cannon_tensor_view vx;
    aclnnStatus st;
    if ((st = check_data(api, "input", input, &vx)) != ACLNN_SUCCESS ||
        (st = check_like(api, "gradOut", gradOut, &vx)) != ACLNN_SUCCESS ||
        (mask[0] && (st = check_like(api, "gradInput", gradInput, &vx)) != ACLNN_SUCCESS) ||
        (st = check_eps(api, eps)) != ACLNN_SUCCESS)
        return st;
    const int64_t C = vx.shape[channel_axis(&vx)];
    if ((st = nm_check_chan(api, "weight", weight, C, true)) != ACLNN_SUCCESS ||
        (st = nm_check_chan(api, "runningMean", runningMean, C, true)) != ACLNN_SUCCESS ||
        (st = nm_check_chan(api, "runningVar", runningVar, C, true)) != ACLNN_SUCCESS ||
        (training && (st = nm_check_chan(api, "saveMean", saveMean, C, false)) != ACLNN_SUCCESS) ||
        (training && (st = nm_check_chan(api, "saveInvstd", saveInvstd, C, false)) != ACLNN_SUCCESS) ||
        (mask[1] && (st = nm_check_chan(api, "gradWeight", gradWeight, C, false)) != ACLNN_SUCCESS) ||
        (mask[2] && (st = nm_check_chan(api, "gradBias", gradBias, C, false)) != ACLNN_SUCCESS))
        return st;
    const int64_t numel = cannonTensorNumel(input);
    if (training && C > 0 && numel == 0)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: training on an empty batch (no elements per channel)", api);
    bn_plan pl;
    if ((st = create(&pl, api)) != ACLNN_SUCCESS)
        return st;
    int ok = 1;
    pl.slot_g = add_in(pl.e, gradOut, &ok);
    pl.slot_x = add_in(pl.e, input, &ok);
    const int sw = add_in(pl.e, weight, &ok), srm = add_in(pl.e, runningMean, &ok), srv = add_in(pl.e, runningVar, &ok);
    const int ssm = add_in(pl.e, training ? saveMean : NULL, &ok), ssi = add_in(pl.e, training ? saveInvstd : NULL, &ok);
    pl.slot_o = add_out(pl.e, mask[0] ? gradInput : NULL, &ok);
    const int sgw = add_out(pl.e, mask[1] ? gradWeight : NULL, &ok), sgb = add_out(pl.e, mask[2] ? gradBias : NULL, &ok);
    if (!ok)
        return finish(&pl, OOM(&pl), workspaceSize, executor);
    if (numel == 0 && !mask[1] && !mask[2])
        return finish(&pl, ACLNN_SUCCESS, workspaceSize, executor);
    if ((st = plan_begin(&pl, input, gradOut, mask[0] ? gradInput : NULL)) != ACLNN_SUCCESS)
        return finish(&pl, st, workspaceSize, executor);
    plan_ws(&pl);
    chan_set cs;
    chan_init(&cs);
    chan_put(&cs, V_W, weight, sw);
    chan_put(&cs, V_RM, runningMean, srm);
    chan_put(&cs, V_RV, runningVar, srv);
    chan_put(&cs, V_SI, training ? saveInvstd : NULL, ssi);
    /* The center of the reduction: saveMean in training, runningMean in eval. */
    chan_put(&cs, V_SM, training ? saveMean : runningMean, training ? ssm : srm);
    chan_put(&cs, V_GW, mask[1] ? gradWeight : NULL, sgw);
    chan_put(&cs, V_GB, mask[2] ? gradBias : NULL, sgb);
    ch_args ca;
    memset(&ca, 0, sizeof ca);
    ca.eps = eps;
    ca.training = training;
    ca.want_co = mask[0];
    if (numel > 0 && fused_ok(&pl, 1) && !bwd_split(&pl, training))
        return finish(&pl, add_fused(&pl, &ca, &cs, NB_RED_GRAD, CH_CENTER, CH_BWD_FIN, mask[0], training, 1),
                      workspaceSize, executor);
    ca.op = CH_CENTER;
    st = add_chan(&pl, &ca, &cs, 0, 0);
    if (st == ACLNN_SUCCESS && numel > 0)
        st = add_reduce(&pl, NB_RED_GRAD);
    else if (st == ACLNN_SUCCESS) /* empty batch in eval: gradients of weight and bias are 0 */
        pl.P = 0;
    if (st == ACLNN_SUCCESS) {
        ca.op = CH_BWD_FIN;
        st = add_chan(&pl, &ca, &cs, 0, pl.P > 0);
    }
    if (st == ACLNN_SUCCESS && mask[0] && numel > 0)
        st = add_apply(&pl, training, 1, 0, 1);
    return finish(&pl, st, workspaceSize, executor);
}

/* ---- aclnnBatchNormStats ---- */
ACL_FUNC_VISIBILITY aclnnStatus aclnnBatchNormStatsGetWorkspaceSize(const aclTensor *input, double eps, aclTensor *mean,
                                                                    aclTensor *invstd, uint64_t *workspaceSize,
                                                                    aclOpExecutor **executor)
{
    const char *api = "aclnnBatchNormStats";
    if (!input || !mean || !invstd || !workspaceSize || !executor)
        return cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL", api,
                                 !input ? "input" : !mean ? "mean" : !invstd ? "invstd"
                                 : !workspaceSize ? "workspaceSize" : "executor");
    cannon_tensor_view vx;
    aclnnStatus st;
    if ((st = check_data(api, "input", input, &vx)) != ACLNN_SUCCESS || (st = check_eps(api, eps)) != ACLNN_SUCCESS)
        return st;
    const int64_t C = vx.shape[channel_axis(&vx)];
    if ((st = nm_check_chan(api, "mean", mean, C, false)) != ACLNN_SUCCESS ||
        (st = nm_check_chan(api, "invstd", invstd, C, false)) != ACLNN_SUCCESS)
        return st;
    const int64_t numel = cannonTensorNumel(input);
    if (C > 0 && numel == 0)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: empty batch (no elements per channel)", api);
    bn_plan pl;
    if ((st = create(&pl, api)) != ACLNN_SUCCESS)
        return st;
    int ok = 1;
    pl.slot_x = add_in(pl.e, input, &ok);
    const int sm = add_out(pl.e, mean, &ok), si = add_out(pl.e, invstd, &ok);
    if (!ok)
        return finish(&pl, OOM(&pl), workspaceSize, executor);
    if (numel == 0)
        return finish(&pl, ACLNN_SUCCESS, workspaceSize, executor);
    if ((st = plan_begin(&pl, input, NULL, NULL)) != ACLNN_SUCCESS)
        return finish(&pl, st, workspaceSize, executor);
    plan_ws(&pl);
    chan_set cs;
    chan_init(&cs);
    chan_put(&cs, V_SM, mean, sm);
    chan_put(&cs, V_SI, invstd, si);
    ch_args ca;
    memset(&ca, 0, sizeof ca);
    ca.eps = eps;
    ca.op = CH_BN_FIN;
    if ((st = add_reduce(&pl, NB_RED_STATS)) == ACLNN_SUCCESS)
        st = add_chan(&pl, &ca, &cs, 1, 1);
    return finish(&pl, st, workspaceSize, executor);
}

/* ---- aclnnBatchNormGatherStatsWithCounts ---- */
ACL_FUNC_VISIBILITY aclnnStatus aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize(
    const aclTensor *input, const aclTensor *mean, const aclTensor *invstd, aclTensor *runningMean,
    aclTensor *runningVar, double momentum, double eps, const aclTensor *counts, aclTensor *meanAll,
    aclTensor *invstdAll, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *api = "aclnnBatchNormGatherStatsWithCounts";
    if (!input || !mean || !invstd || !counts || !meanAll || !invstdAll || !workspaceSize || !executor)
        return cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL", api,
                                 !input ? "input" : !mean ? "mean" : !invstd ? "invstd" : !counts ? "counts"
                                 : !meanAll ? "meanAll" : !invstdAll ? "invstdAll"
                                 : !workspaceSize ? "workspaceSize" : "executor");
    cannon_tensor_view vx, vm, vi, vc;
    aclnnStatus st;
    if ((st = check_data(api, "input", input, &vx)) != ACLNN_SUCCESS || (st = check_eps(api, eps)) != ACLNN_SUCCESS)
        return st;
    if (!isfinite(momentum))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: momentum %g is not finite", api, momentum);
    const int64_t C = vx.shape[channel_axis(&vx)];
    if (!cannonTensorGetView(mean, &vm) || !cannonTensorGetView(invstd, &vi) || !cannonTensorGetView(counts, &vc))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: a tensor argument is not a live aclTensor, or its view is too large", api);
    if (vm.ndim != 2 || vm.shape[1] != C || nm_float_code(vm.dtype) < 0)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: mean must be a float [world, %lld] tensor", api,
                                 (long long)C);
    if (!same_shape(&vm, &vi) || nm_float_code(vi.dtype) < 0)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: invstd must be a float tensor shaped like mean", api);
    if (vc.ndim != 1 || vc.shape[0] != vm.shape[0] || nm_any_code(vc.dtype) < 0)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: counts must be 1-D of length world (%lld)", api,
                                 (long long)vm.shape[0]);
    if ((st = nm_check_chan(api, "runningMean", runningMean, C, true)) != ACLNN_SUCCESS ||
        (st = nm_check_chan(api, "runningVar", runningVar, C, true)) != ACLNN_SUCCESS ||
        (st = nm_check_chan(api, "meanAll", meanAll, C, false)) != ACLNN_SUCCESS ||
        (st = nm_check_chan(api, "invstdAll", invstdAll, C, false)) != ACLNN_SUCCESS)
        return st;
    if (vm.shape[0] == 0)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: no ranks (world size 0)", api);
    bn_plan pl;
    if ((st = create(&pl, api)) != ACLNN_SUCCESS)
        return st;
    int ok = 1;
    pl.slot_x = add_in(pl.e, input, &ok);
    const int sm = add_in(pl.e, mean, &ok), si = add_in(pl.e, invstd, &ok);
    const int srm = add_in(pl.e, runningMean, &ok), srv = add_in(pl.e, runningVar, &ok);
    const int sc = add_in(pl.e, counts, &ok);
    const int sma = add_out(pl.e, meanAll, &ok), sia = add_out(pl.e, invstdAll, &ok);
    if (!ok)
        return finish(&pl, OOM(&pl), workspaceSize, executor);
    if (C == 0)
        return finish(&pl, ACLNN_SUCCESS, workspaceSize, executor);
    pl.C = C;
    pl.ws_co = cannonExecutorReserveWorkspace(pl.e, sizeof(float) * (uint64_t)(NM_CO_ROWS * C + 1));
    pl.ws_center = cannonExecutorReserveWorkspace(pl.e, sizeof(float) * (uint64_t)C);
    chan_set cs;
    chan_init(&cs);
    chan_put(&cs, V_SM, mean, sm);
    chan_put(&cs, V_SI, invstd, si);
    chan_put(&cs, V_RM, runningMean, srm);
    chan_put(&cs, V_RV, runningVar, srv);
    chan_put(&cs, V_CNT, counts, sc);
    chan_put(&cs, V_MALL, meanAll, sma);
    chan_put(&cs, V_IALL, invstdAll, sia);
    ch_args ca;
    memset(&ca, 0, sizeof ca);
    ca.eps = eps;
    ca.momentum = momentum;
    ca.op = CH_GATHER;
    ca.W = vm.shape[0];
    ca.cnt_n = vm.shape[0];
    st = add_chan(&pl, &ca, &cs, 0, 0);
    return finish(&pl, st, workspaceSize, executor);
}

/* ---- aclnnBatchNormElemt ---- */
ACL_FUNC_VISIBILITY aclnnStatus aclnnBatchNormElemtGetWorkspaceSize(const aclTensor *input, const aclTensor *weight,
                                                                    const aclTensor *bias, aclTensor *mean,
                                                                    aclTensor *invstd, double eps, aclTensor *output,
                                                                    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *api = "aclnnBatchNormElemt";
    if (!input || !mean || !invstd || !output || !workspaceSize || !executor)
        return cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL", api,
                                 !input ? "input" : !mean ? "mean" : !invstd ? "invstd" : !output ? "output"
                                 : !workspaceSize ? "workspaceSize" : "executor");
    cannon_tensor_view vx;
    aclnnStatus st;
    if ((st = check_data(api, "input", input, &vx)) != ACLNN_SUCCESS ||
        (st = check_like(api, "output", output, &vx)) != ACLNN_SUCCESS || (st = check_eps(api, eps)) != ACLNN_SUCCESS)
        return st;
    const int64_t C = vx.shape[channel_axis(&vx)];
    if ((st = nm_check_chan(api, "weight", weight, C, true)) != ACLNN_SUCCESS ||
        (st = nm_check_chan(api, "bias", bias, C, true)) != ACLNN_SUCCESS ||
        (st = nm_check_chan(api, "mean", mean, C, false)) != ACLNN_SUCCESS ||
        (st = nm_check_chan(api, "invstd", invstd, C, false)) != ACLNN_SUCCESS)
        return st;
    bn_plan pl;
    if ((st = create(&pl, api)) != ACLNN_SUCCESS)
        return st;
    int ok = 1;
    pl.slot_x = add_in(pl.e, input, &ok);
    const int sw = add_in(pl.e, weight, &ok), sb = add_in(pl.e, bias, &ok);
    const int sm = add_in(pl.e, mean, &ok), si = add_in(pl.e, invstd, &ok);
    pl.slot_o = add_out(pl.e, output, &ok);
    if (!ok)
        return finish(&pl, OOM(&pl), workspaceSize, executor);
    if (cannonTensorNumel(input) == 0)
        return finish(&pl, ACLNN_SUCCESS, workspaceSize, executor);
    if ((st = plan_begin(&pl, input, NULL, output)) != ACLNN_SUCCESS)
        return finish(&pl, st, workspaceSize, executor);
    plan_ws(&pl);
    chan_set cs;
    chan_init(&cs);
    chan_put(&cs, V_W, weight, sw);
    chan_put(&cs, V_B, bias, sb);
    chan_put(&cs, V_SM, mean, sm);
    chan_put(&cs, V_SI, invstd, si);
    ch_args ca;
    memset(&ca, 0, sizeof ca);
    ca.op = CH_ELEMT;
    if ((st = add_chan(&pl, &ca, &cs, 0, 0)) == ACLNN_SUCCESS)
        st = add_apply(&pl, 1, 0, 0, 0);
    return finish(&pl, st, workspaceSize, executor);
}

/* ---- aclnnBatchNormReduceBackward ---- */
ACL_FUNC_VISIBILITY aclnnStatus aclnnBatchNormReduceBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclTensor *mean, const aclTensor *invstd,
    const aclTensor *weight, const bool inputG, const bool weightG, const bool biasG, aclTensor *sumDy,
    aclTensor *sumDyXmu, aclTensor *gradWeight, aclTensor *gradBias, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *api = "aclnnBatchNormReduceBackward";
    if (!gradOut || !input || !mean || !invstd || !workspaceSize || !executor || (inputG && (!sumDy || !sumDyXmu)) ||
        (weightG && !gradWeight) || (biasG && !gradBias))
        return cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL", api,
                                 !gradOut ? "gradOut" : !input ? "input" : !mean ? "mean" : !invstd ? "invstd"
                                 : !workspaceSize ? "workspaceSize" : !executor ? "executor"
                                 : (inputG && !sumDy) ? "sumDy" : (inputG && !sumDyXmu) ? "sumDyXmu"
                                 : (weightG && !gradWeight) ? "gradWeight" : "gradBias");
    cannon_tensor_view vx;
    aclnnStatus st;
    if ((st = check_data(api, "input", input, &vx)) != ACLNN_SUCCESS ||
        (st = check_like(api, "gradOut", gradOut, &vx)) != ACLNN_SUCCESS)
        return st;
    const int64_t C = vx.shape[channel_axis(&vx)];
    if ((st = nm_check_chan(api, "weight", weight, C, true)) != ACLNN_SUCCESS ||
        (st = nm_check_chan(api, "mean", mean, C, false)) != ACLNN_SUCCESS ||
        (st = nm_check_chan(api, "invstd", invstd, C, false)) != ACLNN_SUCCESS ||
        (inputG && (st = nm_check_chan(api, "sumDy", sumDy, C, false)) != ACLNN_SUCCESS) ||
        (inputG && (st = nm_check_chan(api, "sumDyXmu", sumDyXmu, C, false)) != ACLNN_SUCCESS) ||
        (weightG && (st = nm_check_chan(api, "gradWeight", gradWeight, C, false)) != ACLNN_SUCCESS) ||
        (biasG && (st = nm_check_chan(api, "gradBias", gradBias, C, false)) != ACLNN_SUCCESS))
        return st;
    bn_plan pl;
    if ((st = create(&pl, api)) != ACLNN_SUCCESS)
        return st;
    int ok = 1;
    pl.slot_g = add_in(pl.e, gradOut, &ok);
    pl.slot_x = add_in(pl.e, input, &ok);
    const int sm = add_in(pl.e, mean, &ok), si = add_in(pl.e, invstd, &ok), sw = add_in(pl.e, weight, &ok);
    const int sdy = add_out(pl.e, inputG ? sumDy : NULL, &ok), sdx = add_out(pl.e, inputG ? sumDyXmu : NULL, &ok);
    const int sgw = add_out(pl.e, weightG ? gradWeight : NULL, &ok), sgb = add_out(pl.e, biasG ? gradBias : NULL, &ok);
    (void)sw;
    if (!ok)
        return finish(&pl, OOM(&pl), workspaceSize, executor);
    if ((!inputG && !weightG && !biasG) || C == 0)
        return finish(&pl, ACLNN_SUCCESS, workspaceSize, executor);
    if ((st = plan_begin(&pl, input, gradOut, NULL)) != ACLNN_SUCCESS)
        return finish(&pl, st, workspaceSize, executor);
    plan_ws(&pl);
    chan_set cs;
    chan_init(&cs);
    chan_put(&cs, V_SM, mean, sm);
    chan_put(&cs, V_SI, invstd, si);
    chan_put(&cs, V_SDY, inputG ? sumDy : NULL, sdy);
    chan_put(&cs, V_SDX, inputG ? sumDyXmu : NULL, sdx);
    chan_put(&cs, V_GW, weightG ? gradWeight : NULL, sgw);
    chan_put(&cs, V_GB, biasG ? gradBias : NULL, sgb);
    ch_args ca;
    memset(&ca, 0, sizeof ca);
    ca.op = CH_CENTER;
    const int empty = cannonTensorNumel(input) == 0;
    st = add_chan(&pl, &ca, &cs, 0, 0);
    if (st == ACLNN_SUCCESS && !empty)
        st = add_reduce(&pl, NB_RED_GRAD);
    if (empty)
        pl.P = 0;
    if (st == ACLNN_SUCCESS) {
        ca.op = CH_RB_FIN;
        st = add_chan(&pl, &ca, &cs, 0, !empty);
    }
    return finish(&pl, st, workspaceSize, executor);
}

/* ---- aclnnBatchNormElemtBackward ---- */
ACL_FUNC_VISIBILITY aclnnStatus aclnnBatchNormElemtBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclTensor *mean, const aclTensor *invstd,
    const aclTensor *weight, const aclTensor *sumDy, const aclTensor *sumDyXmu, aclTensor *counter,
    aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *api = "aclnnBatchNormElemtBackward";
    if (!gradOut || !input || !mean || !invstd || !sumDy || !sumDyXmu || !counter || !gradInput || !workspaceSize ||
        !executor)
        return cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL", api,
                                 !gradOut ? "gradOut" : !input ? "input" : !mean ? "mean" : !invstd ? "invstd"
                                 : !sumDy ? "sumDy" : !sumDyXmu ? "sumDyXmu" : !counter ? "counter"
                                 : !gradInput ? "gradInput" : !workspaceSize ? "workspaceSize" : "executor");
    cannon_tensor_view vx, vc;
    aclnnStatus st;
    if ((st = check_data(api, "input", input, &vx)) != ACLNN_SUCCESS ||
        (st = check_like(api, "gradOut", gradOut, &vx)) != ACLNN_SUCCESS ||
        (st = check_like(api, "gradInput", gradInput, &vx)) != ACLNN_SUCCESS)
        return st;
    const int64_t C = vx.shape[channel_axis(&vx)];
    if ((st = nm_check_chan(api, "weight", weight, C, true)) != ACLNN_SUCCESS ||
        (st = nm_check_chan(api, "mean", mean, C, false)) != ACLNN_SUCCESS ||
        (st = nm_check_chan(api, "invstd", invstd, C, false)) != ACLNN_SUCCESS ||
        (st = nm_check_chan(api, "sumDy", sumDy, C, false)) != ACLNN_SUCCESS ||
        (st = nm_check_chan(api, "sumDyXmu", sumDyXmu, C, false)) != ACLNN_SUCCESS)
        return st;
    if (!cannonTensorGetView(counter, &vc))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: counter is not a live aclTensor, or its view is too large", api);
    if (vc.ndim < 1 || vc.ndim > CANNON_OP_MAX_RANK ||
        (vc.dtype != ACL_INT32 && vc.dtype != ACL_FLOAT && vc.dtype != ACL_FLOAT16))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: counter must be INT32, FLOAT or FLOAT16 of rank 1 to 8",
                                 api);
    const int64_t ncnt = cannonTensorNumel(counter);
    if (ncnt == 0)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: counter is empty", api);
    bn_plan pl;
    if ((st = create(&pl, api)) != ACLNN_SUCCESS)
        return st;
    int ok = 1;
    pl.slot_g = add_in(pl.e, gradOut, &ok);
    pl.slot_x = add_in(pl.e, input, &ok);
    const int sm = add_in(pl.e, mean, &ok), si = add_in(pl.e, invstd, &ok), sw = add_in(pl.e, weight, &ok);
    const int sdy = add_in(pl.e, sumDy, &ok), sdx = add_in(pl.e, sumDyXmu, &ok), sc = add_in(pl.e, counter, &ok);
    pl.slot_o = add_out(pl.e, gradInput, &ok);
    if (!ok)
        return finish(&pl, OOM(&pl), workspaceSize, executor);
    if (cannonTensorNumel(input) == 0)
        return finish(&pl, ACLNN_SUCCESS, workspaceSize, executor);
    if ((st = plan_begin(&pl, input, gradOut, gradInput)) != ACLNN_SUCCESS)
        return finish(&pl, st, workspaceSize, executor);
    plan_ws(&pl);
    chan_set cs;
    chan_init(&cs);
    chan_put(&cs, V_W, weight, sw);
    chan_put(&cs, V_SM, mean, sm);
    chan_put(&cs, V_SI, invstd, si);
    chan_put(&cs, V_SDY, sumDy, sdy);
    chan_put(&cs, V_SDX, sumDyXmu, sdx);
    ch_args ca;
    memset(&ca, 0, sizeof ca);
    ca.op = CH_EB;
    ca.cnt_n = ncnt;
    /* The counter is summed as a flat array: a strided one is copied first. */
    cannon_arg_ref cref;
    uint64_t unused = 0;
    if ((st = nm_bind(pl.e, counter, sc, 0, &cref, 0, &unused)) != ACLNN_SUCCESS)
        return finish(&pl, st, workspaceSize, executor);
    cannon_arg_ref refs[NV + 4];
    ca.C = pl.C;
    ca.N = pl.N;
    ca.I = pl.I;
    ca.xdtype = pl.dtype;
    size_t n = chan_refs(&cs, &ca, refs);
    ca.v[V_CNT].present = 1;
    ca.v[V_CNT].s1 = 1;
    ca.v[V_CNT].dtype = nm_any_code(vc.dtype);
    refs[n++] = at(cref, offsetof(ch_args, v) + (size_t)V_CNT * sizeof(nm_vec));
    refs[n++] = ws_ref(pl.ws_co, offsetof(ch_args, co));
    st = cannonExecutorAddKernel(pl.e, api, ch_kernel, 1, &ca, sizeof ca, refs, n);
    if (st == ACLNN_SUCCESS)
        st = add_apply(&pl, 1, 1, 1, 0);
    return finish(&pl, st, workspaceSize, executor);
}

