/**
 * @file op_manifest.h
 * The operators libopapi implements, as its manifest lists them (src/ops/ops.def): for tools
 * (cannon-info --ops) and bindings (the Python binding declares each operator's argument types
 * from @c params). Implemented in libopapi.
 */
#ifndef CANNON_OP_MANIFEST_H_
#define CANNON_OP_MANIFEST_H_

#include <stddef.h>
#include <stdint.h>

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One operator. Strings have static storage. */
typedef struct cannon_op_info {
    const char *name;   /**< "aclnnSoftmax": phase 1 is name + "GetWorkspaceSize", phase 2 is name */
    const char *family; /**< the op family ("softmax", "norm", ...) */
    const char *header; /**< the public header, "aclnnop/aclnn_softmax.h" */
    uint64_t dtypes;    /**< the first tensor's dtypes, one bit per aclDataType (0: any) */
    const char *params; /**< phase 1's parameters before workspaceSize/executor, C syntax in parentheses */
    const char *doc;    /**< phase 1's documentation ("" when the header's covers it) */
} cannon_op_info;

/** The manifest: @p count (may be NULL) receives the number of entries. */
ACL_FUNC_VISIBILITY const cannon_op_info *cannonOpManifest(size_t *count);

#ifdef __cplusplus
}
#endif

#endif /* CANNON_OP_MANIFEST_H_ */
