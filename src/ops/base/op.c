/*
 * Phase 1 of an operator (cannon/opdev.h): argument checks with uniform messages, slots, binding
 * of views as contiguous buffers (directly or through workspace gathers and scatters), kernels,
 * and one finishing call. The first failure is kept; later steps are no-ops, so an operator's
 * phase 1 is straight-line code.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nnopbase_internal.h"

CANNON_API bool cannonOpFail(cannon_op *op, aclnnStatus code, const char *fmt, ...)
{
    if (op->status != ACLNN_SUCCESS)
        return false;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    op->status = NN_ERR(code, "%s: %s", op->api, msg);
    return false;
}

CANNON_API bool cannonOpBegin(cannon_op *op, const char *api, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    memset(op, 0, sizeof *op);
    op->api = api ? api : "aclnn";
    op->workspace_size = workspaceSize;
    op->executor = executor;
    if (!workspaceSize || !executor)
        return cannonOpFail(op, ACLNN_ERR_PARAM_NULLPTR, "%s is NULL", !workspaceSize ? "workspaceSize" : "executor");
    op->e = cannonExecutorCreate(op->api);
    if (!op->e)
        return cannonOpFail(op, ACLNN_ERR_INNER_CREATE_EXECUTOR, "out of memory creating the executor");
    return true;
}

CANNON_API bool cannonOpNotNull(cannon_op *op, const char *name, const void *p)
{
    if (op->status != ACLNN_SUCCESS)
        return false;
    return p ? true : cannonOpFail(op, ACLNN_ERR_PARAM_NULLPTR, "%s is NULL", name);
}

CANNON_API bool cannonOpNotNulls(cannon_op *op, ...)
{
    va_list ap;
    va_start(ap, op);
    for (const char *name = va_arg(ap, const char *); name; name = va_arg(ap, const char *)) {
        const void *p = va_arg(ap, const void *);
        if (!cannonOpNotNull(op, name, p))
            break;
    }
    va_end(ap);
    return op->status == ACLNN_SUCCESS;
}

static bool check_tensor(cannon_op *op, const char *name, const aclTensor *t, cannon_dtype_set dtypes,
                         cannon_tensor_view *v)
{
    if (!nn_is_live(t, NN_TENSOR))
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s (%p) is not a live aclTensor", name, (const void *)t);
    char why[160];
    if (!nn_tensor_size_ok(t, why, sizeof why))
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s: %s", name, why);
    const bool dt_ok = dtypes ? cannonDtypeIn(t->dtype, dtypes) : cannonDtypeSize(t->dtype) > 0;
    if (!dt_ok) {
        char set[256];
        if (dtypes)
            cannonDtypeSetFormat(dtypes, set, sizeof set);
        else
            snprintf(set, sizeof set, "a type with a byte size");
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s dtype %s is not supported (%s)", name,
                            cannonDtypeName(t->dtype), set);
    }
    if (t->ndim > CANNON_OP_MAX_RANK)
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s has %lld dims, more than the %d an operator accepts",
                            name, (long long)t->ndim, CANNON_OP_MAX_RANK);
    cannonTensorGetView(t, v);
    return true;
}

CANNON_API bool cannonOpTensor(cannon_op *op, const char *name, const aclTensor *t, cannon_dtype_set dtypes,
                               cannon_tensor_view *v)
{
    if (op->status != ACLNN_SUCCESS)
        return false;
    if (!t)
        return cannonOpFail(op, ACLNN_ERR_PARAM_NULLPTR, "%s is NULL", name);
    return check_tensor(op, name, t, dtypes, v);
}

CANNON_API bool cannonOpTensorOpt(cannon_op *op, const char *name, const aclTensor *t, cannon_dtype_set dtypes,
                                  cannon_tensor_view *v)
{
    if (op->status != ACLNN_SUCCESS)
        return false;
    if (!t) {
        memset(v, 0, sizeof *v);
        v->ndim = -1;
        v->dtype = ACL_DT_UNDEFINED;
        return true;
    }
    return check_tensor(op, name, t, dtypes, v);
}

CANNON_API void cannonShapeFormat(const cannon_tensor_view *v, char *buf, size_t cap)
{
    if (!buf || cap == 0)
        return;
    size_t k = (size_t)snprintf(buf, cap, "[");
    for (int64_t i = 0; v && i < v->ndim && k < cap; i++)
        k += (size_t)snprintf(buf + k, cap - k, i ? ",%lld" : "%lld", (long long)v->shape[i]);
    if (k < cap)
        snprintf(buf + k, cap - k, "]");
}

CANNON_API bool cannonOpSameShape(cannon_op *op, const char *an, const cannon_tensor_view *a, const char *bn,
                                  const cannon_tensor_view *b)
{
    if (op->status != ACLNN_SUCCESS)
        return false;
    bool same = a->ndim == b->ndim;
    for (int64_t i = 0; same && i < a->ndim; i++)
        same = a->shape[i] == b->shape[i];
    if (same)
        return true;
    char sa[200], sb[200];
    cannonShapeFormat(a, sa, sizeof sa);
    cannonShapeFormat(b, sb, sizeof sb);
    return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s shape %s differs from %s shape %s", an, sa, bn, sb);
}

CANNON_API bool cannonOpShapeIs(cannon_op *op, const char *name, const cannon_tensor_view *v, int64_t nd,
                                const int64_t *shape)
{
    if (op->status != ACLNN_SUCCESS)
        return false;
    bool ok = v->ndim == nd;
    for (int64_t d = 0; ok && d < nd; d++)
        ok = v->shape[d] == shape[d];
    if (ok)
        return true;
    char got[200], want[200];
    cannon_tensor_view w = *v;
    w.ndim = nd;
    w.shape = shape;
    cannonShapeFormat(v, got, sizeof got);
    cannonShapeFormat(&w, want, sizeof want);
    return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s has shape %s, expected %s", name, got, want);
}

CANNON_API bool cannonOpSameDtype(cannon_op *op, const char *an, const cannon_tensor_view *a, const char *bn,
                                  const cannon_tensor_view *b)
{
    if (op->status != ACLNN_SUCCESS)
        return false;
    if (a->dtype == b->dtype)
        return true;
    return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s dtype %s differs from %s dtype %s", an,
                        cannonDtypeName(a->dtype), bn, cannonDtypeName(b->dtype));
}

CANNON_API bool cannonOpDim(cannon_op *op, const char *name, int64_t *dim, int64_t rank)
{
    if (op->status != ACLNN_SUCCESS)
        return false;
    const int64_t r = rank > 0 ? rank : 1;
    if (*dim < -r || *dim >= r)
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s %lld is out of range [%lld, %lld)", name,
                            (long long)*dim, (long long)-r, (long long)r);
    if (*dim < 0)
        *dim += r;
    return true;
}

static int add_slot(cannon_op *op, const aclTensor *t, bool out)
{
    if (op->status != ACLNN_SUCCESS)
        return -1;
    const int s = out ? cannonExecutorAddOutput(op->e, t) : cannonExecutorAddInput(op->e, t);
    if (s < 0)
        op->status = ACLNN_ERR_INNER_CREATE_EXECUTOR; /* reported by the executor */
    return s;
}

