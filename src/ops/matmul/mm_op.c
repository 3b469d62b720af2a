/*
 * aclnnMatmul (torch.matmul semantics), aclnnMm (2-D), aclnnBatchMatMul (3-D), aclnnMv (2-D by 1-D:
 * the matmul plan of that case, the vector as a one-column operand).
 *
 * Strategy:
 *  - FLOAT: cblas_sgemm (OpenBLAS), operands read in place: a matrix whose rows or columns are
 *    contiguous is passed as NoTrans/Trans with its leading dimension, so transposed and sliced
 *    views cost no copy. Only a matrix with neither unit stride (or a broadcast expanded inside
 *    the matrix) is gathered into the workspace first, and an output without a unit column stride
 *    is computed into the workspace and scattered. One launch: a block per (batch, part of the
 *    product), parts cut from the shape alone, each a single-threaded sgemm on the worker running
 *    it. So the device's pool is the only thread pool (OpenBLAS is kept at one thread: its own
 *    threads would compete with the pool's and, idle, spin for a long time after each call), and
 *    results are bit-identical for any worker count (OpenBLAS's own split follows its thread
 *    count and changes the rounding).
 *  - BFLOAT16 on CPUs with AVX512-BF16: a first launch packs both operands into the workspace
 *    (K pairs; A in tiles of MM_MR rows, B in panels of MM_NR columns, each distinct batch once;
 *    see mm_kernels.h), a second computes blocks of (batch, row block, column block) with the
 *    register-blocked vdpbf16ps micro-kernel of mm_bf16_avx512.c: fp32 accumulation over the
 *    whole K, one rounding to bf16.
 *  - Skinny products of any dtypes (a side of at most MM_DOT_MAX_NARROW vectors, both
 *    operands contiguous along K): mm_dot_impl.h, blocks of the wide side, each wide vector read once
 *    in its own dtype against every narrow one, fp32 sums in an order fixed by the shape and tier.
 *  - FLOAT16 (and BFLOAT16 without AVX512-BF16) otherwise: split like FLOAT; each block widens its rows of
 *    A and columns of B to fp32 in its worker's scratch, multiplies with sgemm and rounds once.
 * Without OpenBLAS (CANNON_HAVE_OPENBLAS undefined) a plain C triple loop stands in for sgemm.
 * cubeMathType is validated (0..4) but every mode computes as KEEP_DTYPE: no down-conversion.
 * Mixed dtypes: self and mat2 may differ where CANN's promotion gives them a common type (FLOAT16
 * or BFLOAT16 with FLOAT -> FLOAT, FLOAT16 with BFLOAT16 -> FLOAT), and out may be any dtype that
 * type casts to. Such a call takes the widening path: every operand is read through its own dtype
 * (fp16/bf16 -> fp32 is exact), the fp32 product is rounded to the promoted type and then cast to
 * out's dtype (a second rounding only where out is narrower than or unlike the promoted type, as
 * CANN's Cast after the product). Same-dtype calls keep the paths above unchanged.
 */
#include <stdlib.h>
#include <string.h>

#include "aclnnop/aclnn_batch_matmul.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mm.h"
#include "aclnnop/aclnn_mv.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "fp_convert.h"
#include "../kernels/isa.h"
#include "../kernels/kernels.h"
#include "mm_kernels.h"

#if defined(CANNON_HAVE_OPENBLAS)
#include <cblas.h>
#endif

static void sgemm(int ta, int tb, int64_t M, int64_t N, int64_t K, const float *a, int64_t lda, const float *b,
                  int64_t ldb, float *c, int64_t ldc)
{
#if defined(CANNON_HAVE_OPENBLAS)
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (blasint)M,
                (blasint)N, (blasint)K, 1.0f, a, (blasint)lda, b, (blasint)ldb, 0.0f, c, (blasint)ldc);
#else
    for (int64_t i = 0; i < M; i++) {
        float *crow = c + i * ldc;
        for (int64_t j = 0; j < N; j++)
            crow[j] = 0.0f;
        for (int64_t p = 0; p < K; p++) {
            const float av = ta ? a[p * lda + i] : a[i * lda + p];
            for (int64_t j = 0; j < N; j++)
                crow[j] += av * (tb ? b[j * ldb + p] : b[p * ldb + j]);
        }
    }
#endif
}

static void batch_offsets(const mm_args *g, int64_t bi, int64_t off[3])
{
    off[0] = off[1] = off[2] = 0;
    for (int64_t d = g->bnd - 1; d >= 0; d--) {
        const int64_t i = bi % g->bshape[d];
        bi /= g->bshape[d];
        for (int k = 0; k < 3; k++)
            off[k] += i * g->bst[k][d];
    }
}

/* How a matrix with strides (rs, cs) of rows x cols is handed to row-major BLAS: 0 = NoTrans,
 * 1 = Trans (with *ld), -1 = not expressible. */
