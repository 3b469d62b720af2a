/*
 * aclnnBatchNorm, aclnnBatchNormBackward and the SyncBatchNorm pieces (aclnnBatchNormStats,
 * aclnnBatchNormGatherStatsWithCounts, aclnnBatchNormElemt, aclnnBatchNormReduceBackward,
 * aclnnBatchNormElemtBackward): phase 1, i.e. the argument checks, the tensors' slots in CANN's
 * order and the choice of plan (bn_plan.h).
 *
 * Every operator is a short sequence of three kernel kinds: reduce (per-channel fp64 partial sums
 * over fixed O-ranges), chan (the per-channel arithmetic: mean/invstd, running stats, gradients of
 * weight and bias, the coefficients of the elementwise pass) and apply (out = (x - m)*a + b + dy*k
 * per element); training BatchNorm and BatchNormBackward on channel-first data may fuse the three
 * per channel (bn_fused.c).
 * Statistics: a shifted single pass (shift = the channel's first element) with exact fp64
 * squares, so a large mean costs no accuracy and the data are read once for the statistics.
 * saveInvstd holds 1/sqrt(var + eps) (PyTorch's and Ascend 950's convention), and
 * aclnnBatchNormBackward expects the same.
 * Layouts: the channel axis is dim 1 (formats ND, NC, NCL, NCHW, NCDHW) or the last dim (NHWC,
 * NDHWC). A dim-1 tensor whose strides are channels-last (torch.channels_last) is processed in
 * place as channels-last; other strided views go through a workspace copy.
 */
#include <math.h>
#include <string.h>

#include "aclnn/opdev/cannon_access.h"
#include "aclnnop/aclnn_batch_norm.h"
#include "aclnnop/aclnn_batch_norm_backward.h"
#include "aclnnop/aclnn_batch_norm_backward_reduce.h"
#include "aclnnop/aclnn_batch_norm_elemt.h"
#include "aclnnop/aclnn_batch_norm_elemt_backward.h"
#include "aclnnop/aclnn_batch_norm_gather_stats_with_counts.h"
#include "aclnnop/aclnn_batch_norm_stats.h"
#include "op_manifest.h"

#include "bn_plan.h"

/* The data tensor: a dtype of @p dts, rank 2 to 8, and a format of that rank. */
static bool check_data(cannon_op *op, cannon_dtype_set dts, const char *name, const aclTensor *t,
                       cannon_tensor_view *v)
{
    if (!cannonOpTensor(op, name, t, dts, v))
        return false;
    if (v->ndim < 2)
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s has %lld dims, fewer than 2", name, (long long)v->ndim);
    int want = 0;
    switch (v->format) {
    case ACL_FORMAT_ND:
    case ACL_FORMAT_UNDEFINED:
        break;
    case ACL_FORMAT_NC:
        want = 2;
        break;
    case ACL_FORMAT_NCL:
        want = 3;
        break;
    case ACL_FORMAT_NCHW:
    case ACL_FORMAT_NHWC:
        want = 4;
        break;
    case ACL_FORMAT_NCDHW:
    case ACL_FORMAT_NDHWC:
        want = 5;
        break;
    default:
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID,
                            "%s format %d is not supported (ND, NC, NCL, NCHW, NHWC, NCDHW, NDHWC)", name,
                            (int)v->format);
    }
    if (want && v->ndim != want)
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "%s has rank %lld but format %d needs rank %d", name,
                            (long long)v->ndim, (int)v->format, want);
    return true;
}

/* Another big tensor (gradOut, output, gradInput) must match input's shape, dtype and channel axis. */
static bool check_like(cannon_op *op, cannon_dtype_set dts, const char *name, const aclTensor *t,
                       const cannon_tensor_view *vx)
{
    cannon_tensor_view v;
    if (!check_data(op, dts, name, t, &v) || !cannonOpSameShape(op, name, &v, "input", vx) ||
        !cannonOpSameDtype(op, name, &v, "input", vx))
        return false;
    if (bn_channel_axis(&v) != bn_channel_axis(vx))
        return cannonOpFail(op, ACLNN_ERR_PARAM_INVALID,
                            "%s format puts the channels on another axis than input's", name);
    return true;
}

/* The channel count of checked data @p vx (0 after a failure). */
static int64_t channels(const cannon_op *op, const cannon_tensor_view *vx)
{
    return cannonOpOk(op) ? vx->shape[bn_channel_axis(vx)] : 0;
}

