/*
 * aclnnNorm: the vector p-norm of self over the axes in dim (all axes when dim is empty):
 *   p = 0: the count of nonzero elements; p = inf: max |x|; p = -inf: min |x|;
 *   otherwise (sum |x|^p)^(1/p) (p = 1: sum |x|, p = 2: sqrt(sum x^2)).
 * A strided self is gathered into the workspace and a strided out scattered back (cannonOpBind),
 * so the kernel reads row-major data: each output is the reduction over the combinations of the
 * reduced axes, visited in row-major order, accumulated in fp64 (|x|^p through C's pow for a
 * general p) and rounded once to out's dtype. Where the innermost reduced axis is contiguous, each
 * run of it is summed in PN_RUN_LANES interleaved partial sums (pn_run) before joining the total. Blocks hold a number of outputs fixed by the shape,
 * so results do not depend on the thread count.
 */
#include <math.h>
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_norm.h"
#include "cannon/opdev.h"
#include "fp_convert.h"
#include "op_manifest.h"

#include "../kernels/kernels.h"

enum { PN_ZERO = 0, PN_ONE = 1, PN_TWO = 2, PN_INF = 3, PN_NEG_INF = 4, PN_GEN = 5 };
enum { PN_F32 = 0, PN_F16 = 1, PN_BF16 = 2 };

typedef struct pn_args {
    const void *x;
    void *out;
    double p;
    int32_t kind, in_dt, out_dt, nk, nr, isa;
    int64_t ksize[CANNON_OP_MAX_RANK], kstride[CANNON_OP_MAX_RANK]; /* kept axes, row-major order */
    int64_t rsize[CANNON_OP_MAX_RANK], rstride[CANNON_OP_MAX_RANK]; /* reduced axes, row-major order */
    int64_t n_out, n_red, outs_per_block;
} pn_args;

static int pn_code(aclDataType t)
{
    return t == ACL_FLOAT16 ? PN_F16 : t == ACL_BF16 ? PN_BF16 : PN_F32;
}

static inline double pn_load(const void *x, int dt, int64_t i)
{
    switch (dt) {
    case PN_F16:
        return (double)cannon_f16_to_f32(((const uint16_t *)x)[i]);
    case PN_BF16:
        return (double)cannon_bf16_to_f32(((const uint16_t *)x)[i]);
    default:
        return (double)((const float *)x)[i];
    }
}

static void pn_store(void *out, int dt, int64_t i, double v)
{
    const float f = (float)v;
    switch (dt) {
    case PN_F16:
        ((uint16_t *)out)[i] = cannon_f32_to_f16(f);
        break;
    case PN_BF16:
        ((uint16_t *)out)[i] = cannon_f32_to_bf16(f);
        break;
    default:
        ((float *)out)[i] = f;
        break;
    }
}

/* One run of n contiguous elements from x[off] folded into acc (pn_one's accumulator for kinds
 * other than PN_GEN). 16-bit inputs are widened to fp32 PN_CHUNK at a time (exact); each chunk is
 * folded into PN_RUN_LANES partial fp64 accumulators, lane l taking the elements l, l + LANES, ...
 * of the run, and the lanes join acc in order at the end: no element waits on the previous one's
 * add, and the order is fixed by the shape. */
#define PN_RUN_LANES 8
#define PN_CHUNK 512
#define PN_FOLD(EXPR)                                                                                                  \
    do {                                                                                                               \
        int64_t i_ = 0;                                                                                                \
        for (; i_ + PN_RUN_LANES <= m; i_ += PN_RUN_LANES)                                                             \
            for (int l = 0; l < PN_RUN_LANES; l++) {                                                                   \
                const double x = f[i_ + l];                                                                            \
                part[l] = (EXPR);                                                                                      \
            }                                                                                                          \
        for (int l = 0; i_ < m; i_++, l++) {                                                                           \
            const double x = f[i_];                                                                                    \
            part[l] = (EXPR);                                                                                          \
        }                                                                                                              \
    } while (0)
