/*
 * aclnnGroupedMatmulV3: y_e = x_e @ weight_e + bias_e over groups, on the float paths (FLOAT16,
 * BFLOAT16, FLOAT).
 *
 * Every scenario is reduced to a list of groups (gmm_grp): the operands' views (x, weight, bias, y),
 * and either a static row range of y (lists of x tensors) or a range read at run time from the
 * cumulative groupList:
 *  - groupType -1 (lists x, weight, y of one length): one launch per list entry, a single group
 *    whose x and y are bound contiguous (so an x of 2-D to 6-D is a (rows, k) matrix);
 *  - groupType 0 (M split, y one (m, n) tensor): single x with a 3-D weight (group e = its slice e)
 *    or a list of weights, group e owning rows [groupList[e-1], groupList[e]) of x and y; or a list
 *    of x tensors stacked into y's rows (groupList, when given, must repeat those bounds);
 *  - groupType 2 (K split): y (g, m, n), y[e] = x[:, ks] @ weight[ks, :], ks = the group's K range.
 * A launch's blocks are fixed tiles of GMM_TM rows by GMM_TN columns of y (times the groups for a K
 * split); a block finds the groups meeting its rows, and for each widens its rows of x and columns
 * of weight (strided views read in place) into its worker's scratch, GMM_KC values of K at a time,
 * multiplies them with the matmul family's single-threaded sgemm and adds the chunks in order.
 * Bias is added in fp32 and y rounded once. Tiles and chunks depend on the shape only, so results
 * are bit-identical for any worker count; no code here depends on the ISA tier.
 *
 * groupList values are device data: every block checks them (non-negative, non-decreasing, the last
 * at most the split dimension; for a list of x, equal to the stacked bounds) and fails the launch
 * with ACL_ERROR_RT_AICORE_EXCEPTION otherwise. Rows of y past the last group are not written.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_grouped_matmul_v3.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "fp_convert.h"
#include "mm_kernels.h"

#define GMM_MAX_LIST 128    /* tensors per list (CANN's limit) */
#define GMM_MAX_GROUPS 1024 /* groupList entries with a single weight tensor (CANN's limit) */
#define GMM_TM 64           /* rows of y per block */
#define GMM_TN 64           /* columns of y per block */
#define GMM_KC 256          /* K values per sgemm call */

enum { GMM_SPLIT_M = 0, GMM_SPLIT_K = 1 };

typedef struct gmm_grp {
    const void *x, *w, *b;
    void *y;
    int64_t xm, xk, wk, wn, bn, ym, yn; /* element strides */
    int64_t m0, m;                      /* static rows of y (list x), else unused */
} gmm_grp;

typedef struct gmm_args {
    const int64_t *gl;  /* groupList, NULL when absent */
    void *ws;
    int64_t mode, ng, M, N, K;
    int64_t tiles_m, tiles_n;
    int64_t static_rows; /* 1: groups' rows are m0/m (list x); 0: from groupList */
    int64_t nwork, scratch, ws_off;
    int32_t dt, bdt;     /* MM_F32..; bias dtype, -1 without bias */
    gmm_grp grp[];
} gmm_args;

static float gmm_ld(int dt, const void *p, int64_t i)
{
    const uint16_t *h = (const uint16_t *)p;
    return dt == MM_F32 ? ((const float *)p)[i] : dt == MM_F16 ? cannon_f16_to_f32(h[i]) : cannon_bf16_to_f32(h[i]);
}

/* dst (rows x cols, row-major) = the matrix at element @p base of @p p with strides (rs, cs), widened
 * to fp32 (exactly); the dtype is resolved once per call. */
static void gmm_widen(int dt, const void *p, int64_t base, int64_t rs, int64_t cs, int64_t rows, int64_t cols,
                      float *dst)
{
    if (dt == MM_F32) {
        const float *f = (const float *)p + base;
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++)
                dst[i * cols + j] = f[i * rs + j * cs];
    } else if (dt == MM_F16) {
        const uint16_t *h = (const uint16_t *)p + base;
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++)
                dst[i * cols + j] = cannon_f16_to_f32(h[i * rs + j * cs]);
    } else {
        const uint16_t *h = (const uint16_t *)p + base;
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++)
                dst[i * cols + j] = cannon_bf16_to_f32(h[i * rs + j * cs]);
    }
}