static int64_t numel_of(const cannon_op *op, const aclTensor *t)
{
    return cannonOpOk(op) ? cannonTensorNumel(t) : 0;
}

static void check_momentum(cannon_op *op, double momentum)
{
    if (!isfinite(momentum))
        cannonOpFail(op, ACLNN_ERR_PARAM_INVALID, "momentum %g is not finite", momentum);
}

static void plan_init(bn_plan *pl, cannon_op *op)
{
    memset(pl, 0, sizeof *pl);
    pl->op = op;
    pl->slot_x = pl->slot_g = pl->slot_o = -1;
}

/* ---- aclnnBatchNorm ---- */
ACL_FUNC_VISIBILITY aclnnStatus aclnnBatchNormGetWorkspaceSize(const aclTensor *input, const aclTensor *weight,
                                                               const aclTensor *bias, aclTensor *runningMean,
                                                               aclTensor *runningVar, bool training, double momentum,
                                                               double eps, aclTensor *output, aclTensor *saveMean,
                                                               aclTensor *saveInvstd, uint64_t *workspaceSize,
                                                               aclOpExecutor **executor)
{
    const cannon_dtype_set dts = cn_dts_BatchNorm();
    cannon_op op;
    cannon_tensor_view vx;
    cannonOpBegin(&op, "aclnnBatchNorm", workspaceSize, executor);
    cannonOpNotNulls(&op, "input", input, "output", output, NULL);
    if (training)
        cannonOpNotNulls(&op, "saveMean", saveMean, "saveInvstd", saveInvstd, NULL);
    check_data(&op, dts, "input", input, &vx);
    check_like(&op, dts, "output", output, &vx);
    nm_check_eps(&op, "eps", eps);
    const int64_t C = channels(&op, &vx);
    nm_check_chan(&op, "weight", weight, C, true);
    nm_check_chan(&op, "bias", bias, C, true);
    nm_check_chan(&op, "runningMean", runningMean, C, true);
    nm_check_chan(&op, "runningVar", runningVar, C, true);
    if (training) {
        nm_check_chan(&op, "saveMean", saveMean, C, false);
        nm_check_chan(&op, "saveInvstd", saveInvstd, C, false);
    }
    check_momentum(&op, momentum);
    const int64_t numel = numel_of(&op, input);
    if (training && C > 0 && numel == 0)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "training on an empty batch (no elements per channel)");

    bn_plan pl;
    plan_init(&pl, &op);
    pl.slot_x = cannonOpInput(&op, input);
    const int sw = nm_input(&op, weight), sb = nm_input(&op, bias);
    const int srm = nm_input(&op, runningMean), srv = nm_input(&op, runningVar);
    pl.slot_o = cannonOpOutput(&op, output);
    const int ssm = training ? nm_output(&op, saveMean) : -1, ssi = training ? nm_output(&op, saveInvstd) : -1;
    if (cannonOpOk(&op) && numel > 0) {
        bn_plan_begin(&pl, &vx, input, NULL, output);
        bn_plan_ws(&pl);
        chan_set cs;
        bn_chan_init(&cs);
        bn_chan_put(&cs, V_W, weight, sw);
        bn_chan_put(&cs, V_B, bias, sb);
        bn_chan_put(&cs, V_RM, runningMean, srm);
        bn_chan_put(&cs, V_RV, runningVar, srv);
        ch_args ca;
        memset(&ca, 0, sizeof ca);
        ca.eps = eps;
        ca.momentum = momentum;
        ca.want_co = 1;
        if (training) {
            bn_chan_put(&cs, V_SM, saveMean, ssm);
            bn_chan_put(&cs, V_SI, saveInvstd, ssi);
            ca.op = CH_BN_FIN;
            if (bn_fused_ok(&pl, 0) && !bn_fwd_split(&pl)) {
                bn_add_fused(&pl, &ca, &cs, NB_RED_STATS, -1, CH_BN_FIN, 1, 1, 0);
            } else {
                bn_add_reduce(&pl, NB_RED_STATS);
                bn_add_chan(&pl, &ca, &cs, 1, 1);
                bn_add_apply(&pl, 1, 0, 0, 1);
            }
        } else {
            ca.op = CH_BN_EVAL;
            bn_add_chan(&pl, &ca, &cs, 0, 0);
            bn_add_apply(&pl, 1, 0, 0, 0);
        }
    }
    return cannonOpFinish(&op);
}