static int blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int64_t *ld)
{
    if ((cs == 1 || cols <= 1) && (rows <= 1 || rs >= cols) && (rows <= 1 || rs > 0)) {
        *ld = rows <= 1 ? (cols > 1 ? cols : 1) : rs;
        return 0;
    }
    if ((rs == 1 || rows <= 1) && (cols <= 1 || cs >= rows) && (cols <= 1 || cs > 0)) {
        *ld = cols <= 1 ? (rows > 1 ? rows : 1) : cs;
        return 1;
    }
    return -1;
}

static float ld_f(int dt, const void *p, int64_t i)
{
    const uint16_t *h = (const uint16_t *)p;
    return dt == MM_F32 ? ((const float *)p)[i] : dt == MM_F16 ? cannon_f16_to_f32(h[i]) : cannon_bf16_to_f32(h[i]);
}

static void st_f(int dt, void *p, int64_t i, float v)
{
    if (dt == MM_F32)
        ((float *)p)[i] = v;
    else if (dt == MM_F16)
        ((uint16_t *)p)[i] = cannon_f32_to_f16(v);
    else
        ((uint16_t *)p)[i] = cannon_f32_to_bf16(v);
}

/* v rounded to dtype dt and widened back (exact for the widening). */
static float round_to(int dt, float v)
{
    return dt == MM_F32   ? v
           : dt == MM_F16 ? cannon_f16_to_f32(cannon_f32_to_f16(v))
                          : cannon_bf16_to_f32(cannon_f32_to_bf16(v));
}

#if defined(CANNON_HAVE_OPENBLAS)
/* Each block calls sgemm on one worker, so OpenBLAS must not start its own threads: two thread
 * pools on the same cores fight (OpenBLAS's idle threads spin for a long while after each call),
 * and OpenBLAS's own split depends on its thread count, which changes the rounding of results
 * (blocks here depend on the shape only). Its thread count is global: set at plan time, and
 * re-checked by the kernel in case the application changed it in between. */
static void blas_single_thread(void)
{
    if (openblas_get_num_threads() != 1)
        openblas_set_num_threads(1);
}
#endif

void cannon_mm_sgemm(int ta, int tb, int64_t M, int64_t N, int64_t K, const float *a, int64_t lda, const float *b,
                     int64_t ldb, float *c, int64_t ldc)
{
    sgemm(ta, tb, M, N, K, a, lda, b, ldb, c, ldc);
}

void cannon_mm_blas_one_thread(void)
{
#if defined(CANNON_HAVE_OPENBLAS)
    blas_single_thread();
#endif
}

/* Rows and columns of block part (of rsplit x csplit) of an M x N product: [*i0, *i1) x [*j0, *j1). */
static void split_range(const mm_args *g, int64_t part, int64_t *i0, int64_t *i1, int64_t *j0, int64_t *j1)
{
    const int64_t rp = part / g->csplit, cp = part % g->csplit;
    const int64_t rc = (g->M + g->rsplit - 1) / g->rsplit, cc = (g->N + g->csplit - 1) / g->csplit;
    *i0 = rp * rc < g->M ? rp * rc : g->M;
    *i1 = *i0 + rc < g->M ? *i0 + rc : g->M;
    *j0 = cp * cc < g->N ? cp * cc : g->N;
    *j1 = *j0 + cc < g->N ? *j0 + cc : g->N;
}

/* fp32 (and 16-bit types without a native kernel): block = (batch, part of its product); each
 * block is one single-threaded sgemm on the worker that runs it. */
static int mm_sgemm_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const mm_args *g = (const mm_args *)args;
    const int64_t esa = g->dta == MM_F32 ? 4 : 2, esb = g->dtb == MM_F32 ? 4 : 2, esc = g->dtc == MM_F32 ? 4 : 2;
    const int64_t parts = (int64_t)g->rsplit * g->csplit, bi = ctx->block_idx / parts;
    int64_t i0, i1, j0, j1;
    split_range(g, ctx->block_idx % parts, &i0, &i1, &j0, &j1);
    const int64_t M = i1 - i0, N = j1 - j0, K = g->K;
    if (M <= 0 || N <= 0)
        return 0;
#if defined(CANNON_HAVE_OPENBLAS)
    blas_single_thread();
