/* Shared planning helpers and kernel entries of the norm operators (see norm_op.h). */
#define _GNU_SOURCE /* sched_getcpu */
#include <math.h>
#include <sched.h>
#include <string.h>

#include "fp_convert.h"
#include "../kernels/isa.h"
#include "norm_op.h"

float cannon_norm_ld(const void *p, int64_t i, int32_t dtype)
{
    switch (dtype) {
    case NM_F32:
        return ((const float *)p)[i];
    case NM_F16:
        return cannon_f16_to_f32(((const uint16_t *)p)[i]);
    case NM_BF16:
        return cannon_bf16_to_f32(((const uint16_t *)p)[i]);
    case NM_I32:
        return (float)((const int32_t *)p)[i];
    case NM_I64:
        return (float)((const int64_t *)p)[i];
    default:
        return (float)((const double *)p)[i];
    }
}

void cannon_norm_st(void *p, int64_t i, int32_t dtype, float v)
{
    switch (dtype) {
    case NM_F32:
        ((float *)p)[i] = v;
        break;
    case NM_F16:
        ((uint16_t *)p)[i] = cannon_f32_to_f16(v);
        break;
    case NM_BF16:
        ((uint16_t *)p)[i] = cannon_f32_to_bf16(v);
        break;
    default:
        break;
    }
}

int nm_float_code(aclDataType t)
{
    switch (t) {
    case ACL_FLOAT:
        return NM_F32;
    case ACL_FLOAT16:
        return NM_F16;
    case ACL_BF16:
        return NM_BF16;
    default:
        return -1;
    }
}

int nm_any_code(aclDataType t)
{
    switch (t) {
    case ACL_INT32:
        return NM_I32;
    case ACL_INT64:
        return NM_I64;
    case ACL_DOUBLE:
        return NM_F64;
    default:
        return nm_float_code(t);
    }
}

size_t nm_esize(int code)
{
    switch (code) {
    case NM_F32:
    case NM_I32:
        return 4;
    case NM_F16:
    case NM_BF16:
        return 2;
    default:
        return 8;
    }
}

bool nm_is_channels_last(const aclTensor *t, int64_t ca)
{
    cannon_tensor_view v;
    if (!cannonTensorGetView(t, &v) || ca < 0 || ca >= v.ndim)
        return false;
    if (v.shape[ca] != 1 && v.strides[ca] != 1)
        return false;
    int64_t expect = v.shape[ca];
    for (int64_t d = v.ndim - 1; d >= 0; d--) {
        if (d == ca || v.shape[d] == 1)
            continue;
        if (v.strides[d] != expect)
            return false;
        expect *= v.shape[d];
    }
    return true;
}

int nm_input(cannon_op *op, const aclTensor *t)
{
    return t ? cannonOpInput(op, t) : -1;
}

int nm_output(cannon_op *op, const aclTensor *t)
{
    return t ? cannonOpOutput(op, t) : -1;
}

bool nm_bind(cannon_op *op, int slot, unsigned how, bool channels_last, uint32_t args_off, cannon_arg_ref *ref)
{
    return channels_last ? cannonOpBindView(op, slot, args_off, ref) : cannonOpBind(op, slot, how, args_off, ref);
}

size_t nm_vec_ref(cannon_op *op, const aclTensor *t, int slot, nm_vec *nv, uint32_t args_off, cannon_arg_ref *ref)
{
    memset(nv, 0, sizeof *nv);
    if (!t)
        return 0;
    cannon_tensor_view v;
    cannonTensorGetView(t, &v);
    nv->dtype = nm_any_code(v.dtype);
    nv->present = 1;
    if (v.ndim == 1) {
        nv->s1 = v.strides[0];
    } else if (v.ndim >= 2) {
        nv->s0 = v.strides[0];
        nv->s1 = v.strides[v.ndim - 1];
    }
    cannonOpBindView(op, slot, args_off, ref);
    return 1;
}

