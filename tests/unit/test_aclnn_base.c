/*
 * Unit tests of libnnopbase: tensor / scalar / array / list descriptors (creation, validation,
 * getters, ownership, handle validation), executors (slots, workspace, kernel records with pointer
 * fixups, phase 2 checks, repeatable executors and re-pointing), and the gather / scatter kernels.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnn/opdev/cannon_access.h"
#include "cannon/kernel.h"
#include "cannon/opdev.h"

/* Assert that an aclnn call returns exactly @p code; on a failure that was expected, also check
 * that a message was recorded. */
#define NN_EXPECT(code, expr)                                                                      \
    do {                                                                                           \
        aclnnStatus nn_rc_ = (expr);                                                               \
        const char *nn_m_ = aclGetRecentErrMsg();                                                  \
        if (nn_rc_ != (aclnnStatus)(code))                                                         \
            print_error("%s returned %d, expected %d; recent error text: %s\n", #expr, (int)nn_rc_, \
                        (int)(code), nn_m_ ? nn_m_ : "(none)");                                    \
        assert_int_equal(nn_rc_, (code));                                                          \
        if ((code) != ACLNN_SUCCESS)                                                               \
            assert_non_null(nn_m_);                                                                \
    } while (0)
#define NN_OK(expr) NN_EXPECT(ACLNN_SUCCESS, expr)

/* A NULL result of a constructor must come with a message. */
#define EXPECT_NULL_WITH_MSG(expr)                                                                 \
    do {                                                                                           \
        assert_null(expr);                                                                         \
        assert_non_null(aclGetRecentErrMsg());                                                     \
    } while (0)

static aclrtStream g_stream;

static int group_setup(void **state)
{
    (void)state;
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&g_stream) != ACL_SUCCESS)
        return -1;
    (void)aclGetRecentErrMsg();
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    aclrtDestroyStream(g_stream);
    aclrtResetDevice(0);
    return aclFinalize() == ACL_SUCCESS ? 0 : -1;
}

static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    assert_int_equal(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    return p;
}

