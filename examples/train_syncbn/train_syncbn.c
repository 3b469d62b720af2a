/* train_syncbn: data-parallel training with synchronized BatchNorm, built from aclnn operators
 * and libhccl collectives only.
 *
 * The model is a small classifier, an MLP of L blocks Linear -> BatchNorm -> ReLU followed by
 * Linear (+ bias) -> log-softmax -> NLL loss, trained with momentum SGD on a synthetic data set
 * (Gaussian blobs, generated here from a fixed-seed PRNG, so every rank and every run sees the
 * same samples). Each of N ranks takes a contiguous slice of every global batch.
 *
 * What a data-parallel step looks like, and where the collectives go:
 *
 *   forward, per BN layer (compute stream):
 *     aclnnBatchNormStats        local mean and invstd of this rank's slice
 *     HcclAllGather              [mean | invstd | count] of every rank     (comm_bn)
 *     aclnnBatchNormGatherStatsWithCounts  global mean/invstd (+ running statistics)
 *     aclnnBatchNormElemt        normalize with the global statistics
 *   backward, per BN layer (compute stream):
 *     aclnnBatchNormReduceBackward  local sum(dy), sum(dy * (x - mean)), dgamma, dbeta
 *     HcclAllReduce              the two sums over all ranks                 (comm_bn)
 *     aclnnBatchNormElemtBackward   dx, dividing by the global count sum(counts)
 *   gradients (second stream):
 *     after each layer's weight gradient the compute stream records an event; the comm stream
 *     waits for it and all-reduces that layer's bucket (HcclAllReduce, comm_grad) while the
 *     compute stream goes on with the next layer's backward. The optimizer updates each bucket
 *     after waiting for that bucket's all-reduce only (an event recorded on the comm stream), so
 *     the buckets summed first are updated while the last one is still in flight.
 *
 * Exactness: the loss is reduced with "sum" and its gradient scaled by 1/global_batch, so each
 * rank's gradient already carries the global normalization and a plain SUM all-reduce yields the
 * gradient of the global mean loss (no division by the world size, which would round
 * differently from the single-rank run). With SyncBN every rank normalizes with the statistics
 * of the whole global batch, so N ranks compute the same function as one rank on the whole
 * batch; they differ only in the order fp32 partial sums are added. `--check` measures that.
 *
 * Usage (see run_demo.sh):
 *   cannonrun -n 4 train_syncbn [--steps S] [--batch B] [--hidden H] [--layers L] [--lr LR]
 *                               [--momentum M] [--seed S] [--log-every K] [--check FILE]
 *                               [--no-sync-bn] [--grad-at-end] [--dw-on-comm] [--quiet]
 *   --check FILE: on more than one rank, rank 0 writes the final parameters to FILE; on one
 *   rank the program trains on the whole global batch and compares its parameters with FILE
 *   (exit 1 if the max relative difference exceeds --tol, default 1e-5).
 *   --no-sync-bn: BatchNorm uses local statistics and gradients are not all-reduced (each rank
 *   trains its own model): the same compute without communication, the overhead baseline.
 *   --grad-at-end: no overlap; all gradients are all-reduced as one collective after backward
 *   (they share one buffer), to measure what the per-layer overlap buys.
 *   --dw-on-comm: each layer's weight-gradient matmul runs on the comm stream before its bucket's
 *   all-reduce, so the compute stream reaches the next SyncBN all-reduce sooner (same math).
 *
 * This file sets up the communicators and runs the training loop; the rest is in data.c,
 * model.c, step.c and report.c (train_syncbn.h says what each holds).
 */
#include "train_syncbn.h"

#include <unistd.h>

#include "cannon/launch_env.h"

/* The process-wide state declared in train_syncbn.h. */
int g_rank;
void *g_ws[2];
aclrtStream g_comp_stream, g_comm_stream;
void *g_bufs[MAX_OBJS];
int g_nbufs;
aclTensor *g_tens[MAX_OBJS];
int g_ntens;
float *g_params, *g_grads, *g_moms;
int64_t g_nparams;

/* ---- setup --------------------------------------------------------------------------------- */

static int produce_root(void *buf, size_t size, void *ctx, char *err, size_t errlen)
{
    (void)ctx;
    (void)size;
    HcclResult r = HcclGetRootInfo((HcclRootInfo *)buf);
    if (r != HCCL_SUCCESS) {
        snprintf(err, errlen, "HcclGetRootInfo: %s (%d)", HcclGetErrorString(r), (int)r);
        return -1;
    }
    return 0;
}

/* Two communicators: SyncBN's collectives run on the compute stream and the gradient buckets on
 * the comm stream, concurrently. Collectives on one communicator must be issued in the same
 * order on every rank, and two streams give no such order, so each stream gets its own
 * communicator (as DDP does with its process groups). The first one is bootstrapped through the
 * launcher's root-info file; the second one's root info is then simply broadcast over the first. */
