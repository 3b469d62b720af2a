/* runtime_tour: a guided walk through the cannon ACL runtime.
 *
 * Every step prints what it does and checks what it gets back, so this file doubles as a short
 * introduction to the API: initialise with a JSON config, pick a device, create a context,
 * streams and events, move data, run a kernel, order two streams with an event, deliver a host
 * callback to a subscribed thread, trip over an error on purpose, and tear everything down in
 * the reverse order of creation. Exit status 0 means every result was as expected.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"
#include "cannon/kernel.h"

/* Run an ACL call; on failure print the call, its code and the runtime's explanation, then
 * stop. A tour that carries on after a failure would only print confusing follow-on errors. */
#define CHECK(call)                                                                                \
    do {                                                                                           \
        aclError rc_ = (call);                                                                     \
        if (rc_ != ACL_SUCCESS) {                                                                  \
            const char *msg_ = aclGetRecentErrMsg();                                               \
            fprintf(stderr, "FAILED: %s -> %d\n  %s\n", #call, rc_, msg_ ? msg_ : "(no message)"); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "FAILED: " __VA_ARGS__);                                               \
            fputc('\n', stderr);                                                                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define N (1u << 20) /* 1M floats = 4 MiB per vector */
#define BLOCKS 64u

/* ---- the kernel: y = a*x + y, one contiguous slice per block ---------------------------- */

/* The argument blob is copied at enqueue time (args_size > 0), so it may live on our stack. */
typedef struct saxpy_args {
    float a;
    const float *x;
    float *y;
    size_t n;
} saxpy_args;

static int saxpy(const cannon_kernel_ctx *ctx, void *blob)
{
    const saxpy_args *p = blob;
    /* Blocks may run in any order on any worker: each owns a disjoint slice, so no locking. */
    size_t per = (p->n + ctx->block_dim - 1) / ctx->block_dim;
    size_t lo = (size_t)ctx->block_idx * per, hi = lo + per < p->n ? lo + per : p->n;
    for (size_t i = lo; i < hi; i++)
        p->y[i] = p->a * p->x[i] + p->y[i];
    return 0;
}

/* ---- host callbacks: run on our own helper thread via aclrtProcessReport ------------------ */

static atomic_bool g_stop_helper;
static atomic_int g_callbacks_run;

static void *report_thread(void *unused)
{
    (void)unused;
    /* The runtime hands callbacks to this thread only while it sits in aclrtProcessReport. A
     * short timeout lets it notice g_stop_helper; "timed out" and "not (yet / any longer)
     * subscribed" are the normal idle answers, not errors. */
    while (!atomic_load(&g_stop_helper)) {
        aclError rc = aclrtProcessReport(20);
        if (rc == ACL_ERROR_RT_THREAD_SUBSCRIBE)
            nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
        else if (rc != ACL_SUCCESS && rc != ACL_ERROR_RT_REPORT_TIMEOUT)
            fprintf(stderr, "report thread: aclrtProcessReport -> %d\n", rc);
    }
    (void)aclGetRecentErrMsg(); /* drop the timeout messages this thread collected */
    return NULL;
}

static void on_copy_done(void *user_data)
{
    /* Runs after the D2H copy that precedes it on the stream: the host buffer is final here. */
    const float *y = user_data;
    printf("    callback on helper thread: y[0] = %.1f, y[N-1] = %.1f\n", y[0], y[N - 1]);
    atomic_fetch_add(&g_callbacks_run, 1);
}

int main(void)
{
    /* Line-buffered, so progress shows in order even when piped (callbacks print from another
     * thread, failures go to stderr). */
    setvbuf(stdout, NULL, _IOLBF, 0);

    /* 1. aclInit with a JSON config. err_msg_mode "0" keeps error text per thread, which is
     *    what we want: the deliberate error in step 8 is read back on this same thread. */
    char cfg[] = "/tmp/cannon-tour-XXXXXX";
    int fd = mkstemp(cfg);
    EXPECT(fd >= 0, "cannot create a temporary config file");
    static const char json[] = "{ \"err_msg_mode\": \"0\" }\n";
    EXPECT(write(fd, json, sizeof json - 1) == (ssize_t)(sizeof json - 1), "cannot write %s", cfg);
    close(fd);
    printf("1. aclInit(\"%s\") with %s", cfg, json);
    aclError init_rc = aclInit(cfg);
    unlink(cfg); /* read once by aclInit; never needed again */
    CHECK(init_rc);

    /* 2. Devices. The CPU driver exposes CANNON_CPU_DEVICES virtual devices (default 8). */
    uint32_t ndev = 0;
    CHECK(aclrtGetDeviceCount(&ndev));
    const char *soc = aclrtGetSocName();
    EXPECT(ndev > 0 && soc, "no device");
    printf("2. %u device(s), SoC \"%s\"\n", ndev, soc);

    CHECK(aclrtSetDevice(0)); /* binds this thread to device 0's default context */
    size_t mem_free = 0, mem_total = 0;
    CHECK(aclrtGetMemInfo(ACL_HBM_MEM, &mem_free, &mem_total));
    printf("   device 0: %.1f of %.1f GiB free, %u worker thread(s)\n", mem_free / 1073741824.0,
           mem_total / 1073741824.0, cannonGetWorkerCount());

    /* 3. A context of our own (it becomes current), two streams and two timing events. */
    aclrtContext ctx = NULL;
    aclrtStream s_compute = NULL, s_copy = NULL;
    aclrtEvent ev_start = NULL, ev_end = NULL;
    CHECK(aclrtCreateContext(&ctx, 0));
    CHECK(aclrtCreateStream(&s_compute));
    CHECK(aclrtCreateStream(&s_copy));
    /* aclrtCreateEvent's events are both timed (ACL_EVENT_TIME_LINE) and waitable by other
     * streams (ACL_EVENT_SYNC); with aclrtCreateEventWithFlag you choose just what you need. */
    CHECK(aclrtCreateEvent(&ev_start));
    CHECK(aclrtCreateEvent(&ev_end));
    printf("3. context %p, streams %p (compute) and %p (copy), 2 timing events\n", ctx, s_compute, s_copy);

    /* 4. Memory: page-locked host buffers, device buffers, host-to-device copies. */
    const size_t bytes = N * sizeof(float);
    float *h_x = NULL, *h_y = NULL, *d_x = NULL, *d_y = NULL;
    CHECK(aclrtMallocHost((void **)&h_x, bytes));
    CHECK(aclrtMallocHost((void **)&h_y, bytes));
    CHECK(aclrtMalloc((void **)&d_x, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc((void **)&d_y, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    for (size_t i = 0; i < N; i++) {
        h_x[i] = (float)(i % 1000);
        h_y[i] = 1.0f;
    }
    CHECK(aclrtMemcpy(d_x, bytes, h_x, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemcpy(d_y, bytes, h_y, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    memset(h_y, 0, bytes); /* so that the check in step 7 can only pass on copied-back data */
    printf("4. copied 2 x %zu KiB host -> device\n", bytes / 1024);

    /* 5. The kernel, bracketed by events on the compute stream. Launches return at once. */
    saxpy_args args = {.a = 2.0f, .x = d_x, .y = d_y, .n = N};
    cannon_launch_desc desc = {
        .name = "saxpy", .fn = saxpy, .args = &args, .args_size = sizeof args, .block_dim = BLOCKS};
    CHECK(aclrtRecordEvent(ev_start, s_compute));
    CHECK(cannonLaunchKernel(&desc, s_compute));
    CHECK(aclrtRecordEvent(ev_end, s_compute));
    printf("5. launched saxpy (y = 2x + 1) over %u floats in %u blocks\n", N, BLOCKS);

    /* 6. Cross-stream ordering and a host callback: the copy stream waits for ev_end, copies the
     *    result back, then hands a callback to our helper thread. Nothing blocks the host yet. */
    pthread_t helper;
    EXPECT(pthread_create(&helper, NULL, report_thread, NULL) == 0, "pthread_create");
    CHECK(aclrtSubscribeReport((uint64_t)helper, s_copy));
    CHECK(aclrtStreamWaitEvent(s_copy, ev_end));
    CHECK(aclrtMemcpyAsync(h_y, bytes, d_y, bytes, ACL_MEMCPY_DEVICE_TO_HOST, s_copy));
    CHECK(aclrtLaunchCallback(on_copy_done, h_y, ACL_CALLBACK_BLOCK, s_copy));
    printf("6. copy stream: wait(ev_end) -> D2H copy -> callback; synchronizing...\n");
    CHECK(aclrtSynchronizeStream(s_copy)); /* BLOCK: returns after the callback has run */
    EXPECT(atomic_load(&g_callbacks_run) == 1, "callback ran %d times", atomic_load(&g_callbacks_run));

    float ms = 0.0f;
    CHECK(aclrtEventElapsedTime(&ms, ev_start, ev_end));
    printf("   saxpy took %.3f ms (%.2f GB/s of x and y traffic)\n", ms, 3.0 * bytes / (ms * 1e6));

    /* 7. Verify on the host. Values are small integers + 1, so the float result is exact. */
    size_t bad = 0;
    for (size_t i = 0; i < N; i++)
        if (h_y[i] != 2.0f * (float)(i % 1000) + 1.0f)
            bad++;
    EXPECT(bad == 0, "%zu of %u results are wrong", bad, N);
    printf("7. verified %u results: all correct\n", N);

    /* 8. A deliberate error: copy 2x more than the destination holds. The runtime refuses it
     *    with a code and a message saying why; nothing is written. */
    aclError rc = aclrtMemcpy(h_y, bytes / 2, d_y, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
    const char *msg = aclGetRecentErrMsg();
    printf("8. aclrtMemcpy(count > destMax) -> %d (expected ACL_ERROR_RT_PARAM_INVALID = %d)\n   message: %s\n",
           rc, ACL_ERROR_RT_PARAM_INVALID, msg ? msg : "(none)");
    EXPECT(rc == ACL_ERROR_RT_PARAM_INVALID && msg && *msg, "unexpected result of the deliberate error");

    /* 9. Cleanup, newest first: the helper thread, events, memory, streams, context, device. */
    CHECK(aclrtUnSubscribeReport((uint64_t)helper, s_copy));
    atomic_store(&g_stop_helper, true);
    pthread_join(helper, NULL);
    CHECK(aclrtDestroyEvent(ev_end));
    CHECK(aclrtDestroyEvent(ev_start));
    CHECK(aclrtFree(d_y));
    CHECK(aclrtFree(d_x));
    CHECK(aclrtFreeHost(h_y));
    CHECK(aclrtFreeHost(h_x));
    CHECK(aclrtDestroyStream(s_copy));
    CHECK(aclrtDestroyStream(s_compute));
    CHECK(aclrtDestroyContext(ctx));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    printf("9. released everything; aclFinalize done. Tour complete.\n");
    return 0;
}
