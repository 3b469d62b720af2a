/* Shared helpers of the runtime API tests (tests/unit/test_rt_*.c).
 *
 * Include after cmocka.h (which needs stdarg.h, stddef.h, stdint.h and setjmp.h first). Every
 * helper is `static inline` so a test program may use any subset without unused warnings.
 */
#ifndef CANNON_RT_TEST_UTIL_H_
#define CANNON_RT_TEST_UTIL_H_

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"
#include "cannon/kernel.h"
#include "cannon_testutil.h"
#include "internal.h"

/* Assert that an ACL call returns exactly `code` (prints the recent error text on mismatch). */
#define RT_EXPECT(code, expr)                                                                          \
    do {                                                                                               \
        aclError rt_rc_ = (expr);                                                                      \
        if (rt_rc_ != (aclError)(code)) {                                                              \
            const char *rt_m_ = aclGetRecentErrMsg();                                                  \
            print_error("%s returned %d, expected %d; recent error text: %s\n", #expr, rt_rc_,         \
                        (int)(code), rt_m_ ? rt_m_ : "(none)");                                         \
        }                                                                                              \
        assert_int_equal(rt_rc_, (aclError)(code));                                                    \
    } while (0)
#define RT_OK(expr) RT_EXPECT(ACL_SUCCESS, expr)

/* ---- per-test fixtures: a clean, initialised runtime --------------------------------------- */

