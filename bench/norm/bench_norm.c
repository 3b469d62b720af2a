/*
 * bench_norm: BatchNorm training forward+backward and LayerNorm / RmsNorm forward+backward (fp32)
 * against the copy bandwidth measured in the same process (CANNON_CPU_THREADS sets the threads).
 *
 *   bench_norm [--ns N]
 *
 * One JSON line per case: median ms per fwd+bwd, and the floor = bytes of the passes / copy GB/s.
 * Passes counted (tensor-sized reads + writes):
 *   batch norm, streaming: fwd 3 (read x for the statistics, read x + write y), bwd 5 (read x, dy
 *   for the sums, read x, dy + write dx) = 8; "floor_min" also reports the 5-pass bound (fwd read
 *   x + write y, bwd read x, dy + write dx) reachable only when a channel stays in cache;
 *   layer/rms norm: fwd 2 (a row stays in L1/L2), bwd 3 = 5.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime in bench_common.h */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_batch_norm.h"
#include "aclnnop/aclnn_batch_norm_backward.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_rms_norm_grad.h"
#include "cannon/kernel.h"

#include "bench_common.h"

typedef struct copy_args {
    const double *a;
    double *b;
    size_t n, per_block;
} copy_args;

static int copy_kernel(const cannon_kernel_ctx *ctx, void *p)
{
    const copy_args *c = (const copy_args *)p;
    size_t i0 = (size_t)ctx->block_idx * c->per_block, i1 = i0 + c->per_block;
    if (i1 > c->n)
        i1 = c->n;
    for (size_t i = i0; i < i1; i++)
        c->b[i] = c->a[i];
    return 0;
}

static aclrtStream g_stream;
static copy_args g_copy;

static void run_copy(void *p)
{
    (void)p;
    cannon_launch_desc d = {"copy", copy_kernel, &g_copy, sizeof g_copy,
                            (uint32_t)((g_copy.n + g_copy.per_block - 1) / g_copy.per_block)};
    cannonLaunchKernel(&d, g_stream);
    aclrtSynchronizeStream(g_stream);
}

static void *dev(size_t bytes, float fill)
{
    void *p = NULL;
    if (aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != 0)
        exit(1);
    for (size_t i = 0; i < bytes / 4; i++)
        ((float *)p)[i] = fill + (float)(i % 97) * 0.01f;
    return p;
}

static aclTensor *tens(const int64_t *shape, int nd, aclFormat fmt, void *data)
{
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= shape[i];
    return aclCreateTensor(shape, (uint64_t)nd, ACL_FLOAT, NULL, 0, fmt, &n, 1, data);
}

static void *g_ws;
static uint64_t g_ws_size;

static void run_exec(aclnnStatus (*f)(void *, uint64_t, aclOpExecutor *, aclrtStream), aclOpExecutor *e, uint64_t ws)
{
    if (ws > g_ws_size) {
        if (g_ws)
            aclrtFree(g_ws);
        aclrtMalloc(&g_ws, ws, ACL_MEM_MALLOC_HUGE_FIRST);
        g_ws_size = ws;
    }
    if (f(g_ws, ws, e, g_stream) != 0)
        fprintf(stderr, "run failed: %s\n", aclGetRecentErrMsg());
}

typedef struct bn_case {
    aclTensor *x, *dy, *y, *dx, *w, *b, *rm, *rv, *sm, *si, *gw, *gb;
    aclBoolArray *mask;
} bn_case;

static void run_bn(void *p)
{
    bn_case *c = (bn_case *)p;
    uint64_t ws = 0;
    aclOpExecutor *e = NULL;
    if (aclnnBatchNormGetWorkspaceSize(c->x, c->w, c->b, c->rm, c->rv, true, 0.1, 1e-5, c->y, c->sm, c->si, &ws, &e) == 0)
        run_exec(aclnnBatchNorm, e, ws);
    if (aclnnBatchNormBackwardGetWorkspaceSize(c->dy, c->x, c->w, c->rm, c->rv, c->sm, c->si, true, 1e-5, c->mask, c->dx,
                                               c->gw, c->gb, &ws, &e) == 0)
        run_exec(aclnnBatchNormBackward, e, ws);
    aclrtSynchronizeStream(g_stream);
}

