/*
 * aclnnRotaryPositionEmbedding: out = x * cos + rotate(x) * sin along the last dim D, cos and sin
 * broadcast over the other dims (each of their dims is x's size or 1).
 *
 * One unit per row (all dims but the last). A row of x, cos and sin is converted to fp32 into the
 * block's workspace buffers (read directly when it is contiguous fp32), the rotation is computed
 * in fp32 and each output rounded once to out's dtype. Every output of a row is computed from
 * buffered or not yet written inputs, so out may be x itself (in place). Blocks hold whole rows,
 * their count depends only on the shape: the result is the same for any thread count.
 *
 * Modes (h = D/2, q = D/4):
 *   0 half:            y[i] = x[i]c[i] - x[i+h]s[i],        y[i+h] = x[i+h]c[i+h] + x[i]s[i+h]
 *   1 interleave:      y[2i] = x[2i]c[2i] - x[2i+1]s[2i],   y[2i+1] = x[2i+1]c[2i+1] + x[2i]s[2i+1]
 *   2 quarter:         half mode within each half of the row: pairs (i, i+q) and (2q+i, 3q+i)
 *   3 interleave-half: y[i] = x[2i]c[i] - x[2i+1]s[i],      y[h+i] = x[2i+1]c[h+i] + x[2i]s[h+i]
 */
#include <stddef.h>
#include <string.h>

#include "aclnnop/aclnn_rotary_position_embedding.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "vision_common.h"
#include "../kernels/isa.h"
#include "../kernels/kernels.h"

#define RPE_BLOCK_ELEMS (32 * 1024)
#define RPE_MAX_BLOCKS 256
/* Rows ahead whose x row is prefetched. */
#define RPE_PF_ROWS 4

typedef struct rpe_args {
    const char *x, *cos, *sin; /* bound */
    char *out;                 /* bound */
    char *ws;                  /* bound: 4 * D floats per block */
    int32_t dt, mode;
    int64_t es, d, rows, per_block;
    int32_t nd, isa;
    int64_t shape[CANNON_OP_MAX_RANK]; /* the row dims (all but the last) */
    int64_t sx[CANNON_OP_MAX_RANK], sc[CANNON_OP_MAX_RANK], ss[CANNON_OP_MAX_RANK], so[CANNON_OP_MAX_RANK];
    int64_t lx, lc, ls, lo; /* last-dim strides */
} rpe_args;

/* The row's elements as fp32: the data itself when contiguous fp32, else converted into @p buf
 * (contiguous 16-bit rows by the tier's exact bulk converters). */
static const float *rpe_row(const rpe_args *a, const cannon_kernel_table *kt, const char *p, int64_t step,
                            float *buf)
{
    if (a->dt == ACL_FLOAT && step == 1)
        return (const float *)(const void *)p;
    const aclDataType dt = (aclDataType)a->dt;
    if (step == 1 && dt == ACL_FLOAT16) {
        kt->f16_to_f32(buf, (const uint16_t *)(const void *)p, (size_t)a->d);
        return buf;
    }
    if (step == 1 && dt == ACL_BF16) {
        kt->bf16_to_f32(buf, (const uint16_t *)(const void *)p, (size_t)a->d);
        return buf;
    }
    for (int64_t i = 0; i < a->d; i++)
        buf[i] = vis_load_f32(p + i * step * a->es, dt);
    return buf;
}

static void rpe_compute(int mode, int64_t d, const float *x, const float *c, const float *s, float *y)
{
    const int64_t h = d / 2, q = d / 4;
    switch (mode) {
    case 0:
        for (int64_t i = 0; i < h; i++) {
            const float a = x[i], b = x[i + h];
            y[i] = a * c[i] - b * s[i];
            y[i + h] = b * c[i + h] + a * s[i + h];
        }
        break;
    case 1:
        for (int64_t i = 0; i < d; i += 2) {
            const float a = x[i], b = x[i + 1];
            y[i] = a * c[i] - b * s[i];
            y[i + 1] = b * c[i + 1] + a * s[i + 1];
        }
        break;
    case 2:
        for (int64_t k = 0; k < d; k += 2 * q)
            for (int64_t i = k; i < k + q; i++) {
                const float a = x[i], b = x[i + q];
                y[i] = a * c[i] - b * s[i];
                y[i + q] = b * c[i + q] + a * s[i + q];
            }
        break;
    default:
        for (int64_t i = 0; i < h; i++) {
            const float a = x[2 * i], b = x[2 * i + 1];
            y[i] = a * c[i] - b * s[i];
            y[i + h] = b * c[i + h] + a * s[i + h];
        }
        break;
    }
}

