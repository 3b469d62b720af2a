/*
 * One tier's EmbeddingDenseBackward row kernel: the including file includes its vec_<tier>.h,
 * defines EDB_ROWS_FN (the exported entry) and includes this file. emb_body.h is instantiated
 * once per gradient storage type.
 */
#include <string.h>

#include "emb_kernels.h"

#define EDB_CAT2(a, b) a##b
#define EDB_CAT(a, b) EDB_CAT2(a, b)
/* Columns summed per pass over a row's group: 8 vector accumulators, which leaves registers for
 * the loads and keeps each gradient row's slice a few cache lines long. */
#define EDB_TILE (8 * VW)

/* Zero @p bytes at @p p. With @p nt (p 64-byte aligned, bytes a multiple of 64) non-temporal
 * stores write the lines without reading them first: an embedding table's gradient is far larger
 * than the caches, so a cached store would cost a read plus a later write-back per line. */
static void edb_zero(void *p, size_t bytes, int nt)
{
    if (!nt) {
        memset(p, 0, bytes);
        return;
    }
    float *f = (float *)p;
    const size_t n = bytes / sizeof(float);
    const vf z = vf_set1(0.0f);
    for (size_t i = 0; i < n; i += VW)
        vf_stream_f32(f + i, z);
}

#define EDB_T f32
#define EDB_CT float
#include "emb_body.h"
#undef EDB_T
#undef EDB_CT

#define EDB_T f16
#define EDB_CT uint16_t
#include "emb_body.h"
#undef EDB_T
#undef EDB_CT

#define EDB_T bf16
#define EDB_CT uint16_t
#include "emb_body.h"
#undef EDB_T
#undef EDB_CT

void EDB_ROWS_FN(const edb_args *a, int64_t r0, int64_t r1)
{
    /* The output's alignment is known only now (phase 2 binds the address). */
    const int nt = a->nt && ((uintptr_t)a->out & 63u) == 0;
    switch (a->dtype) {
    case EMB_F32:
        rows_f32(a, r0, r1, nt);
        break;
    case EMB_F16:
        rows_f16(a, r0, r1, nt);
        break;
    default:
        rows_bf16(a, r0, r1, nt);
        break;
    }
    if (nt)
        vf_sfence();
}
