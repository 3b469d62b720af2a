/**
 * @file cannon_ascendc/data_copy.h
 * DataCopy (count and DataCopyParams forms) and DataCopyPad between global memory and the unified
 * buffer, and between unified-buffer tensors. On a CPU a copy is a memcpy that completes at once.
 *
 * DataCopy moves whole 32-byte blocks: a count whose byte size is not a multiple of 32 is rounded
 * down as the chip does, and the checker reports it. DataCopyPad moves any byte length and pads
 * each block to 32 bytes in the unified buffer.
 */
#ifndef CANNON_ASCENDC_DATA_COPY_H_
#define CANNON_ASCENDC_DATA_COPY_H_

#include "cannon_ascendc/core.h"
#include "cannon_ascendc/vec_kernels.h"

namespace AscendC {

constexpr uint16_t DEFAULT_DATA_COPY_NBURST = 1;
constexpr uint16_t DEFAULT_DATA_COPY_STRIDE = 0;

/** Block copy parameters: blockCount blocks of blockLen 32-byte units, gaps in 32-byte units. */
struct DataCopyParams {
    DataCopyParams() {}
    DataCopyParams(const uint16_t count, const uint16_t len, const uint16_t srcStrideIn, const uint16_t dstStrideIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn)
    {}
    uint16_t blockCount = DEFAULT_DATA_COPY_NBURST;
    uint16_t blockLen = 0;
    union {
        uint16_t srcGap = 0;
        uint16_t srcStride;
    };
    union {
        uint16_t dstGap = 0;
        uint16_t dstStride;
    };
};

/** DataCopyPad parameters: blockLen in bytes; strides in bytes on the global-memory side and in
 *  32-byte blocks on the unified-buffer side. */
struct DataCopyExtParams {
    DataCopyExtParams() {}
    DataCopyExtParams(const uint16_t count, const uint32_t len, const uint32_t srcStrideIn, const uint32_t dstStrideIn,
                      const uint32_t rsvIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn), rsv(rsvIn)
    {}
    uint16_t blockCount = DEFAULT_DATA_COPY_NBURST;
    uint32_t blockLen = 0;
    uint32_t srcStride = DEFAULT_DATA_COPY_STRIDE;
    uint32_t dstStride = DEFAULT_DATA_COPY_STRIDE;
    uint32_t rsv = 0;
};

template <typename T>
struct DataCopyPadExtParams {
    DataCopyPadExtParams() {}
    DataCopyPadExtParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue, T padValue)
        : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue)
    {}
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    T paddingValue = T(0);
};

/** The older DataCopyPad parameters (paddingValue as raw bits). */
struct DataCopyPadParams {
    DataCopyPadParams() {}
    DataCopyPadParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue,
                      const uint64_t padValue)
        : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue)
    {}
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    uint64_t paddingValue = 0;
};

namespace cannon_detail {
template <typename T>
inline uint32_t BlockElems()
{
    return 32u / static_cast<uint32_t>(sizeof(T));
}

/* The elements a count-form DataCopy moves: count rounded down to whole 32-byte blocks, as the chip
 * does (the checker reports a count that is not a whole number of blocks). */
template <typename T>
inline uint32_t CopyCount(const uint32_t count CANNON_ASCENDC_LOC)
{
    const uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
    CANNON_ASCENDC_CHECK_IF(bytes % 32 != 0,
                            "DataCopy of %u elements (%llu bytes) is not a multiple of 32 bytes (the chip rounds it down)",
                            count, (unsigned long long)bytes);
    return static_cast<uint32_t>((bytes & ~31ull) / sizeof(T));
}
}  // namespace cannon_detail

