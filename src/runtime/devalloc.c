/* The caching device-memory allocator (see devalloc.h for the contract).
 *
 * Layout. The arena is cut into 2 MiB segments (the size of a huge page, so a large block can be
 * backed by huge pages). A segment table with one entry per segment says what each segment is:
 * free, a slab of small blocks, or the head or a tail of a large block (a tail names its head).
 * A bitmap of free segments makes finding space a matter of word scans. No metadata ever lives
 * inside the arena: a driver's arena need not be host-accessible.
 *
 * Small blocks (request rounded up to 64 B, at most 1 MiB) come from 52 size classes: 64 B steps
 * up to 512 B, then four classes per power of two (at most 25% internal waste). A slab is one
 * segment carved into equal blocks of one class, with a live bitmap and a summary bitmap of its
 * words that still have a free bit, so allocation takes the lowest free block in O(1) (two
 * count-trailing-zeros). Taking the lowest block, and serving fuller slabs first (a slab that
 * becomes empty moves to the end of its class's list), packs live blocks so that whole slabs
 * empty out and can be given back. Slabs are taken from the top of the arena and large blocks
 * from the bottom, so that long-lived slabs do not cut the space large blocks need into pieces.
 *
 * Large blocks take a run of whole segments, first fit from the bottom. A freed large block
 * stays reserved and is kept in a cache bucket by its segment count; a request for n segments
 * reuses a cached run of n to n + n/7 segments (at most 1/8 of the run wasted).
 *
 * Out of memory. When no free run fits, every cached large block and every empty slab is given
 * back (ops->decommit), their segments return to the free bitmap (which coalesces neighbours by
 * construction) and the search is retried once. Only then does the request fail with
 * ACL_ERROR_RT_MEMORY_ALLOCATION, as a card whose caching allocator is exhausted would.
 * Invariant: a free segment is decommitted or was never touched.
 *
 * Resolving a pointer is O(1): segment index → table entry → (slab → block index by a
 * multiply-shift reciprocal → live bit) or (head → live flag and size). The usable size reported
 * by find is the request rounded up to 64 B, not the class or run size, so bounds checks are as
 * tight as the alignment allows; a pointer into the slack after it counts as not live.
 *
 * Bookkeeping memory (the allocator, its tables, one descriptor per slab) comes from cn_malloc
 * and friends; only creating a slab can fail at run time, and it does so before changing
 * anything. Large blocks need no bookkeeping allocation at all. One mutex guards everything.
 * ops->commit is advice (its result is ignored): it is called when segments go from free to used,
 * and again with huge = 1 when a cached run first committed without huge pages is reused for a
 * huge request.
 *
 * Costs and limits. Cached alloc+free pairs take ~15-20 ns on a 2-core x86 (one uncontended
 * mutex dominates); find ~7 ns. Empty slabs and freed large runs stay reserved until an
 * allocation needs their space or trim runs, so reserved_bytes only shrinks then. Each small
 * class in use holds at least one segment (at most 52 x 2 MiB). The arena is used from base
 * rounded up to 64 B, in whole segments: a tail under 2 MiB is never handed out (its pointers are
 * still "in the arena" and resolve as not live). Host bookkeeping is 24 B per segment plus, per
 * slab, one bit per block (2 more bytes per block above 512 B to remember the request's size).
 */
#include "devalloc.h"

#include <pthread.h>
#include <string.h>

#define SEG_SHIFT 21
#define SEG_SIZE ((size_t)1 << SEG_SHIFT)
#define SEG_MASK (SEG_SIZE - 1)
#define GRAIN 64
#define SMALL_MAX ((size_t)1 << 20)
#define NCLASSES 52
/* Exact for every block offset < 2^21 and class size <= 2^20: the reciprocal's error times the
 * offset stays below 2^41, i.e. under half a unit after the shift. */
#define RECIP_SHIFT 42
#define NIL UINT32_MAX
/* Segment indices are 32-bit. */
#define MAX_SEGS ((size_t)UINT32_MAX - 1)

