/*
 * Direct ("mesh") algorithms for one host: every rank maps every peer's slot, so a step that
 * would be a message on a network is a read of the peer's memory. Reductions are two-shot: each
 * rank copies its chunk in, reduces its own 1/p slice across all ranks (reduce-scatter), and then
 * every rank gathers all reduced slices (all-gather). Each rank reads each byte of the chunk once
 * per peer in the reduce-scatter and once in the gather: the bandwidth-optimal 2(p-1)/p traffic.
 * Large buffers are processed in chunks, alternating the two slots so that the copy-in of chunk
 * k+1 does not wait for the gather of chunk k on slower peers.
 */
#include <string.h>

#include "hccl_internal.h"

#define slice hc_slice

static uint64_t chunk_elems(hc_exec *x)
{
    uint64_t ce = x->c->chunk_bytes / x->esize;
    return ce ? ce : 1;
}

/* Copy-in, reduce own slice into own slot, publish; the caller gathers. */
static int two_shot_rs(hc_exec *x, int s, uint64_t off, uint64_t m)
{
    hc_comm *c = x->c;
    const size_t es = x->esize;
    unsigned char *mine = hc_slot(c, c->rank, s);
    if (mine != (unsigned char *)x->send + off * es)
        memcpy(mine, (const unsigned char *)x->send + off * es, m * es);
    int rc = hc_phase_all(x);
    if (rc)
        return rc;
    uint64_t lo, hi;
    slice(m, c->nranks, c->rank, es, &lo, &hi);
    if (hi > lo) {
        const void *srcs[HC_MAX_RANKS];
        for (uint32_t j = 0; j < c->nranks; j++)
            srcs[j] = hc_slot(c, j, s) + lo * es;
        /* Nobody else reads this slice of my slot in this phase, so it can take the result. */
        hc_reduce(mine + lo * es, srcs, (int)c->nranks, hi - lo, x->dtype, x->redop);
    }
    return hc_phase_all(x);
}

static int mesh_allreduce(hc_exec *x)
{
    hc_comm *c = x->c;
    int zc_done = 0;
    int zrc = hc_zc_allreduce(x, &zc_done);
    if (zrc != 0 || zc_done)
        return zrc;
    const size_t es = x->esize;
    const uint64_t n = x->count, ce = chunk_elems(x);
    uint64_t off = 0;
    do {
        uint64_t m = n - off < ce ? n - off : ce;
        int s = hc_next_slot(x);
        int rc = hc_slot_acquire(x, s);
        if (rc == 0)
            rc = two_shot_rs(x, s, off, m);
        if (rc)
            return rc;
        for (uint32_t j = 0; j < c->nranks; j++) {
            uint64_t lo, hi;
            slice(m, c->nranks, j, es, &lo, &hi);
            if (hi > lo)
                memcpy((unsigned char *)x->recv + (off + lo) * es, hc_slot(c, j, s) + lo * es, (hi - lo) * es);
        }
        c->slot_last[s] = c->phase;
        off += m;
    } while (off < n);
    return 0;
}

static int mesh_reduce(hc_exec *x)
{
    hc_comm *c = x->c;
    const size_t es = x->esize;
    const uint64_t n = x->count, ce = chunk_elems(x);
    uint64_t off = 0;
    do {
        uint64_t m = n - off < ce ? n - off : ce;
        int s = hc_next_slot(x);
        int rc = hc_slot_acquire(x, s);
        if (rc == 0)
            rc = two_shot_rs(x, s, off, m);
        if (rc)
            return rc;
        if (c->rank == x->root) {
            for (uint32_t j = 0; j < c->nranks; j++) {
                uint64_t lo, hi;
                slice(m, c->nranks, j, es, &lo, &hi);
                if (hi > lo)
                    memcpy((unsigned char *)x->recv + (off + lo) * es, hc_slot(c, j, s) + lo * es, (hi - lo) * es);
            }
        }
        c->slot_last[s] = c->phase;
        off += m;
    } while (off < n);
    return 0;
}

