/*
 * Synchronous copies and fills. Small ones are a plain memcpy/memset on the calling thread (a pool
 * job costs a few microseconds). From CPU_PAR_MIN bytes on, the range is cut into chunks that the
 * pool's workers take dynamically, because one core cannot saturate memory bandwidth.
 *
 * Beyond CPU_NT_MIN bytes the chunks are written with non-temporal stores: the destination is far
 * larger than the caches, so ordinary stores would first read every destination line
 * (read-for-ownership) and evict useful data on the way, costing about a third of the bandwidth.
 * The vector width is chosen at run time from the ISA; without AVX2 it is plain memcpy/memset.
 */
#include <string.h>

#include "cannon/cpu.h"
#include "cpu_internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_HAVE_X86 1
#endif

#define CPU_PAR_MIN ((size_t)1 << 20)
#define CPU_NT_MIN ((size_t)8 << 20)
/* Chunks are multiples of 64 KiB (whole pages and cache lines) and at least 256 KiB, so the
 * per-chunk overhead stays negligible while late-waking workers can still share the tail. */
#define CPU_CHUNK_ALIGN ((size_t)64 << 10)
#define CPU_CHUNK_MIN ((size_t)256 << 10)

typedef void (*copy_fn)(void *dst, const void *src, size_t n);
typedef void (*fill_fn)(void *dst, int value, size_t n);

static void copy_plain(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
}

static void fill_plain(void *dst, int value, size_t n)
{
    memset(dst, value, n);
}

#ifdef CPU_HAVE_X86

/* Bytes until dst is 64-byte aligned (capped at n): the head written with ordinary stores. */
static size_t head_bytes(const void *dst, size_t n)
{
    size_t h = (64 - ((uintptr_t)dst & 63)) & 63;
    return h < n ? h : n;
}

__attribute__((target("avx2"))) static void copy_nt_avx2(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t h = head_bytes(d, n);
    memcpy(d, s, h);
    d += h, s += h, n -= h;
    for (; n >= 128; d += 128, s += 128, n -= 128) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)s);
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(s + 32));
        __m256i c = _mm256_loadu_si256((const __m256i *)(const void *)(s + 64));
        __m256i e = _mm256_loadu_si256((const __m256i *)(const void *)(s + 96));
        _mm256_stream_si256((__m256i *)(void *)d, a);
        _mm256_stream_si256((__m256i *)(void *)(d + 32), b);
        _mm256_stream_si256((__m256i *)(void *)(d + 64), c);
        _mm256_stream_si256((__m256i *)(void *)(d + 96), e);
    }
    /* Non-temporal stores are weakly ordered: fence them before the copy is reported done. */
    _mm_sfence();
    memcpy(d, s, n);
}

__attribute__((target("avx2"))) static void fill_nt_avx2(void *dst, int value, size_t n)
{
    unsigned char *d = dst;
    size_t h = head_bytes(d, n);
    memset(d, value, h);
    d += h, n -= h;
    __m256i v = _mm256_set1_epi8((char)value);
    for (; n >= 128; d += 128, n -= 128) {
        _mm256_stream_si256((__m256i *)(void *)d, v);
        _mm256_stream_si256((__m256i *)(void *)(d + 32), v);
        _mm256_stream_si256((__m256i *)(void *)(d + 64), v);
        _mm256_stream_si256((__m256i *)(void *)(d + 96), v);
    }
    _mm_sfence();
    memset(d, value, n);
}

__attribute__((target("avx512f"))) static void copy_nt_avx512(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t h = head_bytes(d, n);
    memcpy(d, s, h);
    d += h, s += h, n -= h;
    for (; n >= 256; d += 256, s += 256, n -= 256) {
        __m512i a = _mm512_loadu_si512((const void *)s);
        __m512i b = _mm512_loadu_si512((const void *)(s + 64));
        __m512i c = _mm512_loadu_si512((const void *)(s + 128));
        __m512i e = _mm512_loadu_si512((const void *)(s + 192));
        _mm512_stream_si512((void *)d, a);
        _mm512_stream_si512((void *)(d + 64), b);
        _mm512_stream_si512((void *)(d + 128), c);
        _mm512_stream_si512((void *)(d + 192), e);
    }
    _mm_sfence();
    memcpy(d, s, n);
}

