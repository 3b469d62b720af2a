/* bench_runtime: the runtime's performance targets, measured.
 *
 * Prints one JSON line per measurement:
 *   {"bench":..., "median_us":..., "min_us":..., "max_us":..., "runs":N,
 *    "value":..., "unit":..., "target_op":"<"|">=", "target":..., "status":"pass"|"miss"|"info", ...}
 * "value" is the figure the target applies to (the median, in "unit"); *_us describe the
 * distribution of the timed samples. bench/run_bench.sh repeats the program and tabulates.
 *
 * Timings on shared VMs are noisy, so every figure is a median over many samples and the
 * minimum and maximum are reported next to it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"
#include "cannon/kernel.h"

#define MIB ((size_t)1 << 20)

#define CHECK(call)                                                                                \
    do {                                                                                           \
        aclError rc_ = (call);                                                                     \
        if (rc_ != ACL_SUCCESS) {                                                                  \
            const char *m_ = aclGetRecentErrMsg();                                                 \
            fprintf(stderr, "bench_runtime: %s -> %d: %s\n", #call, rc_, m_ ? m_ : "");            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct stats {
    double median, min, max;
    size_t runs;
} stats;

/* Sorts the samples in place. */
static stats summarize(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    stats s = {.min = v[0], .max = v[n - 1], .runs = n};
    s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    return s;
}

/* One result line. target_op NULL: informational, no target. extra: more JSON members
 * (starting with ','), or "". */
static void emit(const char *bench, stats s, double value, const char *unit, const char *target_op, double target,
                 const char *extra)
{
    const char *status = "info";
    if (target_op)
        status = (strcmp(target_op, "<") == 0 ? value < target : value >= target) ? "pass" : "miss";
    printf("{\"bench\":\"%s\",\"median_us\":%.3f,\"min_us\":%.3f,\"max_us\":%.3f,\"runs\":%zu,"
           "\"value\":%.4g,\"unit\":\"%s\"",
           bench, s.median, s.min, s.max, s.runs, value, unit);
    if (target_op)
        printf(",\"target_op\":\"%s\",\"target\":%g", target_op, target);
    printf(",\"status\":\"%s\"%s}\n", status, extra);
    fflush(stdout);
}

/* ---- (a) cold start, in fresh processes --------------------------------------------------- */

static int empty_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    (void)ctx;
    (void)args;
    return 0;
}

static const cannon_launch_desc k_empty = {.name = "empty", .fn = empty_kernel, .block_dim = 1};

/* The child: time aclInit + aclrtSetDevice + aclrtCreateStream and print the microseconds of
 * the three steps, then of the first launch + synchronize (not part of the target, reported
 * because streams start their thread with their first task). The program is already loaded:
 * exec and dynamic linking are not part of the target, which is about what the runtime itself
 * does. */
static int cold_child(void)
{
    aclrtStream s = NULL;
    double t0 = now_us();
    CHECK(aclInit(NULL));
    double t1 = now_us();
    CHECK(aclrtSetDevice(0));
    double t2 = now_us();
    CHECK(aclrtCreateStream(&s));
    double t3 = now_us();
    CHECK(cannonLaunchKernel(&k_empty, s));
    CHECK(aclrtSynchronizeStream(s));
    double t4 = now_us();
    printf("%.3f %.3f %.3f %.3f\n", t1 - t0, t2 - t1, t3 - t2, t4 - t3);
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    return 0;
}

