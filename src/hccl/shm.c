/*
 * The communicator's shared segment and the waiting primitive.
 *
 * The segment is an anonymous memfd created by rank 0: it has no name, so nothing can be left
 * behind in /dev/shm whatever happens to the processes, and it disappears with the last mapping.
 * Peers open it through /proc/<pid of rank 0>/fd/<fd> during bootstrap (same user, same host),
 * which needs no Unix socket and no name to unlink.
 *
 * Waiting spins on the flag (plain loads: no system call while the peer is on time), then yields,
 * then sleeps on the flag as a futex, woken by the writer. Only on the slow path does it look at
 * the clock-based deadline (HCCL_EXEC_TIMEOUT), the segment's abort word (another rank failed), and whether the
 * awaited peer is still alive (pidfd, or kill(pid, 0)), so a rank killed with SIGKILL is noticed
 * within milliseconds instead of at the timeout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hccl_internal.h"

#define HC_SHM_MAGIC 0x63616e6e6f6e7368ull

static size_t round_up(size_t v, size_t a)
{
    return (v + a - 1) / a * a;
}

size_t hc_ctl_stride(uint32_t nranks)
{
    return round_up(sizeof(hc_ctl) + (size_t)nranks * sizeof(hc_p2p_line), 4096);
}

/* One of the two buffers of a point-to-point channel: large enough to stream at memory speed,
 * small enough that p² channels stay modest (pages are only touched when used). */
static size_t p2p_chan_bytes(size_t slot_bytes)
{
    size_t q = (size_t)1 << 20;
    if (slot_bytes < q)
        q = slot_bytes;
    return round_up(q, HC_CACHELINE);
}

int hc_shm_create(uint32_t nranks, size_t slot_bytes, int *fd_out, size_t *total_out)
{
    size_t chan = p2p_chan_bytes(slot_bytes);
    size_t ctl = hc_ctl_stride(nranks);
    size_t data = round_up(2 * slot_bytes + (size_t)nranks * 2 * chan, 4096);
    size_t total = 4096 + (size_t)nranks * ctl + (size_t)nranks * data;
    int fd = memfd_create("cannon-hccl", MFD_CLOEXEC);
    if (fd < 0)
        return HCCL_E_SYSCALL;
    if (ftruncate(fd, (off_t)total) != 0) {
        close(fd);
        return HCCL_E_MEMORY;
    }
    hc_shm_header *h = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (h == MAP_FAILED) {
        close(fd);
        return HCCL_E_MEMORY;
    }
    /* Fresh memfd pages are zero: counters, states and the abort word start cleared. */
    h->nranks = nranks;
    h->slot_bytes = slot_bytes;
    h->p2p_bytes = chan;
    h->ctl_stride = ctl;
    h->data_stride = data;
    h->total = total;
    atomic_store_explicit(&h->abort_code, 0, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    h->magic = HC_SHM_MAGIC;
    munmap(h, 4096);
    *fd_out = fd;
    *total_out = total;
    return HCCL_SUCCESS;
}

int hc_shm_attach(hc_comm *c, int fd, size_t total)
{
    void *p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return HCCL_E_MEMORY;
    hc_shm_header *h = p;
    if (h->magic != HC_SHM_MAGIC || h->nranks != c->nranks || h->total != total) {
        munmap(p, total);
        return HCCL_E_INTERNAL;
    }
    c->base = p;
    c->map_bytes = total;
    c->hdr = h;
    c->slot_bytes = h->slot_bytes;
    c->p2p_chan = h->p2p_bytes;
    c->ctl_stride = h->ctl_stride;
    c->data_stride = h->data_stride;
    hc_ctl *me = hc_ctl_of(c, c->rank);
    me->pid = (int32_t)getpid();
    atomic_store_explicit(&me->state, 1, memory_order_release);
    return HCCL_SUCCESS;
}

void hc_shm_detach(hc_comm *c)
{
    if (c->base != NULL) {
        hc_ctl *me = hc_ctl_of(c, c->rank);
        /* Tell peers still waiting for this rank that it is gone for good. */
        int32_t live = 1;
        atomic_compare_exchange_strong(&me->state, &live, 2);
        munmap(c->base, c->map_bytes);
        c->base = NULL;
    }
}

int hc_fail(hc_comm *c, int code, int broadcast, const char *fmt, ...)
{
    char msg[HC_ERRMSG];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&c->err_lock);
    if (atomic_load(&c->err) == 0) {
        snprintf(c->errmsg, sizeof c->errmsg, "%s", msg);
        atomic_store(&c->err, code);
    }
    pthread_mutex_unlock(&c->err_lock);
    if (broadcast && c->hdr != NULL) {
        /* Claim the abort word (-1 while the message is written), then publish the code. */
        int32_t zero = 0;
        if (atomic_compare_exchange_strong(&c->hdr->abort_code, &zero, -1)) {
            c->hdr->abort_rank = (int32_t)c->rank;
            snprintf(c->hdr->abort_msg, sizeof c->hdr->abort_msg, "%s", msg);
            atomic_store_explicit(&c->hdr->abort_code, code, memory_order_release);
        }
        atomic_store_explicit(&hc_ctl_of(c, c->rank)->state, 3, memory_order_release);
    }
    return code;
}

