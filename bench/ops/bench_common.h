/* Timing shared by bench_softmax and the oneDNN peer: 2 warm-up calls, then samples of k calls
 * with k chosen so a sample lasts >= 50 ms; the median, min and max per-call time of NS samples. */
#ifndef CANNON_BENCH_OPS_COMMON_H_
#define CANNON_BENCH_OPS_COMMON_H_

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "cannon_testutil.h"

/* Options come as "--name value" pairs, each name one of the NULL-terminated @p names. On -h or
 * --help prints @p usage to stdout and returns 0; on an unknown option or a missing value prints
 * the offender and @p usage to stderr and returns 2; otherwise returns -1 (go on). A bench used to
 * ignore what it did not know, so `--help` started a full run. */
static inline int bench_check_args(int argc, char **argv, const char *const *names, const char *usage)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(usage, stdout);
            return 0;
        }
    }
    for (int i = 1; i < argc; i += 2) {
        int known = 0;
        for (const char *const *n = names; *n != NULL && !known; n++)
            known = !strcmp(argv[i], *n);
        if (!known || i + 1 >= argc) {
            fprintf(stderr, "%s: %s option %s\n%s", argv[0], known ? "no value for" : "unknown", argv[i], usage);
            return 2;
        }
    }
    return -1;
}

/* --ab NAME[=VALUE]: a variable (VALUE default "1") that a bench sets around one side of an
 * in-process A/B, for switches operators read when they are planned. arg is the option as given
 * (empty: no A/B). */
typedef struct bench_ab {
    char arg[192], name[128], value[64];
} bench_ab;

static inline void bench_ab_parse(bench_ab *ab, const char *arg)
{
    snprintf(ab->arg, sizeof ab->arg, "%s", arg);
    snprintf(ab->name, sizeof ab->name, "%s", arg);
    snprintf(ab->value, sizeof ab->value, "1");
    char *eq = strchr(ab->name, '=');
    if (eq) {
        *eq = 0;
        snprintf(ab->value, sizeof ab->value, "%s", eq + 1);
    }
}

/* Set (on) or unset the variable; nothing without an A/B. */
static inline void bench_ab_set(const bench_ab *ab, int on)
{
    if (!ab->name[0])
        return;
    if (on)
        setenv(ab->name, ab->value, 1);
    else
        unsetenv(ab->name);
}

static inline double bench_now(void)
{
    return cn_tu_now_s();
}

static inline int bench_cmp(const void *a, const void *b)
{
    return cn_tu_cmp_double(a, b);
}

/* A zeroed tensor in 2 MiB pages where the kernel allows, as the CPU driver's device memory is
 * (NULL when out of memory; free() it). Zeroing touches every page before any timing. */
static inline void *bench_big(size_t bytes)
{
    void *p = NULL;
    const size_t len = (bytes + (2u << 20) - 1) / (2u << 20) * (2u << 20);
    if (posix_memalign(&p, 2u << 20, len))
        return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, len, MADV_HUGEPAGE);
#endif
    memset(p, 0, len);
    return p;
}

typedef struct bench_result {
    double med_ms, min_ms, max_ms;
} bench_result;

/* fn(ctx) runs one call to completion. */
static inline bench_result bench_time(void (*fn)(void *), void *ctx, int ns)
{
    fn(ctx);
    fn(ctx);
    double t0 = bench_now();
    fn(ctx);
    double one = bench_now() - t0;
    int k = one > 0.05 ? 1 : (int)(0.05 / (one > 1e-7 ? one : 1e-7)) + 1;
    double s[64];
    if (ns > 64)
        ns = 64;
    for (int i = 0; i < ns; i++) {
        t0 = bench_now();
        for (int j = 0; j < k; j++)
            fn(ctx);
        s[i] = (bench_now() - t0) / k * 1e3;
    }
    qsort(s, (size_t)ns, sizeof s[0], bench_cmp);
    bench_result r = {s[ns / 2], s[0], s[ns - 1]};
    return r;
}

/* Two functions measured interleaved: after their warm-up calls, sample i of fa runs right before
 * sample i of fb, so a change in the machine's load affects both alike (a ratio of the two medians
 * is far steadier than one of separately taken figures). */
static inline int bench_calls_for(void (*fn)(void *), void *ctx)
{
    fn(ctx);
    fn(ctx);
    double t0 = bench_now();
    fn(ctx);
    double one = bench_now() - t0;
    return one > 0.05 ? 1 : (int)(0.05 / (one > 1e-7 ? one : 1e-7)) + 1;
}

static inline void bench_time2(void (*fa)(void *), void *ca, void (*fb)(void *), void *cb, int ns, bench_result *ra,
                               bench_result *rb)
{
    const int ka = bench_calls_for(fa, ca), kb = bench_calls_for(fb, cb);
    double sa[64], sb[64];
    if (ns > 64)
        ns = 64;
    if (ns < 1)
        ns = 1;
    /* The two alternate which goes first, sample by sample (ABBA...): with a fixed order the
     * second one inherits what the first leaves in the caches and in the memory system. */
    for (int i = 0; i < ns; i++) {
        for (int h = 0; h < 2; h++) {
            const int b = (h + i) % 2;
            const double t0 = bench_now();
            for (int j = 0; j < (b ? kb : ka); j++)
                b ? fb(cb) : fa(ca);
            (b ? sb : sa)[i] = (bench_now() - t0) / (b ? kb : ka) * 1e3;
        }
    }
    qsort(sa, (size_t)ns, sizeof sa[0], bench_cmp);
    qsort(sb, (size_t)ns, sizeof sb[0], bench_cmp);
    ra->med_ms = sa[ns / 2];
    ra->min_ms = sa[0];
    ra->max_ms = sa[ns - 1];
    rb->med_ms = sb[ns / 2];
    rb->min_ms = sb[0];
    rb->max_ms = sb[ns - 1];
}

#endif
