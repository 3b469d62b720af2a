/* Runtime API tests: aclInit / aclFinalize / aclFinalizeReference, configuration files, error
 * reporting, version, leak release at finalize, and the helpers of acl_base_rt.h (data-type
 * sizes, fp16 conversions, data buffers). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>

#include "rt_test_util.h"

/* ---------------------------------------------------------------------------------------------- */
/* Reference counting                                                                              */
/* ---------------------------------------------------------------------------------------------- */

static void test_init_refcount(void **state)
{
    (void)state;
    RT_OK(aclInit(NULL));
    assert_int_equal(g_rt.init_refs, 1);
    RT_EXPECT(ACL_ERROR_REPEAT_INITIALIZE, aclInit(NULL));
    assert_int_equal(g_rt.init_refs, 2);
    RT_EXPECT(ACL_ERROR_REPEAT_INITIALIZE, aclInit(""));
    assert_int_equal(g_rt.init_refs, 3);
    /* The repeat is reported in the error text, and is harmless: the runtime works. */
    assert_true(rt_contains(aclGetRecentErrMsg(), "already initialized"));
    rt_check_runtime_works(0);

    uint64_t n = 99;
    RT_OK(aclFinalizeReference(&n));
    assert_int_equal(n, 2);
    assert_true(g_rt.core_up);
    RT_OK(aclFinalizeReference(&n));
    assert_int_equal(n, 1);
    assert_true(g_rt.core_up);
    RT_OK(aclFinalizeReference(&n));
    assert_int_equal(n, 0);
    assert_false(g_rt.core_up); /* the last reference tore the runtime down */

    n = 99;
    RT_EXPECT(ACL_ERROR_REPEAT_FINALIZE, aclFinalizeReference(&n));
    assert_int_equal(n, 0);
    RT_EXPECT(ACL_ERROR_REPEAT_FINALIZE, aclFinalizeReference(NULL));
    RT_EXPECT(ACL_ERROR_REPEAT_FINALIZE, aclFinalize());
}

static void test_finalize_ignores_refcount(void **state)
{
    (void)state;
    RT_OK(aclInit(NULL));
    RT_EXPECT(ACL_ERROR_REPEAT_INITIALIZE, aclInit(NULL));
    RT_EXPECT(ACL_ERROR_REPEAT_INITIALIZE, aclInit(NULL));
    RT_OK(aclFinalize()); /* one call suffices whatever the count */
    assert_int_equal(g_rt.init_refs, 0);
    assert_false(g_rt.core_up);
    RT_EXPECT(ACL_ERROR_REPEAT_FINALIZE, aclFinalize());
    RT_EXPECT(ACL_ERROR_REPEAT_FINALIZE, aclFinalizeReference(NULL));
}

static void test_finalize_reference_null_refcount(void **state)
{
    (void)state;
    RT_OK(aclInit(NULL));
    RT_EXPECT(ACL_ERROR_REPEAT_INITIALIZE, aclInit(NULL));
    RT_OK(aclFinalizeReference(NULL));
    assert_int_equal(g_rt.init_refs, 1);
    assert_true(g_rt.core_up);
    RT_OK(aclFinalizeReference(NULL));
    assert_int_equal(g_rt.init_refs, 0);
    assert_false(g_rt.core_up);
    RT_EXPECT(ACL_ERROR_REPEAT_FINALIZE, aclFinalizeReference(NULL));
}

static void test_reinit_after_finalize(void **state)
{
    (void)state;
    for (int round = 0; round < 3; round++) {
        RT_OK(aclInit(NULL));
        rt_check_runtime_works(round);
        /* Handles of the previous round are gone: the thread has no device again. */
        RT_OK(aclFinalize());
        int32_t dev = -1;
        RT_OK(aclInit(NULL));
        RT_EXPECT(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&dev));
        RT_OK(aclFinalize());
    }
}

static void test_handles_invalid_after_finalize(void **state)
{
    (void)state;
    RT_OK(aclInit(NULL));
    RT_OK(aclrtSetDevice(0));
    aclrtStream s = NULL;
    aclrtEvent e = NULL;
    RT_OK(aclrtCreateStream(&s));
    RT_OK(aclrtCreateEvent(&e));
    RT_OK(aclFinalize());
    RT_OK(aclInit(NULL));
    /* The stream and event of the previous runtime are reported, not dereferenced. */
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDestroyStream(s));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDestroyEvent(e));
    RT_OK(aclFinalize());
}

