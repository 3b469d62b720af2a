/*
 * The operators that write a whole view: aclnnInplaceFillScalar (selfRef = value),
 * aclnnInplaceZero (selfRef = 0) and aclnnInplaceCopy (selfRef = src, src broadcast to selfRef's
 * shape and converted to its dtype).
 *
 * Fills and same-dtype copies move bytes (the framework's EW_MODE_RAW): any view, any dtype with a
 * byte size (the complex and unsigned types included), contiguous runs as one memset / memmove,
 * strided ones element by element with a fixed-size move. A copy between two dtypes converts as
 * aclnnCast does (fp32 between the 16/32-bit floats, int64 among the integers and BOOL, fp64
 * otherwise: one correct rounding; floats to integers truncate, NaN to 0); complex and real dtypes
 * do not convert into each other (161002).
 *
 * FillScalar converts the value to selfRef's dtype as a cast would (rounded to a float type), and
 * rejects what CANN's cast rules forbid (a floating value for an integral selfRef, a non-BOOL
 * value for BOOL) or what the type cannot hold (300 for INT8, -1 for an unsigned type). A complex
 * selfRef takes a real value as (value, 0) or a complex value converted part by part.
 */
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_fill_scalar.h"
#include "aclnnop/aclnn_zero.h"
#include "cannon/opdev.h"
#include "fp_convert.h"
#include "op_manifest.h"

#include "ew_kernels.h"

static bool is_complex(aclDataType t)
{
    return t == ACL_COMPLEX32 || t == ACL_COMPLEX64 || t == ACL_COMPLEX128;
}

static bool is_unsigned(aclDataType t)
{
    return t == ACL_UINT8 || t == ACL_UINT16 || t == ACL_UINT32 || t == ACL_UINT64;
}

/* real and imaginary parts of a complex or real scalar */
static void complex_parts(const aclScalar *s, double *re, double *im)
{
    aclDataType t = ACL_DT_UNDEFINED;
    unsigned char b[16];
    cannonScalarGet(s, &t, b);
    *re = cannonScalarToDouble(s);
    *im = 0.0;
    if (t == ACL_COMPLEX64) {
        float f[2];
        memcpy(f, b, sizeof f);
        *im = f[1];
    } else if (t == ACL_COMPLEX128) {
        double d[2];
        memcpy(d, b, sizeof d);
        *im = d[1];
    } else if (t == ACL_COMPLEX32) {
        uint16_t h[2];
        memcpy(h, b, sizeof h);
        *im = cannon_f16_to_f32(h[1]);
    }
}

/* plan a RAW fill of @p self with the bytes in a->sval */
static aclnnStatus fill_plan(cannon_op *op, ew_args *a, const aclTensor *self)
{
    a->op = EW_FILL;
    a->mode = EW_MODE_RAW;
    cannon_ew_plan(op, a, self, self, NULL, "selfRef", "selfRef", NULL);
    return cannonOpFinish(op);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceFillScalarGetWorkspaceSize(aclTensor *selfRef, const aclScalar *value,
                                                                       uint64_t *workspaceSize,
                                                                       aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vs;
    cannonOpBegin(&op, "aclnnInplaceFillScalar", workspaceSize, executor);
    cannonOpNotNulls(&op, "selfRef", selfRef, "value", value, NULL);
    cannonOpTensor(&op, "selfRef", selfRef, cn_dts_InplaceFillScalar(), &vs);
    aclDataType st = ACL_DT_UNDEFINED;
    if (cannonOpOk(&op) && !cannonScalarGet(value, &st, NULL))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "value is not a live aclScalar");
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const aclDataType t = vs.dtype;
    ew_args a;
    memset(&a, 0, sizeof a);
    a.ct = t;
    if (is_complex(t)) {
        if (!cannonDtypeIn(st, CANNON_DTS_REAL) && !is_complex(st)) {
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "value dtype %s is not supported", cannonDtypeName(st));
            return cannonOpFinish(&op);
        }
        double re, im;
        complex_parts(value, &re, &im);
        if (t == ACL_COMPLEX64) {
            const float f[2] = {(float)re, (float)im};
            memcpy(a.sval, f, sizeof f);
        } else {
            const double d[2] = {re, im};
            memcpy(a.sval, d, sizeof d);
        }
        return fill_plan(&op, &a, selfRef);
    }
    const bool st_ok = cannonDtypeIn(st, CANNON_DTS_REAL) || st == ACL_UINT16 || st == ACL_UINT32 ||
                       st == ACL_UINT64;
    if (!st_ok || !cannonDtypeCanCast(st, t) || (cannonDtypeIn(st, CANNON_DTS_FLOAT) && is_unsigned(t))) {
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "value dtype %s cannot be cast to selfRef dtype %s",
                     cannonDtypeName(st), cannonDtypeName(t));
        return cannonOpFinish(&op);
    }
    double d;
    int64_t i;
    const bool fits = cannon_ew_scalar_to(t, value, true, &d, &i) &&
                      !(is_unsigned(t) && !cannonDtypeIn(st, CANNON_DTS_FLOAT) && cannonScalarToInt64(value) < 0);
    if (!fits) {
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "value %lld does not fit selfRef dtype %s",
                     (long long)cannonScalarToInt64(value), cannonDtypeName(t));
        return cannonOpFinish(&op);
    }
    cannon_ew_store_scalar(t, cannonDtypeIn(t, CANNON_DTS_FLOAT) ? EW_MODE_F64 : EW_MODE_I64, d, i, a.sval);
    return fill_plan(&op, &a, selfRef);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceZeroGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize,
                                                                 aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vs;
    cannonOpBegin(&op, "aclnnInplaceZero", workspaceSize, executor);
    cannonOpNotNull(&op, "selfRef", selfRef);
    cannonOpTensor(&op, "selfRef", selfRef, cn_dts_InplaceZero(), &vs);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    ew_args a;
    memset(&a, 0, sizeof a); /* sval: zero bytes, the zero of every listed type */
    a.ct = vs.dtype;
    return fill_plan(&op, &a, selfRef);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceCopyGetWorkspaceSize(aclTensor *selfRef, const aclTensor *src,
                                                                 uint64_t *workspaceSize, aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vd, vs;
    const cannon_dtype_set dts = cn_dts_InplaceCopy();
    cannonOpBegin(&op, "aclnnInplaceCopy", workspaceSize, executor);
    cannonOpNotNulls(&op, "selfRef", selfRef, "src", src, NULL);
    cannonOpTensor(&op, "selfRef", selfRef, dts, &vd);
    cannonOpTensor(&op, "src", src, dts, &vs);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const aclDataType ts = vs.dtype, to = vd.dtype;
    ew_args a;
    memset(&a, 0, sizeof a);
    a.op = EW_COPY;
    a.ct = to;
    a.bcast_out = 1;
    if (ts == to) {
        a.mode = EW_MODE_RAW;
    } else if (is_complex(ts) || is_complex(to)) {
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "src dtype %s cannot be copied into selfRef dtype %s",
                     cannonDtypeName(ts), cannonDtypeName(to));
        return cannonOpFinish(&op);
    } else {
        a.mode = cannon_ew_convert_mode(ts, to);
    }
    cannon_ew_plan(&op, &a, selfRef, src, NULL, "selfRef", "src", NULL);
    return cannonOpFinish(&op);
}
