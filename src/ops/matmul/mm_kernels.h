/*
 * Matmul kernels: the argument block the matmul operators record, and the bf16 GEMM tiles.
 *
 * Shapes are canonical: out[b] (M x N) = A[b] (M x K) @ B[b] (K x N) over a broadcast batch of up
 * to MM_MAX_BATCH dims; every operand is described by element strides (batch dims, then its two
 * matrix dims), so transposed and broadcast operands are read in place.
 */
#ifndef CANNON_OPS_MATMUL_MM_KERNELS_H_
#define CANNON_OPS_MATMUL_MM_KERNELS_H_

#include <stdint.h>

#define MM_MAX_BATCH 6
/* bf16 tiles: MM_MR rows x MM_NR columns of C held in registers. */
#define MM_MR 8
#define MM_NR 32

enum mm_dt { MM_F32 = 0, MM_F16 = 1, MM_BF16 = 2 };

typedef struct mm_args {
    const void *a, *b;
    void *c;
    void *ws;                      /* workspace base (bound at phase 2) */
    int64_t M, N, K;
    int64_t nbatch, bnd;           /* batch count, batch rank */
    int64_t bshape[MM_MAX_BATCH];
    int64_t bst[3][MM_MAX_BATCH];  /* batch strides of c, a, b (elements) */
    int64_t am, ak, bk, bn, cm, cn; /* matrix strides (elements) */
    int32_t dt, path;              /* MM_F32..; MM_PATH_* */
    int32_t blas_threads, pad_;
    int64_t kp, npan;              /* bf16: K rounded up to even, panels of MM_NR columns */
    int64_t ws_a, ws_b, ws_c;      /* workspace byte offsets (per-batch regions) */
    int64_t mblk;                  /* bf16: rows per block */
} mm_args;

enum mm_path { MM_PATH_SGEMM = 0, MM_PATH_BF16DP = 1 };

/* Packed bf16 layouts (see mm_op.c): A as rows of kp values; B as npan panels of kp/2 pairs x
 * MM_NR columns x 2. Computes rows [m0, m1) of C (fp32 results handed to store). */
void cannon_mm_bf16_rows_avx512(const uint16_t *pa, const uint16_t *pb, int64_t M, int64_t N, int64_t kp,
                                int64_t npan, int64_t m0, int64_t m1, uint16_t *c, int64_t cm, int64_t cn);
/* Whether the AVX512-BF16 tile was compiled in (and so needs the CPU feature). */
int cannon_mm_bf16_available(void);

#endif /* CANNON_OPS_MATMUL_MM_KERNELS_H_ */