/* ---- aclnnBatchNormBackward ---- */
ACL_FUNC_VISIBILITY aclnnStatus aclnnBatchNormBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclTensor *weight, const aclTensor *runningMean,
    const aclTensor *runningVar, const aclTensor *saveMean, const aclTensor *saveInvstd, bool training, double eps,
    const aclBoolArray *outputMask, aclTensor *gradInput, aclTensor *gradWeight, aclTensor *gradBias,
    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const cannon_dtype_set dts = cn_dts_BatchNormBackward();
    cannon_op op;
    cannon_tensor_view vx;
    cannonOpBegin(&op, "aclnnBatchNormBackward", workspaceSize, executor);
    cannonOpNotNulls(&op, "gradOut", gradOut, "input", input, "outputMask", outputMask, NULL);
    /* The mask says which outputs must be there. */
    uint64_t nmask = 0;
    const bool *mask = cannonOpOk(&op) ? cannonBoolArrayData(outputMask, &nmask) : NULL;
    if (cannonOpOk(&op) && (!mask || nmask != 3))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "outputMask must hold 3 values");
    const bool m0 = cannonOpOk(&op) && mask[0], m1 = cannonOpOk(&op) && mask[1], m2 = cannonOpOk(&op) && mask[2];
    if (m0)
        cannonOpNotNull(&op, "gradInput", gradInput);
    if (m1)
        cannonOpNotNull(&op, "gradWeight", gradWeight);
    if (m2)
        cannonOpNotNull(&op, "gradBias", gradBias);
    if (training)
        cannonOpNotNulls(&op, "saveMean", saveMean, "saveInvstd", saveInvstd, NULL);
    check_data(&op, dts, "input", input, &vx);
    check_like(&op, dts, "gradOut", gradOut, &vx);
    if (m0)
        check_like(&op, dts, "gradInput", gradInput, &vx);
    nm_check_eps(&op, "eps", eps);
    const int64_t C = channels(&op, &vx);
    nm_check_chan(&op, "weight", weight, C, true);
    nm_check_chan(&op, "runningMean", runningMean, C, true);
    nm_check_chan(&op, "runningVar", runningVar, C, true);
    if (training) {
        nm_check_chan(&op, "saveMean", saveMean, C, false);
        nm_check_chan(&op, "saveInvstd", saveInvstd, C, false);
    }
    if (m1)
        nm_check_chan(&op, "gradWeight", gradWeight, C, false);
    if (m2)
        nm_check_chan(&op, "gradBias", gradBias, C, false);
    const int64_t numel = numel_of(&op, input);
    if (training && C > 0 && numel == 0)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "training on an empty batch (no elements per channel)");

    bn_plan pl;
    plan_init(&pl, &op);
    pl.slot_g = cannonOpInput(&op, gradOut);
    pl.slot_x = cannonOpInput(&op, input);
    const int sw = nm_input(&op, weight), srm = nm_input(&op, runningMean), srv = nm_input(&op, runningVar);
    const int ssm = nm_input(&op, training ? saveMean : NULL), ssi = nm_input(&op, training ? saveInvstd : NULL);
    pl.slot_o = nm_output(&op, m0 ? gradInput : NULL);
    const int sgw = nm_output(&op, m1 ? gradWeight : NULL), sgb = nm_output(&op, m2 ? gradBias : NULL);
    /* An empty batch leaves the weight and bias gradients (zeros) to write; with no channels there is
     * nothing at all (the planner divides by the channel count). */
    if (cannonOpOk(&op) && (numel > 0 || ((m1 || m2) && C > 0))) {
        bn_plan_begin(&pl, &vx, input, gradOut, m0 ? gradInput : NULL);
        bn_plan_ws(&pl);
        chan_set cs;
        bn_chan_init(&cs);
        bn_chan_put(&cs, V_W, weight, sw);
        bn_chan_put(&cs, V_RM, runningMean, srm);
        bn_chan_put(&cs, V_RV, runningVar, srv);
        bn_chan_put(&cs, V_SI, training ? saveInvstd : NULL, ssi);
        /* The center of the reduction: saveMean in training, runningMean in eval. */
        bn_chan_put(&cs, V_SM, training ? saveMean : runningMean, training ? ssm : srm);
        bn_chan_put(&cs, V_GW, m1 ? gradWeight : NULL, sgw);
        bn_chan_put(&cs, V_GB, m2 ? gradBias : NULL, sgb);
        ch_args ca;
        memset(&ca, 0, sizeof ca);
        ca.eps = eps;
        ca.training = training;
        ca.want_co = m0;
        if (numel > 0 && bn_fused_ok(&pl, 1) && !bn_bwd_split(&pl, training)) {
            bn_add_fused(&pl, &ca, &cs, NB_RED_GRAD, CH_CENTER, CH_BWD_FIN, m0, training, 1);
        } else {
            ca.op = CH_CENTER;
            bn_add_chan(&pl, &ca, &cs, 0, 0);
            if (numel > 0)
                bn_add_reduce(&pl, NB_RED_GRAD);
            else /* empty batch in eval: gradients of weight and bias are 0 */
                pl.P = 0;
            ca.op = CH_BWD_FIN;
            bn_add_chan(&pl, &ca, &cs, 0, pl.P > 0);
            if (m0 && numel > 0)
                bn_add_apply(&pl, training, 1, 0, 1);
        }
    }
    return cannonOpFinish(&op);
}

