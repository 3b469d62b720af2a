/*
 * The dtype table of cannon/opdev.h: names, sizes and torch's promotion and cast rules, shared by
 * every operator.
 */
#include <stdio.h>
#include <string.h>

#include "nnopbase_internal.h"

typedef struct dt_info {
    aclDataType t;
    const char *name;
    unsigned char size; /* bytes; 0 for sub-byte and STRING */
} dt_info;

static const dt_info g_dt[] = {
    {ACL_FLOAT, "FLOAT", 4},
    {ACL_FLOAT16, "FLOAT16", 2},
    {ACL_INT8, "INT8", 1},
    {ACL_INT32, "INT32", 4},
    {ACL_UINT8, "UINT8", 1},
    {ACL_INT16, "INT16", 2},
    {ACL_UINT16, "UINT16", 2},
    {ACL_UINT32, "UINT32", 4},
    {ACL_INT64, "INT64", 8},
    {ACL_UINT64, "UINT64", 8},
    {ACL_DOUBLE, "DOUBLE", 8},
    {ACL_BOOL, "BOOL", 1},
    {ACL_STRING, "STRING", 0},
    {ACL_COMPLEX64, "COMPLEX64", 8},
    {ACL_COMPLEX128, "COMPLEX128", 16},
    {ACL_BF16, "BFLOAT16", 2},
    {ACL_INT4, "INT4", 0},
    {ACL_UINT1, "UINT1", 0},
    {ACL_COMPLEX32, "COMPLEX32", 4},
    {ACL_HIFLOAT8, "HIFLOAT8", 1},
    {ACL_FLOAT8_E5M2, "FLOAT8_E5M2", 1},
    {ACL_FLOAT8_E4M3FN, "FLOAT8_E4M3FN", 1},
    {ACL_FLOAT8_E8M0, "FLOAT8_E8M0", 1},
    {ACL_FLOAT6_E3M2, "FLOAT6_E3M2", 0},
    {ACL_FLOAT6_E2M3, "FLOAT6_E2M3", 0},
    {ACL_FLOAT4_E2M1, "FLOAT4_E2M1", 0},
    {ACL_FLOAT4_E1M2, "FLOAT4_E1M2", 0},
};

static const dt_info *info(aclDataType t)
{
    for (size_t i = 0; i < sizeof g_dt / sizeof g_dt[0]; i++)
        if (g_dt[i].t == t)
            return &g_dt[i];
    return NULL;
}

CANNON_API const char *cannonDtypeName(aclDataType t)
{
    const dt_info *d = info(t);
    return d ? d->name : "UNDEFINED";
}

CANNON_API size_t cannonDtypeSize(aclDataType t)
{
    const dt_info *d = info(t);
    return d ? d->size : 0;
}

size_t nn_elem_size(aclDataType dt)
{
    return cannonDtypeSize(dt);
}

CANNON_API bool cannonDtypeIn(aclDataType t, cannon_dtype_set set)
{
    return (int)t >= 0 && (int)t < 64 && (set & CANNON_DT(t)) != 0;
}

CANNON_API void cannonDtypeSetFormat(cannon_dtype_set set, char *buf, size_t cap)
{
    if (!buf || cap == 0)
        return;
    buf[0] = '\0';
    size_t k = 0;
    for (size_t i = 0; i < sizeof g_dt / sizeof g_dt[0] && k < cap; i++) {
        if (!cannonDtypeIn(g_dt[i].t, set))
            continue;
        int n = snprintf(buf + k, cap - k, "%s%s", k ? ", " : "", g_dt[i].name);
        if (n < 0)
            break;
        k += (size_t)n;
    }
}

/* 0: BOOL, 1: integral, 2: floating. */
static int category(aclDataType t)
{
    return t == ACL_BOOL ? 0 : cannonDtypeIn(t, CANNON_DTS_INTEGRAL) ? 1 : 2;
}

CANNON_API aclDataType cannonDtypePromote(aclDataType a, aclDataType b)
{
    if (!cannonDtypeIn(a, CANNON_DTS_REAL) || !cannonDtypeIn(b, CANNON_DTS_REAL))
        return ACL_DT_UNDEFINED;
    if (a == b)
        return a;
    const int ca = category(a), cb = category(b);
    if (ca != cb)
        return ca > cb ? a : b;
    if (ca == 2) {
        /* fp16 and bf16 have no common 16-bit type: both fit in fp32. */
        if ((a == ACL_FLOAT16 && b == ACL_BF16) || (a == ACL_BF16 && b == ACL_FLOAT16))
            return ACL_FLOAT;
        return cannonDtypeSize(a) >= cannonDtypeSize(b) ? a : b;
    }
    /* integers: uint8 with a signed type needs the next wider signed type to hold both ranges */
    if (a == ACL_UINT8 || b == ACL_UINT8) {
        const aclDataType s = a == ACL_UINT8 ? b : a;
        return s == ACL_INT8 ? ACL_INT16 : s;
    }
    return cannonDtypeSize(a) >= cannonDtypeSize(b) ? a : b;
}

CANNON_API aclDataType cannonDtypePromoteScalar(aclDataType tensor, aclDataType scalar)
{
    if (!cannonDtypeIn(tensor, CANNON_DTS_REAL))
        return ACL_DT_UNDEFINED;
    const int ct = category(tensor);
    const int cs = scalar == ACL_BOOL ? 0
                   : (cannonDtypeIn(scalar, CANNON_DTS_INTEGRAL) || scalar == ACL_UINT16 || scalar == ACL_UINT32 ||
                      scalar == ACL_UINT64)
                       ? 1
                       : 2;
    if (cs <= ct)
        return tensor;
    return cs == 2 ? ACL_FLOAT : ACL_INT64;
}

CANNON_API bool cannonDtypeCanCast(aclDataType from, aclDataType to)
{
    if (cannonDtypeIn(from, CANNON_DTS_FLOAT) && !cannonDtypeIn(to, CANNON_DTS_FLOAT))
        return false;
    if (from != ACL_BOOL && to == ACL_BOOL)
        return false;
    return true;
}
