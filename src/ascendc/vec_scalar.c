/* Scalar tier of the vector kernels: portable C, the reference the other tiers match bit for bit. */
#include <string.h>

#include "fp_convert.h"

#define VT_FN(name) cannon_ascendc_vscalar_##name
#define VT_TABLE cannon_ascendc_vec_scalar

static inline void cannon_ascendc_vscalar_widen_f16(const uint16_t *s, float *d, size_t n)
{
    for (size_t i = 0; i < n; i++)
        d[i] = cannon_f16_to_f32(s[i]);
}

static inline void cannon_ascendc_vscalar_narrow_f16(const float *s, uint16_t *d, size_t n)
{
    for (size_t i = 0; i < n; i++)
        d[i] = cannon_f32_to_f16(s[i]);
}

static void cannon_ascendc_vscalar_copy_stream(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
}

#define VT_COPY_STREAM cannon_ascendc_vscalar_copy_stream
#define VT_WIDEN_F16 cannon_ascendc_vscalar_widen_f16
#define VT_NARROW_F16 cannon_ascendc_vscalar_narrow_f16
#include "vec_tier.h"