static void h2d(void *dst, const void *src, size_t n)
{
    assert_int_equal(aclrtMemcpy(dst, n, src, n, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
}

static void d2h(void *dst, const void *src, size_t n)
{
    assert_int_equal(aclrtMemcpy(dst, n, src, n, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
}

/* ---- tensors ---------------------------------------------------------------------------------- */

static void check_array(const int64_t *got, uint64_t n_got, const int64_t *want, uint64_t n_want)
{
    assert_int_equal(n_got, n_want);
    for (uint64_t i = 0; i < n_want; i++)
        assert_int_equal(got[i], want[i]);
}

static void test_tensor_create_and_getters(void **state)
{
    (void)state;
    int64_t shape[] = {2, 3, 4};
    int64_t storage[] = {24};
    void *data = (void *)(uintptr_t)0x1000;
    aclTensor *t = aclCreateTensor(shape, 3, ACL_FLOAT16, NULL, 0, ACL_FORMAT_ND, storage, 1, data);
    assert_non_null(t);

    int64_t *v = NULL;
    uint64_t n = 0;
    NN_OK(aclGetViewShape(t, &v, &n));
    check_array(v, n, shape, 3);
    free(v);
    NN_OK(aclGetViewStrides(t, &v, &n));
    check_array(v, n, (const int64_t[]){12, 4, 1}, 3);
    free(v);
    NN_OK(aclGetStorageShape(t, &v, &n));
    check_array(v, n, storage, 1);
    free(v);
    int64_t off = -1;
    NN_OK(aclGetViewOffset(t, &off));
    assert_int_equal(off, 0);
    aclFormat f = ACL_FORMAT_UNDEFINED;
    NN_OK(aclGetFormat(t, &f));
    assert_int_equal(f, ACL_FORMAT_ND);
    aclDataType dt = ACL_DT_UNDEFINED;
    NN_OK(aclGetDataType(t, &dt));
    assert_int_equal(dt, ACL_FLOAT16);
    void *addr = NULL;
    NN_OK(aclGetRawTensorAddr(t, &addr));
    assert_ptr_equal(addr, data);
    NN_OK(aclSetRawTensorAddr(t, (void *)(uintptr_t)0x2000));
    NN_OK(aclGetRawTensorAddr(t, &addr));
    assert_ptr_equal(addr, (void *)(uintptr_t)0x2000);
    NN_OK(aclSetRawTensorAddr(t, NULL)); /* NULL data is a valid description */
    NN_OK(aclDestroyTensor(t));

    /* CANN's documented example: a (6,5) view with strides (10,1) at offset 22 of a 10x10 buffer,
     * and a transposed view of a [2,4] storage. */
    t = aclCreateTensor((const int64_t[]){6, 5}, 2, ACL_FLOAT, (const int64_t[]){10, 1}, 22, ACL_FORMAT_ND,
                        (const int64_t[]){10, 10}, 2, NULL);
    assert_non_null(t);
    NN_OK(aclGetViewOffset(t, &off));
    assert_int_equal(off, 22);
    NN_OK(aclGetViewStrides(t, &v, &n));
    check_array(v, n, (const int64_t[]){10, 1}, 2);
    free(v);
    NN_OK(aclDestroyTensor(t));
    t = aclCreateTensor((const int64_t[]){4, 2}, 2, ACL_FLOAT, (const int64_t[]){1, 4}, 0, ACL_FORMAT_ND,
                        (const int64_t[]){2, 4}, 2, NULL);
    assert_non_null(t);
    NN_OK(aclDestroyTensor(t));

    /* Rank 0: a scalar tensor with one element; getters return a non-NULL empty array. */
    t = aclCreateTensor(NULL, 0, ACL_INT32, NULL, 0, ACL_FORMAT_ND, NULL, 0, NULL);
    assert_non_null(t);
    NN_OK(aclGetViewShape(t, &v, &n));
    assert_non_null(v);
    assert_int_equal(n, 0);
    free(v);
    assert_int_equal(cannonTensorNumel(t), 1);
    NN_OK(aclDestroyTensor(t));
}

static void test_tensor_ranks(void **state)
{
    (void)state;
    int64_t dims[40], strides[40];
    for (int i = 0; i < 40; i++) {
        dims[i] = 1;
        strides[i] = 1;
    }
    dims[0] = 3;
    static const uint64_t ok_ranks[] = {1, 8, 9, 32};
    for (size_t k = 0; k < sizeof(ok_ranks) / sizeof(ok_ranks[0]); k++) {
        aclTensor *t = aclCreateTensor(dims, ok_ranks[k], ACL_FLOAT, strides, 0, ACL_FORMAT_ND, NULL, 0, NULL);
        assert_non_null(t);
        int64_t *v = NULL;
        uint64_t n = 0;
        NN_OK(aclGetViewShape(t, &v, &n));
        assert_int_equal(n, ok_ranks[k]);
        free(v);
        assert_int_equal(cannonTensorNumel(t), 3);
        NN_OK(aclDestroyTensor(t));
    }
    EXPECT_NULL_WITH_MSG(aclCreateTensor(dims, 33, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, NULL, 0, NULL));
    EXPECT_NULL_WITH_MSG(aclCreateTensor(dims, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, 33, NULL));
}

static void test_tensor_errors(void **state)
{
    (void)state;
    const int64_t shape[] = {2, 3};
    EXPECT_NULL_WITH_MSG(aclCreateTensor(NULL, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, NULL, 0, NULL));
    EXPECT_NULL_WITH_MSG(aclCreateTensor(shape, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, NULL, 1, NULL));
    EXPECT_NULL_WITH_MSG(
        aclCreateTensor((const int64_t[]){2, -3}, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, NULL, 0, NULL));
    EXPECT_NULL_WITH_MSG(
        aclCreateTensor(shape, 2, ACL_FLOAT, (const int64_t[]){-3, 1}, 0, ACL_FORMAT_ND, NULL, 0, NULL));
    EXPECT_NULL_WITH_MSG(aclCreateTensor(shape, 2, ACL_FLOAT, NULL, -1, ACL_FORMAT_ND, NULL, 0, NULL));
    EXPECT_NULL_WITH_MSG(aclCreateTensor(shape, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, (const int64_t[]){-6}, 1,
                                         NULL));
    /* storage too small: contiguous 2x3 needs 6 elements; with offset 1 it needs 7 */
    EXPECT_NULL_WITH_MSG(aclCreateTensor(shape, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, (const int64_t[]){5}, 1, NULL));
    aclTensor *t = aclCreateTensor(shape, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, (const int64_t[]){6}, 1, NULL);
    assert_non_null(t);
    NN_OK(aclDestroyTensor(t));
    /* the (6,5)/(10,1) view spans 55 elements: too many for a 50-element storage */
    EXPECT_NULL_WITH_MSG(aclCreateTensor((const int64_t[]){6, 5}, 2, ACL_FLOAT, (const int64_t[]){10, 1}, 0,
                                         ACL_FORMAT_ND, (const int64_t[]){5, 10}, 2, NULL));
    /* The offset is not counted against the storage (CANN clients give a view at an offset the storage of
     * its own extent): 2x3 at offset 1 in 6 elements, and (6,5)/(10,1) at offset 51 in 55. */
    t = aclCreateTensor(shape, 2, ACL_FLOAT, NULL, 1, ACL_FORMAT_ND, (const int64_t[]){6}, 1, NULL);
    assert_non_null(t);
    int64_t off = -1;
    NN_OK(aclGetViewOffset(t, &off));
    assert_int_equal(off, 1);
    NN_OK(aclDestroyTensor(t));
    t = aclCreateTensor((const int64_t[]){6, 5}, 2, ACL_FLOAT, (const int64_t[]){10, 1}, 51, ACL_FORMAT_ND,
                        (const int64_t[]){55}, 1, NULL);
    assert_non_null(t);
    NN_OK(aclDestroyTensor(t));
    /* element count overflow */
    EXPECT_NULL_WITH_MSG(aclCreateTensor((const int64_t[]){INT64_MAX / 2, 4}, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND,
                                         NULL, 0, NULL));
    /* empty views fit any storage; zero strides (broadcast) are allowed */
    t = aclCreateTensor((const int64_t[]){0, 5}, 2, ACL_FLOAT, NULL, 100, ACL_FORMAT_ND, (const int64_t[]){1}, 1,
                        NULL);
    assert_non_null(t);
    assert_int_equal(cannonTensorNumel(t), 0);
    NN_OK(aclDestroyTensor(t));
    t = aclCreateTensor((const int64_t[]){4, 5}, 2, ACL_FLOAT, (const int64_t[]){0, 1}, 0, ACL_FORMAT_ND,
                        (const int64_t[]){5}, 1, NULL);
    assert_non_null(t);
    NN_OK(aclDestroyTensor(t));
}

static void test_tensor_getter_errors(void **state)
{
    (void)state;
    aclTensor *t = aclCreateTensor((const int64_t[]){2}, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, NULL, 0, NULL);
    assert_non_null(t);
    int64_t *v = NULL;
    uint64_t n = 0;
    int64_t off;
    aclFormat f;
    aclDataType dt;
    void *addr;
    NN_EXPECT(ACLNN_ERR_PARAM_NULLPTR, aclGetViewShape(NULL, &v, &n));
    NN_EXPECT(ACLNN_ERR_PARAM_NULLPTR, aclGetViewShape(t, NULL, &n));
    NN_EXPECT(ACLNN_ERR_PARAM_NULLPTR, aclGetViewShape(t, &v, NULL));
    NN_EXPECT(ACLNN_ERR_PARAM_NULLPTR, aclGetStorageShape(t, NULL, &n));
    NN_EXPECT(ACLNN_ERR_PARAM_NULLPTR, aclGetViewStrides(NULL, &v, &n));
    NN_EXPECT(ACLNN_ERR_PARAM_NULLPTR, aclGetViewOffset(t, NULL));
    NN_EXPECT(ACLNN_ERR_PARAM_NULLPTR, aclGetFormat(NULL, &f));
    NN_EXPECT(ACLNN_ERR_PARAM_NULLPTR, aclGetDataType(t, NULL));
    NN_EXPECT(ACLNN_ERR_PARAM_NULLPTR, aclGetRawTensorAddr(t, NULL));
    NN_EXPECT(ACLNN_ERR_PARAM_NULLPTR, aclSetRawTensorAddr(NULL, NULL));

    /* foreign pointers are rejected without being dereferenced */
    int64_t junk[64] = {0};
    const aclTensor *foreign = (const aclTensor *)(void *)junk;
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclGetViewShape(foreign, &v, &n));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclGetViewOffset(foreign, &off));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclDestroyTensor(foreign));
    /* another kind of handle is not a tensor */
    aclIntArray *arr = aclCreateIntArray((const int64_t[]){1}, 1);
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclGetDataType((const aclTensor *)(void *)arr, &dt));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclDestroyTensor((const aclTensor *)(void *)arr));
    NN_OK(aclDestroyIntArray(arr));

    NN_OK(aclDestroyTensor(t));
    /* destroyed: every use is an error, destroy twice does not crash */
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclGetFormat(t, &f));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclGetRawTensorAddr(t, &addr));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclSetRawTensorAddr(t, NULL));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclDestroyTensor(t));
    NN_OK(aclDestroyTensor(NULL));
    cannon_tensor_view view;
    assert_false(cannonTensorGetView(t, &view));
    assert_int_equal(cannonTensorNumel(t), 0);
    assert_false(cannonTensorIsContiguous(t));
}

/* A handle this thread has checked (and so cached as live) and another thread then destroys is
 * rejected here at once, and so is a new handle that lands at its address. */
