/*
 * aclnnNpuFormatCast and aclnnNpuFormatCastCalculateSizeAndFormat: conversion between the plain
 * layouts (ND, NCL, NCHW, NCDHW) and FRACTAL_NZ.
 *
 * cannon's FRACTAL_NZ storage is the ND layout itself (see trans_weight_op.c): every matmul reads
 * an NZ-tagged tensor through its view's shape and strides as ND. So the conversion is a copy of
 * the source's elements into the destination's view, whichever way it goes, and a tensor made NZ
 * here multiplies exactly as the ND one it came from. The size helper keeps CANN's arithmetic:
 * the storage shape CANN's NZ layout has, (batch..., ceil(last / C0), ceil(second-last / 16), 16,
 * C0) with C0 = 32 bytes / the size of additionalDtype, and ACL_FORMAT_FRACTAL_NZ as the actual
 * format; its element count is never less than the view's, so a buffer sized by it holds the ND
 * data. Towards a plain format it returns the view shape itself.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aclnnop/aclnn_npu_format_cast.h"
#include "cannon/kernel.h"
#include "aclnn/opdev/cannon_access.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

typedef struct fc_args {
    const unsigned char *src;
    unsigned char *dst;
    int64_t bytes;
    int64_t chunk; /* bytes per block, a multiple of 64 */
} fc_args;

static int fc_copy_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const fc_args *a = args;
    const int64_t lo = (int64_t)ctx->block_idx * a->chunk;
    const int64_t n = a->bytes - lo < a->chunk ? a->bytes - lo : a->chunk;
    if (n > 0)
        memmove(a->dst + lo, a->src + lo, (size_t)n); /* views of one buffer may overlap */
    return 0;
}

static bool is_plain(aclFormat f)
{
    return f == ACL_FORMAT_ND || f == ACL_FORMAT_NCL || f == ACL_FORMAT_NCHW || f == ACL_FORMAT_NCDHW;
}

static bool is_nz(aclFormat f)
{
    return f == ACL_FORMAT_FRACTAL_NZ || f == ACL_FORMAT_FRACTAL_NZ_C0_16 || f == ACL_FORMAT_FRACTAL_NZ_C0_32 ||
           f == ACL_FORMAT_FRACTAL_NZ_C0_2 || f == ACL_FORMAT_FRACTAL_NZ_C0_4;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnNpuFormatCastGetWorkspaceSize(const aclTensor *srcTensor, aclTensor *dstTensor,
                                                                   uint64_t *workspaceSize, aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view s, d;
    cannonOpBegin(&op, "aclnnNpuFormatCast", workspaceSize, executor);
    cannonOpNotNulls(&op, "srcTensor", srcTensor, "dstTensor", dstTensor, NULL);
    cannonOpTensor(&op, "srcTensor", srcTensor, cn_dts_NpuFormatCast(), &s);
    cannonOpTensor(&op, "dstTensor", dstTensor, cn_dts_NpuFormatCast(), &d);
    cannonOpSameDtype(&op, "dstTensor", &d, "srcTensor", &s);
    cannonOpSameShape(&op, "dstTensor", &d, "srcTensor", &s);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    if (s.ndim < 2 || s.ndim > 6)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "srcTensor must have 2 to 6 dims (got %lld)", (long long)s.ndim);
    else if (!((is_plain(s.format) && is_nz(d.format)) || (is_nz(s.format) && is_plain(d.format))))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID,
                     "converting format %d to %d is not supported: one side must be ND (2), NCL (47), NCHW (0) "
                     "or NCDHW (30), the other FRACTAL_NZ (29, or its C0 forms 50-53)",
                     (int)s.format, (int)d.format);
    const int in = cannonOpInput(&op, srcTensor);
    const int out = cannonOpOutput(&op, dstTensor);
    const int64_t bytes = cannonTensorNumel(srcTensor) * (int64_t)cannonDtypeSize(s.dtype);
    if (!cannonOpOk(&op) || bytes == 0)
        return cannonOpFinish(&op);
    fc_args a;
    memset(&a, 0, sizeof a);
    a.bytes = bytes;
    a.chunk = (int64_t)1 << 20;
    cannon_arg_ref refs[2];
    cannonOpBind(&op, in, CANNON_BIND_IN, (uint32_t)offsetof(fc_args, src), &refs[0]);
    cannonOpBind(&op, out, CANNON_BIND_OUT, (uint32_t)offsetof(fc_args, dst), &refs[1]);
    cannonOpKernel(&op, "aclnnNpuFormatCast", fc_copy_kernel, (uint32_t)((bytes + a.chunk - 1) / a.chunk), &a,
                   sizeof a, refs, 2);
    return cannonOpFinish(&op);
}

