/*
 * aclnnSoftmax, aclnnLogSoftmax, aclnnSoftmaxBackward, aclnnLogSoftmaxBackward.
 *
 * Phase 1 checks the arguments, canonicalises the shape to (outer, R, inner) around `dim`, and
 * records one kernel. Strided inputs are first gathered into the workspace and a strided output
 * is computed into the workspace and scattered back, so the kernels only see contiguous data.
 * The kernel's block count is a function of the shape only (about 64 KiB of input per block,
 * 1 MiB for rows long enough to prefetch their successor, see SM_PREFETCH_BLOCK_BYTES),
 * and every output element is computed by exactly one unit with a fixed arithmetic sequence, so
 * the result does not depend on the worker count. The instruction-set tier is read here
 * (cannon_isa_select) and recorded in the arguments.
 */
#include <stdlib.h>
#include <string.h>

#include "aclnnop/aclnn_log_softmax.h"
#include "aclnnop/aclnn_logsoftmax_backward.h"
#include "aclnnop/aclnn_softmax.h"
#include "aclnnop/aclnn_softmax_backward.h"
#include "cannon/opdev.h"

#include "../kernels/isa.h"
#include "env.h"
#include "softmax_kernels.h"

/* Input bytes per block. */
#define SM_BLOCK_BYTES (64 * 1024)
/* Blocks that rows reading ahead (SM_PREFETCH_MIN_BYTES) keep at least, where there are rows
 * enough. */
#define SM_MIN_BLOCKS 16
/* When the output is written with non-temporal stores, which skip the read-for-ownership of
 * each line and leave the caches to the input: a function of the shape and dtype only (the
 * values are the same either way). Measured on Zen 5 (1 and 2 threads, bench_softmax --ab
 * CANNON_SOFTMAX_NT, plain and streaming samples interleaved in one process, the four benchmark
 * shapes): forward fp32 with streaming stores was faster or equal on every shape (softmax
 * [4096,1024] 80 -> 97% of the copy floor at 1 thread, 78 -> 104% at 2; [65536,128] 82 -> 97% at
 * 2; log-softmax [64,16,512,512] 84 -> 96% at 1), so fp32 forward outputs of SM_NT_OUT_BYTES or
 * more use them. Softmax rows long enough to compute their exponentials again in the write pass
 * (SM_RECOMPUTE_MIN_BYTES) do so with streaming stores too ([512,32000] 4.47 -> 4.35 ms at 1
 * thread, 3.59 -> 3.32 at 2, in a slow minute). 16-bit rows gained only when long (bf16
 * [512,32000], 64 KiB rows: softmax 65 -> 71% at 1 thread, 91 -> 108% at 2; log-softmax 72 -> 86%,
 * 111 -> 127%) and lost on rows of 1-2 KiB and less (bf16 [64,16,512,512] 62 -> 49% at 1 thread,
 * [65536,128] log-softmax 64 -> 59%), so they need rows of SM_NT_ROW16_BYTES too. (On Zen 4 plain
 * stores were as fast or faster from 64 MiB to 512 MiB moved.) The backward ops keep plain stores
 * below SM_NT_BYTES moved. Since session 15 fp32 rows of exactly 512 elements (SM_PLAIN_ROW32_BYTES)
 * keep plain stores too: same process, plain and streaming samples interleaved (bench_softmax --ab
 * CANNON_SOFTMAX_NT=0), softmax and log-softmax on [64,16,512,512], [32768,512] and [65536,512],
 * 1 and 2 threads, plain took 0.76-1.14x the time over 36 pairs, less in 29, median 0.89 (the
 * losses, up to 1.14x, in minutes of fast memory; the benchmark's [64,16,512,512] at 1 thread
 * 72 -> 86-97% of the floor in the first pairs), while rows of 384, 448,
 * 640, 768, 1024, 128, 256 and 32000 gave mixed results or lost (0.79-1.45x). Rows of 2 KiB put
 * row t + 2 of the pipelined kernel's input at the same offset in a 4 KiB page as row t's output
 * (the tensors being page-aligned), which may be why this one length differs (not tested); bench/ops/
 * bench_overlap also shows a core hiding less of its arithmetic under streaming stores than under
 * plain ones. CANNON_SOFTMAX_NT=0/1 forces the choice for experiments. */
