/*
 * aclnnInplaceIndexCopy: an indexed copy (shape_copy.h) in which selfRef is the indexed
 * destination: source's slice j along dim goes to selfRef's slice index[j]. With repeated indices
 * the last position wins.
 */
#include <string.h>

#include "aclnnop/aclnn_index_copy.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "shape_copy.h"

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceIndexCopyGetWorkspaceSize(aclTensor *selfRef, int64_t dim,
                                                                      const aclTensor *index, const aclTensor *source,
                                                                      uint64_t *workspaceSize, aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vs, vi, vc;
    cannonOpBegin(&op, "aclnnInplaceIndexCopy", workspaceSize, executor);
    cannonOpNotNulls(&op, "selfRef", selfRef, "index", index, "source", source, NULL);
    cannonOpTensor(&op, "selfRef", selfRef, cn_dts_InplaceIndexCopy(), &vs);
    cannonOpTensor(&op, "index", index, CANNON_DTS_INDEX, &vi);
    cannonOpTensor(&op, "source", source, cn_dts_InplaceIndexCopy(), &vc);
    cannonOpSameDtype(&op, "source", &vc, "selfRef", &vs);
    cannonOpDim(&op, "dim", &dim, vs.ndim);
    if (cannonOpOk(&op) && vi.ndim > 1)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "index must be 0-D or 1-D, got %lld dims", (long long)vi.ndim);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const int64_t n_index = shape_numel(&vi);
    /* 0-D tensors count as [1] */
    const int64_t one = 1, zero = 0;
    const int64_t sr = vs.ndim > 0 ? vs.ndim : 1, cr = vc.ndim > 0 ? vc.ndim : 1;
    const int64_t *sshape = vs.ndim > 0 ? vs.shape : &one, *sstr = vs.ndim > 0 ? vs.strides : &zero;
    const int64_t *cstr = vc.ndim > 0 ? vc.strides : &zero;
    if (vc.ndim == 0 && n_index != 1)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "a 0-D source needs exactly one index, got %lld",
                     (long long)n_index);
    else if (cr != sr)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "source has %lld dims, selfRef %lld", (long long)vc.ndim,
                     (long long)vs.ndim);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    int64_t eshape[CANNON_OP_MAX_RANK];
    for (int64_t d = 0; d < sr; d++)
        eshape[d] = d == dim ? n_index : sshape[d];
    if (vc.ndim > 0 && !shape_expect(&op, "source", &vc, sr, eshape))
        return cannonOpFinish(&op);

    shape_index_plan p;
    memset(&p, 0, sizeof p);
    p.scatter = 1;
    (void)cannonOpInput(&op, selfRef);
    p.index_slot = cannonOpInput(&op, index);
    p.src_slot = cannonOpInput(&op, source);
    p.dst_slot = cannonOpOutput(&op, selfRef);
    p.src_off = vc.offset;
    p.dst_off = vs.offset;
    p.esize = cannonDtypeSize(vs.dtype);
    p.index_dtype = vi.dtype;
    p.n_index = n_index;
    p.axis_size = sshape[dim];
    p.axis_stride = sstr[dim];
    p.n_outer = 1;
    for (int64_t d = 0; d < dim; d++) {
        p.outer_shape[d] = sshape[d];
        p.outer_sst[d] = cstr[d];
        p.outer_dst[d] = sstr[d];
        p.n_outer *= sshape[d];
    }
    p.outer_ndim = (int32_t)dim;
    p.index_shape[0] = n_index;
    p.index_other[0] = cstr[dim];
    p.index_ndim = 1;
    for (int64_t d = dim + 1; d < sr; d++) {
        p.inner_shape[p.inner_ndim] = sshape[d];
        p.inner_sst[p.inner_ndim] = cstr[d];
        p.inner_dst[p.inner_ndim] = sstr[d];
        p.inner_ndim++;
    }
    shape_record_index_copy(&op, &p);
    return cannonOpFinish(&op);
}
