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
/* bf16 micro-tiles: MM_MR rows x MM_NR columns of C held in 2*MM_MR zmm accumulators. */
#define MM_MR 12
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
    int32_t dta, dtb, dtc;         /* the dtypes of a, b and c (all dt unless mixed) */
    int32_t mixed;                 /* operands of different dtypes: widened to fp32, out through dt */
    int32_t rsplit, csplit;        /* fp32: row and column blocks of each batch's product */
    int64_t kp, npan, ntile;       /* bf16: K rounded up to even, panels of MM_NR columns, tiles of MM_MR rows */
    int64_t tpb, ppb;              /* bf16: tiles per row block, panels per column block */
    int64_t nba, nbb;              /* bf16: distinct batches of A and B (broadcast ones are packed once) */
    int64_t nwork, scratch;        /* fp16 (and bf16 without the kernel): workers, bytes of scratch each */
    int64_t ws_a, ws_b;            /* workspace byte offsets (bf16 packs; fp16 scratch at ws_a) */
    int32_t dot_wide_b, isa;       /* dot: B's columns are the wide vectors (else A's rows); the ISA tier */
    int64_t dot_chunk, dot_nchunk; /* dot: wide vectors per block, blocks per batch */
    int64_t dot_xw;                /* dot: workspace byte offset of the narrow vectors staged in fp32, or -1 */
    int64_t dot_bc;                /* dot: output batches sharing one wide matrix (its batch stride 0), >= 1 */
    int32_t dot_bcmask, pad_;      /* dot: the batch dims counted in dot_bc (bit d) */
} mm_args;

enum mm_path { MM_PATH_SGEMM = 0, MM_PATH_BF16DP = 1, MM_PATH_DOT = 2 };

/* The skinny-product kernel (mm_dot_impl.h), per ISA tier: r[i * nx + j] = the fp32 dot product over
 * K of wide vector i (w + i * ldw, dtype dw) and narrow vector j (x + j * ldx, dtype dx), both
 * contiguous along K; dtypes are MM_F32, MM_F16 or MM_BF16. */
#define MM_DOT_MAX_NARROW 8
typedef void (*mm_dot_fn)(const void *w, int dw, int64_t ldw, int64_t nw, const void *x, int dx, int64_t ldx,
                          int64_t nx, int64_t K, float *r);
void cannon_mm_dot_scalar(const void *w, int dw, int64_t ldw, int64_t nw, const void *x, int dx, int64_t ldx,
                          int64_t nx, int64_t K, float *r);
void cannon_mm_dot_avx2(const void *w, int dw, int64_t ldw, int64_t nw, const void *x, int dx, int64_t ldx,
                        int64_t nx, int64_t K, float *r);
void cannon_mm_dot_avx512(const void *w, int dw, int64_t ldw, int64_t nw, const void *x, int dx, int64_t ldx,
                          int64_t nx, int64_t K, float *r);

/* Packed bf16 layouts, K padded to kp (even) with zeros:
 *  A: ntile tiles of MM_MR rows (rows past M are zeros); tile t holds kp/2 groups of MM_MR 32-bit
 *     pairs, (A[i][2p], A[i][2p+1]) of row i = t*MM_MR + r at [t][p][r].
 *  B: npan panels of MM_NR columns (columns past N are zeros); panel q holds kp/2 rows of MM_NR
 *     pairs, (B[2p][j], B[2p+1][j]) of column j = q*MM_NR + jj at [q][p][jj].
 * pack_a packs tiles [t0, t1) of an M x K matrix with strides (am, ak); pack_b panels [p0, p1) of a
 * K x N matrix with strides (bk, bn). tiles computes C's tiles [t0, t1) x panels [p0, p1), each
 * element one fp32 sum over K rounded once to bf16, into C with strides (cm, cn). */
void cannon_mm_bf16_pack_a_avx512(const uint16_t *a, int64_t am, int64_t ak, int64_t M, int64_t K, int64_t kp,
                                  int64_t t0, int64_t t1, uint32_t *dst);
void cannon_mm_bf16_pack_b_avx512(const uint16_t *b, int64_t bk, int64_t bn, int64_t K, int64_t N, int64_t kp,
                                  int64_t p0, int64_t p1, uint16_t *dst);
void cannon_mm_bf16_tiles_avx512(const uint32_t *pa, const uint16_t *pb, int64_t M, int64_t N, int64_t kp,
                                 int64_t t0, int64_t t1, int64_t p0, int64_t p1, uint16_t *c, int64_t cm, int64_t cn);
/* Whether the AVX512-BF16 tile was compiled in (and so needs the CPU feature). */
int cannon_mm_bf16_available(void);

/* The single-threaded fp32 GEMM of the matmul family (mm_op.c): row-major C (M x N, leading
 * dimension ldc) = op(A) @ op(B), op = transpose when ta / tb; OpenBLAS's cblas_sgemm where built
 * with it, a plain loop otherwise. Callers run it on pool workers, each call on one thread. */
void cannon_mm_sgemm(int ta, int tb, int64_t M, int64_t N, int64_t K, const float *a, int64_t lda, const float *b,
                     int64_t ldb, float *c, int64_t ldc);
/* Keep OpenBLAS at one thread (see mm_op.c); a no-op without OpenBLAS. Plans call it, and kernels
 * before their first sgemm. */
void cannon_mm_blas_one_thread(void);

#endif /* CANNON_OPS_MATMUL_MM_KERNELS_H_ */
