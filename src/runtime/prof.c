/*
 * Profiling: the task recorder (see prof.h), the aclprof* API (acl/acl_prof.h), the process-wide
 * session of the `profiler` config section and CANNON_PROFILE, and the raw files a session writes.
 *
 * Records live in chunks of CN_PROF_CHUNK, reached through a fixed table of chunk pointers and
 * taken with one atomic increment; a chunk is allocated by the first thread that needs it. Marker
 * tasks still queued hold pointers into the chunks, so records are never moved, and the table
 * is reset (reused from slot 0) only when every marker enqueued has run; chunks go back at
 * aclFinalize, when no stream is left. A record is published to the writer by its `state` (release
 * after it is filled); stamps are atomics written by the markers.
 *
 * File format (docs/runtime.md, "Profiling"): one JSON file per device and session,
 * <dir>/cannon_prof_<pid>_<session>_device<N>.json (host events: ..._host.json).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acl/acl_prof.h"
#include "cannon/prof.h"
#include "env.h"
#include "fs_util.h"
#include "prof.h"

#define CN_PROF_CHUNK 4096u
#define CN_PROF_MAX_CHUNKS 1024u /* 4 Mi records */
#define CN_PROF_NAME 48
#define CN_PROF_DETAIL 192
#define CN_PROF_PATH 4096
#define CN_PROF_MSG 256

struct cn_prof_rec {
    _Atomic uint64_t start_ns, end_ns;
    uint64_t seq, stream, bytes, flops, call;
    int32_t device, rank;
    uint8_t kind;
    bool default_stream;
    _Atomic uint8_t state; /* 0 being filled, 1 published, 2 dropped */
    char name[CN_PROF_NAME];
    char kernel[CN_PROF_NAME];
    char detail[CN_PROF_DETAIL];
};

enum { ST_FILLING = 0, ST_READY = 1, ST_DROPPED = 2 };
enum { MK_START = 0, MK_END = 1, MK_BOTH = 2 };

atomic_int cn_prof_on;
static _Atomic uint64_t g_dev_mask;       /* devices recorded (bit i: device i) */
static atomic_bool g_msproftx;            /* stamps, marks and ranges recorded */
static _Atomic(cn_prof_rec *) g_chunks[CN_PROF_MAX_CHUNKS];
static _Atomic uint64_t g_n;              /* records taken */
static _Atomic uint64_t g_lost;           /* records the full table refused */
static _Atomic uint64_t g_markers;        /* markers enqueued and not run yet */
static _Atomic uint64_t g_calls;
static atomic_int g_rank = -1;            /* the rank of the process's last collective, -1: none yet */
static pthread_mutex_t g_chunk_lock = PTHREAD_MUTEX_INITIALIZER;

/* Session state, under g_lock. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static bool g_inited;                     /* aclprofInit ... aclprofFinalize */
static char g_path[CN_PROF_PATH];
static uint64_t g_started;                /* devices aclprofStart started */
static bool g_auto;                       /* the process-wide session */
static char g_auto_path[CN_PROF_PATH];
static uint64_t g_from;                   /* first record of the session not written yet */
static unsigned g_session;                /* files written so far (a suffix of the names) */

/* ---- labels ------------------------------------------------------------------------------ */

typedef struct {
    bool set;
    char name[CN_PROF_NAME];
    char detail[CN_PROF_DETAIL];
    uint64_t bytes, flops, call;
    int32_t rank;
} tls_label;
static _Thread_local tls_label t_label;

static void copy_str(char *dst, size_t cap, const char *src)
{
    size_t n = 0;
    /* A loop, not strnlen: gcc -O3 takes the bound for the source's size and warns on short ones. */
    while (src && n + 1 < cap && src[n])
        n++;
    if (n)
        memcpy(dst, src, n);
    dst[n] = '\0';
}

CANNON_API int cannonProfActive(void) { return cn_prof_active(); }

CANNON_API uint64_t cannonProfNewCall(void) { return atomic_fetch_add_explicit(&g_calls, 1, memory_order_relaxed) + 1; }

CANNON_API void cannonProfSetTaskLabel(const cannon_prof_label *label)
{
    if (!label) {
        t_label.set = false;
        return;
    }
    copy_str(t_label.name, sizeof t_label.name, label->name);
    copy_str(t_label.detail, sizeof t_label.detail, label->detail);
    t_label.bytes = label->bytes;
    t_label.flops = label->flops;
    t_label.call = label->call;
    t_label.rank = label->rank;
    t_label.set = true;
}

/* ---- the record table -------------------------------------------------------------------- */

