/* Unit tests of the aclInit JSON configuration (src/runtime/config.c). Fixtures live in
 * tests/data/config/; CTest points CANNON_TEST_DATA at tests/data. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "log.h"

static char g_dir[PATH_MAX];

static void find_data_dir(void)
{
    const char *env = getenv("CANNON_TEST_DATA");
    if (env && *env) {
        snprintf(g_dir, sizeof g_dir, "%s/config", env);
        return;
    }
    /* Fall back to the source tree: this file is tests/unit/test_config.c. */
    snprintf(g_dir, sizeof g_dir, "%s", __FILE__);
    char *slash = strrchr(g_dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(g_dir, sizeof g_dir, ".");
    strncat(g_dir, "/../data/config", sizeof g_dir - strlen(g_dir) - 1);
}

static const char *fixture(const char *name)
{
    static char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    return path;
}

static int setup(void **state)
{
    (void)state;
    cn_error_set_mode(0);
    cn_error_reset_all();
    cn_error_last(true);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cn_fault_inject_set(-1);
    cn_error_reset_all();
    return 0;
}

static void assert_default(const cn_config *c)
{
    assert_int_equal(c->err_msg_mode, 0);
    assert_int_equal(c->default_device, -1);
    assert_int_equal(c->max_opqueue_num, 20000);
    assert_false(c->dump_enabled);
    assert_null(c->dump_json);
    assert_null(c->dump_path);
    assert_false(c->profiler_enabled);
    assert_null(c->profiler_json);
    assert_null(c->profiler_output);
}

/* Load a fixture expecting `want`; on failure check *out is default and the message names the
 * file. Returns the config (caller frees). */
static cn_config load(const char *name, aclError want)
{
    cn_config c;
    memset(&c, 0x5a, sizeof c); /* garbage in: load must initialize everything */
    const char *path = fixture(name);
    aclError rc = cn_config_load(path, &c);
    if (rc != want)
        fail_msg("%s: got %d, want %d (%s)", name, (int)rc, (int)want, cn_error_take_recent());
    if (want != ACL_SUCCESS) {
        assert_default(&c);
        assert_int_equal(c.content_hash, 0);
        assert_int_equal(cn_error_last(false), want);
        const char *msg = cn_error_take_recent();
        assert_non_null(msg);
        assert_non_null(strstr(msg, "aclInit: config file \""));
        assert_non_null(strstr(msg, name));
    }
    return c;
}

static void expect_rc(const char *name, aclError want)
{
    cn_config c = load(name, want);
    cn_config_free(&c);
}

/* ---------------------------------------------------------------------------------------- */

static void test_defaults_null_and_empty_path(void **state)
{
    (void)state;
    cn_config c;
    memset(&c, 0x5a, sizeof c);
    assert_int_equal(cn_config_load(NULL, &c), ACL_SUCCESS);
    assert_default(&c);
    assert_int_equal(c.content_hash, 0);
    memset(&c, 0x5a, sizeof c);
    assert_int_equal(cn_config_load("", &c), ACL_SUCCESS);
    assert_default(&c);
    assert_int_equal(c.content_hash, 0);
    cn_config_free(&c);
    assert_null(cn_error_take_recent());
    cn_config_defaults(&c);
    assert_default(&c);
    cn_config_free(NULL);
}

static void test_missing_file(void **state)
{
    (void)state;
    expect_rc("does_not_exist.json", ACL_ERROR_INVALID_FILE);
}

static void test_directory_as_path(void **state)
{
    (void)state;
    cn_config c;
    assert_int_equal(cn_config_load(g_dir, &c), ACL_ERROR_INVALID_FILE);
    assert_default(&c);
    const char *msg = cn_error_take_recent();
    assert_non_null(msg);
    assert_non_null(strstr(msg, "directory"));
}

