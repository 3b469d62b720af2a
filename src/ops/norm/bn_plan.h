/*
 * Batch norm's plans, shared by its sources:
 *   bn_op.c     the public phase-1 entry points and their argument checks;
 *   bn_plan.c   the canonical shape, bindings and workspace of a plan, and the three-kernel path
 *               (reduce, per-channel glue, elementwise; channel-first and channels-last data);
 *   bn_fused.c  the fused per-channel kernel of channel-first data and when it is taken;
 *   bn_chan.c   the per-channel glue kernel.
 * Every path sums the same O-ranges in the same order, so every path gives the same bits.
 */
#ifndef CANNON_OPS_NORM_BN_PLAN_H_
#define CANNON_OPS_NORM_BN_PLAN_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cannon/opdev.h"

#include "norm_op.h"

/* ---- the per-channel glue kernel (bn_chan.c) ---- */
/* What a glue kernel computes per channel. */
enum { CH_CENTER, CH_BN_FIN, CH_BN_EVAL, CH_GATHER, CH_ELEMT, CH_BWD_FIN, CH_RB_FIN, CH_EB };
/* The small tensors it reads and writes (ch_args.v). */
enum { V_W, V_B, V_RM, V_RV, V_SM, V_SI, V_GW, V_GB, V_SDY, V_SDX, V_CNT, V_MALL, V_IALL, NV };

typedef struct ch_args {
    const void *x; /* canonical input (its first element per channel is the shift) */
    const double *part;
    float *co; /* 6*C coefficients (see nb_args) + the gate */
    float *center;
    nm_vec v[NV];
    double eps, momentum;
    int64_t C, P, N, I, W, cnt_n;
    int32_t op, xdtype, training, want_co;
} ch_args;

/* Channels per fold, and the most blocks a per-channel kernel is split into. */
#define CH_FOLD 64
#define CH_BLOCKS 8

/* The glue kernel (ch_args): CH_GATHER and CH_EB in one block, the others channel ranges. */
int bn_ch_kernel(const cannon_kernel_ctx *ctx, void *args);
/* One channel of the per-channel ops (all but CH_GATHER and CH_EB): the fused kernel's step, with
 * the bits of bn_ch_kernel. */
void bn_ch_one(const ch_args *a, int op, int64_t c);

/* ---- a plan ---- */
typedef struct bn_plan {
    cannon_op *op;
    int64_t O, C, I, N; /* canonical shape; N = elements per channel */
    int dtype, cl;
    int64_t es; /* bytes per element of the big tensors */
    int slot_x, slot_g, slot_o;
    cannon_arg_ref rx, rg, ro; /* where x, g, out live (args_offset set per use) */
    int64_t P, red_span;
    uint64_t ws_part, ws_co, ws_center;
} bn_plan;

/* The small per-channel tensors of a glue kernel (and their executor slots), by V_* index. */
typedef struct chan_set {
    const aclTensor *t[NV];
    int s[NV];
} chan_set;

static inline void bn_chan_init(chan_set *cs)
{
    for (int i = 0; i < NV; i++) {
        cs->t[i] = NULL;
        cs->s[i] = -1;
    }
}

static inline void bn_chan_put(chan_set *cs, int idx, const aclTensor *t, int slot)
{
    cs->t[idx] = t;
    cs->s[idx] = slot;
}

/* @p r at args offset @p off. */
static inline cannon_arg_ref bn_at(cannon_arg_ref r, size_t off)
{
    r.args_offset = (uint32_t)off;
    return r;
}

/* The channel axis of data of format v->format: the last for NHWC / NDHWC, else 1. */
int bn_channel_axis(const cannon_tensor_view *v);

/* Start plan @p pl of @p op for data @p vx (tensor @p x, slot pl->slot_x), with the optional
 * gradOut @p g and output @p out in pl->slot_g / pl->slot_o: the canonical shape (O, C, I) and the
 * bindings of the big tensors (channels-last in place when every one is, else contiguous through
 * cannonOpBind). */
void bn_plan_begin(bn_plan *pl, const cannon_tensor_view *vx, const aclTensor *x, const aclTensor *g,
                   const aclTensor *out);
/* Reserve the workspace: partials, coefficients (+ gate), centers. */
void bn_plan_ws(bn_plan *pl);

/* The three-kernel path's kernels. */
void bn_add_reduce(bn_plan *pl, int mode);
void bn_add_apply(bn_plan *pl, int use_x, int use_g, int gated, int rev);
void bn_add_chan(bn_plan *pl, ch_args *a, const chan_set *cs, int with_x, int with_part);
/* Describe every tensor of @p cs in @p a and append its pointer refs (at @p base in the argument
 * blob); returns how many. */
size_t bn_chan_refs(const bn_plan *pl, const chan_set *cs, ch_args *a, cannon_arg_ref *refs, size_t base);
/* bn_chan_refs, @p a's shape fields, and the refs of x (@p with_x), the partials (@p with_part),
 * the coefficients and the centers. */
size_t bn_chan_fill(const bn_plan *pl, ch_args *a, const chan_set *cs, int with_x, int with_part,
                    cannon_arg_ref *refs, size_t base);

/* ---- the fused per-channel kernel (bn_fused.c) ---- */
/* Whether the fused kernel applies to the plan's data (with gradOut: @p with_g). */
int bn_fused_ok(const bn_plan *pl, int with_g);
/* Whether a training forward / a backward that the fused kernel could take goes through the three
 * kernels instead. */
int bn_fwd_split(const bn_plan *pl);
int bn_bwd_split(const bn_plan *pl, int training);
/* The fused kernel: reduction @p mode, per-channel ops @p pre_op (< 0: none) and @p fin_op, and
 * the elementwise pass when @p use_app (with x: @p use_x, with gradOut: @p use_g). */
void bn_add_fused(bn_plan *pl, ch_args *ca, const chan_set *cs, int mode, int pre_op, int fin_op, int use_app,
                  int use_x, int use_g);

#endif /* CANNON_OPS_NORM_BN_PLAN_H_ */
