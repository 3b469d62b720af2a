/*
 * aclnnSum: out = tensors[0] + tensors[1] + ... (CANN's AccumulateNV2), each tensor broadcast to
 * out's shape.
 *
 * The sum accumulates in a workspace buffer laid out as out's elements in row-major order: fp32
 * for FLOAT and FLOAT16 (each FLOAT16 input widened exactly, the total rounded once), int64 for
 * the integral types (wrapping sums; the final store wraps to out's width, which equals wrapping
 * at every step). Each block owns a fixed range of out's elements and adds the tensors into it
 * in list order, so the result does not depend on the block split. Every tensor and out is
 * walked through its own strides (ew_walk.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_sum.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "../kernels/isa.h"
#include "ew_walk.h"

#define SUM_CHUNK 32768

typedef struct sum_input {
    void *p;
    ewk_layout l; /* operands: accumulator, this tensor */
} sum_input;

typedef struct sum_args {
    void *out, *acc;
    ewk_layout lo; /* operands: out, accumulator */
    int64_t numel, chunk, n;
    int32_t dt, isf, isa;
    sum_input in[]; /* n of them */
} sum_args;

typedef struct sum_ctx {
    const sum_args *a;
    const cannon_kernel_table *kt;
    int first;
} sum_ctx;

static void sum_add(void *vctx, char *const *p, const int64_t *s, int64_t n, int64_t pos)
{
    (void)pos;
    const sum_ctx *c = (const sum_ctx *)vctx;
    const aclDataType t = (aclDataType)c->a->dt;
    if (c->a->isf) {
        float *acc = (float *)(void *)p[0];
        if (c->first) {
            ewk_load_f32(t, p[1], s[1], n, acc, c->kt, ACL_DT_UNDEFINED);
            return;
        }
        for (int64_t i0 = 0; i0 < n; i0 += EWK_BUF) {
            const int64_t m = n - i0 < EWK_BUF ? n - i0 : EWK_BUF;
            float b[EWK_BUF];
            ewk_load_f32(t, p[1] + i0 * s[1], s[1], m, b, c->kt, ACL_DT_UNDEFINED);
            for (int64_t i = 0; i < m; i++)
                acc[i0 + i] += b[i];
        }
    } else {
        int64_t *acc = (int64_t *)(void *)p[0];
        for (int64_t i = 0; i < n; i++) {
            const int64_t v = ew_get_int(t, p[1] + i * s[1]);
            acc[i] = c->first ? v : (int64_t)((uint64_t)acc[i] + (uint64_t)v);
        }
    }
}

static void sum_store(void *vctx, char *const *p, const int64_t *s, int64_t n, int64_t pos)
{
    (void)pos;
    const sum_ctx *c = (const sum_ctx *)vctx;
    const aclDataType t = (aclDataType)c->a->dt;
    if (c->a->isf) {
        ew_store_f32(t, p[0], s[0], n, (const float *)(const void *)p[1], c->kt);
    } else {
        const int64_t *acc = (const int64_t *)(const void *)p[1];
        for (int64_t i = 0; i < n; i++)
            ew_put_i(t, p[0] + i * s[0], acc[i]);
    }
}

