/*
 * bf16 GEMM for CPUs with AVX512-BF16: packing of both operands and the register-blocked
 * vdpbf16ps micro-kernel.
 *
 * vdpbf16ps multiplies pairs of bf16 values along K and adds both products to one fp32 lane, so
 * both packed layouts are made of K pairs (see mm_kernels.h):
 *  - B: panels of MM_NR columns, each (kp/2) rows of MM_NR pairs: one 64-byte row per zmm.
 *  - A: tiles of MM_MR rows, each (kp/2) rows of MM_MR pairs: the micro-kernel broadcasts one
 *    32-bit pair per row of C from consecutive addresses, so A streams linearly too.
 * The micro-kernel keeps an MM_MR x MM_NR tile of C in 2*MM_MR zmm accumulators over the whole
 * K loop (no K blocking), so every value of C is one sequential fp32 sum over K of exact bf16
 * products, rounded once to bf16: the result does not depend on the blocking, the thread count,
 * or the tile an element falls in.
 * Without K blocking, each step of the loop reads MM_MR*4 bytes of A and 128 of B for 2*MM_MR
 * vdpbf16ps (one zmm per cycle on Zen 4): about 7 bytes a cycle, well within L2's bandwidth, so
 * the B panel and the A block are read from L2 and nothing needs to fit in L1.
 */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "fp_convert.h"
#include "mm_kernels.h"

#if defined(__AVX512BF16__)
#include "../kernels/vec_avx512.h"

int cannon_mm_bf16_available(void)
{
    return 1;
}

