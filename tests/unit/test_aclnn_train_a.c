/*
 * Unit tests of the embedding, NLL-loss and reduction operators through their C API: a small
 * case of each with exact expected values, a repeatable executor run twice, argument errors
 * (161001 / 161002 with a message), and out-of-range indices / targets reported at synchronize
 * (507015 with the index in the message) without writes past the output. The golden comparisons
 * over dtypes, strides and sizes are in tests/python/test_{embedding,nll_loss,reduce}.py.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/error_codes/rt_error_codes.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_embedding.h"
#include "aclnnop/aclnn_embedding_dense_backward.h"
#include "aclnnop/aclnn_mean.h"
#include "aclnnop/aclnn_nll_loss.h"
#include "aclnnop/aclnn_nll_loss_backward.h"
#include "aclnnop/aclnn_reduce_sum.h"

static aclrtStream g_stream;

static int group_setup(void **state)
{
    (void)state;
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&g_stream) != ACL_SUCCESS)
        return -1;
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    aclrtDestroyStream(g_stream);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}

/* A device buffer of @p bytes filled from @p host (or with byte @p fill when host is NULL). */
static void *dev(const void *host, size_t bytes, int fill)
{
    void *p = NULL;
    assert_int_equal(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    if (host)
        assert_int_equal(aclrtMemcpy(p, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    else
        assert_int_equal(aclrtMemset(p, bytes, fill, bytes), ACL_SUCCESS);
    return p;
}

static void get(void *host, const void *d, size_t bytes)
{
    assert_int_equal(aclrtMemcpy(host, bytes, d, bytes, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
}

/* Contiguous tensor over @p data (storage = the view). */
static aclTensor *tens(const int64_t *shape, uint64_t nd, aclDataType dt, void *data)
{
    int64_t st[8], n = 1;
    for (int64_t i = (int64_t)nd - 1; i >= 0; i--) {
        st[i] = n;
        n *= shape[i];
    }
    aclTensor *t = aclCreateTensor(shape, nd, dt, st, 0, ACL_FORMAT_ND, &n, 1, data);
    assert_non_null(t);
    return t;
}

static void test_embedding_roundtrip(void **state)
{
    (void)state;
    /* forward: 3 lookups into a 4 x 2 table; backward of ones with index 1 twice, scaled */
    const float w[8] = {0, 1, 10, 11, 20, 21, 30, 31};
    const int32_t idx[3] = {1, 3, 1};
    void *dw = dev(w, sizeof w, 0), *di = dev(idx, sizeof idx, 0), *dout = dev(NULL, 6 * 4, 0);
    const int64_t ws[2] = {4, 2}, is[1] = {3}, os[2] = {3, 2};
    aclTensor *tw = tens(ws, 2, ACL_FLOAT, dw), *ti = tens(is, 1, ACL_INT32, di), *to = tens(os, 2, ACL_FLOAT, dout);
    uint64_t wsz = 1;
    aclOpExecutor *ex = NULL;
    assert_int_equal(aclnnEmbeddingGetWorkspaceSize(tw, ti, to, &wsz, &ex), ACLNN_SUCCESS);
    assert_int_equal(wsz, 0);
    assert_int_equal(aclnnEmbedding(NULL, 0, ex, g_stream), ACLNN_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(g_stream), ACL_SUCCESS);
    float out[6];
    get(out, dout, sizeof out);
    const float expect[6] = {10, 11, 30, 31, 10, 11};
    assert_memory_equal(out, expect, sizeof out);

    /* backward, repeatable executor run twice: rows 1 (twice, scaled by 1/2) and 3 */
    const float g[6] = {1, 2, 3, 4, 5, 6};
    void *dg = dev(g, sizeof g, 0), *dgw = dev(NULL, 8 * 4, 0xff);
    aclTensor *tg = tens(os, 2, ACL_FLOAT, dg), *tgw = tens(ws, 2, ACL_FLOAT, dgw);
    assert_int_equal(aclnnEmbeddingDenseBackwardGetWorkspaceSize(tg, ti, 4, UINT64_MAX, true, tgw, &wsz, &ex),
                     ACLNN_SUCCESS);
    assert_int_equal(aclSetAclOpExecutorRepeatable(ex), ACLNN_SUCCESS);
    void *dws = wsz ? dev(NULL, wsz, 0) : NULL;
    for (int rep = 0; rep < 2; rep++) {
        assert_int_equal(aclnnEmbeddingDenseBackward(dws, wsz, ex, g_stream), ACLNN_SUCCESS);
        assert_int_equal(aclrtSynchronizeStream(g_stream), ACL_SUCCESS);
        float gw[8];
        get(gw, dgw, sizeof gw);
        const float eg[8] = {0, 0, 3, 4, 0, 0, 3, 4};
        assert_memory_equal(gw, eg, sizeof gw);
    }
    aclDestroyAclOpExecutor(ex);

    /* padding row 1 receives nothing */
    assert_int_equal(aclnnEmbeddingDenseBackwardGetWorkspaceSize(tg, ti, 4, 1, false, tgw, &wsz, &ex), ACLNN_SUCCESS);
    assert_int_equal(aclnnEmbeddingDenseBackward(dws, wsz, ex, g_stream), ACLNN_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(g_stream), ACL_SUCCESS);
    float gw[8];
    get(gw, dgw, sizeof gw);
    const float ep[8] = {0, 0, 0, 0, 0, 0, 3, 4};
    assert_memory_equal(gw, ep, sizeof gw);

    aclDestroyTensor(tw);
    aclDestroyTensor(ti);
    aclDestroyTensor(to);
    aclDestroyTensor(tg);
    aclDestroyTensor(tgw);
    aclrtFree(dw);
    aclrtFree(di);
    aclrtFree(dout);
    aclrtFree(dg);
    aclrtFree(dgw);
    if (dws)
        aclrtFree(dws);
}

static void test_embedding_bad_index(void **state)
{
    (void)state;
    const float w[4] = {1, 2, 3, 4};
    const int64_t idx[2] = {0, 7};
    void *dw = dev(w, sizeof w, 0), *di = dev(idx, sizeof idx, 0), *dout = dev(NULL, 8 * 4, 0x7f);
    const int64_t ws[2] = {2, 2}, is[1] = {2}, os[2] = {2, 2};
    aclTensor *tw = tens(ws, 2, ACL_FLOAT, dw), *ti = tens(is, 1, ACL_INT64, di), *to = tens(os, 2, ACL_FLOAT, dout);
    uint64_t wsz;
    aclOpExecutor *ex;
    assert_int_equal(aclnnEmbeddingGetWorkspaceSize(tw, ti, to, &wsz, &ex), ACLNN_SUCCESS);
    assert_int_equal(aclnnEmbedding(NULL, 0, ex, g_stream), ACLNN_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(g_stream), ACL_ERROR_RT_AICORE_EXCEPTION);
    const char *msg = aclGetRecentErrMsg();
    assert_non_null(msg);
    assert_non_null(strstr(msg, "indices[1] = 7"));
    unsigned char buf[32];
    get(buf, dout, sizeof buf);
    for (int i = 16; i < 32; i++)
        assert_int_equal(buf[i], 0x7f); /* past the 2 x 2 output: untouched */
    /* the error was consumed by that synchronize */
    assert_int_equal(aclrtSynchronizeStream(g_stream), ACL_SUCCESS);

    /* backward with the same index */
    void *dgw = dev(NULL, 8 * 4, 0x7f);
    aclTensor *tgw = tens(ws, 2, ACL_FLOAT, dgw);
    assert_int_equal(aclnnEmbeddingDenseBackwardGetWorkspaceSize(to, ti, 2, UINT64_MAX, false, tgw, &wsz, &ex),
                     ACLNN_SUCCESS);
    void *dws = dev(NULL, wsz, 0);
    assert_int_equal(aclnnEmbeddingDenseBackward(dws, wsz, ex, g_stream), ACLNN_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(g_stream), ACL_ERROR_RT_AICORE_EXCEPTION);
    assert_non_null(strstr(aclGetRecentErrMsg(), "indices[1] = 7"));
    get(buf, dgw, sizeof buf);
    for (int i = 16; i < 32; i++)
        assert_int_equal(buf[i], 0x7f);
    aclDestroyTensor(tw);
    aclDestroyTensor(ti);
    aclDestroyTensor(to);
    aclDestroyTensor(tgw);
    aclrtFree(dw);
    aclrtFree(di);
    aclrtFree(dout);
    aclrtFree(dgw);
    aclrtFree(dws);
}

static void test_embedding_errors(void **state)
{
    (void)state;
    const int64_t ws[2] = {4, 2}, is[1] = {3}, os[2] = {3, 2}, bad[2] = {3, 3};
    aclTensor *tw = tens(ws, 2, ACL_FLOAT, NULL), *ti = tens(is, 1, ACL_INT64, NULL);
    aclTensor *to = tens(os, 2, ACL_FLOAT, NULL), *tb = tens(bad, 2, ACL_FLOAT, NULL);
    aclTensor *tf = tens(is, 1, ACL_FLOAT, NULL);
    uint64_t wsz;
    aclOpExecutor *ex;
    assert_int_equal(aclnnEmbeddingGetWorkspaceSize(NULL, ti, to, &wsz, &ex), ACLNN_ERR_PARAM_NULLPTR);
    assert_non_null(aclGetRecentErrMsg());
    assert_int_equal(aclnnEmbeddingGetWorkspaceSize(tw, ti, to, NULL, &ex), ACLNN_ERR_PARAM_NULLPTR);
    assert_int_equal(aclnnEmbeddingGetWorkspaceSize(tw, ti, tb, &wsz, &ex), ACLNN_ERR_PARAM_INVALID);
    assert_int_equal(aclnnEmbeddingGetWorkspaceSize(tw, tf, to, &wsz, &ex), ACLNN_ERR_PARAM_INVALID);
    assert_int_equal(aclnnEmbeddingDenseBackwardGetWorkspaceSize(to, ti, 4, UINT64_MAX, false, NULL, &wsz, &ex),
                     ACLNN_ERR_PARAM_NULLPTR);
    assert_int_equal(aclnnEmbeddingDenseBackwardGetWorkspaceSize(to, ti, 5, UINT64_MAX, false, tw, &wsz, &ex),
                     ACLNN_ERR_PARAM_INVALID);
    assert_int_equal(aclnnEmbeddingDenseBackwardGetWorkspaceSize(tb, ti, 4, UINT64_MAX, false, tw, &wsz, &ex),
                     ACLNN_ERR_PARAM_INVALID);
    aclDestroyTensor(tw);
    aclDestroyTensor(ti);
    aclDestroyTensor(to);
    aclDestroyTensor(tb);
    aclDestroyTensor(tf);
}

static void test_nll_loss(void **state)
{
    (void)state;
    /* 3 samples, 2 classes, weights 1 and 2; the third target is ignoreIndex (-100) */
    const float x[6] = {-1, -2, -3, -4, -5, -6};
    const int64_t t[3] = {0, 1, -100};
    const float w[2] = {1, 2};
    void *dx = dev(x, sizeof x, 0), *dt = dev(t, sizeof t, 0), *dw = dev(w, sizeof w, 0);
    void *dout = dev(NULL, 4, 0), *dtw = dev(NULL, 4, 0), *dgrad = dev(NULL, 6 * 4, 0xff);
    const int64_t xs[2] = {3, 2}, ts[1] = {3}, wsh[1] = {2}, one[1] = {1};
    aclTensor *tx = tens(xs, 2, ACL_FLOAT, dx), *tt = tens(ts, 1, ACL_INT64, dt), *tw = tens(wsh, 1, ACL_FLOAT, dw);
    aclTensor *to = tens(NULL, 0, ACL_FLOAT, dout), *ttw = tens(one, 1, ACL_FLOAT, dtw);
    aclTensor *tg = tens(xs, 2, ACL_FLOAT, dgrad);
    uint64_t wsz;
    aclOpExecutor *ex;
    assert_int_equal(aclnnNLLLossGetWorkspaceSize(tx, tt, tw, 1, -100, to, ttw, &wsz, &ex), ACLNN_SUCCESS);
    void *dws = wsz ? dev(NULL, wsz, 0) : NULL;
    assert_int_equal(aclnnNLLLoss(dws, wsz, ex, g_stream), ACLNN_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(g_stream), ACL_SUCCESS);
    float loss, totw;
    get(&loss, dout, 4);
    get(&totw, dtw, 4);
    /* losses 1*1 and 2*4 over total weight 3 */
    assert_float_equal(totw, 3.0f, 0.0f);
    assert_float_equal(loss, 3.0f, 1e-6f);
    /* backward of the mean with gradOutput 1.5: row 0 col 0 = -1 * 1.5 / 3, row 1 col 1 = -2 * 1.5 / 3 */
    const float go = 1.5f;
    void *dgo = dev(&go, 4, 0);
    aclTensor *tgo = tens(NULL, 0, ACL_FLOAT, dgo);
    assert_int_equal(aclnnNLLLossBackwardGetWorkspaceSize(tgo, tx, tt, tw, 1, -100, ttw, tg, &wsz, &ex), ACLNN_SUCCESS);
    assert_int_equal(aclnnNLLLossBackward(NULL, 0, ex, g_stream), ACLNN_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(g_stream), ACL_SUCCESS);
    float gr[6];
    get(gr, dgrad, sizeof gr);
    const float eg[6] = {-0.5f, 0, 0, -1.0f, 0, 0};
    assert_memory_equal(gr, eg, sizeof gr);
    /* errors */
    assert_int_equal(aclnnNLLLossGetWorkspaceSize(tx, tt, NULL, 1, -100, to, ttw, &wsz, &ex), ACLNN_ERR_PARAM_NULLPTR);
    assert_int_equal(aclnnNLLLossGetWorkspaceSize(tx, tt, tw, 4, -100, to, ttw, &wsz, &ex), ACLNN_ERR_PARAM_INVALID);
    assert_int_equal(aclnnNLLLossGetWorkspaceSize(tx, tx, tw, 1, -100, to, ttw, &wsz, &ex), ACLNN_ERR_PARAM_INVALID);
    aclDestroyTensor(tx);
    aclDestroyTensor(tt);
    aclDestroyTensor(tw);
    aclDestroyTensor(to);
    aclDestroyTensor(ttw);
    aclDestroyTensor(tg);
    aclDestroyTensor(tgo);
    aclrtFree(dx);
    aclrtFree(dt);
    aclrtFree(dw);
    aclrtFree(dout);
    aclrtFree(dtw);
    aclrtFree(dgrad);
    aclrtFree(dgo);
    if (dws)
        aclrtFree(dws);
}

static void test_reduce(void **state)
{
    (void)state;
    float x[24];
    for (int i = 0; i < 24; i++)
        x[i] = (float)i;
    void *dx = dev(x, sizeof x, 0), *dout = dev(NULL, 6 * 4, 0);
    const int64_t xs[3] = {2, 3, 4}, os[2] = {2, 3}, ks[3] = {1, 3, 1};
    aclTensor *tx = tens(xs, 3, ACL_FLOAT, dx), *to = tens(os, 2, ACL_FLOAT, dout), *tk = tens(ks, 3, ACL_FLOAT, dout);
    const int64_t d2[1] = {2}, d02[2] = {0, -1}, dup[2] = {1, 1};
    aclIntArray *a2 = aclCreateIntArray(d2, 1), *a02 = aclCreateIntArray(d02, 2), *adup = aclCreateIntArray(dup, 2);
    uint64_t wsz;
    aclOpExecutor *ex;
    assert_int_equal(aclnnReduceSumGetWorkspaceSize(tx, a2, false, ACL_FLOAT, to, &wsz, &ex), ACLNN_SUCCESS);
    assert_int_equal(aclnnReduceSum(NULL, 0, ex, g_stream), ACLNN_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(g_stream), ACL_SUCCESS);
    float out[6];
    get(out, dout, sizeof out);
    for (int r = 0; r < 6; r++)
        assert_float_equal(out[r], (float)(16 * r + 6), 0.0f);
    assert_int_equal(aclnnMeanGetWorkspaceSize(tx, a02, true, ACL_FLOAT, tk, &wsz, &ex), ACLNN_SUCCESS);
    assert_int_equal(aclnnMean(NULL, 0, ex, g_stream), ACLNN_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(g_stream), ACL_SUCCESS);
    get(out, dout, 3 * 4);
    /* mean over dims 0 and 2 of row j: (sum_{i,k} 12 i + 4 j + k) / 8 = 6 + 4 j + 1.5 */
    for (int j = 0; j < 3; j++)
        assert_float_equal(out[j], 7.5f + 4.0f * (float)j, 1e-6f);
    assert_int_equal(aclnnReduceSumGetWorkspaceSize(tx, adup, false, ACL_FLOAT, to, &wsz, &ex), ACLNN_ERR_PARAM_INVALID);
    assert_int_equal(aclnnReduceSumGetWorkspaceSize(tx, a2, false, ACL_FLOAT16, to, &wsz, &ex), ACLNN_ERR_PARAM_INVALID);
    assert_int_equal(aclnnReduceSumGetWorkspaceSize(tx, a2, true, ACL_FLOAT, to, &wsz, &ex), ACLNN_ERR_PARAM_INVALID);
    assert_int_equal(aclnnMeanGetWorkspaceSize(NULL, a2, false, ACL_FLOAT, to, &wsz, &ex), ACLNN_ERR_PARAM_NULLPTR);
    aclDestroyIntArray(a2);
    aclDestroyIntArray(a02);
    aclDestroyIntArray(adup);
    aclDestroyTensor(tx);
    aclDestroyTensor(to);
    aclDestroyTensor(tk);
    aclrtFree(dx);
    aclrtFree(dout);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_embedding_roundtrip),
        cmocka_unit_test(test_embedding_bad_index),
        cmocka_unit_test(test_embedding_errors),
        cmocka_unit_test(test_nll_loss),
        cmocka_unit_test(test_reduce),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
