/*
 * aclnnLayerNorm, aclnnLayerNormBackward, aclnnRmsNorm, aclnnRmsNormGrad, aclnnAddRmsNorm.
 *
 * Data are seen as (rows, R) with the normalised dims last and contiguous (strided views are
 * copied through the workspace). Forward: one tiered kernel, each unit a fixed run of rows; a row's
 * statistics (shifted single pass, exact fp64 squares) and its normalisation are done while the row
 * is in L1/L2, so the data are read once. Backward: each unit also accumulates its rows'
 * contributions to gradWeight/gradBias into its own fp64 column partials, which a second kernel
 * sums in unit order, so the result is independent of the thread count.
 * Weight/bias/gamma of any float dtype are first converted to fp32 arrays in the workspace.
 * AddRmsNorm is an elementwise kernel writing x1 + x2 (computed in fp32, rounded once to the
 * dtype) into xOut, or into the workspace when xOut is absent, followed by RmsNorm's kernel over
 * those values: its results are RmsNorm(Add(x1, x2)) bit for bit.
 */
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_add_rms_norm.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_rms_norm_grad.h"
#include "op_manifest.h"

#include "fp_convert.h"
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

/* sum = x1 + x2, elementwise over contiguous data, computed in fp32 and rounded once (fp32 holds
 * the exact sum closely enough that rounding it again to fp16/bf16 gives the correctly rounded
 * sum). Blocks of ADD_BLOCK elements. */
#define ADD_BLOCK ((int64_t)1 << 16)
typedef struct add_args {
    const void *x1, *x2;
    void *sum;
    int64_t n;
    int32_t dtype, pad;
} add_args;

static int add_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const add_args *a = (const add_args *)args;
    const int64_t i0 = (int64_t)ctx->block_idx * ADD_BLOCK;
    const int64_t i1 = i0 + ADD_BLOCK < a->n ? i0 + ADD_BLOCK : a->n;
    if (a->dtype == NM_F32) {
        const float *p = (const float *)a->x1, *q = (const float *)a->x2;
        float *s = (float *)a->sum;
        for (int64_t i = i0; i < i1; i++)
            s[i] = p[i] + q[i];
    } else if (a->dtype == NM_F16) {
        const uint16_t *p = (const uint16_t *)a->x1, *q = (const uint16_t *)a->x2;
        uint16_t *s = (uint16_t *)a->sum;
        for (int64_t i = i0; i < i1; i++)
            s[i] = cannon_f32_to_f16(cannon_f16_to_f32(p[i]) + cannon_f16_to_f32(q[i]));
    } else {
        const uint16_t *p = (const uint16_t *)a->x1, *q = (const uint16_t *)a->x2;
        uint16_t *s = (uint16_t *)a->sum;
        for (int64_t i = i0; i < i1; i++)
            s[i] = cannon_f32_to_bf16(cannon_bf16_to_f32(p[i]) + cannon_bf16_to_f32(q[i]));
    }
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
    cannon_op *op;
    int64_t rows, R;
    int dtype;
    int64_t es; /* bytes per element of x */
    int has_xref;       /* the main kernel reads x through xref, not a tensor slot */
    cannon_arg_ref xref;
} ln_plan;

/* Bind optional tensor @p t (slot @p slot) as a contiguous buffer at args offset @p off, appending
 * its ref; a strided output is scattered after the kernels (cannonOpFinish). */
static void bind_t(ln_plan *pl, const aclTensor *t, int slot, unsigned how, cannon_arg_ref *refs, size_t *n,
                   size_t off)
{
    if (t && cannonOpBind(pl->op, slot, how, (uint32_t)off, &refs[*n]))
        (*n)++;
}

/* The data tensor: a dtype of @p dts, rank 1 to 8. */
static bool check_x(cannon_op *op, cannon_dtype_set dts, const char *name, const aclTensor *t,
                    cannon_tensor_view *v)
{
    if (!cannonOpTensor(op, name, t, dts, v))
        return false;
    if (v->ndim < 1)
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s has 0 dims: it must be of rank 1 to 8", name);
    return true;
}

