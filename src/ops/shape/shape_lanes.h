/*
 * Lanes along one dim for the shape family's scans and reductions (Cumsum, ArgMax, Argsort): a
 * tensor viewed as [outer, n, inner] around dim, each lane the n elements of one (outer, inner)
 * pair, read through the view's strides. Outer and inner dims keep their own strides (any view).
 */
#ifndef CANNON_OPS_SHAPE_LANES_H_
#define CANNON_OPS_SHAPE_LANES_H_

#include <stdint.h>

#include "cannon/opdev.h"

typedef struct shape_lanes {
    int64_t n, step;    /* lane length and stride (elements) */
    int64_t lanes;      /* outer * inner */
    int32_t nd, pad_;   /* dims other than dim */
    int64_t shape[CANNON_OP_MAX_RANK], stride[CANNON_OP_MAX_RANK];
} shape_lanes;

/* Lanes of view (@p ndim, @p shape, @p strides) along @p dim (a 0-D view is one lane of 1). */
static inline void shape_lanes_init(shape_lanes *l, int64_t ndim, const int64_t *shape, const int64_t *strides,
                                    int64_t dim)
{
    l->nd = 0;
    l->lanes = 1;
    l->n = ndim > 0 ? shape[dim] : 1;
    l->step = ndim > 0 ? strides[dim] : 1;
    for (int64_t d = 0; d < ndim; d++) {
        if (d == dim)
            continue;
        l->shape[l->nd] = shape[d];
        l->stride[l->nd] = strides[d];
        l->lanes *= shape[d];
        l->nd++;
    }
}

/* Element offset of lane @p k's first element. */
static inline int64_t shape_lane_start(const shape_lanes *l, int64_t k)
{
    int64_t off = 0;
    for (int32_t d = l->nd - 1; d >= 0; d--) {
        off += (k % l->shape[d]) * l->stride[d];
        k /= l->shape[d];
    }
    return off;
}

#endif /* CANNON_OPS_SHAPE_LANES_H_ */
