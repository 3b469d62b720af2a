/*
 * Public HCCL API: argument checks, communicator life cycle, and turning each call into a host
 * task on the caller's stream.
 *
 * A task holds a reference on its communicator, so HcclCommDestroy with work still queued is
 * safe: the segment is unmapped when the last task finished. A failed task records a sticky
 * error on the communicator; the stream's synchronisation returns an ACL code for it and every
 * later call on the communicator returns the HCCL code with the reason in aclGetRecentErrMsg().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cannon/kernel.h"
#include "cannon/prof.h"

#define CN_PROF_UNLIKELY(x) __builtin_expect(!!(x), 0)
#include "hccl_internal.h"

int hc_arg_error(int code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cannonReportError((aclError)code, "%s", msg);
    return code;
}

size_t hc_dtype_size(HcclDataType t)
{
    switch (t) {
    case HCCL_DATA_TYPE_INT8: case HCCL_DATA_TYPE_UINT8: case HCCL_DATA_TYPE_HIF8: case HCCL_DATA_TYPE_FP8E4M3:
    case HCCL_DATA_TYPE_FP8E5M2: case HCCL_DATA_TYPE_FP8E8M0:
        return 1;
    case HCCL_DATA_TYPE_INT16: case HCCL_DATA_TYPE_UINT16: case HCCL_DATA_TYPE_FP16: case HCCL_DATA_TYPE_BFP16:
        return 2;
    case HCCL_DATA_TYPE_INT32: case HCCL_DATA_TYPE_UINT32: case HCCL_DATA_TYPE_FP32:
        return 4;
    case HCCL_DATA_TYPE_INT64: case HCCL_DATA_TYPE_UINT64: case HCCL_DATA_TYPE_FP64:
        return 8;
    case HCCL_DATA_TYPE_INT128:
        return 16;
    default:
        return 0;
    }
}

/* ---- communicator life cycle ---- */

static void comm_free(hc_comm *c)
{
    hc_zc_release(c);
    hc_shm_detach(c);
    if (c->pidfds != NULL)
        for (uint32_t i = 0; i < c->nranks; i++)
            if (c->pidfds[i] >= 0)
                close(c->pidfds[i]);
    free(c->pidfds);
    free(c->pids);
    free(c->p2p_sent_seq);
    free(c->p2p_recv_seq);
    pthread_mutex_destroy(&c->exec_lock);
    pthread_mutex_destroy(&c->err_lock);
    c->magic = 0;
    free(c);
}

static void comm_unref(hc_comm *c)
{
    if (atomic_fetch_sub(&c->refs, 1) == 1)
        comm_free(c);
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (fd >= 0)
        fcntl(fd, F_SETFD, FD_CLOEXEC);
    return fd;
#else
    (void)pid;
    return -1;
#endif
}

