/*
 * The Foreach operators: one elementwise operation over every tensor of a list (or of two or
 * three lists, entry by entry), as one launch of the list engine (amp_engine.h). Scalars come as
 * a one-element device tensor (read when the kernel runs) or as an aclScalar (read in phase 1).
 * Every operation is computed in fp32 and rounded once to out's dtype.
 */
#include <math.h>
#include <stdlib.h>

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_foreach_add_list.h"
#include "aclnnop/aclnn_foreach_add_list_v2.h"
#include "aclnnop/aclnn_foreach_add_scalar.h"
#include "aclnnop/aclnn_foreach_add_scalar_v2.h"
#include "aclnnop/aclnn_foreach_addcdiv_scalar.h"
#include "aclnnop/aclnn_foreach_addcdiv_scalar_v2.h"
#include "aclnnop/aclnn_foreach_addcmul_scalar.h"
#include "aclnnop/aclnn_foreach_addcmul_scalar_v2.h"
#include "aclnnop/aclnn_foreach_copy.h"
#include "aclnnop/aclnn_foreach_div_scalar.h"
#include "aclnnop/aclnn_foreach_div_scalar_v2.h"
#include "aclnnop/aclnn_foreach_lerp_scalar.h"
#include "aclnnop/aclnn_foreach_mul_list.h"
#include "aclnnop/aclnn_foreach_mul_scalar.h"
#include "aclnnop/aclnn_foreach_mul_scalar_v2.h"
#include "aclnnop/aclnn_foreach_norm.h"
#include "aclnnop/aclnn_foreach_sqrt.h"
#include "aclnnop/aclnn_foreach_zero_inplace.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "amp_engine.h"

/* The dtypes a device scalar of the Foreach operators may have (its value is read as fp32). */
#define FE_SCALAR_DTS CANNON_DTS_F32_16

/* What one Foreach call takes. */
typedef struct fe_call {
    const char *api;
    amp_kind kind;
    cannon_dtype_set dts;
    int nin;                          /* input lists, 1 to 3 */
    const aclTensorList *in[3];
    const char *in_name[3];
    const aclTensor *scalar_t;        /* a device scalar, or */
    const aclScalar *scalar_s;        /* a host scalar, or neither */
    const char *scalar_name;          /* NULL: the operation takes no scalar */
    const aclTensorList *out;         /* NULL: in place on in[0] (ZeroInplace) */
    bool norm;                        /* out holds one element per tensor */
} fe_call;

static aclnnStatus fe_run(const fe_call *c, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    cannon_op op;
    cannonOpBegin(&op, c->api, workspaceSize, executor);
    for (int k = 0; k < c->nin; k++)
        cannonOpNotNull(&op, c->in_name[k], c->in[k]);
    if (c->scalar_name)
        cannonOpNotNull(&op, c->scalar_name, c->scalar_t ? (const void *)c->scalar_t : (const void *)c->scalar_s);
    if (c->kind != AMP_ZERO)
        cannonOpNotNull(&op, "out", c->out);
    const aclTensor **t[4] = {NULL, NULL, NULL, NULL};
    cannon_tensor_view *v[4] = {NULL, NULL, NULL, NULL};
    uint64_t n[4] = {0, 0, 0, 0};
    for (int k = 0; k < c->nin; k++) {
        n[k] = amp_list(&op, c->in_name[k], c->in[k], c->dts, &t[k], &v[k]);
        if (k > 0)
            amp_list_match(&op, c->in_name[0], n[0], v[0], c->in_name[k], n[k], v[k], true);
    }
    const int nout = c->kind == AMP_ZERO ? 0 : 1;
    if (nout) {
        n[c->nin] = amp_list(&op, "out", c->out, c->dts, &t[c->nin], &v[c->nin]);
        if (cannonOpOk(&op) && n[c->nin] != n[0])
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "out holds %llu tensors but %s %llu: the lists must have one "
                         "length", (unsigned long long)n[c->nin], c->in_name[0], (unsigned long long)n[0]);
        if (cannonOpOk(&op) && n[0] > 0 && v[c->nin][0].dtype != v[0][0].dtype)
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "out is %s but %s is %s: out takes the input's dtype",
                         cannonDtypeName(v[c->nin][0].dtype), c->in_name[0], cannonDtypeName(v[0][0].dtype));
        for (uint64_t i = 0; cannonOpOk(&op) && c->norm && i < n[0]; i++)
            if (cannonTensorNumel(t[c->nin][i]) != 1)
                cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "out[%llu] holds %lld elements: each norm is one element",
                             (unsigned long long)i, (long long)cannonTensorNumel(t[c->nin][i]));
        if (!c->norm)
            amp_list_match(&op, c->in_name[0], n[0], v[0], "out", n[c->nin], v[c->nin], true);
    }
    amp_plan p = {.kind = c->kind, .nops = c->nin + nout, .n = n[0]};
    if (c->scalar_t) {
        amp_scalar_tensor(&op, c->scalar_name, c->scalar_t, FE_SCALAR_DTS);
        p.nscal = 1;
        p.scal[0] = c->scalar_t;
    } else if (c->scalar_s) {
        aclDataType sdt = ACL_DT_UNDEFINED;
        if (cannonOpOk(&op) && !cannonScalarGet(c->scalar_s, &sdt, NULL))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%s is not a live aclScalar", c->scalar_name);
        p.konst[0] = cannonScalarToDouble(c->scalar_s);
        if (c->kind == AMP_NORM) {
            p.konst[0] = cannonDtypeIn(sdt, CANNON_DTS_FLOAT) ? p.konst[0] : (double)cannonScalarToInt64(c->scalar_s);
            if (cannonOpOk(&op) && !(p.konst[0] >= 0.0))
                cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "scalar (the norm's order p) is %g: p must be >= 0 or +inf",
                             p.konst[0]);
        }
    }
    const aclTensor **items = NULL;
    if (cannonOpOk(&op)) {
        items = calloc(n[0] * (uint64_t)p.nops + 1, sizeof *items);
        if (!items)
            cannonOpFail(&op, ACLNN_ERR_INNER_CREATE_EXECUTOR, "out of memory");
    }
    if (cannonOpOk(&op)) {
        for (int k = 0; k < p.nops; k++) {
            p.how[k] = k < c->nin ? CANNON_BIND_IN : CANNON_BIND_OUT;
            for (uint64_t i = 0; i < n[0]; i++)
                items[i * (uint64_t)p.nops + (uint64_t)k] = t[k][i];
        }
        if (c->kind == AMP_ZERO)
            p.how[0] = CANNON_BIND_OUT;
        p.t = items;
        amp_record(&op, &p);
    }
    free(items);
    for (int k = 0; k < 4; k++) {
        free(t[k]);
        free(v[k]);
    }
    return cannonOpFinish(&op);
}

