/*
 * aclnnInplaceIndexFillTensor: the indices are host values (an aclIntArray), so they are checked
 * here (negative values count from the end, as in torch); each distinct index is one fill of the
 * slice selfRef[..., index, ...] with the value converted to selfRef's dtype.
 */
#include <stdlib.h>
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_index_fill_tensor.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "shape_copy.h"

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceIndexFillTensorGetWorkspaceSize(aclTensor *selfRef, int64_t dim,
                                                                            const aclIntArray *index,
                                                                            const aclScalar *value,
                                                                            uint64_t *workspaceSize,
                                                                            aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vs;
    cannonOpBegin(&op, "aclnnInplaceIndexFillTensor", workspaceSize, executor);
    cannonOpNotNulls(&op, "selfRef", selfRef, "index", index, "value", value, NULL);
    cannonOpTensor(&op, "selfRef", selfRef, cn_dts_InplaceIndexFillTensor(), &vs);
    cannonOpDim(&op, "dim", &dim, vs.ndim);
    unsigned char val[16] = {0};
    aclDataType vdt = ACL_DT_UNDEFINED;
    if (cannonOpOk(&op) && !cannonScalarGet(value, &vdt, NULL))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "value is not a live aclScalar");
    else if (cannonOpOk(&op) && (!cannonDtypeIn(vdt, CANNON_DTS_REAL) || !shape_scalar_to(value, vs.dtype, val)))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "value dtype %s is not supported", cannonDtypeName(vdt));
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const int64_t one = 1, zero = 0;
    const int64_t *sshape = vs.ndim > 0 ? vs.shape : &one, *sstr = vs.ndim > 0 ? vs.strides : &zero;
    const int64_t sr = vs.ndim > 0 ? vs.ndim : 1, n = sshape[dim];
    uint64_t ni = 0;
    const int64_t *iv = cannonIntArrayData(index, &ni);
    int64_t *k = malloc((size_t)(ni > 0 ? ni : 1) * sizeof *k);
    if (!k) {
        cannonOpFail(&op, ACLNN_ERR_INNER_CREATE_EXECUTOR, "out of memory");
        return cannonOpFinish(&op);
    }
    for (uint64_t j = 0; j < ni; j++) {
        k[j] = iv[j] < 0 ? iv[j] + n : iv[j];
        if (k[j] < 0 || k[j] >= n) {
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "index[%llu] = %lld is out of range [%lld, %lld)",
                         (unsigned long long)j, (long long)iv[j], (long long)-n, (long long)n);
            break;
        }
    }
    if (cannonOpOk(&op))
        qsort(k, (size_t)ni, sizeof *k, cmp_i64);
    const int si = cannonOpInput(&op, selfRef);
    const int so = cannonOpOutput(&op, selfRef);
    (void)si;
    int64_t shape[CANNON_OP_MAX_RANK];
    for (int64_t d = 0; d < sr; d++)
        shape[d] = d == dim ? 1 : sshape[d];
    for (uint64_t j = 0; j < ni && cannonOpOk(&op); j++)
        if (j == 0 || k[j] != k[j - 1]) /* each distinct slice once */
            shape_record_fill(&op, so, vs.offset + k[j] * sstr[dim], sr, shape, sstr, cannonDtypeSize(vs.dtype), val);
    free(k);
    return cannonOpFinish(&op);
}
