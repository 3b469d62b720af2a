/*
 * bench_norm: BatchNorm training forward+backward and LayerNorm / RmsNorm forward+backward (fp32)
 * against the copy bandwidth measured in the same process, interleaved sample by sample with the
 * case (CANNON_CPU_THREADS sets the threads). run_norm_bench.py adds the peers (torch, oneDNN).
 *
 *   bench_norm [--ns N] [--cases bn,ln,rms] [--layouts nchw,nhwc] [--shapes 32x64x56x56,64x256x14x14]
 *              [--ln-rows 8192]      (rows of the layer / rms norm case, of 4096 elements)
 *              [--dtype f32]         (the batch-norm data tensors: f32, f16 or bf16; the
 *                                     per-channel tensors stay fp32; floors count its bytes)
 *              [--ab NAME[=VALUE]]   (each sample also with NAME set, default value 1, interleaved;
 *                                     one more line per case)
 *
 * One JSON line per case: median ms per fwd+bwd (and of fwd and bwd alone), the median copy
 * bandwidth of the samples taken between them, and floors = bytes of the passes / copy GB/s.
 * Passes counted (tensor-sized reads + writes, x, y, dy, dx all the same size):
 *   "floor5": fwd read x + write y, bwd read x and dy + write dx. The fewest the math allows: every
 *   output element needs its channel's (row's) statistics, so each input is read at least once and
 *   each output written once; it is reachable when a channel's slice (a row) stays in the cache
 *   between the statistics and the elementwise pass: NCHW channel slices of N*H*W elements, layer
 *   and rms norm rows.
 *   "floor8" (batch norm): fwd 3 (read x for the statistics, then read x + write y), bwd 5 (read x,
 *   dy for the sums, read x, dy + write dx): the bound when a slice cannot stay in cache, as in
 *   NHWC, where one cache line of channels spans every row (N*H*W*64 bytes).
 * "gbs" is the effective bandwidth: 5 tensors / time.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_batch_norm.h"
#include "aclnnop/aclnn_batch_norm_backward.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_rms_norm_grad.h"
#include "cannon/kernel.h"

#include "bench_common.h"
#include "bench_copy.h"

static aclrtStream g_stream;
static bench_copy_args g_copy;

static void run_copy(void *p)
{
    (void)p;
    cannon_launch_desc d = {"copy", bench_copy_kernel, &g_copy, sizeof g_copy,
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

/* 16-bit data (fp16 or bf16 bit patterns): @p base plus a small varying mantissa, so the values
 * lie near the float whose pattern base is (1.0: 0x3C00 fp16, 0x3F80 bf16). */
static void *dev16(size_t bytes, uint16_t base)
{
    void *p = NULL;
    if (aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != 0)
        exit(1);
    for (size_t i = 0; i < bytes / 2; i++)
        ((uint16_t *)p)[i] = (uint16_t)(base + i % 97);
    return p;
}

static aclTensor *tens_dt(const int64_t *shape, int nd, aclFormat fmt, void *data, aclDataType dt)
{
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= shape[i];
    return aclCreateTensor(shape, (uint64_t)nd, dt, NULL, 0, fmt, &n, 1, data);
}

