/*
 * One tier of the attention kernel: the including file includes its vec_<tier>.h, defines
 * FIA_UNITS_FN (the exported entry) and includes this file.
 *
 * Per unit (see fia_kernels.h), for each key block of FIA_KB keys that some row of the unit sees:
 *   1. the block's keys are converted to fp32 and transposed (Kt[d][j]), its values converted
 *      (V[j][d], rows zero-padded to Dp);
 *   2. for each row, scores s_j = scale * q.k_j (vectorised over keys, four rows sharing each key
 *      vector, the dot product summed over d in order), plus pseShift, with keys outside the row's window or masked set to -inf; a unit
 *      of at most FIA_DIRECT_ROWS rows (decoding) skips the transpose and takes each q.k_j from the
 *      key row (vectorised over d: two interleaved vector sums, then the lanes in order), widening a
 *      contiguous 16-bit row in registers;
 *   3. online softmax: m' = max(m, max_j s_j), c = exp(m - m'), p_j = exp(s_j - m'),
 *      l = l c + sum_j p_j, acc = acc c + sum_j p_j v_j (vectorised over D, keys in order).
 * Finally out = acc / l, rounded once to the output dtype (0 where l is 0: a row that sees no key),
 * and softmaxLse = m + log(l). A NaN score makes its row NaN. The order of every sum is fixed by
 * the shape.
 */
#include <math.h>
#include <string.h>

#include "fia_kernels.h"
#include "fp_convert.h"

#define FIA_NEG_INF (-__builtin_inff())

/* Keys ahead whose key and value rows are prefetched: rows lie a head-stride apart (BSND keeps
 * every head of a position together), a pattern the hardware prefetchers follow too slowly for
 * the few rows each step reads. */
#ifndef FIA_PF_KEYS
#define FIA_PF_KEYS 16
#endif

static inline float fia_ld(const char *p, int dt)
{
    if (dt == FIA_F32) {
        float f;
        memcpy(&f, p, sizeof f);
        return f;
    }
    uint16_t h;
    memcpy(&h, p, sizeof h);
    return dt == FIA_F16 ? cannon_f16_to_f32(h) : cannon_bf16_to_f32(h);
}

/* n elements at p (element stride st) as fp32 into dst, then zeros up to np. */
static void fia_row_in(float *dst, const char *p, int64_t st, int64_t n, int64_t np, int dt)
{
    int64_t i = 0;
    if (st == 1 && dt == FIA_F32) {
        const float *f = (const float *)(const void *)p;
        for (; i + VW <= n; i += VW)
            vf_store_f32(dst + i, vf_load_f32(f + i));
    } else if (st == 1) {
        const uint16_t *h = (const uint16_t *)(const void *)p;
        if (dt == FIA_F16)
            for (; i + VW <= n; i += VW)
                vf_store_f32(dst + i, vf_load_f16(h + i));
        else
            for (; i + VW <= n; i += VW)
                vf_store_f32(dst + i, vf_load_bf16(h + i));
    }
    for (; i < n; i++)
        dst[i] = fia_ld(p + i * st * FIA_ES(dt), dt);
    for (; i < np; i++)
        dst[i] = 0.0f;
}

/* n fp32 values rounded to the dtype into p (element stride st). */
static void fia_row_out(char *p, int64_t st, const float *src, int64_t n, int dt)
{
    int64_t i = 0;
    if (dt == FIA_F32) {
        if (st == 1)
            for (; i + VW <= n; i += VW)
                vf_store_f32((float *)(void *)p + i, vf_load_f32(src + i));
        for (; i < n; i++)
            memcpy(p + i * st * 4, src + i, sizeof(float));
        return;
    }
    if (st == 1) {
        uint16_t *h = (uint16_t *)(void *)p;
        if (dt == FIA_F16)
            for (; i + VW <= n; i += VW)
                vf_store_f16(h + i, vf_load_f32(src + i));
        else
            for (; i + VW <= n; i += VW)
                vf_store_bf16(h + i, vf_load_f32(src + i));
    }
    for (; i < n; i++) {
        const uint16_t x = dt == FIA_F16 ? cannon_f32_to_f16(src[i]) : cannon_f32_to_bf16(src[i]);
        memcpy(p + i * st * 2, &x, sizeof x);
    }
}

