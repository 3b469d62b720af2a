/*
 * Fuzz target: the argument ranges of the memory and copy APIs (src/runtime/memory.c).
 *
 * Each input is a program of up to MAX_OPS calls: aclrtMalloc / aclrtMallocAlign32 /
 * aclrtMallocCached / aclrtMallocHost with fuzzed sizes and policies, aclrtFree / aclrtFreeHost of
 * starts, interior, freed and foreign pointers, aclrtMemcpy / aclrtMemcpyAsync / aclrtMemcpy2d /
 * aclrtMemset / aclrtMemsetAsync with pointers chosen among the live blocks plus a fuzzed offset
 * (device, pinned host from aclrtMallocHost, pageable host from malloc), NULL and wild values,
 * with fuzzed counts, pitches, destMax, kinds and streams (valid, NULL, destroyed), and
 * synchronisations. An asynchronous call is followed by a synchronisation of its stream.
 *
 * The target keeps a model: the expected content of every block. For each call it predicts
 * whether the call must succeed (every range inside one live block that the runtime knows, the
 * direction matching the kind, count <= destMax, a live stream...) or must fail, and after it
 * checks: the code is a documented one and agrees with the prediction, every block holds what
 * the model says (a success applied like memmove/memset, a failure changed nothing), the guard
 * bytes around pageable blocks are intact (ASan guards the pinned ones), and the device arena
 * around the device blocks, outside every live block, is unchanged.
 *
 * The runtime cannot tell pageable memory from any other host memory, so a call is only made
 * when each of its host ranges is inside a block, or is one the runtime must refuse (NULL, a
 * range that wraps around the address space or runs into device memory, a pinned pointer whose
 * range leaves its aclrtMallocHost allocation). Device memory is this process's memory with the
 * CPU driver, so the target reads it directly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "cannon/kernel.h"
#include "fuzz_common.h"

#define MAX_BLOCKS 8
#define MAX_OPS 48
#define BLOCK_MAX 8192  /* larger successful allocations are freed at once, not tracked */
#define GUARD 64        /* guard bytes on each side of a pageable block */
#define NEIGHBOURHOOD 1024 /* arena bytes checked on each side of a device block */

typedef enum { B_DEV, B_PINNED, B_PAGE } bkind;

typedef struct block {
    bkind kind;
    uint8_t *p;
    size_t size;   /* bytes asked for */
    size_t usable; /* bytes the runtime lets a range reach (device: rounded up to 64) */
    uint8_t *model;
    uint8_t *raw;  /* pageable: the malloc'd area with the guards */
} block;

typedef struct region { /* a piece of the arena around a device block, as snapshotted */
    uint8_t *lo;
    size_t n;
    uint8_t *snap; /* what it must hold outside the live blocks */
} region;

typedef struct ctx {
    fz in;
    block b[MAX_BLOCKS];
    int nb;
    region r[MAX_BLOCKS];
    int nr;
    uintptr_t freed[8]; /* device and pinned starts freed during this input */
    int nfreed;
} ctx;

static aclrtStream g_stream, g_dead_stream;
static uintptr_t g_arena, g_arena_end;

/* ASan: a host allocation too large to satisfy is a NULL from posix_memalign (which the runtime
 * reports as out of memory), not a sanitizer report. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}

static void die(const char *what, long long a, long long b)
{
    fprintf(stderr, "fuzz_memory: %s (%lld, %lld)\n", what, a, b);
    const char *m = aclGetRecentErrMsg();
    if (m)
        fprintf(stderr, "  last message: %s\n", m);
    abort();
}

static void *addp(const void *p, uint64_t off)
{
    return (void *)((uintptr_t)p + (uintptr_t)off);
}

/* ---- the model ------------------------------------------------------------------------- */

static bool in_arena(uintptr_t p)
{
    return p >= g_arena && p < g_arena_end;
}

/* The live block holding address p (device: within its usable size), or -1. */
static int block_of(const ctx *c, uintptr_t p)
{
    for (int i = 0; i < c->nb; i++) {
        uintptr_t s = (uintptr_t)c->b[i].p;
        if (p >= s && p - s < c->b[i].usable)
            return i;
    }
    return -1;
}

