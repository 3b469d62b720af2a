/*
 * The fused small-m kernel of aclnnWeightQuantBatchMatmulV2 (wq_dot_impl.h), per ISA tier.
 *
 * out[i * ldo + c] = sum over groups g of s[c * ng + g] * (sum over p in group g of
 * (q_c[p] + o[c * ng + g]) * x_i[p]) for the m rows x_i = x + i * ldx (fp32, contiguous along K)
 * and nc columns q_c of the quantised weight, each contiguous along K and starting at cols[c]:
 * INT8 bytes, or INT4 nibbles (element 2t in the low nibble of byte t). Groups are runs of `group`
 * elements of K (the last one may be shorter), ng = ceil(k / group) of them; o is NULL without an
 * offset.
 */
#ifndef CANNON_OPS_MATMUL_WQ_KERNELS_H_
#define CANNON_OPS_MATMUL_WQ_KERNELS_H_

#include <stdint.h>

#define WQ_DOT_ARGS                                                                                                    \
    const float *x, int64_t ldx, int64_t m, int64_t k, const void *const *cols, int64_t nc, int int4, int64_t group,   \
        const float *s, const float *o, float *out, int64_t ldo
typedef void (*wq_dot_fn)(WQ_DOT_ARGS);
void cannon_wq_dot_scalar(WQ_DOT_ARGS);
void cannon_wq_dot_avx2(WQ_DOT_ARGS);
void cannon_wq_dot_avx512(WQ_DOT_ARGS);

#endif /* CANNON_OPS_MATMUL_WQ_KERNELS_H_ */
