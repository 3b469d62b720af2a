/*
 * A C program calling the test package's operators as CANN's single-op API sample does: built
 * against the installed package's op_api/include and linked with -lcust_opapi -lascendcl
 * -lnnopbase. Modes:
 *   run        AxpyCustom in FLOAT (alpha 0.5) and FLOAT16 (alpha 1) and AxpyCustomGrad, every
 *              element checked against a float64 reference; odd lengths and 1..8 blocks
 *   bad-dtype  an INT32 x must fail phase 1 with 161002 and a message naming x
 *   no-kernel  phase 1 must fail with 561003 and a message naming the kernel binary problem
 *              (the check script breaks the package before running it)
 * Prints "opc_main: ok" on success.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnn_axpy_custom.h"
#include "aclnn_axpy_custom_grad.h"

#define CHECK(cond, ...)                                                                                              \
    do {                                                                                                              \
        if (!(cond)) {                                                                                                \
            fprintf(stderr, "opc_main: FAIL line %d: ", __LINE__);                                                    \
            fprintf(stderr, __VA_ARGS__);                                                                             \
            fprintf(stderr, " [%s]\n", aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "");                             \
            exit(1);                                                                                                  \
        }                                                                                                             \
    } while (0)

static aclrtStream g_stream;

/* IEEE half <-> float (round to nearest even), enough for the test's finite values. */
static float half_to_float(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    float v = e == 0 ? ldexpf((float)m, -24) : ldexpf((float)(m | 1024), e - 25);
    return (h & 0x8000) ? -v : v;
}