static void make_comms(model *m, const cannon_launch_env *env)
{
    HcclRootInfo ri;
    char created[4200], err[1024];
    const char *cto = getenv("HCCL_CONNECT_TIMEOUT");
    double wait_s = (cto ? atof(cto) : 120.0) + 20.0;
    if (cannon_launch_share_root_info(env, produce_root, NULL, &ri, sizeof ri, wait_s, created,
                                      sizeof created, err, sizeof err) != 0)
        DIE("root info: %s", err);
    HCCL_CHECK(HcclCommInitRootInfo((uint32_t)env->size, &ri, (uint32_t)env->rank, &m->comm_bn));
    if (created[0] != '\0')
        unlink(created); /* every rank has joined, so every rank has read it */

    if (env->rank == 0)
        HCCL_CHECK(HcclGetRootInfo(&ri));
    void *d;
    ACL_CHECK(aclrtMalloc(&d, sizeof ri, ACL_MEM_MALLOC_HUGE_FIRST));
    upload(d, &ri, sizeof ri);
    HCCL_CHECK(HcclBroadcast(d, sizeof ri, HCCL_DATA_TYPE_UINT8, 0, m->comm_bn, g_comp_stream));
    ACL_CHECK(aclrtSynchronizeStream(g_comp_stream));
    download(&ri, d, sizeof ri);
    ACL_CHECK(aclrtFree(d));
    HCCL_CHECK(HcclCommInitRootInfo((uint32_t)env->size, &ri, (uint32_t)env->rank, &m->comm_grad));
}

