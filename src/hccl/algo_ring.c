/*
 * Ring reduce-scatter followed by a direct all-gather, for allreduce (HCCL_ALGO=...:ring).
 *
 * Step k of the reduce-scatter: rank r publishes the partial sum of block (r - k) mod p, which is
 * its own input block plus what its left neighbour published in step k-1; so every step reads one
 * block from one neighbour (the α-β cost of a network ring). After p-1 steps rank r holds block
 * (r + 1) mod p fully reduced; one all-to-all phase lets every rank copy every block. Each step
 * takes a fresh slot, and slot reuse waits for all ranks (hc_slot_acquire), so the ring runs
 * nearly in lockstep: correct, but on one host the mesh algorithm is faster; the ring exists for
 * comparison and as the shape of the future inter-host path.
 */
#include <string.h>

#include "hccl_internal.h"

static void blk(uint64_t m, uint32_t p, uint32_t j, uint64_t *lo, uint64_t *hi)
{
    *lo = m * j / p;
    *hi = m * (j + 1) / p;
}

static int ring_allreduce(hc_exec *x)
{
    hc_comm *c = x->c;
    const uint32_t p = c->nranks, r = c->rank, left = (r + p - 1) % p;
    const size_t es = x->esize;
    const uint64_t n = x->count;
    uint64_t ce = c->chunk_bytes / es;
    if (ce == 0)
        ce = 1;
    uint64_t off = 0;
    do {
        uint64_t m = n - off < ce ? n - off : ce;
        const unsigned char *in = (const unsigned char *)x->send + off * es;
        int prev = -1;
        for (uint32_t k = 0; k < p; k++) {
            int s = hc_next_slot(x);
            int rc = hc_slot_acquire(x, s);
            if (rc)
                return rc;
            uint32_t b = (r + p - k) % p; /* block published at this step (k = p-1: the final one) */
            uint64_t lo, hi;
            blk(m, p, b, &lo, &hi);
            unsigned char *dst = hc_slot(c, r, s) + lo * es;
            if (k == 0) {
                memcpy(dst, in + lo * es, (hi - lo) * es);
            } else {
                const void *srcs[2] = {hc_slot(c, left, prev) + lo * es, in + lo * es};
                hc_reduce(dst, srcs, 2, hi - lo, x->dtype, x->redop);
            }
            if (k == 0 || k == p - 1) {
                rc = hc_phase_all(x); /* first: fingerprints; last: everyone's final block is ready */
            } else {
                hc_publish(x);
                rc = hc_wait_peer(x, (r + 1) % p, c->phase); /* keep the right neighbour close */
            }
            if (rc)
                return rc;
            if (k + 1 < p && k > 0) {
                /* The next step reads what the left neighbour published now. */
                if ((rc = hc_wait_peer(x, left, c->phase)) != 0)
                    return rc;
            }
            c->slot_last[s] = c->phase;
            prev = s;
        }
        /* Gather: rank j's last slot holds block (j + 1) mod p, fully reduced. */
        for (uint32_t j = 0; j < p; j++) {
            uint64_t lo, hi;
            blk(m, p, (j + 1) % p, &lo, &hi);
            memcpy((unsigned char *)x->recv + (off + lo) * es, hc_slot(c, j, prev) + lo * es, (hi - lo) * es);
        }
        /* Readers of the final slot finish before the next phase anyone publishes. */
        off += m;
    } while (off < n);
    return 0;
}

const hc_algo hc_algo_ring = {
    .name = "ring",
    .allreduce = ring_allreduce,
};
