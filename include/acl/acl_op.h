/**
 * @file acl_op.h
 * Types of CANN's single-operator API (aclop*) that acl_op_compiler.h names. cannon runs operators
 * through the aclnn API (aclnn/, aclnnop/); the aclop execution functions are not provided.
 */
#ifndef CANNON_ACL_OP_H_
#define CANNON_ACL_OP_H_

#include "acl_base.h"
#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aclopHandle aclopHandle;
typedef struct aclopAttr aclopAttr;
typedef struct aclopKernelDesc aclopKernelDesc;

typedef void (*aclDataDeallocator)(void *data, size_t length);

static const int ACL_COMPILE_FLAG_BIN_SELECTOR = 1;

typedef enum aclEngineType {
    ACL_ENGINE_SYS,
    ACL_ENGINE_AICORE,
    ACL_ENGINE_VECTOR
} aclopEngineType;

#ifdef __cplusplus
}
#endif

#endif /* CANNON_ACL_OP_H_ */
