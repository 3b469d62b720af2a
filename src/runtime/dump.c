/*
 * Operator dump: the `dump` section of the aclInit configuration and CANNON_DUMP (see dump.h and
 * cannon/dump.h; files and keys in docs/tools.md, "Dump and compare").
 *
 * libnnopbase describes each operator run to cannonDumpOpBegin before it enqueues the kernels and
 * calls cannonDumpOpEnd after them. The run gets a record (a copy of its tensor views) and two host
 * tasks on its stream: the first, which runs when the stream reaches the operator, takes the call
 * index of the device and writes the inputs; the second, after the last kernel, writes the outputs
 * and the manifest line. Both run on the stream's thread, so the values are those the operator
 * read and wrote, in stream order. Views are written as their logical values (row-major,
 * contiguous), whatever their strides and offset.
 *
 * Layout: <dir>/device<N>/manifest.jsonl (one JSON object per run) and
 * <dir>/device<N>/<index>_<Op>.<input|output>.<pos>.npy, the index zero-padded to six digits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cannon/dump.h"
#include "cannon/opdev.h"
#include "dump.h"
#include "env.h"
#include "fp_convert.h"
#include "fs_util.h"
#include "internal.h"

#define DUMP_PATH 4096
#define DUMP_NAME 64

/* ---- state ------------------------------------------------------------------------------- */

static atomic_int g_on;                 /* the one load an operator run pays while the dump is off */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
/* Set by cn_dump_process_start before any run is dumped, cleared by cn_dump_process_finish after
 * every stream is gone; the tasks read them without the lock. */
static char g_dir[DUMP_PATH];
static bool g_inputs, g_outputs, g_stats;
static char **g_filters; /* op types (with or without the "aclnn" prefix); none: every op */
static size_t g_n_filters;
/* Per device, under g_lock: the manifest, opened (truncated) by the device's first dumped run. */
static struct {
    bool opened;
    FILE *manifest;
} g_dev[CN_MAX_DEVICES];
static _Atomic uint64_t g_next[CN_MAX_DEVICES]; /* the device's next call index */
static _Atomic unsigned long g_failures;        /* files that could not be written */
static atomic_bool g_warned_capture;

CANNON_API int cannonDumpActive(void) { return atomic_load_explicit(&g_on, memory_order_relaxed) != 0; }

/* ---- data types -------------------------------------------------------------------------- */

enum dt_kind { DK_NONE, DK_F32, DK_F16, DK_BF16, DK_F64, DK_INT, DK_UINT, DK_BOOL, DK_RAW };

typedef struct {
    const char *name; /* in the manifest */
    const char *npy;  /* the .npy descr */
    unsigned size;
    enum dt_kind kind;
} dt_info;

/* The .npy type of each dumpable aclDataType. bf16 and the 8-bit float formats have no numpy
 * type: their bits are stored as unsigned integers of the same width, and the manifest's "dtype"
 * says what they are. Sub-byte types and strings are not dumped. */
static bool dt_lookup(int32_t dt, dt_info *o)
{
    static const struct {
        int32_t dt;
        dt_info info;
    } k[] = {
        {ACL_FLOAT, {"float32", "<f4", 4, DK_F32}},
        {ACL_FLOAT16, {"float16", "<f2", 2, DK_F16}},
        {ACL_BF16, {"bfloat16", "<u2", 2, DK_BF16}},
        {ACL_DOUBLE, {"float64", "<f8", 8, DK_F64}},
        {ACL_INT8, {"int8", "|i1", 1, DK_INT}},
        {ACL_INT16, {"int16", "<i2", 2, DK_INT}},
        {ACL_INT32, {"int32", "<i4", 4, DK_INT}},
        {ACL_INT64, {"int64", "<i8", 8, DK_INT}},
        {ACL_UINT8, {"uint8", "|u1", 1, DK_UINT}},
        {ACL_UINT16, {"uint16", "<u2", 2, DK_UINT}},
        {ACL_UINT32, {"uint32", "<u4", 4, DK_UINT}},
        {ACL_UINT64, {"uint64", "<u8", 8, DK_UINT}},
        {ACL_BOOL, {"bool", "|b1", 1, DK_BOOL}},
        {ACL_COMPLEX64, {"complex64", "<c8", 8, DK_RAW}},
        {ACL_COMPLEX128, {"complex128", "<c16", 16, DK_RAW}},
        {ACL_COMPLEX32, {"complex32", "<u4", 4, DK_RAW}},
        {ACL_HIFLOAT8, {"hifloat8", "|u1", 1, DK_RAW}},
        {ACL_FLOAT8_E5M2, {"float8_e5m2", "|u1", 1, DK_RAW}},
        {ACL_FLOAT8_E4M3FN, {"float8_e4m3fn", "|u1", 1, DK_RAW}},
        {ACL_FLOAT8_E8M0, {"float8_e8m0", "|u1", 1, DK_RAW}},
    };
    for (size_t i = 0; i < CN_ARRAY_SIZE(k); i++) {
        if (k[i].dt == dt) {
            *o = k[i].info;
            return true;
        }
    }
    return false;
}

