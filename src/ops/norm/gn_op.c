/*
 * aclnnGroupNorm: self (N, C, *) with its C channels cut into `group` groups of C / group; each
 * (sample, group) is one row of R = (C / group) * HxW contiguous elements, normalised with its
 * own mean and biased variance (torch's group_norm), then scaled and shifted per channel:
 *   out = (x - mean) * rstd * gamma[c] + beta[c],  rstd = 1 / sqrt(var + eps).
 * A strided tensor goes through the workspace (cannonOpBind). One kernel, a unit per row: the
 * mean is one fp64 sum in element order, the variance a second fp64 pass over x - mean (no
 * cancellation for rows far from 0), and every output is computed in fp64 from fp32-widened
 * inputs and rounded once; units are cut into blocks by the shape alone, so results do not depend
 * on the thread count.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "aclnnop/aclnn_group_norm.h"
#include "fp_convert.h"
#include "op_manifest.h"

#include "norm_op.h"

#define GN_RUN 256

typedef struct gn_args {
    const void *x;
    const void *gamma, *beta; /* C elements each, or NULL (1 / 0) */
    void *out, *mean, *rstd;  /* mean, rstd: rows elements each, or NULL */
    double eps;
    int64_t rows, R, HxW, Cg, group, units_per_block;
    int32_t dt, dtg, dtb, dts;
} gn_args;

static void gn_widen(const void *p, int64_t i, int64_t n, int32_t dt, float *d)
{
    if (dt == NM_F32) {
        memcpy(d, (const float *)p + i, (size_t)n * sizeof(float));
    } else if (dt == NM_F16) {
        const uint16_t *h = (const uint16_t *)p + i;
        for (int64_t k = 0; k < n; k++)
            d[k] = cannon_f16_to_f32(h[k]);
    } else {
        const uint16_t *h = (const uint16_t *)p + i;
        for (int64_t k = 0; k < n; k++)
            d[k] = cannon_bf16_to_f32(h[k]);
    }
}

static void gn_narrow(void *p, int64_t i, int64_t n, int32_t dt, const float *s)
{
    if (dt == NM_F32) {
        memcpy((float *)p + i, s, (size_t)n * sizeof(float));
    } else if (dt == NM_F16) {
        uint16_t *h = (uint16_t *)p + i;
        for (int64_t k = 0; k < n; k++)
            h[k] = cannon_f32_to_f16(s[k]);
    } else {
        uint16_t *h = (uint16_t *)p + i;
        for (int64_t k = 0; k < n; k++)
            h[k] = cannon_f32_to_bf16(s[k]);
    }
}

static void gn_row(const gn_args *a, int64_t r)
{
    float buf[GN_RUN];
    const int64_t base = r * a->R;
    double s = 0.0;
    for (int64_t i = 0; i < a->R; i += GN_RUN) {
        const int64_t n = a->R - i < GN_RUN ? a->R - i : GN_RUN;
        gn_widen(a->x, base + i, n, a->dt, buf);
        for (int64_t k = 0; k < n; k++)
            s += (double)buf[k];
    }
    const double mean = s / (double)a->R;
    double q = 0.0;
    for (int64_t i = 0; i < a->R; i += GN_RUN) {
        const int64_t n = a->R - i < GN_RUN ? a->R - i : GN_RUN;
        gn_widen(a->x, base + i, n, a->dt, buf);
        for (int64_t k = 0; k < n; k++) {
            const double d = (double)buf[k] - mean;
            q += d * d;
        }
    }
    const double rstd = 1.0 / sqrt(q / (double)a->R + a->eps);
    if (a->mean)
        cannon_norm_st(a->mean, r, a->dts, (float)mean);
    if (a->rstd)
        cannon_norm_st(a->rstd, r, a->dts, (float)rstd);
    const int64_t c0 = (r % a->group) * a->Cg;
    for (int64_t c = 0; c < a->Cg; c++) {
        const double w = a->gamma ? (double)cannon_norm_ld(a->gamma, c0 + c, a->dtg) : 1.0;
        const double b = a->beta ? (double)cannon_norm_ld(a->beta, c0 + c, a->dtb) : 0.0;
        const double k1 = rstd * w;
        const int64_t cb = base + c * a->HxW;
        for (int64_t i = 0; i < a->HxW; i += GN_RUN) {
            const int64_t n = a->HxW - i < GN_RUN ? a->HxW - i : GN_RUN;
            gn_widen(a->x, cb + i, n, a->dt, buf);
            for (int64_t k = 0; k < n; k++)
                buf[k] = (float)(((double)buf[k] - mean) * k1 + b);
            gn_narrow(a->out, cb + i, n, a->dt, buf);
        }
    }
}

static int gn_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const gn_args *a = (const gn_args *)args;
    const int64_t r0 = (int64_t)ctx->block_idx * a->units_per_block;
    const int64_t r1 = r0 + a->units_per_block < a->rows ? r0 + a->units_per_block : a->rows;
    for (int64_t r = r0; r < r1; r++)
        gn_row(a, r);
    return 0;
}

