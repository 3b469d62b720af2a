/*
 * Collective building blocks (phases, slots, fingerprints), the operations that have a single
 * algorithm (all-to-all, barrier, send/recv), algorithm selection and the task entry point.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hccl_internal.h"

static const char *const op_names[HC_OP_COUNT_] = {
    "?", "AllReduce", "Broadcast", "AllGather", "ReduceScatter", "Reduce", "AlltoAll", "AlltoAllV", "Barrier",
    "Send", "Recv",
};

const char *hc_op_name(int op)
{
    return op > 0 && op < HC_OP_COUNT_ ? op_names[op] : "?";
}

const char *hc_dtype_name(int t)
{
    static const char *const n[] = {"int8",   "int16",  "int32",  "fp16", "fp32", "int64",   "uint64",  "uint8", "uint16",
                                    "uint32", "fp64",   "bfp16",  "int128", "?",  "hif8",   "fp8e4m3", "fp8e5m2",
                                    "fp8e8m0"};
    return t >= 0 && t < (int)(sizeof n / sizeof n[0]) ? n[t] : "?";
}

const char *hc_redop_name(int op)
{
    static const char *const n[] = {"sum", "prod", "max", "min"};
    return op >= 0 && op < 4 ? n[op] : "-";
}

/* ---- phases ---- */

int hc_slot_acquire(hc_exec *x, int s)
{
    hc_comm *c = x->c;
    uint64_t last = c->slot_last[s];
    if (last == 0 || last + 1 <= c->known_all)
        return 0; /* a later phase of all ranks already showed that everyone read it */
    if (last + 1 > c->phase)
        return hc_fail(c, HCCL_E_INTERNAL, 1, "internal: slot %d reused without an intervening phase", s);
    for (uint32_t j = 0; j < c->nranks; j++) {
        if (j == c->rank)
            continue;
        int rc = hc_wait_ge(c, &hc_ctl_of(c, j)->phase, last + 1, j, hc_op_name(x->op));
        if (rc)
            return rc;
    }
    return 0;
}

int hc_publish(hc_exec *x)
{
    hc_comm *c = x->c;
    c->phase++;
    hc_flag_set(&hc_ctl_of(c, c->rank)->phase, c->phase);
    return 0;
}

int hc_wait_peer(hc_exec *x, uint32_t peer, uint64_t phase)
{
    hc_comm *c = x->c;
    if (peer == c->rank)
        return 0;
    return hc_wait_ge(c, &hc_ctl_of(c, peer)->phase, phase, peer, hc_op_name(x->op));
}

static void fp_describe(const hc_fp *f, char *buf, size_t len)
{
    if (f->op == HC_OP_BARRIER)
        snprintf(buf, len, "Barrier (call #%llu)", (unsigned long long)f->seq);
    else if (f->op == HC_OP_ALLTOALLV)
        snprintf(buf, len, "AlltoAllV(%s) (call #%llu)", hc_dtype_name((int)f->dtype), (unsigned long long)f->seq);
    else
        snprintf(buf, len, "%s(count=%llu, %s, op=%s, root=%d) (call #%llu)", hc_op_name((int)f->op),
                 (unsigned long long)f->count, hc_dtype_name((int)f->dtype), hc_redop_name((int)f->redop),
                 (int)f->root == -1 ? -1 : (int)f->root, (unsigned long long)f->seq);
}

static int fp_equal(const hc_fp *a, const hc_fp *b)
{
    if (a->seq != b->seq || a->op != b->op || a->dtype != b->dtype)
        return 0;
    if (a->op == HC_OP_ALLTOALLV || a->op == HC_OP_BARRIER)
        return 1;
    return a->count == b->count && a->redop == b->redop && a->root == b->root;
}

/* A hash of the fields fp_equal compares (splitmix-style mixing). Equal hashes are taken as equal
 * calls: two different calls collide with probability about 2^-64. Different hashes fall back to
 * comparing the full fingerprints, which also words the error message. */
uint64_t hc_fp_hash(const hc_fp *f)
{
    uint64_t h = f->seq * 0x9E3779B97F4A7C15ull;
    uint64_t parts[4] = {f->op, f->dtype, 0, 0};
    if (f->op != HC_OP_ALLTOALLV && f->op != HC_OP_BARRIER) {
        parts[2] = f->count;
        parts[3] = ((uint64_t)f->redop << 32) | f->root;
    }
    for (int i = 0; i < 4; i++) {
        h ^= parts[i] + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
        h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
        h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
        h ^= h >> 31;
    }
    return h | 1; /* never 0, the value of a slot nobody wrote */
}

