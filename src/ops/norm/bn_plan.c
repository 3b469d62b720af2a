/*
 * Batch norm's plans (see bn_plan.h): the canonical shape (O, C, I) and the bindings of the big
 * tensors, the workspace (partial sums, coefficients, centers), and the three-kernel path:
 *   reduce (tiered, many blocks): per-channel fp64 partial sums over fixed O-ranges;
 *   chan   (bn_ch_kernel, up to CH_BLOCKS blocks): combines the partials in range order and
 *          does the per-channel arithmetic;
 *   apply  (tiered, many blocks): out = (x - m)*a + b + dy*k per element.
 * Large passes go by worker share (nm_bn_add_aff). Layouts: channel-first data (I > 1) and
 * channels-last data (I = 1: NHWC / NDHWC, or a dim-1 channel axis whose strides are
 * channels-last, processed in place).
 */
#include <string.h>

#include "../kernels/isa.h"
#include "bn_plan.h"

int bn_channel_axis(const cannon_tensor_view *v)
{
    return (v->format == ACL_FORMAT_NHWC || v->format == ACL_FORMAT_NDHWC) ? (int)v->ndim - 1 : 1;
}

void bn_plan_begin(bn_plan *pl, const cannon_tensor_view *vx, const aclTensor *x, const aclTensor *g,
                   const aclTensor *out)
{
    const int64_t ca = bn_channel_axis(vx);
    pl->dtype = nm_float_code(vx->dtype);
    pl->es = (int64_t)cannonDtypeSize(vx->dtype);
    pl->C = vx->shape[ca];
    const int64_t numel = cannonTensorNumel(x);
    /* A dim-1 channel axis whose strides are channels-last for every big tensor is processed in
     * place as (N*spatial, C, 1). */
    pl->cl = ca == 1 && !cannonTensorIsContiguous(x) && nm_is_channels_last(x, 1) &&
             (!g || nm_is_channels_last(g, 1)) && (!out || nm_is_channels_last(out, 1));
    if (pl->cl || ca == vx->ndim - 1) {
        pl->I = 1;
        pl->O = pl->C ? numel / pl->C : 0;
    } else {
        pl->O = vx->shape[0];
        pl->I = 1;
        for (int64_t d = 2; d < vx->ndim; d++)
            pl->I *= vx->shape[d];
    }
    pl->N = pl->O * pl->I;
    nm_bind(pl->op, pl->slot_x, CANNON_BIND_IN, pl->cl, 0, &pl->rx);
    if (g)
        nm_bind(pl->op, pl->slot_g, CANNON_BIND_IN, pl->cl, 0, &pl->rg);
    if (out)
        nm_bind(pl->op, pl->slot_o, CANNON_BIND_OUT, pl->cl, 0, &pl->ro);
}

#define BN_MIN_RANGES 8
void bn_plan_ws(bn_plan *pl)
{
    const int64_t C = pl->C;
    if (pl->I > 1) {
        pl->red_span = (16384 + pl->I - 1) / pl->I;
    } else {
        pl->red_span = (32768 + C - 1) / C;
    }
    if (pl->red_span < 1)
        pl->red_span = 1;
    while ((pl->O + pl->red_span - 1) / pl->red_span > 4096)
        pl->red_span *= 2;
    /* Channel-first data: at least BN_MIN_RANGES O-ranges, so that the worker-affine passes
     * (nm_bn_add_aff), whose shares are whole O-ranges, have enough to share among a few workers
     * ([64,256,14,14] would otherwise be one range of 64 runs per channel). The partials stay
     * fp64 sums of contiguous runs; a function of the shape only. */
    if (pl->I > 1 && pl->O >= BN_MIN_RANGES && (pl->O + pl->red_span - 1) / pl->red_span < BN_MIN_RANGES)
        pl->red_span = (pl->O + BN_MIN_RANGES - 1) / BN_MIN_RANGES;
    pl->P = (pl->O + pl->red_span - 1) / pl->red_span;
    cannonOpWorkspace(pl->op, (uint64_t)(pl->P * 2 * C) * sizeof(double) + 8, &pl->ws_part);
    cannonOpWorkspace(pl->op, (uint64_t)(NM_CO_ROWS * C + 1) * sizeof(float), &pl->ws_co);
    cannonOpWorkspace(pl->op, (uint64_t)C * sizeof(float) + 4, &pl->ws_center);
}

