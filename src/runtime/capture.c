/* Graph capture (aclmdlRI*): record a stream's tasks once, replay them many times.
 *
 * A capturing stream points at a cn_capture (cn_stream.capture). Every enqueue path of the
 * runtime (kernel launches, asynchronous copies and fills, host functions and callbacks, event
 * operations) checks that pointer, an atomic load, and when it is set hands the task to
 * cn_capture_record instead of the driver. Recording takes the stream's cap_lock, as do begin and
 * end, so a task is either recorded in the capture or enqueued after it ended, never lost.
 *
 * The instance (cn_graph, the aclmdlRI handle) is a flat array of tasks: a launch keeps a copy of
 * its argument blob, a copy or fill its addresses, a host call its function and argument, an
 * event operation the event's handle and id. aclmdlRIExecuteAsync first looks every event up
 * (a destroyed one fails the call before anything is enqueued), then enqueues the tasks on the
 * driver stream in order; the driver copies launch blobs again, so the instance is free to go as
 * soon as the call returns. Instances live in a registry (a list under g_graphs.lock) so that a
 * stale or foreign handle is reported, never followed; a reference count keeps one alive while a
 * replay reads it.
 *
 * Capture modes follow CANN. Active captures are listed (g_caps) with their mode, context and
 * beginning thread; each thread has an exchange mode. A synchronous call (cn_capture_check_sync)
 * is refused when the thread's exchange mode is GLOBAL and a GLOBAL capture is active in its
 * current context or the thread began a THREAD_LOCAL one, or when its exchange mode is
 * THREAD_LOCAL and it began a GLOBAL or THREAD_LOCAL capture (whatever thread ends a capture, it
 * stops counting for the one that began it). g_rt.captures makes all of this free while nothing
 * captures.
 */
#include "internal.h"

#include <string.h>

typedef struct cn_graph cn_graph;
struct cn_graph {
    cn_graph *prev, *next;  /* registry */
    int refs;               /* the registry's + replays in progress, under g_graphs.lock */
    bool capturing;         /* still being recorded */
    cn_device *dev;
    cn_ctask *tasks;
    size_t n, cap;
};

typedef struct ev_mark {
    aclrtEvent handle;
    uint64_t id;
} ev_mark;

struct cn_capture {
    cn_capture *prev, *next; /* g_caps */
    cn_graph *g;
    aclmdlRICaptureMode mode;
    pthread_t thread;       /* the thread that began it */
    cn_context *ctx;        /* the stream's (identity only) */
    bool invalid;           /* a task could not be recorded */
    ev_mark *marks;         /* events recorded in the capture */
    size_t n_marks, cap_marks;
};

static struct {
    pthread_mutex_t lock;
    cn_graph *head;
} g_graphs = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Active captures (their mode, context and thread decide what synchronous calls may do). */
static struct {
    pthread_mutex_t lock;
    cn_capture *head;
} g_caps = {.lock = PTHREAD_MUTEX_INITIALIZER};

static _Thread_local int t_exchange; /* this thread's mode (aclmdlRICaptureThreadExchangeMode) */

/* ---- instances ---- */

static void task_free(cn_ctask *t)
{
    if (t->kind == CN_CT_LAUNCH && t->u.launch.args_size > 0)
        cn_free(t->u.launch.args);
}

static void graph_free(cn_graph *g)
{
    for (size_t i = 0; i < g->n; i++)
        task_free(&g->tasks[i]);
    cn_free(g->tasks);
    cn_free(g);
}

static void graph_put_locked(cn_graph *g)
{
    if (--g->refs == 0)
        graph_free(g);
}

static void graph_unlink_locked(cn_graph *g)
{
    if (g->prev)
        g->prev->next = g->next;
    else if (g_graphs.head == g)
        g_graphs.head = g->next;
    if (g->next)
        g->next->prev = g->prev;
    g->prev = g->next = NULL;
}

static cn_graph *graph_find_locked(const void *h)
{
    for (cn_graph *g = g_graphs.head; g; g = g->next)
        if (g == h)
            return g;
    return NULL;
}

size_t cn_capture_release_all(void)
{
    size_t n = 0;
    pthread_mutex_lock(&g_graphs.lock);
    while (g_graphs.head) {
        cn_graph *g = g_graphs.head;
        graph_unlink_locked(g);
        n++;
        graph_put_locked(g);
    }
    pthread_mutex_unlock(&g_graphs.lock);
    return n;
}

/* ---- recording ---- */