/* ---- the record of one run --------------------------------------------------------------- */

typedef struct {
    bool valid;
    uint64_t count, nan, inf, finite;
    double min, max, sum, sumsq;
} dump_stats;

typedef struct {
    const void *addr;
    int32_t dtype;
    bool is_output;
    int pos;
    int64_t ndim, offset;
    int64_t shape[CANNON_MAX_DIMS];
    int64_t strides[CANNON_MAX_DIMS];
    bool done;          /* written (file) or measured (stats) */
    const char *skip;   /* why not, when it was looked at and skipped */
    char file[DUMP_NAME + 48];
    dump_stats st;
} dump_tensor;

typedef struct {
    atomic_int refs; /* the two tasks; cannonDumpOpEnd holds the second until it enqueues it */
    int dev;
    bool inputs, outputs, stats;
    bool failed;     /* the kernels' enqueue failed part way: the outputs are not the operator's */
    uint64_t index;
    char op[DUMP_NAME];
    char api[DUMP_NAME];
    size_t n;
    dump_tensor t[];
} dump_call;

static void call_release(dump_call *c)
{
    if (atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) == 1)
        cn_free(c);
}

static uint64_t elem_count(const dump_tensor *t)
{
    uint64_t n = 1;
    for (int64_t d = 0; d < t->ndim; d++)
        n *= (uint64_t)(t->shape[d] > 0 ? t->shape[d] : 0);
    return n;
}

/* The view's logical values, row-major and contiguous, into a new buffer (count >= 1). */
static unsigned char *gather(const dump_tensor *t, size_t esz, uint64_t count)
{
    unsigned char *out = malloc((size_t)count * esz);
    if (!out)
        return NULL;
    const unsigned char *base = t->addr;
    if (t->ndim == 0) {
        memcpy(out, base + t->offset * (int64_t)esz, esz);
        return out;
    }
    int64_t idx[CANNON_MAX_DIMS] = {0};
    const int64_t inner = t->ndim - 1, len = t->shape[inner], st = t->strides[inner];
    unsigned char *dst = out;
    for (;;) {
        int64_t off = t->offset;
        for (int64_t d = 0; d < inner; d++)
            off += idx[d] * t->strides[d];
        const unsigned char *src = base + off * (int64_t)esz;
        if (st == 1) {
            memcpy(dst, src, (size_t)len * esz);
        } else {
            for (int64_t i = 0; i < len; i++)
                memcpy(dst + (size_t)i * esz, src + i * st * (int64_t)esz, esz);
        }
        dst += (size_t)len * esz;
        int64_t d = inner - 1;
        while (d >= 0 && ++idx[d] == t->shape[d])
            idx[d--] = 0;
        if (d < 0)
            break;
    }
    return out;
}

