/*
 * Argument checking of the norm operators (BatchNorm family, LayerNorm, RmsNorm): every bad input
 * gets CANN's code (161001 NULL, 161002 invalid) with a message, and a run-time refusal (counts
 * summing to zero) fails the stream and leaves the outputs untouched. The numerics are covered by
 * tests/python/test_norm.py.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_batch_norm.h"
#include "aclnnop/aclnn_batch_norm_backward.h"
#include "aclnnop/aclnn_batch_norm_backward_reduce.h"
#include "aclnnop/aclnn_batch_norm_elemt.h"
#include "aclnnop/aclnn_batch_norm_elemt_backward.h"
#include "aclnnop/aclnn_batch_norm_gather_stats_with_counts.h"
#include "aclnnop/aclnn_batch_norm_stats.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_rms_norm_grad.h"

#define EXPECT(code, expr)                                                                         \
    do {                                                                                           \
        aclnnStatus rc_ = (expr);                                                                  \
        if (rc_ != (aclnnStatus)(code))                                                            \
            print_error("%s returned %d, expected %d: %s\n", #expr, (int)rc_, (int)(code),        \
                        aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "");                          \
        assert_int_equal(rc_, (code));                                                             \
        if ((code) != ACLNN_SUCCESS)                                                               \
            assert_non_null(aclGetRecentErrMsg());                                                 \
    } while (0)

static aclrtStream g_stream;
#define MAXT 64
static aclTensor *g_t[MAXT];
static void *g_mem[MAXT];
static int g_n;

static aclTensor *mk(const int64_t *shape, uint64_t nd, aclDataType dt, aclFormat fmt, float fill)
{
    int64_t numel = 1;
    for (uint64_t i = 0; i < nd; i++)
        numel *= shape[i];
    const size_t es = dt == ACL_FLOAT || dt == ACL_INT32 ? 4 : 2;
    void *p = NULL;
    assert_int_equal(aclrtMalloc(&p, (size_t)(numel ? numel : 1) * es, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    if (dt == ACL_FLOAT)
        for (int64_t i = 0; i < numel; i++)
            ((float *)p)[i] = fill;
    int64_t storage = numel;
    aclTensor *t = aclCreateTensor(shape, nd, dt, NULL, 0, fmt, &storage, 1, p);
    assert_non_null(t);
    assert_true(g_n < MAXT);
    g_t[g_n] = t;
    g_mem[g_n++] = p;
    return t;
}

static aclTensor *vec(int64_t n, float fill)
{
    return mk(&n, 1, ACL_FLOAT, ACL_FORMAT_ND, fill);
}

static void free_all(void)
{
    for (int i = 0; i < g_n; i++) {
        aclDestroyTensor(g_t[i]);
        aclrtFree(g_mem[i]);
    }
    g_n = 0;
}

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

static const int64_t XS[4] = {2, 3, 4, 4};

static void test_batch_norm_args(void **state)
{
    (void)state;
    uint64_t ws = 0;
    aclOpExecutor *e = NULL;
    aclTensor *x = mk(XS, 4, ACL_FLOAT, ACL_FORMAT_NCHW, 1.0f), *y = mk(XS, 4, ACL_FLOAT, ACL_FORMAT_NCHW, 0.0f);
    aclTensor *c3 = vec(3, 1.0f), *c3b = vec(3, 0.0f), *sm = vec(3, 0.0f), *si = vec(3, 0.0f), *c4 = vec(4, 1.0f);
    EXPECT(ACLNN_ERR_PARAM_NULLPTR, aclnnBatchNormGetWorkspaceSize(NULL, c3, c3b, NULL, NULL, true, 0.1, 1e-5, y, sm, si, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_NULLPTR, aclnnBatchNormGetWorkspaceSize(x, c3, c3b, NULL, NULL, true, 0.1, 1e-5, y, NULL, si, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_NULLPTR, aclnnBatchNormGetWorkspaceSize(x, c3, c3b, NULL, NULL, true, 0.1, 1e-5, y, sm, si, NULL, &e));
    /* channel-count mismatches: weight, bias, running stats, save tensors */
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnBatchNormGetWorkspaceSize(x, c4, c3b, NULL, NULL, true, 0.1, 1e-5, y, sm, si, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnBatchNormGetWorkspaceSize(x, c3, c4, NULL, NULL, true, 0.1, 1e-5, y, sm, si, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnBatchNormGetWorkspaceSize(x, c3, c3b, c4, NULL, true, 0.1, 1e-5, y, sm, si, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnBatchNormGetWorkspaceSize(x, c3, c3b, NULL, c4, true, 0.1, 1e-5, y, sm, si, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnBatchNormGetWorkspaceSize(x, c3, c3b, NULL, NULL, true, 0.1, 1e-5, y, c4, si, &ws, &e));
    /* eps < 0, NaN eps, non-finite momentum */
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnBatchNormGetWorkspaceSize(x, c3, c3b, NULL, NULL, true, 0.1, -1e-5, y, sm, si, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnBatchNormGetWorkspaceSize(x, c3, c3b, NULL, NULL, true, 0.1, NAN, y, sm, si, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnBatchNormGetWorkspaceSize(x, c3, c3b, NULL, NULL, true, INFINITY, 1e-5, y, sm, si, &ws, &e));
    /* wrong ranks / layouts */
    const int64_t s3[3] = {2, 3, 16}, s1[1] = {3}, s9[9] = {1, 3, 1, 1, 1, 1, 1, 1, 2};
    aclTensor *x3 = mk(s3, 3, ACL_FLOAT, ACL_FORMAT_NCHW, 1.0f), *x1 = mk(s1, 1, ACL_FLOAT, ACL_FORMAT_ND, 1.0f);
    aclTensor *x9 = mk(s9, 9, ACL_FLOAT, ACL_FORMAT_ND, 1.0f);
    aclTensor *ynhwc = mk(XS, 4, ACL_FLOAT, ACL_FORMAT_NHWC, 0.0f), *y16 = mk(XS, 4, ACL_FLOAT16, ACL_FORMAT_NCHW, 0.0f);
    aclTensor *xz = mk(XS, 4, ACL_FLOAT, ACL_FORMAT_FRACTAL_Z, 1.0f);
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnBatchNormGetWorkspaceSize(x3, c3, c3b, NULL, NULL, true, 0.1, 1e-5, y, sm, si, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnBatchNormGetWorkspaceSize(x1, NULL, NULL, NULL, NULL, true, 0.1, 1e-5, x1, sm, si, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnBatchNormGetWorkspaceSize(x9, NULL, NULL, NULL, NULL, true, 0.1, 1e-5, x9, sm, si, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnBatchNormGetWorkspaceSize(x, c3, c3b, NULL, NULL, true, 0.1, 1e-5, ynhwc, sm, si, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnBatchNormGetWorkspaceSize(x, c3, c3b, NULL, NULL, true, 0.1, 1e-5, y16, sm, si, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnBatchNormGetWorkspaceSize(xz, c3, c3b, NULL, NULL, true, 0.1, 1e-5, xz, sm, si, &ws, &e));
    /* empty batch in training */
    const int64_t s0[4] = {0, 3, 4, 4};
    aclTensor *x0 = mk(s0, 4, ACL_FLOAT, ACL_FORMAT_NCHW, 0.0f);
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnBatchNormGetWorkspaceSize(x0, c3, c3b, NULL, NULL, true, 0.1, 1e-5, x0, sm, si, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnBatchNormStatsGetWorkspaceSize(x0, 1e-5, sm, si, &ws, &e));
    /* a good call runs */
    EXPECT(ACLNN_SUCCESS, aclnnBatchNormGetWorkspaceSize(x, c3, c3b, NULL, NULL, true, 0.1, 1e-5, y, sm, si, &ws, &e));
    void *w = NULL;
    if (ws)
        assert_int_equal(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(ACLNN_SUCCESS, aclnnBatchNorm(w, ws, e, g_stream));
    assert_int_equal(aclrtSynchronizeStream(g_stream), ACL_SUCCESS);
    if (w)
        aclrtFree(w);
    /* backward: mask size, masked-in output missing */
    bool m3[3] = {true, true, true}, m2[2] = {true, true};
    aclBoolArray *mask = aclCreateBoolArray(m3, 3), *mask2 = aclCreateBoolArray(m2, 2);
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnBatchNormBackwardGetWorkspaceSize(y, x, c3, NULL, NULL, sm, si, true, 1e-5, mask2, y, c3b, c3b, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_NULLPTR, aclnnBatchNormBackwardGetWorkspaceSize(y, x, c3, NULL, NULL, sm, si, true, 1e-5, mask, NULL, c3b, c3b, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnBatchNormBackwardGetWorkspaceSize(y, x, c4, NULL, NULL, sm, si, true, 1e-5, mask, y, c3b, c3b, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnBatchNormBackwardGetWorkspaceSize(x3, x, c3, NULL, NULL, sm, si, true, 1e-5, mask, y, c3b, c3b, &ws, &e));
    aclDestroyBoolArray(mask);
    aclDestroyBoolArray(mask2);
    /* sync pieces */
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnBatchNormElemtGetWorkspaceSize(x, c3, c3b, c4, si, 1e-5, y, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_NULLPTR, aclnnBatchNormElemtGetWorkspaceSize(x, c3, c3b, NULL, si, 1e-5, y, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_NULLPTR, aclnnBatchNormReduceBackwardGetWorkspaceSize(y, x, sm, si, c3, true, false, false, NULL, c3b, NULL, NULL, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnBatchNormReduceBackwardGetWorkspaceSize(y, x, sm, c4, c3, true, false, false, c3b, c3b, NULL, NULL, &ws, &e));
    const int64_t s00[1] = {0};
    aclTensor *cnt0 = mk(s00, 1, ACL_INT32, ACL_FORMAT_ND, 0.0f);
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnBatchNormElemtBackwardGetWorkspaceSize(y, x, sm, si, c3, c3b, c3b, cnt0, y, &ws, &e));
    free_all();
}

/* No channels at all ([2, 0, 4, 4]): every gradient is empty, nothing to plan (the planner's
 * reduction split divided by the channel count), in training and in eval. */
static void test_batch_norm_backward_no_channels(void **state)
{
    (void)state;
    const int64_t s[4] = {2, 0, 4, 4};
    aclTensor *x = mk(s, 4, ACL_FLOAT, ACL_FORMAT_NCHW, 0.0f), *g = mk(s, 4, ACL_FLOAT, ACL_FORMAT_NCHW, 0.0f);
    aclTensor *gi = mk(s, 4, ACL_FLOAT, ACL_FORMAT_NCHW, 0.0f);
    aclTensor *w = vec(0, 0.0f), *sm = vec(0, 0.0f), *si = vec(0, 0.0f), *gw = vec(0, 0.0f), *gb = vec(0, 0.0f);
    bool m3[3] = {true, true, true};
    aclBoolArray *mask = aclCreateBoolArray(m3, 3);
    for (int training = 0; training < 2; training++) {
        uint64_t ws = 1;
        aclOpExecutor *e = NULL;
        EXPECT(ACLNN_SUCCESS, aclnnBatchNormBackwardGetWorkspaceSize(g, x, w, sm, si, sm, si, training, 1e-5, mask,
                                                                     gi, gw, gb, &ws, &e));
        assert_int_equal(ws, 0);
        EXPECT(ACLNN_SUCCESS, aclnnBatchNormBackward(NULL, 0, e, g_stream));
        assert_int_equal(aclrtSynchronizeStream(g_stream), ACL_SUCCESS);
    }
    aclDestroyBoolArray(mask);
    free_all();
}

static void test_gather_counts(void **state)
{
    (void)state;
    uint64_t ws = 0;
    aclOpExecutor *e = NULL;
    aclTensor *x = mk(XS, 4, ACL_FLOAT, ACL_FORMAT_NCHW, 1.0f);
    const int64_t wc[2] = {2, 3}, w3[2] = {2, 4}, n2[1] = {2}, n3[1] = {3};
    aclTensor *mean = mk(wc, 2, ACL_FLOAT, ACL_FORMAT_ND, 0.0f), *inv = mk(wc, 2, ACL_FLOAT, ACL_FORMAT_ND, 1.0f);
    aclTensor *bad = mk(w3, 2, ACL_FLOAT, ACL_FORMAT_ND, 1.0f);
    aclTensor *cnt = mk(n2, 1, ACL_FLOAT, ACL_FORMAT_ND, 0.0f), *cnt3 = mk(n3, 1, ACL_FLOAT, ACL_FORMAT_ND, 1.0f);
    aclTensor *ma = vec(3, 7.0f), *ia = vec(3, 7.0f), *rm = vec(3, 7.0f);
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize(x, bad, inv, NULL, NULL, 0.1, 1e-5, cnt, ma, ia, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize(x, mean, inv, NULL, NULL, 0.1, 1e-5, cnt3, ma, ia, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize(x, mean, inv, NULL, NULL, 0.1, -1.0, cnt, ma, ia, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_NULLPTR, aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize(x, mean, inv, NULL, NULL, 0.1, 1e-5, NULL, ma, ia, &ws, &e));
    /* counts of zero: accepted by phase 1, refused by the kernel; nothing is written */
    EXPECT(ACLNN_SUCCESS, aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize(x, mean, inv, rm, NULL, 0.1, 1e-5, cnt, ma, ia, &ws, &e));
    void *w = NULL;
    if (ws)
        assert_int_equal(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(ACLNN_SUCCESS, aclnnBatchNormGatherStatsWithCounts(w, ws, e, g_stream));
    assert_int_equal(aclrtSynchronizeStream(g_stream), ACLNN_ERR_PARAM_INVALID);
    if (w)
        aclrtFree(w);
    for (int i = 0; i < 3; i++) {
        assert_true(((float *)g_mem[g_n - 3])[i] == 7.0f);
        assert_true(((float *)g_mem[g_n - 2])[i] == 7.0f);
        assert_true(((float *)g_mem[g_n - 1])[i] == 7.0f);
    }
    free_all();
}

static void test_layer_rms_args(void **state)
{
    (void)state;
    uint64_t ws = 0;
    aclOpExecutor *e = NULL;
    const int64_t xs[2] = {4, 8}, w8[1] = {8}, w7[1] = {7}, r4[2] = {4, 1};
    aclTensor *x = mk(xs, 2, ACL_FLOAT, ACL_FORMAT_ND, 1.0f), *y = mk(xs, 2, ACL_FLOAT, ACL_FORMAT_ND, 0.0f);
    aclTensor *w = mk(w8, 1, ACL_FLOAT, ACL_FORMAT_ND, 1.0f), *bw = mk(w7, 1, ACL_FLOAT, ACL_FORMAT_ND, 1.0f);
    aclTensor *rs = mk(r4, 2, ACL_FLOAT, ACL_FORMAT_ND, 0.0f), *rbad = mk(w7, 1, ACL_FLOAT, ACL_FORMAT_ND, 0.0f);
    const int64_t n8[1] = {8}, n7[1] = {7}, n3[3] = {1, 4, 8};
    aclIntArray *ns = aclCreateIntArray(n8, 1), *nsb = aclCreateIntArray(n7, 1), *ns3 = aclCreateIntArray(n3, 3);
    EXPECT(ACLNN_ERR_PARAM_NULLPTR, aclnnLayerNormGetWorkspaceSize(x, NULL, w, NULL, 1e-5, y, NULL, NULL, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnLayerNormGetWorkspaceSize(x, nsb, NULL, NULL, 1e-5, y, NULL, NULL, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnLayerNormGetWorkspaceSize(x, ns3, NULL, NULL, 1e-5, y, NULL, NULL, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnLayerNormGetWorkspaceSize(x, ns, bw, NULL, 1e-5, y, NULL, NULL, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnLayerNormGetWorkspaceSize(x, ns, w, NULL, -1.0, y, NULL, NULL, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnLayerNormGetWorkspaceSize(x, ns, w, NULL, 1e-5, y, rbad, NULL, &ws, &e));
    bool m3[3] = {true, true, true};
    aclBoolArray *mask = aclCreateBoolArray(m3, 3);
    EXPECT(ACLNN_ERR_PARAM_NULLPTR, aclnnLayerNormBackwardGetWorkspaceSize(y, x, ns, rs, rs, w, NULL, mask, y, NULL, w, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnLayerNormBackwardGetWorkspaceSize(y, x, ns, rbad, rs, w, NULL, mask, y, w, w, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_NULLPTR, aclnnRmsNormGetWorkspaceSize(x, NULL, 1e-6, y, rs, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnRmsNormGetWorkspaceSize(x, bw, 1e-6, y, rs, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnRmsNormGetWorkspaceSize(x, w, -1.0, y, rs, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnRmsNormGradGetWorkspaceSize(y, x, rbad, w, y, w, &ws, &e));
    EXPECT(ACLNN_ERR_PARAM_INVALID, aclnnRmsNormGradGetWorkspaceSize(y, x, rs, w, y, bw, &ws, &e));
    aclDestroyIntArray(ns);
    aclDestroyIntArray(nsb);
    aclDestroyIntArray(ns3);
    aclDestroyBoolArray(mask);
    free_all();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batch_norm_args),
        cmocka_unit_test(test_batch_norm_backward_no_channels),
        cmocka_unit_test(test_gather_counts),
        cmocka_unit_test(test_layer_rms_args),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
