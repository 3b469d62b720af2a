/* Recursive halving-doubling (placeholder until implemented). */
#include "hccl_internal.h"

const hc_algo hc_algo_hd = {.name = "hd"};