/* How the runtime must see the range [p, p+n), n > 0. */
typedef enum {
    R_OK,      /* inside block *bi */
    R_BAD,     /* the runtime can tell it is invalid and must refuse it */
    R_UNKNOWN, /* host memory the runtime cannot judge, or a device allocation the model does not
                  track: the call is not made */
} rkind;

static rkind range_of(const ctx *c, uintptr_t p, size_t n, int *bi)
{
    *bi = -1;
    if (p == 0)
        return R_BAD;
    uintptr_t end;
    if (__builtin_add_overflow(p, n, &end))
        return R_BAD;
    const int i = block_of(c, p);
    if (in_arena(p)) {
        if (i < 0)
            return cannonMemIsDevice((const void *)p) ? R_UNKNOWN : R_BAD;
        *bi = i;
        return n <= c->b[i].usable - (p - (uintptr_t)c->b[i].p) ? R_OK : R_BAD;
    }
    if (p < g_arena_end && end > g_arena)
        return R_BAD; /* a host range running into device memory */
    if (i >= 0) {
        *bi = i;
        if (n <= c->b[i].usable - (p - (uintptr_t)c->b[i].p))
            return R_OK;
        /* Pinned memory is the runtime's: a range leaving it is refused. Pageable is not. */
        return c->b[i].kind == B_PINNED ? R_BAD : R_UNKNOWN;
    }
    return R_UNKNOWN;
}

static void snapshot(ctx *c)
{
    for (int i = 0; i < c->nr; i++)
        free(c->r[i].snap);
    c->nr = 0;
    for (int i = 0; i < c->nb; i++) {
        if (c->b[i].kind != B_DEV)
            continue;
        uintptr_t lo = (uintptr_t)c->b[i].p, hi = lo + c->b[i].usable;
        lo = lo - g_arena > NEIGHBOURHOOD ? lo - NEIGHBOURHOOD : g_arena;
        hi = g_arena_end - hi > NEIGHBOURHOOD ? hi + NEIGHBOURHOOD : g_arena_end;
        region *r = &c->r[c->nr++];
        r->lo = (uint8_t *)lo;
        r->n = hi - lo;
        r->snap = malloc(r->n);
        if (!r->snap)
            abort();
        memcpy(r->snap, r->lo, r->n);
    }
}

static void report_block(const ctx *c, int i, const char *after)
{
    const block *b = &c->b[i];
    size_t k = 0;
    while (k < b->usable && b->p[k] == b->model[k])
        k++;
    fprintf(stderr, "fuzz_memory: after %s: block %d (kind %d, %zu bytes) byte %zu is %u, expected %u\n", after, i,
            (int)b->kind, b->size, k, b->p[k], b->model[k]);
    abort();
}

static void check(ctx *c, const char *after)
{
    for (int i = 0; i < c->nb; i++) {
        const block *b = &c->b[i];
        if (memcmp(b->p, b->model, b->usable) != 0)
            report_block(c, i, after);
        if (b->kind == B_PAGE)
            for (size_t k = 0; k < GUARD; k++)
                if (b->raw[k] != 0xa5 || b->raw[GUARD + b->size + k] != 0x5a) {
                    fprintf(stderr, "fuzz_memory: after %s: the guard of pageable block %d is overwritten\n", after, i);
                    abort();
                }
    }
    /* Around the device blocks: the snapshot, with the blocks' bytes (just checked) laid over it. */
    for (int i = 0; i < c->nr; i++) {
        region *r = &c->r[i];
        const uintptr_t rlo = (uintptr_t)r->lo, rhi = rlo + r->n;
        for (int j = 0; j < c->nb; j++) {
            const uintptr_t blo = (uintptr_t)c->b[j].p, bhi = blo + c->b[j].usable;
            const uintptr_t lo = blo > rlo ? blo : rlo, hi = bhi < rhi ? bhi : rhi;
            if (c->b[j].kind == B_DEV && lo < hi)
                memcpy(r->snap + (lo - rlo), c->b[j].model + (lo - blo), hi - lo);
        }
        if (memcmp(r->lo, r->snap, r->n) != 0) {
            size_t k = 0;
            while (r->lo[k] == r->snap[k])
                k++;
            fprintf(stderr, "fuzz_memory: after %s: device memory outside every block changed at %p\n", after,
                    (void *)(r->lo + k));
            abort();
        }
    }
}

