/*
 * libhccl internals: the communicator, its shared-memory segment, the wait/flag primitives the
 * algorithms are written with, and the algorithm interface.
 *
 * Segment (one memfd per communicator, mapped by every rank; see shm.c):
 *   [header 4 KiB][ctl block of rank 0] ... [ctl block of rank p-1][data of rank 0] ... [data p-1]
 * A rank's data area is two collective slots of `slot_bytes` each (the HCCL "CCL buffer",
 * HCCL_BUFFSIZE MB) followed by its point-to-point area (one two-buffer channel per destination).
 *
 * Synchronisation of collectives is one monotonically increasing counter per rank, `phase`, in
 * its ctl block. A collective is a sequence of phases; in each phase a rank writes into its own
 * slot, publishes by bumping `phase` (release), waits until the peers it reads from have reached
 * the same phase (acquire), then reads their slots. Every rank runs the same phase sequence for
 * the same call, so the counters of healthy ranks agree at the end of every collective. Data a
 * rank published in phase u is read by peers before they publish phase u+1; so before a rank
 * overwrites a slot last published in phase u it waits for all ranks to reach u+1
 * (hc_slot_acquire). Fast path: plain loads and stores, no system calls.
 */
#ifndef CANNON_HCCL_INTERNAL_H_
#define CANNON_HCCL_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "env.h" /* src/common */
#include "hccl/hccl.h"

#define HC_CACHELINE 64
#define HC_FP_RING 4          /* fingerprints kept per rank (ranks drift by at most one call) */
#define HC_MAX_RANKS 1024
#define HC_ERRMSG 256

/* Operation codes, also the fingerprint's op field. */
typedef enum {
    HC_OP_ALLREDUCE = 1,
    HC_OP_BROADCAST,
    HC_OP_ALLGATHER,
    HC_OP_REDUCESCATTER,
    HC_OP_REDUCE,
    HC_OP_ALLTOALL,
    HC_OP_ALLTOALLV,
    HC_OP_BARRIER,
    HC_OP_SEND,
    HC_OP_RECV,
    HC_OP_COUNT_
} hc_opcode;

const char *hc_op_name(int op);
const char *hc_dtype_name(int dtype);
const char *hc_redop_name(int op);
size_t hc_dtype_size(HcclDataType t); /* 0: unknown type */

/* What every rank publishes about the call it is executing; compared across ranks. */
typedef struct hc_fp {
    uint64_t seq;   /* per-communicator collective number (p2p: per-pair message number) */
    uint64_t count;
    uint32_t op, dtype, redop, root;
    uint64_t aux;   /* op-specific (alltoallv: rounds needed by this rank) */
} hc_fp;

typedef struct hc_shm_header {
    uint64_t magic;
    uint32_t nranks, pad;
    uint64_t slot_bytes, p2p_bytes, ctl_stride, data_stride, total;
    /* First fatal error seen by any rank: everyone stops waiting when it is set. */
    _Alignas(HC_CACHELINE) _Atomic int32_t abort_code; /* HcclResult, 0 = healthy */
    int32_t abort_rank;
    char abort_msg[HC_ERRMSG];
} hc_shm_header;

/* A counter other ranks wait on (see hc_wait_ge): its writer wakes the ranks asleep on it. */
typedef struct hc_flag {
    _Alignas(HC_CACHELINE) _Atomic uint64_t value;
    _Atomic uint32_t sleepers; /* waiters that may be asleep on value's low 32 bits (futex) */
    /* Phase flags only: a hash of the fingerprint of call seq at seq % HC_FP_RING. It shares the
     * line a peer has just read to see the phase, so the check of a healthy call costs no extra
     * cache miss; only a mismatch reads the full fingerprints. */
    _Atomic uint64_t fp_hash[HC_FP_RING];
} hc_flag;

/* Rank r's ctl block. Fields written by r only, except p2p_done[] which the receivers write. */
typedef struct hc_ctl {
    hc_flag phase;                                      /* collective progress counter */
    _Alignas(HC_CACHELINE) _Atomic int32_t state;       /* 1 live, 2 destroyed, 3 failed */
    int32_t pid;
    _Alignas(HC_CACHELINE) hc_fp fp[HC_FP_RING];        /* fingerprint of call seq at seq % ring */
    /* Followed by nranks × hc_p2p_line for sends from this rank, see hc_p2p_line(). */
} hc_ctl;

