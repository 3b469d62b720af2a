/*
 * aclnnCat: one copy per tensor of the list into its subview of out (offset along dim by the
 * sizes of the tensors before it); a tensor of another dtype than out is converted element by
 * element instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_cat.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "shape_copy.h"

/* The list length cap: far beyond any real use, it bounds phase 1's work and memory. */
#define CAT_MAX_TENSORS 65536

static bool legacy_empty(const cannon_tensor_view *v)
{
    return v->ndim == 1 && v->shape[0] == 0;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnCatGetWorkspaceSize(const aclTensorList *tensors, int64_t dim, aclTensor *out,
                                                         uint64_t *workspaceSize, aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vo;
    cannonOpBegin(&op, "aclnnCat", workspaceSize, executor);
    cannonOpNotNulls(&op, "tensors", tensors, "out", out, NULL);
    uint64_t n = 0;
    if (cannonOpOk(&op) && aclGetTensorListSize(tensors, &n) != ACLNN_SUCCESS)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "tensors is not a live aclTensorList");
    if (cannonOpOk(&op) && (n == 0 || n > CAT_MAX_TENSORS))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "tensors holds %llu tensors: 1 to %d are accepted",
                     (unsigned long long)n, CAT_MAX_TENSORS);
    for (uint64_t i = 0; cannonOpOk(&op) && i < n; i++)
        if (!cannonTensorListGet(tensors, i))
            cannonOpFail(&op, ACLNN_ERR_PARAM_NULLPTR, "tensors[%llu] is NULL", (unsigned long long)i);
    cannonOpTensor(&op, "out", out, cn_dts_Cat(), &vo);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    cannon_tensor_view *v = calloc(n, sizeof *v);
    if (!v) {
        cannonOpFail(&op, ACLNN_ERR_INNER_CREATE_EXECUTOR, "out of memory");
        return cannonOpFinish(&op);
    }
    char name[40];
    int64_t rank = -1, ref = -1;
    bool mixed = false;
    for (uint64_t i = 0; i < n && cannonOpOk(&op); i++) {
        snprintf(name, sizeof name, "tensors[%llu]", (unsigned long long)i);
        if (!cannonOpTensor(&op, name, cannonTensorListGet(tensors, i), cn_dts_Cat(), &v[i]))
            break;
        if (v[i].ndim == 0) {
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%s is 0-D: a 0-D tensor cannot be concatenated", name);
            break;
        }
        mixed = mixed || v[i].dtype != vo.dtype;
        if (legacy_empty(&v[i]))
            continue;
        if (rank < 0) {
            rank = v[i].ndim;
            ref = (int64_t)i;
        }
    }
    if (cannonOpOk(&op) && rank < 0) {
        rank = 1; /* every tensor is [0]: out is [0] */
        ref = 0;
    }
    cannonOpDim(&op, "dim", &dim, rank);
    /* dtypes: equal to out's, or promotable (BOOL, integers, floats) and castable to out's */
    if (cannonOpOk(&op) && mixed) {
        aclDataType pt = v[0].dtype;
        for (uint64_t i = 1; i < n; i++)
            pt = cannonDtypePromote(pt, v[i].dtype);
        if (pt == ACL_DT_UNDEFINED || !cannonDtypeIn(vo.dtype, CANNON_DTS_REAL))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID,
                         "tensors of different dtypes (%s, ...) into out %s: mixed lists take BOOL, integer and "
                         "floating types only", cannonDtypeName(v[0].dtype), cannonDtypeName(vo.dtype));
        else if (!cannonDtypeCanCast(pt, vo.dtype))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "the tensors' promoted dtype %s cannot be cast to out's %s",
                         cannonDtypeName(pt), cannonDtypeName(vo.dtype));
    }
    /* shapes */
    int64_t total = 0;
    for (uint64_t i = 0; i < n && cannonOpOk(&op); i++) {
        if (legacy_empty(&v[i]))
            continue; /* adds nothing, whatever its rank */
        if (v[i].ndim != rank) {
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "tensors[%llu] has %lld dims, tensors[%lld] %lld",
                         (unsigned long long)i, (long long)v[i].ndim, (long long)ref, (long long)rank);
            break;
        }
        for (int64_t d = 0; d < rank; d++)
            if (d != dim && v[i].shape[d] != v[ref].shape[d]) {
                cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID,
                             "tensors[%llu] has size %lld in dim %lld, tensors[%lld] %lld (only dim %lld may differ)",
                             (unsigned long long)i, (long long)v[i].shape[d], (long long)d, (long long)ref,
                             (long long)v[ref].shape[d], (long long)dim);
                break;
            }
        total += v[i].shape[dim];
        if (cannonOpOk(&op) && total > CANNON_TENSOR_MAX_BYTES)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "the tensors' sizes along dim add up to more than 2^48");
    }
    if (cannonOpOk(&op)) {
        int64_t eshape[CANNON_OP_MAX_RANK];
        for (int64_t d = 0; d < rank; d++)
            eshape[d] = d == dim ? total : v[ref].shape[d];
        shape_expect(&op, "out", &vo, rank, eshape);
    }
    if (!cannonOpOk(&op)) {
        free(v);
        return cannonOpFinish(&op);
    }

    int *slot = calloc(n, sizeof *slot);
    if (!slot) {
        free(v);
        cannonOpFail(&op, ACLNN_ERR_INNER_CREATE_EXECUTOR, "out of memory");
        return cannonOpFinish(&op);
    }
    for (uint64_t i = 0; i < n; i++)
        slot[i] = cannonOpInput(&op, cannonTensorListGet(tensors, i));
    const int so = cannonOpOutput(&op, out);
    int64_t at = 0;
    for (uint64_t i = 0; i < n && cannonOpOk(&op); i++) {
        if (legacy_empty(&v[i]))
            continue;
        shape_geom g;
        shape_geom_init(&g, rank, v[i].shape, v[i].strides, vo.strides, cannonDtypeSize(vo.dtype));
        const int64_t doff = vo.offset + at * vo.strides[dim];
        if (v[i].dtype == vo.dtype)
            shape_record_copy(&op, slot[i], v[i].offset, so, doff, &g);
        else
            shape_record_convert(&op, slot[i], v[i].offset, v[i].dtype, so, doff, vo.dtype, &g);
        at += v[i].shape[dim];
    }
    free(slot);
    free(v);
    return cannonOpFinish(&op);
}