#endif
    int64_t off[3];
    batch_offsets(g, bi, off);
    /* An empty inner dimension: the operands may have no storage (NULL, no address to offset)
     * and nothing of them is read; the product is zeros. */
    const char *a = K ? (const char *)g->a + (off[1] + i0 * g->am) * esa : NULL;
    const char *b = K ? (const char *)g->b + (off[2] + j0 * g->bn) * esb : NULL;
    char *c = (char *)g->c + (off[0] + i0 * g->cm + j0 * g->cn) * esc;
    if (g->dt == MM_F32 && !g->mixed) {
        int64_t lda = 1, ldb = 1, ldc = 1;
        const int ta = blas_layout(M, K, g->am, g->ak, &lda);
        const int tb = blas_layout(K, N, g->bk, g->bn, &ldb);
        (void)blas_layout(M, N, g->cm, g->cn, &ldc);
        sgemm(ta, tb, M, N, K, (const float *)(const void *)a, lda, (const float *)(const void *)b, ldb,
              (float *)(void *)c, ldc);
        return 0;
    }
    /* 16-bit types and mixed operands: widen this block's operands (exactly) into the worker's
     * scratch, multiply in fp32, round once to the computed dtype (and cast that to out's) */
    if (ctx->worker_id >= (uint32_t)g->nwork)
        return cannonKernelReportError(ctx, ACL_ERROR_RT_PARAM_INVALID, "matmul: worker %u beyond the %lld planned",
                                       ctx->worker_id, (long long)g->nwork);
    float *wa = (float *)(void *)((char *)g->ws + g->ws_a + (int64_t)ctx->worker_id * g->scratch);
    float *wb = wa + M * K, *wc = wb + K * N;
    for (int64_t i = 0; i < M; i++)
        for (int64_t p = 0; p < K; p++)
            wa[i * K + p] = ld_f(g->dta, a, i * g->am + p * g->ak);
    for (int64_t p = 0; p < K; p++)
        for (int64_t j = 0; j < N; j++)
            wb[p * N + j] = ld_f(g->dtb, b, p * g->bk + j * g->bn);
    sgemm(0, 0, M, N, K, wa, K > 0 ? K : 1, wb, N, wc, N);
    if (g->dtc == g->dt) {
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++)
                st_f(g->dt, c, i * g->cm + j * g->cn, wc[i * N + j]);
    } else {
        /* the product in its computed dtype, then the cast to out's dtype */
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++)
                st_f(g->dtc, c, i * g->cm + j * g->cn, round_to(g->dt, wc[i * N + j]));
    }
    return 0;
}

static mm_dot_fn mm_dot_for(int isa)
{
    switch (isa) {
#if defined(CANNON_OPS_HAVE_AVX512)
    case CANNON_ISA_AVX512:
        return cannon_mm_dot_avx512;
#endif
#if defined(CANNON_OPS_HAVE_AVX2)
    case CANNON_ISA_AVX2:
        return cannon_mm_dot_avx2;
#endif
    default:
        return cannon_mm_dot_scalar;
    }
}

/* Output batch of (wide batch q, sharer t): the dims in dot_bcmask (where the wide operand is
 * broadcast) are numbered by t, the others by q, each in row-major order. */
static int64_t dot_batch(const mm_args *g, int64_t q, int64_t t)
{
    int64_t bi = 0, mul = 1;
    for (int64_t d = g->bnd - 1; d >= 0; d--) {
        int64_t *src = (g->dot_bcmask >> d) & 1 ? &t : &q;
        const int64_t i = *src % g->bshape[d];
        *src /= g->bshape[d];
        bi += i * mul;
        mul *= g->bshape[d];
    }
    return bi;
}

/* Stages narrow vector j of output batch (q, t) (block = (q, t, j)) as fp32 row (q, t, j) of K in
 * the workspace, widened exactly: the dot kernel then reads every narrow vector of a wide matrix from
 * one array, loads instead of converts, and a wide matrix shared by dot_bc output batches is read
 * once for all of them. */
static int mm_dot_stage_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const mm_args *g = (const mm_args *)args;
    const int64_t nx = g->dot_wide_b ? g->M : g->N;
    const int64_t row = ctx->block_idx, j = row % nx, t = row / nx % g->dot_bc, q = row / nx / g->dot_bc;
    int64_t off[3];
    batch_offsets(g, dot_batch(g, q, t), off);
    const int dx = g->dot_wide_b ? g->dta : g->dtb;
    const int64_t e = g->dot_wide_b ? off[1] + j * g->am : off[2] + j * g->bn;
    const void *src = g->dot_wide_b ? g->a : g->b;
    float *dst = (float *)(void *)((char *)g->ws + g->dot_xw) + row * g->K;
    const cannon_kernel_table *kt = cannon_kernels_for((cannon_isa)g->isa);
    if (dx == MM_F32)
        memcpy(dst, (const float *)src + e, (size_t)g->K * sizeof(float));
    else if (dx == MM_F16)
        kt->f16_to_f32(dst, (const uint16_t *)src + e, (size_t)g->K);
    else
        kt->bf16_to_f32(dst, (const uint16_t *)src + e, (size_t)g->K);
    return 0;
}

/* Skinny products (one side of at most MM_DOT_MAX_NARROW vectors, both
 * operands contiguous along K): block = (wide batch, chunk of the wide side); every wide vector is
 * read once, straight from its own dtype, against all narrow ones of the dot_bc output batches that
 * share it (staged in fp32 when dot_xw >= 0). */