namespace cannon_detail {
/* A copy to global memory streams (non-temporal stores, cannonAscendcCopyStream) when the global
 * range from its start to the end of the GlobalTensor's buffer is at least this large: an output
 * that size will not stay in cache, and streaming it saves reading it first. */
constexpr uint64_t kStreamBytes = 1u << 20;
constexpr uint64_t kStreamMinCopy = 4096;

/* A copy into the UB from global memory also prefetches the same number of bytes that follow it,
 * within the GlobalTensor's range (@p ahead bytes are left there): tiled kernels read their input
 * tile after tile, and a tile is often a page or more, where the CPU's own stream prefetchers stop
 * and start again cold. Up to kPrefetchMax bytes, one prefetch per 64-byte line. */
constexpr uint64_t kPrefetchMax = 16384;

inline void CopyIn(void *dst, const void *src, uint64_t bytes, uint64_t ahead)
{
    std::memcpy(dst, src, static_cast<size_t>(bytes));
#if defined(__GNUC__)
    uint64_t pf = ahead < bytes ? ahead : bytes;
    if (pf > kPrefetchMax)
        pf = kPrefetchMax;
    const char *next = static_cast<const char *>(src) + bytes;
    for (uint64_t off = 0; off < pf; off += 64)
        __builtin_prefetch(next + off, 0, 3);
#else
    (void)ahead;
#endif
}

inline void CopyOut(void *dst, const void *src, uint64_t bytes, bool large)
{
    if (large && bytes >= kStreamMinCopy)
        (void)cannonAscendcCopyStream(dst, src, bytes);
    else
        std::memcpy(dst, src, static_cast<size_t>(bytes));
}
}  // namespace cannon_detail

/* Count form, global -> unified buffer. */
template <typename T>
inline void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const uint32_t count CANNON_ASCENDC_LOC)
{
    const uint32_t n = cannon_detail::CopyCount<T>(count CANNON_ASCENDC_CHECK_ARG);
#if CANNON_ASCENDC_CHECK
    dst.Check(0, n, loc_);
    src.CheckRange(0, n, loc_);
#endif
    const uint64_t left = src.GetSize() > n ? (src.GetSize() - n) * sizeof(T) : 0;
    cannon_detail::CopyIn(dst.GetPhyAddr(), src.GetPhyAddr(), static_cast<uint64_t>(n) * sizeof(T),
                          src.GetSize() == UINT64_MAX ? 0 : left);
}

/* Count form, unified buffer -> global. */
template <typename T>
inline void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t count CANNON_ASCENDC_LOC)
{
    const uint32_t n = cannon_detail::CopyCount<T>(count CANNON_ASCENDC_CHECK_ARG);
#if CANNON_ASCENDC_CHECK
    src.Check(0, n, loc_);
    dst.CheckRange(0, n, loc_);
#endif
    cannon_detail::CopyOut(dst.GetPhyAddr(), src.GetPhyAddr(), static_cast<uint64_t>(n) * sizeof(T),
                           dst.GetSize() > cannon_detail::kStreamBytes / sizeof(T));
}

/* Count form, unified buffer -> unified buffer. */
template <typename T>
inline void DataCopy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t count CANNON_ASCENDC_LOC)
{
    const uint32_t n = cannon_detail::CopyCount<T>(count CANNON_ASCENDC_CHECK_ARG);
#if CANNON_ASCENDC_CHECK
    src.Check(0, n, loc_);
    dst.Check(0, n, loc_);
#endif
    std::memmove(dst.GetPhyAddr(), src.GetPhyAddr(), static_cast<size_t>(n) * sizeof(T));
}

namespace cannon_detail {
/* Block form: blockCount blocks of blockLen 32-byte units; each side skips its gap after a block. */
template <typename D, typename S>
inline void CopyBlocks(D *dst, const S *src, const DataCopyParams &p)
{
    const size_t len = static_cast<size_t>(p.blockLen) * 32u;
    uint8_t *d = reinterpret_cast<uint8_t *>(dst);
    const uint8_t *s = reinterpret_cast<const uint8_t *>(src);
    for (uint32_t b = 0; b < p.blockCount; b++) {
        std::memmove(d, s, len);
        d += len + static_cast<size_t>(p.dstStride) * 32u;
        s += len + static_cast<size_t>(p.srcStride) * 32u;
    }
}
inline uint64_t BlocksSpan(const DataCopyParams &p, uint16_t gap)
{
    if (p.blockCount == 0)
        return 0;
    return (static_cast<uint64_t>(p.blockCount) * p.blockLen + static_cast<uint64_t>(p.blockCount - 1) * gap) * 32u;
}
}  // namespace cannon_detail