static void fill(block *b, uint8_t seed)
{
    for (size_t k = 0; k < b->usable; k++)
        b->p[k] = b->model[k] = (uint8_t)(seed + k * 29u);
}

static void drop_block(ctx *c, int i)
{
    free(c->b[i].model);
    if (c->b[i].kind == B_DEV || c->b[i].kind == B_PINNED) {
        if (c->nfreed < (int)(sizeof c->freed / sizeof c->freed[0]))
            c->freed[c->nfreed++] = (uintptr_t)c->b[i].p;
    }
    c->b[i] = c->b[--c->nb];
}

/* ---- fuzzed values --------------------------------------------------------------------- */

static unsigned fz_u16(fz *f)
{
    const unsigned hi = fz_u8(f);
    return hi << 8 | fz_u8(f);
}

static size_t fz_count(ctx *c)
{
    const uint8_t sel = fz_u8(&c->in);
    if (sel < 150)
        return fz_u8(&c->in) % 200u;
    if (sel < 200)
        return (size_t)(fz_u16(&c->in) % (BLOCK_MAX + 128));
    return (size_t)fz_i64(&c->in);
}

/* A pointer operand. */
static uintptr_t fz_ptr(ctx *c)
{
    const uint8_t sel = fz_u8(&c->in);
    if (sel < 200 && c->nb) {
        const block *b = &c->b[fz_u8(&c->in) % c->nb];
        const uint8_t osel = fz_u8(&c->in);
        uint64_t off = osel < 64 ? 0 : osel < 192 ? fz_u8(&c->in) % (b->usable + 16) : (uint64_t)fz_i64(&c->in);
        return (uintptr_t)addp(b->p, off);
    }
    switch (sel % 8) {
    case 0: return 0;
    case 1: return c->nfreed ? c->freed[fz_u8(&c->in) % c->nfreed] : 0;
    case 2: return g_arena_end - 1 - (fz_u8(&c->in) % 128u);        /* the arena's end, unallocated */
    case 3: return g_arena - 1 - (fz_u8(&c->in) % 128u);            /* host, just below the arena */
    case 4: return UINTPTR_MAX - (fz_u8(&c->in) % 128u);            /* wraps */
    case 5: return g_arena + (uintptr_t)fz_u64(&c->in) % (g_arena_end - g_arena); /* anywhere in the arena */
    case 6: return (uintptr_t)fz_u64(&c->in);
    default: return 0x1000 + fz_u8(&c->in);
    }
}

static aclrtStream fz_stream(ctx *c, bool *live)
{
    const uint8_t sel = fz_u8(&c->in) % 8;
    *live = sel != 7;
    return sel < 4 ? g_stream : sel < 7 ? NULL : g_dead_stream;
}

static aclrtMemcpyKind fz_kind(ctx *c)
{
    const uint8_t sel = fz_u8(&c->in);
    return sel < 240 ? (aclrtMemcpyKind)(sel % 6) : (aclrtMemcpyKind)(int)(int8_t)fz_u8(&c->in);
}

/* ---- the calls ------------------------------------------------------------------------- */

static bool copy_code_ok(aclError rc)
{
    return rc == ACL_SUCCESS || rc == ACL_ERROR_INVALID_PARAM || rc == ACL_ERROR_RT_PARAM_INVALID;
}

static void expect(const char *api, aclError rc, bool must_succeed)
{
    if (!copy_code_ok(rc))
        die(api, rc, -1);
    if ((rc == ACL_SUCCESS) != must_succeed) {
        fprintf(stderr, "fuzz_memory: %s returned %d but the model says it must %s\n", api, (int)rc,
                must_succeed ? "succeed" : "fail");
        die(api, rc, must_succeed);
    }
    if (rc != ACL_SUCCESS && aclGetRecentErrMsg() == NULL)
        die("a failure without a message", rc, 0);
}

