/*
 * aclnnReduceSum and aclnnMean.
 *
 * Phase 1 gathers a strided input into the workspace (the kernels read contiguous data), drops
 * size-1 axes and merges neighbouring axes that are both reduced or both kept, which leaves
 * alternating groups. Two kernel shapes cover every pattern:
 *   - mode A, innermost group reduced: each output is a sum of contiguous runs of L elements, one
 *     run per combination of the outer reduced groups;
 *   - mode B, innermost group kept (I contiguous outputs): a tile of outputs adds whole rows of I
 *     elements, one row per combination of the reduced groups.
 * Floating sums run in fp32 lanes over fixed blocks (RED_BLOCK elements in mode A, RED_ROWS rows in
 * mode B) whose totals are added in fp64; DOUBLE sums stay fp64; integer sums are int64. When there
 * are few outputs, the combinations are split into a number of parts fixed by the shape, each part
 * summed by one unit into a workspace partial, and a second launch adds the parts in order. The
 * order of every addition therefore depends only on the shape: results are identical for any
 * number of threads.
 */
#include <math.h>
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_mean.h"
#include "aclnnop/aclnn_reduce_sum.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "fp_convert.h"

#define RED_BLOCK 4096        /* mode A: elements per fp32 block */
#define RED_ROWS 64           /* mode B: rows per fp32 block */
#define RED_TILE 256          /* mode B: output columns per unit */
#define RED_UNIT_ELEMS 65536  /* mode A: input elements per unit (many small outputs) */
#define RED_PART_ELEMS (1 << 20) /* target input elements per part when splitting */
#define RED_MAX_PARTS 256

enum { K_F32 = 0, K_F64 = 1, K_I64 = 2 };

typedef union red_acc {
    double d;
    int64_t i;
} red_acc;

typedef struct red_args {
    const void *x;
    void *out;
    red_acc *part; /* [n_out][P] when P > 1 */
    int32_t in_dt, cast_dt, out_dt, kind;
    int32_t mode, nk, nr, final_only;
    int64_t ksize[CANNON_OP_MAX_RANK], kstride[CANNON_OP_MAX_RANK];
    int64_t rsize[CANNON_OP_MAX_RANK], rstride[CANNON_OP_MAX_RANK];
    int64_t inner;   /* L (mode A) or I (mode B) */
    int64_t n_out;   /* output elements */
    int64_t n_combo; /* combinations of the reduced groups (besides the inner run in mode A) */
    int64_t P, combos_per_part;
    int64_t outs_per_unit; /* mode A: outputs per unit; mode B: RED_TILE */
    int64_t tiles;         /* mode B: column tiles per kept-outer index */
    int64_t units;         /* output units (each split into P parts) */
    double scale;          /* 1, or 1 / count for Mean */
    int64_t mean_count;    /* Mean in an integer dtype: the reduced count (0: empty) */
    int32_t mean_int;      /* Mean in an integer dtype */
} red_args;

/* ---- element access ---- */

static int is_int_dt(aclDataType t)
{
    return t == ACL_INT8 || t == ACL_UINT8 || t == ACL_INT16 || t == ACL_INT32 || t == ACL_INT64 || t == ACL_BOOL;
}

static double load_d(const void *x, int dt, int64_t i)
{
    switch (dt) {
    case ACL_FLOAT:
        return ((const float *)x)[i];
    case ACL_FLOAT16:
        return cannon_f16_to_f32(((const uint16_t *)x)[i]);
    case ACL_BF16:
        return cannon_bf16_to_f32(((const uint16_t *)x)[i]);
    case ACL_DOUBLE:
        return ((const double *)x)[i];
    case ACL_INT8:
        return ((const int8_t *)x)[i];
    case ACL_UINT8:
        return ((const uint8_t *)x)[i];
    case ACL_BOOL:
        return ((const uint8_t *)x)[i] != 0;
    case ACL_INT16:
        return ((const int16_t *)x)[i];
    case ACL_INT32:
        return ((const int32_t *)x)[i];
    default:
        return (double)((const int64_t *)x)[i];
    }
}

