/* data.c: the command line (cfg), the PRNG every rank seeds identically, and the synthetic data
 * set (Gaussian blobs) drawn from it. */
#include "train_syncbn.h"

#include <math.h>

/* ---- configuration ------------------------------------------------------------------------ */

static void usage(void)
{
    fprintf(stderr,
            "usage: train_syncbn [--steps S] [--batch B] [--hidden H] [--layers L] [--lr LR]\n"
            "                    [--momentum M] [--seed S] [--log-every K] [--check FILE]\n"
            "                    [--tol T] [--no-sync-bn] [--grad-at-end] [--dw-on-comm] [--quiet]\n"
            "Run under a launcher for several ranks: cannonrun -n 4 train_syncbn ...\n");
    exit(2);
}

void parse_args(int argc, char **argv, cfg *c)
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

double rng_uniform(uint64_t *s) /* in (0, 1) */
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

dataset make_data(const cfg *c, int n, uint64_t stream)
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