/* y's rows x cols at element @p base with strides (rs, cs) = src (row-major), rounded once. */
static void gmm_store(int dt, void *p, int64_t base, int64_t rs, int64_t cs, int64_t rows, int64_t cols,
                      const float *src)
{
    if (dt == MM_F32) {
        float *f = (float *)p + base;
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++)
                f[i * rs + j * cs] = src[i * cols + j];
    } else if (dt == MM_F16) {
        uint16_t *h = (uint16_t *)p + base;
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++)
                h[i * rs + j * cs] = cannon_f32_to_f16(src[i * cols + j]);
    } else {
        uint16_t *h = (uint16_t *)p + base;
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++)
                h[i * rs + j * cs] = cannon_f32_to_bf16(src[i * cols + j]);
    }
}

/* rows x cols of y at (yr, c0) = x rows from xr (K range [k0, k1)) @ weight columns from c0 + bias */
static void gmm_block(const gmm_args *g, const gmm_grp *p, float *scratch, int64_t xr, int64_t yr, int64_t rows,
                      int64_t c0, int64_t cols, int64_t k0, int64_t k1)
{
    float *wa = scratch, *wb = wa + GMM_TM * GMM_KC, *tc = wb + GMM_KC * GMM_TN, *acc = tc + GMM_TM * GMM_TN;
    for (int64_t i = 0; i < rows * cols; i++)
        acc[i] = 0.0f;
    for (int64_t kb = k0; kb < k1; kb += GMM_KC) {
        const int64_t kc = k1 - kb < GMM_KC ? k1 - kb : GMM_KC;
        gmm_widen(g->dt, p->x, xr * p->xm + kb * p->xk, p->xm, p->xk, rows, kc, wa);
        gmm_widen(g->dt, p->w, kb * p->wk + c0 * p->wn, p->wk, p->wn, kc, cols, wb);
        cannon_mm_sgemm(0, 0, rows, cols, kc, wa, kc, wb, cols, tc, cols);
        for (int64_t i = 0; i < rows * cols; i++)
            acc[i] += tc[i];
    }
    if (g->bdt >= 0) {
        float bias[GMM_TN];
        for (int64_t j = 0; j < cols; j++)
            bias[j] = gmm_ld(g->bdt, p->b, (c0 + j) * p->bn);
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++)
                acc[i * cols + j] += bias[j];
    }
    gmm_store(g->dt, p->y, yr * p->ym + c0 * p->yn, p->ym, p->yn, rows, cols, acc);
}

/* Check groupList against the split size @p size (and, for a list of x, the stacked bounds). */
static int gmm_check_gl(const cannon_kernel_ctx *ctx, const gmm_args *g, int64_t size)
{
    int64_t prev = 0;
    for (int64_t e = 0; e < g->ng; e++) {
        const int64_t v = g->gl[e];
        if (v < prev || v > size)
            return cannonKernelReportError(ctx, ACL_ERROR_RT_AICORE_EXCEPTION,
                                           "aclnnGroupedMatmulV3: groupListOptional[%lld] = %lld: values must be "
                                           "non-decreasing in [0, %lld]",
                                           (long long)e, (long long)v, (long long)size);
        if (g->static_rows && v != g->grp[e].m0 + g->grp[e].m)
            return cannonKernelReportError(ctx, ACL_ERROR_RT_AICORE_EXCEPTION,
                                           "aclnnGroupedMatmulV3: groupListOptional[%lld] = %lld, but the x tensors "
                                           "up to x[%lld] hold %lld rows",
                                           (long long)e, (long long)v, (long long)e,
                                           (long long)(g->grp[e].m0 + g->grp[e].m));
        prev = v;
    }
    return 0;
}