int hc_comm_create(uint32_t nranks, uint32_t rank, const HcclRootInfo *ri, hc_comm **out)
{
    hc_comm *c = calloc(1, sizeof *c);
    if (c == NULL)
        return hc_arg_error(HCCL_E_MEMORY, "HcclCommInit: out of memory");
    c->magic = HC_COMM_MAGIC;
    atomic_init(&c->refs, 1);
    atomic_init(&c->err, 0);
    c->rank = rank;
    c->nranks = nranks;
    pthread_mutex_init(&c->exec_lock, NULL);
    pthread_mutex_init(&c->err_lock, NULL);
    c->p2p_sent_seq = calloc(nranks, sizeof(uint64_t));
    c->p2p_recv_seq = calloc(nranks, sizeof(uint64_t));
    c->pidfds = malloc(nranks * sizeof(int));
    if (!c->p2p_sent_seq || !c->p2p_recv_seq || !c->pidfds) {
        comm_free(c);
        return hc_arg_error(HCCL_E_MEMORY, "HcclCommInit: out of memory");
    }
    for (uint32_t i = 0; i < nranks; i++)
        c->pidfds[i] = -1;
    c->exec_timeout_ns = hc_env_int("HCCL_EXEC_TIMEOUT", 1836, 0, 2147483647) * 1000000000ll;
    /* With more ranks than cores, a waiting rank most likely waits for a rank that needs its
     * core: spin only briefly, yield briefly (a yield hands the core to the rank on it cheaply,
     * which small collectives need), then sleep on the futex. Yielding for long is slow: on
     * virtual machines every yield is a costly trap, and a yield loop takes a share of the core
     * from the rank doing the work; sleeping at once slows small blocking calls down several
     * times. 10 us sits between. */
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int crowded = ncpu > 0 && (long)nranks > ncpu;
    c->spin_ns = (uint64_t)hc_env_int("CANNON_HCCL_SPIN_US", crowded ? 2 : 50, 0, 1000000) * 1000;
    c->yield_ns = (uint64_t)hc_env_int("CANNON_HCCL_YIELD_US", crowded ? 10 : 1000, 0, 100000000) * 1000;
    c->host_task_flags = hc_env_int("CANNON_HCCL_SYNC_RUNS", 1, 0, 1) ? CANNON_HOST_TASK_ANY_THREAD : 0;
    size_t slot = (size_t)hc_env_int("HCCL_BUFFSIZE", 200, 1, 1 << 16) << 20;
    const char *algo = cannon_env_get("HCCL_ALGO");
    snprintf(c->algo_env, sizeof c->algo_env, "%s", algo ? algo : "");

    int fd = -1, rc;
    size_t total = 0;
    if (rank == 0 && (rc = hc_shm_create(nranks, slot, &fd, &total)) != 0) {
        comm_free(c);
        return hc_arg_error(rc, "HcclCommInit: cannot create the shared segment (%s)", strerror(errno));
    }
    hc_boot_result br;
    memset(&br, 0, sizeof br);
    int conn = -1;
    char err[256] = "";
    rc = hc_boot_join(ri, nranks, rank, fd, total, slot, &br, &conn, err, sizeof err);
    if (rc != 0) {
        if (fd >= 0)
            close(fd);
        free(br.pids);
        free(br.hosts);
        comm_free(c);
        return hc_arg_error(rc, "HcclCommInit (rank %u of %u): %s", rank, nranks, err);
    }
    c->pids = br.pids;
    int status = 0;
    for (uint32_t i = 0; i < nranks; i++)
        if (br.hosts[i] != br.hosts[0]) {
            status = HCCL_E_NOT_SUPPORT;
            snprintf(err, sizeof err, "ranks %u and 0 are on different hosts; only one host is supported", i);
        }
    free(br.hosts);
    if (status == 0 && rank != 0) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/fd/%d", br.shm_pid, br.shm_fd);
        fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd < 0) {
            status = HCCL_E_SYSCALL;
            snprintf(err, sizeof err, "cannot open rank 0's segment %s: %s", path, strerror(errno));
        }
    }
    if (status == 0 && (status = hc_shm_attach(c, fd, br.shm_total)) != 0)
        snprintf(err, sizeof err, "cannot map the shared segment (%zu bytes)", br.shm_total);
    /* Rank 0 keeps its memfd open until every rank has mapped it. */
    rc = hc_boot_finish(conn, status);
    if (fd >= 0)
        close(fd);
    if (status != 0 || rc != 0) {
        comm_free(c);
        if (status != 0)
            return hc_arg_error(status, "HcclCommInit (rank %u of %u): %s", rank, nranks, err);
        return hc_arg_error(rc, "HcclCommInit (rank %u of %u): another rank could not map the shared segment", rank,
                            nranks);
    }
    c->single_process = 1;
    for (uint32_t i = 0; i < nranks; i++) {
        if (c->pids[i] != (int32_t)getpid()) {
            c->single_process = 0;
            c->pidfds[i] = open_pidfd(c->pids[i]);
        }
    }
    size_t chunk = (size_t)hc_env_int("CANNON_HCCL_CHUNK_KB", 1024, 4, 1 << 22) << 10;
    c->chunk_bytes = chunk < c->slot_bytes ? chunk : c->slot_bytes;
    /* Below a few tens of KiB the descriptor exchange of the zero-copy path (buffer lookups and
     * an fstat) costs more than the staged copies it saves. 0 disables it. */
    c->zc_min_bytes = (size_t)hc_env_int("CANNON_HCCL_ZCOPY_MIN_KB", 64, 0, 1 << 22) << 10;
    /* Results larger than a few MiB would not stay in the caches anyway: stream them to memory. */
    c->zc_nt_min_bytes = (size_t)hc_env_int("CANNON_HCCL_NT_MIN_KB", 4096, 0, 1 << 30) << 10;
    snprintf(c->name, sizeof c->name, "hccl-%d-%u", (int)c->pids[0], nranks);
    *out = c;
    return HCCL_SUCCESS;
}

static int comm_check(HcclComm comm, const char *api, hc_comm **out)
{
    if (comm == NULL)
        return hc_arg_error(HCCL_E_PTR, "%s: comm is NULL", api);
    hc_comm *c = comm;
    if (c->magic != HC_COMM_MAGIC || atomic_load(&c->destroyed))
        return hc_arg_error(HCCL_E_PARA, "%s: %p is not a live communicator", api, comm);
    *out = c;
    return 0;
}