static int sum_kernel(const cannon_kernel_ctx *kctx, void *args)
{
    const sum_args *a = (const sum_args *)args;
    const int64_t start = (int64_t)kctx->block_idx * a->chunk;
    if (start >= a->numel)
        return 0;
    const int64_t end = a->numel - start < a->chunk ? a->numel : start + a->chunk;
    sum_ctx c = {a, cannon_kernels_for((cannon_isa)a->isa), 1};
    for (int64_t k = 0; k < a->n; k++) {
        char *base[2] = {(char *)a->acc, (char *)a->in[k].p};
        c.first = k == 0;
        ewk_walk(&a->in[k].l, base, start, end, sum_add, &c);
    }
    char *base[2] = {(char *)a->out, (char *)a->acc};
    ewk_walk(&a->lo, base, start, end, sum_store, &c);
    return 0;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnSumGetWorkspaceSize(const aclTensorList *tensors, aclTensor *out,
                                                         uint64_t *workspaceSize, aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vo;
    cannonOpBegin(&op, "aclnnSum", workspaceSize, executor);
    cannonOpNotNulls(&op, "tensors", tensors, "out", out, NULL);
    uint64_t n = 0;
    if (cannonOpOk(&op) && aclGetTensorListSize(tensors, &n) != ACLNN_SUCCESS)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "tensors is not a live aclTensorList");
    for (uint64_t i = 0; cannonOpOk(&op) && i < n; i++)
        if (!cannonTensorListGet(tensors, i))
            cannonOpFail(&op, ACLNN_ERR_PARAM_NULLPTR, "tensors[%llu] is NULL", (unsigned long long)i);
    cannonOpTensor(&op, "out", out, cn_dts_Sum(), &vo);
    if (cannonOpOk(&op) && n == 0)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "tensors is empty");
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    cannon_tensor_view *v = (cannon_tensor_view *)calloc((size_t)n, sizeof *v);
    const size_t asize = sizeof(sum_args) + (size_t)n * sizeof(sum_input);
    sum_args *a = (sum_args *)calloc(1, asize);
    cannon_arg_ref *refs = (cannon_arg_ref *)calloc((size_t)n + 2, sizeof *refs);
    int *slot = (int *)calloc((size_t)n, sizeof *slot);
    if (!v || !a || !refs || !slot)
        cannonOpFail(&op, ACLNN_ERR_INNER_CREATE_EXECUTOR, "out of memory");
    for (uint64_t i = 0; cannonOpOk(&op) && i < n; i++) {
        char name[40];
        snprintf(name, sizeof name, "tensors[%llu]", (unsigned long long)i);
        if (!cannonOpTensor(&op, name, cannonTensorListGet(tensors, i), cn_dts_Sum(), &v[i]))
            break;
        if (v[i].dtype != vo.dtype)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%s dtype %s differs from out dtype %s", name,
                         cannonDtypeName(v[i].dtype), cannonDtypeName(vo.dtype));
        else if (!ewk_broadcasts_to(&v[i], vo.ndim, vo.shape)) {
            char si[160], so[160];
            cannonShapeFormat(&v[i], si, sizeof si);
            cannonShapeFormat(&vo, so, sizeof so);
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%s shape %s does not broadcast to out shape %s", name, si, so);
        }
    }
    if (cannonOpOk(&op)) {
        /* out's shape must be the tensors' broadcast shape, not a larger one */
        for (int64_t d = 0; d < vo.ndim; d++) {
            int64_t b = 1;
            for (uint64_t i = 0; i < n; i++) {
                const int64_t j = d - (vo.ndim - v[i].ndim);
                if (j >= 0 && v[i].shape[j] != 1)
                    b = v[i].shape[j];
            }
            if (b != vo.shape[d] && cannonOpOk(&op)) {
                char so[160];
                cannonShapeFormat(&vo, so, sizeof so);
                cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "out shape %s is not the broadcast shape of tensors", so);
            }
        }
    }
    if (cannonOpOk(&op)) {
        for (uint64_t i = 0; i < n; i++)
            slot[i] = cannonOpInput(&op, cannonTensorListGet(tensors, i));
        const int so = cannonOpOutput(&op, out);
        int64_t numel = 1;
        for (int64_t d = 0; d < vo.ndim; d++)
            numel *= vo.shape[d];
        if (numel > 0) {
            a->n = (int64_t)n;
            a->dt = vo.dtype;
            a->isf = cannonDtypeIn(vo.dtype, CANNON_DT_F32 | CANNON_DT_F16);
            a->isa = (int32_t)cannon_isa_select();
            a->numel = numel;
            a->chunk = SUM_CHUNK;
            const int64_t aes = a->isf ? 4 : 8;
            uint64_t ws = 0;
            cannonOpWorkspace(&op, (uint64_t)(numel * aes), &ws);
            int64_t st[2][CANNON_OP_MAX_RANK];
            int64_t cs = aes; /* the accumulator: contiguous over out's shape */
            for (int64_t d = vo.ndim - 1; d >= 0; d--) {
                st[0][d] = cs;
                cs *= vo.shape[d];
            }
            for (int64_t d = 0; d < vo.ndim; d++)
                st[1][d] = vo.strides[d] * (int64_t)cannonDtypeSize(vo.dtype);
            /* lo: out first, accumulator second */
            int64_t sto[2][CANNON_OP_MAX_RANK];
            memcpy(sto[0], st[1], sizeof sto[0]);
            memcpy(sto[1], st[0], sizeof sto[1]);
            ewk_layout_init(&a->lo, 2, vo.ndim, vo.shape, (const int64_t(*)[CANNON_OP_MAX_RANK])sto);
            size_t nr = 0;
            cannonOpBindView(&op, so, (uint32_t)offsetof(sum_args, out), &refs[nr++]);
            refs[nr].args_offset = (uint32_t)offsetof(sum_args, acc);
            refs[nr].slot = CANNON_SLOT_WORKSPACE;
            refs[nr].byte_offset = (int64_t)ws;
            nr++;
            for (uint64_t i = 0; i < n; i++) {
                ewk_bcast_strides(&v[i], vo.ndim, st[1]);
                ewk_layout_init(&a->in[i].l, 2, vo.ndim, vo.shape, (const int64_t(*)[CANNON_OP_MAX_RANK])st);
                cannonOpBindView(&op, slot[i],
                                 (uint32_t)(offsetof(sum_args, in) + i * sizeof(sum_input) + offsetof(sum_input, p)),
                                 &refs[nr++]);
            }
            cannonOpKernel(&op, "aclnnSum", sum_kernel, (uint32_t)((numel + a->chunk - 1) / a->chunk), a, asize, refs,
                           nr);
        }
    }
    free(v);
    free(a);
    free(refs);
    free(slot);
    return cannonOpFinish(&op);
}
