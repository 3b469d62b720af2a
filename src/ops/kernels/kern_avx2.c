/* AVX2 + FMA + F16C tier of the kernel table (see kernels.h). */
#include "vec_avx2.h"
#define KERN_TABLE cannon_kernels_avx2
#define KERN_ISA CANNON_ISA_AVX2
#include "kern_impl.h"