static double value_at(const unsigned char *p, const dt_info *di)
{
    switch (di->kind) {
    case DK_F32: {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    case DK_F64: {
        double f;
        memcpy(&f, p, 8);
        return f;
    }
    case DK_F16:
    case DK_BF16: {
        uint16_t h;
        memcpy(&h, p, 2);
        return di->kind == DK_F16 ? cannon_f16_to_f32(h) : cannon_bf16_to_f32(h);
    }
    case DK_BOOL:
        return *p != 0;
    case DK_INT: {
        int64_t v = 0;
        if (di->size == 1) { int8_t x; memcpy(&x, p, 1); v = x; }
        else if (di->size == 2) { int16_t x; memcpy(&x, p, 2); v = x; }
        else if (di->size == 4) { int32_t x; memcpy(&x, p, 4); v = x; }
        else memcpy(&v, p, 8);
        return (double)v;
    }
    case DK_UINT: {
        uint64_t v = 0;
        if (di->size == 1) v = *p;
        else if (di->size == 2) { uint16_t x; memcpy(&x, p, 2); v = x; }
        else if (di->size == 4) { uint32_t x; memcpy(&x, p, 4); v = x; }
        else memcpy(&v, p, 8);
        return (double)v;
    }
    default:
        return 0.0;
    }
}

/* min / max / mean / L2 over the finite values; NaN and infinities are counted apart. */
static void measure(dump_stats *s, const unsigned char *data, uint64_t count, const dt_info *di)
{
    memset(s, 0, sizeof *s);
    s->count = count;
    s->valid = di->kind != DK_RAW && di->kind != DK_NONE;
    if (!s->valid)
        return;
    for (uint64_t i = 0; i < count; i++) {
        double v = value_at(data + i * di->size, di);
        if (isnan(v)) {
            s->nan++;
            continue;
        }
        if (isinf(v)) {
            s->inf++;
            continue;
        }
        if (s->finite == 0 || v < s->min)
            s->min = v;
        if (s->finite == 0 || v > s->max)
            s->max = v;
        s->finite++;
        s->sum += v;
        s->sumsq += v * v;
    }
}

/* numpy's format 1.0: magic, version, header length, a dict padded to a multiple of 64 bytes. */
static bool write_npy(const char *path, const char *descr, const dump_tensor *t, const void *data, size_t bytes)
{
    char hdr[1024];
    int n = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
    for (int64_t d = 0; d < t->ndim && n > 0 && (size_t)n < sizeof hdr; d++)
        n += snprintf(hdr + n, sizeof hdr - (size_t)n, "%lld%s", (long long)t->shape[d],
                      t->ndim == 1 ? "," : d + 1 < t->ndim ? ", " : "");
    if (n > 0 && (size_t)n < sizeof hdr)
        n += snprintf(hdr + n, sizeof hdr - (size_t)n, "), }");
    if (n <= 0 || (size_t)n + 64 >= sizeof hdr)
        return false;
    size_t total = 10 + (size_t)n + 1;
    size_t pad = (64 - total % 64) % 64;
    memset(hdr + n, ' ', pad);
    hdr[(size_t)n + pad] = '\n';
    size_t hlen = (size_t)n + pad + 1;
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 0xff),
                             (unsigned char)(hlen >> 8)};
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(pre, 1, sizeof pre, f) == sizeof pre && fwrite(hdr, 1, hlen, f) == hlen &&
              (bytes == 0 || fwrite(data, 1, bytes, f) == bytes);
    return fclose(f) == 0 && ok;
}

/* Write (or measure) the inputs or the outputs of c. Runs on the stream's thread. */
static void dump_side(dump_call *c, bool outputs)
{
    for (size_t i = 0; i < c->n; i++) {
        dump_tensor *t = &c->t[i];
        if (t->is_output != outputs || t->dtype == ACL_DT_UNDEFINED)
            continue;
        dt_info di;
        if (!dt_lookup(t->dtype, &di)) {
            t->skip = "the data type has no whole-byte element";
            continue;
        }
        uint64_t count = elem_count(t);
        unsigned char *data = NULL;
        if (count > 0) {
            if (!t->addr) {
                t->skip = "no storage";
                continue;
            }
            data = gather(t, di.size, count);
            if (!data) {
                t->skip = "out of memory";
                atomic_fetch_add(&g_failures, 1);
                continue;
            }
        }
        if (c->stats) {
            measure(&t->st, data, count, &di);
            t->done = true;
        } else {
            snprintf(t->file, sizeof t->file, "%06llu_%s.%s.%d.npy", (unsigned long long)c->index, c->op,
                     outputs ? "output" : "input", t->pos);
            char path[DUMP_PATH + 160];
            snprintf(path, sizeof path, "%s/device%d/%s", g_dir, c->dev, t->file);
            if (write_npy(path, di.npy, t, data, (size_t)count * di.size)) {
                t->done = true;
            } else {
                t->skip = "the file could not be written";
                if (atomic_fetch_add(&g_failures, 1) == 0)
                    CN_LOGE("dump: cannot write %s: %s", path, strerror(errno));
            }
        }
        free(data);
    }
}