/* One line per (sender, receiver) pair, in the sender's ctl block. */
typedef struct hc_p2p_line {
    hc_flag sent;                                  /* chunks published by the sender */
    hc_flag done;                                  /* chunks consumed by the receiver */
    _Alignas(HC_CACHELINE) hc_fp fp;               /* the message being sent */
} hc_p2p_line;

typedef struct hc_algo hc_algo;

/* A peer's device arena mapped into this process for zero-copy collectives (algo_zcopy.c). */
typedef struct hc_zpeer {
    uint64_t ino;          /* inode of the peer's arena memfd: identifies it across fd reuse */
    size_t size;
    unsigned char *map;    /* NULL: not mapped */
} hc_zpeer;

typedef struct hc_comm {
    uint64_t magic;
    _Atomic int refs;           /* user's + one per queued task */
    _Atomic int destroyed;
    uint32_t rank, nranks;
    pthread_mutex_t exec_lock;  /* one task of this communicator at a time in this process */

    /* The segment. */
    unsigned char *base;
    size_t map_bytes;
    hc_shm_header *hdr;
    size_t ctl_stride, data_stride;
    size_t slot_bytes, p2p_bytes, p2p_chan; /* p2p_chan: one of the two buffers of a channel */

    /* Peers. */
    int32_t *pids;
    int *pidfds;                /* -1 where pidfd_open is unavailable */
    int single_process;         /* every rank in this process (HcclCommInitAll) */

    /* Local progress state (owned by the executing task). */
    uint64_t phase;             /* my last published phase */
    uint64_t slot_last[2];      /* phase in which each slot was last published */
    uint64_t known_all;         /* a phase every rank is known to have reached */
    uint64_t seq;               /* collective calls executed */
    uint64_t *p2p_sent_seq;     /* messages sent to each peer */
    uint64_t *p2p_recv_seq;     /* messages received from each peer */

    /* Configuration. */
    int64_t exec_timeout_ns;    /* 0: wait forever */
    uint64_t spin_ns;           /* waits spin this long before yielding the core */
    uint64_t yield_ns;          /* then yield until this long before sleeping */
    uint32_t host_task_flags;   /* CANNON_HOST_TASK_ANY_THREAD unless CANNON_HCCL_SYNC_RUNS=0 */
    size_t chunk_bytes;         /* pipelining granularity inside a slot */
    char algo_env[256];
    size_t zc_min_bytes;        /* allreduce of at least this many bytes: zero-copy when possible */
    size_t zc_nt_min_bytes;     /* zero-copy results of at least this size: streaming stores */

    /* Zero-copy state (owned by the executing task): peers' arenas, and the last host pointer
     * seen, so a host buffer reused call after call is not looked up again. */
    hc_zpeer *zpeers;
    const void *zc_host_hint;

    /* Sticky error: once a collective failed the communicator only reports it. */
    _Atomic int err;            /* HcclResult */
    pthread_mutex_t err_lock;
    char errmsg[HC_ERRMSG];
    char name[64];
} hc_comm;

#define HC_COMM_MAGIC 0x68636f6d6d63616eull

static inline hc_ctl *hc_ctl_of(hc_comm *c, uint32_t r)
{
    return (hc_ctl *)(c->base + 4096 + (size_t)r * c->ctl_stride);
}
static inline hc_p2p_line *hc_p2p_line_of(hc_comm *c, uint32_t from, uint32_t to)
{
    return (hc_p2p_line *)((unsigned char *)hc_ctl_of(c, from) + sizeof(hc_ctl)) + to;
}
static inline unsigned char *hc_slot(hc_comm *c, uint32_t r, int s)
{
    return c->base + 4096 + (size_t)c->nranks * c->ctl_stride + (size_t)r * c->data_stride +
           (size_t)s * c->slot_bytes;
}
static inline unsigned char *hc_p2p_buf(hc_comm *c, uint32_t from, uint32_t to, int which)
{
    return hc_slot(c, from, 2) + ((size_t)to * 2 + (size_t)which) * c->p2p_chan;
}

