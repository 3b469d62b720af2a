/* libacl_op_compiler: the compile options (set, size, get), the compile flag, and the compile
 * and dump entry points' argument checks, with CANN's codes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_op_compiler.h"

#define EXPECT(code, expr) assert_int_equal((expr), (code))

static int contains(const char *hay, const char *needle) { return hay && strstr(hay, needle) != NULL; }

static void test_set_and_get_options(void **state)
{
    (void)state;
    EXPECT(ACL_ERROR_INVALID_PARAM, aclSetCompileopt(ACL_PRECISION_MODE, NULL));
    assert_true(contains(aclGetRecentErrMsg(), "value is NULL"));
    EXPECT(ACL_ERROR_FEATURE_UNSUPPORTED, aclSetCompileopt(ACL_AUTO_TUNE_MODE, "x"));
    EXPECT(ACL_ERROR_INTERNAL_ERROR, aclSetCompileopt((aclCompileOpt)99, "x"));
    EXPECT(ACL_ERROR_INTERNAL_ERROR, aclSetCompileopt((aclCompileOpt)-1, "x"));
    /* Unset options have no size; set ones their length + 1. */
    assert_int_equal(aclGetCompileoptSize(ACL_PRECISION_MODE), 0);
    EXPECT(ACL_SUCCESS, aclSetCompileopt(ACL_PRECISION_MODE, "allow_fp32_to_fp16"));
    assert_int_equal(aclGetCompileoptSize(ACL_PRECISION_MODE), strlen("allow_fp32_to_fp16") + 1);
    EXPECT(ACL_SUCCESS, aclSetCompileopt(ACL_PRECISION_MODE, "must_keep_origin_dtype"));
    assert_int_equal(aclGetCompileoptSize(ACL_PRECISION_MODE), strlen("must_keep_origin_dtype") + 1);
    assert_int_equal(aclGetCompileoptSize((aclCompileOpt)99), 0);
    assert_int_equal(aclGetCompileoptSize(ACL_AUTO_TUNE_MODE), 0);
    /* Most options cannot be read back, as on CANN. */
    char buf[256];
    EXPECT(ACL_ERROR_API_NOT_SUPPORT, aclGetCompileopt(ACL_PRECISION_MODE, buf, sizeof(buf)));
    EXPECT(ACL_ERROR_INVALID_PARAM, aclGetCompileopt(ACL_OP_JIT_COMPILE, NULL, 16));
    /* JIT compile: 256 bytes, and the SoC's default whatever was set. */
    assert_int_equal(aclGetCompileoptSize(ACL_OP_JIT_COMPILE), 256);
    EXPECT(ACL_SUCCESS, aclSetCompileopt(ACL_OP_JIT_COMPILE, "enable"));
    memset(buf, 'x', sizeof(buf));
    EXPECT(ACL_SUCCESS, aclGetCompileopt(ACL_OP_JIT_COMPILE, buf, aclGetCompileoptSize(ACL_OP_JIT_COMPILE)));
    assert_string_equal(buf, "disable");
    EXPECT(ACL_ERROR_FAILURE, aclGetCompileopt(ACL_OP_JIT_COMPILE, buf, 7)); /* "disable" needs 8 */
    EXPECT(ACL_SUCCESS, aclGetCompileopt(ACL_OP_JIT_COMPILE, buf, 8));
    /* The debug option: readable once set. */
    EXPECT(ACL_ERROR_API_NOT_SUPPORT, aclGetCompileopt(ACL_OP_DEBUG_OPTION, buf, sizeof(buf)));
    EXPECT(ACL_SUCCESS, aclSetCompileopt(ACL_OP_DEBUG_OPTION, "oom"));
    assert_int_equal(aclGetCompileoptSize(ACL_OP_DEBUG_OPTION), 4);
    EXPECT(ACL_SUCCESS, aclGetCompileopt(ACL_OP_DEBUG_OPTION, buf, 4));
    assert_string_equal(buf, "oom");
    EXPECT(ACL_ERROR_FAILURE, aclGetCompileopt(ACL_OP_DEBUG_OPTION, buf, 3));
    /* Every other option is accepted. */
    for (int o = 0; o <= ACL_OP_DEBUG_OPTION; o++)
        if (o != ACL_AUTO_TUNE_MODE)
            EXPECT(ACL_SUCCESS, aclSetCompileopt((aclCompileOpt)o, "1"));
}

static void test_compile_flag(void **state)
{
    (void)state;
    EXPECT(ACL_SUCCESS, aclopSetCompileFlag(ACL_OP_COMPILE_DEFAULT));
    EXPECT(ACL_SUCCESS, aclopSetCompileFlag(ACL_OP_COMPILE_FUZZ));
    EXPECT(ACL_ERROR_INVALID_PARAM, aclopSetCompileFlag((aclOpCompileFlag)2));
}

