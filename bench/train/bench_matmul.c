/*
 * aclnnMatmul throughput (GFLOP/s) for square sizes: fp32 against the BLAS's own cblas_sgemm on
 * the same buffers (interleaved, medians), and bf16 (our AVX512-BF16 GEMM) against our fp32.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_matmul.h"
#if defined(BENCH_HAVE_OPENBLAS)
#include <cblas.h>
#endif

#define REPS 7

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static double run_mm(aclrtStream s, aclTensor *a, aclTensor *b, aclTensor *c)
{
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    const double t0 = now();
    if (aclnnMatmulGetWorkspaceSize(a, b, c, 0, &ws, &ex))
        return -1;
    void *w = NULL;
    if (ws)
        aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST);
    aclnnMatmul(w, ws, ex, s);
    aclrtSynchronizeStream(s);
    const double t = now() - t0;
    if (w)
        aclrtFree(w);
    return t;
}

int main(int argc, char **argv)
{
    aclrtStream s;
    if (aclInit(NULL) || aclrtSetDevice(0) || aclrtCreateStream(&s))
        return 1;
    const int sizes[3] = {512, 1024, 2048};
    for (int si = 0; si < 3; si++) {
        const int64_t n = argc > 1 ? atoi(argv[1]) : sizes[si];
        const int64_t shp[2] = {n, n}, cnt = n * n;
        void *m[6];
        for (int i = 0; i < 6; i++)
            aclrtMalloc(&m[i], (size_t)cnt * 4, ACL_MEM_MALLOC_HUGE_FIRST);
        float *h = malloc((size_t)cnt * 4);
        for (int64_t i = 0; i < cnt; i++)
            h[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
        aclrtMemcpy(m[0], cnt * 4, h, cnt * 4, ACL_MEMCPY_HOST_TO_DEVICE);
        aclrtMemcpy(m[1], cnt * 4, h, cnt * 4, ACL_MEMCPY_HOST_TO_DEVICE);
        aclTensor *t[6];
        for (int i = 0; i < 3; i++)
            t[i] = aclCreateTensor(shp, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, &cnt, 1, m[i]);
        for (int i = 3; i < 6; i++)
            t[i] = aclCreateTensor(shp, 2, ACL_BF16, NULL, 0, ACL_FORMAT_ND, &cnt, 1, m[i]);
        double tf[REPS], tb[REPS], tblas[REPS];
        for (int r = 0; r < REPS; r++) {
            tf[r] = run_mm(s, t[0], t[1], t[2]);
            tb[r] = run_mm(s, t[3], t[4], t[5]);
#if defined(BENCH_HAVE_OPENBLAS)
            /* the CPU driver's device memory is host memory: the BLAS reads it directly */
            const double t0 = now();
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0f, m[0], (int)n, m[1],
                        (int)n, 0.0f, m[2], (int)n);
            tblas[r] = now() - t0;
#else
            tblas[r] = tf[r];
#endif
        }
        qsort(tf, REPS, sizeof(double), cmp);
        qsort(tb, REPS, sizeof(double), cmp);
        qsort(tblas, REPS, sizeof(double), cmp);
        const double fl = 2.0 * (double)n * n * n;
        printf("n=%5lld  sgemm %7.1f GF/s  ours fp32 %7.1f GF/s (%5.1f%%)  ours bf16 %7.1f GF/s (%.2fx fp32)\n",
               (long long)n, fl / tblas[REPS / 2] / 1e9, fl / tf[REPS / 2] / 1e9, 100.0 * tblas[REPS / 2] / tf[REPS / 2],
               fl / tb[REPS / 2] / 1e9, tf[REPS / 2] / tb[REPS / 2]);
        for (int i = 0; i < 6; i++)
            aclDestroyTensor(t[i]), aclrtFree(m[i]);
        free(h);
        if (argc > 1)
            break;
    }
    return 0;
}
