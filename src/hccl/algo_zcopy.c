/*
 * Zero-copy allreduce for large device buffers.
 *
 * Device memory of the CPU driver lives in one memfd-backed arena per device, and
 * cannonMemGetShareInfo tells which arena and offset a buffer has. Each rank maps every peer's
 * whole arena once (read-only, MAP_NORESERVE: address space only) and caches the mapping on the
 * communicator, so a collective only has to exchange offsets. The staged path copies every input
 * into the shared slot first; here nothing is staged:
 *
 *   reduce-scatter: rank r reads slice r of every rank's send buffer in place and writes the
 *                   reduced slice into its own recv buffer;
 *   all-gather:     rank r copies slice j (j != r) from rank j's recv buffer into its own.
 *
 * Per rank, for S bytes and p ranks: RS reads p·S/p = S and writes S/p; AG reads and writes
 * (p-1)·S/p. For p = 2: read 1.5 S, write S. The staged mesh path reads 3 S and writes 2.5 S (a
 * full copy-in to the slot, the reduction out of slots, then a gather of all p slices, own one
 * included).
 *
 * Safety protocol (all phases are hc_phase_all: publish my counter, wait for every rank's):
 *   D  descriptors: each rank writes {pid, arena fd and inode, offsets, raw pointers} into its slot.
 *      This is also the call's first phase, so fingerprints are checked here, before anyone
 *      touches a peer buffer. If every descriptor is shareable, each rank maps the arenas it has
 *      not mapped yet and
 *   M  publishes whether that worked; only if every rank succeeded is the zero-copy path taken
 *      (otherwise every rank falls back to the staged algorithm, consistently).
 *   per chunk k:
 *      RS(k) ... phase ... AG(k)
 *      The phase after RS(k) guarantees (a) every reduced slice of chunk k is written before
 *      anyone gathers it, and (b) in place (send == recv), nobody overwrites slice j of its
 *      buffer in AG(k) while rank j still reads it as input in RS(k). RS(k+1) touches only chunk
 *      k+1, disjoint from what peers read in AG(k), so it needs no extra phase.
 *   E  a final phase: no rank returns (after which its user may reuse or free the buffers) while
 *      a peer still reads them in its last AG.
 * Waits go through hc_wait_ge, so the timeout, abort word and dead-peer checks apply unchanged. A
 * peer that dies leaves its arena pages alive in our mapping, so reads never fault.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cannon/kernel.h"
#include "hccl_internal.h"

/* What a rank publishes about its buffers (at the start of its slot). */
typedef struct zc_desc {
    uint64_t ok;            /* 1: both buffers are in one shareable device arena */
    int32_t pid, fd;
    uint64_t ino, arena_size;
    uint64_t send_off, recv_off;
    uint64_t send_ptr, recv_ptr; /* for peers in the same process: no mapping needed */
} zc_desc;

/* Second line of the slot: the result of mapping the peers' arenas (phase M). */
#define ZC_MAPPED_OFF 256

/* Describe buffer @p p of @p bytes. 0: not shareable device memory. */
static int describe(hc_comm *c, const void *p, size_t bytes, cannon_mem_share_info *si)
{
    if (p == c->zc_host_hint)
        return 0;
    if (cannonMemGetShareInfo(p, si) != ACL_SUCCESS) {
        /* Host memory (or a driver that cannot share): remember it, as callers tend to reuse
         * the same buffer, so the lookup and the runtime's error record are not repeated. */
        c->zc_host_hint = p;
        return 0;
    }
    return si->offset + bytes <= si->alloc_offset + si->alloc_size && si->offset + bytes <= si->arena_size;
}

static void my_desc(hc_exec *x, size_t bytes, zc_desc *d)
{
    hc_comm *c = x->c;
    memset(d, 0, sizeof *d);
    d->pid = (int32_t)getpid();
    d->send_ptr = (uint64_t)(uintptr_t)x->send;
    d->recv_ptr = (uint64_t)(uintptr_t)x->recv;
    cannon_mem_share_info si, ri;
    if (!describe(c, x->send, bytes, &si) || !describe(c, x->recv, bytes, &ri) || si.fd != ri.fd)
        return;
    struct stat st;
    if (fstat(si.fd, &st) != 0)
        return;
    d->fd = si.fd;
    d->ino = (uint64_t)st.st_ino;
    d->arena_size = si.arena_size;
    d->send_off = si.offset;
    d->recv_off = ri.offset;
    d->ok = 1;
}

void hc_zc_release(hc_comm *c)
{
    if (c->zpeers == NULL)
        return;
    for (uint32_t j = 0; j < c->nranks; j++)
        if (c->zpeers[j].map != NULL)
            munmap(c->zpeers[j].map, c->zpeers[j].size);
    free(c->zpeers);
    c->zpeers = NULL;
}

