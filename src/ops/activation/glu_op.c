/*
 * The gated linear units aclnnSwiGlu and aclnnGeGluV3: self is cut into two halves A and B along
 * dim, and out = act(A) * B (GeGluV3 with activateLeft false: A * act(B); its outGelu receives
 * act of the activated half). act is the elementwise framework's SiLU or GELU (erf or tanh form),
 * the same fp32 vector code as aclnnSilu / aclnnGelu / aclnnGeluV2 on every tier.
 *
 * Layout: self is seen as (outer, 2, M), M = (size along dim / 2) * (product of the dims after
 * dim), so each half of an outer index is one contiguous run of M elements and out is (outer, M).
 * A strided self is gathered into the workspace first and strided outputs are scattered after the
 * kernel (cannonOpBind). The kernel cuts the output's outer * M elements into blocks of a fixed
 * size (a function of the shape only) and works through each block in runs of at most GLU_RUN
 * elements: the run's halves are widened to fp32, act and the product are computed in fp32 and the
 * results rounded once to the output dtype, so every element is independent of the block split
 * and of the thread count.
 */
#include <stddef.h>
#include <string.h>

#include "aclnnop/aclnn_geglu.h"
#include "aclnnop/aclnn_swi_glu.h"
#include "cannon/opdev.h"
#include "fp_convert.h"
#include "op_manifest.h"

#include "../elementwise/ew_kernels.h"
#include "../kernels/isa.h"

#define GLU_RUN 512                      /* elements widened to fp32 at a time */
#define GLU_BLOCK ((int64_t)1 << 15)     /* output elements per block */

typedef struct glu_args {
    const void *x; /* (outer, 2, M), contiguous */
    void *out;     /* (outer, M), contiguous */
    void *act;     /* (outer, M) act of the activated half, or NULL */
    int64_t outer, M, block;
    int32_t op;   /* EW_SILU, EW_GELU_ERF or EW_GELU_TANH */
    int32_t vdt;  /* EW_VF32, EW_VF16 or EW_VBF16: the dtype of every tensor */
    int32_t left; /* act applies to the first half */
    int32_t isa;
} glu_args;

static void widen(int vdt, const void *p, int64_t i, int64_t n, float *d)
{
    const uint16_t *h = (const uint16_t *)p + i;
    if (vdt == EW_VF16)
        for (int64_t k = 0; k < n; k++)
            d[k] = cannon_f16_to_f32(h[k]);
    else
        for (int64_t k = 0; k < n; k++)
            d[k] = cannon_bf16_to_f32(h[k]);
}

static void narrow(int vdt, void *p, int64_t i, int64_t n, const float *s)
{
    uint16_t *h = (uint16_t *)p + i;
    if (vdt == EW_VF16)
        for (int64_t k = 0; k < n; k++)
            h[k] = cannon_f32_to_f16(s[k]);
    else
        for (int64_t k = 0; k < n; k++)
            h[k] = cannon_f32_to_bf16(s[k]);
}

/* One run of n output elements from output index (o, j): the activated half's run at element
 * index ia, the other at ib, the output's at io. */
static void glu_run(const glu_args *a, ew_vec_fn vec, const ew_params *prm, int64_t ia, int64_t ib, int64_t io,
                    int64_t n)
{
    float fa[GLU_RUN], fb[GLU_RUN];
    if (a->vdt == EW_VF32) {
        const float *x = (const float *)a->x;
        vec(a->op, EW_VF32, fa, x + ia, 1, 0.0f, NULL, 0, 0.0f, n, prm, 0);
        if (a->act)
            memcpy((float *)a->act + io, fa, (size_t)n * sizeof(float));
        vec(EW_MUL, EW_VF32, (float *)a->out + io, fa, 1, 0.0f, x + ib, 1, 0.0f, n, prm, 0);
        return;
    }
    widen(a->vdt, a->x, ia, n, fa);
    widen(a->vdt, a->x, ib, n, fb);
    vec(a->op, EW_VF32, fa, fa, 1, 0.0f, NULL, 0, 0.0f, n, prm, 0);
    if (a->act)
        narrow(a->vdt, a->act, io, n, fa);
    vec(EW_MUL, EW_VF32, fa, fa, 1, 0.0f, fb, 1, 0.0f, n, prm, 0);
    narrow(a->vdt, a->out, io, n, fa);
}

static int glu_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const glu_args *a = (const glu_args *)args;
    const ew_vec_fn vec = cannon_ew_vec_for(a->isa);
    ew_params prm;
    memset(&prm, 0, sizeof prm);
    const int64_t total = a->outer * a->M;
    int64_t e = (int64_t)ctx->block_idx * a->block;
    const int64_t end = e + a->block < total ? e + a->block : total;
    while (e < end) {
        const int64_t o = e / a->M, j = e % a->M;
        int64_t n = a->M - j;
        if (n > end - e)
            n = end - e;
        if (n > GLU_RUN)
            n = GLU_RUN;
        const int64_t first = o * 2 * a->M + j, second = first + a->M;
        glu_run(a, vec, &prm, a->left ? first : second, a->left ? second : first, e, n);
        e += n;
    }
    return 0;
}

static int glu_vdt(aclDataType t)
{
    return t == ACL_FLOAT16 ? EW_VF16 : t == ACL_BF16 ? EW_VBF16 : EW_VF32;
}

