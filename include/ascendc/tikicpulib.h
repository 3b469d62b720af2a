/**
 * @file tikicpulib.h
 * CANN's CPU-debug launch interface over cannon's Ascend C headers: ICPU_RUN_KF runs a kernel's
 * blocks one after another on the calling thread (each with its block context and a fresh
 * unified buffer), GmAlloc/GmFree give "global memory", SetKernelMode and ICPU_SET_TILING_KEY set
 * the mode and the tiling key of the next run. The checker is on by default here (this header
 * defines ASCENDC_CPU_DEBUG when nothing else chose). A violation stops the block; ICPU_RUN_KF
 * then prints the message on stderr, runs no further block, and the rest of the program goes on.
 *
 * No ACL runtime is needed: the kernels run without a device or a stream.
 */
#ifndef CANNON_ASCENDC_TIKICPULIB_H_
#define CANNON_ASCENDC_TIKICPULIB_H_

#if !defined(ASCENDC_CPU_DEBUG) && !defined(CANNON_ASCENDC_CHECK)
#define ASCENDC_CPU_DEBUG 1
#endif

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <utility>

#include "kernel_operator.h"
/* CANN's CPU-debug header brings the secure C functions (memcpy_s ...) with it, and CPU-mode
 * host programs call them without including securec.h (libc_sec, linked by the samples). */
#if defined(__has_include)
#if __has_include("securec.h")
#include "securec.h"
#endif
#endif

namespace AscendC {

namespace cannon_cpu {
inline KernelMode &Mode()
{
    static KernelMode m = KernelMode::MIX_MODE;
    return m;
}
inline uint64_t &TilingKey()
{
    static uint64_t k = 0;
    return k;
}

template <class To, class From>
inline To Arg(From &&v)
{
    using F = typename std::decay<From>::type;
    if constexpr (std::is_pointer<To>::value && (std::is_pointer<F>::value || std::is_null_pointer<F>::value))
        return reinterpret_cast<To>(const_cast<void *>(static_cast<const void *>(v)));
    else
        return static_cast<To>(std::forward<From>(v));
}

/** Runs blocks [0, blockDim) of @p fn (twice as many for MIX mode on a split-core SoC); returns 0
 *  or the first block's error. */
template <class... A, class... P>
inline int RunKernelFunctionOnCpu(void (*fn)(A...), const char *name, uint32_t blockDim, P &&...args)
{
    static_assert(sizeof...(A) == sizeof...(P), "wrong number of kernel arguments");
    uint8_t *ub = cannonAscendcThreadUB();
    if (fn == nullptr || ub == nullptr || blockDim == 0) {
        std::fprintf(stderr, "[ERROR] ICPU_RUN_KF(%s): %s\n", name,
                     fn == nullptr ? "NULL kernel" : blockDim == 0 ? "blockDim is 0" : "out of memory");
        return CANNON_ASCENDC_ERROR;
    }
    /* MIX mode (the default) on a split-core SoC (__NPU_ARCH__ 2201): each AI core's two vector
     * cores run the kernel, as CANN's CPU debug runs a MIX kernel's AIV processes. */
#if defined(__NPU_ARCH__) && __NPU_ARCH__ == 2201
    const uint32_t sub = Mode() == KernelMode::MIX_MODE ? 2u : 1u;
#else
    const uint32_t sub = 1u;
#endif
    const uint32_t blocks = sub * blockDim;
    for (uint32_t i = 0; i < blocks; i++) {
        cannon_ascendc_block b;
        std::memset(&b, 0, sizeof b);
        b.kernel = name;
        b.block_idx = i;
        b.block_num = blocks;
        b.ub = ub;
        b.ub_size = CANNON_ASCENDC_UB_SIZE;
        b.tiling_key = TilingKey();
        b.sub_block_num = sub;
        cannon_ascendc_block *prev = cannonAscendcSetBlock(&b);
        try {
            fn(Arg<A>(args)...);
        } catch (const cannon_ascendc::BlockAbort &) {
        } catch (...) {
            (void)cannonAscendcReport(CANNON_ASCENDC_ERROR, name, 0, "a C++ exception left the kernel");
        }
        (void)cannonAscendcSetBlock(prev);
        if (b.error != 0) {
            std::fprintf(stderr, "[ERROR][core %u] %s: %s\n", i, name, cannonAscendcLastMessage());
            return b.error;
        }
    }
    return 0;
}
}  // namespace cannon_cpu

/** "Global memory" for CPU-debug runs: 64-byte aligned, zeroed. */
inline void *GmAlloc(size_t size)
{
    /* Whole pages, as CANN's (a mapped file): kernels that read a little past a small buffer,
     * such as a tiling struct longer than the bytes the host wrote, stay inside the allocation. */
    const size_t bytes = (size + 4095) & ~static_cast<size_t>(4095);
    void *p = std::aligned_alloc(4096, bytes ? bytes : 4096);
    if (p)
        std::memset(p, 0, bytes ? bytes : 4096);
    return p;
}
inline void GmFree(void *ptr) { std::free(ptr); }
inline void SetKernelMode(KernelMode mode) { cannon_cpu::Mode() = mode; }

}  // namespace AscendC

#define ICPU_SET_TILING_KEY(key) (::AscendC::cannon_cpu::TilingKey() = static_cast<uint64_t>(key))
#define ICPU_RUN_KF(func, blockDim, ...)                                                                             \
    ((void)::AscendC::cannon_cpu::RunKernelFunctionOnCpu(func, #func, blockDim, __VA_ARGS__))

#endif /* CANNON_ASCENDC_TIKICPULIB_H_ */