enum { SEG_FREE = 0, SEG_SLAB, SEG_HEAD, SEG_TAIL };
enum { HEAD_LIVE = 1, HEAD_HUGE = 2 };

typedef struct slab {
    struct slab *next, *prev; /* class list of slabs with a free block */
    uint32_t seg;
    uint32_t cls;
    uint32_t nblocks;
    uint32_t nfree;
    uint16_t *sizes;          /* per block, rounded size / 64; only where a class spans sizes */
    uint64_t summary[8];      /* bit w: live[w] has a free block (at most 512 words) */
    uint64_t live[];          /* bit per block; bits past nblocks are set so never handed out */
} slab;

typedef struct seg {
    uint8_t kind;
    uint8_t flags;            /* HEAD: HEAD_LIVE, HEAD_HUGE */
    uint32_t len;             /* HEAD: run length in segments */
    uint32_t link;            /* TAIL: head index; cached HEAD: next in its bucket */
    uint32_t prev;            /* cached HEAD: previous in its bucket */
    union {
        slab *slab;           /* SLAB */
        size_t size;          /* live HEAD: request rounded up to 64 B */
    } u;
} seg;

struct cn_devalloc {
    pthread_mutex_t mu;
    char *base;               /* the arena as given, for in_arena */
    size_t capacity;
    char *start;              /* first segment (base rounded up to 64 B) */
    uint32_t nseg;
    cn_devalloc_ops ops;
    seg *segs;
    uint64_t *freemap;        /* bit per segment, set = free; bits past nseg clear */
    size_t nwords;
    uint32_t nfree_segs;
    uint32_t *bucket;         /* nseg + 1 heads: cached large runs by length */
    uint32_t ncached_runs;
    uint32_t nempty_slabs;
    slab *avail[NCLASSES];    /* slabs with a free block, fuller ones first */
    slab *avail_tail[NCLASSES];
    uint32_t cls_size[NCLASSES];
    uint32_t cls_nblocks[NCLASSES];
    uint64_t cls_recip[NCLASSES];
    size_t live_bytes, live_count, cached_bytes;
};

/* ---- size classes ---- */

static uint32_t class_size(unsigned c)
{
    if (c < 8)
        return (c + 1) * 64u;
    unsigned k = 9 + (c - 8) / 4;
    return (1u << k) + ((c - 8) % 4 + 1) * (1u << (k - 2));
}

/* r: a multiple of 64 in [64, SMALL_MAX]. */
static inline unsigned class_of(size_t r)
{
    if (r <= 512)
        return (unsigned)(r >> 6) - 1;
    unsigned k = 63 - (unsigned)__builtin_clzll((unsigned long long)(r - 1));
    unsigned j = (unsigned)((r - ((size_t)1 << k) - 1) >> (k - 2));
    return 8 + (k - 9) * 4 + j;
}

/* ---- free-segment bitmap ---- */

static size_t next_set(const cn_devalloc *a, size_t i)
{
    size_t w = i >> 6;
    if (w >= a->nwords)
        return a->nseg;
    uint64_t bits = a->freemap[w] & (~0ull << (i & 63));
    while (!bits) {
        if (++w >= a->nwords)
            return a->nseg;
        bits = a->freemap[w];
    }
    return w * 64 + (size_t)__builtin_ctzll(bits);
}

static size_t next_clear(const cn_devalloc *a, size_t i)
{
    size_t w = i >> 6;
    if (w >= a->nwords)
        return a->nseg;
    uint64_t bits = ~a->freemap[w] & (~0ull << (i & 63));
    while (!bits) {
        if (++w >= a->nwords)
            return a->nseg;
        bits = ~a->freemap[w];
    }
    size_t r = w * 64 + (size_t)__builtin_ctzll(bits);
    return r < a->nseg ? r : a->nseg;
}