/* The device folder and its manifest (truncated at the device's first dumped run); g_lock held. */
static FILE *manifest_locked(int dev)
{
    if (g_dev[dev].opened)
        return g_dev[dev].manifest;
    g_dev[dev].opened = true;
    char path[DUMP_PATH + 64];
    snprintf(path, sizeof path, "%s/device%d", g_dir, dev);
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        CN_LOGE("dump: cannot create %s: %s", path, strerror(errno));
        atomic_fetch_add(&g_failures, 1);
        return NULL;
    }
    snprintf(path, sizeof path, "%s/device%d/manifest.jsonl", g_dir, dev);
    g_dev[dev].manifest = fopen(path, "w");
    if (!g_dev[dev].manifest) {
        CN_LOGE("dump: cannot create %s: %s", path, strerror(errno));
        atomic_fetch_add(&g_failures, 1);
    }
    return g_dev[dev].manifest;
}

static cJSON *int_array(const int64_t *v, int64_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (int64_t i = 0; a && i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[i]));
    return a;
}

/* A finite double with all its digits (cJSON may print 15 significant digits only). */
static void add_exact(cJSON *o, const char *key, double v)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", v);
    cJSON_AddRawToObject(o, key, buf);
}

static cJSON *stats_json(const dump_stats *s)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "count", (double)s->count);
    if (s->finite) {
        add_exact(o, "min", s->min);
        add_exact(o, "max", s->max);
        add_exact(o, "mean", s->sum / (double)s->finite);
        add_exact(o, "l2", sqrt(s->sumsq));
    } else {
        cJSON_AddNullToObject(o, "min");
        cJSON_AddNullToObject(o, "max");
        cJSON_AddNullToObject(o, "mean");
        cJSON_AddNumberToObject(o, "l2", 0.0);
    }
    cJSON_AddNumberToObject(o, "nan", (double)s->nan);
    cJSON_AddNumberToObject(o, "inf", (double)s->inf);
    return o;
}

static void write_manifest(const dump_call *c)
{
    cJSON *o = cJSON_CreateObject();
    if (o) {
        cJSON_AddNumberToObject(o, "index", (double)c->index);
        cJSON_AddStringToObject(o, "op", c->op);
        cJSON_AddStringToObject(o, "api", c->api);
        cJSON_AddNumberToObject(o, "device", c->dev);
        if (c->failed)
            cJSON_AddTrueToObject(o, "failed");
    }
    cJSON *ts = o ? cJSON_AddArrayToObject(o, "tensors") : NULL;
    if (!ts) {
        cJSON_Delete(o);
        atomic_fetch_add(&g_failures, 1);
        return;
    }
    for (size_t i = 0; i < c->n; i++) {
        const dump_tensor *t = &c->t[i];
        if (!t->done && !t->skip)
            continue; /* absent, or a side this dump does not write */
        dt_info di = {"unsupported", NULL, 0, DK_NONE};
        (void)dt_lookup(t->dtype, &di);
        cJSON *e = cJSON_CreateObject();
        if (!e)
            break;
        cJSON_AddStringToObject(e, "role", t->is_output ? "output" : "input");
        cJSON_AddNumberToObject(e, "pos", t->pos);
        cJSON_AddStringToObject(e, "dtype", di.name);
        cJSON_AddNumberToObject(e, "acl_dtype", t->dtype);
        cJSON_AddItemToObject(e, "shape", int_array(t->shape, t->ndim));
        cJSON_AddItemToObject(e, "strides", int_array(t->strides, t->ndim));
        cJSON_AddNumberToObject(e, "offset", (double)t->offset);
        if (t->done && c->stats) {
            if (t->st.valid)
                cJSON_AddItemToObject(e, "stats", stats_json(&t->st));
            else
                cJSON_AddNullToObject(e, "stats");
        } else if (t->done) {
            cJSON_AddStringToObject(e, "npy", di.npy);
            cJSON_AddStringToObject(e, "file", t->file);
        } else {
            cJSON_AddNullToObject(e, "file");
            cJSON_AddStringToObject(e, "skipped", t->skip);
        }
        cJSON_AddItemToArray(ts, e);
    }
    char *line = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!line) {
        atomic_fetch_add(&g_failures, 1);
        return;
    }
    pthread_mutex_lock(&g_lock);
    FILE *f = manifest_locked(c->dev);
    if (f && (fputs(line, f) < 0 || fputc('\n', f) == EOF || fflush(f) != 0))
        atomic_fetch_add(&g_failures, 1);
    pthread_mutex_unlock(&g_lock);
    cJSON_free(line);
}

