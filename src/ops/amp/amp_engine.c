/*
 * The list engine of src/ops/amp (see amp_engine.h): argument checks shared by the list
 * operators, the plan's registration and binding, and the kernels.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "cannon/opdev.h"

#include "amp_engine.h"
#include "fp_convert.h"

#include "../kernels/kernels.h"

/* Elements of one block's chunk (before scaling for huge lists) and of one fp32 run. */
#define AMP_CHUNK 16384
#define AMP_RUN 256
#define AMP_MAX_BLOCKS ((int64_t)1 << 22)

typedef struct amp_item {
    int64_t numel;  /* elements of operand 0 */
    int64_t chunk0; /* its first chunk */
    char *p[AMP_MAX_OPS]; /* bound; NULL: absent */
} amp_item;

typedef struct amp_args {
    int32_t kind, nops, flags, nscal, isa, pad_;
    int32_t dt[AMP_MAX_OPS];
    int32_t sdt[AMP_MAX_SCAL];
    int64_t n, nchunks, chunk;
    double konst[AMP_MAX_CONST];
    char *scal[AMP_MAX_SCAL]; /* bound; NULL: konst */
    char *ws;                 /* bound: one partial per chunk (reductions) */
    char *flag_out;           /* bound: AMP_UNSCALE's foundInf */
    /* amp_item items[n] follow */
} amp_args;

static inline amp_item *amp_items(const amp_args *a)
{
    return (amp_item *)(void *)((char *)(uintptr_t)a + sizeof(amp_args));
}

/* ---- element conversion ----------------------------------------------------------------------- */

