/**
 * @file cannon_ascendc/core.h
 * The block context (GetBlockIdx, GetBlockNum), the checker's plumbing, the tensors (GlobalTensor,
 * LocalTensor) and the unified-buffer managers (TPipe, TQue, TBuf).
 *
 * Memory model on cannon: global memory is device memory of a cannon device (plain host memory
 * of the process); a block's unified buffer is its worker thread's arena of
 * CANNON_ASCENDC_UB_SIZE bytes (192 KiB, the 910B vector core's UB; 256 KiB for the 310P and 910A,
 * 248 KiB for the 310B, by __NPU_ARCH__), from which TPipe::InitBuffer
 * carves each queue's and TBuf's buffers in declaration order, 32-byte aligned. Queues hand out
 * their buffers round the ring; the pipeline is sequential on a CPU, so EnQue/DeQue only move
 * buffers between states and the data never waits.
 *
 * The checker (CANNON_ASCENDC_CHECK, on by default in CPU-debug builds) validates every rule the
 * chip would break silently or hang on, reports the first violation with the kernel, block and
 * source line as the stream's error and stops the block.
 */
#ifndef CANNON_ASCENDC_CORE_H_
#define CANNON_ASCENDC_CORE_H_

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cannon_ascendc/block.h"
#include "cannon_ascendc/positions.h"
#include "cannon_ascendc/types.h"

/* The checker switch: CANNON_ASCENDC_CHECK=1 turns it on, =0 off; by default it is on where a
 * CANN CPU-debug build would be (ASCENDC_CPU_DEBUG or __CCE_KT_TEST__ defined). */
#ifndef CANNON_ASCENDC_CHECK
#if defined(ASCENDC_CPU_DEBUG) || defined(__CCE_KT_TEST__)
#define CANNON_ASCENDC_CHECK 1
#else
#define CANNON_ASCENDC_CHECK 0
#endif
#endif

namespace cannon_ascendc {

/** A source position: the caller's, through default arguments, when the checker is on. */
struct SrcLoc {
    const char *file;
    int line;
    SrcLoc(const char *f = __builtin_FILE(), int l = __builtin_LINE()) : file(f), line(l) {}
};

/** Thrown (checker mode, and for UB exhaustion) to stop a block after its violation is reported;
 *  the launcher catches it. Kernel code must not catch it. */
struct BlockAbort {
    int code;
};

template <class... A>
[[noreturn]] inline void Fail(const SrcLoc &loc, const char *fmt, A... args)
{
    int code = cannonAscendcReport(CANNON_ASCENDC_ERROR, loc.file, loc.line, fmt, args..., 0);
    throw BlockAbort{code};
}

/* Non-deduced context, so a scalar argument takes the tensor's element type. */
template <class T>
struct Identity {
    using type = T;
};
template <class T>
using NoDeduce = typename Identity<T>::type;

}  // namespace cannon_ascendc

#if CANNON_ASCENDC_CHECK
#define CANNON_ASCENDC_LOC , ::cannon_ascendc::SrcLoc loc_ = ::cannon_ascendc::SrcLoc()
#define CANNON_ASCENDC_LOC1 ::cannon_ascendc::SrcLoc loc_ = ::cannon_ascendc::SrcLoc()
#define CANNON_ASCENDC_CHECK_ARG , loc_
#define CANNON_ASCENDC_CHECK_IF(cond, ...)                                                                            \
    do {                                                                                                              \
        if (cond)                                                                                                     \
            ::cannon_ascendc::Fail(loc_, __VA_ARGS__);                                                                \
    } while (0)
#else
#define CANNON_ASCENDC_LOC
#define CANNON_ASCENDC_LOC1
#define CANNON_ASCENDC_CHECK_ARG
#define CANNON_ASCENDC_CHECK_IF(cond, ...) ((void)0)
#endif

/** The cores a kernel runs on in CPU-debug mode (SetKernelMode); global, as in CANN. */
enum class KernelMode { MIX_MODE = 0, AIC_MODE, AIV_MODE };