HCCL_API HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo)
{
    if (rootInfo == NULL)
        return hc_arg_error(HCCL_E_PTR, "HcclGetRootInfo: rootInfo is NULL");
    uint64_t nonce = 0;
    if (getrandom(&nonce, sizeof nonce, GRND_NONBLOCK) != sizeof nonce)
        nonce = (uint64_t)hc_now_ns() ^ ((uint64_t)getpid() << 32);
    int rc = hc_root_info_create(rootInfo, cannon_env_get("HCCL_IF_IP"), 0, nonce, 1);
    if (rc != 0)
        return hc_arg_error(rc, "HcclGetRootInfo: cannot open the rendezvous socket: %s", strerror(errno));
    return HCCL_SUCCESS;
}

HCCL_API HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank, HcclComm *comm)
{
    if (rootInfo == NULL || comm == NULL)
        return hc_arg_error(HCCL_E_PTR, "HcclCommInitRootInfo: %s is NULL", rootInfo == NULL ? "rootInfo" : "comm");
    if (nRanks == 0 || nRanks > HC_MAX_RANKS)
        return hc_arg_error(HCCL_E_PARA, "HcclCommInitRootInfo: nRanks %u is out of range [1, %d]", nRanks,
                            HC_MAX_RANKS);
    if (rank >= nRanks)
        return hc_arg_error(HCCL_E_PARA, "HcclCommInitRootInfo: rank %u is out of range for %u ranks", rank, nRanks);
    if (!hc_rootinfo_valid(rootInfo))
        return hc_arg_error(HCCL_E_PARA, "HcclCommInitRootInfo: rootInfo was not produced by HcclGetRootInfo");
    hc_comm *c = NULL;
    int rc = hc_comm_create(nRanks, rank, rootInfo, &c);
    if (rc != 0)
        return (HcclResult)rc;
    *comm = c;
    return HCCL_SUCCESS;
}

typedef struct init_all_arg {
    uint32_t n, rank;
    int32_t dev;
    const HcclRootInfo *ri;
    HcclComm *out;
    int rc;
    char msg[256];
} init_all_arg;

static void *init_all_thread(void *p)
{
    init_all_arg *a = p;
    if (aclrtSetDevice(a->dev) != ACL_SUCCESS) {
        a->rc = HCCL_E_RUNTIME;
        snprintf(a->msg, sizeof a->msg, "aclrtSetDevice(%d) failed: %s", a->dev, aclGetRecentErrMsg());
        return NULL;
    }
    a->rc = HcclCommInitRootInfo(a->n, a->ri, a->rank, a->out);
    if (a->rc != 0)
        snprintf(a->msg, sizeof a->msg, "%s", aclGetRecentErrMsg());
    return NULL;
}

HCCL_API HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms)
{
    if (devices == NULL || comms == NULL)
        return hc_arg_error(HCCL_E_PTR, "HcclCommInitAll: %s is NULL", devices == NULL ? "devices" : "comms");
    if (ndev == 0 || ndev > HC_MAX_RANKS)
        return hc_arg_error(HCCL_E_PARA, "HcclCommInitAll: ndev %u is out of range", ndev);
    uint32_t ndevices = 0;
    if (aclrtGetDeviceCount(&ndevices) != ACL_SUCCESS)
        return hc_arg_error(HCCL_E_RUNTIME, "HcclCommInitAll: the runtime is not initialised (call aclInit first)");
    for (uint32_t i = 0; i < ndev; i++) {
        if (devices[i] < 0 || (uint32_t)devices[i] >= ndevices)
            return hc_arg_error(HCCL_E_PARA, "HcclCommInitAll: devices[%u] = %d does not exist (%u devices)", i,
                                devices[i], ndevices);
        for (uint32_t j = 0; j < i; j++)
            if (devices[j] == devices[i])
                return hc_arg_error(HCCL_E_PARA, "HcclCommInitAll: device %d is listed twice", devices[i]);
    }
    HcclRootInfo ri;
    int rc = HcclGetRootInfo(&ri);
    if (rc != 0)
        return (HcclResult)rc;
    init_all_arg *args = calloc(ndev, sizeof *args);
    pthread_t *th = calloc(ndev, sizeof *th);
    if (args == NULL || th == NULL) {
        free(args);
        free(th);
        return hc_arg_error(HCCL_E_MEMORY, "HcclCommInitAll: out of memory");
    }
    uint32_t started = 0;
    for (uint32_t i = 0; i < ndev; i++) {
        comms[i] = NULL;
        args[i] = (init_all_arg){.n = ndev, .rank = i, .dev = devices[i], .ri = &ri, .out = &comms[i]};
        if (pthread_create(&th[i], NULL, init_all_thread, &args[i]) != 0)
            break;
        started++;
    }
    for (uint32_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    rc = started == ndev ? 0 : HCCL_E_SYSCALL;
    const char *why = started == ndev ? "" : "cannot start threads";
    for (uint32_t i = 0; i < started && rc == 0; i++)
        if (args[i].rc != 0) {
            rc = args[i].rc;
            why = args[i].msg;
        }
    if (rc != 0) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s", why);
        for (uint32_t i = 0; i < ndev; i++)
            if (comms[i] != NULL) {
                comm_unref(comms[i]);
                comms[i] = NULL;
            }
        free(args);
        free(th);
        return hc_arg_error(rc, "HcclCommInitAll: %s", msg);
    }
    free(args);
    free(th);
    return HCCL_SUCCESS;
}

