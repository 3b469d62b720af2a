/*
 * Gather (strided view → contiguous workspace buffer) and scatter (the reverse) kernels: the
 * Contiguous / ViewCopy steps of CANN's operator pattern, for any element size of 1, 2, 4, 8 or 16
 * bytes.
 *
 * At record time the view is simplified (size-1 dims dropped, dims that are contiguous with each
 * other merged), so a transposed matrix stays 2-d and a contiguous slice becomes 1-d. The element
 * range [0, numel) of the contiguous side is cut into fixed chunks, one per block: the split
 * depends only on the view, never on the worker count. Each block walks its range as runs along
 * the innermost dim: a run with stride 1 is one memcpy (the last-dim-contiguous fast path), other
 * runs are a typed strided loop.
 *
 * Blocks write disjoint ranges of the contiguous side, so a gather is race-free for any view. A
 * scatter is race-free only when the output view does not overlap itself: a zero stride is
 * refused at record time; other self-overlapping views (e.g. shape (3,3), strides (1,1)) are the
 * caller's error and give unspecified results, as with CANN's ViewCopy.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "nnopbase_internal.h"

/* Bytes of contiguous data per block: large enough to amortise the block's start-up (index
 * decomposition), small enough to spread a few MiB over the workers. */
#define GS_CHUNK_BYTES (256u * 1024u)

typedef struct gs_args {
    void *strided; /* bound: the slot's storage + view offset */
    void *contig;  /* bound: workspace + ws_offset */
    uint32_t esize;
    uint32_t ndim;
    uint32_t scatter;
    uint32_t reserved;
    int64_t numel;
    int64_t chunk;  /* elements per block */
    int64_t dims[]; /* shape[ndim], then strides[ndim] (elements) */
} gs_args;

/* Copy @p n elements between a contiguous run and a strided run (stride @p st elements). */
static void copy_run(char *contig, char *strided, int64_t n, int64_t st, size_t es, bool scatter)
{
    if (st == 1) {
        if (scatter)
            memcpy(strided, contig, (size_t)n * es);
        else
            memcpy(contig, strided, (size_t)n * es);
        return;
    }
    const ptrdiff_t step = (ptrdiff_t)(st * (int64_t)es);
    /* memcpy with a constant size compiles to one load and one store and has no alignment
     * requirement, unlike dereferencing typed pointers. */
#define GS_LOOP(BYTES)                                                                             \
    do {                                                                                           \
        if (scatter)                                                                               \
            for (int64_t i = 0; i < n; i++, contig += (BYTES), strided += step)                    \
                memcpy(strided, contig, (BYTES));                                                  \
        else                                                                                       \
            for (int64_t i = 0; i < n; i++, contig += (BYTES), strided += step)                    \
                memcpy(contig, strided, (BYTES));                                                  \
    } while (0)
    switch (es) {
    case 1:
        GS_LOOP(1);
        break;
    case 2:
        GS_LOOP(2);
        break;
    case 4:
        GS_LOOP(4);
        break;
    case 8:
        GS_LOOP(8);
        break;
    default:
        GS_LOOP(16);
        break;
    }
#undef GS_LOOP
}

static int gs_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const gs_args *a = args;
    const int64_t nd = a->ndim;
    const int64_t *shape = a->dims;
    const int64_t *strides = a->dims + nd;
    const size_t es = a->esize;
    int64_t pos = (int64_t)ctx->block_idx * a->chunk;
    int64_t end = pos + a->chunk < a->numel ? pos + a->chunk : a->numel;
    if (pos >= end)
        return 0;
    /* Multi-index and strided offset of the block's first element. */
    int64_t idx[CANNON_MAX_DIMS];
    int64_t off = 0, rem = pos;
    for (int64_t d = nd - 1; d >= 0; d--) {
        idx[d] = rem % shape[d];
        rem /= shape[d];
        off += idx[d] * strides[d];
    }
    char *contig = a->contig;
    char *strided = a->strided;
    const int64_t last = nd - 1, nl = shape[last], sl = strides[last];
    while (pos < end) {
        int64_t n = nl - idx[last];
        if (n > end - pos)
            n = end - pos;
        copy_run(contig + pos * (int64_t)es, strided + off * (int64_t)es, n, sl, es, a->scatter != 0);
        pos += n;
        off += n * sl;
        idx[last] += n;
        if (idx[last] < nl)
            continue;
        /* carry into the outer dims */
        off -= nl * sl;
        idx[last] = 0;
        for (int64_t d = last - 1; d >= 0; d--) {
            idx[d]++;
            off += strides[d];
            if (idx[d] < shape[d])
                break;
            off -= shape[d] * strides[d];
            idx[d] = 0;
        }
    }
    return 0;
}