/* First run of m free segments from the bottom; NIL if none. */
static uint32_t find_run(const cn_devalloc *a, size_t m)
{
    size_t i = 0;
    while (i < a->nseg) {
        i = next_set(a, i);
        if (i >= a->nseg)
            break;
        size_t j = next_clear(a, i);
        if (j - i >= m)
            return (uint32_t)i;
        i = j;
    }
    return NIL;
}

/* Highest free segment; NIL if none. */
static uint32_t find_top(const cn_devalloc *a)
{
    for (size_t w = a->nwords; w-- > 0;) {
        if (a->freemap[w])
            return (uint32_t)(w * 64 + 63 - (size_t)__builtin_clzll(a->freemap[w]));
    }
    return NIL;
}

static void take_segs(cn_devalloc *a, uint32_t i, uint32_t n)
{
    for (uint32_t k = i; k < i + n; k++)
        a->freemap[k >> 6] &= ~(1ull << (k & 63));
    a->nfree_segs -= n;
}

/* Decommit [i, i+n) and mark it free. */
static void release_segs(cn_devalloc *a, uint32_t i, uint32_t n)
{
    if (a->ops.decommit)
        a->ops.decommit(a->ops.ctx, a->start + (size_t)i * SEG_SIZE, (size_t)n * SEG_SIZE);
    for (uint32_t k = i; k < i + n; k++) {
        a->segs[k].kind = SEG_FREE;
        a->segs[k].flags = 0;
        a->segs[k].u.size = 0;
        a->freemap[k >> 6] |= 1ull << (k & 63);
    }
    a->nfree_segs += n;
}

static void commit(cn_devalloc *a, uint32_t i, uint32_t n, int huge)
{
    if (a->ops.commit)
        (void)a->ops.commit(a->ops.ctx, a->start + (size_t)i * SEG_SIZE, (size_t)n * SEG_SIZE, huge);
}

/* ---- slab lists ---- */

static void list_unlink(cn_devalloc *a, slab *s)
{
    if (s->prev)
        s->prev->next = s->next;
    else
        a->avail[s->cls] = s->next;
    if (s->next)
        s->next->prev = s->prev;
    else
        a->avail_tail[s->cls] = s->prev;
    s->next = s->prev = NULL;
}

static void list_push_front(cn_devalloc *a, slab *s)
{
    s->prev = NULL;
    s->next = a->avail[s->cls];
    if (s->next)
        s->next->prev = s;
    else
        a->avail_tail[s->cls] = s;
    a->avail[s->cls] = s;
}

static void list_push_back(cn_devalloc *a, slab *s)
{
    slab *t = a->avail_tail[s->cls];
    s->next = NULL;
    s->prev = t;
    if (t)
        t->next = s;
    else
        a->avail[s->cls] = s;
    a->avail_tail[s->cls] = s;
}

/* ---- cached large runs ---- */

/* A bucket slot holds its head's index + 1, so that the zero-filled table starts as all empty
 * (NIL + 1 wraps to 0, and 0 - 1 back to NIL). */
static inline uint32_t bucket_head(const cn_devalloc *a, size_t n)
{
    return a->bucket[n] - 1u;
}

static inline void bucket_set(cn_devalloc *a, size_t n, uint32_t h)
{
    a->bucket[n] = h + 1u;
}

static void bucket_push(cn_devalloc *a, uint32_t h)
{
    seg *e = &a->segs[h];
    uint32_t head = bucket_head(a, e->len);
    e->prev = NIL;
    e->link = head;
    if (head != NIL)
        a->segs[head].prev = h;
    bucket_set(a, e->len, h);
    a->ncached_runs++;
}

static void bucket_unlink(cn_devalloc *a, uint32_t h)
{
    seg *e = &a->segs[h];
    if (e->prev != NIL)
        a->segs[e->prev].link = e->link;
    else
        bucket_set(a, e->len, e->link);
    if (e->link != NIL)
        a->segs[e->link].prev = e->prev;
    e->link = e->prev = NIL;
    a->ncached_runs--;
}