CANNON_API int cannonOpInput(cannon_op *op, const aclTensor *t)
{
    return add_slot(op, t, false);
}

CANNON_API int cannonOpOutput(cannon_op *op, const aclTensor *t)
{
    return add_slot(op, t, true);
}

/* Whether the slot's view is row-major contiguous (size-1 dims' strides ignored; an empty view
 * counts as contiguous). */
static bool slot_contiguous(const nn_slot *s)
{
    for (int64_t i = 0; i < s->ndim; i++)
        if (s->shape[i] == 0)
            return true;
    int64_t expect = 1;
    for (int64_t i = s->ndim - 1; i >= 0; i--) {
        if (s->shape[i] == 1)
            continue;
        if (s->strides[i] != expect)
            return false;
        expect *= s->shape[i];
    }
    return true;
}

static const nn_slot *slot_of(cannon_op *op, int slot)
{
    if (op->status != ACLNN_SUCCESS)
        return NULL;
    if (slot < 0 || (size_t)slot >= op->e->n_slots || !op->e->slots[slot].tensor) {
        cannonOpFail(op, ACLNN_ERR_INNER, "slot %d is not a bound tensor of the executor", slot);
        return NULL;
    }
    return &op->e->slots[slot];
}

CANNON_API bool cannonOpBindView(cannon_op *op, int slot, uint32_t args_offset, cannon_arg_ref *ref)
{
    const nn_slot *s = slot_of(op, slot);
    if (!s)
        return false;
    ref->args_offset = args_offset;
    ref->slot = slot;
    ref->byte_offset = s->offset * (int64_t)cannonDtypeSize(s->dtype);
    return true;
}