/* Whether a pass of the three-kernel path goes worker-affine (nm_bn_add_aff): only for data of
 * BN_AFF_MIN_BYTES or more, larger than a core's L2, where a line the other core read would come
 * from its cache or from memory. Smaller data fits in the caches either way, and the affine pass
 * costs a second launch (the cursor reset), which small steps (the SyncBN demo's) would feel.
 * Channels-last and channel-first data alike (the split backward, and what the fused kernel does
 * not take): each core re-reads the x and dy it summed from its own last-level cache instead of
 * half of them from the other core's. A function of the shape only; both kinds of pass give the
 * same bits. */
#define BN_AFF_MIN_BYTES ((int64_t)1 << 20)
static int bn_affine(const bn_plan *pl, int64_t units)
{
    return units > 1 && pl->N * pl->C * pl->es >= BN_AFF_MIN_BYTES;
}

#define BN_PLANE_BYTES ((int64_t)256 << 10)
#define BN_PLANE_BLOCKS 16
void bn_add_reduce(bn_plan *pl, int mode)
{
    nb_args a;
    memset(&a, 0, sizeof a);
    a.O = pl->O;
    a.C = pl->C;
    a.I = pl->I;
    a.mode = mode;
    a.dtype = pl->dtype;
    a.isa = (int32_t)cannon_isa_select();
    a.span = pl->red_span;
    a.units = pl->I > 1 ? pl->C * pl->P : pl->P;
    uint32_t bd;
    if (pl->I > 1) {
        /* Channel-first data: a block takes consecutive units, i.e. consecutive channels of an
         * O-range, which red_plane walks in address order: about BN_PLANE_BYTES of adjacent runs
         * at a time, in at least BN_PLANE_BLOCKS blocks where there are enough units. The bits do
         * not depend on the blocking (each unit is summed alone, in a fixed order). */
        const int64_t run_bytes = pl->I * pl->es;
        int64_t upb = (BN_PLANE_BYTES + run_bytes - 1) / run_bytes;
        if (a.units / upb < BN_PLANE_BLOCKS)
            upb = a.units / BN_PLANE_BLOCKS > 1 ? a.units / BN_PLANE_BLOCKS : 1;
        while ((a.units + upb - 1) / upb > ((int64_t)1 << 24))
            upb *= 2;
        a.units_per_block = upb;
        bd = (uint32_t)((a.units + upb - 1) / upb);
    } else {
        nm_blocks(a.units, (int64_t)64 << 10, &a.units_per_block, &bd);
    }
    cannon_arg_ref refs[4];
    size_t n = 0;
    refs[n++] = bn_at(pl->rx, offsetof(nb_args, x));
    if (mode == NB_RED_GRAD) {
        refs[n++] = bn_at(pl->rg, offsetof(nb_args, g));
        refs[n++] = nm_ws_ref(pl->ws_center, offsetof(nb_args, center));
    }
    refs[n++] = nm_ws_ref(pl->ws_part, offsetof(nb_args, part));
    /* Large data: worker-affine units (each worker sums the rows it will normalise). */
    if (bn_affine(pl, a.units))
        nm_bn_add_aff(pl->op, &a, 0, pl->red_span, refs, n);
    else
        cannonOpKernel(pl->op, pl->op->api, nm_bn_reduce_kernel, bd, &a, sizeof a, refs, n);
}

