/*
 * aclnnLayerNorm, aclnnLayerNormBackward, aclnnRmsNorm, aclnnRmsNormGrad.
 *
 * Data are seen as (rows, R) with the normalised dims last and contiguous (strided views are
 * copied through the workspace). Forward: one tiered kernel, each unit a fixed run of rows; a row's
 * statistics (shifted single pass, exact fp64 squares) and its normalisation are done while the row
 * is in L1/L2, so the data are read once. Backward: each unit also accumulates its rows'
 * contributions to gradWeight/gradBias into its own fp64 column partials, which a second kernel
 * sums in unit order, so the result is independent of the thread count.
 * Weight/bias/gamma of any float dtype are first converted to fp32 arrays in the workspace.
 */
#include <math.h>
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_rms_norm_grad.h"
#include "op_manifest.h"

#include "../kernels/isa.h"
#include "norm_op.h"

/* ---- glue kernels ---- */
typedef struct prep_args {
    const void *src[2];
    float *dst[2];
    int32_t dt[2];
    int64_t R;
} prep_args;

static int prep_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    (void)ctx;
    const prep_args *a = (const prep_args *)args;
    for (int k = 0; k < 2; k++)
        if (a->src[k])
            for (int64_t j = 0; j < a->R; j++)
                a->dst[k][j] = cannon_norm_ld(a->src[k], j, a->dt[k]);
    return 0;
}

#define COLS_CHUNK 1024
typedef struct cols_args {
    const double *part;
    void *gw, *gb;
    int64_t P, R, Rp;
    int32_t dtw, dtb;
} cols_args;

static int cols_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const cols_args *a = (const cols_args *)args;
    const int64_t j0 = (int64_t)ctx->block_idx * COLS_CHUNK;
    const int64_t j1 = j0 + COLS_CHUNK < a->R ? j0 + COLS_CHUNK : a->R;
    /* Unit by unit over the block's columns: the columns' additions side by side in vector
     * lanes and each unit's partials read in address order, where a column at a time walked
     * lines 2 * Rp doubles apart (64 KiB for R = 4096: a few cache sets, so every read misses
     * to L3). Each column keeps its order (units ascending from 0.0): the same bits. */
    double sw[COLS_CHUNK], sb[COLS_CHUNK];
    const int64_t n = j1 - j0;
    for (int64_t i = 0; i < n; i++)
        sw[i] = sb[i] = 0.0;
    for (int64_t p = 0; p < a->P; p++) {
        const double *pw = a->part + (p * 2 + 0) * a->Rp + j0, *pb = a->part + (p * 2 + 1) * a->Rp + j0;
        for (int64_t i = 0; i < n; i++) {
            sw[i] += pw[i];
            sb[i] += pb[i];
        }
    }
    for (int64_t i = 0; i < n; i++) {
        if (a->gw)
            cannon_norm_st(a->gw, j0 + i, a->dtw, (float)sw[i]);
        if (a->gb)
            cannon_norm_st(a->gb, j0 + i, a->dtb, (float)sb[i]);
    }
    return 0;
}

/* ---- planning ---- */
typedef struct ln_plan {
    const char *api;
    aclOpExecutor *e;
    int64_t rows, R;
    int dtype;
    uint64_t scatters[6];
    int scatter_slots[6];
    int nscatter;
} ln_plan;

