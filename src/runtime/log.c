/* Leveled logging and the error-reporting state behind aclGetRecentErrMsg / aclrtGetLastError.
 *
 * Logging: CANN's own default for ASCEND_GLOBAL_LOG_LEVEL is 3 (ERROR), written to plog files under
 * $HOME/ascend/log. We deliberately stay silent unless the variable is set to 0..3: a portable
 * runtime that quietly creates files in the user's home directory, or writes to stderr on every
 * failed call that the application already handles, would be a surprise. The error text is still
 * collected for aclGetRecentErrMsg whatever the log level.
 *
 * Error text: each message gets a CANN-shaped prefix "<ID>: [PID: n] <timestamp> ". The ID tells
 * which layer reported it, following CANN's catalogue (EH = ACL layer, EE = runtime):
 *     107xxx runtime parameter/feature codes  -> EE1001 (invalid argument)
 *     207xxx runtime resource codes           -> EE2002 (resource)
 *     507xxx runtime internal/device codes    -> EE9999 (internal error)
 *     1xxxxx other ACL parameter/file/config  -> EH0001 (invalid argument or configuration)
 *     2xxxxx other ACL resource codes         -> EH0002 (resource, e.g. ACL_ERROR_BAD_ALLOC)
 *     anything else (5xxxxx, unknown)         -> EH9999 (internal error)
 */
#define _GNU_SOURCE /* program_invocation_short_name */
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "env.h"

/* ------------------------------------------------------------------------------------------ */
/* Logging configuration                                                                       */
/* ------------------------------------------------------------------------------------------ */

#define CN_LOG_MAX_MODULES 32
#define CN_LOG_MODULE_NAME_MAX 32
#define CN_LOG_LINE_MAX 4096

typedef struct {
    char name[CN_LOG_MODULE_NAME_MAX];
    int level;
} cn_log_module;

/*
 * The hot check reads only atomics: g_min_level is the most verbose level any module may log at
 * (CN_LOG_NULL when logging is off, the default), so the common "logging off" case is one load
 * and one compare. g_acl_level caches the effective level of "ASCENDCL", the module of every
 * CN_LOG* call. Other modules with overrides in place fall back to the table under g_cfg_lock.
 */
static _Atomic int g_min_level = CN_LOG_NULL;
static _Atomic int g_acl_level = CN_LOG_NULL;

/* Guards the module table and the destination; writers of log lines take it shared so that a
 * reconfiguration cannot close the file descriptor under them. */
static pthread_rwlock_t g_cfg_lock = PTHREAD_RWLOCK_INITIALIZER;
static int g_global_level = CN_LOG_NULL;
static cn_log_module g_modules[CN_LOG_MAX_MODULES];
static int g_module_count;
static int g_out_fd = STDERR_FILENO;
static bool g_out_is_file;      /* g_out_fd is ours to close */
static char g_out_dir[4096];    /* ASCEND_PROCESS_LOG_PATH the file was opened under */

/* 0..4 from a one-digit string; anything else (empty, "5", " 1", "1x") is invalid (-1). */
static int parse_level(const char *s, size_t len)
{
    if (len != 1 || s[0] < '0' || s[0] > '4')
        return -1;
    return s[0] - '0';
}

/* Parse "MOD=lvl:MOD=lvl". Returns the number of entries, or -1 when any token is malformed
 * (CANN then ignores the whole setting). */
static int parse_modules(const char *spec, cn_log_module *mods, int max)
{
    int n = 0;
    const char *p = spec;
    while (*p) {
        const char *end = strchr(p, ':');
        size_t tok_len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', tok_len);
        if (!eq)
            return -1;
        size_t name_len = (size_t)(eq - p);
        if (name_len == 0 || name_len >= CN_LOG_MODULE_NAME_MAX)
            return -1;
        for (size_t i = 0; i < name_len; i++) {
            char c = p[i];
            if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
                return -1;
        }
        int lvl = parse_level(eq + 1, tok_len - name_len - 1);
        if (lvl < 0)
            return -1;
        /* A repeated module: the later token wins, like the environment-variable convention. */
        int slot = n;
        for (int i = 0; i < n; i++) {
            if (strlen(mods[i].name) == name_len && strncmp(mods[i].name, p, name_len) == 0) {
                slot = i;
                break;
            }
        }
        if (slot == n) {
            if (n == max)
                return -1;
            n++;
        }
        memcpy(mods[slot].name, p, name_len);
        mods[slot].name[name_len] = '\0';
        mods[slot].level = lvl;
        if (!end)
            break;
        p = end + 1;
        if (!*p)
            return -1; /* trailing ':' is an empty token */
    }
    return n;
}

