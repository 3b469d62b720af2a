/**
 * @file kernel_debug.h
 * The kernel-side debugging aids of CANN's samples:
 *   - ASSERT(cond) (`ASSERT(GetBlockNum() != 0 && "...")`): with the checker on
 *     (docs/ascendc.md), a false condition is reported as the block's violation, naming the
 *     condition and the source line, and stops the block; with the checker off the condition is
 *     not evaluated, as in a device build. A program that defines ASSERT itself keeps its own.
 *   - AscendC::PRINTF / AscendC::printf(fmt, args...): the C library's printf, on the process's
 *     stdout, at once (blocks running concurrently print in any order, one call at a time).
 */
#ifndef CANNON_ASCENDC_KERNEL_DEBUG_H_
#define CANNON_ASCENDC_KERNEL_DEBUG_H_

#include <cstdio>

#include "cannon_ascendc/core.h"

#ifndef ASSERT
#if CANNON_ASCENDC_CHECK
#define ASSERT(cond)                                                                                                  \
    do {                                                                                                              \
        if (!(cond))                                                                                                  \
            ::cannon_ascendc::Fail(::cannon_ascendc::SrcLoc(__FILE__, __LINE__), "ASSERT(%s) failed", #cond);         \
    } while (0)
#else
#define ASSERT(cond) ((void)sizeof(!(cond)))
#endif
#endif

namespace AscendC {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
#endif
template <class... Args>
inline void PRINTF(const char *fmt, Args... args)
{
    if (fmt != nullptr)
        (void)std::printf(fmt, args...);
}
template <class... Args>
inline void printf(const char *fmt, Args... args)
{
    PRINTF(fmt, args...);
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace AscendC

#endif /* CANNON_ASCENDC_KERNEL_DEBUG_H_ */
