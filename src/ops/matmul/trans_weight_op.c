/*
 * aclnnTransMatmulWeight and the NZ size helpers (aclnnCalculateMatmulWeightSize[V2]).
 *
 * CANN converts a matmul weight to FRACTAL_NZ, its cube unit's tiled layout, in place, and clients
 * then pass the weight to the matmuls tagged ACL_FORMAT_FRACTAL_NZ. cannon has no such unit: its
 * NZ storage is the ND layout itself. So TransMatmulWeight checks the weight and records no
 * work (its bytes stay as they are), and every matmul reads a weight tagged FRACTAL_NZ through its
 * view's shape and strides as ND, which gives the product of the original weight whatever the
 * client does with the tag. The size helpers keep CANN's arithmetic (the last two dims rounded up
 * to the NZ tile: 16 x 16 for 16-bit types, 16 x 32 for INT8): that is never less than the ND
 * element count, so a buffer sized by them holds the ND weight, and clients that allocate by it
 * allocate what they would on CANN.
 */
#include <stdint.h>

#include "aclnnop/aclnn_trans_matmul_weight.h"
#include "cannon/kernel.h"
#include "aclnn/opdev/cannon_access.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

ACL_FUNC_VISIBILITY aclnnStatus aclnnTransMatmulWeightGetWorkspaceSize(aclTensor *mmWeightRef, uint64_t *workspaceSize,
                                                                       aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vw;
    cannonOpBegin(&op, "aclnnTransMatmulWeight", workspaceSize, executor);
    cannonOpNotNulls(&op, "mmWeightRef", mmWeightRef, NULL);
    cannonOpTensor(&op, "mmWeightRef", mmWeightRef, cn_dts_TransMatmulWeight(), &vw);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    if (vw.ndim < 2 || vw.ndim > 6)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "mmWeightRef must have 2 to 6 dims (got %lld)", (long long)vw.ndim);
    else if (vw.format != ACL_FORMAT_ND && vw.format != ACL_FORMAT_FRACTAL_NZ)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "mmWeightRef's format %d is not ND (2) or FRACTAL_NZ (29)",
                     (int)vw.format);
    else if (cannonTensorNumel(mmWeightRef) == 0)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "mmWeightRef is empty");
    /* registered as both input and output (the conversion is in place); nothing to run */
    cannonOpInput(&op, mmWeightRef);
    cannonOpOutput(&op, mmWeightRef);
    return cannonOpFinish(&op);
}

static int64_t align_up(int64_t v, int64_t a)
{
    return (v + a - 1) / a * a;
}

static aclnnStatus weight_size(const char *api, const aclIntArray *tensorShape, aclDataType dataType,
                               uint64_t *weightTensorSize)
{
    if (!tensorShape || !weightTensorSize)
        return (aclnnStatus)cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL", api,
                                              !tensorShape ? "tensorShape" : "weightTensorSize");
    if (dataType != ACL_FLOAT16 && dataType != ACL_BF16 && dataType != ACL_INT8)
        return (aclnnStatus)cannonReportError(ACLNN_ERR_PARAM_INVALID,
                                              "%s: dataType %s is not FLOAT16, BFLOAT16 or INT8", api,
                                              cannonDtypeName(dataType));
    uint64_t n = 0;
    const int64_t *dims = cannonIntArrayData(tensorShape, &n);
    if (!dims || n == 0)
        return (aclnnStatus)cannonReportError(ACLNN_ERR_PARAM_INVALID,
                                              "%s: tensorShape is empty or not a live aclIntArray", api);
    if (n < 2 || n > 6)
        return (aclnnStatus)cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: tensorShape has %llu dims, not 2 to 6",
                                              api, (unsigned long long)n);
    for (uint64_t i = 0; i < n; i++)
        if (dims[i] < 0 || dims[i] > ((int64_t)1 << 48))
            return (aclnnStatus)cannonReportError(ACLNN_ERR_PARAM_INVALID,
                                                  "%s: tensorShape[%llu] = %lld is outside [0, 2^48]", api,
                                                  (unsigned long long)i, (long long)dims[i]);
    int64_t total = align_up(dims[n - 2], 16);
    if (__builtin_mul_overflow(total, align_up(dims[n - 1], dataType == ACL_INT8 ? 32 : 16), &total))
        total = -1;
    for (uint64_t i = 0; i + 2 < n && total >= 0; i++)
        if (__builtin_mul_overflow(total, dims[i], &total))
            total = -1;
    if (total < 0)
        return (aclnnStatus)cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: the weight's size overflows int64", api);
    *weightTensorSize = (uint64_t)total;
    return ACLNN_SUCCESS;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnCalculateMatmulWeightSizeV2(const aclIntArray *tensorShape, aclDataType dataType,
                                                                 uint64_t *weightTensorSize)
{
    return weight_size("aclnnCalculateMatmulWeightSizeV2", tensorShape, dataType, weightTensorSize);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnCalculateMatmulWeightSize(const aclIntArray *tensorShape,
                                                               uint64_t *weightTensorSize)
{
    return weight_size("aclnnCalculateMatmulWeightSize", tensorShape, ACL_FLOAT16, weightTensorSize);
}
