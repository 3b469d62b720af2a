/*
 * Streams and events of the CPU driver.
 *
 * A stream is one executor thread with a FIFO of tasks (a mutex-protected singly linked list with a
 * per-stream free list, so a steady enqueue rate allocates nothing; tasks are carved from
 * prefaulted slabs, so a burst of enqueues does not fault the heap in page by page). The executor takes the whole
 * list at once and runs it in order; enqueuers and the executor touch the lock once per task and
 * once per batch respectively. Progress is two counters: `submitted` (bumped by enqueue) and
 * `completed` (a waitable counter bumped after each task ran or was discarded); synchronize waits
 * for completed to reach the submitted count it saw. Both the idle executor and synchronizing
 * threads spin CANNON_SPIN_US before sleeping on futexes (see cpu_sync.c), which keeps an empty
 * launch + synchronize at a few microseconds instead of two ~58 us futex wake-ups.
 *
 * The executor thread starts with the stream's first task, not at creation: creating a stream
 * (the default stream of every aclrtSetDevice among them) then costs no thread, which on a VM is
 * ~100 us, and a stream that never gets work never has one. The start happens under qlock and
 * can fail, so every enqueue can return ACL_ERROR_RT_NO_STREAM_RESOURCE. A synchronizing thread
 * runs queued device work (and host tasks flagged CANNON_HOST_TASK_ANY_THREAD, i.e. collectives)
 * itself while the executor is not running any (stream_help), which keeps launch + synchronize
 * fast when the machine has no core to spare for the executor.
 *
 * A task may destroy its own stream (the runtime never does, but a driver must not corrupt memory
 * when it happens): the executor cannot join itself nor free the task it is running, so the
 * destroy only stops the stream, and the executor frees it when it leaves; its thread is joined
 * when a device closes (cannon_cpu_join_ended_streams).
 *
 * Events are generation counters. Enqueuing a record bumps `record_gen` and stores the new value in
 * the task; running it raises the waitable `done` counter to that value (and stamps the time for
 * timing events). So "the work captured by the last record" is simply done >= record_gen as read
 * at query / wait-enqueue time, whatever streams recorded it. Tasks hold a reference on their
 * event, so destroying an event with records or waits still queued is safe.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cpu_internal.h"

enum { T_LAUNCH, T_COPY, T_FILL, T_HOST, T_RECORD, T_WAIT, T_RESET };

/* Argument blobs up to this size live in the task itself: the elementwise planner's (472 bytes) and most
 * kernels' fit, so a launch allocates nothing (a heap copy per launch, freed by the executor thread, makes
 * the two threads move the heap's top back and forth: page faults on every tiny op). */
#define CPU_TASK_INLINE_ARGS 512

typedef struct cpu_task {
    struct cpu_task *next;
    int type;
    union {
        struct {
            cannon_kernel_fn fn;
            const char *name;
            void *args;
            uint32_t block_dim;
        } launch;
        struct {
            void *dst;
            const void *src;
            size_t n;
        } copy;
        struct {
            void *dst;
            int value;
            size_t n;
        } fill;
        struct {
            cannon_host_task_fn fn;
            void *arg;
            uint32_t flags; /* CANNON_HOST_TASK_* */
        } host;
        struct {
            cannon_drv_event *e;
            uint64_t gen;
        } ev;
    } u;
    void *heap_args; /* a launch's argument copy when it did not fit inline */
    _Alignas(16) unsigned char inline_args[CPU_TASK_INLINE_ARGS];
} cpu_task;

struct cannon_drv_event {
    cannon_drv_device *dev;
    uint32_t flags;
    _Atomic uint32_t refs;       /* the user's plus one per queued task */
    _Atomic uint64_t record_gen; /* records enqueued */
    cpu_counter done;            /* highest record generation that ran */
    /* The timestamp of the newest record that ran (timing events only). */
    pthread_mutex_t stamp_lock;
    uint64_t stamp_gen;
    int64_t stamp_ns;
    int stamp_valid;
    struct cannon_drv_event *prev, *next; /* the device's list, under its lock */
    int listed;
};

/* ASan watches heap blocks, not mappings: under it, slabs come from the heap. */
#if defined(__SANITIZE_ADDRESS__)
#define CPU_SLAB_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CPU_SLAB_HEAP 1
#endif
#endif

/* Tasks are carved from slabs (see task_get_locked); a slab starts with this header. */
typedef struct cpu_slab {
    struct cpu_slab *next;
    size_t bytes;
} cpu_slab;
#define CPU_SLAB_HEADER 64 /* keeps the tasks after it aligned */