static aclnnStatus bind_t(ln_plan *pl, const aclTensor *t, int slot, int is_out, cannon_arg_ref *refs, size_t *n,
                          size_t off)
{
    if (!t)
        return ACLNN_SUCCESS;
    uint64_t sc = UINT64_MAX;
    aclnnStatus st = nm_bind(pl->e, t, slot, is_out, &refs[*n], (uint32_t)off, &sc);
    if (st != ACLNN_SUCCESS)
        return st;
    (*n)++;
    if (sc != UINT64_MAX) {
        pl->scatters[pl->nscatter] = sc;
        pl->scatter_slots[pl->nscatter++] = slot;
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus add_scatters(ln_plan *pl)
{
    for (int i = 0; i < pl->nscatter; i++) {
        aclnnStatus st = cannonExecutorAddScatter(pl->e, pl->scatter_slots[i], pl->scatters[i]);
        if (st != ACLNN_SUCCESS)
            return st;
    }
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

static aclnnStatus check_x(const char *api, const char *name, const aclTensor *t, cannon_tensor_view *v)
{
    if (!cannonTensorGetView(t, v))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: %s is not a live aclTensor, or its view is too large", api, name);
    if (nm_float_code(v->dtype) < 0)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: %s dtype %d is not supported (FLOAT, FLOAT16, BFLOAT16)",
                                 api, name, (int)v->dtype);
    if (v->ndim < 1 || v->ndim > CANNON_OP_MAX_RANK)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: %s rank %lld is outside [1, 8]", api, name,
                                 (long long)v->ndim);
    return ACLNN_SUCCESS;
}

static aclnnStatus check_like(const char *api, const char *name, const aclTensor *t, const cannon_tensor_view *vx)
{
    cannon_tensor_view v;
    aclnnStatus st = check_x(api, name, t, &v);
    if (st != ACLNN_SUCCESS)
        return st;
    if (!same_shape(&v, vx) || v.dtype != vx->dtype)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: %s must have the input's shape and dtype", api, name);
    return ACLNN_SUCCESS;
}

/* A parameter shaped like the trailing @p k dims of x (weight, bias, gamma, their gradients). */
static aclnnStatus check_param(const char *api, const char *name, const aclTensor *t, const cannon_tensor_view *vx,
                               int64_t k)
{
    if (!t)
        return ACLNN_SUCCESS;
    cannon_tensor_view v;
    if (!cannonTensorGetView(t, &v))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: %s is not a live aclTensor, or its view is too large", api, name);
    if (nm_float_code(v.dtype) < 0)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: %s dtype %d is not supported", api, name, (int)v.dtype);
    int ok = v.ndim == k;
    for (int64_t i = 0; ok && i < k; i++)
        ok = v.shape[i] == vx->shape[vx->ndim - k + i];
    if (!ok)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: %s shape must equal the normalized (trailing) dims", api,
                                 name);
    return ACLNN_SUCCESS;
}

/* Per-row statistics tensor: one value per row, float dtype. */
static aclnnStatus check_stat(const char *api, const char *name, const aclTensor *t, int64_t rows)
{
    if (!t)
        return ACLNN_SUCCESS;
    cannon_tensor_view v;
    if (!cannonTensorGetView(t, &v))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: %s is not a live aclTensor, or its view is too large", api, name);
    if (nm_float_code(v.dtype) < 0)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: %s dtype %d is not supported", api, name, (int)v.dtype);
    if (cannonTensorNumel(t) != rows)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: %s must hold one value per row (%lld)", api, name,
                                 (long long)rows);
    return ACLNN_SUCCESS;
}

static int add_io(aclOpExecutor *e, const aclTensor *t, int out, int *ok)
{
    if (!t)
        return -1;
    int s = out ? cannonExecutorAddOutput(e, t) : cannonExecutorAddInput(e, t);
    if (s < 0)
        *ok = 0;
    return s;
}

static aclnnStatus finish(ln_plan *pl, aclnnStatus st, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (st != ACLNN_SUCCESS) {
        cannonExecutorDiscard(pl->e);
        return st;
    }
    *workspaceSize = cannonExecutorWorkspaceSize(pl->e);
    *executor = pl->e;
    return ACLNN_SUCCESS;
}