void nm_blocks(int64_t units, int64_t unit_bytes, int64_t *upb, uint32_t *block_dim)
{
    int64_t u = unit_bytes >= (64 << 10) ? 1 : (64 << 10) / (unit_bytes > 0 ? unit_bytes : 1);
    while ((units + u - 1) / u > ((int64_t)1 << 24))
        u *= 2;
    *upb = u;
    *block_dim = (uint32_t)((units + u - 1) / u);
    if (*block_dim == 0)
        *block_dim = 1;
}

bool nm_check_chan(cannon_op *op, const char *name, const aclTensor *t, int64_t C, bool optional)
{
    cannon_tensor_view v;
    if (!t && optional)
        return cannonOpOk(op);
    if (!cannonOpTensor(op, name, t, CANNON_DTS_F32_16, &v))
        return false;
    if (v.ndim != 1 || v.shape[0] != C) {
        char sh[200];
        cannonShapeFormat(&v, sh, sizeof sh);
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s shape %s is not [%lld] (1-D, the channel count)", name,
                            sh, (long long)C);
    }
    return true;
}

bool nm_check_eps(cannon_op *op, const char *name, double eps)
{
    if (!cannonOpOk(op))
        return false;
    if (!(eps >= 0.0) || isinf(eps))
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s %g must be finite and >= 0", name, eps);
    return true;
}

#define NM_DISPATCH(fn, a, u0, u1)                                                                   \
    switch ((a)->isa) {                                                                              \
    NM_CASE_AVX512(fn, a, u0, u1)                                                                    \
    NM_CASE_AVX2(fn, a, u0, u1)                                                                      \
    default:                                                                                         \
        cannon_norm_##fn##_scalar(a, u0, u1);                                                        \
        break;                                                                                       \
    }
#if defined(CANNON_OPS_HAVE_AVX512)
#define NM_CASE_AVX512(fn, a, u0, u1)                                                                \
    case CANNON_ISA_AVX512:                                                                          \
        cannon_norm_##fn##_avx512(a, u0, u1);                                                        \
        break;
#else
#define NM_CASE_AVX512(fn, a, u0, u1)
#endif
#if defined(CANNON_OPS_HAVE_AVX2)
#define NM_CASE_AVX2(fn, a, u0, u1)                                                                  \
    case CANNON_ISA_AVX2:                                                                            \
        cannon_norm_##fn##_avx2(a, u0, u1);                                                          \
        break;
#else
#define NM_CASE_AVX2(fn, a, u0, u1)
#endif

int nm_bn_reduce_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const nb_args *a = (const nb_args *)args;
    const int64_t u0 = (int64_t)ctx->block_idx * a->units_per_block;
    if (u0 >= a->units)
        return 0;
    const int64_t u1 = a->units - u0 < a->units_per_block ? a->units : u0 + a->units_per_block;
    NM_DISPATCH(bn_reduce, a, u0, u1)
    return 0;
}

/* Input bytes one elementwise unit reads (x and/or dy), for the rotated start after a reduction. */
static int64_t app_unit_bytes(const nb_args *a)
{
    return a->span * (a->I > 1 ? a->I : a->C) * (int64_t)nm_esize(a->dtype) *
           (int64_t)((a->use_x ? 1 : 0) + (a->use_g ? 1 : 0));
}

int nm_bn_apply_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const nb_args *a = (const nb_args *)args;
    /* After a reduction over the same data the most recently read units are the last ones, and
     * they are still in L2/L3: the workers take blocks in increasing index, so starting with the
     * last NM_REV_BYTES of input uses them first. The order is rotated, not reversed: blocks
     * [B-k, B) first, then [0, B-k), each walked forwards, so the hardware prefetchers follow one
     * ascending stream with a single jump (walking all blocks backwards makes them start over
     * at every block). Which block does which unit changes nothing else. */
    uint32_t b = ctx->block_idx;
    if (a->rev && ctx->block_dim > 1) {
        const int64_t per_unit = app_unit_bytes(a);
        const int64_t bb = per_unit * a->units_per_block > 0 ? per_unit * a->units_per_block : 1;
        int64_t k = (NM_REV_BYTES + bb - 1) / bb;
        if (k > (int64_t)ctx->block_dim)
            k = ctx->block_dim;
        b = (uint32_t)(((int64_t)b + ctx->block_dim - k) % ctx->block_dim);
    }
    const int64_t u0 = (int64_t)b * a->units_per_block;
    if (u0 >= a->units || (a->gate && *a->gate == 0.0f))
        return 0;
    const int64_t u1 = a->units - u0 < a->units_per_block ? a->units : u0 + a->units_per_block;
    NM_DISPATCH(bn_apply, a, u0, u1)
    return 0;
}