static cn_prof_rec *rec_take(void)
{
    uint64_t i = atomic_fetch_add_explicit(&g_n, 1, memory_order_relaxed);
    uint64_t c = i / CN_PROF_CHUNK;
    if (c >= CN_PROF_MAX_CHUNKS) {
        atomic_fetch_add_explicit(&g_lost, 1, memory_order_relaxed);
        return NULL;
    }
    cn_prof_rec *ch = atomic_load_explicit(&g_chunks[c], memory_order_acquire);
    if (CN_UNLIKELY(!ch)) {
        pthread_mutex_lock(&g_chunk_lock);
        ch = atomic_load_explicit(&g_chunks[c], memory_order_relaxed);
        if (!ch) {
            ch = cn_zalloc_table(CN_PROF_CHUNK * sizeof(cn_prof_rec));
            atomic_store_explicit(&g_chunks[c], ch, memory_order_release);
        }
        pthread_mutex_unlock(&g_chunk_lock);
        if (!ch) {
            atomic_fetch_add_explicit(&g_lost, 1, memory_order_relaxed);
            return NULL;
        }
    }
    cn_prof_rec *r = &ch[i % CN_PROF_CHUNK];
    /* A reused slot: its previous session was written and every marker ran. */
    atomic_store_explicit(&r->state, ST_FILLING, memory_order_relaxed);
    atomic_store_explicit(&r->start_ns, 0, memory_order_relaxed);
    atomic_store_explicit(&r->end_ns, 0, memory_order_relaxed);
    r->seq = i;
    r->stream = 0;
    r->bytes = r->flops = r->call = 0;
    r->device = r->rank = -1;
    r->default_stream = false;
    r->name[0] = r->kernel[0] = r->detail[0] = '\0';
    return r;
}

static cn_prof_rec *rec_at(uint64_t i)
{
    cn_prof_rec *ch = atomic_load_explicit(&g_chunks[i / CN_PROF_CHUNK], memory_order_acquire);
    return ch ? &ch[i % CN_PROF_CHUNK] : NULL;
}

static int marker_run(void *arg)
{
    uintptr_t p = (uintptr_t)arg;
    cn_prof_rec *r = (cn_prof_rec *)(p & ~(uintptr_t)3);
    uint64_t now = cn_now_ns();
    unsigned which = (unsigned)(p & 3);
    if (which != MK_END)
        atomic_store_explicit(&r->start_ns, now, memory_order_release);
    if (which != MK_START)
        atomic_store_explicit(&r->end_ns, now, memory_order_release);
    atomic_fetch_sub_explicit(&g_markers, 1, memory_order_release);
    return 0;
}

static bool marker_enqueue(cn_stream *s, cn_prof_rec *r, unsigned which)
{
    const cannon_stream_iface *si = cn_drv()->stream;
    void *arg = (void *)((uintptr_t)r | which);
    atomic_fetch_add_explicit(&g_markers, 1, memory_order_relaxed);
    /* A synchronizing thread may run the marker itself, as it runs the device work around it. */
    int drc = si->enqueue_host_ex ? si->enqueue_host_ex(s->drv, marker_run, arg, CANNON_HOST_TASK_ANY_THREAD)
                                  : si->enqueue_host(s->drv, marker_run, arg);
    if (drc != 0)
        atomic_fetch_sub_explicit(&g_markers, 1, memory_order_relaxed);
    return drc == 0;
}

static bool device_recorded(int32_t id)
{
    return id >= 0 && id < 64 && (atomic_load_explicit(&g_dev_mask, memory_order_relaxed) >> id & 1u);
}

static void rec_fill(cn_prof_rec *r, cn_prof_kind kind, const char *name)
{
    r->kind = (uint8_t)kind;
    if (t_label.set) {
        t_label.set = false;
        copy_str(r->kernel, sizeof r->kernel, name);
        memcpy(r->name, t_label.name, sizeof r->name);
        memcpy(r->detail, t_label.detail, sizeof r->detail);
        r->bytes = t_label.bytes;
        r->flops = t_label.flops;
        r->call = t_label.call;
        r->rank = t_label.rank;
        if (kind == CN_PT_HOST_TASK && t_label.rank >= 0) {
            r->kind = CN_PT_COLLECTIVE;
            atomic_store_explicit(&g_rank, t_label.rank, memory_order_relaxed);
        }
    } else {
        copy_str(r->name, sizeof r->name, name);
    }
}