static int gmm_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const gmm_args *g = (const gmm_args *)args;
    if (ctx->worker_id >= (uint32_t)g->nwork)
        return cannonKernelReportError(ctx, ACL_ERROR_RT_PARAM_INVALID,
                                       "aclnnGroupedMatmulV3: worker %u beyond the %lld planned", ctx->worker_id,
                                       (long long)g->nwork);
    if (g->gl) {
        const int rc = gmm_check_gl(ctx, g, g->mode == GMM_SPLIT_K ? g->K : g->M);
        if (rc)
            return rc;
    }
    cannon_mm_blas_one_thread();
    float *scratch = (float *)(void *)((char *)g->ws + g->ws_off + (int64_t)ctx->worker_id * g->scratch);
    int64_t blk = ctx->block_idx;
    const int64_t tn = blk % g->tiles_n;
    blk /= g->tiles_n;
    const int64_t tm = blk % g->tiles_m, ge = blk / g->tiles_m;
    const int64_t c0 = tn * GMM_TN, cols = g->N - c0 < GMM_TN ? g->N - c0 : GMM_TN;
    const int64_t r0 = tm * GMM_TM, r1 = r0 + GMM_TM < g->M ? r0 + GMM_TM : g->M;
    if (cols <= 0 || r1 <= r0)
        return 0;
    if (g->mode == GMM_SPLIT_K) {
        const int64_t k0 = ge ? g->gl[ge - 1] : 0, k1 = g->gl[ge];
        gmm_block(g, &g->grp[ge], scratch, r0, r0, r1 - r0, c0, cols, k0, k1);
        return 0;
    }
    for (int64_t e = 0; e < g->ng; e++) {
        const gmm_grp *p = &g->grp[e];
        const int64_t s = g->static_rows ? p->m0 : e ? g->gl[e - 1] : 0;
        const int64_t t = g->static_rows ? p->m0 + p->m : g->gl[e];
        const int64_t a = s > r0 ? s : r0, b = t < r1 ? t : r1;
        if (a >= b)
            continue;
        /* a list x is indexed from its own first row; a single x shares y's rows */
        gmm_block(g, p, scratch, g->static_rows ? a - s : a, a, b - a, c0, cols, 0, g->K);
    }
    return 0;
}

/* ---- phase 1 ------------------------------------------------------------------------------- */

static const char *const API = "aclnnGroupedMatmulV3";

static int gmm_dt(aclDataType t)
{
    return t == ACL_FLOAT ? MM_F32 : t == ACL_FLOAT16 ? MM_F16 : MM_BF16;
}

/* The length of list @p l (NULL: -1); 161002 when not a live list or longer than GMM_MAX_LIST. */
static int64_t list_len(cannon_op *op, const char *name, const aclTensorList *l)
{
    uint64_t n = 0;
    if (!l || !cannonOpOk(op))
        return -1;
    if (aclGetTensorListSize(l, &n) != ACLNN_SUCCESS) {
        cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s is not a live aclTensorList", name);
        return -1;
    }
    if (n > GMM_MAX_LIST) {
        cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s holds %llu tensors: at most %d are accepted", name,
                     (unsigned long long)n, GMM_MAX_LIST);
        return -1;
    }
    return (int64_t)n;
}

/* Check every element of list @p l (length n) against @p dts into v[]. */
static void list_views(cannon_op *op, const char *name, const aclTensorList *l, int64_t n, cannon_dtype_set dts,
                       cannon_tensor_view *v)
{
    char nm[48];
    for (int64_t i = 0; i < n && cannonOpOk(op); i++) {
        snprintf(nm, sizeof nm, "%s[%lld]", name, (long long)i);
        cannonOpTensor(op, nm, cannonTensorListGet(l, (uint64_t)i), dts, &v[i]);
    }
}

/* Record the launch of @p a (complete but for its tiles and the bound pointers, whose references
 * are refs[0..nrefs)); the scratch (one reservation shared by every launch) is in a's nwork,
 * scratch and ws_off. */
static void record(cannon_op *op, gmm_args *a, size_t asize, const cannon_arg_ref *refs, size_t nrefs)
{
    if (!cannonOpOk(op))
        return;
    a->tiles_m = (a->M + GMM_TM - 1) / GMM_TM;
    a->tiles_n = (a->N + GMM_TN - 1) / GMM_TN;
    if (a->tiles_m == 0 || a->tiles_n == 0)
        return; /* nothing of y to write */
    const int64_t blocks = a->tiles_m * a->tiles_n * (a->mode == GMM_SPLIT_K ? a->ng : 1);
    if (blocks > UINT32_MAX) {
        cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "the product needs %lld tiles: too many", (long long)blocks);
        return;
    }
    cannonOpKernel(op, "grouped_matmul_v3", gmm_kernel, (uint32_t)blocks, a, asize, refs, nrefs);
}