aclnnStatus nn_record_copy(aclOpExecutor *e, int slot, uint64_t ws_offset, bool scatter)
{
    const char *api = scatter ? "cannonExecutorAddScatter" : "cannonExecutorAddGather";
    if (!e)
        return NN_ERR(ACLNN_ERR_INNER_NULLPTR, "%s: executor is NULL", api);
    if (!nn_is_live(e, NN_EXECUTOR))
        return NN_ERR(ACLNN_ERR_INNER, "%s: %p is not a live aclOpExecutor", api, (void *)e);
    if (slot < 0 || (size_t)slot >= e->n_slots || !e->slots[slot].tensor)
        return NN_ERR(ACLNN_ERR_INNER, "%s: %s: slot %d is not a registered tensor", e->name, api, slot);
    const nn_slot *s = &e->slots[slot];
    size_t es = nn_elem_size(s->dtype);
    if (es == 0)
        return NN_ERR(ACLNN_ERR_PARAM_INVALID, "%s: data type %d of slot %d has no whole-byte element size to copy",
                      e->name, (int)s->dtype, slot);

    /* Simplify the view: drop size-1 dims, merge an outer dim into the inner one when the outer
     * stride steps exactly over the inner extent. Built innermost first, then reversed. */
    int64_t shape[CANNON_MAX_DIMS], strides[CANNON_MAX_DIMS];
    int64_t nd = 0, numel = 1;
    for (int64_t d = s->ndim - 1; d >= 0; d--) {
        int64_t n = s->shape[d], st = s->strides[d];
        numel *= n;
        if (n == 1)
            continue;
        if (nd > 0 && st == shape[nd - 1] * strides[nd - 1]) {
            shape[nd - 1] *= n;
            continue;
        }
        shape[nd] = n;
        strides[nd] = st;
        nd++;
    }
    if (numel == 0)
        return ACLNN_SUCCESS; /* nothing to copy: record nothing */
    if (nd == 0) {
        shape[0] = 1;
        strides[0] = 1;
        nd = 1;
    }
    for (int64_t i = 0; i < nd / 2; i++) {
        int64_t t = shape[i];
        shape[i] = shape[nd - 1 - i];
        shape[nd - 1 - i] = t;
        t = strides[i];
        strides[i] = strides[nd - 1 - i];
        strides[nd - 1 - i] = t;
    }
    if (scatter) {
        for (int64_t d = 0; d < nd; d++)
            if (strides[d] == 0)
                return NN_ERR(ACLNN_ERR_PARAM_INVALID,
                              "%s: the output view of slot %d overlaps itself (stride 0 over %lld elements)", e->name,
                              slot, (long long)shape[d]);
    }
    uint64_t bytes = (uint64_t)numel * es;
    if (ws_offset > e->ws_size || bytes > e->ws_size - ws_offset)
        return NN_ERR(ACLNN_ERR_INNER, "%s: %s: %llu bytes at workspace offset %llu exceed the %llu reserved", e->name,
                      api, (unsigned long long)bytes, (unsigned long long)ws_offset,
                      (unsigned long long)e->ws_size);

    int64_t chunk = (int64_t)(GS_CHUNK_BYTES / es);
    while ((numel + chunk - 1) / chunk > (int64_t)UINT32_MAX)
        chunk *= 2;
    size_t args_size = offsetof(gs_args, dims) + sizeof(int64_t) * 2 * (size_t)nd;
    gs_args *a = calloc(1, args_size);
    if (!a)
        return NN_ERR(ACLNN_ERR_INNER_CREATE_EXECUTOR, "%s: out of memory", e->name);
    a->esize = (uint32_t)es;
    a->ndim = (uint32_t)nd;
    a->scatter = scatter;
    a->numel = numel;
    a->chunk = chunk;
    memcpy(a->dims, shape, sizeof(int64_t) * (size_t)nd);
    memcpy(a->dims + nd, strides, sizeof(int64_t) * (size_t)nd);
    cannon_arg_ref refs[2] = {
        {.args_offset = offsetof(gs_args, strided), .slot = slot, .byte_offset = s->offset * (int64_t)es},
        {.args_offset = offsetof(gs_args, contig), .slot = CANNON_SLOT_WORKSPACE, .byte_offset = (int64_t)ws_offset},
    };
    uint32_t blocks = (uint32_t)((numel + chunk - 1) / chunk);
    aclnnStatus rc = cannonExecutorAddKernel(e, scatter ? "cannon_scatter" : "cannon_gather", gs_kernel, blocks, a,
                                             args_size, refs, 2);
    free(a);
    return rc;
}
