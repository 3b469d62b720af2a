/*
 * The checker (built with CANNON_ASCENDC_CHECK=1): one kernel per rule of the model, each breaking
 * it on a cannon stream. The violation must be the stream's error (aclrtSynchronizeStream returns
 * ACL_ERROR_RT_AICORE_EXCEPTION) with a message naming the kernel, the block, the rule and the
 * source line, the process must go on, and the stream must run the next kernel normally.
 */
#include <atomic>
#include <cstring>
#include <string>

#include "acl/acl.h"
#include "kernel_operator.h"
#include "cannon_ascendc/launch.h"
#include "ascendc_test.h"

#if !CANNON_ASCENDC_CHECK
#error "test_ascendc_checker is built with the checker on"
#endif

using namespace AscendC;

static std::atomic<int> g_line{0};
#define MARK() g_line.store(__LINE__)

extern "C" __global__ __aicore__ void ub_overflow(GM_ADDR x)
{
    (void)x;
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> q;
    TBuf<TPosition::VECCALC> tmp;
    pipe.InitBuffer(tmp, 64 * 1024);
    MARK(); pipe.InitBuffer(q, 2, 65 * 1024);
}

extern "C" __global__ __aicore__ void copy_unaligned(GM_ADDR x)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 1024);
    GlobalTensor<half> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(x), 256);
    LocalTensor<half> t = q.AllocTensor<half>();
    MARK(); DataCopy(t, g, 7);
    q.FreeTensor(t);
}

extern "C" __global__ __aicore__ void gm_out_of_range(GM_ADDR x)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 1024);
    GlobalTensor<half> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(x) + 64 * GetBlockIdx(), 64);
    LocalTensor<half> t = q.AllocTensor<half>();
    DataCopy(t, g[32], 32);
    MARK(); DataCopy(t, g[48], 32);
    q.FreeTensor(t);
}

extern "C" __global__ __aicore__ void gm_value_out_of_range(GM_ADDR x)
{
    GlobalTensor<float> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(x) + 16 * GetBlockIdx(), 16); /* each block its own range */
    g.SetValue(15, 1.0f);
    MARK(); g.SetValue(16, 1.0f);
}

extern "C" __global__ __aicore__ void enque_imbalance(GM_ADDR x)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> q;
    MARK(); pipe.InitBuffer(q, 2, 512);
    GlobalTensor<half> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(x), 256);
    LocalTensor<half> t = q.AllocTensor<half>();
    DataCopy(t, g, 256);
    q.EnQue(t); /* never dequeued */
}

extern "C" __global__ __aicore__ void use_after_free(GM_ADDR x)
{
    (void)x;
    TPipe pipe;
    TQue<QuePosition::VECOUT, 1> q;
    pipe.InitBuffer(q, 1, 512);
    LocalTensor<float> t = q.AllocTensor<float>();
    Duplicate(t, 1.0f, 128);
    q.FreeTensor(t);
    MARK(); Duplicate(t, 2.0f, 128);
}

extern "C" __global__ __aicore__ void too_many_live(GM_ADDR x)
{
    (void)x;
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> q;
    pipe.InitBuffer(q, 2, 512);
    LocalTensor<float> a = q.AllocTensor<float>();
    LocalTensor<float> b = q.AllocTensor<float>();
    MARK(); LocalTensor<float> c = q.AllocTensor<float>();
    q.FreeTensor(a);
    q.FreeTensor(b);
    q.FreeTensor(c);
}

extern "C" __global__ __aicore__ void too_many_buffers(GM_ADDR x)
{
    (void)x;
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> q;
    MARK(); pipe.InitBuffer(q, 9, 256);
}

extern "C" __global__ __aicore__ void deque_empty(GM_ADDR x)
{
    (void)x;
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> q;
    pipe.InitBuffer(q, 2, 256);
    MARK(); LocalTensor<float> t = q.DeQue<float>();
    q.FreeTensor(t);
}

