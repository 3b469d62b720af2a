/*
 * The shape family's copy, fill and indexed-copy kernels and their recording (see shape_copy.h).
 */
#include "shape_copy.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "acl/acl_base_rt.h"
#include "acl/error_codes/rt_error_codes.h"
#include "aclnn/opdev/cannon_access.h"

#include "fp_convert.h"

/* Bytes moved per block of a copy, and per block of an indexed copy. */
#define SC_BLOCK_BYTES (256 * 1024)
#define SI_BLOCK_BYTES (64 * 1024)

int64_t shape_numel(const cannon_tensor_view *v)
{
    int64_t n = 1;
    for (int64_t d = 0; d < v->ndim; d++)
        n *= v->shape[d];
    return n;
}

bool shape_expect(cannon_op *op, const char *name, const cannon_tensor_view *v, int64_t ndim, const int64_t *shape)
{
    const cannon_tensor_view e = {.dtype = v->dtype, .ndim = ndim, .shape = shape};
    return cannonOpSameShape(op, name, v, "the expected", &e);
}

void shape_geom_init(shape_geom *g, int64_t ndim, const int64_t *shape, const int64_t *sst, const int64_t *dst,
                     size_t esize)
{
    int64_t sh[SHAPE_MAX_DIMS], ss[SHAPE_MAX_DIMS], ds[SHAPE_MAX_DIMS];
    int64_t nd = 0, numel = 1;
    memset(g, 0, sizeof *g);
    g->esize = (int32_t)esize;
    /* innermost first: drop size-1 dims, merge a dim into the inner one when it steps exactly over
     * the inner extent in both views */
    for (int64_t d = ndim - 1; d >= 0; d--) {
        const int64_t n = shape[d];
        numel *= n;
        if (n == 1)
            continue;
        if (nd > 0 && sst[d] == sh[nd - 1] * ss[nd - 1] && dst[d] == sh[nd - 1] * ds[nd - 1]) {
            sh[nd - 1] *= n;
            continue;
        }
        sh[nd] = n;
        ss[nd] = sst[d];
        ds[nd] = dst[d];
        nd++;
    }
    g->numel = numel;
    if (numel == 0)
        return;
    if (nd == 0) {
        sh[0] = 1;
        ss[0] = ds[0] = 1;
        nd = 1;
    }
    g->ndim = (int32_t)nd;
    for (int64_t i = 0; i < nd; i++) {
        g->shape[i] = sh[nd - 1 - i];
        g->sst[i] = ss[nd - 1 - i];
        g->dst[i] = ds[nd - 1 - i];
    }
}

/* rows x n elements: row r, element i from src + (r * sr + i * ss) * es to dst + (r * dr + i * ds) *
 * es, one constant-size memmove each (a load and a store, no alignment requirement). Short rows (a
 * repeat-interleave's repeats, a pair of complex parts) go through it as one loop nest rather than
 * a run call per row. */
static void shape_copy_rows(char *dst, const char *src, int64_t rows, int64_t n, int64_t ss, int64_t ds,
                            int64_t sr, int64_t dr, size_t es)
{
    const ptrdiff_t si = (ptrdiff_t)(ss * (int64_t)es), di = (ptrdiff_t)(ds * (int64_t)es);
    const ptrdiff_t srb = (ptrdiff_t)(sr * (int64_t)es), drb = (ptrdiff_t)(dr * (int64_t)es);
#define SC_ROWS(BYTES)                                                                             \
    for (int64_t r = 0; r < rows; r++, src += srb, dst += drb)                                    \
        for (int64_t i = 0; i < n; i++)                                                            \
            memmove(dst + i * di, src + i * si, (BYTES));
    switch (es) {
    case 1:
        SC_ROWS(1);
        break;
    case 2:
        SC_ROWS(2);
        break;
    case 4:
        SC_ROWS(4);
        break;
    case 8:
        SC_ROWS(8);
        break;
    default:
        SC_ROWS(16);
        break;
    }
#undef SC_ROWS
}