static int mesh_broadcast(hc_exec *x)
{
    hc_comm *c = x->c;
    int zc_done = 0;
    int zrc = hc_zc_broadcast(x, &zc_done);
    if (zrc != 0 || zc_done)
        return zrc;
    const size_t es = x->esize;
    const uint64_t n = x->count, ce = chunk_elems(x);
    uint64_t off = 0;
    do {
        uint64_t m = n - off < ce ? n - off : ce;
        int s = hc_next_slot(x);
        int rc = hc_slot_acquire(x, s);
        if (rc)
            return rc;
        if (c->rank == x->root)
            memcpy(hc_slot(c, c->rank, s), (const unsigned char *)x->send + off * es, m * es);
        if ((rc = hc_phase_all(x)) != 0)
            return rc;
        if (c->rank != x->root)
            memcpy((unsigned char *)x->recv + off * es, hc_slot(c, x->root, s), m * es);
        c->slot_last[s] = c->phase;
        off += m;
    } while (off < n);
    return 0;
}

static int mesh_allgather(hc_exec *x)
{
    hc_comm *c = x->c;
    int zc_done = 0;
    int zrc = hc_zc_allgather(x, &zc_done);
    if (zrc != 0 || zc_done)
        return zrc;
    const size_t es = x->esize;
    const uint64_t n = x->count;
    uint64_t ce = chunk_elems(x) / c->nranks;
    if (ce == 0)
        ce = 1;
    uint64_t off = 0;
    do {
        uint64_t m = n - off < ce ? n - off : ce;
        int s = hc_next_slot(x);
        int rc = hc_slot_acquire(x, s);
        if (rc)
            return rc;
        memcpy(hc_slot(c, c->rank, s), (const unsigned char *)x->send + off * es, m * es);
        if ((rc = hc_phase_all(x)) != 0)
            return rc;
        for (uint32_t j = 0; j < c->nranks; j++) {
            unsigned char *dst = (unsigned char *)x->recv + ((size_t)j * n + off) * es;
            const unsigned char *src = hc_slot(c, j, s);
            memcpy(dst, src, m * es);
        }
        c->slot_last[s] = c->phase;
        off += m;
    } while (off < n);
    return 0;
}

static int mesh_reduce_scatter(hc_exec *x)
{
    hc_comm *c = x->c;
    int zc_done = 0;
    int zrc = hc_zc_reduce_scatter(x, &zc_done);
    if (zrc != 0 || zc_done)
        return zrc;
    const uint32_t p = c->nranks;
    const size_t es = x->esize;
    const uint64_t n = x->count; /* recvCount */
    uint64_t ce = chunk_elems(x) / p;
    if (ce == 0)
        ce = 1;
    uint64_t off = 0;
    do {
        uint64_t m = n - off < ce ? n - off : ce;
        int s = hc_next_slot(x);
        int rc = hc_slot_acquire(x, s);
        if (rc)
            return rc;
        unsigned char *mine = hc_slot(c, c->rank, s);
        for (uint32_t j = 0; j < p; j++)
            memcpy(mine + (size_t)j * m * es, (const unsigned char *)x->send + ((size_t)j * n + off) * es, m * es);
        if ((rc = hc_phase_all(x)) != 0)
            return rc;
        const void *srcs[HC_MAX_RANKS];
        for (uint32_t j = 0; j < p; j++)
            srcs[j] = hc_slot(c, j, s) + (size_t)c->rank * m * es;
        hc_reduce((unsigned char *)x->recv + off * es, srcs, (int)p, m, x->dtype, x->redop);
        c->slot_last[s] = c->phase;
        off += m;
    } while (off < n);
    return 0;
}

const hc_algo hc_algo_mesh = {
    .name = "mesh",
    .allreduce = mesh_allreduce,
    .reduce_scatter = mesh_reduce_scatter,
    .allgather = mesh_allgather,
    .broadcast = mesh_broadcast,
    .reduce = mesh_reduce,
};
