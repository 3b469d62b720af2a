/*
 * aclnnTriangularSolve: X = op(A)^-1 b for a triangular A (torch.triangular_solve semantics).
 *
 * Plan: the batch dims of self (b, [..., m, k]) and A ([..., m, m]) broadcast; every operand is
 * read and written in place through its strides (BindView), so transposed, sliced and broadcast
 * views cost no copy. Two launches:
 *  - solve: one block per (batch, chunk of TS_KC right-hand-side columns). The columns of b are
 *    independent systems, so the block loads its chunk into its worker's scratch in double,
 *    substitutes row by row (forward for an effectively lower op(A), backward for an upper one:
 *    x[i] = (b[i] - sum over the solved rows p of op(A)[i][p] * x[p]) / op(A)[i][i], p in
 *    ascending distance order from the start of the substitution) and writes the chunk rounded
 *    once to the output dtype. The split and the order depend on the shape only: results are
 *    bit-identical for any worker count. A zero diagonal divides by zero (inf, then NaN where
 *    infinities meet), as torch's BLAS solve does; nothing traps.
 *  - copy: one block per batch writes the broadcast A into mOut (torch returns that copy too).
 */
#include <stdint.h>
#include <string.h>

#include "aclnnop/aclnn_triangular_solve.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#define TS_MAX_BATCH 6
#define TS_KC 64 /* right-hand-side columns per block */

typedef struct ts_args {
    const void *a, *b;
    void *x, *mo;
    void *ws;
    int64_t m, k;
    int64_t nbatch, bnd;
    int64_t bshape[TS_MAX_BATCH];
    int64_t bst[4][TS_MAX_BATCH]; /* batch strides of x, mOut, b, A (elements; 0 where broadcast) */
    int64_t bm, bk, am, an, xm, xk, mm, mn;
    int64_t nchunk, nwork, scratch, ws_off;
    int32_t f64, upper, trans, unit;
} ts_args;

static void ts_offsets(const ts_args *g, int64_t bi, int64_t off[4])
{
    off[0] = off[1] = off[2] = off[3] = 0;
    for (int64_t d = g->bnd - 1; d >= 0; d--) {
        const int64_t i = bi % g->bshape[d];
        bi /= g->bshape[d];
        for (int j = 0; j < 4; j++)
            off[j] += i * g->bst[j][d];
    }
}

static double ts_ld(const ts_args *g, const void *p, int64_t i)
{
    return g->f64 ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

static int ts_solve_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const ts_args *g = (const ts_args *)args;
    const int64_t bi = ctx->block_idx / g->nchunk, c0 = ctx->block_idx % g->nchunk * TS_KC;
    const int64_t kc = g->k - c0 < TS_KC ? g->k - c0 : TS_KC, m = g->m;
    if (ctx->worker_id >= (uint32_t)g->nwork)
        return cannonKernelReportError(ctx, ACL_ERROR_RT_PARAM_INVALID,
                                       "aclnnTriangularSolve: worker %u beyond the %lld planned", ctx->worker_id,
                                       (long long)g->nwork);
    double *xs = (double *)(void *)((char *)g->ws + g->ws_off + (int64_t)ctx->worker_id * g->scratch);
    int64_t off[4];
    ts_offsets(g, bi, off);
    const size_t es = g->f64 ? 8 : 4;
    const char *b = (const char *)g->b + off[2] * (int64_t)es;
    const char *a = (const char *)g->a + off[3] * (int64_t)es;
    char *x = (char *)g->x + off[0] * (int64_t)es;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < kc; j++)
            xs[i * kc + j] = ts_ld(g, b, i * g->bm + (c0 + j) * g->bk);
    /* op(A)[i][p] = A[i][p], or A[p][i] when transposed */
    const int64_t rs = g->trans ? g->an : g->am, cs = g->trans ? g->am : g->an;
    const int lower = g->upper == g->trans; /* op(A) is lower triangular */
    for (int64_t s = 0; s < m; s++) {
        const int64_t i = lower ? s : m - 1 - s;
        double *xi = xs + i * kc;
        for (int64_t t = 0; t < s; t++) {
            const int64_t p = lower ? t : m - 1 - t;
            const double aip = ts_ld(g, a, i * rs + p * cs);
            const double *xp = xs + p * kc;
            for (int64_t j = 0; j < kc; j++)
                xi[j] -= aip * xp[j];
        }
        if (!g->unit) {
            const double d = ts_ld(g, a, i * rs + i * cs);
            for (int64_t j = 0; j < kc; j++)
                xi[j] /= d;
        }
    }
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < kc; j++) {
            const int64_t o = i * g->xm + (c0 + j) * g->xk;
            if (g->f64)
                ((double *)(void *)x)[o] = xs[i * kc + j];
            else
                ((float *)(void *)x)[o] = (float)xs[i * kc + j];
        }
    return 0;
}