cn_prof_rec *cn_prof_task_begin(cn_stream *s, cn_prof_kind kind, const char *name, uint64_t bytes)
{
    if (!device_recorded(s->dev->id) || cn_stream_capturing(s)) {
        t_label.set = false;
        return NULL;
    }
    cn_prof_rec *r = rec_take();
    if (!r) {
        t_label.set = false;
        return NULL;
    }
    r->device = s->dev->id;
    r->stream = s->obj.id;
    r->default_stream = s->is_default;
    r->bytes = bytes;
    rec_fill(r, kind, name ? name : "");
    if (!marker_enqueue(s, r, kind == CN_PT_MARK || kind == CN_PT_STEP ? MK_BOTH : MK_START)) {
        atomic_store_explicit(&r->state, ST_DROPPED, memory_order_release);
        return NULL;
    }
    return r;
}

void cn_prof_task_end(cn_stream *s, cn_prof_rec *r, bool enqueued)
{
    if (enqueued && (r->kind == CN_PT_MARK || r->kind == CN_PT_STEP || marker_enqueue(s, r, MK_END)))
        atomic_store_explicit(&r->state, ST_READY, memory_order_release);
    else
        atomic_store_explicit(&r->state, ST_DROPPED, memory_order_release);
}

void cn_prof_host_span(const cn_device *d, cn_prof_kind kind, const char *name, const char *detail, uint64_t bytes,
                       uint64_t t0, uint64_t t1)
{
    if (d ? !device_recorded(d->id) : false)
        return;
    cn_prof_rec *r = rec_take();
    if (!r)
        return;
    r->kind = (uint8_t)kind;
    r->device = d ? d->id : -1;
    r->bytes = bytes;
    copy_str(r->name, sizeof r->name, name);
    copy_str(r->detail, sizeof r->detail, detail);
    atomic_store_explicit(&r->start_ns, t0, memory_order_relaxed);
    atomic_store_explicit(&r->end_ns, t1, memory_order_relaxed);
    atomic_store_explicit(&r->state, ST_READY, memory_order_release);
}

/* ---- writing ----------------------------------------------------------------------------- */

static const char *kind_name(unsigned k)
{
    switch (k) {
    case CN_PT_KERNEL: return "kernel";
    case CN_PT_COPY: return "copy";
    case CN_PT_FILL: return "fill";
    case CN_PT_HOST_TASK: return "host_task";
    case CN_PT_HOST_FUNC: return "host_func";
    case CN_PT_CALLBACK: return "callback";
    case CN_PT_COLLECTIVE: return "collective";
    case CN_PT_EVENT_RECORD: return "event_record";
    case CN_PT_EVENT_WAIT: return "event_wait";
    case CN_PT_EVENT_RESET: return "event_reset";
    case CN_PT_MARK: return "mark";
    case CN_PT_RANGE: return "range";
    case CN_PT_STEP: return "step";
    default: return "unknown";
    }
}

static void put_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}


/* Write records [from, to) of device `dev` (-1: the host events) to one file. Returns false when
 * the file could not be written; *any false when there was nothing to write (no file). */
static bool write_device(const char *dir, int32_t dev, uint64_t from, uint64_t to, bool *any)
{
    *any = false;
    FILE *f = NULL;
    uint64_t lost = atomic_load(&g_lost);
    for (uint64_t i = from; i < to; i++) {
        cn_prof_rec *r = rec_at(i);
        if (!r || atomic_load_explicit(&r->state, memory_order_acquire) != ST_READY || r->device != dev)
            continue;
        uint64_t t0 = atomic_load_explicit(&r->start_ns, memory_order_acquire);
        uint64_t t1 = atomic_load_explicit(&r->end_ns, memory_order_acquire);
        if (!t0 || !t1)
            continue; /* still queued, or dropped by a stream destroyed by force */
        if (!f) {
            char path[CN_PROF_PATH + 96];
            if (dev >= 0)
                snprintf(path, sizeof path, "%s/cannon_prof_%ld_%u_device%d.json", dir, (long)getpid(), g_session,
                         (int)dev);
            else
                snprintf(path, sizeof path, "%s/cannon_prof_%ld_%u_host.json", dir, (long)getpid(), g_session);
            f = fopen(path, "w");
            if (!f) {
                CN_LOGE("profiling: cannot write %s: %s", path, strerror(errno));
                return false;
            }
            fprintf(f, "{\"format\": \"cannon-prof-1\", \"pid\": %ld, \"rank\": %d, \"device\": %d, "
                       "\"clock\": \"CLOCK_MONOTONIC\", \"unit\": \"ns\", \"lost\": %llu, \"tasks\": [\n",
                    (long)getpid(), atomic_load_explicit(&g_rank, memory_order_relaxed), (int)dev,
                    (unsigned long long)lost);
        } else {
            fputs(",\n", f);
        }
        *any = true;
        fprintf(f, "{\"seq\": %llu, \"kind\": \"%s\", \"name\": ", (unsigned long long)r->seq, kind_name(r->kind));
        put_json_str(f, r->name);
        fputs(", \"kernel\": ", f);
        put_json_str(f, r->kernel);
        fprintf(f, ", \"device\": %d, \"stream\": %llu, \"default_stream\": %s, \"rank\": %d, \"start\": %llu, "
                   "\"end\": %llu, \"bytes\": %llu, \"flops\": %llu, \"call\": %llu, \"detail\": ",
                (int)r->device, (unsigned long long)r->stream, r->default_stream ? "true" : "false", (int)r->rank,
                (unsigned long long)t0, (unsigned long long)t1, (unsigned long long)r->bytes,
                (unsigned long long)r->flops, (unsigned long long)r->call);
        put_json_str(f, r->detail);
        fputc('}', f);
    }
    if (!f)
        return true;
    fputs("\n]}\n", f);
    bool ok = !ferror(f);
    if (fclose(f) != 0)
        ok = false;
    return ok;
}