struct cannon_drv_stream {
    cannon_drv_device *dev;
    pthread_t thread;
    struct cannon_drv_stream *prev, *next; /* the device's list, under its lock */
    /* Enqueue side. */
    _Alignas(64) pthread_mutex_t qlock;
    cpu_task *head, *tail, *free_list;
    cpu_slab *slabs;  /* every task's memory, freed with the stream */
    uint32_t nslabs;
    int started; /* the executor thread runs (under qlock) */
    int closed;  /* destroy began: start no executor any more (under qlock) */
    _Atomic uint64_t submitted;
    _Atomic uint32_t qseq; /* futex word of the idle executor, bumped per enqueue */
    /* Executor side. */
    _Alignas(64) _Atomic uint32_t exec_sleeping;
    _Atomic int busy;    /* a thread runs tasks: the executor or a helping synchronizer */
    _Atomic int stop;    /* exit once the queue is empty */
    _Atomic int discard; /* drop tasks instead of running them (force destroy) */
    _Atomic int ends_itself; /* destroyed from one of its tasks: the executor frees the stream */
    _Alignas(64) cpu_counter completed;
    cpu_err err;
};

/* ---- events ---- */

static void event_unref(cannon_drv_event *e)
{
    if (atomic_fetch_sub(&e->refs, 1) == 1) {
        pthread_mutex_destroy(&e->stamp_lock);
        free(e);
    }
}

static int event_create(cannon_drv_device *dev, uint32_t flags, cannon_drv_event **out)
{
    if (out == NULL)
        return ACL_ERROR_INVALID_PARAM;
    cannon_drv_event *e = calloc(1, sizeof *e);
    if (e == NULL)
        return ACL_ERROR_BAD_ALLOC;
    e->dev = dev;
    e->flags = flags;
    atomic_init(&e->refs, 1);
    atomic_init(&e->record_gen, 0);
    cannon_cpu_counter_init(&e->done, 0);
    pthread_mutex_init(&e->stamp_lock, NULL);
    if (dev != NULL) {
        cpu_dev_objs *o = cannon_cpu_dev_objs(dev);
        pthread_mutex_lock(&o->lock);
        e->next = o->events;
        if (o->events != NULL)
            o->events->prev = e;
        o->events = e;
        e->listed = 1;
        pthread_mutex_unlock(&o->lock);
    }
    *out = e;
    return 0;
}

static int event_destroy(cannon_drv_event *e)
{
    if (e == NULL)
        return ACL_ERROR_INVALID_PARAM;
    if (e->dev != NULL) {
        cpu_dev_objs *o = cannon_cpu_dev_objs(e->dev);
        pthread_mutex_lock(&o->lock);
        if (e->listed) {
            if (e->prev != NULL)
                e->prev->next = e->next;
            else
                o->events = e->next;
            if (e->next != NULL)
                e->next->prev = e->prev;
            e->listed = 0;
        }
        pthread_mutex_unlock(&o->lock);
    }
    event_unref(e);
    return 0;
}

static int event_query(cannon_drv_event *e)
{
    if (e == NULL)
        return 1;
    return atomic_load(&e->done.value) >= atomic_load(&e->record_gen);
}

static int event_synchronize(cannon_drv_event *e, int32_t timeout_ms)
{
    if (e == NULL)
        return ACL_ERROR_INVALID_PARAM;
    uint64_t target = atomic_load(&e->record_gen);
    int r = cannon_cpu_counter_wait(&e->done, target, cannon_cpu_deadline(timeout_ms), NULL);
    return r == CPU_WAIT_OK ? 0 : ACL_ERROR_RT_EVENT_SYNC_TIMEOUT;
}

/* The timestamp of e, or an error code as event_elapsed documents. */
static int event_stamp(cannon_drv_event *e, int64_t *ns)
{
    if (!(e->flags & CANNON_DRV_EVENT_TIMING))
        return ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
    uint64_t rec = atomic_load(&e->record_gen);
    if (rec == 0)
        return ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
    if (atomic_load(&e->done.value) < rec)
        return ACL_ERROR_RT_EVENT_NOT_COMPLETE;
    pthread_mutex_lock(&e->stamp_lock);
    int valid = e->stamp_valid;
    *ns = e->stamp_ns;
    pthread_mutex_unlock(&e->stamp_lock);
    return valid ? 0 : ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
}

