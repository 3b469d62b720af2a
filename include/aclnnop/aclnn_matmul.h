/**
 * @file aclnn_matmul.h
 * torch.matmul semantics (1-D operands promoted and squeezed, batch dims broadcast) for FLOAT,
 * FLOAT16 and BFLOAT16 (self, mat2 and out of one dtype). FLOAT runs through the BLAS (OpenBLAS
 * sgemm, strided operands passed as transposes / leading dimensions, no copies); BFLOAT16 through
 * cannon's bf16 GEMM (AVX512-BF16 dot products, fp32 accumulation); FLOAT16 is computed in fp32.
 * cubeMathType (0..4) is accepted and does not change the result (fp32 stays fp32).
 * Two-phase aclnn API (see aclnn/aclnn_base.h); implemented in libopapi.
 * Generated from src/ops/ops.def by tools/opgen.py: edit the manifest, not this file.
 */
#ifndef OP_API_INC_MATMUL_H_
#define OP_API_INC_MATMUL_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnMatmul: checks the arguments and plans the computation. self: FLOAT, FLOAT16,
 * BFLOAT16.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMatmulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out, int8_t cubeMathType, uint64_t *workspaceSize, aclOpExecutor **executor);
/** Phase 2: run the plan of phase 1 on @p stream (asynchronous; synchronize before reading). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMatmul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_MATMUL_H_ */
