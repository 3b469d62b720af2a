/*
 * The elementwise framework: dtype rules (promotion, castability), the broadcasting walker and
 * its generic (any dtype, any stride) path, the kernel, and the shared phase-1 tail that the
 * arithmetic, cast and activation operators end with. See ew_kernels.h for the design.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "cannon/opdev.h"

#include "env.h"
#include "fp_convert.h"
#include "../kernels/isa.h"
#include "../kernels/kernels.h"
#include "ew_access.h"
#include "ew_kernels.h"

/* Output elements per block: big enough that the per-block walk set-up is noise, small enough
 * that a few-MiB tensor still spreads over the workers. A multiple of 64 so that every block of
 * a contiguous output starts 64-byte aligned relative to the first. */
#define EW_CHUNK 32768
/* Outputs at least this large are written with non-temporal stores: they cannot stay in cache
 * anyway, and streaming skips the read-for-ownership of every output line (a third of the
 * traffic of a binary op). */
#define EW_NT_BYTES ((uint64_t)16 << 20)
/* Elements per step of the generic path (stack buffers of this many fp64 / int64). */
#define EW_GBUF 256

/* ---------------------------------------------------------------------------------------------
 * dtype rules
 * ------------------------------------------------------------------------------------------- */
int cannon_ew_mode_of(aclDataType t)
{
    if (t == ACL_DOUBLE)
        return EW_MODE_F64;
    if (cannonDtypeIn(t, CANNON_DTS_FLOAT))
        return EW_MODE_F32;
    return t == ACL_BOOL ? EW_MODE_BOOL : EW_MODE_I64;
}

aclDataType cannon_ew_mode_dtype(int mode)
{
    return mode == EW_MODE_F32 ? ACL_FLOAT : mode == EW_MODE_F64 ? ACL_DOUBLE : mode == EW_MODE_I64 ? ACL_INT64 : ACL_BOOL;
}

int cannon_ew_convert_mode(aclDataType from, aclDataType to)
{
    const bool ff = cannonDtypeIn(from, CANNON_DTS_FLOAT), ft = cannonDtypeIn(to, CANNON_DTS_FLOAT);
    if (ff && ft && from != ACL_DOUBLE && to != ACL_DOUBLE)
        return EW_MODE_F32;
    return !ff && !ft ? EW_MODE_I64 : EW_MODE_F64;
}

/* ---------------------------------------------------------------------------------------------
 * scalar conversions of the generic path
 * ------------------------------------------------------------------------------------------- */
void cannon_ew_store_scalar(aclDataType t, int mode, double vd, int64_t vi, unsigned char *dst)
{
    memset(dst, 0, 16);
    if (mode == EW_MODE_I64 || mode == EW_MODE_BOOL)
        ew_put_i(t, (char *)dst, vi);
    else
        ew_put_d(t, (char *)dst, vd);
}

bool cannon_ew_scalar_to(aclDataType t, const aclScalar *s, bool check_range, double *d, int64_t *i)
{
    char buf[16] = {0};
    if (cannonDtypeIn(t, CANNON_DTS_FLOAT)) {
        ew_put_d(t, buf, cannonScalarToDouble(s));
        *d = ew_get_d(t, buf);
        *i = ew_f2i(*d);
        return true;
    }
    aclDataType st = ACL_DT_UNDEFINED;
    cannonScalarGet(s, &st, NULL);
    if (cannonDtypeIn(st, CANNON_DTS_FLOAT) && cannonScalarToDouble(s) != (double)cannonScalarToInt64(s) &&
        check_range)
        return false; /* a fractional or out-of-range float for an integral type */
    const int64_t v = cannonScalarToInt64(s);
    ew_put_int(t, buf, v);
    *i = ew_get_int(t, buf);
    *d = (double)*i;
    return !check_range || *i == v || t == ACL_BOOL;
}

/* ---------------------------------------------------------------------------------------------
 * fp64 and integer math
 * ------------------------------------------------------------------------------------------- */
