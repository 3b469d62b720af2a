/**
 * @file cannon_ascendc/block.h
 * The C interface of libcannon_ascendc, the small support library under cannon's Ascend C headers:
 * the block context of the running kernel block (one per worker thread), the worker's
 * unified-buffer arena and the checker's error reporting. Kernel code does not call these
 * directly: kernel_operator.h (GetBlockIdx, TPipe, the checker) and the launch helpers do.
 *
 * Compiles as C and C++; needs only the C library.
 */
#ifndef CANNON_ASCENDC_BLOCK_H_
#define CANNON_ASCENDC_BLOCK_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define CANNON_ASCENDC_API __attribute__((visibility("default")))
#else
#define CANNON_ASCENDC_API
#endif

/**
 * Bytes of a block's unified buffer, by the SoC the including source is compiled for
 * (`__NPU_ARCH__`): 256 KiB on 1001 (Ascend910A) and 2002 (Ascend310P), 248 KiB on 3002
 * (Ascend310B), otherwise the vector core's UB of the Ascend 910B (2201), 192 KiB, which is also
 * the size without `__NPU_ARCH__`.
 */
#if defined(__NPU_ARCH__) && (__NPU_ARCH__ == 1001 || __NPU_ARCH__ == 2002)
#define CANNON_ASCENDC_UB_SIZE (256u * 1024u)
#elif defined(__NPU_ARCH__) && __NPU_ARCH__ == 3002
#define CANNON_ASCENDC_UB_SIZE (248u * 1024u)
#else
#define CANNON_ASCENDC_UB_SIZE (192u * 1024u)
#endif

/** Bytes of a worker's unified-buffer arena: the largest CANNON_ASCENDC_UB_SIZE (256 KiB). */
#define CANNON_ASCENDC_UB_ARENA_SIZE (256u * 1024u)

/** Error code a checker violation gives the stream (ACL_ERROR_RT_AICORE_EXCEPTION). */
#define CANNON_ASCENDC_ERROR 507015

/** What a running block knows: set by the launcher for the duration of one block. */
typedef struct cannon_ascendc_block {
    const void *kernel_ctx;  /**< the driver's cannon_kernel_ctx of this block (NULL outside cannon launches) */
    const char *kernel;      /**< kernel name, for messages */
    uint32_t block_idx;      /**< GetBlockIdx() */
    uint32_t block_num;      /**< GetBlockNum() */
    uint8_t *ub;             /**< the block's unified buffer, CANNON_ASCENDC_UB_ARENA_SIZE bytes, 64-byte aligned */
    uint32_t ub_size;        /**< the bytes of @p ub the block may use: the launcher's CANNON_ASCENDC_UB_SIZE */
    uint32_t ub_used;        /**< bytes of @p ub handed out by the block's TPipe */
    int error;               /**< first error reported in this block (0: none) */
    uint64_t tiling_key;     /**< TILING_KEY_IS() reads it (CPU-debug launches set it) */
    uint32_t sub_block_num;  /**< vector cores per AI core in this launch: 2 for a MIX kernel on a
                                  split-core SoC (block i is sub-block i % 2), else 1 (0 reads as 1) */
} cannon_ascendc_block;

/** The block running on the calling thread, NULL outside a kernel block. */
CANNON_ASCENDC_API cannon_ascendc_block *cannonAscendcCurrentBlock(void);

/** Make @p block the calling thread's block (NULL: none); returns the previous one. */
CANNON_ASCENDC_API cannon_ascendc_block *cannonAscendcSetBlock(cannon_ascendc_block *block);

/**
 * The calling thread's unified-buffer arena (CANNON_ASCENDC_UB_ARENA_SIZE bytes, 64-byte aligned),
 * allocated on first use and freed when the thread exits. NULL when out of memory.
 */
CANNON_ASCENDC_API uint8_t *cannonAscendcThreadUB(void);

/**
 * Report a rule violation of the running block: records @p code as the block's error (the first
 * one wins) and, inside a cannon launch, makes it the stream's error with the message
 * "<kernel> block <i>: <message> (<file>:<line>)". Outside a block it is recorded for
 * aclGetRecentErrMsg() on the calling thread.
 * Returns @p code.
 */
CANNON_ASCENDC_API int cannonAscendcReport(int code, const char *file, int line, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/** The message of the last violation reported on the calling thread ("" if none). */
CANNON_ASCENDC_API const char *cannonAscendcLastMessage(void);

#ifdef __cplusplus
}
#endif

#endif /* CANNON_ASCENDC_BLOCK_H_ */
