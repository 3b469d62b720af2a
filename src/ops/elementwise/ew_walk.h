/*
 * A broadcast walk over several operands, for the elementwise operators whose operand count or
 * shape the two-input planner (ew_plan.c) does not cover: Addcdiv (three inputs), Ger (an outer
 * product: two vectors broadcast against each other), Sum (a tensor list), InplaceMaskedFillScalar
 * (a BOOL mask).
 *
 * A layout holds the output's shape and, per operand, byte strides over the output's dims (0
 * along a dim an input is broadcast in). Size-1 dims are dropped and an outer dim is merged into
 * the next inner one wherever every operand steps through the pair as through one longer dim, so
 * contiguous operands become one run. The walk visits the elements [start, end) of the output's
 * row-major order as runs of the innermost dim, so a block split by element ranges gives results
 * independent of the split.
 *
 * The run helpers load a run of any real dtype into a compute buffer (fp32, fp64 or int64) and
 * store it back: 16-bit floats through the tier's bulk conversion when contiguous, values
 * converted once (fp64 to a 16-bit float rounds once, to nearest even; integers wrap at their
 * width; BOOL is value != 0).
 */
#ifndef CANNON_OPS_ELEMENTWISE_EW_WALK_H_
#define CANNON_OPS_ELEMENTWISE_EW_WALK_H_

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "aclnn/aclnn_base.h"
#include "cannon/opdev.h"
#include "fp_convert.h"
#include "../kernels/kernels.h"
#include "../shape/shape_copy.h"

#define EWK_MAX_OPS 4
/* elements converted at a time (stack buffers) */
#define EWK_BUF 256

typedef struct ewk_layout {
    int32_t nd, nops;
    int64_t shape[CANNON_OP_MAX_RANK];
    int64_t stride[EWK_MAX_OPS][CANNON_OP_MAX_RANK]; /* bytes */
} ewk_layout;

/* Byte strides of view @p v broadcast to an output of rank @p rank and shape @p shape (right
 * aligned; 0 where v has size 1 or no dim). */
static inline void ewk_bcast_strides(const cannon_tensor_view *v, int64_t rank, int64_t *st)
{
    const int64_t es = (int64_t)cannonDtypeSize(v->dtype);
    for (int64_t i = 0; i < rank; i++) {
        const int64_t j = i - (rank - v->ndim);
        st[i] = j >= 0 && v->shape[j] != 1 ? v->strides[j] * es : 0;
    }
}

/* Whether view @p v broadcasts to (rank, shape). */
static inline bool ewk_broadcasts_to(const cannon_tensor_view *v, int64_t rank, const int64_t *shape)
{
    if (v->ndim > rank)
        return false;
    for (int64_t j = 0; j < v->ndim; j++) {
        const int64_t d = v->shape[j], o = shape[j + rank - v->ndim];
        if (d != o && d != 1)
            return false;
    }
    return true;
}

/* The broadcast shape of @p n views into (@p rank, @p shape); false when they do not broadcast. */
static inline bool ewk_broadcast_shape(const cannon_tensor_view *const *v, int n, int64_t *rank, int64_t *shape)
{
    int64_t r = 0;
    for (int k = 0; k < n; k++)
        r = v[k]->ndim > r ? v[k]->ndim : r;
    for (int64_t i = 0; i < r; i++) {
        int64_t s = 1;
        for (int k = 0; k < n; k++) {
            const int64_t j = i - (r - v[k]->ndim);
            const int64_t d = j >= 0 ? v[k]->shape[j] : 1;
            if (d == s || d == 1)
                continue;
            if (s != 1)
                return false;
            s = d;
        }
        shape[i] = s;
    }
    *rank = r;
    return true;
}

/* Build @p l for an output of (@p rank, @p shape) and @p nops operands with byte strides @p st
 * (st[k][i] over the output's dims). The output must not be empty. */
static inline void ewk_layout_init(ewk_layout *l, int nops, int64_t rank, const int64_t *shape,
                                   const int64_t (*st)[CANNON_OP_MAX_RANK])
{
    memset(l, 0, sizeof *l);
    l->nops = nops;
    int32_t nd = 0;
    for (int64_t i = 0; i < rank; i++) {
        if (shape[i] == 1)
            continue;
        if (nd > 0) {
            int merge = 1;
            for (int k = 0; k < nops; k++)
                if (l->stride[k][nd - 1] != st[k][i] * shape[i])
                    merge = 0;
            if (merge) {
                l->shape[nd - 1] *= shape[i];
                for (int k = 0; k < nops; k++)
                    l->stride[k][nd - 1] = st[k][i];
                continue;
            }
        }
        l->shape[nd] = shape[i];
        for (int k = 0; k < nops; k++)
            l->stride[k][nd] = st[k][i];
        nd++;
    }
    if (nd == 0) {
        nd = 1;
        l->shape[0] = 1;
    }
    l->nd = nd;
}

