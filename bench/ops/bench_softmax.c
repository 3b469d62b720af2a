/*
 * bench_softmax: aclnnSoftmax / aclnnLogSoftmax throughput on cannon against the STREAM-copy
 * floor measured in the same process (a vectorised copy of 2 x 256 MiB on the same worker pool,
 * sampled interleaved with each case's samples; CANNON_CPU_THREADS sets the thread count of both).
 *
 *   bench_softmax [--ns N] [--ops softmax,log_softmax] [--dtypes f32,bf16,f16] [--shapes 4096x1024,...]
 *                 [--data uniform|normal]   (bench_softmax_data.h; default uniform)
 *                 [--ab NAME[=VALUE]]   (each case also timed with NAME set, default value 1,
 *                                        interleaved with the plain samples; one more line)
 *                 [--offset-ab BYTES]   (each case also timed on a second view of the same
 *                                        storage, BYTES into it (a multiple of 4, at most 4096),
 *                                        interleaved with the first: does the tensors' page
 *                                        offset matter? One more line, "offset_ab")
 *
 * Prints one JSON line per case: per-call median/min/max ms, effective GB/s (input read + output
 * written), the copy bandwidth (median of the interleaved copy samples) and the floor (those bytes / copy bandwidth) and pct_of_floor
 * (floor / median, > 100 when faster than a copy, e.g. thanks to non-temporal stores or a
 * working set that stays in L3).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_logsoftmax.h"
#include "aclnnop/aclnn_softmax.h"
#include "cannon/kernel.h"

#include "bench_common.h"
#include "bench_copy.h"
#include "bench_softmax_data.h"

typedef struct copy_ctx {
    bench_copy_args args;
    aclrtStream stream;
    uint32_t blocks;
} copy_ctx;

static void run_copy(void *p)
{
    copy_ctx *c = (copy_ctx *)p;
    cannon_launch_desc d = {"stream_copy", bench_copy_kernel, &c->args, sizeof c->args, c->blocks};
    cannonLaunchKernel(&d, c->stream);
    aclrtSynchronizeStream(c->stream);
}

typedef struct sm_ctx {
    aclTensor *x, *y;
    int log;
    aclrtStream stream;
    void *ws;
    uint64_t ws_size;
    int failed;
} sm_ctx;

static void run_sm(void *p)
{
    sm_ctx *c = (sm_ctx *)p;
    uint64_t ws = 0;
    aclOpExecutor *e = NULL;
    aclnnStatus st = c->log ? aclnnLogSoftmaxGetWorkspaceSize(c->x, -1, c->y, &ws, &e)
                            : aclnnSoftmaxGetWorkspaceSize(c->x, -1, c->y, &ws, &e);
    if (st != 0 || ws > c->ws_size) {
        c->failed = 1;
        return;
    }
    st = c->log ? aclnnLogSoftmax(c->ws, ws, e, c->stream) : aclnnSoftmax(c->ws, ws, e, c->stream);
    if (st != 0 || aclrtSynchronizeStream(c->stream) != 0)
        c->failed = 1;
}

/* --ab: the variable run_sm_ab sets around each call (operators read it when planned, and
 * run_sm plans every call). */
static bench_ab g_ab;

static void run_sm_ab(void *p)
{
    bench_ab_set(&g_ab, 1);
    run_sm(p);
    bench_ab_set(&g_ab, 0);
}

static int parse_shape(const char *s, int64_t *dims)
{
    int n = 0;
    while (*s && n < 8) {
        dims[n++] = strtoll(s, (char **)&s, 10);
        if (*s == 'x')
            s++;
        else
            break;
    }
    return n;
}

