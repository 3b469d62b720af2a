/* The host side: aclInit, device memory, ACLRT_LAUNCH_KERNEL(k)(blockDim, stream, ...) on one
 * stream, synchronize, and every result checked exactly. Prints "kernel_project: ok". */
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "scale_add_tiling.h"
#include "aclrtlaunch_scale_add.h"
#include "aclrtlaunch_iota_i32.h"
#include "aclrtlaunch_block_stamp.h"
#include "aclrtlaunch_short_copy.h"

void iota_i32_do(uint32_t blockDim, void *stream, uint8_t *out, uint32_t n, int32_t base, int32_t step);

/* aclGetRecentErrMsg hands each message out once (NULL when there is none). */
static std::string Msg()
{
    const char *m = aclGetRecentErrMsg();
    return m ? m : "";
}

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            std::fprintf(stderr, "kernel_project: %s:%d: %s failed (%s)\n", __FILE__,   \
                         __LINE__, #cond, Msg().c_str());                                \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

int main()
{
    CHECK(aclInit(nullptr) == ACL_SUCCESS);
    CHECK(aclrtSetDevice(0) == ACL_SUCCESS);
    aclrtStream stream = nullptr;
    CHECK(aclrtCreateStream(&stream) == ACL_SUCCESS);

    /* scale_add: 8 blocks, 4 double-buffered tiles each. */
    const uint32_t blocks = 8, tile = 256, total = blocks * 4 * tile;
    const size_t bytes = total * sizeof(float);
    std::vector<float> x(total), y(total), z(total), want(total);
    for (uint32_t i = 0; i < total; i++) {
        x[i] = static_cast<float>(i) * 0.37f - 1000.0f;
        y[i] = 3.0f - static_cast<float>(i % 97) * 0.125f;
        float t = x[i] * 0.5f;
        want[i] = t + y[i];
    }
    void *xd = nullptr, *yd = nullptr, *zd = nullptr;
    CHECK(aclrtMalloc(&xd, bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CHECK(aclrtMalloc(&yd, bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CHECK(aclrtMalloc(&zd, bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CHECK(aclrtMemcpy(xd, bytes, x.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
    CHECK(aclrtMemcpy(yd, bytes, y.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
    ScaleAddTiling tiling{total / blocks, tile, 0.5f};
    CHECK(ACLRT_LAUNCH_KERNEL(scale_add)(blocks, stream, xd, yd, zd, &tiling) == 0);
    tiling.alpha = 99.0f; /* the launch copied the tiling: this change must not be seen */

    /* iota_i32 (scalar parameters) through the header and through the <<<>>> wrapper. */
    const uint32_t n = 1024, n2 = 64;
    void *od = nullptr, *od2 = nullptr, *sd = nullptr;
    CHECK(aclrtMalloc(&od, n * sizeof(int32_t), ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CHECK(aclrtMalloc(&od2, n2 * sizeof(int32_t), ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CHECK(aclrtMalloc(&sd, blocks * sizeof(int32_t), ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CHECK(ACLRT_LAUNCH_KERNEL(iota_i32)(4, stream, od, n, -7, 3) == 0);
    iota_i32_do(2, stream, static_cast<uint8_t *>(od2), n2, 5, -2);
    CHECK(ACLRT_LAUNCH_KERNEL(block_stamp)(blocks, stream, sd) == 0);

    /* Bad launches are refused at the call with ACL_ERROR_INVALID_PARAM and a message. */
    CHECK(ACLRT_LAUNCH_KERNEL(scale_add)(blocks, stream, xd, yd, zd, nullptr) ==
          static_cast<uint32_t>(ACL_ERROR_INVALID_PARAM));
    CHECK(Msg().find("tiling is NULL") != std::string::npos);
    CHECK(ACLRT_LAUNCH_KERNEL(block_stamp)(0, stream, sd) == static_cast<uint32_t>(ACL_ERROR_INVALID_PARAM));

    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS);

#ifdef KERNEL_PROJECT_CHECKED
    /* A checker violation is the stream's error, with the kernel and the kernel source's line;
     * the stream then runs later work normally. */
    CHECK(ACLRT_LAUNCH_KERNEL(short_copy)(1, stream, xd, yd) == 0);
    CHECK(aclrtSynchronizeStream(stream) == ACL_ERROR_RT_AICORE_EXCEPTION);
    const std::string msg = Msg();
    std::printf("checker: %s\n", msg.c_str());
    CHECK(msg.find("short_copy block 0") != std::string::npos);
    CHECK(msg.find("short_copy.cpp:16") != std::string::npos);
    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
#endif

    CHECK(aclrtMemcpy(z.data(), bytes, zd, bytes, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    CHECK(std::memcmp(z.data(), want.data(), bytes) == 0);
    std::vector<int32_t> o(n), o2(n2), s(blocks);
    CHECK(aclrtMemcpy(o.data(), n * 4, od, n * 4, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    CHECK(aclrtMemcpy(o2.data(), n2 * 4, od2, n2 * 4, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    CHECK(aclrtMemcpy(s.data(), blocks * 4, sd, blocks * 4, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    for (uint32_t i = 0; i < n; i++)
        CHECK(o[i] == -7 + 3 * static_cast<int32_t>(i));
    for (uint32_t i = 0; i < n2; i++)
        CHECK(o2[i] == 5 - 2 * static_cast<int32_t>(i));
    for (uint32_t b = 0; b < blocks; b++)
        CHECK(s[b] == static_cast<int32_t>(b * 1000 + blocks));

    CHECK(aclrtFree(xd) == ACL_SUCCESS && aclrtFree(yd) == ACL_SUCCESS && aclrtFree(zd) == ACL_SUCCESS);
    CHECK(aclrtFree(od) == ACL_SUCCESS && aclrtFree(od2) == ACL_SUCCESS && aclrtFree(sd) == ACL_SUCCESS);
    CHECK(aclrtDestroyStream(stream) == ACL_SUCCESS);
    CHECK(aclrtResetDevice(0) == ACL_SUCCESS);
    CHECK(aclFinalize() == ACL_SUCCESS);
    std::printf("kernel_project: ok\n");
    return 0;
}
