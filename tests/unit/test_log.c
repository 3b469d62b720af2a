/* Unit tests of logging and error reporting (src/runtime/log.c). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

static const char *const k_log_vars[] = {
    "ASCEND_GLOBAL_LOG_LEVEL", "ASCEND_MODULE_LOG_LEVEL", "ASCEND_LOG_PRINT_TO_STDOUT",
    "ASCEND_SLOG_PRINT_TO_STDOUT", "ASCEND_PROCESS_LOG_PATH",
};

static void clear_env(void)
{
    for (size_t i = 0; i < sizeof k_log_vars / sizeof k_log_vars[0]; i++)
        unsetenv(k_log_vars[i]);
}

typedef struct {
    char dir[64];
} log_state;

static int setup(void **state)
{
    log_state *s = calloc(1, sizeof *s);
    assert_non_null(s);
    strcpy(s->dir, "/tmp/cannon_log_XXXXXX");
    assert_non_null(mkdtemp(s->dir));
    clear_env();
    cn_log_configure();
    cn_error_set_mode(0);
    cn_error_reset_all();
    cn_error_last(true);
    *state = s;
    return 0;
}

static int teardown(void **state)
{
    log_state *s = *state;
    clear_env();
    cn_log_configure(); /* closes any log file */
    cn_error_set_mode(0);
    cn_error_reset_all();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", s->dir);
    if (system(cmd) != 0)
        return -1;
    free(s);
    return 0;
}

/* Concatenation of every file in dir (NUL-terminated, malloc'd), and how many files there are. */
static char *read_dir(const char *dir, int *nfiles)
{
    size_t cap = 1 << 16, len = 0;
    char *out = malloc(cap);
    assert_non_null(out);
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        n++;
        assert_true(strncmp(e->d_name, "plog-", 5) == 0);
        assert_non_null(strstr(e->d_name, ".log"));
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        FILE *f = fopen(p, "r");
        assert_non_null(f);
        size_t r;
        while ((r = fread(out + len, 1, cap - 1 - len, f)) > 0) {
            len += r;
            if (len + 1 == cap) {
                cap *= 2;
                out = realloc(out, cap);
                assert_non_null(out);
            }
        }
        fclose(f);
    }
    closedir(d);
    out[len] = '\0';
    if (nfiles)
        *nfiles = n;
    return out;
}