static int event_elapsed(cannon_drv_event *start, cannon_drv_event *end, float *ms)
{
    if (start == NULL || end == NULL || ms == NULL)
        return ACL_ERROR_INVALID_PARAM;
    int64_t t0 = 0, t1 = 0;
    int r0 = event_stamp(start, &t0), r1 = event_stamp(end, &t1);
    /* An invalid timestamp is a usage error that waiting cannot fix: report it first. */
    if (r0 == ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID || r1 == ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID)
        return ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
    if (r0 != 0)
        return r0;
    if (r1 != 0)
        return r1;
    *ms = (float)((double)(t1 - t0) / 1e6);
    return 0;
}

static void event_run_record(cannon_drv_event *e, uint64_t gen)
{
    if (e->flags & CANNON_DRV_EVENT_TIMING) {
        int64_t now = cannon_cpu_now_ns();
        pthread_mutex_lock(&e->stamp_lock);
        if (gen >= e->stamp_gen) {
            e->stamp_gen = gen;
            e->stamp_ns = now;
            e->stamp_valid = 1;
        }
        pthread_mutex_unlock(&e->stamp_lock);
    }
    cannon_cpu_counter_max(&e->done, gen);
}

static void event_run_reset(cannon_drv_event *e, uint64_t gen)
{
    pthread_mutex_lock(&e->stamp_lock);
    if (e->stamp_gen <= gen)
        e->stamp_valid = 0;
    pthread_mutex_unlock(&e->stamp_lock);
    /* Not recorded any more: the records it supersedes count as complete. */
    cannon_cpu_counter_max(&e->done, gen);
}

/* ---- tasks ---- */

static void run_task(cannon_drv_stream *s, cpu_task *t)
{
    switch (t->type) {
    case T_LAUNCH:
        cannon_cpu_pool_run(t->u.launch.name, t->u.launch.fn, t->u.launch.args,
                            t->u.launch.block_dim, &s->err);
        break;
    case T_COPY:
        cannon_cpu_copy(t->u.copy.dst, t->u.copy.src, t->u.copy.n);
        break;
    case T_FILL:
        cannon_cpu_fill(t->u.fill.dst, t->u.fill.value, t->u.fill.n);
        break;
    case T_HOST: {
        int r = t->u.host.fn(t->u.host.arg);
        if (r != 0) {
            char msg[96];
            snprintf(msg, sizeof msg, "host task failed with error %d", r);
            cannon_cpu_err_set(&s->err, r, msg);
        }
        break;
    }
    case T_RECORD:
        event_run_record(t->u.ev.e, t->u.ev.gen);
        break;
    case T_WAIT:
        /* Cancelled by a force destroy of this stream, which must not hang on a foreign event. */
        (void)cannon_cpu_counter_wait(&t->u.ev.e->done, t->u.ev.gen, -1, &s->discard);
        break;
    case T_RESET:
        event_run_reset(t->u.ev.e, t->u.ev.gen);
        break;
    }
}

/* Drop a task that will not run, keeping what others wait for consistent. */
static void discard_task(cpu_task *t)
{
    /* A discarded record still counts as done, or waiters on its event would hang forever. */
    if (t->type == T_RECORD || t->type == T_RESET)
        cannon_cpu_counter_max(&t->u.ev.e->done, t->u.ev.gen);
}

static void task_release(cpu_task *t)
{
    if (t->type == T_RECORD || t->type == T_WAIT || t->type == T_RESET)
        event_unref(t->u.ev.e);
    free(t->heap_args);
    t->heap_args = NULL;
}

/* The stream whose task the calling thread runs (executor or helping synchronizer), if any. */
static _Thread_local cannon_drv_stream *t_running;

/* Run a batch taken off the queue, in order, and give its tasks to the free list. Only the holder
 * of s->busy runs tasks, so batches never overlap and the stream's order holds. */
static void run_batch(cannon_drv_stream *s, cpu_task *batch)
{
    cpu_task *last = NULL;
    cannon_drv_stream *outer = t_running; /* a host task may help another stream */
    t_running = s;
    for (cpu_task *t = batch; t != NULL; t = t->next) {
        if (atomic_load_explicit(&s->discard, memory_order_relaxed))
            discard_task(t);
        else
            run_task(s, t);
        task_release(t);
        cannon_cpu_counter_add(&s->completed, 1);
        last = t;
    }
    t_running = outer;
    pthread_mutex_lock(&s->qlock);
    last->next = s->free_list;
    s->free_list = batch;
    pthread_mutex_unlock(&s->qlock);
}