namespace AscendC {

/** Where a tensor lives (the list is shared with matmul_tiling::TPosition: positions.h). */
enum class TPosition : uint8_t {
    CANNON_ASCENDC_TPOSITIONS(CANNON_ASCENDC_POS_ENUM, CANNON_ASCENDC_POS_ALIAS)
    C2PIPE2GM,
    C2PIPE2LOCAL,
    MAX,
};
using QuePosition = TPosition;

/* The pipes and event ids are the device compiler's builtin types, in the global namespace
 * (kernels call set_flag(PIPE_V, PIPE_S, id) unqualified); AscendC re-exports them. */
}  // namespace AscendC
enum pipe_t { PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_MTE4, PIPE_MTE5,
              PIPE_V2, PIPE_FIX };
enum event_t { EVENT_ID0 = 0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 };
/** The synchronisation intrinsics. The pipeline is sequential on a CPU: each pipe's work is done
 *  when its call returns, so flags and barriers have nothing to wait for. */
inline void set_flag(pipe_t, pipe_t, event_t) {}
inline void wait_flag(pipe_t, pipe_t, event_t) {}
inline void set_flag(pipe_t, pipe_t, int32_t) {}
inline void wait_flag(pipe_t, pipe_t, int32_t) {}
inline void pipe_barrier(pipe_t) {}
namespace AscendC {
using ::event_t;
using ::pipe_t;

enum class HardEvent : uint8_t {
    MTE2_MTE1 = 0, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V, MTE3_MTE1, MTE1_MTE3,
    MTE1_V, MTE2_M, M_MTE2, V_MTE1, M_FIX, FIX_M, MTE3_MTE2, MTE2_MTE3, S_V, V_S, S_MTE2, MTE2_S, S_MTE3, MTE3_S,
    MTE2_FIX, FIX_MTE2, FIX_S, M_S, FIX_MTE3, MTE1_FIX, FIX_MTE1, FIX_FIX, MAX
};
/** The Ascend C forms of the same synchronisation: no-ops on a CPU (see set_flag). */
template <pipe_t pipe>
inline void PipeBarrier() {}
template <HardEvent event>
inline void SetFlag(int32_t) {}
template <HardEvent event>
inline void WaitFlag(int32_t) {}
inline void SyncAll() {}

inline int64_t GetBlockIdx()
{
    const cannon_ascendc_block *b = cannonAscendcCurrentBlock();
    return b ? static_cast<int64_t>(b->block_idx) : 0;
}

inline int64_t GetBlockNum()
{
    const cannon_ascendc_block *b = cannonAscendcCurrentBlock();
    return b ? static_cast<int64_t>(b->block_num) : 1;
}

/** The vector core of its AI core that runs the block: in a MIX kernel on a split-core SoC (see
 *  cannon_ascendc::SubBlocks) block i is sub-block i % 2 of AI core i / 2; otherwise 0. */
inline int64_t GetSubBlockIdx()
{
    const cannon_ascendc_block *b = cannonAscendcCurrentBlock();
    return b && b->sub_block_num > 1 ? static_cast<int64_t>(b->block_idx % b->sub_block_num) : 0;
}

/** Vector cores per AI core in the running launch: 2 in a MIX kernel on a split-core SoC, else 1. */
inline int64_t GetSubBlockNum()
{
    const cannon_ascendc_block *b = cannonAscendcCurrentBlock();
    return b && b->sub_block_num > 1 ? static_cast<int64_t>(b->sub_block_num) : 1;
}

/** The ratio of the running core kind to the cube cores: the vector blocks of a MIX kernel on a
 *  split-core SoC give 2, every other block 1. */
inline int64_t GetTaskRation() { return GetSubBlockNum(); }

/** The unified buffer's size and the part a kernel may give the Matmul API as its local workspace
 *  (SetLocalWorkspace), for the SoC the source is compiled for (__NPU_ARCH__ 1001/2002: 256 KiB and
 *  248 KiB; 3002: 248 KiB and 184 KiB; otherwise 192 KiB and 184 KiB). */
#if defined(__NPU_ARCH__) && (__NPU_ARCH__ == 1001 || __NPU_ARCH__ == 2002)
const int32_t TOTAL_VEC_LOCAL_SIZE = 248 * 1024;
#else
const int32_t TOTAL_VEC_LOCAL_SIZE = 184 * 1024;
#endif
const uint32_t TOTAL_UB_SIZE = CANNON_ASCENDC_UB_SIZE;

template <typename T>
class LocalTensor;
template <TPosition pos, int32_t depth, auto mask>
class TQue;
template <TPosition pos>
class TBuf;
class TPipe;

namespace cannon_detail {
/** One buffer of a queue: its state and the generation that FreeTensor bumps. */
struct BufSlot {
    uint8_t *addr = nullptr;
    uint32_t len = 0;
    uint32_t gen = 1;
    uint8_t state = 0; /* 0 free, 1 allocated, 2 enqueued */
};
}  // namespace cannon_detail

/** A view of global (device) memory. */
template <typename T>
class GlobalTensor {
public:
    using PrimType = T;
    GlobalTensor() = default;

