/**
 * @file acl.h
 * The umbrella header of the ACL runtime: lifecycle (aclInit/aclFinalize), error messages and
 * the runtime API of acl_rt.h. This is the header a CANN application includes.
 */
#ifndef CANNON_ACL_H_
#define CANNON_ACL_H_

#include "acl_rt.h"

#endif /* CANNON_ACL_H_ */