/* Convert w (and b) to fp32 workspace arrays; returns their workspace offsets (UINT64_MAX: absent). */
static aclnnStatus add_prep(ln_plan *pl, const aclTensor *w, int sw, const aclTensor *b, int sb, uint64_t *ow,
                            uint64_t *ob)
{
    prep_args a;
    memset(&a, 0, sizeof a);
    a.R = pl->R;
    cannon_arg_ref refs[4];
    size_t n = 0;
    *ow = *ob = UINT64_MAX;
    const aclTensor *t[2] = {w, b};
    const int s[2] = {sw, sb};
    uint64_t *o[2] = {ow, ob};
    for (int k = 0; k < 2; k++) {
        if (!t[k])
            continue;
        cannon_tensor_view v;
        cannonTensorGetView(t[k], &v);
        a.dt[k] = nm_float_code(v.dtype);
        aclnnStatus st = bind_t(pl, t[k], s[k], 0, refs, &n, offsetof(prep_args, src) + (size_t)k * sizeof(void *));
        if (st != ACLNN_SUCCESS)
            return st;
        *o[k] = cannonExecutorReserveWorkspace(pl->e, (uint64_t)pl->R * sizeof(float));
        refs[n].args_offset = (uint32_t)(offsetof(prep_args, dst) + (size_t)k * sizeof(float *));
        refs[n].slot = CANNON_SLOT_WORKSPACE;
        refs[n++].byte_offset = (int64_t)*o[k];
    }
    if (!n)
        return ACLNN_SUCCESS;
    return cannonExecutorAddKernel(pl->e, pl->api, prep_kernel, 1, &a, sizeof a, refs, n);
}

/* The main kernel. Forward: out = y, stats written to mean/rstd (optional). Backward: out = dx
 * (optional), g = dy, reads mean/rstd, column partials when cols. */
static aclnnStatus add_main(ln_plan *pl, int mode, double eps, const aclTensor *x, int sx, const aclTensor *g, int sg,
                            const aclTensor *out, int so, const aclTensor *mean, int sm, const aclTensor *rstd, int sr,
                            uint64_t ow, uint64_t ob, int cols, uint64_t *ws_part, int64_t *P)
{
    nl_args a;
    memset(&a, 0, sizeof a);
    a.mode = mode;
    a.eps = eps;
    a.rows = pl->rows;
    a.R = pl->R;
    a.dtype = pl->dtype;
    a.isa = (int32_t)cannon_isa_select();
    a.want_dx = out != NULL;
    a.want_cols = cols;
    a.nt = pl->rows * pl->R * (int64_t)nm_esize(pl->dtype) >= NM_NT_BYTES;
    const int bwd = mode >= NL_LN_BWD;
    /* Units of at least 64K elements (256 KiB of fp32 x): a worker takes them one at a time,
     * and each backward unit zeroes, fills and hands over 2 x R fp64 column partials, which must
     * stay small next to the unit's data. */
    const int64_t min_rows = (65536 + pl->R - 1) / pl->R;
    if (bwd) {
        /* At most 64 units, so the column partials stay small (64 x 2 x R doubles). */
        a.rows_per_unit = (pl->rows + 63) / 64;
        if (a.rows_per_unit < min_rows)
            a.rows_per_unit = min_rows;
    } else {
        a.rows_per_unit = min_rows;
    }
    if (a.rows_per_unit < 1)
        a.rows_per_unit = 1;
    a.units = (pl->rows + a.rows_per_unit - 1) / a.rows_per_unit;
    *P = a.units;
    uint32_t bd;
    nm_blocks(a.units, a.rows_per_unit * pl->R * 4, &a.units_per_block, &bd);
    const aclTensor *st_t = mean ? mean : rstd;
    if (st_t) {
        cannon_tensor_view v;
        cannonTensorGetView(st_t, &v);
        a.stat_dtype = nm_float_code(v.dtype);
    }
    if (mean && rstd) {
        cannon_tensor_view v1, v2;
        cannonTensorGetView(mean, &v1);
        cannonTensorGetView(rstd, &v2);
        if (v1.dtype != v2.dtype)
            return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: mean and rstd dtypes differ", pl->api);
    }
    cannon_arg_ref refs[10];
    size_t n = 0;
    aclnnStatus st;
    if ((st = bind_t(pl, x, sx, 0, refs, &n, offsetof(nl_args, x))) != ACLNN_SUCCESS ||
        (st = bind_t(pl, g, sg, 0, refs, &n, offsetof(nl_args, g))) != ACLNN_SUCCESS ||
        (st = bind_t(pl, out, so, 1, refs, &n, offsetof(nl_args, out))) != ACLNN_SUCCESS ||
        (st = bind_t(pl, mean, sm, !bwd, refs, &n, offsetof(nl_args, mean))) != ACLNN_SUCCESS ||
        (st = bind_t(pl, rstd, sr, !bwd, refs, &n, offsetof(nl_args, rstd))) != ACLNN_SUCCESS)
        return st;
    if (ow != UINT64_MAX) {
        refs[n].args_offset = (uint32_t)offsetof(nl_args, w);
        refs[n].slot = CANNON_SLOT_WORKSPACE;
        refs[n++].byte_offset = (int64_t)ow;
    }
    if (ob != UINT64_MAX) {
        refs[n].args_offset = (uint32_t)offsetof(nl_args, b);
        refs[n].slot = CANNON_SLOT_WORKSPACE;
        refs[n++].byte_offset = (int64_t)ob;
    }
    if (cols) {
        const int64_t Rp = (pl->R + 15) / 16 * 16;
        /* [units][2][Rp] fp64 partials, then the kernel's [units][2][Rp] fp32 group sums. */
        *ws_part = cannonExecutorReserveWorkspace(pl->e,
                                                  (uint64_t)(a.units * 2 * Rp) * (sizeof(double) + sizeof(float)));
        refs[n].args_offset = (uint32_t)offsetof(nl_args, part);
        refs[n].slot = CANNON_SLOT_WORKSPACE;
        refs[n++].byte_offset = (int64_t)*ws_part;
    }
    return cannonExecutorAddKernel(pl->e, pl->api, nm_ln_kernel, bd, &a, sizeof a, refs, n);
}

