/* Internal helpers shared by every file of libascendcl (not installed). */
#ifndef CANNON_RT_COMMON_H_
#define CANNON_RT_COMMON_H_

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "acl/acl.h"

#define CN_HIDDEN __attribute__((visibility("hidden")))
#define CN_UNUSED(x) ((void)(x))
#define CN_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define CN_ALIGN_UP(x, a) (((x) + ((a) - 1)) & ~((size_t)(a) - 1))
#define CN_LIKELY(x) __builtin_expect(!!(x), 1)
#define CN_UNLIKELY(x) __builtin_expect(!!(x), 0)

/*
 * Every heap allocation of the runtime's own bookkeeping goes through these, so tests can make
 * the n-th allocation fail (cn_fault_inject_set) and check the error path frees what it took.
 */
void *cn_malloc(size_t n);
void *cn_calloc(size_t count, size_t n);
void *cn_realloc(void *p, size_t n);
char *cn_strdup(const char *s);
void cn_free(void *p);

/*
 * Zero-filled tables (counted by fault injection like cn_calloc). Large ones are mapped
 * anonymously instead of calloc'd: glibc clears a calloc'd heap chunk with memset, touching every
 * page, and a first touch costs 10-20 us per 4 KiB page on the VMs cannon targets. A mapped table
 * costs a page only when an entry in it is first used. Free with the same byte count.
 */
void *cn_zalloc_table(size_t bytes);
void cn_free_table(void *p, size_t bytes);

/* Fault injection: after `n` more successful allocations the next one fails (n < 0: never). */
void cn_fault_inject_set(long n);
/* Number of allocations made since the counter was last reset (for sizing injection loops). */
long cn_fault_inject_count(void);
void cn_fault_inject_reset_count(void);

/* Monotonic clock in nanoseconds. */
uint64_t cn_now_ns(void);

#endif /* CANNON_RT_COMMON_H_ */