double cannon_ew_apply_f64(int op, double a, double b, const ew_params *prm)
{
    switch (op) {
    case EW_ADD:
        return a + prm->alpha_d * b;
    case EW_MUL:
        return a * b;
    case EW_DIV:
        return a / b;
    case EW_RELU:
        return a > 0.0 || a != a ? a : 0.0;
    case EW_THRESH_BWD:
        return b <= prm->thr_d ? 0.0 : a;
    case EW_GELU_TANH: /* x sigmoid(2u): no cancellation for x < 0, unlike 0.5 x (1 + tanh u) */
        return a / (1.0 + exp(-1.5957691216057308 * (a + 0.044715 * a * a * a)));
    case EW_GELU_ERF:
        return a < 0.0 ? a * 0.5 * erfc(-a * 0.7071067811865476) : a * (1.0 - 0.5 * erfc(a * 0.7071067811865476));
    case EW_SILU:
        return a / (1.0 + exp(-a));
    case EW_GELU_BWD: {
        const double x = b, x2 = x * x;
        const double y = 1.5957691216057308 * (x + 0.044715 * x2 * x);
        const double s = 1.0 / (1.0 + exp(-y)), oms = 1.0 / (1.0 + exp(y));
        const double dy = 1.5957691216057308 * (1.0 + 3.0 * 0.044715 * x2);
        return a * (s + x * s * oms * dy);
    }
    case EW_SILU_BWD: {
        const double s = 1.0 / (1.0 + exp(-b)), oms = 1.0 / (1.0 + exp(b));
        return a * s * (1.0 + b * oms);
    }
    case EW_NEG:
        return -a;
    case EW_ABS:
        return fabs(a);
    case EW_SIGN:
        return (double)(a > 0.0) - (double)(a < 0.0);
    case EW_EXP:
        return exp(a);
    case EW_LOG:
        return log(a);
    case EW_SQRT:
        return sqrt(a);
    case EW_SIN:
        return sin(a);
    case EW_COS:
        return cos(a);
    case EW_TANH:
        return tanh(a);
    case EW_SIGMOID: {
        const double e = exp(-fabs(a));
        return (a >= 0.0 ? 1.0 : e) / (1.0 + e);
    }
    case EW_SOFTPLUS: {
        const double z = a * prm->d[0];
        return z > prm->d[1] ? a : ((z > 0.0 ? z : 0.0) + log1p(exp(-fabs(z)))) / prm->d[0];
    }
    case EW_ELU:
        return a > 0.0 ? a * prm->d[1] : expm1(a * prm->d[2]) * prm->d[0];
    case EW_LEAKY_RELU:
        return a > 0.0 ? a : a * prm->d[0];
    case EW_HARDSIGMOID:
    case EW_HARDSWISH: {
        double t = a + 3.0; /* NaN stays NaN through both comparisons */
        t = t < 0.0 ? 0.0 : t;
        t = t > 6.0 ? 6.0 : t;
        return op == EW_HARDSIGMOID ? t / 6.0 : a >= 3.0 ? a : a * t / 6.0;
    }
    case EW_GT:
        return a > b ? 1.0 : 0.0;
    case EW_EQ:
        return a == b ? 1.0 : 0.0;
    case EW_CLAMP: {
        const double t = a < prm->d[0] ? prm->d[0] : a;
        return t > prm->d[1] ? prm->d[1] : t;
    }
    case EW_THRESHOLD:
        return a <= prm->d[0] ? prm->d[1] : a;
    case EW_FILL:
        return prm->d[0];
    case EW_POW:
        return pow(a, b);
    case EW_RPOW:
        return pow(b, a);
    default:
        return a;
    }
}

/* b ** e in wrapping integer arithmetic, as torch: a negative exponent gives 0 except for the
 * bases 1 and -1 */
static int64_t pow_i64(int64_t b, int64_t e)
{
    if (e < 0)
        return b == 1 ? 1 : b == -1 ? ((e & 1) ? -1 : 1) : 0;
    uint64_t r = 1, x = (uint64_t)b;
    for (; e; e >>= 1) {
        if (e & 1)
            r *= x;
        x *= x;
    }
    return (int64_t)r;
}