/* Another big tensor: the shape and dtype of @p vx (named @p xname). */
static bool check_like(cannon_op *op, cannon_dtype_set dts, const char *name, const aclTensor *t, const char *xname,
                       const cannon_tensor_view *vx)
{
    cannon_tensor_view v;
    return check_x(op, dts, name, t, &v) && cannonOpSameShape(op, name, &v, xname, vx) &&
           cannonOpSameDtype(op, name, &v, xname, vx);
}

/* An optional parameter shaped like the trailing @p k dims of x (weight, bias, gamma, their
 * gradients), any float dtype. */
static bool check_param(cannon_op *op, const char *name, const aclTensor *t, const cannon_tensor_view *vx, int64_t k)
{
    cannon_tensor_view v;
    if (!cannonOpTensorOpt(op, name, t, CANNON_DTS_F32_16, &v) || !t)
        return cannonOpOk(op);
    bool ok = v.ndim == k;
    for (int64_t i = 0; ok && i < k; i++)
        ok = v.shape[i] == vx->shape[vx->ndim - k + i];
    if (!ok) {
        char sh[200];
        cannonShapeFormat(&v, sh, sizeof sh);
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s shape %s must equal the normalized (trailing) dims",
                            name, sh);
    }
    return true;
}

/* An optional per-row statistics tensor: one value per row, any float dtype. */
static bool check_stat(cannon_op *op, const char *name, const aclTensor *t, int64_t rows)
{
    cannon_tensor_view v;
    if (!cannonOpTensorOpt(op, name, t, CANNON_DTS_F32_16, &v) || !t)
        return cannonOpOk(op);
    if (cannonTensorNumel(t) != rows)
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s must hold one value per row (%lld), not %lld", name,
                            (long long)rows, (long long)cannonTensorNumel(t));
    return true;
}

/* normalizedShape must equal the trailing dims of x; returns its length in *k. */
static bool check_norm_shape(cannon_op *op, const aclIntArray *ns, const cannon_tensor_view *vx, int64_t *k)
{
    if (!cannonOpOk(op))
        return false;
    uint64_t n = 0;
    const int64_t *d = cannonIntArrayData(ns, &n);
    if (!d || n == 0 || (int64_t)n > vx->ndim)
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "normalizedShape must have 1 to rank(input) = %lld dims",
                            (long long)vx->ndim);
    for (uint64_t i = 0; i < n; i++)
        if (d[i] != vx->shape[vx->ndim - (int64_t)n + (int64_t)i])
            return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "normalizedShape must equal the input's trailing dims");
    *k = (int64_t)n;
    return true;
}

/* gamma: rank 1 to rank(x), shaped like x's trailing dims; its rank in *k. */
static bool check_gamma(cannon_op *op, const aclTensor *gamma, const cannon_tensor_view *vx, int64_t *k)
{
    cannon_tensor_view vg;
    if (!cannonOpTensor(op, "gamma", gamma, CANNON_DTS_F32_16, &vg))
        return false;
    if (vg.ndim < 1 || vg.ndim > vx->ndim)
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "gamma rank %lld must be in [1, rank(x) = %lld]",
                            (long long)vg.ndim, (long long)vx->ndim);
    *k = vg.ndim;
    return check_param(op, "gamma", gamma, vx, *k);
}

/* The plan's shape: rows of R elements, R the product of x's trailing @p k dims. */
static void shape_rows(ln_plan *pl, cannon_op *op, const cannon_tensor_view *vx, int64_t k)
{
    memset(pl, 0, sizeof *pl);
    pl->op = op;
    if (!cannonOpOk(op))
        return;
    pl->R = 1;
    pl->rows = 1;
    for (int64_t i = 0; i < vx->ndim; i++) {
        if (i >= vx->ndim - k)
            pl->R *= vx->shape[i];
        else
            pl->rows *= vx->shape[i];
    }
    pl->dtype = nm_float_code(vx->dtype);
    pl->es = (int64_t)cannonDtypeSize(vx->dtype);
}