static int ts_copy_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const ts_args *g = (const ts_args *)args;
    int64_t off[4];
    ts_offsets(g, ctx->block_idx, off);
    const int64_t m = g->m;
    if (g->f64) {
        const double *a = (const double *)g->a + off[3];
        double *mo = (double *)g->mo + off[1];
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < m; j++)
                mo[i * g->mm + j * g->mn] = a[i * g->am + j * g->an];
    } else {
        const float *a = (const float *)g->a + off[3];
        float *mo = (float *)g->mo + off[1];
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < m; j++)
                mo[i * g->mm + j * g->mn] = a[i * g->am + j * g->an];
    }
    return 0;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnTriangularSolveGetWorkspaceSize(const aclTensor *self, const aclTensor *A,
                                                                     bool upper, bool transpose, bool unitriangular,
                                                                     aclTensor *xOut, aclTensor *mOut,
                                                                     uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char api[] = "aclnnTriangularSolve";
    const cannon_dtype_set dts = cn_dts_TriangularSolve();
    cannon_op op;
    cannon_tensor_view vb, va, vx, vm;
    cannonOpBegin(&op, api, workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, "A", A, "xOut", xOut, "mOut", mOut, NULL);
    cannonOpTensor(&op, "self", self, dts, &vb);
    cannonOpTensor(&op, "A", A, dts, &va);
    cannonOpTensor(&op, "xOut", xOut, dts, &vx);
    cannonOpTensor(&op, "mOut", mOut, dts, &vm);
    cannonOpSameDtype(&op, "A", &va, "self", &vb);
    cannonOpSameDtype(&op, "xOut", &vx, "self", &vb);
    cannonOpSameDtype(&op, "mOut", &vm, "self", &vb);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    if (unitriangular && vb.dtype != ACL_FLOAT)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "unitriangular needs FLOAT tensors (self is %s)",
                     cannonDtypeName(vb.dtype));
    if (vb.ndim < 2)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "self must have 2 to 8 dims (got %lld)", (long long)vb.ndim);
    if (va.ndim < 2)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "A must have 2 to 8 dims (got %lld)", (long long)va.ndim);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const int64_t m = va.shape[va.ndim - 1], k = vb.shape[vb.ndim - 1];
    if (va.shape[va.ndim - 2] != m)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "A's last two dims must be equal (got %lld x %lld)",
                     (long long)va.shape[va.ndim - 2], (long long)m);
    else if (vb.shape[vb.ndim - 2] != m)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "self's rows (%lld) differ from A's (%lld)",
                     (long long)vb.shape[vb.ndim - 2], (long long)m);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    ts_args g;
    memset(&g, 0, sizeof g);
    const int64_t brb = vb.ndim - 2, bra = va.ndim - 2;
    g.bnd = brb > bra ? brb : bra;
    int64_t xshape[8] = {0}, mshape[8] = {0};
    for (int64_t i = 0; i < g.bnd; i++) {
        const int64_t ib = i - (g.bnd - brb), ia = i - (g.bnd - bra);
        const int64_t db = ib >= 0 ? vb.shape[ib] : 1, da = ia >= 0 ? va.shape[ia] : 1;
        if (db != da && db != 1 && da != 1) {
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "batch dims of self (%lld) and A (%lld) cannot broadcast",
                         (long long)db, (long long)da);
            return cannonOpFinish(&op);
        }
        g.bshape[i] = xshape[i] = mshape[i] = db == 1 ? da : db;
    }
    xshape[g.bnd] = m;
    xshape[g.bnd + 1] = k;
    mshape[g.bnd] = m;
    mshape[g.bnd + 1] = m;
    const cannon_tensor_view px = {.dtype = vb.dtype, .ndim = g.bnd + 2, .shape = xshape};
    const cannon_tensor_view pm = {.dtype = vb.dtype, .ndim = g.bnd + 2, .shape = mshape};
    cannonOpSameShape(&op, "xOut", &vx, "the broadcast solution", &px);
    cannonOpSameShape(&op, "mOut", &vm, "the broadcast A", &pm);
    const int sb = cannonOpInput(&op, self), sa = cannonOpInput(&op, A);
    const int sx = cannonOpOutput(&op, xOut), sm = cannonOpOutput(&op, mOut);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    g.m = m;
    g.k = k;
    g.f64 = vb.dtype == ACL_DOUBLE;
    g.upper = upper;
    g.trans = transpose;
    g.unit = unitriangular;
    g.nbatch = 1;
    for (int64_t i = 0; i < g.bnd; i++) {
        const int64_t ib = i - (g.bnd - brb), ia = i - (g.bnd - bra);
        g.nbatch *= g.bshape[i];
        g.bst[0][i] = vx.strides[i];
        g.bst[1][i] = vm.strides[i];
        g.bst[2][i] = ib >= 0 && vb.shape[ib] != 1 ? vb.strides[ib] : 0;
        g.bst[3][i] = ia >= 0 && va.shape[ia] != 1 ? va.strides[ia] : 0;
    }
    g.bm = vb.strides[vb.ndim - 2];
    g.bk = vb.strides[vb.ndim - 1];
    g.am = va.strides[va.ndim - 2];
    g.an = va.strides[va.ndim - 1];
    g.xm = vx.strides[vx.ndim - 2];
    g.xk = vx.strides[vx.ndim - 1];
    g.mm = vm.strides[vm.ndim - 2];
    g.mn = vm.strides[vm.ndim - 1];
    if (g.nbatch == 0 || m == 0)
        return cannonOpFinish(&op);
    if (g.nbatch * ((k + TS_KC - 1) / TS_KC) > (int64_t)UINT32_MAX) {
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%lld batches of %lld columns are more blocks than one launch has",
                     (long long)g.nbatch, (long long)k);
        return cannonOpFinish(&op);
    }
    cannon_arg_ref refs[5];
    cannonOpBindView(&op, sa, (uint32_t)offsetof(ts_args, a), &refs[0]);
    cannonOpBindView(&op, sb, (uint32_t)offsetof(ts_args, b), &refs[1]);
    cannonOpBindView(&op, sx, (uint32_t)offsetof(ts_args, x), &refs[2]);
    cannonOpBindView(&op, sm, (uint32_t)offsetof(ts_args, mo), &refs[3]);
    refs[4] = (cannon_arg_ref){(uint32_t)offsetof(ts_args, ws), CANNON_SLOT_WORKSPACE, 0};
    if (k > 0) {
        const int64_t kc = k < TS_KC ? k : TS_KC;
        const uint32_t w = cannonGetWorkerCount();
        g.nchunk = (k + TS_KC - 1) / TS_KC;
        g.nwork = w > 0 ? (int64_t)w : 1;
        g.scratch = (m * kc * 8 + 63) & ~(int64_t)63;
        uint64_t ws_off = 0;
        cannonOpWorkspace(&op, (uint64_t)(g.nwork * g.scratch), &ws_off);
        g.ws_off = (int64_t)ws_off;
        cannonOpKernel(&op, api, ts_solve_kernel, (uint32_t)(g.nbatch * g.nchunk), &g, sizeof g, refs, 5);
    }
    cannonOpKernel(&op, api, ts_copy_kernel, (uint32_t)g.nbatch, &g, sizeof g, refs, 5);
    return cannonOpFinish(&op);
}
