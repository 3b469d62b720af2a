/**
 * @file acl.h
 * The umbrella header of the ACL runtime: lifecycle (aclInit/aclFinalize), error messages, the
 * runtime API of acl_rt.h, graph capture (acl_mdl.h) and the single-operator types (acl_op.h).
 * This is the header a CANN application includes.
 */
#ifndef CANNON_ACL_H_
#define CANNON_ACL_H_

#include "acl_rt.h"
#include "acl_op.h"
#include "acl_mdl.h"

#endif /* CANNON_ACL_H_ */
