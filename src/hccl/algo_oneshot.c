/*
 * One-shot reductions for small messages: every rank publishes its whole chunk, then each rank
 * that needs the result reduces all ranks' chunks itself. One phase instead of two: for a few KiB
 * the second round of flags costs more than reading p copies.
 */
#include <string.h>

#include "hccl_internal.h"

static int oneshot_common(hc_exec *x, int all)
{
    hc_comm *c = x->c;
    const size_t es = x->esize;
    const uint64_t n = x->count;
    uint64_t ce = c->chunk_bytes / es;
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
        if (all || c->rank == x->root) {
            const void *srcs[HC_MAX_RANKS];
            for (uint32_t j = 0; j < c->nranks; j++)
                srcs[j] = hc_slot(c, j, s);
            /* Through hc_reduce_multi: fp32 then takes the fused SIMD loop, whose wide loads keep
             * more of the peers' cache lines in flight (same bits as hc_reduce). */
            void *dst = (unsigned char *)x->recv + off * es;
            hc_reduce_multi(&dst, 1, srcs, (int)c->nranks, m, x->dtype, x->redop, 0);
        }
        c->slot_last[s] = c->phase;
        off += m;
    } while (off < n);
    return 0;
}

static int oneshot_allreduce(hc_exec *x)
{
    return oneshot_common(x, 1);
}

static int oneshot_reduce(hc_exec *x)
{
    return oneshot_common(x, 0);
}

const hc_algo hc_algo_oneshot = {
    .name = "oneshot",
    .allreduce = oneshot_allreduce,
    .reduce = oneshot_reduce,
};