void nm_bn_red_chan(const nb_args *a, int64_t c0, int64_t c1)
{
    NM_DISPATCH(bn_red_chan, a, c0, c1)
}

void nm_bn_app_chan(const nb_args *a, int64_t c0, int64_t c1)
{
    NM_DISPATCH(bn_app_chan, a, c0, c1)
}

void nm_bn_pipe_grp(const nb_args *r, const nb_args *a, int64_t g0, int64_t g1, int64_t p0, int64_t p1, int64_t n0,
                    int64_t n1, int64_t pf_rows)
{
    switch (r->isa) {
#if defined(CANNON_OPS_HAVE_AVX512)
    case CANNON_ISA_AVX512:
        cannon_norm_bn_pipe_grp_avx512(r, a, g0, g1, p0, p1, n0, n1, pf_rows);
        break;
#endif
#if defined(CANNON_OPS_HAVE_AVX2)
    case CANNON_ISA_AVX2:
        cannon_norm_bn_pipe_grp_avx2(r, a, g0, g1, p0, p1, n0, n1, pf_rows);
        break;
#endif
    default:
        cannon_norm_bn_pipe_grp_scalar(r, a, g0, g1, p0, p1, n0, n1, pf_rows);
        break;
    }
}

/* ---- worker-affine passes of the three-kernel path (see norm_op.h) ---- */
typedef struct nm_zero_args {
    int64_t *p;
    int64_t n;
} nm_zero_args;

static int nm_zero_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    (void)ctx;
    const nm_zero_args *z = (const nm_zero_args *)args;
    for (int64_t i = 0; i < z->n; i++)
        __atomic_store_n(&z->p[i], 0, __ATOMIC_RELAXED);
    return 0;
}

/* First unit of share @p s of @p S. Channels-last: the unit holding row O*s/S (rounded up), so
 * the reduction's units (about 128 KiB) and the elementwise pass's (about 64 KiB) cut the rows at
 * nearly the same places and a worker meets its own rows again. */
static int64_t aff_lo(const nb_aff_args *f, int64_t s, int64_t S)
{
    const nb_args *a = &f->a;
    if (s >= S)
        return a->units;
    if (a->I > 1) {
        /* Channel-first data: share s is the O-ranges [P*s/S, P*(s+1)/S) of the reduction, all
         * channels (its units p*C + c); the elementwise pass's units are spans of runs (o, c) in
         * address order, cut at the first run of the same O-range. */
        const int64_t P = (a->O + f->rspan - 1) / f->rspan, p = P * s / S;
        if (!f->apply)
            return p * a->C;
        const int64_t o = p * f->rspan < a->O ? p * f->rspan : a->O;
        const int64_t u = (o * a->C + a->span - 1) / a->span;
        return u < a->units ? u : a->units;
    }
    const int64_t row = a->O / S * s + a->O % S * s / S;
    const int64_t u = (row + a->span - 1) / a->span;
    return u < a->units ? u : a->units;
}

static int nm_bn_aff_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const nb_aff_args *f = (const nb_aff_args *)args;
    const nb_args *a = &f->a;
    if (f->apply && a->gate && *a->gate == 0.0f)
        return 0;
    const int64_t S = ctx->num_workers < 1 ? 1 : ctx->num_workers > NB_AFF_MAX ? NB_AFF_MAX : ctx->num_workers;
    /* The share follows the core the block runs on, not the worker id: worker 0 is whichever
     * thread runs the launch (the stream's thread, or an application thread that runs it while it
     * synchronises), so the same id can be on another core from one pass to the next. */
    int64_t w = (int64_t)ctx->worker_id;
