/* step.c: one training step. Forward with SyncBN, backward with each layer's gradient bucket
 * all-reduced on the comm stream while the compute stream goes on, and the momentum-SGD update
 * that waits for each bucket's own all-reduce. */
#include "train_syncbn.h"

#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_batch_norm_backward_reduce.h"
#include "aclnnop/aclnn_batch_norm_elemt.h"
#include "aclnnop/aclnn_batch_norm_elemt_backward.h"
#include "aclnnop/aclnn_batch_norm_gather_stats_with_counts.h"
#include "aclnnop/aclnn_batch_norm_stats.h"
#include "aclnnop/aclnn_logsoftmax.h"
#include "aclnnop/aclnn_logsoftmax_backward.h"
#include "aclnnop/aclnn_mm.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_nll_loss.h"
#include "aclnnop/aclnn_nll_loss_backward.h"
#include "aclnnop/aclnn_reduce_sum.h"
#include "aclnnop/aclnn_relu.h"
#include "aclnnop/aclnn_threshold_backward.h"

/* ---- one training step ---------------------------------------------------------------------- */

/* Sum bucket @p k over the ranks on the comm stream, after what that stream already waits for
 * (none with --grad-at-end: then all buckets go as one collective after backward). */
static void post_bucket(model *m, bucket *k)
{
    if (m->c->grad_end)
        return;
    ACL_CHECK(aclrtRecordEvent(k->start, g_comm_stream));
    HCCL_CHECK(HcclAllReduce(k->g, k->g, (uint64_t)k->n, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM,
                             m->comm_grad, g_comm_stream));
    ACL_CHECK(aclrtRecordEvent(k->end, g_comm_stream));
}

/* A bucket's gradients are complete: mark the point on the compute stream, and have the comm
 * stream wait for it and sum the bucket over the ranks while the compute stream goes on. */
static void bucket_ready(model *m, bucket *k)
{
    ACL_CHECK(aclrtRecordEvent(k->ready, g_comp_stream));
    if (m->world == 1)
        return;
    ACL_CHECK(aclrtStreamWaitEvent(g_comm_stream, k->ready));
    post_bucket(m, k);
}