extern "C" __global__ __aicore__ void good_kernel(GM_ADDR x)
{
    TPipe pipe;
    TQue<QuePosition::VECOUT, 2> q;
    pipe.InitBuffer(q, 2, 256);
    GlobalTensor<float> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(x) + 64 * GetBlockIdx(), 64);
    LocalTensor<float> t = q.AllocTensor<float>();
    Duplicate(t, static_cast<float>(GetBlockIdx() + 1), 64);
    q.EnQue(t);
    t = q.DeQue<float>();
    DataCopy(g, t, 64);
    q.FreeTensor(t);
}

namespace {

aclrtStream g_stream;
void *g_dev;

void ExpectViolation(const char *name, void (*kernel)(GM_ADDR), const char *rule)
{
    g_line.store(0);
    aclError e = cannon_ascendc::LaunchKernel(name, kernel, 2, g_stream, g_dev);
    EXPECT_MSG(e == ACL_SUCCESS, "%s: launch returned %d", name, (int)e);
    e = aclrtSynchronizeStream(g_stream);
    const char *recent = aclGetRecentErrMsg();
    const std::string msg = recent ? recent : "";
    EXPECT_MSG(e == ACL_ERROR_RT_AICORE_EXCEPTION, "%s: synchronize returned %d", name, (int)e);
    const std::string where = "test_ascendc_checker.cpp:" + std::to_string(g_line.load());
    EXPECT_MSG(msg.find(name) != std::string::npos, "%s: message lacks the kernel: %s", name, msg.c_str());
    EXPECT_MSG(msg.find(" block ") != std::string::npos, "%s: message lacks the block: %s", name, msg.c_str());
    EXPECT_MSG(msg.find(rule) != std::string::npos, "%s: message lacks '%s': %s", name, rule, msg.c_str());
    EXPECT_MSG(msg.find(where) != std::string::npos, "%s: message lacks %s: %s", name, where.c_str(), msg.c_str());
    std::printf("%s -> %s\n", name, msg.c_str());

    /* The stream goes on. */
    ACL_OK(aclrtMemset(g_dev, 4096, 0, 4096));
    ACL_OK(CANNON_ASCENDC_LAUNCH(good_kernel, 2, g_stream, g_dev));
    ACL_OK(aclrtSynchronizeStream(g_stream));
    float host[128];
    ACL_OK(aclrtMemcpy(host, sizeof host, g_dev, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(host[0] == 1.0f && host[63] == 1.0f && host[64] == 2.0f && host[127] == 2.0f);
}

}  // namespace

int main()
{
    ACL_OK(aclInit(nullptr));
    ACL_OK(aclrtSetDevice(0));
    ACL_OK(aclrtCreateStream(&g_stream));
    ACL_OK(aclrtMalloc(&g_dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));

    ExpectViolation("ub_overflow", ub_overflow, "unified buffer overflow");
    ExpectViolation("copy_unaligned", copy_unaligned, "not a multiple of 32 bytes");
    ExpectViolation("gm_out_of_range", gm_out_of_range, "outside SetGlobalBuffer's");
    ExpectViolation("gm_value_out_of_range", gm_value_out_of_range, "outside SetGlobalBuffer's");
    ExpectViolation("enque_imbalance", enque_imbalance, "EnQue/DeQue imbalance");
    ExpectViolation("use_after_free", use_after_free, "after FreeTensor");
    ExpectViolation("too_many_live", too_many_live, "too many live buffers");
    ExpectViolation("too_many_buffers", too_many_buffers, "buffers on one queue");
    ExpectViolation("deque_empty", deque_empty, "DeQue on an empty queue");

    ACL_OK(aclrtFree(g_dev));
    ACL_OK(aclrtDestroyStream(g_stream));
    ACL_OK(aclrtResetDevice(0));
    ACL_OK(aclFinalize());
    return TestResult("test_ascendc_checker");
}