static int busy_claim(cannon_drv_stream *s)
{
    int zero = 0;
    return atomic_compare_exchange_strong(&s->busy, &zero, 1);
}

/* ---- threads of streams that ended themselves ---- */

static pthread_mutex_t g_ended_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t *g_ended;
static size_t g_ended_n, g_ended_cap;

/* Called by an executor about to leave after its stream was destroyed from one of its tasks. */
static void ended_push(pthread_t t)
{
    pthread_mutex_lock(&g_ended_lock);
    if (g_ended_n == g_ended_cap) {
        size_t cap = g_ended_cap ? g_ended_cap * 2 : 8;
        pthread_t *n = realloc(g_ended, cap * sizeof *n);
        if (n == NULL) {
            pthread_mutex_unlock(&g_ended_lock);
            pthread_detach(t); /* out of memory: nobody will join it */
            return;
        }
        g_ended = n;
        g_ended_cap = cap;
    }
    g_ended[g_ended_n++] = t;
    pthread_mutex_unlock(&g_ended_lock);
}

void cannon_cpu_join_ended_streams(void)
{
    pthread_mutex_lock(&g_ended_lock);
    pthread_t *list = g_ended;
    size_t n = g_ended_n;
    g_ended = NULL;
    g_ended_n = g_ended_cap = 0;
    pthread_mutex_unlock(&g_ended_lock);
    for (size_t i = 0; i < n; i++)
        pthread_join(list[i], NULL);
    free(list);
}

static void stream_free(cannon_drv_stream *s);

static void *stream_main(void *arg)
{
    cannon_drv_stream *s = arg;
    /* Named by the thread itself: one prctl, where naming it from outside opens /proc. */
    pthread_setname_np(pthread_self(), "cannon-stream");
    for (;;) {
        uint32_t v = atomic_load(&s->qseq);
        /* A synchronizing thread may be running tasks (see stream_help); it nudges qseq when it
         * leaves work behind, so the executor just waits for the next bump meanwhile. */
        if (busy_claim(s)) {
            pthread_mutex_lock(&s->qlock);
            cpu_task *batch = s->head;
            s->head = s->tail = NULL;
            pthread_mutex_unlock(&s->qlock);
            if (batch != NULL)
                run_batch(s, batch);
            atomic_store(&s->busy, 0);
            if (batch != NULL)
                continue;
            if (atomic_load(&s->stop))
                break;
        }

        /* Idle: spin on the enqueue counter, then sleep on it. */
        int64_t start = cannon_cpu_now_ns(), end = start + cannon_cpu_spin_ns();
        int moved = 0;
        for (;;) {
            for (int i = 0; i < 64 && !moved; i++) {
                moved = atomic_load_explicit(&s->qseq, memory_order_relaxed) != v;
                cannon_cpu_relax();
            }
            int64_t now = moved ? 0 : cannon_cpu_now_ns();
            if (moved || now >= end)
                break;
            cannon_cpu_spin_pace(start, now);
        }
        if (!moved) {
            atomic_store(&s->exec_sleeping, 1);
            if (atomic_load(&s->qseq) == v)
                cannon_cpu_futex_wait(&s->qseq, v, -1);
            atomic_store(&s->exec_sleeping, 0);
        }
    }
    if (atomic_load(&s->ends_itself)) {
        ended_push(s->thread);
        stream_free(s);
    }
    return NULL;
}

