/* Unit tests of the caching device-memory allocator (src/runtime/devalloc.c). The arena is plain
 * anonymous memory; the ops record what the allocator asks of the driver. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "devalloc.h"

#define MiB ((size_t)1 << 20)
#define GiB ((size_t)1 << 30)
#define SEG (2 * MiB)
#define ARENA (64 * MiB)

typedef struct recorder {
    pthread_mutex_t mu;
    size_t commits, huge_commits, commit_bytes;
    size_t decommits, decommit_bytes;
} recorder;

static int rec_commit(void *ctx, void *p, size_t n, int huge)
{
    recorder *r = ctx;
    (void)p;
    pthread_mutex_lock(&r->mu);
    r->commits++;
    r->huge_commits += huge != 0;
    r->commit_bytes += n;
    pthread_mutex_unlock(&r->mu);
    return 0;
}

static int rec_decommit(void *ctx, void *p, size_t n)
{
    recorder *r = ctx;
    pthread_mutex_lock(&r->mu);
    r->decommits++;
    r->decommit_bytes += n;
    pthread_mutex_unlock(&r->mu);
    /* As a driver would: the pages really go, so later reads see zeros. */
    return madvise(p, n, MADV_DONTNEED);
}

typedef struct fixture {
    char *base;
    size_t cap;
    recorder rec;
    cn_devalloc_ops ops;
    cn_devalloc *a;
} fixture;

static fixture *fixture_new(size_t cap, int noreserve)
{
    fixture *f = calloc(1, sizeof(*f));
    if (!f)
        return NULL;
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | (noreserve ? MAP_NORESERVE : 0);
    void *p = mmap(NULL, cap, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (p == MAP_FAILED) {
        free(f);
        return NULL;
    }
    f->base = p;
    f->cap = cap;
    pthread_mutex_init(&f->rec.mu, NULL);
    f->ops.ctx = &f->rec;
    f->ops.commit = rec_commit;
    f->ops.decommit = rec_decommit;
    if (cn_devalloc_create(f->base, cap, &f->ops, &f->a) != ACL_SUCCESS) {
        munmap(p, cap);
        free(f);
        return NULL;
    }
    return f;
}

static void fixture_free(fixture *f, size_t expect_leaks)
{
    size_t n = 99, bytes = 99;
    cn_devalloc_destroy(f->a, &n, &bytes);
    assert_int_equal(n, expect_leaks);
    if (!expect_leaks)
        assert_int_equal(bytes, 0);
    munmap(f->base, f->cap);
    pthread_mutex_destroy(&f->rec.mu);
    free(f);
}

static int setup(void **state)
{
    *state = fixture_new(ARENA, 0);
    return *state ? 0 : -1;
}

static int teardown(void **state)
{
    fixture_free(*state, 0);
    return 0;
}

static size_t round64(size_t n) { return (n + 63) & ~(size_t)63; }

static void fill(void *p, size_t n, unsigned tag)
{
    memset(p, (int)(tag & 0xff), n);
}

static int check(const void *p, size_t n, unsigned tag)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        if (c[i] != (unsigned char)(tag & 0xff))
            return 0;
    return 1;
}

static void check_invariants(cn_devalloc *a)
{
    cn_devalloc_stats st;
    cn_devalloc_get_stats(a, &st);
    assert_true(st.live_bytes + st.cached_bytes <= st.reserved_bytes);
    assert_true(st.reserved_bytes <= st.capacity);
    assert_int_equal(st.reserved_bytes % SEG, 0);
}

typedef struct blk {
    char *p;
    size_t n;
} blk;

static int cmp_blk(const void *x, const void *y)
{
    const blk *a = x, *b = y;
    return a->p < b->p ? -1 : a->p > b->p;
}

static void assert_disjoint(blk *v, size_t n)
{
    blk *s = malloc(n * sizeof(*s));
    assert_non_null(s);
    memcpy(s, v, n * sizeof(*s));
    qsort(s, n, sizeof(*s), cmp_blk);
    for (size_t i = 1; i < n; i++)
        assert_true(s[i - 1].p + round64(s[i - 1].n) <= s[i].p);
    free(s);
}

/* ---- tests ---- */

static void test_create_destroy(void **state)
{
    (void)state;
    cn_devalloc *a = NULL;
    char buf[64];
    assert_int_equal(cn_devalloc_create(NULL, 0, NULL, &a), ACL_SUCCESS);
    void *p;
    assert_int_equal(cn_devalloc_alloc(a, 64, 0, &p), ACL_ERROR_RT_MEMORY_ALLOCATION);
    assert_false(cn_devalloc_in_arena(a, buf));
    assert_int_equal(cn_devalloc_free(a, buf), CN_DEVALLOC_NOT_IN_ARENA);
    cn_devalloc_destroy(a, NULL, NULL);
    assert_int_equal(cn_devalloc_create(NULL, 0, NULL, NULL), ACL_ERROR_INVALID_PARAM);

    /* An arena smaller than a segment holds nothing, but its pointers are still its own. */
    assert_int_equal(cn_devalloc_create(buf, sizeof(buf), NULL, &a), ACL_SUCCESS);
    assert_true(cn_devalloc_in_arena(a, buf + 63));
    assert_int_equal(cn_devalloc_find(a, buf, NULL, NULL), CN_DEVALLOC_NOT_LIVE);
    assert_int_equal(cn_devalloc_alloc(a, 1, 0, &p), ACL_ERROR_RT_MEMORY_ALLOCATION);
    cn_devalloc_destroy(a, NULL, NULL);
    cn_devalloc_destroy(NULL, NULL, NULL);
}

