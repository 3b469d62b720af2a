/* avx512 tier of the EmbeddingDenseBackward row kernel. */
#include "../kernels/vec_avx512.h"
#define EDB_ROWS_FN cannon_edb_rows_avx512
#include "emb_impl.h"
