/*
 * Add / Mul on 64 MiB fp32 tensors (16 Mi elements), contiguous and broadcast, against a STREAM
 * "add" floor measured in the same process: c[i] = a[i] + b[i] over the same sizes with one
 * pthread per device worker and non-temporal stores. Runs are interleaved (floor, ours, ...) and
 * medians reported, since the machine is shared. Output: one line per case with GB/s
 * (3 x 64 MiB moved per call) and the ratio to the floor.
 */
#include <immintrin.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_mul.h"
#include "cannon/kernel.h"

#define N ((int64_t)16 << 20)
#define REPS 15

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct { const float *a, *b; float *c; int64_t n0, n1; } part;

__attribute__((target("avx2")))
static void *stream_part(void *p)
{
    const part *q = p;
    for (int64_t i = q->n0; i < q->n1; i += 8)
        _mm256_stream_ps(q->c + i, _mm256_add_ps(_mm256_loadu_ps(q->a + i), _mm256_loadu_ps(q->b + i)));
    _mm_sfence();
    return NULL;
}

static double stream_add(const float *a, const float *b, float *c, int nt)
{
    pthread_t th[64];
    part ps[64];
    const double t0 = now();
    for (int t = 0; t < nt; t++) {
        ps[t] = (part){a, b, c, N * t / nt, N * (t + 1) / nt};
        pthread_create(&th[t], NULL, stream_part, &ps[t]);
    }
    for (int t = 0; t < nt; t++)
        pthread_join(th[t], NULL);
    return now() - t0;
}

static int cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static aclTensor *mk(const int64_t *shape, uint64_t nd, void *mem, int64_t n)
{
    return aclCreateTensor(shape, nd, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, &n, 1, mem);
}

int main(void)
{
    aclrtStream s;
    if (aclInit(NULL) || aclrtSetDevice(0) || aclrtCreateStream(&s))
        return 1;
    const int workers = (int)cannonGetWorkerCount();
    void *da, *db, *dc;
    aclrtMalloc(&da, N * 4, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&db, N * 4, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&dc, N * 4, ACL_MEM_MALLOC_HUGE_FIRST);
    float *ha = aligned_alloc(64, N * 4), *hb = aligned_alloc(64, N * 4), *hc = aligned_alloc(64, N * 4);
    for (int64_t i = 0; i < N; i++)
        ha[i] = (float)i, hb[i] = 1.0f, hc[i] = 0.0f;
    aclrtMemcpy(da, N * 4, ha, N * 4, ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtMemcpy(db, N * 4, hb, N * 4, ACL_MEMCPY_HOST_TO_DEVICE);
    const int64_t flat[1] = {N}, mat[2] = {4096, 4096}, row[1] = {4096}, col[2] = {4096, 1};
    aclTensor *A = mk(flat, 1, da, N), *B = mk(flat, 1, db, N), *C = mk(flat, 1, dc, N);
    aclTensor *A2 = mk(mat, 2, da, N), *C2 = mk(mat, 2, dc, N), *R = mk(row, 1, db, 4096), *Cl = mk(col, 2, db, 4096);
    float one = 1.0f;
    aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
    const char *names[5] = {"stream-add floor", "Add contiguous", "Mul contiguous", "Add broadcast [4096,4096]+[4096]",
                            "Mul broadcast [4096,4096]*[4096,1]"};
    double t[5][REPS];
    for (int r = 0; r < REPS; r++) {
        t[0][r] = stream_add(ha, hb, hc, workers);
        for (int k = 1; k < 5; k++) {
            uint64_t ws = 0;
            aclOpExecutor *ex = NULL;
            const double t0 = now();
            aclnnStatus st;
            if (k == 1)
                st = aclnnAddGetWorkspaceSize(A, B, alpha, C, &ws, &ex) || aclnnAdd(NULL, 0, ex, s);
            else if (k == 2)
                st = aclnnMulGetWorkspaceSize(A, B, C, &ws, &ex) || aclnnMul(NULL, 0, ex, s);
            else if (k == 3)
                st = aclnnAddGetWorkspaceSize(A2, R, alpha, C2, &ws, &ex) || aclnnAdd(NULL, 0, ex, s);
            else
                st = aclnnMulGetWorkspaceSize(A2, Cl, C2, &ws, &ex) || aclnnMul(NULL, 0, ex, s);
            aclrtSynchronizeStream(s);
            t[k][r] = now() - t0;
            if (st)
                return fprintf(stderr, "case %d failed: %s\n", k, aclGetRecentErrMsg()), 1;
        }
    }
    double floor_gbs = 0;
    printf("workers %d, %lld fp32 elements (64 MiB per tensor), median of %d\n", workers, (long long)N, REPS);
    for (int k = 0; k < 5; k++) {
        qsort(t[k], REPS, sizeof(double), cmp);
        const double bytes = k >= 3 ? 2.0 * N * 4 : 3.0 * N * 4; /* broadcast operand stays in cache */
        const double gbs = bytes / t[k][REPS / 2] / 1e9;
        if (k == 0)
            floor_gbs = 3.0 * N * 4 / t[0][REPS / 2] / 1e9;
        printf("%-40s %8.3f ms  %7.2f GB/s  %5.1f%% of floor (time ratio)\n", names[k], t[k][REPS / 2] * 1e3, gbs,
               100.0 * t[0][REPS / 2] / t[k][REPS / 2] * (k >= 3 ? 2.0 / 3.0 : 1.0));
    }
    (void)floor_gbs;
    return 0;
}