/* Scores of one row for key columns [0, ncols) (a multiple of 4 * VW): Sc[c] = q . Kt[.][c]. */
static void fia_scores(const float *q, const float *Kt, int64_t D, int64_t ncols, float *Sc)
{
    for (int64_t c = 0; c < ncols; c += 4 * VW) {
        vf s0 = vf_set1(0.0f), s1 = s0, s2 = s0, s3 = s0;
        const float *kt = Kt + c;
        for (int64_t d = 0; d < D; d++, kt += FIA_KB) {
            const vf qd = vf_set1(q[d]);
            s0 = vf_fma(qd, vf_load_f32(kt), s0);
            s1 = vf_fma(qd, vf_load_f32(kt + VW), s1);
            s2 = vf_fma(qd, vf_load_f32(kt + 2 * VW), s2);
            s3 = vf_fma(qd, vf_load_f32(kt + 3 * VW), s3);
        }
        vf_store_f32(Sc + c, s0);
        vf_store_f32(Sc + c + VW, s1);
        vf_store_f32(Sc + c + 2 * VW, s2);
        vf_store_f32(Sc + c + 3 * VW, s3);
    }
}

/* Scores of n rows (Q rows Dp apart) into S rows (FIA_KB apart), columns [0, ncols) (a multiple of
 * 4 VW): four rows at a time share each loaded key vector; every element is summed over d in order,
 * exactly as fia_scores sums it. */
static void fia_scores_rows(const float *Q, int64_t Dp, int64_t n, const float *Kt, int64_t D, int64_t ncols, float *S)
{
    int64_t r = 0;
    for (; r + 4 <= n; r += 4) {
        const float *q = Q + r * Dp;
        float *s = S + r * FIA_KB;
        for (int64_t c = 0; c < ncols; c += 2 * VW) {
            vf a0 = vf_set1(0.0f), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
            const float *kt = Kt + c;
            for (int64_t d = 0; d < D; d++, kt += FIA_KB) {
                const vf k0 = vf_load_f32(kt), k1 = vf_load_f32(kt + VW);
                const vf q0 = vf_set1(q[d]), q1 = vf_set1(q[Dp + d]);
                const vf q2 = vf_set1(q[2 * Dp + d]), q3 = vf_set1(q[3 * Dp + d]);
                a0 = vf_fma(q0, k0, a0);
                a1 = vf_fma(q0, k1, a1);
                a2 = vf_fma(q1, k0, a2);
                a3 = vf_fma(q1, k1, a3);
                a4 = vf_fma(q2, k0, a4);
                a5 = vf_fma(q2, k1, a5);
                a6 = vf_fma(q3, k0, a6);
                a7 = vf_fma(q3, k1, a7);
            }
            vf_store_f32(s + c, a0);
            vf_store_f32(s + c + VW, a1);
            vf_store_f32(s + FIA_KB + c, a2);
            vf_store_f32(s + FIA_KB + c + VW, a3);
            vf_store_f32(s + 2 * FIA_KB + c, a4);
            vf_store_f32(s + 2 * FIA_KB + c + VW, a5);
            vf_store_f32(s + 3 * FIA_KB + c, a6);
            vf_store_f32(s + 3 * FIA_KB + c + VW, a7);
        }
    }
    for (; r < n; r++)
        fia_scores(Q + r * Dp, Kt, D, ncols, S + r * FIA_KB);
}

#if defined(__AVX512BF16__) && defined(__AVX512F__)
/* AVX512-BF16 scores (bf16 query and key, the training operator's avx512 tier when the CPU has
 * vdpbf16ps): each lane adds the two products of a pair of head-dim elements, d + 1 then d (the
 * instruction's order; the products of two bf16 values are exact in fp32, each addition rounds,
 * subnormals flush to 0), pairs in order of d. Qp: rows of D2 = ceil(D / 2) pairs (uint32, the
 * low half the even element) @p qst apart; Kp[d2 * FIA_KB + c]: key c's pair d2. */
