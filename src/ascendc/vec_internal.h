/* The vector kernels' per-tier table (vec_tier.h fills one per tier, vec_dispatch.c picks one). */
#ifndef CANNON_ASCENDC_VEC_INTERNAL_H_
#define CANNON_ASCENDC_VEC_INTERNAL_H_

#include <stddef.h>

#include "cannon_ascendc/vec_kernels.h"

typedef struct cannon_ascendc_vtable {
    void (*binary)(int op, int dtype, void *dst, const void *a, const void *b, size_t n);
    void (*unary)(int op, int dtype, void *dst, const void *a, size_t n);
    void (*scalar)(int op, int dtype, void *dst, const void *a, double s, size_t n);
    /* The sum of a run of a floating type in float (fixed order, vec_tier.h). */
    float (*sum)(int dtype, const void *a, size_t n);
    /* memcpy with non-temporal stores (the scalar tier: memcpy). */
    void (*copy_stream)(void *dst, const void *src, size_t n);
    /* The Matmul API's GEMM (vec_tier.h); -1 when out of memory. */
    int (*gemm)(const cannon_ascendc_gemm *g);
} cannon_ascendc_vtable;

extern const cannon_ascendc_vtable cannon_ascendc_vec_scalar;
#if defined(CANNON_ASCENDC_HAVE_AVX2)
extern const cannon_ascendc_vtable cannon_ascendc_vec_avx2;
#endif
#if defined(CANNON_ASCENDC_HAVE_AVX512)
extern const cannon_ascendc_vtable cannon_ascendc_vec_avx512;
#endif

#endif /* CANNON_ASCENDC_VEC_INTERNAL_H_ */