static void *destroy_in_thread(void *t)
{
    return (void *)(intptr_t)aclDestroyTensor((const aclTensor *)t);
}

static void test_tensor_destroyed_by_another_thread(void **state)
{
    (void)state;
    aclTensor *t = aclCreateTensor((const int64_t[]){2, 3}, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, NULL, 0, NULL);
    assert_non_null(t);
    aclDataType dt;
    for (int i = 0; i < 3; i++)
        NN_OK(aclGetDataType(t, &dt));
    pthread_t th;
    void *ret = NULL;
    assert_int_equal(pthread_create(&th, NULL, destroy_in_thread, t), 0);
    assert_int_equal(pthread_join(th, &ret), 0);
    assert_int_equal((intptr_t)ret, ACLNN_SUCCESS);
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclGetDataType(t, &dt));
    /* an int array created now may reuse the address: it is an int array, not a tensor */
    aclIntArray *arr = aclCreateIntArray((const int64_t[]){1, 2}, 2);
    assert_non_null(arr);
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclGetDataType((const aclTensor *)(void *)arr, &dt));
    NN_OK(aclDestroyIntArray(arr));
}

static void test_tensor_init(void **state)
{
    (void)state;
    aclTensor *t = aclCreateTensor((const int64_t[]){2, 3}, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, NULL, 0, NULL);
    assert_non_null(t);
    NN_OK(aclInitTensor(t, (const int64_t[]){4, 5, 6}, 3, ACL_INT8, NULL, 7, ACL_FORMAT_NCL, (const int64_t[]){127}, 1,
                        (void *)(uintptr_t)0x40));
    int64_t *v = NULL;
    uint64_t n = 0;
    NN_OK(aclGetViewShape(t, &v, &n));
    check_array(v, n, (const int64_t[]){4, 5, 6}, 3);
    free(v);
    aclDataType dt;
    NN_OK(aclGetDataType(t, &dt));
    assert_int_equal(dt, ACL_INT8);
    /* an invalid description (a 120-element view in a 119-element storage) leaves the tensor unchanged */
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclInitTensor(t, (const int64_t[]){4, 5, 6}, 3, ACL_INT8, NULL, 8,
                                                     ACL_FORMAT_ND, (const int64_t[]){119}, 1, NULL));
    NN_EXPECT(ACLNN_ERR_PARAM_NULLPTR, aclInitTensor(t, NULL, 3, ACL_INT8, NULL, 0, ACL_FORMAT_ND, NULL, 0, NULL));
    NN_EXPECT(ACLNN_ERR_PARAM_NULLPTR,
              aclInitTensor(NULL, (const int64_t[]){1}, 1, ACL_INT8, NULL, 0, ACL_FORMAT_ND, NULL, 0, NULL));
    int64_t off;
    NN_OK(aclGetViewOffset(t, &off));
    assert_int_equal(off, 7);
    NN_OK(aclDestroyTensor(t));
}

static void test_view_helpers(void **state)
{
    (void)state;
    aclTensor *c = aclCreateTensor((const int64_t[]){2, 3}, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, NULL, 0, NULL);
    aclTensor *tr = aclCreateTensor((const int64_t[]){3, 2}, 2, ACL_FLOAT, (const int64_t[]){1, 3}, 0, ACL_FORMAT_ND,
                                    NULL, 0, NULL);
    /* size-1 dims with arbitrary strides are still contiguous */
    aclTensor *ones = aclCreateTensor((const int64_t[]){1, 3, 1}, 3, ACL_FLOAT, (const int64_t[]){99, 1, 42}, 5,
                                      ACL_FORMAT_ND, NULL, 0, NULL);
    aclTensor *slice = aclCreateTensor((const int64_t[]){2, 3}, 2, ACL_FLOAT, (const int64_t[]){4, 1}, 0,
                                       ACL_FORMAT_ND, NULL, 0, NULL);
    assert_true(cannonTensorIsContiguous(c));
    assert_false(cannonTensorIsContiguous(tr));
    assert_true(cannonTensorIsContiguous(ones));
    assert_false(cannonTensorIsContiguous(slice));
    assert_int_equal(cannonTensorNumel(tr), 6);
    cannon_tensor_view v;
    assert_true(cannonTensorGetView(ones, &v));
    assert_int_equal(v.ndim, 3);
    assert_int_equal(v.shape[1], 3);
    assert_int_equal(v.strides[0], 99);
    assert_int_equal(v.offset, 5);
    assert_int_equal(v.dtype, ACL_FLOAT);
    assert_false(cannonTensorGetView(NULL, &v));
    assert_false(cannonTensorGetView(c, NULL));
    NN_OK(aclDestroyTensor(c));
    NN_OK(aclDestroyTensor(tr));
    NN_OK(aclDestroyTensor(ones));
    NN_OK(aclDestroyTensor(slice));
}

/* ---- scalars, arrays, lists ----------------------------------------------------------------- */

static void check_scalar(aclDataType dt, const void *value, size_t size, double as_double)
{
    aclScalar *s = aclCreateScalar((void *)(uintptr_t)value, dt);
    assert_non_null(s);
    unsigned char out[16];
    memset(out, 0xcc, sizeof(out));
    aclDataType got = ACL_DT_UNDEFINED;
    assert_true(cannonScalarGet(s, &got, out));
    assert_int_equal(got, dt);
    assert_memory_equal(out, value, size);
    assert_true(cannonScalarToDouble(s) == as_double);
    NN_OK(aclDestroyScalar(s));
}

