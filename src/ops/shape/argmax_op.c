/*
 * aclnnArgMax: per lane along dim (shape_lanes.h) the index of the first maximal element, read
 * through the view's strides; a NaN counts as larger than every number, so the first NaN wins (as
 * torch). Floating values compare as double and integers as int64, both exact.
 */
#include <string.h>

#include "aclnnop/aclnn_argmax.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "fp_convert.h"
#include "shape_lanes.h"

#define AM_BLOCK_ELEMS (64 * 1024)

typedef struct am_args {
    const char *x; /* bound */
    char *out;     /* bound */
    int32_t xdt, odt;
    int64_t xes, per_block;
    shape_lanes li, lo; /* lo: lanes of out with n = 1 */
} am_args;

static double load_f(const char *p, aclDataType t)
{
    switch (t) {
    case ACL_FLOAT: {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    case ACL_DOUBLE: {
        double f;
        memcpy(&f, p, 8);
        return f;
    }
    case ACL_FLOAT16: {
        uint16_t h;
        memcpy(&h, p, 2);
        return cannon_f16_to_f32(h);
    }
    default: {
        uint16_t h;
        memcpy(&h, p, 2);
        return cannon_bf16_to_f32(h);
    }
    }
}

static int64_t load_i(const char *p, aclDataType t)
{
    switch (t) {
    case ACL_INT8:
        return (int8_t)p[0];
    case ACL_UINT8:
        return (uint8_t)p[0];
    case ACL_INT16: {
        int16_t x;
        memcpy(&x, p, 2);
        return x;
    }
    case ACL_INT32: {
        int32_t x;
        memcpy(&x, p, 4);
        return x;
    }
    default: {
        int64_t x;
        memcpy(&x, p, 8);
        return x;
    }
    }
}

static int am_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const am_args *a = (const am_args *)args;
    const aclDataType t = (aclDataType)a->xdt;
    const bool fl = t == ACL_FLOAT || t == ACL_DOUBLE || t == ACL_FLOAT16 || t == ACL_BF16;
    const int64_t k0 = (int64_t)ctx->block_idx * a->per_block;
    const int64_t k1 = a->li.lanes - k0 < a->per_block ? a->li.lanes : k0 + a->per_block;
    const int64_t st = a->li.step * a->xes;
    for (int64_t k = k0; k < k1; k++) {
        const char *p = a->x + shape_lane_start(&a->li, k) * a->xes;
        int64_t best = 0;
        if (fl) {
            double bv = load_f(p, t);
            for (int64_t i = 1; i < a->li.n && bv == bv; i++) {
                const double v = load_f(p + i * st, t);
                if (v > bv || v != v) {
                    bv = v;
                    best = i;
                }
            }
        } else {
            int64_t bv = load_i(p, t);
            for (int64_t i = 1; i < a->li.n; i++) {
                const int64_t v = load_i(p + i * st, t);
                if (v > bv) {
                    bv = v;
                    best = i;
                }
            }
        }
        char *o = a->out + shape_lane_start(&a->lo, k) * (a->odt == ACL_INT32 ? 4 : 8);
        if (a->odt == ACL_INT32) {
            const int32_t b = (int32_t)best;
            memcpy(o, &b, 4);
        } else {
            memcpy(o, &best, 8);
        }
    }
    return 0;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnArgMaxGetWorkspaceSize(const aclTensor *self, int64_t dim, bool keepdim,
                                                            aclTensor *out, uint64_t *workspaceSize,
                                                            aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vs, vo;
    cannonOpBegin(&op, "aclnnArgMax", workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, "out", out, NULL);
    cannonOpTensor(&op, "self", self, cn_dts_ArgMax(), &vs);
    cannonOpTensor(&op, "out", out, CANNON_DTS_INDEX, &vo);
    cannonOpDim(&op, "dim", &dim, vs.ndim);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    if (vs.ndim > 0 && vs.shape[dim] == 0) {
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "self has size 0 along dim %lld: no maximum", (long long)dim);
        return cannonOpFinish(&op);
    }
    int64_t eshape[CANNON_OP_MAX_RANK], estr[CANNON_OP_MAX_RANK];
    int64_t er = 0;
    for (int64_t d = 0; d < vs.ndim; d++)
        if (d != dim || keepdim)
            eshape[er++] = d == dim ? 1 : vs.shape[d];
    const cannon_tensor_view ve = {.dtype = vo.dtype, .ndim = er, .shape = eshape};
    if (!cannonOpSameShape(&op, "out", &vo, "the expected", &ve))
        return cannonOpFinish(&op);
    const int sx = cannonOpInput(&op, self);
    const int so = cannonOpOutput(&op, out);
    am_args a;
    memset(&a, 0, sizeof a);
    a.xdt = (int32_t)vs.dtype;
    a.odt = (int32_t)vo.dtype;
    a.xes = (int64_t)cannonDtypeSize(vs.dtype);
    shape_lanes_init(&a.li, vs.ndim, vs.shape, vs.strides, dim);
    /* out's strides for the kept dims, with dim's place (if any) of size 1 */
    int64_t oshape[CANNON_OP_MAX_RANK];
    for (int64_t d = 0, j = 0; d < vs.ndim; d++) {
        oshape[d] = d == dim ? 1 : vs.shape[d];
        estr[d] = (d == dim && !keepdim) ? 0 : vo.strides[j++];
    }
    shape_lanes_init(&a.lo, vs.ndim, oshape, estr, dim);
    if (a.li.lanes == 0)
        return cannonOpFinish(&op);
    int64_t per = a.li.n >= AM_BLOCK_ELEMS ? 1 : AM_BLOCK_ELEMS / a.li.n;
    while ((a.li.lanes + per - 1) / per > (int64_t)1 << 24)
        per *= 2;
    a.per_block = per;
    const int64_t oes = vo.dtype == ACL_INT32 ? 4 : 8;
    const cannon_arg_ref refs[2] = {
        {(uint32_t)offsetof(am_args, x), sx, vs.offset * a.xes},
        {(uint32_t)offsetof(am_args, out), so, vo.offset * oes},
    };
    cannonOpKernel(&op, "ArgMax", am_kernel, (uint32_t)((a.li.lanes + per - 1) / per), &a, sizeof a, refs, 2);
    return cannonOpFinish(&op);
}