HCCL_API HcclResult HcclCommDestroy(HcclComm comm)
{
    hc_comm *c = NULL;
    int rc = comm_check(comm, "HcclCommDestroy", &c);
    if (rc)
        return (HcclResult)rc;
    int zero = 0;
    if (!atomic_compare_exchange_strong(&c->destroyed, &zero, 1))
        return hc_arg_error(HCCL_E_PARA, "HcclCommDestroy: communicator %p is already destroyed", comm);
    comm_unref(c);
    return HCCL_SUCCESS;
}

HCCL_API HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize)
{
    hc_comm *c = NULL;
    int rc = comm_check(comm, "HcclGetRankSize", &c);
    if (rc)
        return (HcclResult)rc;
    if (rankSize == NULL)
        return hc_arg_error(HCCL_E_PTR, "HcclGetRankSize: rankSize is NULL");
    *rankSize = c->nranks;
    return HCCL_SUCCESS;
}

HCCL_API HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank)
{
    hc_comm *c = NULL;
    int rc = comm_check(comm, "HcclGetRankId", &c);
    if (rc)
        return (HcclResult)rc;
    if (rank == NULL)
        return hc_arg_error(HCCL_E_PTR, "HcclGetRankId: rank is NULL");
    *rank = c->rank;
    return HCCL_SUCCESS;
}

HCCL_API HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError)
{
    hc_comm *c = NULL;
    int rc = comm_check(comm, "HcclGetCommAsyncError", &c);
    if (rc)
        return (HcclResult)rc;
    if (asyncError == NULL)
        return hc_arg_error(HCCL_E_PTR, "HcclGetCommAsyncError: asyncError is NULL");
    *asyncError = (HcclResult)atomic_load(&c->err);
    if (*asyncError != HCCL_SUCCESS) {
        pthread_mutex_lock(&c->err_lock);
        hc_arg_error(*asyncError, "communicator %s rank %u: %s", c->name, c->rank, c->errmsg);
        pthread_mutex_unlock(&c->err_lock);
    }
    return HCCL_SUCCESS;
}

HCCL_API const char *HcclGetErrorString(HcclResult code)
{
    switch (code) {
    case HCCL_SUCCESS: return "success";
    case HCCL_E_PARA: return "parameter error";
    case HCCL_E_PTR: return "empty pointer";
    case HCCL_E_MEMORY: return "memory error";
    case HCCL_E_INTERNAL: return "internal error";
    case HCCL_E_NOT_SUPPORT: return "not support feature";
    case HCCL_E_NOT_FOUND: return "not found specific resource";
    case HCCL_E_UNAVAIL: return "resource unavailable";
    case HCCL_E_SYSCALL: return "call system interface error";
    case HCCL_E_TIMEOUT: return "timeout";
    case HCCL_E_OPEN_FILE_FAILURE: return "open file fail";
    case HCCL_E_TCP_CONNECT: return "tcp connect fail";
    case HCCL_E_ROCE_CONNECT: return "roce connect fail";
    case HCCL_E_TCP_TRANSFER: return "tcp transfer fail";
    case HCCL_E_ROCE_TRANSFER: return "roce transfer fail";
    case HCCL_E_RUNTIME: return "call runtime api fail";
    case HCCL_E_DRV: return "call driver api fail";
    case HCCL_E_PROFILING: return "call profiling api fail";
    case HCCL_E_CCE: return "call cce api fail";
    case HCCL_E_NETWORK: return "call network api fail";
    case HCCL_E_AGAIN: return "try again";
    case HCCL_E_REMOTE: return "error cqe";
    case HCCL_E_SUSPENDING: return "error communicator suspending";
    case HCCL_E_OPRETRY_FAIL: return "retry constraint";
    case HCCL_E_OOM: return "out of memory";
    case HCCL_E_IN_STATUS: return "error information is in the status";
    default: return "unknown error";
    }
}

/* ---- tasks ---- */

typedef struct hc_task {
    struct hc_task *next; /* in the task pool */
    int pooled;           /* from the pool (else malloc'ed, with arrays) */
    hc_exec x;
    uint64_t arrays[];    /* alltoallv counts and displacements */
} hc_task;