void shape_copy_run(char *dst, const char *src, int64_t n, int64_t ss, int64_t ds, size_t es)
{
    if (n <= 0)
        return;
    /* memmove: an output view may overlap an input view (the result is then unspecified, as in
     * CANN, but no access is undefined) */
    if (ss == 1 && ds == 1) {
        memmove(dst, src, (size_t)n * es);
        return;
    }
    if (ss == 0 && ds == 1) {
        /* one element repeated: place it once, then double the filled prefix */
        memmove(dst, src, es);
        for (int64_t k = 1; k < n;) {
            const int64_t m = k < n - k ? k : n - k;
            memcpy(dst + k * (int64_t)es, dst, (size_t)m * es);
            k += m;
        }
        return;
    }
    shape_copy_rows(dst, src, 1, n, ss, ds, 0, 0, es);
}

/* After dim @p k's index has been advanced: when it reached the dim's size, reset it and carry into
 * the dims outside it, moving the source and destination offsets along. */
static void sc_carry(const shape_geom *g, int64_t k, int64_t *idx, int64_t *so, int64_t *dof)
{
    for (int64_t d = k; d >= 0 && idx[d] == g->shape[d]; d--) {
        *so -= g->shape[d] * g->sst[d];
        *dof -= g->shape[d] * g->dst[d];
        idx[d] = 0;
        if (d == 0)
            break;
        idx[d - 1]++;
        *so += g->sst[d - 1];
        *dof += g->dst[d - 1];
    }
}

/* Inner rows at most this long go through shape_copy_rows. */
#define SC_SHORT_ROW 16

void shape_copy_range(const shape_geom *g, const char *src, char *dst, int64_t pos, int64_t end)
{
    const int64_t nd = g->ndim;
    const size_t es = (size_t)g->esize;
    if (pos >= end || nd == 0)
        return;
    int64_t idx[SHAPE_MAX_DIMS];
    int64_t so = 0, dof = 0, rem = pos;
    for (int64_t d = nd - 1; d >= 0; d--) {
        idx[d] = rem % g->shape[d];
        rem /= g->shape[d];
        so += idx[d] * g->sst[d];
        dof += idx[d] * g->dst[d];
    }
    const int64_t last = nd - 1, nl = g->shape[last], sl = g->sst[last], dl = g->dst[last];
    while (pos < end) {
        if (nd >= 2 && nl <= SC_SHORT_ROW && idx[last] == 0 && end - pos >= 2 * nl) {
            /* whole short rows of the next dim out: one loop nest, then the carry as one step */
            const int64_t o = last - 1;
            int64_t rows = g->shape[o] - idx[o];
            if (rows > (end - pos) / nl)
                rows = (end - pos) / nl;
            if (rows >= 2) {
                shape_copy_rows(dst + dof * (int64_t)es, src + so * (int64_t)es, rows, nl, sl, dl, g->sst[o],
                                g->dst[o], es);
                pos += rows * nl;
                idx[o] += rows;
                so += rows * g->sst[o];
                dof += rows * g->dst[o];
                sc_carry(g, o, idx, &so, &dof);
                continue;
            }
        }
        int64_t n = nl - idx[last];
        if (n > end - pos)
            n = end - pos;
        shape_copy_run(dst + dof * (int64_t)es, src + so * (int64_t)es, n, sl, dl, es);
        pos += n;
        idx[last] += n;
        so += n * sl;
        dof += n * dl;
        sc_carry(g, last, idx, &so, &dof);
    }
}

/* ---- copy and fill ------------------------------------------------------------------------- */

typedef struct sc_args {
    const char *src; /* bound (unused by a fill) */
    char *dst;       /* bound */
    int64_t chunk;   /* elements per block */
    int32_t fill, pad_;
    unsigned char value[16];
    shape_geom g;
} sc_args;

static int sc_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const sc_args *a = (const sc_args *)args;
    const int64_t pos = (int64_t)ctx->block_idx * a->chunk;
    const int64_t end = a->g.numel - pos < a->chunk ? a->g.numel : pos + a->chunk;
    shape_copy_range(&a->g, a->fill ? (const char *)a->value : a->src, a->dst, pos, end);
    return 0;
}

