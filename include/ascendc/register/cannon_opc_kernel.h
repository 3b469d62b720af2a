/**
 * @file register/cannon_opc_kernel.h
 * Kernel side of a package built by cannon-opc: CANNON_OPC_KERNEL(entry) defines the exported
 * trampoline `cannon_opc_kernel` (a cannon_kernel_fn) that runs one block of the Ascend C entry
 * with the pointer arguments of a cannon_opc_blob, the tiling argument pointing at the launch's
 * copy of the tiling data. cannon-opc appends it to each kernel source it compiles.
 */
#ifndef CANNON_REGISTER_CANNON_OPC_KERNEL_H_
#define CANNON_REGISTER_CANNON_OPC_KERNEL_H_

#include <utility>

#include "cannon_ascendc/launch.h"
#include "register/cannon_opc.h"

namespace cannon_opc {

template <class... A>
struct Call {
    void (*fn)(A...);
    void *args[CANNON_OPC_MAX_ARGS];
};

template <class... A, size_t... I>
inline void Invoke(Call<A...> *c, std::index_sequence<I...>)
{
    c->fn(reinterpret_cast<A>(c->args[I])...);
}

template <class... A>
inline void Body(void *raw)
{
    Invoke(static_cast<Call<A...> *>(raw), std::index_sequence_for<A...>{});
}

template <class... A>
inline int Trampoline(void (*fn)(A...), const char *name, const cannon_kernel_ctx *ctx, void *raw)
{
    static_assert(sizeof...(A) <= CANNON_OPC_MAX_ARGS, "too many kernel arguments");
    static_assert((std::is_pointer<A>::value && ...), "package kernels take GM_ADDR arguments only");
    const cannon_opc_blob *b = static_cast<const cannon_opc_blob *>(raw);
    if (b->n_args != sizeof...(A))
        return cannonKernelReportError(ctx, ACL_ERROR_INVALID_PARAM, "%s: the kernel takes %u arguments, the operator passes %u",
                                       name, static_cast<unsigned>(sizeof...(A)), b->n_args);
    Call<A...> c;
    c.fn = fn;
    for (uint32_t i = 0; i < b->n_args; i++)
        c.args[i] = b->args[i];
    if (b->tiling_index < b->n_args)
        c.args[b->tiling_index] = static_cast<uint8_t *>(raw) + b->tiling_offset;
    return ::cannon_ascendc::RunBlock(ctx, name, b->tiling_key, 1, &Body<A...>, &c);
}

}  // namespace cannon_opc

#define CANNON_OPC_KERNEL(entry)                                                                                     \
    extern "C" __attribute__((visibility("default"))) int cannon_opc_kernel(const cannon_kernel_ctx *cannon_ctx,     \
                                                                            void *cannon_raw)                        \
    {                                                                                                                \
        return ::cannon_opc::Trampoline(entry, #entry, cannon_ctx, cannon_raw);                                      \
    }

#endif /* CANNON_REGISTER_CANNON_OPC_KERNEL_H_ */