/* Give every cached large run and every empty slab back to the driver. */
static void flush(cn_devalloc *a)
{
    for (size_t n = 1; a->ncached_runs && n <= a->nseg; n++) {
        while (bucket_head(a, n) != NIL) {
            uint32_t h = bucket_head(a, n);
            bucket_unlink(a, h);
            a->cached_bytes -= (size_t)n * SEG_SIZE;
            release_segs(a, h, (uint32_t)n);
        }
    }
    for (unsigned c = 0; a->nempty_slabs && c < NCLASSES; c++) {
        slab *s = a->avail[c];
        while (s) {
            slab *next = s->next;
            if (s->nfree == s->nblocks) {
                list_unlink(a, s);
                a->nempty_slabs--;
                a->cached_bytes -= (size_t)s->nblocks * a->cls_size[c];
                release_segs(a, s->seg, 1);
                cn_free(s);
            }
            s = next;
        }
    }
}

/* ---- create / destroy ---- */

static size_t segs_bytes(const cn_devalloc *a)
{
    return ((size_t)a->nseg ? a->nseg : 1) * sizeof(seg);
}

static size_t bucket_bytes(const cn_devalloc *a)
{
    return ((size_t)a->nseg + 1) * sizeof(uint32_t);
}

aclError cn_devalloc_create(void *base, size_t capacity, const cn_devalloc_ops *ops, cn_devalloc **out)
{
    if (!out)
        return ACL_ERROR_INVALID_PARAM;
    *out = NULL;
    cn_devalloc *a = cn_calloc(1, sizeof(*a));
    if (!a)
        return ACL_ERROR_BAD_ALLOC;
    a->base = base;
    a->capacity = base ? capacity : 0;
    uintptr_t b = (uintptr_t)base, s = CN_ALIGN_UP(b, (uintptr_t)GRAIN);
    a->start = (char *)s;
    size_t usable = a->capacity > s - b ? a->capacity - (s - b) : 0;
    size_t nseg = usable >> SEG_SHIFT;
    a->nseg = (uint32_t)(nseg < MAX_SEGS ? nseg : MAX_SEGS);
    if (ops)
        a->ops = *ops;
    a->nwords = ((size_t)a->nseg + 63) / 64;
    /* The segment table and the bucket heads start all zero (SEG_FREE, empty bucket) in tables
     * that cost a page only when first used: an 8 GiB arena has 4096 segments, and clearing or
     * filling their 112 KiB of tables up front was most of aclrtSetDevice's page faults. */
    a->segs = cn_zalloc_table(segs_bytes(a));
    a->freemap = cn_calloc(a->nwords ? a->nwords : 1, sizeof(uint64_t));
    a->bucket = cn_zalloc_table(bucket_bytes(a));
    if (!a->segs || !a->freemap || !a->bucket || pthread_mutex_init(&a->mu, NULL) != 0) {
        cn_free_table(a->segs, segs_bytes(a));
        cn_free(a->freemap);
        cn_free_table(a->bucket, bucket_bytes(a));
        cn_free(a);
        return ACL_ERROR_BAD_ALLOC;
    }
    for (uint32_t i = 0; i < a->nseg; i++)
        a->freemap[i >> 6] |= 1ull << (i & 63);
    a->nfree_segs = a->nseg;
    for (unsigned c = 0; c < NCLASSES; c++) {
        uint32_t sz = class_size(c);
        a->cls_size[c] = sz;
        a->cls_nblocks[c] = (uint32_t)(SEG_SIZE / sz);
        a->cls_recip[c] = (((uint64_t)1 << RECIP_SHIFT) + sz - 1) / sz;
    }
    *out = a;
    return ACL_SUCCESS;
}