#define FE1(api_, kind_, x_, st_, ss_, sn_, out_)                                                      \
    do {                                                                                              \
        const fe_call c = {.api = api_, .kind = kind_, .dts = CANNON_DTS_F32_16, .nin = 1, .in = {x_}, \
                           .in_name = {"x"}, .scalar_t = st_, .scalar_s = ss_, .scalar_name = sn_,   \
                           .out = out_};                                                              \
        return fe_run(&c, workspaceSize, executor);                                                   \
    } while (0)

ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachMulScalarGetWorkspaceSize(const aclTensorList *x, const aclTensor *scalar,
                                                                      const aclTensorList *out, uint64_t *workspaceSize,
                                                                      aclOpExecutor **executor)
{
    FE1("aclnnForeachMulScalar", AMP_MUL_S, x, scalar, NULL, "scalar", out);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachMulScalarV2GetWorkspaceSize(const aclTensorList *x, const aclScalar *scalar,
                                                                        aclTensorList *out, uint64_t *workspaceSize,
                                                                        aclOpExecutor **executor)
{
    FE1("aclnnForeachMulScalarV2", AMP_MUL_S, x, NULL, scalar, "scalar", out);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachAddScalarGetWorkspaceSize(const aclTensorList *x, const aclTensor *scalar,
                                                                      const aclTensorList *out, uint64_t *workspaceSize,
                                                                      aclOpExecutor **executor)
{
    FE1("aclnnForeachAddScalar", AMP_ADD_S, x, scalar, NULL, "scalar", out);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachAddScalarV2GetWorkspaceSize(const aclTensorList *x, const aclScalar *scalar,
                                                                        aclTensorList *out, uint64_t *workspaceSize,
                                                                        aclOpExecutor **executor)
{
    FE1("aclnnForeachAddScalarV2", AMP_ADD_S, x, NULL, scalar, "scalar", out);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachDivScalarGetWorkspaceSize(const aclTensorList *x, const aclTensor *scalar,
                                                                      aclTensorList *out, uint64_t *workspaceSize,
                                                                      aclOpExecutor **executor)
{
    FE1("aclnnForeachDivScalar", AMP_DIV_S, x, scalar, NULL, "scalar", out);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachDivScalarV2GetWorkspaceSize(const aclTensorList *x, const aclScalar *scalar,
                                                                        aclTensorList *out, uint64_t *workspaceSize,
                                                                        aclOpExecutor **executor)
{
    FE1("aclnnForeachDivScalarV2", AMP_DIV_S, x, NULL, scalar, "scalar", out);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachSqrtGetWorkspaceSize(const aclTensorList *x, aclTensorList *out,
                                                                 uint64_t *workspaceSize, aclOpExecutor **executor)
{
    FE1("aclnnForeachSqrt", AMP_SQRT, x, NULL, NULL, NULL, out);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachNormGetWorkspaceSize(const aclTensorList *x, const aclScalar *scalar,
                                                                 const aclTensorList *out, uint64_t *workspaceSize,
                                                                 aclOpExecutor **executor)
{
    const fe_call c = {.api = "aclnnForeachNorm", .kind = AMP_NORM, .dts = CANNON_DTS_F32_16, .nin = 1, .in = {x},
                       .in_name = {"x"}, .scalar_s = scalar, .scalar_name = "scalar", .out = out, .norm = true};
    return fe_run(&c, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachCopyGetWorkspaceSize(const aclTensorList *x, aclTensorList *out,
                                                                 uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const fe_call c = {.api = "aclnnForeachCopy", .kind = AMP_COPY, .dts = 0, .nin = 1, .in = {x},
                       .in_name = {"x"}, .out = out};
    return fe_run(&c, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachZeroInplaceGetWorkspaceSize(const aclTensorList *x, uint64_t *workspaceSize,
                                                                        aclOpExecutor **executor)
{
    const fe_call c = {.api = "aclnnForeachZeroInplace", .kind = AMP_ZERO, .dts = 0, .nin = 1, .in = {x},
                       .in_name = {"x"}};
    return fe_run(&c, workspaceSize, executor);
}

#define FE2(api_, kind_, st_, ss_, sn_)                                                                  \
    do {                                                                                                \
        const fe_call c = {.api = api_, .kind = kind_, .dts = CANNON_DTS_F32_16, .nin = 2, .in = {x1, x2}, \
                           .in_name = {"x1", "x2"}, .scalar_t = st_, .scalar_s = ss_, .scalar_name = sn_,  \
                           .out = out};                                                                 \
        return fe_run(&c, workspaceSize, executor);                                                     \
    } while (0)

ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachMulListGetWorkspaceSize(const aclTensorList *x1, const aclTensorList *x2,
                                                                    aclTensorList *out, uint64_t *workspaceSize,
                                                                    aclOpExecutor **executor)
{
    FE2("aclnnForeachMulList", AMP_MUL_L, NULL, NULL, NULL);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachAddListGetWorkspaceSize(const aclTensorList *x1, const aclTensorList *x2,
                                                                    const aclTensor *alpha, aclTensorList *out,
                                                                    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    FE2("aclnnForeachAddList", AMP_ADD_L, alpha, NULL, "alpha");
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachAddListV2GetWorkspaceSize(const aclTensorList *x1, const aclTensorList *x2,
                                                                      const aclScalar *alpha, aclTensorList *out,
                                                                      uint64_t *workspaceSize, aclOpExecutor **executor)
{
    FE2("aclnnForeachAddListV2", AMP_ADD_L, NULL, alpha, "alpha");
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachLerpScalarGetWorkspaceSize(const aclTensorList *x1, const aclTensorList *x2,
                                                                       const aclScalar *weight, aclTensorList *out,
                                                                       uint64_t *workspaceSize, aclOpExecutor **executor)
{
    FE2("aclnnForeachLerpScalar", AMP_LERP, NULL, weight, "weight");
}

#define FE3(api_, kind_, st_, ss_)                                                                      \
    do {                                                                                               \
        const fe_call c = {.api = api_, .kind = kind_, .dts = CANNON_DTS_F32_16, .nin = 3,              \
                           .in = {x1, x2, x3}, .in_name = {"x1", "x2", "x3"}, .scalar_t = st_,          \
                           .scalar_s = ss_, .scalar_name = "scalar", .out = out};                       \
        return fe_run(&c, workspaceSize, executor);                                                    \
    } while (0)

ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachAddcmulScalarGetWorkspaceSize(const aclTensorList *x1,
                                                                          const aclTensorList *x2,
                                                                          const aclTensorList *x3,
                                                                          const aclTensor *scalar,
                                                                          const aclTensorList *out,
                                                                          uint64_t *workspaceSize,
                                                                          aclOpExecutor **executor)
{
    FE3("aclnnForeachAddcmulScalar", AMP_ADDCMUL, scalar, NULL);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachAddcmulScalarV2GetWorkspaceSize(const aclTensorList *x1,
                                                                            const aclTensorList *x2,
                                                                            const aclTensorList *x3,
                                                                            const aclScalar *scalar,
                                                                            aclTensorList *out,
                                                                            uint64_t *workspaceSize,
                                                                            aclOpExecutor **executor)
{
    FE3("aclnnForeachAddcmulScalarV2", AMP_ADDCMUL, NULL, scalar);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachAddcdivScalarGetWorkspaceSize(const aclTensorList *x1,
                                                                          const aclTensorList *x2,
                                                                          const aclTensorList *x3,
                                                                          const aclTensor *scalar, aclTensorList *out,
                                                                          uint64_t *workspaceSize,
                                                                          aclOpExecutor **executor)
{
    FE3("aclnnForeachAddcdivScalar", AMP_ADDCDIV, scalar, NULL);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnForeachAddcdivScalarV2GetWorkspaceSize(const aclTensorList *x1,
                                                                            const aclTensorList *x2,
                                                                            const aclTensorList *x3,
                                                                            const aclScalar *scalar,
                                                                            aclTensorList *out,
                                                                            uint64_t *workspaceSize,
                                                                            aclOpExecutor **executor)
{
    FE3("aclnnForeachAddcdivScalarV2", AMP_ADDCDIV, NULL, scalar);
}