static void test_too_large(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/cannon_cfg_XXXXXX";
    int fd = mkstemp(tmpl);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 17 * 1024 * 1024), 0); /* sparse: cheap */
    close(fd);
    cn_config c;
    assert_int_equal(cn_config_load(tmpl, &c), ACL_ERROR_INVALID_FILE_SIZE);
    assert_default(&c);
    unlink(tmpl);
}

/* Only regular files are read: a FIFO would block the open (and aclInit holds the runtime's
 * lock meanwhile), a device could be endless. The watchdog turns a hang into a failure. */
static void on_alarm(int sig)
{
    (void)sig;
    static const char m[] = "\nwatchdog: cn_config_load blocked on a non-regular file\n";
    ssize_t w = write(2, m, sizeof m - 1);
    (void)w;
    _exit(1);
}

static void expect_not_regular(const char *path)
{
    signal(SIGALRM, on_alarm);
    alarm(20);
    cn_config c;
    memset(&c, 0x5a, sizeof c);
    aclError rc = cn_config_load(path, &c);
    alarm(0);
    const char *msg = cn_error_take_recent();
    if (rc != ACL_ERROR_INVALID_FILE)
        fail_msg("%s: got %d, want %d (%s)", path, (int)rc, (int)ACL_ERROR_INVALID_FILE, msg ? msg : "");
    assert_default(&c);
    assert_non_null(msg);
    assert_non_null(strstr(msg, "not a regular file"));
}

static void test_special_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/cannon_cfg_fifo_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char fifo[sizeof dir + 16];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    expect_not_regular(fifo);
    expect_not_regular("/dev/null");
    expect_not_regular("/dev/zero");
    expect_not_regular(dir);
    /* A symbolic link to a regular file is read; one to a FIFO is not. */
    char link_fifo[sizeof dir + 16], link_ok[sizeof dir + 16];
    snprintf(link_fifo, sizeof link_fifo, "%s/lf", dir);
    snprintf(link_ok, sizeof link_ok, "%s/lo", dir);
    assert_int_equal(symlink(fifo, link_fifo), 0);
    assert_int_equal(symlink(fixture("err_msg_mode_1.json"), link_ok), 0);
    expect_not_regular(link_fifo);
    cn_config c;
    assert_int_equal(cn_config_load(link_ok, &c), ACL_SUCCESS);
    assert_int_equal(c.err_msg_mode, 1);
    cn_config_free(&c);
    unlink(link_fifo);
    unlink(link_ok);
    unlink(fifo);
    rmdir(dir);
}

/* The size limit (1 MiB) holds for the file as read, not only as stat'ed. */
static void test_size_limit(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/cannon_cfg_XXXXXX";
    int fd = mkstemp(tmpl);
    assert_true(fd >= 0);
    /* Exactly the limit: whitespace around an object is a valid (default) config. */
    size_t limit = (size_t)1 << 20;
    char *buf = malloc(limit + 1);
    assert_non_null(buf);
    memset(buf, ' ', limit + 1);
    buf[0] = '{';
    buf[1] = '}';
    assert_int_equal(write(fd, buf, limit), (ssize_t)limit);
    cn_config c;
    assert_int_equal(cn_config_load(tmpl, &c), ACL_SUCCESS);
    cn_config_free(&c);
    /* One byte more. */
    assert_int_equal(write(fd, buf + 2, 1), 1);
    close(fd);
    assert_int_equal(cn_config_load(tmpl, &c), ACL_ERROR_INVALID_FILE_SIZE);
    assert_default(&c);
    const char *msg = cn_error_take_recent();
    assert_non_null(msg);
    assert_non_null(strstr(msg, "1048576"));
    free(buf);
    unlink(tmpl);
}

/* cJSON decodes \u0000 into a NUL byte, so "1\u0000x" would read as "1": every string of the
 * file is checked, and the message names the key. */
