/*
 * bench_ascendc: Ascend C kernels against cannon's own operators, interleaved in one run on the
 * same device tensors, medians of wall time per call (launch to synchronize):
 *   add        the AddCustom pattern (fp16, double-buffered, 8 blocks) vs aclnnAdd, 64 MiB per tensor
 *   layernorm  an Ascend C LayerNorm (fp32, rows x cols, 8 blocks) vs aclnnLayerNorm
 *   matmul     a matmul through the Matmul API (fp32, 1024^3, 8 blocks) vs aclnnMatmul
 *   launch     an empty kernel through ACLRT_LAUNCH_KERNEL: enqueue time per launch, and a launch
 *              followed by aclrtSynchronizeStream
 * The add also times the vector kernel alone (cannonAscendcVecBinary over the whole tensors).
 * Each result is checked against the operator's before timing. Usage: bench_ascendc [reps [which]]
 * (reps default 15; which: add, layernorm or launch, default all). Prints one line per measurement and the ratio aclnn time / Ascend C time.
 */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_matmul.h"
#include "lib/matmul_tiling.h" /* TCubeTiling, before the launch header that takes it */
#include "aclrtlaunch_bench_add_custom.h"
#include "aclrtlaunch_bench_empty.h"
#include "aclrtlaunch_bench_layer_norm.h"
#include "aclrtlaunch_bench_matmul.h"
#include "cannon_ascendc/types.h"
#include "cannon_ascendc/vec_kernels.h"

