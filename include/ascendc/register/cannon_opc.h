/**
 * @file register/cannon_opc.h
 * The interface between a custom operator package built by cannon-opc and libcannon_opdef:
 * the generated aclnn<Op>GetWorkspaceSize / aclnn<Op> call cannonOpcPhase1 / cannonOpcPhase2,
 * and each kernel binary of the package (one per DataType column) exports `cannon_opc_kernel`,
 * the launch trampoline that reads a cannon_opc_blob. C11 and C++.
 */
#ifndef CANNON_REGISTER_CANNON_OPC_H_
#define CANNON_REGISTER_CANNON_OPC_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aclnn/aclnn_base.h"
#include "cannon/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Kernel arguments a package operator may have (inputs + outputs + workspace + tiling). */
#define CANNON_OPC_MAX_ARGS 64
/** Bytes of tiling data a TilingFunc may write. */
#define CANNON_OPC_TILING_CAPACITY 16384
/** Workspace sizes a TilingFunc may set (GetWorkspaceSizes). */
#define CANNON_OPC_MAX_WORKSPACES 16

/** One attribute value of a call, in OpDef order. kind: 1 bool, 2 int, 3 float, 4 string. */
typedef struct cannon_opc_attr {
    int kind;
    bool b;
    int64_t i;
    double f;
    const char *s;
} cannon_opc_attr;

/**
 * The argument blob of one package kernel launch: the kernel's pointer arguments in order (bound
 * at phase 2), followed by the tiling data (tiling_size bytes at tiling_offset from the blob's
 * start). The trampoline gives argument tiling_index the address of the launch's copy of the
 * tiling data.
 */
typedef struct cannon_opc_blob {
    uint64_t tiling_key;
    uint32_t n_args;
    uint32_t tiling_index;
    uint32_t tiling_offset;
    uint32_t tiling_size;
    void *args[CANNON_OPC_MAX_ARGS];
} cannon_opc_blob;

/**
 * Phase 1 of package operator @p op_type (its aclnn API @p api): checks the tensors (inputs then
 * outputs, in OpDef order; NULL for absent optional ones) against the OpDef's ParamType,
 * DataType and Format lists, runs InferShape (the outputs must have the inferred shapes) and the
 * TilingFunc, loads the kernel binary of the matching DataType column (<vendor>/op_impl/ai_core/
 * tbe/kernel/<kernel>/<kernel>_<column>.so, the vendor folder found from the library holding
 * @p anchor) and records the launch. Errors: 161001 (a required tensor is NULL), 161002 (dtype,
 * format, shape or attribute), 561002 (the TilingFunc failed), 561003 (no definition or no
 * kernel binary), each with a message for aclGetRecentErrMsg.
 */
CANNON_API aclnnStatus cannonOpcPhase1(const char *api, const char *op_type, const char *kernel, const void *anchor,
                                       const aclTensor *const *tensors, size_t n_inputs, size_t n_outputs,
                                       const cannon_opc_attr *attrs, size_t n_attrs, uint64_t *workspaceSize,
                                       aclOpExecutor **executor);
/** Phase 2: cannonExecutorRun. */
CANNON_API aclnnStatus cannonOpcPhase2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       aclrtStream stream, const char *api);
/**
 * The outputs' dtypes and shapes of package operator @p op_type for @p inputs (OpDef order, NULL
 * for absent optional ones) and @p attrs, from its InferDataType and InferShape (without them: the
 * first present input's). @p out_dims holds n_outputs rows of 25 dims. cannon.torch allocates
 * outputs with it. Errors: 161001, 161002 (wrong counts), 561001 (inference failed), 561003.
 */
CANNON_API aclnnStatus cannonOpcInfer(const char *op_type, const aclTensor *const *inputs, size_t n_inputs,
                                      const cannon_opc_attr *attrs, size_t n_attrs, size_t n_outputs,
                                      int32_t *out_dtypes, int64_t *out_dims, uint64_t *out_ndims);
/**
 * The operators registered so far (OP_ADD), as JSON: {"ops": [{"type", "inputs": [{"name",
 * "param_type", "dtypes", "formats"}], "outputs": [...], "attrs": [{"name", "kind", "required", "default"}],
 * "columns": n}]}. The string stays valid until the next call. cannon-opc reads it.
 */
CANNON_API const char *cannonOpcDescribe(void);

#ifdef __cplusplus
}
#endif

#endif /* CANNON_REGISTER_CANNON_OPC_H_ */