typedef struct ln_case {
    aclTensor *x, *dy, *y, *dx, *w, *b, *mean, *rstd, *gw, *gb;
    aclIntArray *ns;
    aclBoolArray *mask;
    int rms;
} ln_case;

static void run_ln(void *p)
{
    ln_case *c = (ln_case *)p;
    uint64_t ws = 0;
    aclOpExecutor *e = NULL;
    if (c->rms) {
        if (aclnnRmsNormGetWorkspaceSize(c->x, c->w, 1e-6, c->y, c->rstd, &ws, &e) == 0)
            run_exec(aclnnRmsNorm, e, ws);
        if (aclnnRmsNormGradGetWorkspaceSize(c->dy, c->x, c->rstd, c->w, c->dx, c->gw, &ws, &e) == 0)
            run_exec(aclnnRmsNormGrad, e, ws);
    } else {
        if (aclnnLayerNormGetWorkspaceSize(c->x, c->ns, c->w, c->b, 1e-5, c->y, c->mean, c->rstd, &ws, &e) == 0)
            run_exec(aclnnLayerNorm, e, ws);
        if (aclnnLayerNormBackwardGetWorkspaceSize(c->dy, c->x, c->ns, c->mean, c->rstd, c->w, c->b, c->mask, c->dx,
                                                   c->gw, c->gb, &ws, &e) == 0)
            run_exec(aclnnLayerNormBackward, e, ws);
    }
    aclrtSynchronizeStream(g_stream);
}