/* ---- aclnnBatchNormStats ---- */
ACL_FUNC_VISIBILITY aclnnStatus aclnnBatchNormStatsGetWorkspaceSize(const aclTensor *input, double eps, aclTensor *mean,
                                                                    aclTensor *invstd, uint64_t *workspaceSize,
                                                                    aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vx;
    cannonOpBegin(&op, "aclnnBatchNormStats", workspaceSize, executor);
    cannonOpNotNulls(&op, "input", input, "mean", mean, "invstd", invstd, NULL);
    check_data(&op, cn_dts_BatchNormStats(), "input", input, &vx);
    nm_check_eps(&op, "eps", eps);
    const int64_t C = channels(&op, &vx);
    nm_check_chan(&op, "mean", mean, C, false);
    nm_check_chan(&op, "invstd", invstd, C, false);
    const int64_t numel = numel_of(&op, input);
    if (C > 0 && numel == 0)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "empty batch (no elements per channel)");

    bn_plan pl;
    plan_init(&pl, &op);
    pl.slot_x = cannonOpInput(&op, input);
    const int sm = cannonOpOutput(&op, mean), si = cannonOpOutput(&op, invstd);
    if (cannonOpOk(&op) && numel > 0) {
        bn_plan_begin(&pl, &vx, input, NULL, NULL);
        bn_plan_ws(&pl);
        chan_set cs;
        bn_chan_init(&cs);
        bn_chan_put(&cs, V_SM, mean, sm);
        bn_chan_put(&cs, V_SI, invstd, si);
        ch_args ca;
        memset(&ca, 0, sizeof ca);
        ca.eps = eps;
        ca.op = CH_BN_FIN;
        bn_add_reduce(&pl, NB_RED_STATS);
        bn_add_chan(&pl, &ca, &cs, 1, 1);
    }
    return cannonOpFinish(&op);
}