static void log_to_dir(const log_state *s, const char *global, const char *modules)
{
    clear_env();
    if (global)
        setenv("ASCEND_GLOBAL_LOG_LEVEL", global, 1);
    if (modules)
        setenv("ASCEND_MODULE_LOG_LEVEL", modules, 1);
    setenv("ASCEND_PROCESS_LOG_PATH", s->dir, 1);
    cn_log_configure();
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* Run fn with file descriptor `fd` (1 or 2) redirected to a temp file; return what was written. */
static char *capture_fd(int fd, void (*fn)(void))
{
    char tmpl[] = "/tmp/cannon_cap_XXXXXX";
    int t = mkstemp(tmpl);
    assert_true(t >= 0);
    unlink(tmpl);
    fflush(stdout);
    fflush(stderr);
    int saved = dup(fd);
    assert_true(saved >= 0);
    assert_true(dup2(t, fd) >= 0);
    fn();
    fflush(stdout);
    fflush(stderr);
    assert_true(dup2(saved, fd) >= 0);
    close(saved);
    off_t size = lseek(t, 0, SEEK_END);
    char *buf = calloc(1, (size_t)size + 1);
    assert_non_null(buf);
    assert_int_equal(pread(t, buf, (size_t)size, 0), size);
    close(t);
    return buf;
}

/* ---------------------------------------------------------------------------------------- */
/* Logging                                                                                   */

static void emit_all_levels(void)
{
    CN_LOGD("debug line");
    CN_LOGI("info line");
    CN_LOGW("warning line");
    CN_LOGE("error line");
    cn_error(ACL_ERROR_INVALID_PARAM, "an error message");
}

static void test_silent_by_default(void **state)
{
    log_state *s = *state;
    clear_env();
    setenv("ASCEND_PROCESS_LOG_PATH", s->dir, 1); /* even with a directory: no level, no file */
    cn_log_configure();
    for (int l = CN_LOG_DEBUG; l <= CN_LOG_NULL; l++)
        assert_false(cn_log_enabled(l, "ASCENDCL"));
    emit_all_levels();
    int n = -1;
    free(read_dir(s->dir, &n));
    assert_int_equal(n, 0);

    clear_env();
    cn_log_configure();
    char *err = capture_fd(2, emit_all_levels);
    assert_string_equal(err, "");
    free(err);
    char *out = capture_fd(1, emit_all_levels);
    assert_string_equal(out, "");
    free(out);
}

static void test_invalid_global_level_is_off(void **state)
{
    (void)state;
    static const char *const bad[] = {"", "5", "-1", "abc", "1x", " 1", "4"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        clear_env();
        setenv("ASCEND_GLOBAL_LOG_LEVEL", bad[i], 1);
        cn_log_configure();
        for (int l = CN_LOG_DEBUG; l <= CN_LOG_NULL; l++)
            assert_false(cn_log_enabled(l, "ASCENDCL"));
    }
}

static void test_line_format_and_filter(void **state)
{
    log_state *s = *state;
    log_to_dir(s, "1", NULL);
    assert_false(cn_log_enabled(CN_LOG_DEBUG, "ASCENDCL"));
    assert_true(cn_log_enabled(CN_LOG_INFO, "ASCENDCL"));
    assert_true(cn_log_enabled(CN_LOG_ERROR, "GE"));
    assert_false(cn_log_enabled(CN_LOG_NULL, "ASCENDCL"));
    CN_LOGD("debug %d", 1);
    CN_LOGI("hello %d", 42);
    cn_log_write(CN_LOG_WARNING, "RUNTIME", "/some/dir/stream.c", 77, "warn %s", "x");
    CN_LOGE("bad thing");
    clear_env();
    cn_log_configure();

    int n;
    char *text = read_dir(s->dir, &n);
    assert_int_equal(n, 1);
    assert_null(strstr(text, "debug 1"));
    assert_int_equal(count(text, "\n"), 3);

    char pat[512];
    const char *ts = "[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}\\.[0-9]{3}";
    snprintf(pat, sizeof pat,
             "^\\[INFO\\] ASCENDCL\\(%ld,%s\\):%s \\[test_log\\.c:[0-9]+\\]hello 42\n"
             "\\[WARNING\\] RUNTIME\\(%ld,%s\\):%s \\[stream\\.c:77\\]warn x\n"
             "\\[ERROR\\] ASCENDCL\\(%ld,%s\\):%s \\[test_log\\.c:[0-9]+\\]bad thing\n$",
             (long)getpid(), program_invocation_short_name, ts, (long)getpid(), program_invocation_short_name,
             ts, (long)getpid(), program_invocation_short_name, ts);
    regex_t re;
    assert_int_equal(regcomp(&re, pat, REG_EXTENDED | REG_NOSUB), 0);
    if (regexec(&re, text, 0, NULL, 0) != 0)
        fail_msg("log text does not match:\n%s", text);
    regfree(&re);
    free(text);
}

static void test_levels(void **state)
{
    log_state *s = *state;
    log_to_dir(s, "3", NULL);
    emit_all_levels();
    log_to_dir(s, "2", NULL); /* same directory: same file, appended */
    CN_LOGI("info at 2");
    CN_LOGW("warning at 2");
    log_to_dir(s, "0", NULL);
    CN_LOGD("debug at 0");
    clear_env();
    cn_log_configure();
    int n;
    char *text = read_dir(s->dir, &n);
    assert_int_equal(n, 1);
    assert_null(strstr(text, "debug line"));
    assert_null(strstr(text, "info line"));
    assert_null(strstr(text, "warning line"));
    assert_non_null(strstr(text, "[ERROR] ASCENDCL("));
    assert_non_null(strstr(text, "error line"));
    /* cn_error logs at ERROR with its message ID and code */
    assert_non_null(strstr(text, "EH0001(100000): an error message"));
    assert_null(strstr(text, "info at 2"));
    assert_non_null(strstr(text, "[WARNING] ASCENDCL("));
    assert_non_null(strstr(text, "[DEBUG] ASCENDCL("));
    assert_non_null(strstr(text, "debug at 0"));
    free(text);
}

static void test_module_override(void **state)
{
    log_state *s = *state;
    log_to_dir(s, "3", "RUNTIME=2:ASCENDCL=0");
    assert_true(cn_log_enabled(CN_LOG_DEBUG, "ASCENDCL"));
    assert_false(cn_log_enabled(CN_LOG_INFO, "RUNTIME"));
    assert_true(cn_log_enabled(CN_LOG_WARNING, "RUNTIME"));
    assert_false(cn_log_enabled(CN_LOG_WARNING, "GE"));
    assert_true(cn_log_enabled(CN_LOG_ERROR, "GE"));
    CN_LOGD("acl debug");
    cn_log_write(CN_LOG_INFO, "RUNTIME", __FILE__, __LINE__, "runtime info");
    cn_log_write(CN_LOG_WARNING, "RUNTIME", __FILE__, __LINE__, "runtime warning");
    cn_log_write(CN_LOG_WARNING, "GE", __FILE__, __LINE__, "ge warning");

    /* module override without a global level: only that module logs */
    log_to_dir(s, NULL, "APP=1");
    assert_false(cn_log_enabled(CN_LOG_ERROR, "ASCENDCL"));
    assert_true(cn_log_enabled(CN_LOG_INFO, "APP"));
    assert_false(cn_log_enabled(CN_LOG_DEBUG, "APP"));
    cn_log_write(CN_LOG_INFO, "APP", __FILE__, __LINE__, "app info");
    CN_LOGE("acl error while off");
    clear_env();
    cn_log_configure();

    char *text = read_dir(s->dir, NULL);
    assert_non_null(strstr(text, "[DEBUG] ASCENDCL("));
    assert_non_null(strstr(text, "acl debug"));
    assert_null(strstr(text, "runtime info"));
    assert_non_null(strstr(text, "runtime warning"));
    assert_null(strstr(text, "ge warning"));
    assert_non_null(strstr(text, "[INFO] APP("));
    assert_null(strstr(text, "acl error while off"));
    free(text);
}

static void test_malformed_module_setting_ignored(void **state)
{
    log_state *s = *state;
    static const char *const bad[] = {
        "ASCENDCL=0:BAD", "ASCENDCL=0:RUNTIME=9", "ASCENDCL=0:=1", "ASCENDCL=0:", "ASCENDCL=01",
        "ASCENDCL0", "ASCENDCL=0::GE=1", "ASC ENDCL=0", ":ASCENDCL=0",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        log_to_dir(s, "2", bad[i]);
        if (cn_log_enabled(CN_LOG_DEBUG, "ASCENDCL"))
            fail_msg("\"%s\" should have been ignored", bad[i]);
        assert_true(cn_log_enabled(CN_LOG_WARNING, "ASCENDCL"));
        assert_false(cn_log_enabled(CN_LOG_INFO, "RUNTIME"));
    }
    /* and a valid one right after works */
    log_to_dir(s, "2", "ASCENDCL=0");
    assert_true(cn_log_enabled(CN_LOG_DEBUG, "ASCENDCL"));
}

static void emit_one(void) { CN_LOGE("to a stream"); }

static char *g_inner;
static void emit_one_capturing_stdout(void) { g_inner = capture_fd(1, emit_one); }

static void test_stdout_and_stderr(void **state)
{
    log_state *s = *state;
    /* default destination: stderr */
    clear_env();
    setenv("ASCEND_GLOBAL_LOG_LEVEL", "3", 1);
    cn_log_configure();
    char *err = capture_fd(2, emit_one);
    assert_non_null(strstr(err, "[ERROR] ASCENDCL("));
    assert_non_null(strstr(err, "to a stream\n"));
    free(err);

    /* ASCEND_LOG_PRINT_TO_STDOUT=1 beats ASCEND_PROCESS_LOG_PATH */
    setenv("ASCEND_LOG_PRINT_TO_STDOUT", "1", 1);
    setenv("ASCEND_PROCESS_LOG_PATH", s->dir, 1);
    cn_log_configure();
    char *out = capture_fd(1, emit_one);
    assert_non_null(strstr(out, "to a stream\n"));
    free(out);
    int n;
    free(read_dir(s->dir, &n));
    assert_int_equal(n, 0);

    /* deprecated spelling works when the new one is unset ... */
    unsetenv("ASCEND_LOG_PRINT_TO_STDOUT");
    unsetenv("ASCEND_PROCESS_LOG_PATH");
    setenv("ASCEND_SLOG_PRINT_TO_STDOUT", "1", 1);
    cn_log_configure();
    out = capture_fd(1, emit_one);
    assert_non_null(strstr(out, "to a stream\n"));
    free(out);

    /* ... and the new one wins when both are set: back to stderr */
    setenv("ASCEND_LOG_PRINT_TO_STDOUT", "0", 1);
    cn_log_configure();
    err = capture_fd(2, emit_one_capturing_stdout);
    assert_string_equal(g_inner, "");
    free(g_inner);
    assert_non_null(strstr(err, "to a stream\n"));
    free(err);
}

static void test_long_line_truncated(void **state)
{
    log_state *s = *state;
    log_to_dir(s, "0", NULL);
    char *big = malloc(20000);
    assert_non_null(big);
    memset(big, 'x', 19999);
    big[19999] = '\0';
    CN_LOGI("%s", big);
    CN_LOGI("after");
    free(big);
    clear_env();
    cn_log_configure();
    char *text = read_dir(s->dir, NULL);
    char *nl = strchr(text, '\n');
    assert_non_null(nl);
    assert_true(nl - text < 8192);
    assert_memory_equal(nl - 3, "...", 3);
    assert_non_null(strstr(nl + 1, "]after\n"));
    free(text);
}

#define WRITERS 4
#define LINES_PER_WRITER 500

static void *writer(void *arg)
{
    long id = (long)(intptr_t)arg;
    for (int i = 0; i < LINES_PER_WRITER; i++)
        CN_LOGW("thread %ld line %d payload-payload-payload-payload-payload-payload-end", id, i);
    return NULL;
}

static void *reconfigurer(void *arg)
{
    (void)arg;
    for (int i = 0; i < 50; i++)
        cn_log_configure(); /* same environment: must keep the same file */
    return NULL;
}

static void test_concurrent_lines_whole(void **state)
{
    log_state *s = *state;
    log_to_dir(s, "2", "RUNTIME=1");
    pthread_t t[WRITERS + 1];
    for (long i = 0; i < WRITERS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, writer, (void *)(intptr_t)i), 0);
    assert_int_equal(pthread_create(&t[WRITERS], NULL, reconfigurer, NULL), 0);
    for (int i = 0; i <= WRITERS; i++)
        pthread_join(t[i], NULL);
    clear_env();
    cn_log_configure();
    int n;
    char *text = read_dir(s->dir, &n);
    assert_int_equal(n, 1);
    assert_int_equal(count(text, "\n"), WRITERS * LINES_PER_WRITER);
    assert_int_equal(count(text, "[WARNING] ASCENDCL("), WRITERS * LINES_PER_WRITER);
    assert_int_equal(count(text, "payload-end\n"), WRITERS * LINES_PER_WRITER);
    free(text);
}