static inline int rt_setup(void **state)
{
    (void)state;
    cn_fault_inject_set(-1);
    if (aclInit(NULL) != ACL_SUCCESS)
        return -1;
    (void)aclGetRecentErrMsg(); /* start with no error text */
    (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
    return 0;
}

static inline int rt_teardown(void **state)
{
    (void)state;
    cn_fault_inject_set(-1);
    aclError rc = aclFinalize();
    (void)aclGetRecentErrMsg();
    (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
    return rc == ACL_SUCCESS ? 0 : -1;
}

/* Make the runtime forget the first configuration's content hash, so a test may use a config of
 * different content than an earlier test of the same program (test-only: the real rule is one
 * configuration per process, see aclInit). */
static inline void rt_forget_config_hash(void)
{
    pthread_mutex_lock(&g_rt.lock);
    g_rt.config_hash_set = false;
    g_rt.config_hash = 0;
    pthread_mutex_unlock(&g_rt.lock);
}

/* ---- time ---------------------------------------------------------------------------------- */

static inline double rt_now_ms(void)
{
    return cn_tu_now_s() * 1e3;
}

static inline void rt_sleep_ms(unsigned ms)
{
    cn_tu_sleep_ms(ms);
}

/* ---- files --------------------------------------------------------------------------------- */

typedef struct rt_tmpdir {
    char path[PATH_MAX];
    char files[16][PATH_MAX + 64];
    int n;
} rt_tmpdir;

static inline void rt_tmpdir_make(rt_tmpdir *d)
{
    memset(d, 0, sizeof(*d));
    const char *base = getenv("TMPDIR");
    snprintf(d->path, sizeof(d->path), "%s/cannon-rt-test-XXXXXX", base && *base ? base : "/tmp");
    assert_non_null(mkdtemp(d->path));
}

/* Write `content` to a new file `name` in the directory; returns its path (owned by d). */
static inline const char *rt_tmpdir_write(rt_tmpdir *d, const char *name, const char *content)
{
    assert_true(d->n < 16);
    char *p = d->files[d->n++];
    /* Build in a local buffer: gcc's -Wrestrict cannot tell d->path and d->files[] apart. */
    char tmp[PATH_MAX + 64];
    snprintf(tmp, sizeof(tmp), "%s/%s", d->path, name);
    memcpy(p, tmp, strlen(tmp) + 1);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    size_t len = strlen(content);
    assert_int_equal(fwrite(content, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    return p;
}

/* Path of a file that does not exist, inside the directory. */
static inline const char *rt_tmpdir_missing(rt_tmpdir *d, const char *name)
{
    static char p[PATH_MAX + 64];
    snprintf(p, sizeof(p), "%s/%s", d->path, name);
    return p;
}

static inline void rt_tmpdir_remove(rt_tmpdir *d)
{
    for (int i = 0; i < d->n; i++)
        unlink(d->files[i]);
    rmdir(d->path);
    d->n = 0;
}

/* ---- host tasks on streams ------------------------------------------------------------------ */

/* A task that sleeps `ms` milliseconds (arg: (void *)(uintptr_t)ms). */
static inline int rt_task_sleep(void *arg)
{
    rt_sleep_ms((unsigned)(uintptr_t)arg);
    return 0;
}

/* A gate: a task that blocks its stream until the test opens the gate (bounded to 10 s so a
 * failing test cannot hang the suite). */
typedef struct rt_gate {
    atomic_int open;
    atomic_int entered;
} rt_gate;

static inline void rt_gate_init(rt_gate *g)
{
    atomic_init(&g->open, 0);
    atomic_init(&g->entered, 0);
}

static inline int rt_task_gate(void *arg)
{
    rt_gate *g = arg;
    atomic_store(&g->entered, 1);
    double end = rt_now_ms() + 10000.0;
    while (!atomic_load(&g->open) && rt_now_ms() < end)
        rt_sleep_ms(1);
    return 0;
}

static inline void rt_gate_open(rt_gate *g) { atomic_store(&g->open, 1); }

/* A task that sets an atomic int to 1 (a side effect to check ordering/completion). */
static inline int rt_task_set_flag(void *arg)
{
    atomic_store((atomic_int *)arg, 1);
    return 0;
}

/* A task that fails with the code it is given (arg: (void *)(intptr_t)code). */
static inline int rt_task_fail(void *arg) { return (int)(intptr_t)arg; }

/* ---- end-to-end health check -------------------------------------------------------------- */

static inline int rt_kernel_add_one(const cannon_kernel_ctx *ctx, void *args)
{
    int32_t *p = *(int32_t **)args;
    p[ctx->block_idx] += 1;
    return 0;
}

/* On the calling thread: set `dev`, create a stream, allocate, copy both ways, launch a kernel,
 * synchronize, check the data and release everything. The runtime must be initialised. */
static inline void rt_check_runtime_works(int32_t dev)
{
    enum { N = 256 };
    RT_OK(aclrtSetDevice(dev));
    aclrtStream s = NULL;
    RT_OK(aclrtCreateStream(&s));
    assert_non_null(s);
    int32_t *d = NULL;
    RT_OK(aclrtMalloc((void **)&d, N * sizeof(int32_t), ACL_MEM_MALLOC_HUGE_FIRST));
    assert_non_null(d);
    int32_t host[N], back[N];
    for (int i = 0; i < N; i++)
        host[i] = i * 3;
    RT_OK(aclrtMemcpy(d, sizeof(host), host, sizeof(host), ACL_MEMCPY_HOST_TO_DEVICE));
    cannon_launch_desc desc = {.name = "add_one", .fn = rt_kernel_add_one, .args = &d, .args_size = sizeof(d),
                               .block_dim = N};
    RT_OK(cannonLaunchKernel(&desc, s));
    RT_OK(aclrtSynchronizeStream(s));
    RT_OK(aclrtMemcpy(back, sizeof(back), d, sizeof(back), ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < N; i++)
        assert_int_equal(back[i], i * 3 + 1);
    RT_OK(aclrtFree(d));
    RT_OK(aclrtDestroyStream(s));
    RT_OK(aclrtResetDevice(dev));
}

/* ---- threads -------------------------------------------------------------------------------- */

static inline pthread_t rt_thread_start(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, fn, arg), 0);
    return t;
}

static inline void rt_thread_join(pthread_t t) { assert_int_equal(pthread_join(t, NULL), 0); }

/* ---- hang detection ------------------------------------------------------------------------ */

/* A deadlock must end as a test failure, not as a suite that hangs until CTest's timeout: arm a
 * watchdog before a step that could hang and disarm it after. When it fires it names the step
 * on stderr and ends the program with status 1 (the runtime cannot be torn down after a
 * deadlock, so there is nothing to return to). */
static const char *volatile rt_watchdog_what_;

static inline void rt_watchdog_fire_(int sig)
{
    (void)sig;
    static const char head[] = "\nwatchdog: still blocked after the time limit (deadlock?): ";
    const char *what = rt_watchdog_what_ ? rt_watchdog_what_ : "?";
    ssize_t w = write(2, head, sizeof(head) - 1);
    w = write(2, what, strlen(what));
    w = write(2, "\n", 1);
    (void)w;
    _exit(1);
}

static inline void rt_watchdog_arm(unsigned seconds, const char *what)
{
    rt_watchdog_what_ = what;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = rt_watchdog_fire_;
    sigemptyset(&sa.sa_mask);
    assert_int_equal(sigaction(SIGALRM, &sa, NULL), 0);
    alarm(seconds);
}

static inline void rt_watchdog_disarm(void) { alarm(0); }

/* Run only the tests whose names match $CANNON_TEST_FILTER (a cmocka pattern, '*' and '?'), for
 * running one case of a program by hand. */
static inline void rt_apply_test_filter(void)
{
    const char *f = getenv("CANNON_TEST_FILTER");
    if (f && *f)
        cmocka_set_test_filter(f);
}

/* Whether haystack (may be NULL) contains needle. */
static inline bool rt_contains(const char *haystack, const char *needle)
{
    return haystack && strstr(haystack, needle) != NULL;
}

#endif /* CANNON_RT_TEST_UTIL_H_ */
