/*
 * Executors (cannon/opdev.h): the plan an operator's phase 1 records, i.e. tensor slots, a
 * workspace layout and kernel launches whose argument blobs hold slot/workspace references; and
 * phase 2 (cannonExecutorRun), which binds the references and enqueues the launches. Also the
 * public executor API of acl_meta.h (repeatable, destroy, re-pointing tensor addresses).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nnopbase_internal.h"
#include "cannon/dump.h"
#include "cannon/prof.h"

#define CN_PROF_UNLIKELY(x) __builtin_expect(!!(x), 0)

#define WS_ALIGN 64u

void nn_executor_fail(aclOpExecutor *e, aclnnStatus rc)
{
    if (e->status == ACLNN_SUCCESS)
        e->status = rc;
}

static size_t args_room(size_t args_size)
{
    return (args_size + 15) & ~(size_t)15;
}

static void kernel_release(nn_kernel *k)
{
    if (!k->in_place) {
        free(k->args);
        free(k->refs);
    }
    k->args = NULL;
    k->refs = NULL;
    k->in_place = false;
}

/* Re-point the in-place kernels' args and refs after the kernel array moved. */
static void kernels_moved(aclOpExecutor *e)
{
    for (size_t i = 0; i < e->n_kernels; i++) {
        nn_kernel *k = &e->kernels[i];
        if (!k->in_place)
            continue;
        k->args = k->args_size ? k->inline_buf : NULL;
        k->refs = k->n_refs ? (cannon_arg_ref *)(void *)(k->inline_buf + args_room(k->args_size)) : NULL;
    }
}

void nn_executor_release(aclOpExecutor *e)
{
    for (size_t i = 0; i < e->n_kernels; i++)
        kernel_release(&e->kernels[i]);
    free(e->kernels);
    free(e->pending);
    free(e->slots);
    free(e->scratch);
    free(e);
}

/* A freed executor goes to the thread's stash with its buffers and their capacities, so the next
 * phase 1 on this thread plans without allocating (the slot array alone is several KiB, a slot
 * holding a 32-D view). */
static void executor_free(aclOpExecutor *e)
{
    for (size_t i = 0; i < e->n_kernels; i++)
        kernel_release(&e->kernels[i]);
    e->n_slots = e->n_kernels = e->n_pending = 0;
    e->ws_size = 0;
    e->repeatable = e->ran = false;
    e->status = ACLNN_SUCCESS;
    e->name = NULL;
    if (!nn_stash_put(NN_STASH_EXECUTOR, e))
        nn_executor_release(e);
}

static aclOpExecutor *executor_alloc(void)
{
    aclOpExecutor *e = nn_stash_take(NN_STASH_EXECUTOR);
    return e ? e : calloc(1, sizeof(aclOpExecutor));
}

/* Whether @p e is a live executor; the opdev entry points report misuse as an internal error,
 * since only operator code calls them. */
static bool live_executor(const char *api, const aclOpExecutor *e)
{
    if (!e) {
        NN_ERR(ACLNN_ERR_INNER_NULLPTR, "%s: executor is NULL", api);
        return false;
    }
    if (!nn_is_live(e, NN_EXECUTOR)) {
        NN_ERR(ACLNN_ERR_INNER, "%s: %p is not a live aclOpExecutor", api, (const void *)e);
        return false;
    }
    return true;
}

CANNON_API aclOpExecutor *cannonExecutorCreate(const char *op_name)
{
    aclOpExecutor *e = executor_alloc();
    if (!e) {
        NN_ERR(ACLNN_ERR_INNER_CREATE_EXECUTOR, "%s: out of memory creating the executor",
               op_name ? op_name : "cannonExecutorCreate");
        return NULL;
    }
    e->name = op_name ? op_name : "?";
    nn_register(&e->hdr, NN_EXECUTOR);
    return e;
}

CANNON_API void cannonExecutorDiscard(aclOpExecutor *e)
{
    if (e && nn_unregister(e, NN_EXECUTOR))
        executor_free(e);
}

