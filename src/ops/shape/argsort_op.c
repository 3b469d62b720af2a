/*
 * aclnnArgsort: per lane along dim (shape_lanes.h), the indices that sort it, stable. Each value
 * is mapped to an unsigned 64-bit key whose order is the values' order (integers with the sign
 * bit flipped; floats with -0 taken as +0, negative values' bits inverted, every NaN above +inf as
 * torch orders them); descending order inverts the keys, so equal values keep their positions
 * either way and NaNs come first. A bottom-up merge sort of (key, index) pairs in the workspace,
 * one unit per lane: the same result for any thread count.
 */
#include <string.h>

#include "aclnnop/aclnn_argsort.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "fp_convert.h"
#include "shape_lanes.h"

#define AS_BLOCK_ELEMS (64 * 1024)

typedef struct as_pair {
    uint64_t key;
    int64_t idx;
} as_pair;

typedef struct as_args {
    const char *x;  /* bound */
    char *out;      /* bound */
    as_pair *work;  /* workspace: 2 * n pairs per lane of a block, per block */
    int32_t xdt, desc;
    int64_t xes, per_block;
    shape_lanes li, lo;
} as_args;

static uint64_t float_key(uint64_t bits, int width)
{
    const uint64_t sign = (uint64_t)1 << (width - 1);
    const uint64_t mag = bits & (sign - 1);
    if (mag == 0)
        return sign; /* -0 and +0 */
    return (bits & sign) ? ~bits & ((sign << 1) - 1) : bits | sign;
}

static uint64_t value_key(const char *p, aclDataType t)
{
    switch (t) {
    case ACL_FLOAT: {
        float f;
        uint32_t u;
        memcpy(&f, p, 4);
        if (f != f)
            return UINT64_MAX;
        memcpy(&u, &f, 4);
        return float_key(u, 32);
    }
    case ACL_FLOAT16:
    case ACL_BF16: {
        uint16_t h;
        memcpy(&h, p, 2);
        const float f = t == ACL_FLOAT16 ? cannon_f16_to_f32(h) : cannon_bf16_to_f32(h);
        if (f != f)
            return UINT64_MAX;
        return float_key(h, 16);
    }
    case ACL_INT8:
        return (uint64_t)((int64_t)(int8_t)p[0]) ^ ((uint64_t)1 << 63);
    case ACL_UINT8:
        return (uint8_t)p[0];
    case ACL_INT16: {
        int16_t v;
        memcpy(&v, p, 2);
        return (uint64_t)(int64_t)v ^ ((uint64_t)1 << 63);
    }
    case ACL_UINT16: {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case ACL_INT32: {
        int32_t v;
        memcpy(&v, p, 4);
        return (uint64_t)(int64_t)v ^ ((uint64_t)1 << 63);
    }
    case ACL_UINT32: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    case ACL_INT64: {
        int64_t v;
        memcpy(&v, p, 8);
        return (uint64_t)v ^ ((uint64_t)1 << 63);
    }
    default: {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    }
}

/* Stable bottom-up merge sort of a[0..n) by key, using b as scratch; returns the sorted array. */
static as_pair *merge_sort(as_pair *a, as_pair *b, int64_t n)
{
    for (int64_t w = 1; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            const int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                b[k++] = a[j].key < a[i].key ? a[j++] : a[i++];
            while (i < mid)
                b[k++] = a[i++];
            while (j < hi)
                b[k++] = a[j++];
        }
        as_pair *t = a;
        a = b;
        b = t;
    }
    return a;
}

static int as_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const as_args *a = (const as_args *)args;
    const aclDataType t = (aclDataType)a->xdt;
    const int64_t n = a->li.n;
    const int64_t k0 = (int64_t)ctx->block_idx * a->per_block;
    const int64_t k1 = a->li.lanes - k0 < a->per_block ? a->li.lanes : k0 + a->per_block;
    as_pair *buf = a->work + (int64_t)ctx->block_idx * 2 * n;
    const int64_t st = a->li.step * a->xes, os = a->lo.step * 8;
    for (int64_t k = k0; k < k1; k++) {
        const char *p = a->x + shape_lane_start(&a->li, k) * a->xes;
        for (int64_t i = 0; i < n; i++) {
            const uint64_t key = value_key(p + i * st, t);
            buf[i].key = a->desc ? ~key : key;
            buf[i].idx = i;
        }
        const as_pair *s = merge_sort(buf, buf + n, n);
        char *o = a->out + shape_lane_start(&a->lo, k) * 8;
        for (int64_t i = 0; i < n; i++)
            memcpy(o + i * os, &s[i].idx, 8);
    }
    return 0;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnArgsortGetWorkspaceSize(const aclTensor *self, int64_t dim, bool descending,
                                                             aclTensor *out, uint64_t *workspaceSize,
                                                             aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vs, vo;
    cannonOpBegin(&op, "aclnnArgsort", workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, "out", out, NULL);
    cannonOpTensor(&op, "self", self, cn_dts_Argsort(), &vs);
    cannonOpTensor(&op, "out", out, CANNON_DT_I64, &vo);
    cannonOpSameShape(&op, "out", &vo, "self", &vs);
    cannonOpDim(&op, "dim", &dim, vs.ndim);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const int sx = cannonOpInput(&op, self);
    const int so = cannonOpOutput(&op, out);
    as_args a;
    memset(&a, 0, sizeof a);
    a.xdt = (int32_t)vs.dtype;
    a.desc = descending;
    a.xes = (int64_t)cannonDtypeSize(vs.dtype);
    shape_lanes_init(&a.li, vs.ndim, vs.shape, vs.strides, dim);
    shape_lanes_init(&a.lo, vo.ndim, vo.shape, vo.strides, dim);
    if (a.li.lanes == 0 || a.li.n == 0)
        return cannonOpFinish(&op);
    int64_t per = a.li.n >= AS_BLOCK_ELEMS ? 1 : AS_BLOCK_ELEMS / a.li.n;
    while ((a.li.lanes + per - 1) / per > (int64_t)1 << 24)
        per *= 2;
    a.per_block = per;
    const int64_t blocks = (a.li.lanes + per - 1) / per;
    uint64_t ws = 0;
    cannonOpWorkspace(&op, (uint64_t)blocks * 2 * (uint64_t)a.li.n * sizeof(as_pair), &ws);
    const cannon_arg_ref refs[3] = {
        {(uint32_t)offsetof(as_args, x), sx, vs.offset * a.xes},
        {(uint32_t)offsetof(as_args, out), so, vo.offset * 8},
        {(uint32_t)offsetof(as_args, work), CANNON_SLOT_WORKSPACE, (int64_t)ws},
    };
    cannonOpKernel(&op, "Argsort", as_kernel, (uint32_t)blocks, &a, sizeof a, refs, 3);
    return cannonOpFinish(&op);
}