template <typename T>
inline void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src,
                     const DataCopyParams &repeatParams CANNON_ASCENDC_LOC)
{
#if CANNON_ASCENDC_CHECK
    dst.Check(0, cannon_detail::BlocksSpan(repeatParams, repeatParams.dstStride) / sizeof(T), loc_);
    src.CheckRange(0, cannon_detail::BlocksSpan(repeatParams, repeatParams.srcStride) / sizeof(T), loc_);
#endif
    cannon_detail::CopyBlocks(dst.GetPhyAddr(), src.GetPhyAddr(), repeatParams);
}

template <typename T>
inline void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src,
                     const DataCopyParams &repeatParams CANNON_ASCENDC_LOC)
{
#if CANNON_ASCENDC_CHECK
    src.Check(0, cannon_detail::BlocksSpan(repeatParams, repeatParams.srcStride) / sizeof(T), loc_);
    dst.CheckRange(0, cannon_detail::BlocksSpan(repeatParams, repeatParams.dstStride) / sizeof(T), loc_);
#endif
    cannon_detail::CopyBlocks(dst.GetPhyAddr(), src.GetPhyAddr(), repeatParams);
}

template <typename T>
inline void DataCopy(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                     const DataCopyParams &repeatParams CANNON_ASCENDC_LOC)
{
#if CANNON_ASCENDC_CHECK
    src.Check(0, cannon_detail::BlocksSpan(repeatParams, repeatParams.srcStride) / sizeof(T), loc_);
    dst.Check(0, cannon_detail::BlocksSpan(repeatParams, repeatParams.dstStride) / sizeof(T), loc_);
#endif
    cannon_detail::CopyBlocks(dst.GetPhyAddr(), src.GetPhyAddr(), repeatParams);
}

/**
 * DataCopyPad, global -> unified buffer: blockCount blocks of blockLen bytes (global side: next
 * block srcStride bytes after the end of the previous one). In the unified buffer each block is
 * [leftPadding elements][data][rightPadding elements], rounded up to 32 bytes, and the next one
 * starts dstStride 32-byte blocks later. With isPad the padding (and the rest of the 32-byte
 * tail) holds paddingValue; without, it is left as it was.
 */
template <typename T>
inline void DataCopyPad(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyExtParams &dataCopyParams,
                        const DataCopyPadExtParams<T> &padParams CANNON_ASCENDC_LOC)
{
    const DataCopyExtParams &p = dataCopyParams;
    CANNON_ASCENDC_CHECK_IF(p.blockLen % sizeof(T) != 0, "DataCopyPad: blockLen %u is not a multiple of the %u-byte element",
                            p.blockLen, (unsigned)sizeof(T));
    const uint32_t dataElems = p.blockLen / static_cast<uint32_t>(sizeof(T));
    const uint32_t rowElems = padParams.leftPadding + dataElems + padParams.rightPadding;
    const uint32_t rowBytes = (rowElems * static_cast<uint32_t>(sizeof(T)) + 31u) & ~31u;
    const uint32_t rowStride = rowBytes / static_cast<uint32_t>(sizeof(T)) + p.dstStride * cannon_detail::BlockElems<T>();
#if CANNON_ASCENDC_CHECK
    if (p.blockCount) {
        dst.Check(0, static_cast<uint64_t>(p.blockCount - 1) * rowStride + rowBytes / sizeof(T), loc_);
        src.CheckRange(0, (static_cast<uint64_t>(p.blockCount) * p.blockLen +
                           static_cast<uint64_t>(p.blockCount - 1) * p.srcStride) / sizeof(T), loc_);
        CANNON_ASCENDC_CHECK_IF(p.srcStride % sizeof(T) != 0, "DataCopyPad: srcStride %u is not a multiple of the element",
                                p.srcStride);
    }
#endif
    T *d = dst.GetPhyAddr();
    const uint8_t *s = reinterpret_cast<const uint8_t *>(src.GetPhyAddr());
    for (uint32_t b = 0; b < p.blockCount; b++) {
        T *row = d + static_cast<size_t>(b) * rowStride;
        std::memcpy(row + padParams.leftPadding, s, p.blockLen);
        if (padParams.isPad) {
            for (uint32_t i = 0; i < padParams.leftPadding; i++)
                row[i] = padParams.paddingValue;
            for (uint32_t i = padParams.leftPadding + dataElems; i < rowBytes / sizeof(T); i++)
                row[i] = padParams.paddingValue;
        }
        s += static_cast<size_t>(p.blockLen) + p.srcStride;
    }
}

