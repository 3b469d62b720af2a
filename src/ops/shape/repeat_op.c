/*
 * aclnnRepeat: one copy. Each output dim d (repeats[d] * s[d] elements) is viewed as two dims
 * (repeats[d], s[d]); the source reads them with strides (0, its own stride), so the tiles are
 * copies of self. Up to 16 dims before the copy drops the size-1 ones and merges the rest.
 */
#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_repeat.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "shape_copy.h"

ACL_FUNC_VISIBILITY aclnnStatus aclnnRepeatGetWorkspaceSize(const aclTensor *self, const aclIntArray *repeats,
                                                            aclTensor *out, uint64_t *workspaceSize,
                                                            aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vs, vo;
    cannonOpBegin(&op, "aclnnRepeat", workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, "repeats", repeats, "out", out, NULL);
    cannonOpTensor(&op, "self", self, cn_dts_Repeat(), &vs);
    cannonOpTensor(&op, "out", out, cn_dts_Repeat(), &vo);
    cannonOpSameDtype(&op, "out", &vo, "self", &vs);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    uint64_t nr = 0;
    const int64_t *r = cannonIntArrayData(repeats, &nr);
    if ((int64_t)nr < vs.ndim)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "repeats has %llu values, fewer than self's %lld dims",
                     (unsigned long long)nr, (long long)vs.ndim);
    else if (nr > CANNON_OP_MAX_RANK)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "repeats has %llu values, more than %d", (unsigned long long)nr,
                     CANNON_OP_MAX_RANK);
    for (uint64_t i = 0; cannonOpOk(&op) && i < nr; i++)
        if (r[i] < 0)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "repeats[%llu] = %lld is negative", (unsigned long long)i,
                         (long long)r[i]);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const int64_t nd = (int64_t)nr, lead = nd - vs.ndim;
    int64_t eshape[CANNON_OP_MAX_RANK], s[CANNON_OP_MAX_RANK], st[CANNON_OP_MAX_RANK];
    for (int64_t d = 0; d < nd; d++) {
        s[d] = d < lead ? 1 : vs.shape[d - lead];
        st[d] = d < lead ? 0 : vs.strides[d - lead];
        if (s[d] > 0 && r[d] > CANNON_TENSOR_MAX_BYTES / s[d]) {
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "repeats[%lld] = %lld makes dim %lld too large",
                         (long long)d, (long long)r[d], (long long)d);
            return cannonOpFinish(&op);
        }
        eshape[d] = s[d] * r[d];
    }
    if (!shape_expect(&op, "out", &vo, nd, eshape))
        return cannonOpFinish(&op);

    const int ss = cannonOpInput(&op, self);
    const int so = cannonOpOutput(&op, out);
    if (shape_numel(&vo) == 0)
        return cannonOpFinish(&op);
    int64_t sh[SHAPE_MAX_DIMS], sst[SHAPE_MAX_DIMS], dst[SHAPE_MAX_DIMS];
    int64_t n = 0;
    for (int64_t d = 0; d < nd; d++) {
        sh[n] = r[d];
        sst[n] = 0;
        dst[n++] = vo.strides[d] * s[d];
        sh[n] = s[d];
        sst[n] = st[d];
        dst[n++] = vo.strides[d];
    }
    shape_geom g;
    shape_geom_init(&g, n, sh, sst, dst, cannonDtypeSize(vs.dtype));
    shape_record_copy(&op, ss, vs.offset, so, vo.offset, &g);
    return cannonOpFinish(&op);
}