void cn_devalloc_destroy(cn_devalloc *a, size_t *leaked_count, size_t *leaked_bytes)
{
    if (leaked_count)
        *leaked_count = a ? a->live_count : 0;
    if (leaked_bytes)
        *leaked_bytes = a ? a->live_bytes : 0;
    if (!a)
        return;
    /* Held segments are exactly those not free in the bitmap; walking the bitmap rather than the
     * table leaves the table's never-used pages untouched. One decommit per maximal held range. */
    size_t i = next_clear(a, 0);
    while (i < a->nseg) {
        size_t j = next_set(a, i);
        for (size_t k = i; k < j; k++)
            if (a->segs[k].kind == SEG_SLAB)
                cn_free(a->segs[k].u.slab);
        if (a->ops.decommit)
            a->ops.decommit(a->ops.ctx, a->start + i * SEG_SIZE, (j - i) * SEG_SIZE);
        i = next_clear(a, j);
    }
    pthread_mutex_destroy(&a->mu);
    cn_free_table(a->segs, segs_bytes(a));
    cn_free(a->freemap);
    cn_free_table(a->bucket, bucket_bytes(a));
    cn_free(a);
}

/* ---- allocation ---- */

/* A new slab for class c at the highest free segment, on c's list. */
static aclError slab_new(cn_devalloc *a, unsigned c)
{
    uint32_t i = find_top(a);
    if (i == NIL)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    uint32_t nb = a->cls_nblocks[c];
    size_t nw = (nb + 63) / 64;
    size_t bytes = sizeof(slab) + nw * sizeof(uint64_t) + (c >= 8 ? nb * sizeof(uint16_t) : 0);
    slab *s = cn_malloc(bytes);
    if (!s)
        return ACL_ERROR_BAD_ALLOC;
    memset(s, 0, sizeof(slab) + nw * sizeof(uint64_t));
    s->seg = i;
    s->cls = c;
    s->nblocks = s->nfree = nb;
    s->sizes = c >= 8 ? (uint16_t *)(s->live + nw) : NULL;
    if (nb & 63)
        s->live[nw - 1] = ~0ull << (nb & 63);
    for (size_t w = 0; w < nw; w++)
        s->summary[w >> 6] |= 1ull << (w & 63);
    take_segs(a, i, 1);
    a->segs[i].kind = SEG_SLAB;
    a->segs[i].u.slab = s;
    commit(a, i, 1, 0);
    list_push_back(a, s);
    a->nempty_slabs++;
    a->cached_bytes += (size_t)nb * a->cls_size[c];
    return ACL_SUCCESS;
}

static aclError alloc_small(cn_devalloc *a, size_t r, void **out)
{
    unsigned c = class_of(r);
    slab *s = a->avail[c];
    if (CN_UNLIKELY(!s)) {
        aclError err = slab_new(a, c);
        if (err == ACL_ERROR_RT_MEMORY_ALLOCATION && (a->ncached_runs || a->nempty_slabs)) {
            flush(a);
            err = slab_new(a, c);
        }
        if (err != ACL_SUCCESS)
            return err;
        s = a->avail[c];
    }
    unsigned sw = 0;
    while (!s->summary[sw])
        sw++;
    size_t w = sw * 64 + (size_t)__builtin_ctzll(s->summary[sw]);
    uint64_t lw = s->live[w];
    size_t idx = w * 64 + (size_t)__builtin_ctzll(~lw);
    lw |= lw + 1; /* sets the lowest clear bit */
    s->live[w] = lw;
    if (lw == ~0ull)
        s->summary[sw] &= ~(1ull << (w & 63));
    if (s->nfree-- == s->nblocks)
        a->nempty_slabs--;
    if (s->nfree == 0)
        list_unlink(a, s);
    if (s->sizes)
        s->sizes[idx] = (uint16_t)(r / GRAIN);
    a->cached_bytes -= a->cls_size[c];
    a->live_bytes += r;
    a->live_count++;
    *out = a->start + ((size_t)s->seg << SEG_SHIFT) + idx * a->cls_size[c];
    return ACL_SUCCESS;
}

