/*
 * aclnnGatherV2 and aclnnIndexSelect: an indexed copy (shape_copy.h) in which self is the indexed
 * source and out receives, for every outer index and index position, one inner block.
 */
#include <string.h>

#include "aclnnop/aclnn_gather_v2.h"
#include "aclnnop/aclnn_index_select.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "shape_copy.h"

/* Phase 1 of both: @p gather_nd (GatherV2) lets the index have any rank and puts its dims in
 * out; otherwise the index is 0-D or 1-D and replaces dim (IndexSelect). */
static aclnnStatus gather_phase1(const char *api, cannon_dtype_set dts, bool gather_nd, const aclTensor *self,
                                 int64_t dim, const aclTensor *index, aclTensor *out, uint64_t *workspaceSize,
                                 aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vs, vi, vo;
    cannonOpBegin(&op, api, workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, "index", index, "out", out, NULL);
    cannonOpTensor(&op, "self", self, dts, &vs);
    cannonOpTensor(&op, "index", index, CANNON_DTS_INDEX, &vi);
    cannonOpTensor(&op, "out", out, dts, &vo);
    cannonOpSameDtype(&op, "out", &vo, "self", &vs);
    cannonOpDim(&op, "dim", &dim, vs.ndim);
    if (cannonOpOk(&op) && !gather_nd && vi.ndim > 1)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "index must be 0-D or 1-D, got %lld dims", (long long)vi.ndim);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    /* a 0-D self counts as [1] */
    const int64_t one = 1, zero = 0;
    const int64_t sr = vs.ndim > 0 ? vs.ndim : 1;
    const int64_t *sshape = vs.ndim > 0 ? vs.shape : &one, *sstr = vs.ndim > 0 ? vs.strides : &zero;
    const int64_t n_index = shape_numel(&vi);
    /* the expected out shape: outer dims, the index dims, inner dims */
    int64_t eshape[2 * CANNON_OP_MAX_RANK];
    int64_t er = 0;
    for (int64_t d = 0; d < dim; d++)
        eshape[er++] = sshape[d];
    const int64_t idx_nd = gather_nd ? vi.ndim : 1;
    for (int64_t d = 0; d < idx_nd; d++)
        eshape[er++] = gather_nd ? vi.shape[d] : n_index;
    for (int64_t d = dim + 1; d < sr; d++)
        eshape[er++] = sshape[d];
    if (vs.ndim == 0 && !gather_nd) {
        er = vo.ndim == 0 ? 0 : 1; /* IndexSelect of a 0-D self: out 0-D or [1], one index */
        if (n_index != 1)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "a 0-D self takes exactly one index, got %lld",
                         (long long)n_index);
    }
    if (cannonOpOk(&op) && er > CANNON_OP_MAX_RANK)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "out would have %lld dims, more than %d", (long long)er,
                     CANNON_OP_MAX_RANK);
    if (!cannonOpOk(&op) || !shape_expect(&op, "out", &vo, er, eshape))
        return cannonOpFinish(&op);

    shape_index_plan p;
    memset(&p, 0, sizeof p);
    p.scatter = 0;
    p.src_slot = cannonOpInput(&op, self);
    p.index_slot = cannonOpInput(&op, index);
    p.dst_slot = cannonOpOutput(&op, out);
    p.src_off = vs.offset;
    p.dst_off = vo.offset;
    p.esize = cannonDtypeSize(vs.dtype);
    p.index_dtype = vi.dtype;
    p.neg_index = gather_nd; /* CANN's GatherV2 counts a negative index from the end; IndexSelect does not */
    p.n_index = n_index;
    p.axis_size = sshape[dim];
    p.axis_stride = sstr[dim];
    const int64_t one_st = 0;
    const int64_t *ostr = vo.ndim > 0 ? vo.strides : &one_st;
    int64_t od = 0; /* walks out's dims */
    p.n_outer = 1;
    for (int64_t d = 0; d < dim; d++, od++) {
        p.outer_shape[d] = sshape[d];
        p.outer_sst[d] = sstr[d];
        p.outer_dst[d] = ostr[od];
        p.n_outer *= sshape[d];
    }
    p.outer_ndim = (int32_t)dim;
    if (gather_nd) {
        for (int64_t d = 0; d < vi.ndim; d++, od++) {
            p.index_shape[d] = vi.shape[d];
            p.index_other[d] = vo.strides[od];
        }
        p.index_ndim = (int32_t)vi.ndim;
    } else {
        p.index_shape[0] = n_index;
        p.index_other[0] = od < vo.ndim ? ostr[od] : 0;
        p.index_ndim = 1;
        od++;
    }
    for (int64_t d = dim + 1; d < sr; d++, od++) {
        p.inner_shape[p.inner_ndim] = sshape[d];
        p.inner_sst[p.inner_ndim] = sstr[d];
        p.inner_dst[p.inner_ndim] = ostr[od];
        p.inner_ndim++;
    }
    shape_record_index_copy(&op, &p);
    return cannonOpFinish(&op);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnGatherV2GetWorkspaceSize(const aclTensor *self, int64_t dim,
                                                              const aclTensor *index, aclTensor *out,
                                                              uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return gather_phase1("aclnnGatherV2", cn_dts_GatherV2(), true, self, dim, index, out, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnIndexSelectGetWorkspaceSize(const aclTensor *self, int64_t dim,
                                                                 const aclTensor *index, aclTensor *out,
                                                                 uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return gather_phase1("aclnnIndexSelect", cn_dts_IndexSelect(), false, self, dim, index, out, workspaceSize,
                         executor);
}
