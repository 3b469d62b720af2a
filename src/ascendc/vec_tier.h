/*
 * The vector instructions' kernels, written once and compiled once per instruction-set tier
 * (vec_scalar.c, vec_avx2.c, vec_avx512.c): the includer defines VT_FN(name) (the tier's
 * function names), VT_WIDEN_F16 / VT_NARROW_F16 (its half <-> float conversions of a run) and
 * VT_COPY_STREAM (its copy with non-temporal stores); optionally VT_F16_BINARY (a one-pass
 * half binary loop for the leading elements of a run).
 *
 * half and bfloat16_t runs are processed in chunks of VT_CHUNK elements: widened into float
 * buffers on the stack, computed there with the float loops and rounded back once, so every
 * tier rounds exactly where the header's scalar code does. The float and integer loops are plain
 * loops the compiler vectorizes with the tier's flags; the operation is chosen outside the loop.
 * Integer arithmetic goes through the unsigned type so that it wraps without undefined behaviour.
 *
 * A sum keeps VT_LANES partial sums, element i going to lane i % VT_LANES in order, and adds the
 * lanes pairwise at the end. The compiler may not reassociate float additions, so every tier
 * (one AVX-512 register pair, four AVX2 registers, or SSE2 registers in the scalar tier's
 * baseline) adds exactly the same numbers in the same order.
 */
#ifndef CANNON_ASCENDC_VEC_TIER_H_
#define CANNON_ASCENDC_VEC_TIER_H_
#endif

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cannon_ascendc/vec_kernels.h"
#include "vec_internal.h"

#define VT_CHUNK 512

/* bfloat16 <-> float without branches (the results of fp_convert.h's conversions). */
static inline void VT_FN(widen_bf16)(const uint16_t *s, float *d, size_t n)
{
    uint32_t *du = (uint32_t *)(void *)d;
    for (size_t i = 0; i < n; i++)
        du[i] = (uint32_t)s[i] << 16;
}

static inline void VT_FN(narrow_bf16)(const float *s, uint16_t *d, size_t n)
{
    const uint32_t *su = (const uint32_t *)(const void *)s;
    for (size_t i = 0; i < n; i++) {
        const uint32_t u = su[i];
        const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
        const uint32_t nan = (u >> 16) | 0x40u;
        d[i] = (uint16_t)((u & 0x7fffffffu) > 0x7f800000u ? nan : rounded);
    }
}

static void VT_FN(f32_binary)(int op, float *d, const float *a, const float *b, size_t n)
{
    switch (op) {
    case CANNON_ASCENDC_VOP_ADD:
        for (size_t i = 0; i < n; i++)
            d[i] = a[i] + b[i];
        break;
    case CANNON_ASCENDC_VOP_SUB:
        for (size_t i = 0; i < n; i++)
            d[i] = a[i] - b[i];
        break;
    case CANNON_ASCENDC_VOP_MUL:
        for (size_t i = 0; i < n; i++)
            d[i] = a[i] * b[i];
        break;
    case CANNON_ASCENDC_VOP_DIV:
        for (size_t i = 0; i < n; i++)
            d[i] = a[i] / b[i];
        break;
    case CANNON_ASCENDC_VOP_MAX:
        for (size_t i = 0; i < n; i++)
            d[i] = a[i] > b[i] ? a[i] : b[i];
        break;
    default: /* MIN */
        for (size_t i = 0; i < n; i++)
            d[i] = a[i] < b[i] ? a[i] : b[i];
        break;
    }
}

static void VT_FN(f32_scalar)(int op, float *d, const float *a, float s, size_t n)
{
    switch (op) {
    case CANNON_ASCENDC_VOP_ADD:
        for (size_t i = 0; i < n; i++)
            d[i] = a[i] + s;
        break;
    case CANNON_ASCENDC_VOP_MUL:
        for (size_t i = 0; i < n; i++)
            d[i] = a[i] * s;
        break;
    case CANNON_ASCENDC_VOP_MAX:
        for (size_t i = 0; i < n; i++)
            d[i] = a[i] > s ? a[i] : s;
        break;
    case CANNON_ASCENDC_VOP_MIN:
        for (size_t i = 0; i < n; i++)
            d[i] = a[i] < s ? a[i] : s;
        break;
    default: /* LEAKY */
        for (size_t i = 0; i < n; i++)
            d[i] = a[i] >= 0.0f ? a[i] : a[i] * s;
        break;
    }
}