    void SetGlobalBuffer(__gm__ T *buffer, uint64_t bufferSize)
    {
        addr_ = buffer;
        size_ = bufferSize;
        oob_ = false;
    }
    /** Without a size the range is unchecked. */
    void SetGlobalBuffer(__gm__ T *buffer)
    {
        addr_ = buffer;
        size_ = UINT64_MAX;
        oob_ = false;
    }
    __gm__ T *GetPhyAddr() const { return addr_; }
    __gm__ T *GetPhyAddr(uint64_t offset) const { return addr_ + offset; }
    uint64_t GetSize() const { return size_; }

    GlobalTensor operator[](uint64_t offset) const
    {
        GlobalTensor r;
        r.addr_ = addr_ + offset;
        r.oob_ = oob_ || (size_ != UINT64_MAX && offset > size_);
        r.size_ = size_ == UINT64_MAX ? UINT64_MAX : (offset > size_ ? 0 : size_ - offset);
        return r;
    }

    T GetValue(uint64_t offset CANNON_ASCENDC_LOC) const
    {
        CheckRange(offset, 1 CANNON_ASCENDC_CHECK_ARG);
        return addr_[offset];
    }
    void SetValue(uint64_t offset, T value CANNON_ASCENDC_LOC)
    {
        CheckRange(offset, 1 CANNON_ASCENDC_CHECK_ARG);
        addr_[offset] = value;
    }
    T &operator()(uint64_t offset) const { return addr_[offset]; }
    void SetL2CacheHint(int) {}

    /** Checker: elements [offset, offset+count) lie inside SetGlobalBuffer's range. */
    void CheckRange(uint64_t offset, uint64_t count CANNON_ASCENDC_LOC) const
    {
#if CANNON_ASCENDC_CHECK
        CANNON_ASCENDC_CHECK_IF(addr_ == nullptr, "GlobalTensor used before SetGlobalBuffer");
        CANNON_ASCENDC_CHECK_IF(oob_, "GlobalTensor offset outside SetGlobalBuffer's range");
        CANNON_ASCENDC_CHECK_IF(size_ != UINT64_MAX && (offset > size_ || count > size_ - offset),
                                "GlobalTensor access [%llu, %llu) outside SetGlobalBuffer's %llu elements",
                                (unsigned long long)offset, (unsigned long long)(offset + count),
                                (unsigned long long)size_);
#else
        (void)offset;
        (void)count;
#endif
    }

private:
    __gm__ T *addr_ = nullptr;
    uint64_t size_ = 0;
    bool oob_ = false;
};

/** A view of a block's unified buffer, handed out by a queue or a TBuf. */
template <typename T>
class LocalTensor {
public:
    using PrimType = T;
    LocalTensor() = default;
    LocalTensor(T *addr, uint32_t size, TPosition pos, cannon_detail::BufSlot *slot)
        : addr_(addr), size_(size), pos_(pos), slot_(slot), gen_(slot ? slot->gen : 0)
    {}