/* ---------------------------------------------------------------------------------------------- */
/* Configuration files                                                                             */
/* ---------------------------------------------------------------------------------------------- */

static void test_init_config_files(void **state)
{
    (void)state;
    rt_forget_config_hash();
    rt_tmpdir d;
    rt_tmpdir_make(&d);
    const char *valid = rt_tmpdir_write(&d, "valid.json",
                                        "{\n  \"err_msg_mode\": \"0\",\n  \"max_opqueue_num\": \"1000\",\n"
                                        "  \"unknown_key\": [1, 2, {\"x\": null}]\n}\n");
    const char *empty = rt_tmpdir_write(&d, "empty.json", "");
    const char *malformed = rt_tmpdir_write(&d, "malformed.json", "{\"err_msg_mode\": \"0\",");
    const char *deep = rt_tmpdir_write(&d, "deep.json", "{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":{\"f\":{\"g\":{\"h\":"
                                                        "{\"i\":{\"j\":{\"k\":1}}}}}}}}}}}");
    const char *bad_mode = rt_tmpdir_write(&d, "bad_mode.json", "{\"err_msg_mode\": 1}");

    RT_OK(aclInit(valid));
    rt_check_runtime_works(0);
    RT_OK(aclFinalize());

    RT_OK(aclInit(empty)); /* empty file: defaults */
    RT_OK(aclFinalize());

    RT_EXPECT(ACL_ERROR_INVALID_FILE, aclInit(rt_tmpdir_missing(&d, "nope.json")));
    assert_int_equal(g_rt.init_refs, 0);
    assert_true(rt_contains(aclGetRecentErrMsg(), "nope.json"));
    RT_EXPECT(ACL_ERROR_INVALID_FILE, aclInit(d.path)); /* a directory */
    RT_EXPECT(ACL_ERROR_PARSE_FILE, aclInit(malformed));
    assert_int_equal(g_rt.init_refs, 0);
    RT_EXPECT(ACL_ERROR_PARSE_FILE, aclInit(deep));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclInit(bad_mode));
    assert_int_equal(g_rt.init_refs, 0);
    /* A failed init holds no reference. */
    RT_EXPECT(ACL_ERROR_REPEAT_FINALIZE, aclFinalizeReference(NULL));

    /* Still initialisable afterwards, with the same configuration. */
    RT_OK(aclInit(valid));
    /* While initialised, a different file is not even read. */
    RT_EXPECT(ACL_ERROR_REPEAT_INITIALIZE, aclInit(malformed));
    RT_OK(aclFinalize());

    rt_tmpdir_remove(&d);
    rt_forget_config_hash();
}

/* A default device past the last one: the message gives the configured value. */
static void test_default_device_out_of_range(void **state)
{
    (void)state;
    rt_forget_config_hash();
    uint32_t n = 0;
    RT_OK(aclrtGetDeviceCount(&n));
    assert_true(n >= 1);
    rt_tmpdir d;
    rt_tmpdir_make(&d);
    char text[128], want[64];
    snprintf(text, sizeof(text), "{\"defaultDevice\": {\"default_device\": \"%u\"}}", n);
    const char *past = rt_tmpdir_write(&d, "past.json", text);
    snprintf(text, sizeof(text), "{\"defaultDevice\": {\"default_device\": \"%u\"}}", n - 1);
    const char *last = rt_tmpdir_write(&d, "last.json", text);

    RT_EXPECT(ACL_ERROR_FAILURE, aclInit(past));
    const char *msg = aclGetRecentErrMsg();
    snprintf(want, sizeof(want), "default_device %u is out of range", n);
    if (!rt_contains(msg, want))
        fail_msg("expected \"%s\" in: %s", want, msg ? msg : "(none)");
    assert_false(rt_contains(msg, "default_device -1"));
    assert_int_equal(g_rt.init_refs, 0);
    rt_forget_config_hash();
    RT_OK(aclInit(last));
    int32_t dev = -1;
    RT_OK(aclrtGetDevice(&dev)); /* the default device applies */
    assert_int_equal(dev, (int32_t)n - 1);
    RT_OK(aclFinalize());
    rt_tmpdir_remove(&d);
    rt_forget_config_hash();
}