void forward_backward(model *m, int want_loss)
{
    const cfg *c = m->c;
    aclrtStream s = g_comp_stream;
    const int nl = c->layers;
    const int multi = m->world > 1;

    ACL_CHECK(aclrtRecordEvent(m->t0, s));
    for (int l = 0; l < nl; l++) {
        bn_layer *L = &m->L[l];
        OP(s, aclnnMm, L->x, L->W, L->z, 0);
        OP(s, aclnnBatchNormStats, L->z, BN_EPS, L->mean_loc, L->invstd_loc);
        /* The collective is enqueued on the compute stream: Elemt cannot start before it. */
        ACL_CHECK(aclrtRecordEvent(L->fw0, s));
        if (multi)
            HCCL_CHECK(HcclAllGather(L->stats, L->gathered, (uint64_t)(2 * L->C + 1),
                                     HCCL_DATA_TYPE_FP32, m->comm_bn, s));
        else
            ACL_CHECK(aclrtMemcpyAsync(L->gathered, sizeof(float) * (size_t)(2 * L->C + 1),
                                       L->stats, sizeof(float) * (size_t)(2 * L->C + 1),
                                       ACL_MEMCPY_DEVICE_TO_DEVICE, s));
        ACL_CHECK(aclrtRecordEvent(L->fw1, s));
        OP(s, aclnnBatchNormGatherStatsWithCounts, L->z, L->g_mean, L->g_invstd, L->run_mean,
           L->run_var, BN_MOMENTUM, BN_EPS, L->g_count, L->mean_all, L->invstd_all);
        OP(s, aclnnBatchNormElemt, L->z, L->gamma, L->beta, L->mean_all, L->invstd_all, BN_EPS,
           L->y);
        OP(s, aclnnRelu, L->y, L->a);
    }
    const bn_layer *last = &m->L[nl - 1];
    OP(s, aclnnMm, last->a, m->Wout, m->logits, 0);
    OP(s, aclnnInplaceAdd, m->logits, m->bout, m->one); /* bias broadcast over the batch */
    OP(s, aclnnLogSoftmax, m->logits, 1, m->logp);
    OP(s, aclnnNLLLoss, m->logp, m->target, m->ones_t, 2 /* sum */, -100, m->loss_t, m->totw_t);

    /* backward of the head */
    OP(s, aclnnNLLLossBackward, m->gscale_t, m->logp, m->target, m->ones_t, 2, -100, m->totw_t,
       m->dlogp);
    OP(s, aclnnLogSoftmaxBackward, m->dlogp, m->logp, 1, m->dlogits);
    const bn_layer *top = &m->L[nl - 1];
    OP(s, aclnnMm, top->aT, m->dlogits, m->dWout, 0);
    OP(s, aclnnReduceSum, m->dlogits, m->dim0, false, ACL_FLOAT, m->dbout);
    bucket_ready(m, &m->bk[0]);
    OP(s, aclnnMm, m->dlogits, m->WoutT, top->da, 0);

    for (int l = nl - 1; l >= 0; l--) {
        bn_layer *L = &m->L[l];
        OP(s, aclnnThresholdBackward, L->da, L->y, m->zero, L->dy); /* ReLU' */
        OP(s, aclnnBatchNormReduceBackward, L->dy, L->z, L->mean_all, L->invstd_all, L->gamma, true,
           true, true, L->sum_dy, L->sum_dyxmu, L->dgamma, L->dbeta);
        ACL_CHECK(aclrtRecordEvent(L->bw0, s));
        if (multi) /* sumDy and sumDyXmu are adjacent: one all-reduce of 2C values */
            HCCL_CHECK(HcclAllReduce(L->sums, L->sums, (uint64_t)(2 * L->C), HCCL_DATA_TYPE_FP32,
                                     HCCL_REDUCE_SUM, m->comm_bn, s));
        ACL_CHECK(aclrtRecordEvent(L->bw1, s));
        /* divides by sum(counts) = the global batch: every rank's dx is its rows of the
         * single-device gradient */
        OP(s, aclnnBatchNormElemtBackward, L->dy, L->z, L->mean_all, L->invstd_all, L->gamma,
           L->sum_dy, L->sum_dyxmu, L->g_count, L->dz);
        if (multi && c->dw_comm) {
            /* dW = x^T dz is needed only by this layer's bucket, not by the rest of the
             * backward pass: the comm stream computes it and then ships the bucket, so the
             * compute stream goes straight on to dx and the next layer's SyncBN all-reduce
             * (the critical path) */
            ACL_CHECK(aclrtRecordEvent(L->bk->ready, s));
            ACL_CHECK(aclrtStreamWaitEvent(g_comm_stream, L->bk->ready));
            OP(g_comm_stream, aclnnMm, L->xT, L->dz, L->dW, 0);
            post_bucket(m, L->bk);
        } else {
            OP(s, aclnnMm, L->xT, L->dz, L->dW, 0);
            bucket_ready(m, L->bk); /* W, gamma, beta of this layer are final: ship them */
        }
        if (l > 0)
            OP(s, aclnnMm, L->dz, L->WT, L->dx, 0);
    }
    ACL_CHECK(aclrtRecordEvent(m->bwd_end, s));

    if (multi && c->grad_end) { /* all gradients as one collective, after backward */
        bucket *k0 = &m->bk[0];
        ACL_CHECK(aclrtStreamWaitEvent(g_comm_stream, m->bwd_end));
        ACL_CHECK(aclrtRecordEvent(k0->start, g_comm_stream));
        HCCL_CHECK(HcclAllReduce(g_grads, g_grads, (uint64_t)g_nparams, HCCL_DATA_TYPE_FP32,
                                 HCCL_REDUCE_SUM, m->comm_grad, g_comm_stream));
        ACL_CHECK(aclrtRecordEvent(k0->end, g_comm_stream));
    }
    if (multi) {
        /* after the last bucket; only the host reads the result, after synchronizing */
        if (want_loss)
            HCCL_CHECK(HcclAllReduce(m->loss, m->lossbuf, 1, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM,
                                     m->comm_grad, g_comm_stream));
    } else if (want_loss) {
        ACL_CHECK(aclrtMemcpyAsync(m->lossbuf, sizeof(float), m->loss, sizeof(float),
                                   ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    }
    ACL_CHECK(aclrtRecordEvent(m->opt_start, s));
    /* momentum SGD, as torch.optim.SGD: v = mu v + g; p -= lr v. One bucket = three ops. The
     * optimizer waits for each bucket's own all-reduce, in the order they were posted, so the
     * buckets that are already summed are updated while the last ones are still in flight;
     * v = mu v does not need the gradient and runs before the wait. */
    for (int k = 0; k < m->nb; k++) {
        bucket *bk = &m->bk[k];
        OP(s, aclnnInplaceMuls, bk->vt, m->mu);
        if (multi) {
            ACL_CHECK(aclrtRecordEvent(bk->wait0, s));
            ACL_CHECK(aclrtStreamWaitEvent(s, c->grad_end ? m->bk[0].end : bk->end));
            ACL_CHECK(aclrtRecordEvent(bk->wait1, s));
        }
        OP(s, aclnnInplaceAdd, bk->vt, bk->gt, m->one);
        OP(s, aclnnInplaceAdd, bk->pt, bk->vt, m->neg_lr);
    }
    ACL_CHECK(aclrtRecordEvent(m->t_end, s));
    ACL_CHECK(aclrtSynchronizeStream(s));
    if (multi)
        ACL_CHECK(aclrtSynchronizeStream(g_comm_stream));
}
