/*
 * aclnnCumsum: each lane along dim (shape_lanes.h) is summed in order by one unit, through the
 * views' strides. self's elements are converted to out's dtype first (CANN casts self to dtype),
 * then accumulated as torch's CPU kernel does: FLOAT in double, FLOAT16 / BFLOAT16 in float,
 * DOUBLE in double, integers in int64 (wrapping to out's width); each output is the running sum
 * rounded once. One unit per lane and a fixed order: the same result for any thread count.
 */
#include <string.h>

#include "aclnnop/aclnn_cumsum.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "fp_convert.h"
#include "shape_copy.h"
#include "shape_lanes.h"

#define CS_BLOCK_ELEMS (64 * 1024)

typedef struct cs_args {
    const char *x; /* bound */
    char *out;     /* bound */
    int32_t xdt, odt;
    int64_t xes, oes, per_block;
    shape_lanes li, lo;
} cs_args;

static int64_t load_int(const unsigned char *v, aclDataType t)
{
    switch (t) {
    case ACL_INT8:
        return (int8_t)v[0];
    case ACL_UINT8:
        return v[0];
    case ACL_INT16: {
        int16_t x;
        memcpy(&x, v, 2);
        return x;
    }
    case ACL_INT32: {
        int32_t x;
        memcpy(&x, v, 4);
        return x;
    }
    default: {
        int64_t x;
        memcpy(&x, v, 8);
        return x;
    }
    }
}

static void cs_lane(const cs_args *a, const char *x, char *o)
{
    const aclDataType xdt = (aclDataType)a->xdt, odt = (aclDataType)a->odt;
    const int64_t xs = a->li.step * a->xes, os = a->lo.step * a->oes;
    unsigned char t[16];
    double accd = 0;
    float accf = 0;
    int64_t acci = 0;
    for (int64_t i = 0; i < a->li.n; i++, x += xs, o += os) {
        const unsigned char *v = (const unsigned char *)x;
        if (xdt != odt) {
            shape_convert_elem(x, xdt, t, odt);
            v = t;
        }
        switch (odt) {
        case ACL_FLOAT: {
            float f;
            memcpy(&f, v, 4);
            accd += f;
            f = (float)accd;
            memcpy(o, &f, 4);
            break;
        }
        case ACL_DOUBLE: {
            double f;
            memcpy(&f, v, 8);
            accd += f;
            memcpy(o, &accd, 8);
            break;
        }
        case ACL_FLOAT16: {
            uint16_t h;
            memcpy(&h, v, 2);
            accf += cannon_f16_to_f32(h);
            h = cannon_f32_to_f16(accf);
            memcpy(o, &h, 2);
            break;
        }
        case ACL_BF16: {
            uint16_t h;
            memcpy(&h, v, 2);
            accf += cannon_bf16_to_f32(h);
            h = cannon_f32_to_bf16(accf);
            memcpy(o, &h, 2);
            break;
        }
        default:
            acci = (int64_t)((uint64_t)acci + (uint64_t)load_int(v, odt));
            memcpy(o, &acci, (size_t)a->oes); /* little-endian: the low bytes wrap to the width */
            break;
        }
    }
}

static int cs_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const cs_args *a = (const cs_args *)args;
    const int64_t k0 = (int64_t)ctx->block_idx * a->per_block;
    const int64_t k1 = a->li.lanes - k0 < a->per_block ? a->li.lanes : k0 + a->per_block;
    for (int64_t k = k0; k < k1; k++)
        cs_lane(a, a->x + shape_lane_start(&a->li, k) * a->xes, a->out + shape_lane_start(&a->lo, k) * a->oes);
    return 0;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnCumsumGetWorkspaceSize(const aclTensor *self, int64_t dim, aclDataType dtype,
                                                            aclTensor *out, uint64_t *workspaceSize,
                                                            aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vs, vo;
    cannonOpBegin(&op, "aclnnCumsum", workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, "out", out, NULL);
    cannonOpTensor(&op, "self", self, cn_dts_Cumsum(), &vs);
    cannonOpTensor(&op, "out", out, cn_dts_Cumsum(), &vo);
    if (cannonOpOk(&op) && dtype != vo.dtype)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "dtype %s differs from out's dtype %s", cannonDtypeName(dtype),
                     cannonDtypeName(vo.dtype));
    if (cannonOpOk(&op) && !cannonDtypeCanCast(vs.dtype, vo.dtype))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "self dtype %s cannot be cast to out's %s",
                     cannonDtypeName(vs.dtype), cannonDtypeName(vo.dtype));
    cannonOpSameShape(&op, "out", &vo, "self", &vs);
    cannonOpDim(&op, "dim", &dim, vs.ndim);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const int sx = cannonOpInput(&op, self);
    const int so = cannonOpOutput(&op, out);
    cs_args a;
    memset(&a, 0, sizeof a);
    a.xdt = (int32_t)vs.dtype;
    a.odt = (int32_t)vo.dtype;
    a.xes = (int64_t)cannonDtypeSize(vs.dtype);
    a.oes = (int64_t)cannonDtypeSize(vo.dtype);
    shape_lanes_init(&a.li, vs.ndim, vs.shape, vs.strides, dim);
    shape_lanes_init(&a.lo, vo.ndim, vo.shape, vo.strides, dim);
    if (a.li.lanes == 0 || a.li.n == 0)
        return cannonOpFinish(&op);
    int64_t per = a.li.n >= CS_BLOCK_ELEMS ? 1 : CS_BLOCK_ELEMS / a.li.n;
    while ((a.li.lanes + per - 1) / per > (int64_t)1 << 24)
        per *= 2;
    a.per_block = per;
    const cannon_arg_ref refs[2] = {
        {(uint32_t)offsetof(cs_args, x), sx, vs.offset * a.xes},
        {(uint32_t)offsetof(cs_args, out), so, vo.offset * a.oes},
    };
    cannonOpKernel(&op, "Cumsum", cs_kernel, (uint32_t)((a.li.lanes + per - 1) / per), &a, sizeof a, refs, 2);
    return cannonOpFinish(&op);
}