static void expect_nul(const char *name, aclError want, const char *key)
{
    cn_config c;
    memset(&c, 0x5a, sizeof c);
    aclError rc = cn_config_load(fixture(name), &c);
    const char *msg = cn_error_take_recent();
    if (rc != want)
        fail_msg("%s: got %d, want %d (%s)", name, (int)rc, (int)want, msg ? msg : "");
    assert_default(&c);
    assert_non_null(msg);
    if (!strstr(msg, key) || !strstr(msg, "NUL"))
        fail_msg("%s: the message does not name %s and the NUL: %s", name, key, msg);
}

static void test_embedded_nul(void **state)
{
    (void)state;
    expect_nul("err_msg_mode_nul.json", ACL_ERROR_INVALID_PARAM, "err_msg_mode");
    expect_nul("key_nul.json", ACL_ERROR_PARSE_FILE, "err_msg_mode");
    expect_nul("dump_path_nul.json", ACL_ERROR_INVALID_DUMP_CONFIG, "dump.dump_path");
    expect_nul("default_device_nul.json", ACL_ERROR_FAILURE, "defaultDevice.default_device");
    expect_nul("unknown_value_nul.json", ACL_ERROR_PARSE_FILE, "unknown");
    /* An escaped backslash followed by "u0000" is ordinary text. */
    cn_config c = load("dump_path_escaped_backslash.json", ACL_SUCCESS);
    assert_string_equal(c.dump_path, "out\\u0000put");
    cn_config_free(&c);
}

/* A raw NUL byte (JSON has none, escaped or not) would end the string it is in for cJSON. */
static void test_raw_nul(void **state)
{
    (void)state;
    const char *names[] = {"err_msg_mode_raw_nul.json", "dump_path_raw_nul.json"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        cn_config c;
        aclError rc = cn_config_load(fixture(names[i]), &c);
        const char *msg = cn_error_take_recent();
        if (rc != ACL_ERROR_PARSE_FILE || !msg || !strstr(msg, "NUL byte"))
            fail_msg("%s: got %d (%s), want %d naming the NUL byte", names[i], (int)rc, msg ? msg : "no message",
                     (int)ACL_ERROR_PARSE_FILE);
        assert_default(&c);
    }
}

static void test_empty_whitespace_and_braces(void **state)
{
    (void)state;
    cn_config c = load("empty.json", ACL_SUCCESS);
    assert_default(&c);
    assert_int_equal(c.content_hash, 0);
    cn_config_free(&c);
    c = load("whitespace.json", ACL_SUCCESS);
    assert_default(&c);
    cn_config_free(&c);
    c = load("empty_object.json", ACL_SUCCESS);
    assert_default(&c);
    assert_true(c.content_hash != 0);
    cn_config_free(&c);
    assert_null(cn_error_take_recent());
}

static void test_content_hash(void **state)
{
    (void)state;
    cn_config a = load("err_msg_mode_0.json", ACL_SUCCESS);
    cn_config b = load("err_msg_mode_0.json", ACL_SUCCESS);
    cn_config d = load("err_msg_mode_1.json", ACL_SUCCESS);
    assert_true(a.content_hash != 0);
    assert_true(a.content_hash == b.content_hash);
    assert_true(a.content_hash != d.content_hash);
    cn_config_free(&a);
    cn_config_free(&b);
    cn_config_free(&d);
}

static void test_malformed(void **state)
{
    (void)state;
    expect_rc("malformed.json", ACL_ERROR_PARSE_FILE);
    expect_rc("trailing_garbage.json", ACL_ERROR_PARSE_FILE);
    expect_rc("top_array.json", ACL_ERROR_PARSE_FILE);
    expect_rc("top_string.json", ACL_ERROR_PARSE_FILE);
}

static void test_malformed_reports_position(void **state)
{
    (void)state;
    cn_config c;
    assert_int_equal(cn_config_load(fixture("malformed.json"), &c), ACL_ERROR_PARSE_FILE);
    const char *msg = cn_error_take_recent();
    assert_non_null(msg);
    assert_non_null(strstr(msg, "line 2"));
}