static int pre_task(void *arg)
{
    dump_call *c = arg;
    c->index = atomic_fetch_add_explicit(&g_next[c->dev], 1, memory_order_relaxed);
    pthread_mutex_lock(&g_lock);
    (void)manifest_locked(c->dev); /* the device folder exists before the first file */
    pthread_mutex_unlock(&g_lock);
    if (c->inputs)
        dump_side(c, false);
    call_release(c);
    return 0;
}

static int post_task(void *arg)
{
    dump_call *c = arg;
    if (c->outputs && !c->failed)
        dump_side(c, true);
    write_manifest(c);
    call_release(c);
    return 0;
}

/* ---- hooks ------------------------------------------------------------------------------- */

static bool filter_match(const char *api, const char *op)
{
    if (g_n_filters == 0)
        return true;
    for (size_t i = 0; i < g_n_filters; i++) {
        if (strcmp(g_filters[i], api) == 0 || strcmp(g_filters[i], op) == 0)
            return true;
    }
    return false;
}

static void copy_name(char *dst, const char *src)
{
    size_t n = 0;
    for (; src[n] && n + 1 < DUMP_NAME; n++) {
        char ch = src[n];
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
        dst[n] = ok ? ch : '_';
    }
    dst[n] = '\0';
}

CANNON_API void *cannonDumpOpBegin(aclrtStream stream, const char *api, const cannon_dump_tensor *t, size_t n)
{
    if (!cannonDumpActive() || !api || (n > 0 && !t))
        return NULL;
    const char *op = strncmp(api, "aclnn", 5) == 0 && api[5] ? api + 5 : api;
    pthread_mutex_lock(&g_lock);
    bool want = atomic_load(&g_on) && filter_match(api, op);
    bool in = g_inputs, out = g_outputs, stats = g_stats;
    pthread_mutex_unlock(&g_lock);
    if (!want)
        return NULL;
    cn_stream *s = NULL;
    if (cn_stream_resolve(stream, api, &s) != ACL_SUCCESS)
        return NULL; /* the operator's own enqueue reports it */
    bool captured = atomic_load(&s->capture) != NULL;
    int dev = s->dev->id;
    cn_obj_put(&s->obj);
    if (captured) {
        if (!atomic_exchange(&g_warned_capture, true))
            CN_LOGW("dump: operators enqueued on a stream under graph capture are not dumped (%s)", api);
        return NULL;
    }
    if (dev < 0 || dev >= CN_MAX_DEVICES)
        return NULL;
    dump_call *c = cn_calloc(1, sizeof(*c) + n * sizeof(dump_tensor));
    if (!c) {
        atomic_fetch_add(&g_failures, 1);
        return NULL;
    }
    atomic_init(&c->refs, 2);
    c->dev = dev;
    c->inputs = in;
    c->outputs = out;
    c->stats = stats;
    copy_name(c->op, op);
    copy_name(c->api, api);
    int pos[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        dump_tensor *d = &c->t[c->n];
        int side = t[i].is_output ? 1 : 0;
        int p = pos[side]++;
        if (t[i].dtype == ACL_DT_UNDEFINED || t[i].ndim < 0 || t[i].ndim > CANNON_MAX_DIMS ||
            (t[i].ndim > 0 && (!t[i].shape || !t[i].strides)))
            continue; /* an absent optional tensor keeps its position */
        d->addr = t[i].addr;
        d->dtype = t[i].dtype;
        d->is_output = side == 1;
        d->pos = p;
        d->ndim = t[i].ndim;
        d->offset = t[i].offset;
        if (d->ndim) {
            memcpy(d->shape, t[i].shape, sizeof(int64_t) * (size_t)d->ndim);
            memcpy(d->strides, t[i].strides, sizeof(int64_t) * (size_t)d->ndim);
        }
        c->n++;
    }
    if (cannonLaunchHostTask(stream, pre_task, c) != ACL_SUCCESS) {
        cn_free(c);
        return NULL;
    }
    return c;
}

