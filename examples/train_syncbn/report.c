/* report.c: where the time went (event timing on both streams), evaluation on the test set, and
 * --check: saving the parameters of an N-rank run and comparing a 1-rank run with them. */
#include "train_syncbn.h"

#include <errno.h>
#include <math.h>
#include <time.h>

#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_batch_norm.h"
#include "aclnnop/aclnn_mm.h"
#include "aclnnop/aclnn_relu.h"

/* ---- where the time went ------------------------------------------------------------------ */

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
void account(const model *m, timing *t, double wall_ms)
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

double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* ---- evaluation: inference BN with the running statistics, rank 0, whole test set --------- */

double evaluate(model *m, const dataset *ds)
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

void save_params(const model *m, const char *path)
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
double compare_params(const model *m, const char *path)
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
