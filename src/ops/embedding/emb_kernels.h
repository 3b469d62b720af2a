/*
 * Embedding kernels: the argument blocks the operators record and the per-tier row functions of
 * EmbeddingDenseBackward.
 *
 * EmbeddingDenseBackward runs in two launches. The first (one block) buckets the valid indices by
 * output row with a stable counting sort into the workspace: `start` (V + 2 entries) and `perm`
 * (positions of the index list, grouped by row, each group in increasing position order). The
 * second gives each block a contiguous range of output rows; a row's gradient is the sum of its
 * group's gradient rows taken in position order, accumulated in fp32, so every output element is
 * produced by one worker with one fixed sequence of additions and the result has the same bits
 * whatever the number of threads. Rows without contributions are zero-filled.
 */
#ifndef CANNON_OPS_EMBEDDING_KERNELS_H_
#define CANNON_OPS_EMBEDDING_KERNELS_H_

#include <stddef.h>
#include <stdint.h>

enum emb_dtype { EMB_F32 = 0, EMB_F16 = 1, EMB_BF16 = 2 };

typedef struct edb_args {
    const void *grad;    /* [N, D], contiguous */
    const void *indices; /* N, contiguous int32 or int64 */
    void *out;           /* [V, D], contiguous */
    int64_t *start;      /* workspace, V + 2: after bucketing, row r's group is perm[start[r], start[r+1]) */
    int64_t *perm;       /* workspace, N positions */
    int64_t N, D, V;
    uint64_t padding;    /* CANN's paddingIdx: rows with this index receive no gradient */
    int32_t idx64, dtype, isa, scale;
    int32_t nt;          /* write the output with non-temporal stores (too big for the caches) */
    int32_t pad_;
    int64_t work_per_block; /* rows + contributions per block of the row launch */
} edb_args;

/* Rows [r0, r1) of the output. */
void cannon_edb_rows_scalar(const edb_args *a, int64_t r0, int64_t r1);
void cannon_edb_rows_avx2(const edb_args *a, int64_t r0, int64_t r1);
void cannon_edb_rows_avx512(const edb_args *a, int64_t r0, int64_t r1);

#endif /* CANNON_OPS_EMBEDDING_KERNELS_H_ */