void bn_add_apply(bn_plan *pl, int use_x, int use_g, int gated, int rev)
{
    nb_args a;
    memset(&a, 0, sizeof a);
    a.O = pl->O;
    a.C = pl->C;
    a.I = pl->I;
    a.dtype = pl->dtype;
    a.isa = (int32_t)cannon_isa_select();
    a.use_x = use_x;
    a.use_g = use_g;
    a.nt = pl->N * pl->C * pl->es >= NM_NT_BYTES;
    a.rev = rev;
    if (pl->I > 1) {
        a.span = (16384 + pl->I - 1) / pl->I;
        a.units = (pl->O * pl->C + a.span - 1) / a.span;
    } else {
        a.span = (16384 + pl->C - 1) / pl->C;
        a.units = (pl->O + a.span - 1) / a.span;
    }
    uint32_t bd;
    nm_blocks(a.units, (int64_t)64 << 10, &a.units_per_block, &bd);
    cannon_arg_ref refs[5];
    size_t n = 0;
    if (use_x)
        refs[n++] = bn_at(pl->rx, offsetof(nb_args, x));
    if (use_g)
        refs[n++] = bn_at(pl->rg, offsetof(nb_args, g));
    refs[n++] = bn_at(pl->ro, offsetof(nb_args, out));
    refs[n++] = nm_ws_ref(pl->ws_co, offsetof(nb_args, co));
    if (gated)
        refs[n++] = nm_ws_ref(pl->ws_co + (uint64_t)(NM_CO_ROWS * pl->C) * sizeof(float), offsetof(nb_args, gate));
    /* Large data: the rows each worker summed (see nm_bn_add_aff). A strided output is scattered
     * after the last kernel (cannonOpFinish). */
    if (bn_affine(pl, a.units))
        nm_bn_add_aff(pl->op, &a, 1, pl->red_span, refs, n);
    else
        cannonOpKernel(pl->op, pl->op->api, nm_bn_apply_kernel, bd, &a, sizeof a, refs, n);
}

size_t bn_chan_refs(const bn_plan *pl, const chan_set *cs, ch_args *a, cannon_arg_ref *refs, size_t base)
{
    size_t n = 0;
    for (int i = 0; i < NV; i++)
        n += nm_vec_ref(pl->op, cs->t[i], cs->s[i], &a->v[i],
                        (uint32_t)(base + offsetof(ch_args, v) + (size_t)i * sizeof(nm_vec)), &refs[n]);
    return n;
}

size_t bn_chan_fill(const bn_plan *pl, ch_args *a, const chan_set *cs, int with_x, int with_part,
                    cannon_arg_ref *refs, size_t base)
{
    a->C = pl->C;
    a->P = pl->P;
    a->N = pl->N;
    a->I = pl->I;
    a->xdtype = pl->dtype;
    size_t n = bn_chan_refs(pl, cs, a, refs, base);
    if (with_x)
        refs[n++] = bn_at(pl->rx, base + offsetof(ch_args, x));
    if (with_part)
        refs[n++] = nm_ws_ref(pl->ws_part, base + offsetof(ch_args, part));
    refs[n++] = nm_ws_ref(pl->ws_co, base + offsetof(ch_args, co));
    refs[n++] = nm_ws_ref(pl->ws_center, base + offsetof(ch_args, center));
    return n;
}

void bn_add_chan(bn_plan *pl, ch_args *a, const chan_set *cs, int with_x, int with_part)
{
    cannon_arg_ref refs[NV + 4];
    const size_t n = bn_chan_fill(pl, a, cs, with_x, with_part, refs, 0);
    /* Per-channel ops split their channels over blocks of CH_FOLD or more (CH_GATHER and CH_EB
     * check every count before they write anything: one block). */
    int64_t bd = pl->C / CH_FOLD;
    if (a->op == CH_GATHER || a->op == CH_EB || bd < 1)
        bd = 1;
    else if (bd > CH_BLOCKS)
        bd = CH_BLOCKS;
    cannonOpKernel(pl->op, pl->op->api, bn_ch_kernel, (uint32_t)bd, a, sizeof *a, refs, n);
}