static int64_t apply_i64(int op, int64_t a, int64_t b, const ew_params *prm)
{
    /* unsigned arithmetic: wrap-around like torch's integer kernels, without signed overflow */
    switch (op) {
    case EW_ADD:
        return (int64_t)((uint64_t)a + (uint64_t)prm->alpha_i * (uint64_t)b);
    case EW_MUL:
        return (int64_t)((uint64_t)a * (uint64_t)b);
    case EW_DIV:
        return b ? a / b : 0; /* not reached: true division computes in floating point */
    case EW_RELU:
        return a > 0 ? a : 0;
    case EW_THRESH_BWD:
        return b <= prm->thr_i ? 0 : a;
    case EW_NEG:
        return (int64_t)(0 - (uint64_t)a);
    case EW_ABS:
        return a < 0 ? (int64_t)(0 - (uint64_t)a) : a;
    case EW_SIGN:
        return (a > 0) - (a < 0);
    case EW_HARDSIGMOID: /* min(max(a/6 + 1/2, 0), 1) truncated */
        return a >= 3;
    case EW_GT:
        return a > b;
    case EW_EQ:
        return a == b;
    case EW_CLAMP: {
        const int64_t t = a < prm->i[0] ? prm->i[0] : a;
        return t > prm->i[1] ? prm->i[1] : t;
    }
    case EW_THRESHOLD:
        return a <= prm->i[0] ? prm->i[1] : a;
    case EW_FILL:
        return prm->i[0];
    case EW_POW:
        return pow_i64(a, b);
    case EW_RPOW:
        return pow_i64(b, a);
    default:
        return a;
    }
}

static int64_t apply_bool(int op, int64_t a, int64_t b, const ew_params *prm)
{
    switch (op) {
    case EW_ADD:
        return a || (prm->alpha_i && b);
    case EW_MUL:
        return a && b;
    case EW_GT:
        return a > b;
    case EW_EQ:
        return a == b;
    case EW_FILL:
        return prm->i[0] != 0;
    default:
        return a != 0;
    }
}

/* ---------------------------------------------------------------------------------------------
 * the kernel
 * ------------------------------------------------------------------------------------------- */
typedef struct ew_ctx {
    const ew_args *a;
    const cannon_kernel_table *kt;
    ew_vec_fn vec;
    int round16; /* F32 mode with a 16-bit common type */
    int vdt;   /* storage type of out and in0 when both are the same fp32/fp16/bf16, else -1 */
    int64_t es; /* its element size */
    int vcmp;  /* EW_V*_U8 for a comparison of fp32/fp16/bf16 inputs of the common type into BOOL, else -1 */
    int64_t esi; /* the inputs' element size there */
    int64_t esr; /* EW_MODE_RAW: the element size */
} ew_ctx;

/* EW_MODE_RAW: n elements of esr bytes, copied from pa (EW_COPY) or the value in sval (EW_FILL).
 * One loop per element size, so each step is a fixed-size move. */
#define EW_RAW_LOOP(ES)                                                                            \
    for (int64_t i = 0; i < n; i++) {                                                              \
        unsigned char t_[ES];                                                                      \
        memcpy(t_, pa + i * sa, ES);                                                               \
        memcpy(po + i * so, t_, ES);                                                               \
    }                                                                                              \
    break;
static void ew_raw(const ew_ctx *c, char *po, const char *pa, int64_t so, int64_t sa, int64_t n)
{
    const int64_t es = c->esr;
    if (c->a->op == EW_FILL) {
        pa = (const char *)c->a->sval;
        sa = 0;
    }
    if (so == es && sa == es) { /* memmove: InplaceCopy of a view onto itself */
        memmove(po, pa, (size_t)(n * es));
        return;
    }
    if (so == es && sa == 0) {
        int uniform = 1;
        for (int64_t k = 1; k < es; k++)
            uniform &= pa[k] == pa[0];
        if (uniform) { /* zeros, and any value whose bytes are all alike */
            memset(po, pa[0], (size_t)(n * es));
            return;
        }
    }
    switch (es) {
    case 1: EW_RAW_LOOP(1)
    case 2: EW_RAW_LOOP(2)
    case 4: EW_RAW_LOOP(4)
    case 8: EW_RAW_LOOP(8)
    default: EW_RAW_LOOP(16)
    }
}
#undef EW_RAW_LOOP

/* A contiguous run of a Cast between fp32 and a 16-bit float, converted straight from the input
 * to the output by the tier's bulk conversion (one rounding, as the generic path gives, without
 * its staging buffers). Returns 0 for any other pair of dtypes. */
