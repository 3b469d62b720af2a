/* Profiling (prof.c): the recorder of stream tasks and the session state behind aclprof* and the
 * `profiler` section / CANNON_PROFILE (not installed).
 *
 * Recording is off unless a session runs; every enqueue site then pays one relaxed atomic load
 * (cn_prof_active). While on, a task enqueued on a recorded device gets a record (a slot of a
 * process-wide append-only table of chunks, never moved, so a pointer to it stays valid) and two
 * marker host tasks around it on the same driver stream: the first stamps the start, the second
 * the end (CLOCK_MONOTONIC). The markers run on whatever thread runs the stream's tasks, in stream
 * order, so the stamps bracket the task exactly as the stream ran it, with no driver support. */
#ifndef CANNON_RT_PROF_H_
#define CANNON_RT_PROF_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "internal.h"

typedef enum cn_prof_kind {
    CN_PT_KERNEL = 1,
    CN_PT_COPY,
    CN_PT_FILL,
    CN_PT_HOST_TASK,
    CN_PT_HOST_FUNC,
    CN_PT_CALLBACK,
    CN_PT_COLLECTIVE,
    CN_PT_EVENT_RECORD,
    CN_PT_EVENT_WAIT,
    CN_PT_EVENT_RESET,
    CN_PT_MARK,
    CN_PT_RANGE,
    CN_PT_STEP,
} cn_prof_kind;

typedef struct cn_prof_rec cn_prof_rec;

extern atomic_int cn_prof_on;
static inline bool cn_prof_active(void) { return atomic_load_explicit(&cn_prof_on, memory_order_relaxed) != 0; }

/* A task of `kind` is about to be enqueued on s: take a record (the calling thread's label, if
 * any, names it) and enqueue its start marker. NULL when s's device is not recorded or no record
 * could be had; the task is then enqueued unrecorded. */
cn_prof_rec *cn_prof_task_begin(cn_stream *s, cn_prof_kind kind, const char *name, uint64_t bytes);
/* After the enqueue: the end marker, or (enqueued false) drop the record. */
void cn_prof_task_end(cn_stream *s, cn_prof_rec *r, bool enqueued);
/* A span the calling thread measured itself (a synchronous copy); d NULL: the host. */
void cn_prof_host_span(const cn_device *d, cn_prof_kind kind, const char *name, const char *detail, uint64_t bytes,
                       uint64_t t0, uint64_t t1);

/* aclInit (g_rt.lock held): start the process-wide session when CANNON_PROFILE is set or the
 * config's profiler switch is on; ACL_ERROR_INVALID_PROFILING_CONFIG when its output directory
 * cannot be created or written. */
aclError cn_prof_process_start(const cn_config *cfg);
/* Teardown, after every stream is gone: write what the process-wide session and an aclprof
 * session not finalized recorded, and end them. */
void cn_prof_process_finish(void);

#endif /* CANNON_RT_PROF_H_ */