/* ---------------------------------------------------------------------------------------- */
/* Error state                                                                               */

static void test_error_returns_and_last(void **state)
{
    (void)state;
    assert_int_equal(cn_error_last(false), ACL_SUCCESS);
    assert_int_equal(cn_error(ACL_ERROR_INVALID_PARAM, "x %d", 1), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(cn_error_last(false), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(cn_error_last(false), ACL_ERROR_INVALID_PARAM); /* peek keeps it */
    assert_int_equal(cn_error(ACL_ERROR_BAD_ALLOC, "y"), ACL_ERROR_BAD_ALLOC);
    assert_int_equal(cn_error_last(true), ACL_ERROR_BAD_ALLOC);     /* get clears */
    assert_int_equal(cn_error_last(false), ACL_SUCCESS);
}

static void test_message_shape(void **state)
{
    (void)state;
    assert_null(cn_error_take_recent());
    cn_error(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: devPtr is %s", "NULL");
    const char *m = cn_error_take_recent();
    assert_non_null(m);
    char pat[256];
    snprintf(pat, sizeof pat,
             "^EH0001: \\[PID: %ld\\] [0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}\\.[0-9]{3} "
             "aclrtMalloc: devPtr is NULL$",
             (long)getpid());
    regex_t re;
    assert_int_equal(regcomp(&re, pat, REG_EXTENDED | REG_NOSUB), 0);
    if (regexec(&re, m, 0, NULL, 0) != 0)
        fail_msg("unexpected message: %s", m);
    regfree(&re);
    assert_null(cn_error_take_recent()); /* take clears */
}

static void test_message_ids(void **state)
{
    (void)state;
    static const struct { aclError code; const char *id; } map[] = {
        {100000, "EH0001"}, {100006, "EH0001"}, {148048, "EH0001"}, {200000, "EH0002"},
        {500001, "EH9999"}, {107000, "EE1001"}, {107003, "EE1001"}, {207001, "EE2002"},
        {507011, "EE9999"}, {500000, "EH9999"}, {42, "EH9999"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        cn_error(map[i].code, "m");
        const char *m = cn_error_take_recent();
        assert_non_null(m);
        if (strncmp(m, map[i].id, 6) != 0 || m[6] != ':')
            fail_msg("code %d: got %s, want %s", (int)map[i].code, m, map[i].id);
    }
}

static void test_newest_first(void **state)
{
    (void)state;
    cn_error(ACL_ERROR_INVALID_PARAM, "first");
    cn_error(ACL_ERROR_INVALID_PARAM, "second");
    cn_error(ACL_ERROR_INVALID_PARAM, "third");
    const char *m = cn_error_take_recent();
    assert_non_null(m);
    assert_int_equal(count(m, "\n"), 2);
    const char *a = strstr(m, "third"), *b = strstr(m, "second"), *c = strstr(m, "first");
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(c);
    assert_true(a < b && b < c);
    assert_int_equal(m[strlen(m) - 1], 't'); /* no trailing separator */
    char *copy = strdup(m);
    /* the pointer stays valid (and unchanged) until the next take */
    cn_error(ACL_ERROR_INVALID_PARAM, "fourth");
    assert_string_equal(m, copy);
    free(copy);
    m = cn_error_take_recent();
    assert_non_null(strstr(m, "fourth"));
    assert_null(strstr(m, "third"));
}

static void test_bounded(void **state)
{
    (void)state;
    for (int i = 0; i < 2000; i++)
        cn_error(ACL_ERROR_INVALID_PARAM, "message number %d with some padding to make it longer", i);
    const char *m = cn_error_take_recent();
    assert_non_null(m);
    size_t len = strlen(m);
    assert_true(len <= 8192);
    assert_true(len > 4096);
    assert_non_null(strstr(m, "message number 1999 "));
    assert_true(strstr(m, "message number 1999 ") < strstr(m, "message number 1998 "));
    assert_null(strstr(m, "message number 0 "));
    /* only whole messages: every line is a complete one */
    size_t lines = count(m, "\n") + 1;
    assert_int_equal(count(m, "EH0001: [PID: "), lines);
    assert_int_equal(count(m, "make it longer"), lines);

    /* a single huge message is cut, not dropped */
    char *big = malloc(50000);
    assert_non_null(big);
    memset(big, 'y', 49999);
    big[49999] = '\0';
    cn_error(ACL_ERROR_INVALID_PARAM, "%s", big);
    free(big);
    m = cn_error_take_recent();
    assert_non_null(m);
    assert_true(strlen(m) <= 8192);
    assert_true(strlen(m) > 500);
}

typedef struct {
    int mode;
    const char *text;
    char seen[256];
    pthread_barrier_t *bar;
} thr_arg;

static void *err_thread(void *p)
{
    thr_arg *a = p;
    cn_error(ACL_ERROR_INVALID_PARAM, "%s", a->text);
    pthread_barrier_wait(a->bar); /* both threads have reported */
    const char *m = cn_error_take_recent();
    snprintf(a->seen, sizeof a->seen, "%s", m ? m : "(null)");
    pthread_barrier_wait(a->bar);
    /* leave one message behind: the thread-exit destructor must free it (ASan leak check) */
    cn_error(ACL_ERROR_INVALID_PARAM, "left behind");
    cn_error_take_recent();
    cn_error(ACL_ERROR_INVALID_PARAM, "left behind 2");
    return NULL;
}

static void test_per_thread_isolation(void **state)
{
    (void)state;
    cn_error_set_mode(0);
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, 2);
    thr_arg a = {.text = "from thread A", .bar = &bar}, b = {.text = "from thread B", .bar = &bar};
    pthread_t ta, tb;
    assert_int_equal(pthread_create(&ta, NULL, err_thread, &a), 0);
    assert_int_equal(pthread_create(&tb, NULL, err_thread, &b), 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    pthread_barrier_destroy(&bar);
    assert_non_null(strstr(a.seen, "from thread A"));
    assert_null(strstr(a.seen, "from thread B"));
    assert_non_null(strstr(b.seen, "from thread B"));
    assert_null(strstr(b.seen, "from thread A"));
    assert_null(cn_error_take_recent()); /* the main thread saw none of it */
    assert_int_equal(cn_error_last(false), ACL_SUCCESS);
}

static void *report_one(void *p)
{
    cn_error(ACL_ERROR_INVALID_FILE, "%s", (const char *)p);
    return NULL;
}

static void test_process_mode(void **state)
{
    (void)state;
    cn_error_set_mode(1);
    cn_error(ACL_ERROR_INVALID_PARAM, "main first");
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, report_one, "from a worker"), 0);
    pthread_join(t, NULL);
    assert_int_equal(cn_error_last(false), ACL_ERROR_INVALID_PARAM); /* last error stays per thread */
    const char *m = cn_error_take_recent();
    assert_non_null(m);
    assert_non_null(strstr(m, "main first"));
    assert_non_null(strstr(m, "from a worker"));
    assert_true(strstr(m, "from a worker") < strstr(m, "main first"));
    assert_null(cn_error_take_recent());

    /* a message reported in process mode is visible to another thread's take */
    cn_error(ACL_ERROR_INVALID_PARAM, "for the worker");
    cn_error_set_mode(0);
    assert_null(cn_error_take_recent()); /* mode 0 reads the (empty) thread buffer */
    cn_error_set_mode(1);
    m = cn_error_take_recent();
    assert_non_null(m);
    assert_non_null(strstr(m, "for the worker"));

    /* reset_all frees the process buffer */
    cn_error(ACL_ERROR_INVALID_PARAM, "dropped");
    cn_error_reset_all();
    assert_null(cn_error_take_recent());
    cn_error_set_mode(0);
}

static void *process_mode_hammer(void *p)
{
    (void)p;
    for (int i = 0; i < 300; i++) {
        cn_error(ACL_ERROR_INVALID_PARAM, "hammer %d", i);
        if (i % 7 == 0)
            (void)cn_error_take_recent();
    }
    return NULL;
}

static void test_process_mode_concurrent(void **state)
{
    (void)state;
    cn_error_set_mode(1);
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, process_mode_hammer, NULL), 0);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    const char *m = cn_error_take_recent();
    if (m)
        assert_true(strlen(m) <= 8192);
    cn_error_set_mode(0);
}

