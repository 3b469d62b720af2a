/*
 * aclnnEmbedding and aclnnEmbeddingDenseBackward.
 *
 * Embedding: out[i, :] = weight[indices[i], :]. The kernel reads the weight through its own view
 * (two strides and an offset), so a strided table is never copied whole; strided indices are
 * gathered into the workspace and a strided output is written there and scattered back.
 *
 * EmbeddingDenseBackward (see emb_kernels.h): a stable counting sort of the indices by row (one
 * block: O(N + V), small next to the V x D output), then a launch over rows in which each output
 * row is summed by one worker in index-position order. The row launch's blocks are balanced by
 * work (rows written plus gradient rows read) using the bucket offsets, so a Zipf-heavy head of
 * the vocabulary does not land in one block with thousands of other rows. Deterministic always:
 * CANN's deterministic mode is a context option that only makes results reproducible, and here
 * reproducibility costs nothing.
 *
 * Bad indices (negative or >= the number of rows) cannot be seen at phase 1 (the data live on the
 * device), so the kernels check every index, never address memory with a bad one, and report the
 * first one as the stream's error, ACL_ERROR_RT_AICORE_EXCEPTION (what an out-of-range gather
 * raises on an Ascend device), returned by the next synchronize with a message naming the index.
 * The outputs are still written completely (a bad index contributes nothing / gives a zero row).
 */
#include <string.h>

#include "acl/acl_base_rt.h"
#include "acl/error_codes/rt_error_codes.h"
#include "aclnnop/aclnn_embedding.h"
#include "aclnnop/aclnn_embedding_dense_backward.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "../kernels/isa.h"
#include "emb_kernels.h"

/* Bytes of output per block of the Embedding launch and of the backward row launch. */
#define EMB_BLOCK_BYTES (256 * 1024)
/* Output size from which the backward writes with non-temporal stores. */
#define EDB_NT_BYTES ((uint64_t)16 << 20)

static inline int64_t load_index(const void *p, int idx64, int64_t i)
{
    return idx64 ? ((const int64_t *)p)[i] : (int64_t)((const int32_t *)p)[i];
}

/* ---- Embedding ---------------------------------------------------------------------------- */

typedef struct emb_args {
    const char *weight; /* at the view's offset */
    const void *indices;
    char *out;
    int64_t N, n, m;    /* index count, row length, table rows */
    int64_t ws0, ws1;   /* weight strides in elements */
    int64_t esize;
    int64_t per_block;
    int32_t idx64, pad_;
} emb_args;

static int emb_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const emb_args *a = (const emb_args *)args;
    const int64_t i0 = (int64_t)ctx->block_idx * a->per_block;
    const int64_t i1 = a->N - i0 < a->per_block ? a->N : i0 + a->per_block;
    const int64_t rowb = a->n * a->esize;
    int64_t bad = -1, badv = 0;
    for (int64_t i = i0; i < i1; i++) {
        const int64_t k = load_index(a->indices, a->idx64, i);
        char *dst = a->out + i * rowb;
        if (k < 0 || k >= a->m) {
            if (bad < 0) {
                bad = i;
                badv = k;
            }
            memset(dst, 0, (size_t)rowb);
            continue;
        }
        const char *src = a->weight + k * a->ws0 * a->esize;
        if (a->ws1 == 1) {
            memcpy(dst, src, (size_t)rowb);
        } else {
            for (int64_t j = 0; j < a->n; j++)
                memcpy(dst + j * a->esize, src + j * a->ws1 * a->esize, (size_t)a->esize);
        }
    }
    if (bad >= 0)
        return cannonKernelReportError(ctx, ACL_ERROR_RT_AICORE_EXCEPTION,
                                       "aclnnEmbedding: indices[%lld] = %lld is out of range [0, %lld)",
                                       (long long)bad, (long long)badv, (long long)a->m);
    return 0;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnEmbeddingGetWorkspaceSize(const aclTensor *weight, const aclTensor *indices,
                                                               const aclTensor *out, uint64_t *workspaceSize,
                                                               aclOpExecutor **executor)
{
    static const char api[] = "aclnnEmbedding";
    cannon_op op;
    cannon_tensor_view vw, vi, vo;
    cannonOpBegin(&op, api, workspaceSize, executor);
    cannonOpNotNulls(&op, "weight", weight, "indices", indices, "out", out, NULL);
    cannonOpTensor(&op, "weight", weight, cn_dts_Embedding(), &vw);
    cannonOpTensor(&op, "indices", indices, CANNON_DTS_INDEX, &vi);
    cannonOpTensor(&op, "out", out, cn_dts_Embedding(), &vo);
    cannonOpSameDtype(&op, "out", &vo, "weight", &vw);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    if (vw.ndim != 2)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "weight must be 2-D, got rank %lld", (long long)vw.ndim);
    else if (vi.ndim + 1 > CANNON_OP_MAX_RANK)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "indices has %lld dims, more than %d", (long long)vi.ndim,
                     CANNON_OP_MAX_RANK - 1);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    int64_t eshape[CANNON_OP_MAX_RANK];
    for (int64_t d = 0; d < vi.ndim; d++)
        eshape[d] = vi.shape[d];
    eshape[vi.ndim] = vw.shape[1];
    const cannon_tensor_view ve = {.dtype = vw.dtype, .ndim = vi.ndim + 1, .shape = eshape};
    if (!cannonOpSameShape(&op, "out", &vo, "the lookup", &ve))
        return cannonOpFinish(&op);

    const int sw = cannonOpInput(&op, weight);
    const int si = cannonOpInput(&op, indices);
    const int so = cannonOpOutput(&op, out);
    const int64_t N = cannonTensorNumel(indices), n = vw.shape[1];
    if (N == 0 || n == 0)
        return cannonOpFinish(&op);
    const size_t esize = cannonDtypeSize(vw.dtype);
    emb_args a;
    memset(&a, 0, sizeof a);
    cannon_arg_ref refs[3];
    cannonOpBindView(&op, sw, (uint32_t)offsetof(emb_args, weight), &refs[0]); /* read through its strides */
    cannonOpBind(&op, si, CANNON_BIND_IN, (uint32_t)offsetof(emb_args, indices), &refs[1]);
    cannonOpBind(&op, so, CANNON_BIND_OUT, (uint32_t)offsetof(emb_args, out), &refs[2]);
    a.N = N;
    a.n = n;
    a.m = vw.shape[0];
    a.ws0 = vw.strides[0];
    a.ws1 = vw.strides[1];
    a.esize = (int64_t)esize;
    a.idx64 = vi.dtype == ACL_INT64;
    const int64_t rowb = n * (int64_t)esize;
    a.per_block = rowb >= EMB_BLOCK_BYTES ? 1 : EMB_BLOCK_BYTES / rowb;
    while ((N + a.per_block - 1) / a.per_block > ((int64_t)1 << 24))
        a.per_block *= 2;
    const uint32_t blocks = (uint32_t)((N + a.per_block - 1) / a.per_block);
    cannonOpKernel(&op, api, emb_kernel, blocks, &a, sizeof a, refs, 3);
    return cannonOpFinish(&op);
}