    T *GetPhyAddr() const { return addr_; }
    T *GetPhyAddr(uint32_t offset) const { return addr_ + offset; }
    uint32_t GetSize() const { return size_; }
    uint32_t GetLength() const { return size_ * static_cast<uint32_t>(sizeof(T)); }
    void SetSize(uint32_t size) { size_ = size; }
    TPosition GetPosition() const { return pos_; }

    LocalTensor operator[](uint32_t offset) const
    {
        LocalTensor r = *this;
        r.addr_ = addr_ + offset;
        r.size_ = offset > size_ ? 0 : size_ - offset;
        r.oob_ = oob_ || offset > size_;
        return r;
    }
    T GetValue(uint32_t index CANNON_ASCENDC_LOC) const
    {
        Check(index, 1 CANNON_ASCENDC_CHECK_ARG);
        return addr_[index];
    }
    void SetValue(uint32_t index, T value CANNON_ASCENDC_LOC) const
    {
        Check(index, 1 CANNON_ASCENDC_CHECK_ARG);
        addr_[index] = value;
    }
    T &operator()(uint32_t index) const { return addr_[index]; }

    /** `dst = a + b` (and -, *, /): the instruction into this tensor's buffer (vec.h). */
    template <class E, typename = typename E::CannonSymbolExpr>
    LocalTensor &operator=(const E &expr)
    {
        expr.Eval(*this);
        return *this;
    }

    template <typename U>
    LocalTensor<U> ReinterpretCast() const
    {
        LocalTensor<U> r(reinterpret_cast<U *>(addr_),
                         static_cast<uint32_t>(static_cast<uint64_t>(size_) * sizeof(T) / sizeof(U)), pos_, nullptr);
        r.SetSlot(slot_, gen_, oob_);
        return r;
    }

    /** Checker: the tensor's buffer is live and elements [offset, offset+count) lie inside it. */
    void Check(uint64_t offset, uint64_t count CANNON_ASCENDC_LOC) const
    {
#if CANNON_ASCENDC_CHECK
        CANNON_ASCENDC_CHECK_IF(addr_ == nullptr, "LocalTensor used before AllocTensor/DeQue/Get");
        CANNON_ASCENDC_CHECK_IF(slot_ && slot_->gen != gen_, "LocalTensor used after FreeTensor");
        CANNON_ASCENDC_CHECK_IF(oob_ || offset > size_ || count > size_ - offset,
                                "LocalTensor access [%llu, %llu) outside its buffer of %u elements",
                                (unsigned long long)offset, (unsigned long long)(offset + count), size_);
#else
        (void)offset;
        (void)count;
#endif
    }

    /* For the queues and ReinterpretCast. */
    cannon_detail::BufSlot *Slot() const { return slot_; }
    uint32_t Gen() const { return gen_; }
    void SetSlot(cannon_detail::BufSlot *slot, uint32_t gen, bool oob)
    {
        slot_ = slot;
        gen_ = gen;
        oob_ = oob;
    }

private:
    T *addr_ = nullptr;
    uint32_t size_ = 0;
    TPosition pos_ = TPosition::VECCALC;
    cannon_detail::BufSlot *slot_ = nullptr;
    uint32_t gen_ = 0;
    bool oob_ = false;
};

namespace cannon_detail {
/** The pipe GetTPipePtr() returns: the last TPipe constructed on this thread that is still alive. */
inline TPipe *&CurrentPipe()
{
    static thread_local TPipe *pipe = nullptr;
    return pipe;
}
/** The block's unified buffer: the launcher's arena, or the thread's own outside a launch. */
inline cannon_ascendc_block *UB(cannon_ascendc_block &local)
{
    cannon_ascendc_block *b = cannonAscendcCurrentBlock();
    if (b)
        return b;
    return &local;
}
}  // namespace cannon_detail

/** The unified-buffer allocator of a kernel: hands out queue and TBuf buffers from the block's UB. */
class TPipe {
public:
    TPipe()
    {
        cannon_ascendc_block *b = cannonAscendcCurrentBlock();
        if (b) {
            ub_ = b->ub;
            size_ = b->ub_size;
            start_ = b->ub_used;
            used_ = &b->ub_used;
        } else {
            ub_ = cannonAscendcThreadUB();
            size_ = ub_ ? CANNON_ASCENDC_UB_SIZE : 0;
            start_ = 0;
            own_used_ = 0;
            used_ = &own_used_;
        }
        prev_ = cannon_detail::CurrentPipe();
        cannon_detail::CurrentPipe() = this;
    }
    ~TPipe()
    {
        *used_ = start_;
        if (cannon_detail::CurrentPipe() == this)
            cannon_detail::CurrentPipe() = prev_;
    }
    TPipe(const TPipe &) = delete;
    TPipe &operator=(const TPipe &) = delete;

