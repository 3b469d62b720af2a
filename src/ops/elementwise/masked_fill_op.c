/*
 * aclnnInplaceMaskedFillScalar: selfRef[i] = value where mask[i] (broadcast to selfRef's shape).
 *
 * value is converted once to selfRef's dtype in phase 1 (shape_scalar_to: floats rounded to
 * nearest even, integers wrapped) and the kernel moves its bytes: one walk over selfRef and the
 * broadcast mask (ew_walk.h), a fixed-size store per selected element, so every dtype is exact
 * and NaN payloads and signed zeros are kept.
 */
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_masked_fill_scalar.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "ew_walk.h"

#define MF_CHUNK 65536

typedef struct mf_args {
    void *p[2]; /* selfRef, mask */
    ewk_layout l;
    int64_t numel, chunk, es;
    unsigned char val[16];
} mf_args;

#define MF_LOOP(ES)                                                                                                    \
    for (int64_t i = 0; i < n; i++)                                                                                    \
        if (m[i * sm])                                                                                                 \
            memcpy(o + i * so, a->val, ES);                                                                            \
    return;

static void mf_run(void *ctx, char *const *p, const int64_t *s, int64_t n, int64_t pos)
{
    (void)pos;
    const mf_args *a = (const mf_args *)ctx;
    char *o = p[0];
    const unsigned char *m = (const unsigned char *)p[1];
    const int64_t so = s[0], sm = s[1];
    if (sm == 0) { /* one mask value for the whole run */
        if (!m[0])
            return;
        for (int64_t i = 0; i < n; i++)
            memcpy(o + i * so, a->val, (size_t)a->es);
        return;
    }
    switch (a->es) {
    case 1:
        MF_LOOP(1)
    case 2:
        MF_LOOP(2)
    case 4:
        MF_LOOP(4)
    default:
        MF_LOOP(8)
    }
}
#undef MF_LOOP

static int mf_kernel(const cannon_kernel_ctx *kctx, void *args)
{
    mf_args *a = (mf_args *)args;
    const int64_t start = (int64_t)kctx->block_idx * a->chunk;
    if (start >= a->numel)
        return 0;
    const int64_t end = a->numel - start < a->chunk ? a->numel : start + a->chunk;
    char *base[2] = {(char *)a->p[0], (char *)a->p[1]};
    ewk_walk(&a->l, base, start, end, mf_run, a);
    return 0;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceMaskedFillScalarGetWorkspaceSize(aclTensor *selfRef, const aclTensor *mask,
                                                                             const aclScalar *value,
                                                                             uint64_t *workspaceSize,
                                                                             aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vs, vm;
    cannonOpBegin(&op, "aclnnInplaceMaskedFillScalar", workspaceSize, executor);
    cannonOpNotNulls(&op, "selfRef", selfRef, "mask", mask, "value", value, NULL);
    cannonOpTensor(&op, "selfRef", selfRef, cn_dts_InplaceMaskedFillScalar(), &vs);
    cannonOpTensor(&op, "mask", mask, CANNON_DT_BOOL, &vm);
    aclDataType vt = ACL_DT_UNDEFINED;
    if (cannonOpOk(&op) && !cannonScalarGet(value, &vt, NULL))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "value is not a live aclScalar");
    else if (cannonOpOk(&op) && (!cannonDtypeIn(vt, CANNON_DTS_REAL) || !cannonDtypeCanCast(vt, vs.dtype)))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "value of dtype %s cannot be cast to selfRef dtype %s",
                     cannonDtypeName(vt), cannonDtypeName(vs.dtype));
    if (cannonOpOk(&op) && !ewk_broadcasts_to(&vm, vs.ndim, vs.shape)) {
        char a[160], b[160];
        cannonShapeFormat(&vm, a, sizeof a);
        cannonShapeFormat(&vs, b, sizeof b);
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "mask shape %s does not broadcast to selfRef shape %s", a, b);
    }
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    mf_args a;
    memset(&a, 0, sizeof a);
    shape_scalar_to(value, vs.dtype, a.val);
    a.es = (int64_t)cannonDtypeSize(vs.dtype);
    const int s_self = cannonOpInput(&op, selfRef);
    const int s_mask = cannonOpInput(&op, mask);
    const int s_out = cannonOpOutput(&op, selfRef);
    (void)s_self;
    int64_t numel = 1;
    for (int64_t i = 0; i < vs.ndim; i++)
        numel *= vs.shape[i];
    if (numel == 0)
        return cannonOpFinish(&op);
    int64_t st[2][CANNON_OP_MAX_RANK];
    for (int64_t i = 0; i < vs.ndim; i++)
        st[0][i] = vs.strides[i] * a.es;
    ewk_bcast_strides(&vm, vs.ndim, st[1]);
    ewk_layout_init(&a.l, 2, vs.ndim, vs.shape, (const int64_t(*)[CANNON_OP_MAX_RANK])st);
    a.numel = numel;
    a.chunk = MF_CHUNK;
    cannon_arg_ref refs[2];
    cannonOpBindView(&op, s_out, (uint32_t)offsetof(mf_args, p[0]), &refs[0]);
    cannonOpBindView(&op, s_mask, (uint32_t)offsetof(mf_args, p[1]), &refs[1]);
    cannonOpKernel(&op, "aclnnInplaceMaskedFillScalar", mf_kernel, (uint32_t)((numel + a.chunk - 1) / a.chunk), &a,
                   sizeof a, refs, 2);
    return cannonOpFinish(&op);
}