static int add_slot(aclOpExecutor *e, const aclTensor *t, bool is_output, const char *api)
{
    if (!live_executor(api, e))
        return -1;
    if (t && !nn_is_live(t, NN_TENSOR)) {
        NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: %s: %p is not a live aclTensor", e->name, api, (const void *)t);
        return -1;
    }
    if (e->n_slots == e->cap_slots) {
        size_t cap = e->cap_slots ? e->cap_slots * 2 : 4;
        nn_slot *s = realloc(e->slots, cap * sizeof(*s));
        if (!s) {
            NN_ERR(ACLNN_ERR_INNER_CREATE_EXECUTOR, "%s: out of memory", e->name);
            return -1;
        }
        e->slots = s;
        e->cap_slots = cap;
    }
    /* Only the first ndim entries of shape and strides are meaningful (and written): a slot is
     * several hundred bytes, and clearing it whole cost more than the rest of the call. */
    nn_slot *s = &e->slots[e->n_slots];
    s->tensor = t;
    s->is_output = is_output;
    s->addr = NULL;
    s->ndim = 0;
    s->offset = 0;
    if (t) {
        /* Snapshot the view: the caller may destroy or re-describe the tensor after phase 1. */
        s->addr = t->data;
        s->dtype = t->dtype;
        s->ndim = t->ndim;
        s->offset = t->offset;
        memcpy(s->shape, t->shape, sizeof(int64_t) * (size_t)t->ndim);
        memcpy(s->strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
    } else {
        s->dtype = ACL_DT_UNDEFINED;
    }
    return (int)e->n_slots++;
}

CANNON_API int cannonExecutorAddInput(aclOpExecutor *e, const aclTensor *t)
{
    return add_slot(e, t, false, "cannonExecutorAddInput");
}

CANNON_API int cannonExecutorAddOutput(aclOpExecutor *e, const aclTensor *t)
{
    return add_slot(e, t, true, "cannonExecutorAddOutput");
}

CANNON_API uint64_t cannonExecutorReserveWorkspace(aclOpExecutor *e, uint64_t bytes)
{
    if (!live_executor("cannonExecutorReserveWorkspace", e))
        return 0;
    /* Checked: a reservation past NN_WS_MAX makes the plan fail (its first error), never wrap. */
    uint64_t off = (e->ws_size + WS_ALIGN - 1) & ~(uint64_t)(WS_ALIGN - 1);
    if (bytes > NN_WS_MAX || off > NN_WS_MAX - bytes) {
        nn_executor_fail(e, NN_ERR(ACLNN_ERR_PARAM_INVALID,
                                   "%s: the workspace would exceed %llu bytes (%llu reserved, %llu more asked)",
                                   e->name, (unsigned long long)NN_WS_MAX, (unsigned long long)e->ws_size,
                                   (unsigned long long)bytes));
        return 0;
    }
    e->ws_size = off + bytes;
    return off;
}

CANNON_API uint64_t cannonExecutorWorkspaceSize(const aclOpExecutor *e)
{
    if (!live_executor("cannonExecutorWorkspaceSize", e))
        return 0;
    /* Round up so that a caller's allocation of exactly this size covers every reservation. */
    return (e->ws_size + WS_ALIGN - 1) & ~(uint64_t)(WS_ALIGN - 1);
}

CANNON_API aclnnStatus cannonExecutorAddKernel(aclOpExecutor *e, const char *name, cannon_kernel_fn fn,
                                               uint32_t block_dim, const void *args, size_t args_size,
                                               const cannon_arg_ref *refs, size_t n_refs)
{
    if (!live_executor("cannonExecutorAddKernel", e))
        return e ? ACLNN_ERR_INNER : ACLNN_ERR_INNER_NULLPTR;
    if (!fn || block_dim == 0 || (args_size > 0 && !args) || (n_refs > 0 && !refs))
        return NN_ERR(ACLNN_ERR_INNER, "%s: cannonExecutorAddKernel(%s): %s", e->name, name ? name : "?",
                      !fn ? "fn is NULL" : block_dim == 0 ? "block_dim is 0" : "args or refs is NULL");
    for (size_t i = 0; i < n_refs; i++) {
        if ((uint64_t)refs[i].args_offset + sizeof(void *) > args_size)
            return NN_ERR(ACLNN_ERR_INNER, "%s: kernel %s: ref %zu at args offset %u lies outside the %zu-byte blob",
                          e->name, name ? name : "?", i, refs[i].args_offset, args_size);
        if (refs[i].slot != CANNON_SLOT_WORKSPACE && (refs[i].slot < 0 || (size_t)refs[i].slot >= e->n_slots))
            return NN_ERR(ACLNN_ERR_INNER, "%s: kernel %s: ref %zu names slot %d, but the executor has %zu", e->name,
                          name ? name : "?", i, (int)refs[i].slot, e->n_slots);
    }
    if (e->n_kernels == e->cap_kernels) {
        size_t cap = e->cap_kernels ? e->cap_kernels * 2 : 4;
        nn_kernel *k = realloc(e->kernels, cap * sizeof(*k));
        if (!k)
            return NN_ERR(ACLNN_ERR_INNER_CREATE_EXECUTOR, "%s: out of memory", e->name);
        e->kernels = k;
        e->cap_kernels = cap;
        kernels_moved(e);
    }
    if (args_size > e->scratch_size) {
        void *s = realloc(e->scratch, args_size);
        if (!s)
            return NN_ERR(ACLNN_ERR_INNER_CREATE_EXECUTOR, "%s: out of memory", e->name);
        e->scratch = s;
        e->scratch_size = args_size;
    }
    nn_kernel *k = &e->kernels[e->n_kernels];
    k->name = name ? name : "?";
    k->fn = fn;
    k->block_dim = block_dim;
    k->args_size = args_size;
    k->n_refs = n_refs;
    k->args = NULL;
    k->refs = NULL;
    k->in_place = false;
    const size_t room = args_room(args_size), refs_size = n_refs * sizeof(*refs);
    if (room + refs_size <= sizeof k->inline_buf) {
        k->in_place = true;
        k->args = args_size ? k->inline_buf : NULL;
        k->refs = n_refs ? (cannon_arg_ref *)(void *)(k->inline_buf + room) : NULL;
    } else {
        if (args_size && !(k->args = malloc(args_size)))
            return NN_ERR(ACLNN_ERR_INNER_CREATE_EXECUTOR, "%s: out of memory", e->name);
        if (n_refs && !(k->refs = malloc(refs_size))) {
            kernel_release(k);
            return NN_ERR(ACLNN_ERR_INNER_CREATE_EXECUTOR, "%s: out of memory", e->name);
        }
    }
    if (args_size)
        memcpy(k->args, args, args_size);
    if (n_refs)
        memcpy(k->refs, refs, refs_size);
    e->n_kernels++;
    return ACLNN_SUCCESS;
}

CANNON_API aclnnStatus cannonExecutorAddGather(aclOpExecutor *e, int slot, uint64_t ws_offset)
{
    return nn_record_copy(e, slot, ws_offset, false);
}

CANNON_API aclnnStatus cannonExecutorAddScatter(aclOpExecutor *e, int slot, uint64_t ws_offset)
{
    return nn_record_copy(e, slot, ws_offset, true);
}

/* ---- phase 2 ------------------------------------------------------------------------------------ */

/* What a kernel sees for a workspace or an empty view that has no storage. */
static _Alignas(64) unsigned char g_no_storage[64];

static bool slot_empty(const nn_slot *s)
{
    for (int64_t i = 0; i < s->ndim; i++)
        if (s->shape[i] == 0)
            return true;
    return false;
}

/* Append "[d0,d1,...]DTYPE" of slot @p s to buf at *len (truncated at cap). */
static void prof_put_slot(char *buf, size_t cap, size_t *len, const nn_slot *s)
{
    int n = snprintf(buf + *len, cap - *len, "%s[", *len ? " " : "");
    for (int64_t d = 0; d < s->ndim && n >= 0 && (size_t)n < cap - *len; d++) {
        *len += (size_t)n;
        n = snprintf(buf + *len, cap - *len, d ? ",%lld" : "%lld", (long long)s->shape[d]);
    }
    if (n >= 0 && (size_t)n < cap - *len) {
        *len += (size_t)n;
        n = snprintf(buf + *len, cap - *len, "]%s", cannonDtypeName(s->dtype));
    }
    *len = n >= 0 && (size_t)n < cap - *len ? *len + (size_t)n : cap - 1;
}

/* The profile label of a run of @p e (profiling sessions only): the op type (the API name without
 * "aclnn"), its tensors' shapes and dtypes (inputs, then "->" and the outputs), the bytes of
 * every tensor (each read or written once), and for the matmul family 2*M*N*K flops. */
static void prof_label(const aclOpExecutor *e, cannon_prof_label *l, char *detail, size_t cap)
{
    size_t len = 0;
    uint64_t bytes = 0;
    detail[0] = '\0';
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1 && len + 3 < cap) {
            memcpy(detail + len, " ->", 4);
            len += 3;
        }
        for (size_t i = 0; i < e->n_slots; i++) {
            const nn_slot *s = &e->slots[i];
            if (!s->tensor || s->is_output != (pass == 1))
                continue;
            prof_put_slot(detail, cap, &len, s);
            uint64_t n = 1;
            for (int64_t d = 0; d < s->ndim; d++)
                n *= (uint64_t)s->shape[d];
            bytes += n * nn_elem_size(s->dtype);
        }
    }
    const char *name = e->name;
    if (strncmp(name, "aclnn", 5) == 0 && name[5])
        name += 5;
    uint64_t flops = 0;
    if (strstr(name, "Matmul") || strstr(name, "MatMul") || strcmp(name, "Mm") == 0 || strcmp(name, "Bmm") == 0) {
        const nn_slot *a = NULL, *out = NULL;
        for (size_t i = 0; i < e->n_slots; i++) {
            const nn_slot *s = &e->slots[i];
            if (s->tensor && !s->is_output && !a)
                a = s;
            if (s->tensor && s->is_output)
                out = s;
        }
        if (a && out && a->ndim >= 1) {
            flops = 2 * (uint64_t)a->shape[a->ndim - 1];
            for (int64_t d = 0; d < out->ndim; d++)
                flops *= (uint64_t)out->shape[d];
        }
    }
    *l = (cannon_prof_label){.name = name, .detail = detail, .bytes = bytes, .flops = flops, .rank = -1,
                             .call = cannonProfNewCall()};
}

