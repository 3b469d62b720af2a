/*
 * Internal interfaces between the CPU driver's source files. Everything here has hidden
 * visibility (the build uses -fvisibility=hidden) and a cannon_cpu_ prefix, so the copy linked into
 * libascendcl and the copy in libcannon-driver-cpu.so never bind to each other's symbols. All state
 * lives in file-scope statics of these files.
 */
#ifndef CANNON_CPU_INTERNAL_H_
#define CANNON_CPU_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "cannon/driver.h"

#define CPU_LIKELY(x) __builtin_expect(!!(x), 1)

/* ---- configuration and logging (cpu_driver.c) ---- */

typedef void (*cannon_cpu_log_fn)(int level, const char *fmt, ...);

/** The runtime's logger, or NULL. Read atomically: any thread may log while init runs again. */
cannon_cpu_log_fn cannon_cpu_logger(void);

#define CPU_LOG_DEBUG 0
#define CPU_LOG_INFO 1
#define CPU_LOG_WARN 2
#define CPU_LOG_ERROR 3

#define CPU_LOG(level, ...)                                                                        \
    do {                                                                                           \
        cannon_cpu_log_fn log_fn_ = cannon_cpu_logger();                                           \
        if (log_fn_ != NULL)                                                                       \
            log_fn_((level), __VA_ARGS__);                                                         \
    } while (0)

/* ---- time, futexes and waitable counters (cpu_sync.c) ---- */

/** CLOCK_MONOTONIC in nanoseconds. */
int64_t cannon_cpu_now_ns(void);

/** How long idle threads spin before sleeping, in ns (CANNON_SPIN_US). */
int64_t cannon_cpu_spin_ns(void);
void cannon_cpu_set_spin_ns(int64_t ns);

/** A CPU relaxation hint for spin loops. */
static inline void cannon_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/** Sleep while *word == val, until woken or until deadline_ns (CLOCK_MONOTONIC; < 0: none). */
void cannon_cpu_futex_wait(_Atomic uint32_t *word, uint32_t val, int64_t deadline_ns);
void cannon_cpu_futex_wake_all(_Atomic uint32_t *word);

/**
 * A monotonically increasing 64-bit value that threads can wait on (spin, then futex). Used for a
 * stream's completed-task count and an event's completed generation.
 */
typedef struct cpu_counter {
    _Atomic uint64_t value;
    _Atomic uint32_t seq;     /* futex word: bumped after every change of value */
    _Atomic uint64_t wake_at; /* lowest target of a sleeping waiter; UINT64_MAX: none */
} cpu_counter;

/**
 * Spin-loop pacing: call once per round of ~64 pause instructions with the time the spin began
 * and the time now. After CPU_SPIN_YIELD_NS of fruitless spinning it yields the core on every
 * round, so that on an oversubscribed machine the thread being waited for (often queued on this
 * very core) gets to run instead of watching a spinner burn the rest of its time slice.
 */
#define CPU_SPIN_YIELD_NS 4000
void cannon_cpu_spin_pace(int64_t spin_start_ns, int64_t now_ns);

void cannon_cpu_counter_init(cpu_counter *c, uint64_t value);
void cannon_cpu_counter_add(cpu_counter *c, uint64_t n);
/** Raise value to at least v. */
void cannon_cpu_counter_max(cpu_counter *c, uint64_t v);

#define CPU_WAIT_OK 0
#define CPU_WAIT_TIMEOUT 1
#define CPU_WAIT_CANCELLED 2
/**
 * Wait until value >= target. deadline_ns: CLOCK_MONOTONIC, < 0 forever. cancel (may be NULL):
 * give up with CPU_WAIT_CANCELLED once it reads non-zero; it is polled every few milliseconds.
 */
int cannon_cpu_counter_wait(cpu_counter *c, uint64_t target, int64_t deadline_ns,
                            const _Atomic int *cancel);

/** A deadline timeout_ms from now; -1 for timeout_ms < 0 (forever). */
int64_t cannon_cpu_deadline(int32_t timeout_ms);

/* ---- worker pool (cpu_pool.c) ---- */

/** Take a reference on the pool, starting it (num_workers threads in all) on the first. */
int cannon_cpu_pool_acquire(uint32_t num_workers);
/** Drop a reference; the last one stops and joins the helper threads. */
void cannon_cpu_pool_release(void);
/** Workers of the running pool (1 when none runs). */
uint32_t cannon_cpu_pool_workers(void);

/** Where a kernel's hooks->report and failing blocks record the first error. */
typedef struct cpu_err {
    pthread_mutex_t lock;
    int code;
    char msg[512];
} cpu_err;

void cannon_cpu_err_init(cpu_err *e);
void cannon_cpu_err_destroy(cpu_err *e);
/** Record code/msg unless an error is already recorded (the first one wins). */
void cannon_cpu_err_set(cpu_err *e, int code, const char *msg);
/** Return and clear the recorded error, copying its message into msg. */
int cannon_cpu_err_take(cpu_err *e, char *msg, size_t msg_size);

/** The hooks every block gets; stream_priv is the cpu_err to report into. */
extern const cannon_kernel_hooks cannon_cpu_kernel_hooks;

/**
 * Run blocks [0, block_dim) of fn(args) on the pool, the calling thread taking part, and wait for
 * all of them. Errors (the first non-zero block result, or a hooks->report) go to err; returns the
 * first non-zero block result or 0.
 */
int cannon_cpu_pool_run(const char *name, cannon_kernel_fn fn, void *args, uint32_t block_dim,
                        cpu_err *err);

/* ---- copies and fills (cpu_copy.c) ---- */

/** Choose the copy/fill routines for isa (CANNON_CPU_ISA_* bits). */
void cannon_cpu_copy_setup(uint32_t isa);
/** Copy n bytes (memmove semantics when the ranges overlap), on the pool when large. */
void cannon_cpu_copy(void *dst, const void *src, size_t n);
void cannon_cpu_fill(void *dst, int value, size_t n);

/* ---- streams and events (cpu_stream.c) ---- */

extern const cannon_stream_iface cannon_cpu_stream_iface;

/** Per-device bookkeeping the stream code needs (the rest of the device is in cpu_driver.c). */
typedef struct cpu_dev_objs {
    pthread_mutex_t lock;
    struct cannon_drv_stream *streams; /* live streams, doubly linked */
    struct cannon_drv_event *events;   /* live (not destroyed) events */
} cpu_dev_objs;

/** The device's object lists; defined by cpu_driver.c. */
cpu_dev_objs *cannon_cpu_dev_objs(cannon_drv_device *dev);
/** Force-destroy the streams and destroy the events still on a device being closed. */
void cannon_cpu_dev_reap(cannon_drv_device *dev);
/**
 * Join the threads of streams that were destroyed from one of their own tasks (such a stream
 * ends when its thread has run or dropped what was queued; the thread cannot join itself).
 * Called when devices close and at fini, so no stream thread outlives its device.
 */
void cannon_cpu_join_ended_streams(void);

/**
 * Whether [p, p + n) is a range a copy or fill may touch: it does not wrap around the address
 * space, and if it starts inside dev's arena it ends inside it too. Defined by cpu_driver.c.
 */
int cannon_cpu_range_ok(cannon_drv_device *dev, const void *p, size_t n);

#endif /* CANNON_CPU_INTERNAL_H_ */
