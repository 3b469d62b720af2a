/*
 * Shared pieces of the fuzz targets: a reader that turns the fuzzer's bytes into values, biased
 * toward the values that break size arithmetic (0, 1, powers of two, the int64 edges).
 * Reading past the end gives zeros, so every input is a complete test case.
 */
#ifndef CANNON_FUZZ_COMMON_H_
#define CANNON_FUZZ_COMMON_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct fz {
    const uint8_t *p;
    size_t n;
} fz;

static inline uint8_t fz_u8(fz *f)
{
    if (!f->n)
        return 0;
    f->n--;
    return *f->p++;
}

static inline uint64_t fz_u64(fz *f)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | fz_u8(f);
    return v;
}

/* An int64 that is small most of the time and an edge value often enough. */
static inline int64_t fz_i64(fz *f)
{
    static const int64_t edges[] = {0, 1, 2, 3, -1, -2, 7, 8, 16, 64, 255, 256, 4096, 65535, 65536,
                                    INT32_MAX, (int64_t)INT32_MAX + 1, (int64_t)1 << 40, (int64_t)1 << 47,
                                    (int64_t)1 << 48, (int64_t)1 << 61, (int64_t)1 << 62, INT64_MAX, INT64_MIN,
                                    INT64_MAX - 1, -((int64_t)1 << 62)};
    const uint8_t sel = fz_u8(f);
    if (sel < 128)
        return sel % 9;
    if (sel < 224)
        return edges[(sel - 128) % (sizeof edges / sizeof edges[0])];
    return (int64_t)fz_u64(f);
}

/* A dimension size: mostly 0-8, sometimes edge values. */
static inline int64_t fz_dim(fz *f)
{
    const uint8_t sel = fz_u8(f);
    return sel < 200 ? sel % 9 : fz_i64(f);
}

static inline double fz_f64(fz *f)
{
    static const double vals[] = {0.0, 1.0, -1.0, 0.5, 1e-5, 1e-12, 2.0, 100.0, 1e30, -1e30, 1e300};
    const uint8_t sel = fz_u8(f);
    if (sel < 200)
        return vals[sel % (sizeof vals / sizeof vals[0])];
    if (sel < 220)
        return __builtin_nan("");
    if (sel < 240)
        return sel & 1 ? __builtin_inf() : -__builtin_inf();
    uint64_t u = fz_u64(f);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

#endif /* CANNON_FUZZ_COMMON_H_ */