static double pn_run(const pn_args *a, const cannon_kernel_table *kt, int64_t off, int64_t n, double acc)
{
    double part[PN_RUN_LANES];
    const int kind = a->kind;
    for (int l = 0; l < PN_RUN_LANES; l++)
        part[l] = kind == PN_NEG_INF ? INFINITY : 0.0;
    float buf[PN_CHUNK];
    for (int64_t c = 0; c < n; c += PN_CHUNK) {
        const int64_t m = n - c < PN_CHUNK ? n - c : PN_CHUNK;
        const float *f = buf;
        if (a->in_dt == PN_F32)
            f = (const float *)a->x + off + c;
        else if (a->in_dt == PN_F16)
            kt->f16_to_f32(buf, (const uint16_t *)a->x + off + c, (size_t)m);
        else
            kt->bf16_to_f32(buf, (const uint16_t *)a->x + off + c, (size_t)m);
        /* m is a multiple of PN_RUN_LANES except in the last chunk, so lane l keeps its elements */
        switch (kind) {
        case PN_ZERO:
            PN_FOLD(part[l] + (x != 0.0 ? 1.0 : 0.0)); /* NaN counts as nonzero */
            break;
        case PN_ONE:
            PN_FOLD(part[l] + fabs(x));
            break;
        case PN_TWO:
            PN_FOLD(part[l] + x * x);
            break;
        case PN_INF:
            PN_FOLD((fabs(x) > part[l] || isnan(x)) && !isnan(part[l]) ? fabs(x) : part[l]);
            break;
        default: /* PN_NEG_INF */
            PN_FOLD((fabs(x) < part[l] || isnan(x)) && !isnan(part[l]) ? fabs(x) : part[l]);
            break;
        }
    }
    for (int l = 0; l < PN_RUN_LANES; l++) {
        const double v = part[l];
        if (kind == PN_INF)
            acc = (v > acc || isnan(v)) && !isnan(acc) ? v : acc;
        else if (kind == PN_NEG_INF)
            acc = (v < acc || isnan(v)) && !isnan(acc) ? v : acc;
        else
            acc += v;
    }
    return acc;
}

/* The norm of output @p o. */
static double pn_one(const pn_args *a, const cannon_kernel_table *kt, int64_t o)
{
    int64_t base = 0, rem = o;
    for (int32_t k = a->nk - 1; k >= 0; k--) {
        base += (rem % a->ksize[k]) * a->kstride[k];
        rem /= a->ksize[k];
    }
    int64_t idx[CANNON_OP_MAX_RANK] = {0};
    int64_t off = base;
    double acc = a->kind == PN_NEG_INF ? INFINITY : 0.0;
    if (a->kind != PN_GEN && a->nr > 0 && a->rstride[a->nr - 1] == 1) {
        /* the innermost reduced axis is contiguous: whole runs of it at a time */
        const int64_t run = a->rsize[a->nr - 1];
        for (int64_t c = 0; c < a->n_red; c += run) {
            acc = pn_run(a, kt, off, run, acc);
            for (int32_t r = a->nr - 2; r >= 0; r--) {
                off += a->rstride[r];
                if (++idx[r] < a->rsize[r])
                    break;
                off -= idx[r] * a->rstride[r];
                idx[r] = 0;
            }
        }
        return a->kind == PN_TWO ? sqrt(acc) : acc;
    }
    for (int64_t c = 0; c < a->n_red; c++) {
        const double x = pn_load(a->x, a->in_dt, off);
        const double ax = fabs(x);
        switch (a->kind) {
        case PN_ZERO:
            acc += x != 0.0 ? 1.0 : 0.0; /* NaN counts as nonzero */
            break;
        case PN_ONE:
            acc += ax;
            break;
        case PN_TWO:
            acc += x * x;
            break;
        case PN_INF:
            acc = (ax > acc || isnan(ax)) && !isnan(acc) ? ax : acc;
            break;
        case PN_NEG_INF:
            acc = (ax < acc || isnan(ax)) && !isnan(acc) ? ax : acc;
            break;
        default:
            acc += pow(ax, a->p);
            break;
        }
        /* next combination of the reduced axes (row-major odometer) */
        for (int32_t r = a->nr - 1; r >= 0; r--) {
            off += a->rstride[r];
            if (++idx[r] < a->rsize[r])
                break;
            off -= idx[r] * a->rstride[r];
            idx[r] = 0;
        }
    }
    switch (a->kind) {
    case PN_TWO:
        return sqrt(acc);
    case PN_GEN:
        return pow(acc, 1.0 / a->p);
    default:
        return acc;
    }
}