static aclnnStatus add_cols(ln_plan *pl, uint64_t ws_part, int64_t P, const aclTensor *gw, int sgw, const aclTensor *gb,
                            int sgb)
{
    cols_args a;
    memset(&a, 0, sizeof a);
    a.P = P;
    a.R = pl->R;
    a.Rp = (pl->R + 15) / 16 * 16;
    cannon_arg_ref refs[3];
    size_t n = 0;
    refs[n].args_offset = (uint32_t)offsetof(cols_args, part);
    refs[n].slot = CANNON_SLOT_WORKSPACE;
    refs[n++].byte_offset = (int64_t)ws_part;
    cannon_tensor_view v;
    aclnnStatus st;
    if (gw) {
        cannonTensorGetView(gw, &v);
        a.dtw = nm_float_code(v.dtype);
        if ((st = bind_t(pl, gw, sgw, 1, refs, &n, offsetof(cols_args, gw))) != ACLNN_SUCCESS)
            return st;
    }
    if (gb) {
        cannonTensorGetView(gb, &v);
        a.dtb = nm_float_code(v.dtype);
        if ((st = bind_t(pl, gb, sgb, 1, refs, &n, offsetof(cols_args, gb))) != ACLNN_SUCCESS)
            return st;
    }
    const uint32_t bd = (uint32_t)((pl->R + COLS_CHUNK - 1) / COLS_CHUNK);
    return cannonExecutorAddKernel(pl->e, pl->api, cols_kernel, bd ? bd : 1, &a, sizeof a, refs, n);
}

static aclnnStatus create(ln_plan *pl, const char *api)
{
    memset(pl, 0, sizeof *pl);
    pl->api = api;
    pl->e = cannonExecutorCreate(api);
    if (!pl->e)
        return cannonReportError(ACLNN_ERR_INNER_CREATE_EXECUTOR, "%s: out of memory", api);
    return ACLNN_SUCCESS;
}

static aclnnStatus check_eps(const char *api, double eps)
{
    if (!(eps >= 0.0) || isinf(eps))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: eps %g must be finite and >= 0", api, eps);
    return ACLNN_SUCCESS;
}

