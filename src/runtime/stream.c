/* Streams, events, host callbacks and the launch interface. */
#include "internal.h"
#include "prof.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const cannon_driver_iface *cn_drv(void) { return g_rt.driver.iface; }

/* ------------------------------------------------------------------------------------------ */
/* Report queues: callbacks routed to a subscribed user thread (aclrtProcessReport).           */
/* ------------------------------------------------------------------------------------------ */

typedef struct cn_report_item {
    aclrtCallback fn;
    void *user_data;
    bool block;
    bool done;       /* BLOCK items: set by the processing thread (or by cancellation) */
    cn_report_queue *queue;
    cn_stream *stream; /* identity only: a BLOCK callback holds up this stream */
    struct cn_report_item *next;
} cn_report_item;

struct cn_report_queue {
    uint64_t tid;
    int refs;          /* subscriptions + items in flight; under g_rep_lock */
    int subscriptions; /* streams subscribed; under g_rep_lock */
    cn_report_item *head, *tail;
    pthread_cond_t cv;
    cn_report_queue *next;
};

/* One lock for all queues: callbacks are not a hot path, and it keeps lifetime rules simple. */
static pthread_mutex_t g_rep_lock = PTHREAD_MUTEX_INITIALIZER;
static cn_report_queue *g_queues;

static cn_report_queue *queue_find_locked(uint64_t tid)
{
    for (cn_report_queue *q = g_queues; q; q = q->next)
        if (q->tid == tid && q->subscriptions > 0)
            return q;
    return NULL;
}

static void queue_put_locked(cn_report_queue *q)
{
    if (--q->refs > 0)
        return;
    for (cn_report_queue **pp = &g_queues; *pp; pp = &(*pp)->next)
        if (*pp == q) {
            *pp = q->next;
            break;
        }
    pthread_cond_destroy(&q->cv);
    cn_free(q);
}

/* Drop a stream's subscription; when the last goes, callbacks still queued are cancelled so a
 * stream waiting on a BLOCK callback is not stuck forever. */
static void queue_unsubscribe_locked(cn_report_queue *q)
{
    if (--q->subscriptions == 0) {
        cn_report_item *it = q->head;
        q->head = q->tail = NULL;
        while (it) {
            cn_report_item *next = it->next;
            CN_LOGW("host callback %p cancelled: its thread unsubscribed before processing it", (void *)it->fn);
            if (it->block) {
                it->done = true;
            } else {
                queue_put_locked(it->queue);
                cn_free(it);
            }
            it = next;
        }
        pthread_cond_broadcast(&q->cv);
    }
    queue_put_locked(q);
}

/* Runs on the stream's thread when the stream reaches the callback. */
static int callback_task(void *arg)
{
    cn_report_item *it = arg;
    cn_report_queue *q = it->queue;
    pthread_mutex_lock(&g_rep_lock);
    if (q->subscriptions == 0) {
        queue_put_locked(q);
        pthread_mutex_unlock(&g_rep_lock);
        cn_free(it);
        return 0;
    }
    if (q->tail)
        q->tail->next = it;
    else
        q->head = it;
    q->tail = it;
    pthread_cond_broadcast(&q->cv);
    if (it->block) {
        while (!it->done)
            pthread_cond_wait(&q->cv, &g_rep_lock);
        queue_put_locked(q);
        pthread_mutex_unlock(&g_rep_lock);
        cn_free(it);
        return 0;
    }
    pthread_mutex_unlock(&g_rep_lock);
    return 0;
}

static void report_item_drop(cn_report_item *it)
{
    pthread_mutex_lock(&g_rep_lock);
    queue_put_locked(it->queue);
    pthread_mutex_unlock(&g_rep_lock);
    cn_free(it);
}

/* ------------------------------------------------------------------------------------------ */
/* Host calls: every host function a stream runs (aclrtLaunchHostFunc, cannonLaunchHostTask,    */
/* and the delivery of aclrtLaunchCallback items) goes through one record, listed on its stream */
/* until it starts. The list tells a teardown what the driver dropped (reported, and freed), and */
/* the running count lets it wait for callbacks in flight before the stream goes.               */
/* ------------------------------------------------------------------------------------------ */

#define CALL_TASK CN_CALL_TASK
#define CALL_HOST_FUNC CN_CALL_HOST_FUNC
#define CALL_REPORT CN_CALL_REPORT

struct cn_host_call {
    cn_call_kind kind;
    cannon_host_task_fn task;   /* CALL_TASK */
    aclrtHostFunc host_func;    /* CALL_HOST_FUNC */
    void *arg;                  /* CALL_REPORT: the cn_report_item */
    cn_stream *stream;
    cn_host_call *prev, *next;  /* the stream's list while not started, under its calls_lock */
};

static void call_unlink_locked(cn_stream *s, cn_host_call *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else if (s->calls == c)
        s->calls = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
}

/* Free a call that will not run, and what only it owns. */
static void call_drop(cn_host_call *c)
{
    if (c->kind == CALL_REPORT)
        report_item_drop(c->arg);
    cn_free(c);
}

/* The driver task of every host call. The stream stays alive while it runs: the creation
 * reference goes only in cn_stream_destroy_locked, which waits for running calls first. */
