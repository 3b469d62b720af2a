/*
 * Shared pieces of the vision and sequence family (src/ops/vision): element loads and stores
 * through a dtype, the 4-D (N, C, H, W) geometry the pooling, upsampling and im2col operators
 * share, and the small checks of their integer-array arguments.
 *
 * Values are loaded to double and stored with one rounding (fp32, fp16, bf16 round to nearest
 * even from the double result), so a result never depends on an intermediate narrow rounding.
 */
#ifndef CANNON_OPS_VISION_COMMON_H_
#define CANNON_OPS_VISION_COMMON_H_

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "aclnn/aclnn_base.h"
#include "aclnn/opdev/cannon_access.h"
#include "cannon/opdev.h"

#include "fp_convert.h"
#include "shape/shape_copy.h"

/* One element of @p t at @p p as double (floating and integral types). */
static inline double vis_load(const char *p, aclDataType t)
{
    switch (t) {
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
        return d;
    }
    default:
        return 0.0;
    }
}

/* Store @p v into one element of floating type @p t at @p p, rounded once. */
static inline void vis_store(char *p, aclDataType t, double v)
{
    switch (t) {
    case ACL_FLOAT: {
        const float f = (float)v;
        memcpy(p, &f, 4);
        break;
    }
    case ACL_FLOAT16: {
        const uint16_t h = shape_f64_to_f16(v);
        memcpy(p, &h, 2);
        break;
    }
    case ACL_BF16: {
        const uint16_t h = shape_f64_to_bf16(v);
        memcpy(p, &h, 2);
        break;
    }
    case ACL_DOUBLE:
        memcpy(p, &v, 8);
        break;
    default:
        break;
    }
}

/* One fp32/fp16/bf16 element as float (the types RotaryPositionEmbedding computes in fp32). */
static inline float vis_load_f32(const char *p, aclDataType t)
{
    uint16_t h;
    float f;
    if (t == ACL_FLOAT) {
        memcpy(&f, p, 4);
        return f;
    }
    memcpy(&h, p, 2);
    return t == ACL_FLOAT16 ? cannon_f16_to_f32(h) : cannon_bf16_to_f32(h);
}

static inline void vis_store_f32(char *p, aclDataType t, float v)
{
    uint16_t h;
    if (t == ACL_FLOAT) {
        memcpy(p, &v, 4);
        return;
    }
    h = t == ACL_FLOAT16 ? cannon_f32_to_f16(v) : cannon_f32_to_bf16(v);
    memcpy(p, &h, 2);
}

/*
 * A 4-D image view: sizes and strides (elements) of its batch, channel, height and width axes.
 * A 3-D (C, H, W) tensor has n = 1, sn = 0.
 */
typedef struct vis_image {
    int64_t n, c, h, w;
    int64_t sn, sc, sh, sw;
} vis_image;

/* @p v as (N, C, H, W) (rank 4) or (C, H, W) (rank 3), or, with @p nhwc, (N, H, W, C). */
static inline void vis_image_of(vis_image *im, const cannon_tensor_view *v, bool nhwc)
{
    const int64_t b = v->ndim == 4 ? 1 : 0;
    im->n = b ? v->shape[0] : 1;
    im->sn = b ? v->strides[0] : 0;
    if (nhwc) {
        im->h = v->shape[b];
        im->w = v->shape[b + 1];
        im->c = v->shape[b + 2];
        im->sh = v->strides[b];
        im->sw = v->strides[b + 1];
        im->sc = v->strides[b + 2];
    } else {
        im->c = v->shape[b];
        im->h = v->shape[b + 1];
        im->w = v->shape[b + 2];
        im->sc = v->strides[b];
        im->sh = v->strides[b + 1];
        im->sw = v->strides[b + 2];
    }
}

/*
 * Read an integer-array argument of 1 or 2 values (or also 0 values with @p allow_empty, which
 * gives @p dflt for both) into (h, w), one value meaning both. Values below @p min fail.
 */
static inline bool vis_pair(cannon_op *op, const char *name, const aclIntArray *a, bool allow_empty, int64_t dflt,
                            int64_t min, int64_t *h, int64_t *w)
{
    uint64_t n = 0;
    if (!cannonOpOk(op))
        return false;
    const int64_t *p = cannonIntArrayData(a, &n);
    if (n == 0 && p == NULL && allow_empty) {
        *h = *w = dflt;
        return true;
    }
    if (n != 1 && n != 2)
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s must hold %s2 values, got %llu", name,
                            allow_empty ? "0, 1 or " : "1 or ", (unsigned long long)n);
    *h = p[0];
    *w = n == 2 ? p[1] : p[0];
    if (*h < min || *w < min)
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s (%lld, %lld) must be >= %lld", name, (long long)*h,
                            (long long)*w, (long long)min);
    return true;
}

/* Blocks of about @p per_block_work work units each over @p units units of @p unit_work each. */
static inline int64_t vis_units_per_block(int64_t units, int64_t unit_work, int64_t per_block_work)
{
    int64_t per = unit_work >= per_block_work ? 1 : per_block_work / (unit_work > 0 ? unit_work : 1);
    while ((units + per - 1) / per > ((int64_t)1 << 24))
        per *= 2;
    return per;
}

#endif /* CANNON_OPS_VISION_COMMON_H_ */
