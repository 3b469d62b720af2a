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
#include "ew_access.h"

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

/* ---- runs of values (element access: ew_access.h) ---- */
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
 * none): values of another dtype are rounded once to it, as a cast to the 16-bit compute type
 * (values fp32 cannot hold exactly go from fp64 to the 16-bit type directly). */
static inline void ewk_load_f32(aclDataType t, const char *p, int64_t s, int64_t n, float *d,
                                const cannon_kernel_table *kt, aclDataType round16)
{
    const aclDataType r16 =
        (round16 == ACL_FLOAT16 || round16 == ACL_BF16) && t != round16 ? round16 : ACL_DT_UNDEFINED;
    if (r16 == ACL_DT_UNDEFINED || t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_BF16) {
        ew_load_f32(t, p, s, n, d, kt);
        ew_round16(kt, r16, d, n);
    } else if (s == 0) {
        const float v = ewk_f32_of(ew_get_d(t, p), r16);
        for (int64_t i = 0; i < n; i++)
            d[i] = v;
    } else {
        for (int64_t i = 0; i < n; i++)
            d[i] = ewk_f32_of(ew_get_d(t, p + i * s), r16);
    }
}

#endif /* CANNON_OPS_ELEMENTWISE_EW_WALK_H_ */