static int mm_dot_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const mm_args *g = (const mm_args *)args;
    const int64_t esa = g->dta == MM_F32 ? 4 : 2, esb = g->dtb == MM_F32 ? 4 : 2, esc = g->dtc == MM_F32 ? 4 : 2;
    const int64_t q = ctx->block_idx / g->dot_nchunk, ch = ctx->block_idx % g->dot_nchunk;
    const int64_t nwide = g->dot_wide_b ? g->N : g->M, nx = g->dot_wide_b ? g->M : g->N, nxt = nx * g->dot_bc;
    const int64_t w0 = ch * g->dot_chunk, w1 = w0 + g->dot_chunk < nwide ? w0 + g->dot_chunk : nwide;
    if (w0 >= w1)
        return 0;
    int64_t off[3];
    char *c[MM_DOT_MAX_NARROW];
    for (int64_t t = 0; t < g->dot_bc; t++) {
        batch_offsets(g, dot_batch(g, q, t), off);
        c[t] = (char *)g->c + off[0] * esc;
    }
    batch_offsets(g, dot_batch(g, q, 0), off);
    const char *a = (const char *)g->a + off[1] * esa, *b = (const char *)g->b + off[2] * esb;
    float r[64 * MM_DOT_MAX_NARROW];
    const mm_dot_fn dot = mm_dot_for(g->isa);
    /* the wide side, and the narrow one: in place, or staged as fp32 rows of K */
    const char *wp = g->dot_wide_b ? b : a;
    const int dw = g->dot_wide_b ? g->dtb : g->dta;
    const int64_t ldw = g->dot_wide_b ? g->bn : g->am, esw = g->dot_wide_b ? esb : esa;
    const void *xp = g->dot_wide_b ? (const void *)a : (const void *)b;
    int dx = g->dot_wide_b ? g->dta : g->dtb;
    int64_t ldx = g->dot_wide_b ? g->am : g->bn;
    if (g->dot_xw >= 0) {
        xp = (const float *)(const void *)((const char *)g->ws + g->dot_xw) + q * nxt * g->K;
        dx = MM_F32;
        ldx = g->K;
    }
    for (int64_t s = w0; s < w1; s += 64) {
        const int64_t nw = w1 - s < 64 ? w1 - s : 64;
        dot(wp + s * ldw * esw, dw, ldw, nw, xp, dx, ldx, nxt, g->K, r);
        for (int64_t w = 0; w < nw; w++)
            for (int64_t x = 0; x < nxt; x++) {
                const int64_t t = x / nx, xi = x % nx;
                const int64_t i = g->dot_wide_b ? xi : s + w, j = g->dot_wide_b ? s + w : xi;
                const float v = r[w * nxt + x];
                st_f(g->dtc, c[t], i * g->cm + j * g->cn, g->dtc == g->dt ? v : round_to(g->dt, v));
            }
    }
    return 0;
}

/* Index of output batch bi among operand x's distinct batches (x: 1 = A, 2 = B): dims along which x
 * is broadcast (batch stride 0) do not count, so a broadcast operand is packed once. */
static int64_t packed_index(const mm_args *g, int x, int64_t bi)
{
    int64_t idx = 0, mul = 1;
    for (int64_t d = g->bnd - 1; d >= 0; d--) {
        const int64_t i = bi % g->bshape[d];
        bi /= g->bshape[d];
        if (g->bst[x][d] != 0) {
            idx += i * mul;
            mul *= g->bshape[d];
        }
    }
    return idx;
}

/* Element offset of operand x's q-th distinct batch (the inverse of packed_index). */
static int64_t packed_offset(const mm_args *g, int x, int64_t q)
{
    int64_t off = 0;
    for (int64_t d = g->bnd - 1; d >= 0; d--)
        if (g->bst[x][d] != 0) {
            off += (q % g->bshape[d]) * g->bst[x][d];
            q /= g->bshape[d];
        }
    return off;
}

static int64_t distinct_batches(const mm_args *g, int x)
{
    int64_t n = 1;
    for (int64_t d = 0; d < g->bnd; d++)
        if (g->bst[x][d] != 0)
            n *= g->bshape[d];
    return n;
}

static int64_t cdiv(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* bf16 path, launch 1: blocks [0, nba * row blocks) pack A's row blocks, the rest B's column
 * blocks, of every distinct batch. */
static int mm_bf16_pack_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const mm_args *g = (const mm_args *)args;
    const int64_t rblk = cdiv(g->ntile, g->tpb), cblk = cdiv(g->npan, g->ppb);
    int64_t blk = ctx->block_idx;
    if (blk < g->nba * rblk) {
        const int64_t q = blk / rblk, t0 = (blk % rblk) * g->tpb, t1 = t0 + g->tpb < g->ntile ? t0 + g->tpb : g->ntile;
        uint32_t *pa = (uint32_t *)(void *)((char *)g->ws + g->ws_a) + q * g->ntile * (g->kp / 2) * MM_MR;
        const uint16_t *a = (const uint16_t *)g->a + packed_offset(g, 1, q);
#if defined(CANNON_OPS_HAVE_AVX512)
        cannon_mm_bf16_pack_a_avx512(a, g->am, g->ak, g->M, g->K, g->kp, t0, t1, pa);
#else
        (void)a, (void)pa, (void)t1;
#endif
        return 0;
    }
    blk -= g->nba * rblk;
    const int64_t q = blk / cblk, p0 = (blk % cblk) * g->ppb, p1 = p0 + g->ppb < g->npan ? p0 + g->ppb : g->npan;
    uint16_t *pb = (uint16_t *)(void *)((char *)g->ws + g->ws_b) + q * g->npan * g->kp * MM_NR;
    const uint16_t *b = (const uint16_t *)g->b + packed_offset(g, 2, q);
#if defined(CANNON_OPS_HAVE_AVX512)
    cannon_mm_bf16_pack_b_avx512(b, g->bk, g->bn, g->K, g->N, g->kp, p0, p1, pb);
#else
    (void)b, (void)pb, (void)p1;
#endif
    return 0;
}

