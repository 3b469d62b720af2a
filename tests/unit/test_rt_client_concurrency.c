/* Concurrency of the client-facing runtime features (TSan runs this program): deferred frees
 * racing with allocations and stream work on one device, virtual memory mapped, used and unmapped
 * while other threads resolve pointers, and graph capture and replay next to both. Every thread
 * checks its data, so a block handed out while queued work still wrote it would show. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_util.h"

enum { ROUNDS = 60, FREE_THREADS = 3, BLK = 16384 };

typedef struct worker {
    int id;
    atomic_int *errors;
} worker;

/* Allocate a block, queue a delayed fill of it, free it at once (the free is deferred), then
 * allocate and fill another block synchronously and check it after the queued work ran: had the
 * second allocation been given the first block, the late fill would have overwritten it. */
static void *free_worker(void *p)
{
    worker *w = p;
    if (aclrtSetDevice(0) != ACL_SUCCESS) {
        atomic_fetch_add(w->errors, 1);
        return NULL;
    }
    aclrtStream s = NULL;
    if (aclrtCreateStream(&s) != ACL_SUCCESS) {
        atomic_fetch_add(w->errors, 1);
        return NULL;
    }
    uint8_t *back = malloc(BLK);
    for (int r = 0; r < ROUNDS && back; r++) {
        void *a = NULL, *b = NULL;
        int bad = aclrtMalloc(&a, BLK, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS;
        bad |= cannonLaunchHostTask(s, rt_task_sleep, (void *)(uintptr_t)(r % 3)) != ACL_SUCCESS;
        bad |= aclrtMemsetAsync(a, BLK, 0xEE, BLK, s) != ACL_SUCCESS;
        bad |= aclrtFree(a) != ACL_SUCCESS;
        bad |= aclrtMalloc(&b, BLK, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS;
        uint8_t v = (uint8_t)(w->id * 16 + r % 16);
        bad |= aclrtMemset(b, BLK, v, BLK) != ACL_SUCCESS;
        bad |= aclrtSynchronizeStream(s) != ACL_SUCCESS;
        bad |= aclrtMemcpy(back, BLK, b, BLK, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS;
        for (size_t i = 0; i < BLK && !bad; i++)
            bad |= back[i] != v;
        bad |= aclrtFree(b) != ACL_SUCCESS;
        if (bad)
            atomic_fetch_add(w->errors, 1);
    }
    free(back);
    if (aclrtDestroyStream(s) != ACL_SUCCESS || aclrtResetDevice(0) != ACL_SUCCESS)
        atomic_fetch_add(w->errors, 1);
    return NULL;
}

/* Map chunks into a reservation, copy through them, check, unmap; other threads' copies resolve
 * their pointers meanwhile. */
static void *vmm_worker(void *p)
{
    worker *w = p;
    if (aclrtSetDevice(0) != ACL_SUCCESS) {
        atomic_fetch_add(w->errors, 1);
        return NULL;
    }
    aclrtPhysicalMemProp prop;
    memset(&prop, 0, sizeof(prop));
    prop.memAttr = ACL_HBM_MEM_HUGE;
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    const size_t g = (size_t)2 << 20;
    char *va = NULL;
    uint8_t *host = malloc(4096), *back = malloc(4096);
    int bad = !host || !back || aclrtReserveMemAddress((void **)&va, 4 * g, 0, NULL, 0) != ACL_SUCCESS;
    for (int r = 0; r < ROUNDS / 2 && !bad; r++) {
        aclrtDrvMemHandle h = NULL;
        bad |= aclrtMallocPhysical(&h, 2 * g, &prop, 0) != ACL_SUCCESS;
        bad |= aclrtMapMem(va + g, 2 * g, 0, h, 0) != ACL_SUCCESS;
        memset(host, r, 4096);
        bad |= aclrtMemcpy(va + 2 * g - 2048, 4096, host, 4096, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS;
        bad |= aclrtMemcpy(back, 4096, va + 2 * g - 2048, 4096, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS;
        bad |= memcmp(host, back, 4096) != 0;
        bad |= cannonMemIsDevice(va + g) != 1;
        bad |= aclrtUnmapMem(va + g) != ACL_SUCCESS;
        bad |= cannonMemIsDevice(va + g) != 0;
        bad |= aclrtFreePhysical(h) != ACL_SUCCESS;
    }
    if (va)
        bad |= aclrtReleaseMemAddress(va) != ACL_SUCCESS;
    bad |= aclrtResetDevice(0) != ACL_SUCCESS;
    if (bad)
        atomic_fetch_add(w->errors, 1);
    free(host);
    free(back);
    return NULL;
}

static int kernel_inc(const cannon_kernel_ctx *ctx, void *args)
{
    int32_t *p = *(int32_t **)args;
    p[ctx->block_idx] += 1;
    return 0;
}

/* Capture a kernel on device 1 and replay it, next to the other workers on device 0. */
static void *capture_worker(void *p)
{
    worker *w = p;
    int bad = aclrtSetDevice(1) != ACL_SUCCESS;
    aclrtStream s = NULL;
    int32_t *d = NULL;
    bad |= aclrtCreateStream(&s) != ACL_SUCCESS;
    bad |= aclrtMalloc((void **)&d, 64 * sizeof(int32_t), ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS;
    bad |= aclrtMemset(d, 64 * sizeof(int32_t), 0, 64 * sizeof(int32_t)) != ACL_SUCCESS;
    cannon_launch_desc desc = {.name = "inc", .fn = kernel_inc, .args = &d, .args_size = sizeof(d), .block_dim = 64};
    aclmdlRI ri = NULL;
    bad |= aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL) != ACL_SUCCESS;
    bad |= cannonLaunchKernel(&desc, s) != ACL_SUCCESS;
    bad |= aclmdlRICaptureEnd(s, &ri) != ACL_SUCCESS;
    for (int r = 0; r < ROUNDS && !bad; r++)
        bad |= aclmdlRIExecuteAsync(ri, s) != ACL_SUCCESS;
    bad |= aclrtSynchronizeStream(s) != ACL_SUCCESS;
    int32_t back[64];
    bad |= aclrtMemcpy(back, sizeof(back), d, sizeof(back), ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS;
    for (int i = 0; i < 64 && !bad; i++)
        bad |= back[i] != ROUNDS;
    bad |= aclmdlRIDestroy(ri) != ACL_SUCCESS;
    bad |= aclrtFree(d) != ACL_SUCCESS;
    bad |= aclrtDestroyStream(s) != ACL_SUCCESS;
    bad |= aclrtResetDevice(1) != ACL_SUCCESS;
    if (bad)
        atomic_fetch_add(w->errors, 1);
    return NULL;
}

static void test_client_features_concurrently(void **state)
{
    (void)state;
    rt_watchdog_arm(240, "client features concurrently");
    atomic_int errors;
    atomic_init(&errors, 0);
    worker w[FREE_THREADS + 2];
    pthread_t t[FREE_THREADS + 2];
    for (int i = 0; i < FREE_THREADS; i++) {
        w[i] = (worker){.id = i, .errors = &errors};
        t[i] = rt_thread_start(free_worker, &w[i]);
    }
    w[FREE_THREADS] = (worker){.id = FREE_THREADS, .errors = &errors};
    t[FREE_THREADS] = rt_thread_start(vmm_worker, &w[FREE_THREADS]);
    w[FREE_THREADS + 1] = (worker){.id = FREE_THREADS + 1, .errors = &errors};
    t[FREE_THREADS + 1] = rt_thread_start(capture_worker, &w[FREE_THREADS + 1]);
    for (int i = 0; i < FREE_THREADS + 2; i++)
        rt_thread_join(t[i]);
    rt_watchdog_disarm();
    assert_int_equal(atomic_load(&errors), 0);
    assert_int_equal(atomic_load(&g_rt.captures), 0);
}

int main(void)
{
    unsetenv("CANNON_CPU_DEVICE_MEMORY");
    unsetenv("CANNON_CPU_DEVICES");
    rt_apply_test_filter();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_client_features_concurrently, rt_setup, rt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