/* Convert w (and b) to fp32 workspace arrays; their workspace offsets in *ow, *ob (UINT64_MAX:
 * absent). */
static void add_prep(ln_plan *pl, const aclTensor *w, int sw, const aclTensor *b, int sb, uint64_t *ow, uint64_t *ob)
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
        bind_t(pl, t[k], s[k], CANNON_BIND_IN, refs, &n, offsetof(prep_args, src) + (size_t)k * sizeof(void *));
        cannonOpWorkspace(pl->op, (uint64_t)pl->R * sizeof(float), o[k]);
        refs[n++] = nm_ws_ref(*o[k], offsetof(prep_args, dst) + (size_t)k * sizeof(float *));
    }
    if (n)
        cannonOpKernel(pl->op, pl->op->api, prep_kernel, 1, &a, sizeof a, refs, n);
}

/* The main kernel. Forward: out = y, stats written to mean/rstd (optional). Backward: out = dx
 * (optional), g = dy, reads mean/rstd, column partials when cols (their workspace offset in
 * *ws_part, their unit count in *P). */
static void add_main(ln_plan *pl, int mode, double eps, const aclTensor *x, int sx, const aclTensor *g, int sg,
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
    a.nt = pl->rows * pl->R * pl->es >= NM_NT_BYTES;
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
    cannon_tensor_view vm = {0}, vr = {0};
    if (mean)
        cannonTensorGetView(mean, &vm);
    if (rstd)
        cannonTensorGetView(rstd, &vr);
    if (mean || rstd)
        a.stat_dtype = nm_float_code(mean ? vm.dtype : vr.dtype);
    if (mean && rstd)
        cannonOpSameDtype(pl->op, "rstd", &vr, "mean", &vm);
    cannon_arg_ref refs[10];
    size_t n = 0;
    if (pl->has_xref) {
        refs[n] = pl->xref;
        refs[n++].args_offset = (uint32_t)offsetof(nl_args, x);
    } else {
        bind_t(pl, x, sx, CANNON_BIND_IN, refs, &n, offsetof(nl_args, x));
    }
    bind_t(pl, g, sg, CANNON_BIND_IN, refs, &n, offsetof(nl_args, g));
    bind_t(pl, out, so, CANNON_BIND_OUT, refs, &n, offsetof(nl_args, out));
    bind_t(pl, mean, sm, bwd ? CANNON_BIND_IN : CANNON_BIND_OUT, refs, &n, offsetof(nl_args, mean));
    bind_t(pl, rstd, sr, bwd ? CANNON_BIND_IN : CANNON_BIND_OUT, refs, &n, offsetof(nl_args, rstd));
    if (ow != UINT64_MAX)
        refs[n++] = nm_ws_ref(ow, offsetof(nl_args, w));
    if (ob != UINT64_MAX)
        refs[n++] = nm_ws_ref(ob, offsetof(nl_args, b));
    if (cols) {
        const int64_t Rp = (pl->R + 15) / 16 * 16;
        /* [units][2][Rp] fp64 partials, then the kernel's [units][2][Rp] fp32 group sums. */
        cannonOpWorkspace(pl->op, (uint64_t)(a.units * 2 * Rp) * (sizeof(double) + sizeof(float)), ws_part);
        refs[n++] = nm_ws_ref(*ws_part, offsetof(nl_args, part));
    }
    cannonOpKernel(pl->op, pl->op->api, nm_ln_kernel, bd, &a, sizeof a, refs, n);
}