static void mark_event(cn_capture *c, aclrtEvent handle, uint64_t id)
{
    cn_event *e = (cn_event *)cn_obj_get(handle, CN_KIND_EVENT);
    if (!e)
        return;
    if (e->obj.id == id) {
        if (c->n_marks == c->cap_marks) {
            size_t ncap = c->cap_marks ? c->cap_marks * 2 : 8;
            ev_mark *nm = cn_realloc(c->marks, ncap * sizeof(*nm));
            if (!nm) {
                c->invalid = true;
                cn_obj_put(&e->obj);
                return;
            }
            c->marks = nm;
            c->cap_marks = ncap;
        }
        c->marks[c->n_marks++] = (ev_mark){.handle = handle, .id = id};
        atomic_fetch_add(&e->captured, 1);
    }
    cn_obj_put(&e->obj);
}

bool cn_capture_record(cn_stream *s, const cn_ctask *t, aclError *rc)
{
    pthread_mutex_lock(&s->cap_lock);
    cn_capture *c = atomic_load_explicit(&s->capture, memory_order_relaxed);
    if (!c) {
        pthread_mutex_unlock(&s->cap_lock);
        return false;
    }
    *rc = ACL_SUCCESS;
    cn_graph *g = c->g;
    if (c->invalid) {
        /* Already failed: EndCapture reports it; the enqueue itself succeeds, as on CANN. */
        pthread_mutex_unlock(&s->cap_lock);
        return true;
    }
    if (g->n == g->cap) {
        size_t ncap = g->cap ? g->cap * 2 : 64;
        cn_ctask *nt = cn_realloc(g->tasks, ncap * sizeof(*nt));
        if (!nt) {
            c->invalid = true;
            pthread_mutex_unlock(&s->cap_lock);
            return true;
        }
        g->tasks = nt;
        g->cap = ncap;
    }
    cn_ctask rec = *t;
    if (t->kind == CN_CT_LAUNCH && t->u.launch.args_size > 0) {
        rec.u.launch.args = cn_malloc(t->u.launch.args_size);
        if (!rec.u.launch.args) {
            c->invalid = true;
            pthread_mutex_unlock(&s->cap_lock);
            return true;
        }
        memcpy(rec.u.launch.args, t->u.launch.args, t->u.launch.args_size);
    }
    if (t->kind == CN_CT_EVENT && t->u.ev.which == 0)
        mark_event(c, t->u.ev.handle, t->u.ev.id);
    g->tasks[g->n++] = rec;
    pthread_mutex_unlock(&s->cap_lock);
    return true;
}

/* ---- modes ---- */

/* The strictest mode (lowest value; 3: none) of the active captures of ctx, and of those this
 * thread began. */
static void active_modes(const cn_context *ctx, int *ctx_mode, int *thread_mode)
{
    *ctx_mode = *thread_mode = 3;
    pthread_t self = pthread_self();
    pthread_mutex_lock(&g_caps.lock);
    for (const cn_capture *c = g_caps.head; c; c = c->next) {
        if (c->ctx == ctx && (int)c->mode < *ctx_mode)
            *ctx_mode = (int)c->mode;
        if (pthread_equal(c->thread, self) && (int)c->mode < *thread_mode)
            *thread_mode = (int)c->mode;
    }
    pthread_mutex_unlock(&g_caps.lock);
}

static bool blocked_for(cn_context *ctx)
{
    int ex = t_exchange;
    if (ex == ACL_MODEL_RI_CAPTURE_MODE_RELAXED)
        return false;
    int ctx_mode, thread_mode;
    active_modes(ctx, &ctx_mode, &thread_mode);
    if (ex == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)
        return (ctx && ctx_mode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL) ||
               thread_mode == ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL;
    return thread_mode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL || thread_mode == ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL;
}

bool cn_capture_blocks_sync(void)
{
    if (CN_LIKELY(atomic_load_explicit(&g_rt.captures, memory_order_relaxed) == 0))
        return false;
    cn_context *c = cn_current_context();
    bool b = blocked_for(c);
    if (c)
        cn_obj_put(&c->obj);
    return b;
}

aclError cn_capture_check_sync(const char *api)
{
    if (!cn_capture_blocks_sync())
        return ACL_SUCCESS;
    return cn_error(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, "%s: operation not permitted while a stream is "
                    "capturing and the capture mode is not relaxed (the mode given to aclmdlRICaptureBegin, and this "
                    "thread's: aclmdlRICaptureThreadExchangeMode)", api);
}

/* ---- ending a capture ---- */

