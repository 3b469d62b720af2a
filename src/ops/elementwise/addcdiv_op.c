/*
 * aclnnAddcdiv / aclnnInplaceAddcdiv: out = self + value * (tensor1 / tensor2), elementwise over
 * the broadcast of the three tensors.
 *
 * The compute type is torch's promotion of the three tensors (cannonDtypePromote), which must be
 * one of the operator's dtypes and castable to out (selfRef for the in-place form). The FLOAT,
 * FLOAT16 and BFLOAT16 compute types work in fp32: the inputs are widened (an input of another
 * dtype first rounded to a 16-bit compute type, as a cast would), the quotient and the sum
 * computed in fp32 and the result rounded once to the compute type. DOUBLE works in fp64. INT64
 * works in int64 with a truncating quotient (a zero divisor gives a zero quotient, never a trap)
 * and wrapping products and sums. value is converted to the compute type first (a floating value
 * with an INT64 compute type is 161002).
 */
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_addcdiv.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "../kernels/isa.h"
#include "ew_walk.h"

#define ACD_CHUNK 32768

enum { ACD_F32 = 0, ACD_F64 = 1, ACD_I64 = 2 };

typedef struct acd_args {
    void *p[4]; /* out, self, tensor1, tensor2 */
    ewk_layout l;
    int64_t numel, chunk;
    int32_t dt[4];
    int32_t mode, ct, isa;
    float vf;
    double vd;
    int64_t vi;
} acd_args;

typedef struct acd_ctx {
    const acd_args *a;
    const cannon_kernel_table *kt;
} acd_ctx;

static void acd_run(void *vctx, char *const *p, const int64_t *s, int64_t n, int64_t pos)
{
    (void)pos;
    const acd_ctx *c = (const acd_ctx *)vctx;
    const acd_args *a = c->a;
    const aclDataType to = (aclDataType)a->dt[0], ct = (aclDataType)a->ct;
    for (int64_t i0 = 0; i0 < n; i0 += EWK_BUF) {
        const int64_t m = n - i0 < EWK_BUF ? n - i0 : EWK_BUF;
        char *q[4];
        for (int k = 0; k < 4; k++)
            q[k] = p[k] + i0 * s[k];
        if (a->mode == ACD_F32) {
            float bs[EWK_BUF], b1[EWK_BUF], b2[EWK_BUF];
            const aclDataType r16 = ct == ACL_FLOAT ? ACL_DT_UNDEFINED : ct;
            ewk_load_f32((aclDataType)a->dt[1], q[1], s[1], m, bs, c->kt, r16);
            ewk_load_f32((aclDataType)a->dt[2], q[2], s[2], m, b1, c->kt, r16);
            ewk_load_f32((aclDataType)a->dt[3], q[3], s[3], m, b2, c->kt, r16);
            const float v = a->vf;
            for (int64_t i = 0; i < m; i++)
                bs[i] = bs[i] + v * (b1[i] / b2[i]);
            if (r16 != ACL_DT_UNDEFINED && to != ct) /* computed in the 16-bit type, then cast */
                ew_round16(c->kt, r16, bs, m);
            ew_store_f32(to, q[0], s[0], m, bs, c->kt);
        } else if (a->mode == ACD_F64) {
            for (int64_t i = 0; i < m; i++) {
                const double x = ew_get_d((aclDataType)a->dt[1], q[1] + i * s[1]);
                const double y = ew_get_d((aclDataType)a->dt[2], q[2] + i * s[2]);
                const double z = ew_get_d((aclDataType)a->dt[3], q[3] + i * s[3]);
                ew_put_d(to, q[0] + i * s[0], x + a->vd * (y / z));
            }
        } else {
            for (int64_t i = 0; i < m; i++) {
                const int64_t x = ew_get_int((aclDataType)a->dt[1], q[1] + i * s[1]);
                const int64_t y = ew_get_int((aclDataType)a->dt[2], q[2] + i * s[2]);
                const int64_t z = ew_get_int((aclDataType)a->dt[3], q[3] + i * s[3]);
                /* truncating quotient; y / -1 and the products wrap instead of trapping */
                const int64_t quo = z == 0 ? 0 : z == -1 ? (int64_t)(0 - (uint64_t)y) : y / z;
                const int64_t r = (int64_t)((uint64_t)x + (uint64_t)a->vi * (uint64_t)quo);
                ew_put_i(to, q[0] + i * s[0], r);
            }
        }
    }
}

static int acd_kernel(const cannon_kernel_ctx *kctx, void *args)
{
    const acd_args *a = (const acd_args *)args;
    const int64_t start = (int64_t)kctx->block_idx * a->chunk;
    if (start >= a->numel)
        return 0;
    const int64_t end = a->numel - start < a->chunk ? a->numel : start + a->chunk;
    acd_ctx c = {a, cannon_kernels_for((cannon_isa)a->isa)};
    char *base[4] = {(char *)a->p[0], (char *)a->p[1], (char *)a->p[2], (char *)a->p[3]};
    ewk_walk(&a->l, base, start, end, acd_run, &c);
    return 0;
}