static aclTensor *tens(const int64_t *shape, int nd, aclFormat fmt, void *data)
{
    return tens_dt(shape, nd, fmt, data, ACL_FLOAT);
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

/* What one call of a case runs: 1 forward, 2 backward, 3 both. */
typedef struct bn_case {
    aclTensor *x, *dy, *y, *dx, *w, *b, *rm, *rv, *sm, *si, *gw, *gb;
    aclBoolArray *mask;
    int what;
} bn_case;

static void run_bn(void *p)
{
    bn_case *c = (bn_case *)p;
    uint64_t ws = 0;
    aclOpExecutor *e = NULL;
    if ((c->what & 1) &&
        aclnnBatchNormGetWorkspaceSize(c->x, c->w, c->b, c->rm, c->rv, true, 0.1, 1e-5, c->y, c->sm, c->si, &ws, &e) == 0)
        run_exec(aclnnBatchNorm, e, ws);
    if ((c->what & 2) &&
        aclnnBatchNormBackwardGetWorkspaceSize(c->dy, c->x, c->w, c->rm, c->rv, c->sm, c->si, true, 1e-5, c->mask, c->dx,
                                               c->gw, c->gb, &ws, &e) == 0)
        run_exec(aclnnBatchNormBackward, e, ws);
    aclrtSynchronizeStream(g_stream);
}

typedef struct ln_case {
    aclTensor *x, *dy, *y, *dx, *w, *b, *mean, *rstd, *gw, *gb;
    aclIntArray *ns;
    aclBoolArray *mask;
    int rms, what;
} ln_case;

static void run_ln(void *p)
{
    ln_case *c = (ln_case *)p;
    uint64_t ws = 0;
    aclOpExecutor *e = NULL;
    if (c->rms) {
        if ((c->what & 1) && aclnnRmsNormGetWorkspaceSize(c->x, c->w, 1e-6, c->y, c->rstd, &ws, &e) == 0)
            run_exec(aclnnRmsNorm, e, ws);
        if ((c->what & 2) && aclnnRmsNormGradGetWorkspaceSize(c->dy, c->x, c->rstd, c->w, c->dx, c->gw, &ws, &e) == 0)
            run_exec(aclnnRmsNormGrad, e, ws);
    } else {
        if ((c->what & 1) &&
            aclnnLayerNormGetWorkspaceSize(c->x, c->ns, c->w, c->b, 1e-5, c->y, c->mean, c->rstd, &ws, &e) == 0)
            run_exec(aclnnLayerNorm, e, ws);
        if ((c->what & 2) &&
            aclnnLayerNormBackwardGetWorkspaceSize(c->dy, c->x, c->ns, c->mean, c->rstd, c->w, c->b, c->mask, c->dx,
                                                   c->gw, c->gb, &ws, &e) == 0)
            run_exec(aclnnLayerNormBackward, e, ws);
    }
    aclrtSynchronizeStream(g_stream);
}

/* Calls per sample so that a sample lasts >= 40 ms. */
static int calibrate(void (*fn)(void *), void *ctx)
{
    fn(ctx);
    fn(ctx);
    double t0 = bench_now();
    fn(ctx);
    const double one = bench_now() - t0;
    return one > 0.04 ? 1 : (int)(0.04 / (one > 1e-7 ? one : 1e-7)) + 1;
}

static double sample(void (*fn)(void *), void *ctx, int k)
{
    const double t0 = bench_now();
    for (int j = 0; j < k; j++)
        fn(ctx);
    return (bench_now() - t0) / k * 1e3;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], bench_cmp);
    return v[n / 2];
}

typedef struct timing {
    double ms, ms_min, fwd_ms, bwd_ms, copy_gbs, fwd_min, bwd_min, copy_max;
    double ab_ms, ab_min, ab_fwd, ab_bwd; /* --ab: the same with the variable set */
} timing;

/* --ab NAME[=VALUE]: every sample is taken twice in turn, NAME unset and set, for an A/B in one
 * process (for variables read when an operator is planned; the plans are made per call). */
static bench_ab g_ab;

