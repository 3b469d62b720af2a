/* Scalar tier of the kernel table (see kernels.h), and the table selection. */
#include "vec_scalar.h"
#define KERN_TABLE cannon_kernels_scalar
#define KERN_ISA CANNON_ISA_SCALAR
#include "kern_impl.h"

const cannon_kernel_table *cannon_kernels_for(cannon_isa isa)
{
    switch (isa) {
#if defined(CANNON_OPS_HAVE_AVX512)
    case CANNON_ISA_AVX512:
        return &cannon_kernels_avx512;
#endif
#if defined(CANNON_OPS_HAVE_AVX2)
    case CANNON_ISA_AVX2:
        return &cannon_kernels_avx2;
#endif
    default:
        return &cannon_kernels_scalar;
    }
}

const cannon_kernel_table *cannon_kernels(void)
{
    return cannon_kernels_for(cannon_isa_select());
}

const cannon_kernel_table *cannonOpsKernelTable(int isa)
{
    if (isa < 0 || isa >= CANNON_ISA_COUNT || isa > (int)cannon_isa_hw())
        return NULL;
    return cannon_kernels_for((cannon_isa)isa);
}
