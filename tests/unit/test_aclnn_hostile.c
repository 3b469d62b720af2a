/*
 * Hostile tensor descriptors against the operators' phase 1: views whose byte size, offset or
 * strides lie beyond CANNON_TENSOR_MAX_BYTES are rejected with ACLNN_ERR_PARAM_INVALID and a
 * message, never planned (no division by a wrapped byte count, no undersized workspace, no
 * address arithmetic past the storage). Also: operators on empty views accept NULL storage.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_batch_matmul.h"
#include "aclnnop/aclnn_embedding.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mm.h"
#include "aclnnop/aclnn_reduce_sum.h"
#include "aclnnop/aclnn_softmax.h"
#include "cannon/opdev.h"

static aclrtStream g_stream;
static void *g_dev; /* 1 MiB of device memory the hostile views point into */

static int group_setup(void **state)
{
    (void)state;
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&g_stream) != ACL_SUCCESS)
        return -1;
    return aclrtMalloc(&g_dev, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    aclrtFree(g_dev);
    aclrtDestroyStream(g_stream);
    aclrtResetDevice(0);
    return aclFinalize() == ACL_SUCCESS ? 0 : -1;
}

static aclTensor *tensor(int64_t ndim, const int64_t *dims, const int64_t *strides, int64_t offset, aclDataType dt,
                         void *data)
{
    aclTensor *t = aclCreateTensor(dims, (uint64_t)ndim, dt, strides, offset, ACL_FORMAT_ND, NULL, 0, data);
    assert_non_null(t);
    return t;
}

/* Phase 1 must fail with 161002, leave no executor, and say why. */
#define EXPECT_REJECTED(call)                                                                      \
    do {                                                                                           \
        uint64_t ws_ = 12345;                                                                      \
        aclOpExecutor *e_ = NULL;                                                                  \
        (void)aclGetRecentErrMsg();                                                                \
        aclnnStatus rc_ = (call);                                                                  \
        assert_int_equal(rc_, ACLNN_ERR_PARAM_INVALID);                                            \
        assert_null(e_);                                                                           \
        const char *m_ = aclGetRecentErrMsg();                                                     \
        assert_non_null(m_);                                                                       \
        assert_non_null(strstr(m_, "limit of a tensor"));                                         \
    } while (0)

static const int64_t P62 = (int64_t)1 << 62, P61 = (int64_t)1 << 61;

/* Softmax on [2^62] fp32/fp16 and [2^61] double, contiguous and stride 0: the byte count of the
 * view wraps in 64 bits (it was divided by in phase 1). */
static void test_softmax_huge_views(void **state)
{
    (void)state;
    const aclDataType dts[3] = {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE};
    for (int i = 0; i < 3; i++) {
        const int64_t n[1] = {dts[i] == ACL_DOUBLE ? P61 : P62}, zero[1] = {0};
        aclTensor *x = tensor(1, n, NULL, 0, dts[i], g_dev), *y = tensor(1, n, NULL, 0, dts[i], g_dev);
        aclTensor *x0 = tensor(1, n, zero, 0, dts[i], g_dev);
        EXPECT_REJECTED(aclnnSoftmaxGetWorkspaceSize(x, 0, y, &ws_, &e_));
        EXPECT_REJECTED(aclnnSoftmaxGetWorkspaceSize(x0, 0, y, &ws_, &e_));
        aclDestroyTensor(x);
        aclDestroyTensor(y);
        aclDestroyTensor(x0);
    }
}

/* ReduceSum of an int64 stride-0 view of 2^61+16 (and 2^61) elements: the gather's workspace
 * size wrapped to 128 (0) bytes and phase 2 wrote past it. */
