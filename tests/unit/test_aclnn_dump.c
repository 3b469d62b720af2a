/* The operator dump (CANNON_DUMP, the config's dump section): two threads, each on its own device
 * and stream, run aclnnAdd on a transposed view; every run's input and output files hold the
 * logical values the operator read and wrote, in each device's call order, and the manifest lists
 * them. An unwritable folder fails aclInit; with no dump, cannonDumpActive() is 0. (The Python
 * test test_dump.py covers dtypes, filters, stats and cannon-compare.) */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cannon_testutil_fs.h"

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_add.h"
#include "cannon/dump.h"

static char g_tmp[256];

static void make_tmp(void)
{
    assert_int_equal(cn_tu_make_tmpdir(g_tmp, sizeof g_tmp, "cannon_dump_test"), 0);
}

/* Read an .npy file of float32 values: the header's descr and shape, and n values. */
static void read_npy_f32(const char *path, const char *shape, float *out, size_t n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char pre[10];
    assert_int_equal(fread(pre, 1, 10, f), 10);
    assert_memory_equal(pre, "\x93NUMPY\x01\x00", 8);
    size_t hlen = (size_t)pre[8] | ((size_t)pre[9] << 8);
    assert_int_equal((10 + hlen) % 64, 0);
    char hdr[1024];
    assert_true(hlen < sizeof hdr);
    assert_int_equal(fread(hdr, 1, hlen, f), hlen);
    hdr[hlen] = '\0';
    assert_non_null(strstr(hdr, "'descr': '<f4'"));
    assert_non_null(strstr(hdr, "'fortran_order': False"));
    assert_non_null(strstr(hdr, shape));
    assert_int_equal(fread(out, sizeof(float), n, f), n);
    assert_int_equal(fgetc(f), EOF);
    fclose(f);
}

enum { R = 2, C = 3, RUNS = 12 };

/* A run on device dev: x is the transpose of a [R, C] buffer (a [C, R] view, strides {1, C}); out =
 * x + alpha * y with y contiguous [C, R], alpha = run + 1, a = dev * 100 + i. */
static float a_val(int dev, int i) { return (float)(dev * 100 + i); }
static float y_val(int i) { return 0.5f * (float)i; }