static bool record_sc(cannon_op *op, sc_args *a, int src_slot, int64_t src_off, int dst_slot, int64_t dst_off)
{
    if (!cannonOpOk(op) || a->g.numel == 0)
        return cannonOpOk(op);
    const int64_t es = a->g.esize;
    int64_t chunk = SC_BLOCK_BYTES / es;
    while ((a->g.numel + chunk - 1) / chunk > (int64_t)1 << 24)
        chunk *= 2;
    a->chunk = chunk;
    cannon_arg_ref refs[2];
    size_t n = 0;
    refs[n++] = (cannon_arg_ref){(uint32_t)offsetof(sc_args, dst), dst_slot, dst_off * es};
    if (!a->fill)
        refs[n++] = (cannon_arg_ref){(uint32_t)offsetof(sc_args, src), src_slot, src_off * es};
    const uint32_t blocks = (uint32_t)((a->g.numel + chunk - 1) / chunk);
    return cannonOpKernel(op, a->fill ? "ShapeFill" : "ShapeCopy", sc_kernel, blocks, a, sizeof *a, refs, n);
}

bool shape_record_copy(cannon_op *op, int src_slot, int64_t src_off, int dst_slot, int64_t dst_off,
                       const shape_geom *g)
{
    sc_args a;
    memset(&a, 0, sizeof a);
    a.g = *g;
    return record_sc(op, &a, src_slot, src_off, dst_slot, dst_off);
}

bool shape_record_fill(cannon_op *op, int dst_slot, int64_t dst_off, int64_t ndim, const int64_t *shape,
                       const int64_t *strides, size_t esize, const void *value)
{
    sc_args a;
    int64_t zero[SHAPE_MAX_DIMS] = {0};
    memset(&a, 0, sizeof a);
    shape_geom_init(&a.g, ndim, shape, zero, strides, esize);
    a.fill = 1;
    memcpy(a.value, value, esize);
    return record_sc(op, &a, -1, 0, dst_slot, dst_off);
}

/* ---- converting copy ---------------------------------------------------------------------- */

typedef struct cv_args {
    const char *src;
    char *dst;
    int64_t chunk;
    int32_t sdt, ddt, ses, des, pad_[2];
    shape_geom g;
} cv_args;

static int cv_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const cv_args *a = (const cv_args *)args;
    const shape_geom *g = &a->g;
    int64_t pos = (int64_t)ctx->block_idx * a->chunk;
    const int64_t end = g->numel - pos < a->chunk ? g->numel : pos + a->chunk;
    const int64_t nd = g->ndim;
    int64_t idx[SHAPE_MAX_DIMS], so = 0, dof = 0, rem = pos;
    for (int64_t d = nd - 1; d >= 0; d--) {
        idx[d] = rem % g->shape[d];
        rem /= g->shape[d];
        so += idx[d] * g->sst[d];
        dof += idx[d] * g->dst[d];
    }
    for (; pos < end; pos++) {
        shape_convert_elem(a->src + so * a->ses, (aclDataType)a->sdt, a->dst + dof * a->des, (aclDataType)a->ddt);
        for (int64_t d = nd - 1; d >= 0; d--) {
            so += g->sst[d];
            dof += g->dst[d];
            if (++idx[d] < g->shape[d])
                break;
            so -= g->shape[d] * g->sst[d];
            dof -= g->shape[d] * g->dst[d];
            idx[d] = 0;
        }
    }
    return 0;
}

bool shape_record_convert(cannon_op *op, int src_slot, int64_t src_off, aclDataType sdt, int dst_slot,
                          int64_t dst_off, aclDataType ddt, const shape_geom *g)
{
    if (!cannonOpOk(op) || g->numel == 0)
        return cannonOpOk(op);
    cv_args a;
    memset(&a, 0, sizeof a);
    a.g = *g;
    a.sdt = (int32_t)sdt;
    a.ddt = (int32_t)ddt;
    a.ses = (int32_t)cannonDtypeSize(sdt);
    a.des = (int32_t)cannonDtypeSize(ddt);
    int64_t chunk = 64 * 1024;
    while ((g->numel + chunk - 1) / chunk > (int64_t)1 << 24)
        chunk *= 2;
    a.chunk = chunk;
    const cannon_arg_ref refs[2] = {
        {(uint32_t)offsetof(cv_args, src), src_slot, src_off * a.ses},
        {(uint32_t)offsetof(cv_args, dst), dst_slot, dst_off * a.des},
    };
    const uint32_t blocks = (uint32_t)((g->numel + chunk - 1) / chunk);
    return cannonOpKernel(op, "ShapeConvert", cv_kernel, blocks, &a, sizeof a, refs, 2);
}