static uint16_t float_to_half(float f)
{
    /* only used on values in [-4, 4], normal halves or zero */
    uint16_t s = signbit(f) ? 0x8000 : 0;
    float a = fabsf(f);
    if (a == 0.0f)
        return s;
    int e;
    float m = frexpf(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    long q = lrintf(ldexpf(m, 11));
    if (q == 2048) {
        q = 1024;
        e++;
    }
    return (uint16_t)(s | (uint16_t)((e + 14) << 10) | (uint16_t)(q - 1024));
}

static aclTensor *tensor(void *dev, int64_t n, aclDataType dt)
{
    int64_t shape[1] = {n}, stride[1] = {1};
    aclTensor *t = aclCreateTensor(shape, 1, dt, stride, 0, ACL_FORMAT_ND, shape, 1, dev);
    CHECK(t != NULL, "aclCreateTensor");
    return t;
}

static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    CHECK(aclrtMalloc(&p, bytes ? bytes : 1, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS, "aclrtMalloc");
    return p;
}

static void run_workspace(aclnnStatus (*phase2)(void *, uint64_t, aclOpExecutor *, aclrtStream), uint64_t ws,
                          aclOpExecutor *ex)
{
    void *w = ws ? dev_alloc(ws) : NULL;
    CHECK(phase2(w, ws, ex, g_stream) == ACLNN_SUCCESS, "phase 2");
    CHECK(aclrtSynchronizeStream(g_stream) == ACL_SUCCESS, "synchronize");
    if (w)
        aclrtFree(w);
}

static void axpy_f32(int64_t n, double alpha)
{
    size_t bytes = (size_t)n * sizeof(float);
    float *hx = malloc(bytes), *hy = malloc(bytes), *hz = malloc(bytes);
    for (int64_t i = 0; i < n; i++) {
        hx[i] = (float)((double)((i * 37) % 101) / 17.0 - 2.5);
        hy[i] = (float)((double)((i * 53) % 89) / 13.0 - 3.0);
    }
    void *dx = dev_alloc(bytes), *dy = dev_alloc(bytes), *dz = dev_alloc(bytes);
    CHECK(aclrtMemcpy(dx, bytes, hx, bytes, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS, "copy");
    CHECK(aclrtMemcpy(dy, bytes, hy, bytes, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS, "copy");
    aclTensor *x = tensor(dx, n, ACL_FLOAT), *y = tensor(dy, n, ACL_FLOAT), *z = tensor(dz, n, ACL_FLOAT);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK(aclnnAxpyCustomGetWorkspaceSize(x, y, alpha, z, &ws, &ex) == ACLNN_SUCCESS, "AxpyCustom phase 1 n=%lld",
          (long long)n);
    run_workspace(aclnnAxpyCustom, ws, ex);
    CHECK(aclrtMemcpy(hz, bytes, dz, bytes, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS, "copy back");
    for (int64_t i = 0; i < n; i++) {
        double want = (double)hx[i] + (double)(float)(alpha * (double)hy[i]);
        CHECK(fabs((double)hz[i] - want) <= fabs(want) * 0x1p-24 + 1e-30, "f32 n=%lld z[%lld]=%.9g want %.9g",
              (long long)n, (long long)i, hz[i], want);
    }

    /* The gradient: grad_x = grad_z, grad_y = alpha * grad_z. */
    void *dgx = dev_alloc(bytes), *dgy = dev_alloc(bytes);
    aclTensor *gz = tensor(dz, n, ACL_FLOAT), *gx = tensor(dgx, n, ACL_FLOAT), *gy = tensor(dgy, n, ACL_FLOAT);
    CHECK(aclnnAxpyCustomGradGetWorkspaceSize(gz, x, y, alpha, gx, gy, &ws, &ex) == ACLNN_SUCCESS, "grad phase 1");
    run_workspace(aclnnAxpyCustomGrad, ws, ex);
    float *hgx = malloc(bytes), *hgy = malloc(bytes);
    CHECK(aclrtMemcpy(hgx, bytes, dgx, bytes, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS, "copy back");
    CHECK(aclrtMemcpy(hgy, bytes, dgy, bytes, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS, "copy back");
    for (int64_t i = 0; i < n; i++) {
        double gyw = alpha * (double)hz[i];
        CHECK((double)hgx[i] == (double)hz[i], "grad_x[%lld]=%.9g want %.9g", (long long)i, hgx[i], hz[i]);
        CHECK(fabs((double)hgy[i] - gyw) <= fabs(gyw) * 0x1p-24, "grad_y[%lld]=%.9g want %.9g", (long long)i, hgy[i],
              gyw);
    }
    aclDestroyTensor(gz);
    aclDestroyTensor(gx);
    aclDestroyTensor(gy);
    aclrtFree(dgx);
    aclrtFree(dgy);
    free(hgx);
    free(hgy);
    aclDestroyTensor(x);
    aclDestroyTensor(y);
    aclDestroyTensor(z);
    aclrtFree(dx);
    aclrtFree(dy);
    aclrtFree(dz);
    free(hx);
    free(hy);
    free(hz);
}

static void axpy_f16(int64_t n)
{
    size_t bytes = (size_t)n * 2;
    uint16_t *hx = malloc(bytes), *hy = malloc(bytes), *hz = malloc(bytes);
    for (int64_t i = 0; i < n; i++) {
        hx[i] = float_to_half((float)((double)((i * 29) % 97) / 31.0 - 1.5));
        hy[i] = float_to_half((float)((double)((i * 41) % 83) / 23.0 - 1.75));
    }
    void *dx = dev_alloc(bytes), *dy = dev_alloc(bytes), *dz = dev_alloc(bytes);
    CHECK(aclrtMemcpy(dx, bytes, hx, bytes, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS, "copy");
    CHECK(aclrtMemcpy(dy, bytes, hy, bytes, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS, "copy");
    aclTensor *x = tensor(dx, n, ACL_FLOAT16), *y = tensor(dy, n, ACL_FLOAT16), *z = tensor(dz, n, ACL_FLOAT16);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK(aclnnAxpyCustomGetWorkspaceSize(x, y, 1.0, z, &ws, &ex) == ACLNN_SUCCESS, "f16 phase 1");
    run_workspace(aclnnAxpyCustom, ws, ex);
    CHECK(aclrtMemcpy(hz, bytes, dz, bytes, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS, "copy back");
    for (int64_t i = 0; i < n; i++) {
        double want = (double)half_to_float(hx[i]) + (double)half_to_float(hy[i]);
        double got = (double)half_to_float(hz[i]);
        /* half keeps 11 significant bits: within half an ulp of the exact sum */
        CHECK(fabs(got - want) <= fabs(want) * 0x1p-11 + 0x1p-25, "f16 z[%lld]=%.6g want %.6g", (long long)i, got,
              want);
    }
    aclDestroyTensor(x);
    aclDestroyTensor(y);
    aclDestroyTensor(z);
    aclrtFree(dx);
    aclrtFree(dy);
    aclrtFree(dz);
    free(hx);
    free(hy);
    free(hz);
}

static void expect_failure(aclDataType dt, aclnnStatus code, const char *needle)
{
    void *d = dev_alloc(64 * 4);
    aclTensor *x = tensor(d, 64, dt), *y = tensor(d, 64, dt), *z = tensor(d, 64, dt);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus rc = aclnnAxpyCustomGetWorkspaceSize(x, y, 1.0, z, &ws, &ex);
    const char *msg = aclGetRecentErrMsg();
    CHECK(rc == code, "phase 1 returned %d, expected %d", (int)rc, (int)code);
    CHECK(msg != NULL && strstr(msg, needle) != NULL, "message lacks '%s': %s", needle, msg ? msg : "(none)");
    printf("opc_main: phase 1 said: %s\n", msg);
    aclDestroyTensor(x);
    aclDestroyTensor(y);
    aclDestroyTensor(z);
    aclrtFree(d);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "run";
    CHECK(aclInit(NULL) == ACL_SUCCESS, "aclInit");
    CHECK(aclrtSetDevice(0) == ACL_SUCCESS, "aclrtSetDevice");
    CHECK(aclrtCreateStream(&g_stream) == ACL_SUCCESS, "aclrtCreateStream");
    if (strcmp(mode, "run") == 0) {
        static const int64_t lengths[] = {1, 7, 64, 511, 513, 4096, 4099, 70001};
        for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
            axpy_f32(lengths[i], 0.5);
            axpy_f16(lengths[i]);
        }
        /* NULL and mismatched shapes */
        uint64_t ws = 0;
        aclOpExecutor *ex = NULL;
        void *d = dev_alloc(64 * 4);
        aclTensor *a = tensor(d, 16, ACL_FLOAT), *b = tensor(d, 8, ACL_FLOAT);
        CHECK(aclnnAxpyCustomGetWorkspaceSize(a, NULL, 1.0, a, &ws, &ex) == ACLNN_ERR_PARAM_NULLPTR, "NULL y");
        CHECK(strstr(aclGetRecentErrMsg(), "y") != NULL, "NULL message");
        CHECK(aclnnAxpyCustomGetWorkspaceSize(a, a, 1.0, b, &ws, &ex) == ACLNN_ERR_PARAM_INVALID, "shape");
        CHECK(strstr(aclGetRecentErrMsg(), "infers [16]") != NULL, "shape message");
        aclTensor *h = tensor(d, 16, ACL_FLOAT16);
        CHECK(aclnnAxpyCustomGetWorkspaceSize(a, h, 1.0, a, &ws, &ex) == ACLNN_ERR_PARAM_INVALID, "mixed dtypes");
        CHECK(strstr(aclGetRecentErrMsg(), "no combination") != NULL, "mixed message");
        aclDestroyTensor(a);
        aclDestroyTensor(b);
        aclDestroyTensor(h);
        aclrtFree(d);
    } else if (strcmp(mode, "bad-dtype") == 0) {
        expect_failure(ACL_INT32, ACLNN_ERR_PARAM_INVALID, "x has dtype INT32");
    } else if (strcmp(mode, "no-kernel") == 0) {
        expect_failure(ACL_FLOAT, ACLNN_ERR_INNER_FIND_KERNEL_ERROR, argc > 2 ? argv[2] : "kernel");
    } else {
        CHECK(0, "unknown mode %s", mode);
    }
    aclrtDestroyStream(g_stream);
    aclrtResetDevice(0);
    aclFinalize();
    printf("opc_main: ok\n");
    return 0;
}
