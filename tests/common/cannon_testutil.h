/* Helpers shared by the C tests (tests/unit, tests/hccl) and the benchmarks (bench/): the clock,
 * sleeping and sorting samples. Header-only (`static inline`), libc only, so any test or
 * benchmark can use a subset; the CMake target cannon_testutil puts this folder on the include
 * path. Test-framework helpers stay with their tests (rt_test_util.h: cmocka fixtures of the
 * runtime; hccl_test_util.h: forked ranks), timing loops with the benchmarks (bench_common.h).
 */
#ifndef CANNON_TESTUTIL_H_
#define CANNON_TESTUTIL_H_

#include <errno.h>
#include <time.h>

/** Seconds on the monotonic clock. */
static inline double cn_tu_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/** Sleep @p ms milliseconds, resuming after signals. */
static inline void cn_tu_sleep_ms(unsigned ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/** qsort comparator of doubles, ascending. */
static inline int cn_tu_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#endif /* CANNON_TESTUTIL_H_ */
