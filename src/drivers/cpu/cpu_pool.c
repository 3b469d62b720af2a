/*
 * The worker pool: num_workers - 1 helper threads, shared by every open device of this driver copy
 * (the devices share the machine's cores), plus whichever thread runs a job, which takes part as
 * worker 0.
 *
 * One job runs at a time. Kernels index per-worker scratch by ctx->worker_id, so two concurrently
 * running blocks must never share an id; serialising jobs behind the `owner` lock guarantees it
 * (the owner is worker 0, helper i is worker i) and costs little, since a job already spreads over
 * every core. A job lives on its owner's stack and is published through `current` plus a bump of
 * `seq`; blocks are handed out by an atomic counter. Helpers announce themselves in `active` before
 * reading `current`, and the owner, after clearing `current`, waits for `active` to drain, so no
 * helper can touch a job after its owner returned (all of it sequentially consistent).
 *
 * Idle helpers spin CANNON_SPIN_US on `seq` and then sleep on it as a futex; a publisher makes
 * the wake-up system call only when some helper announced that it sleeps.
 *
 * The helpers start with the first job that has more than one block, not when the pool is
 * acquired: opening a device (aclrtSetDevice) should not pay ~100 us per thread on a VM for
 * threads a program that only copies memory or runs single-block kernels never needs.
 * num_workers says from the start how many workers there will be, so kernels and device
 * properties see the same count before and after; it drops only if some helper fails to start.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_internal.h"

typedef struct cpu_job {
    cannon_kernel_fn fn;
    void *args;
    uint32_t block_dim;
    uint32_t num_workers;
    cpu_err *err;
    _Atomic uint64_t next; /* next block to hand out; 64 bits so it cannot wrap */
    _Atomic int result;    /* first non-zero block result */
    _Atomic uint32_t failed_block;
} cpu_job;

static struct {
    /* Start/stop, guarded by `life`. */
    pthread_mutex_t life;
    unsigned refs;
    pthread_t *threads;
    uint32_t nthreads;
    uint32_t want_workers;   /* helpers + 1 to start with the first multi-block job */
    _Atomic int started;     /* the helpers were started (release: threads/nthreads are set) */
    /* Who may run a job now (worker 0). */
    pthread_mutex_t owner;
    _Atomic uint32_t num_workers;
    _Alignas(64) _Atomic(cpu_job *) current;
    _Atomic uint32_t seq;      /* futex word of idle helpers */
    _Atomic uint32_t sleepers; /* helpers asleep (or about to be) on seq */
    _Atomic int stop;
    _Alignas(64) _Atomic uint32_t active; /* helpers that may be looking at `current` */
    _Atomic uint32_t owner_waiting;       /* the owner sleeps on `active` */
} g_pool = {
    .life = PTHREAD_MUTEX_INITIALIZER,
    .owner = PTHREAD_MUTEX_INITIALIZER,
    .num_workers = 1,
};

/* This thread runs blocks now (a helper, or an owner inside a job): a nested job from a kernel
 * would deadlock on `owner`, so it runs inline with the thread's worker id instead. */
static _Thread_local int t_in_pool;
static _Thread_local uint32_t t_worker_id;

/* ---- errors ---- */

void cannon_cpu_err_init(cpu_err *e)
{
    pthread_mutex_init(&e->lock, NULL);
    e->code = 0;
    e->msg[0] = '\0';
}

void cannon_cpu_err_destroy(cpu_err *e)
{
    pthread_mutex_destroy(&e->lock);
}

void cannon_cpu_err_set(cpu_err *e, int code, const char *msg)
{
    if (code == 0)
        return;
    pthread_mutex_lock(&e->lock);
    if (e->code == 0) {
        e->code = code;
        snprintf(e->msg, sizeof e->msg, "%s", msg != NULL ? msg : "");
    }
    pthread_mutex_unlock(&e->lock);
}

int cannon_cpu_err_take(cpu_err *e, char *msg, size_t msg_size)
{
    pthread_mutex_lock(&e->lock);
    int code = e->code;
    if (code != 0 && msg != NULL && msg_size > 0)
        snprintf(msg, msg_size, "%s", e->msg);
    e->code = 0;
    e->msg[0] = '\0';
    pthread_mutex_unlock(&e->lock);
    return code;
}

static void hook_report(void *stream_priv, int code, const char *msg)
{
    if (stream_priv != NULL)
        cannon_cpu_err_set(stream_priv, code, msg);
}

const cannon_kernel_hooks cannon_cpu_kernel_hooks = {.report = hook_report};

/* ---- blocks ---- */

