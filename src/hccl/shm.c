/*
 * The communicator's shared segment and the waiting primitive.
 *
 * The segment is an anonymous memfd created by rank 0: it has no name, so nothing can be left
 * behind in /dev/shm whatever happens to the processes, and it disappears with the last mapping.
 * Peers open it through /proc/<pid of rank 0>/fd/<fd> during bootstrap (same user, same host),
 * which needs no Unix socket and no name to unlink.
 *
 * Waiting spins on the flag (plain loads: no system call while the peer is on time), then yields,
 * then sleeps with a growing interval. Only on the slow path does it look at the clock-based
 * deadline (HCCL_EXEC_TIMEOUT), the segment's abort word (another rank failed), and whether the
 * awaited peer is still alive (pidfd, or kill(pid, 0)), so a rank killed with SIGKILL is noticed
 * within milliseconds instead of at the timeout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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

int hc_wait_ge(hc_comm *c, _Atomic uint64_t *word, uint64_t target, uint32_t peer, const char *what)
{
    if (atomic_load_explicit(word, memory_order_acquire) >= target)
        return 0;
    int64_t start = 0, last_check = 0;
    int64_t sleep_ns = 2000;
    for (uint32_t i = 1;; i++) {
        if (atomic_load_explicit(word, memory_order_acquire) >= target)
            return 0;
        cpu_relax();
        if ((i & 63) != 0)
            continue;
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
        /* Slow path: the peer is late. Check it now and then, and stop burning the CPU. */
        if (now - last_check >= 5000000) {
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
        if (waited < (int64_t)c->spin_ns + 200000) {
            sched_yield();
        } else {
            struct timespec ts = {0, sleep_ns};
            nanosleep(&ts, NULL);
            if (sleep_ns < 500000)
                sleep_ns *= 2;
        }
    }
}