/* Detach c from s (under s->cap_lock): the stream runs its tasks again. */
static void capture_detach_locked(cn_stream *s, cn_capture *c)
{
    atomic_store_explicit(&s->capture, NULL, memory_order_release);
    pthread_mutex_lock(&g_caps.lock);
    if (c->prev)
        c->prev->next = c->next;
    else
        g_caps.head = c->next;
    if (c->next)
        c->next->prev = c->prev;
    pthread_mutex_unlock(&g_caps.lock);
    atomic_fetch_sub(&g_rt.captures, 1);
}

/* Release what c holds besides its instance (the event marks). */
static void capture_finish(cn_capture *c)
{
    for (size_t i = 0; i < c->n_marks; i++) {
        cn_event *e = (cn_event *)cn_obj_get(c->marks[i].handle, CN_KIND_EVENT);
        if (e && e->obj.id == c->marks[i].id)
            atomic_fetch_sub(&e->captured, 1);
        if (e)
            cn_obj_put(&e->obj);
    }
    cn_free(c->marks);
    cn_free(c);
}

/* Drop a capture's instance (it never became usable). */
static void capture_discard_graph(cn_graph *g)
{
    pthread_mutex_lock(&g_graphs.lock);
    graph_unlink_locked(g);
    graph_put_locked(g);
    pthread_mutex_unlock(&g_graphs.lock);
}

void cn_capture_stream_destroyed(cn_stream *s)
{
    pthread_mutex_lock(&s->cap_lock);
    cn_capture *c = atomic_load_explicit(&s->capture, memory_order_relaxed);
    if (c)
        capture_detach_locked(s, c);
    pthread_mutex_unlock(&s->cap_lock);
    if (!c)
        return;
    CN_LOGW("stream %p was destroyed while capturing; the capture ends with no instance", (void *)s);
    cn_graph *g = c->g;
    capture_finish(c);
    capture_discard_graph(g);
}

/* ---- API ---- */

/* The stream argument of the capture calls: a live, non-default stream of the current context. */
static aclError capture_stream(const char *api, aclrtStream stream, cn_stream **out)
{
    if (!stream)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: stream is NULL (the default stream cannot be captured; "
                        "create a stream)", api);
    cn_stream *s = (cn_stream *)cn_obj_get(stream, CN_KIND_STREAM);
    if (!s)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: %p is not a live stream (destroyed already, or not a stream "
                        "handle)", api, stream);
    *out = s;
    return ACL_SUCCESS;
}