#define FIA_HAVE_BF16DOT 1
static void fia_scores_rows_bf16(const uint32_t *Qp, int64_t qst, int64_t n, const uint32_t *Kp, int64_t D2,
                                 int64_t ncols, float *S)
{
    int64_t r = 0;
    for (; r + 4 <= n; r += 4) {
        const uint32_t *q = Qp + r * qst;
        float *s = S + r * FIA_KB;
        for (int64_t c = 0; c < ncols; c += 2 * VW) {
            __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
            const uint32_t *kt = Kp + c;
            for (int64_t d = 0; d < D2; d++, kt += FIA_KB) {
                const __m512bh k0 = (__m512bh)_mm512_loadu_si512((const void *)kt);
                const __m512bh k1 = (__m512bh)_mm512_loadu_si512((const void *)(kt + VW));
                const __m512bh q0 = (__m512bh)_mm512_set1_epi32((int)q[d]);
                const __m512bh q1 = (__m512bh)_mm512_set1_epi32((int)q[qst + d]);
                const __m512bh q2 = (__m512bh)_mm512_set1_epi32((int)q[2 * qst + d]);
                const __m512bh q3 = (__m512bh)_mm512_set1_epi32((int)q[3 * qst + d]);
                a0 = _mm512_dpbf16_ps(a0, q0, k0);
                a1 = _mm512_dpbf16_ps(a1, q0, k1);
                a2 = _mm512_dpbf16_ps(a2, q1, k0);
                a3 = _mm512_dpbf16_ps(a3, q1, k1);
                a4 = _mm512_dpbf16_ps(a4, q2, k0);
                a5 = _mm512_dpbf16_ps(a5, q2, k1);
                a6 = _mm512_dpbf16_ps(a6, q3, k0);
                a7 = _mm512_dpbf16_ps(a7, q3, k1);
            }
            _mm512_storeu_ps(s + c, a0);
            _mm512_storeu_ps(s + c + VW, a1);
            _mm512_storeu_ps(s + FIA_KB + c, a2);
            _mm512_storeu_ps(s + FIA_KB + c + VW, a3);
            _mm512_storeu_ps(s + 2 * FIA_KB + c, a4);
            _mm512_storeu_ps(s + 2 * FIA_KB + c + VW, a5);
            _mm512_storeu_ps(s + 3 * FIA_KB + c, a6);
            _mm512_storeu_ps(s + 3 * FIA_KB + c + VW, a7);
        }
    }
    for (; r < n; r++) {
        const uint32_t *q = Qp + r * qst;
        float *s = S + r * FIA_KB;
        for (int64_t c = 0; c < ncols; c += 2 * VW) {
            __m512 a0 = _mm512_setzero_ps(), a1 = a0;
            const uint32_t *kt = Kp + c;
            for (int64_t d = 0; d < D2; d++, kt += FIA_KB) {
                const __m512bh qd = (__m512bh)_mm512_set1_epi32((int)q[d]);
                a0 = _mm512_dpbf16_ps(a0, qd, (__m512bh)_mm512_loadu_si512((const void *)kt));
                a1 = _mm512_dpbf16_ps(a1, qd, (__m512bh)_mm512_loadu_si512((const void *)(kt + VW)));
            }
            _mm512_storeu_ps(s + c, a0);
            _mm512_storeu_ps(s + c + VW, a1);
        }
    }
}

/* A bf16 row of D elements at p (element stride st) as D2 = ceil(D / 2) pairs into dst (an odd D's
 * last pair holds a zero high half). */
static void fia_pairs_in(uint32_t *dst, const char *p, int64_t st, int64_t D)
{
    const uint16_t *h = (const uint16_t *)(const void *)p;
    int64_t d = 0;
    if (st == 1)
        for (; d + 1 < D; d += 2)
            memcpy(dst + d / 2, h + d, sizeof(uint32_t));
    for (; d < D; d += 2) {
        uint16_t lo, hi = 0;
        memcpy(&lo, p + d * st * 2, sizeof lo);
        if (d + 1 < D)
            memcpy(&hi, p + (d + 1) * st * 2, sizeof hi);
        dst[d / 2] = (uint32_t)lo | (uint32_t)hi << 16;
    }
}
#endif

/* q . k over Dp values (a multiple of VW; both rows zero-padded past D): two interleaved vector
 * sums, added, then the lanes in order. */
static float fia_dot(const float *q, const float *k, int64_t Dp)
{
    vf s0 = vf_set1(0.0f), s1 = s0;
    int64_t d = 0;
    for (; d + 2 * VW <= Dp; d += 2 * VW) {
        s0 = vf_fma(vf_load_f32(q + d), vf_load_f32(k + d), s0);
        s1 = vf_fma(vf_load_f32(q + d + VW), vf_load_f32(k + d + VW), s1);
    }
    if (d < Dp)
        s0 = vf_fma(vf_load_f32(q + d), vf_load_f32(k + d), s0);
    float lanes[VW];
    vf_to_array(lanes, vf_add(s0, s1));
    float t = 0.0f;
    for (int i = 0; i < VW; i++)
        t += lanes[i];
    return t;
}

/* fia_dot of q against a contiguous 16-bit key row of D = Dp values, widened in registers: the
 * same products summed in the same order (the widening is exact), without the row's fp32 copy. */
#define FIA_DOT16(LOAD)                                                                                                \
    do {                                                                                                               \
        for (; d + 2 * VW <= D; d += 2 * VW) {                                                                         \
            s0 = vf_fma(vf_load_f32(q + d), LOAD(h + d), s0);                                                          \
            s1 = vf_fma(vf_load_f32(q + d + VW), LOAD(h + d + VW), s1);                                                \
        }                                                                                                              \
        if (d < D)                                                                                                     \
            s0 = vf_fma(vf_load_f32(q + d), LOAD(h + d), s0);                                                          \
    } while (0)
