/*
 * libnnopbase's registry of live handles and its per-thread stashes of freed objects (TSan runs
 * this program): thousands of live objects (the table grows several times), destroyed in a shuffled
 * order with every destroyed handle rejected and every kept one still answered; threads that create,
 * use and destroy tensors, scalars and executors at once while each checks its own results and that
 * its stale handles stay dead; objects destroyed by another thread than the one that made them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_add.h"

static aclTensor *mk_tensor(int64_t n, void *data)
{
    const int64_t shape[1] = {n}, strides[1] = {1};
    return aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, data);
}

static int64_t dim0(const aclTensor *t, aclnnStatus *rc)
{
    int64_t *dims = NULL;
    uint64_t n = 0;
    *rc = aclGetViewShape(t, &dims, &n);
    int64_t d = (*rc == ACLNN_SUCCESS && n == 1) ? dims[0] : -1;
    free(dims);
    return d;
}

static int group_setup(void **state)
{
    (void)state;
    return aclInit(NULL) == ACL_SUCCESS && aclrtSetDevice(0) == ACL_SUCCESS ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    aclrtResetDevice(0);
    return aclFinalize() == ACL_SUCCESS ? 0 : -1;
}

enum { MANY = 6000 };

/* Many live objects of two kinds; half destroyed in a shuffled order. A destroyed handle is never
 * answered (nothing is created in between, so no address is reused), a kept one keeps its shape. */
static void test_many_live_objects(void **state)
{
    (void)state;
    aclTensor **t = calloc(MANY, sizeof(*t));
    aclScalar **s = calloc(MANY, sizeof(*s));
    int *order = calloc(MANY, sizeof(*order));
    assert_non_null(t);
    assert_non_null(s);
    assert_non_null(order);
    float one = 1.0f;
    for (int i = 0; i < MANY; i++) {
        t[i] = mk_tensor(i + 1, NULL);
        s[i] = aclCreateScalar(&one, ACL_FLOAT);
        assert_non_null(t[i]);
        assert_non_null(s[i]);
        order[i] = i;
    }
    uint64_t x = 88172645463325252ull;
    for (int i = MANY - 1; i > 0; i--) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int j = (int)(x % (uint64_t)(i + 1)), tmp = order[i];
        order[i] = order[j];
        order[j] = tmp;
    }
    aclnnStatus rc;
    for (int i = 0; i < MANY; i++)
        assert_int_equal(dim0(t[i], &rc), i + 1);
    for (int k = 0; k < MANY / 2; k++) {
        int i = order[k];
        assert_int_equal(aclDestroyTensor(t[i]), ACLNN_SUCCESS);
        assert_int_equal(aclDestroyScalar(s[i]), ACLNN_SUCCESS);
    }
    for (int k = 0; k < MANY; k++) {
        int i = order[k];
        int64_t d = dim0(t[i], &rc);
        if (k < MANY / 2) {
            assert_int_equal(rc, ACLNN_ERR_PARAM_INVALID);
            assert_int_not_equal(aclDestroyTensor(t[i]), ACLNN_SUCCESS); /* twice */
            assert_int_not_equal(aclDestroyScalar(s[i]), ACLNN_SUCCESS);
        } else {
            assert_int_equal(rc, ACLNN_SUCCESS);
            assert_int_equal(d, i + 1);
            /* a live tensor is not a scalar, nor the reverse */
            assert_int_not_equal(aclDestroyScalar((aclScalar *)(void *)t[i]), ACLNN_SUCCESS);
        }
    }
    for (int k = MANY / 2; k < MANY; k++) {
        int i = order[k];
        assert_int_equal(aclDestroyTensor(t[i]), ACLNN_SUCCESS);
        assert_int_equal(aclDestroyScalar(s[i]), ACLNN_SUCCESS);
    }
    free(t);
    free(s);
    free(order);
}

enum { THREADS = 4, ROUNDS = 400, N = 37 };

typedef struct worker {
    int id;
    atomic_int *errors;
    aclTensor *handoff; /* made by this thread, destroyed by the next one */
} worker;

