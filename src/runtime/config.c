/* The aclInit JSON configuration: read, check against CANN's documented rules, keep what the
 * runtime uses. See reference/acl-runtime.md §1.2 for the keys. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "log.h"

/* A configuration is a few hundred bytes; anything near this is not one. */
#define CN_CONFIG_MAX_SIZE (1024u * 1024u)
/* CANN rejects configs whose '{' or '[' nesting (counted separately) exceeds this. */
#define CN_CONFIG_MAX_DEPTH 10
#define CN_CONFIG_DEFAULT_OPQUEUE 20000ul

typedef struct {
    const char *path;
} load_ctx;

/* Report a problem with the file; every message names the file so the user can find it. */
__attribute__((format(printf, 3, 4)))
static aclError fail(const load_ctx *ctx, aclError code, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return cn_error(code, "aclInit: config file \"%s\": %s", ctx->path, what);
}

void cn_config_defaults(cn_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->err_msg_mode = 0;
    cfg->default_device = -1;
    cfg->max_opqueue_num = CN_CONFIG_DEFAULT_OPQUEUE;
}

void cn_config_free(cn_config *cfg)
{
    if (!cfg)
        return;
    cn_free(cfg->dump_json);
    cn_free(cfg->dump_path);
    cn_free(cfg->profiler_json);
    cn_free(cfg->profiler_output);
    cn_config_defaults(cfg);
}

