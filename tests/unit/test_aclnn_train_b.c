/*
 * Unit tests of the elementwise, activation and matmul operators through the C API: a broadcast
 * Add with alpha, an integer Mul, a Cast, Relu, Mm with a transposed operand, and the documented
 * argument errors (161001 / 161002). The numerical coverage lives in tests/python/test_*.py.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_mm.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_relu.h"

static aclrtStream g_stream;

static int setup(void **state)
{
    (void)state;
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&g_stream) != ACL_SUCCESS)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    aclrtDestroyStream(g_stream);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}

/* A device tensor of @p n elements of @p esize bytes filled from @p host (may be NULL). */
static aclTensor *dev_tensor(const int64_t *shape, uint64_t nd, const int64_t *strides, aclDataType dt, size_t esize,
                             size_t n, const void *host, void **mem)
{
    assert_int_equal(aclrtMalloc(mem, n * esize + 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    if (host)
        assert_int_equal(aclrtMemcpy(*mem, n * esize, host, n * esize, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    int64_t storage = (int64_t)n;
    aclTensor *t = aclCreateTensor(shape, nd, dt, strides, 0, ACL_FORMAT_ND, &storage, 1, *mem);
    assert_non_null(t);
    return t;
}

/* Phase 2 of a successful phase 1. ws / ex are read through pointers: as plain arguments they
 * could be evaluated before the phase-1 call that fills them. */
static void run(aclnnStatus st, const uint64_t *wsp, aclOpExecutor *const *exp,
                aclnnStatus (*fn)(void *, uint64_t, aclOpExecutor *, aclrtStream))
{
    assert_int_equal(st, ACLNN_SUCCESS);
    const uint64_t ws = *wsp;
    aclOpExecutor *ex = *exp;
    void *w = NULL;
    if (ws)
        assert_int_equal(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(fn(w, ws, ex, g_stream), ACLNN_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(g_stream), ACL_SUCCESS);
    if (w)
        aclrtFree(w);
}

static void test_add_broadcast_alpha(void **state)
{
    (void)state;
    float a[6] = {1, 2, 3, 4, 5, 6}, b[3] = {10, 20, 30}, o[6];
    const int64_t sa[2] = {2, 3}, sb[1] = {3};
    void *ma, *mb, *mo;
    aclTensor *ta = dev_tensor(sa, 2, NULL, ACL_FLOAT, 4, 6, a, &ma);
    aclTensor *tb = dev_tensor(sb, 1, NULL, ACL_FLOAT, 4, 3, b, &mb);
    aclTensor *to = dev_tensor(sa, 2, NULL, ACL_FLOAT, 4, 6, NULL, &mo);
    float al = 0.5f;
    aclScalar *alpha = aclCreateScalar(&al, ACL_FLOAT);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    run(aclnnAddGetWorkspaceSize(ta, tb, alpha, to, &ws, &ex), &ws, &ex, aclnnAdd);
    assert_int_equal(aclrtMemcpy(o, sizeof o, mo, sizeof o, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    for (int i = 0; i < 6; i++)
        assert_true(o[i] == a[i] + 0.5f * b[i % 3]);
    /* errors: NULL alpha, shapes that do not broadcast, float alpha with an integral result */
    assert_int_equal(aclnnAddGetWorkspaceSize(ta, tb, NULL, to, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
    const int64_t s4[1] = {4};
    void *m4;
    aclTensor *t4 = dev_tensor(s4, 1, NULL, ACL_FLOAT, 4, 4, NULL, &m4);
    assert_int_equal(aclnnAddGetWorkspaceSize(ta, t4, alpha, to, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
    assert_int_equal(aclnnMulGetWorkspaceSize(ta, t4, to, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
    void *mi;
    aclTensor *ti = dev_tensor(sa, 2, NULL, ACL_INT32, 4, 6, NULL, &mi);
    assert_int_equal(aclnnAddGetWorkspaceSize(ti, ti, alpha, ti, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
    assert_int_equal(aclnnAddGetWorkspaceSize(ta, ta, alpha, ti, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
    aclDestroyScalar(alpha);
    aclDestroyTensor(ta), aclDestroyTensor(tb), aclDestroyTensor(to), aclDestroyTensor(t4), aclDestroyTensor(ti);
    aclrtFree(ma), aclrtFree(mb), aclrtFree(mo), aclrtFree(m4), aclrtFree(mi);
}

static void test_int_mul_cast_relu(void **state)
{
    (void)state;
    int32_t a[4] = {-3, 5, 100000, -7}, o[4];
    const int64_t s[1] = {4};
    void *ma, *mo, *mf, *mh;
    aclTensor *ta = dev_tensor(s, 1, NULL, ACL_INT32, 4, 4, a, &ma);
    aclTensor *to = dev_tensor(s, 1, NULL, ACL_INT32, 4, 4, NULL, &mo);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    run(aclnnMulGetWorkspaceSize(ta, ta, to, &ws, &ex), &ws, &ex, aclnnMul);
    assert_int_equal(aclrtMemcpy(o, sizeof o, mo, sizeof o, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(o[0], 9);
    assert_int_equal(o[2], (int32_t)(uint32_t)(100000ull * 100000ull)); /* wraps like torch */
    /* int32 -> fp16 cast, then relu */
    aclTensor *tf = dev_tensor(s, 1, NULL, ACL_FLOAT16, 2, 4, NULL, &mf);
    run(aclnnCastGetWorkspaceSize(ta, ACL_FLOAT16, tf, &ws, &ex), &ws, &ex, aclnnCast);
    aclTensor *th = dev_tensor(s, 1, NULL, ACL_FLOAT16, 2, 4, NULL, &mh);
    run(aclnnReluGetWorkspaceSize(tf, th, &ws, &ex), &ws, &ex, aclnnRelu);
    uint16_t hh[4];
    assert_int_equal(aclrtMemcpy(hh, sizeof hh, mh, sizeof hh, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(hh[0], 0);      /* relu(-3) = +0 */
    assert_int_equal(hh[1], 0x4500); /* 5.0 */
    assert_int_equal(hh[2], 0x7c00); /* 100000 overflows fp16 to inf */
    assert_int_equal(aclnnCastGetWorkspaceSize(ta, ACL_FLOAT, tf, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
    aclDestroyTensor(ta), aclDestroyTensor(to), aclDestroyTensor(tf), aclDestroyTensor(th);
    aclrtFree(ma), aclrtFree(mo), aclrtFree(mf), aclrtFree(mh);
}

static void test_mm_transposed(void **state)
{
    (void)state;
    /* A (2x3) given as a transposed view of a 3x2 buffer; B 3x2 contiguous */
    float at[6] = {1, 4, 2, 5, 3, 6}, b[6] = {1, 0, 0, 1, 1, 1}, o[4];
    const int64_t sa[2] = {2, 3}, sta[2] = {1, 2}, sb[2] = {3, 2}, so[2] = {2, 2};
    void *ma, *mb, *mo;
    aclTensor *ta = dev_tensor(sa, 2, sta, ACL_FLOAT, 4, 6, at, &ma);
    aclTensor *tb = dev_tensor(sb, 2, NULL, ACL_FLOAT, 4, 6, b, &mb);
    aclTensor *to = dev_tensor(so, 2, NULL, ACL_FLOAT, 4, 4, NULL, &mo);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    run(aclnnMmGetWorkspaceSize(ta, tb, to, 0, &ws, &ex), &ws, &ex, aclnnMm);
    assert_int_equal(aclrtMemcpy(o, sizeof o, mo, sizeof o, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    /* [[1,2,3],[4,5,6]] @ [[1,0],[0,1],[1,1]] = [[4,5],[10,11]] */
    assert_true(o[0] == 4 && o[1] == 5 && o[2] == 10 && o[3] == 11);
    assert_int_equal(aclnnMmGetWorkspaceSize(ta, ta, to, 0, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
    assert_int_equal(aclnnMmGetWorkspaceSize(ta, NULL, to, 0, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
    aclDestroyTensor(ta), aclDestroyTensor(tb), aclDestroyTensor(to);
    aclrtFree(ma), aclrtFree(mb), aclrtFree(mo);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_broadcast_alpha),
        cmocka_unit_test(test_int_mul_cast_relu),
        cmocka_unit_test(test_mm_transposed),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