/* Direction: is the block on the side the kind wants? DEFAULT takes any. */
static bool dir_ok(aclrtMemcpyKind kind, bool dst_dev, bool src_dev)
{
    switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST: return !dst_dev && !src_dev;
    case ACL_MEMCPY_HOST_TO_DEVICE:
    case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE: return dst_dev && !src_dev;
    case ACL_MEMCPY_DEVICE_TO_HOST: return !dst_dev && src_dev;
    case ACL_MEMCPY_DEVICE_TO_DEVICE: return dst_dev && src_dev;
    case ACL_MEMCPY_DEFAULT: return true;
    default: return false;
    }
}

/* Keep a fresh allocation as a block (filled with a pattern), or free it when it is too large. */
static void track(ctx *c, void *p, size_t size, bool dev)
{
    if (size > BLOCK_MAX || c->nb == MAX_BLOCKS) {
        if ((dev ? aclrtFree(p) : aclrtFreeHost(p)) != ACL_SUCCESS)
            die("freeing a fresh allocation", (long long)size, dev);
        snapshot(c);
        return;
    }
    block *b = &c->b[c->nb++];
    b->kind = dev ? B_DEV : B_PINNED;
    b->p = p;
    b->size = size;
    b->usable = dev ? (size + 63) / 64 * 64 : size;
    b->raw = NULL;
    b->model = malloc(b->usable);
    if (!b->model)
        abort();
    fill(b, fz_u8(&c->in));
    for (int i = 0; i < c->nfreed; i++)
        if (c->freed[i] == (uintptr_t)p)
            c->freed[i] = c->freed[--c->nfreed];
    snapshot(c);
}

static void op_malloc(ctx *c)
{
    /* Host sizes stay out of (64 MiB, 2^41): ASan would grant them and libFuzzer's malloc limit
     * would report the allocation; from 2^41 on ASan refuses (a NULL, the runtime's OOM path). */
    static const size_t big[] = {0, 1, 63, 64, 65, 4096, (size_t)1 << 20, ((size_t)1 << 20) + 1, (size_t)1 << 41,
                                 SIZE_MAX / 2, SIZE_MAX - 63, SIZE_MAX, (size_t)1 << 33, (size_t)1 << 40};
    const uint8_t which = fz_u8(&c->in);
    const uint8_t ssel = fz_u8(&c->in);
    const size_t nbig = sizeof big / sizeof big[0] - (which % 4 == 3 ? 2 : 0); /* the last two: device only */
    const size_t size = ssel < 200 ? 1 + (size_t)(fz_u16(&c->in) % BLOCK_MAX) : big[ssel % nbig];
    void *p = NULL;
    aclError rc;
    if (which % 4 == 3) {
        rc = aclrtMallocHost(&p, size);
        if (rc != ACL_SUCCESS && rc != ACL_ERROR_INVALID_PARAM && rc != ACL_ERROR_RT_MEMORY_ALLOCATION &&
            rc != ACL_ERROR_BAD_ALLOC)
            die("aclrtMallocHost: undocumented code", rc, (long long)size);
        if ((size == 0) != (rc == ACL_ERROR_INVALID_PARAM))
            die("aclrtMallocHost: size 0 and INVALID_PARAM go together", rc, (long long)size);
    } else {
        const uint8_t psel = fz_u8(&c->in);
        const aclrtMemMallocPolicy pol = psel < 200 ? (aclrtMemMallocPolicy)(psel % 8)
                                                    : (aclrtMemMallocPolicy)(int32_t)fz_u64(&c->in);
        rc = which % 4 == 0 ? aclrtMallocAlign32(&p, size, pol)
             : which % 4 == 1 ? aclrtMallocCached(&p, size, pol) : aclrtMalloc(&p, size, pol);
        if (rc != ACL_SUCCESS && rc != ACL_ERROR_INVALID_PARAM && rc != ACL_ERROR_RT_MEMORY_ALLOCATION &&
            rc != ACL_ERROR_BAD_ALLOC)
            die("aclrtMalloc: undocumented code", rc, (long long)size);
        if ((size == 0 || (int)pol < 0) != (rc == ACL_ERROR_INVALID_PARAM))
            die("aclrtMalloc: size 0 / negative policy and INVALID_PARAM go together", rc, (long long)size);
        if (rc == ACL_SUCCESS) {
            if ((uintptr_t)p % 64 || !in_arena((uintptr_t)p) || size > g_arena_end - (uintptr_t)p)
                die("aclrtMalloc: a block outside the arena or misaligned", (long long)(uintptr_t)p, (long long)size);
            cannon_mem_share_info si;
            if (cannonMemGetShareInfo(p, &si) != ACL_SUCCESS || si.alloc_offset != si.offset ||
                si.alloc_size < size || si.alloc_size - size >= 64)
                die("aclrtMalloc: the allocation is not what was asked", (long long)size, (long long)si.alloc_size);
            if (block_of(c, (uintptr_t)p) >= 0 || block_of(c, (uintptr_t)p + size - 1) >= 0)
                die("aclrtMalloc: a new block overlaps a live one", (long long)(uintptr_t)p, (long long)size);
        }
    }
    if (rc != ACL_SUCCESS) {
        (void)aclGetRecentErrMsg();
        snapshot(c); /* a failed allocation may give the cache back (decommit: freed blocks read 0) */
        check(c, "a failed allocation");
        return;
    }
    track(c, p, size, which % 4 != 3);
}

