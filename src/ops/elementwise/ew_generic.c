/*
 * The generic elementwise kinds of the operator manifest (ops.def): their phase 1, and the entry
 * points of every operator declared with one of them, generated here from its manifest line. A
 * new operator of these kinds is its manifest line, its math (an ew_op code in ew_kernels.h with
 * its vector and fp64 forms in ew_impl.h) and its golden test.
 */
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "op_manifest.h"

#include "ew_kernels.h"

aclnnStatus cannon_ew_unary(const char *api, int code, int same, cannon_dtype_set dtypes, const aclTensor *in,
                            const char *in_name, const aclTensor *out, const char *out_name, uint64_t *workspaceSize,
                            aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vi, vo;
    cannonOpBegin(&op, api, workspaceSize, executor);
    if (in == out)
        cannonOpNotNull(&op, in_name, in);
    else
        cannonOpNotNulls(&op, in_name, in, out_name, out, NULL);
    cannonOpTensor(&op, in_name, in, dtypes, &vi);
    /* a floating result: out is one of the operator's floating dtypes */
    cannonOpTensor(&op, out_name, out, same ? dtypes : dtypes & CANNON_DTS_FLOAT, &vo);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    /* the result type: the input's own, or FLOAT for an integral input of a floating function */
    const aclDataType ct = same || cannonDtypeIn(vi.dtype, CANNON_DTS_FLOAT) ? vi.dtype : ACL_FLOAT;
    if (same)
        cannonOpSameDtype(&op, out_name, &vo, in_name, &vi);
    else if (!cannonDtypeCanCast(ct, vo.dtype))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "result type %s cannot be cast to %s dtype %s",
                     cannonDtypeName(ct), out_name, cannonDtypeName(vo.dtype));
    ew_args a;
    memset(&a, 0, sizeof a);
    a.op = code;
    a.ct = ct;
    a.mode = cannon_ew_mode_of(ct);
    cannon_ew_plan(&op, &a, out, in, NULL, out_name, in_name, NULL);
    return cannonOpFinish(&op);
}

aclnnStatus cannon_ew_unary_param(const char *api, int code, cannon_dtype_set dtypes, const aclTensor *in,
                                  const char *in_name, const aclTensor *out, const char *out_name,
                                  const aclScalar *const *scalars, size_t nscalars, const char *scalar_names,
                                  uint64_t *workspaceSize, aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vi, vo;
    /* the scalars' names, from the manifest's "a, b, c" */
    char names[EW_PARAM_MAX][32];
    const char *np = scalar_names;
    for (size_t k = 0; k < nscalars; k++) {
        size_t n = 0;
        while (*np == ' ' || *np == ',')
            np++;
        while (*np && *np != ',' && n + 1 < sizeof names[k])
            names[k][n++] = *np++;
        names[k][n] = '\0';
    }
    cannonOpBegin(&op, api, workspaceSize, executor);
    cannonOpNotNull(&op, in_name, in);
    for (size_t k = 0; k < nscalars; k++)
        cannonOpNotNull(&op, names[k], scalars[k]);
    if (out != in)
        cannonOpNotNull(&op, out_name, out);
    cannonOpTensor(&op, in_name, in, dtypes, &vi);
    cannonOpTensor(&op, out_name, out, dtypes & CANNON_DTS_FLOAT, &vo);
    ew_args a;
    memset(&a, 0, sizeof a);
    for (size_t k = 0; k < nscalars && cannonOpOk(&op); k++) {
        aclDataType t = ACL_DT_UNDEFINED;
        if (!cannonScalarGet(scalars[k], &t, NULL))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%s is not a live aclScalar", names[k]);
        else if (!cannonDtypeIn(t, CANNON_DTS_REAL))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "%s dtype %s cannot be converted to FLOAT", names[k],
                         cannonDtypeName(t));
        else
            a.prm.d[k] = cannonScalarToDouble(scalars[k]);
    }
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const aclDataType ct = cannonDtypeIn(vi.dtype, CANNON_DTS_FLOAT) ? vi.dtype : ACL_FLOAT;
    if (!cannonDtypeCanCast(ct, vo.dtype))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "result type %s cannot be cast to %s dtype %s",
                     cannonDtypeName(ct), out_name, cannonDtypeName(vo.dtype));
    if (code == EW_ELU) /* alpha scale as one coefficient, formed in double as torch does */
        a.prm.d[0] *= a.prm.d[1];
    for (size_t k = 0; k < nscalars; k++)
        a.prm.f[k] = (float)a.prm.d[k];
    a.op = code;
    a.ct = ct;
    a.mode = cannon_ew_mode_of(ct);
    cannon_ew_plan(&op, &a, out, in, NULL, out_name, in_name, NULL);
    return cannonOpFinish(&op);
}