/* Enqueue every kernel of @p e with its references bound. */
static aclnnStatus launch_all(aclOpExecutor *e, void *workspace, aclrtStream stream, const char *api)
{
    cannon_prof_label label;
    char detail[192];
    bool prof = CN_PROF_UNLIKELY(cannonProfActive());
    if (prof)
        prof_label(e, &label, detail, sizeof detail);
    for (size_t i = 0; i < e->n_kernels; i++) {
        const nn_kernel *k = &e->kernels[i];
        if (k->args_size)
            memcpy(e->scratch, k->args, k->args_size);
        for (size_t r = 0; r < k->n_refs; r++) {
            const cannon_arg_ref *ref = &k->refs[r];
            /* Integer arithmetic. No storage (a zero-size workspace, an empty view without an
             * address) binds g_no_storage instead of NULL, so a kernel's pointer arithmetic on
             * it stays defined; nothing reads or writes it. */
            uintptr_t base = ref->slot == CANNON_SLOT_WORKSPACE ? (uintptr_t)workspace
                                                                : (uintptr_t)e->slots[ref->slot].addr;
            if (!base)
                base = (uintptr_t)g_no_storage;
            void *p = (void *)(base + (uintptr_t)ref->byte_offset);
            memcpy((char *)e->scratch + ref->args_offset, &p, sizeof(p)); /* the offset may be unaligned */
        }
        cannon_launch_desc desc = {.name = k->name, .fn = k->fn, .args = k->args_size ? e->scratch : NULL,
                                   .args_size = k->args_size, .block_dim = k->block_dim};
        if (prof)
            cannonProfSetTaskLabel(&label);
        aclError rc = cannonLaunchKernel(&desc, stream);
        if (rc != ACL_SUCCESS)
            return NN_ERR(ACLNN_ERR_RUNTIME_ERROR, "%s: launching kernel %s (%zu of %zu) failed with runtime error %d",
                          api, k->name, i + 1, e->n_kernels, (int)rc);
    }
    return ACLNN_SUCCESS;
}