static void run_blocks(cpu_job *job, uint32_t worker_id)
{
    cannon_kernel_ctx ctx = {
        .block_dim = job->block_dim,
        .worker_id = worker_id,
        .num_workers = job->num_workers,
        .hooks = &cannon_cpu_kernel_hooks,
        .stream_priv = job->err,
    };
    for (;;) {
        uint64_t b = atomic_fetch_add_explicit(&job->next, 1, memory_order_relaxed);
        if (b >= job->block_dim)
            break;
        ctx.block_idx = (uint32_t)b;
        int r = job->fn(&ctx, job->args);
        if (r != 0) {
            int zero = 0;
            if (atomic_compare_exchange_strong(&job->result, &zero, r))
                atomic_store(&job->failed_block, (uint32_t)b);
        }
    }
}

static void *helper_main(void *arg)
{
    const uint32_t id = (uint32_t)(uintptr_t)arg;
    /* Named by the thread itself: one prctl, where naming it from outside opens /proc. */
    char name[16]; /* the kernel's limit for thread names, NUL included */
    snprintf(name, sizeof name, "cannon-w%u", id % 10000u);
    pthread_setname_np(pthread_self(), name);
    t_in_pool = 1;
    t_worker_id = id;
    uint32_t seen = atomic_load(&g_pool.seq);
    for (;;) {
        /* Checked before every wait: a helper that starts late may read a `seq` already bumped by
         * the stop request, and would otherwise wait for a bump that never comes. */
        if (atomic_load(&g_pool.stop))
            break;
        /* Wait for a new job (or stop): spin first, then sleep on the futex. */
        if (atomic_load_explicit(&g_pool.seq, memory_order_relaxed) == seen) {
            int64_t start = cannon_cpu_now_ns(), end = start + cannon_cpu_spin_ns();
            int moved = 0;
            for (;;) {
                for (int i = 0; i < 64 && !moved; i++) {
                    moved = atomic_load_explicit(&g_pool.seq, memory_order_relaxed) != seen;
                    cannon_cpu_relax();
                }
                int64_t now = moved ? 0 : cannon_cpu_now_ns();
                if (moved || now >= end)
                    break;
                cannon_cpu_spin_pace(start, now);
            }
            while (!moved) {
                atomic_fetch_add(&g_pool.sleepers, 1);
                if (atomic_load(&g_pool.seq) == seen)
                    cannon_cpu_futex_wait(&g_pool.seq, seen, -1);
                atomic_fetch_sub(&g_pool.sleepers, 1);
                moved = atomic_load(&g_pool.seq) != seen;
            }
        }
        seen = atomic_load(&g_pool.seq);
        if (atomic_load(&g_pool.stop))
            break;
        atomic_fetch_add(&g_pool.active, 1);
        cpu_job *job = atomic_load(&g_pool.current);
        if (job != NULL)
            run_blocks(job, id);
        if (atomic_fetch_sub(&g_pool.active, 1) == 1 && atomic_load(&g_pool.owner_waiting))
            cannon_cpu_futex_wake_all(&g_pool.active);
    }
    return NULL;
}

/* ---- life cycle ---- */

int cannon_cpu_pool_acquire(uint32_t num_workers)
{
    pthread_mutex_lock(&g_pool.life);
    if (g_pool.refs++ > 0) {
        pthread_mutex_unlock(&g_pool.life);
        return 0;
    }
    if (num_workers < 1)
        num_workers = 1;
    atomic_store(&g_pool.stop, 0);
    atomic_store(&g_pool.current, NULL);
    atomic_store(&g_pool.started, 0);
    g_pool.nthreads = 0;
    g_pool.threads = NULL;
    g_pool.want_workers = num_workers;
    pthread_mutex_lock(&g_pool.owner);
    atomic_store(&g_pool.num_workers, num_workers);
    pthread_mutex_unlock(&g_pool.owner);
    pthread_mutex_unlock(&g_pool.life);
    return 0;
}

/* Start the helpers if the pool is up and they are not running yet. Takes `life` then `owner`,
 * the order release uses, so it must not be called with `owner` held. */
