/*
 * aclnnUpsampleNearest2d: out[n, c, oh, ow] = self[n, c, src(oh, H, OH), src(ow, W, OW)], with
 * the source index computed as torch's nearest mode does: the same index when the sizes are
 * equal, dst / 2 for an exact doubling, else min(floor(dst * scale), in - 1) with scale = in / out
 * in fp32. Elements are moved bit for bit (any element size). NHWC tensors keep (N, H, W, C)
 * axis order; NCHW and ND are (N, C, H, W).
 *
 * One unit per output row (n, c, oh), read and written through the views' strides; blocks of
 * whole rows fixed by the shape. A block tabulates the rows' source column offsets once; an output
 * row with the same source row as the one before it (an upscale along H) is a copy of that row.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "aclnnop/aclnn_upsample_nearest_2d.h"
#include "cannon/opdev.h"
#include "op_manifest.h"

#include "vision_common.h"

#define UN_BLOCK_ELEMS (64 * 1024)

typedef struct un_args {
    const char *x; /* bound */
    char *out;     /* bound */
    int64_t es, per_block, rows;
    vis_image in, o;
} un_args;

/* torch's nearest source index of @p dst for a resize from @p in to @p out elements. */
static inline int64_t un_src(int64_t dst, int64_t in, int64_t out)
{
    if (in == out)
        return dst;
    if (out == 2 * in)
        return dst >> 1;
    const float scale = (float)in / (float)out;
    const int64_t s = (int64_t)floorf((float)dst * scale);
    return s < in - 1 ? s : in - 1;
}

/* Columns of a row whose source offsets un_kernel tabulates once per block (wider rows compute
 * each offset as they go). */
#define UN_TABLE_W 2048

/* One output row from its source row: dst[ow * dsw] = src[col[ow]], elements of T. */
#define UN_ROW(T)                                                                                                      \
    do {                                                                                                               \
        const T *s_ = (const T *)(const void *)src;                                                                    \
        T *d_ = (T *)(void *)dst;                                                                                      \
        if (dsw == 1)                                                                                                  \
            for (int64_t ow = 0; ow < ow_n; ow++)                                                                      \
                d_[ow] = s_[col[ow]];                                                                                  \
        else                                                                                                           \
            for (int64_t ow = 0; ow < ow_n; ow++)                                                                      \
                d_[ow * dsw] = s_[col[ow]];                                                                            \
    } while (0)