/* Copy, fwd+bwd, fwd and bwd samples in turn, ns times; medians of each. */
static timing measure(void (*fn)(void *), void *ctx, int *what, int ns)
{
    double cp[64], both[64], fw[64], bw[64];
    if (ns > 64)
        ns = 64;
    const int kc = calibrate(run_copy, NULL);
    *what = 3;
    const int kb = calibrate(fn, ctx);
    *what = 1;
    const int kf = calibrate(fn, ctx);
    *what = 2;
    const int kw = calibrate(fn, ctx);
    double ab[3][64];
    for (int i = 0; i < ns; i++) {
        cp[i] = 2.0 * (double)g_copy.n * 8 / (sample(run_copy, NULL, kc) * 1e-3) / 1e9;
        /* With --ab the two variants alternate which goes first, sample by sample: in a fixed
         * order an A/A comparison (a variable nothing reads) gave the second fwd+bwd 0.80-1.08x
         * the first's time, median 0.97. */
        for (int h = 0; h < (g_ab.name[0] ? 2 : 1); h++) {
            const int v = g_ab.name[0] ? (h + i) % 2 : 0;
            bench_ab_set(&g_ab, v);
            *what = 3;
            (v ? ab[0] : both)[i] = sample(fn, ctx, kb);
            *what = 1;
            (v ? ab[1] : fw)[i] = sample(fn, ctx, kf);
            *what = 2;
            (v ? ab[2] : bw)[i] = sample(fn, ctx, kw);
        }
        bench_ab_set(&g_ab, 0);
    }
    timing t;
    memset(&t, 0, sizeof t);
    if (g_ab.name[0]) {
        t.ab_ms = median(ab[0], ns);
        t.ab_min = ab[0][0];
        t.ab_fwd = median(ab[1], ns);
        t.ab_bwd = median(ab[2], ns);
    }
    t.copy_gbs = median(cp, ns);
    t.copy_max = cp[ns - 1];
    t.ms = median(both, ns);
    t.ms_min = both[0];
    t.fwd_ms = median(fw, ns);
    t.fwd_min = fw[0];
    t.bwd_ms = median(bw, ns);
    t.bwd_min = bw[0];
    return t;
}