static float amp_load1(const char *p, int32_t dt)
{
    switch (dt) {
    case ACL_FLOAT: {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    case ACL_FLOAT16: {
        uint16_t h;
        memcpy(&h, p, 2);
        return cannon_f16_to_f32(h);
    }
    case ACL_BF16: {
        uint16_t h;
        memcpy(&h, p, 2);
        return cannon_bf16_to_f32(h);
    }
    case ACL_DOUBLE: {
        double d;
        memcpy(&d, p, 8);
        return (float)d;
    }
    case ACL_INT32: {
        int32_t i;
        memcpy(&i, p, 4);
        return (float)i;
    }
    case ACL_INT64: {
        int64_t i;
        memcpy(&i, p, 8);
        return (float)i;
    }
    default:
        return 0.0f;
    }
}

/* n elements at p as fp32 into dst; 16-bit types through the tier's exact bulk converters. */
static void amp_load(const cannon_kernel_table *kt, const char *p, int32_t dt, int64_t n, float *dst)
{
    switch (dt) {
    case ACL_FLOAT:
        memcpy(dst, p, (size_t)n * sizeof(float));
        break;
    case ACL_FLOAT16:
        kt->f16_to_f32(dst, (const uint16_t *)(const void *)p, (size_t)n);
        break;
    case ACL_BF16:
        kt->bf16_to_f32(dst, (const uint16_t *)(const void *)p, (size_t)n);
        break;
    default:
        for (int64_t i = 0; i < n; i++)
            dst[i] = amp_load1(p + i * 4, dt);
        break;
    }
}

/* n fp32 values rounded once to dt at p (round to nearest even). */
static void amp_store(const cannon_kernel_table *kt, char *p, int32_t dt, int64_t n, const float *src)
{
    switch (dt) {
    case ACL_FLOAT:
        memcpy(p, src, (size_t)n * sizeof(float));
        break;
    case ACL_FLOAT16:
        kt->f32_to_f16((uint16_t *)(void *)p, src, (size_t)n);
        break;
    case ACL_BF16:
        kt->f32_to_bf16((uint16_t *)(void *)p, src, (size_t)n);
        break;
    default:
        break;
    }
}

/* ---- kernels ------------------------------------------------------------------------------------ */

/* The device scalars' values, read once per block. */
static void amp_scalars(const amp_args *a, double *s)
{
    for (int k = 0; k < AMP_MAX_SCAL; k++)
        if (k >= a->nscal || !a->scal[k]) {
            s[k] = a->konst[k];
        } else if (a->sdt[k] == ACL_INT64) {
            int64_t i;
            memcpy(&i, a->scal[k], 8);
            s[k] = (double)i;
        } else {
            s[k] = (double)amp_load1(a->scal[k], a->sdt[k]);
        }
}

/* The p-norm's per-element contribution, summed (or maxed) into @p acc. */
static void amp_norm_acc(double p, const float *x, int64_t n, double *acc)
{
    double r = *acc;
    if (isinf(p)) {
        for (int64_t i = 0; i < n; i++) {
            const double v = fabs((double)x[i]);
            if (v != v)
                r = v;
            else if (v > r)
                r = v;
        }
    } else if (p == 0.0) {
        for (int64_t i = 0; i < n; i++)
            r += x[i] != 0.0f;
    } else if (p == 1.0) {
        for (int64_t i = 0; i < n; i++)
            r += fabs((double)x[i]);
    } else if (p == 2.0) {
        for (int64_t i = 0; i < n; i++)
            r += (double)x[i] * (double)x[i];
    } else {
        for (int64_t i = 0; i < n; i++)
            r += pow(fabs((double)x[i]), p);
    }
    *acc = r;
}

static void amp_adamw(const amp_args *a, const double *s, float *const *b, int64_t n, bool has_mgn)
{
    float *var = b[0], *m = b[1], *v = b[2], *g = b[3], *mg = b[4];
    const bool ams = (a->flags & AMP_F_AMSGRAD) && has_mgn, neg = (a->flags & AMP_F_MAXIMIZE) != 0;
    if (a->kind == AMP_ADAMW) {
        /* s: beta1^(t-1), beta2^(t-1), lr, weightDecay, beta1, beta2, eps */
        const float b1 = (float)s[4], b2 = (float)s[5], lr = (float)s[2], wd = (float)s[3], eps = (float)s[6];
        const float bc1 = 1.0f - (float)s[0] * b1, bc2 = 1.0f - (float)s[1] * b2;
        const float decay = 1.0f - lr * wd;
        for (int64_t i = 0; i < n; i++) {
            const float gi = neg ? -g[i] : g[i];
            const float mi = b1 * m[i] + (1.0f - b1) * gi;
            float vi = b2 * v[i] + (1.0f - b2) * gi * gi;
            if (ams)
                vi = fmaxf(mg[i], vi);
            m[i] = mi;
            v[i] = vi;
            var[i] = var[i] * decay - lr * (mi / bc1) / (sqrtf(vi / bc2) + eps);
        }
        return;
    }
    /* AMP_ADAMW2, torch.optim.AdamW's step: s0 = step; konst lr, beta1, beta2, weightDecay, eps */
    const float lr = (float)a->konst[1], b1 = (float)a->konst[2], b2 = (float)a->konst[3];
    const float wd = (float)a->konst[4], eps = (float)a->konst[5];
    const float bc1 = (float)(1.0 - pow((double)b1, s[0])), bc2 = (float)(1.0 - pow((double)b2, s[0]));
    const float step_size = lr / bc1, bc2_sqrt = sqrtf(bc2), decay = 1.0f - lr * wd;
    for (int64_t i = 0; i < n; i++) {
        const float gi = neg ? -g[i] : g[i];
        const float mi = b1 * m[i] + (1.0f - b1) * gi;
        const float vi = b2 * v[i] + (1.0f - b2) * gi * gi;
        m[i] = mi;
        v[i] = vi;
        float d = vi;
        if (ams) {
            d = fmaxf(mg[i], vi);
            mg[i] = d;
        }
        var[i] = var[i] * decay - step_size * mi / (sqrtf(d) / bc2_sqrt + eps);
    }
}

/* One run of @p n elements at element @p e of item @p it. Returns the run's non-finite flag
 * (AMP_UNSCALE) and adds to @p acc (AMP_NORM). */
static int amp_run(const amp_args *a, const amp_item *it, const double *s, int64_t e, int64_t n, double *acc)
{
    float buf[AMP_MAX_OPS][AMP_RUN];
    float *b[AMP_MAX_OPS];
    for (int k = 0; k < AMP_MAX_OPS; k++)
        b[k] = buf[k];
    const cannon_kernel_table *kt = cannon_kernels_for((cannon_isa)a->isa);
    size_t es[AMP_MAX_OPS];
    for (int k = 0; k < a->nops; k++)
        es[k] = cannonDtypeSize((aclDataType)a->dt[k]);
    const float s0 = (float)s[0];
    int flag = 0;
    switch ((amp_kind)a->kind) {
    case AMP_ZERO:
        memset(it->p[0] + e * (int64_t)es[0], 0, (size_t)n * es[0]);
        return 0;
    case AMP_COPY:
        if (it->p[0] + e * (int64_t)es[0] != it->p[1] + e * (int64_t)es[1])
            memmove(it->p[1] + e * (int64_t)es[1], it->p[0] + e * (int64_t)es[0], (size_t)n * es[0]);
        return 0;
    case AMP_NORM:
        amp_load(kt, it->p[0] + e * (int64_t)es[0], a->dt[0], n, b[0]);
        amp_norm_acc(a->konst[0], b[0], n, acc);
        return 0;
    case AMP_ADAMW:
    case AMP_ADAMW2: {
        const bool mgn = it->p[4] != NULL;
        for (int k = 0; k < (mgn ? 5 : 4); k++)
            amp_load(kt, it->p[k] + e * (int64_t)es[k], a->dt[k], n, b[k]);
        amp_adamw(a, s, b, n, mgn);
        for (int k = 0; k < 3; k++)
            amp_store(kt, it->p[k] + e * (int64_t)es[k], a->dt[k], n, b[k]);
        if (mgn && a->kind == AMP_ADAMW2 && (a->flags & AMP_F_AMSGRAD))
            amp_store(kt, it->p[4] + e * (int64_t)es[4], a->dt[4], n, b[4]);
        return 0;
    }
    case AMP_UNSCALE: {
        float *g = b[0];
        amp_load(kt, it->p[0] + e * (int64_t)es[0], a->dt[0], n, g);
        for (int64_t i = 0; i < n; i++) {
            flag |= !isfinite(g[i]);
            g[i] *= s0;
        }
        amp_store(kt, it->p[0] + e * (int64_t)es[0], a->dt[0], n, g);
        return flag;
    }
    default:
        break;
    }
    /* elementwise: inputs are operands 0 .. nops-2, the output is the last */
    const int nin = a->nops - 1;
    for (int k = 0; k < nin; k++)
        amp_load(kt, it->p[k] + e * (int64_t)es[k], a->dt[k], n, b[k]);
    float *y = b[nin];
    const float *x = b[0], *x2 = b[1], *x3 = b[2];
    switch ((amp_kind)a->kind) {
    case AMP_MUL_S:
        for (int64_t i = 0; i < n; i++)
            y[i] = x[i] * s0;
        break;
    case AMP_ADD_S:
        for (int64_t i = 0; i < n; i++)
            y[i] = x[i] + s0;
        break;
    case AMP_DIV_S:
        for (int64_t i = 0; i < n; i++)
            y[i] = x[i] / s0;
        break;
    case AMP_MUL_L:
        for (int64_t i = 0; i < n; i++)
            y[i] = x[i] * x2[i];
        break;
    case AMP_ADD_L:
        for (int64_t i = 0; i < n; i++)
            y[i] = x[i] + x2[i] * s0;
        break;
    case AMP_SQRT:
        for (int64_t i = 0; i < n; i++)
            y[i] = sqrtf(x[i]);
        break;
    case AMP_ADDCMUL:
        for (int64_t i = 0; i < n; i++)
            y[i] = x[i] + s0 * (x2[i] * x3[i]);
        break;
    case AMP_ADDCDIV:
        for (int64_t i = 0; i < n; i++)
            y[i] = x[i] + s0 * (x2[i] / x3[i]);
        break;
    case AMP_LERP:
        for (int64_t i = 0; i < n; i++)
            y[i] = x[i] + s0 * (x2[i] - x[i]);
        break;
    default:
        break;
    }
    amp_store(kt, it->p[nin] + e * (int64_t)es[nin], a->dt[nin], n, y);
    return flag;
}

static int amp_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const amp_args *a = (const amp_args *)args;
    const amp_item *items = amp_items(a);
    const int64_t b = (int64_t)ctx->block_idx;
    int64_t lo = 0, hi = a->n - 1;
    while (lo < hi) { /* the last item starting at or before chunk b (a non-empty one) */
        const int64_t mid = lo + (hi - lo + 1) / 2;
        if (items[mid].chunk0 <= b)
            lo = mid;
        else
            hi = mid - 1;
    }
    const amp_item *it = &items[lo];
    const int64_t e0 = (b - it->chunk0) * a->chunk;
    const int64_t e1 = it->numel - e0 < a->chunk ? it->numel : e0 + a->chunk;
    double s[AMP_MAX_SCAL];
    amp_scalars(a, s);
    double acc = 0.0;
    int flag = 0;
    for (int64_t e = e0; e < e1; e += AMP_RUN)
        flag |= amp_run(a, it, s, e, e1 - e < AMP_RUN ? e1 - e : AMP_RUN, &acc);
    if (a->kind == AMP_NORM)
        ((double *)(void *)a->ws)[b] = acc;
    else if (a->kind == AMP_UNSCALE)
        ((int32_t *)(void *)a->ws)[b] = flag;
    return 0;
}

