/*
 * aclnnGer: out[i][j] = self[i] * vec2[j], the outer product of two vectors.
 *
 * The output is walked as an elementwise product of self broadcast along columns (stride 0 along
 * dim 1) and vec2 broadcast along rows (ew_walk.h), a fixed element range per block. The product
 * is computed in the promoted type of self and vec2 (cannonDtypePromote): FLOAT, FLOAT16 and
 * BFLOAT16 in fp32 (an input of another dtype first rounded to a 16-bit promoted type, the
 * product rounded once to it), DOUBLE in fp64, the integral types in int64 wrapped to the
 * promoted width, BOOL as logical and; the result is then converted to out's dtype.
 */
#include <string.h>

#include "aclnnop/aclnn_ger.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "../kernels/isa.h"
#include "ew_walk.h"

#define GER_CHUNK 32768

enum { GER_F32 = 0, GER_F64 = 1, GER_INT = 2 };

typedef struct ger_args {
    void *p[3]; /* out, self, vec2 */
    ewk_layout l;
    int64_t numel, chunk;
    int32_t dt[3];
    int32_t mode, ct, isa;
} ger_args;

typedef struct ger_ctx {
    const ger_args *a;
    const cannon_kernel_table *kt;
} ger_ctx;

static void ger_run(void *vctx, char *const *p, const int64_t *s, int64_t n, int64_t pos)
{
    (void)pos;
    const ger_ctx *c = (const ger_ctx *)vctx;
    const ger_args *a = c->a;
    const aclDataType to = (aclDataType)a->dt[0], ct = (aclDataType)a->ct;
    for (int64_t i0 = 0; i0 < n; i0 += EWK_BUF) {
        const int64_t m = n - i0 < EWK_BUF ? n - i0 : EWK_BUF;
        char *q[3] = {p[0] + i0 * s[0], p[1] + i0 * s[1], p[2] + i0 * s[2]};
        if (a->mode == GER_F32) {
            float x[EWK_BUF], y[EWK_BUF];
            const aclDataType r16 = ct == ACL_FLOAT ? ACL_DT_UNDEFINED : ct;
            ewk_load_f32((aclDataType)a->dt[1], q[1], s[1], m, x, c->kt, r16);
            ewk_load_f32((aclDataType)a->dt[2], q[2], s[2], m, y, c->kt, r16);
            for (int64_t i = 0; i < m; i++)
                x[i] *= y[i];
            if (r16 != ACL_DT_UNDEFINED && to != ct)
                ew_round16(c->kt, r16, x, m);
            ew_store_f32(to, q[0], s[0], m, x, c->kt);
        } else if (a->mode == GER_F64) {
            for (int64_t i = 0; i < m; i++)
                ew_put_d(to, q[0] + i * s[0],
                          ew_get_d((aclDataType)a->dt[1], q[1] + i * s[1]) *
                              ew_get_d((aclDataType)a->dt[2], q[2] + i * s[2]));
        } else {
            for (int64_t i = 0; i < m; i++) {
                const int64_t x = ew_get_int((aclDataType)a->dt[1], q[1] + i * s[1]);
                const int64_t y = ew_get_int((aclDataType)a->dt[2], q[2] + i * s[2]);
                char w[8] = {0};
                ew_put_i(ct, w, (int64_t)((uint64_t)x * (uint64_t)y)); /* wrapped to the promoted width */
                ew_put_i(to, q[0] + i * s[0], ew_get_int(ct, w));
            }
        }
    }
}

