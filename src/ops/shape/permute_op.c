/*
 * aclnnPermute: one copy from self read through permuted strides.
 */
#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_permute.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "shape_copy.h"

ACL_FUNC_VISIBILITY aclnnStatus aclnnPermuteGetWorkspaceSize(const aclTensor *self, const aclIntArray *dims,
                                                             aclTensor *out, uint64_t *workspaceSize,
                                                             aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vs, vo;
    cannonOpBegin(&op, "aclnnPermute", workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, "dims", dims, "out", out, NULL);
    cannonOpTensor(&op, "self", self, cn_dts_Permute(), &vs);
    cannonOpTensor(&op, "out", out, cn_dts_Permute(), &vo);
    cannonOpSameDtype(&op, "out", &vo, "self", &vs);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    uint64_t n = 0;
    const int64_t *p = cannonIntArrayData(dims, &n);
    if ((int64_t)n != vs.ndim)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "dims has %llu values, self has %lld dims", (unsigned long long)n,
                     (long long)vs.ndim);
    int64_t perm[CANNON_OP_MAX_RANK];
    bool seen[CANNON_OP_MAX_RANK] = {false};
    for (int64_t i = 0; cannonOpOk(&op) && i < vs.ndim; i++) {
        int64_t d = p[i];
        if (d < -vs.ndim || d >= vs.ndim) {
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "dims[%lld] = %lld is out of range [%lld, %lld)", (long long)i,
                         (long long)d, (long long)-vs.ndim, (long long)vs.ndim);
            break;
        }
        if (d < 0)
            d += vs.ndim;
        if (seen[d]) {
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "dims repeats axis %lld: not a permutation", (long long)d);
            break;
        }
        seen[d] = true;
        perm[i] = d;
    }
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    int64_t eshape[CANNON_OP_MAX_RANK], sst[CANNON_OP_MAX_RANK];
    for (int64_t i = 0; i < vs.ndim; i++) {
        eshape[i] = vs.shape[perm[i]];
        sst[i] = vs.strides[perm[i]];
    }
    if (!shape_expect(&op, "out", &vo, vs.ndim, eshape))
        return cannonOpFinish(&op);
    const int ss = cannonOpInput(&op, self);
    const int so = cannonOpOutput(&op, out);
    shape_geom g;
    shape_geom_init(&g, vs.ndim, eshape, sst, vo.strides, cannonDtypeSize(vs.dtype));
    shape_record_copy(&op, ss, vs.offset, so, vo.offset, &g);
    return cannonOpFinish(&op);
}
