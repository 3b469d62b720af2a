/*
 * Tensor descriptors: creation with view validation, getters, raw address, and the view
 * helpers of cannon/opdev.h.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "nnopbase_internal.h"

/* The validated content of a tensor description, filled by check_desc. */
typedef struct tensor_desc {
    int64_t ndim;
    int64_t shape[CANNON_MAX_DIMS];
    int64_t strides[CANNON_MAX_DIMS];
    uint64_t storage_ndim;
    int64_t storage_shape[CANNON_MAX_DIMS];
} tensor_desc;

/*
 * Validate the arguments of aclCreateTensor / aclInitTensor into @p d. Reports and returns
 * ACLNN_ERR_PARAM_INVALID (or _NULLPTR) on failure; @p api names the caller in messages.
 */
static aclnnStatus check_desc(const char *api, const int64_t *viewDims, uint64_t viewDimsNum, const int64_t *stride,
                              int64_t offset, const int64_t *storageDims, uint64_t storageDimsNum, tensor_desc *d)
{
    if (viewDimsNum > 0 && !viewDims)
        return NN_ERR(ACLNN_ERR_PARAM_NULLPTR, "%s: viewDims is NULL but viewDimsNum is %llu", api,
                      (unsigned long long)viewDimsNum);
    if (storageDimsNum > 0 && !storageDims)
        return NN_ERR(ACLNN_ERR_PARAM_NULLPTR, "%s: storageDims is NULL but storageDimsNum is %llu", api,
                      (unsigned long long)storageDimsNum);
    if (viewDimsNum > CANNON_MAX_DIMS)
        return NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: viewDimsNum %llu exceeds the maximum rank %d", api,
                      (unsigned long long)viewDimsNum, CANNON_MAX_DIMS);
    if (storageDimsNum > CANNON_MAX_DIMS)
        return NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: storageDimsNum %llu exceeds the maximum rank %d", api,
                      (unsigned long long)storageDimsNum, CANNON_MAX_DIMS);
    if (offset < 0)
        return NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: offset %lld is negative", api, (long long)offset);
    d->ndim = (int64_t)viewDimsNum;
    int64_t numel = 1;
    for (uint64_t i = 0; i < viewDimsNum; i++) {
        if (viewDims[i] < 0)
            return NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: viewDims[%llu] = %lld is negative", api,
                          (unsigned long long)i, (long long)viewDims[i]);
        if (__builtin_mul_overflow(numel, viewDims[i], &numel))
            return NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: the view's element count overflows int64", api);
        d->shape[i] = viewDims[i];
    }
    if (stride) {
        for (uint64_t i = 0; i < viewDimsNum; i++) {
            if (stride[i] < 0)
                return NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: stride[%llu] = %lld is negative", api,
                              (unsigned long long)i, (long long)stride[i]);
            d->strides[i] = stride[i];
        }
    } else {
        /* Row-major contiguous; a zero-size dim leaves the product at 0 only after it, which
         * matches torch's contiguous strides as long as we never multiply by a zero dim. */
        int64_t s = 1;
        for (int64_t i = d->ndim - 1; i >= 0; i--) {
            d->strides[i] = s;
            int64_t dim = d->shape[i] > 1 ? d->shape[i] : 1;
            if (__builtin_mul_overflow(s, dim, &s))
                return NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: the view's strides overflow int64", api);
        }
    }
    /* Highest element index the view can reach from its first element (only meaningful when numel > 0).
     * The offset is not counted against the storage: CANN clients describe a view at an offset with a
     * storage of the view's own extent (ggml's CANN backend does so for the scales that follow a
     * quantized tensor's data), and CANN accepts them. */
    int64_t last = 0;
    for (int64_t i = 0; i < d->ndim && numel > 0; i++) {
        int64_t span;
        if (__builtin_mul_overflow(d->shape[i] - 1, d->strides[i], &span) || __builtin_add_overflow(last, span, &last))
            return NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: the view's extent overflows int64", api);
    }
    d->storage_ndim = storageDimsNum;
    int64_t storage_numel = 1;
    for (uint64_t i = 0; i < storageDimsNum; i++) {
        if (storageDims[i] < 0)
            return NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: storageDims[%llu] = %lld is negative", api,
                          (unsigned long long)i, (long long)storageDims[i]);
        if (__builtin_mul_overflow(storage_numel, storageDims[i], &storage_numel))
            return NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: the storage's element count overflows int64", api);
        d->storage_shape[i] = storageDims[i];
    }
    /* Only an explicitly given storage shape can be checked: CANN callers commonly pass none. */
    if (storageDimsNum > 0 && numel > 0 && last >= storage_numel)
        return NN_ERR(ACLNN_ERR_PARAM_INVALID,
                      "%s: the view spans %llu elements but the storage holds only %lld", api,
                      (unsigned long long)last + 1u, (long long)storage_numel);
    return ACLNN_SUCCESS;
}

