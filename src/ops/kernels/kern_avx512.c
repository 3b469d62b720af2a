/* AVX-512 tier of the kernel table (see kernels.h). */
#include "vec_avx512.h"
#define KERN_TABLE cannon_kernels_avx512
#define KERN_ISA CANNON_ISA_AVX512
#include "kern_impl.h"

#if defined(__AVX512BF16__)
const int cannon_avx512_uses_bf16 = 1;
#else
const int cannon_avx512_uses_bf16 = 0;
#endif
