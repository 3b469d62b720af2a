/**
 * @file aclnn_base.h
 * The base header of the aclnn operator API, included by every aclnnop/aclnn_<op>.h: the
 * descriptor API (acl_meta.h), the status codes (opdev/op_errno.h) and the library's optional
 * global initialisation.
 */
#ifndef CANNON_ACLNN_BASE_H_
#define CANNON_ACLNN_BASE_H_

#include "aclnn/acl_meta.h"
#include "aclnn/opdev/op_errno.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Optional global initialisation of the operator libraries. cannon needs none: @p configPath
 * (may be NULL) is accepted and ignored, and the call always returns ACLNN_SUCCESS. Thread-safe.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInit(const char *configPath);

/** Counterpart of aclnnInit; releases nothing and returns ACLNN_SUCCESS. Thread-safe. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnFinalize(void);

#ifdef __cplusplus
}
#endif

#endif /* CANNON_ACLNN_BASE_H_ */