/* Fork + exec this program with --cold-child; fills step[4] with its four timings. */
static void run_cold_child(double step[4])
{
    int fds[2];
    if (pipe(fds) != 0) {
        perror("pipe");
        exit(1);
    }
    fflush(stdout); /* or the child could inherit and repeat our buffered output */
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(1);
    }
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execl("/proc/self/exe", "bench_runtime", "--cold-child", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char buf[128] = "";
    ssize_t n, got = 0;
    while (got < (ssize_t)sizeof buf - 1 && (n = read(fds[0], buf + got, sizeof buf - 1 - (size_t)got)) > 0)
        got += n;
    close(fds[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || sscanf(buf, "%lf %lf %lf %lf", &step[0], &step[1], &step[2], &step[3]) != 4) {
        fprintf(stderr, "bench_runtime: cold-start child failed\n");
        exit(1);
    }
}

static void bench_cold(void)
{
    enum { RUNS = 15 };
    double total[RUNS], part[4][RUNS], step[4];
    run_cold_child(step); /* warm the page cache and the binary's pages */
    for (int i = 0; i < RUNS; i++) {
        run_cold_child(step);
        total[i] = step[0] + step[1] + step[2];
        for (int k = 0; k < 4; k++)
            part[k][i] = step[k];
    }
    /* The per-step medians say where the time goes (they need not add up to the total's). */
    char extra[224];
    snprintf(extra, sizeof extra, ",\"aclInit_median_us\":%.1f,\"setdevice_median_us\":%.1f,"
             "\"createstream_median_us\":%.1f,\"first_launch_sync_median_us\":%.1f",
             summarize(part[0], RUNS).median, summarize(part[1], RUNS).median, summarize(part[2], RUNS).median,
             summarize(part[3], RUNS).median);
    stats s = summarize(total, RUNS);
    emit("cold_init_setdevice_stream", s, s.median, "us", "<", 1000, extra);
}

/* ---- (b), (c) launch overhead ------------------------------------------------------------ */

static void bench_launch_sync(aclrtStream st)
{
    enum { WARMUP = 2000, ITERS = 20000 };
    static double v[ITERS];
    for (int i = 0; i < WARMUP; i++) {
        CHECK(cannonLaunchKernel(&k_empty, st));
        CHECK(aclrtSynchronizeStream(st));
    }
    for (int i = 0; i < ITERS; i++) {
        double t0 = now_us();
        CHECK(cannonLaunchKernel(&k_empty, st));
        CHECK(aclrtSynchronizeStream(st));
        v[i] = now_us() - t0;
    }
    stats s = summarize(v, ITERS);
    emit("launch_sync_roundtrip", s, s.median, "us", "<", 5, "");
}

static void bench_launch_batch(aclrtStream st)
{
    enum { BATCH = 1000, REPS = 101 };
    double v[REPS];
    for (int r = -5; r < REPS; r++) { /* the first 5 batches are warm-up */
        double t0 = now_us();
        for (int i = 0; i < BATCH; i++)
            CHECK(cannonLaunchKernel(&k_empty, st));
        CHECK(aclrtSynchronizeStream(st));
        if (r >= 0)
            v[r] = (now_us() - t0) / BATCH;
    }
    stats s = summarize(v, REPS);
    emit("launch_batch1000_per_launch", s, s.median, "us", "<", 1, ",\"batch\":1000");
}

/* ---- (d) large device-to-device copy vs a STREAM-style copy ------------------------------- */

/* STREAM "copy" (c[i] = a[i]) counts 2 x array bytes per pass: one read and one write per
 * element (the write-allocate read is not counted). Every GB/s here uses that convention:
 * GB/s = 2 * bytes / seconds / 1e9. */

typedef struct copy_slice {
    double *dst;
    const double *src;
    size_t n;
} copy_slice;

static void *copy_worker(void *arg)
{
    copy_slice *c = arg;
    double *restrict d = c->dst;
    const double *restrict s = c->src;
    /* The plain STREAM kernel; the compiler may vectorise it or call memcpy, as it would for
     * STREAM itself. */
    for (size_t i = 0; i < c->n; i++)
        d[i] = s[i];
    return NULL;
}

/* Microseconds for one pass over n doubles with `threads` threads (each its own slice). */
static double stream_copy_us(double *dst, const double *src, size_t n, int threads)
{
    pthread_t tid[2];
    copy_slice sl[2];
    size_t per = n / (size_t)threads;
    double t0 = now_us();
    for (int t = 0; t < threads; t++) {
        sl[t] = (copy_slice){dst + per * (size_t)t, src + per * (size_t)t, t == threads - 1 ? n - per * (size_t)t : per};
        if (pthread_create(&tid[t], NULL, copy_worker, &sl[t]) != 0) {
            fprintf(stderr, "bench_runtime: pthread_create failed\n");
            exit(1);
        }
    }
    for (int t = 0; t < threads; t++)
        pthread_join(tid[t], NULL);
    return now_us() - t0;
}

static double gbps_of(size_t bytes, double us)
{
    return 2.0 * (double)bytes / (us * 1e3);
}

static void bench_copy(void)
{
    enum { REPS = 11 };
    const size_t bytes = 256 * MIB, n = bytes / sizeof(double);
    double t1[REPS], t2[REPS], td[REPS];
    char extra[256];

    /* STREAM-style reference over malloc'd, pre-touched buffers, and the same amount of
     * pre-touched device memory for aclrtMemcpy. */
    double *a = malloc(bytes), *b = malloc(bytes);
    void *da = NULL, *db = NULL;
    if (!a || !b) {
        fprintf(stderr, "bench_runtime: cannot allocate 2 x 256 MiB\n");
        exit(1);
    }
    memset(a, 1, bytes);
    memset(b, 2, bytes);
    CHECK(aclrtMalloc(&da, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&db, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemset(da, bytes, 1, bytes));
    CHECK(aclrtMemset(db, bytes, 2, bytes));

    /* The three copies take turns, one warm-up round first, so that noise from other load on
     * the machine hits all of them alike and the ratio stays meaningful. */
    for (int r = -1; r < REPS; r++) {
        double x1 = stream_copy_us(b, a, n, 1);
        double x2 = stream_copy_us(b, a, n, 2);
        double t0 = now_us();
        CHECK(aclrtMemcpy(db, bytes, da, bytes, ACL_MEMCPY_DEVICE_TO_DEVICE));
        double xd = now_us() - t0;
        if (r >= 0) {
            t1[r] = x1;
            t2[r] = x2;
            td[r] = xd;
        }
    }
    CHECK(aclrtFree(db));
    CHECK(aclrtFree(da));
    free(a);
    free(b);

    stats s1 = summarize(t1, REPS), s2 = summarize(t2, REPS), sd = summarize(td, REPS);
    double g1 = gbps_of(bytes, s1.median), g2 = gbps_of(bytes, s2.median), gd = gbps_of(bytes, sd.median);
    snprintf(extra, sizeof extra, ",\"bytes\":%zu,\"threads\":1", bytes);
    emit("stream_copy_256MiB_1t", s1, g1, "GB/s", NULL, 0, extra);
    snprintf(extra, sizeof extra, ",\"bytes\":%zu,\"threads\":2", bytes);
    emit("stream_copy_256MiB_2t", s2, g2, "GB/s", NULL, 0, extra);
    snprintf(extra, sizeof extra,
             ",\"bytes\":%zu,\"gbps\":%.3f,\"stream_1t_gbps\":%.3f,\"stream_2t_gbps\":%.3f,\"ratio_vs\":\"stream_2t\"",
             bytes, gd, g1, g2);
    emit("memcpy_d2d_256MiB", sd, gd / g2, "x stream_2t", ">=", 0.9, extra);
}

/* ---- (e) cached aclrtMalloc + aclrtFree ---------------------------------------------------- */

static void bench_malloc(void)
{
    enum { PAIRS = 20000, REPS = 15 };
    static const size_t sizes[] = {64, 4096, MIB, 16 * MIB};
    static const char *names[] = {"malloc_free_64B", "malloc_free_4KiB", "malloc_free_1MiB", "malloc_free_16MiB"};
    double v[REPS];
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        void *p = NULL;
        /* Warm-up: the first pair carves the block; later pairs should come from the cache. */
        for (int i = 0; i < 1000; i++) {
            CHECK(aclrtMalloc(&p, sizes[k], ACL_MEM_MALLOC_HUGE_FIRST));
            CHECK(aclrtFree(p));
        }
        for (int r = 0; r < REPS; r++) {
            double t0 = now_us();
            for (int i = 0; i < PAIRS; i++) {
                CHECK(aclrtMalloc(&p, sizes[k], ACL_MEM_MALLOC_HUGE_FIRST));
                CHECK(aclrtFree(p));
            }
            v[r] = now_us() - t0;
        }
        stats s = summarize(v, REPS);
        char extra[64];
        snprintf(extra, sizeof extra, ",\"bytes\":%zu,\"pairs\":%d", sizes[k], PAIRS);
        emit(names[k], s, s.median * 1e3 / PAIRS, "ns/pair", "<", 100, extra);
    }
}

/* ---- driver -------------------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f, "usage: bench_runtime [--only NAME]... [--help]\n"
               "NAME: cold, launch, batch, copy, malloc (default: all)\n"
               "Prints one JSON line per measurement; see bench/run_bench.sh for a summary table.\n");
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--cold-child") == 0)
        return cold_child();
    static const char *all[] = {"cold", "launch", "batch", "copy", "malloc"};
    bool want[5] = {false}, any = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
        bool ok = false;
        if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            i++;
            for (int k = 0; k < 5; k++)
                if (strcmp(argv[i], all[k]) == 0)
                    want[k] = ok = any = true;
        }
        if (!ok) {
            usage(stderr);
            return 2;
        }
    }
    if (!any)
        for (int k = 0; k < 5; k++)
            want[k] = true;

    /* Cold starts first, before this process holds memory and worker threads that would
     * compete with the children. */
    if (want[0])
        bench_cold();

    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream st = NULL;
    CHECK(aclrtCreateStream(&st));
    if (want[1])
        bench_launch_sync(st);
    if (want[2])
        bench_launch_batch(st);
    if (want[3])
        bench_copy();
    if (want[4])
        bench_malloc();
    CHECK(aclrtDestroyStream(st));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    return 0;
}