/* ---- EmbeddingDenseBackward ----------------------------------------------------------------- */

static const char edb_api[] = "aclnnEmbeddingDenseBackward";

/* One block: stable counting sort of the valid, non-padding indices by row (see emb_kernels.h). */
static int edb_bucket_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const edb_args *a = (const edb_args *)args;
    int64_t *s = a->start;
    const int64_t V = a->V;
    memset(s, 0, (size_t)(V + 2) * sizeof *s);
    int64_t bad = -1, badv = 0;
    for (int64_t i = 0; i < a->N; i++) {
        const int64_t k = load_index(a->indices, a->idx64, i);
        if (k < 0 || k >= V) {
            if (bad < 0) {
                bad = i;
                badv = k;
            }
            continue;
        }
        if ((uint64_t)k != a->padding)
            s[k + 2]++;
    }
    for (int64_t r = 2; r <= V + 1; r++)
        s[r] += s[r - 1];
    /* s[k + 1] is now where row k's group begins; placing advances it to the group's end, which
     * leaves row r's group at [s[r], s[r + 1]). Positions go in increasing order: stable. */
    for (int64_t i = 0; i < a->N; i++) {
        const int64_t k = load_index(a->indices, a->idx64, i);
        if (k < 0 || k >= V || (uint64_t)k == a->padding)
            continue;
        a->perm[s[k + 1]++] = i;
    }
    if (bad >= 0)
        return cannonKernelReportError(ctx, ACL_ERROR_RT_AICORE_EXCEPTION,
                                       "%s: indices[%lld] = %lld is out of range [0, numWeights = %lld)", edb_api,
                                       (long long)bad, (long long)badv, (long long)V);
    return 0;
}

/* First row whose work key r + start[r] reaches @p w (the keys increase strictly with r). */
static int64_t edb_row_at(const int64_t *s, int64_t V, int64_t w)
{
    int64_t lo = 0, hi = V;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (mid + s[mid] < w)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int edb_rows_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const edb_args *a = (const edb_args *)args;
    const int64_t w0 = (int64_t)ctx->block_idx * a->work_per_block;
    const int64_t r0 = edb_row_at(a->start, a->V, w0);
    const int64_t r1 = edb_row_at(a->start, a->V, w0 + a->work_per_block);
    if (r0 >= r1)
        return 0;
    switch (a->isa) {
#if defined(CANNON_OPS_HAVE_AVX512)
    case CANNON_ISA_AVX512:
        cannon_edb_rows_avx512(a, r0, r1);
        break;
#endif
#if defined(CANNON_OPS_HAVE_AVX2)
    case CANNON_ISA_AVX2:
        cannon_edb_rows_avx2(a, r0, r1);
        break;
#endif
    default:
        cannon_edb_rows_scalar(a, r0, r1);
        break;
    }
    return 0;
}