static void test_scalars(void **state)
{
    (void)state;
    bool b = true;
    int8_t i8 = -5;
    uint8_t u8 = 250;
    int16_t i16 = -30000;
    uint16_t u16 = 60000;
    int32_t i32 = -2000000000;
    uint32_t u32 = 4000000000u;
    int64_t i64 = -(INT64_C(1) << 40);
    uint64_t u64 = UINT64_C(1) << 63;
    uint16_t h = 0x3e00;  /* fp16 1.5 */
    uint16_t bf = 0x3fc0; /* bf16 1.5 */
    uint16_t hinf = 0xfc00;
    float f = 0.25f;
    double d = -3.125;
    float c64[2] = {2.5f, -1.0f};
    double c128[2] = {-7.5, 1.0};
    check_scalar(ACL_BOOL, &b, 1, 1.0);
    check_scalar(ACL_INT8, &i8, 1, -5.0);
    check_scalar(ACL_UINT8, &u8, 1, 250.0);
    check_scalar(ACL_INT16, &i16, 2, -30000.0);
    check_scalar(ACL_UINT16, &u16, 2, 60000.0);
    check_scalar(ACL_INT32, &i32, 4, -2000000000.0);
    check_scalar(ACL_UINT32, &u32, 4, 4000000000.0);
    check_scalar(ACL_INT64, &i64, 8, -1099511627776.0);
    check_scalar(ACL_UINT64, &u64, 8, 9223372036854775808.0);
    check_scalar(ACL_FLOAT16, &h, 2, 1.5);
    check_scalar(ACL_FLOAT16, &hinf, 2, -__builtin_inf());
    check_scalar(ACL_BF16, &bf, 2, 1.5);
    check_scalar(ACL_FLOAT, &f, 4, 0.25);
    check_scalar(ACL_DOUBLE, &d, 8, -3.125);
    check_scalar(ACL_COMPLEX64, c64, 8, 2.5);
    check_scalar(ACL_COMPLEX128, c128, 16, -7.5);

    /* the value is copied */
    int32_t x = 7;
    aclScalar *s = aclCreateScalar(&x, ACL_INT32);
    x = 8;
    assert_int_equal(cannonScalarToInt64(s), 7);
    NN_OK(aclDestroyScalar(s));
    s = aclCreateScalar(&d, ACL_DOUBLE);
    assert_int_equal(cannonScalarToInt64(s), -3);
    NN_OK(aclDestroyScalar(s));
    s = aclCreateScalar(&u64, ACL_UINT64);
    assert_int_equal(cannonScalarToInt64(s), INT64_MAX);

    EXPECT_NULL_WITH_MSG(aclCreateScalar(NULL, ACL_FLOAT));
    EXPECT_NULL_WITH_MSG(aclCreateScalar(&x, ACL_STRING));
    EXPECT_NULL_WITH_MSG(aclCreateScalar(&x, ACL_DT_UNDEFINED));
    NN_OK(aclDestroyScalar(NULL));
    NN_OK(aclDestroyScalar(s));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclDestroyScalar(s));
    assert_false(cannonScalarGet(s, NULL, NULL));
    assert_non_null(aclGetRecentErrMsg());
}

static void test_arrays(void **state)
{
    (void)state;
    int64_t iv[] = {1, -2, 3};
    float fv[] = {0.5f, 1.5f};
    bool bv[] = {true, false, true, true};
    aclIntArray *ia = aclCreateIntArray(iv, 3);
    aclFloatArray *fa = aclCreateFloatArray(fv, 2);
    aclBoolArray *ba = aclCreateBoolArray(bv, 4);
    assert_non_null(ia);
    assert_non_null(fa);
    assert_non_null(ba);
    iv[0] = 100; /* copies: later changes to the source do not show */
    uint64_t n = 0;
    NN_OK(aclGetIntArraySize(ia, &n));
    assert_int_equal(n, 3);
    NN_OK(aclGetFloatArraySize(fa, &n));
    assert_int_equal(n, 2);
    NN_OK(aclGetBoolArraySize(ba, &n));
    assert_int_equal(n, 4);
    const int64_t *ip = cannonIntArrayData(ia, &n);
    assert_int_equal(n, 3);
    assert_int_equal(ip[0], 1);
    assert_int_equal(ip[1], -2);
    const float *fp = cannonFloatArrayData(fa, &n);
    assert_true(fp[1] == 1.5f);
    const bool *bp = cannonBoolArrayData(ba, &n);
    assert_true(bp[0] && !bp[1] && bp[3]);

    NN_EXPECT(ACLNN_ERR_PARAM_NULLPTR, aclGetIntArraySize(NULL, &n));
    NN_EXPECT(ACLNN_ERR_PARAM_NULLPTR, aclGetIntArraySize(ia, NULL));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclGetFloatArraySize((const aclFloatArray *)(void *)ia, &n));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclDestroyBoolArray((const aclBoolArray *)(void *)fa));

    /* empty arrays */
    aclIntArray *empty = aclCreateIntArray(NULL, 0);
    assert_non_null(empty);
    NN_OK(aclGetIntArraySize(empty, &n));
    assert_int_equal(n, 0);
    NN_OK(aclDestroyIntArray(empty));
    EXPECT_NULL_WITH_MSG(aclCreateIntArray(NULL, 2));
    EXPECT_NULL_WITH_MSG(aclCreateFloatArray(NULL, 1));
    EXPECT_NULL_WITH_MSG(aclCreateBoolArray(NULL, 1));

    NN_OK(aclDestroyIntArray(ia));
    NN_OK(aclDestroyFloatArray(fa));
    NN_OK(aclDestroyBoolArray(ba));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclDestroyIntArray(ia));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclDestroyFloatArray(fa));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclDestroyBoolArray(ba));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclGetIntArraySize(ia, &n));
    NN_OK(aclDestroyIntArray(NULL));
    NN_OK(aclDestroyFloatArray(NULL));
    NN_OK(aclDestroyBoolArray(NULL));
}

static aclTensor *small_tensor(int64_t n)
{
    aclTensor *t = aclCreateTensor(&n, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, NULL, 0, NULL);
    assert_non_null(t);
    return t;
}

static void test_lists(void **state)
{
    (void)state;
    aclTensor *a = small_tensor(1), *b = small_tensor(2);
    const aclTensor *items[] = {a, NULL, b};
    aclTensorList *l = aclCreateTensorList(items, 3);
    assert_non_null(l);
    uint64_t n = 0;
    NN_OK(aclGetTensorListSize(l, &n));
    assert_int_equal(n, 3);
    assert_ptr_equal(cannonTensorListGet(l, 0), a);
    assert_null(cannonTensorListGet(l, 1));
    assert_ptr_equal(cannonTensorListGet(l, 2), b);
    assert_null(cannonTensorListGet(l, 3));
    /* the list owns its tensors: destroying it destroys them */
    NN_OK(aclDestroyTensorList(l));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclDestroyTensor(a));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclDestroyTensor(b));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclDestroyTensorList(l));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclGetTensorListSize(l, &n));
    NN_OK(aclDestroyTensorList(NULL));

    /* an element destroyed separately is reported, not freed twice */
    a = small_tensor(3);
    b = small_tensor(4);
    const aclTensor *items2[] = {a, b};
    l = aclCreateTensorList(items2, 2);
    assert_non_null(l);
    NN_OK(aclDestroyTensor(a));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclDestroyTensorList(l));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclDestroyTensor(b)); /* b went with the list */

    /* bad arguments */
    EXPECT_NULL_WITH_MSG(aclCreateTensorList(NULL, 2));
    const aclTensor *dead[] = {a};
    EXPECT_NULL_WITH_MSG(aclCreateTensorList(dead, 1));
    aclTensorList *empty = aclCreateTensorList(NULL, 0);
    assert_non_null(empty);
    NN_OK(aclGetTensorListSize(empty, &n));
    assert_int_equal(n, 0);
    NN_EXPECT(ACLNN_ERR_PARAM_NULLPTR, aclGetTensorListSize(empty, NULL));
    NN_OK(aclDestroyTensorList(empty));

    /* scalar lists */
    float one = 1.0f;
    int64_t two = 2;
    aclScalar *s1 = aclCreateScalar(&one, ACL_FLOAT), *s2 = aclCreateScalar(&two, ACL_INT64);
    const aclScalar *sitems[] = {s1, s2};
    aclScalarList *sl = aclCreateScalarList(sitems, 2);
    assert_non_null(sl);
    NN_OK(aclGetScalarListSize(sl, &n));
    assert_int_equal(n, 2);
    assert_ptr_equal(cannonScalarListGet(sl, 1), s2);
    assert_true(cannonScalarToDouble(cannonScalarListGet(sl, 0)) == 1.0);
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclGetTensorListSize((const aclTensorList *)(void *)sl, &n));
    NN_OK(aclDestroyScalarList(sl));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclDestroyScalar(s1));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclDestroyScalarList(sl));
    NN_OK(aclDestroyScalarList(NULL));
    EXPECT_NULL_WITH_MSG(aclCreateScalarList(NULL, 1));
    const aclScalar *bad[] = {(const aclScalar *)(void *)&two};
    EXPECT_NULL_WITH_MSG(aclCreateScalarList(bad, 1));
}