/* Reserve the per-worker scratch once for the whole plan. */
static void plan_scratch(cannon_op *op, int64_t *nwork, int64_t *scratch, int64_t *ws_off)
{
    const uint32_t w = cannonGetWorkerCount();
    uint64_t off = 0;
    *nwork = w > 0 ? (int64_t)w : 1;
    *scratch = (int64_t)((2 * GMM_TM * GMM_KC + 2 * GMM_TM * GMM_TN) * sizeof(float));
    cannonOpWorkspace(op, (uint64_t)(*nwork * *scratch), &off);
    *ws_off = (int64_t)off;
    cannon_mm_blas_one_thread();
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnGroupedMatmulV3GetWorkspaceSize(
    const aclTensorList *x, const aclTensorList *weight, const aclTensorList *biasOptional,
    const aclTensorList *scaleOptional, const aclTensorList *offsetOptional,
    const aclTensorList *antiquantScaleOptional, const aclTensorList *antiquantOffsetOptional,
    const aclTensor *groupListOptional, int64_t splitItem, int64_t groupType, const aclTensorList *y,
    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    cannon_op op;
    cannonOpBegin(&op, API, workspaceSize, executor);
    cannonOpNotNulls(&op, "x", x, "weight", weight, "y", y, NULL);
    const int64_t nx = list_len(&op, "x", x), nw = list_len(&op, "weight", weight), ny = list_len(&op, "y", y);
    const int64_t nb = list_len(&op, "biasOptional", biasOptional);
    /* NULL elements: weight never; x and y in pairs (CANN's 161001 cases) */
    for (int64_t i = 0; cannonOpOk(&op) && i < nw; i++)
        if (!cannonTensorListGet(weight, (uint64_t)i))
            cannonOpFail(&op, ACLNN_ERR_PARAM_NULLPTR, "weight[%lld] is NULL", (long long)i);
    for (int64_t i = 0; cannonOpOk(&op) && i < nx; i++)
        if (!cannonTensorListGet(x, (uint64_t)i))
            cannonOpFail(&op, ACLNN_ERR_PARAM_NULLPTR, "x[%lld] is NULL", (long long)i);
    for (int64_t i = 0; cannonOpOk(&op) && i < ny; i++)
        if (!cannonTensorListGet(y, (uint64_t)i))
            cannonOpFail(&op, ACLNN_ERR_PARAM_NULLPTR, "y[%lld] is NULL", (long long)i);
    for (int64_t i = 0; cannonOpOk(&op) && i < nb; i++)
        if (!cannonTensorListGet(biasOptional, (uint64_t)i))
            cannonOpFail(&op, ACLNN_ERR_PARAM_NULLPTR, "biasOptional[%lld] is NULL", (long long)i);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    /* the quantised and antiquant scenarios are not implemented */
    const struct { const char *name; const aclTensorList *l; } quant[] = {
        {"scaleOptional", scaleOptional}, {"offsetOptional", offsetOptional},
        {"antiquantScaleOptional", antiquantScaleOptional}, {"antiquantOffsetOptional", antiquantOffsetOptional}};
    for (size_t i = 0; i < sizeof quant / sizeof quant[0] && cannonOpOk(&op); i++)
        if (list_len(&op, quant[i].name, quant[i].l) > 0)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID,
                         "%s is given: the quantised and antiquant scenarios are not supported (float x, weight "
                         "and y only)", quant[i].name);
    if (cannonOpOk(&op) && (nx == 0 || nw == 0 || ny == 0))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "x, weight and y must hold at least one tensor (%lld, %lld, %lld)",
                     (long long)nx, (long long)nw, (long long)ny);
    if (cannonOpOk(&op) && (splitItem < 0 || splitItem > 3))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "splitItem %lld is not 0, 1, 2 or 3", (long long)splitItem);
    if (cannonOpOk(&op) && groupType != -1 && groupType != 0 && groupType != 2)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID,
                     "groupType %lld is not supported: -1 (none), 0 (M axis) or 2 (K axis)", (long long)groupType);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);

    cannon_tensor_view vx[GMM_MAX_LIST], vw[GMM_MAX_LIST], vy[GMM_MAX_LIST], vb[GMM_MAX_LIST], vg;
    const cannon_dtype_set fl = CANNON_DTS_F32_16;
    list_views(&op, "x", x, nx, fl | CANNON_DT_I8, vx);
    list_views(&op, "weight", weight, nw, fl | CANNON_DT_I8 | CANNON_DT(ACL_INT4), vw);
    list_views(&op, "y", y, ny, fl | CANNON_DT_I8, vy);
    list_views(&op, "biasOptional", biasOptional, nb, CANNON_DT_F16 | CANNON_DT_F32 | CANNON_DT_I32, vb);
    cannonOpTensorOpt(&op, "groupListOptional", groupListOptional, CANNON_DT_I64, &vg);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const aclDataType dt = vx[0].dtype;
    if (dt == ACL_INT8)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "x is INT8: the quantised scenario is not supported");
    for (int64_t i = 0; i < nw && cannonOpOk(&op); i++)
        if (vw[i].dtype == ACL_INT8 || vw[i].dtype == ACL_INT4)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "weight[%lld] is %s: the antiquant scenario is not supported",
                         (long long)i, cannonDtypeName(vw[i].dtype));
    char nm[48];
    for (int64_t i = 0; i < nx && cannonOpOk(&op); i++)
        if (vx[i].dtype != dt)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "x[%lld] is %s, x[0] %s", (long long)i,
                         cannonDtypeName(vx[i].dtype), cannonDtypeName(dt));
    for (int64_t i = 0; i < nw && cannonOpOk(&op); i++)
        if (vw[i].dtype != dt)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "weight[%lld] is %s, x %s (x, weight and y share a dtype)",
                         (long long)i, cannonDtypeName(vw[i].dtype), cannonDtypeName(dt));
    for (int64_t i = 0; i < ny && cannonOpOk(&op); i++)
        if (vy[i].dtype != dt)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "y[%lld] is %s, x %s (x, weight and y share a dtype)",
                         (long long)i, cannonDtypeName(vy[i].dtype), cannonDtypeName(dt));
    const aclDataType bdt = dt == ACL_FLOAT16 ? ACL_FLOAT16 : ACL_FLOAT;
    for (int64_t i = 0; i < nb && cannonOpOk(&op); i++)
        if (vb[i].dtype != bdt)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "biasOptional[%lld] is %s: x %s takes a %s bias", (long long)i,
                         cannonDtypeName(vb[i].dtype), cannonDtypeName(dt), cannonDtypeName(bdt));
    if (cannonOpOk(&op) && dt == ACL_FLOAT && (nx != 1 || nw != 1 || ny != 1))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID,
                     "FLOAT needs x, weight and y to be single tensors (lists of %lld, %lld and %lld)", (long long)nx,
                     (long long)nw, (long long)ny);
    if (cannonOpOk(&op) && nb > 0 && nb != nw)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "biasOptional holds %lld tensors, weight %lld", (long long)nb,
                     (long long)nw);
    if (cannonOpOk(&op) && vg.ndim >= 0 && vg.ndim != 1)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "groupListOptional must be 1-D (got %lld-D)", (long long)vg.ndim);
    if (cannonOpOk(&op) && groupType == -1) {
        if (splitItem > 1)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "groupType -1 needs splitItem 0 or 1 (got %lld)",
                         (long long)splitItem);
        else if (vg.ndim >= 0)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "groupType -1 takes no groupListOptional");
        else if (nx != nw || ny != nw)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID,
                         "groupType -1 needs x, weight and y lists of one length (%lld, %lld, %lld)", (long long)nx,
                         (long long)nw, (long long)ny);
    } else if (cannonOpOk(&op)) {
        if (splitItem < 2)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "groupType %lld needs splitItem 2 or 3 (got %lld)",
                         (long long)groupType, (long long)splitItem);
        else if (ny != 1)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "splitItem %lld needs y to hold one tensor (got %lld)",
                         (long long)splitItem, (long long)ny);
    }
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);

    /* ---- shapes, per scenario; the groups' count ng ---- */
    int64_t ng = 0, M = 0, N = 0, K = 0;
    if (groupType == -1) {
        ng = 1; /* per launch */
        for (int64_t i = 0; i < nx && cannonOpOk(&op); i++) {
            snprintf(nm, sizeof nm, "x[%lld]", (long long)i);
            if (vx[i].ndim < 2 || vx[i].ndim > 6) {
                cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%s must be 2-D to 6-D (got %lld-D)", nm,
                             (long long)vx[i].ndim);
                break;
            }
            if (vw[i].ndim != 2) {
                cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "weight[%lld] must be 2-D (k, n) (got %lld-D)",
                             (long long)i, (long long)vw[i].ndim);
                break;
            }
            if (vw[i].shape[0] != vx[i].shape[vx[i].ndim - 1]) {
                cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "weight[%lld] has k = %lld, x[%lld] %lld", (long long)i,
                             (long long)vw[i].shape[0], (long long)i, (long long)vx[i].shape[vx[i].ndim - 1]);
                break;
            }
            int64_t ys[8];
            memcpy(ys, vx[i].shape, (size_t)vx[i].ndim * sizeof ys[0]);
            ys[vx[i].ndim - 1] = vw[i].shape[1];
            snprintf(nm, sizeof nm, "y[%lld]", (long long)i);
            cannonOpShapeIs(&op, nm, &vy[i], vx[i].ndim, ys);
            if (nb > 0) {
                snprintf(nm, sizeof nm, "biasOptional[%lld]", (long long)i);
                cannonOpShapeIs(&op, nm, &vb[i], 1, &vw[i].shape[1]);
            }
        }
    } else if (groupType == 0) {
        if (vy[0].ndim != 2)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "y must be 2-D (m, n) (got %lld-D)", (long long)vy[0].ndim);
        if (cannonOpOk(&op)) {
            M = vy[0].shape[0];
            N = vy[0].shape[1];
        }
        for (int64_t i = 0; i < nx && cannonOpOk(&op); i++)
            if (vx[i].ndim != 2)
                cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "x[%lld] must be 2-D (got %lld-D)", (long long)i,
                             (long long)vx[i].ndim);
        if (cannonOpOk(&op))
            K = vx[0].shape[1];
        const bool w3 = nw == 1 && vw[0].ndim == 3;
        if (cannonOpOk(&op) && w3) {
            if (nx != 1)
                cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "a single 3-D weight needs a single x (got %lld)",
                             (long long)nx);
            ng = vw[0].shape[0];
            const int64_t ws[3] = {ng, K, N};
            cannonOpShapeIs(&op, "weight[0]", &vw[0], 3, ws);
            if (cannonOpOk(&op) && nb > 0) {
                const int64_t bs[2] = {ng, N};
                cannonOpShapeIs(&op, "biasOptional[0]", &vb[0], 2, bs);
            }
        } else if (cannonOpOk(&op)) {
            ng = nw;
            if (nx != 1 && nx != nw)
                cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "x holds %lld tensors, weight %lld (1 or as many)",
                             (long long)nx, (long long)nw);
            int64_t rows = 0;
            for (int64_t i = 0; i < nw && cannonOpOk(&op); i++) {
                const int64_t ws[2] = {K, N};
                snprintf(nm, sizeof nm, "weight[%lld]", (long long)i);
                cannonOpShapeIs(&op, nm, &vw[i], 2, ws);
                if (nx > 1 && cannonOpOk(&op)) {
                    snprintf(nm, sizeof nm, "x[%lld]", (long long)i);
                    if (vx[i].shape[1] != K)
                        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%s has k = %lld, x[0] %lld", nm,
                                     (long long)vx[i].shape[1], (long long)K);
                    rows += vx[i].shape[0];
                }
                if (nb > 0 && cannonOpOk(&op)) {
                    snprintf(nm, sizeof nm, "biasOptional[%lld]", (long long)i);
                    cannonOpShapeIs(&op, nm, &vb[i], 1, &N);
                }
            }
            if (cannonOpOk(&op) && nx > 1 && rows != M)
                cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "the x tensors hold %lld rows, y %lld", (long long)rows,
                             (long long)M);
        }
        if (cannonOpOk(&op) && nx == 1) {
            const int64_t xs[2] = {M, K};
            cannonOpShapeIs(&op, "x[0]", &vx[0], 2, xs);
            if (cannonOpOk(&op) && vg.ndim < 0)
                cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "groupListOptional is required with a single x");
        }
        if (cannonOpOk(&op) && vg.ndim >= 0 && vg.shape[0] != ng)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "groupListOptional holds %lld values for %lld groups",
                         (long long)vg.shape[0], (long long)ng);
    } else { /* groupType 2 */
        if (nx != 1 || nw != 1)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "groupType 2 needs single x and weight (lists of %lld, %lld)",
                         (long long)nx, (long long)nw);
        else if (vg.ndim < 0)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "groupType 2 needs groupListOptional");
        else if (nb > 0)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "biasOptional is not supported with groupType 2");
        else if (vx[0].ndim != 2 || vw[0].ndim != 2)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "groupType 2 needs a 2-D x and weight (got %lld-D, %lld-D)",
                         (long long)vx[0].ndim, (long long)vw[0].ndim);
        if (cannonOpOk(&op)) {
            M = vx[0].shape[0];
            K = vx[0].shape[1];
            N = vw[0].shape[1];
            ng = vg.shape[0];
            if (vw[0].shape[0] != K)
                cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "weight has k = %lld, x %lld", (long long)vw[0].shape[0],
                             (long long)K);
            const int64_t ys[3] = {ng, M, N};
            cannonOpShapeIs(&op, "y[0]", &vy[0], 3, ys);
        }
    }
    if (cannonOpOk(&op) && (ng < 1 || ng > GMM_MAX_GROUPS))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%lld groups: 1 to %d are accepted", (long long)ng, GMM_MAX_GROUPS);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);

    /* ---- slots in CANN's order ---- */
    int sx[GMM_MAX_LIST], sw[GMM_MAX_LIST], sb[GMM_MAX_LIST], sy[GMM_MAX_LIST];
    for (int64_t i = 0; i < nx; i++)
        sx[i] = cannonOpInput(&op, cannonTensorListGet(x, (uint64_t)i));
    for (int64_t i = 0; i < nw; i++)
        sw[i] = cannonOpInput(&op, cannonTensorListGet(weight, (uint64_t)i));
    for (int64_t i = 0; i < nb; i++)
        sb[i] = cannonOpInput(&op, cannonTensorListGet(biasOptional, (uint64_t)i));
    const int sg = vg.ndim >= 0 ? cannonOpInput(&op, groupListOptional) : -1;
    for (int64_t i = 0; i < ny; i++)
        sy[i] = cannonOpOutput(&op, cannonTensorListGet(y, (uint64_t)i));

    const size_t asize = sizeof(gmm_args) + (size_t)ng * sizeof(gmm_grp);
    gmm_args *a = calloc(1, asize);
    cannon_arg_ref *refs = calloc((size_t)ng * 4 + 2, sizeof *refs);
    if (!a || !refs) {
        free(a);
        free(refs);
        cannonOpFail(&op, ACLNN_ERR_INNER_CREATE_EXECUTOR, "out of memory");
        return cannonOpFinish(&op);
    }
    const int64_t es = (int64_t)cannonDtypeSize(dt), bes = (int64_t)cannonDtypeSize(bdt);
    int64_t nwork = 1, scratch = 0, ws_off = 0;
    plan_scratch(&op, &nwork, &scratch, &ws_off);