static void test_reduce_sum_stride0_huge(void **state)
{
    (void)state;
    const int64_t sizes[2] = {P61 + 16, P61}, zero[1] = {0}, dim0[1] = {0};
    aclTensor *out = tensor(0, NULL, NULL, 0, ACL_INT64, g_dev);
    aclIntArray *dims = aclCreateIntArray(dim0, 1);
    for (int i = 0; i < 2; i++) {
        aclTensor *x = tensor(1, &sizes[i], zero, 0, ACL_INT64, g_dev);
        EXPECT_REJECTED(aclnnReduceSumGetWorkspaceSize(x, dims, false, ACL_INT64, out, &ws_, &e_));
        aclDestroyTensor(x);
    }
    aclDestroyIntArray(dims);
    aclDestroyTensor(out);
}

static void test_layer_norm_stride0_huge(void **state)
{
    (void)state;
    const int64_t n[1] = {P62}, zero[1] = {0};
    aclTensor *x = tensor(1, n, zero, 0, ACL_FLOAT, g_dev), *y = tensor(1, n, NULL, 0, ACL_FLOAT, g_dev);
    aclIntArray *ns = aclCreateIntArray(n, 1);
    EXPECT_REJECTED(aclnnLayerNormGetWorkspaceSize(x, ns, NULL, NULL, 1e-5, y, NULL, NULL, &ws_, &e_));
    aclDestroyIntArray(ns);
    aclDestroyTensor(x);
    aclDestroyTensor(y);
}

/* Offsets and strides that aclCreateTensor accepts but no storage can hold: a huge offset, a
 * huge stride on a size-1 dim and on an empty dim, and empty views whose other dims multiply past
 * int64. Each operator family's phase 1 rejects them before forming byte offsets. */
static void test_huge_offsets_and_strides(void **state)
{
    (void)state;
    const int64_t d14[2] = {1, 4}, d04[2] = {0, 4}, sbig[2] = {INT64_MAX, 1}, d1[1] = {1};
    const int64_t dbig_empty[3] = {0, P61, P61}, s111[3] = {1, 1, 1};
    float one = 1.0f;
    aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
    aclTensor *ok = tensor(2, d14, NULL, 0, ACL_FLOAT, g_dev), *out = tensor(2, d14, NULL, 0, ACL_FLOAT, g_dev);
    aclTensor *hostile[4] = {
        tensor(2, d14, sbig, 0, ACL_FLOAT, g_dev),          /* huge stride on a size-1 dim */
        tensor(2, d14, NULL, INT64_MAX - 10, ACL_FLOAT, g_dev), /* huge offset */
        tensor(2, d04, sbig, 0, ACL_FLOAT, g_dev),          /* huge stride on an empty view */
        tensor(3, dbig_empty, s111, 0, ACL_FLOAT, g_dev),   /* empty, dims multiply past int64 */
    };
    const int64_t dim1[1] = {1};
    aclIntArray *dims = aclCreateIntArray(dim1, 1);
    aclTensor *o1 = tensor(1, d1, NULL, 0, ACL_FLOAT, g_dev);
    for (int i = 0; i < 4; i++) {
        aclTensor *h = hostile[i];
        EXPECT_REJECTED(aclnnAddGetWorkspaceSize(h, ok, alpha, out, &ws_, &e_));
        EXPECT_REJECTED(aclnnAddGetWorkspaceSize(ok, ok, alpha, h, &ws_, &e_));
        EXPECT_REJECTED(aclnnSoftmaxGetWorkspaceSize(h, 1, h, &ws_, &e_));
        EXPECT_REJECTED(aclnnReduceSumGetWorkspaceSize(h, dims, false, ACL_FLOAT, o1, &ws_, &e_));
    }
    const int64_t wd[2] = {4, 4}, id[1] = {1}, od[2] = {1, 4};
    aclTensor *w = tensor(2, wd, NULL, 0, ACL_FLOAT, g_dev), *oe = tensor(2, od, NULL, 0, ACL_FLOAT, g_dev);
    aclTensor *idx = tensor(1, id, NULL, INT64_MAX - 1, ACL_INT64, g_dev);
    EXPECT_REJECTED(aclnnEmbeddingGetWorkspaceSize(w, idx, oe, &ws_, &e_));
    for (int i = 0; i < 4; i++)
        aclDestroyTensor(hostile[i]);
    aclDestroyTensor(w);
    aclDestroyTensor(oe);
    aclDestroyTensor(idx);
    aclDestroyTensor(o1);
    aclDestroyTensor(ok);
    aclDestroyTensor(out);
    aclDestroyIntArray(dims);
    aclDestroyScalar(alpha);
}

