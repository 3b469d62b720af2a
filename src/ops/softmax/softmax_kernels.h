/*
 * Softmax-family kernels: the argument block the operators record and the per-tier block
 * functions. Shapes are canonical (outer, R, inner): R is the reduced axis, inner the product of
 * the dims after it; data are contiguous in that order.
 *
 * Work units: with inner == 1 a unit is one row; otherwise a unit is one tile of up to
 * SM_TILE_COLS columns of one outer index. Every output element is computed by one unit with an
 * arithmetic sequence that depends only on the shape and the tier, so the results are the same
 * whatever the block decomposition or the number of threads.
 */
#ifndef CANNON_OPS_SOFTMAX_KERNELS_H_
#define CANNON_OPS_SOFTMAX_KERNELS_H_

#include <stddef.h>
#include <stdint.h>

enum sm_op { SM_SOFTMAX = 0, SM_LOG_SOFTMAX = 1, SM_SOFTMAX_BWD = 2, SM_LOG_SOFTMAX_BWD = 3 };
enum sm_dtype { SM_F32 = 0, SM_F16 = 1, SM_BF16 = 2, SM_F64 = 3 };

/* Columns per unit when inner > 1 (a multiple of every tier's vector width). */
#define SM_TILE_COLS 64
/* Rows up to this many elements keep their exponentials in an fp32 scratch buffer on the
 * stack (128 KiB, within L2), so each element's exp is computed once; longer rows use the
 * online max-and-sum pass and compute exp again when writing. */
#define SM_SCRATCH_MAX 32768
/* Rows up to this many elements are processed in groups (see FN(fwd_group) in softmax_body.h). */
#define SM_GROUP_R_MAX 512
/* 16-bit rows that the AVX-512 forward software-pipelines (FN(fwd_pipe) in softmax_body.h):
 * lengths that are multiples of 64 from SM_PIPE_SOFT_MIN_R (softmax) or SM_PIPE_MIN_R
 * (log-softmax) to SM_PIPE_SOFT_MAX_R for softmax (beyond it two rows' fp32 exponentials, 32 KiB,
 * no longer fit in L1 next to the rows) and SM_PIPE_MAX_R for log-softmax, which keeps no
 * exponentials. Shorter rows go through the batch kernel, whose per-row steps are shared by 16
 * rows; log-softmax rows of 512 stay there too: a row's log s is a chain of about 20 vector ops
 * for one lane, where the batch takes 16 logs in one vector. */
#define SM_PIPE_SOFT_MIN_R 512
#define SM_PIPE_MIN_R 576
#define SM_PIPE_SOFT_MAX_R 2048
#define SM_PIPE_MAX_R 4096
/* Long 16-bit rows go through the pipeline too, from this length (a multiple of 64) to
 * SM_SCRATCH_MAX, with streaming stores where the output takes them (rows of 16 KiB and more, see
 * softmax_op.c) or plain ones. Row by row, the exp pass's stores of the fp32 exponentials
 * (128 KiB for a row of 32000) into L2 compete with the next row's read-ahead; in the pipeline
 * the three passes share one loop. Rows of 4096 gain nothing from it. */
#define SM_PIPE_LONG_MIN_R 8192
/* Softmax rows of up to this many elements go through the pipeline with a ring of two rows and
 * no prefetch (FN(fwd_pipe)), so x is read from memory once. Longer rows, and log-softmax, keep
 * the second read of x and the prefetch: the ring and the two rows' exponentials crowd L1, and
 * long rows need the prefetch. */
#define SM_PIPE_RING_MAX_R 1024
/* fp32 softmax rows of this many elements (multiples of 128) go through their own pipeline with a
 * ring (FN(fwd_pipe32), AVX-512). Rows of 128 keep the batch kernel; rows of 2048 would need
 * 32 KiB of ring and exponentials. Log-softmax starts at 512: rows of 256 stay in the batch
 * kernel, which shares the per-row log chains of 16 rows. */
#define SM_PIPE32_MIN_R 256
#define SM_PIPE32_LOG_MIN_R 512
#define SM_PIPE32_MAX_R 1024
/* A group holds up to this many elements (its exponentials fill an fp32 scratch of this size),
 * and between 2 and SM_GROUP_ROWS rows. */
#define SM_GROUP_ELEMS 4096
#define SM_GROUP_ROWS 16
/* Rows of at least this many bytes prefetch the next row during their exp pass (shorter rows
 * go in groups, which read ahead themselves; see softmax_group.h): read ahead by the hardware
 * alone, memory idled through part of each row's exp and write passes. Group-length softmax rows
 * of that size (fp32 rows of 512) take the row path rather than the batch kernel, for the same
 * read-ahead; log-softmax keeps the batch kernel, whose 16 logs are one vector. */
#define SM_PREFETCH_MIN_BYTES 2048
/* The write pass of such a row prefetches its share of the next row in chunks of this many
 * elements (see FN(fast_write_pf)). */
#define SM_PF_WRITE_CHUNK 512
/* Fast-path fp32 softmax rows of at least this many bytes keep no exponentials: the write pass
 * computes them again (the same function of x, so the same bits). Their fp32 scratch no longer
 * fits in L1 beside the row, and the L2 traffic of storing it (write, its read for ownership, the
 * eviction) and reading it back costs about as much as a second exp. 16-bit rows keep their
 * scratch (their exp is cheap, but a second one still costs more than the scratch). AVX-512 only:
 * the AVX2 tier keeps every row's scratch (SM_RECOMPUTE_BYTES_T). */
#define SM_RECOMPUTE_MIN_BYTES 32768
/* Such rows go in blocks of about this many input bytes (at least one row), so that most rows
 * have their successor in the same block, i.e. on the same worker. */
#define SM_PREFETCH_BLOCK_BYTES (1024 * 1024)
/* Chunk of the online pass: small enough to stay in L1 between its max and its sum. */
#define SM_ONLINE_CHUNK 4096

typedef struct sm_args {
    const void *x; /* forward: input; backward: the forward output (y) */
    const void *g; /* backward: gradOutput; unused forward */
    void *out;
    int64_t outer, R, inner;
    int64_t units;           /* outer (inner == 1) or outer * tiles */
    int64_t units_per_block;
    int32_t op, dtype, isa;
    int32_t nt; /* write the output with non-temporal stores */
    /* Rows may prefetch past the end of their block (set per call when one worker runs every
     * block, in order; with several, the next block is usually another worker's). */
    int32_t pf_cross;
} sm_args;

/* Process units [u0, u1). */
void cannon_softmax_units_scalar(const sm_args *a, int64_t u0, int64_t u1);
void cannon_softmax_units_avx2(const sm_args *a, int64_t u0, int64_t u1);
void cannon_softmax_units_avx512(const sm_args *a, int64_t u0, int64_t u1);
/* fp64 data, every tier (plain C with libm). */
void cannon_softmax_units_f64(const sm_args *a, int64_t u0, int64_t u1);

#endif /* CANNON_OPS_SOFTMAX_KERNELS_H_ */