static int has(const char *list, const char *item)
{
    if (!list)
        return 1;
    const size_t n = strlen(item);
    for (const char *p = list; (p = strstr(p, item)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == 0))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    int ns = 7;
    const char *cases = NULL, *layouts = NULL, *shapes_sel = NULL;
    long long ln_rows = 8192;
    aclDataType bn_dt = ACL_FLOAT;
    static const char *const names[] = {"--ns", "--cases", "--layouts", "--shapes", "--ln-rows", "--ab", "--dtype",
                                        NULL};
    const int bad = bench_check_args(argc, argv, names,
                                     "usage: bench_norm [--ns N] [--cases bn,ln,rms] [--layouts nchw,nhwc]\n"
                                     "                  [--shapes 32x64x56x56,64x256x14x14] [--ln-rows 8192]\n"
                                     "                  [--ab NAME[=VALUE]] [--dtype f32|f16|bf16]\n"
                                     "CANNON_CPU_THREADS sets the threads; one JSON line per case (see the source's header).\n");
    if (bad >= 0)
        return bad;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--ns"))
            ns = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--cases"))
            cases = argv[i + 1];
        else if (!strcmp(argv[i], "--layouts"))
            layouts = argv[i + 1];
        else if (!strcmp(argv[i], "--shapes"))
            shapes_sel = argv[i + 1];
        else if (!strcmp(argv[i], "--ln-rows"))
            ln_rows = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--ab"))
            bench_ab_parse(&g_ab, argv[i + 1]);
        else if (!strcmp(argv[i], "--dtype")) {
            if (!strcmp(argv[i + 1], "f16"))
                bn_dt = ACL_FLOAT16;
            else if (!strcmp(argv[i + 1], "bf16"))
                bn_dt = ACL_BF16;
            else if (strcmp(argv[i + 1], "f32") != 0) {
                fprintf(stderr, "bench_norm: --dtype takes f32, f16 or bf16\n");
                return 2;
            }
        }
    }
    const size_t es = bn_dt == ACL_FLOAT ? 4 : 2;
    const char *dt_name = bn_dt == ACL_FLOAT ? "f32" : bn_dt == ACL_FLOAT16 ? "f16" : "bf16";
    if (ns < 1)
        ns = 1;
    if (ln_rows < 1) {
        fprintf(stderr, "bench_norm: --ln-rows needs a positive row count\n");
        return 2;
    }
    if (aclInit(NULL) != 0 || aclrtSetDevice(0) != 0 || aclrtCreateStream(&g_stream) != 0)
        return 1;
    const uint32_t threads = cannonGetWorkerCount();
    /* 2 x 64 MiB: twice the L3, so the copy runs from memory. */
    g_copy.n = (64u << 20) / 8;
    g_copy.a = dev(g_copy.n * 8, 1.0f);
    g_copy.b = dev(g_copy.n * 8, 0.0f);
    g_copy.per_block = 8192;

    /* Batch-norm shapes (NCHW order): --shapes, or the two default ones. */
    int64_t shapes[8][4];
    char shape_names[8][64];
    int nshapes = 0;
    for (const char *p = shapes_sel ? shapes_sel : "32x64x56x56,64x256x14x14"; *p && nshapes < 8;) {
        const char *start = p;
        for (int d = 0; d < 4; d++) {
            shapes[nshapes][d] = strtoll(p, (char **)&p, 10);
            if (*p == 'x')
                p++;
        }
        snprintf(shape_names[nshapes], sizeof shape_names[0], "%.*s", (int)(p - start), start);
        nshapes++;
        while (*p == ',')
            p++;
    }
    bool m3[3] = {true, true, true};
    for (int s = 0; s < nshapes && has(cases, "bn"); s++) {
        for (int nhwc = 0; nhwc < 2; nhwc++) {
            if (!has(layouts, nhwc ? "nhwc" : "nchw"))
                continue;
            const int64_t *sh = shapes[s];
            int64_t shape[4] = {sh[0], sh[1], sh[2], sh[3]};
            if (nhwc) {
                shape[1] = sh[2], shape[2] = sh[3], shape[3] = sh[1];
            }
            const int64_t C = sh[1], n = sh[0] * sh[1] * sh[2] * sh[3];
            const aclFormat fmt = nhwc ? ACL_FORMAT_NHWC : ACL_FORMAT_NCHW;
            bn_case c;
            void *bx, *bdy, *by, *bdx;
            if (es == 4) {
                bx = dev((size_t)n * 4, 1.0f), bdy = dev((size_t)n * 4, 0.1f), by = dev((size_t)n * 4, 0.0f);
                bdx = dev((size_t)n * 4, 0.0f);
            } else {
                /* 1.0 and 0.125 plus small steps. */
                const int h = bn_dt == ACL_FLOAT16;
                bx = dev16((size_t)n * 2, h ? 0x3C00 : 0x3F80), bdy = dev16((size_t)n * 2, h ? 0x3000 : 0x3E00);
                by = dev16((size_t)n * 2, 0), bdx = dev16((size_t)n * 2, 0);
            }
            c.x = tens_dt(shape, 4, fmt, bx, bn_dt);
            c.dy = tens_dt(shape, 4, fmt, bdy, bn_dt);
            c.y = tens_dt(shape, 4, fmt, by, bn_dt);
            c.dx = tens_dt(shape, 4, fmt, bdx, bn_dt);
            void *pv[8];
            aclTensor **vt[8] = {&c.w, &c.b, &c.rm, &c.rv, &c.sm, &c.si, &c.gw, &c.gb};
            for (int i = 0; i < 8; i++) {
                pv[i] = dev((size_t)C * 4, 1.0f);
                *vt[i] = tens(&C, 1, ACL_FORMAT_ND, pv[i]);
            }
            c.mask = aclCreateBoolArray(m3, 3);
            timing t = measure(run_bn, &c, &c.what, ns);
            const double bytes = (double)n * (double)es;
            const double f8 = 8 * bytes / (t.copy_gbs * 1e9) * 1e3, f5 = 5 * bytes / (t.copy_gbs * 1e9) * 1e3;
            printf("{\"case\":\"batch_norm_fwd_bwd\",\"dtype\":\"%s\",\"layout\":\"%s\",\"shape\":\"%s\",\"threads\":%u,"
                   "\"ms\":%.3f,\"ms_min\":%.3f,\"fwd_ms\":%.3f,\"bwd_ms\":%.3f,\"gbs\":%.2f,\"copy_gbs\":%.2f,"
                   "\"floor5_ms\":%.3f,\"pct_of_floor5\":%.1f,\"floor8_ms\":%.3f,\"pct_of_floor8\":%.1f,"
                   "\"fwd_min\":%.3f,\"bwd_min\":%.3f,\"copy_max_gbs\":%.2f}\n",
                   dt_name, nhwc ? "NHWC" : "NCHW", shape_names[s], threads, t.ms, t.ms_min, t.fwd_ms, t.bwd_ms,
                   5 * bytes / (t.ms * 1e6), t.copy_gbs, f5, 100 * f5 / t.ms, f8, 100 * f8 / t.ms, t.fwd_min,
                   t.bwd_min, t.copy_max);
            if (g_ab.name[0])
                printf("{\"ab\":\"%s\",\"layout\":\"%s\",\"shape\":\"%s\",\"threads\":%u,\"ms\":%.3f,\"ms_min\":%.3f,"
                       "\"fwd_ms\":%.3f,\"bwd_ms\":%.3f}\n",
                       g_ab.arg, nhwc ? "NHWC" : "NCHW", shape_names[s], threads, t.ab_ms, t.ab_min, t.ab_fwd, t.ab_bwd);
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
        if (!has(cases, rms ? "rms" : "ln"))
            continue;
        const int64_t R = 4096, rows = ln_rows, shape[2] = {rows, R}, rs[2] = {rows, 1}, n = rows * R;
        char shape_name[48];
        snprintf(shape_name, sizeof shape_name, "%lldx%lld", (long long)rows, (long long)R);
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
        timing t = measure(run_ln, &c, &c.what, ns);
        const double bytes = (double)n * 4, f5 = 5 * bytes / (t.copy_gbs * 1e9) * 1e3;
        printf("{\"case\":\"%s_fwd_bwd\",\"layout\":\"ND\",\"shape\":\"%s\",\"threads\":%u,\"ms\":%.3f,"
               "\"ms_min\":%.3f,\"fwd_ms\":%.3f,\"bwd_ms\":%.3f,\"gbs\":%.2f,\"copy_gbs\":%.2f,\"floor5_ms\":%.3f,"
               "\"pct_of_floor5\":%.1f,\"fwd_min\":%.3f,\"bwd_min\":%.3f,\"copy_max_gbs\":%.2f}\n",
               rms ? "rms_norm" : "layer_norm", shape_name, threads, t.ms, t.ms_min, t.fwd_ms, t.bwd_ms,
               5 * bytes / (t.ms * 1e6), t.copy_gbs, f5, 100 * f5 / t.ms, t.fwd_min, t.bwd_min, t.copy_max);
        if (g_ab.name[0])
            printf("{\"ab\":\"%s\",\"case\":\"%s_fwd_bwd\",\"shape\":\"%s\",\"threads\":%u,\"ms\":%.3f,"
                   "\"ms_min\":%.3f,\"fwd_ms\":%.3f,\"bwd_ms\":%.3f}\n",
                   g_ab.arg, rms ? "rms_norm" : "layer_norm", shape_name, threads, t.ab_ms, t.ab_min, t.ab_fwd,
                   t.ab_bwd);
        fflush(stdout);
        aclTensor *all[14] = {c.x, c.dy, c.y, c.dx, c.w, c.b, c.gw, c.gb, c.mean, c.rstd};
        void *allp[10] = {bx, bdy, by, bdx, pw, pb, pgw, pgb, pm, pr};
        for (int i = 0; i < 10; i++) {
            aclDestroyTensor(all[i]);
            aclrtFree(allp[i]);
        }
        aclDestroyIntArray(c.ns);
        aclDestroyBoolArray(c.mask);
    }
    aclrtFree((void *)g_copy.a);
    aclrtFree(g_copy.b);
    if (g_ws)
        aclrtFree(g_ws);
    aclrtDestroyStream(g_stream);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