static int pn_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const pn_args *a = (const pn_args *)args;
    const int64_t o0 = (int64_t)ctx->block_idx * a->outs_per_block;
    const int64_t o1 = o0 + a->outs_per_block < a->n_out ? o0 + a->outs_per_block : a->n_out;
    const cannon_kernel_table *kt = cannon_kernels_for((cannon_isa)a->isa);
    for (int64_t o = o0; o < o1; o++)
        pn_store(a->out, a->out_dt, o, pn_one(a, kt, o));
    return 0;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnNormGetWorkspaceSize(const aclTensor *self, const aclScalar *pScalar,
                                                          const aclIntArray *dim, bool keepdim, aclTensor *out,
                                                          uint64_t *workspaceSize, aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vx, vo;
    memset(&vx, 0, sizeof vx);
    memset(&vo, 0, sizeof vo);
    cannonOpBegin(&op, "aclnnNorm", workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, "pScalar", pScalar, "dim", dim, "out", out, NULL);
    cannonOpTensor(&op, "self", self, cn_dts_Norm(), &vx);
    cannonOpTensor(&op, "out", out, CANNON_DTS_F32_16, &vo);
    aclDataType pt = ACL_DT_UNDEFINED;
    if (cannonOpOk(&op) && !cannonScalarGet(pScalar, &pt, NULL))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "pScalar is not a live aclScalar");
    else if (cannonOpOk(&op) && !cannonDtypeIn(pt, CANNON_DTS_REAL))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "pScalar dtype %s is not supported", cannonDtypeName(pt));
    uint64_t nd = 0;
    const int64_t *dv = cannonOpOk(&op) ? cannonIntArrayData(dim, &nd) : NULL;
    if (cannonOpOk(&op) && !dv && nd != 0)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "dim is not a live aclIntArray");
    const int64_t rank = cannonOpOk(&op) ? vx.ndim : 0;
    int red[CANNON_OP_MAX_RANK] = {0};
    for (int64_t d = 0; nd == 0 && d < rank; d++)
        red[d] = 1;
    for (uint64_t k = 0; cannonOpOk(&op) && k < nd; k++) {
        int64_t d = dv[k];
        if (!cannonOpDim(&op, "dim", &d, rank))
            break;
        if (rank > 0 && red[d])
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "dim %lld appears twice", (long long)d);
        else if (rank > 0)
            red[d] = 1;
    }
    /* out's shape: self's, reduced axes 1 (keepdim) or dropped. */
    if (cannonOpOk(&op)) {
        int64_t want[CANNON_OP_MAX_RANK] = {0};
        int64_t nw = 0;
        for (int64_t d = 0; d < rank; d++)
            if (!red[d])
                want[nw++] = vx.shape[d];
            else if (keepdim)
                want[nw++] = 1;
        bool ok = vo.ndim == nw;
        for (int64_t d = 0; ok && d < nw; d++)
            ok = vo.shape[d] == want[d];
        if (!ok) {
            char so[200], sx[200];
            cannonShapeFormat(&vo, so, sizeof so);
            cannonShapeFormat(&vx, sx, sizeof sx);
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "out shape %s does not match self %s reduced over dim%s", so,
                         sx, keepdim ? " with keepdim" : "");
        }
    }
    const int sx = cannonOpInput(&op, self);
    const int so = cannonOpOutput(&op, out);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    pn_args a;
    memset(&a, 0, sizeof a);
    const double p = cannonScalarToDouble(pScalar);
    a.p = p;
    a.kind = p == 0.0 ? PN_ZERO : p == 1.0 ? PN_ONE : p == 2.0 ? PN_TWO : p == INFINITY ? PN_INF
             : p == -INFINITY ? PN_NEG_INF : PN_GEN;
    a.in_dt = pn_code(vx.dtype);
    a.isa = (int32_t)cannon_isa_select();
    a.out_dt = pn_code(vo.dtype);
    a.n_out = 1;
    a.n_red = 1;
    int64_t stride = 1;
    int64_t ks[CANNON_OP_MAX_RANK] = {0}, kst[CANNON_OP_MAX_RANK] = {0};
    int64_t rs[CANNON_OP_MAX_RANK] = {0}, rst[CANNON_OP_MAX_RANK] = {0};
    int32_t nk = 0, nr = 0;
    for (int64_t d = rank - 1; d >= 0; d--) {
        if (red[d]) {
            rs[nr] = vx.shape[d];
            rst[nr++] = stride;
            a.n_red *= vx.shape[d];
        } else {
            ks[nk] = vx.shape[d];
            kst[nk++] = stride;
            a.n_out *= vx.shape[d];
        }
        stride *= vx.shape[d];
    }
    /* collected innermost first: store them outermost first */
    for (int32_t i = 0; i < nk; i++) {
        a.ksize[i] = ks[nk - 1 - i];
        a.kstride[i] = kst[nk - 1 - i];
    }
    for (int32_t i = 0; i < nr; i++) {
        a.rsize[i] = rs[nr - 1 - i];
        a.rstride[i] = rst[nr - 1 - i];
    }
    a.nk = nk;
    a.nr = nr;
    if (a.n_out == 0)
        return cannonOpFinish(&op);
    const int64_t per = a.n_red > 0 ? a.n_red : 1;
    a.outs_per_block = per >= 65536 ? 1 : 65536 / per;
    cannon_arg_ref refs[2];
    size_t n = 0;
    if (a.n_red > 0 && cannonOpBind(&op, sx, CANNON_BIND_IN, offsetof(pn_args, x), &refs[n]))
        n++;
    if (cannonOpBind(&op, so, CANNON_BIND_OUT, offsetof(pn_args, out), &refs[n]))
        n++;
    const uint32_t bd = (uint32_t)((a.n_out + a.outs_per_block - 1) / a.outs_per_block);
    cannonOpKernel(&op, op.api, pn_kernel, bd, &a, sizeof a, refs, n);
    return cannonOpFinish(&op);
}