/* 64-bit FNV-1a: cheap, stable across runs, good enough to tell two configs apart. */
static uint64_t fnv1a64(const unsigned char *p, size_t n)
{
    if (n == 0)
        return 0;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static const char *file_kind(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device"
         : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a plain file";
}

/* Read the whole file into a NUL-terminated cn_malloc'd buffer. Only regular files: opening a
 * FIFO would block until a writer comes (with the runtime's lock held), a device may never end.
 * The open does not block (O_NONBLOCK), and the type is checked on the opened descriptor, so a
 * path swapped between a check and the open cannot slip a FIFO in. */
static aclError read_file(const load_ctx *ctx, char **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    int fd = open(ctx->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return fail(ctx, ACL_ERROR_INVALID_FILE, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return fail(ctx, ACL_ERROR_INVALID_FILE, "cannot stat: %s", strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return fail(ctx, ACL_ERROR_INVALID_FILE, "is %s, not a regular file", file_kind(st.st_mode));
    }
    if ((uint64_t)st.st_size > CN_CONFIG_MAX_SIZE) {
        close(fd);
        return fail(ctx, ACL_ERROR_INVALID_FILE_SIZE, "file too large (%lld bytes, limit %u)",
                    (long long)st.st_size, CN_CONFIG_MAX_SIZE);
    }
    /* st_size is only a hint (the file may change meanwhile): read until EOF, growing, and never
     * past the limit. */
    size_t cap = (size_t)st.st_size + 1;
    size_t len = 0;
    char *buf = cn_malloc(cap);
    if (!buf) {
        close(fd);
        return fail(ctx, ACL_ERROR_BAD_ALLOC, "out of memory reading the file");
    }
    for (;;) {
        if (len + 1 >= cap) {
            if (cap >= CN_CONFIG_MAX_SIZE + 2) { /* a byte past the limit was read */
                cn_free(buf);
                close(fd);
                return fail(ctx, ACL_ERROR_INVALID_FILE_SIZE, "file too large (limit %u bytes)",
                            CN_CONFIG_MAX_SIZE);
            }
            size_t ncap = cap < 2048 ? 4096 : cap * 2;
            if (ncap > CN_CONFIG_MAX_SIZE + 2)
                ncap = CN_CONFIG_MAX_SIZE + 2; /* room for one byte past the limit, and the NUL */
            char *nb = cn_realloc(buf, ncap);
            if (!nb) {
                cn_free(buf);
                close(fd);
                return fail(ctx, ACL_ERROR_BAD_ALLOC, "out of memory reading the file");
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t r = read(fd, buf + len, cap - 1 - len);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            cn_free(buf);
            close(fd);
            return fail(ctx, ACL_ERROR_INVALID_FILE, "read error: %s", strerror(e));
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    if (len > CN_CONFIG_MAX_SIZE) {
        cn_free(buf);
        return fail(ctx, ACL_ERROR_INVALID_FILE_SIZE, "file too large (limit %u bytes)", CN_CONFIG_MAX_SIZE);
    }
    buf[len] = '\0';
    *data = buf;
    *size = len;
    return ACL_SUCCESS;
}

static bool only_whitespace(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
            return false;
    }
    return true;
}

/* CANN's nesting rule, checked on the raw text before parsing: '{' and '[' depths are counted
 * separately, and only outside strings (so "[[[[" inside a value does not count). */
static aclError check_nesting(const load_ctx *ctx, const char *s, size_t n)
{
    int braces = 0, brackets = 0;
    bool in_str = false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (in_str) {
            if (c == '\\')
                i++; /* skip the escaped character, which may be a quote */
            else if (c == '"')
                in_str = false;
            continue;
        }
        switch (c) {
        case '"': in_str = true; break;
        case '{':
            if (++braces > CN_CONFIG_MAX_DEPTH)
                return fail(ctx, ACL_ERROR_PARSE_FILE, "'{' nesting deeper than %d", CN_CONFIG_MAX_DEPTH);
            break;
        case '[':
            if (++brackets > CN_CONFIG_MAX_DEPTH)
                return fail(ctx, ACL_ERROR_PARSE_FILE, "'[' nesting deeper than %d", CN_CONFIG_MAX_DEPTH);
            break;
        case '}': if (braces > 0) braces--; break;
        case ']': if (brackets > 0) brackets--; break;
        default: break;
        }
    }
    return ACL_SUCCESS;
}

/* The error code of a problem inside top-level member `key` (its raw text, n bytes): the code
 * that member's own checks return, or ACL_ERROR_PARSE_FILE for a member the runtime does not
 * know. */
static aclError section_code(const char *key, size_t n)
{
    static const struct {
        const char *key;
        aclError code;
    } codes[] = {
        {"err_msg_mode", ACL_ERROR_INVALID_PARAM},
        {"defaultDevice", ACL_ERROR_FAILURE},
        {"max_opqueue_num", ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG},
        {"dump", ACL_ERROR_INVALID_DUMP_CONFIG},
        {"profiler", ACL_ERROR_INVALID_PROFILING_CONFIG},
        {"StackSize", ACL_ERROR_INVALID_PARAM},
        {"acl_graph", ACL_ERROR_INVALID_PARAM},
        {"simd_printf_fifo_size_per_core", ACL_ERROR_INVALID_PARAM},
        {"simt_printf_fifo_size", ACL_ERROR_INVALID_PARAM},
    };
    for (size_t i = 0; i < CN_ARRAY_SIZE(codes); i++) {
        if (strlen(codes[i].key) == n && memcmp(codes[i].key, key, n) == 0)
            return codes[i].code;
    }
    return ACL_ERROR_PARSE_FILE;
}

/*
 * cJSON decodes the escape \u0000 into a NUL byte and keeps no length, so "1\u0000x" would read
 * as "1" and "err_msg_mode\u0000x" as a known key. No string of a configuration may hold one:
 * scan the raw text (already parsed, so well-formed) for such a string, tracking the member it
 * belongs to, and reject the file with the code of its top-level member and the key path
 * ("dump.dump_path") in the message.
 */
static aclError check_no_nul(const load_ctx *ctx, const char *s, size_t n)
{
    enum { MAX_LEVELS = 2 * CN_CONFIG_MAX_DEPTH + 2 }; /* check_nesting bounds both depths */
    struct {
        char type;           /* '{' or '[' */
        bool expect_key;
        const char *key;     /* raw text of the current member's key (objects) */
        size_t key_len;
    } st[MAX_LEVELS];
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '{' || c == '[') {
            if (depth == MAX_LEVELS)
                return ACL_SUCCESS; /* cannot happen after check_nesting */
            st[depth].type = c;
            st[depth].expect_key = c == '{';
            st[depth].key = NULL;
            st[depth].key_len = 0;
            depth++;
        } else if (c == '}' || c == ']') {
            if (depth > 0)
                depth--;
        } else if (c == ',') {
            if (depth > 0 && st[depth - 1].type == '{')
                st[depth - 1].expect_key = true;
        } else if (c == '"') {
            size_t start = i + 1, j = start;
            bool nul = false;
            while (j < n && s[j] != '"') {
                if (s[j] == '\\') {
                    if (j + 5 < n && s[j + 1] == 'u' && memcmp(s + j + 2, "0000", 4) == 0)
                        nul = true;
                    j += 2;
                } else {
                    j++;
                }
            }
            if (j > n)
                j = n;
            bool is_key = depth > 0 && st[depth - 1].type == '{' && st[depth - 1].expect_key;
            if (is_key) {
                st[depth - 1].key = s + start;
                st[depth - 1].key_len = j - start;
                st[depth - 1].expect_key = false;
            }
            i = j;
            if (!nul)
                continue;
            char path[256];
            size_t len = 0;
            path[0] = '\0';
            for (int k = 0; k < depth; k++) {
                if (st[k].type != '{' || !st[k].key)
                    continue;
                int w = snprintf(path + len, sizeof path - len, "%s%.*s", len ? "." : "", (int)st[k].key_len,
                                 st[k].key);
                if (w < 0 || (size_t)w >= sizeof path - len)
                    break;
                len += (size_t)w;
            }
            aclError code = depth == 0 || !st[0].key || (is_key && depth == 1)
                                ? ACL_ERROR_PARSE_FILE
                                : section_code(st[0].key, st[0].key_len);
            return fail(ctx, code, "%s %s holds an escaped NUL (\\u0000), which would cut it short",
                        is_key ? "the key" : "the value of", len ? path : "(top level)");
        }
    }
    return ACL_SUCCESS;
}

static bool is_str(const cJSON *v, const char *s) { return cJSON_IsString(v) && strcmp(v->valuestring, s) == 0; }

static bool str_in(const cJSON *v, const char *const *set, size_t n)
{
    if (!cJSON_IsString(v))
        return false;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(v->valuestring, set[i]) == 0)
            return true;
    }
    return false;
}