static aclError alloc_large(cn_devalloc *a, size_t r, int huge, void **out)
{
    size_t m = (r + SEG_MASK) >> SEG_SHIFT;
    if (m > a->nseg)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    if (a->ncached_runs) {
        size_t hi = m + m / 7;
        if (hi > a->nseg)
            hi = a->nseg;
        for (size_t n = m; n <= hi; n++) {
            uint32_t h = bucket_head(a, n);
            if (h == NIL)
                continue;
            bucket_unlink(a, h);
            seg *e = &a->segs[h];
            if (huge && !(e->flags & HEAD_HUGE)) {
                commit(a, h, (uint32_t)n, 1);
                e->flags |= HEAD_HUGE;
            }
            e->flags |= HEAD_LIVE;
            e->u.size = r;
            a->cached_bytes -= n * SEG_SIZE;
            a->live_bytes += r;
            a->live_count++;
            *out = a->start + ((size_t)h << SEG_SHIFT);
            return ACL_SUCCESS;
        }
    }
    uint32_t h = m <= a->nfree_segs ? find_run(a, m) : NIL;
    if (h == NIL && (a->ncached_runs || a->nempty_slabs)) {
        flush(a);
        h = m <= a->nfree_segs ? find_run(a, m) : NIL;
    }
    if (h == NIL)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    take_segs(a, h, (uint32_t)m);
    seg *e = &a->segs[h];
    e->kind = SEG_HEAD;
    e->flags = HEAD_LIVE | (huge ? HEAD_HUGE : 0);
    e->len = (uint32_t)m;
    e->link = e->prev = NIL;
    e->u.size = r;
    for (uint32_t k = h + 1; k < h + m; k++) {
        a->segs[k].kind = SEG_TAIL;
        a->segs[k].flags = 0;
        a->segs[k].link = h;
    }
    commit(a, h, (uint32_t)m, huge);
    a->live_bytes += r;
    a->live_count++;
    *out = a->start + ((size_t)h << SEG_SHIFT);
    return ACL_SUCCESS;
}

aclError cn_devalloc_alloc(cn_devalloc *a, size_t size, int huge, void **out)
{
    if (!a || !out || size == 0)
        return ACL_ERROR_INVALID_PARAM;
    *out = NULL;
    /* Checked before rounding so that the rounding cannot wrap. */
    if (size > ((size_t)a->nseg << SEG_SHIFT))
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    size_t r = CN_ALIGN_UP(size, (size_t)GRAIN);
    pthread_mutex_lock(&a->mu);
    aclError err = r <= SMALL_MAX ? alloc_small(a, r, out) : alloc_large(a, r, huge, out);
    pthread_mutex_unlock(&a->mu);
    return err;
}

/* ---- resolution and free ---- */

typedef struct hit {
    int reason;
    char *start;
    size_t size;
    slab *s;        /* small block: its slab and index */
    size_t idx;
    uint32_t head;  /* large block: head segment */
} hit;

/* Resolve p under the lock. */
static void resolve(const cn_devalloc *a, const char *p, hit *h)
{
    memset(h, 0, sizeof(*h));
    if (p < a->start || (size_t)(p - a->start) >= ((size_t)a->nseg << SEG_SHIFT)) {
        h->reason = cn_devalloc_in_arena(a, p) ? CN_DEVALLOC_NOT_LIVE : CN_DEVALLOC_NOT_IN_ARENA;
        return;
    }
    size_t off = (size_t)(p - a->start);
    size_t si = off >> SEG_SHIFT;
    const seg *e = &a->segs[si];
    h->reason = CN_DEVALLOC_NOT_LIVE;
    if (e->kind == SEG_SLAB) {
        slab *s = e->u.slab;
        size_t in = off & SEG_MASK;
        size_t idx = (size_t)(((uint64_t)in * a->cls_recip[s->cls]) >> RECIP_SHIFT);
        if (idx >= s->nblocks || !(s->live[idx >> 6] & (1ull << (idx & 63))))
            return;
        size_t sz = s->sizes ? (size_t)s->sizes[idx] * GRAIN : a->cls_size[s->cls];
        char *start = a->start + (si << SEG_SHIFT) + idx * a->cls_size[s->cls];
        if ((size_t)(p - start) >= sz)
            return;
        h->reason = CN_DEVALLOC_OK;
        h->start = start;
        h->size = sz;
        h->s = s;
        h->idx = idx;
    } else if (e->kind == SEG_HEAD || e->kind == SEG_TAIL) {
        uint32_t hd = e->kind == SEG_HEAD ? (uint32_t)si : e->link;
        const seg *he = &a->segs[hd];
        if (!(he->flags & HEAD_LIVE))
            return;
        char *start = a->start + ((size_t)hd << SEG_SHIFT);
        if ((size_t)(p - start) >= he->u.size)
            return;
        h->reason = CN_DEVALLOC_OK;
        h->start = start;
        h->size = he->u.size;
        h->head = hd;
    }
}

