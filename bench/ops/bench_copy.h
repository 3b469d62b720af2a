/* The STREAM-copy floor of bench_softmax, bench_norm and bench_softmax_kern: one copy loop, so
 * that their floors are measured alike. bench_copy_kernel is launched through
 * cannonLaunchKernel, one block per per_block doubles (use 8192: blocks then start at 64 KiB
 * boundaries); bench_copy_bytes is the same loop called directly. */
#ifndef CANNON_BENCH_OPS_COPY_H_
#define CANNON_BENCH_OPS_COPY_H_

#include <stddef.h>

#include "cannon/kernel.h"

typedef struct bench_copy_args {
    const double *a;
    double *b;
    size_t n, per_block;
} bench_copy_args;

/* STREAM "copy" with plain stores in 32-byte vectors (AVX when the CPU has it, else pairs of
 * 16-byte SSE2 moves), four per iteration: a scalar loop of 8-byte moves falls short of one
 * core's memory bandwidth and would make the floor too lenient. */
typedef double bench_v4d __attribute__((vector_size(32), aligned(8)));

#define BENCH_COPY_BODY                                                                       \
    do {                                                                                      \
        size_t v_ = 0;                                                                        \
        for (; v_ + 4 <= nv; v_ += 4) {                                                       \
            bench_v4d t0_ = s[v_], t1_ = s[v_ + 1], t2_ = s[v_ + 2], t3_ = s[v_ + 3];         \
            d[v_] = t0_;                                                                      \
            d[v_ + 1] = t1_;                                                                  \
            d[v_ + 2] = t2_;                                                                  \
            d[v_ + 3] = t3_;                                                                  \
        }                                                                                     \
        for (; v_ < nv; v_++)                                                                 \
            d[v_] = s[v_];                                                                    \
    } while (0)

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) static inline void bench_copy_avx(bench_v4d *d, const bench_v4d *s, size_t nv)
{
    BENCH_COPY_BODY;
}
#endif

static inline void bench_copy_base(bench_v4d *d, const bench_v4d *s, size_t nv)
{
    BENCH_COPY_BODY;
}

/* Copies the whole 32-byte vectors of @p bytes from @p src to @p dst (a remainder under 32 bytes
 * is left alone). */
static inline void bench_copy_bytes(void *dst, const void *src, size_t bytes)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("avx2")) {
        bench_copy_avx((bench_v4d *)dst, (const bench_v4d *)src, bytes / 32);
        return;
    }
#endif
    bench_copy_base((bench_v4d *)dst, (const bench_v4d *)src, bytes / 32);
}

/* One block of the floor's copy: doubles [block_idx * per_block, + per_block) of a to b. */
static inline int bench_copy_kernel(const cannon_kernel_ctx *ctx, void *p)
{
    const bench_copy_args *c = (const bench_copy_args *)p;
    size_t i0 = (size_t)ctx->block_idx * c->per_block, i1 = i0 + c->per_block;
    if (i1 > c->n)
        i1 = c->n;
    bench_copy_bytes(c->b + i0, c->a + i0, (i1 - i0) * sizeof(double));
    return 0;
}

#endif