static void *thread_body(void *arg)
{
    int dev = (int)(intptr_t)arg;
    intptr_t bad = aclrtSetDevice(dev) != ACL_SUCCESS;
    aclrtStream s = NULL;
    bad |= aclrtCreateStream(&s) != ACL_SUCCESS;
    float ha[R * C], hy[R * C];
    for (int i = 0; i < R * C; i++) {
        ha[i] = a_val(dev, i);
        hy[i] = y_val(i);
    }
    void *da = NULL, *dy = NULL, *dout = NULL;
    bad |= aclrtMalloc(&da, sizeof ha, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS;
    bad |= aclrtMalloc(&dy, sizeof hy, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS;
    bad |= aclrtMalloc(&dout, sizeof ha * RUNS, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS;
    if (bad)
        return (void *)bad;
    bad |= aclrtMemcpy(da, sizeof ha, ha, sizeof ha, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS;
    bad |= aclrtMemcpy(dy, sizeof hy, hy, sizeof hy, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS;
    int64_t vshape[2] = {C, R}, vstrides[2] = {1, C}, cstrides[2] = {R, 1}, storage[1] = {R * C};
    aclTensor *x = aclCreateTensor(vshape, 2, ACL_FLOAT, vstrides, 0, ACL_FORMAT_ND, storage, 1, da);
    aclTensor *y = aclCreateTensor(vshape, 2, ACL_FLOAT, cstrides, 0, ACL_FORMAT_ND, vshape, 2, dy);
    for (int r = 0; r < RUNS && !bad; r++) {
        /* each run writes its own slice of dout: the files must hold the values of that run */
        int64_t ostorage[1] = {R * C * RUNS};
        aclTensor *out = aclCreateTensor(vshape, 2, ACL_FLOAT, cstrides, (int64_t)r * R * C, ACL_FORMAT_ND,
                                         ostorage, 1, dout);
        float alpha = (float)(r + 1);
        aclScalar *al = aclCreateScalar(&alpha, ACL_FLOAT);
        uint64_t ws = 0;
        aclOpExecutor *ex = NULL;
        bad |= aclnnAddGetWorkspaceSize(x, y, al, out, &ws, &ex) != ACLNN_SUCCESS || ws != 0;
        bad |= !bad && aclnnAdd(NULL, 0, ex, s) != ACLNN_SUCCESS;
        aclDestroyScalar(al);
        aclDestroyTensor(out);
    }
    bad |= aclrtSynchronizeStream(s) != ACL_SUCCESS;
    aclDestroyTensor(x);
    aclDestroyTensor(y);
    bad |= aclrtFree(da) != ACL_SUCCESS || aclrtFree(dy) != ACL_SUCCESS || aclrtFree(dout) != ACL_SUCCESS;
    bad |= aclrtDestroyStream(s) != ACL_SUCCESS;
    bad |= aclrtResetDevice(dev) != ACL_SUCCESS;
    return (void *)bad;
}

static void check_device(int dev)
{
    char path[512];
    snprintf(path, sizeof path, "%s/device%d/manifest.jsonl", g_tmp, dev);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[4096];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        char want[64];
        snprintf(want, sizeof want, "{\"index\":%d,\"op\":\"Add\",\"api\":\"aclnnAdd\",\"device\":%d,", n, dev);
        assert_memory_equal(line, want, strlen(want));
        assert_non_null(strstr(line, "\"role\":\"input\",\"pos\":0,\"dtype\":\"float32\",\"acl_dtype\":0,"
                                     "\"shape\":[3,2],\"strides\":[1,3],\"offset\":0,\"npy\":\"<f4\""));
        char file[64];
        snprintf(file, sizeof file, "\"file\":\"%06d_Add.output.0.npy\"", n);
        assert_non_null(strstr(line, file));
        /* the transposed input, as logical values, and the run's output */
        float x[R * C], yv[R * C], o[R * C];
        snprintf(path, sizeof path, "%s/device%d/%06d_Add.input.0.npy", g_tmp, dev, n);
        read_npy_f32(path, "'shape': (3, 2)", x, R * C);
        snprintf(path, sizeof path, "%s/device%d/%06d_Add.input.1.npy", g_tmp, dev, n);
        read_npy_f32(path, "'shape': (3, 2)", yv, R * C);
        snprintf(path, sizeof path, "%s/device%d/%06d_Add.output.0.npy", g_tmp, dev, n);
        read_npy_f32(path, "'shape': (3, 2)", o, R * C);
        for (int i = 0; i < C; i++) {
            for (int j = 0; j < R; j++) {
                float xv = a_val(dev, j * C + i); /* x[i][j] = a[j][i] */
                assert_true(x[i * R + j] == xv);
                assert_true(yv[i * R + j] == y_val(i * R + j));
                assert_true(o[i * R + j] == xv + (float)(n + 1) * y_val(i * R + j));
            }
        }
        n++;
    }
    fclose(f);
    assert_int_equal(n, RUNS);
}

static void test_two_devices(void **state)
{
    (void)state;
    make_tmp();
    setenv("CANNON_DUMP", g_tmp, 1);
    setenv("CANNON_DUMP_MODE", "all", 1);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_not_equal(cannonDumpActive(), 0);
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&th[i], NULL, thread_body, (void *)(intptr_t)(i + 1)), 0);
    for (int i = 0; i < 2; i++) {
        void *rv;
        assert_int_equal(pthread_join(th[i], &rv), 0);
        assert_null(rv);
    }
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    assert_int_equal(cannonDumpActive(), 0);
    unsetenv("CANNON_DUMP");
    unsetenv("CANNON_DUMP_MODE");
    check_device(1);
    check_device(2);
    char p[512];
    snprintf(p, sizeof p, "%s/device0", g_tmp);
    struct stat st;
    assert_int_not_equal(stat(p, &st), 0); /* device 0 ran nothing */
    cn_tu_remove_tree(g_tmp);
}

static void test_unwritable_and_off(void **state)
{
    (void)state;
    make_tmp();
    char file[300], bad[320];
    snprintf(file, sizeof file, "%s/file", g_tmp);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(bad, sizeof bad, "%s/sub", file);
    setenv("CANNON_DUMP", bad, 1);
    assert_int_equal(aclInit(NULL), ACL_ERROR_INVALID_DUMP_CONFIG);
    const char *msg = aclGetRecentErrMsg();
    assert_non_null(msg);
    assert_non_null(strstr(msg, "CANNON_DUMP"));
    (void)aclFinalize(); /* the drivers came up before the dump was refused */
    setenv("CANNON_DUMP", g_tmp, 1);
    setenv("CANNON_DUMP_MODE", "sideways", 1);
    assert_int_equal(aclInit(NULL), ACL_ERROR_INVALID_DUMP_CONFIG);
    (void)aclFinalize();
    unsetenv("CANNON_DUMP_MODE");
    unsetenv("CANNON_DUMP");
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(cannonDumpActive(), 0);
    assert_null(cannonDumpOpBegin(NULL, "aclnnAdd", NULL, 0));
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    cn_tu_remove_tree(g_tmp);
}

int main(void)
{
    unsetenv("CANNON_DUMP");
    unsetenv("CANNON_DUMP_OPS");
    unsetenv("CANNON_DUMP_MODE");
    unsetenv("CANNON_DUMP_DATA");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_devices),
        cmocka_unit_test(test_unwritable_and_off),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