static int edb_dtype(aclDataType t)
{
    return t == ACL_FLOAT ? EMB_F32 : t == ACL_FLOAT16 ? EMB_F16 : t == ACL_BF16 ? EMB_BF16 : -1;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnEmbeddingDenseBackwardGetWorkspaceSize(
    const aclTensor *grad, const aclTensor *indices, uint64_t numWeights, uint64_t paddingIdx, bool scaleGradByFreq,
    const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const cannon_dtype_set dts = cn_dts_EmbeddingDenseBackward();
    cannon_op op;
    cannon_tensor_view vg, vi, vo;
    cannonOpBegin(&op, edb_api, workspaceSize, executor);
    cannonOpNotNulls(&op, "grad", grad, "indices", indices, "out", out, NULL);
    cannonOpTensor(&op, "grad", grad, dts, &vg);
    cannonOpTensor(&op, "indices", indices, CANNON_DTS_INDEX, &vi);
    cannonOpTensor(&op, "out", out, dts, &vo);
    cannonOpSameDtype(&op, "out", &vo, "grad", &vg);
    if (cannonOpOk(&op) && vg.ndim < 1)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "grad must have at least 1 dim");
    if (cannonOpOk(&op) && numWeights > (uint64_t)INT64_MAX / 2)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "numWeights %llu is too large", (unsigned long long)numWeights);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const int64_t D = vg.shape[vg.ndim - 1];
    const int64_t N = cannonTensorNumel(indices);
    int64_t rows = 1;
    for (int64_t d = 0; d + 1 < vg.ndim; d++)
        rows *= vg.shape[d];
    if (rows != N) {
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID,
                     "the product of grad's leading dims (%lld) must equal the number of indices (%lld)",
                     (long long)rows, (long long)N);
        return cannonOpFinish(&op);
    }
    const int64_t V = (int64_t)numWeights;
    const int64_t eshape[2] = {V, D};
    const cannon_tensor_view ve = {.dtype = vg.dtype, .ndim = 2, .shape = eshape};
    if (!cannonOpSameShape(&op, "out", &vo, "the table [numWeights, D]", &ve))
        return cannonOpFinish(&op);

    const int sg = cannonOpInput(&op, grad);
    const int si = cannonOpInput(&op, indices);
    const int so = cannonOpOutput(&op, out);
    if (V == 0 || D == 0)
        return cannonOpFinish(&op);
    const uint64_t esize = cannonDtypeSize(vg.dtype);
    edb_args a;
    memset(&a, 0, sizeof a);
    cannon_arg_ref refs[5];
    cannonOpBind(&op, sg, CANNON_BIND_IN, (uint32_t)offsetof(edb_args, grad), &refs[0]);
    cannonOpBind(&op, si, CANNON_BIND_IN, (uint32_t)offsetof(edb_args, indices), &refs[1]);
    cannonOpBind(&op, so, CANNON_BIND_OUT, (uint32_t)offsetof(edb_args, out), &refs[2]);
    uint64_t ws_start = 0, ws_perm = 0;
    cannonOpWorkspace(&op, (uint64_t)(V + 2) * sizeof(int64_t), &ws_start);
    cannonOpWorkspace(&op, (uint64_t)(N > 0 ? N : 1) * sizeof(int64_t), &ws_perm);
    refs[3] = (cannon_arg_ref){(uint32_t)offsetof(edb_args, start), CANNON_SLOT_WORKSPACE, (int64_t)ws_start};
    refs[4] = (cannon_arg_ref){(uint32_t)offsetof(edb_args, perm), CANNON_SLOT_WORKSPACE, (int64_t)ws_perm};
    a.N = N;
    a.D = D;
    a.V = V;
    a.padding = paddingIdx;
    a.idx64 = vi.dtype == ACL_INT64;
    a.dtype = edb_dtype(vg.dtype);
    a.isa = (int32_t)cannon_isa_select();
    a.scale = scaleGradByFreq ? 1 : 0;
    const uint64_t out_bytes = (uint64_t)V * (uint64_t)D * esize;
    a.nt = out_bytes >= EDB_NT_BYTES && ((uint64_t)D * esize) % 64 == 0;
    /* A unit of work is one row written or one gradient row read; both move D elements. */
    const int64_t rowb = D * (int64_t)esize;
    int64_t wpb = rowb >= EMB_BLOCK_BYTES ? 1 : EMB_BLOCK_BYTES / rowb;
    const int64_t total = V + N;
    while ((total + wpb - 1) / wpb > ((int64_t)1 << 24))
        wpb *= 2;
    a.work_per_block = wpb;
    const uint32_t blocks = (uint32_t)((total + wpb - 1) / wpb);
    cannonOpKernel(&op, "EmbeddingDenseGradBucket", edb_bucket_kernel, 1, &a, sizeof a, refs, 5);
    cannonOpKernel(&op, "EmbeddingDenseGradRows", edb_rows_kernel, blocks, &a, sizeof a, refs, 5);
    return cannonOpFinish(&op);
}