CANNON_API bool cannonOpWorkspace(cannon_op *op, uint64_t bytes, uint64_t *offset)
{
    if (op->status != ACLNN_SUCCESS)
        return false;
    *offset = cannonExecutorReserveWorkspace(op->e, bytes);
    if (op->e->status != ACLNN_SUCCESS) {
        op->status = op->e->status;
        return false;
    }
    return true;
}

CANNON_API bool cannonOpBind(cannon_op *op, int slot, unsigned how, uint32_t args_offset, cannon_arg_ref *ref)
{
    const nn_slot *s = slot_of(op, slot);
    if (!s)
        return false;
    if (slot_contiguous(s))
        return cannonOpBindView(op, slot, args_offset, ref);
    int64_t numel = 1;
    for (int64_t i = 0; i < s->ndim; i++)
        numel *= s->shape[i];
    uint64_t off = 0;
    if (!cannonOpWorkspace(op, (uint64_t)numel * cannonDtypeSize(s->dtype), &off))
        return false;
    ref->args_offset = args_offset;
    ref->slot = CANNON_SLOT_WORKSPACE;
    ref->byte_offset = (int64_t)off;
    if (how & CANNON_BIND_IN) {
        const aclnnStatus rc = cannonExecutorAddGather(op->e, slot, off);
        if (rc != ACLNN_SUCCESS) {
            op->status = rc;
            return false;
        }
    }
    if (how & CANNON_BIND_OUT) {
        aclOpExecutor *e = op->e;
        if (e->n_pending == e->cap_pending) {
            const size_t cap = e->cap_pending ? e->cap_pending * 2 : 4;
            struct nn_pending *p = realloc(e->pending, cap * sizeof *p);
            if (!p)
                return cannonOpFail(op, ACLNN_ERR_INNER_CREATE_EXECUTOR, "out of memory");
            e->pending = p;
            e->cap_pending = cap;
        }
        e->pending[e->n_pending].slot = slot;
        e->pending[e->n_pending].ws_offset = off;
        e->n_pending++;
    }
    return true;
}

CANNON_API bool cannonOpKernel(cannon_op *op, const char *name, cannon_kernel_fn fn, uint32_t block_dim,
                               const void *args, size_t args_size, const cannon_arg_ref *refs, size_t n_refs)
{
    if (op->status != ACLNN_SUCCESS)
        return false;
    const aclnnStatus rc = cannonExecutorAddKernel(op->e, name, fn, block_dim, args, args_size, refs, n_refs);
    if (rc != ACLNN_SUCCESS) {
        op->status = rc;
        return false;
    }
    return true;
}

CANNON_API aclnnStatus cannonOpFinish(cannon_op *op)
{
    aclOpExecutor *e = op->e;
    for (size_t i = 0; op->status == ACLNN_SUCCESS && e && i < e->n_pending; i++) {
        const aclnnStatus rc = cannonExecutorAddScatter(e, e->pending[i].slot, e->pending[i].ws_offset);
        if (rc != ACLNN_SUCCESS)
            op->status = rc;
    }
    if (op->status == ACLNN_SUCCESS && e && e->status != ACLNN_SUCCESS)
        op->status = e->status;
    if (op->status != ACLNN_SUCCESS) {
        cannonExecutorDiscard(e);
        op->e = NULL;
        return op->status;
    }
    e->n_pending = 0;
    *op->workspace_size = cannonExecutorWorkspaceSize(e);
    *op->executor = e;
    op->e = NULL;
    return ACLNN_SUCCESS;
}
