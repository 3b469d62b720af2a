/* The caching device-memory allocator of one device (internal).
 *
 * A device's memory is one contiguous arena [base, base + capacity) given by its driver. The
 * allocator hands out 64-byte-aligned blocks from it and keeps an O(1) registry so that any
 * pointer can be resolved to the live allocation that contains it (every API checks the
 * pointers it is given). Freed blocks are cached and reused without system calls; the cache is
 * given back to the driver (decommit) when an allocation would otherwise fail, or on trim.
 * All functions are thread-safe (one mutex per allocator).
 */
#ifndef CANNON_RT_DEVALLOC_H_
#define CANNON_RT_DEVALLOC_H_

#include "common.h"

typedef struct cn_devalloc cn_devalloc;

typedef struct cn_devalloc_ops {
    void *ctx;
    /* Advise that [p, p+n) is about to be used; huge != 0 asks for huge pages. May be NULL. */
    int (*commit)(void *ctx, void *p, size_t n, int huge);
    /* Give the pages of [p, p+n) back to the system. May be NULL. */
    int (*decommit)(void *ctx, void *p, size_t n);
} cn_devalloc_ops;

typedef struct cn_devalloc_stats {
    size_t capacity;      /* arena size */
    size_t live_bytes;    /* sum of the sizes of live allocations (as requested, rounded up) */
    size_t live_count;    /* number of live allocations */
    size_t reserved_bytes;/* arena bytes held by the allocator (live + cached + slab slack) */
    size_t cached_bytes;  /* bytes of free blocks kept for reuse */
} cn_devalloc_stats;

/* Results of cn_devalloc_free / cn_devalloc_find. */
enum {
    CN_DEVALLOC_OK = 0,
    CN_DEVALLOC_NOT_IN_ARENA = 1,   /* pointer outside [base, base+capacity) */
    CN_DEVALLOC_NOT_LIVE = 2,       /* inside the arena but not in a live allocation (freed or never allocated) */
    CN_DEVALLOC_INTERIOR = 3,       /* free(): pointer inside a live allocation but not its start */
};

/* Create an allocator over [base, base+capacity). Returns ACL_SUCCESS or ACL_ERROR_BAD_ALLOC. */
aclError cn_devalloc_create(void *base, size_t capacity, const cn_devalloc_ops *ops, cn_devalloc **out);
/* Destroy; *leaked_count / *leaked_bytes (either may be NULL) receive what was still live.
 * Decommits everything it held. */
void cn_devalloc_destroy(cn_devalloc *a, size_t *leaked_count, size_t *leaked_bytes);
/* Allocate size (> 0) bytes, 64-byte aligned. huge: prefer 2 MiB pages.
 * Returns ACL_SUCCESS or ACL_ERROR_RT_MEMORY_ALLOCATION (capacity exhausted even after giving
 * the cache back) or ACL_ERROR_BAD_ALLOC (bookkeeping allocation failed). */
aclError cn_devalloc_alloc(cn_devalloc *a, size_t size, int huge, void **out);
/* Free the allocation starting at ptr; returns CN_DEVALLOC_OK or a CN_DEVALLOC_* reason. */
int cn_devalloc_free(cn_devalloc *a, void *ptr);
/* Resolve ptr: CN_DEVALLOC_OK and the live allocation's start and usable size, else a reason. */
int cn_devalloc_find(cn_devalloc *a, const void *ptr, void **start, size_t *size);
/* Whether ptr lies in the arena at all (no lock needed). */
bool cn_devalloc_in_arena(const cn_devalloc *a, const void *ptr);
void cn_devalloc_get_stats(cn_devalloc *a, cn_devalloc_stats *st);
/* Give every cached block back to the driver. */
void cn_devalloc_trim(cn_devalloc *a);

#endif /* CANNON_RT_DEVALLOC_H_ */