/* ---- indexed copy ---------------------------------------------------------------------------- */

typedef struct si_args {
    const char *src;   /* bound */
    char *dst;         /* bound */
    const void *index; /* bound, contiguous */
    int64_t *last;     /* workspace: index copy's last position per destination slice */
    const char *api;   /* static string, for messages */
    int32_t scatter, idx64, neg_index;
    int32_t outer_ndim, index_ndim;
    int64_t n_outer, n_index, units, per_block;
    int64_t axis_size, axis_stride;
    int64_t outer_shape[CANNON_OP_MAX_RANK], outer_sst[CANNON_OP_MAX_RANK], outer_dst[CANNON_OP_MAX_RANK];
    int64_t index_shape[CANNON_OP_MAX_RANK], index_other[CANNON_OP_MAX_RANK];
    shape_geom inner; /* the inner block: source and destination strides */
    shape_geom zero;  /* the same block read from one zero element */
} si_args;

static inline int64_t si_index(const si_args *a, int64_t j)
{
    const int64_t k = a->idx64 ? ((const int64_t *)a->index)[j] : (int64_t)((const int32_t *)a->index)[j];
    return a->neg_index && k < 0 && k >= -a->axis_size ? k + a->axis_size : k;
}

/* One block: check every index; for an index copy, record the last position naming each slice. */
static int si_check_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const si_args *a = (const si_args *)args;
    int64_t bad = -1, badv = 0;
    for (int64_t j = 0; j < a->n_index; j++) {
        const int64_t k = si_index(a, j);
        if (k < 0 || k >= a->axis_size) {
            if (bad < 0) {
                bad = j;
                badv = a->idx64 ? ((const int64_t *)a->index)[j] : (int64_t)((const int32_t *)a->index)[j];
            }
            continue;
        }
        if (a->scatter)
            a->last[k] = j;
    }
    if (bad >= 0)
        return cannonKernelReportError(ctx, ACL_ERROR_RT_AICORE_EXCEPTION,
                                       "%s: index[%lld] = %lld is out of range [%lld, %lld)", a->api, (long long)bad,
                                       (long long)badv, a->neg_index ? -(long long)a->axis_size : 0LL,
                                       (long long)a->axis_size);
    return 0;
}

static int si_copy_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    static const unsigned char zeros[16];
    const si_args *a = (const si_args *)args;
    const int64_t u0 = (int64_t)ctx->block_idx * a->per_block;
    const int64_t u1 = a->units - u0 < a->per_block ? a->units : u0 + a->per_block;
    const int64_t es = a->inner.esize;
    for (int64_t u = u0; u < u1; u++) {
        int64_t o = u / a->n_index, j = u % a->n_index;
        const int64_t k = si_index(a, j);
        const bool ok = k >= 0 && k < a->axis_size;
        int64_t so = 0, dof = 0, other = 0;
        for (int32_t d = a->outer_ndim - 1; d >= 0; d--) {
            const int64_t i = o % a->outer_shape[d];
            o /= a->outer_shape[d];
            so += i * a->outer_sst[d];
            dof += i * a->outer_dst[d];
        }
        for (int32_t d = a->index_ndim - 1; d >= 0; d--) {
            other += (j % a->index_shape[d]) * a->index_other[d];
            j /= a->index_shape[d];
        }
        if (a->scatter) {
            if (!ok || a->last[k] != u % a->n_index)
                continue; /* a bad index, or a later position writes this slice */
            so += other;
            dof += k * a->axis_stride;
        } else {
            dof += other;
            if (!ok) {
                shape_copy_range(&a->zero, (const char *)zeros, a->dst + dof * es, 0, a->zero.numel);
                continue;
            }
            so += k * a->axis_stride;
        }
        shape_copy_range(&a->inner, a->src + so * es, a->dst + dof * es, 0, a->inner.numel);
    }
    return 0;
}