/* Empty views whose strides and dims multiply past int64 (legal: an empty view addresses
 * nothing): elementwise planning coalesces dims by comparing stride products, which must not
 * overflow (found by fuzz_ops; the ASan+UBSan build aborts on the overflow). */
static void test_empty_views_with_huge_stride_products(void **state)
{
    (void)state;
    const int64_t dims[3] = {0, 4, (int64_t)1 << 30}, strides[3] = {1, 1, (int64_t)1 << 40};
    aclTensor *x = tensor(3, dims, strides, 0, ACL_FLOAT, g_dev), *out = tensor(3, dims, NULL, 0, ACL_FLOAT, g_dev);
    float one = 1.0f;
    aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
    uint64_t ws = 0;
    aclOpExecutor *e = NULL;
    assert_int_equal(aclnnAddGetWorkspaceSize(x, x, alpha, out, &ws, &e), ACLNN_SUCCESS);
    assert_int_equal(aclnnAdd(NULL, 0, e, g_stream), ACLNN_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(g_stream), ACL_SUCCESS);
    aclDestroyScalar(alpha);
    aclDestroyTensor(x);
    aclDestroyTensor(out);
}

/* The limit itself: a view of exactly CANNON_TENSOR_MAX_BYTES is planned (phase 1 only; it is
 * never run), one element more is not. */
static void test_limit_boundary(void **state)
{
    (void)state;
    const int64_t zero[1] = {0};
    const int64_t at[1] = {CANNON_TENSOR_MAX_BYTES / 4}, past[1] = {CANNON_TENSOR_MAX_BYTES / 4 + 1};
    aclTensor *x = tensor(1, at, zero, 0, ACL_FLOAT, g_dev), *y = tensor(1, at, NULL, 0, ACL_FLOAT, g_dev);
    uint64_t ws = 0;
    aclOpExecutor *e = NULL;
    assert_int_equal(aclnnSoftmaxGetWorkspaceSize(x, 0, y, &ws, &e), ACLNN_SUCCESS);
    assert_non_null(e);
    assert_int_equal(aclDestroyAclOpExecutor(e), ACLNN_SUCCESS);
    aclTensor *xp = tensor(1, past, zero, 0, ACL_FLOAT, g_dev);
    EXPECT_REJECTED(aclnnSoftmaxGetWorkspaceSize(xp, 0, y, &ws_, &e_));
    aclDestroyTensor(x);
    aclDestroyTensor(xp);
    aclDestroyTensor(y);
}

/* [4,0] @ [0,5] with NULL storage for the empty inputs: a zero-filled [4,5], as torch returns,
 * through aclnnMatmul, aclnnMm and aclnnBatchMatMul, in fp32, bf16 and fp16 (each dtype takes
 * its own path: OpenBLAS, the packed bf16 kernel, fp32 via conversion). Kernels see an address
 * they may do arithmetic on, never NULL (UBSan checks it in the sanitizer build). */