/* Write what was recorded since the last write to dir; the table is reset when no marker is
 * pending. Needs g_lock. */
static aclError write_session_locked(const char *dir, const char *api)
{
    uint64_t to = atomic_load(&g_n);
    if (to > (uint64_t)CN_PROF_MAX_CHUNKS * CN_PROF_CHUNK)
        to = (uint64_t)CN_PROF_MAX_CHUNKS * CN_PROF_CHUNK;
    bool ok = true, any;
    for (int32_t d = -1; d < CN_MAX_DEVICES; d++)
        ok = write_device(dir, d, g_from, to, &any) && ok;
    g_session++;
    uint64_t lost = atomic_exchange(&g_lost, 0);
    if (lost)
        CN_LOGW("profiling: %llu task(s) were not recorded: the record table (%u records) was full",
                (unsigned long long)lost, CN_PROF_MAX_CHUNKS * CN_PROF_CHUNK);
    if (atomic_load_explicit(&g_markers, memory_order_acquire) == 0 && !cn_prof_active()) {
        atomic_store(&g_n, 0);
        g_from = 0;
    } else {
        g_from = to;
    }
    return ok ? ACL_SUCCESS : cn_error(ACL_ERROR_WRITE_FILE, "%s: could not write the profile data to %s", api, dir);
}

static void update_switch_locked(void)
{
    uint64_t mask = g_auto ? ~(uint64_t)0 : g_started;
    atomic_store(&g_dev_mask, mask);
    atomic_store(&cn_prof_on, mask != 0);
}

/* ---- the process-wide session ------------------------------------------------------------ */

aclError cn_prof_process_start(const cn_config *cfg)
{
    const char *env = cannon_env_get("CANNON_PROFILE");
    const char *dir = NULL, *origin = NULL;
    if (env && *env) {
        dir = env;
        origin = "CANNON_PROFILE";
    } else if (cfg->profiler_enabled) {
        dir = cfg->profiler_output && *cfg->profiler_output ? cfg->profiler_output : ".";
        origin = "profiler.output";
    }
    if (!dir)
        return ACL_SUCCESS;
    char why[512];
    if (!cannon_dir_writable(dir, why, sizeof why))
        return cn_error(ACL_ERROR_INVALID_PROFILING_CONFIG, "aclInit: %s \"%s\" cannot hold the profile: %s", origin,
                        dir, why);
    pthread_mutex_lock(&g_lock);
    if (g_inited) {
        pthread_mutex_unlock(&g_lock);
        return cn_error(ACL_ERROR_PROF_API_CONFLICT, "aclInit: %s asks for a profile of the whole run while an "
                        "aclprofInit session is open", origin);
    }
    copy_str(g_auto_path, sizeof g_auto_path, dir);
    g_auto = true;
    atomic_store(&g_msproftx, true);
    update_switch_locked();
    pthread_mutex_unlock(&g_lock);
    CN_LOGI("aclInit: profiling the run into %s (%s)", dir, origin);
    return ACL_SUCCESS;
}

void cn_prof_process_finish(void)
{
    pthread_mutex_lock(&g_lock);
    bool was = g_auto || g_inited;
    const char *dir = g_auto ? g_auto_path : g_path;
    g_auto = false;
    g_started = 0;
    update_switch_locked();
    if (was)
        (void)write_session_locked(dir, "aclFinalize");
    g_inited = false;
    /* No stream is left: no marker can run any more, so the chunks can go. */
    if (atomic_load(&g_markers) == 0 || !was) {
        for (unsigned c = 0; c < CN_PROF_MAX_CHUNKS; c++) {
            cn_prof_rec *ch = atomic_exchange(&g_chunks[c], NULL);
            if (ch)
                cn_free_table(ch, CN_PROF_CHUNK * sizeof(cn_prof_rec));
        }
        atomic_store(&g_n, 0);
        g_from = 0;
    }
    pthread_mutex_unlock(&g_lock);
}