aclnnStatus cannon_ew_binary_bwd(const char *api, int code, cannon_dtype_set dtypes, const aclTensor *grad,
                                 const char *grad_name, const aclTensor *x, const char *x_name, const aclTensor *out,
                                 const char *out_name, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vg, vx, vo;
    cannonOpBegin(&op, api, workspaceSize, executor);
    cannonOpNotNulls(&op, grad_name, grad, x_name, x, out_name, out, NULL);
    /* GeluBackward checks only the promoted type (an INT32 gradient with a FLOAT input computes in
     * FLOAT, as CANN's does); the others check each input against the operator's dtypes. */
    const cannon_dtype_set in_dts = code == EW_GELU_BWD ? CANNON_DTS_REAL : dtypes;
    cannonOpTensor(&op, grad_name, grad, in_dts, &vg);
    cannonOpTensor(&op, x_name, x, in_dts, &vx);
    cannonOpTensor(&op, out_name, out, CANNON_DTS_REAL, &vo);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const aclDataType pt = cannonDtypePromote(vg.dtype, vx.dtype);
    if (!cannonDtypeIn(pt, dtypes))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "promoted type %s of %s dtype %s and %s dtype %s is not supported",
                     cannonDtypeName(pt), grad_name, cannonDtypeName(vg.dtype), x_name, cannonDtypeName(vx.dtype));
    else if (!cannonDtypeCanCast(pt, vo.dtype))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "result type %s cannot be cast to %s dtype %s",
                     cannonDtypeName(pt), out_name, cannonDtypeName(vo.dtype));
    ew_args a;
    memset(&a, 0, sizeof a);
    a.op = code;
    a.ct = pt;
    a.mode = cannon_ew_mode_of(pt);
    cannon_ew_plan(&op, &a, out, grad, x, out_name, grad_name, x_name);
    return cannonOpFinish(&op);
}

/* ---- the generated entry points ---------------------------------------------------------------- */

#define CN_UNPACK(...) __VA_ARGS__
#define CN_GEN(name, dtypes, kind, kind_args, params) CN_GEN_##kind(name, dtypes, kind_args, params)
#define CN_GEN_CUSTOM(name, dtypes, kind_args, params)
#define CN_GEN_EW_UNARY(name, dtypes, kind_args, params) CN_GEN_UNARY_(name, dtypes, 0, CN_UNPACK kind_args, params)
#define CN_GEN_EW_UNARY_SAME(name, dtypes, kind_args, params)                                     \
    CN_GEN_UNARY_(name, dtypes, 1, CN_UNPACK kind_args, params)
#define CN_GEN_UNARY_(...) CN_GEN_UNARY(__VA_ARGS__)
#define CN_GEN_UNARY(name, dtypes, same, code, in, out, params)                                   \
    ACL_FUNC_VISIBILITY aclnnStatus aclnn##name##GetWorkspaceSize CN_WS_PARAMS params              \
    {                                                                                              \
        return cannon_ew_unary("aclnn" #name, code, same, dtypes, in, #in, out, #out, workspaceSize, executor); \
    }
#define CN_GEN_EW_UNARY_PARAM(name, dtypes, kind_args, params) CN_GEN_UPARAM_(name, dtypes, params, CN_UNPACK kind_args)
#define CN_GEN_UPARAM_(...) CN_GEN_UPARAM(__VA_ARGS__)
#define CN_GEN_UPARAM(name, dtypes, params, code, in, out, ...)                                   \
    ACL_FUNC_VISIBILITY aclnnStatus aclnn##name##GetWorkspaceSize CN_WS_PARAMS params              \
    {                                                                                              \
        const aclScalar *const s_[] = {__VA_ARGS__};                                               \
        return cannon_ew_unary_param("aclnn" #name, code, dtypes, in, #in, out, #out, s_, sizeof s_ / sizeof s_[0], \
                                     #__VA_ARGS__, workspaceSize, executor);                       \
    }
#define CN_GEN_EW_BINARY_BWD(name, dtypes, kind_args, params) CN_GEN_BWD_(name, dtypes, CN_UNPACK kind_args, params)
#define CN_GEN_BWD_(...) CN_GEN_BWD(__VA_ARGS__)
#define CN_GEN_BWD(name, dtypes, code, grad, x, out, params)                                      \
    ACL_FUNC_VISIBILITY aclnnStatus aclnn##name##GetWorkspaceSize CN_WS_PARAMS params              \
    {                                                                                              \
        return cannon_ew_binary_bwd("aclnn" #name, code, dtypes, grad, #grad, x, #x, out, #out, workspaceSize, \
                                    executor);                                                     \
    }

#define CANNON_OP_HEADER(header, doc)
#define CANNON_OP(name, family, header, dtypes, kind, kind_args, params, doc)                      \
    CN_GEN(name, dtypes, kind, kind_args, params)
#include "ops.def"
#undef CANNON_OP
#undef CANNON_OP_HEADER