int main(int argc, char **argv)
{
    cfg c;
    parse_args(argc, argv, &c);
    cannon_launch_env env;
    char err[1024];
    if (cannon_launch_env_read(&env, err, sizeof err) != 0) {
        fprintf(stderr, "train_syncbn: %s\n", err);
        return 1;
    }
    g_rank = env.rank;
    const int nranks = env.size, rank = env.rank;
    /* the group BN statistics and gradients are shared over: all ranks, or just this one */
    const int world = c.sync_bn ? nranks : 1;
    if (c.batch % nranks != 0)
        DIE("--batch %d is not divisible by the %d ranks", c.batch, nranks);
    if (c.check && !c.sync_bn)
        DIE("--check compares SyncBN training; it cannot be combined with --no-sync-bn");
    const int verbose = rank == 0 && !c.quiet;

    ACL_CHECK(aclInit(NULL));
    ACL_CHECK(aclrtSetDevice(env.device_id));
    ACL_CHECK(aclrtCreateStream(&g_comp_stream));
    ACL_CHECK(aclrtCreateStream(&g_comm_stream));
    ACL_CHECK(aclrtMalloc(&g_ws[0], WS_CAP, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_CHECK(aclrtMalloc(&g_ws[1], WS_CAP, ACL_MEM_MALLOC_HUGE_FIRST));

    static model m;
    build_model(&m, &c, world, nranks, rank);
    /* --no-sync-bn on several ranks needs no communicator for training, but gets one anyway for
     * the barrier below: without it the ranks of a short run would hardly overlap in time, and
     * the baseline would be measured without the CPU contention the SyncBN run has. */
    if (nranks > 1)
        make_comms(&m, &env);

    dataset train = make_data(&c, c.train_size, 1), test = make_data(&c, c.test_size, 2);
    if (rank == 0)
        printf("train_syncbn: %d rank%s, global batch %d (%lld per rank), %d x [Linear(%d) -> "
               "%s -> ReLU] -> Linear(%d), %d steps, lr %g, momentum %g, seed %llu\n",
               nranks, nranks > 1 ? "s" : "", c.batch, (long long)(c.batch / nranks), c.layers,
               c.hidden, c.sync_bn ? (nranks > 1 ? "SyncBN" : "BN") : "local BN", c.classes,
               c.steps, c.lr, c.momentum, (unsigned long long)c.seed);

    const int64_t b = c.batch / nranks, D = c.in_dim;
    float *hx = malloc(sizeof(float) * (size_t)(b * D));
    int32_t *hy = malloc(sizeof(int32_t) * (size_t)b);
    if (!hx || !hy)
        DIE("out of host memory");
    timing t = {0};
    if (nranks > 1) { /* start the timed loop together */
        HCCL_CHECK(HcclBarrier(m.comm_bn, g_comp_stream));
        ACL_CHECK(aclrtSynchronizeStream(g_comp_stream));
    }
    for (int step = 0; step < c.steps; step++) {
        /* this rank's rows of the global batch (the data set wraps around) */
        for (int64_t i = 0; i < b; i++) {
            int64_t row = ((int64_t)step * c.batch + rank * b + i) % train.n;
            memcpy(hx + i * D, train.x + row * D, sizeof(float) * (size_t)D);
            hy[i] = train.y[row];
        }
        upload(m.xin, hx, sizeof(float) * (size_t)(b * D));
        upload(m.tgt, hy, sizeof(int32_t) * (size_t)b);
        int want_loss = step % c.log_every == 0 || step == c.steps - 1;
        double w0 = now_ms();
        forward_backward(&m, want_loss);
        double w1 = now_ms();
        if (step > 0) /* the first step pays for page faults and thread start-up */
            account(&m, &t, w1 - w0);
        if (want_loss && verbose) {
            float l;
            download(&l, m.lossbuf, sizeof l);
            printf("step %4d  loss %.5f%s\n", step, l / (double)(c.sync_bn ? c.batch : b),
                   c.sync_bn ? "" : "  (rank 0's own model)");
        }
    }

    if (rank == 0) {
        double acc = evaluate(&m, &test);
        printf("final: test accuracy %.2f%% (%d samples)\n", 100.0 * acc, test.n);
        if (t.steps > 0) {
            double k = 1.0 / t.steps;
            printf("time per step (rank 0, mean of steps 1..%d): host wall %.3f ms; compute stream "
                   "%.3f ms = compute %.3f + SyncBN collectives %.3f (incl. waiting for slower "
                   "ranks) + waiting for the gradient all-reduce %.3f\n",
                   t.steps, t.wall * k, t.step * k, t.compute * k, t.bn_comm * k, t.exposed * k);
            if (world > 1)
                printf("gradient all-reduce (comm stream): %.3f ms per step, %.3f ms (%.0f%%) "
                       "hidden behind backward, %.3f ms exposed\n",
                       t.grad_comm * k, t.hidden * k,
                       t.grad_comm > 0 ? 100.0 * t.hidden / t.grad_comm : 0.0, t.exposed * k);
            printf("RESULT step_ms=%.4f stream_ms=%.4f compute_ms=%.4f bn_comm_ms=%.4f grad_comm_ms=%.4f "
                   "hidden_ms=%.4f exposed_ms=%.4f accuracy=%.4f\n",
                   t.wall * k, t.step * k, t.compute * k, t.bn_comm * k, t.grad_comm * k,
                   t.hidden * k,
                   t.exposed * k, acc);
        }
    }

    int rc = 0;
    if (c.check) {
        if (nranks > 1) {
            if (rank == 0) {
                save_params(&m, c.check);
                printf("check: wrote the parameters of the %d-rank run to %s\n", nranks, c.check);
            }
        } else {
            double rel = compare_params(&m, c.check);
            if (!(rel <= c.tol)) {
                printf("check: FAILED, above the tolerance %g\n", c.tol);
                rc = 1;
            } else {
                printf("check: OK (tolerance %g)\n", c.tol);
            }
        }
    }

    /* teardown, in reverse order of creation */
    free(hx);
    free(hy);
    free(train.x);
    free(train.y);
    free(test.x);
    free(test.y);
    if (nranks > 1) {
        HCCL_CHECK(HcclCommDestroy(m.comm_grad));
        HCCL_CHECK(HcclCommDestroy(m.comm_bn));
    }
    for (int i = 0; i < g_ntens; i++)
        aclDestroyTensor(g_tens[i]);
    aclDestroyScalar(m.one);
    aclDestroyScalar(m.zero);
    aclDestroyScalar(m.mu);
    aclDestroyScalar(m.neg_lr);
    aclDestroyIntArray(m.dim0);
    aclrtEvent evs[] = {m.t0, m.bwd_end, m.opt_start, m.t_end};
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++)
        ACL_CHECK(aclrtDestroyEvent(evs[i]));
    for (int l = 0; l < c.layers; l++) {
        ACL_CHECK(aclrtDestroyEvent(m.L[l].fw0));
        ACL_CHECK(aclrtDestroyEvent(m.L[l].fw1));
        ACL_CHECK(aclrtDestroyEvent(m.L[l].bw0));
        ACL_CHECK(aclrtDestroyEvent(m.L[l].bw1));
    }
    for (int k = 0; k < m.nb; k++) {
        ACL_CHECK(aclrtDestroyEvent(m.bk[k].ready));
        ACL_CHECK(aclrtDestroyEvent(m.bk[k].start));
        ACL_CHECK(aclrtDestroyEvent(m.bk[k].end));
        ACL_CHECK(aclrtDestroyEvent(m.bk[k].wait0));
        ACL_CHECK(aclrtDestroyEvent(m.bk[k].wait1));
    }
    for (int i = 0; i < g_nbufs; i++)
        ACL_CHECK(aclrtFree(g_bufs[i]));
    ACL_CHECK(aclrtFree(g_ws[0]));
    ACL_CHECK(aclrtFree(g_ws[1]));
    ACL_CHECK(aclrtDestroyStream(g_comm_stream));
    ACL_CHECK(aclrtDestroyStream(g_comp_stream));
    ACL_CHECK(aclrtResetDevice(env.device_id));
    ACL_CHECK(aclFinalize());
    return rc;
}
