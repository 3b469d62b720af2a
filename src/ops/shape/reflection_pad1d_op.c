/*
 * aclnnReflectionPad1d: three copies along the last dim: the interior, and the two mirrored
 * borders read with a negative stride (out[..., i] = self[..., l - i] for i < l, and
 * out[..., l + W + k] = self[..., W - 2 - k]).
 */
#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_reflection_pad1d.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "shape_copy.h"

ACL_FUNC_VISIBILITY aclnnStatus aclnnReflectionPad1dGetWorkspaceSize(const aclTensor *self, const aclIntArray *padding,
                                                                     aclTensor *out, uint64_t *workspaceSize,
                                                                     aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vs, vo;
    cannonOpBegin(&op, "aclnnReflectionPad1d", workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, "padding", padding, "out", out, NULL);
    cannonOpTensor(&op, "self", self, cn_dts_ReflectionPad1d(), &vs);
    cannonOpTensor(&op, "out", out, cn_dts_ReflectionPad1d(), &vo);
    cannonOpSameDtype(&op, "out", &vo, "self", &vs);
    if (cannonOpOk(&op) && vs.ndim != 2 && vs.ndim != 3)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "self must have 2 or 3 dims, got %lld", (long long)vs.ndim);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    uint64_t np = 0;
    const int64_t *p = cannonIntArrayData(padding, &np);
    const int64_t nd = vs.ndim, W = vs.shape[nd - 1];
    if (np != 2)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "padding must hold 2 values, got %llu", (unsigned long long)np);
    else if (p[0] < 0 || p[1] < 0 || p[0] >= W || p[1] >= W)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "padding (%lld, %lld) must be >= 0 and below the last dim's size %lld",
                     (long long)p[0], (long long)p[1], (long long)W);
    for (int64_t d = 0; cannonOpOk(&op) && d < nd; d++)
        if (vs.shape[d] == 0 && (d > 0 || nd == 2))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "self may be empty only along the first dim of a 3-D tensor");
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const int64_t l = p[0], r = p[1];
    int64_t eshape[3];
    for (int64_t d = 0; d < nd; d++)
        eshape[d] = d == nd - 1 ? W + l + r : vs.shape[d];
    if (!shape_expect(&op, "out", &vo, nd, eshape))
        return cannonOpFinish(&op);
    const int ss = cannonOpInput(&op, self);
    const int so = cannonOpOutput(&op, out);
    const size_t es = cannonDtypeSize(vs.dtype);
    const int64_t sw = vs.strides[nd - 1], ow = vo.strides[nd - 1];
    int64_t shape[3], sst[3];
    for (int64_t d = 0; d < nd; d++) {
        shape[d] = vs.shape[d];
        sst[d] = vs.strides[d];
    }
    shape_geom g;
    shape_geom_init(&g, nd, shape, sst, vo.strides, es);
    shape_record_copy(&op, ss, vs.offset, so, vo.offset + l * ow, &g);
    sst[nd - 1] = -sw;
    shape[nd - 1] = l;
    shape_geom_init(&g, nd, shape, sst, vo.strides, es);
    shape_record_copy(&op, ss, vs.offset + l * sw, so, vo.offset, &g);
    shape[nd - 1] = r;
    shape_geom_init(&g, nd, shape, sst, vo.strides, es);
    shape_record_copy(&op, ss, vs.offset + (W - 2) * sw, so, vo.offset + (l + W) * ow, &g);
    return cannonOpFinish(&op);
}