static void test_compile_entry_points(void **state)
{
    (void)state;
    const aclTensorDesc *descs[1] = {(const aclTensorDesc *)(uintptr_t)0x1000};
    const aclTensorDesc *nodesc[1] = {NULL};
    const aclDataBuffer *bufs[1] = {(const aclDataBuffer *)(uintptr_t)0x2000};
    aclDataBuffer *obufs[1] = {(aclDataBuffer *)(uintptr_t)0x2000};
    /* aclopCompile */
    EXPECT(ACL_ERROR_INVALID_PARAM, aclopCompile("Add", -1, descs, 1, descs, NULL, ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL));
    EXPECT(ACL_ERROR_API_NOT_SUPPORT,
           aclopCompile("Add", 1, descs, 1, descs, NULL, ACL_ENGINE_SYS, (aclopCompileType)5, NULL));
    EXPECT(ACL_ERROR_INVALID_PARAM, aclopCompile(NULL, 1, descs, 1, descs, NULL, ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL));
    EXPECT(ACL_ERROR_INVALID_PARAM, aclopCompile("Add", 1, NULL, 1, descs, NULL, ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL));
    EXPECT(ACL_ERROR_INVALID_PARAM,
           aclopCompile("Add", 1, nodesc, 1, descs, NULL, ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL));
    EXPECT(ACL_ERROR_INVALID_PARAM,
           aclopCompile("Add", 1, descs, 1, descs, NULL, ACL_ENGINE_SYS, ACL_COMPILE_UNREGISTERED, NULL));
    EXPECT(ACL_ERROR_API_NOT_SUPPORT,
           aclopCompile("Add", 1, descs, 1, descs, NULL, ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL));
    assert_true(contains(aclGetRecentErrMsg(), "Add"));
    EXPECT(ACL_ERROR_API_NOT_SUPPORT, aclopCompile("Relu", 0, NULL, 0, NULL, NULL, ACL_ENGINE_AICORE,
                                                   ACL_COMPILE_UNREGISTERED, "/opp"));
    /* aclopCompileAndExecute(V2) */
    EXPECT(ACL_ERROR_INVALID_PARAM, aclopCompileAndExecute("Add", 1, descs, NULL, 1, descs, obufs, NULL,
                                                           ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL, NULL));
    EXPECT(ACL_ERROR_API_NOT_SUPPORT, aclopCompileAndExecute("Add", 1, descs, bufs, 1, descs, obufs, NULL,
                                                             ACL_ENGINE_SYS, (aclopCompileType)9, NULL, NULL));
    EXPECT(ACL_ERROR_API_NOT_SUPPORT, aclopCompileAndExecute("Add", 1, descs, bufs, 1, descs, obufs, NULL,
                                                             ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL, NULL));
    aclTensorDesc *vd[1] = {(aclTensorDesc *)(uintptr_t)0x1000};
    aclDataBuffer *vb[1] = {(aclDataBuffer *)(uintptr_t)0x2000};
    EXPECT(ACL_ERROR_INVALID_PARAM, aclopCompileAndExecuteV2("Add", 1, vd, vb, -3, vd, vb, NULL, ACL_ENGINE_SYS,
                                                             ACL_COMPILE_SYS, NULL, NULL));
    EXPECT(ACL_ERROR_API_NOT_SUPPORT, aclopCompileAndExecuteV2("Add", 1, vd, vb, 1, vd, vb, NULL, ACL_ENGINE_SYS,
                                                               ACL_COMPILE_SYS, NULL, NULL));
    /* Graph dump */
    aclGraphDumpOption *opt = aclCreateGraphDumpOpt();
    assert_non_null(opt);
    EXPECT(ACL_ERROR_INVALID_PARAM,
           aclGenGraphAndDumpForOp("Add", 1, descs, bufs, 1, descs, obufs, NULL, ACL_ENGINE_SYS, "/tmp/g.txt", opt));
    EXPECT(ACL_ERROR_INVALID_PARAM,
           aclGenGraphAndDumpForOp("Add", 1, descs, bufs, 1, descs, obufs, NULL, ACL_ENGINE_SYS, NULL, NULL));
    EXPECT(ACL_ERROR_API_NOT_SUPPORT,
           aclGenGraphAndDumpForOp("Add", 1, descs, bufs, 1, descs, obufs, NULL, ACL_ENGINE_SYS, "/tmp/g.txt", NULL));
    EXPECT(ACL_SUCCESS, aclDestroyGraphDumpOpt(opt));
    EXPECT(ACL_ERROR_INVALID_PARAM, aclDestroyGraphDumpOpt(opt));
    EXPECT(ACL_ERROR_INVALID_PARAM, aclDestroyGraphDumpOpt(NULL));
}

static void *set_many(void *arg)
{
    for (int i = 0; i < 2000; i++) {
        char v[32];
        snprintf(v, sizeof(v), "value-%d-%d", (int)(intptr_t)arg, i);
        if (aclSetCompileopt(ACL_OP_DEBUG_OPTION, v) != ACL_SUCCESS)
            return (void *)1;
        char buf[64];
        size_t n = aclGetCompileoptSize(ACL_OP_DEBUG_OPTION);
        aclError rc = aclGetCompileopt(ACL_OP_DEBUG_OPTION, buf, sizeof(buf));
        if (n == 0 || (rc != ACL_SUCCESS && rc != ACL_ERROR_FAILURE) || (rc == ACL_SUCCESS && strncmp(buf, "value-", 6)))
            return (void *)1;
    }
    return NULL;
}

/* Options set and read from several threads at once. */
static void test_options_concurrently(void **state)
{
    (void)state;
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, set_many, (void *)(intptr_t)i), 0);
    for (int i = 0; i < 4; i++) {
        void *r = NULL;
        assert_int_equal(pthread_join(t[i], &r), 0);
        assert_null(r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_and_get_options),
        cmocka_unit_test(test_compile_flag),
        cmocka_unit_test(test_compile_entry_points),
        cmocka_unit_test(test_options_concurrently),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