bool shape_record_index_copy(cannon_op *op, const shape_index_plan *p)
{
    if (!cannonOpOk(op))
        return false;
    si_args a;
    memset(&a, 0, sizeof a);
    shape_geom_init(&a.inner, p->inner_ndim, p->inner_shape, p->inner_sst, p->inner_dst, p->esize);
    if (p->n_index == 0)
        return true;
    int64_t zero[SHAPE_MAX_DIMS] = {0};
    shape_geom_init(&a.zero, p->inner_ndim, p->inner_shape, zero, p->inner_dst, p->esize);
    a.api = op->api;
    a.scatter = p->scatter;
    a.idx64 = p->index_dtype == ACL_INT64;
    a.neg_index = p->neg_index;
    a.outer_ndim = p->outer_ndim;
    a.index_ndim = p->index_ndim;
    a.n_outer = p->n_outer;
    a.n_index = p->n_index;
    a.units = p->n_outer * p->n_index;
    a.axis_size = p->axis_size;
    a.axis_stride = p->axis_stride;
    memcpy(a.outer_shape, p->outer_shape, sizeof a.outer_shape);
    memcpy(a.outer_sst, p->outer_sst, sizeof a.outer_sst);
    memcpy(a.outer_dst, p->outer_dst, sizeof a.outer_dst);
    memcpy(a.index_shape, p->index_shape, sizeof a.index_shape);
    memcpy(a.index_other, p->index_other, sizeof a.index_other);
    const int64_t ub = a.inner.numel * (int64_t)p->esize;
    int64_t per = ub >= SI_BLOCK_BYTES || ub == 0 ? 1 : SI_BLOCK_BYTES / ub;
    while ((a.units + per - 1) / per > (int64_t)1 << 24)
        per *= 2;
    a.per_block = per;

    cannon_arg_ref refs[4];
    const int64_t es = (int64_t)p->esize;
    refs[0] = (cannon_arg_ref){(uint32_t)offsetof(si_args, src), p->src_slot, p->src_off * es};
    refs[1] = (cannon_arg_ref){(uint32_t)offsetof(si_args, dst), p->dst_slot, p->dst_off * es};
    cannonOpBind(op, p->index_slot, CANNON_BIND_IN, (uint32_t)offsetof(si_args, index), &refs[2]);
    size_t n = 3;
    if (p->scatter) {
        uint64_t ws = 0;
        cannonOpWorkspace(op, (uint64_t)(p->axis_size > 0 ? p->axis_size : 1) * sizeof(int64_t), &ws);
        refs[n++] = (cannon_arg_ref){(uint32_t)offsetof(si_args, last), CANNON_SLOT_WORKSPACE, (int64_t)ws};
    }
    cannonOpKernel(op, "ShapeIndexCheck", si_check_kernel, 1, &a, sizeof a, refs, n);
    if (a.units == 0 || a.inner.numel == 0)
        return cannonOpOk(op);
    const uint32_t blocks = (uint32_t)((a.units + per - 1) / per);
    return cannonOpKernel(op, "ShapeIndexCopy", si_copy_kernel, blocks, &a, sizeof a, refs, n);
}

/* ---- scalars --------------------------------------------------------------------------------- */

/* d rounded to float with round-to-odd: a second rounding of the result to a type of at most 22
 * significant bits (FLOAT16, BFLOAT16) is then the correct single rounding of d. */
static float f32_round_odd(double d)
{
    float f = (float)d;
    if (d != d || (double)f == d)
        return f;
    uint32_t u = cannon_f32_bits(f);
    if (isinf(f))
        return cannon_bits_f32((u & 0x80000000u) | 0x7f7fffffu);
    if ((u & 1u) == 0)
        u = fabs((double)f) > fabs(d) ? u - 1 : u + 1;
    return cannon_bits_f32(u);
}

static int64_t sat_i64(double d)
{
    if (d != d)
        return 0;
    if (d >= 9223372036854775807.0)
        return INT64_MAX;
    if (d <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)d;
}

uint16_t shape_f64_to_f16(double d)
{
    return cannon_f32_to_f16(f32_round_odd(d));
}

uint16_t shape_f64_to_bf16(double d)
{
    return cannon_f32_to_bf16(f32_round_odd(d));
}

bool shape_scalar_to(const aclScalar *s, aclDataType dt, void *out)
{
    aclDataType st;
    unsigned char raw[16] = {0};
    if (!cannonScalarGet(s, &st, raw))
        return false;
    memset(out, 0, 16);
    return shape_convert_elem(raw, st, out, dt);
}

