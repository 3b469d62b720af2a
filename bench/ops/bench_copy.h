/* The STREAM-copy floor of bench_softmax and bench_norm: one kernel, so that the floors of
 * issues #3 and #4 are measured alike. Launched through cannonLaunchKernel, one block per
 * per_block doubles (use 8192: blocks then start at 64 KiB boundaries; n a multiple of 16). */
#ifndef CANNON_BENCH_OPS_COPY_H_
#define CANNON_BENCH_OPS_COPY_H_

#include <stddef.h>

#include "cannon/kernel.h"

typedef struct bench_copy_args {
    const double *a;
    double *b;
    size_t n, per_block;
} bench_copy_args;

/* STREAM "copy" with plain stores, 64 KiB per block, in 32-byte vectors (AVX when the CPU has it,
 * else pairs of 16-byte SSE2 moves), four per iteration: a scalar loop of 8-byte moves can fall
 * short of the memory bandwidth and would make the floor too lenient. Blocks start at 64 KiB
 * boundaries, and n is a multiple of 16. */
typedef double bench_v4d __attribute__((vector_size(32), aligned(8)));

#define BENCH_COPY_BODY                                                                       \
    do {                                                                                      \
        const bench_v4d *s_ = (const bench_v4d *)(c->a + i0);                                 \
        bench_v4d *d_ = (bench_v4d *)(c->b + i0);                                             \
        for (size_t v_ = 0; v_ < (i1 - i0) / 4; v_ += 4) {                                    \
            bench_v4d t0_ = s_[v_], t1_ = s_[v_ + 1], t2_ = s_[v_ + 2], t3_ = s_[v_ + 3];     \
            d_[v_] = t0_;                                                                     \
            d_[v_ + 1] = t1_;                                                                 \
            d_[v_ + 2] = t2_;                                                                 \
            d_[v_ + 3] = t3_;                                                                 \
        }                                                                                     \
    } while (0)

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) static inline void bench_copy_avx(const bench_copy_args *c, size_t i0, size_t i1)
{
    BENCH_COPY_BODY;
}
#endif

static inline void bench_copy_base(const bench_copy_args *c, size_t i0, size_t i1)
{
    BENCH_COPY_BODY;
}

static inline int bench_copy_kernel(const cannon_kernel_ctx *ctx, void *p)
{
    const bench_copy_args *c = (const bench_copy_args *)p;
    size_t i0 = (size_t)ctx->block_idx * c->per_block, i1 = i0 + c->per_block;
    if (i1 > c->n)
        i1 = c->n;
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("avx2")) {
        bench_copy_avx(c, i0, i1);
        return 0;
    }
#endif
    bench_copy_base(c, i0, i1);
    return 0;
}

#endif
