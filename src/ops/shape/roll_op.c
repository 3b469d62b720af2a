/*
 * aclnnRoll. With dims: the shifts of each rolled dim are summed modulo its size s_d, and every
 * combination of the two halves of the rolled dims is one copy (out[s_d:] takes x[:n - s_d],
 * out[:s_d] takes x[n - s_d:]), so 2^k copies for k rolled dims, each through the views' strides.
 * Without dims (NULL or empty) the tensor rolls as one flat sequence (shifts holds one value): x and out are bound
 * contiguous (gathered / scattered through the workspace when strided) and one kernel moves the
 * two parts.
 */
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_roll.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "shape_copy.h"

typedef struct roll_flat_args {
    const char *x; /* bound, contiguous */
    char *out;     /* bound, contiguous */
    int64_t n, s, es;
} roll_flat_args;

static int roll_flat_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    (void)ctx;
    const roll_flat_args *a = (const roll_flat_args *)args;
    /* memmove: x and out may overlap (unspecified result, but no undefined access) */
    memmove(a->out + a->s * a->es, a->x, (size_t)((a->n - a->s) * a->es));
    memmove(a->out, a->x + (a->n - a->s) * a->es, (size_t)(a->s * a->es));
    return 0;
}

static int64_t mod_size(int64_t v, int64_t n)
{
    const int64_t r = v % n;
    return r < 0 ? r + n : r;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnRollGetWorkspaceSize(const aclTensor *x, const aclIntArray *shifts,
                                                          const aclIntArray *dims, aclTensor *out,
                                                          uint64_t *workspaceSize, aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vx, vo;
    cannonOpBegin(&op, "aclnnRoll", workspaceSize, executor);
    cannonOpNotNulls(&op, "x", x, "shifts", shifts, "out", out, NULL); /* dims NULL: no dims */
    cannonOpTensor(&op, "x", x, cn_dts_Roll(), &vx);
    cannonOpTensor(&op, "out", out, cn_dts_Roll(), &vo);
    cannonOpSameDtype(&op, "out", &vo, "x", &vx);
    cannonOpSameShape(&op, "out", &vo, "x", &vx);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    uint64_t ns = 0, nd = 0;
    const int64_t *sv = cannonIntArrayData(shifts, &ns);
    const int64_t *dv = dims ? cannonIntArrayData(dims, &nd) : NULL;
    if (nd == 0 && ns != 1)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "without dims, shifts must hold 1 value, got %llu",
                     (unsigned long long)ns);
    else if (nd > 0 && ns != nd)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "shifts has %llu values, dims %llu", (unsigned long long)ns,
                     (unsigned long long)nd);
    else if (nd > 64)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "dims has %llu values, more than 64", (unsigned long long)nd);
    int64_t s[CANNON_OP_MAX_RANK] = {0};
    for (uint64_t i = 0; cannonOpOk(&op) && i < nd; i++) {
        int64_t d = dv[i];
        if (!cannonOpDim(&op, "dims", &d, vx.ndim))
            break;
        const int64_t n = vx.ndim > 0 ? vx.shape[d] : 1;
        if (n > 0)
            s[d] = mod_size(s[d] + mod_size(sv[i], n), n);
    }
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const int sx = cannonOpInput(&op, x);
    const int so = cannonOpOutput(&op, out);
    const size_t es = cannonDtypeSize(vx.dtype);
    const int64_t numel = shape_numel(&vx);
    if (numel == 0)
        return cannonOpFinish(&op);
    if (nd == 0) {
        roll_flat_args a;
        memset(&a, 0, sizeof a);
        a.n = numel;
        a.s = mod_size(sv[0], numel);
        a.es = (int64_t)es;
        cannon_arg_ref refs[2];
        cannonOpBind(&op, sx, CANNON_BIND_IN, (uint32_t)offsetof(roll_flat_args, x), &refs[0]);
        cannonOpBind(&op, so, CANNON_BIND_OUT, (uint32_t)offsetof(roll_flat_args, out), &refs[1]);
        cannonOpKernel(&op, "RollFlat", roll_flat_kernel, 1, &a, sizeof a, refs, 2);
        return cannonOpFinish(&op);
    }
    /* the rolled dims, and one copy per combination of their halves */
    int64_t rd[CANNON_OP_MAX_RANK];
    int k = 0;
    for (int64_t d = 0; d < vx.ndim; d++)
        if (s[d] != 0)
            rd[k++] = d;
    const int64_t rank = vx.ndim > 0 ? vx.ndim : 0;
    for (uint32_t m = 0; m < (1u << k) && cannonOpOk(&op); m++) {
        int64_t shape[CANNON_OP_MAX_RANK];
        int64_t soff = vx.offset, doff = vo.offset;
        for (int64_t d = 0; d < rank; d++)
            shape[d] = vx.shape[d];
        for (int j = 0; j < k; j++) {
            const int64_t d = rd[j], n = vx.shape[d], sh = s[d];
            if (m & (1u << j)) { /* out[:sh] takes x[n - sh:] */
                shape[d] = sh;
                soff += (n - sh) * vx.strides[d];
            } else { /* out[sh:] takes x[:n - sh] */
                shape[d] = n - sh;
                doff += sh * vo.strides[d];
            }
        }
        shape_geom g;
        shape_geom_init(&g, rank, shape, vx.strides, vo.strides, es);
        shape_record_copy(&op, sx, soff, so, doff, &g);
    }
    return cannonOpFinish(&op);
}
