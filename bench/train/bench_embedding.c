/*
 * bench_embedding: aclnnEmbeddingDenseBackward (fp32) on Zipf-distributed indices against its
 * memory floor, measured in the same process.
 *
 *   bench_embedding V D N scale pad samples
 *     scale: 0/1 (scaleGradByFreq); pad: 0 = none ((uint64)-1), 1 = the most frequent index
 *
 * Floor = (bytes of the V x D output + bytes of the N x D gradient) / copy bandwidth, where the copy
 * bandwidth is STREAM-copy style (2 x bytes / time of a large memcpy split over as many threads as
 * the device has workers; glibc's memcpy uses non-temporal stores at that size). Prints one line
 * of key=value pairs (medians of @p samples samples, each one call).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#endif
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_embedding_dense_backward.h"
#include "cannon/kernel.h"

#define CHECK(x)                                                                                                       \
    do {                                                                                                               \
        int rc_ = (int)(x);                                                                                            \
        if (rc_ != 0) {                                                                                                \
            fprintf(stderr, "%s failed: %d %s\n", #x, rc_, aclGetRecentErrMsg());                                     \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * 0x1p-53;
}

typedef struct copy_job {
    char *dst;
    const char *src;
    size_t n;
} copy_job;

static void *copy_main(void *arg)
{
    copy_job *j = (copy_job *)arg;
    memcpy(j->dst, j->src, j->n);
    return NULL;
}

/* STREAM-copy bandwidth (bytes read + written per second) with @p threads threads. */
static double copy_bw(char *dst, const char *src, size_t bytes, int threads)
{
    pthread_t th[64];
    copy_job jobs[64];
    const size_t per = bytes / (size_t)threads / 64 * 64;
    const double t0 = now();
    for (int i = 0; i < threads; i++) {
        jobs[i].dst = dst + (size_t)i * per;
        jobs[i].src = src + (size_t)i * per;
        jobs[i].n = per;
        pthread_create(&th[i], NULL, copy_main, &jobs[i]);
    }
    for (int i = 0; i < threads; i++)
        pthread_join(th[i], NULL);
    return 2.0 * (double)(per * (size_t)threads) / (now() - t0);
}