/* ---- segment and waiting (shm.c) ---- */
size_t hc_ctl_stride(uint32_t nranks);
int hc_shm_create(uint32_t nranks, size_t slot_bytes, int *fd_out, size_t *total_out);
int hc_shm_attach(hc_comm *c, int fd, size_t total);
void hc_shm_detach(hc_comm *c);
/* Record a fatal error: sticky on the comm, and (when @p broadcast) in the segment so peers stop. */
int hc_fail(hc_comm *c, int code, int broadcast, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Wait until f->value >= target. `peer` is the rank that will write it (for liveness checks). */
int hc_wait_ge(hc_comm *c, hc_flag *f, uint64_t target, uint32_t peer, const char *what);
/* Publish a new value of a flag (release) and wake its sleepers, if any. */
void hc_flag_set(hc_flag *f, uint64_t v);

/* ---- collective building blocks (coll.c) ---- */
typedef struct hc_exec {
    hc_comm *c;
    int op;
    void *send, *recv;
    uint64_t count;        /* op-specific element count, as the API takes it */
    HcclDataType dtype;
    HcclReduceOp redop;
    uint32_t root, peer;
    size_t esize;
    const uint64_t *scounts, *sdispls, *rcounts, *rdispls; /* alltoallv (copies) */
    hc_fp fp;
    int fp_checked;        /* the first phase of a call also checks the fingerprints */
} hc_exec;

/* Start writing slot @p s: waits until every peer consumed what this rank last published there. */
int hc_slot_acquire(hc_exec *x, int s);
/* Publish this rank's next phase and wait for all ranks to reach it (checks fingerprints on the
 * first phase of a call). */
int hc_phase_all(hc_exec *x);
/* Publish only (no wait) / wait for one peer to reach my current phase. */
int hc_publish(hc_exec *x);
int hc_wait_peer(hc_exec *x, uint32_t peer, uint64_t phase);
/* Fingerprint check against the ranks that reached the current phase (called by hc_phase_all). */
int hc_check_fp(hc_exec *x, uint32_t peer);
uint64_t hc_fp_hash(const hc_fp *f);

/* Pick a slot for the next group of phases (alternates). */
static inline int hc_next_slot(hc_exec *x)
{
    return x->c->slot_last[0] <= x->c->slot_last[1] ? 0 : 1;
}

/* ---- reductions (reduce.c) ---- */
int hc_reduce_supported(HcclDataType t, HcclReduceOp op);
/* dst[i] = srcs[0][i] op srcs[1][i] op ... (rank order, fp16/bf16 accumulated in fp32). dst may
 * alias any source exactly. */
void hc_reduce(void *dst, const void *const *srcs, int nsrc, size_t n, HcclDataType t, HcclReduceOp op);

/* The same reduction written to @p ndst destinations (block by block, so a destination may be a
 * source). nt: streaming stores, for results nobody will read soon (call hc_store_fence before
 * publishing them). */
void hc_reduce_multi(void *const *dsts, int ndst, const void *const *srcs, int nsrc, size_t n, HcclDataType t,
                     HcclReduceOp op, int nt);
/* hc_reduce_multi for fp32 with SIMD (reduce_simd.c): same bits, no staging. Returns 0 when the
 * CPU (or CANNON_ISA) has no suitable tier or the op is not supported; the caller then falls back. */
int hc_reduce_multi_f32(void *const *dsts, int ndst, const void *const *srcs, int nsrc, size_t n, HcclReduceOp op,
                        int nt);
/* memcpy, or with streaming stores when @p nt. */
void hc_copy(void *dst, const void *src, size_t n, int nt);
void hc_store_fence(void);

/* Slice j of m elements split over p ranks, cache-line aligned so that ranks never write the
 * same line. */
static inline void hc_slice(uint64_t m, uint32_t p, uint32_t j, size_t es, uint64_t *lo, uint64_t *hi)
{
    uint64_t align = es >= HC_CACHELINE ? 1 : HC_CACHELINE / es;
    uint64_t q = (m + p - 1) / p;
    q = (q + align - 1) / align * align;
    uint64_t a = q * j, b = q * (j + 1);
    *lo = a < m ? a : m;
    *hi = b < m ? b : m;
}

/* ---- zero-copy (algo_zcopy.c) ---- */
/* Collectives reading and writing peers' device buffers in place. Sets *done = 0 (and returns 0) when the
 * buffers of some rank are not shareable device memory: the caller then runs a staged algorithm.
 * Every rank reaches the same decision. */
int hc_zc_allreduce(hc_exec *x, int *done);
int hc_zc_allgather(hc_exec *x, int *done);
int hc_zc_reduce_scatter(hc_exec *x, int *done);
int hc_zc_broadcast(hc_exec *x, int *done);
void hc_zc_release(hc_comm *c);

/* ---- algorithms (algo_*.c) ---- */
struct hc_algo {
    const char *name;
    /* NULL where the algorithm does not implement the op (the mesh one is used instead). */
    int (*allreduce)(hc_exec *x);
    int (*reduce_scatter)(hc_exec *x);
    int (*allgather)(hc_exec *x);
    int (*broadcast)(hc_exec *x);
    int (*reduce)(hc_exec *x);
};
extern const hc_algo hc_algo_mesh;    /* direct: every rank reads every peer's slot */
extern const hc_algo hc_algo_oneshot; /* small messages: everyone reduces everything, one phase */
extern const hc_algo hc_algo_ring;    /* neighbour exchanges, p-1 steps per half */
extern const hc_algo hc_algo_hd;      /* recursive halving-doubling */
const hc_algo *hc_select_algo(hc_comm *c, int op, size_t bytes);

/* Non-algorithmic ops (coll.c). */
int hc_run_alltoall(hc_exec *x);
int hc_run_alltoallv(hc_exec *x);
int hc_run_barrier(hc_exec *x);
int hc_run_send(hc_exec *x);
int hc_run_recv(hc_exec *x);
int hc_execute(hc_exec *x);

/* ---- bootstrap (bootstrap.c) ---- */
typedef struct hc_boot_result {
    int32_t *pids;
    uint64_t *hosts;
    int shm_fd;            /* rank 0's memfd number, in rank 0's process */
    int shm_pid;           /* rank 0's pid */
    size_t shm_total, slot_bytes;
} hc_boot_result;
/* Fill @p ri for address bind_ip:port (port 0: any); with @p listen, also serve the rendezvous. */
int hc_root_info_create(HcclRootInfo *ri, const char *bind_ip, uint16_t port, uint64_t nonce, int listen);
int hc_rootinfo_valid(const HcclRootInfo *ri);
int hc_boot_join(const HcclRootInfo *ri, uint32_t nranks, uint32_t rank, int shm_fd, size_t shm_total,
                 size_t slot_bytes, hc_boot_result *out, int *conn_fd, char *err, size_t errlen);
int hc_boot_finish(int fd, int status);
uint64_t hc_host_id(void);
int hc_comm_create(uint32_t nranks, uint32_t rank, const HcclRootInfo *ri, hc_comm **out);

/* ---- rank tables (ranktable.c) ---- */
/* What a valid rank table tells one rank: the job size and where rank 0 serves the rendezvous. */
typedef struct hc_ranktable {
    uint32_t nranks;
    char r0_ip[64];   /* IPv4 text; "127.0.0.1" when the table gives none */
    uint16_t r0_port; /* 1..65535 */
    uint64_t nonce;   /* hash of the table's text */
} hc_ranktable;
/* Parse and validate the rank table @p text (@p n bytes, NUL-terminated) for @p rank. No I/O and
 * no network: HCCL_SUCCESS with @p out filled, or HCCL_E_PARA / HCCL_E_MEMORY with the reason,
 * naming the field, in @p why. */
int hc_ranktable_parse(const char *text, size_t n, uint32_t rank, hc_ranktable *out, char *why, size_t wn);

/* ---- environment ---- */
int64_t hc_env_int(const char *name, int64_t def, int64_t lo, int64_t hi);
int64_t hc_now_ns(void);

/* Report an argument error through the runtime (aclGetRecentErrMsg) and return @p code. */
int hc_arg_error(int code, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif /* CANNON_HCCL_INTERNAL_H_ */
