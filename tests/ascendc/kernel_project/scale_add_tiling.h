/* The tiling of scale_add: computed on the host, passed by value to the kernel (the launch
 * header takes a pointer to it). */
#ifndef SCALE_ADD_TILING_H
#define SCALE_ADD_TILING_H
#include <cstdint>

struct ScaleAddTiling {
    uint32_t blockLength; /* elements per block */
    uint32_t tileLength;  /* elements per tile, a multiple of 8 (32 bytes of float) */
    float alpha;
};

#endif
