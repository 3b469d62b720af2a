/* The fused small-m kernel (wq_dot_impl.h) for the scalar tier. */
#include "../kernels/vec_scalar.h"

static inline vf wq_ld_i8(const int8_t *p)
{
    return (float)*p;
}

static inline vf wq_ld_i4(const uint8_t *col, int64_t p)
{
    const uint8_t b = col[p >> 1];
    return (float)((p & 1) ? (int)((int8_t)b >> 4) : (int)((int8_t)(uint8_t)(b << 4) >> 4));
}

#define WQ_DOT_FN cannon_wq_dot_scalar
#define WQ_DOT_R 2
#define WQ_DOT_C 4
#include "wq_dot_impl.h"