/* bf16 path, launch 2: block = (batch, row block of tpb tiles, column block of ppb panels). */
static int mm_bf16_compute_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const mm_args *g = (const mm_args *)args;
    const int64_t rblk = cdiv(g->ntile, g->tpb), cblk = cdiv(g->npan, g->ppb);
    const int64_t blk = ctx->block_idx, bi = blk / (rblk * cblk), rb = blk / cblk % rblk, cb = blk % cblk;
    int64_t off[3];
    batch_offsets(g, bi, off);
    const uint32_t *pa = (const uint32_t *)(const void *)((const char *)g->ws + g->ws_a) +
                         packed_index(g, 1, bi) * g->ntile * (g->kp / 2) * MM_MR;
    const uint16_t *pb = (const uint16_t *)(const void *)((const char *)g->ws + g->ws_b) +
                         packed_index(g, 2, bi) * g->npan * g->kp * MM_NR;
    const int64_t t0 = rb * g->tpb, t1 = t0 + g->tpb < g->ntile ? t0 + g->tpb : g->ntile;
    const int64_t p0 = cb * g->ppb, p1 = p0 + g->ppb < g->npan ? p0 + g->ppb : g->npan;
    uint16_t *c = (uint16_t *)g->c + off[0];
#if defined(CANNON_OPS_HAVE_AVX512)
    cannon_mm_bf16_tiles_avx512(pa, pb, g->M, g->N, g->kp, t0, t1, p0, p1, c, g->cm, g->cn);
#else
    (void)pa, (void)pb, (void)t1, (void)p1, (void)c; /* never planned: bf16dp needs the AVX-512 file */
#endif
    return 0;
}

static int dt_code(aclDataType t)
{
    return t == ACL_FLOAT ? MM_F32 : t == ACL_FLOAT16 ? MM_F16 : t == ACL_BF16 ? MM_BF16 : -1;
}

enum mm_kind { MK_MATMUL, MK_MM, MK_BMM, MK_MV };

/* Row-major contiguous strides of @p shape (rank @p r) into @p st. */
static void contiguous_strides(int64_t *st, const int64_t *shape, int64_t r)
{
    int64_t acc = 1;
    for (int64_t i = r - 1; i >= 0; i--) {
        st[i] = acc;
        acc *= shape[i];
    }
}

