/*
 * The matmul family's horizontal sum of one vector, for the kernels written once per ISA tier
 * (included after the tier's vec_<tier>.h): the lanes added pairwise, halves first, so the order
 * depends on the tier's width only.
 */
#ifndef CANNON_OPS_MATMUL_MM_HSUM_H_
#define CANNON_OPS_MATMUL_MM_HSUM_H_

static inline float mm_hsum_pairwise(vf v)
{
    float l[VW];
    vf_to_array(l, v);
    for (int w = VW / 2; w >= 1; w /= 2)
        for (int i = 0; i < w; i++)
            l[i] += l[i + w];
    return l[0];
}

#endif /* CANNON_OPS_MATMUL_MM_HSUM_H_ */