#define SM_NT_BYTES ((uint64_t)4 << 30)
#define SM_NT_OUT_BYTES ((uint64_t)8 << 20)
#define SM_NT_ROW16_BYTES ((int64_t)16 << 10)
#define SM_PLAIN_ROW32_BYTES ((int64_t)2048)

static const char *const op_api[] = {"aclnnSoftmax", "aclnnLogSoftmax", "aclnnSoftmaxBackward",
                                     "aclnnLogSoftmaxBackward"};

/* The rule above for a tensor of @p bytes with rows of @p row_bytes. */
static int streaming(int bwd, int dt, int64_t row_bytes, uint64_t bytes)
{
    const char *env = cannon_env_get("CANNON_SOFTMAX_NT");
    if (env && (env[0] == '0' || env[0] == '1'))
        return env[0] == '1';
    if (bytes * (bwd ? 3 : 2) >= SM_NT_BYTES)
        return 1;
    return !bwd && bytes >= SM_NT_OUT_BYTES &&
           ((dt == SM_F32 && row_bytes != SM_PLAIN_ROW32_BYTES) ||
            ((dt == SM_BF16 || dt == SM_F16) && row_bytes >= SM_NT_ROW16_BYTES));
}

static int sm_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const sm_args *a0 = (const sm_args *)args;
    sm_args al = *a0;
    al.pf_cross = ctx->num_workers <= 1;
    const sm_args *a = &al;
    const int64_t u0 = (int64_t)ctx->block_idx * a->units_per_block;
    if (u0 >= a->units)
        return 0;
    const int64_t u1 = a->units - u0 < a->units_per_block ? a->units : u0 + a->units_per_block;
    if (a->dtype == SM_F64) {
        cannon_softmax_units_f64(a, u0, u1);
        return 0;
    }
    switch (a->isa) {
#if defined(CANNON_OPS_HAVE_AVX512)
    case CANNON_ISA_AVX512:
        cannon_softmax_units_avx512(a, u0, u1);
        break;
#endif
#if defined(CANNON_OPS_HAVE_AVX2)
    case CANNON_ISA_AVX2:
        cannon_softmax_units_avx2(a, u0, u1);
        break;
#endif
    default:
        cannon_softmax_units_scalar(a, u0, u1);
        break;
    }
    return 0;
}

static int dtype_code(aclDataType t, size_t *esize)
{
    switch (t) {
    case ACL_FLOAT:
        *esize = 4;
        return SM_F32;
    case ACL_FLOAT16:
        *esize = 2;
        return SM_F16;
    case ACL_BF16:
        *esize = 2;
        return SM_BF16;
    case ACL_DOUBLE:
        *esize = 8;
        return SM_F64;
    default:
        return -1;
    }
}

static int same_shape(const cannon_tensor_view *a, const cannon_tensor_view *b)
{
    if (a->ndim != b->ndim)
        return 0;
    for (int64_t i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i])
            return 0;
    return 1;
}

/* Where the kernel finds a tensor's data: its own storage when contiguous, else a workspace copy. */
static aclnnStatus bind(aclOpExecutor *e, const aclTensor *t, const cannon_tensor_view *v, int slot,
                        uint64_t bytes, int is_output, cannon_arg_ref *ref, uint64_t *scatter_off)
{
    if (cannonTensorIsContiguous(t)) {
        ref->slot = slot;
        ref->byte_offset = v->offset * (int64_t)(bytes / (uint64_t)cannonTensorNumel(t));
        return ACLNN_SUCCESS;
    }
    const uint64_t off = cannonExecutorReserveWorkspace(e, bytes);
    ref->slot = CANNON_SLOT_WORKSPACE;
    ref->byte_offset = (int64_t)off;
    if (is_output) {
        *scatter_off = off;
        return ACLNN_SUCCESS;
    }
    return cannonExecutorAddGather(e, slot, off);
}

