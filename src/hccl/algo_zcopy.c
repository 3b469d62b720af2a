/*
 * Zero-copy collectives for device buffers.
 *
 * Device memory of the CPU driver lives in one memfd-backed arena per device, and
 * cannonMemGetShareInfo tells which arena and offset a buffer has. Each rank maps every peer's
 * whole arena once (read-write, MAP_NORESERVE: address space only) and caches the mapping on the
 * communicator, so a collective only has to exchange offsets. Then nothing is staged: every rank
 * reads its peers' inputs and writes its peers' outputs in place.
 *
 *   allreduce:      rank r reduces slice r of every rank's send buffer and writes the result
 *                   into slice r of every rank's recv buffer. Per rank, for S bytes: read S,
 *                   write S; for all p ranks together 2pS, the least any allreduce moves (the
 *                   floor the benchmark measures). The staged mesh path moves about 2.5x that.
 *   allgather:      rank r writes its input into block r of every rank's output.
 *   reduce-scatter: rank r reduces block r of every input into its own output.
 *   broadcast:      rank r copies slice r of the root's buffer into every other rank's buffer.
 * Large results are written with streaming stores: they are not read again soon, and a regular
 * store would first read every destination line.
 *
 * Protocol (a phase is hc_phase_all: publish my counter, wait for every rank's):
 *   D  descriptors: each rank writes {pid, arena fd and inode, offsets, raw pointers, which peer
 *      arenas it has mapped} into its slot. D is the call's first phase, so fingerprints are
 *      checked before anyone touches a peer buffer; and once every rank has reached it, every
 *      rank's stream has reached this call, so its buffers are ready to be read and written.
 *      If some buffer is not shareable device memory, every rank falls back to a staged
 *      algorithm (all read the same descriptors). If every rank already holds a mapping of every
 *      arena it needs (the steady state: buffers are reused call after call) the data moves
 *      right away; otherwise every rank maps what it lacks and
 *   M  publishes whether that worked; only if every rank succeeded is the zero-copy path taken.
 *   data movement: slices are disjoint and each rank reads only what no other rank writes in this
 *      call (in place, send == recv, rank r overwrites slice r of the peers' buffers, which only
 *      rank r reads), so no phase is needed in between.
 *   E  a final phase: no rank returns (after which its user may reuse or free the buffers) while
 *      a peer still reads or writes them.
 * Waits go through hc_wait_ge, so the timeout, abort word and dead-peer checks apply unchanged. A
 * peer that dies leaves its arena pages alive in our mapping, so accesses never fault.
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

/* Up to this many ranks, each descriptor lists the arenas its rank has mapped, so that the steady
 * state needs no mapping phase. Larger communicators always run phase M. */
#define ZC_HAVE_MAX 16
#define ZC_SAME_PROCESS UINT64_MAX

/* What a rank publishes about its buffers (at the start of its slot). */
typedef struct zc_desc {
    uint64_t ok;            /* 1: both buffers are in one shareable device arena */
    int32_t pid, fd;
    uint64_t ino, arena_size;
    uint64_t send_off, recv_off;
    uint64_t send_ptr, recv_ptr; /* for peers in the same process: no mapping needed */
    uint64_t have[ZC_HAVE_MAX];  /* inode of rank k's arena this rank has mapped (0: none) */
} zc_desc;

/* Its own line past the descriptor: the result of mapping the peers' arenas (phase M). */
#define ZC_MAPPED_OFF 256
_Static_assert(sizeof(zc_desc) <= ZC_MAPPED_OFF, "descriptor overlaps the mapping flag");

/* Describe buffer @p p of @p bytes. 0: not shareable device memory. */
static int describe(hc_comm *c, const void *p, size_t bytes, cannon_mem_share_info *si)
{
    if (p == c->zc_host_hint)
        return 0;
    /* Host memory is a normal case, not an error: test it quietly first, so a successful
     * collective leaves nothing in the caller's aclGetRecentErrMsg (this may run on the
     * application thread, which synchronizes and helps run the collective). */
    if (!cannonMemIsDevice(p) || cannonMemGetShareInfo(p, si) != ACL_SUCCESS) {
        /* Host memory (or a driver that cannot share): remember it, as callers tend to reuse
         * the same buffer, so the lookup is not repeated. */
        c->zc_host_hint = p;
        return 0;
    }
    return si->offset + bytes <= si->alloc_offset + si->alloc_size && si->offset + bytes <= si->arena_size;
}

