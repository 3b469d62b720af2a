/*
 * Waiting primitives of the CPU driver: futex wrappers and a waitable counter.
 *
 * Every wait spins for CANNON_SPIN_US first: on the VMs cannon targets a futex wake-up costs about
 * 58 us, while the work a stream or a synchronising thread waits for often ends within a few
 * microseconds. Only then do waiters sleep on a futex. Spinners yield the core after a few
 * microseconds (cannon_cpu_spin_pace), which matters when the machine is oversubscribed.
 *
 * A sleeping waiter announces the value it waits for in `wake_at` (the lowest of all sleepers'),
 * and a publisher makes the wake-up system call only once value reaches it, taking the
 * announcement down as it does. So the common path (nobody asleep) makes no system call, and a
 * stream running a batch of 1000 tasks while its synchronizer sleeps makes one wake-up call, not
 * one per task (which on a loaded machine, where the sleeper is slow to get a core back, would
 * also have woken it for nothing every time). Announce/re-check on one side and publish/check on
 * the other are sequentially consistent, so a wake-up cannot be lost (the Dekker pattern); woken
 * waiters whose target is not reached yet announce again.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cpu_internal.h"

/* Default spin: long enough to cover a launch/synchronise round trip, short enough not to steal
 * much CPU from the two cores of a small machine. */
static _Atomic int64_t g_spin_ns = 30000;

int64_t cannon_cpu_spin_ns(void)
{
    return atomic_load_explicit(&g_spin_ns, memory_order_relaxed);
}

void cannon_cpu_set_spin_ns(int64_t ns)
{
    atomic_store_explicit(&g_spin_ns, ns < 0 ? 0 : ns, memory_order_relaxed);
}

int64_t cannon_cpu_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t cannon_cpu_deadline(int32_t timeout_ms)
{
    if (timeout_ms < 0)
        return -1;
    return cannon_cpu_now_ns() + (int64_t)timeout_ms * 1000000LL;
}

void cannon_cpu_futex_wait(_Atomic uint32_t *word, uint32_t val, int64_t deadline_ns)
{
    struct timespec ts, *tsp = NULL;
    if (deadline_ns >= 0) {
        ts.tv_sec = (time_t)(deadline_ns / 1000000000LL);
        ts.tv_nsec = (long)(deadline_ns % 1000000000LL);
        tsp = &ts;
    }
    /* FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC deadline, so spurious wake-ups and
     * EINTR need no re-computation by the callers (they loop and re-check anyway). */
    (void)syscall(SYS_futex, (void *)word, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, val, tsp, NULL,
                  FUTEX_BITSET_MATCH_ANY);
}

void cannon_cpu_futex_wake_all(_Atomic uint32_t *word)
{
    (void)syscall(SYS_futex, (void *)word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, INT_MAX, NULL, NULL, 0);
}

void cannon_cpu_spin_pace(int64_t spin_start_ns, int64_t now_ns)
{
    if (now_ns - spin_start_ns >= CPU_SPIN_YIELD_NS)
        sched_yield();
}

void cannon_cpu_counter_init(cpu_counter *c, uint64_t value)
{
    atomic_init(&c->value, value);
    atomic_init(&c->seq, 0);
    atomic_init(&c->wake_at, UINT64_MAX);
}

/* After value became v: bump seq and wake the sleepers if v reached the lowest announced target. */
static void counter_publish(cpu_counter *c, uint64_t v)
{
    atomic_fetch_add(&c->seq, 1);
    uint64_t w = atomic_load(&c->wake_at);
    while (v >= w) {
        if (atomic_compare_exchange_weak(&c->wake_at, &w, UINT64_MAX)) {
            cannon_cpu_futex_wake_all(&c->seq);
            return;
        }
    }
}

void cannon_cpu_counter_add(cpu_counter *c, uint64_t n)
{
    counter_publish(c, atomic_fetch_add(&c->value, n) + n);
}

void cannon_cpu_counter_max(cpu_counter *c, uint64_t v)
{
    uint64_t cur = atomic_load(&c->value);
    while (cur < v) {
        if (atomic_compare_exchange_weak(&c->value, &cur, v)) {
            counter_publish(c, v);
            return;
        }
    }
}

/* Lower wake_at to target unless it is already lower. */
static void counter_announce(cpu_counter *c, uint64_t target)
{
    uint64_t w = atomic_load(&c->wake_at);
    while (target < w && !atomic_compare_exchange_weak(&c->wake_at, &w, target)) {
    }
}

/* How often a cancellable sleeper wakes to poll its cancel flag. */
#define CANCEL_POLL_NS 5000000LL

int cannon_cpu_counter_wait(cpu_counter *c, uint64_t target, int64_t deadline_ns,
                            const _Atomic int *cancel)
{
    if (atomic_load(&c->value) >= target)
        return CPU_WAIT_OK;

    /* Spin phase; the clock is read only every 64 pauses (a vDSO call costs ~20 ns). */
    int64_t spin = cannon_cpu_spin_ns();
    if (spin > 0) {
        int64_t start = cannon_cpu_now_ns(), end = start + spin;
        if (deadline_ns >= 0 && deadline_ns < end)
            end = deadline_ns;
        for (;;) {
            for (int i = 0; i < 64; i++) {
                if (atomic_load_explicit(&c->value, memory_order_acquire) >= target)
                    return CPU_WAIT_OK;
                cannon_cpu_relax();
            }
            int64_t now = cannon_cpu_now_ns();
            if (now >= end)
                break;
            cannon_cpu_spin_pace(start, now);
        }
    }

    for (;;) {
        uint32_t s = atomic_load(&c->seq);
        if (atomic_load(&c->value) >= target)
            return CPU_WAIT_OK;
        int64_t now = cannon_cpu_now_ns();
        if (deadline_ns >= 0 && now >= deadline_ns)
            return CPU_WAIT_TIMEOUT;
        if (cancel != NULL && atomic_load(cancel))
            return CPU_WAIT_CANCELLED;
        int64_t until = deadline_ns;
        if (cancel != NULL && (until < 0 || until > now + CANCEL_POLL_NS))
            until = now + CANCEL_POLL_NS;
        counter_announce(c, target);
        if (atomic_load(&c->value) < target)
            cannon_cpu_futex_wait(&c->seq, s, until);
    }
}