static bool is_on_off(const cJSON *v) { return is_str(v, "on") || is_str(v, "off"); }

/* Non-empty decimal digits that fit in *out (at most `max`). */
static bool parse_digits(const char *s, unsigned long long max, unsigned long long *out)
{
    if (!s || !*s)
        return false;
    unsigned long long v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return false;
        unsigned d = (unsigned)(*p - '0');
        if (v > (max - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

/* A size-like value: a string of digits, or a non-negative integral JSON number. */
static bool parse_count(const cJSON *v, unsigned long long max, unsigned long long *out)
{
    if (cJSON_IsString(v))
        return parse_digits(v->valuestring, max, out);
    if (cJSON_IsNumber(v)) {
        double d = v->valuedouble;
        /* !(d >= 0) also rejects NaN; 2^64 and above would overflow the conversion. */
        if (!(d >= 0) || d >= 18446744073709551616.0)
            return false;
        unsigned long long u = (unsigned long long)d;
        if ((double)u != d || u > max)
            return false;
        *out = u;
        return true;
    }
    return false;
}

static void info_unknown(const load_ctx *ctx, const char *section, const char *key)
{
    CN_LOGI("aclInit: config file \"%s\": ignoring unknown key \"%s%s%s\"", ctx->path, section ? section : "",
            section ? "." : "", key);
}

/* Compact JSON text of `v`, owned by cn_malloc (cJSON allocates with its own hooks). */
static char *print_compact(const cJSON *v)
{
    char *s = cJSON_PrintUnformatted(v);
    if (!s)
        return NULL;
    char *d = cn_strdup(s);
    cJSON_free(s);
    return d;
}

static aclError parse_err_msg_mode(const load_ctx *ctx, const cJSON *v, cn_config *cfg)
{
    if (is_str(v, "0"))
        cfg->err_msg_mode = 0;
    else if (is_str(v, "1"))
        cfg->err_msg_mode = 1;
    else
        return fail(ctx, ACL_ERROR_INVALID_PARAM, "err_msg_mode must be the string \"0\" or \"1\"");
    return ACL_SUCCESS;
}

static aclError parse_default_device(const load_ctx *ctx, const cJSON *v, cn_config *cfg)
{
    if (!cJSON_IsObject(v))
        return fail(ctx, ACL_ERROR_FAILURE, "defaultDevice must be an object");
    const cJSON *dev = NULL;
    for (const cJSON *c = v->child; c; c = c->next) {
        if (strcmp(c->string, "default_device") == 0)
            dev = c;
        else
            info_unknown(ctx, "defaultDevice", c->string);
    }
    unsigned long long id;
    /* 0|[1-9][0-9]*: digits, no leading zero, within int32. */
    if (!cJSON_IsString(dev) || (dev->valuestring[0] == '0' && dev->valuestring[1] != '\0') ||
        !parse_digits(dev->valuestring, INT32_MAX, &id))
        return fail(ctx, ACL_ERROR_FAILURE,
                    "defaultDevice.default_device must be a string matching 0|[1-9][0-9]* within int32");
    cfg->default_device = (int)id;
    return ACL_SUCCESS;
}

static aclError parse_max_opqueue(const load_ctx *ctx, const cJSON *v, cn_config *cfg)
{
    unsigned long long n;
    if (!parse_count(v, ULONG_MAX, &n))
        return fail(ctx, ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG,
                    "max_opqueue_num must be a string of decimal digits (or a non-negative integer)");
    cfg->max_opqueue_num = (unsigned long)n;
    return ACL_SUCCESS;
}

static const char *const k_dump_mode[] = {"input", "output", "all"};
static const char *const k_dump_data[] = {"tensor", "stats"};
static const char *const k_dump_level[] = {"op", "kernel", "all"};
/* Exception-dump scenes; "watcher" is listed separately because it works together with
 * dump_list (the nodes to watch), so only the op-dump switch conflicts with it. */
static const char *const k_dump_exception_scene[] = {"aic_err_brief_dump", "aic_err_norm_dump",
                                                      "aic_err_detail_dump", "lite_exception"};
static const char *const k_dump_kernel_data[] = {"all", "printf", "tensor", "assert", "timestamp"};

/* dump_kernel_data: a comma list of known items. */
static bool valid_kernel_data(const cJSON *v)
{
    if (!cJSON_IsString(v) || !*v->valuestring)
        return false;
    const char *p = v->valuestring;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        bool ok = false;
        for (size_t i = 0; i < CN_ARRAY_SIZE(k_dump_kernel_data); i++) {
            if (strlen(k_dump_kernel_data[i]) == n && strncmp(p, k_dump_kernel_data[i], n) == 0)
                ok = true;
        }
        if (!ok)
            return false;
        if (!e)
            return true;
        p = e + 1;
    }
}

static bool array_of_strings(const cJSON *v)
{
    if (!cJSON_IsArray(v))
        return false;
    for (const cJSON *c = v->child; c; c = c->next) {
        if (!cJSON_IsString(c))
            return false;
    }
    return true;
}

static aclError parse_dump(const load_ctx *ctx, const cJSON *v, cn_config *cfg)
{
    const aclError E = ACL_ERROR_INVALID_DUMP_CONFIG;
    if (!cJSON_IsObject(v))
        return fail(ctx, E, "dump must be an object");
    const cJSON *path = NULL, *list = NULL, *op_switch = NULL, *debug = NULL, *scene = NULL;
    for (const cJSON *c = v->child; c; c = c->next) {
        const char *k = c->string;
        if (strcmp(k, "dump_path") == 0) {
            if (!cJSON_IsString(c) || !*c->valuestring)
                return fail(ctx, E, "dump.dump_path must be a non-empty string");
            path = c;
        } else if (strcmp(k, "dump_mode") == 0) {
            if (!str_in(c, k_dump_mode, CN_ARRAY_SIZE(k_dump_mode)))
                return fail(ctx, E, "dump.dump_mode must be \"input\", \"output\" or \"all\"");
        } else if (strcmp(k, "dump_op_switch") == 0) {
            if (!is_on_off(c))
                return fail(ctx, E, "dump.dump_op_switch must be \"on\" or \"off\"");
            op_switch = c;
        } else if (strcmp(k, "dump_debug") == 0) {
            if (!is_on_off(c))
                return fail(ctx, E, "dump.dump_debug must be \"on\" or \"off\"");
            debug = c;
        } else if (strcmp(k, "dump_data") == 0) {
            if (!str_in(c, k_dump_data, CN_ARRAY_SIZE(k_dump_data)))
                return fail(ctx, E, "dump.dump_data must be \"tensor\" or \"stats\"");
        } else if (strcmp(k, "dump_level") == 0) {
            if (!str_in(c, k_dump_level, CN_ARRAY_SIZE(k_dump_level)))
                return fail(ctx, E, "dump.dump_level must be \"op\", \"kernel\" or \"all\"");
        } else if (strcmp(k, "dump_scene") == 0) {
            if (!is_str(c, "watcher") && !str_in(c, k_dump_exception_scene, CN_ARRAY_SIZE(k_dump_exception_scene)))
                return fail(ctx, E,
                            "dump.dump_scene must be one of aic_err_brief_dump, aic_err_norm_dump, "
                            "aic_err_detail_dump, lite_exception, watcher");
            scene = c;
        } else if (strcmp(k, "dump_kernel_data") == 0) {
            if (!valid_kernel_data(c))
                return fail(ctx, E, "dump.dump_kernel_data must be a comma list of all, printf, tensor, assert, timestamp");
        } else if (strcmp(k, "dump_list") == 0) {
            if (!cJSON_IsArray(c))
                return fail(ctx, E, "dump.dump_list must be an array of objects");
            for (const cJSON *m = c->child; m; m = m->next) {
                if (!cJSON_IsObject(m))
                    return fail(ctx, E, "dump.dump_list must be an array of objects");
                const cJSON *name = cJSON_GetObjectItemCaseSensitive(m, "model_name");
                const cJSON *layer = cJSON_GetObjectItemCaseSensitive(m, "layer");
                const cJSON *watch = cJSON_GetObjectItemCaseSensitive(m, "watcher_nodes");
                if ((name && !cJSON_IsString(name)) || (layer && !array_of_strings(layer)) ||
                    (watch && !array_of_strings(watch)))
                    return fail(ctx, E, "dump.dump_list entries need a string model_name and string arrays "
                                        "layer / watcher_nodes");
            }
            list = c;
        } else {
            info_unknown(ctx, "dump", k);
        }
    }
    bool list_on = list && cJSON_GetArraySize(list) > 0;
    bool op_on = is_str(op_switch, "on");
    bool debug_on = is_str(debug, "on");
    bool exception = scene && !is_str(scene, "watcher");
    if (exception && (list_on || op_on))
        return fail(ctx, E, "exception dump (dump_scene \"%s\") cannot be combined with model/op dump "
                            "(dump_list or dump_op_switch \"on\")", scene->valuestring);
    if (scene && is_str(scene, "watcher") && op_on)
        return fail(ctx, E, "dump_scene \"watcher\" cannot be combined with dump_op_switch \"on\"");
    if (debug_on && !path)
        return fail(ctx, E, "dump_debug \"on\" (overflow dump) requires dump_path");

    cfg->dump_json = print_compact(v);
    if (!cfg->dump_json)
        return fail(ctx, ACL_ERROR_BAD_ALLOC, "out of memory keeping the dump section");
    if (path) {
        cfg->dump_path = cn_strdup(path->valuestring);
        if (!cfg->dump_path)
            return fail(ctx, ACL_ERROR_BAD_ALLOC, "out of memory keeping dump.dump_path");
    }
    cfg->dump_enabled = list_on || op_on || debug_on || scene;
    return ACL_SUCCESS;
}

/* Profiler keys whose values msprof reads as strings ("on"/"off", metric names, sizes). */
static const char *const k_prof_string_keys[] = {
    "aic_metrics", "aicpu", "task_trace", "training_trace", "l2", "hccl", "msproftx", "storage_limit",
    "sys_hardware_mem_freq", "llc_profiling", "host_sys", "host_sys_usage", "host_sys_usage_freq",
    "runtime_api", "task_time", "ge_api", "sys_io_sampling_freq", "sys_interconnection_freq",
    "dvpp_freq", "aic_freq", "instr_profiling_freq", "hccl_level", "scale", "sys_cpu_freq",
};

static aclError parse_profiler(const load_ctx *ctx, const cJSON *v, cn_config *cfg)
{
    const aclError E = ACL_ERROR_INVALID_PROFILING_CONFIG;
    if (!cJSON_IsObject(v))
        return fail(ctx, E, "profiler must be an object");
    const cJSON *sw = NULL, *output = NULL;
    for (const cJSON *c = v->child; c; c = c->next) {
        const char *k = c->string;
        if (strcmp(k, "switch") == 0) {
            if (!is_on_off(c))
                return fail(ctx, E, "profiler.switch must be \"on\" or \"off\"");
            sw = c;
        } else if (strcmp(k, "output") == 0) {
            if (!cJSON_IsString(c))
                return fail(ctx, E, "profiler.output must be a string");
            output = c;
        } else {
            bool known = false;
            for (size_t i = 0; i < CN_ARRAY_SIZE(k_prof_string_keys); i++) {
                if (strcmp(k, k_prof_string_keys[i]) == 0)
                    known = true;
            }
            if (!known)
                info_unknown(ctx, "profiler", k);
            else if (!cJSON_IsString(c))
                return fail(ctx, E, "profiler.%s must be a string", k);
        }
    }
    cfg->profiler_json = print_compact(v);
    if (!cfg->profiler_json)
        return fail(ctx, ACL_ERROR_BAD_ALLOC, "out of memory keeping the profiler section");
    if (output) {
        cfg->profiler_output = cn_strdup(output->valuestring);
        if (!cfg->profiler_output)
            return fail(ctx, ACL_ERROR_BAD_ALLOC, "out of memory keeping profiler.output");
    }
    cfg->profiler_enabled = is_str(sw, "on");
    return ACL_SUCCESS;
}

/* Keys the runtime accepts but does not act on yet: type-check only. */
static aclError parse_stack_size(const load_ctx *ctx, const cJSON *v)
{
    if (!cJSON_IsObject(v))
        return fail(ctx, ACL_ERROR_INVALID_PARAM, "StackSize must be an object");
    for (const cJSON *c = v->child; c; c = c->next) {
        unsigned long long n;
        if (strcmp(c->string, "aicore_stack_size") == 0 || strcmp(c->string, "simt_stack_size") == 0 ||
            strcmp(c->string, "simt_divergence_stack_size") == 0) {
            if (!parse_count(c, UINT32_MAX, &n))
                return fail(ctx, ACL_ERROR_INVALID_PARAM, "StackSize.%s must be a non-negative integer", c->string);
        } else {
            info_unknown(ctx, "StackSize", c->string);
        }
    }
    return ACL_SUCCESS;
}

static aclError parse_acl_graph(const load_ctx *ctx, const cJSON *v)
{
    if (!cJSON_IsObject(v))
        return fail(ctx, ACL_ERROR_INVALID_PARAM, "acl_graph must be an object");
    for (const cJSON *c = v->child; c; c = c->next) {
        if (strcmp(c->string, "event_mode") == 0) {
            if (!is_str(c, "0") && !is_str(c, "1"))
                return fail(ctx, ACL_ERROR_INVALID_PARAM, "acl_graph.event_mode must be the string \"0\" or \"1\"");
        } else {
            info_unknown(ctx, "acl_graph", c->string);
        }
    }
    return ACL_SUCCESS;
}

static aclError parse_root(const load_ctx *ctx, const cJSON *root, cn_config *cfg)
{
    aclError rc = ACL_SUCCESS;
    for (const cJSON *c = root->child; c && rc == ACL_SUCCESS; c = c->next) {
        const char *k = c->string;
        unsigned long long n;
        if (strcmp(k, "err_msg_mode") == 0) {
            rc = parse_err_msg_mode(ctx, c, cfg);
        } else if (strcmp(k, "defaultDevice") == 0) {
            rc = parse_default_device(ctx, c, cfg);
        } else if (strcmp(k, "max_opqueue_num") == 0) {
            rc = parse_max_opqueue(ctx, c, cfg);
        } else if (strcmp(k, "dump") == 0) {
            /* A repeated section: the last one counts (cJSON keeps duplicates in order). */
            cn_free(cfg->dump_json);
            cn_free(cfg->dump_path);
            cfg->dump_json = cfg->dump_path = NULL;
            rc = parse_dump(ctx, c, cfg);
        } else if (strcmp(k, "profiler") == 0) {
            cn_free(cfg->profiler_json);
            cn_free(cfg->profiler_output);
            cfg->profiler_json = cfg->profiler_output = NULL;
            rc = parse_profiler(ctx, c, cfg);
        } else if (strcmp(k, "StackSize") == 0) {
            rc = parse_stack_size(ctx, c);
        } else if (strcmp(k, "acl_graph") == 0) {
            rc = parse_acl_graph(ctx, c);
        } else if (strcmp(k, "simd_printf_fifo_size_per_core") == 0 || strcmp(k, "simt_printf_fifo_size") == 0) {
            if (!parse_count(c, UINT32_MAX, &n))
                rc = fail(ctx, ACL_ERROR_INVALID_PARAM, "%s must be a non-negative integer", k);
        } else {
            info_unknown(ctx, NULL, k);
        }
    }
    return rc;
}

aclError cn_config_load(const char *path, cn_config *out)
{
    if (!out)
        return cn_error(ACL_ERROR_INVALID_PARAM, "aclInit: internal error: no config to fill");
    cn_config_defaults(out);
    if (!path || !*path)
        return ACL_SUCCESS;

    load_ctx ctx = {.path = path};
    char *data;
    size_t size;
    aclError rc = read_file(&ctx, &data, &size);
    if (rc != ACL_SUCCESS)
        return rc;

    /* JSON text never holds a NUL byte (in a string it must be escaped), and cJSON would end a
     * string at one: "1<NUL>x" would read as "1". */
    const char *nul = memchr(data, '\0', size);
    if (nul) {
        size_t off = (size_t)(nul - data);
        cn_free(data);
        return fail(&ctx, ACL_ERROR_PARSE_FILE, "a NUL byte at offset %zu", off);
    }

    cn_config cfg;
    cn_config_defaults(&cfg);
    cfg.content_hash = fnv1a64((const unsigned char *)data, size);
    if (only_whitespace(data, size)) {
        cn_free(data);
        *out = cfg;
        return ACL_SUCCESS;
    }
    rc = check_nesting(&ctx, data, size);
    if (rc != ACL_SUCCESS) {
        cn_free(data);
        return rc;
    }

    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(data, size, &end, false);
    if (!root) {
        /* Report where parsing stopped as line:column (cJSON sets `end` on failure too). */
        size_t off = (end && end >= data && end <= data + size) ? (size_t)(end - data) : 0;
        unsigned line = 1, col = 1;
        for (size_t i = 0; i < off; i++) {
            if (data[i] == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        cn_free(data);
        return fail(&ctx, ACL_ERROR_PARSE_FILE, "malformed JSON near line %u column %u", line, col);
    }
    /* Anything but whitespace after the value is an error too ("{} x"). */
    if (end && !only_whitespace(end, size - (size_t)(end - data))) {
        cJSON_Delete(root);
        cn_free(data);
        return fail(&ctx, ACL_ERROR_PARSE_FILE, "trailing characters after the JSON value");
    }
    rc = check_no_nul(&ctx, data, size);
    cn_free(data);
    if (rc != ACL_SUCCESS) {
        cJSON_Delete(root);
        return rc;
    }
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return fail(&ctx, ACL_ERROR_PARSE_FILE, "the top level must be a JSON object");
    }
    rc = parse_root(&ctx, root, &cfg);
    cJSON_Delete(root);
    if (rc != ACL_SUCCESS) {
        cn_config_free(&cfg);
        return rc;
    }
    *out = cfg;
    return ACL_SUCCESS;
}
