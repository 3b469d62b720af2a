/*
 * The code of the x86 vector tiers that is their own (vec_avx2.c, vec_avx512.c), written once over
 * the tier's vector width; vec_tier.h then gives every tier the shared loops. The includer
 * defines, besides VT_FN and VT_TABLE:
 *   VS_LANES                 floats per vector (8 or 16)
 *   VS_PS                    the float vector type
 *   VS_LOAD_PH(p)            VS_LANES halves at p widened to floats (vcvtph2ps)
 *   VS_STORE_PH(q, v)        v rounded to nearest even into VS_LANES halves at q (vcvtps2ph)
 *   VS_LOADU_PS / VS_STOREU_PS
 *   VS_COPY_NT(d, s)         one vector of bytes from s to d with a non-temporal store
 *   VS_NT_BYTES              the bytes VS_COPY_NT moves
 *   VS_ADD, VS_SUB, VS_MUL, VS_DIV, VS_MAX, VS_MIN   the float vector operations
 * The half conversions give the bits of fp_convert.h (round to nearest even, subnormals kept,
 * NaNs quietened), so every tier's results are the same.
 */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cannon_ascendc/vec_kernels.h"
#include "fp_convert.h"

static inline void VT_FN(widen_f16)(const uint16_t *s, float *d, size_t n)
{
    size_t i = 0;
    for (; i + VS_LANES <= n; i += VS_LANES)
        VS_STOREU_PS(d + i, VS_LOAD_PH(s + i));
    for (; i < n; i++)
        d[i] = cannon_f16_to_f32(s[i]);
}

static inline void VT_FN(narrow_f16)(const float *s, uint16_t *d, size_t n)
{
    size_t i = 0;
    for (; i + VS_LANES <= n; i += VS_LANES)
        VS_STORE_PH(d + i, VS_LOADU_PS(s + i));
    for (; i < n; i++)
        d[i] = cannon_f32_to_f16(s[i]);
}

/* memcpy with non-temporal stores: the head up to a 64-byte boundary of dst and the tail are
 * plain copies; the fence orders the streamed stores before whatever the block does next. */
static void VT_FN(copy_stream)(void *dst, const void *src, size_t n)
{
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    size_t h = (64u - ((uintptr_t)d & 63u)) & 63u;
    if (h > n)
        h = n;
    memcpy(d, s, h);
    d += h, s += h, n -= h;
    for (; n >= 256; d += 256, s += 256, n -= 256)
        for (size_t k = 0; k < 256; k += VS_NT_BYTES)
            VS_COPY_NT(d + k, s + k);
    _mm_sfence();
    memcpy(d, s, n);
}

/* half binary operations in one pass (widen, operate, round, store per vector) instead of
 * through the float chunk buffers; the same bits, the instructions computing exactly what the
 * float loops do (max/min return the second operand unless the first is greater/less, as
 * `a > b ? a : b` does). Returns how many leading elements it did (a multiple of VS_LANES). */
#define VS_F16_LOOP(op)                                                                                                \
    for (; i + VS_LANES <= n; i += VS_LANES) {                                                                         \
        const VS_PS a = VS_LOAD_PH(x + i), b = VS_LOAD_PH(y + i);                                                      \
        VS_STORE_PH(d + i, op(a, b));                                                                                  \
    }
static size_t VT_FN(f16_binary)(int op, uint16_t *d, const uint16_t *x, const uint16_t *y, size_t n)
{
    size_t i = 0;
    switch (op) {
    case CANNON_ASCENDC_VOP_ADD:
        VS_F16_LOOP(VS_ADD)
        break;
    case CANNON_ASCENDC_VOP_SUB:
        VS_F16_LOOP(VS_SUB)
        break;
    case CANNON_ASCENDC_VOP_MUL:
        VS_F16_LOOP(VS_MUL)
        break;
    case CANNON_ASCENDC_VOP_DIV:
        VS_F16_LOOP(VS_DIV)
        break;
    case CANNON_ASCENDC_VOP_MAX:
        VS_F16_LOOP(VS_MAX)
        break;
    default: /* MIN */
        VS_F16_LOOP(VS_MIN)
        break;
    }
    return i;
}
#undef VS_F16_LOOP

#define VT_COPY_STREAM VT_FN(copy_stream)
#define VT_F16_BINARY VT_FN(f16_binary)
#define VT_WIDEN_F16 VT_FN(widen_f16)
#define VT_NARROW_F16 VT_FN(narrow_f16)
#include "vec_tier.h"