static float fia_dot16(const float *q, const char *k, int64_t D, int dt)
{
    const uint16_t *h = (const uint16_t *)(const void *)k;
    vf s0 = vf_set1(0.0f), s1 = s0;
    int64_t d = 0;
    if (dt == FIA_F16)
        FIA_DOT16(vf_load_f16);
    else
        FIA_DOT16(vf_load_bf16);
    float lanes[VW];
    vf_to_array(lanes, vf_add(s0, s1));
    float t = 0.0f;
    for (int i = 0; i < VW; i++)
        t += lanes[i];
    return t;
}

/* ar = ar * corr + sum_{j in [ja, jb)} P[j] V[j] over Dp columns (a multiple of VW). */
static void fia_pv(float *ar, const float *P, const float *V, int64_t Dp, int64_t ja, int64_t jb, float corr)
{
    const vf cv = vf_set1(corr);
    int64_t d0 = 0;
    for (; d0 + 4 * VW <= Dp; d0 += 4 * VW) {
        vf a0 = vf_mul(vf_load_f32(ar + d0), cv), a1 = vf_mul(vf_load_f32(ar + d0 + VW), cv);
        vf a2 = vf_mul(vf_load_f32(ar + d0 + 2 * VW), cv), a3 = vf_mul(vf_load_f32(ar + d0 + 3 * VW), cv);
        for (int64_t j = ja; j < jb; j++) {
            const vf pj = vf_set1(P[j]);
            const float *vr = V + j * Dp + d0;
            a0 = vf_fma(pj, vf_load_f32(vr), a0);
            a1 = vf_fma(pj, vf_load_f32(vr + VW), a1);
            a2 = vf_fma(pj, vf_load_f32(vr + 2 * VW), a2);
            a3 = vf_fma(pj, vf_load_f32(vr + 3 * VW), a3);
        }
        vf_store_f32(ar + d0, a0);
        vf_store_f32(ar + d0 + VW, a1);
        vf_store_f32(ar + d0 + 2 * VW, a2);
        vf_store_f32(ar + d0 + 3 * VW, a3);
    }
    for (; d0 < Dp; d0 += VW) {
        vf a0 = vf_mul(vf_load_f32(ar + d0), cv);
        for (int64_t j = ja; j < jb; j++)
            a0 = vf_fma(vf_set1(P[j]), vf_load_f32(V + j * Dp + d0), a0);
        vf_store_f32(ar + d0, a0);
    }
}

/* Four accumulators at once: ar[k] = ar[k] corr[k] + sum_{j in [ja, jb)} P[k][j] V[j] over Dp
 * columns, j in order for each: four fia_pv calls' arithmetic, each row of V loaded once for the
 * four. */
static void fia_pv4(float *const ar[4], const float *const P[4], const float *V, int64_t Dp, int64_t ja, int64_t jb,
                    const float corr[4])
{
    const vf c0 = vf_set1(corr[0]), c1 = vf_set1(corr[1]), c2 = vf_set1(corr[2]), c3 = vf_set1(corr[3]);
    int64_t d0 = 0;
    for (; d0 + 2 * VW <= Dp; d0 += 2 * VW) {
        vf a00 = vf_mul(vf_load_f32(ar[0] + d0), c0), a01 = vf_mul(vf_load_f32(ar[0] + d0 + VW), c0);
        vf a10 = vf_mul(vf_load_f32(ar[1] + d0), c1), a11 = vf_mul(vf_load_f32(ar[1] + d0 + VW), c1);
        vf a20 = vf_mul(vf_load_f32(ar[2] + d0), c2), a21 = vf_mul(vf_load_f32(ar[2] + d0 + VW), c2);
        vf a30 = vf_mul(vf_load_f32(ar[3] + d0), c3), a31 = vf_mul(vf_load_f32(ar[3] + d0 + VW), c3);
        for (int64_t j = ja; j < jb; j++) {
            const vf v0 = vf_load_f32(V + j * Dp + d0), v1 = vf_load_f32(V + j * Dp + d0 + VW);
            const vf p0 = vf_set1(P[0][j]), p1 = vf_set1(P[1][j]), p2 = vf_set1(P[2][j]), p3 = vf_set1(P[3][j]);
            a00 = vf_fma(p0, v0, a00);
            a01 = vf_fma(p0, v1, a01);
            a10 = vf_fma(p1, v0, a10);
            a11 = vf_fma(p1, v1, a11);
            a20 = vf_fma(p2, v0, a20);
            a21 = vf_fma(p2, v1, a21);
            a30 = vf_fma(p3, v0, a30);
            a31 = vf_fma(p3, v1, a31);
        }
        vf_store_f32(ar[0] + d0, a00);
        vf_store_f32(ar[0] + d0 + VW, a01);
        vf_store_f32(ar[1] + d0, a10);
        vf_store_f32(ar[1] + d0 + VW, a11);
        vf_store_f32(ar[2] + d0, a20);
        vf_store_f32(ar[2] + d0 + VW, a21);
        vf_store_f32(ar[3] + d0, a30);
        vf_store_f32(ar[3] + d0 + VW, a31);
    }
    for (; d0 < Dp; d0 += VW) {
        vf a0 = vf_mul(vf_load_f32(ar[0] + d0), c0), a1 = vf_mul(vf_load_f32(ar[1] + d0), c1);
        vf a2 = vf_mul(vf_load_f32(ar[2] + d0), c2), a3 = vf_mul(vf_load_f32(ar[3] + d0), c3);
        for (int64_t j = ja; j < jb; j++) {
            const vf v = vf_load_f32(V + j * Dp + d0);
            a0 = vf_fma(vf_set1(P[0][j]), v, a0);
            a1 = vf_fma(vf_set1(P[1][j]), v, a1);
            a2 = vf_fma(vf_set1(P[2][j]), v, a2);
            a3 = vf_fma(vf_set1(P[3][j]), v, a3);
        }
        vf_store_f32(ar[0] + d0, a0);
        vf_store_f32(ar[1] + d0, a1);
        vf_store_f32(ar[2] + d0, a2);
        vf_store_f32(ar[3] + d0, a3);
    }
}