static int rpe_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const rpe_args *a = (const rpe_args *)args;
    const cannon_kernel_table *kt = cannon_kernels_for((cannon_isa)a->isa);
    const int64_t d = a->d, es = a->es;
    float *buf = (float *)(void *)(a->ws + (int64_t)ctx->block_idx * 4 * d * (int64_t)sizeof(float));
    float *bx = buf, *bc = buf + d, *bs = buf + 2 * d, *by = buf + 3 * d;
    const int64_t r0 = (int64_t)ctx->block_idx * a->per_block;
    const int64_t r1 = a->rows - r0 < a->per_block ? a->rows : r0 + a->per_block;
    /* rows of a permuted view lie far apart, out of the hardware prefetchers' reach */
    const int scattered = a->nd > 0 && a->sx[a->nd - 1] != d * a->lx;
    const float *c = NULL, *s = NULL;
    int64_t have_c = -1, have_s = -1; /* element offsets of the cos / sin rows converted */
    for (int64_t r = r0; r < r1; r++) {
        if (scattered && r + RPE_PF_ROWS < r1) {
            /* fetch the x row RPE_PF_ROWS ahead */
            int64_t px = 0, kk = r + RPE_PF_ROWS;
            for (int32_t dd = a->nd - 1; dd >= 0; dd--) {
                px += (kk % a->shape[dd]) * a->sx[dd];
                kk /= a->shape[dd];
            }
            const char *pp = a->x + px * es;
            for (int64_t o = 0; o < d * a->lx * es; o += 64)
                __builtin_prefetch(pp + o, 0, 3);
        }
        int64_t ox = 0, oc = 0, os = 0, oo = 0, k = r;
        for (int32_t dd = a->nd - 1; dd >= 0; dd--) {
            const int64_t i = k % a->shape[dd];
            k /= a->shape[dd];
            ox += i * a->sx[dd];
            oc += i * a->sc[dd];
            os += i * a->ss[dd];
            oo += i * a->so[dd];
        }
        /* x is always buffered in mode 3 (its outputs read other positions of the row). */
        const float *x = a->mode == 3 && a->dt == ACL_FLOAT && a->lx == 1
                             ? (memcpy(bx, a->x + ox * es, (size_t)d * sizeof(float)), bx)
                             : rpe_row(a, kt, a->x + ox * es, a->lx, bx);
        /* consecutive rows usually share their cos / sin row (heads, batch): converted once */
        if (oc != have_c) {
            c = rpe_row(a, kt, a->cos + oc * es, a->lc, bc);
            have_c = oc;
        }
        if (os != have_s) {
            s = rpe_row(a, kt, a->sin + os * es, a->ls, bs);
            have_s = os;
        }
        char *o = a->out + oo * es;
        if (a->dt == ACL_FLOAT && a->lo == 1) {
            rpe_compute(a->mode, d, x, c, s, (float *)(void *)o);
            continue;
        }
        rpe_compute(a->mode, d, x, c, s, by);
        if (a->lo == 1 && a->dt == ACL_FLOAT16)
            kt->f32_to_f16((uint16_t *)(void *)o, by, (size_t)d);
        else if (a->lo == 1 && a->dt == ACL_BF16)
            kt->f32_to_bf16((uint16_t *)(void *)o, by, (size_t)d);
        else
            for (int64_t i = 0; i < d; i++)
                vis_store_f32(o + i * a->lo * es, (aclDataType)a->dt, by[i]);
    }
    return 0;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnRotaryPositionEmbeddingGetWorkspaceSize(const aclTensor *x, const aclTensor *cos,
                                                                             const aclTensor *sin, int64_t mode,
                                                                             aclTensor *out, uint64_t *workspaceSize,
                                                                             aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vx, vc, vs, vo;
    cannonOpBegin(&op, "aclnnRotaryPositionEmbedding", workspaceSize, executor);
    cannonOpNotNulls(&op, "x", x, "cos", cos, "sin", sin, "out", out, NULL);
    cannonOpTensor(&op, "x", x, cn_dts_RotaryPositionEmbedding(), &vx);
    cannonOpTensor(&op, "cos", cos, cn_dts_RotaryPositionEmbedding(), &vc);
    cannonOpTensor(&op, "sin", sin, cn_dts_RotaryPositionEmbedding(), &vs);
    cannonOpTensor(&op, "out", out, cn_dts_RotaryPositionEmbedding(), &vo);
    cannonOpSameDtype(&op, "cos", &vc, "x", &vx);
    cannonOpSameDtype(&op, "sin", &vs, "x", &vx);
    cannonOpSameDtype(&op, "out", &vo, "x", &vx);
    if (cannonOpOk(&op) && vx.ndim != 3 && vx.ndim != 4)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "x must have 3 or 4 dims, got %lld", (long long)vx.ndim);
    if (cannonOpOk(&op) && (vc.ndim != vx.ndim || vs.ndim != vx.ndim || vo.ndim != vx.ndim))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "cos, sin and out must have x's %lld dims",
                     (long long)vx.ndim);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    /* Shape and mode errors are CANN's tiling errors (561002). */
    if (mode < 0 || mode > 3)
        cannonOpFail(&op, ACLNN_ERR_INNER_TILING_ERROR, "mode must be 0 (half), 1 (interleave), 2 (quarter) or 3 "
                     "(interleave-half), got %lld", (long long)mode);
    const int64_t nd = vx.ndim, d = vx.shape[nd - 1];
    for (int64_t k = 0; cannonOpOk(&op) && k < nd; k++) {
        if (vo.shape[k] != vx.shape[k])
            cannonOpFail(&op, ACLNN_ERR_INNER_TILING_ERROR, "out's shape must equal x's (dim %lld: %lld vs %lld)",
                         (long long)k, (long long)vo.shape[k], (long long)vx.shape[k]);
        else if (vs.shape[k] != vc.shape[k])
            cannonOpFail(&op, ACLNN_ERR_INNER_TILING_ERROR, "sin's shape must equal cos's (dim %lld: %lld vs %lld)",
                         (long long)k, (long long)vs.shape[k], (long long)vc.shape[k]);
        else if (k == nd - 1 ? vc.shape[k] != d : vc.shape[k] != vx.shape[k] && vc.shape[k] != 1)
            cannonOpFail(&op, ACLNN_ERR_INNER_TILING_ERROR, "cos dim %lld has size %lld: must be x's %lld%s",
                         (long long)k, (long long)vc.shape[k], (long long)vx.shape[k], k == nd - 1 ? "" : " or 1");
    }
    if (cannonOpOk(&op) && d % (mode == 2 ? 4 : 2) != 0)
        cannonOpFail(&op, ACLNN_ERR_INNER_TILING_ERROR, "the last dim D = %lld must be a multiple of %d in mode %lld",
                     (long long)d, mode == 2 ? 4 : 2, (long long)mode);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const int sx = cannonOpInput(&op, x);
    const int sc = cannonOpInput(&op, cos);
    const int ss = cannonOpInput(&op, sin);
    const int so = cannonOpOutput(&op, out);
    rpe_args a;
    memset(&a, 0, sizeof a);
    a.dt = (int32_t)vx.dtype;
    a.mode = (int32_t)mode;
    a.es = (int64_t)cannonDtypeSize(vx.dtype);
    a.d = d;
    a.nd = (int32_t)(nd - 1);
    a.rows = 1;
    for (int64_t k = 0; k < nd - 1; k++) {
        a.shape[k] = vx.shape[k];
        a.sx[k] = vx.strides[k];
        a.sc[k] = vc.shape[k] == 1 ? 0 : vc.strides[k];
        a.ss[k] = vs.shape[k] == 1 ? 0 : vs.strides[k];
        a.so[k] = vo.strides[k];
        a.rows *= vx.shape[k];
    }
    a.lx = vx.strides[nd - 1];
    a.lc = vc.strides[nd - 1];
    a.ls = vs.strides[nd - 1];
    a.lo = vo.strides[nd - 1];
    if (a.rows == 0 || d == 0)
        return cannonOpFinish(&op);
    a.isa = (int32_t)cannon_isa_select();
    a.per_block = vis_units_per_block(a.rows, d, RPE_BLOCK_ELEMS);
    if ((a.rows + a.per_block - 1) / a.per_block > RPE_MAX_BLOCKS) /* bounds the workspace */
        a.per_block = (a.rows + RPE_MAX_BLOCKS - 1) / RPE_MAX_BLOCKS;
    const int64_t blocks = (a.rows + a.per_block - 1) / a.per_block;
    uint64_t wso = 0;
    cannonOpWorkspace(&op, (uint64_t)(blocks * 4 * d * (int64_t)sizeof(float)), &wso);
    const cannon_arg_ref refs[5] = {
        {(uint32_t)offsetof(rpe_args, x), sx, vx.offset * a.es},
        {(uint32_t)offsetof(rpe_args, cos), sc, vc.offset * a.es},
        {(uint32_t)offsetof(rpe_args, sin), ss, vs.offset * a.es},
        {(uint32_t)offsetof(rpe_args, out), so, vo.offset * a.es},
        {(uint32_t)offsetof(rpe_args, ws), CANNON_SLOT_WORKSPACE, (int64_t)wso},
    };
    cannonOpKernel(&op, "RotaryPositionEmbedding", rpe_kernel, (uint32_t)blocks, &a, sizeof a, refs, 5);
    return cannonOpFinish(&op);
}