static void test_matmul_empty_k_null_storage(void **state)
{
    (void)state;
    const int64_t da[2] = {4, 0}, db[2] = {0, 5}, dout[2] = {4, 5};
    const int64_t ba[3] = {2, 4, 0}, bb[3] = {2, 0, 5}, bout[3] = {2, 4, 5};
    const aclDataType dts[3] = {ACL_FLOAT, ACL_BF16, ACL_FLOAT16};
    for (int d = 0; d < 3; d++) {
        const size_t es = dts[d] == ACL_FLOAT ? 4 : 2;
        for (int which = 0; which < 3; which++) {
            unsigned char junk[160];
            memset(junk, 0x5a, sizeof junk);
            assert_int_equal(aclrtMemcpy(g_dev, sizeof junk, junk, sizeof junk, ACL_MEMCPY_HOST_TO_DEVICE),
                             ACL_SUCCESS);
            const bool batched = which == 2;
            aclTensor *a = tensor(batched ? 3 : 2, batched ? ba : da, NULL, 0, dts[d], NULL);
            aclTensor *b = tensor(batched ? 3 : 2, batched ? bb : db, NULL, 0, dts[d], NULL);
            aclTensor *o = tensor(batched ? 3 : 2, batched ? bout : dout, NULL, 0, dts[d], g_dev);
            uint64_t ws = 0;
            aclOpExecutor *e = NULL;
            aclnnStatus rc = which == 0   ? aclnnMatmulGetWorkspaceSize(a, b, o, 0, &ws, &e)
                             : which == 1 ? aclnnMmGetWorkspaceSize(a, b, o, 0, &ws, &e)
                                          : aclnnBatchMatMulGetWorkspaceSize(a, b, o, 0, &ws, &e);
            assert_int_equal(rc, ACLNN_SUCCESS);
            void *w = NULL;
            if (ws)
                assert_int_equal(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
            rc = which == 0 ? aclnnMatmul(w, ws, e, g_stream)
                 : which == 1 ? aclnnMm(w, ws, e, g_stream) : aclnnBatchMatMul(w, ws, e, g_stream);
            assert_int_equal(rc, ACLNN_SUCCESS);
            assert_int_equal(aclrtSynchronizeStream(g_stream), ACL_SUCCESS);
            unsigned char r[160];
            assert_int_equal(aclrtMemcpy(r, sizeof r, g_dev, sizeof r, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
            const size_t n = (batched ? 40 : 20) * es;
            for (size_t i = 0; i < n; i++)
                assert_int_equal(r[i], 0); /* +0.0 in every dtype */
            for (size_t i = n; i < sizeof r; i++)
                assert_int_equal(r[i], 0x5a); /* nothing written past the output */
            if (w)
                aclrtFree(w);
            aclDestroyTensor(a);
            aclDestroyTensor(b);
            aclDestroyTensor(o);
        }
    }
}

/* An empty view bounds its sizes and strides only one by one: [0, 2^40] with a 2^41-element
 * stride is valid, and the elementwise planner must not multiply them (2^43 bytes x 2^40 overflows)
 * while coalescing dims it will never walk. */
static void test_elementwise_empty_huge_strides(void **state)
{
    (void)state;
    const int64_t dims[2] = {0, (int64_t)1 << 40}, st[2] = {1, (int64_t)1 << 41};
    aclTensor *a = tensor(2, dims, st, 0, ACL_FLOAT, NULL);
    aclTensor *b = tensor(2, dims, st, 0, ACL_FLOAT, NULL);
    aclTensor *o = tensor(2, dims, st, 0, ACL_FLOAT, NULL);
    const float one = 1.0f;
    aclScalar *alpha = aclCreateScalar((void *)&one, ACL_FLOAT);
    assert_non_null(alpha);
    uint64_t ws = 1;
    aclOpExecutor *e = NULL;
    assert_int_equal(aclnnAddGetWorkspaceSize(a, b, alpha, o, &ws, &e), ACLNN_SUCCESS);
    assert_int_equal(ws, 0);
    assert_int_equal(aclnnAdd(NULL, 0, e, g_stream), ACLNN_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(g_stream), ACL_SUCCESS);
    aclDestroyScalar(alpha);
    aclDestroyTensor(a);
    aclDestroyTensor(b);
    aclDestroyTensor(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_softmax_huge_views),
        cmocka_unit_test(test_reduce_sum_stride0_huge),
        cmocka_unit_test(test_layer_norm_stride0_huge),
        cmocka_unit_test(test_huge_offsets_and_strides),
        cmocka_unit_test(test_empty_views_with_huge_stride_products),
        cmocka_unit_test(test_limit_boundary),
        cmocka_unit_test(test_matmul_empty_k_null_storage),
        cmocka_unit_test(test_elementwise_empty_huge_strides),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
