/*
 * aclnnInplaceIndexCopy: an indexed copy (shape_copy.h) in which selfRef is the indexed
 * destination: source's slice j along dim goes to selfRef's slice index[j]. With repeated indices
 * the last position wins. aclnnIndexCopy first copies selfRef to outRef, then does the same into
 * outRef.
 */
#include <string.h>

#include "aclnnop/aclnn_index_copy.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "shape_copy.h"

/* Phase 1 of both: @p out NULL is the in-place form. */
static aclnnStatus index_copy_phase1(const char *api, cannon_dtype_set dts, aclTensor *selfRef, int64_t dim,
                                     const aclTensor *index, const aclTensor *source, aclTensor *out,
                                     uint64_t *workspaceSize, aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vs, vi, vc, vo;
    cannonOpBegin(&op, api, workspaceSize, executor);
    if (out)
        cannonOpNotNulls(&op, "selfRef", selfRef, "index", index, "source", source, "outRef", out, NULL);
    else
        cannonOpNotNulls(&op, "selfRef", selfRef, "index", index, "source", source, NULL);
    cannonOpTensor(&op, "selfRef", selfRef, dts, &vs);
    cannonOpTensor(&op, "index", index, CANNON_DTS_INDEX, &vi);
    cannonOpTensor(&op, "source", source, dts, &vc);
    cannonOpSameDtype(&op, "source", &vc, "selfRef", &vs);
    if (out) {
        cannonOpTensor(&op, "outRef", out, dts, &vo);
        cannonOpSameDtype(&op, "outRef", &vo, "selfRef", &vs);
        cannonOpSameShape(&op, "outRef", &vo, "selfRef", &vs);
    } else {
        vo = vs;
    }
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
    const int64_t *ostr = vo.ndim > 0 ? vo.strides : &zero;
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
    const int self_slot = cannonOpInput(&op, selfRef);
    p.index_slot = cannonOpInput(&op, index);
    p.src_slot = cannonOpInput(&op, source);
    p.dst_slot = cannonOpOutput(&op, out ? out : selfRef);
    p.src_off = vc.offset;
    p.dst_off = vo.offset;
    if (out) {
        /* outRef = selfRef first; the indexed copy then writes into outRef */
        shape_geom g;
        shape_geom_init(&g, sr, sshape, sstr, ostr, cannonDtypeSize(vs.dtype));
        shape_record_copy(&op, self_slot, vs.offset, p.dst_slot, vo.offset, &g);
    }
    p.esize = cannonDtypeSize(vs.dtype);
    p.index_dtype = vi.dtype;
    p.n_index = n_index;
    p.axis_size = sshape[dim];
    p.axis_stride = ostr[dim];
    p.n_outer = 1;
    for (int64_t d = 0; d < dim; d++) {
        p.outer_shape[d] = sshape[d];
        p.outer_sst[d] = cstr[d];
        p.outer_dst[d] = ostr[d];
        p.n_outer *= sshape[d];
    }
    p.outer_ndim = (int32_t)dim;
    p.index_shape[0] = n_index;
    p.index_other[0] = cstr[dim];
    p.index_ndim = 1;
    for (int64_t d = dim + 1; d < sr; d++) {
        p.inner_shape[p.inner_ndim] = sshape[d];
        p.inner_sst[p.inner_ndim] = cstr[d];
        p.inner_dst[p.inner_ndim] = ostr[d];
        p.inner_ndim++;
    }
    shape_record_index_copy(&op, &p);
    return cannonOpFinish(&op);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceIndexCopyGetWorkspaceSize(aclTensor *selfRef, int64_t dim,
                                                                      const aclTensor *index, const aclTensor *source,
                                                                      uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return index_copy_phase1("aclnnInplaceIndexCopy", cn_dts_InplaceIndexCopy(), selfRef, dim, index, source, NULL,
                             workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnIndexCopyGetWorkspaceSize(aclTensor *selfRef, int64_t dim, const aclTensor *index,
                                                               const aclTensor *source, aclTensor *outRef,
                                                               uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (!outRef) { /* NULL outRef is an argument error, not the in-place form */
        cannon_op op;
        cannonOpBegin(&op, "aclnnIndexCopy", workspaceSize, executor);
        cannonOpNotNulls(&op, "selfRef", selfRef, "index", index, "source", source, "outRef", outRef, NULL);
        return cannonOpFinish(&op);
    }
    return index_copy_phase1("aclnnIndexCopy", cn_dts_IndexCopy(), selfRef, dim, index, source, outRef,
                             workspaceSize, executor);
}