static void test_empty_stats(void **state)
{
    fixture *f = *state;
    cn_devalloc_stats st;
    cn_devalloc_get_stats(f->a, &st);
    assert_int_equal(st.capacity, ARENA);
    assert_int_equal(st.live_bytes, 0);
    assert_int_equal(st.live_count, 0);
    assert_int_equal(st.reserved_bytes, 0);
    assert_int_equal(st.cached_bytes, 0);
}

static void test_invalid_args(void **state)
{
    fixture *f = *state;
    void *p = (void *)1;
    assert_int_equal(cn_devalloc_alloc(f->a, 0, 0, &p), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(cn_devalloc_alloc(f->a, 64, 0, NULL), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(cn_devalloc_alloc(NULL, 64, 0, &p), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(cn_devalloc_alloc(f->a, SIZE_MAX, 0, &p), ACL_ERROR_RT_MEMORY_ALLOCATION);
    assert_null(p);
    assert_int_equal(cn_devalloc_alloc(f->a, SIZE_MAX - 10, 0, &p), ACL_ERROR_RT_MEMORY_ALLOCATION);
    assert_int_equal(cn_devalloc_alloc(f->a, ARENA + 1, 0, &p), ACL_ERROR_RT_MEMORY_ALLOCATION);
    check_invariants(f->a);
}

static const size_t k_sizes[] = {
    1, 2, 63, 64, 65, 100, 127, 128, 129, 500, 511, 512, 513, 577, 640, 641, 1000, 4095, 4096,
    4097, 10000, 65536, 100000, 262145, 500000, 1048575, 1048576, 1048577, 2 * MiB - 1, 2 * MiB,
    2 * MiB + 1, 3 * MiB, 5 * MiB + 7,
};

static void test_alignment_and_sizes(void **state)
{
    (void)state;
    /* Every small class in use takes a segment of its own: room for them and half the arena. */
    fixture *f = fixture_new(4 * ARENA, 1);
    assert_non_null(f);
    enum { N = CN_ARRAY_SIZE(k_sizes) + 1 };
    blk v[N];
    size_t n = 0, live = 0;
    for (size_t i = 0; i < CN_ARRAY_SIZE(k_sizes); i++, n++) {
        v[n].n = k_sizes[i];
        assert_int_equal(cn_devalloc_alloc(f->a, v[n].n, 0, (void **)&v[n].p), ACL_SUCCESS);
        live += round64(v[n].n);
    }
    /* More than half the arena still fits after all of the above. */
    v[n].n = 2 * ARENA + 1;
    assert_int_equal(cn_devalloc_alloc(f->a, v[n].n, 0, (void **)&v[n].p), ACL_SUCCESS);
    live += round64(v[n].n);
    n++;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal((uintptr_t)v[i].p % 64, 0);
        assert_true(cn_devalloc_in_arena(f->a, v[i].p));
        assert_true(cn_devalloc_in_arena(f->a, v[i].p + v[i].n - 1));
        void *s;
        size_t sz;
        assert_int_equal(cn_devalloc_find(f->a, v[i].p, &s, &sz), CN_DEVALLOC_OK);
        assert_ptr_equal(s, v[i].p);
        assert_int_equal(sz, round64(v[i].n));
        /* The whole usable size is the application's. */
        fill(v[i].p, sz, (unsigned)i + 1);
    }
    for (size_t i = 0; i < n; i++)
        assert_true(check(v[i].p, round64(v[i].n), (unsigned)i + 1));
    assert_disjoint(v, n);
    cn_devalloc_stats st;
    cn_devalloc_get_stats(f->a, &st);
    assert_int_equal(st.live_count, n);
    assert_int_equal(st.live_bytes, live);
    check_invariants(f->a);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(cn_devalloc_free(f->a, v[i].p), CN_DEVALLOC_OK);
    cn_devalloc_get_stats(f->a, &st);
    assert_int_equal(st.live_count, 0);
    assert_int_equal(st.live_bytes, 0);
    cn_devalloc_trim(f->a);
    cn_devalloc_get_stats(f->a, &st);
    assert_int_equal(st.reserved_bytes, 0);
    fixture_free(f, 0);
}

/* Every block of several slabs of each of a few classes, written and checked. */
static void test_fill_slabs(void **state)
{
    fixture *f = *state;
    static const size_t sizes[] = {64, 192, 520, 3000, 300000, 1048576};
    for (size_t k = 0; k < CN_ARRAY_SIZE(sizes); k++) {
        size_t n = 3 * SEG / round64(sizes[k]) + 3;
        blk *v = calloc(n, sizeof(*v));
        assert_non_null(v);
        for (size_t i = 0; i < n; i++) {
            v[i].n = sizes[k];
            assert_int_equal(cn_devalloc_alloc(f->a, v[i].n, 0, (void **)&v[i].p), ACL_SUCCESS);
            fill(v[i].p, v[i].n, (unsigned)(i * 7 + k));
        }
        for (size_t i = 0; i < n; i++)
            assert_true(check(v[i].p, v[i].n, (unsigned)(i * 7 + k)));
        assert_disjoint(v, n);
        check_invariants(f->a);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(cn_devalloc_free(f->a, v[i].p), CN_DEVALLOC_OK);
        free(v);
    }
    cn_devalloc_trim(f->a);
    cn_devalloc_stats st;
    cn_devalloc_get_stats(f->a, &st);
    assert_int_equal(st.reserved_bytes, 0);
    assert_int_equal(st.cached_bytes, 0);
}

static void test_find(void **state)
{
    fixture *f = *state;
    char *p, *q, *big;
    void *s;
    size_t sz;
    /* 520 B rounds to 576 and lives in the 640 B class: 64 B of slack follow it. */
    assert_int_equal(cn_devalloc_alloc(f->a, 520, 0, (void **)&p), ACL_SUCCESS);
    assert_int_equal(cn_devalloc_alloc(f->a, 100, 0, (void **)&q), ACL_SUCCESS);
    assert_int_equal(cn_devalloc_alloc(f->a, 3 * MiB + 1, 0, (void **)&big), ACL_SUCCESS);

    struct { char *start; size_t usable; } cases[] = {{p, 576}, {q, 128}, {big, 3 * MiB + 64}};
    for (size_t i = 0; i < CN_ARRAY_SIZE(cases); i++) {
        char *b = cases[i].start;
        size_t u = cases[i].usable;
        const char *probes[] = {b, b + 1, b + u / 2, b + u - 1};
        for (size_t j = 0; j < CN_ARRAY_SIZE(probes); j++) {
            s = NULL;
            sz = 0;
            assert_int_equal(cn_devalloc_find(f->a, probes[j], &s, &sz), CN_DEVALLOC_OK);
            assert_ptr_equal(s, b);
            assert_int_equal(sz, u);
        }
        /* Nothing is allocated right after any of them. */
        assert_int_equal(cn_devalloc_find(f->a, b + u, &s, &sz), CN_DEVALLOC_NOT_LIVE);
    }
    assert_int_equal(cn_devalloc_find(f->a, p + 640 - 1, NULL, NULL), CN_DEVALLOC_NOT_LIVE);
    assert_int_equal(cn_devalloc_find(f->a, big + 4 * MiB - 1, NULL, NULL), CN_DEVALLOC_NOT_LIVE);
    /* Outside the arena. */
    char host;
    assert_int_equal(cn_devalloc_find(f->a, &host, NULL, NULL), CN_DEVALLOC_NOT_IN_ARENA);
    assert_int_equal(cn_devalloc_find(f->a, NULL, NULL, NULL), CN_DEVALLOC_NOT_IN_ARENA);
    assert_int_equal(cn_devalloc_find(f->a, f->base - 1, NULL, NULL), CN_DEVALLOC_NOT_IN_ARENA);
    assert_int_equal(cn_devalloc_find(f->a, f->base + ARENA, NULL, NULL), CN_DEVALLOC_NOT_IN_ARENA);
    assert_false(cn_devalloc_in_arena(f->a, f->base + ARENA));
    assert_true(cn_devalloc_in_arena(f->a, f->base + ARENA - 1));
    /* Never allocated: the middle of the arena. */
    assert_int_equal(cn_devalloc_find(f->a, f->base + ARENA / 2, NULL, NULL), CN_DEVALLOC_NOT_LIVE);
    /* Freed. */
    assert_int_equal(cn_devalloc_free(f->a, p), CN_DEVALLOC_OK);
    assert_int_equal(cn_devalloc_free(f->a, big), CN_DEVALLOC_OK);
    assert_int_equal(cn_devalloc_find(f->a, p, NULL, NULL), CN_DEVALLOC_NOT_LIVE);
    assert_int_equal(cn_devalloc_find(f->a, p + 10, NULL, NULL), CN_DEVALLOC_NOT_LIVE);
    assert_int_equal(cn_devalloc_find(f->a, big, NULL, NULL), CN_DEVALLOC_NOT_LIVE);
    assert_int_equal(cn_devalloc_find(f->a, big + 3 * MiB, NULL, NULL), CN_DEVALLOC_NOT_LIVE);
    assert_int_equal(cn_devalloc_find(f->a, q, &s, &sz), CN_DEVALLOC_OK);
    assert_int_equal(cn_devalloc_free(f->a, q), CN_DEVALLOC_OK);
}

static void test_free_errors(void **state)
{
    fixture *f = *state;
    char *p, *big, host[8];
    cn_devalloc_stats before, after;
    assert_int_equal(cn_devalloc_alloc(f->a, 256, 0, (void **)&p), ACL_SUCCESS);
    assert_int_equal(cn_devalloc_alloc(f->a, 4 * MiB, 0, (void **)&big), ACL_SUCCESS);
    cn_devalloc_get_stats(f->a, &before);
    assert_int_equal(cn_devalloc_free(f->a, p + 64), CN_DEVALLOC_INTERIOR);
    assert_int_equal(cn_devalloc_free(f->a, p + 1), CN_DEVALLOC_INTERIOR);
    assert_int_equal(cn_devalloc_free(f->a, big + 1), CN_DEVALLOC_INTERIOR);
    assert_int_equal(cn_devalloc_free(f->a, big + 3 * MiB), CN_DEVALLOC_INTERIOR);
    assert_int_equal(cn_devalloc_free(f->a, host), CN_DEVALLOC_NOT_IN_ARENA);
    assert_int_equal(cn_devalloc_free(f->a, NULL), CN_DEVALLOC_NOT_IN_ARENA);
    assert_int_equal(cn_devalloc_free(f->a, (void *)(uintptr_t)1), CN_DEVALLOC_NOT_IN_ARENA);
    assert_int_equal(cn_devalloc_free(f->a, f->base + ARENA), CN_DEVALLOC_NOT_IN_ARENA);
    assert_int_equal(cn_devalloc_free(f->a, p + 256), CN_DEVALLOC_NOT_LIVE);
    assert_int_equal(cn_devalloc_free(f->a, f->base + ARENA / 2), CN_DEVALLOC_NOT_LIVE);
    assert_int_equal(cn_devalloc_free(NULL, p), CN_DEVALLOC_NOT_IN_ARENA);
    cn_devalloc_get_stats(f->a, &after);
    assert_memory_equal(&before, &after, sizeof(before));
    /* Rejected frees left both blocks live. */
    assert_int_equal(cn_devalloc_find(f->a, p, NULL, NULL), CN_DEVALLOC_OK);
    assert_int_equal(cn_devalloc_find(f->a, big, NULL, NULL), CN_DEVALLOC_OK);
    assert_int_equal(cn_devalloc_free(f->a, p), CN_DEVALLOC_OK);
    assert_int_equal(cn_devalloc_free(f->a, p), CN_DEVALLOC_NOT_LIVE);
    assert_int_equal(cn_devalloc_free(f->a, big), CN_DEVALLOC_OK);
    assert_int_equal(cn_devalloc_free(f->a, big), CN_DEVALLOC_NOT_LIVE);
    /* Double free after the cache was given back. */
    cn_devalloc_trim(f->a);
    assert_int_equal(cn_devalloc_free(f->a, big), CN_DEVALLOC_NOT_LIVE);
    assert_int_equal(cn_devalloc_free(f->a, p), CN_DEVALLOC_NOT_LIVE);
    cn_devalloc_get_stats(f->a, &after);
    assert_int_equal(after.live_count, 0);
    assert_int_equal(after.reserved_bytes, 0);
}

static void test_stats(void **state)
{
    fixture *f = *state;
    cn_devalloc_stats st;
    char *p, *q, *big;
    assert_int_equal(cn_devalloc_alloc(f->a, 100, 0, (void **)&p), ACL_SUCCESS);
    cn_devalloc_get_stats(f->a, &st);
    assert_int_equal(st.live_bytes, 128);
    assert_int_equal(st.live_count, 1);
    assert_int_equal(st.reserved_bytes, SEG);
    assert_int_equal(st.cached_bytes, SEG - 128); /* 128 divides a segment */
    assert_int_equal(cn_devalloc_alloc(f->a, 700, 0, (void **)&q), ACL_SUCCESS); /* 768 class */
    cn_devalloc_get_stats(f->a, &st);
    assert_int_equal(st.live_bytes, 128 + 704);
    assert_int_equal(st.reserved_bytes, 2 * SEG);
    assert_int_equal(st.cached_bytes, SEG - 128 + (SEG / 768 - 1) * 768);
    assert_int_equal(cn_devalloc_alloc(f->a, 3 * MiB, 0, (void **)&big), ACL_SUCCESS);
    cn_devalloc_get_stats(f->a, &st);
    assert_int_equal(st.live_bytes, 128 + 704 + 3 * MiB);
    assert_int_equal(st.live_count, 3);
    assert_int_equal(st.reserved_bytes, 4 * SEG);
    assert_int_equal(cn_devalloc_free(f->a, big), CN_DEVALLOC_OK);
    cn_devalloc_get_stats(f->a, &st);
    assert_int_equal(st.live_bytes, 128 + 704);
    assert_int_equal(st.reserved_bytes, 4 * SEG);
    assert_int_equal(st.cached_bytes, SEG - 128 + (SEG / 768 - 1) * 768 + 2 * SEG);
    assert_int_equal(cn_devalloc_free(f->a, q), CN_DEVALLOC_OK);
    /* Trim gives back the large block and the empty 768 B slab, keeps the live slab. */
    size_t dec = f->rec.decommit_bytes;
    cn_devalloc_trim(f->a);
    assert_int_equal(f->rec.decommit_bytes - dec, 3 * SEG);
    cn_devalloc_get_stats(f->a, &st);
    assert_int_equal(st.reserved_bytes, SEG);
    assert_int_equal(st.cached_bytes, SEG - 128);
    assert_int_equal(cn_devalloc_free(f->a, p), CN_DEVALLOC_OK);
    cn_devalloc_get_stats(f->a, &st);
    assert_int_equal(st.cached_bytes, SEG);
    assert_int_equal(st.live_bytes, 0);
    cn_devalloc_trim(f->a);
    cn_devalloc_get_stats(f->a, &st);
    assert_int_equal(st.reserved_bytes, 0);
    assert_int_equal(st.cached_bytes, 0);
}

static void test_cache_reuse(void **state)
{
    fixture *f = *state;
    char *p, *q;
    assert_int_equal(cn_devalloc_alloc(f->a, 16 * MiB, 1, (void **)&p), ACL_SUCCESS);
    assert_int_equal(f->rec.huge_commits, 1);
    assert_int_equal(cn_devalloc_free(f->a, p), CN_DEVALLOC_OK);
    size_t commits = f->rec.commits, decommits = f->rec.decommits;
    /* Same rounded size: the cached block, without asking the driver anything. */
    assert_int_equal(cn_devalloc_alloc(f->a, 14 * MiB + 1, 1, (void **)&q), ACL_SUCCESS);
    assert_ptr_equal(p, q);
    assert_int_equal(f->rec.commits, commits);
    assert_int_equal(cn_devalloc_free(f->a, q), CN_DEVALLOC_OK);
    /* 7 segments from a cached 8: 1/8 wasted, accepted. */
    assert_int_equal(cn_devalloc_alloc(f->a, 14 * MiB, 0, (void **)&q), ACL_SUCCESS);
    assert_ptr_equal(p, q);
    void *s;
    size_t sz;
    assert_int_equal(cn_devalloc_find(f->a, q + 14 * MiB - 1, &s, &sz), CN_DEVALLOC_OK);
    assert_int_equal(sz, 14 * MiB);
    assert_int_equal(cn_devalloc_find(f->a, q + 14 * MiB, &s, &sz), CN_DEVALLOC_NOT_LIVE);
    assert_int_equal(cn_devalloc_free(f->a, q), CN_DEVALLOC_OK);
    /* 6 segments from a cached 8: too wasteful, a fresh run. */
    assert_int_equal(cn_devalloc_alloc(f->a, 12 * MiB, 0, (void **)&q), ACL_SUCCESS);
    assert_ptr_not_equal(p, q);
    assert_int_equal(f->rec.commits, commits + 1);
    assert_int_equal(f->rec.decommits, decommits);
    assert_int_equal(cn_devalloc_free(f->a, q), CN_DEVALLOC_OK);
    /* A non-huge cached block reused for a huge request is advised again. */
    size_t huge = f->rec.huge_commits;
    assert_int_equal(cn_devalloc_alloc(f->a, 12 * MiB, 1, (void **)&q), ACL_SUCCESS);
    assert_int_equal(f->rec.huge_commits, huge + 1);
    assert_int_equal(cn_devalloc_free(f->a, q), CN_DEVALLOC_OK);
    /* Small blocks: the freed block comes straight back. */
    assert_int_equal(cn_devalloc_alloc(f->a, 4096, 0, (void **)&p), ACL_SUCCESS);
    assert_int_equal(cn_devalloc_free(f->a, p), CN_DEVALLOC_OK);
    assert_int_equal(cn_devalloc_alloc(f->a, 4000, 0, (void **)&q), ACL_SUCCESS);
    assert_ptr_equal(p, q);
    assert_int_equal(cn_devalloc_free(f->a, q), CN_DEVALLOC_OK);
}

static void test_oom_large(void **state)
{
    fixture *f = *state;
    char *v[8];
    for (int i = 0; i < 8; i++)
        assert_int_equal(cn_devalloc_alloc(f->a, 8 * MiB, 0, (void **)&v[i]), ACL_SUCCESS);
    void *p;
    assert_int_equal(cn_devalloc_alloc(f->a, 64, 0, &p), ACL_ERROR_RT_MEMORY_ALLOCATION);
    assert_int_equal(cn_devalloc_alloc(f->a, 8 * MiB, 0, &p), ACL_ERROR_RT_MEMORY_ALLOCATION);
    assert_int_equal(f->rec.decommits, 0);
    for (int i = 0; i < 8; i++)
        assert_int_equal(cn_devalloc_free(f->a, v[i]), CN_DEVALLOC_OK);
    cn_devalloc_stats st;
    cn_devalloc_get_stats(f->a, &st);
    assert_int_equal(st.cached_bytes, ARENA);
    assert_int_equal(st.reserved_bytes, ARENA);
    /* The whole arena in one block: only after the cache was given back and coalesced. */
    assert_int_equal(cn_devalloc_alloc(f->a, ARENA, 0, &p), ACL_SUCCESS);
    assert_ptr_equal(p, f->base);
    assert_int_equal(f->rec.decommits, 8);
    assert_int_equal(f->rec.decommit_bytes, ARENA);
    cn_devalloc_get_stats(f->a, &st);
    assert_int_equal(st.cached_bytes, 0);
    assert_int_equal(st.live_bytes, ARENA);
    void *q;
    assert_int_equal(cn_devalloc_alloc(f->a, 1, 0, &q), ACL_ERROR_RT_MEMORY_ALLOCATION);
    assert_int_equal(cn_devalloc_free(f->a, p), CN_DEVALLOC_OK);
    assert_int_equal(cn_devalloc_alloc(f->a, 1, 0, &q), ACL_SUCCESS);
    assert_int_equal(cn_devalloc_free(f->a, q), CN_DEVALLOC_OK);
}

static void test_oom_small(void **state)
{
    fixture *f = *state;
    enum { MAXN = ARENA / MiB + 1 };
    void *v[MAXN];
    size_t n = 0;
    aclError err;
    while ((err = cn_devalloc_alloc(f->a, MiB, 0, &v[n])) == ACL_SUCCESS) {
        assert_true(n < MAXN - 1);
        fill(v[n], 64, (unsigned)n);
        n++;
    }
    assert_int_equal(err, ACL_ERROR_RT_MEMORY_ALLOCATION);
    assert_int_equal(n, ARENA / MiB);
    for (size_t i = 0; i < n; i++)
        assert_true(check(v[i], 64, (unsigned)i));
    for (size_t i = 0; i < n; i++)
        assert_int_equal(cn_devalloc_free(f->a, v[i]), CN_DEVALLOC_OK);
    /* A large block now needs the empty slabs given back. */
    void *p;
    assert_int_equal(cn_devalloc_alloc(f->a, ARENA - SEG, 0, &p), ACL_SUCCESS);
    assert_true(f->rec.decommits >= ARENA / SEG - 1);
    /* And a small block of another class needs the last one. */
    void *q;
    assert_int_equal(cn_devalloc_alloc(f->a, 64, 0, &q), ACL_SUCCESS);
    assert_int_equal(cn_devalloc_free(f->a, q), CN_DEVALLOC_OK);
    assert_int_equal(cn_devalloc_free(f->a, p), CN_DEVALLOC_OK);
    check_invariants(f->a);
}

static void test_fragmentation(void **state)
{
    fixture *f = *state;
    enum { N = ARENA / SEG };
    void *v[N];
    for (int i = 0; i < N; i++)
        assert_int_equal(cn_devalloc_alloc(f->a, SEG, 0, &v[i]), ACL_SUCCESS);
    for (int i = 0; i < N; i += 2)
        assert_int_equal(cn_devalloc_free(f->a, v[i]), CN_DEVALLOC_OK);
    /* Half the arena is cached, but no two free segments touch. */
    void *p;
    assert_int_equal(cn_devalloc_alloc(f->a, 2 * SEG, 0, &p), ACL_ERROR_RT_MEMORY_ALLOCATION);
    cn_devalloc_stats st;
    cn_devalloc_get_stats(f->a, &st);
    assert_int_equal(st.cached_bytes, 0); /* given back while trying */
    assert_int_equal(st.reserved_bytes, ARENA / 2);
    /* Single segments still fit. */
    assert_int_equal(cn_devalloc_alloc(f->a, SEG, 0, &p), ACL_SUCCESS);
    assert_int_equal(cn_devalloc_free(f->a, p), CN_DEVALLOC_OK);
    /* Freeing one odd block joins three free segments. */
    assert_int_equal(cn_devalloc_free(f->a, v[5]), CN_DEVALLOC_OK);
    assert_int_equal(cn_devalloc_alloc(f->a, 3 * SEG, 0, &p), ACL_SUCCESS);
    assert_ptr_equal(p, v[4]);
    assert_int_equal(cn_devalloc_free(f->a, p), CN_DEVALLOC_OK);
    for (int i = 1; i < N; i += 2)
        if (i != 5)
            assert_int_equal(cn_devalloc_free(f->a, v[i]), CN_DEVALLOC_OK);
    assert_int_equal(cn_devalloc_alloc(f->a, ARENA, 0, &p), ACL_SUCCESS);
    assert_int_equal(cn_devalloc_free(f->a, p), CN_DEVALLOC_OK);
}

/* Slabs are taken from the top, large blocks from the bottom. */
static void test_placement(void **state)
{
    fixture *f = *state;
    char *s, *l;
    assert_int_equal(cn_devalloc_alloc(f->a, 64, 0, (void **)&s), ACL_SUCCESS);
    assert_int_equal(cn_devalloc_alloc(f->a, 4 * MiB, 0, (void **)&l), ACL_SUCCESS);
    assert_ptr_equal(l, f->base);
    assert_ptr_equal(s, f->base + ARENA - SEG);
    assert_int_equal(cn_devalloc_free(f->a, s), CN_DEVALLOC_OK);
    assert_int_equal(cn_devalloc_free(f->a, l), CN_DEVALLOC_OK);
}

static void test_leaks(void **state)
{
    (void)state;
    fixture *f = fixture_new(ARENA, 0);
    assert_non_null(f);
    void *p;
    assert_int_equal(cn_devalloc_alloc(f->a, 10, 0, &p), ACL_SUCCESS);
    assert_int_equal(cn_devalloc_alloc(f->a, 1000, 0, &p), ACL_SUCCESS);
    assert_int_equal(cn_devalloc_alloc(f->a, 3 * MiB, 0, &p), ACL_SUCCESS);
    assert_int_equal(cn_devalloc_alloc(f->a, 5 * MiB, 0, &p), ACL_SUCCESS);
    assert_int_equal(cn_devalloc_free(f->a, p), CN_DEVALLOC_OK);
    cn_devalloc_stats st;
    cn_devalloc_get_stats(f->a, &st);
    size_t n, bytes;
    f->rec.decommit_bytes = 0;
    cn_devalloc_destroy(f->a, &n, &bytes);
    assert_int_equal(n, 3);
    assert_int_equal(bytes, 64 + 1024 + 3 * MiB);
    assert_int_equal(f->rec.decommit_bytes, st.reserved_bytes);
    f->a = NULL;
    cn_devalloc_destroy(NULL, &n, &bytes);
    assert_int_equal(n, 0);
    munmap(f->base, f->cap);
    free(f);
}

/* Every bookkeeping allocation, failed in turn: a clean BAD_ALLOC and a usable allocator. */
static void test_fault_injection(void **state)
{
    (void)state;
    char *base = mmap(NULL, ARENA, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(base != MAP_FAILED);
    static const size_t sizes[] = {64, 100, 5000, 64, 3 * MiB, 700000, 1 << 20, 65};
    int created = 0, completed = 0;
    for (long n = 0; n < 100 && !completed; n++) {
        cn_devalloc *a = NULL;
        cn_fault_inject_set(n);
        aclError err = cn_devalloc_create(base, ARENA, NULL, &a);
        if (err != ACL_SUCCESS) {
            cn_fault_inject_set(-1);
            assert_int_equal(err, ACL_ERROR_BAD_ALLOC);
            assert_null(a);
            continue;
        }
        created = 1;
        void *v[CN_ARRAY_SIZE(sizes)];
        size_t got = 0;
        for (; got < CN_ARRAY_SIZE(sizes); got++) {
            err = cn_devalloc_alloc(a, sizes[got], 0, &v[got]);
            if (err != ACL_SUCCESS)
                break;
        }
        cn_fault_inject_set(-1);
        if (got == CN_ARRAY_SIZE(sizes)) {
            completed = 1;
        } else {
            assert_int_equal(err, ACL_ERROR_BAD_ALLOC);
            check_invariants(a);
            cn_devalloc_stats st;
            cn_devalloc_get_stats(a, &st);
            assert_int_equal(st.live_count, got);
            /* Usable: the failed request now succeeds. */
            assert_int_equal(cn_devalloc_alloc(a, sizes[got], 0, &v[got]), ACL_SUCCESS);
            got++;
        }
        for (size_t i = 0; i < got; i++) {
            memset(v[i], 0x5a, sizes[i]);
            assert_int_equal(cn_devalloc_free(a, v[i]), CN_DEVALLOC_OK);
        }
        size_t leaked = 1;
        cn_devalloc_destroy(a, &leaked, NULL);
        assert_int_equal(leaked, 0);
    }
    cn_fault_inject_set(-1);
    assert_true(created);
    assert_true(completed);
    munmap(base, ARENA);
}

/* Random operations against a shadow list, checking find() on random pointers. */
static void test_random_model(void **state)
{
    fixture *f = *state;
    enum { MAXLIVE = 600, OPS = 20000 };
    blk live[MAXLIVE];
    size_t n = 0;
    unsigned seed = 12345;
    for (int op = 0; op < OPS; op++) {
        int r = rand_r(&seed);
        if (n < MAXLIVE && (n == 0 || r % 3 != 0)) {
            size_t sz;
            int kind = rand_r(&seed) % 100;
            if (kind < 70)
                sz = 2 + (size_t)rand_r(&seed) % 2048;
            else if (kind < 97)
                sz = 2 + (size_t)rand_r(&seed) % MiB;
            else
                sz = MiB + (size_t)rand_r(&seed) % (6 * MiB);
            char *p;
            aclError err = cn_devalloc_alloc(f->a, sz, 0, (void **)&p);
            if (err == ACL_ERROR_RT_MEMORY_ALLOCATION)
                continue;
            assert_int_equal(err, ACL_SUCCESS);
            live[n].p = p;
            live[n].n = sz;
            p[0] = (char)n;
            p[sz - 1] = (char)~n;
            n++;
        } else {
            size_t i = (size_t)rand_r(&seed) % n;
            assert_int_equal(live[i].p[0], (char)i);
            assert_int_equal(live[i].p[live[i].n - 1], (char)~i);
            assert_int_equal(cn_devalloc_free(f->a, live[i].p), CN_DEVALLOC_OK);
            n--;
            if (i != n) {
                live[i] = live[n];
                live[i].p[0] = (char)i;
                live[i].p[live[i].n - 1] = (char)~i;
            }
        }
        if (op % 97 == 0) {
            check_invariants(f->a);
            /* Random pointers: find agrees with the shadow list. */
            for (int k = 0; k < 50; k++) {
                char *q = f->base + (size_t)rand_r(&seed) % ARENA;
                const blk *owner = NULL;
                for (size_t i = 0; i < n; i++)
                    if (q >= live[i].p && q < live[i].p + round64(live[i].n))
                        owner = &live[i];
                void *s;
                size_t sz;
                int res = cn_devalloc_find(f->a, q, &s, &sz);
                if (owner) {
                    assert_int_equal(res, CN_DEVALLOC_OK);
                    assert_ptr_equal(s, owner->p);
                    assert_int_equal(sz, round64(owner->n));
                } else {
                    assert_int_equal(res, CN_DEVALLOC_NOT_LIVE);
                }
            }
            assert_disjoint(live, n);
        }
        if (op % 5000 == 4999)
            cn_devalloc_trim(f->a);
    }
    cn_devalloc_stats st;
    cn_devalloc_get_stats(f->a, &st);
    assert_int_equal(st.live_count, n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(cn_devalloc_free(f->a, live[i].p), CN_DEVALLOC_OK);
}

/* A card-sized arena: virtual only, touched sparsely. */
static void test_large_arena(void **state)
{
    (void)state;
    size_t cap = 64 * GiB;
    fixture *f = fixture_new(cap, 1);
    if (!f)
        skip();
    void *huge_blk, *small, *mid;
    assert_int_equal(cn_devalloc_alloc(f->a, cap / 2 + 1, 1, &huge_blk), ACL_SUCCESS);
    assert_int_equal(f->rec.huge_commits, 1);
    assert_int_equal(cn_devalloc_alloc(f->a, 100, 0, &small), ACL_SUCCESS);
    assert_int_equal(cn_devalloc_alloc(f->a, 20 * GiB, 0, &mid), ACL_SUCCESS);
    void *p;
    assert_int_equal(cn_devalloc_alloc(f->a, 12 * GiB, 0, &p), ACL_ERROR_RT_MEMORY_ALLOCATION);
    ((char *)huge_blk)[cap / 2] = 1;
    void *s;
    size_t sz;
    assert_int_equal(cn_devalloc_find(f->a, (char *)huge_blk + cap / 2, &s, &sz), CN_DEVALLOC_OK);
    assert_ptr_equal(s, huge_blk);
    assert_int_equal(sz, cap / 2 + 64);
    assert_int_equal(cn_devalloc_find(f->a, (char *)mid + 20 * GiB - 1, &s, &sz), CN_DEVALLOC_OK);
    assert_ptr_equal(s, mid);
    assert_int_equal(cn_devalloc_free(f->a, huge_blk), CN_DEVALLOC_OK);
    assert_int_equal(cn_devalloc_free(f->a, mid), CN_DEVALLOC_OK);
    assert_int_equal(cn_devalloc_alloc(f->a, 60 * GiB, 0, &p), ACL_SUCCESS);
    assert_int_equal(cn_devalloc_free(f->a, p), CN_DEVALLOC_OK);
    assert_int_equal(cn_devalloc_free(f->a, small), CN_DEVALLOC_OK);
    fixture_free(f, 0);
}

/* ---- threads ---- */

typedef struct worker {
    cn_devalloc *a;
    unsigned seed;
    int failures;
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;
    enum { SLOTS = 64, OPS = 20000 };
    blk slot[SLOTS] = {{0}};
    unsigned char tag[SLOTS] = {0};
    for (int op = 0; op < OPS; op++) {
        unsigned i = (unsigned)rand_r(&w->seed) % SLOTS;
        if (slot[i].p) {
            size_t n = slot[i].n < 4096 ? slot[i].n : 4096;
            if (!check(slot[i].p, n, tag[i]) || !check(slot[i].p + slot[i].n - n, n, tag[i]))
                w->failures++;
            void *s;
            size_t sz;
            if (cn_devalloc_find(w->a, slot[i].p + slot[i].n - 1, &s, &sz) != CN_DEVALLOC_OK ||
                s != slot[i].p || sz != round64(slot[i].n))
                w->failures++;
            if (cn_devalloc_free(w->a, slot[i].p) != CN_DEVALLOC_OK)
                w->failures++;
            slot[i].p = NULL;
        } else {
            int kind = rand_r(&w->seed) % 100;
            size_t sz = kind < 80 ? 1 + (size_t)rand_r(&w->seed) % 4096
                      : kind < 98 ? 1 + (size_t)rand_r(&w->seed) % MiB
                                  : MiB + (size_t)rand_r(&w->seed) % (4 * MiB);
            aclError err = cn_devalloc_alloc(w->a, sz, 0, (void **)&slot[i].p);
            if (err != ACL_SUCCESS) {
                if (err != ACL_ERROR_RT_MEMORY_ALLOCATION)
                    w->failures++;
                slot[i].p = NULL;
                continue;
            }
            slot[i].n = sz;
            tag[i] = (unsigned char)rand_r(&w->seed);
            size_t n = sz < 4096 ? sz : 4096;
            fill(slot[i].p, n, tag[i]);
            fill(slot[i].p + sz - n, n, tag[i]);
        }
        if (op % 4096 == 0)
            cn_devalloc_trim(w->a);
    }
    for (unsigned i = 0; i < SLOTS; i++)
        if (slot[i].p && cn_devalloc_free(w->a, slot[i].p) != CN_DEVALLOC_OK)
            w->failures++;
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    fixture *f = fixture_new(256 * MiB, 1);
    assert_non_null(f);
    enum { T = 4 };
    pthread_t th[T];
    worker w[T];
    for (int i = 0; i < T; i++) {
        w[i].a = f->a;
        w[i].seed = 1000u + (unsigned)i;
        w[i].failures = 0;
        assert_int_equal(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
    }
    for (int i = 0; i < T; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(w[i].failures, 0);
    }
    cn_devalloc_stats st;
    cn_devalloc_get_stats(f->a, &st);
    assert_int_equal(st.live_count, 0);
    assert_int_equal(st.live_bytes, 0);
    check_invariants(f->a);
    cn_devalloc_trim(f->a);
    cn_devalloc_get_stats(f->a, &st);
    assert_int_equal(st.reserved_bytes, 0);
    assert_int_equal(st.cached_bytes, 0);
    fixture_free(f, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_destroy),
        cmocka_unit_test_setup_teardown(test_empty_stats, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invalid_args, setup, teardown),
        cmocka_unit_test(test_alignment_and_sizes),
        cmocka_unit_test_setup_teardown(test_fill_slabs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_find, setup, teardown),
        cmocka_unit_test_setup_teardown(test_free_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stats, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cache_reuse, setup, teardown),
        cmocka_unit_test_setup_teardown(test_oom_large, setup, teardown),
        cmocka_unit_test_setup_teardown(test_oom_small, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fragmentation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_placement, setup, teardown),
        cmocka_unit_test(test_leaks),
        cmocka_unit_test(test_fault_injection),
        cmocka_unit_test_setup_teardown(test_random_model, setup, teardown),
        cmocka_unit_test(test_large_arena),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