CANNON_API aclnnStatus cannonExecutorRun(void *workspace, uint64_t workspaceSize, aclOpExecutor *e,
                                         aclrtStream stream, const char *api)
{
    if (!api)
        api = "aclnn";
    if (!e)
        return NN_ERR(ACLNN_ERR_PARAM_NULLPTR, "%s: executor is NULL", api);
    if (!nn_is_live(e, NN_EXECUTOR))
        return NN_ERR(ACLNN_ERR_PARAM_INVALID,
                      "%s: executor %p is not live: a non-repeatable executor is consumed by its first run "
                      "(call aclSetAclOpExecutorRepeatable after phase 1 to reuse one), or it was destroyed",
                      api, (void *)e);
    if (e->ran && !e->repeatable)
        return NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: executor %p was already run and is not repeatable", api,
                      (void *)e);
    if (e->status != ACLNN_SUCCESS)
        return NN_ERR(e->status, "%s: executor %p holds a plan whose phase 1 failed (error %d)", api, (void *)e,
                      (int)e->status);
    uint64_t need = cannonExecutorWorkspaceSize(e);
    if (need > 0 && !workspace)
        return NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: workspace is NULL but the operator needs %llu bytes", api,
                      (unsigned long long)need);
    if (workspaceSize < need)
        return NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: workspaceSize %llu is smaller than the %llu bytes needed", api,
                      (unsigned long long)workspaceSize, (unsigned long long)need);
    for (size_t i = 0; i < e->n_kernels; i++) {
        for (size_t r = 0; r < e->kernels[i].n_refs; r++) {
            int slot = e->kernels[i].refs[r].slot;
            /* An empty view addresses nothing, so it may have no storage (torch passes NULL). */
            if (slot != CANNON_SLOT_WORKSPACE && !e->slots[slot].addr && !slot_empty(&e->slots[slot]))
                return NN_ERR(ACLNN_ERR_PARAM_NULLPTR, "%s: the %s tensor of slot %d has a NULL device address", api,
                              e->slots[slot].is_output ? "output" : "input", slot);
        }
    }
    void *dump = CN_PROF_UNLIKELY(cannonDumpActive()) ? nn_dump_begin(e, stream) : NULL;
    aclnnStatus rc = launch_all(e, workspace, stream, api);
    if (CN_PROF_UNLIKELY(dump != NULL))
        nn_dump_end(dump, stream, rc == ACLNN_SUCCESS);
    e->ran = true;
    /* A non-repeatable executor is consumed by its run whatever the outcome: its kernels' argument
     * blobs were copied at enqueue time, so nothing in flight refers to it. */
    if (!e->repeatable)
        cannonExecutorDiscard(e);
    return rc;
}