static aclnnStatus mm_plan(const char *api, int kind, const aclTensor *self, const aclTensor *mat2,
                           const aclTensor *out, int8_t cubeMathType, uint64_t *workspaceSize,
                           aclOpExecutor **executor)
{
    const cannon_dtype_set dts = cn_dts_Matmul();
    const char *bname = kind == MK_MV ? "vec" : "mat2";
    cannon_op op;
    cannon_tensor_view va, vb, vc;
    cannonOpBegin(&op, api, workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, bname, mat2, "out", out, NULL);
    cannonOpTensor(&op, "self", self, dts, &va);
    cannonOpTensor(&op, bname, mat2, dts, &vb);
    cannonOpTensor(&op, "out", out, dts, &vc);
    /* self and mat2 need a common type under CANN's promotion, and out a dtype that type casts to */
    aclDataType pdt = ACL_DT_UNDEFINED;
    /* Mv's page differs: vec and out have self's dtype */
    if (kind == MK_MV && cannonOpOk(&op) && (vb.dtype != va.dtype || vc.dtype != va.dtype))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "self, vec and out dtypes differ (%s, %s, %s)",
                     cannonDtypeName(va.dtype), cannonDtypeName(vb.dtype), cannonDtypeName(vc.dtype));
    if (cannonOpOk(&op)) {
        pdt = cannonDtypePromote(va.dtype, vb.dtype);
        if (!cannonDtypeIn(pdt, dts))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%s dtype %s and self dtype %s have no common type", bname,
                         cannonDtypeName(vb.dtype), cannonDtypeName(va.dtype));
        else if (!cannonDtypeCanCast(pdt, vc.dtype))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "the product's dtype %s cannot be cast to out dtype %s",
                         cannonDtypeName(pdt), cannonDtypeName(vc.dtype));
    }
    if (cannonOpOk(&op) && (cubeMathType < 0 || cubeMathType > 4))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "cubeMathType %d is not one of 0..4", (int)cubeMathType);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const int64_t ra = va.ndim, rb = vb.ndim;
    if (kind == MK_MM && (ra != 2 || rb != 2))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "self and mat2 must be 2-D (got %lld-D and %lld-D)", (long long)ra,
                     (long long)rb);
    if (kind == MK_MV && (ra != 2 || rb != 1))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "self must be 2-D and vec 1-D (got %lld-D and %lld-D)",
                     (long long)ra, (long long)rb);
    if (kind == MK_BMM && (ra != 3 || rb != 3))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "self and mat2 must be 3-D (got %lld-D and %lld-D)", (long long)ra,
                     (long long)rb);
    if (ra < 1 || rb < 1 || ra > 6 || rb > 6)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "self and mat2 must have 1 to 6 dims (got %lld-D and %lld-D)",
                     (long long)ra, (long long)rb);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const int dt = dt_code(pdt);
    const int mixed = va.dtype != vb.dtype || vc.dtype != va.dtype;
    const int a1 = ra == 1, b1 = rb == 1;
    mm_args g;
    memset(&g, 0, sizeof g);
    g.dt = dt;
    g.dta = dt_code(va.dtype);
    g.dtb = dt_code(vb.dtype);
    g.dtc = dt_code(vc.dtype);
    g.mixed = mixed;
    g.M = a1 ? 1 : va.shape[ra - 2];
    g.K = va.shape[ra - 1];
    const int64_t Kb = b1 ? vb.shape[0] : vb.shape[rb - 2];
    g.N = b1 ? 1 : vb.shape[rb - 1];
    if (g.K != Kb) {
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "self's last dim (%lld) differs from %s's reduction dim (%lld)",
                     (long long)g.K, bname, (long long)Kb);
        return cannonOpFinish(&op);
    }
    const int64_t bra = ra > 2 ? ra - 2 : 0, brb = rb > 2 ? rb - 2 : 0;
    g.bnd = bra > brb ? bra : brb;
    int64_t bshape[MM_MAX_BATCH] = {0}; /* the first g.bnd set below; zeroed for gcc -O3, which cannot see it */
    for (int64_t i = 0; i < g.bnd; i++) {
        const int64_t ia = i - (g.bnd - bra), ib = i - (g.bnd - brb);
        const int64_t da = ia >= 0 ? va.shape[ia] : 1, db = ib >= 0 ? vb.shape[ib] : 1;
        if (da != db && da != 1 && db != 1) {
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "batch dims %lld and %lld cannot broadcast", (long long)da,
                         (long long)db);
            return cannonOpFinish(&op);
        }
        bshape[i] = da == 1 ? db : da;
    }
    /* expected out shape */
    int64_t oshape[8];
    int64_t ro = 0;
    for (int64_t i = 0; i < g.bnd; i++)
        oshape[ro++] = bshape[i];
    if (!a1)
        oshape[ro++] = g.M;
    if (!b1)
        oshape[ro++] = g.N;
    const cannon_tensor_view vp = {.dtype = va.dtype, .ndim = ro, .shape = oshape};
    if (!cannonOpSameShape(&op, "out", &vc, "the product", &vp))
        return cannonOpFinish(&op);

    const int sa = cannonOpInput(&op, self), sb = cannonOpInput(&op, mat2);
    const int sc = cannonOpOutput(&op, out);
    if (cannonTensorNumel(out) == 0)
        return cannonOpFinish(&op);

    /* strides as seen by the kernel; gathered operands get their contiguous strides */
    int64_t sta[8], stb[8], stc[8];
    memcpy(sta, va.strides, (size_t)ra * sizeof(int64_t));
    memcpy(stb, vb.strides, (size_t)rb * sizeof(int64_t));
    memcpy(stc, vc.strides, (size_t)vc.ndim * sizeof(int64_t));
    cannon_arg_ref refs[4];
    const uint32_t off_a = (uint32_t)offsetof(mm_args, a), off_b = (uint32_t)offsetof(mm_args, b);
    const uint32_t off_c = (uint32_t)offsetof(mm_args, c);
    /* (an empty inner dimension takes the sgemm path: its operands may have no storage to pack) */
    const int bf16dp = dt == MM_BF16 && !mixed && g.K > 0 && cannon_isa_select() == CANNON_ISA_AVX512
#if defined(CANNON_OPS_HAVE_AVX512)
                       && cannon_mm_bf16_available()
#else
                       && 0