/*
 * Task pool, process-wide. An application may enqueue thousands of collectives before the first
 * one ran; allocating each task from the heap then grows the heap page by page, and on the VMs
 * cannon targets a page fault costs microseconds, paid on the enqueuing thread, which usually
 * shares its core with the stream thread running the collectives. So fixed-size tasks come from
 * chunks mapped with MAP_POPULATE (one system call for the pages of 512 tasks) and are recycled:
 * the stream threads push finished tasks onto a lock-free stack, and an enqueuer that finds its
 * free list empty takes the whole stack at once (push and take-all need no ABA protection).
 * Chunks are kept for the life of the process. ASan watches heap blocks, not mappings: under it
 * every task comes from the heap.
 */
#if defined(__SANITIZE_ADDRESS__)
#define HC_POOL_OFF 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HC_POOL_OFF 1
#endif
#endif

static _Atomic(hc_task *) g_pool_returned; /* pushed by task_run */

#if !defined(HC_POOL_OFF)
#define HC_POOL_CHUNK 512
static pthread_mutex_t g_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static hc_task *g_pool_free; /* under g_pool_lock */

static hc_task *pool_get(void)
{
    pthread_mutex_lock(&g_pool_lock);
    hc_task *t = g_pool_free;
    if (t == NULL)
        t = atomic_exchange(&g_pool_returned, NULL);
    if (t == NULL) {
        size_t bytes = (size_t)HC_POOL_CHUNK * sizeof(hc_task);
        hc_task *chunk = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (chunk == MAP_FAILED) {
            pthread_mutex_unlock(&g_pool_lock);
            return NULL;
        }
        for (size_t i = 0; i + 1 < HC_POOL_CHUNK; i++)
            chunk[i].next = &chunk[i + 1];
        chunk[HC_POOL_CHUNK - 1].next = NULL;
        t = chunk;
    }
    g_pool_free = t->next;
    pthread_mutex_unlock(&g_pool_lock);
    return t;
}

#endif

static void task_free(hc_task *t)
{
    if (!t->pooled) {
        free(t);
        return;
    }
    hc_task *head = atomic_load(&g_pool_returned);
    do
        t->next = head;
    while (!atomic_compare_exchange_weak(&g_pool_returned, &head, t));
}

/* The stream reports an ACL code; the HCCL code stays available via HcclGetCommAsyncError. */
static int to_acl(int rc)
{
    switch (rc) {
    case 0: return ACL_SUCCESS;
    case HCCL_E_TIMEOUT: return ACL_ERROR_RT_TASK_TIMEOUT;
    case HCCL_E_REMOTE: return ACL_ERROR_RT_SUSPECT_REMOTE_ERROR;
    case HCCL_E_PARA: return ACL_ERROR_RT_PARAM_INVALID;
    default: return ACL_ERROR_RT_INTERNAL_ERROR;
    }
}

static int task_run(void *arg)
{
    hc_task *t = arg;
    hc_comm *c = t->x.c;
    int rc = hc_execute(&t->x);
    task_free(t);
    comm_unref(c);
    return to_acl(rc);
}

static int enqueue(hc_comm *c, hc_task *t, aclrtStream stream, const char *api)
{
    t->x.c = c;
    t->x.fp.op = (uint32_t)t->x.op;
    t->x.fp.count = t->x.count;
    t->x.fp.dtype = (uint32_t)t->x.dtype;
    t->x.fp.redop = (uint32_t)t->x.redop;
    t->x.fp.root = t->x.root;
    atomic_fetch_add(&c->refs, 1);
    if (CN_PROF_UNLIKELY(cannonProfActive())) {
        char detail[128];
        snprintf(detail, sizeof detail, "count=%llu dtype=%s rank=%u/%u", (unsigned long long)t->x.count,
                 hc_dtype_name((int)t->x.dtype), c->rank, c->nranks);
        cannon_prof_label l = {.name = hc_op_name(t->x.op), .detail = detail, .rank = (int32_t)c->rank,
                               .bytes = t->x.count * (uint64_t)hc_dtype_size(t->x.dtype)};
        cannonProfSetTaskLabel(&l);
    }
    /* The caller usually waits for the collective next (aclrtSynchronizeStream): that thread may
     * then run it itself instead of handing it to the stream thread and sleeping. */
    aclError arc = cannonLaunchHostTaskEx(stream, task_run, t, c->host_task_flags);
    if (arc != ACL_SUCCESS) {
        atomic_fetch_sub(&c->refs, 1);
        task_free(t);
        return hc_arg_error(HCCL_E_RUNTIME, "%s: cannot enqueue on stream %p: %s", api, stream, aclGetRecentErrMsg());
    }
    return HCCL_SUCCESS;
}