/* ---- public executor API ------------------------------------------------------------------------- */

ACL_FUNC_VISIBILITY aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor)
{
    if (!executor)
        return NN_ERR(ACLNN_ERR_INNER_NULLPTR, "aclSetAclOpExecutorRepeatable: executor is NULL");
    if (!nn_is_live(executor, NN_EXECUTOR))
        return NN_ERR(ACLNN_ERR_INNER,
                      "aclSetAclOpExecutorRepeatable: %p is not a live aclOpExecutor (already run, destroyed, or "
                      "foreign); call it right after phase 1", (void *)executor);
    executor->repeatable = true;
    return ACLNN_SUCCESS;
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor)
{
    if (!executor)
        return NN_ERR(ACLNN_ERR_INNER_NULLPTR, "aclDestroyAclOpExecutor: executor is NULL");
    if (!nn_unregister(executor, NN_EXECUTOR))
        return NN_ERR(ACLNN_ERR_INNER,
                      "aclDestroyAclOpExecutor: %p is not a live aclOpExecutor (a non-repeatable executor is freed "
                      "by its run; destroyed twice; or foreign)", (void *)executor);
    executor_free(executor);
    return ACLNN_SUCCESS;
}

enum which { WHICH_INPUT, WHICH_OUTPUT, WHICH_ANY };

