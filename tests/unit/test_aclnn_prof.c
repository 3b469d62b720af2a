/* The profiler (acl/acl_prof.h): a known sequence of stream tasks (copies, an aclnn operator, a
 * host function, an event record, a mark on the stream, a fill) recorded between aclprofStart and
 * aclprofStop comes back from the files aclprofFinalize writes in order, with names, shapes and
 * non-decreasing times; the argument checks and their CANN codes; an unwritable result path is an
 * error at aclprofInit, and at aclInit for the config's profiler section and CANNON_PROFILE. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cannon_testutil_fs.h"

#include "acl/acl.h"
#include "acl/acl_prof.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_add.h"

#define OK(expr)                                                                                       \
    do {                                                                                               \
        int ok_rc_ = (int)(expr);                                                                      \
        if (ok_rc_ != 0) {                                                                             \
            const char *m_ = aclGetRecentErrMsg();                                                     \
            print_error("%s returned %d: %s\n", #expr, ok_rc_, m_ ? m_ : "(no message)");              \
        }                                                                                              \
        assert_int_equal(ok_rc_, 0);                                                                   \
    } while (0)

static char g_tmp[256];

static void make_tmp(void)
{
    assert_int_equal(cn_tu_make_tmpdir(g_tmp, sizeof g_tmp, "cannon_prof_test"), 0);
}

/* One task line of a profile file. */
typedef struct {
    char kind[32], name[64], detail[192];
    unsigned long long start, end, stream, bytes;
} task;

static bool field_str(const char *line, const char *key, char *out, size_t cap)
{
    char pat[48];
    snprintf(pat, sizeof pat, "\"%s\": \"", key);
    const char *p = strstr(line, pat);
    if (!p)
        return false;
    p += strlen(pat);
    size_t n = 0;
    while (p[n] && p[n] != '"' && n + 1 < cap)
        n++;
    memcpy(out, p, n);
    out[n] = '\0';
    return true;
}

static unsigned long long field_u64(const char *line, const char *key)
{
    char pat[48];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = strstr(line, pat);
    return p ? strtoull(p + strlen(pat), NULL, 10) : ~0ull;
}

/* Read every task of the files in dir whose name contains `which` ("device0", "host"). */
static size_t read_tasks(const char *dir, const char *which, task *out, size_t cap)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strstr(e->d_name, which) || !strstr(e->d_name, ".json"))
            continue;
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        FILE *f = fopen(p, "r");
        assert_non_null(f);
        char line[1024];
        assert_non_null(fgets(line, sizeof line, f));
        assert_non_null(strstr(line, "\"format\": \"cannon-prof-1\""));
        while (fgets(line, sizeof line, f) && n < cap) {
            if (strncmp(line, "{\"seq\"", 6) != 0)
                continue;
            task *t = &out[n++];
            assert_true(field_str(line, "kind", t->kind, sizeof t->kind));
            assert_true(field_str(line, "name", t->name, sizeof t->name));
            assert_true(field_str(line, "detail", t->detail, sizeof t->detail) || (t->detail[0] = '\0', true));
            t->start = field_u64(line, "start");
            t->end = field_u64(line, "end");
            t->stream = field_u64(line, "stream");
            t->bytes = field_u64(line, "bytes");
        }
        fclose(f);
    }
    closedir(d);
    return n;
}

static int host_func_calls;
static void host_func(void *arg) { (void)arg; host_func_calls++; }

enum { R = 2, C = 3 };

static aclTensor *mat(void *data)
{
    int64_t shape[2] = {R, C}, strides[2] = {C, 1};
    return aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 2, data);
}