/* normalizedShape must equal the trailing dims of x; returns its length in *k. */
static aclnnStatus check_norm_shape(const char *api, const aclIntArray *ns, const cannon_tensor_view *vx, int64_t *k)
{
    uint64_t n = 0;
    const int64_t *d = cannonIntArrayData(ns, &n);
    if (!d || n == 0 || (int64_t)n > vx->ndim)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: normalizedShape must have 1 to rank(input) = %lld dims",
                                 api, (long long)vx->ndim);
    for (uint64_t i = 0; i < n; i++)
        if (d[i] != vx->shape[vx->ndim - (int64_t)n + (int64_t)i])
            return cannonReportError(ACLNN_ERR_PARAM_INVALID,
                                     "%s: normalizedShape must equal the input's trailing dims", api);
    *k = (int64_t)n;
    return ACLNN_SUCCESS;
}

static void shape_rows(ln_plan *pl, const cannon_tensor_view *vx, int64_t k)
{
    pl->R = 1;
    pl->rows = 1;
    for (int64_t i = 0; i < vx->ndim; i++) {
        if (i >= vx->ndim - k)
            pl->R *= vx->shape[i];
        else
            pl->rows *= vx->shape[i];
    }
    pl->dtype = nm_float_code(vx->dtype);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnLayerNormGetWorkspaceSize(const aclTensor *input, const aclIntArray *normalizedShape,
                                                               const aclTensor *weightOptional,
                                                               const aclTensor *biasOptional, double eps, aclTensor *out,
                                                               aclTensor *meanOutOptional, aclTensor *rstdOutOptional,
                                                               uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *api = "aclnnLayerNorm";
    if (!input || !normalizedShape || !out || !workspaceSize || !executor)
        return cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL", api,
                                 !input ? "input" : !normalizedShape ? "normalizedShape" : !out ? "out"
                                 : !workspaceSize ? "workspaceSize" : "executor");
    cannon_tensor_view vx;
    aclnnStatus st;
    int64_t k = 0;
    if ((st = check_x(api, "input", input, &vx)) != ACLNN_SUCCESS ||
        (st = check_like(api, "out", out, &vx)) != ACLNN_SUCCESS ||
        (st = check_norm_shape(api, normalizedShape, &vx, &k)) != ACLNN_SUCCESS ||
        (st = check_eps(api, eps)) != ACLNN_SUCCESS ||
        (st = check_param(api, "weight", weightOptional, &vx, k)) != ACLNN_SUCCESS ||
        (st = check_param(api, "bias", biasOptional, &vx, k)) != ACLNN_SUCCESS)
        return st;
    ln_plan pl;
    shape_rows(&pl, &vx, k);
    const int64_t rows = pl.rows, R = pl.R;
    if ((st = check_stat(api, "meanOut", meanOutOptional, rows)) != ACLNN_SUCCESS ||
        (st = check_stat(api, "rstdOut", rstdOutOptional, rows)) != ACLNN_SUCCESS)
        return st;
    if ((st = create(&pl, api)) != ACLNN_SUCCESS)
        return st;
    pl.rows = rows, pl.R = R, pl.dtype = nm_float_code(vx.dtype);
    int ok = 1;
    const int sx = add_io(pl.e, input, 0, &ok), sw = add_io(pl.e, weightOptional, 0, &ok),
              sb = add_io(pl.e, biasOptional, 0, &ok);
    const int so = add_io(pl.e, out, 1, &ok), sm = add_io(pl.e, meanOutOptional, 1, &ok),
              sr = add_io(pl.e, rstdOutOptional, 1, &ok);
    if (!ok)
        return finish(&pl, cannonReportError(ACLNN_ERR_INNER_CREATE_EXECUTOR, "%s: out of memory", api), workspaceSize,
                      executor);
    if (rows * R == 0)
        return finish(&pl, ACLNN_SUCCESS, workspaceSize, executor);
    uint64_t ow, ob, wp = 0;
    int64_t P;
    if ((st = add_prep(&pl, weightOptional, sw, biasOptional, sb, &ow, &ob)) == ACLNN_SUCCESS &&
        (st = add_main(&pl, NL_LN_FWD, eps, input, sx, NULL, -1, out, so, meanOutOptional, sm, rstdOutOptional, sr, ow,
                       ob, 0, &wp, &P)) == ACLNN_SUCCESS)
        st = add_scatters(&pl);
    return finish(&pl, st, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclIntArray *normalizedShape, const aclTensor *mean,
    const aclTensor *rstd, const aclTensor *weightOptional, const aclTensor *biasOptional, const aclBoolArray *outputMask,
    aclTensor *gradInputOut, aclTensor *gradWeightOut, aclTensor *gradBiasOut, uint64_t *workspaceSize,
    aclOpExecutor **executor)
{
    const char *api = "aclnnLayerNormBackward";
    if (!gradOut || !input || !normalizedShape || !mean || !rstd || !outputMask || !workspaceSize || !executor)
        return cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL", api,
                                 !gradOut ? "gradOut" : !input ? "input" : !normalizedShape ? "normalizedShape"
                                 : !mean ? "mean" : !rstd ? "rstd" : !outputMask ? "outputMask"
                                 : !workspaceSize ? "workspaceSize" : "executor");
    uint64_t nmask = 0;
    const bool *mask = cannonBoolArrayData(outputMask, &nmask);
    if (!mask || nmask != 3)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: outputMask must hold 3 values", api);
    if ((mask[0] && !gradInputOut) || (mask[1] && !gradWeightOut) || (mask[2] && !gradBiasOut))
        return cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL", api,
                                 (mask[0] && !gradInputOut) ? "gradInputOut"
                                 : (mask[1] && !gradWeightOut) ? "gradWeightOut" : "gradBiasOut");
    aclTensor *gi = mask[0] ? gradInputOut : NULL, *gw = mask[1] ? gradWeightOut : NULL, *gb = mask[2] ? gradBiasOut : NULL;
    cannon_tensor_view vx;
    aclnnStatus st;
    int64_t k = 0;
    if ((st = check_x(api, "input", input, &vx)) != ACLNN_SUCCESS ||
        (st = check_like(api, "gradOut", gradOut, &vx)) != ACLNN_SUCCESS ||
        (gi && (st = check_like(api, "gradInputOut", gi, &vx)) != ACLNN_SUCCESS) ||
        (st = check_norm_shape(api, normalizedShape, &vx, &k)) != ACLNN_SUCCESS ||
        (st = check_param(api, "weight", weightOptional, &vx, k)) != ACLNN_SUCCESS ||
        (st = check_param(api, "bias", biasOptional, &vx, k)) != ACLNN_SUCCESS ||
        (st = check_param(api, "gradWeightOut", gw, &vx, k)) != ACLNN_SUCCESS ||
        (st = check_param(api, "gradBiasOut", gb, &vx, k)) != ACLNN_SUCCESS)
        return st;
    ln_plan pl;
    shape_rows(&pl, &vx, k);
    const int64_t rows = pl.rows, R = pl.R;
    if ((st = check_stat(api, "mean", mean, rows)) != ACLNN_SUCCESS ||
        (st = check_stat(api, "rstd", rstd, rows)) != ACLNN_SUCCESS)
        return st;
    if ((st = create(&pl, api)) != ACLNN_SUCCESS)
        return st;
    pl.rows = rows, pl.R = R, pl.dtype = nm_float_code(vx.dtype);
    int ok = 1;
    const int sg = add_io(pl.e, gradOut, 0, &ok), sx = add_io(pl.e, input, 0, &ok), sm = add_io(pl.e, mean, 0, &ok),
              sr = add_io(pl.e, rstd, 0, &ok), sw = add_io(pl.e, weightOptional, 0, &ok);
    (void)add_io(pl.e, biasOptional, 0, &ok);
    const int sgi = add_io(pl.e, gi, 1, &ok), sgw = add_io(pl.e, gw, 1, &ok), sgb = add_io(pl.e, gb, 1, &ok);
    if (!ok)
        return finish(&pl, cannonReportError(ACLNN_ERR_INNER_CREATE_EXECUTOR, "%s: out of memory", api), workspaceSize,
                      executor);
    if (R == 0 || (!gi && !gw && !gb))
        return finish(&pl, ACLNN_SUCCESS, workspaceSize, executor);
    uint64_t ow, ob, wp = 0;
    int64_t P = 0;
    const int cols = gw || gb;
    if (rows == 0) {
        /* No rows: the parameter gradients are sums over nothing. */
        wp = cannonExecutorReserveWorkspace(pl.e, (uint64_t)(2 * ((R + 15) / 16 * 16)) * sizeof(double));
        st = add_cols(&pl, wp, 0, gw, sgw, gb, sgb);
        if (st == ACLNN_SUCCESS)
            st = add_scatters(&pl);
        return finish(&pl, st, workspaceSize, executor);
    }
    if ((st = add_prep(&pl, weightOptional, sw, NULL, -1, &ow, &ob)) == ACLNN_SUCCESS &&
        (st = add_main(&pl, NL_LN_BWD, 0.0, input, sx, gradOut, sg, gi, sgi, mean, sm, rstd, sr, ow, ob, cols, &wp,
                       &P)) == ACLNN_SUCCESS &&
        (!cols || (st = add_cols(&pl, wp, P, gw, sgw, gb, sgb)) == ACLNN_SUCCESS))
        st = add_scatters(&pl);
    return finish(&pl, st, workspaceSize, executor);
}