/* p = exp(s - mx) over n values (a multiple of VW), 0 where s is -inf; returns their sum, added in
 * lane order of fixed vector sums. */
static float fia_exp_row(float *Sc, int64_t n, float mx)
{
    const vf mv = vf_set1(mx), ninf = vf_set1(FIA_NEG_INF), zero = vf_set1(0.0f);
    vf sum = zero;
    for (int64_t c = 0; c < n; c += VW) {
        const vf s = vf_load_f32(Sc + c);
        const vf p = vf_blend(vf_eq(s, ninf), zero, vf_exp(vf_sub(s, mv)));
        vf_store_f32(Sc + c, p);
        sum = vf_add(sum, p);
    }
    float lanes[VW];
    vf_to_array(lanes, sum);
    float t = 0.0f;
    for (int k = 0; k < VW; k++)
        t += lanes[k];
    return t;
}

/* The generated pse (pseType 2, 3) at key-minus-query position @p pos for a head whose slope
 * negated is @p nslope: nslope |pos| (pseType 2) or nslope sqrt|pos| (3), in fp32. */
static inline float fia_alibi(int gen, float nslope, int64_t pos)
{
    float p = fabsf((float)pos);
    if (gen == 3)
        p = sqrtf(p);
    return p * nslope;
}

/* One score with its position bias, as the forward defines it and the backward recomputes it: the
 * generated pse (pse_gen 2, 3: raw * scale + alibi at key-minus-query position @p pos), or the pse
 * value at @p pse_at (NULL: none) added before the scale (pse_first) or after it. */
static inline float fia_biased(float raw, float scale, int pse_gen, float nslope, int64_t pos, const char *pse_at,
                               int pse_first, int dt)
{
    if (pse_gen)
        return raw * scale + fia_alibi(pse_gen, nslope, pos);
    if (pse_at && pse_first)
        return (raw + fia_ld(pse_at, dt)) * scale;
    float s = raw * scale;
    if (pse_at)
        s += fia_ld(pse_at, dt);
    return s;
}

/* Batch b's sequence record: the training operator's, else built from the lengths and the band
 * rule of the inference operator. */
static inline void fia_seq_of(const fia_args *a, int64_t b, fia_seq *q)
{
    if (a->has_seq) {
        *q = fia_seqs(a)[b];
        return;
    }
    memset(q, 0, sizeof *q);
    q->qlen = a->S, q->kvlen = a->Skv;
    if (a->has_lens) {
        q->qlen = fia_lens(a)[b];
        q->kvlen = fia_lens(a)[a->B + b];
    }
    q->lo = a->lo, q->hi = a->hi;
    q->shift = a->rightdown ? q->kvlen - q->qlen : 0;
    q->drop0 = b * a->N * a->S * a->Skv, q->dS = a->S, q->dSkv = a->Skv;
}

/* The scores of a row without pse or mask: S[c] = S[c] * scale for c in [ja, jb), -inf elsewhere
 * in [0, ncols) (a multiple of VW); returns their max, NaN when one is NaN (as the element loop
 * of fia_unit computes them). */
static float fia_scale_row(float *S, int64_t ncols, int64_t ja, int64_t jb, float scale)
{
    const vf sv = vf_set1(scale), ninf = vf_set1(FIA_NEG_INF), zero = vf_set1(0.0f);
    for (int64_t c = 0; c < ncols; c += VW)
        vf_store_f32(S + c, vf_mul(vf_load_f32(S + c), sv));
    for (int64_t c = 0; c < ja; c++)
        S[c] = FIA_NEG_INF;
    for (int64_t c = jb; c < ncols; c++)
        S[c] = FIA_NEG_INF;
    vf vmx = ninf, vnan = zero;
    for (int64_t c = 0; c < ncols; c += VW) {
        const vf x = vf_load_f32(S + c);
        vmx = vf_max(x, vmx);                  /* a NaN lane keeps vmx */
        vnan = vf_blend(vf_eq(x, x), vnan, x); /* ... and lands here */
    }
    float lanes[VW], mx = vf_hmax(vmx);
    vf_to_array(lanes, vnan);
    for (int k = 0; k < VW; k++)
        mx = lanes[k] != lanes[k] ? lanes[k] : mx;
    return mx;
}

