/*
 * From the manifest (ops.def): every operator's phase 2, which runs the plan its phase 1
 * recorded (cannonExecutorRun), and the manifest table of cannon/op_manifest.h.
 */
#include "op_manifest.h"

#define CANNON_OP_HEADER(header, doc)
#define CANNON_OP(name, family, header, dtypes, kind, kind_args, params, doc)                      \
    ACL_FUNC_VISIBILITY aclnnStatus aclnn##name(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, \
                                                aclrtStream stream)                                 \
    {                                                                                              \
        return cannonExecutorRun(workspace, workspaceSize, executor, stream, "aclnn" #name);       \
    }
#include "ops.def"
#undef CANNON_OP

static const cannon_op_info g_manifest[] = {
#define CANNON_OP(name, family, header, dtypes, kind, kind_args, params, doc)                      \
    {"aclnn" #name, #family, "aclnnop/" #header ".h", (dtypes), #params, doc},
#include "ops.def"
#undef CANNON_OP
};

ACL_FUNC_VISIBILITY const cannon_op_info *cannonOpManifest(size_t *count)
{
    if (count)
        *count = sizeof g_manifest / sizeof g_manifest[0];
    return g_manifest;
}
