/**
 * @file cannon/prof.h
 * Labels for profiled stream tasks (cannon-internal; used by libopapi and libhccl).
 *
 * While a profiling session records (aclprofStart, the aclInit config's `profiler` section, or the
 * CANNON_PROFILE environment variable; see docs/runtime.md, "Profiling"), the runtime records every
 * stream task it enqueues. A library that knows more about a task than the runtime does (an
 * operator's type, shapes and dtypes, a collective's name and size) sets a label right before it
 * enqueues the task: the next task the calling thread enqueues (cannonLaunchKernel,
 * cannonLaunchHostTask[Ex]) takes it. Building a label is for recording sessions only: check
 * cannonProfActive() first, which is one relaxed atomic load.
 */
#ifndef CANNON_PROF_H_
#define CANNON_PROF_H_

#include <stdint.h>
#include "cannon/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cannon_prof_label {
    const char *name;   /**< op type or collective ("Add", "AllReduce"); copied, truncated to 47 bytes */
    const char *detail; /**< shapes and dtypes or other free text; copied, truncated to 191 bytes; may be NULL */
    uint64_t bytes;     /**< bytes the task reads and writes, 0: unknown */
    uint64_t flops;     /**< floating-point operations, 0: unknown */
    int32_t rank;       /**< the collective's rank, -1: none */
    uint64_t call;      /**< tasks of one op call share it (cannonProfNewCall), 0: the task is a call of its own */
} cannon_prof_label;

/** Nonzero while a profiling session records tasks. */
CANNON_API int cannonProfActive(void);
/** A new call id for cannon_prof_label.call (never 0). */
CANNON_API uint64_t cannonProfNewCall(void);
/** Label the next task the calling thread enqueues (NULL clears a label not taken yet). */
CANNON_API void cannonProfSetTaskLabel(const cannon_prof_label *label);

#ifdef __cplusplus
}
#endif

#endif /* CANNON_PROF_H_ */