    template <class Q>
    bool InitBuffer(Q &que, uint8_t num, uint32_t len CANNON_ASCENDC_LOC)
    {
#if CANNON_ASCENDC_CHECK
        CANNON_ASCENDC_CHECK_IF(num == 0 || len == 0, "InitBuffer with %u buffers of %u bytes", num, len);
        CANNON_ASCENDC_CHECK_IF(num > kMaxBufPerQue, "InitBuffer: %u buffers on one queue (the chip allows %u)",
                                num, kMaxBufPerQue);
        uint8_t *p = Carve(static_cast<uint64_t>(num) * Round32(len), loc_);
#else
        uint8_t *p = Carve(static_cast<uint64_t>(num) * Round32(len), cannon_ascendc::SrcLoc());
#endif
        que.Attach(p, num, Round32(len));
#if CANNON_ASCENDC_CHECK
        que.SetInitLoc(loc_);
#endif
        return true;
    }

    template <TPosition pos>
    bool InitBuffer(TBuf<pos> &buf, uint32_t len CANNON_ASCENDC_LOC)
    {
#if CANNON_ASCENDC_CHECK
        uint8_t *p = Carve(Round32(len), loc_);
#else
        uint8_t *p = Carve(Round32(len), cannon_ascendc::SrcLoc());
#endif
        buf.Attach(p, Round32(len));
        return true;
    }

    /** Frees every buffer this pipe handed out. */
    void Reset() { *used_ = start_; }
    void Destroy() { *used_ = start_; }
    void Init() {}
    template <HardEvent evt>
    int32_t AllocEventID() { return 0; }
    template <HardEvent evt>
    void ReleaseEventID(int32_t) {}
    int32_t FetchEventID(HardEvent) { return 0; }
    template <HardEvent evt>
    int32_t FetchEventID() { return 0; }

    /** Bytes of the unified buffer in use by this block. */
    uint32_t UsedBytes() const { return *used_; }

    /** Live buffers one queue may hold at once on the 910B (A2) series. */
    static constexpr uint32_t kMaxBufPerQue = 8;

private:
    static uint32_t Round32(uint32_t n) { return (n + 31u) & ~31u; }
    uint8_t *Carve(uint64_t bytes, const cannon_ascendc::SrcLoc &loc)
    {
        /* Checked in both modes: running out of the UB would write past the arena. */
        if (!ub_)
            cannon_ascendc::Fail(loc, "no unified buffer (out of memory)");
        if (bytes > size_ - *used_)
            cannon_ascendc::Fail(loc, "unified buffer overflow: InitBuffer of %llu bytes with %u of %u bytes in use",
                                 (unsigned long long)bytes, *used_, size_);
        uint8_t *p = ub_ + *used_;
        *used_ += static_cast<uint32_t>(bytes);
        return p;
    }