#if defined(__linux__)
    const int cpu = sched_getcpu();
    if (cpu >= 0)
        w = cpu;
#endif
    w %= S;
    for (int64_t k = 0; k < S; k++) {
        const int64_t s = (w + k) % S, lo = aff_lo(f, s, S), hi = aff_lo(f, s + 1, S);
        int64_t *cur = f->claim + s * NB_AFF_PAD;
        /* After a reduction over the same rows, the share's last units are what the core read
         * last (in its L2): start with them, then wrap to the share's start, each part walked
         * forwards (as nm_bn_apply_kernel does over all blocks). */
        int64_t rot = 0;
        if (f->apply && a->rev && hi > lo) {
            const int64_t per_unit = app_unit_bytes(a);
            rot = per_unit > 0 ? (NM_REV_BYTES / S + per_unit - 1) / per_unit : 0;
            rot = rot < hi - lo ? rot : hi - lo;
        }
        /* Claims are cheap to check: a finished share costs one atomic add. A claim takes
         * `step` units: the reduction of channel-first data walks a block's channels of an
         * O-range in address order (red_plane), so it claims as many as a plain block holds. */
        const int64_t n = hi - lo, step = !f->apply && a->I > 1 && a->units_per_block > 1 ? a->units_per_block : 1;
        for (;;) {
            const int64_t i = __atomic_fetch_add(cur, 1, __ATOMIC_RELAXED) * step;
            if (i >= n)
                break;
            if (f->apply) {
                const int64_t u = lo + (i + n - rot) % n;
                NM_DISPATCH(bn_apply, a, u, u + 1)
            } else {
                const int64_t u = lo + i, u1 = n - i < step ? hi : u + step;
                NM_DISPATCH(bn_reduce, a, u, u1)
            }
        }
    }
    return 0;
}

bool nm_bn_add_aff(cannon_op *op, const nb_args *args, int apply, int64_t rspan, const cannon_arg_ref *refs,
                   size_t n_refs)
{
    uint64_t off = 0;
    if (!cannonOpWorkspace(op, (uint64_t)NB_AFF_MAX * NB_AFF_PAD * sizeof(int64_t), &off))
        return false;
    nm_zero_args z = {NULL, (int64_t)NB_AFF_MAX * NB_AFF_PAD};
    const cannon_arg_ref zr = nm_ws_ref(off, offsetof(nm_zero_args, p));
    if (!cannonOpKernel(op, op->api, nm_zero_kernel, 1, &z, sizeof z, &zr, 1))
        return false;
    nb_aff_args f;
    memset(&f, 0, sizeof f);
    f.a = *args;
    f.apply = apply;
    f.rspan = rspan > 0 ? rspan : 1;
    cannon_arg_ref r[16];
    size_t n = 0;
    if (n_refs >= sizeof r / sizeof r[0]) /* not reached: the passes bind at most 5 pointers */
        return cannonOpFail(op, ACLNN_ERR_INNER_CREATE_EXECUTOR,
                            "%zu pointers exceed the worker-affine pass's %zu", n_refs, sizeof r / sizeof r[0] - 1);
    for (; n < n_refs; n++)
        r[n] = refs[n];
    r[n++] = nm_ws_ref(off, offsetof(nb_aff_args, claim));
    /* Every block runs the claim loop until no unit is left; blocks beyond the workers find
     * nothing and return. The block count is a function of the shape only. */
    const uint32_t bd = args->units < NB_AFF_MAX ? (uint32_t)(args->units > 0 ? args->units : 1) : NB_AFF_MAX;
    return cannonOpKernel(op, op->api, nm_bn_aff_kernel, bd, &f, sizeof f, r, n);
}

int nm_ln_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const nl_args *a = (const nl_args *)args;
    const int64_t u0 = (int64_t)ctx->block_idx * a->units_per_block;
    if (u0 >= a->units)
        return 0;
    const int64_t u1 = a->units - u0 < a->units_per_block ? a->units : u0 + a->units_per_block;
    NM_DISPATCH(ln, a, u0, u1)
    return 0;
}