/* A run of @p n elements: operand k at p[k], byte stride s[k]; @p pos is the run's first element
 * in the output's row-major order. */
typedef void (*ewk_run_fn)(void *ctx, char *const *p, const int64_t *s, int64_t n, int64_t pos);

/* Walk elements [start, end) of @p l, operand k starting at base[k] (its first element). */
static inline void ewk_walk(const ewk_layout *l, char *const *base, int64_t start, int64_t end, ewk_run_fn fn,
                            void *ctx)
{
    const int64_t L = l->nd - 1;
    int64_t idx[CANNON_OP_MAX_RANK];
    char *ptr[EWK_MAX_OPS];
    int64_t sl[EWK_MAX_OPS];
    for (int k = 0; k < l->nops; k++) {
        ptr[k] = base[k];
        sl[k] = l->stride[k][L];
    }
    int64_t rem = start;
    for (int64_t d = L; d >= 0; d--) {
        idx[d] = rem % l->shape[d];
        rem /= l->shape[d];
        for (int k = 0; k < l->nops; k++)
            ptr[k] += idx[d] * l->stride[k][d];
    }
    int64_t pos = start;
    while (pos < end) {
        int64_t n = l->shape[L] - idx[L];
        if (n > end - pos)
            n = end - pos;
        fn(ctx, ptr, sl, n, pos);
        pos += n;
        idx[L] += n;
        for (int k = 0; k < l->nops; k++)
            ptr[k] += n * l->stride[k][L];
        for (int64_t d = L; d > 0 && idx[d] == l->shape[d]; d--) {
            idx[d] = 0;
            idx[d - 1]++;
            for (int k = 0; k < l->nops; k++)
                ptr[k] += l->stride[k][d - 1] - l->shape[d] * l->stride[k][d];
        }
    }
}