static void pool_start(void)
{
    pthread_mutex_lock(&g_pool.life);
    if (g_pool.refs == 0 || atomic_load(&g_pool.started)) {
        pthread_mutex_unlock(&g_pool.life);
        return;
    }
    uint32_t num_workers = g_pool.want_workers;
    if (num_workers > 1) {
        g_pool.threads = calloc(num_workers - 1, sizeof *g_pool.threads);
        if (g_pool.threads == NULL) {
            CPU_LOG(CPU_LOG_WARN, "cpu driver: no memory for %u worker threads, running on one",
                    num_workers);
            num_workers = 1;
        }
    }
    /* Helpers block every signal: signals belong to the application's threads. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (uint32_t i = 1; i < num_workers; i++) {
        int rc = pthread_create(&g_pool.threads[i - 1], NULL, helper_main, (void *)(uintptr_t)i);
        if (rc != 0) {
            CPU_LOG(CPU_LOG_WARN, "cpu driver: could only start %u of %u worker threads (%s)", i,
                    num_workers, strerror(rc));
            break;
        }
        g_pool.nthreads++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_mutex_lock(&g_pool.owner);
    atomic_store(&g_pool.num_workers, g_pool.nthreads + 1);
    pthread_mutex_unlock(&g_pool.owner);
    atomic_store(&g_pool.started, 1);
    pthread_mutex_unlock(&g_pool.life);
}

void cannon_cpu_pool_release(void)
{
    pthread_mutex_lock(&g_pool.life);
    if (g_pool.refs == 0 || --g_pool.refs > 0) {
        pthread_mutex_unlock(&g_pool.life);
        return;
    }
    /* Taking `owner` waits for a job still running (none should be: the last device is gone). */
    pthread_mutex_lock(&g_pool.owner);
    atomic_store(&g_pool.stop, 1);
    atomic_fetch_add(&g_pool.seq, 1);
    cannon_cpu_futex_wake_all(&g_pool.seq);
    for (uint32_t i = 0; i < g_pool.nthreads; i++)
        pthread_join(g_pool.threads[i], NULL);
    free(g_pool.threads);
    g_pool.threads = NULL;
    g_pool.nthreads = 0;
    atomic_store(&g_pool.started, 0);
    atomic_store(&g_pool.num_workers, 1);
    pthread_mutex_unlock(&g_pool.owner);
    pthread_mutex_unlock(&g_pool.life);
}

uint32_t cannon_cpu_pool_workers(void)
{
    return atomic_load(&g_pool.num_workers);
}

/* ---- running a job ---- */

static void owner_lock(void)
{
    if (pthread_mutex_trylock(&g_pool.owner) == 0)
        return;
    /* Another stream's job is running; jobs are usually short, so spin before blocking. */
    int64_t start = cannon_cpu_now_ns(), end = start + cannon_cpu_spin_ns();
    for (;;) {
        for (int i = 0; i < 32; i++)
            cannon_cpu_relax();
        if (pthread_mutex_trylock(&g_pool.owner) == 0)
            return;
        int64_t now = cannon_cpu_now_ns();
        if (now >= end)
            break;
        cannon_cpu_spin_pace(start, now);
    }
    pthread_mutex_lock(&g_pool.owner);
}

static void wait_helpers_done(void)
{
    if (atomic_load(&g_pool.active) == 0)
        return;
    int64_t start = cannon_cpu_now_ns(), end = start + cannon_cpu_spin_ns();
    for (;;) {
        for (int i = 0; i < 64; i++) {
            if (atomic_load(&g_pool.active) == 0)
                return;
            cannon_cpu_relax();
        }
        int64_t now = cannon_cpu_now_ns();
        if (now >= end)
            break;
        cannon_cpu_spin_pace(start, now);
    }
    atomic_store(&g_pool.owner_waiting, 1);
    for (;;) {
        uint32_t a = atomic_load(&g_pool.active);
        if (a == 0)
            break;
        cannon_cpu_futex_wait(&g_pool.active, a, -1);
    }
    atomic_store(&g_pool.owner_waiting, 0);
}

int cannon_cpu_pool_run(const char *name, cannon_kernel_fn fn, void *args, uint32_t block_dim,
                        cpu_err *err)
{
    if (block_dim == 0)
        return 0;
    cpu_job job = {.fn = fn, .args = args, .block_dim = block_dim, .err = err};
    atomic_init(&job.next, 0);
    atomic_init(&job.result, 0);
    atomic_init(&job.failed_block, 0);

    if (t_in_pool) {
        /* Nested (a kernel or a helper asked for a job): run it here, serially. */
        job.num_workers = atomic_load(&g_pool.num_workers);
        run_blocks(&job, t_worker_id);
    } else {
        if (block_dim > 1 && !atomic_load_explicit(&g_pool.started, memory_order_acquire) &&
            atomic_load(&g_pool.num_workers) > 1)
            pool_start();
        owner_lock();
        t_in_pool = 1;
        t_worker_id = 0;
        job.num_workers = atomic_load(&g_pool.num_workers);
        if (block_dim == 1 || job.num_workers == 1) {
            run_blocks(&job, 0);
        } else {
            atomic_store(&g_pool.current, &job);
            atomic_fetch_add(&g_pool.seq, 1);
            if (atomic_load(&g_pool.sleepers) != 0)
                cannon_cpu_futex_wake_all(&g_pool.seq);
            run_blocks(&job, 0);
            atomic_store(&g_pool.current, NULL);
            wait_helpers_done();
        }
        t_in_pool = 0;
        pthread_mutex_unlock(&g_pool.owner);
    }

    int r = atomic_load(&job.result);
    if (r != 0 && err != NULL) {
        char msg[160];
        snprintf(msg, sizeof msg, "kernel '%s' failed with error %d in block %u",
                 name != NULL ? name : "?", r, atomic_load(&job.failed_block));
        cannon_cpu_err_set(err, r, msg);
    }
    return r;
}