static inline uint32_t ld32(const uint16_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

void cannon_mm_bf16_pack_a_avx512(const uint16_t *a, int64_t am, int64_t ak, int64_t M, int64_t K, int64_t kp,
                                  int64_t t0, int64_t t1, uint32_t *dst)
{
    const int64_t np = kp / 2, kfull = K / 2;
    for (int64_t t = t0; t < t1; t++) {
        uint32_t *tile = dst + t * np * MM_MR;
        for (int r = 0; r < MM_MR; r++) {
            const int64_t i = t * MM_MR + r;
            uint32_t *d = tile + r;
            if (i >= M) {
                for (int64_t p = 0; p < np; p++)
                    d[p * MM_MR] = 0;
                continue;
            }
            const uint16_t *row = a + i * am;
            if (ak == 1) {
                /* a row's pairs are adjacent: one 32-bit move each */
                for (int64_t p = 0; p < kfull; p++)
                    d[p * MM_MR] = ld32(row + 2 * p);
            } else {
                for (int64_t p = 0; p < kfull; p++)
                    d[p * MM_MR] = (uint32_t)row[2 * p * ak] | (uint32_t)row[(2 * p + 1) * ak] << 16;
            }
            if (kfull < np) /* odd K: the last pair's upper half is a zero */
                d[kfull * MM_MR] = row[(K - 1) * ak];
        }
    }
}

void cannon_mm_bf16_pack_b_avx512(const uint16_t *b, int64_t bk, int64_t bn, int64_t K, int64_t N, int64_t kp,
                                  int64_t p0, int64_t p1, uint16_t *dst)
{
    const int64_t np = kp / 2;
    /* word indices interleaving two rows of 32 values (row 2p in lanes 0-31 of the permute's
     * first source, row 2p+1 in the second): low and high halves of the pair panel row */
    static const uint16_t ilo[32] = {0, 32, 1, 33, 2, 34, 3, 35, 4, 36, 5, 37, 6, 38, 7, 39,
                                     8, 40, 9, 41, 10, 42, 11, 43, 12, 44, 13, 45, 14, 46, 15, 47};
    static const uint16_t ihi[32] = {16, 48, 17, 49, 18, 50, 19, 51, 20, 52, 21, 53, 22, 54, 23, 55,
                                     24, 56, 25, 57, 26, 58, 27, 59, 28, 60, 29, 61, 30, 62, 31, 63};
    const __m512i vlo = _mm512_loadu_si512((const void *)ilo), vhi = _mm512_loadu_si512((const void *)ihi);
    for (int64_t jp = p0; jp < p1; jp++) {
        uint16_t *panel = dst + jp * np * 2 * MM_NR;
        const int64_t j0 = jp * MM_NR, nc = N - j0 < MM_NR ? N - j0 : MM_NR;
        if (bn == 1) {
            const __mmask32 m = nc == MM_NR ? ~(__mmask32)0 : (((__mmask32)1 << nc) - 1);
            for (int64_t p = 0; p < np; p++) {
                const __m512i r0 = _mm512_maskz_loadu_epi16(m, b + 2 * p * bk + j0);
                const __m512i r1 = 2 * p + 1 < K ? _mm512_maskz_loadu_epi16(m, b + (2 * p + 1) * bk + j0)
                                                 : _mm512_setzero_si512();
                _mm512_storeu_si512((void *)(panel + p * 2 * MM_NR), _mm512_permutex2var_epi16(r0, vlo, r1));
                _mm512_storeu_si512((void *)(panel + p * 2 * MM_NR + MM_NR), _mm512_permutex2var_epi16(r0, vhi, r1));
            }
            continue;
        }
        uint32_t *pd = (uint32_t *)(void *)panel;
        const int64_t kfull = K / 2;
        for (int64_t jj = 0; jj < MM_NR; jj++) {
            uint32_t *d = pd + jj;
            if (jj >= nc) {
                for (int64_t p = 0; p < np; p++)
                    d[p * MM_NR] = 0;
                continue;
            }
            const uint16_t *col = b + (j0 + jj) * bn;
            if (bk == 1) {
                /* transposed B: a column's pairs are adjacent */
                for (int64_t p = 0; p < kfull; p++)
                    d[p * MM_NR] = ld32(col + 2 * p);
            } else {
                for (int64_t p = 0; p < kfull; p++)
                    d[p * MM_NR] = (uint32_t)col[2 * p * bk] | (uint32_t)col[(2 * p + 1) * bk] << 16;
            }
            if (kfull < np)
                d[kfull * MM_NR] = col[(K - 1) * bk];
        }
    }
}

#if MM_MR != 12
#error "micro() is written out for MM_MR == 12"
#endif
/* One MM_MR x MM_NR tile over the whole K; stores rows < mr and columns < nc. The 24
 * accumulators are written out (compilers do not keep an array of them in registers). */
static void micro(const uint32_t *at, const uint16_t *panel, int64_t np, int mr, int64_t nc, uint16_t *c, int64_t cm,
                  int64_t cn)
{
    __m512 c00 = _mm512_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00;
    __m512 c40 = c00, c41 = c00, c50 = c00, c51 = c00, c60 = c00, c61 = c00, c70 = c00, c71 = c00;
    __m512 c80 = c00, c81 = c00, c90 = c00, c91 = c00, cA0 = c00, cA1 = c00, cB0 = c00, cB1 = c00;
    for (int64_t p = 0; p < np; p++) {
        const __m512bh b0 = (__m512bh)_mm512_loadu_si512((const void *)(panel + p * 2 * MM_NR));
        const __m512bh b1 = (__m512bh)_mm512_loadu_si512((const void *)(panel + p * 2 * MM_NR + MM_NR));
        const uint32_t *ap = at + p * MM_MR;
#define MM_ROW(r, x0, x1)                                                         \
    do {                                                                          \
        const __m512bh av_ = (__m512bh)_mm512_set1_epi32((int)ap[r]);             \
        x0 = _mm512_dpbf16_ps(x0, av_, b0);                                       \
        x1 = _mm512_dpbf16_ps(x1, av_, b1);                                       \
    } while (0)
        MM_ROW(0, c00, c01);
        MM_ROW(1, c10, c11);
        MM_ROW(2, c20, c21);
        MM_ROW(3, c30, c31);
        MM_ROW(4, c40, c41);
        MM_ROW(5, c50, c51);
        MM_ROW(6, c60, c61);
        MM_ROW(7, c70, c71);
        MM_ROW(8, c80, c81);
        MM_ROW(9, c90, c91);
        MM_ROW(10, cA0, cA1);
        MM_ROW(11, cB0, cB1);
#undef MM_ROW
    }
    const __m512 acc[MM_MR][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51},
                                  {c60, c61}, {c70, c71}, {c80, c81}, {c90, c91}, {cA0, cA1}, {cB0, cB1}};
    if (cn == 1) {
        if (nc == MM_NR) {
            for (int r = 0; r < mr; r++) {
                vf_store_bf16(c + r * cm, acc[r][0]);
                vf_store_bf16(c + r * cm + 16, acc[r][1]);
            }
        } else {
            const size_t n0 = nc < 16 ? (size_t)nc : 16, n1 = nc > 16 ? (size_t)(nc - 16) : 0;
            for (int r = 0; r < mr; r++) {
                vf_storen_bf16(c + r * cm, acc[r][0], n0);
                if (n1)
                    vf_storen_bf16(c + r * cm + 16, acc[r][1], n1);
            }
        }
        return;
    }
    for (int r = 0; r < mr; r++) {
        float tmp[MM_NR];
        _mm512_storeu_ps(tmp, acc[r][0]);
        _mm512_storeu_ps(tmp + 16, acc[r][1]);
        for (int64_t j = 0; j < nc; j++)
            c[r * cm + j * cn] = cannon_f32_to_bf16(tmp[j]);
    }
}