    uint8_t *ub_ = nullptr;
    uint32_t size_ = 0;
    uint32_t start_ = 0;
    uint32_t own_used_ = 0;
    uint32_t *used_ = nullptr;
    TPipe *prev_ = nullptr;
};

/** The kernel's pipe (the innermost live TPipe of the block), for code that has no reference to it. */
inline TPipe *GetTPipePtr()
{
    return cannon_detail::CurrentPipe();
}

/**
 * A queue of @p depth entries at position @p pos over the buffers InitBuffer gives it.
 * AllocTensor takes a free buffer, EnQue puts it in the queue, DeQue takes the oldest entry out,
 * FreeTensor returns the buffer.
 */
template <TPosition pos, int32_t depth, auto mask = 0>
class TQue {
public:
    TQue() = default;
    TQue(const TQue &) = delete;
    TQue &operator=(const TQue &) = delete;
    ~TQue()
    {
#if CANNON_ASCENDC_CHECK
        if (num_ == 0)
            return;
        uint32_t enq = 0, alloc = 0;
        for (uint32_t i = 0; i < num_; i++) {
            enq += slots_[i].state == 2;
            alloc += slots_[i].state == 1;
        }
        if (enq)
            (void)cannonAscendcReport(CANNON_ASCENDC_ERROR, init_file_, init_line_,
                                      "EnQue/DeQue imbalance at block end: %u tensor(s) enqueued and never dequeued "
                                      "on the queue initialised here", enq);
        else if (alloc)
            (void)cannonAscendcReport(CANNON_ASCENDC_ERROR, init_file_, init_line_,
                                      "AllocTensor/FreeTensor imbalance at block end: %u buffer(s) never freed on the "
                                      "queue initialised here", alloc);
#endif
    }

    template <typename T>
    LocalTensor<T> AllocTensor(CANNON_ASCENDC_LOC1)
    {
        CANNON_ASCENDC_CHECK_IF(num_ == 0, "AllocTensor on a queue without InitBuffer");
        for (uint32_t k = 0; k < num_; k++) {
            uint32_t i = (next_ + k) % num_;
            if (slots_[i].state == 0) {
                slots_[i].state = 1;
                next_ = (i + 1) % num_;
                return LocalTensor<T>(reinterpret_cast<T *>(slots_[i].addr),
                                      static_cast<uint32_t>(slots_[i].len / sizeof(T)), pos, &slots_[i]);
            }
        }
#if CANNON_ASCENDC_CHECK
        cannon_ascendc::Fail(loc_, "AllocTensor: all %u buffers of the queue are live (too many live buffers; the "
                             "chip would wait forever)", num_);
#else
        cannon_ascendc::Fail(cannon_ascendc::SrcLoc(), "AllocTensor: all %u buffers of the queue are live", num_);
#endif
    }

    template <typename T>
    bool EnQue(const LocalTensor<T> &tensor CANNON_ASCENDC_LOC)
    {
        cannon_detail::BufSlot *s = tensor.Slot();
#if CANNON_ASCENDC_CHECK
        CANNON_ASCENDC_CHECK_IF(s == nullptr || s < slots_ || s >= slots_ + num_,
                                "EnQue of a tensor that is not a buffer of this queue");
        CANNON_ASCENDC_CHECK_IF(s->gen != tensor.Gen(), "EnQue of a tensor after FreeTensor");
        CANNON_ASCENDC_CHECK_IF(s->state == 2, "EnQue of a tensor already in the queue");
        CANNON_ASCENDC_CHECK_IF(count_ >= static_cast<uint32_t>(depth > 0 ? depth : 1) && count_ >= num_,
                                "EnQue on a full queue");
#endif
        if (s == nullptr)
            return false;
        s->state = 2;
        fifo_[(head_ + count_) % kMaxSlots] = static_cast<uint8_t>(s - slots_);
        count_++;
        return true;
    }

    template <typename T>
    LocalTensor<T> DeQue(CANNON_ASCENDC_LOC1)
    {
#if CANNON_ASCENDC_CHECK
        CANNON_ASCENDC_CHECK_IF(count_ == 0, "DeQue on an empty queue (the chip would wait forever)");
#endif
        cannon_detail::BufSlot &s = slots_[fifo_[head_]];
        head_ = (head_ + 1) % kMaxSlots;
        count_--;
        s.state = 1;
        return LocalTensor<T>(reinterpret_cast<T *>(s.addr), static_cast<uint32_t>(s.len / sizeof(T)), pos, &s);
    }