static int64_t wrap_int(int64_t v, int dt)
{
    switch (dt) {
    case ACL_INT8:
        return (int8_t)(uint8_t)v;
    case ACL_UINT8:
        return (uint8_t)v;
    case ACL_INT16:
        return (int16_t)(uint16_t)v;
    case ACL_INT32:
        return (int32_t)(uint32_t)v;
    default:
        return v;
    }
}

static int64_t load_i(const void *x, int dt, int64_t i, int cast_dt)
{
    int64_t v;
    if (dt == ACL_INT64) {
        v = ((const int64_t *)x)[i];
    } else if (is_int_dt((aclDataType)dt)) {
        v = (int64_t)load_d(x, dt, i);
    } else {
        /* float -> integer dtype truncates toward zero; values no integer holds give 0 */
        const double d = load_d(x, dt, i);
        v = (d > -9.2e18 && d < 9.2e18) ? (int64_t)d : 0;
    }
    return wrap_int(v, cast_dt);
}

/* Round an fp32 value to the dtype the input is converted to before summing. */
static inline float round_to(float f, int cast_dt)
{
    if (cast_dt == ACL_FLOAT16)
        return cannon_f16_to_f32(cannon_f32_to_f16(f));
    if (cast_dt == ACL_BF16)
        return cannon_bf16_to_f32(cannon_f32_to_bf16(f));
    return f;
}

/* n contiguous elements from x + off as fp32 in @p buf (or x itself when already fp32 values). */
static const float *load_f32_run(const red_args *a, int64_t off, int64_t n, float *buf)
{
    if (a->in_dt == ACL_FLOAT && a->cast_dt == ACL_FLOAT)
        return (const float *)a->x + off;
    const int narrow = a->cast_dt != a->in_dt && a->cast_dt != ACL_FLOAT;
    for (int64_t j = 0; j < n; j++) {
        float f = (float)load_d(a->x, a->in_dt, off + j);
        buf[j] = narrow ? round_to(f, a->cast_dt) : f;
    }
    return buf;
}

/* fp32 sum of n <= RED_BLOCK values in 16 lanes and a fixed tree. */
static float sum_block_f32(const float *p, int64_t n)
{
    float l[16] = {0};
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int j = 0; j < 16; j++)
            l[j] += p[i + j];
    for (int j = 0; i < n; i++, j++)
        l[j] += p[i];
    for (int w = 8; w >= 1; w /= 2)
        for (int j = 0; j < w; j++)
            l[j] += l[j + w];
    return l[0];
}

/* Offset of combination c of the reduced groups (row-major over them). */
static int64_t combo_off(const red_args *a, int64_t c)
{
    int64_t off = 0;
    for (int g = a->nr - 1; g >= 0; g--) {
        off += (c % a->rsize[g]) * a->rstride[g];
        c /= a->rsize[g];
    }
    return off;
}

static int64_t kept_off(const red_args *a, int64_t k)
{
    int64_t off = 0;
    for (int g = a->nk - 1; g >= 0; g--) {
        off += (k % a->ksize[g]) * a->kstride[g];
        k /= a->ksize[g];
    }
    return off;
}

/* Write @p d as element @p o of a floating out (FLOAT, FLOAT16, BF16 or DOUBLE). */
static void store_float(void *out, int out_dt, int64_t o, double d)
{
    switch (out_dt) {
    case ACL_FLOAT:
        ((float *)out)[o] = (float)d;
        break;
    case ACL_FLOAT16:
        ((uint16_t *)out)[o] = cannon_f32_to_f16((float)d);
        break;
    case ACL_BF16:
        ((uint16_t *)out)[o] = cannon_f32_to_bf16((float)d);
        break;
    default:
        ((double *)out)[o] = d;
        break;
    }
}