/* Effective level of `module`; caller holds g_cfg_lock. */
static int module_level_locked(const char *module)
{
    for (int i = 0; i < g_module_count; i++) {
        if (strcmp(g_modules[i].name, module) == 0)
            return g_modules[i].level;
    }
    return g_global_level;
}

/* "1" means print to stdout; the new variable, when set at all, beats the deprecated one. */
static bool print_to_stdout(void)
{
    const char *v = cannon_env_get("ASCEND_LOG_PRINT_TO_STDOUT");
    if (!v)
        v = cannon_env_get("ASCEND_SLOG_PRINT_TO_STDOUT");
    return v && strcmp(v, "1") == 0;
}

static void format_time(char *buf, size_t n, bool for_file_name)
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (!localtime_r(&ts.tv_sec, &tm))
        memset(&tm, 0, sizeof tm);
    unsigned ms = (unsigned)(ts.tv_nsec / 1000000), us = (unsigned)(ts.tv_nsec / 1000 % 1000);
    if (for_file_name)
        snprintf(buf, n, "%04d%02d%02d%02d%02d%02d%03u", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                 tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
    else
        snprintf(buf, n, "%04d-%02d-%02d-%02d:%02d:%02d.%03u.%03u", tm.tm_year + 1900, tm.tm_mon + 1,
                 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms, us);
}

/* Open plog-<pid>_<timestamp>.log under dir, creating dir (one level) if needed; -1 on failure. */
static int open_log_file(const char *dir)
{
    char ts[32], path[4096 + 64];
    (void)mkdir(dir, 0750); /* EEXIST is the usual case; a real failure shows up in open() */
    format_time(ts, sizeof ts, true);
    int n = snprintf(path, sizeof path, "%s/plog-%ld_%s.log", dir, (long)getpid(), ts);
    if (n < 0 || (size_t)n >= sizeof path)
        return -1;
    return open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
}

void cn_log_configure(void)
{
    const char *g = cannon_env_get("ASCEND_GLOBAL_LOG_LEVEL");
    int global = g ? parse_level(g, strlen(g)) : -1;
    if (global < 0)
        global = CN_LOG_NULL; /* unset, empty or invalid: silent (see the top of this file) */

    cn_log_module mods[CN_LOG_MAX_MODULES];
    const char *m = cannon_env_get("ASCEND_MODULE_LOG_LEVEL");
    int nmods = (m && *m) ? parse_modules(m, mods, CN_LOG_MAX_MODULES) : 0;
    if (nmods < 0)
        nmods = 0;

    int min = global, acl = global;
    for (int i = 0; i < nmods; i++) {
        if (mods[i].level < min)
            min = mods[i].level;
        if (strcmp(mods[i].name, "ASCENDCL") == 0)
            acl = mods[i].level;
    }

    bool to_stdout = print_to_stdout();
    const char *dir = cannon_env_get("ASCEND_PROCESS_LOG_PATH");
    bool want_file = !to_stdout && dir && *dir && strlen(dir) < sizeof g_out_dir;

    pthread_rwlock_wrlock(&g_cfg_lock);
    g_global_level = global;
    memcpy(g_modules, mods, sizeof(cn_log_module) * (size_t)nmods);
    g_module_count = nmods;

    /* Keep an already open file when the directory did not change, so that repeated aclInit
     * calls append to one file instead of starting a new one each time. Only open a file when
     * something can be logged at all, so the silent default never creates files. */
    bool keep = want_file && g_out_is_file && strcmp(g_out_dir, dir) == 0;
    if (!keep) {
        if (g_out_is_file)
            close(g_out_fd);
        g_out_is_file = false;
        g_out_dir[0] = '\0';
        g_out_fd = to_stdout ? STDOUT_FILENO : STDERR_FILENO;
        if (want_file && min < CN_LOG_NULL) {
            int fd = open_log_file(dir);
            if (fd >= 0) { /* on failure keep logging to stderr rather than losing lines */
                g_out_fd = fd;
                g_out_is_file = true;
                strcpy(g_out_dir, dir);
            }
        }
    }
    atomic_store_explicit(&g_acl_level, acl, memory_order_relaxed);
    atomic_store_explicit(&g_min_level, min, memory_order_release);
    pthread_rwlock_unlock(&g_cfg_lock);
}