/* The known program, on stream s: H2D x2, Add, HostFunc, EventRecord, mark, Memset, D2H. */
static void run_program(aclrtStream s, aclrtEvent ev, float *out_host)
{
    float a[R * C], b[R * C];
    for (int i = 0; i < R * C; i++) {
        a[i] = (float)i * 0.25f;
        b[i] = 1.0f - (float)i;
    }
    void *da, *db, *dc, *dz;
    OK(aclrtMalloc(&da, sizeof a, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&db, sizeof b, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&dc, sizeof a, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&dz, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemcpyAsync(da, sizeof a, a, sizeof a, ACL_MEMCPY_HOST_TO_DEVICE, s));
    OK(aclrtMemcpyAsync(db, sizeof b, b, sizeof b, ACL_MEMCPY_HOST_TO_DEVICE, s));
    aclTensor *ta = mat(da), *tb = mat(db), *tc = mat(dc);
    float alpha = 2.0f;
    aclScalar *al = aclCreateScalar(&alpha, ACL_FLOAT);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    OK(aclnnAddGetWorkspaceSize(ta, tb, al, tc, &ws, &ex));
    assert_int_equal(ws, 0);
    OK(aclnnAdd(NULL, 0, ex, s));
    OK(aclrtLaunchHostFunc(s, host_func, NULL));
    OK(aclrtRecordEvent(ev, s));
    OK(aclprofMarkEx("after-add", 9, s));
    OK(aclrtMemsetAsync(dz, 64, 0, 64, s));
    OK(aclrtMemcpyAsync(out_host, sizeof a, dc, sizeof a, ACL_MEMCPY_DEVICE_TO_HOST, s));
    OK(aclrtSynchronizeStream(s));
    for (int i = 0; i < R * C; i++)
        assert_true((double)out_host[i] == (double)a[i] + 2.0 * (double)b[i]);
    aclDestroyScalar(al);
    aclDestroyTensor(ta);
    aclDestroyTensor(tb);
    aclDestroyTensor(tc);
    OK(aclrtFree(da));
    OK(aclrtFree(db));
    OK(aclrtFree(dc));
    OK(aclrtFree(dz));
}

static const char *const k_expected[][2] = {
    {"copy", "MemcpyH2D"},    {"copy", "MemcpyH2D"}, {"kernel", "Add"}, {"host_func", "HostFunc"},
    {"event_record", "EventRecord"}, {"mark", "after-add"}, {"fill", "Memset"}, {"copy", "MemcpyD2H"},
};

static void check_program_tasks(const task *t, size_t n, size_t first)
{
    size_t ne = sizeof k_expected / sizeof k_expected[0];
    assert_true(n >= first + ne);
    for (size_t i = 0; i < ne; i++) {
        const task *x = &t[first + i];
        if (strcmp(x->kind, k_expected[i][0]) != 0 || strcmp(x->name, k_expected[i][1]) != 0)
            print_error("task %zu: %s %s, expected %s %s\n", i, x->kind, x->name, k_expected[i][0], k_expected[i][1]);
        assert_string_equal(x->kind, k_expected[i][0]);
        assert_string_equal(x->name, k_expected[i][1]);
        assert_true(x->start > 0 && x->start <= x->end);
        assert_int_equal(x->stream, t[first].stream);
        if (i > 0)
            assert_true(t[first + i - 1].end <= x->start); /* one stream: in order, no overlap */
    }
    assert_int_equal(t[first].bytes, R * C * sizeof(float));
    /* The operator: its tensors' shapes and dtypes, and the bytes of its three tensors. */
    assert_string_equal(t[first + 2].detail, "[2,3]FLOAT [2,3]FLOAT -> [2,3]FLOAT");
    assert_int_equal(t[first + 2].bytes, 3 * R * C * sizeof(float));
    assert_int_equal(t[first + 6].bytes, 64);
}

static void test_known_program(void **state)
{
    (void)state;
    make_tmp();
    char dir[300];
    snprintf(dir, sizeof dir, "%s/out/nested", g_tmp); /* created by aclprofInit */
    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
    aclrtStream s;
    aclrtEvent ev;
    OK(aclrtCreateStream(&s));
    OK(aclrtCreateEvent(&ev));
    float out[R * C];

    /* Not recorded: no session yet. */
    run_program(s, ev, out);

    OK(aclprofInit(dir, strlen(dir)));
    uint32_t devs[1] = {0};
    aclprofConfig *cfg = aclprofCreateConfig(devs, 1, ACL_AICORE_NONE, NULL, ACL_PROF_TASK_TIME | ACL_PROF_MSPROFTX);
    assert_non_null(cfg);
    OK(aclprofStart(cfg));
    void *stamp = aclprofCreateStamp();
    assert_non_null(stamp);
    OK(aclprofSetStampTraceMessage(stamp, "program", 7));
    uint32_t range = 0;
    OK(aclprofRangeStart(stamp, &range));
    host_func_calls = 0;
    run_program(s, ev, out);
    assert_int_equal(host_func_calls, 1);
    OK(aclprofRangeStop(range));
    OK(aclprofMark(stamp));
    aclprofStepInfo *step = aclprofCreateStepInfo();
    assert_non_null(step);
    OK(aclprofGetStepTimestamp(step, ACL_STEP_START, s));
    OK(aclprofGetStepTimestamp(step, ACL_STEP_END, s));
    OK(aclrtSynchronizeStream(s));
    OK(aclprofStop(cfg));

    /* Stopped: not recorded. */
    run_program(s, ev, out);
    OK(aclprofFinalize());

    static task t[64];
    size_t n = read_tasks(dir, "device0", t, 64);
    assert_int_equal(n, 10);
    check_program_tasks(t, n, 0);
    assert_string_equal(t[8].kind, "step");
    assert_string_equal(t[8].name, "StepStart");
    assert_string_equal(t[8].detail, "step 1");
    assert_string_equal(t[9].name, "StepEnd");
    assert_true(t[7].end <= t[8].start && t[8].start <= t[9].start);

    n = read_tasks(dir, "host", t, 64);
    assert_int_equal(n, 2);
    assert_string_equal(t[0].kind, "range");
    assert_string_equal(t[0].name, "program");
    assert_string_equal(t[1].kind, "mark");
    assert_true(t[0].start < t[0].end && t[0].end <= t[1].start);

    aclprofDestroyStepInfo(step);
    aclprofDestroyStamp(stamp);
    OK(aclprofDestroyConfig(cfg));
    OK(aclrtDestroyEvent(ev));
    OK(aclrtDestroyStream(s));
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    cn_tu_remove_tree(g_tmp);
}

static void test_arguments(void **state)
{
    (void)state;
    make_tmp();
    uint32_t devs[2] = {0, 0}, bad[1] = {4096};
    /* Before aclInit. */
    assert_int_equal(aclprofInit(g_tmp, strlen(g_tmp)), ACL_ERROR_UNINITIALIZE);
    OK(aclInit(NULL));
    assert_int_equal(aclprofInit(NULL, 4), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclprofInit(g_tmp, 0), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclprofFinalize(), ACL_ERROR_UNINITIALIZE);
    assert_int_equal(aclprofStart(NULL), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclprofStop(NULL), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclprofDestroyConfig(NULL), ACL_ERROR_INVALID_PARAM);
    assert_null(aclprofCreateConfig(NULL, 1, ACL_AICORE_NONE, NULL, ACL_PROF_TASK_TIME));
    assert_null(aclprofCreateConfig(devs, 0, ACL_AICORE_NONE, NULL, ACL_PROF_TASK_TIME));
    assert_null(aclprofCreateConfig(bad, 1, ACL_AICORE_NONE, NULL, ACL_PROF_TASK_TIME));
    assert_null(aclprofCreateConfig(devs, 2, ACL_AICORE_NONE, NULL, ACL_PROF_TASK_TIME)); /* listed twice */
    assert_null(aclprofCreateConfig(devs, 1, (aclprofAicoreMetrics)9, NULL, ACL_PROF_TASK_TIME));
    aclprofConfig *cfg = aclprofCreateConfig(devs, 1, ACL_AICORE_PIPE_UTILIZATION, NULL, ACL_PROF_TASK_TIME);
    assert_non_null(cfg);
    assert_int_equal(aclprofStart(cfg), ACL_ERROR_UNINITIALIZE); /* no aclprofInit */
    OK(aclprofInit(g_tmp, strlen(g_tmp)));
    assert_int_equal(aclprofInit(g_tmp, strlen(g_tmp)), ACL_ERROR_REPEAT_INITIALIZE);
    assert_int_equal(aclprofStop(cfg), ACL_ERROR_PROF_NOT_RUN); /* stop without start */
    OK(aclprofStart(cfg));
    assert_int_equal(aclprofStart(cfg), ACL_ERROR_PROF_ALREADY_RUN);
    OK(aclprofStop(cfg));
    assert_int_equal(aclprofStop(cfg), ACL_ERROR_PROF_NOT_RUN);
    assert_int_equal(aclprofSetConfig((aclprofConfigType)2, "1", 1), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclprofSetConfig(ACL_PROF_ARGS_MAX, "1", 1), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclprofSetConfig(ACL_PROF_STORAGE_LIMIT, NULL, 1), ACL_ERROR_INVALID_PARAM);
    OK(aclprofSetConfig(ACL_PROF_STORAGE_LIMIT, "200MB", 5));
    /* Stamps, ranges, steps. */
    assert_int_equal(aclprofMark(NULL), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclprofPush(NULL), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclprofPop(), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclprofSetStampTraceMessage(NULL, "x", 1), ACL_ERROR_INVALID_PARAM);
    void *stamp = aclprofCreateStamp();
    assert_non_null(stamp);
    assert_int_equal(aclprofSetStampTraceMessage(stamp, NULL, 1), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclprofSetStampTraceMessage(stamp, "x", 0), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclprofRangeStart(stamp, NULL), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclprofRangeStop(12345), ACL_ERROR_INVALID_PARAM);
    OK(aclprofPush(stamp));
    OK(aclprofPop());
    assert_int_equal(aclprofMarkEx(NULL, 1, NULL), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclprofGetStepTimestamp(NULL, ACL_STEP_START, NULL), ACL_ERROR_INVALID_PARAM);
    aclprofStepInfo *step = aclprofCreateStepInfo();
    assert_int_equal(aclprofGetStepTimestamp(step, (aclprofStepTag)7, NULL), ACL_ERROR_INVALID_PARAM);
    aclprofDestroyStepInfo(step);
    aclprofDestroyStamp(stamp);
    OK(aclprofFinalize());
    OK(aclprofDestroyConfig(cfg));
    assert_int_equal(aclprofDestroyConfig(cfg), ACL_ERROR_INVALID_PARAM);
    OK(aclFinalize());
    cn_tu_remove_tree(g_tmp);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* A result path that cannot be a directory (under a regular file: unwritable even for root). */
static void test_unwritable_path(void **state)
{
    (void)state;
    make_tmp();
    char file[300], bad[320], cfgpath[320], json[600];
    snprintf(file, sizeof file, "%s/plain", g_tmp);
    write_file(file, "x");
    snprintf(bad, sizeof bad, "%s/sub", file);
    OK(aclInit(NULL));
    assert_int_equal(aclprofInit(bad, strlen(bad)), ACL_ERROR_WRITE_FILE);
    assert_non_null(strstr(aclGetRecentErrMsg(), "cannot hold the profile"));
    assert_int_equal(aclprofInit(file, strlen(file)), ACL_ERROR_WRITE_FILE); /* not a directory */
    assert_int_equal(aclprofFinalize(), ACL_ERROR_UNINITIALIZE);
    OK(aclFinalize());

    /* The config's profiler section: refused at aclInit. */
    snprintf(cfgpath, sizeof cfgpath, "%s/acl.json", g_tmp);
    snprintf(json, sizeof json, "{\"profiler\": {\"switch\": \"on\", \"output\": \"%s\"}}", bad);
    write_file(cfgpath, json);
    assert_int_equal(aclInit(cfgpath), ACL_ERROR_INVALID_PROFILING_CONFIG);
    assert_non_null(strstr(aclGetRecentErrMsg(), "profiler.output"));
    (void)aclFinalize(); /* the drivers came up before the config was refused */
    /* CANNON_PROFILE likewise. */
    setenv("CANNON_PROFILE", bad, 1);
    assert_int_equal(aclInit(NULL), ACL_ERROR_INVALID_PROFILING_CONFIG);
    assert_non_null(strstr(aclGetRecentErrMsg(), "CANNON_PROFILE"));
    unsetenv("CANNON_PROFILE");
    (void)aclFinalize();
    cn_tu_remove_tree(g_tmp);
}

/* The config's profiler section profiles the whole run and writes at aclFinalize; aclprofInit
 * meanwhile is a conflict. */
static void test_config_session(void **state)
{
    (void)state;
    make_tmp();
    char out[300], cfgpath[320], json[600];
    snprintf(out, sizeof out, "%s/run", g_tmp);
    snprintf(cfgpath, sizeof cfgpath, "%s/acl.json", g_tmp);
    snprintf(json, sizeof json, "{\"profiler\": {\"switch\": \"on\", \"output\": \"%s\", \"task_trace\": \"on\"}}",
             out);
    write_file(cfgpath, json);
    OK(aclInit(cfgpath));
    assert_int_equal(aclprofInit(out, strlen(out)), ACL_ERROR_PROF_API_CONFLICT);
    OK(aclrtSetDevice(0));
    aclrtStream s;
    aclrtEvent ev;
    OK(aclrtCreateStream(&s));
    OK(aclrtCreateEvent(&ev));
    float o[R * C];
    run_program(s, ev, o);
    OK(aclrtDestroyEvent(ev));
    OK(aclrtDestroyStream(s));
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    static task t[64];
    size_t n = read_tasks(out, "device0", t, 64);
    assert_int_equal(n, 8);
    check_program_tasks(t, n, 0);
    cn_tu_remove_tree(g_tmp);
}

/* Two threads, each on its own stream and device, enqueue while a session records: every task is
 * recorded once, each stream's tasks in its own order. */
enum { THREAD_OPS = 40 };

static void *thread_body(void *arg)
{
    int dev = (int)(intptr_t)arg;
    if (aclrtSetDevice(dev) != ACL_SUCCESS)
        return (void *)1;
    aclrtStream s;
    if (aclrtCreateStream(&s) != ACL_SUCCESS)
        return (void *)1;
    float h[R * C] = {0};
    void *d = NULL;
    if (aclrtMalloc(&d, sizeof h, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        return (void *)1;
    intptr_t bad = 0;
    aclTensor *t = mat(d);
    float alpha = 1.0f;
    aclScalar *al = aclCreateScalar(&alpha, ACL_FLOAT);
    bad |= aclrtMemcpyAsync(d, sizeof h, h, sizeof h, ACL_MEMCPY_HOST_TO_DEVICE, s) != ACL_SUCCESS;
    for (int i = 0; i < THREAD_OPS && !bad; i++) {
        uint64_t ws = 0;
        aclOpExecutor *ex = NULL;
        bad |= aclnnAddGetWorkspaceSize(t, t, al, t, &ws, &ex) != ACLNN_SUCCESS || ws != 0;
        bad |= !bad && aclnnAdd(NULL, 0, ex, s) != ACLNN_SUCCESS;
    }
    bad |= aclrtSynchronizeStream(s) != ACL_SUCCESS;
    aclDestroyScalar(al);
    aclDestroyTensor(t);
    bad |= aclrtFree(d) != ACL_SUCCESS;
    bad |= aclrtDestroyStream(s) != ACL_SUCCESS;
    return (void *)bad;
}

static void test_threads(void **state)
{
    (void)state;
    make_tmp();
    OK(aclInit(NULL));
    OK(aclprofInit(g_tmp, strlen(g_tmp)));
    uint32_t devs[2] = {1, 2};
    aclprofConfig *cfg = aclprofCreateConfig(devs, 2, ACL_AICORE_NONE, NULL, ACL_PROF_TASK_TIME);
    assert_non_null(cfg);
    OK(aclprofStart(cfg));
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&th[i], NULL, thread_body, (void *)(intptr_t)(i + 1)), 0);
    for (int i = 0; i < 2; i++) {
        void *rv;
        assert_int_equal(pthread_join(th[i], &rv), 0);
        assert_null(rv);
    }
    OK(aclprofStop(cfg));
    OK(aclprofFinalize());
    static task t[2 * THREAD_OPS + 8];
    for (int d = 1; d <= 2; d++) {
        char which[16];
        snprintf(which, sizeof which, "device%d", d);
        size_t n = read_tasks(g_tmp, which, t, sizeof t / sizeof t[0]);
        assert_int_equal(n, THREAD_OPS + 1);
        assert_string_equal(t[0].name, "MemcpyH2D");
        for (size_t i = 1; i < n; i++) {
            assert_string_equal(t[i].name, "Add");
            assert_int_equal(t[i].stream, t[0].stream);
            assert_true(t[i - 1].end <= t[i].start && t[i].start <= t[i].end);
        }
    }
    OK(aclprofDestroyConfig(cfg));
    OK(aclrtResetDevice(1));
    OK(aclrtResetDevice(2));
    OK(aclFinalize());
    cn_tu_remove_tree(g_tmp);
}

int main(void)
{
    unsetenv("CANNON_PROFILE");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arguments),
        cmocka_unit_test(test_known_program),
        cmocka_unit_test(test_unwritable_path),
        cmocka_unit_test(test_config_session),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