static void op_page(ctx *c)
{
    if (c->nb == MAX_BLOCKS)
        return;
    const size_t size = 1 + (size_t)(fz_u16(&c->in) % BLOCK_MAX);
    block *b = &c->b[c->nb];
    b->raw = malloc(size + 2 * GUARD);
    b->model = malloc(size);
    if (!b->raw || !b->model)
        abort();
    memset(b->raw, 0xa5, GUARD);
    memset(b->raw + GUARD + size, 0x5a, GUARD);
    b->kind = B_PAGE;
    b->p = b->raw + GUARD;
    b->size = b->usable = size;
    fill(b, fz_u8(&c->in));
    c->nb++;
}

static void op_free(ctx *c)
{
    const uint8_t sel = fz_u8(&c->in);
    const bool host_api = sel & 1;
    uintptr_t p = fz_ptr(c);
    if (p && in_arena(p) && block_of(c, p) < 0 && cannonMemIsDevice((const void *)p))
        return; /* a device allocation the model does not track */
    const int i = block_of(c, p);
    const bool start = i >= 0 && (uintptr_t)c->b[i].p == p;
    const bool must = start && c->b[i].kind == (host_api ? B_PINNED : B_DEV);
    const aclError rc = host_api ? aclrtFreeHost((void *)p) : aclrtFree((void *)p);
    if (rc != ACL_SUCCESS && rc != ACL_ERROR_INVALID_PARAM)
        die(host_api ? "aclrtFreeHost: undocumented code" : "aclrtFree: undocumented code", rc, 0);
    if ((rc == ACL_SUCCESS) != must)
        die(host_api ? "aclrtFreeHost: result differs from the model" : "aclrtFree: result differs from the model",
            rc, must);
    if (rc != ACL_SUCCESS && aclGetRecentErrMsg() == NULL)
        die("a failed free without a message", rc, 0);
    if (must) {
        drop_block(c, i);
        snapshot(c);
    }
    check(c, host_api ? "aclrtFreeHost" : "aclrtFree");
}

static void sync_stream(aclrtStream s, bool live)
{
    const aclError rc = aclrtSynchronizeStream(s);
    if (live ? rc != ACL_SUCCESS : rc == ACL_SUCCESS)
        die("aclrtSynchronizeStream", rc, live);
    (void)aclGetRecentErrMsg();
}