int64_t hc_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* 1: the peer process has exited (or is a zombie). */
static int peer_dead(hc_comm *c, uint32_t peer)
{
    if (c->single_process || peer == c->rank)
        return 0;
    if (c->pidfds != NULL && c->pidfds[peer] >= 0) {
        struct pollfd p = {.fd = c->pidfds[peer], .events = POLLIN};
        return poll(&p, 1, 0) > 0;
    }
    pid_t pid = c->pids[peer];
    if (kill(pid, 0) != 0 && errno == ESRCH)
        return 1;
    /* A killed child its parent has not reaped yet still answers kill(): look at its state. */
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    const char *rp = strrchr(buf, ')');
    return rp != NULL && (rp[2] == 'Z' || rp[2] == 'X');
}

/* The futex word of a flag: the low half of its 64-bit value (counters of healthy ranks never
 * differ by 2^32 within one wait, so the low half changes whenever the value does). The segment is
 * shared between processes, so the futex calls are not FUTEX_PRIVATE. */
static uint32_t *flag_word(hc_flag *f)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return (uint32_t *)(void *)&f->value + 1;
#else
    return (uint32_t *)(void *)&f->value;
#endif
}

void hc_flag_set(hc_flag *f, uint64_t v)
{
    /* A release store and a plain load of the sleeper count, with no fence in between: a full
     * fence here would stall every publish until the data stores before it (a whole slot) have
     * drained, on the fast path of every collective. The price is a narrow race where a waiter
     * that is just going to sleep is missed: it then wakes by its own timeout (a sleep lasts at
     * most HC_MAX_SLEEP_NS), a bounded delay on a wait that has already lasted a millisecond.
     * The fast path (nobody asleep) makes no system call. */
    atomic_store_explicit(&f->value, v, memory_order_release);
    if (atomic_load_explicit(&f->sleepers, memory_order_relaxed) != 0)
        (void)syscall(SYS_futex, flag_word(f), FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* The longest single sleep: it bounds the cost of a wake-up missed in hc_flag_set's race. */
#define HC_MAX_SLEEP_NS 1000000

/* Sleep until @p f changes from @p seen or @p ns pass. */
static void flag_sleep(hc_flag *f, uint64_t seen, int64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
    atomic_fetch_add(&f->sleepers, 1);
    if (atomic_load(&f->value) == seen)
        (void)syscall(SYS_futex, flag_word(f), FUTEX_WAIT, (uint32_t)seen, &ts, NULL, 0);
    atomic_fetch_sub(&f->sleepers, 1);
}

/* How often a late peer is checked (liveness, abort, timeout), and the longest single sleep. */
#define HC_CHECK_NS 5000000

/*
 * Three stages: spin (the peer is running and about to publish: a hand-off costs a fraction of a
 * microsecond), then yield (the peer may be waiting for this very core, which matters whenever
 * there are more ranks than cores), then sleep on the flag's futex, woken by its writer. Spin and
 * yield lengths are the communicator's (CANNON_HCCL_SPIN_US, CANNON_HCCL_YIELD_US); with more
 * ranks than cores the spin is short by default.
 */
int hc_wait_ge(hc_comm *c, hc_flag *f, uint64_t target, uint32_t peer, const char *what)
{
    _Atomic uint64_t *word = &f->value;
    if (atomic_load_explicit(word, memory_order_acquire) >= target)
        return 0;
    int64_t start = 0, last_check = 0;
    int spinning = c->spin_ns > 0;
    for (uint32_t i = 1;; i++) {
        uint64_t v = atomic_load_explicit(word, memory_order_acquire);
        if (v >= target)
            return 0;
        if (spinning) {
            /* The clock (and the abort word) only every 64 pauses. */
            cpu_relax();
            if ((i & 63) != 0)
                continue;
        }
        int64_t now = hc_now_ns();
        if (start == 0)
            start = last_check = now;
        int64_t waited = now - start;
        int32_t ab = atomic_load_explicit(&c->hdr->abort_code, memory_order_acquire);
        if (ab > 0)
            return hc_fail(c, ab, 0, "rank %u stopped: rank %d failed: %s", c->rank, (int)c->hdr->abort_rank,
                           c->hdr->abort_msg);
        if ((uint64_t)waited < c->spin_ns)
            continue;
        spinning = 0;
        /* Slow path: the peer is late. Check it now and then, and stop burning the CPU. */
        if (now - last_check >= HC_CHECK_NS) {
            last_check = now;
            hc_ctl *pc = hc_ctl_of(c, peer);
            int32_t st = atomic_load_explicit(&pc->state, memory_order_acquire);
            if (atomic_load_explicit(word, memory_order_acquire) >= target)
                return 0;
            if (st == 2)
                return hc_fail(c, HCCL_E_REMOTE, 1, "rank %u destroyed the communicator while rank %u waited for it (%s)",
                               peer, c->rank, what);
            if (peer_dead(c, peer) && atomic_load_explicit(word, memory_order_acquire) < target)
                return hc_fail(c, HCCL_E_REMOTE, 1, "rank %u (pid %d) died while rank %u waited for it (%s)", peer,
                               (int)c->pids[peer], c->rank, what);
            if (c->exec_timeout_ns > 0 && waited > c->exec_timeout_ns)
                return hc_fail(c, HCCL_E_TIMEOUT, 1,
                               "rank %u waited %.1f s for rank %u (%s), over HCCL_EXEC_TIMEOUT; are all ranks calling "
                               "the same collectives in the same order?",
                               c->rank, (double)waited / 1e9, peer, what);
        }
        if ((uint64_t)waited < c->spin_ns + c->yield_ns) {
            sched_yield();
        } else {
            /* The writer's wake-up usually comes first. */
            int64_t ns = last_check + HC_CHECK_NS - now;
            if (ns > HC_MAX_SLEEP_NS)
                ns = HC_MAX_SLEEP_NS;
            flag_sleep(f, v, ns > 1000 ? ns : 1000);
        }
    }
}