static int ew_cast_run(const cannon_kernel_table *kt, aclDataType to, char *po, aclDataType from, const char *pa,
                       int64_t n)
{
    if (from == ACL_FLOAT16 && to == ACL_FLOAT)
        kt->f16_to_f32((float *)(void *)po, (const uint16_t *)(const void *)pa, (size_t)n);
    else if (from == ACL_BF16 && to == ACL_FLOAT)
        kt->bf16_to_f32((float *)(void *)po, (const uint16_t *)(const void *)pa, (size_t)n);
    else if (from == ACL_FLOAT && to == ACL_FLOAT16)
        kt->f32_to_f16((uint16_t *)(void *)po, (const float *)(const void *)pa, (size_t)n);
    else if (from == ACL_FLOAT && to == ACL_BF16)
        kt->f32_to_bf16((uint16_t *)(void *)po, (const float *)(const void *)pa, (size_t)n);
    else
        return 0;
    return 1;
}

/* One run of n elements with byte strides so, sa, sb. */
static void ew_segment(const ew_ctx *c, char *po, const char *pa, const char *pb, int64_t so, int64_t sa,
                       int64_t sb, int64_t n)
{
    const ew_args *a = c->a;
    const aclDataType t0 = (aclDataType)a->dt[0], t1 = (aclDataType)a->dt[1], t2 = (aclDataType)a->dt[2];
    const int binary = a->nin == 2;
    if (a->mode == EW_MODE_RAW) {
        ew_raw(c, po, pa, so, sa, n);
        return;
    }
    if (c->vcmp >= 0 && so == 1 && (sa == c->esi || sa == 0) && (!binary || sb == 0 || sb == c->esi)) {
        const float as = sa == 0 ? ew_get_f(t1, pa) : 0.0f, bs = binary && sb == 0 ? ew_get_f(t2, pb) : 0.0f;
        c->vec(a->op, c->vcmp, po, pa, sa != 0, as, pb, binary && sb != 0, bs, n, &a->prm, 0);
        return;
    }
    if (c->vdt >= 0 && so == c->es && (sa == c->es || sa == 0) &&
        (!binary || sb == 0 || (sb == c->es && t2 == t0))) {
        const float as = sa == 0 ? ew_get_f(t1, pa) : 0.0f;
        float bs = binary && sb == 0 ? ew_get_f(t2, pb) : 0.0f;
        if (c->round16 && binary && sb == 0 && t2 != (aclDataType)a->ct && !a->scalar_b)
            ew_round16(c->kt, (aclDataType)a->ct, &bs, 1);
        const int nt = a->nt && ((uintptr_t)po % (uintptr_t)c->es) == 0;
        c->vec(a->op, c->vdt, po, pa, sa != 0, as, pb, binary && sb != 0, bs, n, &a->prm, nt);
        return;
    }
    if (a->op == EW_COPY && a->mode == EW_MODE_F32 && so == c->esr && sa == c->esi &&
        ew_cast_run(c->kt, t0, po, t1, pa, n))
        return;
    /* generic path: convert to the compute type a buffer at a time */
    for (int64_t i0 = 0; i0 < n; i0 += EW_GBUF) {
        const int64_t m = n - i0 < EW_GBUF ? n - i0 : EW_GBUF;
        const char *qa = pa + i0 * sa, *qb = binary ? pb + i0 * sb : NULL;
        char *qo = po + i0 * so;
        if (a->mode == EW_MODE_F32) {
            float ba[EW_GBUF], bb[EW_GBUF], bo[EW_GBUF];
            ew_load_f32(t1, qa, sa, m, ba, c->kt);
            if (binary)
                ew_load_f32(t2, qb, sb, m, bb, c->kt);
            if (c->round16) {
                /* torch casts the inputs to the common 16-bit type first */
                if (t1 != (aclDataType)a->ct)
                    ew_round16(c->kt, (aclDataType)a->ct, ba, m);
                if (binary && t2 != (aclDataType)a->ct && !a->scalar_b)
                    ew_round16(c->kt, (aclDataType)a->ct, bb, m);
            }
            c->vec(a->op, EW_VF32, bo, ba, 1, 0.0f, bb, binary, 0.0f, m, &a->prm, 0);
            if (c->round16 && t0 != (aclDataType)a->ct)
                ew_round16(c->kt, (aclDataType)a->ct, bo, m); /* computed in the common type, then cast to out */
            ew_store_f32(t0, qo, so, m, bo, c->kt);
        } else if (a->mode == EW_MODE_F64) {
            for (int64_t i = 0; i < m; i++) {
                const double x = ew_get_d(t1, qa + i * sa), y = binary ? ew_get_d(t2, qb + i * sb) : 0.0;
                ew_put_d(t0, qo + i * so, cannon_ew_apply_f64(a->op, x, y, &a->prm));
            }
        } else {
            const int is_bool = a->mode == EW_MODE_BOOL;
            for (int64_t i = 0; i < m; i++) {
                const int64_t x = ew_get_int(t1, qa + i * sa), y = binary ? ew_get_int(t2, qb + i * sb) : 0;
                int64_t r = is_bool ? apply_bool(a->op, x, y, &a->prm) : apply_i64(a->op, x, y, &a->prm);
                if (a->op == EW_GT && t1 == ACL_UINT64 && x < 0)
                    r = 1; /* a UINT64 above INT64_MAX (read wrapped) exceeds every int64 */
                if (!is_bool && a->ct != ACL_INT64) {
                    /* wrap at the width of the common type, as torch computing in it would */
                    char tmp[8] = {0};
                    ew_put_int((aclDataType)a->ct, tmp, r);
                    r = ew_get_int((aclDataType)a->ct, tmp);
                }
                ew_put_i(t0, qo + i * so, r);
            }
        }
    }
}