static int host_call_run(void *arg)
{
    cn_host_call *c = arg;
    cn_stream *s = c->stream;
    pthread_mutex_lock(&s->calls_lock);
    call_unlink_locked(s, c);
    if (s->dropping) {
        s->dropped++;
        pthread_mutex_unlock(&s->calls_lock);
        call_drop(c);
        return 0;
    }
    s->running++;
    pthread_mutex_unlock(&s->calls_lock);
    int r = 0;
    if (c->kind == CALL_REPORT) {
        /* Only hands the item to the subscribed thread (and waits for a BLOCK one). */
        r = callback_task(c->arg);
    } else {
        cn_cb_frame f;
        cn_callback_enter(&f, s, true);
        if (c->kind == CALL_HOST_FUNC)
            c->host_func(c->arg);
        else
            r = c->task(c->arg);
        cn_callback_leave(&f);
    }
    cn_free(c);
    pthread_mutex_lock(&s->calls_lock);
    if (--s->running == 0)
        pthread_cond_broadcast(&s->calls_idle);
    pthread_mutex_unlock(&s->calls_lock);
    return r;
}

/* Enqueue c on s's driver stream (referenced by the caller). On failure c is not listed and still
 * the caller's. */
static aclError call_enqueue_drv(const char *api, cn_stream *s, cn_host_call *c, uint32_t flags)
{
    c->stream = s;
    c->prev = NULL;
    pthread_mutex_lock(&s->calls_lock);
    c->next = s->calls;
    if (s->calls)
        s->calls->prev = c;
    s->calls = c;
    pthread_mutex_unlock(&s->calls_lock);
    const cannon_stream_iface *si = cn_drv()->stream;
    cn_prof_rec *pr = NULL;
    if (CN_UNLIKELY(cn_prof_active()))
        pr = cn_prof_task_begin(s, c->kind == CALL_TASK ? CN_PT_HOST_TASK : c->kind == CALL_HOST_FUNC ? CN_PT_HOST_FUNC
                                : CN_PT_CALLBACK, c->kind == CALL_TASK ? "HostTask" : c->kind == CALL_HOST_FUNC
                                ? "HostFunc" : "Callback", 0);
    /* The flags are hints: a driver without enqueue_host_ex runs the task on its stream thread. */
    int drc = flags != 0 && si->enqueue_host_ex != NULL ? si->enqueue_host_ex(s->drv, host_call_run, c, flags)
                                                        : si->enqueue_host(s->drv, host_call_run, c);
    if (pr)
        cn_prof_task_end(s, pr, drc == 0);
    if (drc == 0)
        return ACL_SUCCESS;
    pthread_mutex_lock(&s->calls_lock);
    call_unlink_locked(s, c);
    pthread_mutex_unlock(&s->calls_lock);
    return cn_error(drc, "%s: the driver could not enqueue the task", api);
}

/* Enqueue c on s, or record it when s captures (c is then freed). On failure c is still the
 * caller's. */
static aclError call_enqueue(const char *api, cn_stream *s, cn_host_call *c, uint32_t flags)
{
    if (cn_stream_capturing(s)) {
        cn_ctask t = {.kind = CN_CT_HOST};
        t.u.host.kind = c->kind;
        t.u.host.task = c->task;
        t.u.host.func = c->host_func;
        t.u.host.arg = c->arg;
        t.u.host.flags = flags;
        if (c->kind == CALL_REPORT) {
            cn_report_item *it = c->arg;
            t.u.host.cb = it->fn;
            t.u.host.arg = it->user_data;
            t.u.host.block = it->block;
        }
        aclError rc;
        if (cn_capture_record(s, &t, &rc)) {
            if (rc == ACL_SUCCESS)
                call_drop(c);
            return rc;
        }
    }
    return call_enqueue_drv(api, s, c, flags);
}

aclError cn_stream_enqueue_host(cn_stream *s, cn_call_kind kind, cannon_host_task_fn task, aclrtHostFunc func,
                                void *arg, uint32_t flags, const char *api)
{
    cn_host_call *c = cn_calloc(1, sizeof(*c));
    if (!c)
        return cn_error(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
    c->kind = kind;
    c->task = task;
    c->host_func = func;
    c->arg = arg;
    aclError rc = call_enqueue_drv(api, s, c, flags);
    if (rc != ACL_SUCCESS)
        cn_free(c);
    return rc;
}

/* Wait until no host call of s runs (on any thread). With drop_rest, calls that have not started
 * are dropped when the stream reaches them. */
static void calls_wait_idle(cn_stream *s, bool drop_rest)
{
    pthread_mutex_lock(&s->calls_lock);
    if (drop_rest)
        s->dropping = true;
    while (s->running > 0)
        pthread_cond_wait(&s->calls_idle, &s->calls_lock);
    pthread_mutex_unlock(&s->calls_lock);
}

ACL_FUNC_VISIBILITY aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream)
{
    cn_stream *s = NULL;
    aclError rc = cn_stream_resolve(stream, "aclrtSubscribeReport", &s);
    if (rc != ACL_SUCCESS)
        return rc;
    pthread_mutex_lock(&g_rep_lock);
    if (s->has_subscriber) {
        pthread_mutex_unlock(&g_rep_lock);
        cn_obj_put(&s->obj);
        return cn_error(ACL_ERROR_RT_STREAM_SUBSCRIBE, "aclrtSubscribeReport: stream %p already has a subscribed "
                        "thread (%llu)", stream, (unsigned long long)s->subscriber);
    }
    cn_report_queue *q = queue_find_locked(threadId);
    if (!q) {
        q = cn_calloc(1, sizeof(*q));
        if (!q) {
            pthread_mutex_unlock(&g_rep_lock);
            cn_obj_put(&s->obj);
            return cn_error(ACL_ERROR_BAD_ALLOC, "aclrtSubscribeReport: out of memory");
        }
        q->tid = threadId;
        pthread_cond_init(&q->cv, NULL);
        q->next = g_queues;
        g_queues = q;
    }
    q->refs++;
    q->subscriptions++;
    s->has_subscriber = true;
    s->subscriber = threadId;
    s->reports = q;
    pthread_mutex_unlock(&g_rep_lock);
    cn_obj_put(&s->obj);
    return ACL_SUCCESS;
}

