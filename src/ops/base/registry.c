/*
 * The registry of live libnnopbase objects (see nnopbase_internal.h): a chained hash set keyed by
 * address, chained through each object's own header so registering never allocates (only growing
 * the bucket array does, and a failed growth merely leaves chains longer).
 *
 * One phase 1 checks the same few handles a dozen times or more (each tensor by every framework call
 * that takes it, the executor by every kernel and slot it records). Each thread keeps the handles it
 * found live in a small cache stamped with the registry's generation, which every unregister bumps: a
 * hit is answered without the lock while no object anywhere has died since the lookup behind it (a
 * destroyed object, or a new one at a destroyed one's address, is never answered from the cache).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "nnopbase_internal.h"

#define NN_MIN_BUCKETS 256u

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
/* The first table is static so the registry works without any allocation. */
static nn_obj *g_static_buckets[NN_MIN_BUCKETS];
static nn_obj **g_buckets = g_static_buckets;
static size_t g_nbuckets = NN_MIN_BUCKETS; /* a power of two */
static size_t g_count;
static _Atomic uint64_t g_gen; /* bumped by every unregister */

#define NN_LIVE_CACHE 8u
static _Thread_local struct nn_live_entry {
    const void *p;
    uint32_t kind;
    uint64_t gen;
} t_live[NN_LIVE_CACHE];
static _Thread_local unsigned t_live_next;

static size_t bucket_of(const void *p, size_t nbuckets)
{
    /* Fibonacci hashing of the address; the low bits are alignment zeros, so use the high ones. */
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 32) & (nbuckets - 1);
}

static void grow_locked(void)
{
    size_t nb = g_nbuckets * 2;
    nn_obj **b = calloc(nb, sizeof(*b));
    if (!b)
        return;
    for (size_t i = 0; i < g_nbuckets; i++) {
        nn_obj *o = g_buckets[i];
        while (o) {
            nn_obj *next = o->next;
            size_t k = bucket_of(o, nb);
            o->next = b[k];
            b[k] = o;
            o = next;
        }
    }
    if (g_buckets != g_static_buckets)
        free(g_buckets);
    g_buckets = b;
    g_nbuckets = nb;
}

void nn_register(nn_obj *o, nn_kind k)
{
    o->kind = (uint32_t)k;
    o->magic = NN_MAGIC;
    pthread_mutex_lock(&g_lock);
    if (g_count >= 2 * g_nbuckets)
        grow_locked();
    size_t b = bucket_of(o, g_nbuckets);
    o->next = g_buckets[b];
    g_buckets[b] = o;
    g_count++;
    pthread_mutex_unlock(&g_lock);
}

bool nn_unregister(const void *p, nn_kind k)
{
    bool found = false;
    if (!p)
        return false;
    pthread_mutex_lock(&g_lock);
    {
        nn_obj **link = &g_buckets[bucket_of(p, g_nbuckets)];
        for (nn_obj *o = *link; o; link = &o->next, o = o->next) {
            if ((const void *)o == p) {
                if (o->kind == (uint32_t)k) {
                    *link = o->next;
                    o->next = NULL;
                    o->magic = NN_MAGIC_DEAD;
                    g_count--;
                    atomic_fetch_add_explicit(&g_gen, 1, memory_order_release);
                    found = true;
                }
                break;
            }
        }
    }
    pthread_mutex_unlock(&g_lock);
    return found;
}

bool nn_is_live(const void *p, nn_kind k)
{
    if (!p)
        return false;
    /* The generation is read before the lookup, so an unregister during it leaves a stale stamp. */
    const uint64_t gen = atomic_load_explicit(&g_gen, memory_order_acquire);
    for (unsigned i = 0; i < NN_LIVE_CACHE; i++)
        if (t_live[i].p == p && t_live[i].gen == gen)
            return t_live[i].kind == (uint32_t)k;
    bool found = false;
    uint32_t kind = 0;
    pthread_mutex_lock(&g_lock);
    {
        for (nn_obj *o = g_buckets[bucket_of(p, g_nbuckets)]; o; o = o->next) {
            if ((const void *)o == p) {
                found = true;
                kind = o->kind;
                break;
            }
        }
    }
    pthread_mutex_unlock(&g_lock);
    if (!found)
        return false;
    struct nn_live_entry *e = &t_live[t_live_next++ % NN_LIVE_CACHE];
    e->p = p;
    e->kind = kind;
    e->gen = gen;
    return kind == (uint32_t)k;
}