template <typename T>
inline void DataCopyPad(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyParams &dataCopyParams,
                        const DataCopyPadParams &padParams CANNON_ASCENDC_LOC)
{
    T pad;
    uint64_t bits = padParams.paddingValue;
    std::memcpy(&pad, &bits, sizeof(T) < sizeof bits ? sizeof(T) : sizeof bits);
    DataCopyPad(dst, src,
                DataCopyExtParams(dataCopyParams.blockCount, dataCopyParams.blockLen, dataCopyParams.srcStride,
                                  dataCopyParams.dstStride, 0),
                DataCopyPadExtParams<T>(padParams.isPad, padParams.leftPadding, padParams.rightPadding,
                                        pad) CANNON_ASCENDC_CHECK_ARG);
}

/**
 * DataCopyPad, unified buffer -> global: blockCount blocks of blockLen bytes; in the unified buffer
 * each block starts on a 32-byte boundary (next block srcStride 32-byte blocks after the rounded
 * end of the previous one); in global memory the next block starts dstStride bytes after the end
 * of the previous one.
 */
template <typename T>
inline void DataCopyPad(const GlobalTensor<T> &dst, const LocalTensor<T> &src,
                        const DataCopyExtParams &dataCopyParams CANNON_ASCENDC_LOC)
{
    const DataCopyExtParams &p = dataCopyParams;
    CANNON_ASCENDC_CHECK_IF(p.blockLen % sizeof(T) != 0, "DataCopyPad: blockLen %u is not a multiple of the %u-byte element",
                            p.blockLen, (unsigned)sizeof(T));
    const uint32_t rowBytes = (p.blockLen + 31u) & ~31u;
    const uint32_t rowStride = rowBytes / static_cast<uint32_t>(sizeof(T)) + p.srcStride * cannon_detail::BlockElems<T>();
#if CANNON_ASCENDC_CHECK
    if (p.blockCount) {
        src.Check(0, static_cast<uint64_t>(p.blockCount - 1) * rowStride + p.blockLen / sizeof(T), loc_);
        dst.CheckRange(0, (static_cast<uint64_t>(p.blockCount) * p.blockLen +
                           static_cast<uint64_t>(p.blockCount - 1) * p.dstStride) / sizeof(T), loc_);
    }
#endif
    uint8_t *d = reinterpret_cast<uint8_t *>(dst.GetPhyAddr());
    const T *s = src.GetPhyAddr();
    for (uint32_t b = 0; b < p.blockCount; b++) {
        std::memcpy(d, s + static_cast<size_t>(b) * rowStride, p.blockLen);
        d += static_cast<size_t>(p.blockLen) + p.dstStride;
    }
}

template <typename T>
inline void DataCopyPad(const GlobalTensor<T> &dst, const LocalTensor<T> &src,
                        const DataCopyParams &dataCopyParams CANNON_ASCENDC_LOC)
{
    DataCopyPad(dst, src,
                DataCopyExtParams(dataCopyParams.blockCount, dataCopyParams.blockLen, dataCopyParams.srcStride,
                                  dataCopyParams.dstStride, 0) CANNON_ASCENDC_CHECK_ARG);
}

}  // namespace AscendC

#endif /* CANNON_ASCENDC_DATA_COPY_H_ */