/* Start the executor if it does not run yet. Called with qlock held; 0 or an ACL error. */
static int executor_ensure_locked(cannon_drv_stream *s)
{
    if (CPU_LIKELY(s->started))
        return 0;
    if (s->closed)
        return ACL_ERROR_RT_NO_STREAM_RESOURCE;
    /* The executor blocks every signal: signals belong to the application's threads. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&s->thread, NULL, stream_main, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        CPU_LOG(CPU_LOG_ERROR, "cpu driver: cannot start a stream thread: %s", strerror(rc));
        return ACL_ERROR_RT_NO_STREAM_RESOURCE;
    }
    s->started = 1;
    return 0;
}

/* Memory for a slab: mapped with MAP_POPULATE, so its pages are faulted in by one system call
 * (a burst of enqueues that outruns the executor needs a new task per enqueue, and on the VMs
 * cannon targets each page fault costs microseconds of the enqueuing thread). Under ASan, from
 * the heap, which the sanitizer watches. */
static void *slab_map(size_t bytes)
{
#if defined(CPU_SLAB_HEAP)
    return calloc(1, bytes);
#else
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
#endif
}

static void slab_unmap(cpu_slab *sl)
{
#if defined(CPU_SLAB_HEAP)
    free(sl);
#else
    munmap(sl, sl->bytes);
#endif
}

/* Take a task from the free list, or from a new slab (16 tasks for a stream's first, doubling up
 * to 1024); NULL when out of memory. Called with qlock held. */
static cpu_task *task_get_locked(cannon_drv_stream *s)
{
    cpu_task *t = s->free_list;
    if (t != NULL) {
        s->free_list = t->next;
        return t;
    }
    size_t n = (size_t)16 << (s->nslabs < 6 ? s->nslabs : 6);
    size_t bytes = CPU_SLAB_HEADER + n * sizeof(cpu_task);
    cpu_slab *sl = slab_map(bytes);
    if (sl == NULL)
        return NULL;
    sl->bytes = bytes;
    sl->next = s->slabs;
    s->slabs = sl;
    s->nslabs++;
    cpu_task *tasks = (cpu_task *)((unsigned char *)sl + CPU_SLAB_HEADER);
    for (size_t i = 1; i + 1 < n; i++)
        tasks[i].next = &tasks[i + 1];
    tasks[n - 1].next = NULL;
    s->free_list = &tasks[1];
    return &tasks[0];
}

/* Append t (qlock held), then wake the executor if it sleeps. */
static void task_push_unlock(cannon_drv_stream *s, cpu_task *t)
{
    t->next = NULL;
    if (s->tail != NULL)
        s->tail->next = t;
    else
        s->head = t;
    s->tail = t;
    atomic_fetch_add(&s->submitted, 1);
    pthread_mutex_unlock(&s->qlock);
    atomic_fetch_add(&s->qseq, 1);
    /* Taking the flag down makes this the only enqueue that pays for the wake-up: on a loaded
     * machine the woken executor may take a while to get a core, and enqueues meanwhile would each
     * make another system call. The executor re-checks qseq after raising the flag, so it cannot
     * miss the bump. */
    if (atomic_load_explicit(&s->exec_sleeping, memory_order_relaxed) && atomic_exchange(&s->exec_sleeping, 0))
        cannon_cpu_futex_wake_all(&s->qseq);
}

static int enqueue_launch(cannon_drv_stream *s, const cannon_launch_desc *desc)
{
    if (s == NULL || desc == NULL || desc->fn == NULL || desc->block_dim == 0 ||
        (desc->args_size > 0 && desc->args == NULL))
        return ACL_ERROR_INVALID_PARAM;
    void *heap = NULL;
    if (desc->args_size > CPU_TASK_INLINE_ARGS) {
        heap = malloc(desc->args_size);
        if (heap == NULL)
            return ACL_ERROR_BAD_ALLOC;
        memcpy(heap, desc->args, desc->args_size);
    }
    pthread_mutex_lock(&s->qlock);
    int rc = executor_ensure_locked(s);
    cpu_task *t = rc == 0 ? task_get_locked(s) : NULL;
    if (t == NULL) {
        pthread_mutex_unlock(&s->qlock);
        free(heap);
        return rc != 0 ? rc : ACL_ERROR_BAD_ALLOC;
    }
    t->type = T_LAUNCH;
    t->u.launch.fn = desc->fn;
    t->u.launch.name = desc->name;
    t->u.launch.block_dim = desc->block_dim;
    t->heap_args = heap;
    if (heap != NULL) {
        t->u.launch.args = heap;
    } else if (desc->args_size > 0) {
        memcpy(t->inline_args, desc->args, desc->args_size);
        t->u.launch.args = t->inline_args;
    } else {
        t->u.launch.args = (void *)(uintptr_t)desc->args;
    }
    task_push_unlock(s, t);
    return 0;
}

/* Enqueue a task with no argument copy; fill() sets its fields. */
#define ENQUEUE_SIMPLE(s, fill)                                                                    \
    do {                                                                                           \
        pthread_mutex_lock(&(s)->qlock);                                                           \
        int rc_ = executor_ensure_locked(s);                                                       \
        cpu_task *t = rc_ == 0 ? task_get_locked(s) : NULL;                                        \
        if (t == NULL) {                                                                           \
            pthread_mutex_unlock(&(s)->qlock);                                                     \
            return rc_ != 0 ? rc_ : ACL_ERROR_BAD_ALLOC;                                           \
        }                                                                                          \
        t->heap_args = NULL;                                                                       \
        fill;                                                                                      \
        task_push_unlock(s, t);                                                                    \
    } while (0)

static int enqueue_copy(cannon_drv_stream *s, void *dst, const void *src, size_t n)
{
    if (s == NULL || (n > 0 && (dst == NULL || src == NULL)))
        return ACL_ERROR_INVALID_PARAM;
    if (!cannon_cpu_range_ok(s->dev, dst, n) || !cannon_cpu_range_ok(s->dev, src, n))
        return ACL_ERROR_INVALID_PARAM;
    ENQUEUE_SIMPLE(s, (t->type = T_COPY, t->u.copy.dst = dst, t->u.copy.src = src,
                       t->u.copy.n = n));
    return 0;
}

static int enqueue_fill(cannon_drv_stream *s, void *dst, int value, size_t n)
{
    if (s == NULL || (n > 0 && dst == NULL))
        return ACL_ERROR_INVALID_PARAM;
    if (!cannon_cpu_range_ok(s->dev, dst, n))
        return ACL_ERROR_INVALID_PARAM;
    ENQUEUE_SIMPLE(s, (t->type = T_FILL, t->u.fill.dst = dst, t->u.fill.value = value,
                       t->u.fill.n = n));
    return 0;
}

static int enqueue_host_ex(cannon_drv_stream *s, cannon_host_task_fn fn, void *arg, uint32_t flags)
{
    if (s == NULL || fn == NULL || (flags & ~CANNON_HOST_TASK_ANY_THREAD) != 0)
        return ACL_ERROR_INVALID_PARAM;
    ENQUEUE_SIMPLE(s, (t->type = T_HOST, t->u.host.fn = fn, t->u.host.arg = arg, t->u.host.flags = flags));
    return 0;
}

static int enqueue_host(cannon_drv_stream *s, cannon_host_task_fn fn, void *arg)
{
    return enqueue_host_ex(s, fn, arg, 0);
}

/* Event tasks take a reference on the event. The generation is read or bumped inside the queue
 * lock so that it is ordered with the stream's other tasks. */
static int enqueue_event(cannon_drv_stream *s, cannon_drv_event *e, int type)
{
    if (s == NULL || e == NULL)
        return ACL_ERROR_INVALID_PARAM;
    atomic_fetch_add(&e->refs, 1);
    pthread_mutex_lock(&s->qlock);
    int rc = executor_ensure_locked(s);
    cpu_task *t = rc == 0 ? task_get_locked(s) : NULL;
    if (t == NULL) {
        pthread_mutex_unlock(&s->qlock);
        event_unref(e);
        return rc != 0 ? rc : ACL_ERROR_BAD_ALLOC;
    }
    t->heap_args = NULL;
    t->type = type;
    t->u.ev.e = e;
    t->u.ev.gen = type == T_RECORD ? atomic_fetch_add(&e->record_gen, 1) + 1
                                   : atomic_load(&e->record_gen);
    task_push_unlock(s, t);
    return 0;
}

static int enqueue_record(cannon_drv_stream *s, cannon_drv_event *e)
{
    return enqueue_event(s, e, T_RECORD);
}

static int enqueue_wait(cannon_drv_stream *s, cannon_drv_event *e)
{
    return enqueue_event(s, e, T_WAIT);
}

static int enqueue_reset(cannon_drv_stream *s, cannon_drv_event *e)
{
    return enqueue_event(s, e, T_RESET);
}

/* Tasks a synchronizing thread may run itself: device work and event bookkeeping, and host tasks
 * flagged CANNON_HOST_TASK_ANY_THREAD when the synchronize has no timeout (such a task, a
 * collective, may take as long as its peers do; a bounded synchronize must stay able to give up).
 * Other host tasks (which applications expect on the stream's thread) and event waits (which may
 * block on other streams for long) are left to the executor. */
static int helpable(const cpu_task *t, int host_ok)
{
    if (t->type == T_HOST)
        return host_ok && (t->u.host.flags & CANNON_HOST_TASK_ANY_THREAD) != 0;
    return t->type == T_LAUNCH || t->type == T_COPY || t->type == T_FILL || t->type == T_RECORD ||
           t->type == T_RESET;
}

/*
 * The synchronizing thread runs queued tasks itself while the executor is not running any (it
 * sleeps, or has not been scheduled since the enqueue). On an oversubscribed machine a launch +
 * synchronize then needs no second thread to get a core: without this, it costs a futex wake-up
 * plus however long the woken executor waits for a core, tens of microseconds. Mutual exclusion
 * with the executor is the s->busy token; a batch is taken whole under qlock, so tasks still run
 * one at a time and in order. Leaving work behind (tasks enqueued meanwhile, or a batch it may
 * not run), the helper bumps qseq so that the executor picks it up; it does so only when it
 * stops helping, not after every batch it ran: a nudge between two batches would only wake the
 * executor to contend for the token with the helper, which is about to take it again (each
 * turn a context switch, on a core the two threads of a rank usually share).
 */
static void stream_help(cannon_drv_stream *s, uint64_t target, int host_ok)
{
    int stuck = 0;
    while (atomic_load(&s->completed.value) < target && busy_claim(s)) {
        pthread_mutex_lock(&s->qlock);
        cpu_task *batch = s->head;
        for (cpu_task *t = batch; t != NULL; t = t->next)
            if (!helpable(t, host_ok)) {
                batch = NULL;
                break;
            }
        if (batch != NULL)
            s->head = s->tail = NULL;
        pthread_mutex_unlock(&s->qlock);
        if (batch != NULL)
            run_batch(s, batch);
        atomic_store(&s->busy, 0);
        if (batch == NULL) {
            stuck = 1;
            break;
        }
    }
    pthread_mutex_lock(&s->qlock);
    int left = s->head != NULL;
    pthread_mutex_unlock(&s->qlock);
    if (left || stuck || atomic_load(&s->stop)) {
        atomic_fetch_add(&s->qseq, 1);
        if (atomic_load_explicit(&s->exec_sleeping, memory_order_relaxed) && atomic_exchange(&s->exec_sleeping, 0))
            cannon_cpu_futex_wake_all(&s->qseq);
    }
}

static int stream_synchronize(cannon_drv_stream *s, int32_t timeout_ms, char *msg, size_t msg_size)
{
    if (s == NULL)
        return ACL_ERROR_INVALID_PARAM;
    if (msg != NULL && msg_size > 0)
        msg[0] = '\0';
    uint64_t target = atomic_load(&s->submitted);
    if (atomic_load(&s->completed.value) < target)
        stream_help(s, target, timeout_ms < 0);
    if (cannon_cpu_counter_wait(&s->completed, target, cannon_cpu_deadline(timeout_ms), NULL) !=
        CPU_WAIT_OK)
        return ACL_ERROR_RT_STREAM_SYNC_TIMEOUT;
    return cannon_cpu_err_take(&s->err, msg, msg_size);
}

static int stream_query(cannon_drv_stream *s)
{
    if (s == NULL)
        return 1;
    uint64_t sub = atomic_load(&s->submitted);
    return atomic_load(&s->completed.value) >= sub;
}

static uint64_t stream_position(cannon_drv_stream *s)
{
    return s != NULL ? atomic_load(&s->submitted) : 0;
}

static uint64_t stream_completed(cannon_drv_stream *s)
{
    return s != NULL ? atomic_load(&s->completed.value) : 0;
}

/* As synchronize, without taking the recorded error, and helping only with device work: the
 * waiter (a free or an unmap) must not end up running a collective. */
static int stream_wait_position(cannon_drv_stream *s, uint64_t pos, int32_t timeout_ms)
{
    if (s == NULL)
        return ACL_ERROR_INVALID_PARAM;
    if (atomic_load(&s->completed.value) >= pos)
        return 0;
    stream_help(s, pos, 0);
    if (cannon_cpu_counter_wait(&s->completed, pos, cannon_cpu_deadline(timeout_ms), NULL) != CPU_WAIT_OK)
        return ACL_ERROR_RT_STREAM_SYNC_TIMEOUT;
    return 0;
}

static int stream_create(cannon_drv_device *dev, uint32_t flags, cannon_drv_stream **out)
{
    (void)flags;
    if (dev == NULL || out == NULL)
        return ACL_ERROR_INVALID_PARAM;
    size_t size = (sizeof(cannon_drv_stream) + 63) & ~(size_t)63;
    cannon_drv_stream *s = aligned_alloc(64, size);
    if (s == NULL)
        return ACL_ERROR_BAD_ALLOC;
    memset(s, 0, size);
    s->dev = dev;
    pthread_mutex_init(&s->qlock, NULL);
    atomic_init(&s->submitted, 0);
    atomic_init(&s->qseq, 0);
    atomic_init(&s->exec_sleeping, 0);
    atomic_init(&s->stop, 0);
    atomic_init(&s->discard, 0);
    atomic_init(&s->ends_itself, 0);
    atomic_init(&s->busy, 0);
    cannon_cpu_counter_init(&s->completed, 0);
    cannon_cpu_err_init(&s->err);

    cpu_dev_objs *o = cannon_cpu_dev_objs(dev);
    pthread_mutex_lock(&o->lock);
    s->next = o->streams;
    if (o->streams != NULL)
        o->streams->prev = s;
    o->streams = s;
    pthread_mutex_unlock(&o->lock);
    *out = s;
    return 0;
}

static int stream_destroy(cannon_drv_stream *s, int force)
{
    if (s == NULL)
        return ACL_ERROR_INVALID_PARAM;
    int own_executor = 0;
    if (t_running == s) {
        /* Called from one of the stream's own tasks. */
        pthread_mutex_lock(&s->qlock);
        own_executor = s->started && pthread_equal(s->thread, pthread_self());
        pthread_mutex_unlock(&s->qlock);
        if (!own_executor) {
            /* A synchronizing thread running the task: it still uses the stream afterwards. */
            CPU_LOG(CPU_LOG_ERROR, "cpu driver: a stream cannot be destroyed from a task a synchronizing "
                                   "thread runs for it");
            return ACL_ERROR_INVALID_PARAM;
        }
    }
    cpu_dev_objs *o = cannon_cpu_dev_objs(s->dev);
    pthread_mutex_lock(&o->lock);
    if (s->prev != NULL)
        s->prev->next = s->next;
    else
        o->streams = s->next;
    if (s->next != NULL)
        s->next->prev = s->prev;
    pthread_mutex_unlock(&o->lock);

    /* The executor drains the queue (running or, when forced, dropping each task) and exits once
     * it finds the queue empty with stop set. */
    if (force)
        atomic_store(&s->discard, 1);
    if (own_executor)
        atomic_store(&s->ends_itself, 1); /* before stop: the executor reads it after leaving */
    atomic_store(&s->stop, 1);
    pthread_mutex_lock(&s->qlock);
    s->closed = 1;
    int started = s->started;
    pthread_mutex_unlock(&s->qlock);
    if (own_executor)
        return 0; /* the executor frees the stream when it leaves */
    cannon_cpu_join_ended_streams();
    if (started) {
        atomic_fetch_add(&s->qseq, 1);
        cannon_cpu_futex_wake_all(&s->qseq);
        pthread_join(s->thread, NULL);
    }
    stream_free(s);
    return 0;
}

/* Free a stream whose executor has left (or never started). */
static void stream_free(cannon_drv_stream *s)
{
    /* Tasks a racing enqueue slipped in after the executor left are dropped. */
    for (cpu_task *t = s->head, *next; t != NULL; t = next) {
        next = t->next;
        discard_task(t);
        task_release(t);
    }
    for (cpu_slab *sl = s->slabs, *next; sl != NULL; sl = next) {
        next = sl->next;
        slab_unmap(sl);
    }
    cannon_cpu_err_destroy(&s->err);
    pthread_mutex_destroy(&s->qlock);
    free(s);
}

void cannon_cpu_dev_reap(cannon_drv_device *dev)
{
    cpu_dev_objs *o = cannon_cpu_dev_objs(dev);
    for (;;) {
        pthread_mutex_lock(&o->lock);
        cannon_drv_stream *s = o->streams;
        pthread_mutex_unlock(&o->lock);
        if (s == NULL)
            break;
        CPU_LOG(CPU_LOG_WARN, "cpu driver: closing a device with a live stream; destroying it");
        stream_destroy(s, 1);
    }
    for (;;) {
        pthread_mutex_lock(&o->lock);
        cannon_drv_event *e = o->events;
        pthread_mutex_unlock(&o->lock);
        if (e == NULL)
            break;
        CPU_LOG(CPU_LOG_WARN, "cpu driver: closing a device with a live event; destroying it");
        event_destroy(e);
    }
}

const cannon_stream_iface cannon_cpu_stream_iface = {
    .create = stream_create,
    .destroy = stream_destroy,
    .enqueue_launch = enqueue_launch,
    .enqueue_copy = enqueue_copy,
    .enqueue_fill = enqueue_fill,
    .enqueue_host = enqueue_host,
    .enqueue_record = enqueue_record,
    .enqueue_wait = enqueue_wait,
    .enqueue_reset = enqueue_reset,
    .synchronize = stream_synchronize,
    .query = stream_query,
    .event_create = event_create,
    .event_destroy = event_destroy,
    .event_query = event_query,
    .event_synchronize = event_synchronize,
    .event_elapsed = event_elapsed,
    .enqueue_host_ex = enqueue_host_ex,
    .position = stream_position,
    .completed = stream_completed,
    .wait_position = stream_wait_position,
};
