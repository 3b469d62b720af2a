/**
 * @file aclnn_upsample_nearest_2d.h
 * out = self resized to outputSize along H and W by nearest-neighbour sampling.
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_UPSAMPLE_NEAREST_2D_H_
#define OP_API_INC_UPSAMPLE_NEAREST_2D_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnUpsampleNearest2d: @p self: rank 4, NCHW or ND (N, C, H, W) or NHWC (N, H, W, C),
 * any strides, not empty. @p outputSize: 2 values (OH, OW) > 0. @p out: self's dtype and layout, N
 * and C of self, any strides. out[.., oh, ow] = self[.., src(oh), src(ow)] with torch's nearest
 * index: the same index for equal sizes, dst / 2 for an exact doubling, else min(floor(dst * (in /
 * out)), in - 1) computed in fp32. Elements are copied bit for bit. Errors: 161001 NULL argument;
 * 161002 bad dtype, rank, format, empty self, outputSize or out shape. self: FLOAT, FLOAT16,
 * BFLOAT16, DOUBLE, UINT8.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleNearest2dGetWorkspaceSize(const aclTensor *self, const aclIntArray *outputSize, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleNearest2d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_UPSAMPLE_NEAREST_2D_H_ */
