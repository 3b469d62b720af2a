/*
 * The registry of live libnnopbase objects (see nnopbase_internal.h): an open-addressing hash set of
 * addresses, each slot one word holding the object's address with its kind in the low bits (objects
 * come from malloc, so their addresses are 8-aligned).
 *
 * Writers (register, unregister) serialise on a spin lock; readers (nn_is_live) take no lock and no
 * thread-local state. A tiny operator call through ggml's CANN backend asks "is this a live tensor /
 * executor?" about twenty times and creates and destroys five objects, so both sides matter.
 *
 * Linear probing with backward-shift deletion. A reader racing with a writer may miss an entry that
 * is being moved (never see one that was not there): a miss is therefore confirmed under the lock
 * before the answer "not live" is given, and misses are the error path. Growth publishes a new table
 * and retires the old one, which readers may still be probing: retired tables are kept until the
 * library is unloaded (growth doubles, so they total less than the live table).
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "nnopbase_internal.h"

#define NN_MIN_SLOTS 1024u

typedef struct nn_table {
    size_t mask;              /* slots - 1, slots a power of two */
    struct nn_table *retired; /* the table this one replaced */
    _Atomic uintptr_t *slot;  /* a grown table's slots follow its header in one allocation */
} nn_table;

/* The first table is static so the registry works without any allocation. */
static _Atomic uintptr_t g_first_slots[NN_MIN_SLOTS];
static nn_table g_first = {NN_MIN_SLOTS - 1, NULL, g_first_slots};

static _Atomic(nn_table *) g_table = &g_first;
static size_t g_count; /* live entries; under the lock */

/* A spin lock rather than a mutex: its sections are a few loads and stores (a table growth is the
 * rare exception). A waiter yields its core after a short spin, so a holder that was preempted is
 * not starved on a machine with few cores. */
static atomic_bool g_lock;

static void reg_lock(void)
{
    for (unsigned spins = 0;; spins++) {
        if (!atomic_load_explicit(&g_lock, memory_order_relaxed) &&
            !atomic_exchange_explicit(&g_lock, true, memory_order_acquire))
            return;
        if (spins >= 64)
            sched_yield();
#if defined(__x86_64__) || defined(__i386__)
        else
            __builtin_ia32_pause();
#endif
    }
}

static void reg_unlock(void)
{
    atomic_store_explicit(&g_lock, false, memory_order_release);
}

#define KIND_BITS 7u /* kinds 1..8 stored as kind - 1 */

static uintptr_t entry_of(const void *p, nn_kind k)
{
    return (uintptr_t)p | ((uintptr_t)k - 1u);
}

static size_t home_of(uintptr_t addr, size_t mask)
{
    /* Fibonacci hashing of the address; the low bits are alignment zeros, so use the high ones. */
    uint64_t h = (uint64_t)addr * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 29) & mask;
}

/* Insert @p e (known absent) into @p t; the caller holds the lock (or owns an unpublished table). */
static void insert_into(nn_table *t, uintptr_t e)
{
    size_t i = home_of(e & ~(uintptr_t)KIND_BITS, t->mask);
    while (atomic_load_explicit(&t->slot[i], memory_order_relaxed) != 0)
        i = (i + 1) & t->mask;
    atomic_store_explicit(&t->slot[i], e, memory_order_release);
}

static void grow_locked(nn_table *t)
{
    const size_t n = (t->mask + 1) * 2;
    nn_table *b = calloc(1, sizeof(*b) + n * sizeof(b->slot[0]));
    if (!b)
        return; /* the old table fills further: slower probes, still correct below a full table */
    b->slot = (_Atomic uintptr_t *)(void *)(b + 1);
    b->mask = n - 1;
    b->retired = t;
    for (size_t i = 0; i <= t->mask; i++) {
        uintptr_t e = atomic_load_explicit(&t->slot[i], memory_order_relaxed);
        if (e)
            insert_into(b, e);
    }
    atomic_store_explicit(&g_table, b, memory_order_release);
}

__attribute__((destructor)) static void registry_unload(void)
{
    nn_table *t = atomic_load_explicit(&g_table, memory_order_acquire);
    while (t && t != &g_first) {
        nn_table *r = t->retired;
        free(t);
        t = r;
    }
}

void nn_register(nn_obj *o, nn_kind k)
{
    o->kind = (uint32_t)k;
    o->magic = NN_MAGIC;
    reg_lock();
    nn_table *t = atomic_load_explicit(&g_table, memory_order_relaxed);
    if (2 * (g_count + 1) > t->mask + 1) {
        grow_locked(t);
        t = atomic_load_explicit(&g_table, memory_order_relaxed);
    }
    /* A table the allocator could not grow stays usable until it is full: beyond that the object
     * is not registered and calls that take it fail cleanly ("not a live ..."). */
    if (g_count < t->mask) {
        insert_into(t, entry_of(o, k));
        g_count++;
    }
    reg_unlock();
}

/* Find @p e's slot in @p t (lock held by the caller, or a racy read). */
static long find_in(nn_table *t, uintptr_t e)
{
    const uintptr_t addr = e & ~(uintptr_t)KIND_BITS;
    for (size_t i = home_of(addr, t->mask), n = 0; n <= t->mask; i = (i + 1) & t->mask, n++) {
        uintptr_t s = atomic_load_explicit(&t->slot[i], memory_order_acquire);
        if (s == 0)
            return -1;
        if ((s & ~(uintptr_t)KIND_BITS) == addr)
            return s == e ? (long)i : -1;
    }
    return -1;
}

bool nn_unregister(const void *p, nn_kind k)
{
    if (!p || ((uintptr_t)p & KIND_BITS))
        return false;
    reg_lock();
    nn_table *t = atomic_load_explicit(&g_table, memory_order_relaxed);
    long at = find_in(t, entry_of(p, k));
    if (at >= 0) {
        /* Backward-shift deletion: pull each later entry of the run back into the hole when its home
         * does not lie strictly between the hole and it, so no probe ever meets a false empty slot
         * except the transient one a concurrent reader confirms under the lock. */
        size_t hole = (size_t)at, j = hole;
        for (;;) {
            j = (j + 1) & t->mask;
            uintptr_t e = atomic_load_explicit(&t->slot[j], memory_order_relaxed);
            if (e == 0)
                break;
            size_t home = home_of(e & ~(uintptr_t)KIND_BITS, t->mask);
            /* e may move to the hole when home is not cyclically in (hole, j] */
            bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
            if (stays)
                continue;
            atomic_store_explicit(&t->slot[hole], e, memory_order_release);
            hole = j;
        }
        atomic_store_explicit(&t->slot[hole], 0, memory_order_release);
        g_count--;
        nn_obj *o = (nn_obj *)(uintptr_t)p;
        o->magic = NN_MAGIC_DEAD;
    }
    reg_unlock();
    return at >= 0;
}

bool nn_is_live(const void *p, nn_kind k)
{
    if (!p || ((uintptr_t)p & KIND_BITS))
        return false;
    const uintptr_t e = entry_of(p, k);
    if (find_in(atomic_load_explicit(&g_table, memory_order_acquire), e) >= 0)
        return true;
    /* A miss may be a race with a writer moving entries: confirm under the lock. */
    reg_lock();
    const bool live = find_in(atomic_load_explicit(&g_table, memory_order_relaxed), e) >= 0;
    reg_unlock();
    return live;
}