#endif
        ;
    /* FLOAT reads its operands in place where BLAS can express their layout (rows or columns
     * contiguous) and writes out in place when its rows are; only other matrices are gathered /
     * scattered through the workspace. 16-bit types and mixed operands read and write every view
     * through its strides. */
    const int f32 = dt == MM_F32 && !mixed;
    int64_t ld;
    if (f32 && blas_layout(g.M, g.K, a1 ? 0 : sta[ra - 2], sta[ra - 1], &ld) < 0) {
        cannonOpBind(&op, sa, CANNON_BIND_IN, off_a, &refs[0]);
        contiguous_strides(sta, va.shape, ra);
    } else {
        cannonOpBindView(&op, sa, off_a, &refs[0]);
    }
    if (f32 && blas_layout(g.K, g.N, b1 ? stb[0] : stb[rb - 2], b1 ? 0 : stb[rb - 1], &ld) < 0) {
        cannonOpBind(&op, sb, CANNON_BIND_IN, off_b, &refs[1]);
        contiguous_strides(stb, vb.shape, rb);
    } else {
        cannonOpBindView(&op, sb, off_b, &refs[1]);
    }
    if (f32 &&
        blas_layout(g.M, g.N, a1 ? 0 : stc[vc.ndim - (b1 ? 1 : 2)], b1 ? 0 : stc[vc.ndim - 1], &ld) != 0) {
        cannonOpBind(&op, sc, CANNON_BIND_OUT, off_c, &refs[2]);
        contiguous_strides(stc, vc.shape, vc.ndim);
    } else {
        cannonOpBindView(&op, sc, off_c, &refs[2]);
    }
    /* the workspace base, for the packed operands and scratch at g.ws_a / g.ws_b */
    refs[3] = (cannon_arg_ref){(uint32_t)offsetof(mm_args, ws), CANNON_SLOT_WORKSPACE, 0};
    const size_t nrefs = 4;
    g.am = a1 ? 0 : sta[ra - 2];
    g.ak = sta[ra - 1];
    g.bk = b1 ? stb[0] : stb[rb - 2];
    g.bn = b1 ? 0 : stb[rb - 1];
    g.cm = a1 ? 0 : stc[vc.ndim - (b1 ? 1 : 2)];
    g.cn = b1 ? 0 : stc[vc.ndim - 1];
    g.nbatch = 1;
    for (int64_t i = 0; i < g.bnd; i++) {
        const int64_t ia = i - (g.bnd - bra), ib = i - (g.bnd - brb);
        g.bshape[i] = bshape[i];
        g.nbatch *= bshape[i];
        g.bst[0][i] = stc[i];
        g.bst[1][i] = ia >= 0 && va.shape[ia] != 1 ? sta[ia] : 0;
        g.bst[2][i] = ib >= 0 && vb.shape[ib] != 1 ? stb[ib] : 0;
    }
    uint64_t ws_a = 0, ws_b = 0;
    if (bf16dp) {
        g.path = MM_PATH_BF16DP;
        g.kp = (g.K + 1) & ~(int64_t)1;
        g.npan = cdiv(g.N, MM_NR);
        g.ntile = cdiv(g.M, MM_MR);
        /* a row block's packed A (tpb tiles) stays in L2 (1 MiB on Zen 4) while the block
         * walks its panels; 8 tiles (96 rows) and 8 panels (256 columns) at most keep enough
         * blocks for the pool. Both are functions of the shape only. */
        g.tpb = (384 << 10) / (MM_MR * (g.kp > 0 ? g.kp : 1) * 2);
        g.tpb = g.tpb < 1 ? 1 : g.tpb > 8 ? 8 : g.tpb;
        g.ppb = 8;
        g.nba = distinct_batches(&g, 1);
        g.nbb = distinct_batches(&g, 2);
        cannonOpWorkspace(&op, (uint64_t)(g.nba * g.ntile * MM_MR * g.kp * 2), &ws_a);
        cannonOpWorkspace(&op, (uint64_t)(g.nbb * g.npan * MM_NR * g.kp * 2), &ws_b);
        g.ws_a = (int64_t)ws_a;
        g.ws_b = (int64_t)ws_b;
        const int64_t rblk = cdiv(g.ntile, g.tpb), cblk = cdiv(g.npan, g.ppb);
        cannonOpKernel(&op, api, mm_bf16_pack_kernel, (uint32_t)(g.nba * rblk + g.nbb * cblk), &g, sizeof g, refs,
                       nrefs);
        cannonOpKernel(&op, api, mm_bf16_compute_kernel, (uint32_t)(g.nbatch * rblk * cblk), &g, sizeof g, refs,
                       nrefs);
        return cannonOpFinish(&op);
    }
    /* Skinny products (a side of at most MM_DOT_MAX_NARROW vectors: decode steps, matrix-vector)
     * whose operands are contiguous along K: the dot kernel reads each operand once in its own
     * dtype, where widening would copy the wide operand into scratch and sgemm would pack it. */
    const int64_t narrow = g.M < g.N ? g.M : g.N;
    if (g.K > 0 && narrow <= MM_DOT_MAX_NARROW && (g.ak == 1 || g.M == 1) && (g.bk == 1 || g.N == 1) &&
        (g.ak == 1 || g.K == 1 || g.M > 1) && (g.bk == 1 || g.K == 1)) {
        g.path = MM_PATH_DOT;
        g.dot_wide_b = g.N > g.M;
        g.isa = (int32_t)cannon_isa_select();
        const int64_t nwide = g.dot_wide_b ? g.N : g.M;
        /* output batches along which the wide operand is broadcast share its reads, up to
         * MM_DOT_MAX_NARROW narrow vectors in all (innermost such dims first) */
        g.dot_bc = 1;
        g.dot_bcmask = 0;
        const int wx = g.dot_wide_b ? 2 : 1;
        for (int64_t d = g.bnd - 1; d >= 0; d--)
            if (g.bst[wx][d] == 0 && g.bshape[d] > 1 && g.dot_bc * g.bshape[d] * narrow <= MM_DOT_MAX_NARROW) {
                g.dot_bc *= g.bshape[d];
                g.dot_bcmask |= 1 << d;
            }
        /* the narrow vectors are staged in fp32 first (exact: the products are the same) when the
         * wide operand is shared, and when they are 16-bit and read by more than one wide vector,
         * as long as the copy is at most 64 MiB; sharing needs the staging */
        const int dxn = g.dot_wide_b ? g.dta : g.dtb;
        const bool stage = g.nbatch * narrow * g.K <= ((int64_t)16 << 20) &&
                           (g.dot_bc > 1 || (dxn != MM_F32 && nwide > 1));
        if (!stage) {
            g.dot_bc = 1;
            g.dot_bcmask = 0;
        }
        /* about 2^20 multiply-adds per block, 16 wide vectors at least: a function of the shape */
        int64_t chunk = ((int64_t)1 << 20) / (g.K * narrow * g.dot_bc);
        chunk = chunk < 16 ? 16 : chunk;
        g.dot_chunk = chunk < nwide ? chunk : nwide;
        g.dot_nchunk = cdiv(nwide, g.dot_chunk);
        g.dot_xw = -1;
        if (stage) {
            uint64_t ws_x = 0;
            cannonOpWorkspace(&op, (uint64_t)(g.nbatch * narrow * g.K * 4), &ws_x);
            g.dot_xw = (int64_t)ws_x;
            cannonOpKernel(&op, api, mm_dot_stage_kernel, (uint32_t)(g.nbatch * narrow), &g, sizeof g, refs, nrefs);
        }
        cannonOpKernel(&op, api, mm_dot_kernel, (uint32_t)(g.nbatch / g.dot_bc * g.dot_nchunk), &g, sizeof g, refs,
                       nrefs);
        return cannonOpFinish(&op);
    }
    g.path = MM_PATH_SGEMM;
    /* Each batch's product is cut along its longer side into up to 4 parts of >= 2^27
     * flops (~1 ms of one core): enough blocks for the pool, few enough that repacking
     * the shared operand in every part stays cheap. A function of the shape only. */
    const double fl = 2.0 * (double)g.M * (double)g.N * (double)g.K;
    int64_t parts = (int64_t)(fl / (double)(1 << 27));
    parts = parts < 1 ? 1 : parts > 4 ? 4 : parts;
    const int64_t longer = g.M >= g.N ? g.M : g.N, maxp = (longer + 63) / 64;
    parts = parts < maxp ? parts : maxp;
    g.rsplit = (int32_t)(g.M >= g.N ? parts : 1);
    g.csplit = (int32_t)(g.M >= g.N ? 1 : parts);
    if (!f32) {
        /* per-worker scratch for one block's widened A rows, B columns and C block */
        const int64_t rc = (g.M + g.rsplit - 1) / g.rsplit, cc = (g.N + g.csplit - 1) / g.csplit;
        const uint32_t w = cannonGetWorkerCount();
        g.nwork = w > 0 ? (int64_t)w : 1;
        g.scratch = ((rc * g.K + g.K * cc + rc * cc) * 4 + 63) & ~(int64_t)63;
        cannonOpWorkspace(&op, (uint64_t)(g.nwork * g.scratch), &ws_a);
        g.ws_a = (int64_t)ws_a;
    }