static aclnnStatus addcdiv_plan(const char *api, const aclTensor *self, const aclTensor *t1, const aclTensor *t2,
                                const aclScalar *value, const aclTensor *out, int inplace, uint64_t *workspaceSize,
                                aclOpExecutor **executor)
{
    const char *sn = inplace ? "selfRef" : "self", *on = inplace ? "selfRef" : "out";
    const cannon_dtype_set dts = cn_dts_Addcdiv();
    cannon_op op;
    cannon_tensor_view vs, v1, v2, vo;
    cannonOpBegin(&op, api, workspaceSize, executor);
    if (inplace)
        cannonOpNotNulls(&op, sn, self, "tensor1", t1, "tensor2", t2, "value", value, NULL);
    else
        cannonOpNotNulls(&op, sn, self, "tensor1", t1, "tensor2", t2, "value", value, on, out, NULL);
    cannonOpTensor(&op, sn, self, dts, &vs);
    cannonOpTensor(&op, "tensor1", t1, dts, &v1);
    cannonOpTensor(&op, "tensor2", t2, dts, &v2);
    if (!inplace)
        cannonOpTensor(&op, on, out, dts, &vo);
    else
        vo = vs;
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const aclDataType ct = cannonDtypePromote(cannonDtypePromote(vs.dtype, v1.dtype), v2.dtype);
    if (!cannonDtypeIn(ct, dts))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID,
                     "promoted dtype %s of %s %s, tensor1 %s and tensor2 %s is not supported", cannonDtypeName(ct), sn,
                     cannonDtypeName(vs.dtype), cannonDtypeName(v1.dtype), cannonDtypeName(v2.dtype));
    else if (!cannonDtypeCanCast(ct, vo.dtype))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "result dtype %s cannot be cast to %s dtype %s", cannonDtypeName(ct),
                     on, cannonDtypeName(vo.dtype));
    aclDataType vt = ACL_DT_UNDEFINED;
    if (cannonOpOk(&op)) {
        if (!cannonScalarGet(value, &vt, NULL))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "value is not a live aclScalar");
        else if (!cannonDtypeIn(vt, CANNON_DTS_REAL) || !cannonDtypeCanCast(vt, ct))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "value of dtype %s cannot be cast to the result dtype %s",
                         cannonDtypeName(vt), cannonDtypeName(ct));
    }
    const cannon_tensor_view *vin[3] = {&vs, &v1, &v2};
    int64_t rank = 0, shape[CANNON_OP_MAX_RANK];
    if (cannonOpOk(&op) && !ewk_broadcast_shape(vin, 3, &rank, shape)) {
        char a[160], b[160], c[160];
        cannonShapeFormat(&vs, a, sizeof a);
        cannonShapeFormat(&v1, b, sizeof b);
        cannonShapeFormat(&v2, c, sizeof c);
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "shapes of %s %s, tensor1 %s and tensor2 %s cannot broadcast", sn, a,
                     b, c);
    }
    if (cannonOpOk(&op)) {
        int same = rank == vo.ndim;
        for (int64_t i = 0; same && i < rank; i++)
            same = shape[i] == vo.shape[i];
        if (!same) {
            char so[160];
            cannonShapeFormat(&vo, so, sizeof so);
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%s shape %s is not the broadcast shape of the inputs", on, so);
        }
    }
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);

    acd_args a;
    memset(&a, 0, sizeof a);
    a.ct = ct;
    a.mode = ct == ACL_DOUBLE ? ACD_F64 : ct == ACL_INT64 ? ACD_I64 : ACD_F32;
    a.vd = cannonScalarToDouble(value);
    a.vf = (float)a.vd;
    a.vi = cannonScalarToInt64(value);
    a.dt[0] = vo.dtype;
    a.dt[1] = vs.dtype;
    a.dt[2] = v1.dtype;
    a.dt[3] = v2.dtype;
    const int s_self = cannonOpInput(&op, self);
    const int s_t1 = cannonOpInput(&op, t1);
    const int s_t2 = cannonOpInput(&op, t2);
    const int s_out = cannonOpOutput(&op, out);
    int64_t numel = 1;
    for (int64_t i = 0; i < rank; i++)
        numel *= shape[i];
    if (numel == 0)
        return cannonOpFinish(&op);
    int64_t st[4][CANNON_OP_MAX_RANK];
    ewk_bcast_strides(&vo, rank, st[0]);
    ewk_bcast_strides(&vs, rank, st[1]);
    ewk_bcast_strides(&v1, rank, st[2]);
    ewk_bcast_strides(&v2, rank, st[3]);
    for (int64_t i = 0; i < rank; i++) /* out's own strides, size-1 dims included */
        st[0][i] = vo.strides[i] * (int64_t)cannonDtypeSize(vo.dtype);
    ewk_layout_init(&a.l, 4, rank, shape, (const int64_t(*)[CANNON_OP_MAX_RANK])st);
    a.numel = numel;
    a.chunk = ACD_CHUNK;
    a.isa = (int32_t)cannon_isa_select();
    cannon_arg_ref refs[4];
    cannonOpBindView(&op, s_out, (uint32_t)offsetof(acd_args, p[0]), &refs[0]);
    cannonOpBindView(&op, s_self, (uint32_t)offsetof(acd_args, p[1]), &refs[1]);
    cannonOpBindView(&op, s_t1, (uint32_t)offsetof(acd_args, p[2]), &refs[2]);
    cannonOpBindView(&op, s_t2, (uint32_t)offsetof(acd_args, p[3]), &refs[3]);
    cannonOpKernel(&op, api, acd_kernel, (uint32_t)((numel + a.chunk - 1) / a.chunk), &a, sizeof a, refs, 4);
    return cannonOpFinish(&op);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnAddcdivGetWorkspaceSize(const aclTensor *self, const aclTensor *tensor1,
                                                             const aclTensor *tensor2, const aclScalar *value,
                                                             const aclTensor *out, uint64_t *workspaceSize,
                                                             aclOpExecutor **executor)
{
    return addcdiv_plan("aclnnAddcdiv", self, tensor1, tensor2, value, out, 0, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceAddcdivGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *tensor1,
                                                                    const aclTensor *tensor2, const aclScalar *value,
                                                                    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return addcdiv_plan("aclnnInplaceAddcdiv", selfRef, tensor1, tensor2, value, selfRef, 1, workspaceSize, executor);
}