/* An output of x's dtype whose shape is x's with half the size along @p dim. */
static bool check_half(cannon_op *op, const char *name, const cannon_tensor_view *vo, const cannon_tensor_view *vx,
                       int64_t dim)
{
    if (!cannonOpSameDtype(op, name, vo, "self", vx))
        return false;
    const int64_t rx = vx->ndim > 0 ? vx->ndim : 1;
    bool ok = (vo->ndim > 0 ? vo->ndim : 1) == rx;
    for (int64_t i = 0; ok && i < vx->ndim; i++)
        ok = vo->shape[i] == (i == dim ? vx->shape[i] / 2 : vx->shape[i]);
    if (!ok) {
        char sx[200], so[200];
        cannonShapeFormat(vx, sx, sizeof sx);
        cannonShapeFormat(vo, so, sizeof so);
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID,
                            "%s shape %s must be the input's %s with half the size along dim %lld", name, so, sx,
                            (long long)dim);
    }
    return true;
}

/* The shared plan: checks of dim, the halves and the outputs, then one kernel. */
static aclnnStatus glu_plan(cannon_op *op, const cannon_tensor_view *vx, const aclTensor *x, int64_t dim,
                            const char *xname, const aclTensor *out, const aclTensor *act, int code, bool left)
{
    cannon_tensor_view vo, va;
    memset(&vo, 0, sizeof vo);
    memset(&va, 0, sizeof va);
    const cannon_dtype_set dts = CANNON_DTS_F32_16;
    cannonOpTensor(op, "out", out, dts, &vo);
    if (act)
        cannonOpTensor(op, "outGelu", act, dts, &va);
    cannonOpDim(op, "dim", &dim, vx->ndim);
    const int64_t size = cannonOpOk(op) ? (vx->ndim > 0 ? vx->shape[dim] : 1) : 0;
    if (cannonOpOk(op) && size % 2 != 0)
        cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s size %lld along dim %lld must be even", xname, (long long)size,
                     (long long)dim);
    check_half(op, "out", &vo, vx, dim);
    if (act)
        check_half(op, "outGelu", &va, vx, dim);
    if (!cannonOpOk(op))
        return cannonOpFinish(op);
    glu_args a;
    memset(&a, 0, sizeof a);
    a.outer = 1;
    a.M = size / 2;
    for (int64_t i = 0; i < vx->ndim; i++) {
        if (i < dim)
            a.outer *= vx->shape[i];
        else if (i > dim)
            a.M *= vx->shape[i];
    }
    a.op = code;
    a.vdt = glu_vdt(vx->dtype);
    a.left = left;
    a.isa = (int32_t)cannon_isa_select();
    a.block = GLU_BLOCK;
    const int sx = cannonOpInput(op, x);
    const int so = cannonOpOutput(op, out);
    const int sa = act ? cannonOpOutput(op, act) : -1;
    const int64_t total = a.outer * a.M;
    if (total == 0)
        return cannonOpFinish(op);
    cannon_arg_ref refs[3];
    size_t n = 0;
    if (cannonOpBind(op, sx, CANNON_BIND_IN, offsetof(glu_args, x), &refs[n]))
        n++;
    if (cannonOpBind(op, so, CANNON_BIND_OUT, offsetof(glu_args, out), &refs[n]))
        n++;
    if (act && cannonOpBind(op, sa, CANNON_BIND_OUT, offsetof(glu_args, act), &refs[n]))
        n++;
    const uint32_t bd = (uint32_t)((total + a.block - 1) / a.block);
    cannonOpKernel(op, op->api, glu_kernel, bd, &a, sizeof a, refs, n);
    return cannonOpFinish(op);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnSwiGluGetWorkspaceSize(const aclTensor *x, int64_t dim, const aclTensor *out,
                                                            uint64_t *workspaceSize, aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vx;
    memset(&vx, 0, sizeof vx);
    cannonOpBegin(&op, "aclnnSwiGlu", workspaceSize, executor);
    cannonOpNotNulls(&op, "x", x, "out", out, NULL);
    cannonOpTensor(&op, "x", x, cn_dts_SwiGlu(), &vx);
    if (cannonOpOk(&op) && vx.ndim < 1)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "x has 0 dims: it must be of rank 1 to 8");
    return glu_plan(&op, &vx, x, dim, "x", out, NULL, EW_SILU, true);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnGeGluV3GetWorkspaceSize(const aclTensor *self, int64_t dim, int64_t approximate,
                                                             bool activateLeft, aclTensor *out, aclTensor *outGelu,
                                                             uint64_t *workspaceSize, aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vx;
    memset(&vx, 0, sizeof vx);
    cannonOpBegin(&op, "aclnnGeGluV3", workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, "out", out, "outGelu", outGelu, NULL);
    cannonOpTensor(&op, "self", self, cn_dts_GeGluV3(), &vx);
    if (cannonOpOk(&op) && approximate != 0 && approximate != 1)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "approximate %lld is not supported (0 = none, 1 = tanh)",
                     (long long)approximate);
    return glu_plan(&op, &vx, self, dim, "self", out, outGelu, approximate == 1 ? EW_GELU_TANH : EW_GELU_ERF,
                    activateLeft);
}