CANNON_API void cannonDumpOpEnd(aclrtStream stream, void *handle, int launched)
{
    dump_call *c = handle;
    if (!c)
        return;
    c->failed = !launched;
    if (cannonLaunchHostTask(stream, post_task, c) != ACL_SUCCESS) {
        atomic_fetch_add(&g_failures, 1);
        call_release(c);
    }
}

/* ---- session ----------------------------------------------------------------------------- */


static void filters_free(char **f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cn_free(f[i]);
    cn_free(f);
}

static bool filter_add(char ***f, size_t *n, const char *s, size_t len)
{
    while (len && (*s == ' ' || *s == '\t')) {
        s++;
        len--;
    }
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    if (!len)
        return true;
    char **g = cn_realloc(*f, (*n + 1) * sizeof(char *));
    if (!g)
        return false;
    *f = g;
    char *v = cn_malloc(len + 1);
    if (!v)
        return false;
    memcpy(v, s, len);
    v[len] = '\0';
    g[(*n)++] = v;
    return true;
}

typedef struct {
    const char *dir, *origin;
    bool inputs, outputs, stats;
    char **filters;
    size_t n_filters;
} dump_plan;

static aclError plan_from_env(const char *dir, dump_plan *p)
{
    const aclError E = ACL_ERROR_INVALID_DUMP_CONFIG;
    p->dir = dir;
    p->origin = "CANNON_DUMP";
    p->inputs = p->outputs = true;
    const char *mode = cannon_env_get("CANNON_DUMP_MODE");
    if (mode && *mode) {
        if (strcmp(mode, "input") == 0)
            p->outputs = false;
        else if (strcmp(mode, "output") == 0)
            p->inputs = false;
        else if (strcmp(mode, "all") != 0)
            return cn_error(E, "aclInit: CANNON_DUMP_MODE \"%s\" must be input, output or all", mode);
    }
    const char *data = cannon_env_get("CANNON_DUMP_DATA");
    if (data && *data) {
        if (strcmp(data, "stats") == 0)
            p->stats = true;
        else if (strcmp(data, "tensor") != 0)
            return cn_error(E, "aclInit: CANNON_DUMP_DATA \"%s\" must be tensor or stats", data);
    }
    const char *ops = cannon_env_get("CANNON_DUMP_OPS");
    for (const char *s = ops; s && *s;) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (!filter_add(&p->filters, &p->n_filters, s, len))
            return cn_error(ACL_ERROR_BAD_ALLOC, "aclInit: out of memory reading CANNON_DUMP_OPS");
        s = e ? e + 1 : s + len;
    }
    return ACL_SUCCESS;
}

static aclError plan_from_config(const char *json, dump_plan *p, cJSON **keep)
{
    const aclError E = ACL_ERROR_INVALID_DUMP_CONFIG;
    cJSON *d = cJSON_Parse(json); /* the section config.c validated and kept */
    if (!d)
        return cn_error(ACL_ERROR_BAD_ALLOC, "aclInit: out of memory reading the dump section");
    *keep = d;
    const cJSON *sw = cJSON_GetObjectItemCaseSensitive(d, "dump_op_switch");
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(d, "dump_list");
    bool op_on = cJSON_IsString(sw) && strcmp(sw->valuestring, "on") == 0;
    bool list_on = cJSON_IsArray(list) && cJSON_GetArraySize(list) > 0;
    if (!op_on && !list_on) {
        if (cJSON_GetObjectItemCaseSensitive(d, "dump_debug") || cJSON_GetObjectItemCaseSensitive(d, "dump_scene"))
            CN_LOGW("aclInit: dump.dump_debug (overflow) and dump.dump_scene (exception) dumps are not implemented; "
                    "only the operator dump (dump_op_switch / dump_list) is");
        return ACL_SUCCESS;
    }
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(d, "dump_path");
    if (!cJSON_IsString(path) || !*path->valuestring)
        return cn_error(E, "aclInit: dump.dump_path is required when dump.dump_op_switch is \"on\" or dump.dump_list "
                           "is not empty");
    p->dir = path->valuestring;
    p->origin = "dump.dump_path";
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(d, "dump_mode");
    const char *m = cJSON_IsString(mode) ? mode->valuestring : "output"; /* CANN's default */
    p->inputs = strcmp(m, "input") == 0 || strcmp(m, "all") == 0;
    p->outputs = strcmp(m, "output") == 0 || strcmp(m, "all") == 0;
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(d, "dump_data");
    p->stats = cJSON_IsString(data) && strcmp(data->valuestring, "stats") == 0;
    const cJSON *entry;
    cJSON_ArrayForEach(entry, list)
    {
        const cJSON *layer = cJSON_GetObjectItemCaseSensitive(entry, "layer"), *name;
        cJSON_ArrayForEach(name, layer)
        {
            if (cJSON_IsString(name) && !filter_add(&p->filters, &p->n_filters, name->valuestring,
                                                     strlen(name->valuestring)))
                return cn_error(ACL_ERROR_BAD_ALLOC, "aclInit: out of memory reading dump.dump_list");
        }
    }
    return ACL_SUCCESS;
}