static void store_out(const red_args *a, int64_t o, red_acc v)
{
    void *out = a->out;
    if (a->kind == K_I64) {
        int64_t sv = v.i;
        if (a->mean_int) {
            /* Integer Mean: the int64 sum divided by the count, truncated toward zero, in `dtype`,
             * then converted to out's dtype (any of the integer or floating ones); 0 when empty. */
            sv = a->mean_count > 0 ? wrap_int(sv / a->mean_count, a->cast_dt) : 0;
            if (!is_int_dt((aclDataType)a->out_dt)) {
                store_float(out, a->out_dt, o, (double)sv);
                return;
            }
        }
        const int64_t iv = wrap_int(sv, a->out_dt);
        switch (a->out_dt) {
        case ACL_INT8:
            ((int8_t *)out)[o] = (int8_t)iv;
            break;
        case ACL_UINT8:
            ((uint8_t *)out)[o] = (uint8_t)iv;
            break;
        case ACL_INT16:
            ((int16_t *)out)[o] = (int16_t)iv;
            break;
        case ACL_INT32:
            ((int32_t *)out)[o] = (int32_t)iv;
            break;
        default:
            ((int64_t *)out)[o] = iv;
            break;
        }
        return;
    }
    double d = v.d * a->scale;
    /* The result exists in `dtype` first (Mean then casts it to out's dtype). */
    if (a->cast_dt != ACL_DOUBLE)
        d = round_to((float)d, a->cast_dt);
    store_float(out, a->out_dt, o, d);
}

/* Mode A: the sum for output o over combinations [c0, c1). */
static red_acc sum_runs(const red_args *a, int64_t o, int64_t c0, int64_t c1)
{
    const int64_t base = kept_off(a, o), L = a->inner;
    red_acc acc;
    if (a->kind == K_I64) {
        int64_t s = 0;
        for (int64_t c = c0; c < c1; c++) {
            const int64_t off = base + combo_off(a, c);
            for (int64_t j = 0; j < L; j++)
                s = (int64_t)((uint64_t)s + (uint64_t)load_i(a->x, a->in_dt, off + j, a->cast_dt));
        }
        acc.i = s;
        return acc;
    }
    double s = 0;
    if (a->kind == K_F64) {
        for (int64_t c = c0; c < c1; c++) {
            const int64_t off = base + combo_off(a, c);
            for (int64_t j0 = 0; j0 < L; j0 += RED_BLOCK) {
                const int64_t n = L - j0 < RED_BLOCK ? L - j0 : RED_BLOCK;
                double l[8] = {0};
                int64_t j = 0;
                for (; j + 8 <= n; j += 8)
                    for (int q = 0; q < 8; q++)
                        l[q] += load_d(a->x, a->in_dt, off + j0 + j + q);
                for (int q = 0; j < n; j++, q++)
                    l[q] += load_d(a->x, a->in_dt, off + j0 + j);
                s += ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]));
            }
        }
        acc.d = s;
        return acc;
    }
    float buf[RED_BLOCK];
    for (int64_t c = c0; c < c1; c++) {
        const int64_t off = base + combo_off(a, c);
        for (int64_t j0 = 0; j0 < L; j0 += RED_BLOCK) {
            const int64_t n = L - j0 < RED_BLOCK ? L - j0 : RED_BLOCK;
            s += (double)sum_block_f32(load_f32_run(a, off + j0, n, buf), n);
        }
    }
    acc.d = s;
    return acc;
}

/* Mode B: sums for outputs ko * I + [j0, j0 + n) over combinations [c0, c1) into acc[n]. */
static void sum_rows(const red_args *a, int64_t ko, int64_t j0, int64_t n, int64_t c0, int64_t c1, red_acc *acc)
{
    const int64_t base = kept_off(a, ko) + j0;
    if (a->kind == K_I64) {
        for (int64_t j = 0; j < n; j++)
            acc[j].i = 0;
        for (int64_t c = c0; c < c1; c++) {
            const int64_t off = base + combo_off(a, c);
            for (int64_t j = 0; j < n; j++)
                acc[j].i = (int64_t)((uint64_t)acc[j].i + (uint64_t)load_i(a->x, a->in_dt, off + j, a->cast_dt));
        }
        return;
    }
    for (int64_t j = 0; j < n; j++)
        acc[j].d = 0.0;
    if (a->kind == K_F64) {
        for (int64_t c = c0; c < c1; c++) {
            const int64_t off = base + combo_off(a, c);
            for (int64_t j = 0; j < n; j++)
                acc[j].d += load_d(a->x, a->in_dt, off + j);
        }
        return;
    }
    float part[RED_TILE], buf[RED_TILE];
    for (int64_t cb = c0; cb < c1; cb += RED_ROWS) {
        const int64_t ce = c1 - cb < RED_ROWS ? c1 : cb + RED_ROWS;
        for (int64_t j = 0; j < n; j++)
            part[j] = 0.0f;
        for (int64_t c = cb; c < ce; c++) {
            const float *p = load_f32_run(a, base + combo_off(a, c), n, buf);
            for (int64_t j = 0; j < n; j++)
                part[j] += p[j];
        }
        for (int64_t j = 0; j < n; j++)
            acc[j].d += (double)part[j];
    }
}

