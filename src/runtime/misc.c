/* Helpers of acl_base_rt.h: data-type sizes, fp16 conversions, data buffers, application logs. */
#include "internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

ACL_FUNC_VISIBILITY size_t aclDataTypeSize(aclDataType dataType)
{
    /* CANN's table, quirks included: sub-byte types report 1; FP6/FP4 and unknown values fall to
     * the default branch and report 8. */
    switch (dataType) {
    case ACL_STRING:
    case ACL_DT_UNDEFINED:
        return 0;
    case ACL_UINT1:
    case ACL_INT4:
    case ACL_BOOL:
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0:
        return 1;
    case ACL_FLOAT16:
    case ACL_INT16:
    case ACL_UINT16:
    case ACL_BF16:
        return 2;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_COMPLEX32:
        return 4;
    case ACL_COMPLEX128:
        return 16;
    default:
        return 8;
    }
}

ACL_FUNC_VISIBILITY float aclFloat16ToFloat(aclFloat16 value)
{
    uint32_t sign = (value >> 15) & 1u, exp = (value >> 10) & 0x1fu, man = value & 0x3ffu;
    if (exp == 0x1f) {
        /* CANN saturates instead of producing inf/NaN. */
        if (man)
            return 98304.0f;
        return sign ? -65536.0f : 65536.0f;
    }
    float f;
    if (exp == 0)
        f = ldexpf((float)man, -24);
    else
        f = ldexpf((float)(man | 0x400u), (int)exp - 25);
    return sign ? -f : f;
}

ACL_FUNC_VISIBILITY aclFloat16 aclFloatToFloat16(float value)
{
    if (isnan(value))
        return 0x7bff;
    uint32_t bits;
    memcpy(&bits, &value, sizeof(bits));
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
    if (isinf(value))
        return (uint16_t)(sign | 0x7bffu);
    uint32_t abs = bits & 0x7fffffffu;
    if (abs >= 0x477ff000u) /* rounds to ≥ 65520: saturate to the largest finite value */
        return (uint16_t)(sign | 0x7bffu);
    if (abs < 0x38800000u) {
        /* Subnormal or zero in fp16: scale to units of 2^-24 and round to nearest even. */
        float a;
        memcpy(&a, &abs, sizeof(a));
        float scaled = a * 16777216.0f; /* exact */
        uint32_t q = (uint32_t)scaled;
        float rem = scaled - (float)q;
        if (rem > 0.5f || (rem == 0.5f && (q & 1u)))
            q++;
        return (uint16_t)(sign | q);
    }
    uint32_t exp = ((abs >> 23) - 127 + 15);
    uint32_t man = abs & 0x7fffffu;
    uint32_t h = (exp << 10) | (man >> 13);
    uint32_t rest = man & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
        h++;
    return (uint16_t)(sign | h);
}

struct aclDataBuffer {
    void *data;
    size_t size;
};

ACL_FUNC_VISIBILITY aclDataBuffer *aclCreateDataBuffer(void *data, size_t size)
{
    aclDataBuffer *b = cn_malloc(sizeof(*b));
    if (!b) {
        cn_error(ACL_ERROR_BAD_ALLOC, "aclCreateDataBuffer: out of memory");
        return NULL;
    }
    b->data = data;
    b->size = size;
    return b;
}

ACL_FUNC_VISIBILITY aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer)
{
    if (!dataBuffer)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclDestroyDataBuffer: dataBuffer is NULL");
    cn_free((void *)(uintptr_t)dataBuffer);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data, size_t size)
{
    if (!dataBuffer)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclUpdateDataBuffer: dataBuffer is NULL");
    dataBuffer->data = data;
    dataBuffer->size = size;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer)
{
    return dataBuffer ? dataBuffer->data : NULL;
}

ACL_FUNC_VISIBILITY uint32_t aclGetDataBufferSize(const aclDataBuffer *dataBuffer)
{
    return dataBuffer ? (uint32_t)dataBuffer->size : 0;
}

ACL_FUNC_VISIBILITY size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer)
{
    return dataBuffer ? dataBuffer->size : 0;
}

ACL_FUNC_VISIBILITY void aclAppLog(aclLogLevel logLevel, const char *func, const char *file, uint32_t line,
                                   const char *fmt, ...)
{
    int level = (int)logLevel;
    if (level < ACL_DEBUG || level > ACL_ERROR || !fmt || !cn_log_enabled(level, "APP"))
        return;
    char msg[1024 + 16];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, 1024, fmt, ap);
    va_end(ap);
    if (n >= 1024)
        strcpy(msg + 1024 - 16, "...[truncated]");
    cn_log_write(level, "APP", file ? file : "?", (int)line, "%s: %s", func ? func : "?", msg);
}