static void stream_unsubscribe(cn_stream *s)
{
    pthread_mutex_lock(&g_rep_lock);
    if (s->has_subscriber) {
        cn_report_queue *q = s->reports;
        s->has_subscriber = false;
        s->reports = NULL;
        s->subscriber = 0;
        queue_unsubscribe_locked(q);
    }
    pthread_mutex_unlock(&g_rep_lock);
}

ACL_FUNC_VISIBILITY aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream)
{
    cn_stream *s = NULL;
    aclError rc = cn_stream_resolve(stream, "aclrtUnSubscribeReport", &s);
    if (rc != ACL_SUCCESS)
        return rc;
    pthread_mutex_lock(&g_rep_lock);
    bool ok = s->has_subscriber && s->subscriber == threadId;
    pthread_mutex_unlock(&g_rep_lock);
    if (!ok) {
        cn_obj_put(&s->obj);
        return cn_error(ACL_ERROR_STREAM_NOT_SUBSCRIBE, "aclrtUnSubscribeReport: thread %llu is not subscribed to "
                        "stream %p", (unsigned long long)threadId, stream);
    }
    stream_unsubscribe(s);
    cn_obj_put(&s->obj);
    return ACL_SUCCESS;
}

/* Hand fn(data) to s's subscribed thread when s gets there (raw: straight to the driver, as graph
 * replay does; else recorded when s captures). */