static aclnnStatus gamma_dims(const char *api, const aclTensor *gamma, const cannon_tensor_view *vx, int64_t *k)
{
    cannon_tensor_view vg;
    if (!cannonTensorGetView(gamma, &vg))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: gamma is not a live aclTensor, or its view is too large", api);
    if (vg.ndim < 1 || vg.ndim > vx->ndim)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: gamma rank %lld must be in [1, rank(x)]", api,
                                 (long long)vg.ndim);
    *k = vg.ndim;
    return check_param(api, "gamma", gamma, vx, *k);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnRmsNormGetWorkspaceSize(const aclTensor *x, const aclTensor *gamma, double epsilon,
                                                             const aclTensor *yOut, const aclTensor *rstdOut,
                                                             uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *api = "aclnnRmsNorm";
    if (!x || !gamma || !yOut || !workspaceSize || !executor)
        return cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL", api,
                                 !x ? "x" : !gamma ? "gamma" : !yOut ? "yOut" : !workspaceSize ? "workspaceSize"
                                 : "executor");
    cannon_tensor_view vx;
    aclnnStatus st;
    int64_t k = 0;
    if ((st = check_x(api, "x", x, &vx)) != ACLNN_SUCCESS || (st = check_like(api, "yOut", yOut, &vx)) != ACLNN_SUCCESS ||
        (st = gamma_dims(api, gamma, &vx, &k)) != ACLNN_SUCCESS || (st = check_eps(api, epsilon)) != ACLNN_SUCCESS)
        return st;
    ln_plan pl;
    shape_rows(&pl, &vx, k);
    const int64_t rows = pl.rows, R = pl.R;
    if ((st = check_stat(api, "rstdOut", rstdOut, rows)) != ACLNN_SUCCESS)
        return st;
    if ((st = create(&pl, api)) != ACLNN_SUCCESS)
        return st;
    pl.rows = rows, pl.R = R, pl.dtype = nm_float_code(vx.dtype);
    int ok = 1;
    const int sx = add_io(pl.e, x, 0, &ok), sgm = add_io(pl.e, gamma, 0, &ok);
    const int sy = add_io(pl.e, yOut, 1, &ok), sr = add_io(pl.e, rstdOut, 1, &ok);
    if (!ok)
        return finish(&pl, cannonReportError(ACLNN_ERR_INNER_CREATE_EXECUTOR, "%s: out of memory", api), workspaceSize,
                      executor);
    if (rows * R == 0)
        return finish(&pl, ACLNN_SUCCESS, workspaceSize, executor);
    uint64_t ow, ob, wp = 0;
    int64_t P;
    if ((st = add_prep(&pl, gamma, sgm, NULL, -1, &ow, &ob)) == ACLNN_SUCCESS &&
        (st = add_main(&pl, NL_RMS_FWD, epsilon, x, sx, NULL, -1, yOut, sy, NULL, -1, rstdOut, sr, ow, ob, 0, &wp,
                       &P)) == ACLNN_SUCCESS)
        st = add_scatters(&pl);
    return finish(&pl, st, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnRmsNormGradGetWorkspaceSize(const aclTensor *dy, const aclTensor *x,
                                                                 const aclTensor *rstd, const aclTensor *gamma,
                                                                 const aclTensor *dxOut, const aclTensor *dgammaOut,
                                                                 uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *api = "aclnnRmsNormGrad";
    if (!dy || !x || !rstd || !gamma || !dxOut || !workspaceSize || !executor)
        return cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL", api,
                                 !dy ? "dy" : !x ? "x" : !rstd ? "rstd" : !gamma ? "gamma" : !dxOut ? "dxOut"
                                 : !workspaceSize ? "workspaceSize" : "executor");
    cannon_tensor_view vx;
    aclnnStatus st;
    int64_t k = 0;
    if ((st = check_x(api, "x", x, &vx)) != ACLNN_SUCCESS || (st = check_like(api, "dy", dy, &vx)) != ACLNN_SUCCESS ||
        (st = check_like(api, "dxOut", dxOut, &vx)) != ACLNN_SUCCESS ||
        (st = gamma_dims(api, gamma, &vx, &k)) != ACLNN_SUCCESS ||
        (st = check_param(api, "dgammaOut", dgammaOut, &vx, k)) != ACLNN_SUCCESS)
        return st;
    ln_plan pl;
    shape_rows(&pl, &vx, k);
    const int64_t rows = pl.rows, R = pl.R;
    if ((st = check_stat(api, "rstd", rstd, rows)) != ACLNN_SUCCESS)
        return st;
    if ((st = create(&pl, api)) != ACLNN_SUCCESS)
        return st;
    pl.rows = rows, pl.R = R, pl.dtype = nm_float_code(vx.dtype);
    int ok = 1;
    const int sdy = add_io(pl.e, dy, 0, &ok), sx = add_io(pl.e, x, 0, &ok), sr = add_io(pl.e, rstd, 0, &ok),
              sgm = add_io(pl.e, gamma, 0, &ok);
    const int sdx = add_io(pl.e, dxOut, 1, &ok), sdg = add_io(pl.e, dgammaOut, 1, &ok);
    if (!ok)
        return finish(&pl, cannonReportError(ACLNN_ERR_INNER_CREATE_EXECUTOR, "%s: out of memory", api), workspaceSize,
                      executor);
    if (R == 0)
        return finish(&pl, ACLNN_SUCCESS, workspaceSize, executor);
    uint64_t ow, ob, wp = 0;
    int64_t P = 0;
    const int cols = dgammaOut != NULL;
    if (rows == 0) {
        wp = cannonExecutorReserveWorkspace(pl.e, (uint64_t)(2 * ((R + 15) / 16 * 16)) * sizeof(double));
        st = cols ? add_cols(&pl, wp, 0, dgammaOut, sdg, NULL, -1) : ACLNN_SUCCESS;
        if (st == ACLNN_SUCCESS)
            st = add_scatters(&pl);
        return finish(&pl, st, workspaceSize, executor);
    }
    if ((st = add_prep(&pl, gamma, sgm, NULL, -1, &ow, &ob)) == ACLNN_SUCCESS &&
        (st = add_main(&pl, NL_RMS_BWD, 0.0, x, sx, dy, sdy, dxOut, sdx, NULL, -1, rstd, sr, ow, ob, cols, &wp, &P)) ==
            ACLNN_SUCCESS &&
        (!cols || (st = add_cols(&pl, wp, P, dgammaOut, sdg, NULL, -1)) == ACLNN_SUCCESS))
        st = add_scatters(&pl);
    return finish(&pl, st, workspaceSize, executor);
}