static int ger_kernel(const cannon_kernel_ctx *kctx, void *args)
{
    const ger_args *a = (const ger_args *)args;
    const int64_t start = (int64_t)kctx->block_idx * a->chunk;
    if (start >= a->numel)
        return 0;
    const int64_t end = a->numel - start < a->chunk ? a->numel : start + a->chunk;
    ger_ctx c = {a, cannon_kernels_for((cannon_isa)a->isa)};
    char *base[3] = {(char *)a->p[0], (char *)a->p[1], (char *)a->p[2]};
    ewk_walk(&a->l, base, start, end, ger_run, &c);
    return 0;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnGerGetWorkspaceSize(const aclTensor *self, const aclTensor *vec2, aclTensor *out,
                                                         uint64_t *workspaceSize, aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vs, vv, vo;
    cannonOpBegin(&op, "aclnnGer", workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, "vec2", vec2, "out", out, NULL);
    cannonOpTensor(&op, "self", self, cn_dts_Ger(), &vs);
    cannonOpTensor(&op, "vec2", vec2, cn_dts_Ger(), &vv);
    cannonOpTensor(&op, "out", out, cn_dts_Ger(), &vo);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const aclDataType ct = cannonDtypePromote(vs.dtype, vv.dtype);
    if (!cannonDtypeCanCast(ct, vo.dtype))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID,
                     "result dtype %s of self %s and vec2 %s cannot be cast to out dtype %s", cannonDtypeName(ct),
                     cannonDtypeName(vs.dtype), cannonDtypeName(vv.dtype), cannonDtypeName(vo.dtype));
    else if (vs.ndim != 1 || vv.ndim != 1)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "self and vec2 must be 1-D, got %lld and %lld dims",
                     (long long)vs.ndim, (long long)vv.ndim);
    else if (vo.ndim != 2)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "out must be 2-D, got %lld dims", (long long)vo.ndim);
    else if (vo.shape[0] != vs.shape[0] || vo.shape[1] != vv.shape[0]) {
        char so[160];
        cannonShapeFormat(&vo, so, sizeof so);
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "out shape %s differs from [%lld,%lld]", so, (long long)vs.shape[0],
                     (long long)vv.shape[0]);
    }
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    ger_args a;
    memset(&a, 0, sizeof a);
    a.ct = ct;
    a.mode = ct == ACL_DOUBLE ? GER_F64 : cannonDtypeIn(ct, CANNON_DTS_F32_16) ? GER_F32 : GER_INT;
    a.dt[0] = vo.dtype;
    a.dt[1] = vs.dtype;
    a.dt[2] = vv.dtype;
    const int s_self = cannonOpInput(&op, self);
    const int s_vec = cannonOpInput(&op, vec2);
    const int s_out = cannonOpOutput(&op, out);
    const int64_t numel = vo.shape[0] * vo.shape[1];
    if (numel == 0)
        return cannonOpFinish(&op);
    int64_t st[3][CANNON_OP_MAX_RANK];
    st[0][0] = vo.strides[0] * (int64_t)cannonDtypeSize(vo.dtype);
    st[0][1] = vo.strides[1] * (int64_t)cannonDtypeSize(vo.dtype);
    st[1][0] = vs.strides[0] * (int64_t)cannonDtypeSize(vs.dtype);
    st[1][1] = 0;
    st[2][0] = 0;
    st[2][1] = vv.strides[0] * (int64_t)cannonDtypeSize(vv.dtype);
    ewk_layout_init(&a.l, 3, 2, vo.shape, (const int64_t(*)[CANNON_OP_MAX_RANK])st);
    a.numel = numel;
    a.chunk = GER_CHUNK;
    a.isa = (int32_t)cannon_isa_select();
    cannon_arg_ref refs[3];
    cannonOpBindView(&op, s_out, (uint32_t)offsetof(ger_args, p[0]), &refs[0]);
    cannonOpBindView(&op, s_self, (uint32_t)offsetof(ger_args, p[1]), &refs[1]);
    cannonOpBindView(&op, s_vec, (uint32_t)offsetof(ger_args, p[2]), &refs[2]);
    cannonOpKernel(&op, "aclnnGer", ger_kernel, (uint32_t)((numel + a.chunk - 1) / a.chunk), &a, sizeof a, refs, 3);
    return cannonOpFinish(&op);
}
