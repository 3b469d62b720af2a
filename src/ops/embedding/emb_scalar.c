/* scalar tier of the EmbeddingDenseBackward row kernel. */
#include "../kernels/vec_scalar.h"
#define EDB_ROWS_FN cannon_edb_rows_scalar
#include "emb_impl.h"