int hc_check_fp(hc_exec *x, uint32_t peer)
{
    hc_comm *c = x->c;
    uint64_t mine = hc_fp_hash(&x->fp);
    if (atomic_load_explicit(&hc_ctl_of(c, peer)->phase.fp_hash[x->fp.seq % HC_FP_RING], memory_order_relaxed) ==
        mine)
        return 0;
    const hc_fp *theirs = &hc_ctl_of(c, peer)->fp[x->fp.seq % HC_FP_RING];
    hc_fp t = *theirs;
    if (fp_equal(&t, &x->fp))
        return 0;
    char a[160], b[160];
    fp_describe(&x->fp, a, sizeof a);
    fp_describe(&t, b, sizeof b);
    return hc_fail(c, HCCL_E_PARA, 1, "collective mismatch: rank %u called %s but rank %u called %s", c->rank, a,
                   peer, b);
}

int hc_phase_all(hc_exec *x)
{
    hc_comm *c = x->c;
    hc_publish(x);
    for (uint32_t j = 0; j < c->nranks; j++) {
        int rc = hc_wait_peer(x, j, c->phase);
        if (rc)
            return rc;
    }
    c->known_all = c->phase;
    if (!x->fp_checked) {
        x->fp_checked = 1;
        for (uint32_t j = 0; j < c->nranks; j++) {
            if (j == c->rank)
                continue;
            int rc = hc_check_fp(x, j);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* ---- all-to-all ---- */

int hc_run_alltoall(hc_exec *x)
{
    hc_comm *c = x->c;
    const uint32_t p = c->nranks, r = c->rank;
    const size_t es = x->esize;
    uint64_t per = c->chunk_bytes / ((size_t)p * es);
    if (per == 0)
        per = 1;
    const uint64_t n = x->count;
    uint64_t off = 0;
    do {
        uint64_t m = n - off < per ? n - off : per;
        int s = hc_next_slot(x);
        int rc = hc_slot_acquire(x, s);
        if (rc)
            return rc;
        unsigned char *mine = hc_slot(c, r, s);
        for (uint32_t j = 0; j < p; j++)
            memcpy(mine + (size_t)j * m * es, (const unsigned char *)x->send + ((size_t)j * n + off) * es, m * es);
        if ((rc = hc_phase_all(x)) != 0)
            return rc;
        for (uint32_t j = 0; j < p; j++)
            memcpy((unsigned char *)x->recv + ((size_t)j * n + off) * es, hc_slot(c, j, s) + (size_t)r * m * es,
                   m * es);
        c->slot_last[s] = c->phase;
        off += m;
    } while (off < n);
    return 0;
}

/* AlltoAllV: a first phase exchanges every rank's send counts (checked against the receive counts)
 * and how many rounds it needs; then rounds move up to `per` elements per pair. */
int hc_run_alltoallv(hc_exec *x)
{
    hc_comm *c = x->c;
    const uint32_t p = c->nranks, r = c->rank;
    const size_t es = x->esize;
    uint64_t per = c->chunk_bytes / ((size_t)p * es);
    if (per == 0)
        per = 1;
    uint64_t rounds = 0;
    for (uint32_t j = 0; j < p; j++) {
        uint64_t a = x->scounts[j] > x->rcounts[j] ? x->scounts[j] : x->rcounts[j];
        uint64_t need = (a + per - 1) / per;
        if (need > rounds)
            rounds = need;
    }
    int s = hc_next_slot(x);
    int rc = hc_slot_acquire(x, s);
    if (rc)
        return rc;
    uint64_t *meta = (uint64_t *)hc_slot(c, r, s);
    meta[0] = rounds;
    memcpy(meta + 1, x->scounts, p * sizeof(uint64_t));
    if ((rc = hc_phase_all(x)) != 0)
        return rc;
    for (uint32_t j = 0; j < p; j++) {
        const uint64_t *theirs = (const uint64_t *)hc_slot(c, j, s);
        if (theirs[0] > rounds)
            rounds = theirs[0];
        if (theirs[1 + r] != x->rcounts[j])
            return hc_fail(c, HCCL_E_PARA, 1,
                           "AlltoAllV mismatch (call #%llu): rank %u sends %llu elements to rank %u, which expects %llu",
                           (unsigned long long)x->fp.seq, j, (unsigned long long)theirs[1 + r], r,
                           (unsigned long long)x->rcounts[j]);
    }
    c->slot_last[s] = c->phase;
    for (uint64_t k = 0; k < rounds; k++) {
        uint64_t off = k * per;
        s = hc_next_slot(x);
        if ((rc = hc_slot_acquire(x, s)) != 0)
            return rc;
        unsigned char *mine = hc_slot(c, r, s);
        for (uint32_t j = 0; j < p; j++) {
            uint64_t m = x->scounts[j] > off ? x->scounts[j] - off : 0;
            if (m > per)
                m = per;
            memcpy(mine + (size_t)j * per * es, (const unsigned char *)x->send + (x->sdispls[j] + off) * es, m * es);
        }
        if ((rc = hc_phase_all(x)) != 0)
            return rc;
        for (uint32_t j = 0; j < p; j++) {
            uint64_t m = x->rcounts[j] > off ? x->rcounts[j] - off : 0;
            if (m > per)
                m = per;
            memcpy((unsigned char *)x->recv + (x->rdispls[j] + off) * es, hc_slot(c, j, s) + (size_t)r * per * es,
                   m * es);
        }
        c->slot_last[s] = c->phase;
    }
    return 0;
}

int hc_run_barrier(hc_exec *x)
{
    return hc_phase_all(x);
}

/* ---- point to point ---- */

static uint64_t p2p_chunks(hc_exec *x)
{
    uint64_t bytes = x->count * x->esize;
    uint64_t n = (bytes + x->c->p2p_chan - 1) / x->c->p2p_chan;
    return n ? n : 1; /* an empty message still carries its fingerprint */
}

int hc_run_send(hc_exec *x)
{
    hc_comm *c = x->c;
    const uint32_t d = x->peer;
    hc_p2p_line *ln = hc_p2p_line_of(c, c->rank, d);
    x->fp.seq = ++c->p2p_sent_seq[d];
    ln->fp = x->fp;
    const uint64_t base = atomic_load_explicit(&ln->sent.value, memory_order_relaxed);
    const uint64_t nch = p2p_chunks(x);
    const size_t total = x->count * x->esize;
    for (uint64_t k = 0; k < nch; k++) {
        uint64_t idx = base + k;
        if (idx >= 2) {
            int rc = hc_wait_ge(c, &ln->done, idx - 1, d, "Send");
            if (rc)
                return rc;
        }
        size_t off = (size_t)k * c->p2p_chan;
        size_t m = total - off < c->p2p_chan ? total - off : c->p2p_chan;
        if (total == 0)
            m = 0;
        memcpy(hc_p2p_buf(c, c->rank, d, (int)(idx & 1)), (const unsigned char *)x->send + off, m);
        hc_flag_set(&ln->sent, idx + 1);
    }
    /* HCCL's send completes when the receiver has the data. */
    return hc_wait_ge(c, &ln->done, base + nch, d, "Send");
}

int hc_run_recv(hc_exec *x)
{
    hc_comm *c = x->c;
    const uint32_t s = x->peer;
    hc_p2p_line *ln = hc_p2p_line_of(c, s, c->rank);
    x->fp.seq = ++c->p2p_recv_seq[s];
    const uint64_t base = atomic_load_explicit(&ln->done.value, memory_order_relaxed);
    int rc = hc_wait_ge(c, &ln->sent, base + 1, s, "Recv");
    if (rc)
        return rc;
    hc_fp t = ln->fp;
    if (t.seq != x->fp.seq || t.count != x->count || t.dtype != x->fp.dtype)
        return hc_fail(c, HCCL_E_PARA, 1,
                       "send/recv mismatch: rank %u receives message #%llu of %llu %s from rank %u, which sent message "
                       "#%llu of %llu %s",
                       c->rank, (unsigned long long)x->fp.seq, (unsigned long long)x->count,
                       hc_dtype_name((int)x->fp.dtype), s, (unsigned long long)t.seq, (unsigned long long)t.count,
                       hc_dtype_name((int)t.dtype));
    const uint64_t nch = p2p_chunks(x);
    const size_t total = x->count * x->esize;
    for (uint64_t k = 0; k < nch; k++) {
        uint64_t idx = base + k;
        if ((rc = hc_wait_ge(c, &ln->sent, idx + 1, s, "Recv")) != 0)
            return rc;
        size_t off = (size_t)k * c->p2p_chan;
        size_t m = total - off < c->p2p_chan ? total - off : c->p2p_chan;
        if (total == 0)
            m = 0;
        memcpy((unsigned char *)x->recv + off, hc_p2p_buf(c, s, c->rank, (int)(idx & 1)), m);
        hc_flag_set(&ln->done, idx + 1);
    }
    return 0;
}

/* ---- algorithm selection ---- */

static const char *const env_op_names[] = {
    [HC_OP_ALLREDUCE] = "allreduce", [HC_OP_BROADCAST] = "broadcast", [HC_OP_ALLGATHER] = "allgather",
    [HC_OP_REDUCESCATTER] = "reducescatter", [HC_OP_REDUCE] = "reduce",
};

/* HCCL_ALGO is "level0:X;level1:Y" or "op=level0:X;level1:Y/op2=...". We take the first named
 * algorithm that applies to this op (a single host only has one level). */
static const hc_algo *algo_from_env(const char *env, int op)
{
    if (env == NULL || env[0] == '\0')
        return NULL;
    const char *name = op < (int)(sizeof env_op_names / sizeof env_op_names[0]) ? env_op_names[op] : NULL;
    const char *spec = env;
    if (strchr(env, '=') != NULL) {
        spec = NULL;
        if (name == NULL)
            return NULL;
        size_t nl = strlen(name);
        for (const char *p = env; p != NULL && *p;) {
            if (strncasecmp(p, name, nl) == 0 && p[nl] == '=') {
                spec = p + nl + 1;
                break;
            }
            p = strchr(p, '/');
            if (p)
                p++;
        }
        if (spec == NULL)
            return NULL;
    }
    for (const char *p = spec; *p && *p != '/';) {
        const char *colon = strchr(p, ':');
        if (colon == NULL)
            break;
        const char *v = colon + 1;
        size_t len = strcspn(v, ";/");
        char val[32];
        if (len < sizeof val) {
            memcpy(val, v, len);
            val[len] = '\0';
            if (!strcasecmp(val, "ring"))
                return &hc_algo_ring;
            if (!strcasecmp(val, "mesh") || !strcasecmp(val, "fullmesh"))
                return &hc_algo_mesh;
            if (!strcasecmp(val, "H-D_R") || !strcasecmp(val, "hd") || !strcasecmp(val, "rhd"))
                return &hc_algo_hd;
            if (!strcasecmp(val, "oneshot"))
                return &hc_algo_oneshot;
        }
        p = v + len;
        if (*p == ';')
            p++;
    }
    return NULL;
}

static int algo_has(const hc_algo *a, int op)
{
    switch (op) {
    case HC_OP_ALLREDUCE: return a->allreduce != NULL;
    case HC_OP_REDUCESCATTER: return a->reduce_scatter != NULL;
    case HC_OP_ALLGATHER: return a->allgather != NULL;
    case HC_OP_BROADCAST: return a->broadcast != NULL;
    case HC_OP_REDUCE: return a->reduce != NULL;
    default: return 0;
    }
}

const hc_algo *hc_select_algo(hc_comm *c, int op, size_t bytes)
{
    const hc_algo *a = algo_from_env(c->algo_env, op);
    if (a != NULL && algo_has(a, op))
        return a;
    /* Small reductions: one phase where every rank reads every peer beats two-shot, as the
     * extra reads are cheaper than a second round of flags. */
    if ((op == HC_OP_ALLREDUCE || op == HC_OP_REDUCE) && bytes <= 32768 && c->nranks <= 16)
        return &hc_algo_oneshot;
    return &hc_algo_mesh;
}

int hc_execute(hc_exec *x)
{
    hc_comm *c = x->c;
    pthread_mutex_lock(&c->exec_lock);
    int rc = atomic_load(&c->err);
    if (rc != 0) {
        pthread_mutex_unlock(&c->exec_lock);
        return rc;
    }
    if (x->op != HC_OP_SEND && x->op != HC_OP_RECV) {
        x->fp.seq = ++c->seq;
        hc_ctl *me = hc_ctl_of(c, c->rank);
        me->fp[x->fp.seq % HC_FP_RING] = x->fp;
        /* Published by the call's first phase (a release store of the same line). */
        atomic_store_explicit(&me->phase.fp_hash[x->fp.seq % HC_FP_RING], hc_fp_hash(&x->fp), memory_order_relaxed);
    }
    const hc_algo *a = NULL;
    switch (x->op) {
    case HC_OP_ALLREDUCE:
    case HC_OP_REDUCE:
    case HC_OP_BROADCAST:
    case HC_OP_ALLGATHER:
    case HC_OP_REDUCESCATTER:
        a = hc_select_algo(c, x->op, x->count * x->esize);
        break;
    default:
        break;
    }
    switch (x->op) {
    case HC_OP_ALLREDUCE: rc = a->allreduce(x); break;
    case HC_OP_REDUCE: rc = a->reduce(x); break;
    case HC_OP_BROADCAST: rc = a->broadcast(x); break;
    case HC_OP_ALLGATHER: rc = a->allgather(x); break;
    case HC_OP_REDUCESCATTER: rc = a->reduce_scatter(x); break;
    case HC_OP_ALLTOALL: rc = hc_run_alltoall(x); break;
    case HC_OP_ALLTOALLV: rc = hc_run_alltoallv(x); break;
    case HC_OP_BARRIER: rc = hc_run_barrier(x); break;
    case HC_OP_SEND: rc = hc_run_send(x); break;
    case HC_OP_RECV: rc = hc_run_recv(x); break;
    default: rc = HCCL_E_INTERNAL; break;
    }
    pthread_mutex_unlock(&c->exec_lock);
    return rc;
}
