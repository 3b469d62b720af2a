/*
 * aclnnTril, aclnnInplaceTril, aclnnTriu, aclnnInplaceTriu: one kernel over the rows of the last two dims (every
 * batch). Row i keeps columns j <= i + diagonal (Tril) or j >= i + diagonal (Triu) and zeroes the
 * others: per row one copy run and one zero run, through the views' strides. The in-place form
 * only writes the zeros. A 0-D tensor is copied as it is (CANN accepts rank 0).
 */
#include <string.h>

#include "aclnnop/aclnn_tril.h"
#include "aclnnop/aclnn_triu.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "shape_copy.h"

#define TRI_BLOCK_BYTES (64 * 1024)

typedef struct tri_args {
    const char *src; /* bound */
    char *dst;       /* bound */
    int64_t esize, rows, cols, diag;
    int32_t lower, inplace;
    int64_t nb; /* batch dims */
    int64_t bshape[CANNON_OP_MAX_RANK], bsst[CANNON_OP_MAX_RANK], bdst[CANNON_OP_MAX_RANK];
    int64_t rs_s, cs_s, rs_d, cs_d;
    int64_t units, per_block;
} tri_args;

static int tri_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    static const char zeros[16];
    const tri_args *a = (const tri_args *)args;
    const int64_t u0 = (int64_t)ctx->block_idx * a->per_block;
    const int64_t u1 = a->units - u0 < a->per_block ? a->units : u0 + a->per_block;
    const size_t es = (size_t)a->esize;
    /* the diagonal clamped so that i + diag + 1 cannot overflow */
    const int64_t dg = a->diag > a->cols ? a->cols : a->diag < -a->rows - 1 ? -a->rows - 1 : a->diag;
    for (int64_t u = u0; u < u1; u++) {
        int64_t b = u / a->rows;
        const int64_t i = u % a->rows;
        int64_t so = i * a->rs_s, dof = i * a->rs_d;
        for (int64_t d = a->nb - 1; d >= 0; d--) {
            const int64_t k = b % a->bshape[d];
            b /= a->bshape[d];
            so += k * a->bsst[d];
            dof += k * a->bdst[d];
        }
        const char *s = a->src + so * a->esize;
        char *t = a->dst + dof * a->esize;
        int64_t cut = a->lower ? i + dg + 1 : i + dg; /* first column of the second part */
        cut = cut < 0 ? 0 : cut > a->cols ? a->cols : cut;
        if (a->lower) {
            if (!a->inplace)
                shape_copy_run(t, s, cut, a->cs_s, a->cs_d, es);
            shape_copy_run(t + cut * a->cs_d * a->esize, zeros, a->cols - cut, 0, a->cs_d, es);
        } else {
            shape_copy_run(t, zeros, cut, 0, a->cs_d, es);
            if (!a->inplace)
                shape_copy_run(t + cut * a->cs_d * a->esize, s + cut * a->cs_s * a->esize, a->cols - cut, a->cs_s,
                               a->cs_d, es);
        }
    }
    return 0;
}