/* AMP_NORM: block i combines item i's partials in chunk order. */
static int amp_norm_finish(const cannon_kernel_ctx *ctx, void *args)
{
    const amp_args *a = (const amp_args *)args;
    const amp_item *items = amp_items(a);
    const amp_item *it = &items[ctx->block_idx];
    const double p = a->konst[0];
    const double *part = (const double *)(const void *)a->ws;
    const int64_t nch = (it->numel + a->chunk - 1) / a->chunk;
    double r = 0.0;
    for (int64_t c = it->chunk0; c < it->chunk0 + nch; c++) {
        if (isinf(p))
            r = part[c] != part[c] || r != r ? NAN : fmax(r, part[c]);
        else
            r += part[c];
    }
    if (!isinf(p) && p != 0.0 && p != 1.0)
        r = p == 2.0 ? sqrt(r) : pow(r, 1.0 / p);
    const float f = (float)r;
    amp_store(cannon_kernels_for((cannon_isa)a->isa), it->p[1], a->dt[1], 1, &f);
    return 0;
}

/* AMP_UNSCALE: one block sets foundInf to 1.0 when a chunk saw a non-finite value. */
static int amp_unscale_finish(const cannon_kernel_ctx *ctx, void *args)
{
    (void)ctx;
    const amp_args *a = (const amp_args *)args;
    const int32_t *flags = (const int32_t *)(const void *)a->ws;
    for (int64_t c = 0; c < a->nchunks; c++)
        if (flags[c]) {
            const float one = 1.0f;
            memcpy(a->flag_out, &one, sizeof one);
            break;
        }
    return 0;
}

