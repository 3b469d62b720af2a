/* model.c: device memory and tensor descriptors (every allocation is remembered for teardown),
 * and building the model: parameter buckets, the layers' activation and SyncBN buffers, the
 * head, and the initial parameter values. */
#include "train_syncbn.h"

#include <math.h>

/* ---- device buffers and tensor descriptors ------------------------------------------------ */

float *dev_alloc(size_t n_floats)
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

aclTensor *vec(void *base, int64_t off, int64_t n)
{
    return view(base, off, 1, &n, NULL, ACL_FLOAT);
}

aclTensor *mat(void *base, int64_t off, int64_t rows, int64_t cols)
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

void upload(void *dev, const void *host, size_t bytes)
{
    ACL_CHECK(aclrtMemcpy(dev, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
}

void download(void *host, const void *dev, size_t bytes)
{
    ACL_CHECK(aclrtMemcpy(host, bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
}

/* ---- the model ------------------------------------------------------------------------------ */

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
void build_model(model *m, const cfg *c, int world, int nranks, int rank)
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