static int sticky(hc_comm *c, const char *api)
{
    int e = atomic_load(&c->err);
    if (e == 0)
        return 0;
    pthread_mutex_lock(&c->err_lock);
    hc_arg_error(e, "%s: communicator rank %u failed earlier: %s", api, c->rank, c->errmsg);
    pthread_mutex_unlock(&c->err_lock);
    return e;
}

/* Common checks: communicator, sticky error, type, op, buffers and count overflow. */
static int prologue(HcclComm comm, const char *api, HcclDataType t, int redop, uint64_t count, uint64_t mult,
                    const void *b1, const void *b2, hc_comm **out, size_t *es)
{
    hc_comm *c = NULL;
    int rc = comm_check(comm, api, &c);
    if (rc)
        return rc;
    if ((rc = sticky(c, api)) != 0)
        return rc;
    *es = hc_dtype_size(t);
    if (*es == 0)
        return hc_arg_error(HCCL_E_PARA, "%s: dataType %d is not an HCCL data type", api, (int)t);
    if (redop >= 0) {
        if (redop > HCCL_REDUCE_MIN)
            return hc_arg_error(HCCL_E_PARA, "%s: op %d is not an HCCL reduce op", api, redop);
        if (!hc_reduce_supported(t, (HcclReduceOp)redop))
            return hc_arg_error(HCCL_E_NOT_SUPPORT, "%s: %s reductions of %s are not supported", api,
                                hc_redop_name(redop), hc_dtype_name((int)t));
    }
    if (mult == 0)
        mult = 1;
    if (count > UINT64_MAX / mult / *es || count * mult * *es > (uint64_t)SIZE_MAX / 2)
        return hc_arg_error(HCCL_E_PARA, "%s: count %llu overflows the address space", api, (unsigned long long)count);
    if (count > 0 && (b1 == NULL || b2 == NULL))
        return hc_arg_error(HCCL_E_PTR, "%s: a buffer is NULL with count %llu", api, (unsigned long long)count);
    *out = c;
    return 0;
}

static hc_task *new_task(size_t extra)
{
#if defined(HC_POOL_OFF)
    hc_task *t = NULL;
#else
    hc_task *t = extra == 0 ? pool_get() : NULL;
#endif
    if (t != NULL) {
        memset(t, 0, sizeof *t);
        t->pooled = 1;
        return t;
    }
    return calloc(1, sizeof(hc_task) + extra);
}

#define NEW_TASK_OR_FAIL(t, extra, api)                                                            \
    hc_task *t = new_task(extra);                                                                  \
    if (t == NULL)                                                                                 \
    return (HcclResult)hc_arg_error(HCCL_E_MEMORY, "%s: out of memory", api)

HCCL_API HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType, HcclReduceOp op,
                                  HcclComm comm, aclrtStream stream)
{
    hc_comm *c = NULL;
    size_t es;
    int rc = prologue(comm, "HcclAllReduce", dataType, (int)op, count, 1, sendBuf, recvBuf, &c, &es);
    if (rc)
        return (HcclResult)rc;
    NEW_TASK_OR_FAIL(t, 0, "HcclAllReduce");
    t->x = (hc_exec){.op = HC_OP_ALLREDUCE, .send = sendBuf, .recv = recvBuf, .count = count, .dtype = dataType,
                     .redop = op, .root = UINT32_MAX, .esize = es};
    return (HcclResult)enqueue(c, t, stream, "HcclAllReduce");
}

HCCL_API HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType, HcclReduceOp op,
                               uint32_t root, HcclComm comm, aclrtStream stream)
{
    hc_comm *c = NULL;
    size_t es;
    int rc = prologue(comm, "HcclReduce", dataType, (int)op, count, 1, sendBuf, sendBuf, &c, &es);
    if (rc)
        return (HcclResult)rc;
    if (root >= c->nranks)
        return (HcclResult)hc_arg_error(HCCL_E_PARA, "HcclReduce: root %u is out of range for %u ranks", root,
                                        c->nranks);
    if (c->rank == root && count > 0 && recvBuf == NULL)
        return (HcclResult)hc_arg_error(HCCL_E_PTR, "HcclReduce: recvBuf is NULL on the root");
    NEW_TASK_OR_FAIL(t, 0, "HcclReduce");
    t->x = (hc_exec){.op = HC_OP_REDUCE, .send = sendBuf, .recv = recvBuf, .count = count, .dtype = dataType,
                     .redop = op, .root = root, .esize = es};
    return (HcclResult)enqueue(c, t, stream, "HcclReduce");
}