static void test_reinit_with_different_config(void **state)
{
    (void)state;
    rt_forget_config_hash();
    rt_tmpdir d;
    rt_tmpdir_make(&d);
    const char *a = rt_tmpdir_write(&d, "a.json", "{\"max_opqueue_num\": \"100\"}");
    const char *a_copy = rt_tmpdir_write(&d, "a_copy.json", "{\"max_opqueue_num\": \"100\"}");
    const char *b = rt_tmpdir_write(&d, "b.json", "{\"max_opqueue_num\": \"200\"}");

    RT_OK(aclInit(a));
    RT_OK(aclFinalize());
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclInit(b));
    assert_true(rt_contains(aclGetRecentErrMsg(), "differs"));
    assert_int_equal(g_rt.init_refs, 0);
    /* The same content under another name is the same configuration. */
    RT_OK(aclInit(a_copy));
    RT_OK(aclFinalize());
    RT_OK(aclInit(a));
    RT_OK(aclFinalize());

    rt_tmpdir_remove(&d);
    rt_forget_config_hash();
}

static void *thread_fail_free(void *arg)
{
    (void)arg;
    aclError rc = aclrtFree(NULL);
    (void)rc;
    return NULL;
}

static void *thread_take_msg(void *arg)
{
    char *out = arg;
    const char *m = aclGetRecentErrMsg();
    snprintf(out, 256, "%s", m ? m : "");
    return NULL;
}

static void test_err_msg_mode_process(void **state)
{
    (void)state;
    rt_forget_config_hash();
    rt_tmpdir d;
    rt_tmpdir_make(&d);
    const char *mode1 = rt_tmpdir_write(&d, "mode1.json", "{\"err_msg_mode\": \"1\"}");

    /* Default mode (per thread): another thread's error is not visible here. */
    RT_OK(aclInit(NULL));
    (void)aclGetRecentErrMsg();
    rt_thread_join(rt_thread_start(thread_fail_free, NULL));
    assert_null(aclGetRecentErrMsg());
    RT_OK(aclFinalize());

    /* err_msg_mode "1": the text is shared by the process. */
    RT_OK(aclInit(mode1));
    (void)aclGetRecentErrMsg();
    rt_thread_join(rt_thread_start(thread_fail_free, NULL));
    const char *m = aclGetRecentErrMsg();
    assert_true(rt_contains(m, "aclrtFree"));
    assert_null(aclGetRecentErrMsg()); /* taken */
    /* ... and the main thread's error can be taken by another thread. */
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMallocHost(NULL, 16));
    char seen[256] = {0};
    rt_thread_join(rt_thread_start(thread_take_msg, seen));
    assert_true(rt_contains(seen, "aclrtMallocHost"));
    assert_null(aclGetRecentErrMsg());
    RT_OK(aclFinalize());

    /* Finalize restores the default (per-thread) mode for a later default init. */
    RT_OK(aclInit(NULL));
    (void)aclGetRecentErrMsg();
    rt_thread_join(rt_thread_start(thread_fail_free, NULL));
    assert_null(aclGetRecentErrMsg());
    RT_OK(aclFinalize());

    rt_tmpdir_remove(&d);
    rt_forget_config_hash();
}

/* ---------------------------------------------------------------------------------------------- */
/* Errors                                                                                          */
/* ---------------------------------------------------------------------------------------------- */

static void test_recent_err_msg(void **state)
{
    (void)state;
    assert_null(aclGetRecentErrMsg());
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtFree(NULL));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMalloc(NULL, 16, ACL_MEM_MALLOC_HUGE_FIRST));
    const char *m = aclGetRecentErrMsg();
    assert_non_null(m);
    const char *newer = strstr(m, "aclrtMalloc");
    const char *older = strstr(m, "aclrtFree");
    assert_non_null(newer);
    assert_non_null(older);
    assert_true(newer < older); /* newest first */
    assert_non_null(strchr(m, '\n'));
    assert_null(aclGetRecentErrMsg()); /* taking clears it */

    /* Error text is per thread by default. */
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtFree(NULL));
    char seen[256] = {0};
    rt_thread_join(rt_thread_start(thread_take_msg, seen));
    assert_string_equal(seen, "");
    assert_true(rt_contains(aclGetRecentErrMsg(), "aclrtFree"));
}