/* ---- aclnnBatchNormGatherStatsWithCounts ---- */
ACL_FUNC_VISIBILITY aclnnStatus aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize(
    const aclTensor *input, const aclTensor *mean, const aclTensor *invstd, aclTensor *runningMean,
    aclTensor *runningVar, double momentum, double eps, const aclTensor *counts, aclTensor *meanAll,
    aclTensor *invstdAll, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    cannon_op op;
    cannon_tensor_view vx, vm, vi, vc;
    cannonOpBegin(&op, "aclnnBatchNormGatherStatsWithCounts", workspaceSize, executor);
    cannonOpNotNulls(&op, "input", input, "mean", mean, "invstd", invstd, "counts", counts, "meanAll", meanAll,
                     "invstdAll", invstdAll, NULL);
    check_data(&op, cn_dts_BatchNormGatherStatsWithCounts(), "input", input, &vx);
    nm_check_eps(&op, "eps", eps);
    check_momentum(&op, momentum);
    const int64_t C = channels(&op, &vx);
    /* The ranks' statistics: mean and invstd [world, C], counts [world]. */
    if (cannonOpTensor(&op, "mean", mean, CANNON_DTS_F32_16, &vm) && (vm.ndim != 2 || vm.shape[1] != C)) {
        char sh[200];
        cannonShapeFormat(&vm, sh, sizeof sh);
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "mean shape %s is not [world, %lld]", sh, (long long)C);
    }
    if (cannonOpTensor(&op, "invstd", invstd, CANNON_DTS_F32_16, &vi))
        cannonOpSameShape(&op, "invstd", &vi, "mean", &vm);
    if (cannonOpTensor(&op, "counts", counts, CANNON_DTS_F32_16 | CANNON_DT_F64 | CANNON_DT_I32 | CANNON_DT_I64, &vc) &&
        (vc.ndim != 1 || vc.shape[0] != vm.shape[0]))
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "counts must be 1-D of length world (%lld)", (long long)vm.shape[0]);
    nm_check_chan(&op, "runningMean", runningMean, C, true);
    nm_check_chan(&op, "runningVar", runningVar, C, true);
    nm_check_chan(&op, "meanAll", meanAll, C, false);
    nm_check_chan(&op, "invstdAll", invstdAll, C, false);
    if (cannonOpOk(&op) && vm.shape[0] == 0)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "no ranks (world size 0)");

    bn_plan pl;
    plan_init(&pl, &op);
    pl.slot_x = cannonOpInput(&op, input);
    const int sm = cannonOpInput(&op, mean), si = cannonOpInput(&op, invstd);
    const int srm = nm_input(&op, runningMean), srv = nm_input(&op, runningVar);
    const int sc = cannonOpInput(&op, counts);
    const int sma = cannonOpOutput(&op, meanAll), sia = cannonOpOutput(&op, invstdAll);
    if (cannonOpOk(&op) && C > 0) {
        pl.C = C;
        cannonOpWorkspace(&op, sizeof(float) * (uint64_t)(NM_CO_ROWS * C + 1), &pl.ws_co);
        cannonOpWorkspace(&op, sizeof(float) * (uint64_t)C, &pl.ws_center);
        chan_set cs;
        bn_chan_init(&cs);
        bn_chan_put(&cs, V_SM, mean, sm);
        bn_chan_put(&cs, V_SI, invstd, si);
        bn_chan_put(&cs, V_RM, runningMean, srm);
        bn_chan_put(&cs, V_RV, runningVar, srv);
        bn_chan_put(&cs, V_CNT, counts, sc);
        bn_chan_put(&cs, V_MALL, meanAll, sma);
        bn_chan_put(&cs, V_IALL, invstdAll, sia);
        ch_args ca;
        memset(&ca, 0, sizeof ca);
        ca.eps = eps;
        ca.momentum = momentum;
        ca.op = CH_GATHER;
        ca.W = vm.shape[0];
        ca.cnt_n = vm.shape[0];
        bn_add_chan(&pl, &ca, &cs, 0, 0);
    }
    return cannonOpFinish(&op);
}

/* ---- aclnnBatchNormElemt ---- */
ACL_FUNC_VISIBILITY aclnnStatus aclnnBatchNormElemtGetWorkspaceSize(const aclTensor *input, const aclTensor *weight,
                                                                    const aclTensor *bias, aclTensor *mean,
                                                                    aclTensor *invstd, double eps, aclTensor *output,
                                                                    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const cannon_dtype_set dts = cn_dts_BatchNormElemt();
    cannon_op op;
    cannon_tensor_view vx;
    cannonOpBegin(&op, "aclnnBatchNormElemt", workspaceSize, executor);
    cannonOpNotNulls(&op, "input", input, "mean", mean, "invstd", invstd, "output", output, NULL);
    check_data(&op, dts, "input", input, &vx);
    check_like(&op, dts, "output", output, &vx);
    nm_check_eps(&op, "eps", eps);
    const int64_t C = channels(&op, &vx);
    nm_check_chan(&op, "weight", weight, C, true);
    nm_check_chan(&op, "bias", bias, C, true);
    nm_check_chan(&op, "mean", mean, C, false);
    nm_check_chan(&op, "invstd", invstd, C, false);

    bn_plan pl;
    plan_init(&pl, &op);
    pl.slot_x = cannonOpInput(&op, input);
    const int sw = nm_input(&op, weight), sb = nm_input(&op, bias);
    const int sm = cannonOpInput(&op, mean), si = cannonOpInput(&op, invstd);
    pl.slot_o = cannonOpOutput(&op, output);
    if (cannonOpOk(&op) && cannonTensorNumel(input) > 0) {
        bn_plan_begin(&pl, &vx, input, NULL, output);
        bn_plan_ws(&pl);
        chan_set cs;
        bn_chan_init(&cs);
        bn_chan_put(&cs, V_W, weight, sw);
        bn_chan_put(&cs, V_B, bias, sb);
        bn_chan_put(&cs, V_SM, mean, sm);
        bn_chan_put(&cs, V_SI, invstd, si);
        ch_args ca;
        memset(&ca, 0, sizeof ca);
        ca.op = CH_ELEMT;
        bn_add_chan(&pl, &ca, &cs, 0, 0);
        bn_add_apply(&pl, 1, 0, 0, 0);
    }
    return cannonOpFinish(&op);
}

