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
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_batch_norm.h"
#include "aclnnop/aclnn_batch_norm_backward_reduce.h"
#include "aclnnop/aclnn_batch_norm_elemt.h"
#include "aclnnop/aclnn_batch_norm_elemt_backward.h"
#include "aclnnop/aclnn_batch_norm_gather_stats_with_counts.h"
#include "aclnnop/aclnn_batch_norm_stats.h"
#include "aclnnop/aclnn_log_softmax.h"
#include "aclnnop/aclnn_logsoftmax_backward.h"
#include "aclnnop/aclnn_mm.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_nll_loss.h"
#include "aclnnop/aclnn_nll_loss_backward.h"
#include "aclnnop/aclnn_reduce_sum.h"
#include "aclnnop/aclnn_relu.h"
#include "aclnnop/aclnn_threshold_backward.h"
#include "cannon/launch_env.h"
#include "hccl/hccl.h"

/* ---- error handling: every failure names the call and stops the rank ---------------------- */

static int g_rank;

#define DIE(...)                                                                                   \
    do {                                                                                           \
        fprintf(stderr, "[rank %d] FAILED: ", g_rank);                                             \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        exit(1);                                                                                   \
    } while (0)

#define ACL_CHECK(call)                                                                            \
    do {                                                                                           \
        aclError rc_ = (call);                                                                     \
        if (rc_ != ACL_SUCCESS) {                                                                  \
            const char *m_ = aclGetRecentErrMsg();                                                 \
            DIE("%s -> %d: %s", #call, (int)rc_, m_ ? m_ : "");                                    \
        }                                                                                          \
    } while (0)

#define HCCL_CHECK(call)                                                                           \
    do {                                                                                           \
        HcclResult r_ = (call);                                                                    \
        if (r_ != HCCL_SUCCESS)                                                                    \
            DIE("%s -> %s (%d)", #call, HcclGetErrorString(r_), (int)r_);                          \
    } while (0)

/* Every aclnn operator is two calls: phase 1 checks the arguments and records a plan (and says
 * how much scratch memory it needs), phase 2 enqueues the plan on a stream. Shapes are fixed for
 * the whole run, so one workspace per stream, sized generously up front, serves every operator:
 * operators on one stream run one after another, so they can share it. */
#define WS_CAP ((uint64_t)16 << 20)
static void *g_ws[2];

#define OP(st, name, ...)                                                                          \
    do {                                                                                           \
        uint64_t ws_ = 0;                                                                          \
        aclOpExecutor *ex_ = NULL;                                                                 \
        aclnnStatus s_ = name##GetWorkspaceSize(__VA_ARGS__, &ws_, &ex_);                          \
        if (s_ != ACLNN_SUCCESS) {                                                                 \
            const char *m_ = aclGetRecentErrMsg();                                                 \
            DIE("%sGetWorkspaceSize -> %d: %s", #name, (int)s_, m_ ? m_ : "");                     \
        }                                                                                          \
        if (ws_ > WS_CAP)                                                                          \
            DIE("%s wants %llu bytes of workspace", #name, (unsigned long long)ws_);               \
        s_ = name(ws_ ? g_ws[(st) == g_comm_stream] : NULL, ws_, ex_, (st));                       \
        if (s_ != ACLNN_SUCCESS)                                                                   \
            DIE("%s -> %d", #name, (int)s_);                                                       \
    } while (0)

/* ---- configuration ------------------------------------------------------------------------ */

typedef struct cfg {
    int steps, batch, hidden, layers, in_dim, classes, log_every, quiet;
    int train_size, test_size;
    double lr, momentum, tol;
    uint64_t seed;
    const char *check;
    int sync_bn;
    int grad_end; /* --grad-at-end: one all-reduce of all gradients after backward (no overlap) */
    int dw_comm;  /* --dw-on-comm: the weight-gradient matmuls run on the comm stream */
} cfg;

static void usage(void)
{
    fprintf(stderr,
            "usage: train_syncbn [--steps S] [--batch B] [--hidden H] [--layers L] [--lr LR]\n"
            "                    [--momentum M] [--seed S] [--log-every K] [--check FILE]\n"
            "                    [--tol T] [--no-sync-bn] [--grad-at-end] [--dw-on-comm] [--quiet]\n"
            "Run under a launcher for several ranks: cannonrun -n 4 train_syncbn ...\n");
    exit(2);
}

static void parse_args(int argc, char **argv, cfg *c)
{
    /* Defaults: a model small enough to train 200 timed steps on 4 ranks sharing 2 cores in a
     * few seconds, and large enough that compute, not launch overhead, sets the step time, so
     * the communication overhead it reports means something. */
    *c = (cfg){.steps = 30, .batch = 1024, .hidden = 256, .layers = 3, .in_dim = 16, .classes = 4,
               .log_every = 5, .train_size = 4096, .test_size = 1024, .lr = 0.05,
               .momentum = 0.9, .tol = 1e-5, .seed = 1234, .sync_bn = 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define ARG(flag) (strcmp(a, flag) == 0 && v != NULL && ++i)
        if (ARG("--steps"))
            c->steps = atoi(v);
        else if (ARG("--batch"))
            c->batch = atoi(v);
        else if (ARG("--hidden"))
            c->hidden = atoi(v);
        else if (ARG("--layers"))
            c->layers = atoi(v);
        else if (ARG("--lr"))
            c->lr = atof(v);
        else if (ARG("--momentum"))
            c->momentum = atof(v);
        else if (ARG("--seed"))
            c->seed = strtoull(v, NULL, 0);
        else if (ARG("--log-every"))
            c->log_every = atoi(v);
        else if (ARG("--check"))
            c->check = v;
        else if (ARG("--tol"))
            c->tol = atof(v);
        else if (strcmp(a, "--no-sync-bn") == 0)
            c->sync_bn = 0;
        else if (strcmp(a, "--quiet") == 0)
            c->quiet = 1;
        else if (strcmp(a, "--grad-at-end") == 0)
            c->grad_end = 1;
        else if (strcmp(a, "--dw-on-comm") == 0)
            c->dw_comm = 1;
        else
            usage();
#undef ARG
    }
    if (c->steps < 1 || c->batch < 1 || c->hidden < 1 || c->layers < 1 || c->layers > 16 ||
        c->log_every < 1 || !(c->lr > 0))
        usage();
}

/* ---- the synthetic data set ---------------------------------------------------------------- */

/* splitmix64: tiny, fast, and the same sequence on every machine, which is all we need. */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double rng_uniform(uint64_t *s) /* in (0, 1) */
{
    return ((double)(rng_next(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double rng_normal(uint64_t *s) /* Box-Muller; one value per call keeps it simple */
{
    double u = rng_uniform(s), v = rng_uniform(s);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* Each class is a mixture of two Gaussian blobs, so a linear model is not enough and the hidden
 * layers have something to learn. Blob centres come from the seed; samples from seed + stream. */
#define BLOBS 2
typedef struct dataset {
    int n, d;
    float *x;   /* n x d */
    int32_t *y; /* n */
} dataset;

static dataset make_data(const cfg *c, int n, uint64_t stream)
{
    uint64_t s = c->seed;
    int K = c->classes, D = c->in_dim;
    double *centre = malloc(sizeof(double) * (size_t)(K * BLOBS * D));
    dataset ds = {n, D, malloc(sizeof(float) * (size_t)n * (size_t)D),
                  malloc(sizeof(int32_t) * (size_t)n)};
    if (!centre || !ds.x || !ds.y)
        DIE("out of host memory");
    for (int i = 0; i < K * BLOBS * D; i++)
        centre[i] = 1.2 * rng_normal(&s);
    s = c->seed ^ (0xD1B54A32D192ED03ull * (stream + 1));
    for (int i = 0; i < n; i++) {
        int k = (int)(rng_next(&s) % (uint64_t)K), b = (int)(rng_next(&s) % BLOBS);
        ds.y[i] = k;
        for (int j = 0; j < D; j++)
            ds.x[(size_t)i * D + j] = (float)(centre[(k * BLOBS + b) * D + j] + rng_normal(&s));
    }
    free(centre);
    return ds;
}

/* ---- device buffers and tensor descriptors ------------------------------------------------ */

static aclrtStream g_comp_stream, g_comm_stream;

/* Everything allocated is remembered so teardown is one loop each. */
#define MAX_OBJS 1024
static void *g_bufs[MAX_OBJS];
static int g_nbufs;
static aclTensor *g_tens[MAX_OBJS];
static int g_ntens;

static float *dev_alloc(size_t n_floats)
{
    void *p;
    size_t bytes = n_floats * sizeof(float);
    ACL_CHECK(aclrtMalloc(&p, bytes ? bytes : 4, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_CHECK(aclrtMemset(p, bytes ? bytes : 4, 0, bytes ? bytes : 4));
    if (g_nbufs == MAX_OBJS)
        DIE("too many buffers");
    g_bufs[g_nbufs++] = p;
    return p;
}

/* A view of @p nd dims into @p base, starting @p off elements in; strides NULL = row-major. */
static aclTensor *view(void *base, int64_t off, int nd, const int64_t *dims, const int64_t *strides,
                       aclDataType dt)
{
    aclTensor *t = aclCreateTensor(dims, (uint64_t)nd, dt, strides, off, ACL_FORMAT_ND, NULL, 0, base);
    if (t == NULL)
        DIE("aclCreateTensor (%d dims)", nd);
    if (g_ntens == MAX_OBJS)
        DIE("too many tensors");
    g_tens[g_ntens++] = t;
    return t;
}

static aclTensor *vec(void *base, int64_t off, int64_t n)
{
    return view(base, off, 1, &n, NULL, ACL_FLOAT);
}

static aclTensor *mat(void *base, int64_t off, int64_t rows, int64_t cols)
{
    int64_t d[2] = {rows, cols};
    return view(base, off, 2, d, NULL, ACL_FLOAT);
}

/* The transpose of a row-major rows x cols matrix, as a strided view: no copy, aclnnMm reads
 * it as a transposed operand. */
static aclTensor *mat_t(void *base, int64_t off, int64_t rows, int64_t cols)
{
    int64_t d[2] = {cols, rows}, st[2] = {1, cols};
    return view(base, off, 2, d, st, ACL_FLOAT);
}

static aclTensor *scalar_tensor(void *base)
{
    return view(base, 0, 0, NULL, NULL, ACL_FLOAT);
}

static void upload(void *dev, const void *host, size_t bytes)
{
    ACL_CHECK(aclrtMemcpy(dev, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
}

static void download(void *host, const void *dev, size_t bytes)
{
    ACL_CHECK(aclrtMemcpy(host, bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
}

/* ---- the model ------------------------------------------------------------------------------ */

/* Gradients are all-reduced per bucket, and a bucket is one layer's parameters laid out
 * contiguously (weight, then gamma and beta, or weight then bias for the head), so one
 * HcclAllReduce covers the layer. Parameters, gradients and momentum buffers share the layout,
 * which also lets the optimizer update a whole bucket with three operators. */
typedef struct bucket {
    int64_t n;
    float *p, *g, *v;
    aclTensor *pt, *gt, *vt;
    aclrtEvent ready, start, end; /* grads ready (compute), all-reduce start / end (comm) */
    aclrtEvent wait0, wait1;      /* around the optimizer's wait for this bucket (compute) */
} bucket;

typedef struct bn_layer {
    int64_t in, C;
    bucket *bk;
    aclTensor *W, *WT, *gamma, *beta, *dW, *dgamma, *dbeta;
    /* activations: input x (previous output or data), z = x W, y = BN(z), a = relu(y) */
    aclTensor *x, *xT, *z, *y, *a, *aT, *da, *dy, *dz, *dx;
    /* SyncBN: local [mean | invstd | count], gathered [world][2C+1], global mean/invstd,
     * running statistics, and the backward sums [sumDy | sumDyXmu] */
    float *stats, *gathered, *sums;
    aclTensor *mean_loc, *invstd_loc, *g_mean, *g_invstd, *g_count, *mean_all, *invstd_all;
    aclTensor *run_mean, *run_var, *sum_dy, *sum_dyxmu;
    float *run_mean_p, *run_var_p;
    aclrtEvent fw0, fw1, bw0, bw1; /* around the two collectives, compute stream */
} bn_layer;

typedef struct model {
    const cfg *c;
    int world, rank;  /* the BN / gradient group: 1 with --no-sync-bn */
    int64_t b, bglob; /* local and global batch */
    bn_layer L[16];
    bucket bk[17]; /* bk[0] head, bk[1 + j] layer L-1-j (the order backward produces them) */
    int nb;
    /* data and head */
    float *xin, *tgt, *loss, *totw, *gscale, *ones, *lossbuf;
    aclTensor *x0, *target, *Wout, *WoutT, *bout, *dWout, *dbout, *logits, *logp, *dlogp, *dlogits;
    aclTensor *loss_t, *totw_t, *gscale_t, *ones_t;
    aclIntArray *dim0;
    aclScalar *one, *zero, *mu, *neg_lr;
    HcclComm comm_bn, comm_grad;
    aclrtEvent t0, bwd_end, opt_start, t_end;
} model;

/* Parameters, gradients and momentum of all buckets each live in one contiguous buffer (bucket k
 * at the same offset in all three), so that all gradients can also be all-reduced as one
 * collective (--grad-at-end). Offsets are rounded to 64 bytes; the gaps stay zero. */
static float *g_params, *g_grads, *g_moms;
static int64_t g_nparams;

static int64_t bucket_stride(int64_t n)
{
    return (n + 15) & ~(int64_t)15;
}

static void init_bucket(bucket *k, int64_t n, int64_t off)
{
    k->n = n;
    k->p = g_params + off;
    k->g = g_grads + off;
    k->v = g_moms + off;
    k->pt = vec(k->p, 0, n);
    k->gt = vec(k->g, 0, n);
    k->vt = vec(k->v, 0, n);
    ACL_CHECK(aclrtCreateEvent(&k->ready));
    ACL_CHECK(aclrtCreateEvent(&k->start));
    ACL_CHECK(aclrtCreateEvent(&k->end));
    ACL_CHECK(aclrtCreateEvent(&k->wait0));
    ACL_CHECK(aclrtCreateEvent(&k->wait1));
}

/* Uniform(-1/sqrt(fan_in), 1/sqrt(fan_in)), like torch.nn.Linear's default init. */
static void init_uniform(float *h, int64_t n, int64_t fan_in, uint64_t *s)
{
    double r = 1.0 / sqrt((double)fan_in);
    for (int64_t i = 0; i < n; i++)
        h[i] = (float)((2.0 * rng_uniform(s) - 1.0) * r);
}

/* @p world: ranks that share BN statistics and gradients (1 with --no-sync-bn); @p nranks: ranks
 * the global batch is split over (always all of them). */
static void build_model(model *m, const cfg *c, int world, int nranks, int rank)
{
    memset(m, 0, sizeof *m);
    m->c = c;
    m->world = world;
    m->rank = rank;
    m->bglob = c->batch;
    m->b = c->batch / nranks;
    const int64_t b = m->b, H = c->hidden, K = c->classes, D = c->in_dim;
    const int nl = c->layers;
    uint64_t s = c->seed * 7919u + 17u; /* parameters: same seed on every rank */

    /* buckets, in the order the backward pass completes them */
    m->nb = nl + 1;
    int64_t sizes[17];
    sizes[0] = H * K + K;
    for (int l = 0; l < nl; l++)
        sizes[nl - l] = (l == 0 ? D : H) * H + 2 * H;
    g_nparams = 0;
    for (int k = 0; k < m->nb; k++)
        g_nparams += bucket_stride(sizes[k]);
    g_params = dev_alloc((size_t)g_nparams);
    g_grads = dev_alloc((size_t)g_nparams);
    g_moms = dev_alloc((size_t)g_nparams);
    for (int k = 0, off = 0; k < m->nb; off += (int)bucket_stride(sizes[k]), k++)
        init_bucket(&m->bk[k], sizes[k], off);

    m->xin = dev_alloc((size_t)(b * D));
    m->x0 = mat(m->xin, 0, b, D);
    float *prev = m->xin;
    float *prev_grad = NULL; /* gradient buffer of prev (none for the data) */
    for (int l = 0; l < nl; l++) {
        bn_layer *L = &m->L[l];
        int64_t in = l == 0 ? D : H, C = H;
        L->in = in;
        L->C = C;
        L->bk = &m->bk[nl - l];
        float *P = L->bk->p, *G = L->bk->g;
        /* parameters: W [in, C], gamma [C], beta [C]; initial values generated on the host */
        float *h = malloc(sizeof(float) * (size_t)L->bk->n);
        if (!h)
            DIE("out of host memory");
        init_uniform(h, in * C, in, &s);
        for (int64_t i = 0; i < C; i++) {
            h[in * C + i] = 1.0f;     /* gamma */
            h[in * C + C + i] = 0.0f; /* beta */
        }
        upload(P, h, sizeof(float) * (size_t)L->bk->n);
        free(h);
        L->W = mat(P, 0, in, C);
        L->WT = mat_t(P, 0, in, C);
        L->gamma = vec(P, in * C, C);
        L->beta = vec(P, in * C + C, C);
        L->dW = mat(G, 0, in, C);
        L->dgamma = vec(G, in * C, C);
        L->dbeta = vec(G, in * C + C, C);

        L->x = mat(prev, 0, b, in);
        L->xT = mat_t(prev, 0, b, in);
        L->dx = prev_grad ? mat(prev_grad, 0, b, in) : NULL;
        float *z = dev_alloc((size_t)(b * C)), *y = dev_alloc((size_t)(b * C));
        float *a = dev_alloc((size_t)(b * C)), *da = dev_alloc((size_t)(b * C));
        float *dy = dev_alloc((size_t)(b * C)), *dz = dev_alloc((size_t)(b * C));
        L->z = mat(z, 0, b, C);
        L->y = mat(y, 0, b, C);
        L->a = mat(a, 0, b, C);
        L->aT = mat_t(a, 0, b, C);
        L->da = mat(da, 0, b, C);
        L->dy = mat(dy, 0, b, C);
        L->dz = mat(dz, 0, b, C);

        /* SyncBN buffers. The count slot is written once: every rank's slice has b samples. */
        const int64_t row = 2 * C + 1;
        L->stats = dev_alloc((size_t)row);
        float cnt = (float)b;
        upload(L->stats + 2 * C, &cnt, sizeof cnt);
        L->gathered = dev_alloc((size_t)(world * row));
        L->mean_loc = vec(L->stats, 0, C);
        L->invstd_loc = vec(L->stats, C, C);
        {
            int64_t d2[2] = {world, C}, st2[2] = {row, 1}, d1 = world, st1 = row;
            L->g_mean = view(L->gathered, 0, 2, d2, st2, ACL_FLOAT);
            L->g_invstd = view(L->gathered, C, 2, d2, st2, ACL_FLOAT);
            L->g_count = view(L->gathered, 2 * C, 1, &d1, &st1, ACL_FLOAT);
        }
        float *all = dev_alloc((size_t)(2 * C));
        L->mean_all = vec(all, 0, C);
        L->invstd_all = vec(all, C, C);
        L->run_mean_p = dev_alloc((size_t)C);
        L->run_var_p = dev_alloc((size_t)C);
        float *onesC = malloc(sizeof(float) * (size_t)C);
        for (int64_t i = 0; i < C; i++)
            onesC[i] = 1.0f;
        upload(L->run_var_p, onesC, sizeof(float) * (size_t)C); /* torch's initial running var */
        free(onesC);
        L->run_mean = vec(L->run_mean_p, 0, C);
        L->run_var = vec(L->run_var_p, 0, C);
        L->sums = dev_alloc((size_t)(2 * C));
        L->sum_dy = vec(L->sums, 0, C);
        L->sum_dyxmu = vec(L->sums, C, C);
        ACL_CHECK(aclrtCreateEvent(&L->fw0));
        ACL_CHECK(aclrtCreateEvent(&L->fw1));
        ACL_CHECK(aclrtCreateEvent(&L->bw0));
        ACL_CHECK(aclrtCreateEvent(&L->bw1));
        prev = a;
        prev_grad = da;
    }

    /* head: logits = a W_out + b_out */
    bucket *hb = &m->bk[0];
    float *h = malloc(sizeof(float) * (size_t)hb->n);
    if (!h)
        DIE("out of host memory");
    init_uniform(h, H * K + K, H, &s);
    upload(hb->p, h, sizeof(float) * (size_t)hb->n);
    free(h);
    m->Wout = mat(hb->p, 0, H, K);
    m->WoutT = mat_t(hb->p, 0, H, K);
    m->bout = vec(hb->p, H * K, K);
    m->dWout = mat(hb->g, 0, H, K);
    m->dbout = vec(hb->g, H * K, K);
    m->logits = mat(dev_alloc((size_t)(b * K)), 0, b, K);
    m->logp = mat(dev_alloc((size_t)(b * K)), 0, b, K);
    m->dlogp = mat(dev_alloc((size_t)(b * K)), 0, b, K);
    m->dlogits = mat(dev_alloc((size_t)(b * K)), 0, b, K);
    m->tgt = dev_alloc((size_t)b); /* int32 targets; same size as floats */
    {
        int64_t d = b;
        m->target = view(m->tgt, 0, 1, &d, NULL, ACL_INT32);
    }
    m->loss = dev_alloc(1);
    m->totw = dev_alloc(1);
    m->gscale = dev_alloc(1);
    m->lossbuf = dev_alloc(1);
    m->loss_t = scalar_tensor(m->loss);
    m->totw_t = scalar_tensor(m->totw);
    m->gscale_t = scalar_tensor(m->gscale);
    /* d(loss)/d(sum of per-sample losses): the global mean over the global batch (see top) */
    float gs = (float)(1.0 / (double)(c->sync_bn ? m->bglob : m->b));
    upload(m->gscale, &gs, sizeof gs);
    m->ones = dev_alloc((size_t)K);
    float *o = malloc(sizeof(float) * (size_t)K);
    for (int64_t i = 0; i < K; i++)
        o[i] = 1.0f;
    upload(m->ones, o, sizeof(float) * (size_t)K);
    free(o);
    m->ones_t = vec(m->ones, 0, K);

    int64_t d0 = 0;
    m->dim0 = aclCreateIntArray(&d0, 1);
    float one = 1.0f, zero = 0.0f, mu = (float)c->momentum, nlr = (float)-c->lr;
    m->one = aclCreateScalar(&one, ACL_FLOAT);
    m->zero = aclCreateScalar(&zero, ACL_FLOAT);
    m->mu = aclCreateScalar(&mu, ACL_FLOAT);
    m->neg_lr = aclCreateScalar(&nlr, ACL_FLOAT);
    if (!m->dim0 || !m->one || !m->zero || !m->mu || !m->neg_lr)
        DIE("aclCreateScalar / aclCreateIntArray");
    ACL_CHECK(aclrtCreateEvent(&m->t0));
    ACL_CHECK(aclrtCreateEvent(&m->bwd_end));
    ACL_CHECK(aclrtCreateEvent(&m->opt_start));
    ACL_CHECK(aclrtCreateEvent(&m->t_end));
}

#define BN_EPS 1e-5
#define BN_MOMENTUM 0.1

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

static void forward_backward(model *m, int want_loss)
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

/* ---- where the time went ------------------------------------------------------------------ */

typedef struct timing {
    int steps;
    double wall, step, compute, bn_comm, grad_comm, hidden, exposed;
} timing;

static double elapsed(aclrtEvent a, aclrtEvent b)
{
    float ms = 0;
    ACL_CHECK(aclrtEventElapsedTime(&ms, a, b));
    return ms;
}

/* All event times are taken relative to t0 (recorded first on the compute stream), which puts
 * the two streams on one time line. Compute = the compute stream's step time minus the
 * SyncBN collectives it ran and minus the time it waited for the comm stream; a bucket's
 * all-reduce is "hidden" for the part that ran before the backward pass ended (the compute
 * stream was still busy then), and "exposed" is the optimizer's wait. */
static void account(const model *m, timing *t, double wall_ms)
{
    double step = elapsed(m->t0, m->t_end), bn = 0, grad = 0, hidden = 0;
    double bwd_end = elapsed(m->t0, m->bwd_end), wait = 0;
    if (m->world > 1)
        for (int k = 0; k < m->nb; k++)
            wait += elapsed(m->bk[k].wait0, m->bk[k].wait1);
    for (int l = 0; l < m->c->layers; l++)
        bn += elapsed(m->L[l].fw0, m->L[l].fw1) + elapsed(m->L[l].bw0, m->L[l].bw1);
    if (m->world > 1)
        for (int k = 0; k < (m->c->grad_end ? 1 : m->nb); k++) {
            double a = elapsed(m->t0, m->bk[k].start), b = elapsed(m->t0, m->bk[k].end);
            grad += b - a;
            double h = (b < bwd_end ? b : bwd_end) - a;
            hidden += h > 0 ? h : 0;
        }
    t->steps++;
    t->wall += wall_ms;
    t->step += step;
    t->bn_comm += bn;
    t->grad_comm += grad;
    t->hidden += hidden;
    t->exposed += wait;
    t->compute += step - bn - wait;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* ---- evaluation: inference BN with the running statistics, rank 0, whole test set --------- */

static double evaluate(model *m, const dataset *ds)
{
    const cfg *c = m->c;
    aclrtStream s = g_comp_stream;
    const int64_t n = ds->n, H = c->hidden, K = c->classes;
    float *x = dev_alloc((size_t)(n * ds->d));
    upload(x, ds->x, sizeof(float) * (size_t)(n * ds->d));
    aclTensor *in = mat(x, 0, n, ds->d);
    float *z = dev_alloc((size_t)(n * H)), *y = dev_alloc((size_t)(n * H));
    float *a[2] = {dev_alloc((size_t)(n * H)), dev_alloc((size_t)(n * H))};
    float *sm = dev_alloc((size_t)H), *si = dev_alloc((size_t)H);
    aclTensor *zt = mat(z, 0, n, H), *yt = mat(y, 0, n, H);
    aclTensor *smt = vec(sm, 0, H), *sit = vec(si, 0, H);
    for (int l = 0; l < c->layers; l++) {
        bn_layer *L = &m->L[l];
        aclTensor *out = mat(a[l & 1], 0, n, H);
        OP(s, aclnnMm, in, L->W, zt, 0);
        OP(s, aclnnBatchNorm, zt, L->gamma, L->beta, L->run_mean, L->run_var, false, BN_MOMENTUM,
           BN_EPS, yt, smt, sit);
        OP(s, aclnnRelu, yt, out);
        in = out;
    }
    float *lg = dev_alloc((size_t)(n * K));
    aclTensor *lgt = mat(lg, 0, n, K);
    OP(s, aclnnMm, in, m->Wout, lgt, 0);
    OP(s, aclnnInplaceAdd, lgt, m->bout, m->one);
    ACL_CHECK(aclrtSynchronizeStream(s));
    float *h = malloc(sizeof(float) * (size_t)(n * K));
    if (!h)
        DIE("out of host memory");
    download(h, lg, sizeof(float) * (size_t)(n * K));
    int64_t right = 0;
    for (int64_t i = 0; i < n; i++) {
        int best = 0;
        for (int k = 1; k < K; k++)
            if (h[i * K + k] > h[i * K + best])
                best = k;
        right += best == ds->y[i];
    }
    free(h);
    return (double)right / (double)n;
}

/* ---- --check: the parameters of an N-rank run against a 1-rank run ------------------------ */

typedef struct named {
    char name[48]; /* "layer%d.bn.running_mean" with any int fits */
    const float *dev;
    int64_t n;
} named;

/* Every trained value, in a fixed order: weights, BN affine parameters, running statistics. */
static int list_params(const model *m, named *out)
{
    int k = 0;
    for (int l = 0; l < m->c->layers; l++) {
        const bn_layer *L = &m->L[l];
        const float *p = L->bk->p;
        int64_t in = L->in, C = L->C;
        out[k++] = (named){"", p, in * C};
        snprintf(out[k - 1].name, sizeof out[k - 1].name, "layer%d.weight", l);
        out[k++] = (named){"", p + in * C, C};
        snprintf(out[k - 1].name, sizeof out[k - 1].name, "layer%d.bn.gamma", l);
        out[k++] = (named){"", p + in * C + C, C};
        snprintf(out[k - 1].name, sizeof out[k - 1].name, "layer%d.bn.beta", l);
        out[k++] = (named){"", L->run_mean_p, C};
        snprintf(out[k - 1].name, sizeof out[k - 1].name, "layer%d.bn.running_mean", l);
        out[k++] = (named){"", L->run_var_p, C};
        snprintf(out[k - 1].name, sizeof out[k - 1].name, "layer%d.bn.running_var", l);
    }
    int64_t H = m->c->hidden, K = m->c->classes;
    out[k++] = (named){"head.weight", m->bk[0].p, H * K};
    out[k++] = (named){"head.bias", m->bk[0].p + H * K, K};
    return k;
}

#define CHECK_MAGIC 0x4E425343u /* "CSBN" */

static void save_params(const model *m, const char *path)
{
    named p[16 * 5 + 2];
    int np = list_params(m, p);
    FILE *f = fopen(path, "wb");
    if (!f)
        DIE("cannot write %s: %s", path, strerror(errno));
    uint32_t hdr[4] = {CHECK_MAGIC, (uint32_t)np, (uint32_t)m->c->hidden, (uint32_t)m->c->layers};
    fwrite(hdr, sizeof hdr, 1, f);
    for (int i = 0; i < np; i++) {
        float *h = malloc(sizeof(float) * (size_t)p[i].n);
        download(h, p[i].dev, sizeof(float) * (size_t)p[i].n);
        fwrite(h, sizeof(float), (size_t)p[i].n, f);
        free(h);
    }
    if (fclose(f) != 0)
        DIE("cannot write %s", path);
}

/* Per tensor: max |a - b| / max |b|. Element-wise relative error is meaningless for values that
 * are close to 0 (a weight crossing zero), so differences are measured against the tensor's
 * scale. Returns the largest over all tensors. */
static double compare_params(const model *m, const char *path)
{
    named p[16 * 5 + 2];
    int np = list_params(m, p);
    FILE *f = fopen(path, "rb");
    if (!f)
        DIE("cannot read %s: %s (run the multi-rank job with --check first)", path, strerror(errno));
    uint32_t hdr[4];
    if (fread(hdr, sizeof hdr, 1, f) != 1 || hdr[0] != CHECK_MAGIC || hdr[1] != (uint32_t)np ||
        hdr[2] != (uint32_t)m->c->hidden || hdr[3] != (uint32_t)m->c->layers)
        DIE("%s: not written by a run with the same --hidden / --layers", path);
    double worst = 0;
    int worst_i = 0;
    for (int i = 0; i < np; i++) {
        size_t n = (size_t)p[i].n;
        float *a = malloc(sizeof(float) * n), *b = malloc(sizeof(float) * n);
        if (!a || !b || fread(a, sizeof(float), n, f) != n)
            DIE("%s: truncated", path);
        download(b, p[i].dev, sizeof(float) * n);
        double dmax = 0, bmax = 0;
        for (size_t j = 0; j < n; j++) {
            double d = fabs((double)a[j] - (double)b[j]);
            dmax = d > dmax ? d : dmax;
            bmax = fabs((double)b[j]) > bmax ? fabs((double)b[j]) : bmax;
        }
        double rel = bmax > 0 ? dmax / bmax : dmax;
        if (rel > worst || i == 0) {
            worst = rel;
            worst_i = i;
        }
        if (!m->c->quiet)
            printf("  %-26s %6lld values  max|diff| %.3e  relative %.3e\n", p[i].name,
                   (long long)n, dmax, rel);
        free(a);
        free(b);
    }
    fclose(f);
    printf("check: max relative difference %.3e (%s)\n", worst, p[worst_i].name);
    return worst;
}

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