bool shape_convert_elem(const void *src, aclDataType st, void *out, aclDataType dt)
{
    const unsigned char *raw = (const unsigned char *)src;
    const size_t es = cannonDtypeSize(dt);
    if (es == 0)
        return false;
    if (st == dt) {
        memmove(out, raw, es); /* the converting copy's views may overlap */
        return true;
    }
    bool is_float = true;
    double d = 0, im = 0;
    int64_t i = 0;
    switch (st) {
    case ACL_FLOAT: {
        float f;
        memcpy(&f, raw, 4);
        d = f;
        break;
    }
    case ACL_DOUBLE:
        memcpy(&d, raw, 8);
        break;
    case ACL_FLOAT16: {
        uint16_t h;
        memcpy(&h, raw, 2);
        d = cannon_f16_to_f32(h);
        break;
    }
    case ACL_BF16: {
        uint16_t h;
        memcpy(&h, raw, 2);
        d = cannon_bf16_to_f32(h);
        break;
    }
    case ACL_COMPLEX64: {
        float f[2];
        memcpy(f, raw, 8);
        d = f[0];
        im = f[1];
        break;
    }
    case ACL_COMPLEX128: {
        double f[2];
        memcpy(f, raw, 16);
        d = f[0];
        im = f[1];
        break;
    }
    default: {
        is_float = false;
        switch (st) {
        case ACL_INT8:
            i = (int8_t)raw[0];
            break;
        case ACL_UINT8:
            i = raw[0];
            break;
        case ACL_BOOL:
            i = raw[0] != 0;
            break;
        case ACL_INT16: {
            int16_t v;
            memcpy(&v, raw, 2);
            i = v;
            break;
        }
        case ACL_UINT16: {
            uint16_t v;
            memcpy(&v, raw, 2);
            i = v;
            break;
        }
        case ACL_INT32: {
            int32_t v;
            memcpy(&v, raw, 4);
            i = v;
            break;
        }
        case ACL_UINT32: {
            uint32_t v;
            memcpy(&v, raw, 4);
            i = v;
            break;
        }
        case ACL_INT64:
        case ACL_UINT64:
            memcpy(&i, raw, 8);
            break;
        default:
            return false;
        }
        d = st == ACL_UINT64 ? (double)(uint64_t)i : (double)i;
    }
    }
    switch (dt) {
    case ACL_FLOAT: {
        const float f = is_float ? (float)d : st == ACL_UINT64 ? (float)(uint64_t)i : (float)i;
        memcpy(out, &f, 4);
        return true;
    }
    case ACL_DOUBLE:
        memcpy(out, &d, 8);
        return true;
    case ACL_FLOAT16: {
        const uint16_t h = cannon_f32_to_f16(f32_round_odd(d));
        memcpy(out, &h, 2);
        return true;
    }
    case ACL_BF16: {
        const uint16_t h = cannon_f32_to_bf16(f32_round_odd(d));
        memcpy(out, &h, 2);
        return true;
    }
    case ACL_COMPLEX64: {
        const float f[2] = {(float)d, (float)im};
        memcpy(out, f, 8);
        return true;
    }
    case ACL_COMPLEX128: {
        const double f[2] = {d, im};
        memcpy(out, f, 16);
        return true;
    }
    case ACL_BOOL:
        *(unsigned char *)out = is_float ? (d != 0 || im != 0) : i != 0;
        return true;
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0:
        *(unsigned char *)out = 0;
        return d == 0 && im == 0; /* all-zero bits only */
    default:
        break;
    }
    const int64_t v = is_float ? sat_i64(d) : i;
    switch (es) {
    case 1: {
        const uint8_t b = (uint8_t)v;
        memcpy(out, &b, 1);
        return true;
    }
    case 2: {
        const uint16_t b = (uint16_t)v;
        memcpy(out, &b, 2);
        return true;
    }
    case 4: {
        const uint32_t b = (uint32_t)v;
        memcpy(out, &b, 4);
        return true;
    }
    case 8:
        memcpy(out, &v, 8);
        return true;
    default:
        return false;
    }
}