#define GRP_OFF(e, field) ((uint32_t)(offsetof(gmm_args, grp) + (size_t)(e) * sizeof(gmm_grp) + offsetof(gmm_grp, field)))

    if (groupType == -1) {
        /* one launch per list entry: x and y bound contiguous, (rows, k) and (rows, n) */
        for (int64_t i = 0; i < nx && cannonOpOk(&op); i++) {
            memset(a, 0, asize);
            gmm_grp *p = &a->grp[0];
            size_t nr = 0;
            const int64_t k = vw[i].shape[0], n = vw[i].shape[1];
            int64_t rows = 1;
            for (int64_t d = 0; d + 1 < vx[i].ndim; d++)
                rows *= vx[i].shape[d];
            a->nwork = nwork;
            a->scratch = scratch;
            a->ws_off = ws_off;
            a->mode = GMM_SPLIT_M;
            a->ng = 1;
            a->M = rows;
            a->N = n;
            a->K = k;
            a->static_rows = 1;
            a->dt = (int32_t)gmm_dt(dt);
            a->bdt = nb > 0 ? (int32_t)gmm_dt(bdt) : -1;
            p->m0 = 0;
            p->m = rows;
            p->xm = k;
            p->xk = 1;
            p->wk = vw[i].strides[0];
            p->wn = vw[i].strides[1];
            p->ym = n;
            p->yn = 1;
            cannonOpBind(&op, sx[i], CANNON_BIND_IN, GRP_OFF(0, x), &refs[nr++]);
            cannonOpBindView(&op, sw[i], GRP_OFF(0, w), &refs[nr++]);
            if (nb > 0) {
                cannonOpBindView(&op, sb[i], GRP_OFF(0, b), &refs[nr++]);
                p->bn = vb[i].strides[0];
            }
            cannonOpBind(&op, sy[i], CANNON_BIND_OUT, GRP_OFF(0, y), &refs[nr++]);
            refs[nr].args_offset = (uint32_t)offsetof(gmm_args, ws);
            refs[nr].slot = CANNON_SLOT_WORKSPACE;
            refs[nr++].byte_offset = 0;
            if (rows == 0 || n == 0)
                continue; /* an empty y: nothing to compute (an empty k gives bias or zeros) */
            record(&op, a, asize, refs, nr);
        }
    } else {
        size_t nr = 0;
        a->nwork = nwork;
        a->scratch = scratch;
        a->ws_off = ws_off;
        a->mode = groupType == 2 ? GMM_SPLIT_K : GMM_SPLIT_M;
        a->ng = ng;
        a->M = M;
        a->N = N;
        a->K = K;
        a->static_rows = groupType == 0 && nx > 1;
        a->dt = (int32_t)gmm_dt(dt);
        a->bdt = nb > 0 ? (int32_t)gmm_dt(bdt) : -1;
        const bool w3 = groupType == 0 && nw == 1 && vw[0].ndim == 3;
        int64_t row = 0;
        for (int64_t e = 0; e < ng && cannonOpOk(&op); e++) {
            gmm_grp *p = &a->grp[e];
            const int64_t xi = nx > 1 ? e : 0, wi = nw > 1 ? e : 0;
            p->xm = vx[xi].strides[0];
            p->xk = vx[xi].strides[1];
            if (a->static_rows) {
                p->m0 = row;
                p->m = vx[e].shape[0];
                row += p->m;
            }
            cannonOpBindView(&op, sx[xi], GRP_OFF(e, x), &refs[nr++]);
            cannonOpBindView(&op, sw[wi], GRP_OFF(e, w), &refs[nr]);
            if (w3) {
                refs[nr].byte_offset += e * vw[0].strides[0] * es;
                p->wk = vw[0].strides[1];
                p->wn = vw[0].strides[2];
            } else {
                p->wk = vw[wi].strides[0];
                p->wn = vw[wi].strides[1];
            }
            nr++;
            if (nb > 0) {
                cannonOpBindView(&op, sb[wi], GRP_OFF(e, b), &refs[nr]);
                if (w3) {
                    refs[nr].byte_offset += e * vb[0].strides[0] * bes;
                    p->bn = vb[0].strides[1];
                } else {
                    p->bn = vb[wi].strides[0];
                }
                nr++;
            }
            cannonOpBindView(&op, sy[0], GRP_OFF(e, y), &refs[nr]);
            if (groupType == 2) {
                refs[nr].byte_offset += e * vy[0].strides[0] * es;
                p->ym = vy[0].strides[1];
                p->yn = vy[0].strides[2];
            } else {
                p->ym = vy[0].strides[0];
                p->yn = vy[0].strides[1];
            }
            nr++;
        }
        if (sg >= 0)
            cannonOpBind(&op, sg, CANNON_BIND_IN, (uint32_t)offsetof(gmm_args, gl), &refs[nr++]);
        refs[nr].args_offset = (uint32_t)offsetof(gmm_args, ws);
        refs[nr].slot = CANNON_SLOT_WORKSPACE;
        refs[nr++].byte_offset = 0;
        record(&op, a, asize, refs, nr);
    }
#undef GRP_OFF
    free(a);
    free(refs);
    return cannonOpFinish(&op);
}