/* Common checks of the address setters: executor and tensor NULL / liveness. */
static aclnnStatus check_set(const char *api, const aclOpExecutor *e, const void *t, nn_kind tkind)
{
    if (!t)
        return NN_ERR(ACLNN_ERR_INNER_NULLPTR, "%s: %s is NULL", api, tkind == NN_TENSOR ? "tensor" : "tensors");
    if (!e)
        return NN_ERR(ACLNN_ERR_INNER_NULLPTR, "%s: executor is NULL", api);
    if (!nn_is_live(t, tkind))
        return NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: %p is not a live %s", api, t,
                      tkind == NN_TENSOR ? "aclTensor" : "aclTensorList");
    if (!nn_is_live(e, NN_EXECUTOR))
        return NN_ERR(ACLNN_ERR_INNER, "%s: %p is not a live aclOpExecutor", api, (const void *)e);
    return ACLNN_SUCCESS;
}

/* The @p index-th slot among the inputs, the outputs, or (WHICH_ANY) the inputs followed by the
 * outputs, as CANN numbers aclSetTensorAddr's index. NULL when out of range; @p count receives the
 * number of candidates. */
static nn_slot *nth_slot(aclOpExecutor *e, size_t index, enum which which, size_t *count)
{
    nn_slot *found = NULL;
    size_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        bool outputs = pass == 1;
        if ((which == WHICH_INPUT && outputs) || (which == WHICH_OUTPUT && !outputs))
            continue;
        for (size_t i = 0; i < e->n_slots; i++) {
            if (e->slots[i].is_output != outputs)
                continue;
            if (n++ == index)
                found = &e->slots[i];
        }
    }
    *count = n;
    return found;
}

static aclnnStatus set_by_index(const char *api, aclOpExecutor *e, size_t index, aclTensor *t, void *addr,
                                enum which which)
{
    aclnnStatus rc = check_set(api, e, t, NN_TENSOR);
    if (rc != ACLNN_SUCCESS)
        return rc;
    size_t n = 0;
    nn_slot *s = nth_slot(e, index, which, &n);
    if (!s)
        return NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: index %zu is out of range: operator %s has %zu %s", api, index,
                      e->name, n, which == WHICH_INPUT ? "inputs" : which == WHICH_OUTPUT ? "outputs" : "tensors");
    s->addr = addr;
    t->data = addr;
    return ACLNN_SUCCESS;
}

static aclnnStatus set_dynamic(const char *api, aclOpExecutor *e, size_t relativeIndex, aclTensorList *tensors,
                               void *addr, enum which which)
{
    aclnnStatus rc = check_set(api, e, tensors, NN_TENSOR_LIST);
    if (rc != ACLNN_SUCCESS)
        return rc;
    const nn_list *l = (const nn_list *)(const void *)tensors;
    if (relativeIndex >= l->size)
        return NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: relativeIndex %zu is out of the list's %llu tensors", api,
                      relativeIndex, (unsigned long long)l->size);
    aclTensor *t = (aclTensor *)(void *)l->items[relativeIndex];
    if (!t)
        return NN_ERR(ACLNN_ERR_INNER_NULLPTR, "%s: list element %zu is NULL", api, relativeIndex);
    bool found = false;
    for (size_t i = 0; i < e->n_slots; i++) {
        nn_slot *s = &e->slots[i];
        if (s->tensor != t || (which == WHICH_INPUT && s->is_output) || (which == WHICH_OUTPUT && !s->is_output))
            continue;
        s->addr = addr; /* an in-place operator may hold the same tensor as input and output */
        found = true;
    }
    if (!found)
        return NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: list element %zu is not a tensor of operator %s's executor", api,
                      relativeIndex, e->name);
    if (nn_is_live(t, NN_TENSOR))
        t->data = addr;
    return ACLNN_SUCCESS;
}