/* ---- aclnnBatchNormReduceBackward ---- */
ACL_FUNC_VISIBILITY aclnnStatus aclnnBatchNormReduceBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclTensor *mean, const aclTensor *invstd,
    const aclTensor *weight, const bool inputG, const bool weightG, const bool biasG, aclTensor *sumDy,
    aclTensor *sumDyXmu, aclTensor *gradWeight, aclTensor *gradBias, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const cannon_dtype_set dts = cn_dts_BatchNormReduceBackward();
    cannon_op op;
    cannon_tensor_view vx;
    cannonOpBegin(&op, "aclnnBatchNormReduceBackward", workspaceSize, executor);
    cannonOpNotNulls(&op, "gradOut", gradOut, "input", input, "mean", mean, "invstd", invstd, NULL);
    if (inputG)
        cannonOpNotNulls(&op, "sumDy", sumDy, "sumDyXmu", sumDyXmu, NULL);
    if (weightG)
        cannonOpNotNull(&op, "gradWeight", gradWeight);
    if (biasG)
        cannonOpNotNull(&op, "gradBias", gradBias);
    check_data(&op, dts, "input", input, &vx);
    check_like(&op, dts, "gradOut", gradOut, &vx);
    const int64_t C = channels(&op, &vx);
    nm_check_chan(&op, "weight", weight, C, true);
    nm_check_chan(&op, "mean", mean, C, false);
    nm_check_chan(&op, "invstd", invstd, C, false);
    if (inputG) {
        nm_check_chan(&op, "sumDy", sumDy, C, false);
        nm_check_chan(&op, "sumDyXmu", sumDyXmu, C, false);
    }
    if (weightG)
        nm_check_chan(&op, "gradWeight", gradWeight, C, false);
    if (biasG)
        nm_check_chan(&op, "gradBias", gradBias, C, false);

    bn_plan pl;
    plan_init(&pl, &op);
    pl.slot_g = cannonOpInput(&op, gradOut);
    pl.slot_x = cannonOpInput(&op, input);
    const int sm = cannonOpInput(&op, mean), si = cannonOpInput(&op, invstd);
    (void)nm_input(&op, weight); /* a slot in CANN's order; the sums do not read it */
    const int sdy = nm_output(&op, inputG ? sumDy : NULL), sdx = nm_output(&op, inputG ? sumDyXmu : NULL);
    const int sgw = nm_output(&op, weightG ? gradWeight : NULL), sgb = nm_output(&op, biasG ? gradBias : NULL);
    if (cannonOpOk(&op) && (inputG || weightG || biasG) && C > 0) {
        bn_plan_begin(&pl, &vx, input, gradOut, NULL);
        bn_plan_ws(&pl);
        chan_set cs;
        bn_chan_init(&cs);
        bn_chan_put(&cs, V_SM, mean, sm);
        bn_chan_put(&cs, V_SI, invstd, si);
        bn_chan_put(&cs, V_SDY, inputG ? sumDy : NULL, sdy);
        bn_chan_put(&cs, V_SDX, inputG ? sumDyXmu : NULL, sdx);
        bn_chan_put(&cs, V_GW, weightG ? gradWeight : NULL, sgw);
        bn_chan_put(&cs, V_GB, biasG ? gradBias : NULL, sgb);
        ch_args ca;
        memset(&ca, 0, sizeof ca);
        ca.op = CH_CENTER;
        const int empty = cannonTensorNumel(input) == 0;
        bn_add_chan(&pl, &ca, &cs, 0, 0);
        if (empty)
            pl.P = 0;
        else
            bn_add_reduce(&pl, NB_RED_GRAD);
        ca.op = CH_RB_FIN;
        bn_add_chan(&pl, &ca, &cs, 0, !empty);
    }
    return cannonOpFinish(&op);
}