static int red_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const red_args *a = (const red_args *)args;
    const int64_t u = (int64_t)ctx->block_idx / a->P, p = (int64_t)ctx->block_idx % a->P;
    const int64_t c0 = p * a->combos_per_part;
    const int64_t c1 = a->n_combo - c0 < a->combos_per_part ? a->n_combo : c0 + a->combos_per_part;
    if (a->mode == 0) {
        const int64_t o0 = u * a->outs_per_unit;
        const int64_t o1 = a->n_out - o0 < a->outs_per_unit ? a->n_out : o0 + a->outs_per_unit;
        for (int64_t o = o0; o < o1; o++) {
            const red_acc v = sum_runs(a, o, c0, c1);
            if (a->P > 1)
                a->part[o * a->P + p] = v;
            else
                store_out(a, o, v);
        }
        return 0;
    }
    const int64_t ko = u / a->tiles, t = u % a->tiles;
    const int64_t j0 = t * RED_TILE;
    const int64_t n = a->inner - j0 < RED_TILE ? a->inner - j0 : RED_TILE;
    red_acc acc[RED_TILE];
    sum_rows(a, ko, j0, n, c0, c1, acc);
    for (int64_t j = 0; j < n; j++) {
        const int64_t o = ko * a->inner + j0 + j;
        if (a->P > 1)
            a->part[o * a->P + p] = acc[j];
        else
            store_out(a, o, acc[j]);
    }
    return 0;
}

/* Second launch when split: add each output's parts in order. */
static int red_final_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const red_args *a = (const red_args *)args;
    const int64_t per = 4096;
    const int64_t o0 = (int64_t)ctx->block_idx * per;
    const int64_t o1 = a->n_out - o0 < per ? a->n_out : o0 + per;
    for (int64_t o = o0; o < o1; o++) {
        red_acc v;
        v.i = 0;
        if (a->kind == K_I64) {
            for (int64_t p = 0; p < a->P; p++)
                v.i = (int64_t)((uint64_t)v.i + (uint64_t)a->part[o * a->P + p].i);
        } else {
            v.d = 0;
            for (int64_t p = 0; p < a->P; p++)
                v.d += a->part[o * a->P + p].d;
        }
        store_out(a, o, v);
    }
    return 0;
}

/* ---- phase 1 ---- */

/* Check the @p dtype argument (the type self is converted to) against @p set. */
static bool check_dtype_arg(cannon_op *op, aclDataType dtype, cannon_dtype_set set)
{
    if (!cannonOpOk(op) || cannonDtypeIn(dtype, set))
        return cannonOpOk(op);
    char names[256];
    cannonDtypeSetFormat(set, names, sizeof names);
    return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "dtype %s is not supported (%s)", cannonDtypeName(dtype), names);
}

