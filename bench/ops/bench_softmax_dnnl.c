/*
 * oneDNN peer for bench/ops/run_softmax_bench.py: softmax (v2 primitive, accurate or log) over the
 * last axis of a dense row-major tensor, timed as bench_softmax times cannon.
 *   bench_softmax_dnnl softmax|log_softmax f32|bf16 4096x1024 [ns [uniform|normal]]
 * Threads: OMP_NUM_THREADS. Prints one JSON line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>

#include "bench_common.h"
#include "bench_softmax_data.h"

typedef struct ctx {
    dnnl_primitive_t p;
    dnnl_stream_t s;
    dnnl_exec_arg_t args[2];
} ctx;

static void run(void *p)
{
    ctx *c = (ctx *)p;
    dnnl_primitive_execute(c->p, c->s, 2, c->args);
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

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    const int log = !strcmp(argv[1], "log_softmax");
    const int bf16 = !strcmp(argv[2], "bf16");
    int ns = argc > 4 ? atoi(argv[4]) : 7;
    dnnl_dims_t dims;
    int nd = 0;
    for (const char *s = argv[3]; *s && nd < 8;) {
        dims[nd++] = strtoll(s, (char **)&s, 10);
        if (*s == 'x')
            s++;
    }
    static const dnnl_format_tag_t tags[] = {dnnl_a, dnnl_a, dnnl_ab, dnnl_abc, dnnl_abcd};
    dnnl_engine_t eng;
    CK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    ctx c;
    CK(dnnl_stream_create(&c.s, eng, dnnl_stream_default_flags));
    dnnl_memory_desc_t md;
    CK(dnnl_memory_desc_init_by_tag(&md, nd, dims, bf16 ? dnnl_bf16 : dnnl_f32, tags[nd]));
    dnnl_softmax_v2_desc_t sd;
    CK(dnnl_softmax_v2_forward_desc_init(&sd, dnnl_forward_inference, log ? dnnl_softmax_log : dnnl_softmax_accurate,
                                         &md, &md, nd - 1));
    dnnl_primitive_desc_t pd;
    CK(dnnl_primitive_desc_create(&pd, &sd, NULL, eng, NULL));
    const char *impl = "?";
    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
    CK(dnnl_primitive_create(&c.p, pd));
    dnnl_memory_t src, dst;
    CK(dnnl_memory_create(&src, &md, eng, DNNL_MEMORY_ALLOCATE));
    CK(dnnl_memory_create(&dst, &md, eng, DNNL_MEMORY_ALLOCATE));
    size_t numel = 1;
    for (int i = 0; i < nd; i++)
        numel *= (size_t)dims[i];
    void *sp = NULL;
    dnnl_memory_get_data_handle(src, &sp);
    /* The same inputs as bench_softmax's (bench_softmax_data.h). */
    const int normal = argc > 5 && !strcmp(argv[5], "normal");
    uint32_t r = 1;
    for (size_t i = 0; i < numel; i++) {
        float v = normal ? smb_normal(i) : smb_uniform(&r);
        if (bf16) {
            uint32_t u;
            memcpy(&u, &v, 4);
            ((uint16_t *)sp)[i] = normal ? smb_bf16(v) : (uint16_t)(u >> 16);
        } else {
            ((float *)sp)[i] = v;
        }
    }
    void *dp = NULL;
    dnnl_memory_get_data_handle(dst, &dp);
    memset(dp, 0, numel * (bf16 ? 2 : 4));
    c.args[0].arg = DNNL_ARG_SRC;
    c.args[0].memory = src;
    c.args[1].arg = DNNL_ARG_DST;
    c.args[1].memory = dst;
    bench_result br = bench_time(run, &c, ns);
    printf("{\"case\":\"onednn\",\"op\":\"%s\",\"dtype\":\"%s\",\"shape\":\"%s\",\"ms\":%.4f,\"ms_min\":%.4f,"
           "\"ms_max\":%.4f,\"impl\":\"%s\"}\n",
           argv[1], argv[2], argv[3], br.med_ms, br.min_ms, br.max_ms, impl);
    return 0;
}