static void test_aclnn_init(void **state)
{
    (void)state;
    NN_OK(aclnnInit(NULL));
    NN_OK(aclnnInit("/nonexistent.json"));
    NN_OK(aclnnFinalize());
}

/* ---- executors --------------------------------------------------------------------------------- */

/* k_scale: ws[i] = in[i] * factor, one element per block. */
typedef struct scale_args {
    const int32_t *in;
    int32_t *ws;
    int32_t factor;
} scale_args;

static int k_scale(const cannon_kernel_ctx *ctx, void *args)
{
    const scale_args *a = args;
    a->ws[ctx->block_idx] = a->in[ctx->block_idx] * a->factor;
    return 0;
}

/* k_split: writes through two pointers of one blob, both into the output: lo[i] = ws[i] + 1 and
 * hi[i] = -ws[i]. The blob is packed so the second pointer sits at an unaligned offset. */
typedef struct __attribute__((packed)) split_args {
    const int32_t *ws;
    char pad;
    int32_t *lo;
    int32_t *hi;
} split_args;

static int k_split(const cannon_kernel_ctx *ctx, void *args)
{
    split_args a;
    memcpy(&a, args, sizeof(a));
    uint32_t i = ctx->block_idx;
    a.lo[i] = a.ws[i] + 1;
    a.hi[i] = -a.ws[i];
    return 0;
}

#define N_ELEM 6

typedef struct plan {
    aclTensor *in, *out;
    aclOpExecutor *e;
    uint64_t ws_size;
} plan;

/* "Phase 1" of a toy operator: out[0:N] = in*3 + 1, out[N:2N] = -(in*3), through the workspace.
 * Records an unused first reservation so the used buffer sits at a non-zero workspace offset. */
static void build_plan(plan *p, void *in_dev, void *out_dev)
{
    int64_t n = N_ELEM, n2 = 2 * N_ELEM;
    p->in = aclCreateTensor(&n, 1, ACL_INT32, NULL, 0, ACL_FORMAT_ND, NULL, 0, in_dev);
    p->out = aclCreateTensor(&n2, 1, ACL_INT32, NULL, 0, ACL_FORMAT_ND, NULL, 0, out_dev);
    assert_non_null(p->in);
    assert_non_null(p->out);
    p->e = cannonExecutorCreate("ToyOp");
    assert_non_null(p->e);
    int si = cannonExecutorAddInput(p->e, p->in);
    int so = cannonExecutorAddOutput(p->e, p->out);
    assert_int_equal(si, 0);
    assert_int_equal(so, 1);
    uint64_t pad = cannonExecutorReserveWorkspace(p->e, 10);
    uint64_t off = cannonExecutorReserveWorkspace(p->e, N_ELEM * sizeof(int32_t));
    assert_int_equal(pad, 0);
    assert_int_equal(off, 64);
    scale_args sa = {.factor = 3};
    cannon_arg_ref r1[] = {{offsetof(scale_args, in), si, 0}, {offsetof(scale_args, ws), CANNON_SLOT_WORKSPACE, (int64_t)off}};
    NN_OK(cannonExecutorAddKernel(p->e, "k_scale", k_scale, N_ELEM, &sa, sizeof(sa), r1, 2));
    split_args sp;
    memset(&sp, 0, sizeof(sp));
    cannon_arg_ref r2[] = {{offsetof(split_args, ws), CANNON_SLOT_WORKSPACE, (int64_t)off},
                           {offsetof(split_args, lo), so, 0},
                           {offsetof(split_args, hi), so, N_ELEM * sizeof(int32_t)}};
    NN_OK(cannonExecutorAddKernel(p->e, "k_split", k_split, N_ELEM, &sp, sizeof(sp), r2, 3));
    p->ws_size = cannonExecutorWorkspaceSize(p->e);
    assert_int_equal(p->ws_size, 128);
}

static void free_plan_tensors(plan *p)
{
    NN_OK(aclDestroyTensor(p->in));
    NN_OK(aclDestroyTensor(p->out));
}

static void check_out(void *out_dev, const int32_t *in)
{
    int32_t out[2 * N_ELEM];
    assert_int_equal(aclrtSynchronizeStream(g_stream), ACL_SUCCESS);
    d2h(out, out_dev, sizeof(out));
    for (int i = 0; i < N_ELEM; i++) {
        assert_int_equal(out[i], in[i] * 3 + 1);
        assert_int_equal(out[N_ELEM + i], -in[i] * 3);
    }
}

static void test_executor_run(void **state)
{
    (void)state;
    int32_t in[N_ELEM] = {1, 2, 3, 4, 5, -6};
    void *in_dev = dev_alloc(sizeof(in)), *out_dev = dev_alloc(2 * sizeof(in));
    h2d(in_dev, in, sizeof(in));
    plan p;
    build_plan(&p, in_dev, out_dev);
    void *ws = dev_alloc(p.ws_size);
    NN_OK(cannonExecutorRun(ws, p.ws_size, p.e, g_stream, "aclnnToy"));
    check_out(out_dev, in);
    /* consumed: a second run, making it repeatable, or destroying it are errors, not crashes */
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, cannonExecutorRun(ws, p.ws_size, p.e, g_stream, "aclnnToy"));
    NN_EXPECT(ACLNN_ERR_INNER, aclSetAclOpExecutorRepeatable(p.e));
    NN_EXPECT(ACLNN_ERR_INNER, aclDestroyAclOpExecutor(p.e));
    NN_OK(aclDestroyTensor(p.in));
    NN_OK(aclDestroyTensor(p.out));
    aclrtFree(ws);
    aclrtFree(in_dev);
    aclrtFree(out_dev);
}