/* Create three tensors and a scalar, run out = x + 2*y, check it, destroy all: the ggml pattern. A
 * handle destroyed in an earlier round must stay dead until something is created again. */
static void *worker_main(void *p)
{
    worker *w = p;
    int bad = aclrtSetDevice(0) != ACL_SUCCESS;
    aclrtStream st = NULL;
    bad |= aclrtCreateStream(&st) != ACL_SUCCESS;
    void *dx = NULL, *dy = NULL, *dz = NULL;
    bad |= aclrtMalloc(&dx, N * 4, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS;
    bad |= aclrtMalloc(&dy, N * 4, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS;
    bad |= aclrtMalloc(&dz, N * 4, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS;
    float hx[N], hy[N], hz[N];
    for (int i = 0; i < N; i++) {
        hx[i] = (float)(i + w->id);
        hy[i] = (float)(3 * i - w->id);
    }
    bad |= aclrtMemcpy(dx, N * 4, hx, N * 4, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS;
    bad |= aclrtMemcpy(dy, N * 4, hy, N * 4, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS;
    const float two = 2.0f;
    for (int r = 0; r < ROUNDS && !bad; r++) {
        aclTensor *x = mk_tensor(N, dx), *y = mk_tensor(N, dy), *z = mk_tensor(N, dz);
        aclScalar *alpha = aclCreateScalar((void *)&two, ACL_FLOAT);
        uint64_t ws = 1;
        aclOpExecutor *ex = NULL;
        bad |= !x || !y || !z || !alpha;
        bad |= aclnnAddGetWorkspaceSize(x, y, alpha, z, &ws, &ex) != ACLNN_SUCCESS || ws != 0;
        bad |= aclnnAdd(NULL, 0, ex, st) != ACLNN_SUCCESS;
        /* the executor was consumed by its run */
        bad |= aclnnAdd(NULL, 0, ex, st) == ACLNN_SUCCESS;
        bad |= aclDestroyTensor(x) != ACLNN_SUCCESS || aclDestroyTensor(y) != ACLNN_SUCCESS;
        bad |= aclDestroyTensor(z) != ACLNN_SUCCESS || aclDestroyScalar(alpha) != ACLNN_SUCCESS;
        aclnnStatus rc;
        (void)dim0(x, &rc);
        bad |= rc != ACLNN_ERR_PARAM_INVALID;
        bad |= aclDestroyScalar(alpha) == ACLNN_SUCCESS;
        if (r % 50 == 0) {
            bad |= aclrtSynchronizeStream(st) != ACL_SUCCESS;
            bad |= aclrtMemcpy(hz, N * 4, dz, N * 4, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS;
            for (int i = 0; i < N; i++)
                bad |= hz[i] != hx[i] + 2.0f * hy[i];
        }
    }
    w->handoff = mk_tensor(w->id + 100, NULL);
    bad |= w->handoff == NULL;
    bad |= aclrtSynchronizeStream(st) != ACL_SUCCESS;
    aclrtFree(dx);
    aclrtFree(dy);
    aclrtFree(dz);
    aclrtDestroyStream(st);
    if (bad)
        atomic_fetch_add(w->errors, 1);
    return NULL;
}

static void test_threads_create_use_destroy(void **state)
{
    (void)state;
    atomic_int errors = 0;
    worker w[THREADS];
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker){.id = i, .errors = &errors};
        assert_int_equal(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_join(th[i], NULL), 0);
    assert_int_equal(atomic_load(&errors), 0);
    /* the threads have exited (their stashes freed); their last tensors are still live here */
    aclnnStatus rc;
    for (int i = 0; i < THREADS; i++) {
        assert_int_equal(dim0(w[i].handoff, &rc), i + 100);
        assert_int_equal(aclDestroyTensor(w[i].handoff), ACLNN_SUCCESS);
        (void)dim0(w[i].handoff, &rc);
        assert_int_equal(rc, ACLNN_ERR_PARAM_INVALID);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many_live_objects),
        cmocka_unit_test(test_threads_create_use_destroy),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