static void op_memcpy(ctx *c, bool async)
{
    const uintptr_t dst = fz_ptr(c), src = fz_ptr(c);
    const size_t count = fz_count(c);
    const uint8_t msel = fz_u8(&c->in);
    const size_t destMax = msel < 128 ? count : msel < 192 ? count + fz_u8(&c->in) : msel < 224 ? count - 1 - fz_u8(&c->in) % 4
                                                                                                 : fz_count(c);
    const aclrtMemcpyKind kind = fz_kind(c);
    bool live = true;
    aclrtStream s = async ? fz_stream(c, &live) : NULL;
    int di = -1, si = -1;
    bool must = false;
    if (count == 0) {
        must = true; /* nothing to do: success before any check */
    } else {
        const rkind rd = range_of(c, dst, count, &di), rs = range_of(c, src, count, &si);
        if (rd == R_UNKNOWN || rs == R_UNKNOWN)
            return;
        must = rd == R_OK && rs == R_OK && count <= destMax && (unsigned)kind <= ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE &&
               dir_ok(kind, c->b[di].kind == B_DEV, c->b[si].kind == B_DEV);
    }
    must = must && live;
    const aclError rc = async ? aclrtMemcpyAsync((void *)dst, destMax, (const void *)src, count, kind, s)
                              : aclrtMemcpy((void *)dst, destMax, (const void *)src, count, kind);
    expect(async ? "aclrtMemcpyAsync" : "aclrtMemcpy", rc, must);
    if (async)
        sync_stream(s, live);
    if (rc == ACL_SUCCESS && count)
        memmove(c->b[di].model + (dst - (uintptr_t)c->b[di].p), c->b[si].model + (src - (uintptr_t)c->b[si].p), count);
    check(c, async ? "aclrtMemcpyAsync" : "aclrtMemcpy");
}

static void op_memcpy2d(ctx *c)
{
    const uintptr_t dst = fz_ptr(c), src = fz_ptr(c);
    const size_t width = fz_count(c);
    const uint8_t hsel = fz_u8(&c->in);
    const size_t height = hsel < 200 ? hsel % 9 : (size_t)fz_i64(&c->in);
    const uint8_t psel = fz_u8(&c->in);
    const size_t dpitch = psel < 128 ? width + psel % 8 : fz_count(c);
    const uint8_t qsel = fz_u8(&c->in);
    const size_t spitch = qsel < 128 ? width + qsel % 8 : fz_count(c);
    const aclrtMemcpyKind kind = fz_kind(c);
    int di = -1, si = -1;
    bool must;
    size_t dext = 0, sext = 0;
    if (!dst || !src || width > dpitch || width > spitch) {
        must = false;
    } else if (width == 0 || height == 0) {
        must = true;
    } else if (__builtin_mul_overflow(dpitch, height - 1, &dext) || __builtin_add_overflow(dext, width, &dext) ||
               __builtin_mul_overflow(spitch, height - 1, &sext) || __builtin_add_overflow(sext, width, &sext)) {
        must = false;
    } else {
        const rkind rd = range_of(c, dst, dext, &di), rs = range_of(c, src, sext, &si);
        if (rd == R_UNKNOWN || rs == R_UNKNOWN)
            return;
        must = rd == R_OK && rs == R_OK && (unsigned)kind <= ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE &&
               dir_ok(kind, c->b[di].kind == B_DEV, c->b[si].kind == B_DEV);
    }
    const aclError rc = aclrtMemcpy2d((void *)dst, dpitch, (const void *)src, spitch, width, height, kind);
    expect("aclrtMemcpy2d", rc, must);
    if (rc == ACL_SUCCESS && width && height) {
        uint8_t *dm = c->b[di].model + (dst - (uintptr_t)c->b[di].p);
        const uint8_t *sm = c->b[si].model + (src - (uintptr_t)c->b[si].p);
        for (size_t r = 0; r < height; r++)
            memmove(dm + r * dpitch, sm + r * spitch, width);
    }
    check(c, "aclrtMemcpy2d");
}