/* ---- phase 1 -------------------------------------------------------------------------------------- */

bool amp_record(cannon_op *op, const amp_plan *p)
{
    if (!cannonOpOk(op))
        return false;
    const uint64_t n = p->n;
    const uint64_t nops = (uint64_t)p->nops;
    const size_t args_size = sizeof(amp_args) + (size_t)n * sizeof(amp_item);
    const size_t max_refs = (size_t)(n * nops) + AMP_MAX_SCAL + 2;
    char *blob = calloc(1, args_size);
    int *slots = malloc((size_t)(n * nops + 1) * sizeof *slots);
    cannon_arg_ref *refs = malloc(max_refs * sizeof *refs);
    if (!blob || !slots || !refs) {
        free(blob);
        free(slots);
        free(refs);
        return cannonOpFail(op, ACLNN_ERR_INNER_CREATE_EXECUTOR, "out of memory");
    }
    amp_args *a = (amp_args *)(void *)blob;
    amp_item *items = amp_items(a);
    a->kind = (int32_t)p->kind;
    a->isa = (int32_t)cannon_isa_select();
    a->nops = p->nops;
    a->flags = p->flags;
    a->nscal = p->nscal;
    a->n = (int64_t)n;
    memcpy(a->konst, p->konst, sizeof a->konst);
    for (uint64_t k = 0; k < nops; k++)
        for (uint64_t i = 0; i < n; i++)
            if (p->t[i * nops + k]) {
                cannon_tensor_view v;
                if (cannonTensorGetView(p->t[i * nops + k], &v))
                    a->dt[k] = (int32_t)v.dtype;
                break;
            }
    /* chunks: a size that keeps the launch within AMP_MAX_BLOCKS blocks */
    int64_t total = 0;
    for (uint64_t i = 0; i < n; i++)
        total += cannonTensorNumel(p->t[i * nops]);
    a->chunk = AMP_CHUNK;
    while ((total + a->chunk - 1) / a->chunk + (int64_t)n > AMP_MAX_BLOCKS)
        a->chunk *= 2;
    int64_t c = 0;
    for (uint64_t i = 0; i < n; i++) {
        items[i].numel = cannonTensorNumel(p->t[i * nops]);
        items[i].chunk0 = c;
        c += (items[i].numel + a->chunk - 1) / a->chunk;
    }
    a->nchunks = c;

    /* registration: inputs, device scalars, outputs (in-place operands count as outputs) */
    int scal_slot[AMP_MAX_SCAL];
    int flag_slot = -1;
    for (int pass = 0; pass < 2; pass++) {
        for (uint64_t k = 0; k < nops; k++) {
            if (!p->how[k] || ((p->how[k] & CANNON_BIND_OUT) != 0) != (pass == 1))
                continue;
            for (uint64_t i = 0; i < n; i++) {
                const aclTensor *t = p->t[i * nops + k];
                slots[i * nops + k] = !t ? -1 : pass ? cannonOpOutput(op, t) : cannonOpInput(op, t);
            }
        }
        if (pass == 0)
            for (int k = 0; k < p->nscal; k++) {
                scal_slot[k] = -1;
                if (p->scal[k]) {
                    cannon_tensor_view v;
                    if (cannonTensorGetView(p->scal[k], &v))
                        a->sdt[k] = (int32_t)v.dtype;
                    scal_slot[k] = cannonOpInput(op, p->scal[k]);
                }
            }
    }
    if (p->flag_out)
        flag_slot = cannonOpOutput(op, p->flag_out);
    size_t nr = 0;
    for (uint64_t k = 0; k < nops && cannonOpOk(op); k++) {
        if (!p->how[k])
            continue;
        for (uint64_t i = 0; i < n && cannonOpOk(op); i++) {
            const int s = slots[i * nops + k];
            if (s < 0)
                continue;
            const uint32_t off = (uint32_t)(sizeof(amp_args) + (size_t)i * sizeof(amp_item) + offsetof(amp_item, p) +
                                            (size_t)k * sizeof(char *));
            if (cannonOpBind(op, s, p->how[k], off, &refs[nr]))
                nr++;
        }
    }
    for (int k = 0; k < p->nscal && cannonOpOk(op); k++)
        if (scal_slot[k] >= 0 &&
            cannonOpBindView(op, scal_slot[k], (uint32_t)(offsetof(amp_args, scal) + (size_t)k * sizeof(char *)),
                             &refs[nr]))
            nr++;
    if (flag_slot >= 0 && cannonOpBindView(op, flag_slot, (uint32_t)offsetof(amp_args, flag_out), &refs[nr]))
        nr++;
    const bool reduce = p->kind == AMP_NORM || p->kind == AMP_UNSCALE;
    uint64_t wso = 0;
    if (reduce && a->nchunks > 0 && cannonOpWorkspace(op, (uint64_t)a->nchunks * sizeof(double), &wso)) {
        refs[nr].args_offset = (uint32_t)offsetof(amp_args, ws);
        refs[nr].slot = CANNON_SLOT_WORKSPACE;
        refs[nr].byte_offset = (int64_t)wso;
        nr++;
    }
    const char *name = op->api + 5; /* without "aclnn" */
    if (a->nchunks > 0)
        cannonOpKernel(op, name, amp_kernel, (uint32_t)a->nchunks, blob, args_size, refs, nr);
    if (p->kind == AMP_NORM && n > 0) {
        /* empty tensors have no partials: their norm is 0 and ws may be unbound */
        cannonOpKernel(op, name, amp_norm_finish, (uint32_t)n, blob, args_size, refs, nr);
    } else if (p->kind == AMP_UNSCALE && a->nchunks > 0) {
        cannonOpKernel(op, name, amp_unscale_finish, 1, blob, args_size, refs, nr);
    }
    free(slots);
    free(refs);
    free(blob);
    return cannonOpOk(op);
}