/* The column sums of the backward's partials into gw and gb (either may be NULL). */
static void add_cols(ln_plan *pl, uint64_t ws_part, int64_t P, const aclTensor *gw, int sgw, const aclTensor *gb,
                     int sgb)
{
    cols_args a;
    memset(&a, 0, sizeof a);
    a.P = P;
    a.R = pl->R;
    a.Rp = (pl->R + 15) / 16 * 16;
    cannon_arg_ref refs[3];
    size_t n = 0;
    refs[n++] = nm_ws_ref(ws_part, offsetof(cols_args, part));
    cannon_tensor_view v;
    if (gw) {
        cannonTensorGetView(gw, &v);
        a.dtw = nm_float_code(v.dtype);
        bind_t(pl, gw, sgw, CANNON_BIND_OUT, refs, &n, offsetof(cols_args, gw));
    }
    if (gb) {
        cannonTensorGetView(gb, &v);
        a.dtb = nm_float_code(v.dtype);
        bind_t(pl, gb, sgb, CANNON_BIND_OUT, refs, &n, offsetof(cols_args, gb));
    }
    const uint32_t bd = (uint32_t)((pl->R + COLS_CHUNK - 1) / COLS_CHUNK);
    cannonOpKernel(pl->op, pl->op->api, cols_kernel, bd ? bd : 1, &a, sizeof a, refs, n);
}

