/*
 * Scalars, host arrays, tensor / scalar lists, their accessors (aclnn/opdev/cannon_access.h),
 * and aclnnInit / aclnnFinalize.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "nnopbase_internal.h"

ACL_FUNC_VISIBILITY aclnnStatus aclnnInit(const char *configPath)
{
    (void)configPath; /* nothing to configure: kernels are built in */
    return ACLNN_SUCCESS;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnFinalize(void)
{
    return ACLNN_SUCCESS;
}

/* ---- scalars ---------------------------------------------------------------------------------- */

/* Bytes of a scalar value of @p dt, or 0 when scalars of that type are not supported. */
static size_t scalar_size(aclDataType dt)
{
    switch (dt) {
    case ACL_BOOL:
    case ACL_INT8:
    case ACL_UINT8:
        return 1;
    case ACL_INT16:
    case ACL_UINT16:
    case ACL_FLOAT16:
    case ACL_BF16:
        return 2;
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_FLOAT:
    case ACL_COMPLEX32:
        return 4;
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_DOUBLE:
    case ACL_COMPLEX64:
        return 8;
    case ACL_COMPLEX128:
        return 16;
    default:
        return 0;
    }
}

ACL_FUNC_VISIBILITY aclScalar *aclCreateScalar(void *value, aclDataType dataType)
{
    if (!value) {
        NN_ERR(ACLNN_ERR_PARAM_NULLPTR, "aclCreateScalar: value is NULL");
        return NULL;
    }
    size_t n = scalar_size(dataType);
    if (n == 0) {
        NN_ERR(ACLNN_ERR_PARAM_INVALID, "aclCreateScalar: data type %d is not supported for scalars", (int)dataType);
        return NULL;
    }
    aclScalar *s = nn_stash_take(NN_STASH_SCALAR);
    if (!s)
        s = malloc(sizeof(*s));
    if (!s) {
        NN_ERR(ACLNN_ERR_INNER_NULLPTR, "aclCreateScalar: out of memory");
        return NULL;
    }
    s->dtype = dataType;
    memset(&s->v, 0, sizeof(s->v));
    memcpy(s->v.bytes, value, n); /* the caller's value may be unaligned: copy bytes */
    nn_register(&s->hdr, NN_SCALAR);
    return s;
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyScalar(const aclScalar *scalar)
{
    if (!scalar)
        return ACLNN_SUCCESS;
    if (!nn_unregister(scalar, NN_SCALAR))
        return NN_ERR(ACLNN_ERR_PARAM_INVALID,
                      "aclDestroyScalar: %p is not a live aclScalar (destroyed twice, or a foreign handle)",
                      (const void *)scalar);
    if (!nn_stash_put(NN_STASH_SCALAR, (void *)scalar))
        free((void *)scalar);
    return ACLNN_SUCCESS;
}

/* IEEE half → float, exact (including subnormals, infinities and NaN). */
static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);
    } else if (exp == 0) {
        float f = ldexpf((float)man, -24); /* subnormal (or zero): man × 2^-24 */
        return sign ? -f : f;
    } else {
        bits = sign | ((exp + 112u) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

static float bf16_to_float(uint16_t b)
{
    uint32_t bits = (uint32_t)b << 16;
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

static bool check_scalar(const char *api, const aclScalar *s)
{
    if (!s) {
        NN_ERR(ACLNN_ERR_PARAM_NULLPTR, "%s: scalar is NULL", api);
        return false;
    }
    if (!nn_is_live(s, NN_SCALAR)) {
        NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: %p is not a live aclScalar", api, (const void *)s);
        return false;
    }
    return true;
}

ACL_FUNC_VISIBILITY bool cannonScalarGet(const aclScalar *s, aclDataType *dtype, void *out)
{
    if (!check_scalar("cannonScalarGet", s))
        return false;
    if (dtype)
        *dtype = s->dtype;
    if (out)
        memcpy(out, s->v.bytes, scalar_size(s->dtype));
    return true;
}

ACL_FUNC_VISIBILITY double cannonScalarToDouble(const aclScalar *s)
{
    if (!check_scalar("cannonScalarToDouble", s))
        return 0.0;
    const unsigned char *b = s->v.bytes;
    union {
        int8_t i8;
        uint8_t u8;
        int16_t i16;
        uint16_t u16;
        int32_t i32;
        uint32_t u32;
        int64_t i64;
        uint64_t u64;
        float f;
        double d;
    } v;
    memcpy(&v, b, sizeof(v) < 16 ? sizeof(v) : 16);
    switch (s->dtype) {
    case ACL_BOOL:
        return v.u8 ? 1.0 : 0.0;
    case ACL_INT8:
        return v.i8;
    case ACL_UINT8:
        return v.u8;
    case ACL_INT16:
        return v.i16;
    case ACL_UINT16:
        return v.u16;
    case ACL_INT32:
        return v.i32;
    case ACL_UINT32:
        return v.u32;
    case ACL_INT64:
        return (double)v.i64;
    case ACL_UINT64:
        return (double)v.u64;
    case ACL_FLOAT16:
    case ACL_COMPLEX32: /* real part first */
        return half_to_float(v.u16);
    case ACL_BF16:
        return bf16_to_float(v.u16);
    case ACL_FLOAT:
    case ACL_COMPLEX64:
        return v.f;
    case ACL_DOUBLE:
    case ACL_COMPLEX128:
        return v.d;
    default:
        return 0.0;
    }
}

ACL_FUNC_VISIBILITY int64_t cannonScalarToInt64(const aclScalar *s)
{
    if (!check_scalar("cannonScalarToInt64", s))
        return 0;
    switch (s->dtype) {
    case ACL_INT64: {
        int64_t v;
        memcpy(&v, s->v.bytes, sizeof(v));
        return v;
    }
    case ACL_UINT64: {
        uint64_t v;
        memcpy(&v, s->v.bytes, sizeof(v));
        return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
    }
    default: {
        /* every other type is exactly representable as a double */
        double d = cannonScalarToDouble(s);
        if (d != d)
            return 0;
        if (d >= 9223372036854775807.0)
            return INT64_MAX;
        if (d <= -9223372036854775808.0)
            return INT64_MIN;
        return (int64_t)d;
    }
    }
}

/* ---- host arrays ------------------------------------------------------------------------------ */

static nn_array *array_create(const char *api, const void *value, uint64_t size, size_t elem, nn_kind kind)
{
    if (size > 0 && !value) {
        NN_ERR(ACLNN_ERR_PARAM_NULLPTR, "%s: value is NULL but size is %llu", api, (unsigned long long)size);
        return NULL;
    }
    if (size > SIZE_MAX / elem) {
        NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: size %llu is too large", api, (unsigned long long)size);
        return NULL;
    }
    nn_array *a = calloc(1, sizeof(*a));
    void *data = size ? malloc((size_t)size * elem) : NULL;
    if (!a || (size && !data)) {
        free(a);
        free(data);
        NN_ERR(ACLNN_ERR_INNER_NULLPTR, "%s: out of memory", api);
        return NULL;
    }
    if (size)
        memcpy(data, value, (size_t)size * elem);
    a->size = size;
    a->data = data;
    nn_register(&a->hdr, kind);
    return a;
}

static aclnnStatus array_destroy(const char *api, const void *p, nn_kind kind)
{
    if (!p)
        return ACLNN_SUCCESS;
    if (!nn_unregister(p, kind))
        return NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: %p is not a live handle of this type (destroyed twice, or foreign)",
                      api, p);
    nn_array *a = (nn_array *)(uintptr_t)p;
    free(a->data);
    free(a);
    return ACLNN_SUCCESS;
}

static aclnnStatus size_get(const char *api, const void *p, nn_kind kind, uint64_t *size)
{
    if (!p || !size)
        return NN_ERR(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL", api, !p ? "the handle" : "size");
    if (!nn_is_live(p, kind))
        return NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: %p is not a live handle of this type", api, p);
    /* arrays and lists both keep the count right after the header */
    *size = kind == NN_TENSOR_LIST || kind == NN_SCALAR_LIST ? ((const nn_list *)p)->size
                                                             : ((const nn_array *)p)->size;
    return ACLNN_SUCCESS;
}

ACL_FUNC_VISIBILITY aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size)
{
    return (aclIntArray *)array_create("aclCreateIntArray", value, size, sizeof(int64_t), NN_INT_ARRAY);
}

ACL_FUNC_VISIBILITY aclFloatArray *aclCreateFloatArray(const float *value, uint64_t size)
{
    return (aclFloatArray *)array_create("aclCreateFloatArray", value, size, sizeof(float), NN_FLOAT_ARRAY);
}

ACL_FUNC_VISIBILITY aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size)
{
    return (aclBoolArray *)array_create("aclCreateBoolArray", value, size, sizeof(bool), NN_BOOL_ARRAY);
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyIntArray(const aclIntArray *array)
{
    return array_destroy("aclDestroyIntArray", array, NN_INT_ARRAY);
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyFloatArray(const aclFloatArray *array)
{
    return array_destroy("aclDestroyFloatArray", array, NN_FLOAT_ARRAY);
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyBoolArray(const aclBoolArray *array)
{
    return array_destroy("aclDestroyBoolArray", array, NN_BOOL_ARRAY);
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetIntArraySize(const aclIntArray *array, uint64_t *size)
{
    return size_get("aclGetIntArraySize", array, NN_INT_ARRAY, size);
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetFloatArraySize(const aclFloatArray *array, uint64_t *size)
{
    return size_get("aclGetFloatArraySize", array, NN_FLOAT_ARRAY, size);
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetBoolArraySize(const aclBoolArray *array, uint64_t *size)
{
    return size_get("aclGetBoolArraySize", array, NN_BOOL_ARRAY, size);
}

static const void *array_data(const char *api, const void *p, nn_kind kind, uint64_t *size)
{
    uint64_t n = 0;
    const void *data = NULL;
    if (size_get(api, p, kind, &n) == ACLNN_SUCCESS)
        data = ((const nn_array *)p)->data;
    if (size)
        *size = n;
    return data;
}

ACL_FUNC_VISIBILITY const int64_t *cannonIntArrayData(const aclIntArray *a, uint64_t *size)
{
    return array_data("cannonIntArrayData", a, NN_INT_ARRAY, size);
}

ACL_FUNC_VISIBILITY const float *cannonFloatArrayData(const aclFloatArray *a, uint64_t *size)
{
    return array_data("cannonFloatArrayData", a, NN_FLOAT_ARRAY, size);
}

ACL_FUNC_VISIBILITY const bool *cannonBoolArrayData(const aclBoolArray *a, uint64_t *size)
{
    return array_data("cannonBoolArrayData", a, NN_BOOL_ARRAY, size);
}

/* ---- lists ------------------------------------------------------------------------------------- */

static nn_list *list_create(const char *api, const void *const *value, uint64_t size, nn_kind list_kind,
                            nn_kind item_kind)
{
    if (size > 0 && !value) {
        NN_ERR(ACLNN_ERR_PARAM_NULLPTR, "%s: value is NULL but size is %llu", api, (unsigned long long)size);
        return NULL;
    }
    if (size > SIZE_MAX / sizeof(nn_obj *)) {
        NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: size %llu is too large", api, (unsigned long long)size);
        return NULL;
    }
    for (uint64_t i = 0; i < size; i++) {
        if (value[i] && !nn_is_live(value[i], item_kind)) {
            NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: element %llu (%p) is not a live %s", api, (unsigned long long)i,
                   value[i], item_kind == NN_TENSOR ? "aclTensor" : "aclScalar");
            return NULL;
        }
    }
    nn_list *l = calloc(1, sizeof(*l));
    nn_obj **items = size ? malloc((size_t)size * sizeof(*items)) : NULL;
    if (!l || (size && !items)) {
        free(l);
        free(items);
        NN_ERR(ACLNN_ERR_INNER_NULLPTR, "%s: out of memory", api);
        return NULL;
    }
    for (uint64_t i = 0; i < size; i++)
        items[i] = (nn_obj *)(uintptr_t)value[i];
    l->size = size;
    l->items = items;
    nn_register(&l->hdr, list_kind);
    return l;
}

static aclnnStatus list_destroy(const char *api, const void *p, nn_kind list_kind, nn_kind item_kind)
{
    if (!p)
        return ACLNN_SUCCESS;
    if (!nn_unregister(p, list_kind))
        return NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: %p is not a live list of this type (destroyed twice, or foreign)",
                      api, p);
    nn_list *l = (nn_list *)(uintptr_t)p;
    aclnnStatus rc = ACLNN_SUCCESS;
    for (uint64_t i = 0; i < l->size; i++) {
        nn_obj *o = l->items[i];
        if (!o)
            continue;
        /* CANN's lists own their elements. One destroyed separately (or listed twice) is skipped
         * rather than freed again, and reported. */
        if (nn_unregister(o, item_kind))
            free(o);
        else
            rc = NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: element %llu (%p) was already destroyed", api,
                        (unsigned long long)i, (void *)o);
    }
    free(l->items);
    free(l);
    return rc;
}

ACL_FUNC_VISIBILITY aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size)
{
    return (aclTensorList *)list_create("aclCreateTensorList", (const void *const *)value, size, NN_TENSOR_LIST,
                                        NN_TENSOR);
}

ACL_FUNC_VISIBILITY aclScalarList *aclCreateScalarList(const aclScalar *const *value, uint64_t size)
{
    return (aclScalarList *)list_create("aclCreateScalarList", (const void *const *)value, size, NN_SCALAR_LIST,
                                        NN_SCALAR);
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensorList(const aclTensorList *array)
{
    return list_destroy("aclDestroyTensorList", array, NN_TENSOR_LIST, NN_TENSOR);
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyScalarList(const aclScalarList *array)
{
    return list_destroy("aclDestroyScalarList", array, NN_SCALAR_LIST, NN_SCALAR);
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetTensorListSize(const aclTensorList *tensorList, uint64_t *size)
{
    return size_get("aclGetTensorListSize", tensorList, NN_TENSOR_LIST, size);
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetScalarListSize(const aclScalarList *scalarList, uint64_t *size)
{
    return size_get("aclGetScalarListSize", scalarList, NN_SCALAR_LIST, size);
}

static const void *list_get(const char *api, const void *p, nn_kind kind, uint64_t i)
{
    uint64_t n = 0;
    if (size_get(api, p, kind, &n) != ACLNN_SUCCESS)
        return NULL;
    if (i >= n) {
        NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: index %llu is out of the list's %llu elements", api,
               (unsigned long long)i, (unsigned long long)n);
        return NULL;
    }
    return ((const nn_list *)p)->items[i];
}

ACL_FUNC_VISIBILITY const aclTensor *cannonTensorListGet(const aclTensorList *l, uint64_t i)
{
    return list_get("cannonTensorListGet", l, NN_TENSOR_LIST, i);
}

ACL_FUNC_VISIBILITY const aclScalar *cannonScalarListGet(const aclScalarList *l, uint64_t i)
{
    return list_get("cannonScalarListGet", l, NN_SCALAR_LIST, i);
}