uint64_t amp_list(cannon_op *op, const char *name, const aclTensorList *l, cannon_dtype_set dts,
                  const aclTensor ***out, cannon_tensor_view **views)
{
    *out = NULL;
    if (views)
        *views = NULL;
    if (!cannonOpNotNull(op, name, l))
        return 0;
    uint64_t n = 0;
    if (aclGetTensorListSize(l, &n) != ACLNN_SUCCESS) {
        cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s is not a live aclTensorList", name);
        return 0;
    }
    if (n > AMP_MAX_TENSORS) {
        cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s holds %llu tensors: at most %d are accepted", name,
                     (unsigned long long)n, AMP_MAX_TENSORS);
        return 0;
    }
    const aclTensor **t = calloc(n ? n : 1, sizeof *t);
    cannon_tensor_view *v = calloc(n ? n : 1, sizeof *v);
    if (!t || !v) {
        free(t);
        free(v);
        cannonOpFail(op, ACLNN_ERR_INNER_CREATE_EXECUTOR, "out of memory");
        return 0;
    }
    char en[64];
    for (uint64_t i = 0; i < n && cannonOpOk(op); i++) {
        t[i] = cannonTensorListGet(l, i);
        snprintf(en, sizeof en, "%s[%llu]", name, (unsigned long long)i);
        if (!t[i])
            cannonOpFail(op, ACLNN_ERR_PARAM_NULLPTR, "%s is NULL", en);
        else if (cannonOpTensor(op, en, t[i], dts, &v[i]) && v[i].dtype != v[0].dtype)
            cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s is %s but %s[0] is %s: the tensors of a list share one dtype",
                         en, cannonDtypeName(v[i].dtype), name, cannonDtypeName(v[0].dtype));
    }
    if (!cannonOpOk(op)) {
        free(t);
        free(v);
        return 0;
    }
    *out = t;
    if (views)
        *views = v;
    else
        free(v);
    return n;
}