/* The column partials of no rows (sums over nothing); their workspace offset. */
static uint64_t ws_no_rows(ln_plan *pl)
{
    uint64_t wp = 0;
    cannonOpWorkspace(pl->op, (uint64_t)(2 * ((pl->R + 15) / 16 * 16)) * sizeof(double), &wp);
    return wp;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnLayerNormGetWorkspaceSize(const aclTensor *input, const aclIntArray *normalizedShape,
                                                               const aclTensor *weightOptional,
                                                               const aclTensor *biasOptional, double eps, aclTensor *out,
                                                               aclTensor *meanOutOptional, aclTensor *rstdOutOptional,
                                                               uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const cannon_dtype_set dts = cn_dts_LayerNorm();
    cannon_op op;
    cannon_tensor_view vx;
    int64_t k = 0;
    cannonOpBegin(&op, "aclnnLayerNorm", workspaceSize, executor);
    cannonOpNotNulls(&op, "input", input, "normalizedShape", normalizedShape, "out", out, NULL);
    check_x(&op, dts, "input", input, &vx);
    check_like(&op, dts, "out", out, "input", &vx);
    check_norm_shape(&op, normalizedShape, &vx, &k);
    nm_check_eps(&op, "eps", eps);
    check_param(&op, "weight", weightOptional, &vx, k);
    check_param(&op, "bias", biasOptional, &vx, k);
    ln_plan pl;
    shape_rows(&pl, &op, &vx, k);
    check_stat(&op, "meanOut", meanOutOptional, pl.rows);
    check_stat(&op, "rstdOut", rstdOutOptional, pl.rows);

    const int sx = cannonOpInput(&op, input), sw = nm_input(&op, weightOptional), sb = nm_input(&op, biasOptional);
    const int so = cannonOpOutput(&op, out), sm = nm_output(&op, meanOutOptional), sr = nm_output(&op, rstdOutOptional);
    if (cannonOpOk(&op) && pl.rows * pl.R != 0) {
        uint64_t ow, ob, wp = 0;
        int64_t P;
        add_prep(&pl, weightOptional, sw, biasOptional, sb, &ow, &ob);
        add_main(&pl, NL_LN_FWD, eps, input, sx, NULL, -1, out, so, meanOutOptional, sm, rstdOutOptional, sr, ow, ob, 0,
                 &wp, &P);
    }
    return cannonOpFinish(&op);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclIntArray *normalizedShape, const aclTensor *mean,
    const aclTensor *rstd, const aclTensor *weightOptional, const aclTensor *biasOptional, const aclBoolArray *outputMask,
    aclTensor *gradInputOut, aclTensor *gradWeightOut, aclTensor *gradBiasOut, uint64_t *workspaceSize,
    aclOpExecutor **executor)
{
    const cannon_dtype_set dts = cn_dts_LayerNormBackward();
    cannon_op op;
    cannon_tensor_view vx;
    int64_t k = 0;
    cannonOpBegin(&op, "aclnnLayerNormBackward", workspaceSize, executor);
    cannonOpNotNulls(&op, "gradOut", gradOut, "input", input, "normalizedShape", normalizedShape, "mean", mean, "rstd",
                     rstd, "outputMask", outputMask, NULL);
    /* The mask says which outputs must be there. */
    uint64_t nmask = 0;
    const bool *mask = cannonOpOk(&op) ? cannonBoolArrayData(outputMask, &nmask) : NULL;
    if (cannonOpOk(&op) && (!mask || nmask != 3))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "outputMask must hold 3 values");
    aclTensor *gi = cannonOpOk(&op) && mask[0] ? gradInputOut : NULL;
    aclTensor *gw = cannonOpOk(&op) && mask[1] ? gradWeightOut : NULL;
    aclTensor *gb = cannonOpOk(&op) && mask[2] ? gradBiasOut : NULL;
    if (cannonOpOk(&op) && mask[0])
        cannonOpNotNull(&op, "gradInputOut", gradInputOut);
    if (cannonOpOk(&op) && mask[1])
        cannonOpNotNull(&op, "gradWeightOut", gradWeightOut);
    if (cannonOpOk(&op) && mask[2])
        cannonOpNotNull(&op, "gradBiasOut", gradBiasOut);
    check_x(&op, dts, "input", input, &vx);
    check_like(&op, dts, "gradOut", gradOut, "input", &vx);
    if (gi)
        check_like(&op, dts, "gradInputOut", gi, "input", &vx);
    check_norm_shape(&op, normalizedShape, &vx, &k);
    check_param(&op, "weight", weightOptional, &vx, k);
    check_param(&op, "bias", biasOptional, &vx, k);
    check_param(&op, "gradWeightOut", gw, &vx, k);
    check_param(&op, "gradBiasOut", gb, &vx, k);
    ln_plan pl;
    shape_rows(&pl, &op, &vx, k);
    check_stat(&op, "mean", mean, pl.rows);
    check_stat(&op, "rstd", rstd, pl.rows);

    const int sg = cannonOpInput(&op, gradOut), sx = cannonOpInput(&op, input), sm = cannonOpInput(&op, mean);
    const int sr = cannonOpInput(&op, rstd), sw = nm_input(&op, weightOptional);
    (void)nm_input(&op, biasOptional); /* a slot in CANN's order; the gradients do not read it */
    const int sgi = nm_output(&op, gi), sgw = nm_output(&op, gw), sgb = nm_output(&op, gb);
    if (cannonOpOk(&op) && pl.R != 0 && (gi || gw || gb)) {
        const int cols = gw || gb;
        if (pl.rows == 0) {
            /* No rows: the parameter gradients are sums over nothing. */
            add_cols(&pl, ws_no_rows(&pl), 0, gw, sgw, gb, sgb);
        } else {
            uint64_t ow, ob, wp = 0;
            int64_t P = 0;
            add_prep(&pl, weightOptional, sw, NULL, -1, &ow, &ob);
            add_main(&pl, NL_LN_BWD, 0.0, input, sx, gradOut, sg, gi, sgi, mean, sm, rstd, sr, ow, ob, cols, &wp, &P);
            if (cols)
                add_cols(&pl, wp, P, gw, sgw, gb, sgb);
        }
    }
    return cannonOpFinish(&op);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnRmsNormGetWorkspaceSize(const aclTensor *x, const aclTensor *gamma, double epsilon,
                                                             const aclTensor *yOut, const aclTensor *rstdOut,
                                                             uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const cannon_dtype_set dts = cn_dts_RmsNorm();
    cannon_op op;
    cannon_tensor_view vx;
    int64_t k = 0;
    cannonOpBegin(&op, "aclnnRmsNorm", workspaceSize, executor);
    cannonOpNotNulls(&op, "x", x, "gamma", gamma, "yOut", yOut, NULL);
    check_x(&op, dts, "x", x, &vx);
    check_like(&op, dts, "yOut", yOut, "x", &vx);
    check_gamma(&op, gamma, &vx, &k);
    nm_check_eps(&op, "epsilon", epsilon);
    ln_plan pl;
    shape_rows(&pl, &op, &vx, k);
    check_stat(&op, "rstdOut", rstdOut, pl.rows);

    const int sx = cannonOpInput(&op, x), sgm = cannonOpInput(&op, gamma);
    const int sy = cannonOpOutput(&op, yOut), sr = nm_output(&op, rstdOut);
    if (cannonOpOk(&op) && pl.rows * pl.R != 0) {
        uint64_t ow, ob, wp = 0;
        int64_t P;
        add_prep(&pl, gamma, sgm, NULL, -1, &ow, &ob);
        add_main(&pl, NL_RMS_FWD, epsilon, x, sx, NULL, -1, yOut, sy, NULL, -1, rstdOut, sr, ow, ob, 0, &wp, &P);
    }
    return cannonOpFinish(&op);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnRmsNormGradGetWorkspaceSize(const aclTensor *dy, const aclTensor *x,
                                                                 const aclTensor *rstd, const aclTensor *gamma,
                                                                 const aclTensor *dxOut, const aclTensor *dgammaOut,
                                                                 uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const cannon_dtype_set dts = cn_dts_RmsNormGrad();
    cannon_op op;
    cannon_tensor_view vx;
    int64_t k = 0;
    cannonOpBegin(&op, "aclnnRmsNormGrad", workspaceSize, executor);
    cannonOpNotNulls(&op, "dy", dy, "x", x, "rstd", rstd, "gamma", gamma, "dxOut", dxOut, NULL);
    check_x(&op, dts, "x", x, &vx);
    check_like(&op, dts, "dy", dy, "x", &vx);
    check_like(&op, dts, "dxOut", dxOut, "x", &vx);
    check_gamma(&op, gamma, &vx, &k);
    check_param(&op, "dgammaOut", dgammaOut, &vx, k);
    ln_plan pl;
    shape_rows(&pl, &op, &vx, k);
    check_stat(&op, "rstd", rstd, pl.rows);

    const int sdy = cannonOpInput(&op, dy), sx = cannonOpInput(&op, x), sr = cannonOpInput(&op, rstd);
    const int sgm = cannonOpInput(&op, gamma);
    const int sdx = cannonOpOutput(&op, dxOut), sdg = nm_output(&op, dgammaOut);
    if (cannonOpOk(&op) && pl.R != 0) {
        const int cols = dgammaOut != NULL;
        if (pl.rows == 0) {
            const uint64_t wp = ws_no_rows(&pl);
            if (cols)
                add_cols(&pl, wp, 0, dgammaOut, sdg, NULL, -1);
        } else {
            uint64_t ow, ob, wp = 0;
            int64_t P = 0;
            add_prep(&pl, gamma, sgm, NULL, -1, &ow, &ob);
            add_main(&pl, NL_RMS_BWD, 0.0, x, sx, dy, sdy, dxOut, sdx, NULL, -1, rstd, sr, ow, ob, cols, &wp, &P);
            if (cols)
                add_cols(&pl, wp, P, dgammaOut, sdg, NULL, -1);
        }
    }
    return cannonOpFinish(&op);
}

/* AddRmsNorm's gamma: x1's trailing dims, with any leading size-1 dims dropped first (CANN's
 * [1, D] gamma); its normalised rank in *k. Any float dtype, as RmsNorm's. */
static bool check_gamma_lead1(cannon_op *op, const aclTensor *gamma, const cannon_tensor_view *vx, int64_t *k)
{
    cannon_tensor_view vg;
    if (!cannonOpTensor(op, "gamma", gamma, CANNON_DTS_F32_16, &vg))
        return false;
    int64_t lead = 0;
    while (lead + 1 < vg.ndim && vg.shape[lead] == 1)
        lead++;
    const int64_t r = vg.ndim - lead;
    bool ok = vg.ndim >= 1 && r <= vx->ndim;
    for (int64_t i = 0; ok && i < r; i++)
        ok = vg.shape[lead + i] == vx->shape[vx->ndim - r + i];
    if (!ok) {
        char sg[200], sx[200];
        cannonShapeFormat(&vg, sg, sizeof sg);
        cannonShapeFormat(vx, sx, sizeof sx);
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "gamma shape %s must equal trailing dims of x1 %s", sg, sx);
    }
    *k = r;
    return true;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnAddRmsNormGetWorkspaceSize(const aclTensor *x1, const aclTensor *x2,
                                                                const aclTensor *gamma, double epsilon, aclTensor *yOut,
                                                                aclTensor *rstdOut, aclTensor *xOut,
                                                                uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const cannon_dtype_set dts = cn_dts_AddRmsNorm();
    cannon_op op;
    cannon_tensor_view vx;
    int64_t k = 0;
    cannonOpBegin(&op, "aclnnAddRmsNorm", workspaceSize, executor);
    cannonOpNotNulls(&op, "x1", x1, "x2", x2, "gamma", gamma, "yOut", yOut, NULL);
    if (cannonOpOk(&op) && rstdOut && !xOut)
        cannonOpFail(&op, ACLNN_ERR_PARAM_NULLPTR, "xOut must not be NULL when rstdOut is given");
    check_x(&op, dts, "x1", x1, &vx);
    check_like(&op, dts, "x2", x2, "x1", &vx);
    check_like(&op, dts, "yOut", yOut, "x1", &vx);
    if (xOut)
        check_like(&op, dts, "xOut", xOut, "x1", &vx);
    check_gamma_lead1(&op, gamma, &vx, &k);
    nm_check_eps(&op, "epsilon", epsilon);
    ln_plan pl;
    shape_rows(&pl, &op, &vx, k);
    check_stat(&op, "rstdOut", rstdOut, pl.rows);

    const int s1 = cannonOpInput(&op, x1), s2 = cannonOpInput(&op, x2), sgm = cannonOpInput(&op, gamma);
    const int sy = cannonOpOutput(&op, yOut), sr = nm_output(&op, rstdOut), sxo = nm_output(&op, xOut);
    const int64_t numel = pl.rows * pl.R;
    if (cannonOpOk(&op) && numel != 0) {
        /* x = x1 + x2 into xOut (scattered after the kernels when strided) or the workspace. */
        add_args a;
        memset(&a, 0, sizeof a);
        a.n = numel;
        a.dtype = pl.dtype;
        cannon_arg_ref refs[3];
        size_t n = 0;
        bind_t(&pl, x1, s1, CANNON_BIND_IN, refs, &n, offsetof(add_args, x1));
        bind_t(&pl, x2, s2, CANNON_BIND_IN, refs, &n, offsetof(add_args, x2));
        if (xOut) {
            bind_t(&pl, xOut, sxo, CANNON_BIND_OUT, refs, &n, offsetof(add_args, sum));
        } else {
            uint64_t ws = 0;
            if (cannonOpWorkspace(&op, (uint64_t)(numel * pl.es), &ws))
                refs[n++] = nm_ws_ref(ws, offsetof(add_args, sum));
        }
        if (cannonOpOk(&op)) {
            pl.xref = refs[n - 1];
            pl.has_xref = 1;
        }
        cannonOpKernel(&op, op.api, add_kernel, (uint32_t)((numel + ADD_BLOCK - 1) / ADD_BLOCK), &a, sizeof a, refs,
                       n);
        uint64_t ow, ob, wp = 0;
        int64_t P;
        add_prep(&pl, gamma, sgm, NULL, -1, &ow, &ob);
        add_main(&pl, NL_RMS_FWD, epsilon, NULL, -1, NULL, -1, yOut, sy, NULL, -1, rstdOut, sr, ow, ob, 0, &wp, &P);
    }
    return cannonOpFinish(&op);
}
