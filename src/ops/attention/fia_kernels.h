/*
 * The attention kernel's arguments and its per-tier entries (fia_impl.h, one copy per tier).
 *
 * Work unit: (batch b, key/value head g, query block qb). A unit holds the `group` query heads that
 * share key/value head g and `qblk` query positions of each, at most FIA_ROWS rows in all, so one
 * conversion of a key/value block to fp32 serves every row of the unit. Rows run an online
 * softmax over key blocks of FIA_KB keys (running max m, running sum l and an fp32 accumulator of
 * D values per row), so memory is O(rows * D) whatever the key length.
 *
 * Key split: when a launch has few units (decode with few batches and key/value heads), each unit's
 * keys are cut into nsplit chunks of `chunk` keys (a multiple of FIA_KB); work item w is (unit
 * w / nsplit, chunk w % nsplit), and writes its rows' (m, l, acc[Dp]) into `part` instead of the
 * output. A second kernel combines a unit's chunks in chunk order. Both the split and the order
 * depend only on the shape.
 */
#ifndef CANNON_OPS_ATTENTION_FIA_KERNELS_H_
#define CANNON_OPS_ATTENTION_FIA_KERNELS_H_

#include <stdint.h>

/* Rows (query head x query position) per unit, keys per key block. FIA_KB is a multiple of 4 *
 * the widest vector (16 lanes). */
#define FIA_ROWS 64
#define FIA_KB 64
/* Units of at most this many rows compute scores from key rows directly (no transposed block). */
#define FIA_DIRECT_ROWS 4
/* Query/key element dtypes (FIA_F32: the training operator only). */
#define FIA_F16 0
#define FIA_BF16 1
#define FIA_F32 2
/* Bytes per element of a dtype. */
#define FIA_ES(dt) ((dt) == FIA_F32 ? 4 : 2)
/* A bound no row offset reaches (|preTokens|, |nextTokens| are clamped to it). */
#define FIA_FAR ((int64_t)1 << 40)

typedef struct fia_args {
    const char *q, *k, *v, *pse, *mask; /* bound views (pse, mask NULL when absent) */
    char *out, *lse;                    /* bound views (lse NULL when not written) */
    char *ws;                           /* bound: ws_floats floats per block */
    char *part;                         /* bound (split only): items x part_rows x (Dp + 2) floats */
    int32_t isa, dt;
    int32_t has_pse, has_mask;
    int32_t rightdown; /* band offsets count from the bottom-right corner (kv_len - q_len) */
    int32_t has_lens;  /* per-batch lengths follow the struct: q_len[B], kv_len[B] */
    int32_t has_seq;   /* training operator: B fia_seq records follow the struct (has_lens 0) */
    int32_t pse_gen;   /* 2, 3: the pse is generated from per-head slopes (fia_alibi); 0: read */
    int64_t alibi_off; /* the generated pse's position offset, kvStartIdx - qStartIdx */
    int64_t B, N, S, D, Nkv, Skv, group, Dp;
    /* element strides, per (b, n, s, d); pse and mask per (b, n, s, kv); lse per (b, n, s) */
    int64_t qs[4], ks[4], vs[4], os[4], ps[4], ms[4], ls[3];
    /* a key j is visible from query row i iff lo <= j - i - shift <= hi (shift: kv_len - q_len when
     * rightdown, else 0), j < kv_len and the mask (if any) is 0 */
    int64_t lo, hi;
    float scale;
    int32_t pad_;
    int64_t qblk, nqb, units, per_block, ws_floats;
    int64_t nsplit, chunk, items, part_rows; /* items = units * nsplit; nsplit 1: no split */
    /* Training (aclnnFlashAttentionScore) options, all zero for the inference operator, which
     * never splits keys when any is set:
     *   pse_first: scores are scale * (q.k + pse) instead of scale * q.k + pse;
     *   smax, ssum: the row's final m and l, each written 8 times per row (strides xs per
     *     (b, n, s), the 8 contiguous); NULL: not written;
     *   drop: dropout keep bits, bit f % 8 of byte f / 8 for f = ((b N + n) S + i) Skv + j, 1 =
     *     kept; a kept probability is scaled by keep_inv = 1 / keepProb, a dropped one is 0 (after
     *     the sum l, which stays the softmax's). */
    char *smax, *ssum;
    const char *drop;
    int64_t xs[3];
    int32_t pse_first;
    float keep_inv;
    /* bf16 query and key on the avx512 tier of a CPU with AVX512-BF16: scores by vdpbf16ps
     * (fia_impl.h); needs FIA_ROWS * Dp more workspace floats */
    int32_t bf16dot;
    int32_t pad2_;
} fia_args;