static aclError launch_callback(cn_stream *s, aclrtCallback fn, void *data, bool block, const char *api, bool raw)
{
    cn_report_item *it = cn_calloc(1, sizeof(*it));
    cn_host_call *call = it ? cn_calloc(1, sizeof(*call)) : NULL;
    if (!call) {
        cn_free(it);
        return cn_error(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
    }
    it->fn = fn;
    it->user_data = data;
    it->block = block;
    it->stream = s;
    pthread_mutex_lock(&g_rep_lock);
    if (!s->has_subscriber) {
        pthread_mutex_unlock(&g_rep_lock);
        cn_free(call);
        cn_free(it);
        return cn_error(ACL_ERROR_RT_STREAM_NO_CB_REG, "%s: no thread is subscribed to stream %p; call "
                        "aclrtSubscribeReport first", api, (void *)s);
    }
    it->queue = s->reports;
    it->queue->refs++;
    pthread_mutex_unlock(&g_rep_lock);
    call->kind = CALL_REPORT;
    call->arg = it;
    aclError rc = raw ? call_enqueue_drv(api, s, call, 0) : call_enqueue(api, s, call, 0);
    if (rc != ACL_SUCCESS)
        call_drop(call);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtLaunchCallback(aclrtCallback fn, void *userData, aclrtCallbackBlockType blockType,
                                                 aclrtStream stream)
{
    if (!fn)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtLaunchCallback: fn is NULL");
    if (blockType != ACL_CALLBACK_NO_BLOCK && blockType != ACL_CALLBACK_BLOCK)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtLaunchCallback: blockType %d is not an aclrtCallbackBlockType",
                        (int)blockType);
    cn_stream *s = NULL;
    aclError rc = cn_stream_resolve(stream, "aclrtLaunchCallback", &s);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = launch_callback(s, fn, userData, blockType == ACL_CALLBACK_BLOCK, "aclrtLaunchCallback", false);
    cn_obj_put(&s->obj);
    return rc;
}

aclError cn_stream_enqueue_callback(cn_stream *s, aclrtCallback fn, void *data, bool block, const char *api)
{
    return launch_callback(s, fn, data, block, api, true);
}

ACL_FUNC_VISIBILITY aclError aclrtProcessReport(int32_t timeout)
{
    if (timeout == 0 || timeout < -1)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtProcessReport: timeout %d ms is invalid (use -1 or a "
                        "positive number of milliseconds)", timeout);
    uint64_t tid = (uint64_t)pthread_self();
    pthread_mutex_lock(&g_rep_lock);
    cn_report_queue *q = queue_find_locked(tid);
    if (!q) {
        pthread_mutex_unlock(&g_rep_lock);
        return cn_error(ACL_ERROR_RT_THREAD_SUBSCRIBE, "aclrtProcessReport: the calling thread is not subscribed to "
                        "any stream (aclrtSubscribeReport)");
    }
    q->refs++;
    struct timespec dl;
    if (timeout > 0) {
        clock_gettime(CLOCK_REALTIME, &dl);
        dl.tv_sec += timeout / 1000;
        dl.tv_nsec += (long)(timeout % 1000) * 1000000L;
        if (dl.tv_nsec >= 1000000000L) {
            dl.tv_sec++;
            dl.tv_nsec -= 1000000000L;
        }
    }
    while (!q->head && q->subscriptions > 0) {
        int w = timeout > 0 ? pthread_cond_timedwait(&q->cv, &g_rep_lock, &dl) : pthread_cond_wait(&q->cv, &g_rep_lock);
        if (w != 0 && !q->head)
            break;
    }
    if (!q->head) {
        queue_put_locked(q);
        pthread_mutex_unlock(&g_rep_lock);
        return cn_error(ACL_ERROR_RT_REPORT_TIMEOUT, "aclrtProcessReport: no callback arrived within %d ms", timeout);
    }
    /* Run everything that is due, in order, outside the lock. */
    while (q->head) {
        cn_report_item *it = q->head;
        q->head = it->next;
        if (!q->head)
            q->tail = NULL;
        pthread_mutex_unlock(&g_rep_lock);
        if (it->block) {
            /* The stream waits for this one: the host-callback rules apply (no context
             * adoption: this is the application's thread, with its own current context). */
            cn_cb_frame f;
            cn_callback_enter(&f, it->stream, false);
            it->fn(it->user_data);
            cn_callback_leave(&f);
        } else {
            it->fn(it->user_data);
        }
        pthread_mutex_lock(&g_rep_lock);
        if (it->block) {
            it->done = true;
            pthread_cond_broadcast(&q->cv);
        } else {
            queue_put_locked(it->queue);
            cn_free(it);
        }
    }
    queue_put_locked(q);
    pthread_mutex_unlock(&g_rep_lock);
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------------------------------ */
/* Streams                                                                                     */
/* ------------------------------------------------------------------------------------------ */

static void stream_release(cn_obj *o)
{
    cn_stream *s = (cn_stream *)o;
    const cannon_driver_iface *d = cn_drv();
    cn_mem_stream_gone(s);
    if (s->fence)
        d->stream->event_destroy(s->fence);
    /* Whoever drops the last reference ends the stream; pending work was waited for (or
     * deliberately discarded) by the destroy call that unregistered it. */
    d->stream->destroy(s->drv, 1);
    /* Host calls still listed were discarded by the driver: free them, and say so. */
    size_t dropped = s->dropped;
    for (cn_host_call *c = s->calls, *next; c; c = next) {
        next = c->next;
        call_drop(c);
        dropped++;
    }
    if (dropped)
        CN_LOGW("stream %p was destroyed with %zu queued host callback(s) that never ran; they were dropped",
                (void *)s, dropped);
    pthread_cond_destroy(&s->calls_idle);
    pthread_mutex_destroy(&s->calls_lock);
    pthread_mutex_destroy(&s->cap_lock);
    cn_device *dev = s->dev;
    cn_free(s);
    cn_device_obj_remove(dev);
}

aclError cn_stream_create_locked(cn_context *ctx, bool is_default, uint32_t flags, cn_stream **out)
{
    cn_stream *s = cn_calloc(1, sizeof(*s));
    if (!s)
        return cn_error(ACL_ERROR_BAD_ALLOC, "out of memory creating a stream");
    cn_obj_init(&s->obj, CN_KIND_STREAM, stream_release);
    s->ctx = ctx;
    s->dev = ctx->dev;
    s->is_default = is_default;
    s->flags = flags;
    int drc = cn_drv()->stream->create(ctx->dev->drv, flags, &s->drv);
    if (drc != 0 || !s->drv) {
        cn_free(s);
        return cn_error(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "device %d: the driver could not create a stream (error %d)",
                        ctx->dev->id, drc);
    }
    pthread_mutex_init(&s->calls_lock, NULL);
    pthread_cond_init(&s->calls_idle, NULL);
    pthread_mutex_init(&s->cap_lock, NULL);
    atomic_init(&s->capture, NULL);
    aclError rc = cn_obj_register(&s->obj);
    if (rc != ACL_SUCCESS) {
        cn_drv()->stream->destroy(s->drv, 1);
        pthread_cond_destroy(&s->calls_idle);
        pthread_mutex_destroy(&s->calls_lock);
        pthread_mutex_destroy(&s->cap_lock);
        cn_free(s);
        return cn_error(rc, "out of memory registering a stream");
    }
    cn_device_obj_add(s->dev);
    cn_mem_stream_added(s);
    *out = s;
    return ACL_SUCCESS;
}

void cn_stream_destroy_locked(cn_stream *s, bool force)
{
    if (cn_stream_capturing(s))
        cn_capture_stream_destroyed(s);
    cn_lock_wait_begin(); /* callbacks that need g_rt.lock give up instead of waiting for us */
    if (!force)
        cn_drv()->stream->synchronize(s->drv, -1, NULL, 0);
    stream_unsubscribe(s);
    cn_obj_ref(&s->obj); /* ours, while callbacks in flight finish */
    cn_obj_unregister(&s->obj);
    cn_obj_put(&s->obj); /* the creation reference */
    if (cn_callback_holds_stream(s)) {
        /* The API entry points refuse this (cn_callback_refuse); waiting for ourselves would
         * hang, and ending the stream would free the task this thread is running. Keep it. */
        CN_LOGE("internal error: stream %p destroyed from its own callback; it is kept", (void *)s);
    } else {
        /* A running callback may hold a reference of its own: the stream (and the memory and
         * context it uses) must outlive it, whoever drops the last reference. */
        calls_wait_idle(s, force);
        cn_obj_put(&s->obj); /* usually the last: ends the driver stream and its thread */
    }
    cn_lock_wait_end();
}

aclError cn_stream_resolve(aclrtStream stream, const char *api, cn_stream **out)
{
    if (!stream) {
        cn_context *c = NULL;
        aclError rc = cn_require_context(api, &c);
        if (rc != ACL_SUCCESS)
            return rc;
        cn_stream *s = c->default_stream;
        cn_obj_ref(&s->obj);
        cn_obj_put(&c->obj);
        *out = s;
        return ACL_SUCCESS;
    }
    cn_stream *s = (cn_stream *)cn_obj_get(stream, CN_KIND_STREAM);
    if (!s)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: %p is not a live stream (destroyed already, or not a stream "
                        "handle)", api, stream);
    *out = s;
    return ACL_SUCCESS;
}

aclError cn_stream_sync(cn_stream *s, int32_t timeout_ms, const char *api)
{
    char msg[512];
    msg[0] = '\0';
    int rc = cn_drv()->stream->synchronize(s->drv, timeout_ms, msg, sizeof(msg));
    if (rc == 0)
        return ACL_SUCCESS;
    if (rc == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)
        return cn_error(rc, "%s: stream %p did not finish within %d ms", api, (void *)s, timeout_ms);
    return cn_error(rc, "%s: a task on stream %p failed: %s", api, (void *)s, msg[0] ? msg : "(no message)");
}

static aclError create_stream(const char *api, aclrtStream *stream, uint32_t flags)
{
    if (!stream)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: stream is NULL", api);
    cn_context *c = NULL;
    aclError rc = cn_require_context(api, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = cn_lock(api);
    if (rc != ACL_SUCCESS) {
        cn_obj_put(&c->obj);
        return rc;
    }
    cn_stream *s = NULL;
    /* The context may have been destroyed between the lookup and the lock. */
    cn_obj *check = cn_obj_get(c, CN_KIND_CONTEXT);
    if (!check) {
        rc = cn_error(ACL_ERROR_RT_CONTEXT_NULL, "%s: the current context was destroyed", api);
    } else {
        cn_obj_put(check);
        rc = cn_stream_create_locked(c, false, flags, &s);
    }
    cn_unlock();
    cn_obj_put(&c->obj);
    if (rc == ACL_SUCCESS)
        *stream = s;
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream *stream) { return create_stream("aclrtCreateStream", stream, 0); }

ACL_FUNC_VISIBILITY aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag)
{
    (void)priority; /* reserved in CANN */
    return create_stream("aclrtCreateStreamWithConfig", stream, flag);
}

static aclError destroy_stream(const char *api, aclrtStream stream, bool force)
{
    if (!stream)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: stream is NULL (the default stream cannot be destroyed)", api);
    cn_stream *s = (cn_stream *)cn_obj_get(stream, CN_KIND_STREAM);
    if (!s && cn_retired_take(stream, CN_KIND_STREAM)) {
        CN_LOGI("%s: stream %p went with its context (a device reset or context destroy)", api, stream);
        return ACL_SUCCESS;
    }
    if (!s)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: %p is not a live stream", api, stream);
    if (s->is_default) {
        cn_obj_put(&s->obj);
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: %p is a default stream; it goes with its context", api, stream);
    }
    if (cn_callback_holds_stream(s)) {
        cn_obj_put(&s->obj);
        return cn_callback_refuse(api, "the stream is the one running the callback");
    }
    if (cn_stream_capturing(s)) {
        cn_obj_put(&s->obj);
        return cn_error(ACL_ERROR_RT_STREAM_CAPTURED, "%s: stream %p is capturing (aclmdlRICaptureBegin); end the "
                        "capture first", api, stream);
    }
    /* Wait outside the global lock: the stream's pending work may need other runtime calls
     * (a callback thread) to finish. */
    if (!force)
        cn_drv()->stream->synchronize(s->drv, -1, NULL, 0);
    /* No reference while waiting for the lock (a teardown holding it may wait for the stream's
     * references); look the handle up again under it, by id so a new stream at the same address
     * is not taken for this one. */
    uint64_t id = s->obj.id;
    cn_obj_put(&s->obj);
    aclError rc = cn_lock(api);
    if (rc != ACL_SUCCESS)
        return rc;
    s = (cn_stream *)cn_obj_get(stream, CN_KIND_STREAM);
    if (s && s->obj.id == id)
        cn_stream_destroy_locked(s, true);
    else
        rc = cn_error(ACL_ERROR_INVALID_PARAM, "%s: %p was destroyed by another thread meanwhile", api, stream);
    cn_unlock();
    if (s)
        cn_obj_put(&s->obj);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream) { return destroy_stream("aclrtDestroyStream", stream, false); }

ACL_FUNC_VISIBILITY aclError aclrtDestroyStreamForce(aclrtStream stream)
{
    return destroy_stream("aclrtDestroyStreamForce", stream, true);
}

/* A synchronize of the stream running the calling callback could never finish. */
static aclError sync_stream(const char *api, aclrtStream stream, int32_t timeout)
{
    cn_stream *s = NULL;
    aclError rc = cn_stream_resolve(stream, api, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (cn_callback_holds_stream(s))
        rc = cn_callback_refuse(api, "the stream is the one running the callback");
    else if (cn_stream_capturing(s))
        rc = cn_error(ACL_ERROR_RT_STREAM_CAPTURED, "%s: stream %p is capturing (aclmdlRICaptureBegin): its tasks are "
                      "recorded, not run; synchronize after aclmdlRICaptureEnd", api, stream);
    else
        rc = cn_stream_sync(s, timeout, api);
    cn_obj_put(&s->obj);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream)
{
    return sync_stream("aclrtSynchronizeStream", stream, -1);
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
    if (timeout == 0 || timeout < -1)
        return cn_error(ACL_ERROR_RT_PARAM_INVALID, "aclrtSynchronizeStreamWithTimeout: timeout %d ms is invalid "
                        "(use -1 to wait forever or a positive number of milliseconds)", timeout);
    return sync_stream("aclrtSynchronizeStreamWithTimeout", stream, timeout);
}

ACL_FUNC_VISIBILITY aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status)
{
    if (!status)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtStreamQuery: status is NULL");
    cn_stream *s = NULL;
    aclError rc = cn_stream_resolve(stream, "aclrtStreamQuery", &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (cn_stream_capturing(s)) {
        cn_obj_put(&s->obj);
        return cn_error(ACL_ERROR_RT_STREAM_CAPTURED, "aclrtStreamQuery: stream %p is capturing "
                        "(aclmdlRICaptureBegin)", stream);
    }
    *status = cn_drv()->stream->query(s->drv) ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
    cn_obj_put(&s->obj);
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------------------------------ */
/* Events                                                                                      */
/* ------------------------------------------------------------------------------------------ */

#define CN_EVENT_FLAGS_OK \
    (ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE | ACL_EVENT_DEVICE_USE_ONLY | \
     ACL_EVENT_EXTERNAL)

static void event_release(cn_obj *o)
{
    cn_event *e = (cn_event *)o;
    cn_device *dev = e->dev;
    cn_drv()->stream->event_destroy(e->drv);
    cn_free(e);
    cn_device_obj_remove(dev);
}

static aclError create_event(const char *api, aclrtEvent *event, uint32_t flags)
{
    if (!event)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: event is NULL", api);
    cn_context *c = NULL;
    aclError rc = cn_require_context(api, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    cn_event *e = cn_calloc(1, sizeof(*e));
    if (!e) {
        cn_obj_put(&c->obj);
        return cn_error(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
    }
    cn_obj_init(&e->obj, CN_KIND_EVENT, event_release);
    e->ctx = c;
    e->dev = c->dev;
    e->flags = flags;
    /* The driver event is made under the lock, once the context is known to be alive: made
     * before, a teardown in between would end it with the device. */
    rc = cn_lock(api);
    if (rc == ACL_SUCCESS) {
        cn_obj *check = cn_obj_get(c, CN_KIND_CONTEXT);
        if (!check) {
            rc = cn_error(ACL_ERROR_RT_CONTEXT_NULL, "%s: the current context was destroyed", api);
        } else {
            cn_obj_put(check);
            int drc = cn_drv()->stream->event_create(c->dev->drv,
                                                     (flags & ACL_EVENT_TIME_LINE) ? CANNON_DRV_EVENT_TIMING : 0,
                                                     &e->drv);
            if (drc != 0 || !e->drv) {
                e->drv = NULL;
                rc = cn_error(ACL_ERROR_RT_NO_EVENT_RESOURCE, "%s: the driver could not create an event (error %d)",
                              api, drc);
            } else if ((rc = cn_obj_register(&e->obj)) != ACL_SUCCESS) {
                cn_drv()->stream->event_destroy(e->drv);
                cn_error(rc, "%s: out of memory registering the event", api);
            } else {
                cn_device_obj_add(e->dev);
            }
        }
        cn_unlock();
    }
    cn_obj_put(&c->obj);
    if (rc != ACL_SUCCESS) {
        cn_free(e);
        return rc;
    }
    *event = e;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtCreateEvent(aclrtEvent *event)
{
    return create_event("aclrtCreateEvent", event, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE);
}

ACL_FUNC_VISIBILITY aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag)
{
    if (flag == 0 || (flag & ~CN_EVENT_FLAGS_OK))
        return cn_error(ACL_ERROR_RT_PARAM_INVALID, "aclrtCreateEventWithFlag: flag 0x%x is invalid (an OR of "
                        "ACL_EVENT_SYNC, ACL_EVENT_CAPTURE_STREAM_PROGRESS, ACL_EVENT_TIME_LINE, "
                        "ACL_EVENT_DEVICE_USE_ONLY, ACL_EVENT_EXTERNAL is expected)", flag);
    return create_event("aclrtCreateEventWithFlag", event, flag);
}

static aclError get_event(const char *api, aclrtEvent event, cn_event **out)
{
    if (!event)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: event is NULL", api);
    cn_event *e = (cn_event *)cn_obj_get(event, CN_KIND_EVENT);
    if (!e)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: %p is not a live event (destroyed already, or not an event "
                        "handle)", api, event);
    *out = e;
    return ACL_SUCCESS;
}

void cn_event_destroy_locked(cn_event *e)
{
    cn_obj_unregister(&e->obj);
    cn_obj_put(&e->obj);
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyEvent(aclrtEvent event)
{
    cn_event *e = NULL;
    if (event && cn_retired_take(event, CN_KIND_EVENT)) { /* never a live handle: registering forgets it */
        CN_LOGI("aclrtDestroyEvent: event %p went with its context (a device reset or context destroy)", event);
        return ACL_SUCCESS;
    }
    aclError rc = get_event("aclrtDestroyEvent", event, &e);
    if (rc != ACL_SUCCESS)
        return rc;
    /* As for streams: no reference while waiting for the lock, and the same object after it. */
    uint64_t id = e->obj.id;
    cn_obj_put(&e->obj);
    rc = cn_lock("aclrtDestroyEvent");
    if (rc != ACL_SUCCESS)
        return rc;
    e = (cn_event *)cn_obj_get(event, CN_KIND_EVENT);
    if (e && e->obj.id == id)
        cn_event_destroy_locked(e);
    else
        rc = cn_error(ACL_ERROR_INVALID_PARAM, "aclrtDestroyEvent: %p was destroyed by another thread meanwhile", event);
    cn_unlock();
    if (e)
        cn_obj_put(&e->obj);
    return rc;
}

typedef int (*event_enqueue_fn)(cannon_drv_stream *, cannon_drv_event *);

static aclError event_on_stream(const char *api, aclrtEvent event, aclrtStream stream, int which)
{
    cn_event *e = NULL;
    aclError rc = get_event(api, event, &e);
    if (rc != ACL_SUCCESS)
        return rc;
    if (which == 1 && !(e->flags & ACL_EVENT_SYNC)) {
        cn_obj_put(&e->obj);
        return cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: event %p was created without ACL_EVENT_SYNC and cannot be "
                        "waited on", api, event);
    }
    /* Resolving a NULL stream may take the lock (a first use of the default device): not with
     * the event referenced (see cn_device_obj_add). Look it up again afterwards. */
    uint64_t id = e->obj.id;
    cn_obj_put(&e->obj);
    cn_stream *s = NULL;
    rc = cn_stream_resolve(stream, api, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    e = (cn_event *)cn_obj_get(event, CN_KIND_EVENT);
    if (!e || e->obj.id != id) {
        if (e)
            cn_obj_put(&e->obj);
        cn_obj_put(&s->obj);
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: %p was destroyed by another thread meanwhile", api, event);
    }
    cn_ctask t = {.kind = CN_CT_EVENT, .u.ev = {.which = which, .handle = event, .id = id}};
    if (cn_stream_capturing(s) && cn_capture_record(s, &t, &rc)) {
        /* recorded */
    } else if (which == 1 && atomic_load(&e->captured) > 0) {
        rc = cn_error(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "%s: event %p was recorded in a capture still going on; a "
                      "stream that is not capturing cannot wait for it (cross-stream capture is not supported)",
                      api, event);
    } else {
        rc = cn_stream_enqueue_event(s, e, which, api);
    }
    cn_obj_put(&s->obj);
    cn_obj_put(&e->obj);
    return rc;
}

aclError cn_stream_enqueue_event(cn_stream *s, cn_event *e, int which, const char *api)
{
    const cannon_stream_iface *si = cn_drv()->stream;
    event_enqueue_fn fn = which == 0 ? si->enqueue_record : which == 1 ? si->enqueue_wait : si->enqueue_reset;
    cn_prof_rec *pr = NULL;
    if (CN_UNLIKELY(cn_prof_active()))
        pr = cn_prof_task_begin(s, which == 0 ? CN_PT_EVENT_RECORD : which == 1 ? CN_PT_EVENT_WAIT : CN_PT_EVENT_RESET,
                                which == 0 ? "EventRecord" : which == 1 ? "EventWait" : "EventReset", 0);
    int drc = fn(s->drv, e->drv);
    if (pr)
        cn_prof_task_end(s, pr, drc == 0);
    return drc != 0 ? cn_error(drc, "%s: the driver could not enqueue the event operation", api) : ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
    return event_on_stream("aclrtRecordEvent", event, stream, 0);
}

ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
    return event_on_stream("aclrtStreamWaitEvent", event, stream, 1);
}

ACL_FUNC_VISIBILITY aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream)
{
    return event_on_stream("aclrtResetEvent", event, stream, 2);
}

ACL_FUNC_VISIBILITY aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status)
{
    if (!status)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtQueryEventStatus: status is NULL");
    cn_event *e = NULL;
    aclError rc = get_event("aclrtQueryEventStatus", event, &e);
    if (rc != ACL_SUCCESS)
        return rc;
    if (atomic_load(&e->captured) > 0) {
        cn_obj_put(&e->obj);
        return cn_error(ACL_ERROR_RT_EVENT_CAPTURED, "aclrtQueryEventStatus: event %p was recorded in a capture still "
                        "going on", event);
    }
    *status = cn_drv()->stream->event_query(e->drv) ? ACL_EVENT_RECORDED_STATUS_COMPLETE
                                                      : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    cn_obj_put(&e->obj);
    return ACL_SUCCESS;
}

/* How often a waiter checks whether another thread destroyed the event it waits for. */
#define CN_EVENT_WAIT_SLICE_MS 10

static aclError sync_event(const char *api, aclrtEvent event, int32_t timeout)
{
    cn_event *e = NULL;
    aclError rc = get_event(api, event, &e);
    if (rc != ACL_SUCCESS)
        return rc;
    if (atomic_load(&e->captured) > 0) {
        cn_obj_put(&e->obj);
        return cn_error(ACL_ERROR_RT_EVENT_CAPTURED, "%s: event %p was recorded in a capture still going on; its "
                        "record runs only when the captured instance is executed", api, event);
    }
    /* Wait in slices: the event may be destroyed by another thread meanwhile (our reference keeps
     * it valid), and then the wait ends with an error instead of waiting on for a record whose
     * result nobody can observe any more. Completion still ends a slice at once. */
    uint64_t deadline = timeout > 0 ? cn_now_ns() + (uint64_t)timeout * 1000000ull : 0;
    int drc;
    for (;;) {
        int32_t slice = CN_EVENT_WAIT_SLICE_MS;
        if (timeout > 0) {
            uint64_t now = cn_now_ns();
            uint64_t left_ms = now >= deadline ? 0 : (deadline - now + 999999) / 1000000;
            if (left_ms == 0) {
                drc = ACL_ERROR_RT_EVENT_SYNC_TIMEOUT;
                break;
            }
            if (left_ms < (uint64_t)slice)
                slice = (int32_t)left_ms;
        }
        drc = cn_drv()->stream->event_synchronize(e->drv, slice);
        if (drc != ACL_ERROR_RT_EVENT_SYNC_TIMEOUT)
            break;
        if (!cn_obj_is_registered(&e->obj)) {
            cn_obj_put(&e->obj);
            return cn_error(ACL_ERROR_INVALID_PARAM, "%s: event %p was destroyed by another thread while this call "
                            "waited for it", api, event);
        }
    }
    if (drc == ACL_ERROR_RT_EVENT_SYNC_TIMEOUT)
        rc = cn_error(drc, "%s: event %p did not complete within %d ms", api, event, timeout);
    else if (drc != 0)
        rc = cn_error(drc, "%s: waiting for event %p failed", api, event);
    cn_obj_put(&e->obj);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEvent(aclrtEvent event) { return sync_event("aclrtSynchronizeEvent", event, -1); }

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout)
{
    if (timeout == 0 || timeout < -1)
        return cn_error(ACL_ERROR_RT_PARAM_INVALID, "aclrtSynchronizeEventWithTimeout: timeout %d ms is invalid "
                        "(use -1 to wait forever or a positive number of milliseconds)", timeout);
    return sync_event("aclrtSynchronizeEventWithTimeout", event, timeout);
}

ACL_FUNC_VISIBILITY aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent)
{
    if (!ms)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclrtEventElapsedTime: ms is NULL");
    cn_event *a = NULL, *b = NULL;
    aclError rc = get_event("aclrtEventElapsedTime", startEvent, &a);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = get_event("aclrtEventElapsedTime", endEvent, &b);
    if (rc != ACL_SUCCESS) {
        cn_obj_put(&a->obj);
        return rc;
    }
    if (atomic_load(&a->captured) > 0 || atomic_load(&b->captured) > 0) {
        rc = cn_error(ACL_ERROR_RT_EVENT_CAPTURED, "aclrtEventElapsedTime: an event was recorded in a capture still "
                      "going on");
    } else if (!(a->flags & ACL_EVENT_TIME_LINE) || !(b->flags & ACL_EVENT_TIME_LINE)) {
        rc = cn_error(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, "aclrtEventElapsedTime: both events need "
                      "ACL_EVENT_TIME_LINE to be timed");
    } else {
        int drc = cn_drv()->stream->event_elapsed(a->drv, b->drv, ms);
        if (drc == ACL_ERROR_RT_EVENT_NOT_COMPLETE)
            rc = cn_error(drc, "aclrtEventElapsedTime: an event has not completed yet; synchronize first");
        else if (drc != 0)
            rc = cn_error(drc, "aclrtEventElapsedTime: an event was never recorded (or was reset)");
    }
    cn_obj_put(&b->obj);
    cn_obj_put(&a->obj);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Launch interface (include/cannon/kernel.h)                                                  */
/* ------------------------------------------------------------------------------------------ */

CANNON_API aclError cannonLaunchKernel(const cannon_launch_desc *desc, aclrtStream stream)
{
    if (!desc || !desc->fn || desc->block_dim == 0)
        return cn_error(ACL_ERROR_INVALID_PARAM, "cannonLaunchKernel: %s", !desc ? "desc is NULL"
                        : !desc->fn ? "desc->fn is NULL" : "desc->block_dim is 0");
    cn_stream *s = NULL;
    aclError rc = cn_stream_resolve(stream, "cannonLaunchKernel", &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (CN_UNLIKELY(cn_stream_capturing(s))) {
        cn_ctask t = {.kind = CN_CT_LAUNCH,
                      .u.launch = {.fn = desc->fn, .name = desc->name, .args = (void *)(uintptr_t)desc->args,
                                   .args_size = desc->args_size, .block_dim = desc->block_dim}};
        if (cn_capture_record(s, &t, &rc)) {
            cn_obj_put(&s->obj);
            return rc;
        }
    }
    cn_prof_rec *pr = CN_UNLIKELY(cn_prof_active()) ? cn_prof_task_begin(s, CN_PT_KERNEL, desc->name, 0) : NULL;
    int drc = cn_drv()->stream->enqueue_launch(s->drv, desc);
    if (pr)
        cn_prof_task_end(s, pr, drc == 0);
    if (drc != 0)
        rc = cn_error(drc, "cannonLaunchKernel: the driver could not enqueue kernel %s", desc->name ? desc->name : "?");
    cn_obj_put(&s->obj);
    return rc;
}

CANNON_API int cannonKernelReportError(const cannon_kernel_ctx *ctx, int code, const char *fmt, ...)
{
    if (!ctx || !ctx->hooks || !ctx->hooks->report)
        return code;
    char msg[512];
    msg[0] = '\0';
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
    }
    ctx->hooks->report(ctx->stream_priv, code, msg);
    return code;
}

CANNON_API aclError cannonReportError(aclError code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    aclError rc = cn_verror(code, fmt, ap);
    va_end(ap);
    return rc;
}

static aclError launch_host(const char *api, aclrtStream stream, cannon_host_task_fn fn, void *arg, uint32_t flags)
{
    if (!fn)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: fn is NULL", api);
    if (flags & ~CANNON_HOST_TASK_ANY_THREAD)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: unknown flags 0x%x", api, (unsigned)flags);
    cn_host_call *c = cn_calloc(1, sizeof(*c));
    if (!c)
        return cn_error(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
    c->kind = CALL_TASK;
    c->task = fn;
    c->arg = arg;
    cn_stream *s = NULL;
    aclError rc = cn_stream_resolve(stream, api, &s);
    if (rc == ACL_SUCCESS) {
        rc = call_enqueue(api, s, c, flags);
        cn_obj_put(&s->obj);
    }
    if (rc != ACL_SUCCESS)
        cn_free(c);
    return rc;
}

CANNON_API aclError cannonLaunchHostTask(aclrtStream stream, cannon_host_task_fn fn, void *arg)
{
    return launch_host("cannonLaunchHostTask", stream, fn, arg, 0);
}

CANNON_API aclError cannonLaunchHostTaskEx(aclrtStream stream, cannon_host_task_fn fn, void *arg, uint32_t flags)
{
    return launch_host("cannonLaunchHostTaskEx", stream, fn, arg, flags);
}

ACL_FUNC_VISIBILITY aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args)
{
    const char *api = "aclrtLaunchHostFunc";
    if (!fn)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: fn is NULL", api);
    cn_host_call *c = cn_calloc(1, sizeof(*c));
    if (!c)
        return cn_error(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
    c->kind = CALL_HOST_FUNC;
    c->host_func = fn;
    c->arg = args;
    cn_stream *s = NULL;
    aclError rc = cn_stream_resolve(stream, api, &s);
    if (rc == ACL_SUCCESS) {
        rc = call_enqueue(api, s, c, 0);
        cn_obj_put(&s->obj);
    }
    if (rc != ACL_SUCCESS)
        cn_free(c);
    return rc;
}

CANNON_API uint32_t cannonGetWorkerCount(void)
{
    cn_context *c = cn_current_context();
    if (!c)
        return 0;
    uint32_t n = c->dev->props.num_workers;
    cn_obj_put(&c->obj);
    return n;
}
