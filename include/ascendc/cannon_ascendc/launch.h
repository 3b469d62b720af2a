/**
 * @file cannon_ascendc/launch.h
 * Host side: runs an `extern "C"` Ascend C kernel entry `void k(GM_ADDR x, ..., <scalars/structs>)`
 * as blockDim blocks on a cannon stream, asynchronously, through cannonLaunchKernel:
 *
 *     CANNON_ASCENDC_LAUNCH(add_custom, 8, stream, xDevice, yDevice, zDevice);
 *     aclrtSynchronizeStream(stream);
 *
 * The arguments are copied at the call (pointers become the kernel's pointer types; scalars and
 * structs by value). Each block runs on one of the device's worker threads with its block
 * context (GetBlockIdx/GetBlockNum) and the worker's unified-buffer arena; a checker violation
 * or a C++ exception leaving the kernel stops that block and becomes the stream's error,
 * returned by the next synchronize with its message.
 *
 * Needs `-I<prefix>/include` (acl/, cannon/) as well as `-I<prefix>/include/ascendc`, and links
 * libcannon_ascendc and libascendcl (CMake: cannon::ascendc).
 */
#ifndef CANNON_ASCENDC_LAUNCH_H_
#define CANNON_ASCENDC_LAUNCH_H_

#include <cstddef>
#include <type_traits>
#include <utility>

#include "acl/acl.h"
#include "cannon/kernel.h"
#include "cannon_ascendc/block.h"
#include "cannon_ascendc/core.h"

