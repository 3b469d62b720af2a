/*
 * The shape family's building blocks: every operator of src/ops/shape is a short plan of these.
 *
 * - A copy between two strided views of the same shape (shape_geom): the destination element at
 *   multi-index i is the source element at i. Size-1 dims are dropped and neighbouring dims that
 *   are contiguous with each other in both views are merged, so a permuted or sliced view keeps
 *   only the dims it really has. The element range is cut into fixed chunks, one per block; the
 *   cut depends only on the shape. A source stride of 0 reads one element many times (Repeat's
 *   tiles, RepeatInterleave's copies, a fill from a value held in the argument blob).
 * - An indexed copy (shape_record_index_copy): units (outer index, position in the index tensor)
 *   each move one inner block; the index selects the block's place in the indexed tensor (the
 *   source for GatherV2 / IndexSelect, the destination for InplaceIndexCopy). A one-block pass
 *   before it checks every index and reports the first bad one as the stream's error
 *   (ACL_ERROR_RT_AICORE_EXCEPTION); a bad index never addresses memory: a gather writes zeros
 *   for it and an index copy skips it. For InplaceIndexCopy the same pass records, for every
 *   destination slice, the last position that names it, and only that position writes it: with
 *   repeated indices the last one wins, whatever the thread count.
 *
 * Copies move bytes (1, 2, 4, 8 or 16 per element), so they are exact for every dtype.
 */
#ifndef CANNON_OPS_SHAPE_COPY_H_
#define CANNON_OPS_SHAPE_COPY_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aclnn/aclnn_base.h"
#include "cannon/opdev.h"

/* Dims a copy may have before simplification (Repeat splits each of 8 dims in two). */
#define SHAPE_MAX_DIMS 16

typedef struct shape_geom {
    int32_t ndim;  /* after simplification; 0 only when numel is 0 */
    int32_t esize; /* bytes per element */
    int64_t numel;
    int64_t shape[SHAPE_MAX_DIMS];
    int64_t sst[SHAPE_MAX_DIMS]; /* source strides, elements */
    int64_t dst[SHAPE_MAX_DIMS]; /* destination strides, elements */
} shape_geom;

/* Fill @p g with the simplified copy of @p ndim dims (<= SHAPE_MAX_DIMS). */
void shape_geom_init(shape_geom *g, int64_t ndim, const int64_t *shape, const int64_t *sst, const int64_t *dst,
                     size_t esize);

/* Copy @p n elements from @p src (stride @p ss elements, 0: one element repeated) to @p dst
 * (stride @p ds), @p es bytes each. */
void shape_copy_run(char *dst, const char *src, int64_t n, int64_t ss, int64_t ds, size_t es);

/* Copy elements [pos, end) of the row-major walk of @p g from @p src to @p dst (each at element 0). */
void shape_copy_range(const shape_geom *g, const char *src, char *dst, int64_t pos, int64_t end);

/*
 * Record a copy of @p g from tensor slot @p src_slot (element @p src_off of its storage) into slot
 * @p dst_slot (element @p dst_off). Nothing is recorded for an empty copy.
 */
bool shape_record_copy(cannon_op *op, int src_slot, int64_t src_off, int dst_slot, int64_t dst_off,
                       const shape_geom *g);

/*
 * Record a fill of the view (@p ndim, @p shape, @p strides) at element @p dst_off of slot
 * @p dst_slot with the element @p value (esize bytes).
 */
bool shape_record_fill(cannon_op *op, int dst_slot, int64_t dst_off, int64_t ndim, const int64_t *shape,
                       const int64_t *strides, size_t esize, const void *value);

/*
 * An indexed copy. The tensors are described around the indexed axis: outer dims (before it),
 * the index dims (one per dim of the index tensor, in the non-indexed tensor), inner dims (after
 * it). The indexed tensor has axis length @p axis_size and stride @p axis_stride.
 */
typedef struct shape_index_plan {
    int scatter;        /* 0: gather (src indexed), 1: index copy (dst indexed) */
    int src_slot, dst_slot, index_slot;
    int64_t src_off, dst_off; /* view offsets, elements */
    int64_t n_outer;
    int64_t outer_shape[CANNON_OP_MAX_RANK], outer_sst[CANNON_OP_MAX_RANK], outer_dst[CANNON_OP_MAX_RANK];
    int32_t outer_ndim, index_ndim;
    int64_t index_shape[CANNON_OP_MAX_RANK];
    int64_t index_other[CANNON_OP_MAX_RANK]; /* strides of the index dims in the non-indexed tensor */
    int64_t n_index;
    int64_t axis_size, axis_stride;
    int64_t inner_ndim;
    int64_t inner_shape[CANNON_OP_MAX_RANK], inner_sst[CANNON_OP_MAX_RANK], inner_dst[CANNON_OP_MAX_RANK];
    size_t esize;
    aclDataType index_dtype;
    int neg_index; /* 1: an index in [-axis_size, 0) counts from the end (GatherV2) */
} shape_index_plan;

bool shape_record_index_copy(cannon_op *op, const shape_index_plan *p);

/*
 * The value of scalar @p s as one element of @p dt (16 bytes of room in @p out): floats round to
 * nearest even (once, from any source type), float -> integer truncates toward zero (NaN 0,
 * saturating at the int64 range, then wrapping to the width), integer -> integer wraps, anything
 * -> BOOL is value != 0, a real value -> complex has a zero imaginary part. The 8-bit float types
 * take only zero values (false otherwise). False for a dtype it cannot produce.
 */
bool shape_scalar_to(const aclScalar *s, aclDataType dt, void *out);

/*
 * Record a converting copy of @p g (esize ignored) from slot @p src_slot, elements of @p sdt, to
 * slot @p dst_slot, elements of @p ddt: each element converted as shape_scalar_to converts a
 * scalar (both dtypes among BOOL, UINT8, INT8/16/32/64, FLOAT16, BFLOAT16, FLOAT, DOUBLE).
 */
bool shape_record_convert(cannon_op *op, int src_slot, int64_t src_off, aclDataType sdt, int dst_slot,
                          int64_t dst_off, aclDataType ddt, const shape_geom *g);

/* Convert one element of @p st at @p src into @p dt at @p dst (see shape_scalar_to). */
bool shape_convert_elem(const void *src, aclDataType st, void *dst, aclDataType dt);

/* @p d rounded once to FLOAT16 / BFLOAT16 bits (round to nearest even). */
uint16_t shape_f64_to_f16(double d);
uint16_t shape_f64_to_bf16(double d);

/* The number of elements of view @p v. */
int64_t shape_numel(const cannon_tensor_view *v);

/* Check that @p v (argument @p name) has shape (@p ndim, @p shape), else 161002 naming both. */
bool shape_expect(cannon_op *op, const char *name, const cannon_tensor_view *v, int64_t ndim, const int64_t *shape);

#endif /* CANNON_OPS_SHAPE_COPY_H_ */