static void test_recent_err_msg_bounded(void **state)
{
    (void)state;
    for (int i = 0; i < 2000; i++)
        RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtFree(NULL));
    const char *m = aclGetRecentErrMsg();
    assert_non_null(m);
    assert_true(strlen(m) <= 8192);
    assert_true(rt_contains(m, "aclrtFree"));
    assert_null(aclGetRecentErrMsg());
}

static void *thread_peek(void *arg)
{
    aclError *out = arg;
    *out = aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL);
    return NULL;
}

static void test_last_error(void **state)
{
    (void)state;
    RT_OK(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
    RT_OK(aclrtGetLastError(ACL_RT_THREAD_LEVEL));
    RT_EXPECT(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(-1));
    RT_EXPECT(ACL_ERROR_RT_INVALID_DEVICEID, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
    RT_EXPECT(ACL_ERROR_RT_INVALID_DEVICEID, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL)); /* not cleared */
    /* Per thread. */
    aclError other = -1;
    rt_thread_join(rt_thread_start(thread_peek, &other));
    assert_int_equal(other, ACL_SUCCESS);
    /* A success does not reset it. */
    RT_OK(aclrtSetDevice(0));
    RT_EXPECT(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
    RT_OK(aclrtGetLastError(ACL_RT_THREAD_LEVEL)); /* cleared */
    RT_OK(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
    /* The newest error wins. */
    RT_EXPECT(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(1000));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtFree(NULL));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
    /* Bad level. */
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtPeekAtLastError((aclrtLastErrLevel)1));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtGetLastError((aclrtLastErrLevel)7));
    RT_OK(aclrtResetDevice(0));
}

static void test_version(void **state)
{
    (void)state;
    int32_t a = -1, b = -1, c = -1;
    RT_OK(aclrtGetVersion(&a, &b, &c));
    assert_int_equal(a, ACL_MAJOR_VERSION);
    assert_int_equal(b, ACL_MINOR_VERSION);
    assert_int_equal(c, ACL_PATCH_VERSION);
    assert_int_equal(a, 1);
    assert_int_equal(b, 17);
    assert_int_equal(c, 0);
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtGetVersion(NULL, &b, &c));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtGetVersion(&a, NULL, &c));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclrtGetVersion(&a, &b, NULL));
}

/* ---------------------------------------------------------------------------------------------- */
/* Leaks released by finalize                                                                      */
/* ---------------------------------------------------------------------------------------------- */

