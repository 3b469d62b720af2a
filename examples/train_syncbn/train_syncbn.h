/* train_syncbn.h: what the files of train_syncbn share. The error macros (every failure names
 * the call and stops the rank), the two-phase operator macro OP, the configuration, the data
 * set, the model's structures, the process-wide state (defined once, in train_syncbn.c) and the
 * functions one file calls in another. The recipe itself is described at the top of
 * train_syncbn.c.
 *
 * Files: data.c (command line, PRNG, synthetic data set), model.c (device buffers, tensor
 * descriptors, building the model), step.c (one training step: forward, backward with the
 * gradient buckets, the optimizer), report.c (timing, evaluation, --check), train_syncbn.c
 * (communicators, setup, main). Every .c file includes this header first.
 */
#ifndef TRAIN_SYNCBN_H
#define TRAIN_SYNCBN_H

#define _POSIX_C_SOURCE 200809L /* before any system header: clock_gettime, unlink */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "hccl/hccl.h"

/* ---- error handling: every failure names the call and stops the rank ---------------------- */

extern int g_rank; /* this process's rank, for the messages */

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

extern aclrtStream g_comp_stream, g_comm_stream; /* created in main; see train_syncbn.c */

/* Every aclnn operator is two calls: phase 1 checks the arguments and records a plan (and says
 * how much scratch memory it needs), phase 2 enqueues the plan on a stream. Shapes are fixed for
 * the whole run, so one workspace per stream, sized generously up front, serves every operator:
 * operators on one stream run one after another, so they can share it. */
#define WS_CAP ((uint64_t)16 << 20)
extern void *g_ws[2]; /* [0] compute stream, [1] comm stream */

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

/* ---- the synthetic data set ---------------------------------------------------------------- */

typedef struct dataset {
    int n, d;
    float *x;   /* n x d */
    int32_t *y; /* n */
} dataset;

/* ---- device buffers and tensor descriptors ------------------------------------------------ */

/* Everything allocated is remembered so teardown is one loop each. */
#define MAX_OBJS 1024
extern void *g_bufs[MAX_OBJS];
extern int g_nbufs;
extern aclTensor *g_tens[MAX_OBJS];
extern int g_ntens;

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
extern float *g_params, *g_grads, *g_moms;
extern int64_t g_nparams;

#define BN_EPS 1e-5
#define BN_MOMENTUM 0.1

/* ---- where the time went ------------------------------------------------------------------ */

typedef struct timing {
    int steps;
    double wall, step, compute, bn_comm, grad_comm, hidden, exposed;
} timing;

/* ---- functions used across files ---------------------------------------------------------- */

/* data.c */
void parse_args(int argc, char **argv, cfg *c);
double rng_uniform(uint64_t *s);
dataset make_data(const cfg *c, int n, uint64_t stream);

/* model.c */
float *dev_alloc(size_t n_floats);
aclTensor *vec(void *base, int64_t off, int64_t n);
aclTensor *mat(void *base, int64_t off, int64_t rows, int64_t cols);
void upload(void *dev, const void *host, size_t bytes);
void download(void *host, const void *dev, size_t bytes);
void build_model(model *m, const cfg *c, int world, int nranks, int rank);

/* step.c */
void forward_backward(model *m, int want_loss);

/* report.c */
void account(const model *m, timing *t, double wall_ms);
double now_ms(void);
double evaluate(model *m, const dataset *ds);
void save_params(const model *m, const char *path);
double compare_params(const model *m, const char *path);

#endif /* TRAIN_SYNCBN_H */