bool amp_list_match(cannon_op *op, const char *an, uint64_t na, const cannon_tensor_view *va, const char *bn,
                    uint64_t nb, const cannon_tensor_view *vb, bool same_dtype)
{
    if (!cannonOpOk(op))
        return false;
    if (na != nb)
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s holds %llu tensors but %s %llu: the lists must have "
                            "one length", bn, (unsigned long long)nb, an, (unsigned long long)na);
    if (same_dtype && na > 0 && vb[0].dtype != va[0].dtype)
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s is %s but %s is %s: the lists must have one dtype", bn,
                            cannonDtypeName(vb[0].dtype), an, cannonDtypeName(va[0].dtype));
    char x[64], y[64];
    for (uint64_t i = 0; i < na; i++) {
        bool same = va[i].ndim == vb[i].ndim;
        for (int64_t d = 0; same && d < va[i].ndim; d++)
            same = va[i].shape[d] == vb[i].shape[d];
        if (!same) {
            cannonShapeFormat(&vb[i], x, sizeof x);
            cannonShapeFormat(&va[i], y, sizeof y);
            return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s[%llu] has shape %s but %s[%llu] %s", bn,
                                (unsigned long long)i, x, an, (unsigned long long)i, y);
        }
    }
    return true;
}

bool amp_scalar_tensor(cannon_op *op, const char *name, const aclTensor *t, cannon_dtype_set dts)
{
    cannon_tensor_view v;
    if (!cannonOpTensor(op, name, t, dts, &v))
        return false;
    if (cannonTensorNumel(t) != 1)
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s holds %lld elements: it must hold exactly one", name,
                            (long long)cannonTensorNumel(t));
    return true;
}
