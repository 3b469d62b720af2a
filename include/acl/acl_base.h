/**
 * @file acl_base.h
 * CANN's base header: types, error codes and helpers shared by every ACL library.
 */
#ifndef CANNON_ACL_BASE_H_
#define CANNON_ACL_BASE_H_

#include "acl_base_rt.h"

#endif /* CANNON_ACL_BASE_H_ */