/* Map peer @p j's arena described by @p d (cached). Returns the base address or NULL. */
static unsigned char *peer_arena(hc_comm *c, uint32_t j, const zc_desc *d)
{
    if (c->zpeers == NULL && (c->zpeers = calloc(c->nranks, sizeof *c->zpeers)) == NULL)
        return NULL;
    hc_zpeer *z = &c->zpeers[j];
    if (z->map != NULL && z->ino == d->ino && z->size == d->arena_size)
        return z->map;
    if (z->map != NULL) { /* the peer's device was reset: a new arena */
        munmap(z->map, z->size);
        z->map = NULL;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)d->pid, (int)d->fd);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    void *m = MAP_FAILED;
    /* The inode check closes the race where the peer closed that fd number and reused it. */
    if (fstat(fd, &st) == 0 && (uint64_t)st.st_ino == d->ino && (uint64_t)st.st_size >= d->arena_size)
        m = mmap(NULL, d->arena_size, PROT_READ, MAP_SHARED | MAP_NORESERVE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return NULL;
    z->map = m;
    z->ino = d->ino;
    z->size = d->arena_size;
    return z->map;
}

int hc_zc_allreduce(hc_exec *x, int *done)
{
    hc_comm *c = x->c;
    const uint32_t p = c->nranks, r = c->rank;
    const size_t es = x->esize;
    const uint64_t n = x->count;
    const size_t bytes = n * es;
    *done = 0;
    if (p < 2 || bytes < c->zc_min_bytes || c->zc_min_bytes == 0)
        return 0;

    /* Phase D. */
    int s = hc_next_slot(x);
    int rc = hc_slot_acquire(x, s);
    if (rc)
        return rc;
    zc_desc mine;
    my_desc(x, bytes, &mine);
    memcpy(hc_slot(c, r, s), &mine, sizeof mine);
    if ((rc = hc_phase_all(x)) != 0)
        return rc;
    const unsigned char *sends[HC_MAX_RANKS], *recvs[HC_MAX_RANKS];
    int all_ok = 1;
    for (uint32_t j = 0; j < p; j++) {
        zc_desc d;
        memcpy(&d, hc_slot(c, j, s), sizeof d);
        if (!d.ok)
            all_ok = 0;
        if (all_ok == 0)
            continue;
        if (d.pid == mine.pid) {
            sends[j] = (const unsigned char *)(uintptr_t)d.send_ptr;
            recvs[j] = (const unsigned char *)(uintptr_t)d.recv_ptr;
            continue;
        }
        const unsigned char *base = peer_arena(c, j, &d);
        if (base == NULL) {
            all_ok = -1; /* shareable, but this rank cannot map it: the others must know */
            continue;
        }
        sends[j] = base + d.send_off;
        recvs[j] = base + d.recv_off;
    }
    if (all_ok == 0) {
        /* Everyone read the same descriptors and gives up here: no phase M needed. */
        c->slot_last[s] = c->phase;
        return 0;
    }
    /* Phase M: the descriptors stay untouched (peers may still read them), the flag is on a
     * separate line. */
    *(uint64_t *)(hc_slot(c, r, s) + ZC_MAPPED_OFF) = all_ok == 1;
    if ((rc = hc_phase_all(x)) != 0)
        return rc;
    for (uint32_t j = 0; j < p; j++)
        if (*(const uint64_t *)(hc_slot(c, j, s) + ZC_MAPPED_OFF) != 1)
            all_ok = 0;
    c->slot_last[s] = c->phase;
    if (all_ok != 1)
        return 0;

    *done = 1;
    uint64_t ce = c->zc_chunk_bytes / es;
    if (ce == 0)
        ce = 1;
    unsigned char *out = x->recv;
    const void *srcs[HC_MAX_RANKS];
    for (uint64_t off = 0; off < n; off += ce) {
        uint64_t m = n - off < ce ? n - off : ce;
        uint64_t lo, hi;
        hc_slice(m, p, r, es, &lo, &hi);
        if (hi > lo) {
            for (uint32_t j = 0; j < p; j++)
                srcs[j] = sends[j] + (off + lo) * es;
            hc_reduce(out + (off + lo) * es, srcs, (int)p, hi - lo, x->dtype, x->redop);
        }
        if ((rc = hc_phase_all(x)) != 0)
            return rc;
        for (uint32_t j = 0; j < p; j++) {
            if (j == r)
                continue;
            hc_slice(m, p, j, es, &lo, &hi);
            if (hi > lo)
                memcpy(out + (off + lo) * es, recvs[j] + (off + lo) * es, (hi - lo) * es);
        }
    }
    /* Phase E. */
    return hc_phase_all(x);
}
