/*
 * oneDNN peer for bench/norm/run_norm_bench.py: batch normalization training forward (statistics
 * computed, scale and shift applied: dnnl_use_scaleshift) then backward (prop kind backward:
 * diff_src and diff_scale_shift, the three outputs of aclnnBatchNormBackward), fp32, timed as
 * the softmax benches time theirs (bench/ops/bench_common.h: samples of k calls lasting >= 50 ms;
 * the median, min and max).
 *   bench_norm_dnnl nchw|nhwc|nChw16c 32x64x56x56 [ns]      (the shape in NCHW order)
 * Threads: OMP_NUM_THREADS. Prints one JSON line, with the implementation oneDNN chose.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <oneapi/dnnl/dnnl.h>

#include "bench_common.h" /* bench/ops: the timing loop shared with the softmax benches */

typedef struct ctx {
    dnnl_primitive_t fwd, bwd;
    dnnl_stream_t s;
    dnnl_exec_arg_t fargs[6], bargs[9];
    int nf, nb, what; /* 1 forward, 2 backward, 3 both */
} ctx;

static void run(void *p)
{
    ctx *c = (ctx *)p;
    if (c->what & 1)
        dnnl_primitive_execute(c->fwd, c->s, c->nf, c->fargs);
    if (c->what & 2)
        dnnl_primitive_execute(c->bwd, c->s, c->nb, c->bargs);
    dnnl_stream_wait(c->s);
}

#define CK(x)                                                                                      \
    do {                                                                                           \
        dnnl_status_t st_ = (x);                                                                   \
        if (st_ != dnnl_success) {                                                                 \
            printf("{\"case\":\"onednn\",\"error\":\"%s = %d\"}\n", #x, (int)st_);                   \
            return 0;                                                                              \
        }                                                                                          \
    } while (0)

static dnnl_memory_t mem(const dnnl_memory_desc_t *md, dnnl_engine_t eng, float fill, float step)
{
    dnnl_memory_t m = NULL;
    if (dnnl_memory_create(&m, md, eng, DNNL_MEMORY_ALLOCATE) != dnnl_success)
        return NULL;
    void *p = NULL;
    dnnl_memory_get_data_handle(m, &p);
    const size_t n = dnnl_memory_desc_get_size(md) / 4;
    for (size_t i = 0; i < n; i++)
        ((float *)p)[i] = fill + (float)(i % 97) * step;
    return m;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    const char *layout = argv[1];
    int ns = argc > 3 ? atoi(argv[3]) : 7;
    dnnl_dims_t dims;
    int nd = 0;
    for (const char *s = argv[2]; *s && nd < 4;) {
        dims[nd++] = strtoll(s, (char **)&s, 10);
        if (*s == 'x')
            s++;
    }
    if (nd != 4)
        return 2;
    const dnnl_format_tag_t tag = !strcmp(layout, "nhwc") ? dnnl_nhwc : !strcmp(layout, "nChw16c") ? dnnl_nChw16c
                                                                                                     : dnnl_nchw;
    dnnl_engine_t eng;
    CK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    ctx c;
    memset(&c, 0, sizeof c);
    CK(dnnl_stream_create(&c.s, eng, dnnl_stream_default_flags));
    dnnl_memory_desc_t md;
    CK(dnnl_memory_desc_init_by_tag(&md, 4, dims, dnnl_f32, tag));
    const float eps = 1e-5f;
    const unsigned flags = dnnl_use_scaleshift;
    dnnl_batch_normalization_desc_t fd, bd;
    CK(dnnl_batch_normalization_forward_desc_init(&fd, dnnl_forward_training, &md, eps, flags));
    dnnl_primitive_desc_t fpd, bpd;
    CK(dnnl_primitive_desc_create(&fpd, &fd, NULL, eng, NULL));
    CK(dnnl_batch_normalization_backward_desc_init(&bd, dnnl_backward, &md, &md, eps, flags));
    CK(dnnl_primitive_desc_create(&bpd, &bd, NULL, eng, fpd));
    const char *fimpl = "?", *bimpl = "?";
    dnnl_primitive_desc_query(fpd, dnnl_query_impl_info_str, 0, &fimpl);
    dnnl_primitive_desc_query(bpd, dnnl_query_impl_info_str, 0, &bimpl);
    CK(dnnl_primitive_create(&c.fwd, fpd));
    CK(dnnl_primitive_create(&c.bwd, bpd));
    const dnnl_memory_desc_t *ss_md = dnnl_primitive_desc_query_md(fpd, dnnl_query_weights_md, 0);
    const dnnl_memory_desc_t *mean_md = dnnl_primitive_desc_query_md(fpd, dnnl_query_dst_md, 1);
    const dnnl_memory_desc_t *ws_md = dnnl_primitive_desc_query_md(fpd, dnnl_query_workspace_md, 0);
    dnnl_memory_t src = mem(&md, eng, 1.0f, 0.01f), dst = mem(&md, eng, 0.0f, 0.0f);
    dnnl_memory_t ddst = mem(&md, eng, 0.1f, 0.01f), dsrc = mem(&md, eng, 0.0f, 0.0f);
    dnnl_memory_t ss = mem(ss_md, eng, 1.0f, 0.0f), dss = mem(ss_md, eng, 0.0f, 0.0f);
    dnnl_memory_t mean = mem(mean_md, eng, 0.0f, 0.0f), var = mem(mean_md, eng, 1.0f, 0.0f);
    dnnl_memory_t ws = ws_md && ws_md->ndims ? mem(ws_md, eng, 0.0f, 0.0f) : NULL;
    if (!src || !dst || !ddst || !dsrc || !ss || !dss || !mean || !var) {
        printf("{\"case\":\"onednn\",\"error\":\"out of memory\"}\n");
        return 0;
    }
    dnnl_exec_arg_t f[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}, {DNNL_ARG_SCALE_SHIFT, ss},
                           {DNNL_ARG_MEAN, mean}, {DNNL_ARG_VARIANCE, var}, {DNNL_ARG_WORKSPACE, ws}};
    dnnl_exec_arg_t b[] = {{DNNL_ARG_SRC, src},           {DNNL_ARG_DIFF_DST, ddst},
                           {DNNL_ARG_SCALE_SHIFT, ss},    {DNNL_ARG_MEAN, mean},
                           {DNNL_ARG_VARIANCE, var},      {DNNL_ARG_DIFF_SRC, dsrc},
                           {DNNL_ARG_DIFF_SCALE_SHIFT, dss}, {DNNL_ARG_WORKSPACE, ws}};
    c.nf = ws ? 6 : 5;
    c.nb = ws ? 8 : 7;
    memcpy(c.fargs, f, sizeof f);
    memcpy(c.bargs, b, sizeof b);
    c.what = 3;
    bench_result both = bench_time(run, &c, ns);
    c.what = 1;
    bench_result fw = bench_time(run, &c, ns);
    c.what = 2;
    bench_result bw = bench_time(run, &c, ns);
    printf("{\"case\":\"onednn\",\"layout\":\"%s\",\"shape\":\"%s\",\"ms\":%.4f,\"ms_min\":%.4f,\"ms_max\":%.4f,"
           "\"fwd_ms\":%.4f,\"bwd_ms\":%.4f,\"impl\":\"%s / %s\"}\n",
           layout, argv[2], both.med_ms, both.min_ms, both.max_ms, fw.med_ms, bw.med_ms, fimpl, bimpl);
    return 0;
}
