/* Bookkeeping allocations with fault injection, and the clock. */
#include "common.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* Remaining successful allocations before an injected failure; negative: injection off. */
static _Atomic long g_fail_after = -1;
static _Atomic long g_alloc_count = 0;

static bool should_fail(void)
{
    atomic_fetch_add_explicit(&g_alloc_count, 1, memory_order_relaxed);
    long cur = atomic_load_explicit(&g_fail_after, memory_order_relaxed);
    while (cur >= 0) {
        if (atomic_compare_exchange_weak(&g_fail_after, &cur, cur - 1))
            return cur == 0;
    }
    return false;
}

void cn_fault_inject_set(long n) { atomic_store(&g_fail_after, n); }
long cn_fault_inject_count(void) { return atomic_load(&g_alloc_count); }
void cn_fault_inject_reset_count(void) { atomic_store(&g_alloc_count, 0); }

void *cn_malloc(size_t n) { return should_fail() ? NULL : malloc(n ? n : 1); }
void *cn_calloc(size_t count, size_t n) { return should_fail() ? NULL : calloc(count ? count : 1, n ? n : 1); }
void *cn_realloc(void *p, size_t n) { return should_fail() ? NULL : realloc(p, n ? n : 1); }
void cn_free(void *p) { free(p); }

/* Below this a table fits in a few pages and the heap is cheaper than a mapping. */
#define TABLE_MMAP_MIN ((size_t)64 << 10)

void *cn_zalloc_table(size_t bytes)
{
    if (should_fail())
        return NULL;
    if (bytes < TABLE_MMAP_MIN)
        return calloc(1, bytes ? bytes : 1);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void cn_free_table(void *p, size_t bytes)
{
    if (!p)
        return;
    if (bytes < TABLE_MMAP_MIN)
        free(p);
    else
        munmap(p, bytes);
}

char *cn_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = cn_malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

uint64_t cn_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