/* ---- aclprof* ---------------------------------------------------------------------------- */

#define CN_PROF_CONFIG_MAGIC 0x50524f46u /* "PROF" */

struct aclprofConfig {
    uint32_t magic;
    uint64_t mask;
    uint64_t types;
    aclprofAicoreMetrics metrics;
    struct aclprofConfig *next;
};
static struct aclprofConfig *g_configs; /* live configs, under g_lock */

static bool config_live_locked(const aclprofConfig *c)
{
    for (const struct aclprofConfig *p = g_configs; p; p = p->next)
        if (p == c)
            return true;
    return false;
}

static bool runtime_initialized(void)
{
    pthread_mutex_lock(&g_rt.lock);
    bool up = g_rt.init_refs > 0;
    pthread_mutex_unlock(&g_rt.lock);
    return up;
}

ACL_FUNC_VISIBILITY aclError aclprofInit(const char *profilerResultPath, size_t length)
{
    const char *api = "aclprofInit";
    if (!profilerResultPath)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: profilerResultPath is NULL", api);
    if (length == 0 || length >= CN_PROF_PATH)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: length %zu is out of range 1..%d", api, length, CN_PROF_PATH - 1);
    size_t n = strnlen(profilerResultPath, length);
    if (n == 0)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: profilerResultPath is empty", api);
    if (cn_in_callback())
        return cn_callback_refuse(api, "it waits for the runtime's lock");
    if (!runtime_initialized())
        return cn_error(ACL_ERROR_UNINITIALIZE, "%s: call aclInit first", api);
    char dir[CN_PROF_PATH];
    memcpy(dir, profilerResultPath, n);
    dir[n] = '\0';
    char why[512];
    pthread_mutex_lock(&g_lock);
    aclError rc = ACL_SUCCESS;
    if (g_inited)
        rc = cn_error(ACL_ERROR_REPEAT_INITIALIZE, "%s: profiling is already initialized (call aclprofFinalize "
                      "first)", api);
    else if (g_auto)
        rc = cn_error(ACL_ERROR_PROF_API_CONFLICT, "%s: the whole run is being profiled (the aclInit config's "
                      "profiler section or CANNON_PROFILE)", api);
    else if (!cannon_dir_writable(dir, why, sizeof why))
        rc = cn_error(ACL_ERROR_WRITE_FILE, "%s: \"%s\" cannot hold the profile: %s", api, dir, why);
    if (rc == ACL_SUCCESS) {
        memcpy(g_path, dir, n + 1);
        g_inited = true;
        g_started = 0;
    }
    pthread_mutex_unlock(&g_lock);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclprofFinalize(void)
{
    pthread_mutex_lock(&g_lock);
    if (!g_inited) {
        pthread_mutex_unlock(&g_lock);
        return cn_error(ACL_ERROR_UNINITIALIZE, "aclprofFinalize: profiling is not initialized (aclprofInit)");
    }
    g_started = 0;
    update_switch_locked();
    aclError rc = write_session_locked(g_path, "aclprofFinalize");
    g_inited = false;
    pthread_mutex_unlock(&g_lock);
    return rc;
}

ACL_FUNC_VISIBILITY aclprofConfig *aclprofCreateConfig(uint32_t *deviceIdList, uint32_t deviceNums,
                                                       aclprofAicoreMetrics aicoreMetrics,
                                                       const aclprofAicoreEvents *aicoreEvents,
                                                       uint64_t dataTypeConfig)
{
    const char *api = "aclprofCreateConfig";
    (void)aicoreEvents; /* no AI Core events on cannon's devices */
    if (!deviceIdList || deviceNums == 0) {
        (void)cn_error(ACL_ERROR_INVALID_PARAM, "%s: %s", api, !deviceIdList ? "deviceIdList is NULL"
                       : "deviceNums is 0");
        return NULL;
    }
    if (!((int)aicoreMetrics >= ACL_AICORE_ARITHMETIC_UTILIZATION && aicoreMetrics <= ACL_AICORE_MEMORY_ACCESS) &&
        aicoreMetrics != ACL_AICORE_NONE) {
        (void)cn_error(ACL_ERROR_INVALID_PARAM, "%s: aicoreMetrics %d is not an aclprofAicoreMetrics", api,
                       (int)aicoreMetrics);
        return NULL;
    }
    if (cn_core_ensure() != ACL_SUCCESS)
        return NULL;
    uint32_t count = g_rt.device_count;
    if (deviceNums > count) {
        (void)cn_error(ACL_ERROR_INVALID_PARAM, "%s: deviceNums %u exceeds the %u device(s)", api, deviceNums, count);
        return NULL;
    }
    uint64_t mask = 0;
    for (uint32_t i = 0; i < deviceNums; i++) {
        uint32_t d = deviceIdList[i];
        if (d >= count || d >= 64) {
            (void)cn_error(ACL_ERROR_INVALID_PARAM, "%s: device id %u is out of range (%u device(s))", api, d, count);
            return NULL;
        }
        if (mask >> d & 1u) {
            (void)cn_error(ACL_ERROR_INVALID_PARAM, "%s: device id %u is listed twice", api, d);
            return NULL;
        }
        mask |= (uint64_t)1 << d;
    }
    struct aclprofConfig *c = cn_calloc(1, sizeof(*c));
    if (!c) {
        (void)cn_error(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
        return NULL;
    }
    c->magic = CN_PROF_CONFIG_MAGIC;
    c->mask = mask;
    c->types = dataTypeConfig;
    c->metrics = aicoreMetrics;
    pthread_mutex_lock(&g_lock);
    c->next = g_configs;
    g_configs = c;
    pthread_mutex_unlock(&g_lock);
    return c;
}

ACL_FUNC_VISIBILITY aclError aclprofDestroyConfig(const aclprofConfig *profilerConfig)
{
    if (!profilerConfig)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclprofDestroyConfig: profilerConfig is NULL");
    pthread_mutex_lock(&g_lock);
    struct aclprofConfig **pp = &g_configs;
    while (*pp && *pp != profilerConfig)
        pp = &(*pp)->next;
    struct aclprofConfig *c = *pp;
    if (c)
        *pp = c->next;
    pthread_mutex_unlock(&g_lock);
    if (!c)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclprofDestroyConfig: %p is not a live aclprofConfig",
                        (const void *)profilerConfig);
    c->magic = 0;
    cn_free(c);
    return ACL_SUCCESS;
}

static aclError start_stop(const aclprofConfig *cfg, bool start)
{
    const char *api = start ? "aclprofStart" : "aclprofStop";
    if (!cfg)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: profilerConfig is NULL", api);
    pthread_mutex_lock(&g_lock);
    aclError rc = ACL_SUCCESS;
    if (!config_live_locked(cfg))
        rc = cn_error(ACL_ERROR_INVALID_PARAM, "%s: %p is not a live aclprofConfig", api, (const void *)cfg);
    else if (!g_inited)
        rc = cn_error(ACL_ERROR_UNINITIALIZE, "%s: profiling is not initialized (aclprofInit)", api);
    else if (start && (g_started & cfg->mask))
        rc = cn_error(ACL_ERROR_PROF_ALREADY_RUN, "%s: profiling already runs on a device of the config (mask "
                      "0x%llx)", api, (unsigned long long)(g_started & cfg->mask));
    else if (!start && (g_started & cfg->mask) != cfg->mask)
        rc = cn_error(ACL_ERROR_PROF_NOT_RUN, "%s: profiling does not run on device(s) of the config (mask 0x%llx)",
                      api, (unsigned long long)(cfg->mask & ~g_started));
    if (rc == ACL_SUCCESS) {
        if (start) {
            g_started |= cfg->mask;
            atomic_store(&g_msproftx, (cfg->types & ACL_PROF_MSPROFTX) != 0);
        } else {
            g_started &= ~cfg->mask;
        }
        update_switch_locked();
    }
    pthread_mutex_unlock(&g_lock);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclprofStart(const aclprofConfig *profilerConfig)
{
    return start_stop(profilerConfig, true);
}

ACL_FUNC_VISIBILITY aclError aclprofStop(const aclprofConfig *profilerConfig)
{
    return start_stop(profilerConfig, false);
}

ACL_FUNC_VISIBILITY aclError aclprofSetConfig(aclprofConfigType configType, const char *config, size_t configLength)
{
    const char *api = "aclprofSetConfig";
    if (configType <= ACL_PROF_ARGS_MIN || configType >= ACL_PROF_ARGS_MAX || (int)configType == 2)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: configType %d is not an aclprofConfigType", api, (int)configType);
    if (!config)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: config is NULL", api);
    if (configLength == 0 || configLength > CN_PROF_PATH || strnlen(config, configLength) == 0)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: configLength %zu is out of range 1..%d", api, configLength,
                        CN_PROF_PATH);
    /* The system-sampling settings have no counterpart here: accepted and kept by nobody. */
    return ACL_SUCCESS;
}

/* ---- stamps, marks, ranges --------------------------------------------------------------- */

#define CN_STAMP_MAGIC 0x53544d50u /* "STMP" */

typedef struct cn_stamp {
    uint32_t magic;
    char msg[CN_PROF_MSG];
} cn_stamp;

static cn_stamp *stamp_of(void *p) { return p && ((cn_stamp *)p)->magic == CN_STAMP_MAGIC ? p : NULL; }

static bool tx_on(void) { return cn_prof_active() && atomic_load_explicit(&g_msproftx, memory_order_relaxed); }

ACL_FUNC_VISIBILITY void *aclprofCreateStamp(void)
{
    cn_stamp *s = cn_calloc(1, sizeof(*s));
    if (!s) {
        (void)cn_error(ACL_ERROR_BAD_ALLOC, "aclprofCreateStamp: out of memory");
        return NULL;
    }
    s->magic = CN_STAMP_MAGIC;
    return s;
}

ACL_FUNC_VISIBILITY void aclprofDestroyStamp(void *stamp)
{
    cn_stamp *s = stamp_of(stamp);
    if (!s)
        return;
    s->magic = 0;
    cn_free(s);
}

ACL_FUNC_VISIBILITY aclError aclprofSetStampTraceMessage(void *stamp, const char *msg, uint32_t msgLen)
{
    const char *api = "aclprofSetStampTraceMessage";
    cn_stamp *s = stamp_of(stamp);
    if (!s)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: stamp is NULL or not a stamp", api);
    if (!msg)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: msg is NULL", api);
    if (msgLen == 0 || msgLen >= CN_PROF_MSG)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: msgLen %u is out of range 1..%d", api, msgLen, CN_PROF_MSG - 1);
    size_t n = strnlen(msg, msgLen);
    memcpy(s->msg, msg, n);
    s->msg[n] = '\0';
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclprofMark(void *stamp)
{
    cn_stamp *s = stamp_of(stamp);
    if (!s)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclprofMark: stamp is NULL or not a stamp");
    if (tx_on()) {
        uint64_t t = cn_now_ns();
        cn_prof_host_span(NULL, CN_PT_MARK, s->msg, NULL, 0, t, t);
    }
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclprofMarkEx(const char *msg, size_t msgLen, aclrtStream stream)
{
    const char *api = "aclprofMarkEx";
    if (!msg)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: msg is NULL", api);
    if (msgLen == 0 || msgLen >= CN_PROF_MSG)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: msgLen %zu is out of range 1..%d", api, msgLen, CN_PROF_MSG - 1);
    cn_stream *s = NULL;
    aclError rc = cn_stream_resolve(stream, api, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (tx_on()) {
        char text[CN_PROF_MSG];
        size_t n = strnlen(msg, msgLen);
        memcpy(text, msg, n);
        text[n] = '\0';
        t_label.set = false;
        cn_prof_rec *r = cn_prof_task_begin(s, CN_PT_MARK, text, 0);
        if (r)
            cn_prof_task_end(s, r, true);
    }
    cn_obj_put(&s->obj);
    return ACL_SUCCESS;
}

/* The calling thread's push/pop stack. */
#define CN_PROF_STACK 64
static _Thread_local struct {
    int depth;
    uint64_t start[CN_PROF_STACK];
    char msg[CN_PROF_STACK][CN_PROF_NAME];
} t_stack;

ACL_FUNC_VISIBILITY aclError aclprofPush(void *stamp)
{
    cn_stamp *s = stamp_of(stamp);
    if (!s)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclprofPush: stamp is NULL or not a stamp");
    if (t_stack.depth >= CN_PROF_STACK)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclprofPush: more than %d ranges pushed on this thread",
                        CN_PROF_STACK);
    t_stack.start[t_stack.depth] = cn_now_ns();
    copy_str(t_stack.msg[t_stack.depth], CN_PROF_NAME, s->msg);
    t_stack.depth++;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclprofPop(void)
{
    if (t_stack.depth == 0)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclprofPop: no range was pushed on this thread");
    t_stack.depth--;
    if (tx_on())
        cn_prof_host_span(NULL, CN_PT_RANGE, t_stack.msg[t_stack.depth], NULL, 0, t_stack.start[t_stack.depth],
                          cn_now_ns());
    return ACL_SUCCESS;
}

/* Ranges open by aclprofRangeStart, under g_lock. */
typedef struct cn_range {
    uint32_t id;
    uint64_t start;
    char msg[CN_PROF_NAME];
} cn_range;
static cn_range *g_ranges;
static size_t g_nranges, g_cap_ranges;
static uint32_t g_next_range = 1;

ACL_FUNC_VISIBILITY aclError aclprofRangeStart(void *stamp, uint32_t *rangeId)
{
    cn_stamp *s = stamp_of(stamp);
    if (!s || !rangeId)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclprofRangeStart: %s", !rangeId ? "rangeId is NULL"
                        : "stamp is NULL or not a stamp");
    pthread_mutex_lock(&g_lock);
    if (g_nranges == g_cap_ranges) {
        size_t cap = g_cap_ranges ? g_cap_ranges * 2 : 16;
        cn_range *n = cn_realloc(g_ranges, cap * sizeof(*n));
        if (!n) {
            pthread_mutex_unlock(&g_lock);
            return cn_error(ACL_ERROR_BAD_ALLOC, "aclprofRangeStart: out of memory");
        }
        g_ranges = n;
        g_cap_ranges = cap;
    }
    cn_range *r = &g_ranges[g_nranges++];
    r->id = g_next_range++;
    if (g_next_range == 0)
        g_next_range = 1;
    copy_str(r->msg, sizeof r->msg, s->msg);
    r->start = cn_now_ns();
    *rangeId = r->id;
    pthread_mutex_unlock(&g_lock);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclprofRangeStop(uint32_t rangeId)
{
    uint64_t now = cn_now_ns();
    pthread_mutex_lock(&g_lock);
    size_t i = 0;
    while (i < g_nranges && g_ranges[i].id != rangeId)
        i++;
    if (i == g_nranges) {
        pthread_mutex_unlock(&g_lock);
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclprofRangeStop: range %u is not open", rangeId);
    }
    cn_range r = g_ranges[i];
    g_ranges[i] = g_ranges[--g_nranges];
    if (g_nranges == 0) {
        cn_free(g_ranges);
        g_ranges = NULL;
        g_cap_ranges = 0;
    }
    pthread_mutex_unlock(&g_lock);
    if (tx_on())
        cn_prof_host_span(NULL, CN_PT_RANGE, r.msg, NULL, 0, r.start, now);
    return ACL_SUCCESS;
}

/* ---- step timestamps --------------------------------------------------------------------- */

#define CN_STEP_MAGIC 0x53544550u /* "STEP" */

struct aclprofStepInfo {
    uint32_t magic;
    uint64_t step;
};

ACL_FUNC_VISIBILITY aclprofStepInfo *aclprofCreateStepInfo(void)
{
    aclprofStepInfo *s = cn_calloc(1, sizeof(*s));
    if (!s) {
        (void)cn_error(ACL_ERROR_BAD_ALLOC, "aclprofCreateStepInfo: out of memory");
        return NULL;
    }
    s->magic = CN_STEP_MAGIC;
    return s;
}

ACL_FUNC_VISIBILITY void aclprofDestroyStepInfo(aclprofStepInfo *stepinfo)
{
    if (!stepinfo || stepinfo->magic != CN_STEP_MAGIC)
        return;
    stepinfo->magic = 0;
    cn_free(stepinfo);
}

ACL_FUNC_VISIBILITY aclError aclprofGetStepTimestamp(aclprofStepInfo *stepInfo, aclprofStepTag tag,
                                                     aclrtStream stream)
{
    const char *api = "aclprofGetStepTimestamp";
    if (!stepInfo || stepInfo->magic != CN_STEP_MAGIC)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: stepInfo is NULL or not an aclprofStepInfo", api);
    if (tag != ACL_STEP_START && tag != ACL_STEP_END)
        return cn_error(ACL_ERROR_INVALID_PARAM, "%s: tag %d is not an aclprofStepTag", api, (int)tag);
    cn_stream *s = NULL;
    aclError rc = cn_stream_resolve(stream, api, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (tag == ACL_STEP_START)
        stepInfo->step++;
    if (cn_prof_active()) {
        char detail[48];
        snprintf(detail, sizeof detail, "step %llu", (unsigned long long)stepInfo->step);
        cannon_prof_label l = {.name = tag == ACL_STEP_START ? "StepStart" : "StepEnd", .detail = detail, .rank = -1};
        cannonProfSetTaskLabel(&l);
        cn_prof_rec *r = cn_prof_task_begin(s, CN_PT_STEP, "", 0);
        if (r)
            cn_prof_task_end(s, r, true);
    }
    cn_obj_put(&s->obj);
    return ACL_SUCCESS;
}