static bool size_check(const aclTensor *t, char *why, size_t why_size);

static void apply_desc(aclTensor *t, const tensor_desc *d, aclDataType dataType, int64_t offset, aclFormat format,
                       void *data)
{
    t->dtype = dataType;
    t->format = format;
    t->ndim = d->ndim;
    t->offset = offset;
    t->data = data;
    t->storage_ndim = d->storage_ndim;
    memcpy(t->shape, d->shape, sizeof(int64_t) * (size_t)d->ndim);
    memcpy(t->strides, d->strides, sizeof(int64_t) * (size_t)d->ndim);
    memcpy(t->storage_shape, d->storage_shape, sizeof(int64_t) * (size_t)d->storage_ndim);
    t->size_ok = size_check(t, NULL, 0);
}

ACL_FUNC_VISIBILITY aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                                               const int64_t *stride, int64_t offset, aclFormat format,
                                               const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData)
{
    tensor_desc d;
    if (check_desc("aclCreateTensor", viewDims, viewDimsNum, stride, offset, storageDims, storageDimsNum, &d) !=
        ACLNN_SUCCESS)
        return NULL;
    aclTensor *t = nn_stash_take(NN_STASH_TENSOR);
    if (!t)
        t = calloc(1, sizeof(*t));
    if (!t) {
        NN_ERR(ACLNN_ERR_INNER_NULLPTR, "aclCreateTensor: out of memory");
        return NULL;
    }
    apply_desc(t, &d, dataType, offset, format, tensorData);
    nn_register(&t->hdr, NN_TENSOR);
    return t;
}

/* Validate a tensor argument of a status-returning API. */
static aclnnStatus check_tensor(const char *api, const aclTensor *t)
{
    if (!t)
        return NN_ERR(ACLNN_ERR_PARAM_NULLPTR, "%s: tensor is NULL", api);
    if (!nn_is_live(t, NN_TENSOR))
        return NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: %p is not a live aclTensor (destroyed or foreign handle)", api,
                      (const void *)t);
    return ACLNN_SUCCESS;
}