static void test_executor_workspace_checks(void **state)
{
    (void)state;
    int32_t in[N_ELEM] = {0, 1, 2, 3, 4, 5};
    void *in_dev = dev_alloc(sizeof(in)), *out_dev = dev_alloc(2 * sizeof(in));
    h2d(in_dev, in, sizeof(in));
    plan p;
    build_plan(&p, in_dev, out_dev);
    void *ws = dev_alloc(p.ws_size);
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, cannonExecutorRun(NULL, p.ws_size, p.e, g_stream, "aclnnToy"));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, cannonExecutorRun(ws, p.ws_size - 1, p.e, g_stream, "aclnnToy"));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, cannonExecutorRun(ws, 0, p.e, g_stream, "aclnnToy"));
    NN_EXPECT(ACLNN_ERR_PARAM_NULLPTR, cannonExecutorRun(ws, p.ws_size, NULL, g_stream, "aclnnToy"));
    /* a failed check leaves the executor to the caller, who may retry */
    NN_OK(cannonExecutorRun(ws, p.ws_size + 100, p.e, g_stream, "aclnnToy"));
    check_out(out_dev, in);
    free_plan_tensors(&p);

    /* a failed check, then destroy */
    build_plan(&p, in_dev, out_dev);
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, cannonExecutorRun(NULL, 0, p.e, g_stream, "aclnnToy"));
    NN_OK(aclDestroyAclOpExecutor(p.e));
    NN_EXPECT(ACLNN_ERR_INNER, aclDestroyAclOpExecutor(p.e));
    NN_EXPECT(ACLNN_ERR_INNER_NULLPTR, aclDestroyAclOpExecutor(NULL));
    NN_EXPECT(ACLNN_ERR_INNER_NULLPTR, aclSetAclOpExecutorRepeatable(NULL));
    free_plan_tensors(&p);

    /* a runtime failure (a foreign stream) is ACLNN_ERR_RUNTIME_ERROR and consumes the executor */
    build_plan(&p, in_dev, out_dev);
    int junk_stream[16];
    NN_EXPECT(ACLNN_ERR_RUNTIME_ERROR, cannonExecutorRun(ws, p.ws_size, p.e, (aclrtStream)junk_stream, "aclnnToy"));
    NN_EXPECT(ACLNN_ERR_INNER, aclDestroyAclOpExecutor(p.e));
    free_plan_tensors(&p);

    /* a NULL device address bound into a kernel is caught before launching */
    build_plan(&p, NULL, out_dev);
    NN_EXPECT(ACLNN_ERR_PARAM_NULLPTR, cannonExecutorRun(ws, p.ws_size, p.e, g_stream, "aclnnToy"));
    NN_OK(aclDestroyAclOpExecutor(p.e));

    /* an executor without kernels or workspace runs with NULL workspace */
    aclOpExecutor *e = cannonExecutorCreate("Empty");
    assert_int_equal(cannonExecutorWorkspaceSize(e), 0);
    NN_OK(cannonExecutorRun(NULL, 0, e, g_stream, "aclnnEmpty"));

    /* reservations that would wrap the workspace size fail the plan instead: the size stays what
     * it was, and phase 2 refuses the plan with the first error */
    e = cannonExecutorCreate("Huge");
    assert_int_equal(cannonExecutorReserveWorkspace(e, 100), 0);
    assert_int_equal(cannonExecutorReserveWorkspace(e, UINT64_MAX - 10), 0);
    assert_non_null(strstr(aclGetRecentErrMsg(), "workspace would exceed"));
    assert_int_equal(cannonExecutorReserveWorkspace(e, (uint64_t)1 << 63), 0);
    assert_int_equal(cannonExecutorWorkspaceSize(e), 128);
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, cannonExecutorRun(ws, p.ws_size, e, g_stream, "aclnnHuge"));
    NN_OK(aclDestroyAclOpExecutor(e));

    NN_OK(aclDestroyTensor(p.in));
    NN_OK(aclDestroyTensor(p.out));
    aclrtFree(ws);
    aclrtFree(in_dev);
    aclrtFree(out_dev);
}

static void test_executor_repeatable(void **state)
{
    (void)state;
    int32_t in1[N_ELEM] = {1, 1, 2, 3, 5, 8}, in2[N_ELEM] = {-1, 10, 20, 30, 40, 50};
    void *in_dev1 = dev_alloc(sizeof(in1)), *in_dev2 = dev_alloc(sizeof(in2));
    void *out_dev1 = dev_alloc(2 * sizeof(in1)), *out_dev2 = dev_alloc(2 * sizeof(in1));
    h2d(in_dev1, in1, sizeof(in1));
    h2d(in_dev2, in2, sizeof(in2));
    plan p;
    build_plan(&p, in_dev1, out_dev1);
    void *ws = dev_alloc(p.ws_size);
    NN_OK(aclSetAclOpExecutorRepeatable(p.e));
    NN_OK(aclSetAclOpExecutorRepeatable(p.e)); /* idempotent */
    NN_OK(cannonExecutorRun(ws, p.ws_size, p.e, g_stream, "aclnnToy"));
    check_out(out_dev1, in1);
    NN_OK(cannonExecutorRun(ws, p.ws_size, p.e, g_stream, "aclnnToy"));
    check_out(out_dev1, in1);

    /* re-point input 0 and output 0 */
    NN_OK(aclSetInputTensorAddr(p.e, 0, p.in, in_dev2));
    NN_OK(aclSetOutputTensorAddr(p.e, 0, p.out, out_dev2));
    void *addr = NULL;
    NN_OK(aclGetRawTensorAddr(p.in, &addr));
    assert_ptr_equal(addr, in_dev2);
    NN_OK(cannonExecutorRun(ws, p.ws_size, p.e, g_stream, "aclnnToy"));
    check_out(out_dev2, in2);

    /* aclSetTensorAddr counts inputs, then outputs */
    NN_OK(aclSetTensorAddr(p.e, 0, p.in, in_dev1));
    NN_OK(aclSetTensorAddr(p.e, 1, p.out, out_dev1));
    NN_OK(AclSetInputTensorAddr(p.e, 0, p.in, in_dev1));
    NN_OK(cannonExecutorRun(ws, p.ws_size, p.e, g_stream, "aclnnToy"));
    check_out(out_dev1, in1);

    /* errors */
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclSetInputTensorAddr(p.e, 1, p.in, in_dev1));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclSetOutputTensorAddr(p.e, 1, p.out, out_dev1));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclSetTensorAddr(p.e, 2, p.out, out_dev1));
    NN_EXPECT(ACLNN_ERR_INNER_NULLPTR, aclSetInputTensorAddr(p.e, 0, NULL, in_dev1));
    NN_EXPECT(ACLNN_ERR_INNER_NULLPTR, aclSetInputTensorAddr(NULL, 0, p.in, in_dev1));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, cannonExecutorRun(ws, 1, p.e, g_stream, "aclnnToy"));

    NN_OK(aclDestroyAclOpExecutor(p.e));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, cannonExecutorRun(ws, p.ws_size, p.e, g_stream, "aclnnToy"));
    NN_EXPECT(ACLNN_ERR_INNER, aclSetInputTensorAddr(p.e, 0, p.in, in_dev1));
    NN_OK(aclDestroyTensor(p.in));
    NN_OK(aclDestroyTensor(p.out));
    aclrtFree(ws);
    aclrtFree(in_dev1);
    aclrtFree(in_dev2);
    aclrtFree(out_dev1);
    aclrtFree(out_dev2);
}