static void test_nesting(void **state)
{
    (void)state;
    expect_rc("nesting_braces_10.json", ACL_SUCCESS);
    expect_rc("nesting_braces_11.json", ACL_ERROR_PARSE_FILE);
    expect_rc("nesting_brackets_10.json", ACL_SUCCESS);
    expect_rc("nesting_brackets_11.json", ACL_ERROR_PARSE_FILE);
    expect_rc("nesting_mixed_10.json", ACL_SUCCESS);
    expect_rc("brackets_in_string.json", ACL_SUCCESS);
}

static void test_err_msg_mode(void **state)
{
    (void)state;
    cn_config c = load("err_msg_mode_0.json", ACL_SUCCESS);
    assert_int_equal(c.err_msg_mode, 0);
    cn_config_free(&c);
    c = load("err_msg_mode_1.json", ACL_SUCCESS);
    assert_int_equal(c.err_msg_mode, 1);
    cn_config_free(&c);
    expect_rc("err_msg_mode_int.json", ACL_ERROR_INVALID_PARAM);
    expect_rc("err_msg_mode_bad.json", ACL_ERROR_INVALID_PARAM);
}

static void test_default_device(void **state)
{
    (void)state;
    cn_config c = load("default_device_ok.json", ACL_SUCCESS);
    assert_int_equal(c.default_device, 7);
    cn_config_free(&c);
    c = load("default_device_zero.json", ACL_SUCCESS);
    assert_int_equal(c.default_device, 0);
    cn_config_free(&c);
    c = load("default_device_max.json", ACL_SUCCESS);
    assert_int_equal(c.default_device, INT32_MAX);
    cn_config_free(&c);
    expect_rc("default_device_overflow.json", ACL_ERROR_FAILURE);
    expect_rc("default_device_leading_zero.json", ACL_ERROR_FAILURE);
    expect_rc("default_device_negative.json", ACL_ERROR_FAILURE);
    expect_rc("default_device_int.json", ACL_ERROR_FAILURE);
    expect_rc("default_device_empty.json", ACL_ERROR_FAILURE);
    expect_rc("default_device_missing.json", ACL_ERROR_FAILURE);
    expect_rc("default_device_not_object.json", ACL_ERROR_FAILURE);
}

static void test_max_opqueue_num(void **state)
{
    (void)state;
    cn_config c = load("max_opqueue_string.json", ACL_SUCCESS);
    assert_int_equal(c.max_opqueue_num, 10000);
    cn_config_free(&c);
    c = load("max_opqueue_number.json", ACL_SUCCESS);
    assert_int_equal(c.max_opqueue_num, 500);
    cn_config_free(&c);
    expect_rc("max_opqueue_letters.json", ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG);
    expect_rc("max_opqueue_empty.json", ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG);
    expect_rc("max_opqueue_negative.json", ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG);
    expect_rc("max_opqueue_negative_string.json", ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG);
    expect_rc("max_opqueue_fraction.json", ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG);
    expect_rc("max_opqueue_overflow.json", ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG);
    expect_rc("max_opqueue_bool.json", ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG);
}

static void test_dump_valid(void **state)
{
    (void)state;
    cn_config c = load("dump_model.json", ACL_SUCCESS);
    assert_true(c.dump_enabled);
    assert_string_equal(c.dump_path, "/tmp/dump");
    assert_string_equal(c.dump_json, "{\"dump_path\":\"/tmp/dump\",\"dump_mode\":\"output\",\"dump_list\":"
                                     "[{\"model_name\":\"m\",\"layer\":[\"a\"]}]}");
    cn_config_free(&c);
    assert_default(&c);

    c = load("dump_op_switch.json", ACL_SUCCESS);
    assert_true(c.dump_enabled);
    cn_config_free(&c);
    c = load("dump_all_off.json", ACL_SUCCESS);
    assert_false(c.dump_enabled);
    assert_non_null(c.dump_json);
    assert_string_equal(c.dump_path, "out");
    cn_config_free(&c);
    c = load("dump_exception.json", ACL_SUCCESS);
    assert_true(c.dump_enabled);
    assert_null(c.dump_path);
    cn_config_free(&c);
    expect_rc("dump_exception_brief.json", ACL_SUCCESS);
    expect_rc("dump_watcher.json", ACL_SUCCESS);
    c = load("dump_debug_path.json", ACL_SUCCESS);
    assert_true(c.dump_enabled);
    cn_config_free(&c);
    expect_rc("dump_kernel_data.json", ACL_SUCCESS);
}