ACL_FUNC_VISIBILITY aclnnStatus aclInitTensor(aclTensor *tensor, const int64_t *viewDims, uint64_t viewDimsNum,
                                              aclDataType dataType, const int64_t *stride, int64_t offset,
                                              aclFormat format, const int64_t *storageDims, uint64_t storageDimsNum,
                                              void *tensorDataAddr)
{
    aclnnStatus rc = check_tensor("aclInitTensor", tensor);
    if (rc != ACLNN_SUCCESS)
        return rc;
    tensor_desc d;
    rc = check_desc("aclInitTensor", viewDims, viewDimsNum, stride, offset, storageDims, storageDimsNum, &d);
    if (rc != ACLNN_SUCCESS)
        return rc == ACLNN_ERR_PARAM_NULLPTR ? ACLNN_ERR_PARAM_NULLPTR : ACLNN_ERR_PARAM_INVALID;
    apply_desc(tensor, &d, dataType, offset, format, tensorDataAddr);
    return ACLNN_SUCCESS;
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensor(const aclTensor *tensor)
{
    if (!tensor)
        return ACLNN_SUCCESS;
    if (!nn_unregister(tensor, NN_TENSOR))
        return NN_ERR(ACLNN_ERR_PARAM_INVALID,
                      "aclDestroyTensor: %p is not a live aclTensor (destroyed twice, or a foreign handle)",
                      (const void *)tensor);
    if (!nn_stash_put(NN_STASH_TENSOR, (void *)tensor))
        free((void *)tensor);
    return ACLNN_SUCCESS;
}

/* Copy @p n values into a new malloc'd array (at least one element, so never NULL on success). */
static aclnnStatus copy_out(const char *api, const int64_t *src, uint64_t n, int64_t **out, uint64_t *out_n)
{
    int64_t *a = malloc(sizeof(int64_t) * (n ? n : 1));
    if (!a)
        return NN_ERR(ACLNN_ERR_INNER_NULLPTR, "%s: out of memory", api);
    if (n)
        memcpy(a, src, sizeof(int64_t) * n);
    *out = a;
    *out_n = n;
    return ACLNN_SUCCESS;
}

static aclnnStatus check_getter(const char *api, const aclTensor *t, const void *o1, const void *o2)
{
    if (!t || !o1 || !o2)
        return NN_ERR(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL", api, !t ? "tensor" : "an output pointer");
    return check_tensor(api, t);
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum)
{
    aclnnStatus rc = check_getter("aclGetViewShape", tensor, viewDims, viewDimsNum);
    if (rc != ACLNN_SUCCESS)
        return rc;
    return copy_out("aclGetViewShape", tensor->shape, (uint64_t)tensor->ndim, viewDims, viewDimsNum);
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims,
                                                   uint64_t *storageDimsNum)
{
    aclnnStatus rc = check_getter("aclGetStorageShape", tensor, storageDims, storageDimsNum);
    if (rc != ACLNN_SUCCESS)
        return rc;
    return copy_out("aclGetStorageShape", tensor->storage_shape, tensor->storage_ndim, storageDims, storageDimsNum);
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue,
                                                  uint64_t *stridesNum)
{
    aclnnStatus rc = check_getter("aclGetViewStrides", tensor, stridesValue, stridesNum);
    if (rc != ACLNN_SUCCESS)
        return rc;
    return copy_out("aclGetViewStrides", tensor->strides, (uint64_t)tensor->ndim, stridesValue, stridesNum);
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset)
{
    aclnnStatus rc = check_getter("aclGetViewOffset", tensor, offset, offset);
    if (rc == ACLNN_SUCCESS)
        *offset = tensor->offset;
    return rc;
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format)
{
    aclnnStatus rc = check_getter("aclGetFormat", tensor, format, format);
    if (rc == ACLNN_SUCCESS)
        *format = tensor->format;
    return rc;
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType)
{
    aclnnStatus rc = check_getter("aclGetDataType", tensor, dataType, dataType);
    if (rc == ACLNN_SUCCESS)
        *dataType = tensor->dtype;
    return rc;
}

ACL_FUNC_VISIBILITY aclnnStatus aclSetRawTensorAddr(aclTensor *tensor, void *addr)
{
    aclnnStatus rc = check_tensor("aclSetRawTensorAddr", tensor);
    if (rc == ACLNN_SUCCESS)
        tensor->data = addr;
    return rc;
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetRawTensorAddr(const aclTensor *tensor, void **addr)
{
    aclnnStatus rc = check_getter("aclGetRawTensorAddr", tensor, addr, addr);
    if (rc == ACLNN_SUCCESS)
        *addr = tensor->data;
    return rc;
}

/* ---- cannon/opdev.h view helpers ----------------------------------------------------------- */

/* Bits of one element of @p dt (sub-byte types included); 0 for types with no storage size. */
static unsigned elem_bits(aclDataType dt)
{
    switch (dt) {
    case ACL_INT4:
    case ACL_FLOAT4_E2M1:
    case ACL_FLOAT4_E1M2:
        return 4;
    case ACL_FLOAT6_E3M2:
    case ACL_FLOAT6_E2M3:
        return 6;
    case ACL_UINT1:
        return 1;
    default:
        return (unsigned)nn_elem_size(dt) * 8u;
    }
}

/* Bytes covering @p n elements of @p bits bits, or -1 when that exceeds CANNON_TENSOR_MAX_BYTES. */
static int64_t bytes_of(int64_t n, unsigned bits)
{
    if (n > CANNON_TENSOR_MAX_BYTES * 8 / (bits ? bits : 8))
        return -1;
    return (n * (int64_t)(bits ? bits : 8) + 7) / 8;
}

static bool size_check(const aclTensor *t, char *why, size_t why_size)
{
    const unsigned bits = elem_bits(t->dtype);
    const int64_t per_elem_limit = CANNON_TENSOR_MAX_BYTES * 8 / (bits ? bits : 8);
    /* The product of the dims with zeros counted as ones bounds every partial product an
     * operator may form over the shape, empty views included. */
    int64_t numel = 1, span = 1;
    for (int64_t i = 0; i < t->ndim; i++) {
        numel *= t->shape[i]; /* cannot overflow: checked at creation */
        if (t->shape[i] > 1 && (__builtin_mul_overflow(span, t->shape[i], &span) || bytes_of(span, bits) < 0)) {
            snprintf(why, why_size, "its shape spans more than the %lld-byte limit of a tensor in %u-bit elements",
                     (long long)CANNON_TENSOR_MAX_BYTES, bits ? bits : 8);
            return false;
        }
    }
    /* Offsets and strides address elements even where a dim has size 0 or 1 (byte strides are
     * formed from them), so each must stay inside the limit on its own. */
    if (t->offset > per_elem_limit) {
        snprintf(why, why_size, "its offset %lld lies beyond the %lld-byte limit of a tensor", (long long)t->offset,
                 (long long)CANNON_TENSOR_MAX_BYTES);
        return false;
    }
    int64_t last = t->offset;
    for (int64_t i = 0; i < t->ndim; i++) {
        if (t->strides[i] > per_elem_limit) {
            snprintf(why, why_size, "its stride[%lld] = %lld lies beyond the %lld-byte limit of a tensor",
                     (long long)i, (long long)t->strides[i], (long long)CANNON_TENSOR_MAX_BYTES);
            return false;
        }
        if (numel > 0)
            last += (t->shape[i] - 1) * t->strides[i]; /* no overflow: checked at creation */
    }
    if (numel > 0 && (last >= per_elem_limit || bytes_of(last + 1, bits) < 0)) {
        snprintf(why, why_size, "its view reaches element %lld, beyond the %lld-byte limit of a tensor",
                 (long long)last, (long long)CANNON_TENSOR_MAX_BYTES);
        return false;
    }
    return true;
}

/* The check runs when a view is described (apply_desc) and its verdict is kept: operators ask for
 * every tensor at least once per call. Only a failed view is checked again, for the message. */
bool nn_tensor_size_ok(const aclTensor *t, char *why, size_t why_size)
{
    return t->size_ok || size_check(t, why, why_size);
}

CANNON_API bool cannonTensorGetView(const aclTensor *t, cannon_tensor_view *v)
{
    if (!t || !v || !nn_is_live(t, NN_TENSOR))
        return false;
    char why[160];
    if (!nn_tensor_size_ok(t, why, sizeof why)) {
        NN_ERR(ACLNN_ERR_PARAM_INVALID, "aclTensor %p: %s", (const void *)t, why);
        return false;
    }
    v->dtype = t->dtype;
    v->format = t->format;
    v->ndim = t->ndim;
    v->shape = t->shape;
    v->strides = t->strides;
    v->offset = t->offset;
    v->data = t->data;
    return true;
}

CANNON_API int64_t cannonTensorNumel(const aclTensor *t)
{
    if (!t || !nn_is_live(t, NN_TENSOR))
        return 0;
    int64_t n = 1;
    for (int64_t i = 0; i < t->ndim; i++)
        n *= t->shape[i]; /* cannot overflow: checked at creation */
    return n;
}

CANNON_API bool cannonTensorIsContiguous(const aclTensor *t)
{
    if (!t || !nn_is_live(t, NN_TENSOR))
        return false;
    for (int64_t i = 0; i < t->ndim; i++)
        if (t->shape[i] == 0)
            return true; /* an empty view has no layout to get wrong */
    int64_t expect = 1;
    for (int64_t i = t->ndim - 1; i >= 0; i--) {
        if (t->shape[i] == 1)
            continue; /* a size-1 dim's stride is never used to address anything */
        if (t->strides[i] != expect)
            return false;
        expect *= t->shape[i];
    }
    return true;
}