int main(int argc, char **argv)
{
    int ns = 7, normal = 0;
    long offab = -1;
    const char *ops = "softmax,log_softmax", *dtypes = "f32,bf16", *shapes = "4096x1024,512x32000,65536x128,64x16x512x512";
    static const char *const names[] = {"--ns", "--ops", "--dtypes", "--shapes", "--data", "--ab", "--offset-ab", NULL};
    const int bad = bench_check_args(argc, argv, names,
                                     "usage: bench_softmax [--ns N] [--ops softmax,log_softmax] [--dtypes f32,bf16,f16]\n"
                                     "                     [--shapes 4096x1024,...] [--data uniform|normal] [--ab NAME[=VALUE]]\n"
                                     "CANNON_CPU_THREADS sets the threads; one JSON line per case (see the source's header).\n");
    if (bad >= 0)
        return bad;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--ns"))
            ns = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--ops"))
            ops = argv[i + 1];
        else if (!strcmp(argv[i], "--dtypes"))
            dtypes = argv[i + 1];
        else if (!strcmp(argv[i], "--shapes"))
            shapes = argv[i + 1];
        else if (!strcmp(argv[i], "--data"))
            normal = !strcmp(argv[i + 1], "normal");
        else if (!strcmp(argv[i], "--ab"))
            bench_ab_parse(&g_ab, argv[i + 1]);
        else if (!strcmp(argv[i], "--offset-ab"))
            offab = atol(argv[i + 1]);
    }
    if (offab > 4096 || (offab >= 0 && offab % 4 != 0)) {
        fprintf(stderr, "--offset-ab: a multiple of 4 from 0 to 4096\n");
        return 2;
    }
    if (aclInit(NULL) != 0 || aclrtSetDevice(0) != 0) {
        fprintf(stderr, "ACL init failed: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    aclrtStream stream = NULL;
    aclrtCreateStream(&stream);
    const uint32_t threads = cannonGetWorkerCount();

    /* Copy floor: 2 x 256 MiB of doubles, as STREAM. */
    const size_t cn = (256u << 20) / 8;
    copy_ctx cc = {{0}, stream, 0};
    void *ca = NULL, *cb = NULL;
    if (aclrtMalloc(&ca, cn * 8, ACL_MEM_MALLOC_HUGE_FIRST) != 0 || aclrtMalloc(&cb, cn * 8, ACL_MEM_MALLOC_HUGE_FIRST) != 0) {
        fprintf(stderr, "out of device memory\n");
        return 1;
    }
    aclrtMemset(ca, cn * 8, 1, cn * 8);
    aclrtMemset(cb, cn * 8, 0, cn * 8);
    cc.args.a = ca;
    cc.args.b = cb;
    cc.args.n = cn;
    cc.args.per_block = 8192;
    cc.blocks = (uint32_t)((cn + 8191) / 8192);
    /* The floor is measured again for every case, interleaved with its samples (bench_time2):
     * the load of this shared machine drifts within a run. The first line reports a lone run. */
    bench_result cr = bench_time(run_copy, &cc, ns);
    printf("{\"case\":\"stream_copy\",\"threads\":%u,\"ms\":%.4f,\"gbs\":%.2f}\n", threads, cr.med_ms,
           2.0 * cn * 8 / (cr.med_ms * 1e-3) / 1e9);
    fflush(stdout);

    char shp[512], opl[64], dtl[64];
    snprintf(shp, sizeof shp, "%s", shapes);
    for (char *sv = NULL, *s = strtok_r(shp, ",", &sv); s; s = strtok_r(NULL, ",", &sv)) {
        int64_t dims[8];
        int nd = parse_shape(s, dims);
        int64_t numel = 1;
        for (int i = 0; i < nd; i++)
            numel *= dims[i];
        snprintf(dtl, sizeof dtl, "%s", dtypes);
        for (char *dv = NULL, *d = strtok_r(dtl, ",", &dv); d; d = strtok_r(NULL, ",", &dv)) {
            aclDataType dt = !strcmp(d, "bf16") ? ACL_BF16 : !strcmp(d, "f16") ? ACL_FLOAT16 : ACL_FLOAT;
            size_t es = dt == ACL_FLOAT ? 4 : 2;
            size_t bytes = (size_t)numel * es;
            void *xd = NULL, *yd = NULL;
            if (aclrtMalloc(&xd, bytes + 8192, ACL_MEM_MALLOC_HUGE_FIRST) != 0 ||
                aclrtMalloc(&yd, bytes + 8192, ACL_MEM_MALLOC_HUGE_FIRST) != 0) {
                fprintf(stderr, "out of device memory for %s\n", s);
                return 1;
            }
            /* Inputs: a fixed pseudo-random pattern (bench_softmax_data.h). */
            size_t chunk = 1 << 20;
            unsigned char *h = malloc(chunk * es);
            uint32_t r = 1;
            for (size_t off = 0; off < (size_t)numel; off += chunk) {
                size_t n = (size_t)numel - off < chunk ? (size_t)numel - off : chunk;
                for (size_t i = 0; i < n; i++) {
                    float v = normal ? smb_normal(off + i) : smb_uniform(&r);
                    if (es == 4) {
                        memcpy(h + 4 * i, &v, 4);
                    } else if (dt == ACL_BF16) {
                        uint32_t u;
                        memcpy(&u, &v, 4);
                        uint16_t b = normal ? smb_bf16(v) : (uint16_t)(u >> 16);
                        memcpy(h + 2 * i, &b, 2);
                    } else {
                        aclFloat16 f = aclFloatToFloat16(v);
                        memcpy(h + 2 * i, &f, 2);
                    }
                }
                aclrtMemcpy((char *)xd + off * es, n * es, h, n * es, ACL_MEMCPY_HOST_TO_DEVICE);
                if (offab >= 0)
                    aclrtMemcpy((char *)xd + offab + off * es, n * es, h, n * es, ACL_MEMCPY_HOST_TO_DEVICE);
            }
            free(h);
            aclrtMemset(yd, bytes + 8192, 0, bytes + 8192);
            aclTensor *x = aclCreateTensor(dims, (uint64_t)nd, dt, NULL, 0, ACL_FORMAT_ND, dims, (uint64_t)nd, xd);
            aclTensor *y = aclCreateTensor(dims, (uint64_t)nd, dt, NULL, 0, ACL_FORMAT_ND, dims, (uint64_t)nd, yd);
            snprintf(opl, sizeof opl, "%s", ops);
            for (char *ov = NULL, *o = strtok_r(opl, ",", &ov); o; o = strtok_r(NULL, ",", &ov)) {
                sm_ctx c = {x, y, !strcmp(o, "log_softmax"), stream, NULL, 0, 0};
                bench_result br, cpr;
                bench_time2(run_copy, &cc, run_sm, &c, ns, &cpr, &br);
                const double copy_gbs = 2.0 * cn * 8 / (cpr.med_ms * 1e-3) / 1e9;
                double moved = 2.0 * (double)bytes;
                double floor_ms = moved / (copy_gbs * 1e9) * 1e3;
                printf("{\"case\":\"cannon\",\"op\":\"%s\",\"dtype\":\"%s\",\"shape\":\"%s\",\"data\":\"%s\",\"threads\":%u,"
                       "\"ms\":%.4f,\"ms_min\":%.4f,\"ms_max\":%.4f,\"gbs\":%.2f,\"copy_gbs\":%.2f,"
                       "\"floor_ms\":%.4f,\"pct_of_floor\":%.1f,\"ok\":%s}\n",
                       o, d, s, normal ? "normal" : "uniform", threads, br.med_ms, br.min_ms, br.max_ms, moved / (br.med_ms * 1e-3) / 1e9,
                       copy_gbs, floor_ms, 100.0 * floor_ms / br.med_ms, c.failed ? "false" : "true");
                fflush(stdout);
                if (offab >= 0) {
                    const int64_t sdim = numel + 8192 / (int64_t)es;
                    aclTensor *x2 = aclCreateTensor(dims, (uint64_t)nd, dt, NULL, offab / (long)es, ACL_FORMAT_ND, &sdim, 1, xd);
                    aclTensor *y2 = aclCreateTensor(dims, (uint64_t)nd, dt, NULL, offab / (long)es, ACL_FORMAT_ND, &sdim, 1, yd);
                    sm_ctx c2 = c;
                    c2.x = x2;
                    c2.y = y2;
                    bench_result ra, rb;
                    bench_time2(run_sm, &c, run_sm, &c2, ns, &ra, &rb);
                    printf("{\"case\":\"offset_ab\",\"offset\":%ld,\"op\":\"%s\",\"dtype\":\"%s\",\"shape\":\"%s\",\"threads\":%u,"
                           "\"ms\":%.4f,\"off_ms\":%.4f,\"pct_of_floor\":%.1f,\"off_pct_of_floor\":%.1f,\"ok\":%s}\n",
                           offab, o, d, s, threads, ra.med_ms, rb.med_ms, 100.0 * floor_ms / ra.med_ms,
                           100.0 * floor_ms / rb.med_ms, c.failed || c2.failed ? "false" : "true");
                    fflush(stdout);
                    aclDestroyTensor(x2);
                    aclDestroyTensor(y2);
                }
                if (g_ab.name[0]) {
                    /* The A/B: plain and with the variable, sample by sample. */
                    bench_result ra, rb;
                    bench_time2(run_sm, &c, run_sm_ab, &c, ns, &ra, &rb);
                    printf("{\"case\":\"ab\",\"ab\":\"%s=%s\",\"op\":\"%s\",\"dtype\":\"%s\",\"shape\":\"%s\",\"threads\":%u,"
                           "\"ms\":%.4f,\"ab_ms\":%.4f,\"pct_of_floor\":%.1f,\"ab_pct_of_floor\":%.1f,\"ok\":%s}\n",
                           g_ab.name, g_ab.value, o, d, s, threads, ra.med_ms, rb.med_ms, 100.0 * floor_ms / ra.med_ms,
                           100.0 * floor_ms / rb.med_ms, c.failed ? "false" : "true");
                    fflush(stdout);
                }
            }
            aclDestroyTensor(x);
            aclDestroyTensor(y);
            aclrtFree(xd);
            aclrtFree(yd);
        }
    }
    aclrtFree(ca);
    aclrtFree(cb);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