/* ---- aclnnBatchNormElemtBackward ---- */
ACL_FUNC_VISIBILITY aclnnStatus aclnnBatchNormElemtBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclTensor *mean, const aclTensor *invstd,
    const aclTensor *weight, const aclTensor *sumDy, const aclTensor *sumDyXmu, aclTensor *counter,
    aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    const cannon_dtype_set dts = cn_dts_BatchNormElemtBackward();
    cannon_op op;
    cannon_tensor_view vx, vc;
    cannonOpBegin(&op, "aclnnBatchNormElemtBackward", workspaceSize, executor);
    cannonOpNotNulls(&op, "gradOut", gradOut, "input", input, "mean", mean, "invstd", invstd, "sumDy", sumDy,
                     "sumDyXmu", sumDyXmu, "counter", counter, "gradInput", gradInput, NULL);
    check_data(&op, dts, "input", input, &vx);
    check_like(&op, dts, "gradOut", gradOut, &vx);
    check_like(&op, dts, "gradInput", gradInput, &vx);
    const int64_t C = channels(&op, &vx);
    nm_check_chan(&op, "weight", weight, C, true);
    nm_check_chan(&op, "mean", mean, C, false);
    nm_check_chan(&op, "invstd", invstd, C, false);
    nm_check_chan(&op, "sumDy", sumDy, C, false);
    nm_check_chan(&op, "sumDyXmu", sumDyXmu, C, false);
    /* The ranks' element counts, summed as a flat array (a strided one is gathered first). */
    if (cannonOpTensor(&op, "counter", counter, CANNON_DT_I32 | CANNON_DT_F32 | CANNON_DT_F16, &vc) && vc.ndim < 1)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "counter has 0 dims: it must be of rank 1 to 8");
    const int64_t ncnt = numel_of(&op, counter);
    if (cannonOpOk(&op) && ncnt == 0)
        cannonOpFail(&op, ACLNN_ERR_PARAM_INVALID, "counter is empty");

    bn_plan pl;
    plan_init(&pl, &op);
    pl.slot_g = cannonOpInput(&op, gradOut);
    pl.slot_x = cannonOpInput(&op, input);
    const int sm = cannonOpInput(&op, mean), si = cannonOpInput(&op, invstd), sw = nm_input(&op, weight);
    const int sdy = cannonOpInput(&op, sumDy), sdx = cannonOpInput(&op, sumDyXmu), sc = cannonOpInput(&op, counter);
    pl.slot_o = cannonOpOutput(&op, gradInput);
    if (cannonOpOk(&op) && cannonTensorNumel(input) > 0) {
        bn_plan_begin(&pl, &vx, input, gradOut, gradInput);
        bn_plan_ws(&pl);
        chan_set cs;
        bn_chan_init(&cs);
        bn_chan_put(&cs, V_W, weight, sw);
        bn_chan_put(&cs, V_SM, mean, sm);
        bn_chan_put(&cs, V_SI, invstd, si);
        bn_chan_put(&cs, V_SDY, sumDy, sdy);
        bn_chan_put(&cs, V_SDX, sumDyXmu, sdx);
        ch_args ca;
        memset(&ca, 0, sizeof ca);
        ca.op = CH_EB;
        ca.cnt_n = ncnt;
        cannon_arg_ref refs[NV + 4];
        cannon_arg_ref cref;
        cannonOpBind(&op, sc, CANNON_BIND_IN, (uint32_t)(offsetof(ch_args, v) + (size_t)V_CNT * sizeof(nm_vec)),
                     &cref);
        ca.C = pl.C;
        ca.N = pl.N;
        ca.I = pl.I;
        ca.xdtype = pl.dtype;
        size_t n = bn_chan_refs(&pl, &cs, &ca, refs, 0);
        ca.v[V_CNT].present = 1;
        ca.v[V_CNT].s1 = 1;
        ca.v[V_CNT].dtype = nm_any_code(vc.dtype);
        refs[n++] = cref;
        refs[n++] = nm_ws_ref(pl.ws_co, offsetof(ch_args, co));
        cannonOpKernel(&op, op.api, bn_ch_kernel, 1, &ca, sizeof ca, refs, n);
        bn_add_apply(&pl, 1, 1, 1, 0);
    }
    return cannonOpFinish(&op);
}
