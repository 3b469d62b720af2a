/*
 * libcannon_ascendc: the per-thread state under cannon's Ascend C headers. A kernel block runs on
 * one worker thread from start to end, so "the running block" is a thread-local pointer the
 * launcher sets around the block, and a block's unified buffer is its worker's arena, reused by
 * every block that worker runs (the chip's UB is not cleared between blocks either).
 */
#include "cannon_ascendc/block.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cannon/kernel.h"

static _Thread_local cannon_ascendc_block *tl_block;
static _Thread_local uint8_t *tl_ub;
static _Thread_local char tl_msg[768];

static pthread_key_t ub_key;
static pthread_once_t ub_key_once = PTHREAD_ONCE_INIT;

static void ub_free(void *p)
{
    free(p);
}

static void ub_key_init(void)
{
    (void)pthread_key_create(&ub_key, ub_free);
}

cannon_ascendc_block *cannonAscendcCurrentBlock(void)
{
    return tl_block;
}

cannon_ascendc_block *cannonAscendcSetBlock(cannon_ascendc_block *block)
{
    cannon_ascendc_block *prev = tl_block;
    tl_block = block;
    return prev;
}

uint8_t *cannonAscendcThreadUB(void)
{
    if (tl_ub)
        return tl_ub;
    (void)pthread_once(&ub_key_once, ub_key_init);
    uint8_t *p = aligned_alloc(64, CANNON_ASCENDC_UB_ARENA_SIZE);
    if (!p)
        return NULL;
    /* The destructor frees the arena when the thread exits. */
    if (pthread_setspecific(ub_key, p) != 0) {
        free(p);
        return NULL;
    }
    tl_ub = p;
    return p;
}

int cannonAscendcReport(int code, const char *file, int line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *base = file;
    for (const char *p = file ? file : ""; *p; p++)
        if (*p == '/')
            base = p + 1;
    cannon_ascendc_block *b = tl_block;
    if (b && b->error != 0)
        return code; /* the block's first error stands */
    if (b)
        (void)snprintf(tl_msg, sizeof tl_msg, "%s block %u: %s (%s:%d)", b->kernel ? b->kernel : "kernel",
                       b->block_idx, msg, base ? base : "?", line);
    else
        (void)snprintf(tl_msg, sizeof tl_msg, "Ascend C: %s (%s:%d)", msg, base ? base : "?", line);
    if (b)
        b->error = code;
    if (b && b->kernel_ctx)
        (void)cannonKernelReportError((const cannon_kernel_ctx *)b->kernel_ctx, code, "%s", tl_msg);
    else
        (void)cannonReportError((aclError)code, "%s", tl_msg);
    return code;
}

const char *cannonAscendcLastMessage(void)
{
    return tl_msg;
}