#if defined(CANNON_HAVE_OPENBLAS)
    blas_single_thread();
#endif
    cannonOpKernel(&op, api, mm_sgemm_kernel, (uint32_t)(g.nbatch * parts), &g, sizeof g, refs, nrefs);
    return cannonOpFinish(&op);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnMatmulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2,
                                                            aclTensor *out, int8_t cubeMathType,
                                                            uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return mm_plan("aclnnMatmul", MK_MATMUL, self, mat2, out, cubeMathType, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnMmGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out,
                                                        int8_t cubeMathType, uint64_t *workspaceSize,
                                                        aclOpExecutor **executor)
{
    return mm_plan("aclnnMm", MK_MM, self, mat2, out, cubeMathType, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnBatchMatMulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2,
                                                                 aclTensor *out, int8_t cubeMathType,
                                                                 uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return mm_plan("aclnnBatchMatMul", MK_BMM, self, mat2, out, cubeMathType, workspaceSize, executor);
}


ACL_FUNC_VISIBILITY aclnnStatus aclnnMvGetWorkspaceSize(const aclTensor *self, const aclTensor *vec, aclTensor *out,
                                                        int8_t cubeMathType, uint64_t *workspaceSize,
                                                        aclOpExecutor **executor)
{
    return mm_plan("aclnnMv", MK_MV, self, vec, out, cubeMathType, workspaceSize, executor);
}
