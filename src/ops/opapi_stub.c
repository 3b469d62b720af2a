/*
 * Always part of libopapi, so the library builds (and keeps a stable identity) whatever operator
 * sources exist: the version of cannon it belongs to.
 */
#include "acl/acl_base.h"

#ifndef CANNON_VERSION_STRING
#define CANNON_VERSION_STRING "unknown"
#endif

/** cannon's version string ("MAJOR.MINOR.PATCH") as libopapi was built. Static storage; thread-safe. */
ACL_FUNC_VISIBILITY const char *cannonOpapiVersion(void);

ACL_FUNC_VISIBILITY const char *cannonOpapiVersion(void)
{
    return CANNON_VERSION_STRING;
}
