/*
 * EmbeddingDenseBackward rows for one storage type (EDB_T: f32, f16, bf16; EDB_CT: its C type),
 * included by emb_impl.h. Row r's value is the fp32 sum of the gradient rows perm[start[r]] ..
 * perm[start[r+1] - 1] in that order (times 1/count with scaleGradByFreq), rounded once to the
 * output type. Tiles of EDB_TILE columns are independent, and each column's additions happen in
 * the same order in every tier, so all tiers give the same bits too.
 */
#define EDB_LOAD EDB_CAT(vf_load_, EDB_T)
#define EDB_LOADN EDB_CAT(vf_loadn_, EDB_T)
#define EDB_STORE EDB_CAT(vf_store_, EDB_T)
#define EDB_STOREN EDB_CAT(vf_storen_, EDB_T)
#define EDB_STREAM EDB_CAT(vf_stream_, EDB_T)

static void EDB_CAT(rows_, EDB_T)(const edb_args *a, int64_t r0, int64_t r1, int nt)
{
    const EDB_CT *g = (const EDB_CT *)a->grad;
    EDB_CT *out = (EDB_CT *)a->out;
    const int64_t D = a->D;
    const int64_t *s = a->start;
    const int64_t *perm = a->perm;
    int64_t r = r0;
    while (r < r1) {
        const int64_t b = s[r], e = s[r + 1];
        if (b == e) {
            /* A run of rows nobody indexed: one contiguous zero fill. */
            int64_t r2 = r + 1;
            while (r2 < r1 && s[r2 + 1] == s[r2])
                r2++;
            edb_zero(out + r * D, (size_t)((r2 - r) * D) * sizeof(EDB_CT), nt);
            r = r2;
            continue;
        }
        EDB_CT *o = out + r * D;
        const vf inv = vf_set1(1.0f / (float)(e - b));
        const int scale = a->scale;
        int64_t c = 0;
        for (; c + EDB_TILE <= D; c += EDB_TILE) {
            vf s0 = vf_set1(0.0f), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0;
            for (int64_t j = b; j < e; j++) {
                const EDB_CT *src = g + perm[j] * D + c;
                s0 = vf_add(s0, EDB_LOAD(src));
                s1 = vf_add(s1, EDB_LOAD(src + VW));
                s2 = vf_add(s2, EDB_LOAD(src + 2 * VW));
                s3 = vf_add(s3, EDB_LOAD(src + 3 * VW));
                s4 = vf_add(s4, EDB_LOAD(src + 4 * VW));
                s5 = vf_add(s5, EDB_LOAD(src + 5 * VW));
                s6 = vf_add(s6, EDB_LOAD(src + 6 * VW));
                s7 = vf_add(s7, EDB_LOAD(src + 7 * VW));
            }
            if (scale) {
                s0 = vf_mul(s0, inv);
                s1 = vf_mul(s1, inv);
                s2 = vf_mul(s2, inv);
                s3 = vf_mul(s3, inv);
                s4 = vf_mul(s4, inv);
                s5 = vf_mul(s5, inv);
                s6 = vf_mul(s6, inv);
                s7 = vf_mul(s7, inv);
            }
            EDB_CT *d = o + c;
            if (nt) {
                EDB_STREAM(d, s0);
                EDB_STREAM(d + VW, s1);
                EDB_STREAM(d + 2 * VW, s2);
                EDB_STREAM(d + 3 * VW, s3);
                EDB_STREAM(d + 4 * VW, s4);
                EDB_STREAM(d + 5 * VW, s5);
                EDB_STREAM(d + 6 * VW, s6);
                EDB_STREAM(d + 7 * VW, s7);
            } else {
                EDB_STORE(d, s0);
                EDB_STORE(d + VW, s1);
                EDB_STORE(d + 2 * VW, s2);
                EDB_STORE(d + 3 * VW, s3);
                EDB_STORE(d + 4 * VW, s4);
                EDB_STORE(d + 5 * VW, s5);
                EDB_STORE(d + 6 * VW, s6);
                EDB_STORE(d + 7 * VW, s7);
            }
        }
        for (; c < D; c += VW) {
            const size_t n = (size_t)(D - c < VW ? D - c : VW);
            vf acc = vf_set1(0.0f);
            for (int64_t j = b; j < e; j++)
                acc = vf_add(acc, EDB_LOADN(g + perm[j] * D + c, n, 0.0f));
            if (scale)
                acc = vf_mul(acc, inv);
            EDB_STOREN(o + c, acc, n);
        }
        r++;
    }
}

#undef EDB_LOAD
#undef EDB_LOADN
#undef EDB_STORE
#undef EDB_STOREN
#undef EDB_STREAM