static int un_kernel(const cannon_kernel_ctx *ctx, void *args)
{
    const un_args *a = (const un_args *)args;
    const vis_image *i = &a->in, *o = &a->o;
    const int64_t es = a->es;
    const int64_t r0 = (int64_t)ctx->block_idx * a->per_block;
    const int64_t r1 = a->rows - r0 < a->per_block ? a->rows : r0 + a->per_block;
    const int typed = (es == 1 || es == 2 || es == 4 || es == 8) && o->w <= UN_TABLE_W;
    int64_t col[UN_TABLE_W];
    if (typed)
        for (int64_t ow = 0; ow < o->w; ow++)
            col[ow] = un_src(ow, i->w, o->w) * i->sw;
    const int64_t ow_n = o->w, dsw = o->sw;
    const char *prev_src = NULL;
    const char *prev_dst = NULL;
    for (int64_t r = r0; r < r1; r++) {
        const int64_t oh = r % o->h, nc = r / o->h, c = nc % o->c, n = nc / o->c;
        const int64_t ih = un_src(oh, i->h, o->h);
        const char *src = a->x + (n * i->sn + c * i->sc + ih * i->sh) * es;
        char *dst = a->out + (n * o->sn + c * o->sc + oh * o->sh) * es;
        if (src == prev_src && dsw == 1) {
            /* an upscaled row repeats the previous output row: one contiguous copy */
            memcpy(dst, prev_dst, (size_t)(ow_n * es));
        } else if (typed) {
            switch (es) {
            case 1:
                UN_ROW(uint8_t);
                break;
            case 2:
                UN_ROW(uint16_t);
                break;
            case 4:
                UN_ROW(uint32_t);
                break;
            default:
                UN_ROW(uint64_t);
                break;
            }
        } else {
            for (int64_t ow = 0; ow < ow_n; ow++)
                memcpy(dst + ow * dsw * es, src + un_src(ow, i->w, o->w) * i->sw * es, (size_t)es);
        }
        prev_src = src;
        prev_dst = dst;
    }
    return 0;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleNearest2dGetWorkspaceSize(const aclTensor *self,
                                                                       const aclIntArray *outputSize, aclTensor *out,
                                                                       uint64_t *workspaceSize,
                                                                       aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vs, vo;
    cannonOpBegin(&op, "aclnnUpsampleNearest2d", workspaceSize, executor);
    cannonOpNotNulls(&op, "self", self, "outputSize", outputSize, "out", out, NULL);
    cannonOpTensor(&op, "self", self, cn_dts_UpsampleNearest2d(), &vs);
    cannonOpTensor(&op, "out", out, cn_dts_UpsampleNearest2d(), &vo);
    cannonOpSameDtype(&op, "out", &vo, "self", &vs);
    if (cannonOpOk(&op) && (vs.ndim != 4 || vo.ndim != 4))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "self and out must have 4 dims, got %lld and %lld",
                     (long long)vs.ndim, (long long)vo.ndim);
    if (cannonOpOk(&op) && vs.format != ACL_FORMAT_NCHW && vs.format != ACL_FORMAT_NHWC && vs.format != ACL_FORMAT_ND)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "self's format must be NCHW, NHWC or ND, got %d", (int)vs.format);
    if (cannonOpOk(&op) && (vs.format == ACL_FORMAT_NHWC) != (vo.format == ACL_FORMAT_NHWC))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "out's format (%d) must match self's (%d)", (int)vo.format,
                     (int)vs.format);
    if (cannonOpOk(&op) && shape_numel(&vs) == 0)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "self must not be empty");
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    uint64_t n = 0;
    const int64_t *sz = cannonIntArrayData(outputSize, &n);
    if (n != 2)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "outputSize must hold 2 values, got %llu", (unsigned long long)n);
    else if (sz[0] <= 0 || sz[1] <= 0)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "outputSize (%lld, %lld) must be > 0", (long long)sz[0],
                     (long long)sz[1]);
    if (!cannonOpOk(&op))
        return cannonOpFinish(&op);
    const bool nhwc = vs.format == ACL_FORMAT_NHWC;
    un_args a;
    memset(&a, 0, sizeof a);
    vis_image_of(&a.in, &vs, nhwc);
    const int64_t expect[4] = {a.in.n, nhwc ? sz[0] : a.in.c, nhwc ? sz[1] : sz[0], nhwc ? a.in.c : sz[1]};
    if (!shape_expect(&op, "out", &vo, 4, expect))
        return cannonOpFinish(&op);
    vis_image_of(&a.o, &vo, nhwc);
    const int sx = cannonOpInput(&op, self);
    const int so = cannonOpOutput(&op, out);
    a.es = (int64_t)cannonDtypeSize(vs.dtype);
    a.rows = a.o.n * a.o.c * a.o.h;
    a.per_block = vis_units_per_block(a.rows, a.o.w, UN_BLOCK_ELEMS);
    const cannon_arg_ref refs[2] = {
        {(uint32_t)offsetof(un_args, x), sx, vs.offset * a.es},
        {(uint32_t)offsetof(un_args, out), so, vo.offset * a.es},
    };
    cannonOpKernel(&op, "UpsampleNearest2d", un_kernel, (uint32_t)((a.rows + a.per_block - 1) / a.per_block), &a,
                   sizeof a, refs, 2);
    return cannonOpFinish(&op);
}
