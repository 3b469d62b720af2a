/* aclnn operators on the runtime features a CANN client uses: tensors whose storage is virtual
 * memory mapped with aclrtMapMem (ggml's VMM pool), operators recorded in a graph capture and
 * replayed, and a workspace freed right after the launch while the operator is still queued. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_add.h"
#include "cannon/kernel.h"

#define G ((size_t)2 << 20)
enum { N = 1024 };

#define OK(expr)                                                                                       \
    do {                                                                                               \
        int ok_rc_ = (int)(expr);                                                                      \
        if (ok_rc_ != 0) {                                                                             \
            const char *m_ = aclGetRecentErrMsg();                                                     \
            print_error("%s returned %d: %s\n", #expr, ok_rc_, m_ ? m_ : "(no message)");              \
        }                                                                                              \
        assert_int_equal(ok_rc_, 0);                                                                   \
    } while (0)

static int setup(void **state)
{
    (void)state;
    unsetenv("CANNON_CPU_DEVICE_MEMORY");
    if (aclInit(NULL) != ACL_SUCCESS)
        return -1;
    return aclrtSetDevice(0) == ACL_SUCCESS ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    (void)aclrtResetDevice(0);
    return aclFinalize() == ACL_SUCCESS ? 0 : -1;
}

static aclTensor *vec(float *data)
{
    int64_t shape[1] = {N}, strides[1] = {1};
    return aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, data);
}

/* out = self + alpha * other, enqueued on s. */
static void add(float *self, float *other, float *out, float alpha, aclrtStream s)
{
    aclTensor *a = vec(self), *b = vec(other), *o = vec(out);
    aclScalar *al = aclCreateScalar(&alpha, ACL_FLOAT);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    OK(aclnnAddGetWorkspaceSize(a, b, al, o, &ws, &ex));
    void *w = NULL;
    if (ws)
        OK(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclnnAdd(w, ws, ex, s));
    if (w)
        OK(aclrtFree(w)); /* while the operator may still be queued */
    aclDestroyTensor(a);
    aclDestroyTensor(b);
    aclDestroyTensor(o);
    aclDestroyScalar(al);
}

/* Operator tensors in mapped virtual memory, spanning two physical chunks. */
static void test_add_on_mapped_memory(void **state)
{
    (void)state;
    aclrtPhysicalMemProp prop;
    memset(&prop, 0, sizeof(prop));
    prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    prop.memAttr = ACL_HBM_MEM_HUGE;
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    aclrtDrvMemHandle h1 = NULL, h2 = NULL;
    OK(aclrtMallocPhysical(&h1, G, &prop, 0));
    OK(aclrtMallocPhysical(&h2, G, &prop, 0));
    char *va = NULL;
    OK(aclrtReserveMemAddress((void **)&va, 4 * G, 0, NULL, 1));
    OK(aclrtMapMem(va, G, 0, h1, 0));
    OK(aclrtMapMem(va + G, G, 0, h2, 0));
    /* x straddles the two chunks; y and out live in the second. */
    float *x = (float *)(void *)(va + G - N * sizeof(float) / 2);
    float *y = (float *)(void *)(va + G + 65536);
    float *out = (float *)(void *)(va + G + 131072);
    float hx[N], hy[N], ho[N];
    for (int i = 0; i < N; i++) {
        hx[i] = (float)i;
        hy[i] = 0.5f * (float)(N - i);
    }
    OK(aclrtMemcpy(x, sizeof(hx), hx, sizeof(hx), ACL_MEMCPY_HOST_TO_DEVICE));
    OK(aclrtMemcpy(y, sizeof(hy), hy, sizeof(hy), ACL_MEMCPY_HOST_TO_DEVICE));
    aclrtStream s = NULL;
    OK(aclrtCreateStream(&s));
    add(x, y, out, 2.0f, s);
    OK(aclrtSynchronizeStream(s));
    OK(aclrtMemcpy(ho, sizeof(ho), out, sizeof(ho), ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < N; i++)
        assert_true(ho[i] == hx[i] + 2.0f * hy[i]);
    OK(aclrtDestroyStream(s));
    OK(aclrtUnmapMem(va + G));
    OK(aclrtUnmapMem(va));
    OK(aclrtFreePhysical(h1));
    OK(aclrtFreePhysical(h2));
    OK(aclrtReleaseMemAddress(va));
}

/* Operators recorded once and replayed: each replay computes from the inputs as they are then. */
static void test_add_in_a_captured_graph(void **state)
{
    (void)state;
    float *x = NULL, *y = NULL, *t = NULL, *out = NULL, *hx = NULL, *ho = NULL;
    OK(aclrtMalloc((void **)&x, N * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc((void **)&y, N * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc((void **)&t, N * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc((void **)&out, N * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMallocHost((void **)&hx, N * sizeof(float)));
    OK(aclrtMallocHost((void **)&ho, N * sizeof(float)));
    float hy[N];
    for (int i = 0; i < N; i++)
        hy[i] = (float)(i % 7);
    OK(aclrtMemcpy(y, sizeof(hy), hy, sizeof(hy), ACL_MEMCPY_HOST_TO_DEVICE));
    aclrtStream s = NULL;
    OK(aclrtCreateStream(&s));
    aclmdlRI ri = NULL;
    OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    OK(aclrtMemcpyAsync(x, N * sizeof(float), hx, N * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE, s));
    add(x, y, t, 1.0f, s);   /* t = x + y */
    add(t, x, out, 3.0f, s); /* out = t + 3x = 4x + y */
    OK(aclrtMemcpyAsync(ho, N * sizeof(float), out, N * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST, s));
    OK(aclmdlRICaptureEnd(s, &ri));
    for (int r = 1; r <= 3; r++) {
        for (int i = 0; i < N; i++)
            hx[i] = (float)(r * i);
        OK(aclmdlRIExecuteAsync(ri, s));
        OK(aclrtSynchronizeStream(s));
        for (int i = 0; i < N; i++)
            assert_true(ho[i] == 4.0f * (float)(r * i) + hy[i]);
    }
    OK(aclmdlRIDestroy(ri));
    OK(aclrtDestroyStream(s));
    OK(aclrtFreeHost(hx));
    OK(aclrtFreeHost(ho));
    OK(aclrtFree(x));
    OK(aclrtFree(y));
    OK(aclrtFree(t));
    OK(aclrtFree(out));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_add_on_mapped_memory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_add_in_a_captured_graph, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
