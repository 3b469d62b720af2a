/*
 * fp64 accumulation helpers the norm kernels need beyond the shared vec_<tier>.h layer: products of
 * two fp32 vectors added to an fp64 accumulator exactly (an fp32 x fp32 product has at most 48
 * significant bits, so it is exact in fp64). Exact squares make the shifted single-pass variance
 * as accurate as a two-pass one without a second read of the data. Included after vec_<tier>.h.
 */
#ifndef CANNON_OPS_NORM_VEC_H_
#define CANNON_OPS_NORM_VEC_H_

#if VW == 16
VI vd vd_add_mul(vd a, vf u, vf v)
{
    __m512d ul = _mm512_cvtps_pd(_mm512_castps512_ps256(u));
    __m512d uh = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(u), 1)));
    __m512d vl = _mm512_cvtps_pd(_mm512_castps512_ps256(v));
    __m512d vh = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
    a.lo = _mm512_fmadd_pd(ul, vl, a.lo);
    a.hi = _mm512_fmadd_pd(uh, vh, a.hi);
    return a;
}
VI vd vd_ld(const double *p)
{
    vd a = {_mm512_loadu_pd(p), _mm512_loadu_pd(p + 8)};
    return a;
}
VI void vd_st(double *p, vd a) { vd_store(p, a); }
#elif VW == 8
VI vd vd_add_mul(vd a, vf u, vf v)
{
    __m256d ul = _mm256_cvtps_pd(_mm256_castps256_ps128(u)), uh = _mm256_cvtps_pd(_mm256_extractf128_ps(u, 1));
    __m256d vl = _mm256_cvtps_pd(_mm256_castps256_ps128(v)), vh = _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1));
    a.lo = _mm256_fmadd_pd(ul, vl, a.lo);
    a.hi = _mm256_fmadd_pd(uh, vh, a.hi);
    return a;
}
VI vd vd_ld(const double *p)
{
    vd a = {_mm256_loadu_pd(p), _mm256_loadu_pd(p + 4)};
    return a;
}
VI void vd_st(double *p, vd a) { vd_store(p, a); }
#else
VI vd vd_add_mul(vd a, vf u, vf v)
{
    a.s += (double)u * (double)v;
    return a;
}
VI vd vd_ld(const double *p)
{
    vd a = {*p};
    return a;
}
VI void vd_st(double *p, vd a) { *p = a.s; }
#endif

#endif /* CANNON_OPS_NORM_VEC_H_ */