/* A per-row statistics output: (N, group) values of any float dtype. */
static bool check_gn_stat(cannon_op *op, const char *name, const aclTensor *t, int64_t rows,
                          cannon_tensor_view *v)
{
    if (!cannonOpTensorOpt(op, name, t, CANNON_DTS_F32_16, v) || !t)
        return cannonOpOk(op);
    if (cannonTensorNumel(t) != rows)
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s must hold N * group = %lld values, not %lld", name,
                            (long long)rows, (long long)cannonTensorNumel(t));
    return true;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnGroupNormGetWorkspaceSize(const aclTensor *self, const aclTensor *gamma,
                                                               const aclTensor *beta, int64_t N, int64_t C, int64_t HxW,
                                                               int64_t group, double eps, aclTensor *out,
                                                               aclTensor *meanOut, aclTensor *rstdOut,
                                                               uint64_t *workspaceSize, aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vx, vo, vm, vr;
    memset(&vx, 0, sizeof vx);
    memset(&vo, 0, sizeof vo);
    memset(&vm, 0, sizeof vm);
    memset(&vr, 0, sizeof vr);
    cannonOpBegin(&op, "aclnnGroupNorm", workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, "out", out, NULL);
    cannonOpTensor(&op, "self", self, cn_dts_GroupNorm(), &vx);
    cannonOpTensor(&op, "out", out, cn_dts_GroupNorm(), &vo);
    cannonOpSameDtype(&op, "out", &vo, "self", &vx);
    cannonOpSameShape(&op, "out", &vo, "self", &vx);
    if (cannonOpOk(&op) && vx.ndim < 2)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "self has %lld dims: it must be of rank 2 to 8", (long long)vx.ndim);
    if (cannonOpOk(&op)) {
        int64_t hw = 1;
        for (int64_t i = 2; i < vx.ndim; i++)
            hw *= vx.shape[i];
        if (vx.shape[0] != N || vx.shape[1] != C || hw != HxW)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID,
                         "N = %lld, C = %lld, HxW = %lld do not describe self (%lld, %lld, %lld)", (long long)N,
                         (long long)C, (long long)HxW, (long long)vx.shape[0], (long long)vx.shape[1], (long long)hw);
        else if (group <= 0 || C % group != 0)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "group %lld must be > 0 and divide C = %lld", (long long)group,
                         (long long)C);
        else if (N > 0 && group > INT64_MAX / N)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "N * group (%lld * %lld) overflows", (long long)N,
                         (long long)group);
        else if (!(eps > 0.0) || isinf(eps))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "eps %g must be finite and > 0", eps);
    }
    if (cannonOpOk(&op)) {
        nm_check_chan(&op, "gamma", gamma, C, true);
        nm_check_chan(&op, "beta", beta, C, true);
    }
    const int64_t rows = cannonOpOk(&op) ? N * group : 0;
    check_gn_stat(&op, "meanOut", meanOut, rows, &vm);
    check_gn_stat(&op, "rstdOut", rstdOut, rows, &vr);
    if (cannonOpOk(&op) && meanOut && rstdOut)
        cannonOpSameDtype(&op, "rstdOut", &vr, "meanOut", &vm);

    const int sx = cannonOpInput(&op, self), sg = nm_input(&op, gamma), sb = nm_input(&op, beta);
    const int so = cannonOpOutput(&op, out), sm = nm_output(&op, meanOut), sr = nm_output(&op, rstdOut);
    /* Nothing to compute: no rows, or rows of no elements and no statistics to write (a C of 0
     * admits any group, so N * group may be large without any data behind it). */
    if (!cannonOpOk(&op) || rows == 0 || (C * HxW == 0 && !meanOut && !rstdOut))
        return cannonOpFinish(&op);
    gn_args a;
    memset(&a, 0, sizeof a);
    a.eps = eps;
    a.rows = rows;
    a.group = group;
    a.Cg = C / group;
    a.HxW = HxW;
    a.R = a.Cg * HxW;
    a.dt = nm_float_code(vx.dtype);
    cannon_tensor_view v;
    if (gamma && cannonTensorGetView(gamma, &v))
        a.dtg = nm_float_code(v.dtype);
    if (beta && cannonTensorGetView(beta, &v))
        a.dtb = nm_float_code(v.dtype);
    a.dts = nm_float_code(meanOut ? vm.dtype : rstdOut ? vr.dtype : ACL_FLOAT);
    uint32_t bd;
    nm_blocks(rows, a.R * (int64_t)cannonDtypeSize(vx.dtype) * 3, &a.units_per_block, &bd);
    cannon_arg_ref refs[6];
    size_t n = 0;
    const struct {
        int slot;
        unsigned how;
        size_t off;
    } binds[6] = {{sx, CANNON_BIND_IN, offsetof(gn_args, x)},      {sg, CANNON_BIND_IN, offsetof(gn_args, gamma)},
                  {sb, CANNON_BIND_IN, offsetof(gn_args, beta)},   {so, CANNON_BIND_OUT, offsetof(gn_args, out)},
                  {sm, CANNON_BIND_OUT, offsetof(gn_args, mean)}, {sr, CANNON_BIND_OUT, offsetof(gn_args, rstd)}};
    for (int k = 0; k < 6; k++)
        if (binds[k].slot >= 0 && cannonOpBind(&op, binds[k].slot, binds[k].how, (uint32_t)binds[k].off, &refs[n]))
            n++;
    /* Rows of no elements (C or HxW 0) get the statistics of nothing: NaN, as torch's. */
    cannonOpKernel(&op, op.api, gn_kernel, bd, &a, sizeof a, refs, n);
    return cannonOpFinish(&op);
}