int main(int argc, char **argv)
{
    if (argc < 7) {
        fprintf(stderr, "usage: %s V D N scale pad samples\n", argv[0]);
        return 2;
    }
    const int64_t V = atoll(argv[1]), D = atoll(argv[2]), N = atoll(argv[3]);
    const int scale = atoi(argv[4]), padmode = atoi(argv[5]), samples = atoi(argv[6]);
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream stream;
    CHECK(aclrtCreateStream(&stream));
    const int threads = (int)cannonGetWorkerCount();

    /* Zipf(1.1) indices by inverse CDF, ranks scattered over the table by a fixed permutation. */
    double *cdf = malloc((size_t)V * sizeof *cdf);
    int64_t *perm = malloc((size_t)V * sizeof *perm);
    int64_t *idx = malloc((size_t)N * sizeof *idx);
    float *g = malloc((size_t)(N * D) * sizeof *g);
    double acc = 0;
    for (int64_t k = 0; k < V; k++) {
        acc += 1.0 / pow((double)(k + 1), 1.1);
        cdf[k] = acc;
        perm[k] = k;
    }
    for (int64_t k = V - 1; k > 0; k--) {
        int64_t j = (int64_t)(rnd() * (double)(k + 1));
        int64_t t = perm[k];
        perm[k] = perm[j];
        perm[j] = t;
    }
    for (int64_t i = 0; i < N; i++) {
        double u = rnd() * acc;
        int64_t lo = 0, hi = V - 1;
        while (lo < hi) {
            int64_t mid = (lo + hi) / 2;
            if (cdf[mid] < u)
                lo = mid + 1;
            else
                hi = mid;
        }
        idx[i] = perm[lo];
    }
    for (int64_t i = 0; i < N * D; i++)
        g[i] = (float)(rnd() - 0.5);
    const uint64_t pad = padmode ? (uint64_t)perm[0] : UINT64_MAX;

    void *dg, *di, *dout;
    const size_t gbytes = (size_t)(N * D) * 4, obytes = (size_t)(V * D) * 4;
    CHECK(aclrtMalloc(&dg, gbytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&di, (size_t)N * 8, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&dout, obytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(dg, gbytes, g, gbytes, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemcpy(di, (size_t)N * 8, idx, (size_t)N * 8, ACL_MEMCPY_HOST_TO_DEVICE));
    const int64_t gs[2] = {N, D}, is[1] = {N}, os[2] = {V, D};
    const int64_t gst[2] = {D, 1}, ist[1] = {1}, ost[2] = {D, 1};
    const int64_t gstor = N * D, ostor = V * D;
    aclTensor *tg = aclCreateTensor(gs, 2, ACL_FLOAT, gst, 0, ACL_FORMAT_ND, &gstor, 1, dg);
    aclTensor *ti = aclCreateTensor(is, 1, ACL_INT64, ist, 0, ACL_FORMAT_ND, &N, 1, di);
    aclTensor *to = aclCreateTensor(os, 2, ACL_FLOAT, ost, 0, ACL_FORMAT_ND, &ostor, 1, dout);

    /* One warm-up call also sizes the workspace. */
    uint64_t wsz = 0;
    aclOpExecutor *ex;
    CHECK(aclnnEmbeddingDenseBackwardGetWorkspaceSize(tg, ti, (uint64_t)V, pad, scale != 0, to, &wsz, &ex));
    void *ws = NULL;
    if (wsz)
        CHECK(aclrtMalloc(&ws, wsz, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclnnEmbeddingDenseBackward(ws, wsz, ex, stream));
    CHECK(aclrtSynchronizeStream(stream));

    /* Copy buffers: as large as the output (at least 256 MiB) so caches do not help. */
    size_t cbytes = obytes > ((size_t)256 << 20) ? obytes / 2 : ((size_t)256 << 20);
    char *csrc = malloc(cbytes), *cdst = malloc(cbytes);
    memset(csrc, 1, cbytes);
    memset(cdst, 0, cbytes);

    double t_ours[64], bw[64], ratio[64];
    int ns = samples > 64 ? 64 : samples;
    for (int s = 0; s < ns; s++) {
        bw[s] = copy_bw(cdst, csrc, cbytes, threads);
        const double t0 = now();
        CHECK(aclnnEmbeddingDenseBackwardGetWorkspaceSize(tg, ti, (uint64_t)V, pad, scale != 0, to, &wsz, &ex));
        CHECK(aclnnEmbeddingDenseBackward(ws, wsz, ex, stream));
        CHECK(aclrtSynchronizeStream(stream));
        t_ours[s] = now() - t0;
        /* floor / ours of this sample: the copy ran just before, under the same machine load */
        ratio[s] = (double)(obytes + gbytes) / bw[s] / t_ours[s];
    }
    qsort(ratio, (size_t)ns, sizeof(double), cmp_d);
    qsort(t_ours, (size_t)ns, sizeof(double), cmp_d);
    qsort(bw, (size_t)ns, sizeof(double), cmp_d);
    const double med = t_ours[ns / 2], bwm = bw[ns / 2];
    const double floor_s = (double)(obytes + gbytes) / bwm;
    printf("threads=%d V=%lld D=%lld N=%lld scale=%d pad=%d ours_ms=%.3f min_ms=%.3f copy_gbs=%.2f floor_ms=%.3f "
           "of_floor=%.3f paired_of_floor=%.3f\n",
           threads, (long long)V, (long long)D, (long long)N, scale, padmode, med * 1e3, t_ours[0] * 1e3, bwm / 1e9,
           floor_s * 1e3, floor_s / med, ratio[ns / 2]);
    aclDestroyTensor(tg);
    aclDestroyTensor(ti);
    aclDestroyTensor(to);
    aclrtFree(dg);
    aclrtFree(di);
    aclrtFree(dout);
    if (ws)
        aclrtFree(ws);
    free(csrc);
    free(cdst);
    free(cdf);
    free(perm);
    free(idx);
    free(g);
    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    return 0;
}