static aclnnStatus tri_phase1(const char *api, cannon_dtype_set dts, bool lower, const aclTensor *self, int64_t diagonal,
                              aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const bool inplace = out == NULL;
    cannon_op op;
    cannon_tensor_view vs, vo;
    cannonOpBegin(&op, api, workspaceSize, executor);
    if (inplace) {
        cannonOpNotNulls(&op, "selfRef", self, NULL);
        cannonOpTensor(&op, "selfRef", self, dts, &vs);
        vo = vs;
    } else {
        cannonOpNotNulls(&op, "self", self, "out", out, NULL);
        cannonOpTensor(&op, "self", self, dts, &vs);
        cannonOpTensor(&op, "out", out, dts, &vo);
        cannonOpSameDtype(&op, "out", &vo, "self", &vs);
        cannonOpSameShape(&op, "out", &vo, "self", &vs);
    }
    if (cannonOpOk(&op) && vs.ndim == 1)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%s must have 2 to 8 dims (or 0), got 1", inplace ? "selfRef" : "self");
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const int ss = cannonOpInput(&op, self);
    const int so = cannonOpOutput(&op, inplace ? self : out);
    const size_t es = cannonDtypeSize(vs.dtype);
    if (vs.ndim == 0) {
        if (!inplace) {
            shape_geom g;
            shape_geom_init(&g, 0, NULL, NULL, NULL, es);
            shape_record_copy(&op, ss, vs.offset, so, vo.offset, &g);
        }
        return cannonOpFinish(&op);
    }
    tri_args a;
    memset(&a, 0, sizeof a);
    const int64_t nd = vs.ndim;
    a.esize = (int64_t)es;
    a.rows = vs.shape[nd - 2];
    a.cols = vs.shape[nd - 1];
    a.diag = diagonal;
    a.lower = lower;
    a.inplace = inplace;
    a.nb = nd - 2;
    int64_t batch = 1;
    for (int64_t d = 0; d < nd - 2; d++) {
        a.bshape[d] = vs.shape[d];
        a.bsst[d] = vs.strides[d];
        a.bdst[d] = vo.strides[d];
        batch *= vs.shape[d];
    }
    a.rs_s = vs.strides[nd - 2];
    a.cs_s = vs.strides[nd - 1];
    a.rs_d = vo.strides[nd - 2];
    a.cs_d = vo.strides[nd - 1];
    a.units = batch * a.rows;
    if (a.units == 0 || a.cols == 0)
        return cannonOpFinish(&op);
    const int64_t rowb = a.cols * (int64_t)es;
    int64_t per = rowb >= TRI_BLOCK_BYTES ? 1 : TRI_BLOCK_BYTES / rowb;
    while ((a.units + per - 1) / per > (int64_t)1 << 24)
        per *= 2;
    a.per_block = per;
    const cannon_arg_ref refs[2] = {
        {(uint32_t)offsetof(tri_args, src), ss, vs.offset * (int64_t)es},
        {(uint32_t)offsetof(tri_args, dst), so, vo.offset * (int64_t)es},
    };
    cannonOpKernel(&op, api, tri_kernel, (uint32_t)((a.units + per - 1) / per), &a, sizeof a, refs, 2);
    return cannonOpFinish(&op);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnTrilGetWorkspaceSize(const aclTensor *self, int64_t diagonal, aclTensor *out,
                                                          uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char api[] = "aclnnTril";
    if (!out) { /* NULL out is an argument error, not the in-place form */
        cannon_op op;
        cannonOpBegin(&op, api, workspaceSize, executor);
        cannonOpNotNulls(&op, "self", self, "out", out, NULL);
        return cannonOpFinish(&op);
    }
    return tri_phase1(api, cn_dts_Tril(), true, self, diagonal, out, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnTriuGetWorkspaceSize(const aclTensor *self, int64_t diagonal, aclTensor *out,
                                                          uint64_t *workspaceSize, aclOpExecutor **executor)
{
    static const char api[] = "aclnnTriu";
    if (!out) {
        cannon_op op;
        cannonOpBegin(&op, api, workspaceSize, executor);
        cannonOpNotNulls(&op, "self", self, "out", out, NULL);
        return cannonOpFinish(&op);
    }
    return tri_phase1(api, cn_dts_Triu(), false, self, diagonal, out, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceTriuGetWorkspaceSize(aclTensor *selfRef, int64_t diagonal,
                                                                 uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return tri_phase1("aclnnInplaceTriu", cn_dts_InplaceTriu(), false, selfRef, diagonal, NULL, workspaceSize,
                      executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceTrilGetWorkspaceSize(const aclTensor *selfRef, int64_t diagonal,
                                                                 uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return tri_phase1("aclnnInplaceTril", cn_dts_InplaceTril(), true, selfRef, diagonal, NULL, workspaceSize,
                      executor);
}
