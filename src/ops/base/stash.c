/*
 * Per-thread stashes of freed libnnopbase objects (see nnopbase_internal.h).
 *
 * A CANN client such as ggml's backend creates three or four tensors, a scalar and an executor for
 * every operator call and destroys them right after: a tiny operator's call cost was a third
 * allocator work. Each thread keeps a few freed blocks of each kind and hands them back to the next
 * create on the same thread, so a steady stream of calls allocates nothing. The blocks are plain
 * memory to the registry: an object is registered when created and unregistered before it is
 * stashed, so a stale handle to a stashed block is rejected exactly like one to freed memory.
 *
 * The stash lives behind a pthread key: its destructor frees a thread's blocks when the thread
 * exits, and the library destructor frees those of the thread that unloads the library.
 */
#include <pthread.h>
#include <stdlib.h>

#include "nnopbase_internal.h"

#define NN_STASH_DEPTH 8

/* Under AddressSanitizer the stash is off, so a use of a destroyed object inside the library stays
 * a reported use-after-free rather than a read of a recycled block. */
#if defined(__SANITIZE_ADDRESS__)
#define NN_STASH_ON 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NN_STASH_ON 0
#endif
#endif
#ifndef NN_STASH_ON
#define NN_STASH_ON 1
#endif

typedef struct nn_stash {
    void *blocks[NN_STASH_KINDS][NN_STASH_DEPTH];
    unsigned count[NN_STASH_KINDS];
} nn_stash;

static pthread_key_t g_key;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static bool g_key_ok;

static void stash_free(void *p)
{
    nn_stash *s = p;
    if (!s)
        return;
    for (unsigned k = 0; k < NN_STASH_KINDS; k++)
        for (unsigned i = 0; i < s->count[k]; i++)
            nn_stash_release((nn_stash_kind)k, s->blocks[k][i]);
    free(s);
}

static void key_init(void)
{
    g_key_ok = pthread_key_create(&g_key, stash_free) == 0;
}

__attribute__((destructor)) static void stash_unload(void)
{
    if (g_key_ok) {
        nn_stash *s = pthread_getspecific(g_key);
        if (s && pthread_setspecific(g_key, NULL) == 0)
            stash_free(s);
    }
}

static nn_stash *stash_get(bool create)
{
    pthread_once(&g_once, key_init);
    if (!g_key_ok)
        return NULL;
    nn_stash *s = pthread_getspecific(g_key);
    if (!s && create) {
        s = calloc(1, sizeof(*s));
        if (s && pthread_setspecific(g_key, s) != 0) {
            free(s);
            s = NULL;
        }
    }
    return s;
}

void *nn_stash_take(nn_stash_kind k)
{
    if (!NN_STASH_ON)
        return NULL;
    nn_stash *s = stash_get(false);
    if (!s || s->count[k] == 0)
        return NULL;
    return s->blocks[k][--s->count[k]];
}

bool nn_stash_put(nn_stash_kind k, void *block)
{
    if (!NN_STASH_ON)
        return false;
    nn_stash *s = stash_get(true);
    if (!s || s->count[k] == NN_STASH_DEPTH)
        return false;
    s->blocks[k][s->count[k]++] = block;
    return true;
}

void nn_stash_release(nn_stash_kind k, void *block)
{
    if (k == NN_STASH_EXECUTOR)
        nn_executor_release(block);
    else
        free(block);
}