/* C0 of FRACTAL_NZ for @p dt: 32 bytes of it (0 when @p dt is not an accepted type) */
static int64_t nz_c0(aclDataType dt)
{
    if (!cannonDtypeIn(dt, cn_dts_NpuFormatCast()))
        return 0;
    return 32 / (int64_t)cannonDtypeSize(dt);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnNpuFormatCastCalculateSizeAndFormat(const aclTensor *srcTensor,
                                                                         const int dstFormat, int additionalDtype,
                                                                         int64_t **dstShape, uint64_t *dstShapeSize,
                                                                         int *actualFormat)
{
    static const char api[] = "aclnnNpuFormatCastCalculateSizeAndFormat";
    if (!srcTensor || !dstShape || !dstShapeSize || !actualFormat)
        return (aclnnStatus)cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL", api,
                                              !srcTensor ? "srcTensor"
                                              : !dstShape ? "dstShape"
                                              : !dstShapeSize ? "dstShapeSize"
                                                              : "actualFormat");
    cannon_tensor_view s;
    if (!cannonTensorGetView(srcTensor, &s))
        return (aclnnStatus)cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: srcTensor is not a live aclTensor", api);
    if (!cannonDtypeIn(s.dtype, cn_dts_NpuFormatCast()))
        return (aclnnStatus)cannonReportError(ACLNN_ERR_PARAM_INVALID,
                                              "%s: srcTensor dtype %s is not INT8, UINT8, INT32, UINT32, FLOAT, "
                                              "FLOAT16 or BFLOAT16", api, cannonDtypeName(s.dtype));
    if (s.ndim < 2 || s.ndim > 6)
        return (aclnnStatus)cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: srcTensor must have 2 to 6 dims (got %lld)",
                                              api, (long long)s.ndim);
    const aclDataType base = additionalDtype == -1 ? s.dtype : (aclDataType)additionalDtype;
    const int64_t c0 = additionalDtype == -1 || (additionalDtype >= 0 && additionalDtype < 64) ? nz_c0(base) : 0;
    if (c0 == 0)
        return (aclnnStatus)cannonReportError(ACLNN_ERR_PARAM_INVALID,
                                              "%s: additionalDtype %d is not -1 or one of INT8 (2), UINT8 (4), INT32 "
                                              "(3), UINT32 (8), FLOAT (0), FLOAT16 (1), BFLOAT16 (27)",
                                              api, additionalDtype);
    const bool to_nz = is_plain(s.format) && dstFormat == ACL_FORMAT_FRACTAL_NZ;
    const bool from_nz = is_nz(s.format) && is_plain((aclFormat)dstFormat);
    if (!to_nz && !from_nz)
        return (aclnnStatus)cannonReportError(ACLNN_ERR_PARAM_INVALID,
                                              "%s: converting srcTensor's format %d to %d is not supported: ND (2), "
                                              "NCL (47), NCHW (0) or NCDHW (30) to FRACTAL_NZ (29), or back",
                                              api, (int)s.format, dstFormat);
    const int64_t n = to_nz ? s.ndim + 2 : s.ndim;
    int64_t *shape = malloc((size_t)n * sizeof *shape);
    if (!shape)
        return (aclnnStatus)cannonReportError(ACLNN_ERR_INNER_NULLPTR, "%s: out of memory", api);
    if (to_nz) {
        for (int64_t i = 0; i + 2 < s.ndim; i++)
            shape[i] = s.shape[i];
        shape[s.ndim - 2] = (s.shape[s.ndim - 1] + c0 - 1) / c0;
        shape[s.ndim - 1] = (s.shape[s.ndim - 2] + 15) / 16;
        shape[s.ndim] = 16;
        shape[s.ndim + 1] = c0;
    } else {
        memcpy(shape, s.shape, (size_t)n * sizeof *shape);
    }
    *dstShape = shape;
    *dstShapeSize = (uint64_t)n;
    *actualFormat = to_nz ? (int)ACL_FORMAT_FRACTAL_NZ : dstFormat;
    return ACLNN_SUCCESS;
}