ew_vec_fn cannon_ew_vec_for(int isa)
{
    switch (isa) {
#if defined(CANNON_OPS_HAVE_AVX512)
    case CANNON_ISA_AVX512:
        return cannon_ew_vec_avx512;
#endif
#if defined(CANNON_OPS_HAVE_AVX2)
    case CANNON_ISA_AVX2:
        return cannon_ew_vec_avx2;
#endif
    default:
        return cannon_ew_vec_scalar;
    }
}

static int vdt_of(aclDataType t)
{
    return t == ACL_FLOAT ? EW_VF32 : t == ACL_FLOAT16 ? EW_VF16 : t == ACL_BF16 ? EW_VBF16 : -1;
}

static int ew_kernel(const cannon_kernel_ctx *kctx, void *args)
{
    const ew_args *a = (const ew_args *)args;
    const int64_t start = (int64_t)kctx->block_idx * a->chunk;
    if (start >= a->numel)
        return 0;
    const int64_t end = a->numel - start < a->chunk ? a->numel : start + a->chunk;
    ew_ctx c;
    c.a = a;
    c.kt = cannon_kernels_for((cannon_isa)a->isa);
    c.vec = cannon_ew_vec_for(a->isa);
    c.vdt = a->mode == EW_MODE_F32 && a->dt[0] == a->dt[1] ? vdt_of((aclDataType)a->dt[0]) : -1;
    c.es = c.vdt == EW_VF32 ? 4 : 2;
    c.round16 = a->mode == EW_MODE_F32 && (a->ct == ACL_FLOAT16 || a->ct == ACL_BF16);
    c.vcmp = -1;
    if ((a->op == EW_GT || a->op == EW_EQ) && a->mode == EW_MODE_F32 && a->dt[0] == ACL_BOOL && a->dt[1] == a->ct &&
        vdt_of((aclDataType)a->dt[1]) >= 0 && (a->nin == 1 || a->scalar_b || a->dt[2] == a->dt[1]))
        c.vcmp = vdt_of((aclDataType)a->dt[1]) + EW_VF32_U8;
    c.esi = (int64_t)cannonDtypeSize((aclDataType)a->dt[1]);
    c.esr = (int64_t)cannonDtypeSize((aclDataType)a->dt[0]);

    const int nops = a->nin + 1;
    const int64_t nd = a->nd, L = nd - 1;
    int64_t idx[EW_MAX_DIMS];
    char *ptr[3];
    ptr[0] = (char *)a->p[0];
    ptr[1] = (char *)a->p[1];
    ptr[2] = a->scalar_b ? (char *)(uintptr_t)a->sval : (char *)a->p[2];
    int64_t rem = start;
    for (int64_t d = L; d >= 0; d--) {
        idx[d] = rem % a->shape[d];
        rem /= a->shape[d];
        for (int k = 0; k < nops; k++)
            ptr[k] += idx[d] * a->stride[k][d];
    }
    int64_t pos = start;
    while (pos < end) {
        int64_t n = a->shape[L] - idx[L];
        if (n > end - pos)
            n = end - pos;
        ew_segment(&c, ptr[0], ptr[1], ptr[2], a->stride[0][L], a->stride[1][L], a->stride[2][L], n);
        pos += n;
        idx[L] += n;
        for (int k = 0; k < nops; k++)
            ptr[k] += n * a->stride[k][L];
        /* carry into the outer dims */
        for (int64_t d = L; d > 0 && idx[d] == a->shape[d]; d--) {
            idx[d] = 0;
            idx[d - 1]++;
            for (int k = 0; k < nops; k++)
                ptr[k] += a->stride[k][d - 1] - a->shape[d] * a->stride[k][d];
        }
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * phase 1
 * ------------------------------------------------------------------------------------------- */
bool cannon_ew_plan(cannon_op *op, ew_args *tmpl, const aclTensor *out, const aclTensor *in0, const aclTensor *in1,
                    const char *out_name, const char *in0_name, const char *in1_name)
{
    if (!cannonOpOk(op))
        return false;
    cannon_tensor_view vo, v0, v1;
    cannonTensorGetView(out, &vo); /* the caller checked every tensor */
    cannonTensorGetView(in0, &v0);
    if (in1)
        cannonTensorGetView(in1, &v1);
    /* broadcast shape of the inputs (right-aligned, size 1 stretches) */
    int64_t bshape[CANNON_OP_MAX_RANK];
    int64_t brank = v0.ndim;
    if (in1 && v1.ndim > brank)
        brank = v1.ndim;
    for (int64_t i = 0; i < brank; i++) {
        const int64_t i0 = i - (brank - v0.ndim), i1 = in1 ? i - (brank - v1.ndim) : -1;
        const int64_t d0 = i0 >= 0 ? v0.shape[i0] : 1, d1 = i1 >= 0 ? v1.shape[i1] : 1;
        if (d0 != d1 && d0 != 1 && d1 != 1) {
            char s0[160], s1[160];
            cannonShapeFormat(&v0, s0, sizeof s0);
            cannonShapeFormat(&v1, s1, sizeof s1);
            return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s shape %s and %s shape %s cannot broadcast", in0_name,
                                s0, in1_name, s1);
        }
        bshape[i] = d0 == 1 ? d1 : d0;
    }
    int same = brank == vo.ndim;
    for (int64_t i = 0; same && i < brank; i++)
        same = bshape[i] == vo.shape[i];
    if (tmpl->bcast_out) {
        /* every input broadcasts to out's own shape */
        const cannon_tensor_view *vin[2] = {&v0, in1 ? &v1 : NULL};
        const char *nin[2] = {in0_name, in1_name};
        for (int k = 0; k < 2 && vin[k]; k++) {
            int ok = vin[k]->ndim <= vo.ndim;
            for (int64_t i = 0; ok && i < vin[k]->ndim; i++) {
                const int64_t d = vin[k]->shape[i], o = vo.shape[i + vo.ndim - vin[k]->ndim];
                ok = d == o || d == 1;
            }
            if (!ok) {
                char so[160], si[160];
                cannonShapeFormat(&vo, so, sizeof so);
                cannonShapeFormat(vin[k], si, sizeof si);
                return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s shape %s cannot broadcast to %s shape %s",
                                    nin[k], si, out_name, so);
            }
        }
        same = 1;
    }
    if (!same) {
        char so[160], s0[160], s1[160] = "";
        cannonShapeFormat(&vo, so, sizeof so);
        cannonShapeFormat(&v0, s0, sizeof s0);
        if (in1)
            cannonShapeFormat(&v1, s1, sizeof s1);
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s shape %s differs from the shape of %s %s%s%s", out_name,
                            so, in0_name, s0, in1 ? (in1_name ? " broadcast with " : "") : "", in1 ? s1 : "");
    }

    ew_args a = *tmpl;
    a.nin = in1 || tmpl->scalar_b ? 2 : 1;
    a.dt[0] = vo.dtype;
    a.dt[1] = v0.dtype;
    if (in1)
        a.dt[2] = v1.dtype;
    const int64_t es[3] = {(int64_t)cannonDtypeSize(vo.dtype), (int64_t)cannonDtypeSize(v0.dtype),
                           in1 ? (int64_t)cannonDtypeSize(v1.dtype) : 0};
    int64_t numel = 1;
    for (int64_t i = 0; i < vo.ndim; i++)
        numel *= vo.shape[i];
    const int s0 = cannonOpInput(op, in0);
    const int s1 = in1 ? cannonOpInput(op, in1) : -1;
    const int so = cannonOpOutput(op, out);
    /* Nothing to compute; and an empty view's strides and sizes are bounded only one by one, so
     * the products the coalescing below forms could overflow. */
    if (numel == 0)
        return cannonOpOk(op);
    /* per-operand byte strides over the output's dims, 0 where an input is broadcast */
    int64_t full[3][CANNON_OP_MAX_RANK];
    for (int64_t i = 0; i < vo.ndim; i++) {
        full[0][i] = vo.strides[i] * es[0];
        const int64_t i0 = i - (vo.ndim - v0.ndim);
        full[1][i] = i0 >= 0 && v0.shape[i0] != 1 ? v0.strides[i0] * es[1] : 0;
        if (in1) {
            const int64_t i1 = i - (vo.ndim - v1.ndim);
            full[2][i] = i1 >= 0 && v1.shape[i1] != 1 ? v1.strides[i1] * es[2] : 0;
        } else {
            full[2][i] = 0;
        }
    }
    /* coalesce: drop size-1 dims, then merge an outer dim into the next inner one wherever every
     * operand steps through the pair as through one longer dim */
    a.nd = 0;
    for (int64_t i = 0; i < vo.ndim; i++) {
        if (vo.shape[i] == 1)
            continue;
        a.shape[a.nd] = vo.shape[i];
        for (int k = 0; k < 3; k++)
            a.stride[k][a.nd] = full[k][i];
        a.nd++;
    }
    /* merge pass (outer dim j-1 into inner dim j when stride[j-1] == stride[j] * shape[j]) */
    {
        int64_t nd = 0;
        int64_t sh[EW_MAX_DIMS], st[3][EW_MAX_DIMS];
        for (int64_t j = 0; j < a.nd; j++) {
            if (nd > 0) {
                int merge = 1;
                for (int k = 0; k < 3; k++) {
                    /* the product can exceed int64 only in an empty view, whose strides and
                     * dims are unrelated; such dims are never merged */
                    int64_t step;
                    if (__builtin_mul_overflow(a.stride[k][j], a.shape[j], &step) || st[k][nd - 1] != step)
                        merge = 0;
                }
                if (merge) {
                    sh[nd - 1] *= a.shape[j];
                    for (int k = 0; k < 3; k++)
                        st[k][nd - 1] = a.stride[k][j];
                    continue;
                }
            }
            sh[nd] = a.shape[j];
            for (int k = 0; k < 3; k++)
                st[k][nd] = a.stride[k][j];
            nd++;
        }
        if (nd == 0) {
            nd = 1;
            sh[0] = 1;
            st[0][0] = st[1][0] = st[2][0] = 0;
        }
        a.nd = nd;
        memcpy(a.shape, sh, sizeof sh);
        for (int k = 0; k < 3; k++)
            memcpy(a.stride[k], st[k], sizeof st[k]);
    }
    a.numel = numel;
    a.isa = (int32_t)cannon_isa_select();
    a.chunk = EW_CHUNK;
    while ((numel + a.chunk - 1) / a.chunk > ((int64_t)1 << 24))
        a.chunk *= 2;
    a.nt = (uint64_t)numel * (uint64_t)es[0] >= EW_NT_BYTES;
    const char *nt_env = cannon_env_get("CANNON_EW_NT");
    if (nt_env && (nt_env[0] == '0' || nt_env[0] == '1'))
        a.nt = nt_env[0] == '1';

    /* the kernel walks every operand through its byte strides: views are bound as they are */
    cannon_arg_ref refs[3];
    size_t nrefs = 0;
    cannonOpBindView(op, so, (uint32_t)offsetof(ew_args, p[0]), &refs[nrefs++]);
    cannonOpBindView(op, s0, (uint32_t)offsetof(ew_args, p[1]), &refs[nrefs++]);
    if (in1)
        cannonOpBindView(op, s1, (uint32_t)offsetof(ew_args, p[2]), &refs[nrefs++]);
    const uint32_t blocks = (uint32_t)((numel + a.chunk - 1) / a.chunk);
    return cannonOpKernel(op, op->api, ew_kernel, blocks, &a, sizeof a, refs, nrefs);
}