HCCL_API HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root, HcclComm comm,
                                  aclrtStream stream)
{
    hc_comm *c = NULL;
    size_t es;
    int rc = prologue(comm, "HcclBroadcast", dataType, -1, count, 1, buf, buf, &c, &es);
    if (rc)
        return (HcclResult)rc;
    if (root >= c->nranks)
        return (HcclResult)hc_arg_error(HCCL_E_PARA, "HcclBroadcast: root %u is out of range for %u ranks", root,
                                        c->nranks);
    NEW_TASK_OR_FAIL(t, 0, "HcclBroadcast");
    t->x = (hc_exec){.op = HC_OP_BROADCAST, .send = buf, .recv = buf, .count = count, .dtype = dataType,
                     .redop = (HcclReduceOp)0, .root = root, .esize = es};
    return (HcclResult)enqueue(c, t, stream, "HcclBroadcast");
}

HCCL_API HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType,
                                  HcclComm comm, aclrtStream stream)
{
    hc_comm *c = NULL;
    size_t es;
    int rc = comm_check(comm, "HcclAllGather", &c);
    if (rc)
        return (HcclResult)rc;
    rc = prologue(comm, "HcclAllGather", dataType, -1, sendCount, c->nranks, sendBuf, recvBuf, &c, &es);
    if (rc)
        return (HcclResult)rc;
    NEW_TASK_OR_FAIL(t, 0, "HcclAllGather");
    t->x = (hc_exec){.op = HC_OP_ALLGATHER, .send = sendBuf, .recv = recvBuf, .count = sendCount, .dtype = dataType,
                     .redop = (HcclReduceOp)0, .root = UINT32_MAX, .esize = es};
    return (HcclResult)enqueue(c, t, stream, "HcclAllGather");
}

HCCL_API HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                                      HcclReduceOp op, HcclComm comm, aclrtStream stream)
{
    hc_comm *c = NULL;
    size_t es;
    int rc = comm_check(comm, "HcclReduceScatter", &c);
    if (rc)
        return (HcclResult)rc;
    rc = prologue(comm, "HcclReduceScatter", dataType, (int)op, recvCount, c->nranks, sendBuf, recvBuf, &c, &es);
    if (rc)
        return (HcclResult)rc;
    NEW_TASK_OR_FAIL(t, 0, "HcclReduceScatter");
    t->x = (hc_exec){.op = HC_OP_REDUCESCATTER, .send = sendBuf, .recv = recvBuf, .count = recvCount,
                     .dtype = dataType, .redop = op, .root = UINT32_MAX, .esize = es};
    return (HcclResult)enqueue(c, t, stream, "HcclReduceScatter");
}

static int p2p(void *buf, uint64_t count, HcclDataType dataType, uint32_t peer, HcclComm comm, aclrtStream stream,
               int op)
{
    const char *api = op == HC_OP_SEND ? "HcclSend" : "HcclRecv";
    hc_comm *c = NULL;
    size_t es;
    int rc = prologue(comm, api, dataType, -1, count, 1, buf, buf, &c, &es);
    if (rc)
        return rc;
    if (peer >= c->nranks || peer == c->rank)
        return hc_arg_error(HCCL_E_PARA, "%s: peer rank %u is out of range or this rank (%u of %u)", api, peer,
                            c->rank, c->nranks);
    NEW_TASK_OR_FAIL(t, 0, api);
    t->x = (hc_exec){.op = op, .send = buf, .recv = buf, .count = count, .dtype = dataType,
                     .redop = (HcclReduceOp)0, .root = UINT32_MAX, .peer = peer, .esize = es};
    return enqueue(c, t, stream, api);
}

HCCL_API HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank, HcclComm comm,
                             aclrtStream stream)
{
    return (HcclResult)p2p(sendBuf, count, dataType, destRank, comm, stream, HC_OP_SEND);
}

HCCL_API HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank, HcclComm comm,
                             aclrtStream stream)
{
    return (HcclResult)p2p(recvBuf, count, dataType, srcRank, comm, stream, HC_OP_RECV);
}

