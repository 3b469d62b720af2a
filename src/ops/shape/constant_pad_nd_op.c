/*
 * aclnnConstantPadNd. Per dim d the output splits into [0, lo_d) (before), the interior
 * [lo_d, lo_d + len_d) that receives self's elements [skip_d, skip_d + len_d), and the rest
 * (after); negative pads crop (skip_d > 0, or a shorter len_d). The plan is one copy of the
 * interior and, per padded dim d, fills of the two border slabs that are interior in the dims
 * before d and whole in the dims after it: the slabs cover each border element exactly once, so
 * nothing is written twice.
 */
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_constant_pad_nd.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "shape_copy.h"

ACL_FUNC_VISIBILITY aclnnStatus aclnnConstantPadNdGetWorkspaceSize(const aclTensor *self, const aclIntArray *pad,
                                                                   const aclScalar *value, aclTensor *out,
                                                                   uint64_t *workspaceSize, aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vs, vo;
    cannonOpBegin(&op, "aclnnConstantPadNd", workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, "pad", pad, "value", value, "out", out, NULL);
    cannonOpTensor(&op, "self", self, cn_dts_ConstantPadNd(), &vs);
    cannonOpTensor(&op, "out", out, cn_dts_ConstantPadNd(), &vo);
    cannonOpSameDtype(&op, "out", &vo, "self", &vs);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    unsigned char val[16] = {0};
    aclDataType vdt = ACL_DT_UNDEFINED;
    if (!cannonScalarGet(value, &vdt, NULL))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "value is not a live aclScalar");
    else if (!shape_scalar_to(value, vs.dtype, val))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "value of dtype %s cannot pad a %s tensor%s", cannonDtypeName(vdt),
                     cannonDtypeName(vs.dtype), cannonDtypeSize(vs.dtype) == 1 ? " (8-bit float types take only 0)" : "");
    uint64_t np = 0;
    const int64_t *p = cannonIntArrayData(pad, &np);
    if (cannonOpOk(&op) && (np % 2 != 0 || (int64_t)np > 2 * vs.ndim))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "pad has %llu values: it must be even and at most 2 * %lld",
                     (unsigned long long)np, (long long)vs.ndim);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const int64_t nd = vs.ndim;
    int64_t oshape[CANNON_OP_MAX_RANK], lo[CANNON_OP_MAX_RANK], skip[CANNON_OP_MAX_RANK], len[CANNON_OP_MAX_RANK];
    bool positive = false, empty = false;
    for (int64_t d = 0; d < nd; d++) {
        const int64_t k = nd - 1 - d; /* pair index: the last dim comes first */
        const int64_t b = 2 * k < (int64_t)np ? p[2 * k] : 0, a = 2 * k + 1 < (int64_t)np ? p[2 * k + 1] : 0;
        const int64_t in = vs.shape[d];
        const int64_t lim = CANNON_TENSOR_MAX_BYTES;
        if (b > lim || b < -lim || a > lim || a < -lim || in + b + a < 0 || in + b + a > lim) {
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID,
                         "pad (%lld, %lld) of dim %lld (size %lld) gives a negative or too large size", (long long)b,
                         (long long)a, (long long)d, (long long)in);
            return cannonOpFinish(&op);
        }
        positive = positive || b > 0 || a > 0;
        oshape[d] = in + b + a;
        empty = empty || oshape[d] == 0;
        /* out index o holds self's o - b: the interior is [max(0, b), min(out, in + b)) */
        lo[d] = b > 0 ? (b < oshape[d] ? b : oshape[d]) : 0;
        const int64_t hi = in + b < oshape[d] ? in + b : oshape[d];
        len[d] = hi > lo[d] ? hi - lo[d] : 0;
        skip[d] = lo[d] - b;
    }
    if (positive && empty) {
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "the output would be empty while pad has a positive value");
        return cannonOpFinish(&op);
    }
    if (!shape_expect(&op, "out", &vo, nd, oshape))
        return cannonOpFinish(&op);

    const int ss = cannonOpInput(&op, self);
    const int so = cannonOpOutput(&op, out);
    const size_t es = cannonDtypeSize(vs.dtype);
    bool interior = true;
    int64_t soff = vs.offset, doff = vo.offset;
    for (int64_t d = 0; d < nd; d++)
        interior = interior && len[d] > 0;
    for (int64_t d = 0; interior && d < nd; d++) { /* skip_d < self's size when the interior is not empty */
        soff += skip[d] * vs.strides[d];
        doff += lo[d] * vo.strides[d];
    }
    if (interior) {
        shape_geom g;
        shape_geom_init(&g, nd, len, vs.strides, vo.strides, es);
        shape_record_copy(&op, ss, soff, so, doff, &g);
    }
    /* border slabs */
    for (int64_t d = 0; d < nd; d++) {
        int64_t sh[CANNON_OP_MAX_RANK];
        int64_t base = vo.offset;
        for (int64_t j = 0; j < nd; j++) {
            if (j < d) {
                sh[j] = len[j];
                base += lo[j] * vo.strides[j];
            } else {
                sh[j] = oshape[j];
            }
        }
        /* before: [0, lo_d); after: [lo_d + len_d, out_d) */
        sh[d] = lo[d];
        shape_record_fill(&op, so, base, nd, sh, vo.strides, es, val);
        sh[d] = oshape[d] - lo[d] - len[d];
        shape_record_fill(&op, so, base + (lo[d] + len[d]) * vo.strides[d], nd, sh, vo.strides, es, val);
    }
    return cannonOpFinish(&op);
}