/* Unit u over keys [kc0, kc1): into the output, or into @p part (rows of m, l, acc[Dp]). */
static void fia_unit(const fia_args *a, float *ws, int64_t u, int64_t kc0, int64_t kc1, float *part)
{
    const int64_t qb = u % a->nqb, t = u / a->nqb, g = t % a->Nkv, b = t / a->Nkv;
    const int64_t Dp = a->Dp, D = a->D, G = a->group, dt = a->dt, es = FIA_ES(dt);
    const int64_t i0 = qb * a->qblk;
    const int64_t ni = a->S - i0 < a->qblk ? a->S - i0 : a->qblk;
    const int64_t R = G * ni;
    fia_seq sq;
    fia_seq_of(a, b, &sq);
    const int64_t qlen = sq.qlen;
    /* element offsets of the batch's first row: q/out/stats rows, key/value rows */
    const int64_t qb0 = b * a->qs[0] + sq.q0 * a->qs[2], ob0 = b * a->os[0] + sq.q0 * a->os[2];
    const int64_t kb0 = b * a->ks[0] + sq.kv0 * a->ks[2], vb0 = b * a->vs[0] + sq.kv0 * a->vs[2];
    float *Q = ws, *acc = Q + FIA_ROWS * Dp, *Kt = acc + FIA_ROWS * Dp, *V = Kt + Dp * FIA_KB;
    float *Sc = V + FIA_KB * Dp, *m = Sc + FIA_ROWS * FIA_KB, *l = m + FIA_ROWS;
    int64_t jlo[FIA_ROWS], jhi[FIA_ROWS], pv_a[FIA_ROWS], pv_b[FIA_ROWS];
    float pv_c[FIA_ROWS];
    char pv_on[FIA_ROWS];
    /* A few rows (decoding: one query position per head) take their scores key by key from the
     * key row itself; more rows share one transposed key block. */
    const int direct = R <= FIA_DIRECT_ROWS;
#if defined(FIA_HAVE_BF16DOT)
    /* bf16 pairs instead (fia_scores_rows_bf16): Qp after l (the training operator's workspace
     * has room), the key block's pairs in Kt's place */
    const int pairs = a->bf16dot && !direct;
    const int64_t D2 = (D + 1) / 2;
    uint32_t *Qp = (uint32_t *)(void *)(l + FIA_ROWS), *Kp = (uint32_t *)(void *)Kt;
#else
    const int pairs = 0;
#endif
    int64_t jmin = sq.kvlen, jmax = 0;
    for (int64_t r = 0; r < R; r++) {
        const int64_t h = g * G + r / ni, i = i0 + r % ni;
        if (i < qlen)
            fia_row_in(Q + r * Dp, a->q + (qb0 + h * a->qs[1] + i * a->qs[2]) * es, a->qs[3], D, Dp, (int)dt);
        else
            memset(Q + r * Dp, 0, (size_t)Dp * sizeof(float));
#if defined(FIA_HAVE_BF16DOT)
        if (pairs && i < qlen)
            fia_pairs_in(Qp + r * D2, a->q + (qb0 + h * a->qs[1] + i * a->qs[2]) * es, a->qs[3], D);
        else if (pairs)
            memset(Qp + r * D2, 0, (size_t)D2 * sizeof(uint32_t));
#endif
        memset(acc + r * Dp, 0, (size_t)Dp * sizeof(float));
        m[r] = FIA_NEG_INF;
        l[r] = 0.0f;
        int64_t lo, hi;
        fia_seq_keys(&sq, i, &lo, &hi);
        lo = lo < kc0 ? kc0 : lo;
        hi = hi > kc1 ? kc1 : hi;
        if (lo >= hi)
            lo = hi = 0;
        jlo[r] = lo;
        jhi[r] = hi;
        if (lo < hi) {
            jmin = lo < jmin ? lo : jmin;
            jmax = hi > jmax ? hi : jmax;
        }
    }
    for (int64_t j0 = jmin; j0 < jmax; j0 += FIA_KB) {
        const int64_t nk = jmax - j0 < FIA_KB ? jmax - j0 : FIA_KB;
        float *tmp = direct ? Kt : Sc; /* a key row (Sc: before the scores need it) */
        for (int64_t j = 0; j < nk; j++) {
            const int64_t jj = j0 + j;
            const char *kr = a->k + (kb0 + g * a->ks[1] + jj * a->ks[2]) * es;
            if (jj + FIA_PF_KEYS < jmax && a->ks[3] == 1 && a->vs[3] == 1) {
                const char *kp = kr + FIA_PF_KEYS * a->ks[2] * es;
                const char *vp = a->v + (vb0 + g * a->vs[1] + (jj + FIA_PF_KEYS) * a->vs[2]) * es;
                for (int64_t o = 0; o < D * es; o += 64) {
                    __builtin_prefetch(kp + o, 0, 3);
                    __builtin_prefetch(vp + o, 0, 3);
                }
            }
            if (direct && a->ks[3] == 1 && D == Dp && dt != FIA_F32) {
                for (int64_t r = 0; r < R; r++)
                    Sc[r * FIA_KB + j] = fia_dot16(Q + r * Dp, kr, D, (int)dt);
            } else if (direct) {
                fia_row_in(tmp, kr, a->ks[3], D, Dp, (int)dt);
                for (int64_t r = 0; r < R; r++)
                    Sc[r * FIA_KB + j] = fia_dot(Q + r * Dp, tmp, Dp);
            } else if (pairs) {
#if defined(FIA_HAVE_BF16DOT)
                uint32_t *pr = (uint32_t *)(void *)tmp;
                fia_pairs_in(pr, kr, a->ks[3], D);
                for (int64_t d = 0; d < D2; d++)
                    Kp[d * FIA_KB + j] = pr[d];
#endif
            } else {
                fia_row_in(tmp, kr, a->ks[3], D, D, (int)dt);
                for (int64_t d = 0; d < D; d++)
                    Kt[d * FIA_KB + j] = tmp[d];
            }
            fia_row_in(V + j * Dp, a->v + (vb0 + g * a->vs[1] + jj * a->vs[2]) * es, a->vs[3], D, Dp, (int)dt);
        }
        if (nk < FIA_KB && !direct)
            for (int64_t d = 0; d < D; d++) /* D rows of floats cover the D2 rows of pairs too */
                memset(Kt + d * FIA_KB + nk, 0, (size_t)(FIA_KB - nk) * sizeof(float));
        if (!direct) { /* every row's scores, four rows per pass over the block, as far as any row needs */
            int64_t ncmax = 0;
            for (int64_t r = 0; r < R; r++) {
                const int64_t jb = jhi[r] < j0 + nk ? jhi[r] - j0 : nk;
                const int64_t nc = (jb + 4 * VW - 1) / (4 * VW) * (4 * VW);
                ncmax = jlo[r] < j0 + nk && jhi[r] > j0 && nc > ncmax ? nc : ncmax;
            }
#if defined(FIA_HAVE_BF16DOT)
            if (pairs)
                fia_scores_rows_bf16(Qp, D2, R, Kp, D2, ncmax, Sc);
            else
#endif
                fia_scores_rows(Q, Dp, R, Kt, D, ncmax, Sc);
        }
        for (int64_t r = 0; r < R; r++) {
            pv_on[r] = 0;
            const int64_t ja = jlo[r] > j0 ? jlo[r] - j0 : 0;
            const int64_t jb = jhi[r] < j0 + nk ? jhi[r] - j0 : nk;
            if (ja >= jb)
                continue;
            const int64_t h = g * G + r / ni, i = i0 + r % ni;
            const int64_t ncols = (jb + 4 * VW - 1) / (4 * VW) * (4 * VW);
            float *S = Sc + r * FIA_KB;
            const char *pse =
                a->has_pse && !a->pse_gen ? a->pse + (b * a->ps[0] + h * a->ps[1] + i * a->ps[2]) * es : NULL;
            const unsigned char *mk =
                a->has_mask ? (const unsigned char *)a->mask + b * a->ms[0] + h * a->ms[1] + i * a->ms[2] : NULL;
            float nslope = 0.0f;
            if (a->pse_gen) {
                memcpy(&nslope, a->pse + (b * a->ps[0] + h * a->ps[1]) * 4, sizeof nslope);
                nslope = -nslope;
            }
            float mx = FIA_NEG_INF;
            if (!pse && !mk && !a->pse_gen)
                mx = fia_scale_row(S, ncols, ja, jb, a->scale);
            else
                for (int64_t c = 0; c < ncols; c++) {
                    float s = FIA_NEG_INF;
                    if (c >= ja && c < jb) {
                        const int64_t jj = j0 + c;
                        s = fia_biased(S[c], a->scale, a->pse_gen, nslope, jj + a->alibi_off - i,
                                       pse ? pse + jj * a->ps[3] * es : NULL, a->pse_first, (int)dt);
                        if (mk && mk[jj * a->ms[3]])
                            s = FIA_NEG_INF;
                    }
                    S[c] = s;
                    mx = s > mx || s != s ? s : mx; /* a NaN score stays the max: it propagates */
                }
            if (mx == FIA_NEG_INF)
                continue;
            const float mnew = mx > m[r] || mx != mx ? mx : m[r];
            const float corr = m[r] == FIA_NEG_INF ? 0.0f : expf(m[r] - mnew);
            const float psum = fia_exp_row(S, ncols, mnew);
            if (a->drop) {
                const int64_t f0 = sq.drop0 + (h * sq.dS + i) * sq.dSkv + j0;
                for (int64_t c = ja; c < jb; c++)
                    S[c] = fia_kept(a->drop, f0 + c) ? S[c] * a->keep_inv : 0.0f;
            }
            l[r] = l[r] * corr + psum;
            m[r] = mnew;
            pv_on[r] = 1, pv_c[r] = corr, pv_a[r] = ja, pv_b[r] = jb;
        }
        /* acc = acc corr + P V, four rows with the same key range at a time */
        for (int64_t r = 0; r < R;) {
            if (r + 4 <= R && pv_on[r] && pv_on[r + 1] && pv_on[r + 2] && pv_on[r + 3] && pv_a[r + 1] == pv_a[r] &&
                pv_a[r + 2] == pv_a[r] && pv_a[r + 3] == pv_a[r] && pv_b[r + 1] == pv_b[r] && pv_b[r + 2] == pv_b[r] &&
                pv_b[r + 3] == pv_b[r]) {
                float *const ar4[4] = {acc + r * Dp, acc + (r + 1) * Dp, acc + (r + 2) * Dp, acc + (r + 3) * Dp};
                const float *const p4[4] = {Sc + r * FIA_KB, Sc + (r + 1) * FIA_KB, Sc + (r + 2) * FIA_KB,
                                            Sc + (r + 3) * FIA_KB};
                fia_pv4(ar4, p4, V, Dp, pv_a[r], pv_b[r], pv_c + r);
                r += 4;
                continue;
            }
            if (pv_on[r])
                fia_pv(acc + r * Dp, Sc + r * FIA_KB, V, Dp, pv_a[r], pv_b[r], pv_c[r]);
            r++;
        }
    }
    if (part) {
        for (int64_t r = 0; r < R; r++) {
            float *pr = part + r * (Dp + 2);
            pr[0] = m[r];
            pr[1] = l[r];
            memcpy(pr + 2, acc + r * Dp, (size_t)Dp * sizeof(float));
        }
        return;
    }
    for (int64_t r = 0; r < R; r++) {
        const int64_t h = g * G + r / ni, i = i0 + r % ni;
        if (a->has_seq && i >= qlen)
            continue;          /* a row of the next sequence (TND) */
        float *o = Q + r * Dp; /* the row's query is no longer needed */
        if (l[r] != 0.0f) {    /* l > 0, or NaN from a NaN input */
            const vf inv = vf_set1(1.0f / l[r]);
            for (int64_t d = 0; d < Dp; d += VW)
                vf_store_f32(o + d, vf_mul(vf_load_f32(acc + r * Dp + d), inv));
        } else {
            memset(o, 0, (size_t)Dp * sizeof(float));
        }
        fia_row_out(a->out + (ob0 + h * a->os[1] + i * a->os[2]) * es, a->os[3], o, D, (int)dt);
        if (a->lse) {
            const float v = l[r] != 0.0f ? (float)((double)m[r] + log((double)l[r])) : FIA_NEG_INF;
            memcpy(a->lse + (b * a->ls[0] + h * a->ls[1] + i * a->ls[2]) * 4, &v, sizeof v);
        }
        if (a->smax) {
            const int64_t xo = b * a->xs[0] + h * a->xs[1] + (sq.q0 + i) * a->xs[2];
            float *xm = (float *)(void *)(a->smax + xo * 4);
            float *xl = (float *)(void *)(a->ssum + xo * 4);
            for (int k = 0; k < 8; k++) {
                xm[k] = m[r];
                xl[k] = l[r];
            }
        }
    }
}

void FIA_UNITS_FN(const fia_args *a, float *ws, int64_t w0, int64_t w1)
{
    for (int64_t w = w0; w < w1; w++) {
        if (a->nsplit <= 1) {
            fia_unit(a, ws, w, 0, a->Skv, NULL);
            continue;
        }
        const int64_t c = w % a->nsplit, kc0 = c * a->chunk;
        const int64_t kc1 = a->Skv - kc0 < a->chunk ? a->Skv : kc0 + a->chunk;
        fia_unit(a, ws, w / a->nsplit, kc0, kc1, (float *)(void *)a->part + w * a->part_rows * (a->Dp + 2));
    }
}