HCCL_API HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount, HcclDataType sendType, const void *recvBuf,
                                 uint64_t recvCount, HcclDataType recvType, HcclComm comm, aclrtStream stream)
{
    hc_comm *c = NULL;
    size_t es;
    int rc = comm_check(comm, "HcclAlltoAll", &c);
    if (rc)
        return (HcclResult)rc;
    rc = prologue(comm, "HcclAlltoAll", sendType, -1, sendCount, c->nranks, sendBuf, recvBuf, &c, &es);
    if (rc)
        return (HcclResult)rc;
    if (sendType != recvType || sendCount != recvCount)
        return (HcclResult)hc_arg_error(HCCL_E_PARA,
                                        "HcclAlltoAll: send (%llu × %s) and receive (%llu × %s) blocks must match",
                                        (unsigned long long)sendCount, hc_dtype_name(sendType),
                                        (unsigned long long)recvCount, hc_dtype_name(recvType));
    if (sendCount > 0 && sendBuf == recvBuf)
        return (HcclResult)hc_arg_error(HCCL_E_PARA, "HcclAlltoAll: sendBuf and recvBuf must differ");
    NEW_TASK_OR_FAIL(t, 0, "HcclAlltoAll");
    t->x = (hc_exec){.op = HC_OP_ALLTOALL, .send = (void *)sendBuf, .recv = (void *)recvBuf, .count = sendCount,
                     .dtype = sendType, .redop = (HcclReduceOp)0, .root = UINT32_MAX, .esize = es};
    return (HcclResult)enqueue(c, t, stream, "HcclAlltoAll");
}

HCCL_API HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts, const void *sdispls,
                                  HcclDataType sendType, const void *recvBuf, const void *recvCounts,
                                  const void *rdispls, HcclDataType recvType, HcclComm comm, aclrtStream stream)
{
    const char *api = "HcclAlltoAllV";
    hc_comm *c = NULL;
    size_t es;
    int rc = prologue(comm, api, sendType, -1, 0, 1, NULL, NULL, &c, &es);
    if (rc)
        return (HcclResult)rc;
    if (sendCounts == NULL || sdispls == NULL || recvCounts == NULL || rdispls == NULL)
        return (HcclResult)hc_arg_error(HCCL_E_PTR, "%s: a count or displacement array is NULL", api);
    if (sendType != recvType)
        return (HcclResult)hc_arg_error(HCCL_E_PARA, "%s: sendType %s and recvType %s differ", api,
                                        hc_dtype_name(sendType), hc_dtype_name(recvType));
    const uint32_t p = c->nranks;
    const uint64_t *sc = sendCounts, *sd = sdispls, *rcn = recvCounts, *rd = rdispls;
    uint64_t stot = 0, rtot = 0;
    const uint64_t lim = ((uint64_t)SIZE_MAX / 2) / es;
    for (uint32_t j = 0; j < p; j++) {
        if (sc[j] > lim || sd[j] > lim - sc[j] || rcn[j] > lim || rd[j] > lim - rcn[j])
            return (HcclResult)hc_arg_error(HCCL_E_PARA, "%s: counts/displacements for rank %u overflow", api, j);
        stot += sc[j];
        rtot += rcn[j];
    }
    if ((stot > 0 && sendBuf == NULL) || (rtot > 0 && recvBuf == NULL))
        return (HcclResult)hc_arg_error(HCCL_E_PTR, "%s: %s is NULL", api, stot > 0 && !sendBuf ? "sendBuf" : "recvBuf");
    if (sendBuf != NULL && sendBuf == recvBuf)
        return (HcclResult)hc_arg_error(HCCL_E_PARA, "%s: sendBuf and recvBuf must differ", api);
    NEW_TASK_OR_FAIL(t, 4 * (size_t)p * sizeof(uint64_t), api);
    uint64_t *arr = t->arrays;
    memcpy(arr, sc, p * sizeof(uint64_t));
    memcpy(arr + p, sd, p * sizeof(uint64_t));
    memcpy(arr + 2 * p, rcn, p * sizeof(uint64_t));
    memcpy(arr + 3 * p, rd, p * sizeof(uint64_t));
    t->x = (hc_exec){.op = HC_OP_ALLTOALLV, .send = (void *)sendBuf, .recv = (void *)recvBuf, .count = 0,
                     .dtype = sendType, .redop = (HcclReduceOp)0, .root = UINT32_MAX, .esize = es,
                     .scounts = arr, .sdispls = arr + p, .rcounts = arr + 2 * p, .rdispls = arr + 3 * p};
    return (HcclResult)enqueue(c, t, stream, api);
}

HCCL_API HcclResult HcclBarrier(HcclComm comm, aclrtStream stream)
{
    hc_comm *c = NULL;
    int rc = comm_check(comm, "HcclBarrier", &c);
    if (rc)
        return (HcclResult)rc;
    if ((rc = sticky(c, "HcclBarrier")) != 0)
        return (HcclResult)rc;
    NEW_TASK_OR_FAIL(t, 0, "HcclBarrier");
    t->x = (hc_exec){.op = HC_OP_BARRIER, .dtype = HCCL_DATA_TYPE_INT8, .redop = (HcclReduceOp)0,
                     .root = UINT32_MAX, .esize = 1};
    return (HcclResult)enqueue(c, t, stream, "HcclBarrier");
}
