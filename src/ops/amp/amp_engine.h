/*
 * The list engine of the mixed-precision training operators (src/ops/amp): the Foreach family,
 * ForeachNonFiniteCheckAndUnscale and ApplyAdamW(V2) all update "items" (a tensor of a list, or
 * the one set of tensors of an optimizer step) whose operands are same-shaped tensors read and
 * written element by element, with device scalars (one-element tensors read when the kernel runs)
 * and host constants.
 *
 * The whole list is one launch: every item is cut into chunks of at most AMP_CHUNK elements and
 * block b of the launch runs chunk b (its item found by a binary search over the items' first
 * chunks), so hundreds of small tensors and one large one both spread over the worker pool. Each
 * chunk is computed in fp32 in runs of AMP_RUN elements (operands converted into stack buffers,
 * results rounded once to their dtype). Reductions (ForeachNorm, the non-finite check) write one
 * partial per chunk into the workspace and a second launch combines them in chunk order, so a
 * result does not depend on the worker count.
 *
 * Operands are bound with cannonOpBind: a strided view is gathered into the workspace before the
 * kernel and scattered back after it, so every kernel sees contiguous buffers. An output may be its
 * input tensor (or the same storage): element i is read before element i is written and nothing
 * else is read.
 */
#ifndef CANNON_OPS_AMP_ENGINE_H_
#define CANNON_OPS_AMP_ENGINE_H_

#include <stdbool.h>
#include <stdint.h>

#include "aclnn/aclnn_base.h"
#include "cannon/opdev.h"

/* Operands of an item, device scalars, host constants. */
#define AMP_MAX_OPS 6
#define AMP_MAX_SCAL 8
#define AMP_MAX_CONST 8
/* The list length cap: beyond any optimizer's parameter count per call; bounds phase 1's memory. */
#define AMP_MAX_TENSORS 65536

typedef enum amp_kind {
    AMP_MUL_S,   /* y = x * s0 */
    AMP_ADD_S,   /* y = x + s0 */
    AMP_DIV_S,   /* y = x / s0 */
    AMP_MUL_L,   /* y = x1 * x2 */
    AMP_ADD_L,   /* y = x1 + x2 * s0 */
    AMP_SQRT,    /* y = sqrt(x) */
    AMP_ADDCMUL, /* y = x1 + s0 * x2 * x3 */
    AMP_ADDCDIV, /* y = x1 + s0 * x2 / x3 */
    AMP_LERP,    /* y = x1 + s0 * (x2 - x1) */
    AMP_ZERO,    /* x = 0 (bytes) */
    AMP_COPY,    /* y = x (bytes) */
    AMP_UNSCALE, /* g *= s0; a non-finite g sets the chunk's flag */
    AMP_NORM,    /* out[i] = p-norm of x_i (p = c0) */
    AMP_ADAMW,   /* ApplyAdamW: var, m, v, grad, [maxGradNorm]; s0..s6 beta1Power beta2Power lr wd b1 b2 eps */
    AMP_ADAMW2,  /* ApplyAdamWV2: var, m, v, grad, [maxGradNorm ref]; s0 step; c0..c4 lr b1 b2 wd eps */
} amp_kind;

/* A scalar operand is taken from a (host) aclScalar in phase 1 or read from a one-element device
 * tensor when the kernel runs. */
typedef struct amp_plan {
    amp_kind kind;
    int nops;                                /* operands per item */
    unsigned how[AMP_MAX_OPS];               /* CANNON_BIND_IN / OUT / INOUT; 0: absent operand */
    uint64_t n;                              /* items */
    const aclTensor *const *t;               /* n * nops tensors, item-major (NULL where absent) */
    int nscal;
    const aclTensor *scal[AMP_MAX_SCAL];     /* device scalars (NULL: use konst[k] instead) */
    double konst[AMP_MAX_CONST];
    int32_t flags;                           /* AMP_F_* */
    const aclTensor *flag_out;               /* AMP_UNSCALE: foundInf */
} amp_plan;

#define AMP_F_AMSGRAD 1
#define AMP_F_MAXIMIZE 2

/*
 * Register the plan's tensors (inputs, then device scalars, then outputs), bind them and record
 * the launches. The plan's tensors must have been checked (same shape per item, dtypes
 * supported). Returns false after a failure (recorded in @p op).
 */
bool amp_record(cannon_op *op, const amp_plan *p);

/*
 * Read list @p l (argument @p name) into a new array of its tensors (*@p out, free()), checking:
 * not NULL (161001), a live list of at most AMP_MAX_TENSORS entries with no NULL entry (161001),
 * each entry a tensor of a dtype in @p dts and rank <= 8, all of one dtype (161002). @p views
 * (may be NULL) receives a new array of their views. Returns the count (0 for an empty list);
 * false via cannonOpOk after a failure.
 */
uint64_t amp_list(cannon_op *op, const char *name, const aclTensorList *l, cannon_dtype_set dts,
                  const aclTensor ***out, cannon_tensor_view **views);

/* Check list @p bn against the reference list @p an: the same length, and entry by entry the same
 * shape and (when @p same_dtype) dtype (161002, naming both arguments and the entry). */
bool amp_list_match(cannon_op *op, const char *an, uint64_t na, const cannon_tensor_view *va, const char *bn,
                    uint64_t nb, const cannon_tensor_view *vb, bool same_dtype);

/* A one-element tensor argument (device scalar) of a dtype in @p dts (161001 / 161002). */
bool amp_scalar_tensor(cannon_op *op, const char *name, const aclTensor *t, cannon_dtype_set dts);

#endif /* CANNON_OPS_AMP_ENGINE_H_ */
