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

#include "aclnnop/aclnn_logsoftmax.h"
#include "aclnnop/aclnn_logsoftmax_backward.h"
#include "aclnnop/aclnn_softmax.h"
#include "aclnnop/aclnn_softmax_backward.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

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
 * values are the same either way). Forward fp32 outputs of SM_NT_OUT_BYTES or more use them,
 * including softmax rows long enough to compute their exponentials again in the write pass
 * (SM_RECOMPUTE_MIN_BYTES). 16-bit rows gain only when long (rows of SM_NT_ROW16_BYTES or more)
 * and lose on rows of a few KiB and less. fp32 rows of exactly 512 elements (SM_PLAIN_ROW32_BYTES)
 * keep plain stores, which measured faster for that length alone (the cause is not established:
 * with page-aligned tensors, rows of 2 KiB put the pipelined kernel's input row t + 2 at the same
 * offset in a 4 KiB page as its output row t). bench/ops/bench_overlap shows a core hiding less of
 * its arithmetic under streaming stores than under plain ones. The backward ops keep plain stores
 * below SM_NT_BYTES moved. CANNON_SOFTMAX_NT=0/1 forces the choice for experiments. */
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

static int dtype_code(aclDataType t)
{
    switch (t) {
    case ACL_FLOAT:
        return SM_F32;
    case ACL_FLOAT16:
        return SM_F16;
    case ACL_BF16:
        return SM_BF16;
    default:
        return SM_F64;
    }
}

static aclnnStatus plan(int opk, const aclTensor *x, const aclTensor *g, int64_t dim, aclTensor *out,
                        uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const int bwd = opk == SM_SOFTMAX_BWD || opk == SM_LOG_SOFTMAX_BWD;
    const char *xname = bwd ? "output" : "self";
    const cannon_dtype_set dts = cn_dts_Softmax();
    cannon_op op;
    cannon_tensor_view vx, vg, vo;
    cannonOpBegin(&op, op_api[opk], workspaceSize, executor);
    if (bwd)
        cannonOpNotNulls(&op, "gradOutput", g, xname, x, "out", out, NULL);
    else
        cannonOpNotNulls(&op, xname, x, "out", out, NULL);
    if (bwd)
        cannonOpTensor(&op, "gradOutput", g, dts, &vg);
    cannonOpTensor(&op, xname, x, dts, &vx);
    cannonOpTensor(&op, "out", out, dts, &vo);
    cannonOpSameDtype(&op, "out", &vo, xname, &vx);
    cannonOpSameShape(&op, "out", &vo, xname, &vx);
    if (bwd) {
        cannonOpSameDtype(&op, "gradOutput", &vg, xname, &vx);
        cannonOpSameShape(&op, "gradOutput", &vg, xname, &vx);
    }
    cannonOpDim(&op, "dim", &dim, vx.ndim);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);

    const int dt = dtype_code(vx.dtype);
    const size_t esize = cannonDtypeSize(vx.dtype);
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

    /* CANN's input order: gradOutput, then output. */
    const int slot_g = bwd ? cannonOpInput(&op, g) : -1;
    const int slot_x = cannonOpInput(&op, x);
    const int slot_o = cannonOpOutput(&op, out);
    if (numel == 0)
        return cannonOpFinish(&op); /* nothing to compute; phase 2 runs an empty plan */

    const uint64_t bytes = (uint64_t)numel * esize;
    sm_args a;
    memset(&a, 0, sizeof a);
    cannon_arg_ref refs[3];
    size_t nrefs = 0;
    cannonOpBind(&op, slot_x, CANNON_BIND_IN, (uint32_t)offsetof(sm_args, x), &refs[nrefs++]);
    if (bwd)
        cannonOpBind(&op, slot_g, CANNON_BIND_IN, (uint32_t)offsetof(sm_args, g), &refs[nrefs++]);
    cannon_arg_ref *ref_out = &refs[nrefs++];
    cannonOpBind(&op, slot_o, CANNON_BIND_OUT, (uint32_t)offsetof(sm_args, out), ref_out);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);

    a.outer = outer;
    a.R = R;
    a.inner = inner;
    a.op = opk;
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
    a.nt = inner == 1 && ref_out->slot != CANNON_SLOT_WORKSPACE && streaming(bwd, dt, R * (int64_t)esize, bytes);
    cannonOpKernel(&op, op_api[opk], sm_kernel, block_dim, &a, sizeof a, refs, nrefs);
    return cannonOpFinish(&op);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnSoftmaxGetWorkspaceSize(const aclTensor *self, int64_t dim, aclTensor *out,
                                                             uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return plan(SM_SOFTMAX, self, NULL, dim, out, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnLogSoftmaxGetWorkspaceSize(const aclTensor *self, int64_t dim, aclTensor *out,
                                                                uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return plan(SM_LOG_SOFTMAX, self, NULL, dim, out, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnSoftmaxBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                                     const aclTensor *output, int64_t dim,
                                                                     aclTensor *out, uint64_t *workspaceSize,
                                                                     aclOpExecutor **executor)
{
    return plan(SM_SOFTMAX_BWD, output, gradOutput, dim, out, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnLogSoftmaxBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                                        const aclTensor *output, int64_t dim,
                                                                        aclTensor *out, uint64_t *workspaceSize,
                                                                        aclOpExecutor **executor)
{
    return plan(SM_LOG_SOFTMAX_BWD, output, gradOutput, dim, out, workspaceSize, executor);
}