int main(int argc, char **argv)
{
    int ns = 7;
    for (int i = 1; i + 1 < argc; i += 2)
        if (!strcmp(argv[i], "--ns"))
            ns = atoi(argv[i + 1]);
    if (aclInit(NULL) != 0 || aclrtSetDevice(0) != 0 || aclrtCreateStream(&g_stream) != 0)
        return 1;
    const uint32_t threads = cannonGetWorkerCount();
    g_copy.n = (256u << 20) / 8;
    g_copy.a = dev(g_copy.n * 8, 1.0f);
    g_copy.b = dev(g_copy.n * 8, 0.0f);
    g_copy.per_block = 8192;
    bench_result cr = bench_time(run_copy, NULL, ns);
    const double copy_gbs = 2.0 * (double)g_copy.n * 8 / (cr.med_ms * 1e-3) / 1e9;
    printf("{\"case\":\"copy\",\"threads\":%u,\"gbs\":%.2f}\n", threads, copy_gbs);
    aclrtFree((void *)g_copy.a);
    aclrtFree(g_copy.b);

    const int64_t shapes[2][4] = {{32, 64, 56, 56}, {64, 256, 14, 14}};
    bool m3[3] = {true, true, true};
    for (int s = 0; s < 2; s++) {
        for (int nhwc = 0; nhwc < 2; nhwc++) {
            const int64_t *sh = shapes[s];
            int64_t shape[4] = {sh[0], sh[1], sh[2], sh[3]};
            if (nhwc) {
                shape[1] = sh[2], shape[2] = sh[3], shape[3] = sh[1];
            }
            const int64_t C = sh[1], n = sh[0] * sh[1] * sh[2] * sh[3];
            const aclFormat fmt = nhwc ? ACL_FORMAT_NHWC : ACL_FORMAT_NCHW;
            bn_case c;
            void *bx = dev((size_t)n * 4, 1.0f), *bdy = dev((size_t)n * 4, 0.1f), *by = dev((size_t)n * 4, 0.0f),
                 *bdx = dev((size_t)n * 4, 0.0f);
            c.x = tens(shape, 4, fmt, bx);
            c.dy = tens(shape, 4, fmt, bdy);
            c.y = tens(shape, 4, fmt, by);
            c.dx = tens(shape, 4, fmt, bdx);
            void *pv[8];
            aclTensor **vt[8] = {&c.w, &c.b, &c.rm, &c.rv, &c.sm, &c.si, &c.gw, &c.gb};
            for (int i = 0; i < 8; i++) {
                pv[i] = dev((size_t)C * 4, 1.0f);
                *vt[i] = tens(&C, 1, ACL_FORMAT_ND, pv[i]);
            }
            c.mask = aclCreateBoolArray(m3, 3);
            bench_result r = bench_time(run_bn, &c, ns);
            const double bytes = (double)n * 4;
            const double floor_ms = 8 * bytes / (copy_gbs * 1e9) * 1e3, floor_min = 5 * bytes / (copy_gbs * 1e9) * 1e3;
            printf("{\"case\":\"batch_norm_fwd_bwd\",\"layout\":\"%s\",\"shape\":\"%lldx%lldx%lldx%lld\",\"threads\":%u,"
                   "\"ms\":%.3f,\"ms_min\":%.3f,\"floor8_ms\":%.3f,\"pct_of_floor8\":%.1f,\"floor5_ms\":%.3f,"
                   "\"pct_of_floor5\":%.1f}\n",
                   nhwc ? "NHWC" : "NCHW", (long long)shape[0], (long long)shape[1], (long long)shape[2],
                   (long long)shape[3], threads, r.med_ms, r.min_ms, floor_ms, 100 * floor_ms / r.med_ms, floor_min,
                   100 * floor_min / r.med_ms);
            fflush(stdout);
            aclTensor *all[4] = {c.x, c.dy, c.y, c.dx};
            void *allp[4] = {bx, bdy, by, bdx};
            for (int i = 0; i < 4; i++) {
                aclDestroyTensor(all[i]);
                aclrtFree(allp[i]);
            }
            for (int i = 0; i < 8; i++) {
                aclDestroyTensor(*vt[i]);
                aclrtFree(pv[i]);
            }
            aclDestroyBoolArray(c.mask);
        }
    }
    for (int rms = 0; rms < 2; rms++) {
        const int64_t shape[2] = {8192, 4096}, R = 4096, rows = 8192, rs[2] = {8192, 1}, n = rows * R;
        ln_case c;
        memset(&c, 0, sizeof c);
        c.rms = rms;
        void *bx = dev((size_t)n * 4, 1.0f), *bdy = dev((size_t)n * 4, 0.1f), *by = dev((size_t)n * 4, 0.0f),
             *bdx = dev((size_t)n * 4, 0.0f);
        c.x = tens(shape, 2, ACL_FORMAT_ND, bx);
        c.dy = tens(shape, 2, ACL_FORMAT_ND, bdy);
        c.y = tens(shape, 2, ACL_FORMAT_ND, by);
        c.dx = tens(shape, 2, ACL_FORMAT_ND, bdx);
        void *pw = dev((size_t)R * 4, 1.0f), *pb = dev((size_t)R * 4, 0.0f), *pgw = dev((size_t)R * 4, 0.0f),
             *pgb = dev((size_t)R * 4, 0.0f), *pm = dev((size_t)rows * 4, 0.0f), *pr = dev((size_t)rows * 4, 0.0f);
        c.w = tens(&R, 1, ACL_FORMAT_ND, pw);
        c.b = tens(&R, 1, ACL_FORMAT_ND, pb);
        c.gw = tens(&R, 1, ACL_FORMAT_ND, pgw);
        c.gb = tens(&R, 1, ACL_FORMAT_ND, pgb);
        c.mean = tens(rs, 2, ACL_FORMAT_ND, pm);
        c.rstd = tens(rs, 2, ACL_FORMAT_ND, pr);
        c.ns = aclCreateIntArray(&R, 1);
        c.mask = aclCreateBoolArray(m3, 3);
        bench_result r = bench_time(run_ln, &c, ns);
        const double floor_ms = 5 * (double)n * 4 / (copy_gbs * 1e9) * 1e3;
        printf("{\"case\":\"%s_fwd_bwd\",\"shape\":\"8192x4096\",\"threads\":%u,\"ms\":%.3f,\"ms_min\":%.3f,"
               "\"floor5_ms\":%.3f,\"pct_of_floor5\":%.1f}\n",
               rms ? "rms_norm" : "layer_norm", threads, r.med_ms, r.min_ms, floor_ms, 100 * floor_ms / r.med_ms);
        fflush(stdout);
    }
    return 0;
}