static void VT_FN(f32_unary)(int op, float *d, const float *a, size_t n)
{
    switch (op) {
    case CANNON_ASCENDC_VOP_EXP:
        for (size_t i = 0; i < n; i++)
            d[i] = expf(a[i]);
        break;
    case CANNON_ASCENDC_VOP_LN:
        for (size_t i = 0; i < n; i++)
            d[i] = logf(a[i]);
        break;
    case CANNON_ASCENDC_VOP_ABS:
        for (size_t i = 0; i < n; i++)
            d[i] = fabsf(a[i]);
        break;
    case CANNON_ASCENDC_VOP_RELU:
        for (size_t i = 0; i < n; i++)
            d[i] = a[i] > 0.0f ? a[i] : 0.0f;
        break;
    case CANNON_ASCENDC_VOP_SQRT:
        for (size_t i = 0; i < n; i++)
            d[i] = sqrtf(a[i]);
        break;
    case CANNON_ASCENDC_VOP_RSQRT:
        for (size_t i = 0; i < n; i++)
            d[i] = 1.0f / sqrtf(a[i]);
        break;
    default: /* RECIP */
        for (size_t i = 0; i < n; i++)
            d[i] = 1.0f / a[i];
        break;
    }
}

/* Integer kernels of one type: T the type, U its unsigned twin. */
#define VT_INT_KERNELS(sfx, T, U)                                                                                      \
    static void VT_FN(binary_##sfx)(int op, T *d, const T *a, const T *b, size_t n)                                    \
    {                                                                                                                  \
        switch (op) {                                                                                                  \
        case CANNON_ASCENDC_VOP_ADD:                                                                                   \
            for (size_t i = 0; i < n; i++)                                                                             \
                d[i] = (T)(U)((U)a[i] + (U)b[i]);                                                                      \
            break;                                                                                                     \
        case CANNON_ASCENDC_VOP_SUB:                                                                                   \
            for (size_t i = 0; i < n; i++)                                                                             \
                d[i] = (T)(U)((U)a[i] - (U)b[i]);                                                                      \
            break;                                                                                                     \
        case CANNON_ASCENDC_VOP_MUL:                                                                                   \
            for (size_t i = 0; i < n; i++)                                                                             \
                d[i] = (T)(U)((uint32_t)(U)a[i] * (uint32_t)(U)b[i]);                                                  \
            break;                                                                                                     \
        case CANNON_ASCENDC_VOP_MAX:                                                                                   \
            for (size_t i = 0; i < n; i++)                                                                             \
                d[i] = a[i] > b[i] ? a[i] : b[i];                                                                      \
            break;                                                                                                     \
        default: /* MIN */                                                                                             \
            for (size_t i = 0; i < n; i++)                                                                             \
                d[i] = a[i] < b[i] ? a[i] : b[i];                                                                      \
            break;                                                                                                     \
        }                                                                                                              \
    }                                                                                                                  \
    static void VT_FN(scalar_##sfx)(int op, T *d, const T *a, T s, size_t n)                                           \
    {                                                                                                                  \
        switch (op) {                                                                                                  \
        case CANNON_ASCENDC_VOP_ADD:                                                                                   \
            for (size_t i = 0; i < n; i++)                                                                             \
                d[i] = (T)(U)((U)a[i] + (U)s);                                                                         \
            break;                                                                                                     \
        case CANNON_ASCENDC_VOP_MUL:                                                                                   \
            for (size_t i = 0; i < n; i++)                                                                             \
                d[i] = (T)(U)((uint32_t)(U)a[i] * (uint32_t)(U)s);                                                     \
            break;                                                                                                     \
        case CANNON_ASCENDC_VOP_MAX:                                                                                   \
            for (size_t i = 0; i < n; i++)                                                                             \
                d[i] = a[i] > s ? a[i] : s;                                                                            \
            break;                                                                                                     \
        case CANNON_ASCENDC_VOP_MIN:                                                                                   \
            for (size_t i = 0; i < n; i++)                                                                             \
                d[i] = a[i] < s ? a[i] : s;                                                                            \
            break;                                                                                                     \
        default: /* LEAKY */                                                                                           \
            for (size_t i = 0; i < n; i++)                                                                             \
                d[i] = a[i] >= 0 ? a[i] : (T)(U)((uint32_t)(U)a[i] * (uint32_t)(U)s);                                  \
            break;                                                                                                     \
        }                                                                                                              \
    }                                                                                                                  \
    static void VT_FN(unary_##sfx)(int op, T *d, const T *a, size_t n)                                                 \
    {                                                                                                                  \
        if (op == CANNON_ASCENDC_VOP_ABS) {                                                                            \
            for (size_t i = 0; i < n; i++)                                                                             \
                d[i] = a[i] < 0 ? (T)(U)(0u - (U)a[i]) : a[i];                                                         \
        } else { /* RELU */                                                                                            \
            for (size_t i = 0; i < n; i++)                                                                             \
                d[i] = a[i] > 0 ? a[i] : 0;                                                                            \
        }                                                                                                              \
    }

VT_INT_KERNELS(i16, int16_t, uint16_t)
VT_INT_KERNELS(i32, int32_t, uint32_t)
#undef VT_INT_KERNELS

static void VT_FN(widen16)(int dtype, const uint16_t *s, float *d, size_t n)
{
    if (dtype == CANNON_ASCENDC_VDT_F16)
        VT_WIDEN_F16(s, d, n);
    else
        VT_FN(widen_bf16)(s, d, n);
}

static void VT_FN(narrow16)(int dtype, const float *s, uint16_t *d, size_t n)
{
    if (dtype == CANNON_ASCENDC_VDT_F16)
        VT_NARROW_F16(s, d, n);
    else
        VT_FN(narrow_bf16)(s, d, n);
}

#define VT_LANES 32

static void VT_FN(sum_into)(float *acc, const float *a, size_t n)
{
    size_t i = 0;
    for (; i + VT_LANES <= n; i += VT_LANES)
        for (size_t k = 0; k < VT_LANES; k++)
            acc[k] += a[i + k];
    for (size_t k = 0; i + k < n; k++)
        acc[k] += a[i + k];
}

static float VT_FN(sum)(int dtype, const void *a, size_t n)
{
    float acc[VT_LANES] = {0};
    if (dtype == CANNON_ASCENDC_VDT_F32) {
        VT_FN(sum_into)(acc, (const float *)a, n);
    } else {
        float fa[VT_CHUNK];
        const uint16_t *x = (const uint16_t *)a;
        for (size_t i = 0; i < n; i += VT_CHUNK) {
            const size_t m = n - i < VT_CHUNK ? n - i : VT_CHUNK;
            VT_FN(widen16)(dtype, x + i, fa, m);
            VT_FN(sum_into)(acc, fa, m); /* VT_CHUNK is a multiple of VT_LANES: lanes stay i % VT_LANES */
        }
    }
    for (size_t w = VT_LANES / 2; w; w /= 2)
        for (size_t k = 0; k < w; k++)
            acc[k] += acc[k + w];
    return acc[0];
}

static void VT_FN(binary)(int op, int dtype, void *dst, const void *a, const void *b, size_t n)
{
    switch (dtype) {
    case CANNON_ASCENDC_VDT_F32:
        VT_FN(f32_binary)(op, (float *)dst, (const float *)a, (const float *)b, n);
        return;
    case CANNON_ASCENDC_VDT_I16:
        VT_FN(binary_i16)(op, (int16_t *)dst, (const int16_t *)a, (const int16_t *)b, n);
        return;
    case CANNON_ASCENDC_VDT_I32:
        VT_FN(binary_i32)(op, (int32_t *)dst, (const int32_t *)a, (const int32_t *)b, n);
        return;
    default: {
        float fa[VT_CHUNK], fb[VT_CHUNK];
        uint16_t *d = (uint16_t *)dst;
        const uint16_t *x = (const uint16_t *)a, *y = (const uint16_t *)b;
#ifdef VT_F16_BINARY
        if (dtype == CANNON_ASCENDC_VDT_F16) {
            const size_t done = VT_F16_BINARY(op, d, x, y, n);
            d += done, x += done, y += done, n -= done;
        }
#endif
        for (size_t i = 0; i < n; i += VT_CHUNK) {
            const size_t m = n - i < VT_CHUNK ? n - i : VT_CHUNK;
            VT_FN(widen16)(dtype, x + i, fa, m);
            VT_FN(widen16)(dtype, y + i, fb, m);
            VT_FN(f32_binary)(op, fa, fa, fb, m);
            VT_FN(narrow16)(dtype, fa, d + i, m);
        }
        return;
    }
    }
}

static void VT_FN(unary)(int op, int dtype, void *dst, const void *a, size_t n)
{
    switch (dtype) {
    case CANNON_ASCENDC_VDT_F32:
        VT_FN(f32_unary)(op, (float *)dst, (const float *)a, n);
        return;
    case CANNON_ASCENDC_VDT_I16:
        VT_FN(unary_i16)(op, (int16_t *)dst, (const int16_t *)a, n);
        return;
    case CANNON_ASCENDC_VDT_I32:
        VT_FN(unary_i32)(op, (int32_t *)dst, (const int32_t *)a, n);
        return;
    default: {
        float fa[VT_CHUNK];
        uint16_t *d = (uint16_t *)dst;
        const uint16_t *x = (const uint16_t *)a;
        for (size_t i = 0; i < n; i += VT_CHUNK) {
            const size_t m = n - i < VT_CHUNK ? n - i : VT_CHUNK;
            VT_FN(widen16)(dtype, x + i, fa, m);
            VT_FN(f32_unary)(op, fa, fa, m);
            VT_FN(narrow16)(dtype, fa, d + i, m);
        }
        return;
    }
    }
}

static void VT_FN(scalar)(int op, int dtype, void *dst, const void *a, double s, size_t n)
{
    switch (dtype) {
    case CANNON_ASCENDC_VDT_F32:
        VT_FN(f32_scalar)(op, (float *)dst, (const float *)a, (float)s, n);
        return;
    case CANNON_ASCENDC_VDT_I16:
        VT_FN(scalar_i16)(op, (int16_t *)dst, (const int16_t *)a, (int16_t)s, n);
        return;
    case CANNON_ASCENDC_VDT_I32:
        VT_FN(scalar_i32)(op, (int32_t *)dst, (const int32_t *)a, (int32_t)s, n);
        return;
    default: {
        float fa[VT_CHUNK];
        uint16_t *d = (uint16_t *)dst;
        const uint16_t *x = (const uint16_t *)a;
        for (size_t i = 0; i < n; i += VT_CHUNK) {
            const size_t m = n - i < VT_CHUNK ? n - i : VT_CHUNK;
            VT_FN(widen16)(dtype, x + i, fa, m);
            VT_FN(f32_scalar)(op, fa, fa, (float)s, m);
            VT_FN(narrow16)(dtype, fa, d + i, m);
        }
        return;
    }
    }
}

/* ---- fp32 GEMM of the Matmul API: C (m x n) = A (m x k) B (k x n) [+ bias] [+ C] ----------------
 * A's element (i, p) is a[i * sai + p * sap], B's (p, j) is b[p * sbp + j * sbj] (so either may be
 * transposed), of dtype F16, BF16 or F32; C is row-major with row stride ldc, float or 16-bit.
 * Blocked for the caches: B is packed as float in VT_GK x VT_GN panels, C is accumulated in a
 * float panel of VT_GM x VT_GN, and four rows of A are applied to 64 columns at a time. */
#define VT_GM 64
#define VT_GN 256
#define VT_GK 256

static float VT_FN(load_elem)(int dtype, const void *base, size_t idx)
{
    if (dtype == CANNON_ASCENDC_VDT_F32)
        return ((const float *)base)[idx];
    float f;
    const uint16_t h = ((const uint16_t *)base)[idx];
    VT_FN(widen16)(dtype, &h, &f, 1);
    return f;
}

/* acc rows r (4 of them, stride VT_GN) += sum over p < kb of ap[r][p] * bp[p][j] for j < 64. */
static void VT_FN(gemm_4x64)(float *restrict cp, const float *restrict ap, const float *restrict bp, size_t kb)
{
    float acc[4][64];
    for (int r = 0; r < 4; r++)
        for (int j = 0; j < 64; j++)
            acc[r][j] = cp[(size_t)r * VT_GN + j];
    for (size_t p = 0; p < kb; p++) {
        const float *brow = bp + p * VT_GN;
        const float a0 = ap[p], a1 = ap[VT_GK + p], a2 = ap[2 * VT_GK + p], a3 = ap[3 * VT_GK + p];
        for (int j = 0; j < 64; j++) {
            const float bj = brow[j];
            acc[0][j] += a0 * bj;
            acc[1][j] += a1 * bj;
            acc[2][j] += a2 * bj;
            acc[3][j] += a3 * bj;
        }
    }
    for (int r = 0; r < 4; r++)
        for (int j = 0; j < 64; j++)
            cp[(size_t)r * VT_GN + j] = acc[r][j];
}

static int VT_FN(gemm)(const cannon_ascendc_gemm *g)
{
    float *bp = (float *)malloc(sizeof(float) * VT_GK * VT_GN);
    float *cp = (float *)malloc(sizeof(float) * VT_GM * VT_GN);
    float *ap = (float *)malloc(sizeof(float) * 4 * VT_GK);
    if (!bp || !cp || !ap) {
        free(bp), free(cp), free(ap);
        return -1;
    }
    for (size_t j0 = 0; j0 < g->n; j0 += VT_GN) {
        const size_t nb = g->n - j0 < VT_GN ? g->n - j0 : VT_GN;
        const size_t nbp = (nb + 63) & ~(size_t)63;
        for (size_t i0 = 0; i0 < g->m; i0 += VT_GM) {
            const size_t mb = g->m - i0 < VT_GM ? g->m - i0 : VT_GM;
            for (size_t i = 0; i < VT_GM; i++)
                for (size_t j = 0; j < VT_GN; j++) {
                    float v = 0.0f;
                    if (i < mb && j < nb) {
                        if (g->accumulate)
                            v = VT_FN(load_elem)(g->dtype_c, g->c, (i0 + i) * g->ldc + j0 + j);
                        if (g->bias)
                            v += VT_FN(load_elem)(g->dtype_bias, g->bias, j0 + j);
                    }
                    cp[i * VT_GN + j] = v;
                }
            for (size_t p0 = 0; p0 < g->k; p0 += VT_GK) {
                const size_t kb = g->k - p0 < VT_GK ? g->k - p0 : VT_GK;
                for (size_t p = 0; p < kb; p++) { /* B's panel, as float */
                    float *row = bp + p * VT_GN;
                    for (size_t j = 0; j < nbp; j++)
                        row[j] =
                            j < nb ? VT_FN(load_elem)(g->dtype_ab, g->b, (p0 + p) * g->sbp + (j0 + j) * g->sbj) : 0.0f;
                }
                for (size_t i = 0; i < mb; i += 4) {
                    for (size_t r = 0; r < 4; r++)
                        for (size_t p = 0; p < kb; p++)
                            ap[r * VT_GK + p] = i + r < mb ? VT_FN(load_elem)(g->dtype_ab, g->a,
                                                                              (i0 + i + r) * g->sai + (p0 + p) * g->sap)
                                                           : 0.0f;
                    for (size_t j = 0; j < nbp; j += 64)
                        VT_FN(gemm_4x64)(cp + i * VT_GN + j, ap, bp + j, kb);
                }
            }
            for (size_t i = 0; i < mb; i++) {
                const float *src = cp + i * VT_GN;
                const size_t off = (i0 + i) * g->ldc + j0;
                if (g->dtype_c == CANNON_ASCENDC_VDT_F32)
                    memcpy((float *)g->c + off, src, nb * sizeof(float));
                else
                    VT_FN(narrow16)(g->dtype_c, src, (uint16_t *)g->c + off, nb);
            }
        }
    }
    free(bp), free(cp), free(ap);
    return 0;
}

const cannon_ascendc_vtable VT_TABLE = {VT_FN(binary), VT_FN(unary),   VT_FN(scalar),
                                        VT_FN(sum),    VT_COPY_STREAM, VT_FN(gemm)};
