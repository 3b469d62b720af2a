/*
 * bf16 GEMM tile for CPUs with AVX512-BF16: vdpbf16ps multiplies pairs of bf16 values along K
 * and adds both products to an fp32 lane, so the packed B panel interleaves each column's two
 * K values (pair p of column j at [p][j][2]) and each A row's pair is broadcast as one 32-bit
 * value. C tiles of MM_MR x MM_NR stay in 16 zmm accumulators over the whole K loop (the B panel
 * is reused from L2 by every row block), then are rounded to bf16 once, as torch's bf16 matmul
 * does (fp32 accumulation, one final rounding). Products of two bf16 values are exact in fp32.
 */
#include <immintrin.h>
#include <stdint.h>

#include "../kernels/convert.h"
#include "mm_kernels.h"

#if defined(__AVX512BF16__)
int cannon_mm_bf16_available(void)
{
    return 1;
}

static inline __attribute__((always_inline)) void tile(const int mr, const uint16_t *pa, int64_t kp,
                                                       const uint16_t *panel, int64_t ncols, uint16_t *c,
                                                       int64_t cm, int64_t cn)
{
    __m512 acc[MM_MR][2];
    for (int r = 0; r < mr; r++)
        acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    const int64_t np = kp / 2;
    for (int64_t p = 0; p < np; p++) {
        const __m512bh b0 = (__m512bh)_mm512_loadu_si512((const void *)(panel + p * 2 * MM_NR));
        const __m512bh b1 = (__m512bh)_mm512_loadu_si512((const void *)(panel + p * 2 * MM_NR + 32));
        for (int r = 0; r < mr; r++) {
            uint32_t pair;
            __builtin_memcpy(&pair, pa + r * kp + 2 * p, 4);
            const __m512bh av = (__m512bh)_mm512_set1_epi32((int)pair);
            acc[r][0] = _mm512_dpbf16_ps(acc[r][0], av, b0);
            acc[r][1] = _mm512_dpbf16_ps(acc[r][1], av, b1);
        }
    }
    for (int r = 0; r < mr; r++) {
        float tmp[MM_NR];
        _mm512_storeu_ps(tmp, acc[r][0]);
        _mm512_storeu_ps(tmp + 16, acc[r][1]);
        uint16_t *crow = c + r * cm;
        if (cn == 1 && ncols == MM_NR) {
            /* exact round-to-nearest-even (vcvtneps2bf16 would flush subnormals) */
            for (int j = 0; j < MM_NR; j++)
                crow[j] = cannon_f32_to_bf16(tmp[j]);
        } else {
            for (int64_t j = 0; j < ncols; j++)
                crow[j * cn] = cannon_f32_to_bf16(tmp[j]);
        }
    }
}

void cannon_mm_bf16_rows_avx512(const uint16_t *pa, const uint16_t *pb, int64_t M, int64_t N, int64_t kp,
                                int64_t npan, int64_t m0, int64_t m1, uint16_t *c, int64_t cm, int64_t cn)
{
    (void)M;
    for (int64_t jp = 0; jp < npan; jp++) {
        const uint16_t *panel = pb + jp * kp * MM_NR;
        const int64_t j0 = jp * MM_NR, ncols = N - j0 < MM_NR ? N - j0 : MM_NR;
        for (int64_t i = m0; i < m1; i += MM_MR) {
            const int mr = (int)(m1 - i < MM_MR ? m1 - i : MM_MR);
            uint16_t *ct = c + i * cm + j0 * cn;
            const uint16_t *at = pa + i * kp;
            switch (mr) {
            case 8: tile(8, at, kp, panel, ncols, ct, cm, cn); break;
            case 7: tile(7, at, kp, panel, ncols, ct, cm, cn); break;
            case 6: tile(6, at, kp, panel, ncols, ct, cm, cn); break;
            case 5: tile(5, at, kp, panel, ncols, ct, cm, cn); break;
            case 4: tile(4, at, kp, panel, ncols, ct, cm, cn); break;
            case 3: tile(3, at, kp, panel, ncols, ct, cm, cn); break;
            case 2: tile(2, at, kp, panel, ncols, ct, cm, cn); break;
            default: tile(1, at, kp, panel, ncols, ct, cm, cn); break;
            }
        }
    }
}
#else
int cannon_mm_bf16_available(void)
{
    return 0;
}

void cannon_mm_bf16_rows_avx512(const uint16_t *pa, const uint16_t *pb, int64_t M, int64_t N, int64_t kp,
                                int64_t npan, int64_t m0, int64_t m1, uint16_t *c, int64_t cm, int64_t cn)
{
    (void)pa, (void)pb, (void)M, (void)N, (void)kp, (void)npan, (void)m0, (void)m1, (void)c, (void)cm, (void)cn;
}
#endif