static aclnnStatus plan(int op, const aclTensor *x, const aclTensor *g, int64_t dim, aclTensor *out,
                        uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *api = op_api[op];
    const int bwd = op == SM_SOFTMAX_BWD || op == SM_LOG_SOFTMAX_BWD;
    const char *xname = bwd ? "output" : "self";
    if (!x || (bwd && !g) || !out || !workspaceSize || !executor)
        return cannonReportError(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL", api,
                                 !x ? xname : (bwd && !g) ? "gradOutput" : !out ? "out"
                                 : !workspaceSize ? "workspaceSize" : "executor");
    cannon_tensor_view vx, vg, vo;
    if (!cannonTensorGetView(x, &vx) || (bwd && !cannonTensorGetView(g, &vg)) || !cannonTensorGetView(out, &vo))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: a tensor argument is not a live aclTensor", api);
    size_t esize = 0, esize_o = 0, esize_g = 0;
    const int dt = dtype_code(vx.dtype, &esize);
    if (dt < 0)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID,
                                 "%s: %s dtype %d is not supported (FLOAT, FLOAT16, BFLOAT16, DOUBLE)", api,
                                 xname, (int)vx.dtype);
    if (dtype_code(vo.dtype, &esize_o) != dt)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: out dtype %d differs from %s dtype %d", api,
                                 (int)vo.dtype, xname, (int)vx.dtype);
    if (bwd && dtype_code(vg.dtype, &esize_g) != dt)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: gradOutput dtype %d differs from output dtype %d",
                                 api, (int)vg.dtype, (int)vx.dtype);
    if (vx.ndim > CANNON_OP_MAX_RANK || vo.ndim > CANNON_OP_MAX_RANK || (bwd && vg.ndim > CANNON_OP_MAX_RANK))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: rank above %d", api, CANNON_OP_MAX_RANK);
    if (!same_shape(&vx, &vo))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: out shape differs from %s shape", api, xname);
    if (bwd && !same_shape(&vx, &vg))
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: gradOutput shape differs from output shape", api);
    const int64_t rank = vx.ndim == 0 ? 1 : vx.ndim;
    if (dim < -rank || dim >= rank)
        return cannonReportError(ACLNN_ERR_PARAM_INVALID, "%s: dim %lld out of range [%lld, %lld)", api,
                                 (long long)dim, (long long)-rank, (long long)rank);
    if (dim < 0)
        dim += rank;

    int64_t outer = 1, R = 1, inner = 1;
    for (int64_t i = 0; i < vx.ndim; i++) {
        if (i < dim)
            outer *= vx.shape[i];
        else if (i == dim)
            R = vx.shape[i];
        else
            inner *= vx.shape[i];
    }
    const int64_t numel = outer * R * inner;

    aclOpExecutor *e = cannonExecutorCreate(api);
    if (!e)
        return cannonReportError(ACLNN_ERR_INNER_CREATE_EXECUTOR, "%s: out of memory", api);
    aclnnStatus st = ACLNN_SUCCESS;
    int slot_x, slot_g = -1, slot_o;
    if (bwd) {
        /* CANN's input order: gradOutput, then output. */
        slot_g = cannonExecutorAddInput(e, g);
        slot_x = cannonExecutorAddInput(e, x);
    } else {
        slot_x = cannonExecutorAddInput(e, x);
    }
    slot_o = cannonExecutorAddOutput(e, out);
    if (slot_x < 0 || slot_o < 0 || (bwd && slot_g < 0)) {
        st = cannonReportError(ACLNN_ERR_INNER_CREATE_EXECUTOR, "%s: out of memory", api);
        goto fail;
    }
    if (numel == 0)
        goto done; /* nothing to compute; phase 2 runs an empty plan */

    {
        const uint64_t bytes = (uint64_t)numel * esize;
        sm_args a;
        memset(&a, 0, sizeof a);
        cannon_arg_ref refs[3];
        size_t nrefs = 0;
        uint64_t scatter_off = UINT64_MAX, unused = 0;

        refs[nrefs].args_offset = (uint32_t)offsetof(sm_args, x);
        if ((st = bind(e, x, &vx, slot_x, bytes, 0, &refs[nrefs], &unused)) != ACLNN_SUCCESS)
            goto fail;
        nrefs++;
        if (bwd) {
            refs[nrefs].args_offset = (uint32_t)offsetof(sm_args, g);
            if ((st = bind(e, g, &vg, slot_g, bytes, 0, &refs[nrefs], &unused)) != ACLNN_SUCCESS)
                goto fail;
            nrefs++;
        }
        refs[nrefs].args_offset = (uint32_t)offsetof(sm_args, out);
        if ((st = bind(e, out, &vo, slot_o, bytes, 1, &refs[nrefs], &scatter_off)) != ACLNN_SUCCESS)
            goto fail;
        nrefs++;

        a.outer = outer;
        a.R = R;
        a.inner = inner;
        a.op = op;
        a.dtype = dt;
        a.isa = (int32_t)cannon_isa_select();
        const int64_t cols = inner == 1 ? 1 : (inner < SM_TILE_COLS ? inner : SM_TILE_COLS);
        a.units = inner == 1 ? outer : outer * ((inner + SM_TILE_COLS - 1) / SM_TILE_COLS);
        const int64_t unit_bytes = R * cols * (int64_t)esize * (bwd ? 2 : 1);
        const int64_t upb0 = unit_bytes >= SM_BLOCK_BYTES ? 1 : SM_BLOCK_BYTES / unit_bytes;
        int64_t upb = upb0;
        if (inner == 1 && !bwd && unit_bytes >= SM_PREFETCH_MIN_BYTES) {
            upb = unit_bytes >= SM_PREFETCH_BLOCK_BYTES ? 1 : SM_PREFETCH_BLOCK_BYTES / unit_bytes;
            /* Smaller tensors keep SM_MIN_BLOCKS blocks to share among the workers, though not
             * smaller than the ordinary ones (a row at the end of a block goes without the
             * read-ahead; nothing else changes). */
            if (a.units / upb < SM_MIN_BLOCKS)
                upb = a.units / SM_MIN_BLOCKS > upb0 ? a.units / SM_MIN_BLOCKS : upb0;
        }
        while ((a.units + upb - 1) / upb > ((int64_t)1 << 24))
            upb *= 2;
        a.units_per_block = upb;
        const uint32_t block_dim = (uint32_t)((a.units + upb - 1) / upb);
        /* Streaming stores need contiguous rows written in place (no scatter of a strided output). */
        a.nt = inner == 1 && scatter_off == UINT64_MAX && streaming(bwd, dt, R * (int64_t)esize, bytes);

        st = cannonExecutorAddKernel(e, api, sm_kernel, block_dim, &a, sizeof a, refs, nrefs);
        if (st != ACLNN_SUCCESS)
            goto fail;
        if (scatter_off != UINT64_MAX && (st = cannonExecutorAddScatter(e, slot_o, scatter_off)) != ACLNN_SUCCESS)
            goto fail;
    }