static aclnnStatus plan(int is_mean, const aclTensor *self, const aclIntArray *dims, bool keep, aclDataType dtype,
                        aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const char *api = is_mean ? "aclnnMean" : "aclnnReduceSum";
    /* Sums and means are written in any summable type but BOOL; Mean converts self to @p dtype
     * and the mean to out's dtype, each a conversion CANN allows (no floating -> integer). */
    const cannon_dtype_set out_dts = (is_mean ? cn_dts_Mean() : cn_dts_ReduceSum()) & ~CANNON_DT_BOOL;
    cannon_op op;
    cannon_tensor_view vx, vo;
    cannonOpBegin(&op, api, workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, is_mean ? "dim" : "dims", dims, "out", out, NULL);
    cannonOpTensor(&op, "self", self, is_mean ? cn_dts_Mean() : cn_dts_ReduceSum(), &vx);
    cannonOpTensor(&op, "out", out, out_dts, &vo);
    if (is_mean && check_dtype_arg(&op, dtype, out_dts)) {
        if (!cannonDtypeCanCast(vx.dtype, dtype))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "self dtype %s cannot be converted to dtype %s",
                         cannonDtypeName(vx.dtype), cannonDtypeName(dtype));
        else if (!cannonDtypeCanCast(dtype, vo.dtype))
            cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "dtype %s cannot be converted to out dtype %s",
                         cannonDtypeName(dtype), cannonDtypeName(vo.dtype));
    } else if (cannonOpOk(&op) && dtype != vo.dtype)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "dtype %s differs from out dtype %s", cannonDtypeName(dtype),
                     cannonDtypeName(vo.dtype));
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    uint64_t nd = 0;
    const int64_t *dv = cannonIntArrayData(dims, &nd);
    const int64_t rank = vx.ndim;
    int red[CANNON_OP_MAX_RANK] = {0};
    if (nd == 0) {
        for (int64_t d = 0; d < rank; d++)
            red[d] = 1;
    }
    for (uint64_t k = 0; k < nd; k++) {
        int64_t d = dv[k];
        if (!cannonOpDim(&op, "dim", &d, rank))
            return cannonOpFinish(&op);
        if (rank > 0) {
            if (red[d]) {
                cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "dim %lld appears twice", (long long)d);
                return cannonOpFinish(&op);
            }
            red[d] = 1;
        }
    }
    /* Expected output shape. */
    int64_t eshape[CANNON_OP_MAX_RANK];
    int64_t erank = 0, count = 1;
    for (int64_t d = 0; d < rank; d++) {
        if (red[d]) {
            count *= vx.shape[d];
            if (keep)
                eshape[erank++] = 1;
        } else {
            eshape[erank++] = vx.shape[d];
        }
    }
    const cannon_tensor_view ve = {.dtype = vo.dtype, .ndim = erank, .shape = eshape};
    /* ReduceSum, like CANN's, also takes an out of another shape when the result and out both hold
     * exactly one element (a full reduction to [] written into [1], [1,1], ...). */
    int64_t n_expect = 1;
    for (int64_t d = 0; d < erank; d++)
        n_expect *= eshape[d];
    const bool single = !is_mean && n_expect == 1 && cannonTensorNumel(out) == 1;
    if (!single && !cannonOpSameShape(&op, "out", &vo, "the reduced self", &ve))
        return cannonOpFinish(&op);

    const int sx = cannonOpInput(&op, self);
    const int so = cannonOpOutput(&op, out);
    const int64_t n_out = cannonTensorNumel(out), n_in = cannonTensorNumel(self);
    if (n_out == 0)
        return cannonOpFinish(&op);

    red_args a;
    memset(&a, 0, sizeof a);
    a.in_dt = vx.dtype;
    a.cast_dt = dtype;
    a.out_dt = vo.dtype;
    a.kind = is_int_dt(dtype) ? K_I64 : dtype == ACL_DOUBLE ? K_F64 : K_F32;
    a.scale = is_mean ? 1.0 / (double)count : 1.0;
    a.mean_int = is_mean && a.kind == K_I64;
    a.mean_count = a.mean_int ? count : 0;
    a.n_out = n_out;
    cannon_arg_ref refs[3];
    size_t nrefs = 0;
    cannonOpBind(&op, sx, CANNON_BIND_IN, (uint32_t)offsetof(red_args, x), &refs[nrefs++]);
    cannonOpBind(&op, so, CANNON_BIND_OUT, (uint32_t)offsetof(red_args, out), &refs[nrefs++]);

    /* Groups of the contiguous input: drop size-1 axes, merge equal neighbours. */
    int64_t gsize[CANNON_OP_MAX_RANK], gstride[CANNON_OP_MAX_RANK];
    int gred[CANNON_OP_MAX_RANK];
    int ng = 0;
    for (int64_t d = 0; d < rank; d++) {
        if (vx.shape[d] == 1)
            continue;
        if (ng > 0 && gred[ng - 1] == red[d]) {
            gsize[ng - 1] *= vx.shape[d];
        } else {
            gsize[ng] = vx.shape[d];
            gred[ng] = red[d];
            ng++;
        }
    }
    int64_t acc_stride = 1;
    for (int g = ng - 1; g >= 0; g--) {
        gstride[g] = acc_stride;
        acc_stride *= gsize[g];
    }
    a.mode = (ng > 0 && gred[ng - 1]) || n_in == 0 ? 0 : 1;
    if (n_in == 0) {
        /* Every output is an empty sum (count is 0): one unit per block of outputs, no combos. */
        a.nk = 0;
        a.nr = 0;
        a.inner = 0;
        a.n_combo = 0;
    } else {
        const int last = ng - 1;
        a.inner = ng > 0 ? gsize[last] : 1;
        for (int g = 0; g < (ng > 0 ? last : 0); g++) {
            if (gred[g]) {
                a.rsize[a.nr] = gsize[g];
                a.rstride[a.nr++] = gstride[g];
            } else {
                a.ksize[a.nk] = gsize[g];
                a.kstride[a.nk++] = gstride[g];
            }
        }
        a.n_combo = 1;
        for (int g = 0; g < a.nr; g++)
            a.n_combo *= a.rsize[g];
    }
    const int64_t per_out = n_out > 0 ? (n_in + n_out - 1) / n_out : 0; /* elements per output */
    if (a.mode == 0) {
        if (n_in == 0) {
            /* kept_off of o must be 0 and no runs are read */
            a.nk = 0;
        }
        a.outs_per_unit = per_out >= RED_UNIT_ELEMS ? 1 : RED_UNIT_ELEMS / (per_out > 0 ? per_out : 1);
        a.units = (n_out + a.outs_per_unit - 1) / a.outs_per_unit;
    } else {
        a.outs_per_unit = RED_TILE;
        a.tiles = (a.inner + RED_TILE - 1) / RED_TILE;
        int64_t kept_outer = 1;
        for (int g = 0; g < a.nk; g++)
            kept_outer *= a.ksize[g];
        a.units = kept_outer * a.tiles;
    }
    /* Few units with much work each: split the combinations into parts (a function of the
     * shape only, so the summation order never depends on the machine). */
    a.P = 1;
    if (a.units < 64 && a.n_combo > 1) {
        const int64_t unit_elems = n_in / a.units;
        int64_t P = (unit_elems + RED_PART_ELEMS - 1) / RED_PART_ELEMS;
        if (P > RED_MAX_PARTS)
            P = RED_MAX_PARTS;
        if (P > a.n_combo)
            P = a.n_combo;
        if (P > 1)
            a.P = P;
    }
    a.combos_per_part = (a.n_combo + a.P - 1) / a.P;
    if (a.combos_per_part == 0)
        a.combos_per_part = 1;
    if (a.P > 1) {
        uint64_t part_off = 0;
        cannonOpWorkspace(&op, (uint64_t)n_out * (uint64_t)a.P * sizeof(red_acc), &part_off);
        refs[nrefs++] = (cannon_arg_ref){(uint32_t)offsetof(red_args, part), CANNON_SLOT_WORKSPACE, (int64_t)part_off};
    }
    if (a.units * a.P > ((int64_t)1 << 30))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "tensor too large");
    cannonOpKernel(&op, api, red_kernel, (uint32_t)(a.units * a.P), &a, sizeof a, refs, nrefs);
    if (a.P > 1)
        cannonOpKernel(&op, api, red_final_kernel, (uint32_t)((n_out + 4095) / 4096), &a, sizeof a, refs, nrefs);
    return cannonOpFinish(&op);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnReduceSumGetWorkspaceSize(const aclTensor *self, const aclIntArray *dims,
                                                               bool keepDims, aclDataType dtype, aclTensor *out,
                                                               uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return plan(0, self, dims, keepDims, dtype, out, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnMeanGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, bool keepDim,
                                                          aclDataType dtype, aclTensor *out, uint64_t *workspaceSize,
                                                          aclOpExecutor **executor)
{
    return plan(1, self, dim, keepDim, dtype, out, workspaceSize, executor);
}

