/**
 * @file cannon/dump.h
 * Operator dump hooks (cannon-internal; used by libnnopbase).
 *
 * While an operator dump is on (the aclInit configuration's `dump` section, or the CANNON_DUMP
 * environment variable; see docs/tools.md, "Dump and compare"), every aclnn operator run writes
 * its input and output tensors, as their logical (contiguous) values, into the dump folder. The
 * operator library describes a run's tensors to cannonDumpOpBegin right before it enqueues the
 * run's first kernel, and calls cannonDumpOpEnd after the last: the runtime enqueues a host task
 * before the kernels (the inputs, as the stream sees them when the operator starts) and one after
 * them (the outputs and the manifest line), so the dump follows stream order.
 * Check cannonDumpActive() first: it is one relaxed atomic load.
 */
#ifndef CANNON_DUMP_H_
#define CANNON_DUMP_H_

#include <stddef.h>
#include <stdint.h>
#include "cannon/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One tensor of an operator run: the view as the operator sees it. */
typedef struct cannon_dump_tensor {
    const void *addr;       /**< storage base (the tensor's data address); NULL for an absent tensor */
    int32_t dtype;          /**< aclDataType */
    int32_t is_output;      /**< 0: an input, 1: an output */
    int64_t ndim;           /**< 0 .. CANNON_MAX_DIMS */
    int64_t offset;         /**< view offset in elements */
    const int64_t *shape;   /**< ndim extents */
    const int64_t *strides; /**< ndim strides in elements */
} cannon_dump_tensor;

/** Nonzero while an operator dump is on. */
CANNON_API int cannonDumpActive(void);

/**
 * An operator run named @p api ("aclnnAdd") with tensors @p t[0..n) is about to be enqueued on
 * @p stream (NULL: the current context's default stream). Returns NULL when the run is not dumped
 * (the op filter, a stream being captured, an error, which is logged); else a handle, to be passed
 * to cannonDumpOpEnd once. The descriptors are copied; the tensors' data is read when the stream
 * reaches the run.
 */
CANNON_API void *cannonDumpOpBegin(aclrtStream stream, const char *api, const cannon_dump_tensor *t, size_t n);

/** After the run's kernels were enqueued on @p stream (@p launched 0: the enqueue failed part way). */
CANNON_API void cannonDumpOpEnd(aclrtStream stream, void *handle, int launched);

#ifdef __cplusplus
}
#endif

#endif /* CANNON_DUMP_H_ */