static void op_memset(ctx *c, bool async)
{
    const uintptr_t p = fz_ptr(c);
    const size_t count = fz_count(c);
    const uint8_t msel = fz_u8(&c->in);
    const size_t maxCount = msel < 128 ? count : msel < 192 ? count + fz_u8(&c->in) : msel < 224 ? count - 1 - fz_u8(&c->in) % 4
                                                                                                 : fz_count(c);
    const int32_t value = fz_u8(&c->in) < 200 ? fz_u8(&c->in) : (int32_t)fz_u64(&c->in);
    bool live = true;
    aclrtStream s = async ? fz_stream(c, &live) : NULL;
    int bi = -1;
    bool must;
    if (!p || count > maxCount) {
        must = false;
    } else if (count == 0) {
        must = true;
    } else {
        const rkind r = range_of(c, p, count, &bi);
        if (r == R_UNKNOWN)
            return;
        must = r == R_OK && c->b[bi].kind != B_PAGE; /* device or pinned memory only */
    }
    must = must && live;
    const aclError rc = async ? aclrtMemsetAsync((void *)p, maxCount, value, count, s)
                              : aclrtMemset((void *)p, maxCount, value, count);
    expect(async ? "aclrtMemsetAsync" : "aclrtMemset", rc, must);
    if (async)
        sync_stream(s, live);
    if (rc == ACL_SUCCESS && count)
        memset(c->b[bi].model + (p - (uintptr_t)c->b[bi].p), (uint8_t)value, count);
    check(c, async ? "aclrtMemsetAsync" : "aclrtMemset");
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("CANNON_CPU_THREADS", "1", 0);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&g_stream) != ACL_SUCCESS ||
        aclrtCreateStream(&g_dead_stream) != ACL_SUCCESS || aclrtDestroyStream(g_dead_stream) != ACL_SUCCESS)
        abort();
    void *p;
    cannon_mem_share_info si;
    if (aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS || cannonMemGetShareInfo(p, &si) != ACL_SUCCESS)
        abort();
    g_arena = (uintptr_t)p - si.offset;
    g_arena_end = g_arena + si.arena_size;
    aclrtFree(p);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ctx c;
    memset(&c, 0, sizeof c);
    c.in.p = data;
    c.in.n = size;
    /* A device, a pinned and a pageable block to start with. */
    void *p;
    size_t n = 1 + (size_t)(fz_u16(&c.in) % BLOCK_MAX);
    if (aclrtMalloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        die("aclrtMalloc of a first block", (long long)n, 0);
    track(&c, p, n, true);
    n = 1 + (size_t)(fz_u16(&c.in) % BLOCK_MAX);
    if (aclrtMallocHost(&p, n) != ACL_SUCCESS)
        die("aclrtMallocHost of a first block", (long long)n, 0);
    track(&c, p, n, false);
    op_page(&c);
    for (int k = 0; k < MAX_OPS && c.in.n; k++) {
        switch (fz_u8(&c.in) % 10) {
        case 0: op_malloc(&c); break;
        case 1: op_page(&c); break;
        case 2: op_free(&c); break;
        case 3: op_memcpy(&c, false); break;
        case 4: op_memcpy(&c, true); break;
        case 5: op_memcpy2d(&c); break;
        case 6: op_memset(&c, false); break;
        case 7: op_memset(&c, true); break;
        case 8: {
            bool live;
            aclrtStream s = fz_stream(&c, &live);
            sync_stream(s, live);
            break;
        }
        default:
            if (aclrtSynchronizeDevice() != ACL_SUCCESS)
                die("aclrtSynchronizeDevice", 0, 0);
            break;
        }
    }
    check(&c, "the last call");
    for (int i = c.nb - 1; i >= 0; i--) {
        block *b = &c.b[i];
        if (b->kind == B_DEV ? aclrtFree(b->p) != ACL_SUCCESS : b->kind == B_PINNED ? aclrtFreeHost(b->p) != ACL_SUCCESS : 0)
            die("freeing a block at the end", i, b->kind);
        if (b->kind == B_PAGE)
            free(b->raw);
        free(b->model);
    }
    for (int i = 0; i < c.nr; i++)
        free(c.r[i].snap);
    (void)aclGetRecentErrMsg();
    return 0;
}