done:
    *workspaceSize = cannonExecutorWorkspaceSize(e);
    *executor = e;
    return ACLNN_SUCCESS;
fail:
    cannonExecutorDiscard(e);
    return st;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnSoftmaxGetWorkspaceSize(const aclTensor *self, int64_t dim, aclTensor *out,
                                                             uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return plan(SM_SOFTMAX, self, NULL, dim, out, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnSoftmax(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream)
{
    return cannonExecutorRun(workspace, workspaceSize, executor, stream, "aclnnSoftmax");
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnLogSoftmaxGetWorkspaceSize(const aclTensor *self, int64_t dim, aclTensor *out,
                                                                uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return plan(SM_LOG_SOFTMAX, self, NULL, dim, out, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnLogSoftmax(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                aclrtStream stream)
{
    return cannonExecutorRun(workspace, workspaceSize, executor, stream, "aclnnLogSoftmax");
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnSoftmaxBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                                     const aclTensor *output, int64_t dim,
                                                                     aclTensor *out, uint64_t *workspaceSize,
                                                                     aclOpExecutor **executor)
{
    return plan(SM_SOFTMAX_BWD, output, gradOutput, dim, out, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnSoftmaxBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                     aclrtStream stream)
{
    return cannonExecutorRun(workspace, workspaceSize, executor, stream, "aclnnSoftmaxBackward");
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnLogSoftmaxBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                                        const aclTensor *output, int64_t dim,
                                                                        aclTensor *out, uint64_t *workspaceSize,
                                                                        aclOpExecutor **executor)
{
    return plan(SM_LOG_SOFTMAX_BWD, output, gradOutput, dim, out, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnLogSoftmaxBackward(void *workspace, uint64_t workspaceSize,
                                                        aclOpExecutor *executor, aclrtStream stream)
{
    return cannonExecutorRun(workspace, workspaceSize, executor, stream, "aclnnLogSoftmaxBackward");
}