    template <typename T>
    void FreeTensor(LocalTensor<T> &tensor CANNON_ASCENDC_LOC)
    {
        cannon_detail::BufSlot *s = tensor.Slot();
#if CANNON_ASCENDC_CHECK
        CANNON_ASCENDC_CHECK_IF(s == nullptr || s < slots_ || s >= slots_ + num_,
                                "FreeTensor of a tensor that is not a buffer of this queue");
        CANNON_ASCENDC_CHECK_IF(s->gen != tensor.Gen() || s->state == 0, "FreeTensor of a tensor already freed");
        CANNON_ASCENDC_CHECK_IF(s->state == 2, "FreeTensor of a tensor still in the queue (EnQue without DeQue)");
#endif
        if (s == nullptr)
            return;
        s->state = 0;
        s->gen++;
    }

    bool HasTensorInQue() const { return count_ != 0; }
    int32_t GetTensorCountInQue() const { return static_cast<int32_t>(count_); }
    bool VacantInQue() const { return count_ < num_; }
    bool HasIdleBuffer() const
    {
        for (uint32_t i = 0; i < num_; i++)
            if (slots_[i].state == 0)
                return true;
        return false;
    }
    void FreeAllEvent() {}

    /* For TPipe::InitBuffer. */
    void Attach(uint8_t *p, uint32_t num, uint32_t len)
    {
        num_ = num > kMaxSlots ? kMaxSlots : num;
        for (uint32_t i = 0; i < num_; i++) {
            slots_[i].addr = p + static_cast<size_t>(i) * len;
            slots_[i].len = len;
            slots_[i].state = 0;
        }
        next_ = head_ = count_ = 0;
    }

private:
    static constexpr uint32_t kMaxSlots = 32;
    cannon_detail::BufSlot slots_[kMaxSlots];
    uint8_t fifo_[kMaxSlots] = {};
    uint32_t num_ = 0, next_ = 0, head_ = 0, count_ = 0;
#if CANNON_ASCENDC_CHECK
    const char *init_file_ = "";
    int init_line_ = 0;

public:
    void SetInitLoc(const cannon_ascendc::SrcLoc &loc)
    {
        init_file_ = loc.file;
        init_line_ = loc.line;
    }
#endif
};

/** A plain buffer for temporaries (no queue). */
template <TPosition pos = TPosition::VECCALC>
class TBuf {
public:
    TBuf() = default;
    template <typename T>
    LocalTensor<T> Get() const
    {
        return LocalTensor<T>(reinterpret_cast<T *>(addr_), static_cast<uint32_t>(len_ / sizeof(T)), pos, nullptr);
    }
    template <typename T>
    LocalTensor<T> Get(uint32_t len CANNON_ASCENDC_LOC) const
    {
        CANNON_ASCENDC_CHECK_IF(static_cast<uint64_t>(len) * sizeof(T) > len_,
                                "TBuf::Get of %u elements from a buffer of %u bytes", len, len_);
        return LocalTensor<T>(reinterpret_cast<T *>(addr_), len, pos, nullptr);
    }
    template <typename T>
    LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset CANNON_ASCENDC_LOC) const
    {
        CANNON_ASCENDC_CHECK_IF(static_cast<uint64_t>(size) * sizeof(T) + bufOffset > len_,
                                "TBuf::GetWithOffset of %u elements at byte %u from a buffer of %u bytes", size,
                                bufOffset, len_);
        return LocalTensor<T>(reinterpret_cast<T *>(addr_ + bufOffset), size, pos, nullptr);
    }
    void Attach(uint8_t *p, uint32_t len)
    {
        addr_ = p;
        len_ = len;
    }

private:
    uint8_t *addr_ = nullptr;
    uint32_t len_ = 0;
};

}  // namespace AscendC

#endif /* CANNON_ASCENDC_CORE_H_ */