/* ---- element access ---- */
static inline int64_t ewk_get_i(aclDataType t, const char *p)
{
    switch (t) {
    case ACL_INT8: {
        int8_t v;
        memcpy(&v, p, 1);
        return v;
    }
    case ACL_UINT8: {
        uint8_t v;
        memcpy(&v, p, 1);
        return v;
    }
    case ACL_BOOL:
        return *(const unsigned char *)p != 0;
    case ACL_INT16: {
        int16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case ACL_INT32: {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    case ACL_INT64: {
        int64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    default:
        return 0;
    }
}

static inline double ewk_get_d(aclDataType t, const char *p)
{
    switch (t) {
    case ACL_FLOAT: {
        float v;
        memcpy(&v, p, 4);
        return v;
    }
    case ACL_DOUBLE: {
        double v;
        memcpy(&v, p, 8);
        return v;
    }
    case ACL_FLOAT16: {
        uint16_t v;
        memcpy(&v, p, 2);
        return cannon_f16_to_f32(v);
    }
    case ACL_BF16: {
        uint16_t v;
        memcpy(&v, p, 2);
        return cannon_bf16_to_f32(v);
    }
    default:
        return (double)ewk_get_i(t, p);
    }
}

static inline void ewk_put_d(aclDataType t, char *p, double v);

/* An integer stored at @p t's width (wrapping; BOOL: != 0; converted once for a floating t). */
static inline void ewk_put_i(aclDataType t, char *p, int64_t v)
{
    switch (t) {
    case ACL_INT8:
    case ACL_UINT8: {
        uint8_t x = (uint8_t)v;
        memcpy(p, &x, 1);
        return;
    }
    case ACL_BOOL:
        *(unsigned char *)p = v != 0;
        return;
    case ACL_INT16: {
        uint16_t x = (uint16_t)v;
        memcpy(p, &x, 2);
        return;
    }
    case ACL_INT32: {
        uint32_t x = (uint32_t)v;
        memcpy(p, &x, 4);
        return;
    }
    case ACL_INT64:
        memcpy(p, &v, 8);
        return;
    default:
        ewk_put_d(t, p, (double)v);
        return;
    }
}

/* @p v (a float result) stored as @p t: rounded once for floats, truncated toward zero for
 * integers (NaN 0, saturating at the int64 range, then wrapped), != 0 for BOOL. */
static inline void ewk_put_d(aclDataType t, char *p, double v)
{
    switch (t) {
    case ACL_FLOAT: {
        const float f = (float)v;
        memcpy(p, &f, 4);
        return;
    }
    case ACL_DOUBLE:
        memcpy(p, &v, 8);
        return;
    case ACL_FLOAT16: {
        const uint16_t h = shape_f64_to_f16(v);
        memcpy(p, &h, 2);
        return;
    }
    case ACL_BF16: {
        const uint16_t h = shape_f64_to_bf16(v);
        memcpy(p, &h, 2);
        return;
    }
    case ACL_BOOL:
        *(unsigned char *)p = v != 0;
        return;
    default: {
        int64_t i = 0;
        if (v != v)
            i = 0;
        else if (v >= 9.2233720368547758e18)
            i = INT64_MAX;
        else if (v <= -9.2233720368547758e18)
            i = INT64_MIN;
        else
            i = (int64_t)v;
        ewk_put_i(t, p, i);
        return;
    }
    }
}

/* Round @p n fp32 values to FLOAT16 / BFLOAT16 @p t in place (nothing for another t). */
static inline void ewk_round16(float *v, int64_t n, aclDataType t)
{
    if (t == ACL_FLOAT16)
        for (int64_t i = 0; i < n; i++)
            v[i] = cannon_f16_to_f32(cannon_f32_to_f16(v[i]));
    else if (t == ACL_BF16)
        for (int64_t i = 0; i < n; i++)
            v[i] = cannon_bf16_to_f32(cannon_f32_to_bf16(v[i]));
}

/* One value as fp32, rounded once to FLOAT16 / BFLOAT16 @p r16 when that is set. */
static inline float ewk_f32_of(double v, aclDataType r16)
{
    if (r16 == ACL_FLOAT16)
        return cannon_f16_to_f32(shape_f64_to_f16(v));
    if (r16 == ACL_BF16)
        return cannon_bf16_to_f32(shape_f64_to_bf16(v));
    return (float)v;
}

/* n elements of @p t (byte stride s) as fp32; @p round16 (FLOAT16 / BF16 or another value for
 * none): values of another dtype are rounded once to it, as a cast to the 16-bit compute type. */
static inline void ewk_load_f32(aclDataType t, const char *p, int64_t s, int64_t n, float *d,
                                const cannon_kernel_table *kt, aclDataType round16)
{
    const aclDataType r16 =
        (round16 == ACL_FLOAT16 || round16 == ACL_BF16) && t != round16 ? round16 : ACL_DT_UNDEFINED;
    if (t == ACL_FLOAT && s == 4) {
        memcpy(d, p, (size_t)n * 4);
        ewk_round16(d, n, r16);
    } else if (t == ACL_FLOAT16 && s == 2) {
        kt->f16_to_f32(d, (const uint16_t *)(const void *)p, (size_t)n);
        ewk_round16(d, n, r16);
    } else if (t == ACL_BF16 && s == 2) {
        kt->bf16_to_f32(d, (const uint16_t *)(const void *)p, (size_t)n);
        ewk_round16(d, n, r16);
    } else if (s == 0) {
        const float v = ewk_f32_of(ewk_get_d(t, p), r16);
        for (int64_t i = 0; i < n; i++)
            d[i] = v;
    } else {
        for (int64_t i = 0; i < n; i++)
            d[i] = ewk_f32_of(ewk_get_d(t, p + i * s), r16);
    }
}

/* n fp32 values stored as @p t (byte stride s): one rounding to a 16-bit float. */
static inline void ewk_store_f32(aclDataType t, char *p, int64_t s, int64_t n, const float *v,
                                 const cannon_kernel_table *kt)
{
    if (t == ACL_FLOAT && s == 4) {
        memcpy(p, v, (size_t)n * 4);
    } else if (t == ACL_FLOAT16 && s == 2) {
        kt->f32_to_f16((uint16_t *)(void *)p, v, (size_t)n);
    } else if (t == ACL_BF16 && s == 2) {
        kt->f32_to_bf16((uint16_t *)(void *)p, v, (size_t)n);
    } else {
        for (int64_t i = 0; i < n; i++)
            ewk_put_d(t, p + i * s, v[i]);
    }
}

#endif /* CANNON_OPS_ELEMENTWISE_EW_WALK_H_ */