void cannon_mm_bf16_tiles_avx512(const uint32_t *pa, const uint16_t *pb, int64_t M, int64_t N, int64_t kp,
                                 int64_t t0, int64_t t1, int64_t p0, int64_t p1, uint16_t *c, int64_t cm, int64_t cn)
{
    const int64_t np = kp / 2;
    /* panels outer: one B panel is read from L2 by every tile of the row block, and the block's
     * A tiles stay in L2 across the panels */
    for (int64_t jp = p0; jp < p1; jp++) {
        const uint16_t *panel = pb + jp * np * 2 * MM_NR;
        const int64_t j0 = jp * MM_NR, nc = N - j0 < MM_NR ? N - j0 : MM_NR;
        for (int64_t t = t0; t < t1; t++) {
            const int64_t i0 = t * MM_MR;
            const int mr = (int)(M - i0 < MM_MR ? M - i0 : MM_MR);
            micro(pa + t * np * MM_MR, panel, np, mr, nc, c + i0 * cm + j0 * cn, cm, cn);
        }
    }
}
#else
int cannon_mm_bf16_available(void)
{
    return 0;
}

void cannon_mm_bf16_pack_a_avx512(const uint16_t *a, int64_t am, int64_t ak, int64_t M, int64_t K, int64_t kp,
                                  int64_t t0, int64_t t1, uint32_t *dst)
{
    (void)a, (void)am, (void)ak, (void)M, (void)K, (void)kp, (void)t0, (void)t1, (void)dst;
}

void cannon_mm_bf16_pack_b_avx512(const uint16_t *b, int64_t bk, int64_t bn, int64_t K, int64_t N, int64_t kp,
                                  int64_t p0, int64_t p1, uint16_t *dst)
{
    (void)b, (void)bk, (void)bn, (void)K, (void)N, (void)kp, (void)p0, (void)p1, (void)dst;
}

void cannon_mm_bf16_tiles_avx512(const uint32_t *pa, const uint16_t *pb, int64_t M, int64_t N, int64_t kp,
                                 int64_t t0, int64_t t1, int64_t p0, int64_t p1, uint16_t *c, int64_t cm, int64_t cn)
{
    (void)pa, (void)pb, (void)M, (void)N, (void)kp, (void)t0, (void)t1, (void)p0, (void)p1, (void)c, (void)cm,
        (void)cn;
}
#endif
