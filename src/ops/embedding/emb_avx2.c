/* avx2 tier of the EmbeddingDenseBackward row kernel. */
#include "../kernels/vec_avx2.h"
#define EDB_ROWS_FN cannon_edb_rows_avx2
#include "emb_impl.h"
