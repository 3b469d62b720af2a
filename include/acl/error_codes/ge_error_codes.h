/* Graph-engine error codes of CANN. cannon has no graph engine; only the codes that the
 * runtime subset may meet are declared, with CANN's values. */
#ifndef CANNON_ACL_GE_ERROR_CODES_H_
#define CANNON_ACL_GE_ERROR_CODES_H_

#include <stdint.h>

static const uint32_t ACL_ERROR_GE_PARAM_INVALID      = 145000U;
static const uint32_t ACL_ERROR_GE_DATATYPE_INVALID   = 145022U;
static const uint32_t ACL_ERROR_GE_MEMORY_ALLOCATION  = 245000U;
static const uint32_t ACL_ERROR_GE_INTERNAL_ERROR     = 545000U;

#endif /* CANNON_ACL_GE_ERROR_CODES_H_ */