static aclError check_stream_context(const char *api, cn_stream *s)
{
    cn_context *c = NULL;
    aclError rc = cn_require_context(api, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    bool same = c == s->ctx;
    cn_obj_put(&c->obj);
    if (!same)
        return cn_error(ACL_ERROR_RT_STREAM_CONTEXT, "%s: stream %p belongs to another context than the current "
                        "one", api, (void *)s);
    if (s->is_default)
        return cn_error(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "%s: the default stream (%p) cannot be used for graph "
                        "capture; create a stream", api, (void *)s);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode)
{
    const char *api = "aclmdlRICaptureBegin";
    cn_stream *s = NULL;
    aclError rc = capture_stream(api, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if ((int)mode < ACL_MODEL_RI_CAPTURE_MODE_GLOBAL || (int)mode > ACL_MODEL_RI_CAPTURE_MODE_RELAXED) {
        cn_obj_put(&s->obj);
        return cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: mode %d is not an aclmdlRICaptureMode (GLOBAL 0, "
                        "THREAD_LOCAL 1, RELAXED 2)", api, (int)mode);
    }
    rc = check_stream_context(api, s);
    if (rc != ACL_SUCCESS) {
        cn_obj_put(&s->obj);
        return rc;
    }
    cn_capture *c = cn_calloc(1, sizeof(*c));
    cn_graph *g = c ? cn_calloc(1, sizeof(*g)) : NULL;
    if (!g) {
        cn_free(c);
        cn_obj_put(&s->obj);
        return cn_error(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
    }
    g->refs = 1;
    g->capturing = true;
    g->dev = s->dev;
    c->g = g;
    c->mode = mode;
    c->thread = pthread_self();
    c->ctx = s->ctx;
    pthread_mutex_lock(&s->cap_lock);
    if (atomic_load_explicit(&s->capture, memory_order_relaxed)) {
        pthread_mutex_unlock(&s->cap_lock);
        cn_free(g);
        cn_free(c);
        cn_obj_put(&s->obj);
        return cn_error(ACL_ERROR_RT_STREAM_CAPTURED, "%s: stream %p is already capturing", api, stream);
    }
    pthread_mutex_lock(&g_graphs.lock);
    g->next = g_graphs.head;
    if (g_graphs.head)
        g_graphs.head->prev = g;
    g_graphs.head = g;
    pthread_mutex_unlock(&g_graphs.lock);
    pthread_mutex_lock(&g_caps.lock);
    c->next = g_caps.head;
    if (g_caps.head)
        g_caps.head->prev = c;
    g_caps.head = c;
    pthread_mutex_unlock(&g_caps.lock);
    atomic_fetch_add(&g_rt.captures, 1);
    atomic_store_explicit(&s->capture, c, memory_order_release);
    pthread_mutex_unlock(&s->cap_lock);
    cn_obj_put(&s->obj);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus *status, aclmdlRI *modelRI)
{
    const char *api = "aclmdlRICaptureGetInfo";
    if (!stream)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: stream is NULL", api);
    if (!status && !modelRI)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: status and modelRI cannot both be NULL", api);
    cn_stream *s = NULL;
    aclError rc = capture_stream(api, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    pthread_mutex_lock(&s->cap_lock);
    cn_capture *c = atomic_load_explicit(&s->capture, memory_order_relaxed);
    if (status)
        *status = !c ? ACL_MODEL_RI_CAPTURE_STATUS_NONE
                  : c->invalid ? ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED
                               : ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
    if (modelRI)
        *modelRI = c ? (aclmdlRI)c->g : NULL;
    pthread_mutex_unlock(&s->cap_lock);
    cn_obj_put(&s->obj);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI)
{
    const char *api = "aclmdlRICaptureEnd";
    cn_stream *s = NULL;
    aclError rc = capture_stream(api, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    pthread_mutex_lock(&s->cap_lock);
    cn_capture *c = atomic_load_explicit(&s->capture, memory_order_relaxed);
    if (!c) {
        pthread_mutex_unlock(&s->cap_lock);
        cn_obj_put(&s->obj);
        return cn_error(ACL_ERROR_RT_STREAM_NOT_CAPTURED, "%s: stream %p is not capturing; call "
                        "aclmdlRICaptureBegin first", api, stream);
    }
    if (!modelRI) {
        pthread_mutex_unlock(&s->cap_lock);
        cn_obj_put(&s->obj);
        return cn_error(ACL_ERROR_RT_PARAM_INVALID, "%s: modelRI is NULL", api);
    }
    bool same_thread = pthread_equal(c->thread, pthread_self());
    capture_detach_locked(s, c);
    pthread_mutex_unlock(&s->cap_lock);
    cn_obj_put(&s->obj);
    cn_graph *g = c->g;
    bool invalid = c->invalid;
    aclmdlRICaptureMode mode = c->mode;
    capture_finish(c);
    if (!same_thread && mode != ACL_MODEL_RI_CAPTURE_MODE_RELAXED) {
        capture_discard_graph(g);
        *modelRI = NULL;
        return cn_error(ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD, "%s: the capture of stream %p was begun by "
                        "another thread (only a RELAXED capture may end on another thread); it ended with no "
                        "instance", api, stream);
    }
    if (invalid) {
        capture_discard_graph(g);
        *modelRI = NULL;
        return cn_error(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, "%s: the capture of stream %p failed to record a "
                        "task (out of memory); it ended with no instance", api, stream);
    }
    pthread_mutex_lock(&g_graphs.lock);
    g->capturing = false;
    pthread_mutex_unlock(&g_graphs.lock);
    *modelRI = g;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode *mode)
{
    const char *api = "aclmdlRICaptureThreadExchangeMode";
    if (!mode)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: mode is NULL", api);
    if ((int)*mode < ACL_MODEL_RI_CAPTURE_MODE_GLOBAL || (int)*mode > ACL_MODEL_RI_CAPTURE_MODE_RELAXED)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: *mode %d is not an aclmdlRICaptureMode", api, (int)*mode);
    int old = t_exchange;
    t_exchange = (int)*mode;
    *mode = (aclmdlRICaptureMode)old;
    return ACL_SUCCESS;
}

/* Look every event of g up (references in evs, NULL for other tasks). */
static aclError replay_events(const char *api, const cn_graph *g, cn_event **evs)
{
    for (size_t i = 0; i < g->n; i++) {
        evs[i] = NULL;
        if (g->tasks[i].kind != CN_CT_EVENT)
            continue;
        cn_event *e = (cn_event *)cn_obj_get(g->tasks[i].u.ev.handle, CN_KIND_EVENT);
        if (!e || e->obj.id != g->tasks[i].u.ev.id) {
            if (e)
                cn_obj_put(&e->obj);
            for (size_t k = 0; k < i; k++)
                if (evs[k])
                    cn_obj_put(&evs[k]->obj);
            return cn_error(ACL_ERROR_INVALID_PARAM, "%s: event %p used by the instance (task %zu) was destroyed; "
                            "nothing was enqueued", api, g->tasks[i].u.ev.handle, i);
        }
        evs[i] = e;
    }
    return ACL_SUCCESS;
}

static aclError replay(const char *api, const cn_graph *g, cn_stream *s)
{
    cn_event **evs = g->n ? cn_calloc(g->n, sizeof(*evs)) : NULL;
    if (g->n && !evs)
        return cn_error(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
    aclError rc = replay_events(api, g, evs);
    const cannon_stream_iface *si = cn_drv()->stream;
    for (size_t i = 0; rc == ACL_SUCCESS && i < g->n; i++) {
        const cn_ctask *t = &g->tasks[i];
        int drc = 0;
        switch (t->kind) {
        case CN_CT_LAUNCH: {
            cannon_launch_desc d = {.name = t->u.launch.name, .fn = t->u.launch.fn, .args = t->u.launch.args,
                                    .args_size = t->u.launch.args_size, .block_dim = t->u.launch.block_dim};
            drc = si->enqueue_launch(s->drv, &d);
            break;
        }
        case CN_CT_COPY:
            drc = si->enqueue_copy(s->drv, t->u.copy.dst, t->u.copy.src, t->u.copy.n);
            break;
        case CN_CT_FILL:
            drc = si->enqueue_fill(s->drv, t->u.fill.dst, t->u.fill.value, t->u.fill.n);
            break;
        case CN_CT_HOST:
            if (t->u.host.kind == CN_CALL_REPORT)
                rc = cn_stream_enqueue_callback(s, t->u.host.cb, t->u.host.arg, t->u.host.block, api);
            else
                rc = cn_stream_enqueue_host(s, t->u.host.kind, t->u.host.task, t->u.host.func, t->u.host.arg,
                                            t->u.host.flags, api);
            break;
        case CN_CT_EVENT:
            rc = cn_stream_enqueue_event(s, evs[i], t->u.ev.which, api);
            break;
        }
        if (drc != 0)
            rc = cn_error(drc, "%s: the driver could not enqueue task %zu of the instance", api, i);
    }
    for (size_t i = 0; i < g->n; i++)
        if (evs[i])
            cn_obj_put(&evs[i]->obj);
    cn_free(evs);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream)
{
    const char *api = "aclmdlRIExecuteAsync";
    if (!modelRI)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: modelRI is NULL", api);
    pthread_mutex_lock(&g_graphs.lock);
    cn_graph *g = graph_find_locked(modelRI);
    if (g && !g->capturing)
        g->refs++;
    bool capturing = g && g->capturing;
    pthread_mutex_unlock(&g_graphs.lock);
    if (!g)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: %p is not a live aclmdlRI (destroyed already, or not an "
                        "instance of aclmdlRICaptureEnd)", api, modelRI);
    if (capturing)
        return cn_error(ACL_ERROR_RT_MODEL_CAPTURED, "%s: instance %p is still being captured", api, modelRI);
    cn_stream *s = NULL;
    aclError rc = cn_stream_resolve(stream, api, &s);
    if (rc == ACL_SUCCESS) {
        if (cn_stream_capturing(s))
            rc = cn_error(ACL_ERROR_RT_STREAM_CAPTURED, "%s: stream %p is capturing; an instance cannot be "
                          "executed inside a capture", api, (void *)s);
        else if (s->dev != g->dev)
            rc = cn_error(ACL_ERROR_RT_STREAM_CONTEXT, "%s: stream %p is on device %d, the instance was captured "
                          "on device %d", api, (void *)s, s->dev->id, g->dev->id);
        else
            rc = replay(api, g, s);
        cn_obj_put(&s->obj);
    }
    pthread_mutex_lock(&g_graphs.lock);
    graph_put_locked(g);
    pthread_mutex_unlock(&g_graphs.lock);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclmdlRIDestroy(aclmdlRI modelRI)
{
    const char *api = "aclmdlRIDestroy";
    if (!modelRI)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: modelRI is NULL", api);
    pthread_mutex_lock(&g_graphs.lock);
    cn_graph *g = graph_find_locked(modelRI);
    aclError rc = ACL_SUCCESS;
    if (!g) {
        rc = cn_error(ACL_ERROR_INVALID_PARAM, "%s: %p is not a live aclmdlRI (destroyed already?)", api, modelRI);
    } else if (g->capturing) {
        rc = cn_error(ACL_ERROR_RT_MODEL_CAPTURED, "%s: instance %p is still being captured; end the capture "
                      "first", api, modelRI);
    } else {
        graph_unlink_locked(g);
        graph_put_locked(g);
    }
    pthread_mutex_unlock(&g_graphs.lock);
    return rc;
}