static void my_desc(hc_exec *x, size_t send_bytes, size_t recv_bytes, zc_desc *d)
{
    hc_comm *c = x->c;
    memset(d, 0, sizeof *d);
    d->pid = (int32_t)getpid();
    d->send_ptr = (uint64_t)(uintptr_t)x->send;
    d->recv_ptr = (uint64_t)(uintptr_t)x->recv;
    if (c->nranks <= ZC_HAVE_MAX) {
        for (uint32_t k = 0; k < c->nranks; k++) {
            if (k == c->rank || c->pids[k] == d->pid)
                d->have[k] = ZC_SAME_PROCESS;
            else if (c->zpeers != NULL && c->zpeers[k].map != NULL)
                d->have[k] = c->zpeers[k].ino;
        }
    }
    cannon_mem_share_info si, ri;
    if (!describe(c, x->send, send_bytes, &si) || !describe(c, x->recv, recv_bytes, &ri) || si.fd != ri.fd)
        return;
    /* The inode tells peers whether the arena is the one they mapped before: a device reset
     * gives a new memfd, possibly under the same fd number. */
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
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    void *m = MAP_FAILED;
    /* The inode check closes the race where the peer closed that fd number and reused it. */
    if (fstat(fd, &st) == 0 && (uint64_t)st.st_ino == d->ino && (uint64_t)st.st_size >= d->arena_size)
        m = mmap(NULL, d->arena_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return NULL;
    z->map = m;
    z->ino = d->ino;
    z->size = d->arena_size;
    return z->map;
}

/* Phases D (and M when needed). On success with *ok = 1, sends[j] / recvs[j] address rank j's
 * buffers in this process. *ok = 0: some rank cannot take part; every rank returns the same
 * verdict and the caller runs a staged algorithm. */
static int zc_setup(hc_exec *x, size_t send_bytes, size_t recv_bytes, unsigned char **sends, unsigned char **recvs,
                    int *ok)
{
    hc_comm *c = x->c;
    const uint32_t p = c->nranks, r = c->rank;
    *ok = 0;
    int s = hc_next_slot(x);
    int rc = hc_slot_acquire(x, s);
    if (rc)
        return rc;
    zc_desc mine;
    my_desc(x, send_bytes, recv_bytes, &mine);
    memcpy(hc_slot(c, r, s), &mine, sizeof mine);
    if ((rc = hc_phase_all(x)) != 0)
        return rc;
    int all_ok = 1, need_map = p > ZC_HAVE_MAX;
    for (uint32_t j = 0; j < p && all_ok; j++) {
        const zc_desc *d = (const zc_desc *)hc_slot(c, j, s);
        if (!d->ok)
            all_ok = 0;
        for (uint32_t k = 0; k < p && !need_map && all_ok; k++) {
            const zc_desc *dk = (const zc_desc *)hc_slot(c, k, s);
            if (d->have[k] != ZC_SAME_PROCESS && d->have[k] != dk->ino)
                need_map = 1;
        }
    }
    if (all_ok == 0) {
        /* Everyone read the same descriptors and gives up here: no phase M needed. */
        c->slot_last[s] = c->phase;
        return 0;
    }
    for (uint32_t j = 0; j < p; j++) {
        zc_desc d;
        memcpy(&d, hc_slot(c, j, s), sizeof d);
        if (d.pid == mine.pid) {
            sends[j] = (unsigned char *)(uintptr_t)d.send_ptr;
            recvs[j] = (unsigned char *)(uintptr_t)d.recv_ptr;
            continue;
        }
        unsigned char *base = peer_arena(c, j, &d);
        if (base == NULL) {
            all_ok = -1; /* shareable, but this rank cannot map it: the others must know */
            continue;
        }
        sends[j] = base + d.send_off;
        recvs[j] = base + d.recv_off;
    }
    if (need_map) {
        /* Phase M: the descriptors stay untouched (peers may still read them), the flag is on
         * a separate line. */
        *(uint64_t *)(hc_slot(c, r, s) + ZC_MAPPED_OFF) = all_ok == 1;
        if ((rc = hc_phase_all(x)) != 0)
            return rc;
        for (uint32_t j = 0; j < p; j++)
            if (*(const uint64_t *)(hc_slot(c, j, s) + ZC_MAPPED_OFF) != 1)
                all_ok = 0;
    } else if (all_ok != 1) {
        /* Every rank claimed to hold its mappings already, so this cannot happen; failing
         * loudly beats a rank taking a different path than its peers. */
        return hc_fail(c, HCCL_E_INTERNAL, 1, "internal: rank %u lost a peer mapping it advertised", r);
    }
    c->slot_last[s] = c->phase;
    *ok = all_ok == 1;
    return 0;
}

static int zc_finish(hc_exec *x, int nt)
{
    if (nt)
        hc_store_fence();
    return hc_phase_all(x); /* phase E */
}

static int zc_eligible(hc_comm *c, size_t bytes)
{
    return c->nranks >= 2 && c->zc_min_bytes != 0 && bytes >= c->zc_min_bytes;
}

int hc_zc_allreduce(hc_exec *x, int *done)
{
    hc_comm *c = x->c;
    const uint32_t p = c->nranks, r = c->rank;
    const size_t es = x->esize;
    const uint64_t n = x->count;
    const size_t bytes = n * es;
    *done = 0;
    if (!zc_eligible(c, bytes))
        return 0;
    unsigned char *sends[HC_MAX_RANKS], *recvs[HC_MAX_RANKS];
    int ok = 0;
    int rc = zc_setup(x, bytes, bytes, sends, recvs, &ok);
    if (rc != 0 || !ok)
        return rc;
    *done = 1;
    const int nt = bytes >= c->zc_nt_min_bytes;
    uint64_t lo, hi;
    hc_slice(n, p, r, es, &lo, &hi);
    if (hi > lo) {
        const void *srcs[HC_MAX_RANKS];
        void *dsts[HC_MAX_RANKS];
        for (uint32_t j = 0; j < p; j++) {
            srcs[j] = sends[j] + lo * es;
            dsts[j] = recvs[j] + lo * es;
        }
        hc_reduce_multi(dsts, (int)p, srcs, (int)p, hi - lo, x->dtype, x->redop, nt);
    }
    return zc_finish(x, nt);
}

int hc_zc_allgather(hc_exec *x, int *done)
{
    hc_comm *c = x->c;
    const uint32_t p = c->nranks, r = c->rank;
    const size_t bytes = x->count * x->esize;
    *done = 0;
    if (!zc_eligible(c, bytes * p))
        return 0;
    unsigned char *sends[HC_MAX_RANKS], *recvs[HC_MAX_RANKS];
    int ok = 0;
    int rc = zc_setup(x, bytes, bytes * p, sends, recvs, &ok);
    if (rc != 0 || !ok)
        return rc;
    *done = 1;
    const int nt = bytes * p >= c->zc_nt_min_bytes;
    for (uint32_t j = 0; j < p; j++) {
        uint32_t k = (r + j) % p; /* spread the writers over the destinations */
        hc_copy(recvs[k] + (size_t)r * bytes, sends[r], bytes, nt);
    }
    return zc_finish(x, nt);
}

int hc_zc_reduce_scatter(hc_exec *x, int *done)
{
    hc_comm *c = x->c;
    const uint32_t p = c->nranks, r = c->rank;
    const size_t bytes = x->count * x->esize; /* recvCount elements */
    *done = 0;
    if (!zc_eligible(c, bytes * p))
        return 0;
    unsigned char *sends[HC_MAX_RANKS], *recvs[HC_MAX_RANKS];
    int ok = 0;
    int rc = zc_setup(x, bytes * p, bytes, sends, recvs, &ok);
    if (rc != 0 || !ok)
        return rc;
    *done = 1;
    const int nt = bytes * p >= c->zc_nt_min_bytes;
    const void *srcs[HC_MAX_RANKS];
    for (uint32_t j = 0; j < p; j++)
        srcs[j] = sends[j] + (size_t)r * bytes;
    void *dst = recvs[r];
    hc_reduce_multi(&dst, 1, srcs, (int)p, x->count, x->dtype, x->redop, nt);
    return zc_finish(x, nt);
}

int hc_zc_broadcast(hc_exec *x, int *done)
{
    hc_comm *c = x->c;
    const uint32_t p = c->nranks, r = c->rank;
    const size_t es = x->esize;
    const size_t bytes = x->count * es;
    *done = 0;
    if (!zc_eligible(c, bytes))
        return 0;
    unsigned char *sends[HC_MAX_RANKS], *recvs[HC_MAX_RANKS];
    int ok = 0;
    int rc = zc_setup(x, bytes, bytes, sends, recvs, &ok);
    if (rc != 0 || !ok)
        return rc;
    *done = 1;
    const int nt = bytes >= c->zc_nt_min_bytes;
    uint64_t lo, hi;
    hc_slice(x->count, p, r, es, &lo, &hi);
    for (uint32_t j = 0; j < p && hi > lo; j++)
        if (j != x->root)
            hc_copy(recvs[j] + lo * es, sends[x->root] + lo * es, (hi - lo) * es, nt);
    return zc_finish(x, nt);
}