aclError cn_dump_process_start(const cn_config *cfg)
{
    dump_plan p = {0};
    cJSON *doc = NULL;
    aclError rc = ACL_SUCCESS;
    const char *env = cannon_env_get("CANNON_DUMP");
    if (env && *env)
        rc = plan_from_env(env, &p);
    else if (cfg && cfg->dump_json)
        rc = plan_from_config(cfg->dump_json, &p, &doc);
    char why[512];
    if (rc == ACL_SUCCESS && p.dir && !cannon_dir_writable(p.dir, why, sizeof why))
        rc = cn_error(ACL_ERROR_INVALID_DUMP_CONFIG, "aclInit: %s \"%s\" cannot hold the dump: %s", p.origin, p.dir,
                      why);
    if (rc == ACL_SUCCESS && p.dir && strlen(p.dir) >= sizeof g_dir)
        rc = cn_error(ACL_ERROR_INVALID_DUMP_CONFIG, "aclInit: %s is longer than %d bytes", p.origin, DUMP_PATH - 1);
    if (rc != ACL_SUCCESS || !p.dir) {
        filters_free(p.filters, p.n_filters);
        cJSON_Delete(doc);
        return rc;
    }
    pthread_mutex_lock(&g_lock);
    memcpy(g_dir, p.dir, strlen(p.dir) + 1);
    g_inputs = p.inputs;
    g_outputs = p.outputs;
    g_stats = p.stats;
    filters_free(g_filters, g_n_filters);
    g_filters = p.filters;
    g_n_filters = p.n_filters;
    for (int d = 0; d < CN_MAX_DEVICES; d++) {
        g_dev[d].opened = false;
        g_dev[d].manifest = NULL;
        atomic_store(&g_next[d], 0);
    }
    atomic_store(&g_failures, 0);
    atomic_store(&g_on, 1);
    pthread_mutex_unlock(&g_lock);
    CN_LOGI("aclInit: dumping operators into %s (%s; %s%s%s, %s)", p.dir, p.origin, p.inputs ? "inputs" : "",
            p.inputs && p.outputs ? " and " : "", p.outputs ? "outputs" : "", p.stats ? "statistics" : "tensors");
    cJSON_Delete(doc);
    return ACL_SUCCESS;
}

void cn_dump_process_finish(void)
{
    pthread_mutex_lock(&g_lock);
    bool was = atomic_exchange(&g_on, 0) != 0;
    for (int d = 0; d < CN_MAX_DEVICES; d++) {
        if (g_dev[d].manifest && fclose(g_dev[d].manifest) != 0)
            atomic_fetch_add(&g_failures, 1);
        g_dev[d].manifest = NULL;
        g_dev[d].opened = false;
    }
    filters_free(g_filters, g_n_filters);
    g_filters = NULL;
    g_n_filters = 0;
    unsigned long lost = atomic_load(&g_failures);
    pthread_mutex_unlock(&g_lock);
    if (was && lost)
        CN_LOGE("aclFinalize: the operator dump in %s is incomplete: %lu file(s) or manifest line(s) could not be "
                "written", g_dir, lost);
}
