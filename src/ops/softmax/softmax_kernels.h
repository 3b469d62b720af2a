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
 * (log-softmax) to SM_PIPE_SOFT_MAX_R for softmax (rows of 4096 were 13-35% slower pipelined:
 * two rows' fp32 exponentials, 32 KiB, no longer fit in L1 next to the rows) and SM_PIPE_MAX_R
 * for log-softmax, which keeps no exponentials. Shorter rows go through the batch kernel, whose
 * per-row steps are shared by 16 rows. At 512 elements the pipeline wins for softmax (bf16
 * [64,16,512,512], in-process A/B, 1 thread 63 -> 68% and 55 -> 62% of the floor, 2 threads
 * 64 -> 71% and 61 -> 64%; fp16 +1-8%) but loses for log-softmax (1 thread 4-11% slower): its
 * per-row log s is a chain of about 20 vector ops for one lane, where the batch takes 16 logs in
 * one vector. Rows of 256 were slower pipelined for softmax too (CPU time, 57-61% against
 * 62-70% of the floor). */
#define SM_PIPE_SOFT_MIN_R 512
#define SM_PIPE_MIN_R 576
#define SM_PIPE_SOFT_MAX_R 2048
#define SM_PIPE_MAX_R 4096
/* Long 16-bit rows go through the pipeline too, from this length (a multiple of 64) to
 * SM_SCRATCH_MAX, with streaming stores where the output takes them (rows of 16 KiB and more, see
 * softmax_op.c) or plain ones. Row by row, the next row's read (prefetched by the exp pass) and
 * this row's write did not overlap each other's arithmetic well: the exp pass's stores of the
 * fp32 exponentials (128 KiB for a row of 32000) into L2 cost about a fifth of the row's time
 * in flight with the prefetch (a probe that skipped them ran 20% faster). In the pipeline the
 * three passes share one loop. Session 27, Zen 5, in-process A/B (bench_softmax --ab), ms at
 * 1 and 2 threads: docs/softmax-kernels.md ("Session 27"). Rows of 4096 (8 KiB, plain stores)
 * gained nothing (1 thread -2..+1%, 2 threads -7..+7%). */
#define SM_PIPE_LONG_MIN_R 8192
/* Softmax rows of up to this many elements go through the pipeline with a ring of two rows and
 * no prefetch (FN(fwd_pipe)). Zen 5, CPU time against an interleaved copy (bench_softmax_kern,
 * 3 alternations), % of the floor: bf16 rows of 512 from memory 67-72 -> 80-82, of 1024 74-81
 * -> 78-88 (log-softmax rows of 1024 within the noise, so log-softmax keeps the reread and the
 * prefetch); rows of 2048 lost 13-15 points (57-74 -> 44-60), log-softmax rows of 4096 20-30
 * (83-86 -> 53-65): the ring and the two rows' exponentials crowd L1, and long rows need the
 * prefetch. */
#define SM_PIPE_RING_MAX_R 1024
/* fp32 softmax rows of this many elements (multiples of 128) go through their own pipeline with a
 * ring (FN(fwd_pipe32), AVX-512; before: rows of 256 and 384 in groups, of 512 and 1024 row by row
 * with the next row prefetched). In-process A/B (bench_softmax --ab, two runs, ms), 1 thread:
 * [64,16,512,512] 111 -> 94 and 114 -> 88, [65536,1024] 25.3 -> 21.4 and 24.2 -> 22.2, [4096,1024]
 * 1.10 -> 0.75 and 0.91 -> 0.76, [262144,256] 26.5 -> 22.3 and 25.2 -> 21.8, [131072,384] 18.5 ->
 * 17.1 and 18.0 -> 14.8; 2 threads: [64,16,512,512] 50.3 -> 43.3 and 52.2 -> 45.7, [4096,1024]
 * 0.44 -> 0.40 and 0.50 -> 0.37, [65536,1024] 12.7 -> 11.4 and 9.9 -> 9.9. Rows of 128 keep the
 * batch kernel (already at 90-97% of the floor); rows of 2048 would need 32 KiB of ring and
 * exponentials. Log-softmax rows from 512 (before: 512 in groups, 1024 row by row), the same A/B:
 * 1 thread [64,16,512,512] 104 -> 85 and 104 -> 86, [65536,1024] 22.6 -> 19.2 and 21.4 -> 18.3,
 * [4096,1024] 0.93 -> 0.76 and 1.01 -> 0.81; 2 threads [64,16,512,512] 52.1 -> 42.4 and 55.7 ->
 * 50.6; but rows of 256 lost 7-14% (1 thread 22.0 -> 23.5, 23.6 -> 26.2; 2 threads 12.2 -> 14.0):
 * their groups share the per-row log chains of 16 rows. */
#define SM_PIPE32_MIN_R 256
#define SM_PIPE32_LOG_MIN_R 512
#define SM_PIPE32_MAX_R 1024
/* A group holds up to this many elements (its exponentials fill an fp32 scratch of this size),
 * and between 2 and SM_GROUP_ROWS rows. */
#define SM_GROUP_ELEMS 4096
#define SM_GROUP_ROWS 16
/* Rows of at least this many bytes prefetch the next row during their exp pass (shorter rows
 * go in groups, which read ahead themselves; see softmax_group.h). 16 KiB until round 6; rows
 * of 2-16 KiB read ahead by the hardware alone left memory idle through part of each row's exp
 * and write passes: Zen 5, [4096,1024] in-process A/B against 16 KiB, softmax fp32 0.91 -> 0.84
 * ms at 1 thread and 0.53 -> 0.45 at 2, log-softmax 1.09 -> 0.93 and 0.55 -> 0.52, bf16
 * softmax 2 threads 0.37 -> 0.32, the other bf16 cases equal.
 * Group-length softmax rows of that size (fp32 rows of 512) take the row path rather than the
 * batch kernel since session 11: 1 thread, [64,16,512,512] in-process A/B 74.7 -> 79.1% and
 * 74.8 -> 79.7% of the floor (2 threads +1-2%); CPU time against an interleaved copy, 65536x512,
 * AVX-512 56-60 -> 62-63%, AVX2 39-41 -> 40-45%. Log-softmax lost 7-10% that way, and rows of 128
 * and 256 (no read-ahead in the row path) 0-26%. */
#define SM_PREFETCH_MIN_BYTES 2048
/* The write pass of such a row prefetches its share of the next row in chunks of this many
 * elements (see FN(fast_write_pf)). */
#define SM_PF_WRITE_CHUNK 512
/* Fast-path fp32 softmax rows of at least this many bytes keep no exponentials: the write pass
 * computes them again (the same function of x, so the same bits). Their fp32 scratch no longer
 * fits in L1 beside the row, and the L2 traffic of storing it (write, its read for ownership, the
 * eviction) and reading it back costs about as much as a second exp (1 thread, CPU time,
 * interleaved with a copy of the same bytes, Zen 5, medians of five: fp32 [512,32000] within the
 * noise, 0.99; rows of 1024 fp32 were 30% slower). 16-bit rows did so too until session 11, when
 * keeping the scratch measured faster: bf16 / fp16 [512,32000] softmax, `bench_softmax_kern`
 * CPU time against an interleaved copy, three alternations, 46-53% -> 54-58% and 46-50% -> 54-56%
 * of the floor; `bench_softmax` 2 threads fp16 60-66% -> 69-76%, bf16 -3..+14%. AVX-512 only
 * since session 21: the AVX2 tier keeps every row's scratch (SM_RECOMPUTE_BYTES_T). */
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