static void test_finalize_releases_leaks(void **state)
{
    (void)state;
    RT_OK(aclInit(NULL));
    RT_OK(aclrtSetDevice(0));
    aclrtStream s0 = NULL;
    RT_OK(aclrtCreateStream(&s0)); /* on device 0's default context */
    aclrtContext ctx = NULL;
    RT_OK(aclrtCreateContext(&ctx, 1));
    aclrtStream s1 = NULL, s2 = NULL;
    RT_OK(aclrtCreateStream(&s1));
    RT_OK(aclrtCreateStream(&s2));
    aclrtEvent e[3];
    for (int i = 0; i < 3; i++)
        RT_OK(aclrtCreateEvent(&e[i]));
    void *d1 = NULL, *d2 = NULL;
    RT_OK(aclrtMalloc(&d1, 1000, ACL_MEM_MALLOC_HUGE_FIRST));
    RT_OK(aclrtMalloc(&d2, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
    void *h1 = NULL, *h2 = NULL;
    RT_OK(aclrtMallocHost(&h1, 100));
    RT_OK(aclrtMallocHost(&h2, 200));
    /* Pending work on a leaked stream is fine too. */
    RT_OK(cannonLaunchHostTask(s1, rt_task_sleep, (void *)(uintptr_t)20));

    RT_OK(aclFinalize());
    const cn_leak_stats *l = &g_rt.last_leaks;
    assert_int_equal(l->contexts, 1);
    assert_int_equal(l->streams, 3);
    assert_int_equal(l->events, 3);
    assert_int_equal(l->device_allocs, 2);
    assert_true(l->device_bytes >= 1000 + 4096);
    assert_true(l->device_bytes <= 2 * (4096 + 1024));
    assert_int_equal(l->host_allocs, 2);
    assert_int_equal(l->host_bytes, 300);
    assert_int_equal(l->device_refs, 1);

    /* A clean run reports nothing. */
    RT_OK(aclInit(NULL));
    rt_check_runtime_works(0);
    void *h = NULL;
    RT_OK(aclrtMallocHost(&h, 64));
    RT_OK(aclrtFreeHost(h));
    RT_OK(aclFinalize());
    l = &g_rt.last_leaks;
    assert_int_equal(l->contexts + l->streams + l->events + l->device_allocs + l->device_bytes + l->host_allocs +
                         l->host_bytes + l->device_refs,
                     0);
}

static void test_finalize_counts_device_refs(void **state)
{
    (void)state;
    RT_OK(aclInit(NULL));
    RT_OK(aclrtSetDevice(2));
    RT_OK(aclrtSetDevice(2));
    RT_OK(aclrtSetDevice(5));
    RT_OK(aclFinalize());
    assert_int_equal(g_rt.last_leaks.device_refs, 3);
    assert_int_equal(g_rt.last_leaks.contexts, 0); /* default contexts are not user contexts */
}

/* ---------------------------------------------------------------------------------------------- */
/* Data types, fp16, data buffers                                                                  */
/* ---------------------------------------------------------------------------------------------- */

static void test_data_type_size(void **state)
{
    (void)state;
    static const struct {
        aclDataType t;
        size_t size;
    } table[] = {
        {ACL_DT_UNDEFINED, 0}, {ACL_FLOAT, 4},       {ACL_FLOAT16, 2},       {ACL_INT8, 1},
        {ACL_INT32, 4},        {ACL_UINT8, 1},       {ACL_INT16, 2},         {ACL_UINT16, 2},
        {ACL_UINT32, 4},       {ACL_INT64, 8},       {ACL_UINT64, 8},        {ACL_DOUBLE, 8},
        {ACL_BOOL, 1},         {ACL_STRING, 0},      {ACL_COMPLEX64, 8},     {ACL_COMPLEX128, 16},
        {ACL_BF16, 2},         {ACL_INT4, 1},        {ACL_UINT1, 1},         {ACL_COMPLEX32, 4},
        {ACL_HIFLOAT8, 1},     {ACL_FLOAT8_E5M2, 1}, {ACL_FLOAT8_E4M3FN, 1}, {ACL_FLOAT8_E8M0, 1},
        {ACL_FLOAT6_E3M2, 8},  {ACL_FLOAT6_E2M3, 8}, {ACL_FLOAT4_E2M1, 8},   {ACL_FLOAT4_E1M2, 8},
    };
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        if (aclDataTypeSize(table[i].t) != table[i].size)
            print_error("aclDataTypeSize(%d) = %zu, expected %zu\n", (int)table[i].t, aclDataTypeSize(table[i].t),
                        table[i].size);
        assert_int_equal(aclDataTypeSize(table[i].t), table[i].size);
    }
    /* Gaps and unknown values fall to CANN's default branch. */
    assert_int_equal(aclDataTypeSize((aclDataType)5), 8);
    assert_int_equal(aclDataTypeSize((aclDataType)14), 8);
    assert_int_equal(aclDataTypeSize((aclDataType)28), 8);
    assert_int_equal(aclDataTypeSize((aclDataType)1000), 8);
    assert_int_equal(aclDataTypeSize((aclDataType)-5), 8);
}

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

static void test_fp16_to_float(void **state)
{
    (void)state;
    assert_true(aclFloat16ToFloat(0x3C00) == 1.0f);
    assert_true(aclFloat16ToFloat(0xC000) == -2.0f);
    assert_true(aclFloat16ToFloat(0x3555) == 0.333251953125f);
    assert_true(aclFloat16ToFloat(0x7BFF) == 65504.0f);
    assert_true(aclFloat16ToFloat(0xFBFF) == -65504.0f);
    assert_true(aclFloat16ToFloat(0x0400) == ldexpf(1.0f, -14)); /* smallest normal */
    assert_true(aclFloat16ToFloat(0x0001) == ldexpf(1.0f, -24)); /* smallest subnormal */
    assert_true(aclFloat16ToFloat(0x03FF) == ldexpf(1023.0f, -24));
    assert_true(aclFloat16ToFloat(0x8001) == -ldexpf(1.0f, -24));
    assert_int_equal(f32_bits(aclFloat16ToFloat(0x0000)), 0x00000000u);
    assert_int_equal(f32_bits(aclFloat16ToFloat(0x8000)), 0x80000000u); /* -0 keeps its sign */
    /* Saturation instead of inf / NaN. */
    assert_true(aclFloat16ToFloat(0x7C00) == 65536.0f);
    assert_true(aclFloat16ToFloat(0xFC00) == -65536.0f);
    assert_true(aclFloat16ToFloat(0x7E00) == 98304.0f);
    assert_true(aclFloat16ToFloat(0x7C01) == 98304.0f);
    assert_true(aclFloat16ToFloat(0x7FFF) == 98304.0f);
}

static void test_float_to_fp16(void **state)
{
    (void)state;
    assert_int_equal(aclFloatToFloat16(1.0f), 0x3C00);
    assert_int_equal(aclFloatToFloat16(-2.0f), 0xC000);
    assert_int_equal(aclFloatToFloat16(0.0f), 0x0000);
    assert_int_equal(aclFloatToFloat16(-0.0f), 0x8000);
    assert_int_equal(aclFloatToFloat16(0.1f), 0x2E66);
    assert_int_equal(aclFloatToFloat16(65504.0f), 0x7BFF);
    /* Round to nearest, ties to even. */
    assert_int_equal(aclFloatToFloat16(1.0f + ldexpf(1.0f, -11)), 0x3C00);                      /* tie → even */
    assert_int_equal(aclFloatToFloat16(1.0f + 3.0f * ldexpf(1.0f, -11)), 0x3C02);               /* tie → even */
    assert_int_equal(aclFloatToFloat16(1.0f + ldexpf(1.0f, -11) + ldexpf(1.0f, -20)), 0x3C01);  /* above tie */
    assert_int_equal(aclFloatToFloat16(1.0f + ldexpf(1.0f, -11) - ldexpf(1.0f, -20)), 0x3C00);  /* below tie */
    assert_int_equal(aclFloatToFloat16(2047.0f / 1024.0f + ldexpf(1.0f, -11)), 0x4000);         /* carry into exp */
    /* Subnormals. */
    assert_int_equal(aclFloatToFloat16(ldexpf(1.0f, -24)), 0x0001);
    assert_int_equal(aclFloatToFloat16(ldexpf(1.0f, -25)), 0x0000);        /* tie → even (0) */
    assert_int_equal(aclFloatToFloat16(ldexpf(3.0f, -25)), 0x0002);        /* tie → even (2) */
    assert_int_equal(aclFloatToFloat16(ldexpf(1.0f, -25) * 1.25f), 0x0001); /* above tie */
    assert_int_equal(aclFloatToFloat16(ldexpf(1.0f, -26)), 0x0000);
    assert_int_equal(aclFloatToFloat16(ldexpf(1023.0f, -24)), 0x03FF);
    assert_int_equal(aclFloatToFloat16(ldexpf(1023.5f, -24)), 0x0400);    /* rounds up into the normals */
    assert_int_equal(aclFloatToFloat16(ldexpf(1.0f, -14)), 0x0400);
    assert_int_equal(aclFloatToFloat16(-ldexpf(1.0f, -24)), 0x8001);
    assert_int_equal(aclFloatToFloat16(1e-30f), 0x0000);
    /* Saturation. */
    assert_int_equal(aclFloatToFloat16(65519.0f), 0x7BFF);
    assert_int_equal(aclFloatToFloat16(65520.0f), 0x7BFF);
    assert_int_equal(aclFloatToFloat16(1e10f), 0x7BFF);
    assert_int_equal(aclFloatToFloat16(-1e10f), 0xFBFF);
    assert_int_equal(aclFloatToFloat16(INFINITY), 0x7BFF);
    assert_int_equal(aclFloatToFloat16(-INFINITY), 0xFBFF);
    assert_int_equal(aclFloatToFloat16(NAN), 0x7BFF);
}

static void test_fp16_round_trip(void **state)
{
    (void)state;
    /* Every finite fp16 value survives fp16 → fp32 → fp16. */
    for (uint32_t h = 0; h <= 0xFFFF; h++) {
        if (((h >> 10) & 0x1F) == 0x1F)
            continue;
        aclFloat16 back = aclFloatToFloat16(aclFloat16ToFloat((aclFloat16)h));
        if (back != h)
            print_error("0x%04x -> %a -> 0x%04x\n", h, (double)aclFloat16ToFloat((aclFloat16)h), back);
        assert_int_equal(back, h);
    }
}

static void test_data_buffer(void **state)
{
    (void)state;
    char storage[128];
    aclDataBuffer *b = aclCreateDataBuffer(storage, sizeof(storage));
    assert_non_null(b);
    assert_ptr_equal(aclGetDataBufferAddr(b), storage);
    assert_int_equal(aclGetDataBufferSizeV2(b), sizeof(storage));
    assert_int_equal(aclGetDataBufferSize(b), sizeof(storage));
    RT_OK(aclUpdateDataBuffer(b, storage + 8, 16));
    assert_ptr_equal(aclGetDataBufferAddr(b), storage + 8);
    assert_int_equal(aclGetDataBufferSizeV2(b), 16);
    /* The deprecated 32-bit getter truncates. */
    size_t big = ((size_t)1 << 32) + 5;
    RT_OK(aclUpdateDataBuffer(b, storage, big));
    assert_int_equal(aclGetDataBufferSizeV2(b), big);
    assert_int_equal(aclGetDataBufferSize(b), 5);
    RT_OK(aclDestroyDataBuffer(b));

    aclDataBuffer *empty = aclCreateDataBuffer(NULL, 0);
    assert_non_null(empty);
    assert_null(aclGetDataBufferAddr(empty));
    assert_int_equal(aclGetDataBufferSizeV2(empty), 0);
    RT_OK(aclDestroyDataBuffer(empty));

    assert_null(aclGetDataBufferAddr(NULL));
    assert_int_equal(aclGetDataBufferSizeV2(NULL), 0);
    assert_int_equal(aclGetDataBufferSize(NULL), 0);
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclDestroyDataBuffer(NULL));
    RT_EXPECT(ACL_ERROR_INVALID_PARAM, aclUpdateDataBuffer(NULL, storage, 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_refcount),
        cmocka_unit_test(test_finalize_ignores_refcount),
        cmocka_unit_test(test_finalize_reference_null_refcount),
        cmocka_unit_test(test_reinit_after_finalize),
        cmocka_unit_test(test_handles_invalid_after_finalize),
        cmocka_unit_test(test_init_config_files),
        cmocka_unit_test(test_default_device_out_of_range),
        cmocka_unit_test(test_reinit_with_different_config),
        cmocka_unit_test(test_err_msg_mode_process),
        cmocka_unit_test_setup_teardown(test_recent_err_msg, rt_setup, rt_teardown),
        cmocka_unit_test_setup_teardown(test_recent_err_msg_bounded, rt_setup, rt_teardown),
        cmocka_unit_test_setup_teardown(test_last_error, rt_setup, rt_teardown),
        cmocka_unit_test_setup_teardown(test_version, rt_setup, rt_teardown),
        cmocka_unit_test(test_finalize_releases_leaks),
        cmocka_unit_test(test_finalize_counts_device_refs),
        cmocka_unit_test(test_data_type_size),
        cmocka_unit_test(test_fp16_to_float),
        cmocka_unit_test(test_float_to_fp16),
        cmocka_unit_test(test_fp16_round_trip),
        cmocka_unit_test(test_data_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
