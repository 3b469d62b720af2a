/*
 * What libopapi's sources derive from the manifest (ops.def). Every operator source includes
 * this header (with its public header), so:
 *   - each phase 1 is declared from its manifest entry: a definition or public header whose
 *     parameters differ from the entry is a compile error;
 *   - cn_dts_<name>() gives the entry's dtype set, for the operator's first tensor check;
 *   - each one-phase helper (CANNON_OP_FUNC) is declared from its entry too.
 * op_manifest.c defines the phase-2 functions, the generic kinds' phase 1 and cannonOpManifest().
 */
#ifndef CANNON_OPS_OP_MANIFEST_H_
#define CANNON_OPS_OP_MANIFEST_H_

#include "aclnn/aclnn_base.h"
#include "cannon/op_manifest.h"
#include "cannon/opdev.h"

/* (params) -> (params, uint64_t *workspaceSize, aclOpExecutor **executor) */
#define CN_WS_PARAMS(...) (__VA_ARGS__, uint64_t *workspaceSize, aclOpExecutor **executor)

#define CANNON_OP_HEADER(header, doc)
#define CANNON_OP(name, family, header, dtypes, kind, kind_args, params, doc)                      \
    ACL_FUNC_VISIBILITY aclnnStatus aclnn##name##GetWorkspaceSize CN_WS_PARAMS params;             \
    ACL_FUNC_VISIBILITY aclnnStatus aclnn##name(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, \
                                                aclrtStream stream);                                \
    static inline cannon_dtype_set cn_dts_##name(void)                                            \
    {                                                                                              \
        return (dtypes);                                                                           \
    }
#define CANNON_OP_FUNC(name, family, header, params, doc) ACL_FUNC_VISIBILITY aclnnStatus aclnn##name params;
#include "ops.def"
#undef CANNON_OP_FUNC
#undef CANNON_OP
#undef CANNON_OP_HEADER

#endif /* CANNON_OPS_OP_MANIFEST_H_ */