ACL_FUNC_VISIBILITY aclnnStatus aclSetInputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor,
                                                      void *addr)
{
    return set_by_index("aclSetInputTensorAddr", executor, index, tensor, addr, WHICH_INPUT);
}

ACL_FUNC_VISIBILITY aclnnStatus aclSetOutputTensorAddr(aclOpExecutor *executor, const size_t index,
                                                       aclTensor *tensor, void *addr)
{
    return set_by_index("aclSetOutputTensorAddr", executor, index, tensor, addr, WHICH_OUTPUT);
}

ACL_FUNC_VISIBILITY aclnnStatus aclSetTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor,
                                                 void *addr)
{
    return set_by_index("aclSetTensorAddr", executor, index, tensor, addr, WHICH_ANY);
}

ACL_FUNC_VISIBILITY aclnnStatus aclSetDynamicInputTensorAddr(aclOpExecutor *executor, size_t irIndex,
                                                             const size_t relativeIndex, aclTensorList *tensors,
                                                             void *addr)
{
    (void)irIndex;
    return set_dynamic("aclSetDynamicInputTensorAddr", executor, relativeIndex, tensors, addr, WHICH_INPUT);
}

ACL_FUNC_VISIBILITY aclnnStatus aclSetDynamicOutputTensorAddr(aclOpExecutor *executor, size_t irIndex,
                                                              const size_t relativeIndex, aclTensorList *tensors,
                                                              void *addr)
{
    (void)irIndex;
    return set_dynamic("aclSetDynamicOutputTensorAddr", executor, relativeIndex, tensors, addr, WHICH_OUTPUT);
}

ACL_FUNC_VISIBILITY aclnnStatus aclSetDynamicTensorAddr(aclOpExecutor *executor, size_t irIndex,
                                                        const size_t relativeIndex, aclTensorList *tensors, void *addr)
{
    (void)irIndex;
    return set_dynamic("aclSetDynamicTensorAddr", executor, relativeIndex, tensors, addr, WHICH_ANY);
}

ACL_FUNC_VISIBILITY aclnnStatus AclSetInputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor,
                                                      void *addr)
{
    return aclSetInputTensorAddr(executor, index, tensor, addr);
}

ACL_FUNC_VISIBILITY aclnnStatus AclSetOutputTensorAddr(aclOpExecutor *executor, const size_t index,
                                                       aclTensor *tensor, void *addr)
{
    return aclSetOutputTensorAddr(executor, index, tensor, addr);
}

ACL_FUNC_VISIBILITY aclnnStatus AclSetTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor,
                                                 void *addr)
{
    return aclSetTensorAddr(executor, index, tensor, addr);
}

ACL_FUNC_VISIBILITY aclnnStatus AclSetDynamicInputTensorAddr(aclOpExecutor *executor, size_t irIndex,
                                                             const size_t relativeIndex, aclTensorList *tensors,
                                                             void *addr)
{
    return aclSetDynamicInputTensorAddr(executor, irIndex, relativeIndex, tensors, addr);
}

ACL_FUNC_VISIBILITY aclnnStatus AclSetDynamicOutputTensorAddr(aclOpExecutor *executor, size_t irIndex,
                                                              const size_t relativeIndex, aclTensorList *tensors,
                                                              void *addr)
{
    return aclSetDynamicOutputTensorAddr(executor, irIndex, relativeIndex, tensors, addr);
}

ACL_FUNC_VISIBILITY aclnnStatus AclSetDynamicTensorAddr(aclOpExecutor *executor, size_t irIndex,
                                                        const size_t relativeIndex, aclTensorList *tensors, void *addr)
{
    return aclSetDynamicTensorAddr(executor, irIndex, relativeIndex, tensors, addr);
}