bool cn_log_enabled(int level, const char *module)
{
    if (CN_LIKELY(level < atomic_load_explicit(&g_min_level, memory_order_acquire)))
        return false;
    if (level >= CN_LOG_NULL)
        return false;
    if (!module || strcmp(module, "ASCENDCL") == 0)
        return level >= atomic_load_explicit(&g_acl_level, memory_order_relaxed);
    pthread_rwlock_rdlock(&g_cfg_lock);
    int lvl = module_level_locked(module);
    pthread_rwlock_unlock(&g_cfg_lock);
    return level >= lvl;
}

static const char *level_name(int level)
{
    switch (level) {
    case CN_LOG_DEBUG: return "DEBUG";
    case CN_LOG_INFO: return "INFO";
    case CN_LOG_WARNING: return "WARNING";
    default: return "ERROR";
    }
}

static const char *process_name(void)
{
#ifdef __GLIBC__
    return program_invocation_short_name;
#else
    return "unknown";
#endif
}

static const char *base_name(const char *path)
{
    if (!path)
        return "?";
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

void cn_log_vwrite(int level, const char *module, const char *file, int line, const char *fmt, va_list ap)
{
    if (!cn_log_enabled(level, module))
        return;
    if (!module)
        module = "ASCENDCL";
    int saved_errno = errno; /* callers may log between a failing call and reading errno */

    /* Fixed stack buffer: logging must not allocate (it runs on error paths, including
     * allocation failures); long messages are cut and marked with "...". */
    char buf[CN_LOG_LINE_MAX];
    char ts[48];
    format_time(ts, sizeof ts, false);
    int off = snprintf(buf, sizeof buf, "[%s] %s(%ld,%s):%s [%s:%d]", level_name(level), module,
                       (long)getpid(), process_name(), ts, base_name(file), line);
    if (off < 0) {
        errno = saved_errno;
        return;
    }
    size_t len = (size_t)off < sizeof buf ? (size_t)off : sizeof buf - 1;
    int m = vsnprintf(buf + len, sizeof buf - len, fmt ? fmt : "", ap);
    if (m > 0)
        len += (size_t)m < sizeof buf - len ? (size_t)m : sizeof buf - len - 1;
    if (len > sizeof buf - 2) {
        len = sizeof buf - 2;
        memcpy(buf + len - 3, "...", 3);
    }
    buf[len++] = '\n';

    /* One write() per line keeps lines from different threads whole (O_APPEND for files). */
    pthread_rwlock_rdlock(&g_cfg_lock);
    ssize_t w;
    do {
        w = write(g_out_fd, buf, len);
    } while (w < 0 && errno == EINTR);
    pthread_rwlock_unlock(&g_cfg_lock);
    errno = saved_errno;
}

void cn_log_write(int level, const char *module, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cn_log_vwrite(level, module, file, line, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------------------------------ */
/* Error state                                                                                 */
/* ------------------------------------------------------------------------------------------ */

/* Bound on the accumulated recent-error text: older messages are dropped first. */
#define CN_ERR_TEXT_MAX 8192
#define CN_ERR_MSG_MAX 1024

typedef struct {
    char *recent;   /* newest first, '\n'-separated; NULL when empty */
    size_t len;
    char *returned; /* what the last cn_error_take_recent handed out */
    bool registered;
} cn_err_tls;

/* The struct itself is _Thread_local (no allocation needed to exist); a pthread key whose
 * value points at it makes its destructor free the heap parts when the thread exits. */
static _Thread_local cn_err_tls t_err;
static _Thread_local aclError t_last_error;

static pthread_once_t g_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t g_key;
static bool g_key_ok;

static _Atomic int g_err_mode;
static pthread_mutex_t g_err_lock = PTHREAD_MUTEX_INITIALIZER;
static char *g_recent;
static size_t g_recent_len;

static void tls_destroy(void *p)
{
    cn_err_tls *t = p;
    cn_free(t->recent);
    cn_free(t->returned);
    t->recent = t->returned = NULL;
    t->len = 0;
    t->registered = false;
}

static void key_init(void) { g_key_ok = pthread_key_create(&g_key, tls_destroy) == 0; }

/* Called before the thread's struct first owns heap memory. */
static void tls_register(void)
{
    if (t_err.registered)
        return;
    pthread_once(&g_key_once, key_init);
    if (g_key_ok && pthread_setspecific(g_key, &t_err) == 0)
        t_err.registered = true;
}

static const char *message_id(aclError code)
{
    int cls = (int)(code / 1000);
    if (cls == 107)
        return "EE1001";
    if (cls == 207)
        return "EE2002";
    if (cls == 507)
        return "EE9999";
    if (code >= 100000 && code < 200000)
        return "EH0001";
    if (code >= 200000 && code < 300000)
        return "EH0002";
    return "EH9999";
}

/* Put msg (msg_len bytes) in front of *text, dropping the oldest whole messages so that the
 * result stays within CN_ERR_TEXT_MAX. On allocation failure the old text is kept as is. */
static void prepend(char **text, size_t *len, const char *msg, size_t msg_len)
{
    if (msg_len > CN_ERR_TEXT_MAX)
        msg_len = CN_ERR_TEXT_MAX;
    size_t keep = 0;
    if (*text && msg_len + 1 < CN_ERR_TEXT_MAX) {
        size_t avail = CN_ERR_TEXT_MAX - msg_len - 1; /* room after msg and its '\n' */
        if (*len <= avail) {
            keep = *len;
        } else {
            /* Cut at the last separator that fits, so only whole messages remain. */
            const char *old = *text;
            for (size_t i = avail + 1; i-- > 0;) {
                if (old[i] == '\n') {
                    keep = i;
                    break;
                }
            }
        }
    }
    size_t total = msg_len + (keep ? 1 + keep : 0);
    char *n = cn_malloc(total + 1);
    if (!n)
        return;
    memcpy(n, msg, msg_len);
    if (keep) {
        n[msg_len] = '\n';
        memcpy(n + msg_len + 1, *text, keep);
    }
    n[total] = '\0';
    cn_free(*text);
    *text = n;
    *len = total;
}

aclError cn_verror(aclError code, const char *fmt, va_list ap)
{
    int saved_errno = errno; /* reporting an error must not change the errno being reported */
    t_last_error = code;

    char msg[CN_ERR_MSG_MAX];
    int m = vsnprintf(msg, sizeof msg, fmt ? fmt : "", ap);
    if (m < 0)
        msg[0] = '\0';
    else if ((size_t)m >= sizeof msg)
        memcpy(msg + sizeof msg - 4, "...", 4);

    cn_log_write(CN_LOG_ERROR, "ASCENDCL", __FILE__, __LINE__, "%s(%d): %s", message_id(code), (int)code, msg);

    char full[CN_ERR_MSG_MAX + 96];
    char ts[48];
    format_time(ts, sizeof ts, false);
    int n = snprintf(full, sizeof full, "%s: [PID: %ld] %s %s", message_id(code), (long)getpid(), ts, msg);
    if (n < 0) {
        errno = saved_errno;
        return code;
    }
    size_t len = (size_t)n < sizeof full ? (size_t)n : sizeof full - 1;

    if (atomic_load_explicit(&g_err_mode, memory_order_relaxed)) {
        pthread_mutex_lock(&g_err_lock);
        prepend(&g_recent, &g_recent_len, full, len);
        pthread_mutex_unlock(&g_err_lock);
    } else {
        tls_register();
        prepend(&t_err.recent, &t_err.len, full, len);
    }
    errno = saved_errno;
    return code;
}

aclError cn_error(aclError code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cn_verror(code, fmt, ap);
    va_end(ap);
    return code;
}

void cn_error_set_mode(int process_wide)
{
    atomic_store_explicit(&g_err_mode, process_wide ? 1 : 0, memory_order_relaxed);
}

const char *cn_error_take_recent(void)
{
    char *text;
    if (atomic_load_explicit(&g_err_mode, memory_order_relaxed)) {
        /* Hand the process buffer over to this thread: the thread owns what it returned. */
        pthread_mutex_lock(&g_err_lock);
        text = g_recent;
        g_recent = NULL;
        g_recent_len = 0;
        pthread_mutex_unlock(&g_err_lock);
    } else {
        text = t_err.recent;
        t_err.recent = NULL;
        t_err.len = 0;
    }
    cn_free(t_err.returned);
    t_err.returned = text;
    if (text)
        tls_register();
    return text;
}

aclError cn_error_last(bool clear)
{
    aclError e = t_last_error;
    if (clear)
        t_last_error = ACL_SUCCESS;
    return e;
}

void cn_error_reset_all(void)
{
    pthread_mutex_lock(&g_err_lock);
    cn_free(g_recent);
    g_recent = NULL;
    g_recent_len = 0;
    pthread_mutex_unlock(&g_err_lock);
    cn_free(t_err.recent);
    cn_free(t_err.returned);
    t_err.recent = t_err.returned = NULL;
    t_err.len = 0;
}