/* One batch's sequences and visibility rule (training operator, every layout; TND packs the
 * batches' rows one after another):
 *   q0, kv0: the first query / key row of the batch (TND; 0 otherwise), added to the row index
 *     before the row stride;
 *   qlen, kvlen: its query and key lengths (rows i >= qlen are neither read nor written);
 *   lo, hi, shift: key j is in row i's band iff lo <= j - i - shift <= hi;
 *   prefix: keys j < prefix are visible from every row as well (sparseMode 5 and 6);
 *   drop0, dS, dSkv: the dropout bit of (n, i, j) is drop0 + (n dS + i) dSkv + j. */
typedef struct fia_seq {
    int64_t q0, kv0, qlen, kvlen, lo, hi, shift, prefix, drop0, dS, dSkv;
} fia_seq;

/* Row i's visible keys [*lo, *hi) under @p s (before any mask); empty: both 0. */
static inline void fia_seq_keys(const fia_seq *s, int64_t i, int64_t *lo, int64_t *hi)
{
    int64_t l = i + s->shift + s->lo, h = i + s->shift + s->hi + 1;
    if (s->prefix > 0) { /* the band starts at -inf whenever a prefix is set: [0, max) */
        l = 0;
        h = h > s->prefix ? h : s->prefix;
    }
    l = l < 0 ? 0 : l;
    h = h > s->kvlen ? s->kvlen : h;
    if (i >= s->qlen || l >= h)
        l = h = 0;
    *lo = l;
    *hi = h;
}

/* Whether the dropout bit of flat index f is set (kept). */
static inline int fia_kept(const char *drop, int64_t f)
{
    return (((const unsigned char *)drop)[f >> 3] >> (f & 7)) & 1;
}

/* The lengths after the struct (has_lens). */
static inline const int64_t *fia_lens(const fia_args *a)
{
    return (const int64_t *)(const void *)(a + 1);
}

/* The B fia_seq records after the struct (has_seq). */
static inline const fia_seq *fia_seqs(const fia_args *a)
{
    return (const fia_seq *)(const void *)(a + 1);
}

/* The entry of kernel family @p base (cannon_fia_units, cannon_fas_kv, cannon_fas_q,
 * cannon_fas_fused) for tier @p isa (cannon_isa, of ../kernels/isa.h): the tier's copy, or the
 * next lower compiled one. One switch for every kernel of the inference and training operators. */
#if defined(CANNON_OPS_HAVE_AVX2)
#define FIA_TIER_AVX2(base) base##_avx2
#else
#define FIA_TIER_AVX2(base) base##_scalar
#endif
#if defined(CANNON_OPS_HAVE_AVX512)
#define FIA_TIER_AVX512(base) base##_avx512
#else
#define FIA_TIER_AVX512(base) FIA_TIER_AVX2(base)
#endif
#define FIA_TIER_FN(base, isa)                                                                                         \
    ((isa) == CANNON_ISA_AVX512 ? FIA_TIER_AVX512(base)                                                                \
     : (isa) == CANNON_ISA_AVX2 ? FIA_TIER_AVX2(base)                                                                  \
                                : base##_scalar)

/* Work items [w0, w1) (units, or (unit, chunk) pairs when split). */
void cannon_fia_units_scalar(const fia_args *a, float *ws, int64_t w0, int64_t w1);
void cannon_fia_units_avx2(const fia_args *a, float *ws, int64_t w0, int64_t w1);
void cannon_fia_units_avx512(const fia_args *a, float *ws, int64_t w0, int64_t w1);

#endif /* CANNON_OPS_ATTENTION_FIA_KERNELS_H_ */