/* Re-pointing list elements: each element is a separate input of the executor. */
static void test_executor_dynamic_addr(void **state)
{
    (void)state;
    aclTensor *a = small_tensor(2), *b = small_tensor(2), *o = small_tensor(2);
    const aclTensor *items[] = {a, b};
    aclTensorList *l = aclCreateTensorList(items, 2);
    aclTensorList *ol = aclCreateTensorList((const aclTensor *const[]){o}, 1);
    aclOpExecutor *e = cannonExecutorCreate("Dyn");
    assert_int_equal(cannonExecutorAddInput(e, a), 0);
    assert_int_equal(cannonExecutorAddInput(e, b), 1);
    assert_int_equal(cannonExecutorAddOutput(e, o), 2);
    void *addr = NULL;
    NN_OK(aclSetDynamicInputTensorAddr(e, 0, 1, l, (void *)(uintptr_t)0x5000));
    NN_OK(aclGetRawTensorAddr(b, &addr));
    assert_ptr_equal(addr, (void *)(uintptr_t)0x5000);
    NN_OK(aclSetDynamicOutputTensorAddr(e, 0, 0, ol, (void *)(uintptr_t)0x6000));
    NN_OK(aclSetDynamicTensorAddr(e, 0, 0, l, (void *)(uintptr_t)0x7000));
    NN_OK(AclSetDynamicTensorAddr(e, 0, 0, ol, (void *)(uintptr_t)0x7000));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclSetDynamicInputTensorAddr(e, 0, 2, l, NULL));
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, aclSetDynamicOutputTensorAddr(e, 0, 0, l, NULL)); /* a is not an output */
    NN_EXPECT(ACLNN_ERR_INNER_NULLPTR, aclSetDynamicInputTensorAddr(e, 0, 0, NULL, NULL));
    NN_OK(aclDestroyAclOpExecutor(e));
    NN_OK(aclDestroyTensorList(l));
    NN_OK(aclDestroyTensorList(ol));
}

static void test_executor_record_errors(void **state)
{
    (void)state;
    aclTensor *t = small_tensor(4);
    aclOpExecutor *e = cannonExecutorCreate("Bad");
    int s = cannonExecutorAddInput(e, t);
    assert_int_equal(s, 0);
    assert_int_equal(cannonExecutorAddInput(e, NULL), 1); /* an absent optional input keeps its index */
    int64_t junk[8];
    assert_int_equal(cannonExecutorAddInput(e, (const aclTensor *)(void *)junk), -1);
    assert_non_null(aclGetRecentErrMsg());
    assert_int_equal(cannonExecutorAddInput(NULL, t), -1);
    char blob[16] = {0};
    cannon_arg_ref out_of_blob = {12, s, 0};
    NN_EXPECT(ACLNN_ERR_INNER, cannonExecutorAddKernel(e, "k", k_scale, 1, blob, sizeof(blob), &out_of_blob, 1));
    cannon_arg_ref bad_slot = {0, 7, 0};
    NN_EXPECT(ACLNN_ERR_INNER, cannonExecutorAddKernel(e, "k", k_scale, 1, blob, sizeof(blob), &bad_slot, 1));
    NN_EXPECT(ACLNN_ERR_INNER, cannonExecutorAddKernel(e, "k", NULL, 1, blob, sizeof(blob), NULL, 0));
    NN_EXPECT(ACLNN_ERR_INNER, cannonExecutorAddKernel(e, "k", k_scale, 0, blob, sizeof(blob), NULL, 0));
    NN_EXPECT(ACLNN_ERR_INNER_NULLPTR, cannonExecutorAddKernel(NULL, "k", k_scale, 1, NULL, 0, NULL, 0));
    /* gather / scatter misuse */
    NN_EXPECT(ACLNN_ERR_INNER, cannonExecutorAddGather(e, s, 0)); /* no workspace reserved */
    NN_EXPECT(ACLNN_ERR_INNER, cannonExecutorAddGather(e, 1, 0)); /* absent tensor */
    NN_EXPECT(ACLNN_ERR_INNER, cannonExecutorAddScatter(e, 9, 0));
    cannonExecutorDiscard(e);
    cannonExecutorDiscard(e); /* a no-op on a dead executor */
    cannonExecutorDiscard(NULL);

    /* scatter into an overlapping (broadcast) view is refused; empty views record nothing */
    aclTensor *bc = aclCreateTensor((const int64_t[]){3, 4}, 2, ACL_FLOAT, (const int64_t[]){0, 1}, 0, ACL_FORMAT_ND,
                                    NULL, 0, NULL);
    aclTensor *empty = aclCreateTensor((const int64_t[]){3, 0}, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, NULL, 0, NULL);
    e = cannonExecutorCreate("Bad2");
    int sb = cannonExecutorAddOutput(e, bc);
    int se = cannonExecutorAddOutput(e, empty);
    uint64_t off = cannonExecutorReserveWorkspace(e, 12 * sizeof(float));
    NN_OK(cannonExecutorAddGather(e, sb, off)); /* reading a broadcast view is fine */
    NN_EXPECT(ACLNN_ERR_PARAM_INVALID, cannonExecutorAddScatter(e, sb, off));
    NN_OK(cannonExecutorAddScatter(e, se, off));
    NN_OK(aclDestroyAclOpExecutor(e));
    NN_OK(aclDestroyTensor(bc));
    NN_OK(aclDestroyTensor(empty));
    NN_OK(aclDestroyTensor(t));
}

/* ---- gather / scatter -------------------------------------------------------------------------- */

/* A deterministic byte pattern for element @p i of an element size @p es. */
static void fill_elem(unsigned char *p, size_t es, int64_t i)
{
    for (size_t b = 0; b < es; b++)
        p[b] = (unsigned char)((i * 131 + (int64_t)b * 7 + 1) & 0xff);
}

/* Host reference: the storage element index of view element @p k (row-major). */
static int64_t view_index(int64_t k, int64_t nd, const int64_t *shape, const int64_t *strides, int64_t offset)
{
    int64_t off = offset;
    for (int64_t d = nd - 1; d >= 0; d--) {
        off += (k % shape[d]) * strides[d];
        k /= shape[d];
    }
    return off;
}

/*
 * Gather view (shape, in_strides, in_off) of a storage of @p storage_n elements into the
 * workspace, then scatter it into view (shape, out_strides, out_off) of a zeroed storage; check
 * the workspace (contiguous, row-major) and the output storage byte for byte.
 */