__attribute__((target("avx512f"))) static void fill_nt_avx512(void *dst, int value, size_t n)
{
    unsigned char *d = dst;
    size_t h = head_bytes(d, n);
    memset(d, value, h);
    d += h, n -= h;
    __m512i v = _mm512_set1_epi32((int)(0x01010101u * (uint8_t)value));
    for (; n >= 256; d += 256, n -= 256) {
        _mm512_stream_si512((void *)d, v);
        _mm512_stream_si512((void *)(d + 64), v);
        _mm512_stream_si512((void *)(d + 128), v);
        _mm512_stream_si512((void *)(d + 192), v);
    }
    _mm_sfence();
    memset(d, value, n);
}

#endif /* CPU_HAVE_X86 */

/* Set by init before any device opens; atomics because init may run again while another thread
 * of the process copies through an older device of a different driver copy. */
static _Atomic(copy_fn) g_copy_nt = copy_plain;
static _Atomic(fill_fn) g_fill_nt = fill_plain;

void cannon_cpu_copy_setup(uint32_t isa)
{
    copy_fn c = copy_plain;
    fill_fn f = fill_plain;
#ifdef CPU_HAVE_X86
    if (isa & CANNON_CPU_ISA_AVX512F) {
        c = copy_nt_avx512;
        f = fill_nt_avx512;
    } else if (isa & CANNON_CPU_ISA_AVX2) {
        c = copy_nt_avx2;
        f = fill_nt_avx2;
    }
#else
    (void)isa;
#endif
    atomic_store(&g_copy_nt, c);
    atomic_store(&g_fill_nt, f);
}

typedef struct par_args {
    unsigned char *dst;
    const unsigned char *src;
    int value;
    size_t n, chunk;
    copy_fn copy;
    fill_fn fill;
} par_args;

static int copy_block(const cannon_kernel_ctx *ctx, void *p)
{
    const par_args *a = p;
    size_t off = (size_t)ctx->block_idx * a->chunk;
    size_t len = a->n - off < a->chunk ? a->n - off : a->chunk;
    a->copy(a->dst + off, a->src + off, len);
    return 0;
}

static int fill_block(const cannon_kernel_ctx *ctx, void *p)
{
    const par_args *a = p;
    size_t off = (size_t)ctx->block_idx * a->chunk;
    size_t len = a->n - off < a->chunk ? a->n - off : a->chunk;
    a->fill(a->dst + off, a->value, len);
    return 0;
}

/* Chunk size: about four chunks per worker, for balance when a helper wakes late. */
static size_t chunk_size(size_t n, uint32_t workers)
{
    size_t c = n / ((size_t)workers * 4);
    c = (c + CPU_CHUNK_ALIGN - 1) & ~(CPU_CHUNK_ALIGN - 1);
    return c < CPU_CHUNK_MIN ? CPU_CHUNK_MIN : c;
}

void cannon_cpu_copy(void *dst, const void *src, size_t n)
{
    if (n == 0 || dst == src)
        return;
    /* Callers pass ranges that do not wrap (cannon_cpu_range_ok); compare as integers anyway. */
    uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
    uint32_t workers = cannon_cpu_pool_workers();
    if (n < CPU_PAR_MIN || (d - s < n || s - d < n)) {
        /* Small, or overlapping (chunks would then depend on each other's order). */
        memmove(dst, src, n);
        return;
    }
    copy_fn nt = atomic_load_explicit(&g_copy_nt, memory_order_relaxed);
    par_args a = {.dst = dst, .src = src, .n = n, .copy = n >= CPU_NT_MIN ? nt : copy_plain};
    if (workers <= 1) {
        a.copy(dst, src, n);
        return;
    }
    a.chunk = chunk_size(n, workers);
    uint32_t blocks = (uint32_t)(n / a.chunk + (n % a.chunk != 0));
    cannon_cpu_pool_run("cpu_copy", copy_block, &a, blocks, NULL);
}

void cannon_cpu_fill(void *dst, int value, size_t n)
{
    if (n == 0)
        return;
    uint32_t workers = cannon_cpu_pool_workers();
    if (n < CPU_PAR_MIN) {
        memset(dst, value, n);
        return;
    }
    fill_fn nt = atomic_load_explicit(&g_fill_nt, memory_order_relaxed);
    par_args a = {.dst = dst, .value = value, .n = n, .fill = n >= CPU_NT_MIN ? nt : fill_plain};
    if (workers <= 1) {
        a.fill(dst, value, n);
        return;
    }
    a.chunk = chunk_size(n, workers);
    uint32_t blocks = (uint32_t)(n / a.chunk + (n % a.chunk != 0));
    cannon_cpu_pool_run("cpu_fill", fill_block, &a, blocks, NULL);
}