static void test_dump_invalid(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "dump_not_object.json", "dump_bad_mode.json", "dump_bad_op_switch.json", "dump_bad_debug.json",
        "dump_bad_data.json", "dump_bad_level.json", "dump_bad_scene.json", "dump_bad_kernel_data.json",
        "dump_bad_path.json", "dump_list_not_array.json", "dump_list_not_objects.json",
        "dump_list_bad_layer.json", "dump_scene_with_list.json", "dump_scene_with_op_switch.json",
        "dump_watcher_with_op_switch.json", "dump_debug_no_path.json",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_rc(bad[i], ACL_ERROR_INVALID_DUMP_CONFIG);
}

static void test_profiler(void **state)
{
    (void)state;
    cn_config c = load("profiler_on.json", ACL_SUCCESS);
    assert_true(c.profiler_enabled);
    assert_string_equal(c.profiler_output, "/tmp/prof");
    assert_non_null(c.profiler_json);
    assert_non_null(strstr(c.profiler_json, "\"switch\":\"on\""));
    cn_config_free(&c);
    c = load("profiler_off.json", ACL_SUCCESS);
    assert_false(c.profiler_enabled);
    assert_string_equal(c.profiler_json, "{\"switch\":\"off\"}");
    assert_null(c.profiler_output);
    cn_config_free(&c);
    c = load("profiler_unknown_key.json", ACL_SUCCESS);
    assert_true(c.profiler_enabled);
    cn_config_free(&c);
    static const char *const bad[] = {
        "profiler_not_object.json", "profiler_bad_switch.json", "profiler_bad_switch_type.json",
        "profiler_bad_output.json", "profiler_bad_aicpu.json", "profiler_bad_task_trace.json",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_rc(bad[i], ACL_ERROR_INVALID_PROFILING_CONFIG);
}

static void test_other_keys(void **state)
{
    (void)state;
    expect_rc("stack_size_ok.json", ACL_SUCCESS);
    expect_rc("stack_size_not_object.json", ACL_ERROR_INVALID_PARAM);
    expect_rc("stack_size_bad_value.json", ACL_ERROR_INVALID_PARAM);
    expect_rc("acl_graph_ok.json", ACL_SUCCESS);
    expect_rc("acl_graph_bad.json", ACL_ERROR_INVALID_PARAM);
    expect_rc("acl_graph_not_object.json", ACL_ERROR_INVALID_PARAM);
    expect_rc("printf_fifo_ok.json", ACL_SUCCESS);
    expect_rc("printf_fifo_bad.json", ACL_ERROR_INVALID_PARAM);
    assert_null(cn_error_take_recent());
}

/* Unknown keys are accepted and each gets one INFO line (checked with logging on, to a file). */
static void test_unknown_keys_logged(void **state)
{
    (void)state;
    char dir[] = "/tmp/cannon_cfglog_XXXXXX";
    assert_non_null(mkdtemp(dir));
    setenv("ASCEND_GLOBAL_LOG_LEVEL", "1", 1);
    setenv("ASCEND_PROCESS_LOG_PATH", dir, 1);
    unsetenv("ASCEND_MODULE_LOG_LEVEL");
    unsetenv("ASCEND_LOG_PRINT_TO_STDOUT");
    unsetenv("ASCEND_SLOG_PRINT_TO_STDOUT");
    cn_log_configure();

    cn_config c = load("unknown_keys.json", ACL_SUCCESS);
    assert_default(&c);
    cn_config_free(&c);

    unsetenv("ASCEND_GLOBAL_LOG_LEVEL");
    unsetenv("ASCEND_PROCESS_LOG_PATH");
    cn_log_configure(); /* closes the file */

    char cmd[256], buf[4096] = {0};
    snprintf(cmd, sizeof cmd, "cat %s/plog-*.log", dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(buf, 1, sizeof buf - 1, p);
    pclose(p);
    buf[n] = '\0';
    assert_non_null(strstr(buf, "[INFO] ASCENDCL("));
    assert_non_null(strstr(buf, "ignoring unknown key \"unknown_a\""));
    assert_non_null(strstr(buf, "ignoring unknown key \"unknown_b\""));
    assert_null(strstr(buf, "err_msg_mode"));
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_full_config(void **state)
{
    (void)state;
    cn_config c = load("full.json", ACL_SUCCESS);
    assert_int_equal(c.err_msg_mode, 1);
    assert_int_equal(c.default_device, 2);
    assert_int_equal(c.max_opqueue_num, 10000);
    assert_true(c.dump_enabled);
    assert_string_equal(c.dump_path, "output");
    assert_non_null(c.dump_json);
    assert_true(c.profiler_enabled);
    assert_string_equal(c.profiler_output, "prof_out");
    assert_non_null(c.profiler_json);
    assert_true(c.content_hash != 0);
    cn_config_free(&c);
    assert_default(&c);
}

/* Fail the n-th allocation for n = 0, 1, 2, ... until the load succeeds: every failure must be
 * ACL_ERROR_BAD_ALLOC with *out left default (ASan checks nothing leaks). */
static void test_fault_injection(void **state)
{
    (void)state;
    const char *path = fixture("full.json");
    long n;
    for (n = 0; n < 1000; n++) {
        cn_config c;
        cn_fault_inject_set(n);
        aclError rc = cn_config_load(path, &c);
        cn_fault_inject_set(-1);
        if (rc == ACL_SUCCESS) {
            assert_int_equal(c.err_msg_mode, 1);
            assert_string_equal(c.dump_path, "output");
            assert_string_equal(c.profiler_output, "prof_out");
            cn_config_free(&c);
            break;
        }
        assert_int_equal(rc, ACL_ERROR_BAD_ALLOC);
        assert_default(&c);
        cn_error_reset_all();
    }
    assert_true(n >= 5); /* read buffer + 4 strings */
    assert_true(n < 1000);
}

int main(void)
{
    find_data_dir();
    /* Keep the log environment of the caller from changing what these tests see. */
    unsetenv("ASCEND_GLOBAL_LOG_LEVEL");
    unsetenv("ASCEND_MODULE_LOG_LEVEL");
    cn_log_configure();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_defaults_null_and_empty_path, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_directory_as_path, setup, teardown),
        cmocka_unit_test_setup_teardown(test_too_large, setup, teardown),
        cmocka_unit_test_setup_teardown(test_special_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_size_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_embedded_nul, setup, teardown),
        cmocka_unit_test_setup_teardown(test_raw_nul, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty_whitespace_and_braces, setup, teardown),
        cmocka_unit_test_setup_teardown(test_content_hash, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed_reports_position, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nesting, setup, teardown),
        cmocka_unit_test_setup_teardown(test_err_msg_mode, setup, teardown),
        cmocka_unit_test_setup_teardown(test_default_device, setup, teardown),
        cmocka_unit_test_setup_teardown(test_max_opqueue_num, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dump_valid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dump_invalid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_profiler, setup, teardown),
        cmocka_unit_test_setup_teardown(test_other_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_keys_logged, setup, teardown),
        cmocka_unit_test_setup_teardown(test_full_config, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fault_injection, setup, teardown),
    };
    if (getenv("CANNON_TEST_FILTER"))
        cmocka_set_test_filter(getenv("CANNON_TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