static void gather_scatter_case(aclDataType dt, size_t es, int64_t nd, const int64_t *shape, const int64_t *in_strides,
                                int64_t in_off, const int64_t *out_strides, int64_t out_off, int64_t storage_n)
{
    size_t sbytes = (size_t)storage_n * es;
    unsigned char *host_in = malloc(sbytes), *host_out = calloc(1, sbytes), *want_out = calloc(1, sbytes);
    for (int64_t i = 0; i < storage_n; i++)
        fill_elem(host_in + i * (int64_t)es, es, i);
    void *in_dev = dev_alloc(sbytes), *out_dev = dev_alloc(sbytes);
    h2d(in_dev, host_in, sbytes);
    h2d(out_dev, host_out, sbytes);

    aclTensor *tin = aclCreateTensor(shape, (uint64_t)nd, dt, in_strides, in_off, ACL_FORMAT_ND, &storage_n, 1, in_dev);
    aclTensor *tout =
        aclCreateTensor(shape, (uint64_t)nd, dt, out_strides, out_off, ACL_FORMAT_ND, &storage_n, 1, out_dev);
    assert_non_null(tin);
    assert_non_null(tout);
    int64_t numel = cannonTensorNumel(tin);
    aclOpExecutor *e = cannonExecutorCreate("GatherScatter");
    int si = cannonExecutorAddInput(e, tin), so = cannonExecutorAddOutput(e, tout);
    (void)cannonExecutorReserveWorkspace(e, 3); /* so the buffer is at a non-zero offset */
    uint64_t off = cannonExecutorReserveWorkspace(e, (uint64_t)numel * es);
    NN_OK(cannonExecutorAddGather(e, si, off));
    NN_OK(cannonExecutorAddScatter(e, so, off));
    uint64_t wsz = cannonExecutorWorkspaceSize(e);
    void *ws = dev_alloc(wsz);
    NN_OK(cannonExecutorRun(ws, wsz, e, g_stream, "gather_scatter"));
    assert_int_equal(aclrtSynchronizeStream(g_stream), ACL_SUCCESS);

    unsigned char *host_ws = malloc(wsz);
    d2h(host_ws, ws, wsz);
    d2h(host_out, out_dev, sbytes);
    for (int64_t k = 0; k < numel; k++) {
        int64_t src = view_index(k, nd, shape, in_strides, in_off);
        int64_t dst = view_index(k, nd, shape, out_strides, out_off);
        assert_memory_equal(host_ws + off + (uint64_t)k * es, host_in + src * (int64_t)es, es);
        memcpy(want_out + dst * (int64_t)es, host_in + src * (int64_t)es, es);
    }
    assert_memory_equal(host_out, want_out, sbytes);

    NN_OK(aclDestroyTensor(tin));
    NN_OK(aclDestroyTensor(tout));
    aclrtFree(ws);
    aclrtFree(in_dev);
    aclrtFree(out_dev);
    free(host_in);
    free(host_out);
    free(want_out);
    free(host_ws);
}

static const struct {
    aclDataType dt;
    size_t es;
} k_types[] = {{ACL_INT8, 1}, {ACL_FLOAT16, 2}, {ACL_FLOAT, 4}, {ACL_INT64, 8}, {ACL_COMPLEX128, 16}};

static void test_gather_scatter_transposed(void **state)
{
    (void)state;
    for (size_t t = 0; t < sizeof(k_types) / sizeof(k_types[0]); t++) {
        /* a 7x9 storage read transposed (9x7, strides (1,9)), written back transposed */
        gather_scatter_case(k_types[t].dt, k_types[t].es, 2, (const int64_t[]){9, 7}, (const int64_t[]){1, 9}, 0,
                            (const int64_t[]){1, 9}, 0, 63);
        /* transposed in, contiguous out */
        gather_scatter_case(k_types[t].dt, k_types[t].es, 2, (const int64_t[]){9, 7}, (const int64_t[]){1, 9}, 0,
                            (const int64_t[]){7, 1}, 0, 63);
    }
}

static void test_gather_scatter_offset_views(void **state)
{
    (void)state;
    for (size_t t = 0; t < sizeof(k_types) / sizeof(k_types[0]); t++) {
        aclDataType dt = k_types[t].dt;
        size_t es = k_types[t].es;
        /* CANN's doc example: (6,5) at offset 22 of 10x10, rows contiguous (memcpy fast path) */
        gather_scatter_case(dt, es, 2, (const int64_t[]){6, 5}, (const int64_t[]){10, 1}, 22, (const int64_t[]){10, 1},
                            41, 100);
        /* permuted 3-d view with an offset, and a size-1 dim */
        gather_scatter_case(dt, es, 4, (const int64_t[]){3, 1, 4, 5}, (const int64_t[]){5, 1000, 15, 1}, 2,
                            (const int64_t[]){1, 7, 3, 12}, 1, 80);
        /* every other element (strided last dim), and a 0-d tensor */
        gather_scatter_case(dt, es, 2, (const int64_t[]){4, 6}, (const int64_t[]){24, 2}, 1, (const int64_t[]){6, 1},
                            5, 100);
        gather_scatter_case(dt, es, 0, NULL, NULL, 17, NULL, 3, 20);
    }
}

/* Large enough for many blocks: 640x700 int32 transposed (1.7 MiB) and a row-sliced int16 view. */
static void test_gather_scatter_multiblock(void **state)
{
    (void)state;
    gather_scatter_case(ACL_INT32, 4, 2, (const int64_t[]){700, 640}, (const int64_t[]){1, 700}, 0,
                        (const int64_t[]){640, 1}, 0, 700 * 640);
    gather_scatter_case(ACL_INT16, 2, 3, (const int64_t[]){50, 300, 20}, (const int64_t[]){6600, 22, 1}, 1,
                        (const int64_t[]){6000, 20, 1}, 0, 50 * 6600);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tensor_create_and_getters),
        cmocka_unit_test(test_tensor_ranks),
        cmocka_unit_test(test_tensor_errors),
        cmocka_unit_test(test_tensor_getter_errors),
        cmocka_unit_test(test_tensor_init),
        cmocka_unit_test(test_tensor_destroyed_by_another_thread),
        cmocka_unit_test(test_view_helpers),
        cmocka_unit_test(test_scalars),
        cmocka_unit_test(test_arrays),
        cmocka_unit_test(test_lists),
        cmocka_unit_test(test_aclnn_init),
        cmocka_unit_test(test_executor_run),
        cmocka_unit_test(test_executor_workspace_checks),
        cmocka_unit_test(test_executor_repeatable),
        cmocka_unit_test(test_executor_dynamic_addr),
        cmocka_unit_test(test_executor_record_errors),
        cmocka_unit_test(test_gather_scatter_transposed),
        cmocka_unit_test(test_gather_scatter_offset_views),
        cmocka_unit_test(test_gather_scatter_multiblock),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