static void test_reset_all_thread(void **state)
{
    (void)state;
    cn_error(ACL_ERROR_INVALID_PARAM, "a");
    assert_non_null(cn_error_take_recent());
    cn_error(ACL_ERROR_INVALID_PARAM, "b");
    cn_error_reset_all();
    assert_null(cn_error_take_recent());
}

/* Error text storage failing to allocate must not crash or report garbage. */
static void test_error_alloc_failure(void **state)
{
    (void)state;
    cn_fault_inject_set(0);
    assert_int_equal(cn_error(ACL_ERROR_INVALID_PARAM, "lost"), ACL_ERROR_INVALID_PARAM);
    cn_fault_inject_set(-1);
    assert_int_equal(cn_error_last(false), ACL_ERROR_INVALID_PARAM);
    assert_null(cn_error_take_recent());
    cn_error(ACL_ERROR_INVALID_PARAM, "kept");
    cn_fault_inject_set(0);
    cn_error(ACL_ERROR_INVALID_PARAM, "lost too");
    cn_fault_inject_set(-1);
    const char *m = cn_error_take_recent();
    assert_non_null(m);
    assert_non_null(strstr(m, "kept"));
    assert_null(strstr(m, "lost"));
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_silent_by_default),
        T(test_invalid_global_level_is_off),
        T(test_line_format_and_filter),
        T(test_levels),
        T(test_module_override),
        T(test_malformed_module_setting_ignored),
        T(test_stdout_and_stderr),
        T(test_long_line_truncated),
        T(test_concurrent_lines_whole),
        T(test_error_returns_and_last),
        T(test_message_shape),
        T(test_message_ids),
        T(test_newest_first),
        T(test_bounded),
        T(test_per_thread_isolation),
        T(test_process_mode),
        T(test_process_mode_concurrent),
        T(test_reset_all_thread),
        T(test_error_alloc_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
