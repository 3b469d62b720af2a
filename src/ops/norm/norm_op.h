/*
 * Planning helpers shared by the norm operators (bn_*.c, ln_*.c): dtype codes, argument checks
 * common to the family, how a tensor is bound into a kernel's arguments (through cannon_op:
 * directly, through a workspace gather / scatter, or channels-last in place), small vectors
 * (per-channel parameters) described by pointer + strides, and the tiered kernels' launch
 * wrappers.
 */
#ifndef CANNON_OPS_NORM_OP_H_
#define CANNON_OPS_NORM_OP_H_

#include <stdbool.h>

#include "aclnn/aclnn_base.h"
#include "cannon/opdev.h"

#include "norm_kernels.h"

/* Extra dtype codes readable by cannon_norm_ld (counts, counters). */
enum { NM_I32 = 3, NM_I64 = 4, NM_F64 = 5 };

/* A small tensor as the per-channel / per-row glue kernels see it: element (r, c) at
 * p + r*s0 + c*s1 (elements). p is bound at phase 2; NULL p means absent. */
typedef struct nm_vec {
    void *p;
    int64_t s0, s1;
    int32_t dtype, present;
} nm_vec;

/* Float dtype code (NM_F32/F16/BF16), or -1. */
int nm_float_code(aclDataType t);
/* Any dtype cannon_norm_ld can read, or -1. */
int nm_any_code(aclDataType t);
/* Bytes of an element of dtype code @p code (for kernels, whose arguments carry codes only). */
size_t nm_esize(int code);

/* Register @p t as the operator's next input / output (CANN's order); an absent optional tensor
 * (NULL) takes no slot and gives -1. */
int nm_input(cannon_op *op, const aclTensor *t);
int nm_output(cannon_op *op, const aclTensor *t);

/* Bind slot @p slot as a contiguous buffer at args offset @p args_off (cannonOpBind: directly when
 * row-major contiguous, else through a workspace gather / scatter as @p how says), or, with
 * @p channels_last (the caller found every big tensor channels-last, see nm_is_channels_last),
 * as it is, for kernels that take channels-last data in place. */
bool nm_bind(cannon_op *op, int slot, unsigned how, bool channels_last, uint32_t args_off, cannon_arg_ref *ref);
/* Whether @p t is channels-last: channel axis @p ca innermost (stride 1) and the other dims
 * row-major around it. */
bool nm_is_channels_last(const aclTensor *t, int64_t ca);

/* A reference to workspace byte @p ws_off at args offset @p args_off. */
static inline cannon_arg_ref nm_ws_ref(uint64_t ws_off, size_t args_off)
{
    cannon_arg_ref r = {(uint32_t)args_off, CANNON_SLOT_WORKSPACE, (int64_t)ws_off};
    return r;
}

/* Record an nm_vec: fills @p v (strides) and @p ref for its pointer at args offset @p args_off.
 * 1-D tensors: s1 = stride; 2-D: s0, s1. Returns the number of refs added (0 when t is NULL). */
size_t nm_vec_ref(cannon_op *op, const aclTensor *t, int slot, nm_vec *v, uint32_t args_off, cannon_arg_ref *ref);

/* Kernel entries (cannon_kernel_fn) for the tiered kernels. */
int nm_bn_reduce_kernel(const cannon_kernel_ctx *ctx, void *args);
int nm_bn_apply_kernel(const cannon_kernel_ctx *ctx, void *args);
int nm_ln_kernel(const cannon_kernel_ctx *ctx, void *args);
/* The tiered per-channel pieces of the fused batch-norm kernel (see norm_kernels.h). */
void nm_bn_red_chan(const nb_args *a, int64_t c0, int64_t c1);
void nm_bn_app_chan(const nb_args *a, int64_t c0, int64_t c1);
/* One step of the fused kernel's grouped pipeline (see cannon_norm_bn_pipe_grp_*). */
void nm_bn_pipe_grp(const nb_args *r, const nb_args *a, int64_t g0, int64_t g1, int64_t p0, int64_t p1, int64_t n0,
                    int64_t n1, int64_t pf_rows);

/* Output size from which results are written with streaming stores: beyond it they would only
 * evict the inputs from the caches (a function of the shape only; the values do not change). */
#define NM_NT_BYTES ((int64_t)8 << 20)
/* Input bytes an elementwise pass after a reduction takes first from the reduction's end (what
 * the workers' L2s and part of L3 still hold; see nm_bn_apply_kernel). */
#define NM_REV_BYTES ((int64_t)4 << 20)

/* Units per block so that a block holds about @p unit_bytes-sized units worth 64 KiB, and the
 * block count; both a function of the shape only. */
void nm_blocks(int64_t units, int64_t unit_bytes, int64_t *upb, uint32_t *block_dim);

/* A 1-D per-channel tensor of C elements, any float dtype; NULL is fine when @p optional. */
bool nm_check_chan(cannon_op *op, const char *name, const aclTensor *t, int64_t C, bool optional);
/* eps finite and >= 0. */
bool nm_check_eps(cannon_op *op, const char *name, double eps);

/* ---- batch norm's three-kernel path: worker-affine passes (norm_common.c) ----
 * On virtual machines whose cores do not share a cache, a line another core holds can come
 * slower than one from memory, while a core re-reads what it read itself from its own last-level
 * cache at several times the memory rate. The reduction and the elementwise pass
 * therefore hand each core the same data: it is cut into one share per worker (channels-last:
 * rows; channel-first: whole O-ranges of the reduction, every channel, which are contiguous
 * memory), a block running on core c takes the units of share c mod S first (in order, through an
 * atomic cursor per share), then helps with the others' remaining units. A unit is summed /
 * applied exactly as by the plain kernels, and each unit once, so the bits do not depend on who
 * ran it. The cursors live in the workspace and a one-block kernel zeroes them before each pass. */
#define NB_AFF_MAX 16 /* shares (more workers share them) */
#define NB_AFF_PAD 8  /* int64 words per cursor: one cache line each */

typedef struct nb_aff_args {
    nb_args a;      /* as for nm_bn_reduce_kernel / nm_bn_apply_kernel (a.units, a.span) */
    int64_t *claim; /* NB_AFF_MAX * NB_AFF_PAD words, zeroed before the launch */
    int64_t rspan;  /* channel-first data (a.I > 1): the reduction's O-range span (rows per partial) */
    int32_t apply;  /* 0: reduction units, 1: elementwise units */
    int32_t pad;
} nb_aff_args;

/* Record the zeroing kernel and the worker-affine pass for @p args (its refs at their nb_args
 * offsets, as for the plain kernels), reserving the cursors in the workspace. */
bool nm_bn_add_aff(cannon_op *op, const nb_args *args, int apply, int64_t rspan, const cannon_arg_ref *refs,
                   size_t n_refs);

#endif /* CANNON_OPS_NORM_OP_H_ */
