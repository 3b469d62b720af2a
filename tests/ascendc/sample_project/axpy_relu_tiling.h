/* The tiling of axpy_relu, computed by the host and passed to the kernel by value. */
#ifndef AXPY_RELU_TILING_H
#define AXPY_RELU_TILING_H
#include <stdint.h>

struct AxpyReluTiling {
    uint32_t blockLength; /* elements per block */
    uint32_t tileLength;  /* elements per tile, a multiple of 8 (32 bytes of float) */
    float alpha;
};

#endif