namespace {

#define OK(call)                                                                                                       \
    do {                                                                                                               \
        const long e_ = static_cast<long>(call);                                                                       \
        if (e_ != 0) {                                                                                                 \
            std::fprintf(stderr, "%s:%d: %s returned %ld: %s\n", __FILE__, __LINE__, #call, e_, aclGetRecentErrMsg()); \
            std::exit(1);                                                                                              \
        }                                                                                                              \
    } while (0)

double Now()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

/* CPU time of the whole process (every worker thread): with CANNON_CPU_THREADS=1 the fairest
 * single-thread comparison on a shared machine. */
double Cpu()
{
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double Median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

aclTensor *Tensor(void *dev, std::vector<int64_t> shape, aclDataType dt)
{
    std::vector<int64_t> strides(shape.size());
    int64_t s = 1;
    for (size_t i = shape.size(); i-- > 0;) {
        strides[i] = s;
        s *= shape[i];
    }
    return aclCreateTensor(shape.data(), shape.size(), dt, strides.data(), 0, ACL_FORMAT_ND, shape.data(), shape.size(),
                           dev);
}

void *DevFrom(const void *host, size_t bytes)
{
    void *d = nullptr;
    OK(aclrtMalloc(&d, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemcpy(d, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    return d;
}

void BenchAdd(aclrtStream stream, int reps)
{
    const uint32_t n = 32u << 20; /* 64 MiB of fp16 per tensor */
    const size_t bytes = static_cast<size_t>(n) * 2;
    std::vector<half> hx(n), hy(n);
    for (uint32_t i = 0; i < n; i++) {
        hx[i] = half(static_cast<float>(i % 1000) * 0.01f - 5.0f);
        hy[i] = half(static_cast<float>(i % 777) * 0.003f);
    }
    void *x = DevFrom(hx.data(), bytes), *y = DevFrom(hy.data(), bytes), *z = nullptr, *z2 = nullptr;
    OK(aclrtMalloc(&z, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&z2, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    aclTensor *tx = Tensor(x, {n}, ACL_FLOAT16), *ty = Tensor(y, {n}, ACL_FLOAT16), *tz = Tensor(z2, {n}, ACL_FLOAT16);
    const float one = 1.0f;
    aclScalar *alpha = aclCreateScalar(const_cast<float *>(&one), ACL_FLOAT);
    auto runAclnn = [&] {
        uint64_t ws = 0;
        aclOpExecutor *ex = nullptr;
        OK(aclnnAddGetWorkspaceSize(tx, ty, alpha, tz, &ws, &ex));
        OK(aclnnAdd(nullptr, 0, ex, stream));
        OK(aclrtSynchronizeStream(stream));
    };
    auto runAscendc = [&] {
        OK(ACLRT_LAUNCH_KERNEL(bench_add_custom)(8, stream, x, y, z, n));
        OK(aclrtSynchronizeStream(stream));
    };
    runAclnn();
    runAscendc();
    std::vector<half> a(n), b(n);
    OK(aclrtMemcpy(a.data(), bytes, z, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    OK(aclrtMemcpy(b.data(), bytes, z2, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    if (std::memcmp(a.data(), b.data(), bytes) != 0) {
        std::fprintf(stderr, "add: the Ascend C kernel and aclnnAdd differ\n");
        std::exit(1);
    }
    std::vector<double> ta, tn, ca, cn;
    for (int r = 0; r < reps; r++) {
        double t0 = Now(), c0 = Cpu();
        runAscendc();
        ta.push_back(Now() - t0);
        ca.push_back(Cpu() - c0);
        t0 = Now(), c0 = Cpu();
        runAclnn();
        tn.push_back(Now() - t0);
        cn.push_back(Cpu() - c0);
    }
    const double ma = Median(ta), mn = Median(tn);
    std::printf("add fp16 64MiB x2 -> 64MiB, 8 blocks: ascendc %.2f ms (%.1f GB/s), aclnnAdd %.2f ms (%.1f GB/s), "
                "ratio aclnn/ascendc %.2f\n",
                ma * 1e3, 3.0 * bytes / ma * 1e-9, mn * 1e3, 3.0 * bytes / mn * 1e-9, mn / ma);
    std::printf("add fp16 CPU time: ascendc %.2f ms, aclnnAdd %.2f ms, ratio aclnn/ascendc %.2f\n", Median(ca) * 1e3,
                Median(cn) * 1e3, Median(cn) / Median(ca));
    /* The vector kernel alone over the whole tensors, on the calling thread (device memory is
     * host memory here): what the Add instruction costs without the pattern's copies. */
    std::vector<double> ck;
    for (int r = 0; r < reps; r++) {
        const double c0 = Cpu();
        OK(cannonAscendcVecBinary(CANNON_ASCENDC_VOP_ADD, CANNON_ASCENDC_VDT_F16, z, x, y, n));
        ck.push_back(Cpu() - c0);
    }
    std::printf("add fp16 vector kernel alone (one call, tier %d): %.2f ms CPU\n", cannonAscendcVecTier(),
                Median(ck) * 1e3);
    aclDestroyTensor(tx);
    aclDestroyTensor(ty);
    aclDestroyTensor(tz);
    aclDestroyScalar(alpha);
    for (void *p : {x, y, z, z2})
        OK(aclrtFree(p));
}

void BenchLayerNorm(aclrtStream stream, int reps)
{
    const uint32_t rows = 8192, cols = 1024;
    const size_t n = static_cast<size_t>(rows) * cols, bytes = n * 4;
    const float eps = 1e-5f;
    std::vector<float> hx(n), hg(cols), hb(cols);
    for (size_t i = 0; i < n; i++)
        hx[i] = static_cast<float>((i * 2654435761u) % 10007) * 1e-3f - 5.0f + static_cast<float>(i / cols % 7);
    for (uint32_t j = 0; j < cols; j++) {
        hg[j] = 0.5f + static_cast<float>(j % 11) * 0.1f;
        hb[j] = static_cast<float>(j % 5) * 0.2f - 0.4f;
    }
    void *x = DevFrom(hx.data(), bytes), *g = DevFrom(hg.data(), cols * 4), *b = DevFrom(hb.data(), cols * 4);
    void *y = nullptr, *y2 = nullptr;
    OK(aclrtMalloc(&y, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&y2, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    aclTensor *tx = Tensor(x, {rows, cols}, ACL_FLOAT), *tg = Tensor(g, {cols}, ACL_FLOAT);
    aclTensor *tb = Tensor(b, {cols}, ACL_FLOAT), *ty = Tensor(y2, {rows, cols}, ACL_FLOAT);
    const int64_t ns[] = {cols};
    aclIntArray *norm = aclCreateIntArray(ns, 1);
    void *wsp = nullptr;
    uint64_t wsSize = 0;
    auto runAclnn = [&] {
        uint64_t ws = 0;
        aclOpExecutor *ex = nullptr;
        OK(aclnnLayerNormGetWorkspaceSize(tx, norm, tg, tb, eps, ty, nullptr, nullptr, &ws, &ex));
        if (ws > wsSize) {
            if (wsp)
                OK(aclrtFree(wsp));
            OK(aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST));
            wsSize = ws;
        }
        OK(aclnnLayerNorm(wsp, ws, ex, stream));
        OK(aclrtSynchronizeStream(stream));
    };
    auto runAscendc = [&] {
        OK(ACLRT_LAUNCH_KERNEL(bench_layer_norm)(8, stream, x, g, b, y, rows, cols, eps));
        OK(aclrtSynchronizeStream(stream));
    };
    runAclnn();
    runAscendc();
    std::vector<float> a(n), r(n);
    OK(aclrtMemcpy(a.data(), bytes, y, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    OK(aclrtMemcpy(r.data(), bytes, y2, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    double maxErr = 0;
    for (size_t i = 0; i < n; i++)
        maxErr = std::max(maxErr, std::fabs(static_cast<double>(a[i]) - r[i]));
    if (!(maxErr < 1e-3)) {
        std::fprintf(stderr, "layernorm: the Ascend C kernel and aclnnLayerNorm differ by %g\n", maxErr);
        std::exit(1);
    }
    std::vector<double> ta, tn, ca, cn;
    for (int i = 0; i < reps; i++) {
        double t0 = Now(), c0 = Cpu();
        runAscendc();
        ta.push_back(Now() - t0);
        ca.push_back(Cpu() - c0);
        t0 = Now(), c0 = Cpu();
        runAclnn();
        tn.push_back(Now() - t0);
        cn.push_back(Cpu() - c0);
    }
    const double ma = Median(ta), mn = Median(tn);
    std::printf("layernorm fp32 %ux%u, 8 blocks: ascendc %.2f ms, aclnnLayerNorm %.2f ms, ratio ascendc/aclnn %.2f "
                "(max abs difference %.2g)\n",
                rows, cols, ma * 1e3, mn * 1e3, ma / mn, maxErr);
    std::printf("layernorm fp32 CPU time: ascendc %.2f ms, aclnnLayerNorm %.2f ms, ratio ascendc/aclnn %.2f\n",
                Median(ca) * 1e3, Median(cn) * 1e3, Median(ca) / Median(cn));
    aclDestroyTensor(tx);
    aclDestroyTensor(tg);
    aclDestroyTensor(tb);
    aclDestroyTensor(ty);
    aclDestroyIntArray(norm);
    for (void *p : {x, g, b, y, y2, wsp})
        if (p)
            OK(aclrtFree(p));
}

void BenchMatmul(aclrtStream stream, int reps)
{
    const int32_t M = 1024, N = 1024, K = 1024;
    std::vector<float> ha(static_cast<size_t>(M) * K), hb(static_cast<size_t>(K) * N);
    for (size_t i = 0; i < ha.size(); i++)
        ha[i] = static_cast<float>((i * 7919u) % 2001) * 1e-3f - 1.0f;
    for (size_t i = 0; i < hb.size(); i++)
        hb[i] = static_cast<float>((i * 104729u) % 2001) * 1e-3f - 1.0f;
    const size_t cb = static_cast<size_t>(M) * N * 4;
    void *a = DevFrom(ha.data(), ha.size() * 4), *b = DevFrom(hb.data(), hb.size() * 4), *c = nullptr, *c2 = nullptr;
    OK(aclrtMalloc(&c, cb, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&c2, cb, ACL_MEM_MALLOC_HUGE_FIRST));
    matmul_tiling::MultiCoreMatmulTiling tiler;
    tiler.SetDim(8);
    tiler.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    tiler.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    tiler.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    tiler.SetShape(M, N, K);
    tiler.SetOrgShape(M, N, K);
    TCubeTiling tiling;
    OK(tiler.GetTiling(tiling));
    aclTensor *ta = Tensor(a, {M, K}, ACL_FLOAT), *tb = Tensor(b, {K, N}, ACL_FLOAT),
              *tc = Tensor(c2, {M, N}, ACL_FLOAT);
    auto runAclnn = [&] {
        uint64_t ws = 0;
        aclOpExecutor *ex = nullptr;
        OK(aclnnMatmulGetWorkspaceSize(ta, tb, tc, 0, &ws, &ex));
        OK(ws == 0 ? 0 : 1);
        OK(aclnnMatmul(nullptr, 0, ex, stream));
        OK(aclrtSynchronizeStream(stream));
    };
    auto runAscendc = [&] {
        OK(ACLRT_LAUNCH_KERNEL(bench_matmul)(static_cast<uint32_t>(tiling.usedCoreNum), stream, a, b, c, &tiling));
        OK(aclrtSynchronizeStream(stream));
    };
    runAclnn();
    runAscendc();
    std::vector<float> x(static_cast<size_t>(M) * N), y(x.size());
    OK(aclrtMemcpy(x.data(), cb, c, cb, ACL_MEMCPY_DEVICE_TO_HOST));
    OK(aclrtMemcpy(y.data(), cb, c2, cb, ACL_MEMCPY_DEVICE_TO_HOST));
    double maxErr = 0;
    for (size_t i = 0; i < x.size(); i++)
        maxErr = std::max(maxErr, std::fabs(static_cast<double>(x[i]) - y[i]));
    if (!(maxErr < 1e-2)) {
        std::fprintf(stderr, "matmul: the Matmul API and aclnnMatmul differ by %g\n", maxErr);
        std::exit(1);
    }
    std::vector<double> tA, tN, cA, cN;
    for (int i = 0; i < reps; i++) {
        double t0 = Now(), c0 = Cpu();
        runAscendc();
        tA.push_back(Now() - t0);
        cA.push_back(Cpu() - c0);
        t0 = Now(), c0 = Cpu();
        runAclnn();
        tN.push_back(Now() - t0);
        cN.push_back(Cpu() - c0);
    }
    const double flop = 2.0 * M * N * K;
    std::printf(
        "matmul fp32 %dx%dx%d, %d blocks: Matmul API %.2f ms (%.1f GFLOP/s), aclnnMatmul %.2f ms (%.1f GFLOP/s), "
        "ratio aclnn/ascendc %.2f (max abs difference %.2g)\n",
        M, N, K, tiling.usedCoreNum, Median(tA) * 1e3, flop / Median(tA) * 1e-9, Median(tN) * 1e3,
        flop / Median(tN) * 1e-9, Median(tN) / Median(tA), maxErr);
    std::printf("matmul fp32 CPU time: Matmul API %.2f ms, aclnnMatmul %.2f ms, ratio aclnn/ascendc %.2f\n",
                Median(cA) * 1e3, Median(cN) * 1e3, Median(cN) / Median(cA));
    aclDestroyTensor(ta);
    aclDestroyTensor(tb);
    aclDestroyTensor(tc);
    for (void *p : {a, b, c, c2})
        OK(aclrtFree(p));
}

void BenchLaunch(aclrtStream stream)
{
    void *buf = nullptr;
    OK(aclrtMalloc(&buf, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    for (uint32_t blocks : {1u, 8u}) {
        std::vector<double> enq, rt;
        for (int rep = 0; rep < 21; rep++) {
            const int k = 200;
            double t0 = Now();
            for (int i = 0; i < k; i++)
                OK(ACLRT_LAUNCH_KERNEL(bench_empty)(blocks, stream, buf));
            const double t1 = Now();
            OK(aclrtSynchronizeStream(stream));
            const double t2 = Now();
            enq.push_back((t1 - t0) / k);
            rt.push_back((t2 - t0) / k);
        }
        std::vector<double> one;
        for (int i = 0; i < 500; i++) {
            const double t0 = Now();
            OK(ACLRT_LAUNCH_KERNEL(bench_empty)(blocks, stream, buf));
            OK(aclrtSynchronizeStream(stream));
            one.push_back(Now() - t0);
        }
        std::printf("launch empty kernel, %u block(s): enqueue %.2f us, throughput %.2f us/kernel, "
                    "launch+synchronize %.2f us\n",
                    blocks, Median(enq) * 1e6, Median(rt) * 1e6, Median(one) * 1e6);
    }
    OK(aclrtFree(buf));
}

} // namespace

int main(int argc, char **argv)
{
    const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 15;
    OK(aclInit(nullptr));
    OK(aclrtSetDevice(0));
    aclrtStream stream = nullptr;
    OK(aclrtCreateStream(&stream));
    const char *which = argc > 2 ? argv[2] : "";
    if (!*which || !std::strcmp(which, "launch"))
        BenchLaunch(stream);
    if (!*which || !std::strcmp(which, "add"))
        BenchAdd(stream, reps);
    if (!*which || !std::strcmp(which, "layernorm"))
        BenchLayerNorm(stream, reps);
    if (!*which || !std::strcmp(which, "matmul"))
        BenchMatmul(stream, reps);
    OK(aclrtDestroyStream(stream));
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    return 0;
}
