/*
 * The registry of live libnnopbase objects (see nnopbase_internal.h): a chained hash set keyed by
 * address, chained through each object's own header so registering never allocates (only growing
 * the bucket array does, and a failed growth merely leaves chains longer).
 */
#include <pthread.h>
#include <stdlib.h>

#include "nnopbase_internal.h"

#define NN_MIN_BUCKETS 256u

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
/* The first table is static so the registry works without any allocation. */
static nn_obj *g_static_buckets[NN_MIN_BUCKETS];
static nn_obj **g_buckets = g_static_buckets;
static size_t g_nbuckets = NN_MIN_BUCKETS; /* a power of two */
static size_t g_count;

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
    bool found = false;
    if (!p)
        return false;
    pthread_mutex_lock(&g_lock);
    {
        for (nn_obj *o = g_buckets[bucket_of(p, g_nbuckets)]; o; o = o->next) {
            if ((const void *)o == p) {
                found = o->kind == (uint32_t)k;
                break;
            }
        }
    }
    pthread_mutex_unlock(&g_lock);
    return found;
}