int cn_devalloc_free(cn_devalloc *a, void *ptr)
{
    if (!a)
        return CN_DEVALLOC_NOT_IN_ARENA;
    if (!cn_devalloc_in_arena(a, ptr))
        return CN_DEVALLOC_NOT_IN_ARENA;
    hit h;
    pthread_mutex_lock(&a->mu);
    resolve(a, ptr, &h);
    if (h.reason == CN_DEVALLOC_OK && h.start != (char *)ptr)
        h.reason = CN_DEVALLOC_INTERIOR;
    if (h.reason != CN_DEVALLOC_OK) {
        pthread_mutex_unlock(&a->mu);
        return h.reason;
    }
    a->live_bytes -= h.size;
    a->live_count--;
    if (h.s) {
        slab *s = h.s;
        s->live[h.idx >> 6] &= ~(1ull << (h.idx & 63));
        s->summary[h.idx >> 12] |= 1ull << ((h.idx >> 6) & 63);
        a->cached_bytes += a->cls_size[s->cls];
        if (++s->nfree == s->nblocks) {
            /* Emptied slabs go last so fuller ones are served first and this one may stay
             * empty until it is given back. */
            if (s->nblocks > 1)
                list_unlink(a, s);
            list_push_back(a, s);
            a->nempty_slabs++;
        } else if (s->nfree == 1) {
            list_push_front(a, s);
        }
    } else {
        seg *e = &a->segs[h.head];
        e->flags &= (uint8_t)~HEAD_LIVE;
        e->u.size = 0;
        a->cached_bytes += (size_t)e->len * SEG_SIZE;
        bucket_push(a, h.head);
    }
    pthread_mutex_unlock(&a->mu);
    return CN_DEVALLOC_OK;
}

int cn_devalloc_find(cn_devalloc *a, const void *ptr, void **start, size_t *size)
{
    if (!a || !cn_devalloc_in_arena(a, ptr))
        return CN_DEVALLOC_NOT_IN_ARENA;
    hit h;
    pthread_mutex_lock(&a->mu);
    resolve(a, ptr, &h);
    pthread_mutex_unlock(&a->mu);
    if (h.reason == CN_DEVALLOC_OK) {
        if (start)
            *start = h.start;
        if (size)
            *size = h.size;
    }
    return h.reason;
}

bool cn_devalloc_in_arena(const cn_devalloc *a, const void *ptr)
{
    if (!a)
        return false;
    uintptr_t p = (uintptr_t)ptr, b = (uintptr_t)a->base;
    return a->base && p >= b && p - b < a->capacity;
}

void cn_devalloc_get_stats(cn_devalloc *a, cn_devalloc_stats *st)
{
    if (!st)
        return;
    if (!a) {
        memset(st, 0, sizeof(*st));
        return;
    }
    pthread_mutex_lock(&a->mu);
    st->capacity = a->capacity;
    st->live_bytes = a->live_bytes;
    st->live_count = a->live_count;
    st->reserved_bytes = (size_t)(a->nseg - a->nfree_segs) << SEG_SHIFT;
    st->cached_bytes = a->cached_bytes;
    pthread_mutex_unlock(&a->mu);
}

void cn_devalloc_trim(cn_devalloc *a)
{
    if (!a)
        return;
    pthread_mutex_lock(&a->mu);
    flush(a);
    pthread_mutex_unlock(&a->mu);
}
