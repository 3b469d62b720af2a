/*
 * Recursive doubling allreduce (HCCL_ALGO=...:H-D_R, or hd/rhd), for power-of-two rank counts.
 *
 * log2(p) steps; in step k rank r exchanges its running partial with partner r ^ 2^k: it publishes
 * the partial in its slot, waits for the phase, and folds the partner's partial into its own recv
 * buffer. Each step moves the whole vector, so per rank it reads and writes S·log2(p) (plus the
 * initial copy): latency-optimal (log2 p flag round trips instead of the mesh's two phases with
 * p-way fan-in), meant for small and medium messages. The lower-ranked group's partial is always
 * the first operand, so both partners compute bit-identical sums and every rank ends with the
 * same result. On one host every step is a phase of all ranks (slots are reused every other step
 * and hc_slot_acquire waits for everyone), which keeps the protocol the same as the other
 * algorithms'. Other rank counts, and the ops it does not implement, use the mesh algorithm.
 */
#include <string.h>

#include "hccl_internal.h"

static int hd_allreduce(hc_exec *x)
{
    hc_comm *c = x->c;
    const uint32_t p = c->nranks, r = c->rank;
    if (p < 2 || (p & (p - 1)) != 0)
        return hc_algo_mesh.allreduce(x);
    const size_t es = x->esize;
    const uint64_t n = x->count;
    uint64_t ce = c->chunk_bytes / es;
    if (ce == 0)
        ce = 1;
    uint64_t off = 0;
    do {
        uint64_t m = n - off < ce ? n - off : ce;
        unsigned char *acc = (unsigned char *)x->recv + off * es;
        const unsigned char *in = (const unsigned char *)x->send + off * es;
        const unsigned char *cur = in; /* my partial: the input until the first fold */
        for (uint32_t bit = 1; bit < p; bit <<= 1) {
            int s = hc_next_slot(x);
            int rc = hc_slot_acquire(x, s);
            if (rc)
                return rc;
            unsigned char *mine = hc_slot(c, r, s);
            memcpy(mine, cur, m * es);
            if ((rc = hc_phase_all(x)) != 0)
                return rc;
            const uint32_t partner = r ^ bit;
            const void *srcs[2];
            srcs[r < partner ? 0 : 1] = mine;
            srcs[r < partner ? 1 : 0] = hc_slot(c, partner, s);
            hc_reduce(acc, srcs, 2, m, x->dtype, x->redop);
            c->slot_last[s] = c->phase;
            cur = acc;
        }
        off += m;
    } while (off < n);
    return 0;
}

const hc_algo hc_algo_hd = {.name = "hd", .allreduce = hd_allreduce};