namespace cannon_ascendc {

/* The argument list as one trivially copyable aggregate (the launch copies it as bytes). */
template <class... A>
struct ArgPack {};
template <class H, class... R>
struct ArgPack<H, R...> {
    H head;
    ArgPack<R...> tail;
};

template <size_t I>
struct PackGet {
    template <class H, class... R>
    static auto &Get(ArgPack<H, R...> &p) { return PackGet<I - 1>::Get(p.tail); }
};
template <>
struct PackGet<0> {
    template <class H, class... R>
    static H &Get(ArgPack<H, R...> &p) { return p.head; }
};

template <class To, class From>
inline To ConvertArg(From &&v)
{
    using F = typename std::decay<From>::type;
    if constexpr (std::is_pointer<To>::value && (std::is_pointer<F>::value || std::is_null_pointer<F>::value))
        return reinterpret_cast<To>(const_cast<void *>(static_cast<const void *>(v)));
    else
        return static_cast<To>(std::forward<From>(v));
}

template <class... A>
inline ArgPack<A...> MakePack()
{
    return ArgPack<A...>{};
}

template <class H, class... R, class P0, class... P>
inline void FillPack(ArgPack<H, R...> &p, P0 &&v, P &&...rest)
{
    p.head = ConvertArg<H>(std::forward<P0>(v));
    if constexpr (sizeof...(R) > 0)
        FillPack(p.tail, std::forward<P>(rest)...);
}

template <class... A>
struct LaunchBlob {
    void (*fn)(A...);
    const char *name;
    uint64_t tiling_key;
    uint32_t sub_blocks;
    ArgPack<typename std::decay<A>::type...> args;
};

template <class... A, size_t... I>
inline void InvokeKernel(void (*fn)(A...), ArgPack<typename std::decay<A>::type...> &p, std::index_sequence<I...>)
{
    fn(PackGet<I>::Get(p)...);
}

/** Runs one block: sets the block context and its unified buffer around the kernel call. */
inline int RunBlock(const cannon_kernel_ctx *ctx, const char *name, uint64_t tiling_key, uint32_t sub_blocks,
                    void (*body)(void *), void *arg)
{
    uint8_t *ub = cannonAscendcThreadUB();
    if (!ub)
        return cannonKernelReportError(ctx, ACL_ERROR_BAD_ALLOC, "%s block %u: no memory for the unified buffer",
                                       name, ctx->block_idx);
    cannon_ascendc_block b;
    std::memset(&b, 0, sizeof b);
    b.kernel_ctx = ctx;
    b.kernel = name;
    b.block_idx = ctx->block_idx;
    b.block_num = ctx->block_dim;
    b.ub = ub;
    b.ub_size = CANNON_ASCENDC_UB_SIZE;
    b.tiling_key = tiling_key;
    b.sub_block_num = sub_blocks;
    cannon_ascendc_block *prev = cannonAscendcSetBlock(&b);
    try {
        body(arg);
    } catch (const BlockAbort &) {
        /* reported where it was thrown */
    } catch (...) {
        (void)cannonAscendcReport(CANNON_ASCENDC_ERROR, name, 0, "a C++ exception left the kernel");
    }
    (void)cannonAscendcSetBlock(prev);
    return b.error;
}

template <class... A>
inline void BlockBody(void *raw)
{
    auto *blob = static_cast<LaunchBlob<A...> *>(raw);
    InvokeKernel(blob->fn, blob->args, std::index_sequence_for<A...>{});
}

template <class... A>
inline int Trampoline(const cannon_kernel_ctx *ctx, void *raw)
{
    auto *blob = static_cast<LaunchBlob<A...> *>(raw);
    return RunBlock(ctx, blob->name, blob->tiling_key, blob->sub_blocks, &BlockBody<A...>, raw);
}

/**
 * Enqueue @p fn as @p blocks blocks on @p stream (NULL: the current context's default stream),
 * with TILING_KEY_IS() seeing @p tilingKey and @p subBlocks vector cores per AI core
 * (GetSubBlockIdx() is the block index modulo @p subBlocks when it is above 1). @p name must be a
 * string of static storage (messages and profiles). Returns cannonLaunchKernel's result:
 * ACL_ERROR_INVALID_PARAM for a NULL kernel or 0 blocks, ACL_ERROR_RT_CONTEXT_NULL without a
 * current context.
 */
template <class... A, class... P>
inline aclError LaunchBlocks(const char *name, void (*fn)(A...), uint64_t tilingKey, uint32_t blocks,
                             uint32_t subBlocks, aclrtStream stream, P &&...args)
{
    static_assert(sizeof...(A) == sizeof...(P), "wrong number of kernel arguments");
    static_assert(std::is_trivially_copyable<ArgPack<typename std::decay<A>::type...>>::value,
                  "kernel arguments must be trivially copyable");
    if (fn == nullptr)
        return cannonReportError(ACL_ERROR_INVALID_PARAM, "Ascend C launch of %s: NULL kernel", name ? name : "?");
    LaunchBlob<A...> blob;
    std::memset(static_cast<void *>(&blob), 0, sizeof blob);
    blob.fn = fn;
    blob.name = name ? name : "kernel";
    blob.tiling_key = tilingKey;
    blob.sub_blocks = subBlocks;
    if constexpr (sizeof...(A) > 0)
        FillPack(blob.args, std::forward<P>(args)...);
    cannon_launch_desc d;
    std::memset(&d, 0, sizeof d);
    d.name = blob.name;
    d.fn = &Trampoline<A...>;
    d.args = &blob;
    d.args_size = sizeof blob;
    d.block_dim = blocks;
    return cannonLaunchKernel(&d, stream);
}

/** LaunchBlocks of @p blockDim blocks, one per core, with TILING_KEY_IS() seeing @p tilingKey. */
template <class... A, class... P>
inline aclError LaunchKernelWithKey(const char *name, void (*fn)(A...), uint64_t tilingKey, uint32_t blockDim,
                                    aclrtStream stream, P &&...args)
{
    return LaunchBlocks(name, fn, tilingKey, blockDim, 1, stream, std::forward<P>(args)...);
}

/** LaunchKernelWithKey with tiling key 0. */
template <class... A, class... P>
inline aclError LaunchKernel(const char *name, void (*fn)(A...), uint32_t blockDim, aclrtStream stream, P &&...args)
{
    return LaunchKernelWithKey(name, fn, 0, blockDim, stream, std::forward<P>(args)...);
}

/* Kernels that use the cube (lib/matmul_intf.h redefines this to 1) are MIX kernels. */
#ifndef CANNON_ASCENDC_MIX_KERNEL_V
#define CANNON_ASCENDC_MIX_KERNEL_V 0
#endif

/** The blocks a launch of blockDim runs: on a split-core SoC (__NPU_ARCH__ 2201, the Ascend 910B
 *  and 910_93 series) a MIX kernel's blockDim counts AI cores, each with two vector cores that run
 *  the kernel's vector code, so it runs 2 x blockDim blocks; every other launch runs blockDim. */
template <int Mix>
constexpr uint32_t SubBlocks()
{
#if defined(__NPU_ARCH__) && __NPU_ARCH__ == 2201
    return Mix ? 2u : 1u;
#else
    return 1u;
#endif
}

/** A kernel call written `k<<<blockDim, l2ctrl, stream>>>(args...)`: ascendc_launch_gen.py turns it
 * into `ChevronLaunch("k", k, blockDim, l2ctrl, stream)(args...)`, which launches k on the stream
 * and returns LaunchKernel's result (l2ctrl is accepted and ignored, as is a dynamic UB size). */
template <class... A>
struct ChevronCall {
    const char *name;
    void (*fn)(A...);
    uint32_t blockDim;
    uint32_t sub;
    aclrtStream stream;
    template <class... P>
    aclError operator()(P &&...args) const
    {
        return LaunchBlocks(name, fn, 0, blockDim * sub, sub, stream, std::forward<P>(args)...);
    }
};

template <uint32_t Sub = 1, class... A>
inline ChevronCall<A...> ChevronLaunch(const char *name, void (*fn)(A...), uint32_t blockDim)
{
    return ChevronCall<A...>{name, fn, blockDim, Sub, nullptr};
}

template <uint32_t Sub = 1, class... A, class L>
inline ChevronCall<A...> ChevronLaunch(const char *name, void (*fn)(A...), uint32_t blockDim, L &&, void *stream)
{
    return ChevronCall<A...>{name, fn, blockDim, Sub, stream};
}

/** A launch of blockDim AI cores with Sub vector cores each (Sub x blockDim blocks): what the
 *  generated aclrtlaunch_<k> stubs call with SubBlocks<CANNON_ASCENDC_MIX_KERNEL_V>(). */
template <uint32_t Sub = 1, class... A, class... P>
inline aclError LaunchCores(const char *name, void (*fn)(A...), uint32_t blockDim, aclrtStream stream, P &&...args)
{
    return LaunchBlocks(name, fn, 0, blockDim * Sub, Sub, stream, std::forward<P>(args)...);
}

}  // namespace cannon_ascendc

/** Launch @p kernel (an `extern "C"` Ascend C entry): CANNON_ASCENDC_LAUNCH(k, blockDim, stream, args...). */
#define CANNON_ASCENDC_LAUNCH(kernel, ...) ::cannon_ascendc::LaunchKernel(#kernel, kernel, __VA_ARGS__)

#endif /* CANNON_ASCENDC_LAUNCH_H_ */
