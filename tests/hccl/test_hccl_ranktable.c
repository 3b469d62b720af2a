/* HcclCommInitClusterInfo on hostile rank tables: every field is validated (integers integral and
 * in range, IPs, ports 1-65535, documented types and required fields), the message names the
 * field, and only regular files are read (a FIFO must not block the call). A valid one-rank table
 * still makes a working communicator. */
#include "hccl_test_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cmocka.h>

static char g_dir[64];

static void on_alarm(int sig)
{
    (void)sig;
    static const char m[] = "\nwatchdog: HcclCommInitClusterInfo blocked\n";
    ssize_t w = write(2, m, sizeof m - 1);
    (void)w;
    _exit(1);
}

static int group_setup(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/cannon_rt_tbl_XXXXXX");
    if (mkdtemp(g_dir) == NULL)
        return -1;
    signal(SIGALRM, on_alarm);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS)
        return -1;
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    aclrtResetDevice(0);
    aclFinalize();
    rmdir(g_dir);
    return 0;
}

static const char *write_table(const char *name, const char *text)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* A one-server table; `dev0` is rank 0's device entry, `extra` more top-level members. */
static const char *table(const char *top, const char *server, const char *dev0)
{
    static char text[2048];
    snprintf(text, sizeof text,
             "{%s\"version\": \"1.0\", \"server_list\": [{%s\"device\": [{%s}]}]}",
             top ? top : "\"status\": \"completed\", \"server_count\": \"1\", ",
             server ? server : "\"server_id\": \"node_0\", \"host_ip\": \"127.0.0.1\", ",
             dev0 ? dev0 : "\"device_id\": \"0\", \"rank_id\": \"0\"");
    return write_table("t.json", text);
}

static void expect_para(const char *path, const char *field)
{
    alarm(20);
    HcclComm comm = NULL;
    HcclResult rc = HcclCommInitClusterInfo(path, 0, &comm);
    alarm(0);
    const char *msg = aclGetRecentErrMsg();
    if (rc != HCCL_E_PARA)
        fail_msg("%s: got %d, want HCCL_E_PARA (%s)", field, (int)rc, msg ? msg : "(none)");
    assert_null(comm);
    if (msg == NULL || strstr(msg, field) == NULL)
        fail_msg("the message does not name %s: %s", field, msg ? msg : "(none)");
}

static void test_integers(void **s)
{
    (void)s;
    expect_para(table(NULL, NULL, "\"device_id\": \"99999999999999999999\", \"rank_id\": \"0\""), "device_id");
    expect_para(table(NULL, NULL, "\"device_id\": \"-1\", \"rank_id\": \"0\""), "device_id");
    expect_para(table(NULL, NULL, "\"device_id\": \"0\", \"rank_id\": 1e300"), "rank_id");
    expect_para(table(NULL, NULL, "\"device_id\": \"0\", \"rank_id\": 1.7"), "rank_id");
    expect_para(table(NULL, NULL, "\"device_id\": \"0\", \"rank_id\": -0.5"), "rank_id");
    expect_para(table(NULL, NULL, "\"device_id\": \"0\", \"rank_id\": \"1.7\""), "rank_id");
    expect_para(table(NULL, NULL, "\"device_id\": \"0\", \"rank_id\": \" 0\""), "rank_id");
    expect_para(table(NULL, NULL, "\"device_id\": \"0\", \"rank_id\": \"+0\""), "rank_id");
    expect_para(table(NULL, NULL, "\"device_id\": \"0\", \"rank_id\": \"0\\u00001\""), "rank_id");
    expect_para(table(NULL, NULL, "\"device_id\": \"0\", \"rank_id\": true"), "rank_id");
    expect_para(table(NULL, NULL, "\"device_id\": \"0\""), "rank_id");
    expect_para(table(NULL, NULL, "\"rank_id\": \"0\""), "device_id");
    expect_para(table(NULL, NULL, "\"device_id\": \"0\", \"rank_id\": \"1\""), "rank_id"); /* out of range */
    expect_para(table("\"status\": \"completed\", \"server_count\": \"2\", ", NULL, NULL), "server_count");
    expect_para(table("\"status\": \"completed\", \"server_count\": \"x\", ", NULL, NULL), "server_count");
    expect_para(table("\"status\": \"completed\", ", NULL, NULL), "server_count"); /* required in 1.0 */
}

static void test_addresses(void **s)
{
    (void)s;
    expect_para(table(NULL, "\"server_id\": \"node_0\", \"host_ip\": \"999.1.1.1\", ", NULL), "host_ip");
    expect_para(table(NULL, "\"server_id\": \"node_0\", \"host_ip\": 127, ", NULL), "host_ip");
    expect_para(table(NULL, "\"server_id\": \"node_0\", \"host_ip\": \"127.0.0.1\\u0000x\", ", NULL), "host_ip");
    expect_para(table(NULL, NULL, "\"device_id\": \"0\", \"rank_id\": \"0\", \"host_port\": \"70000\""), "host_port");
    expect_para(table(NULL, NULL, "\"device_id\": \"0\", \"rank_id\": \"0\", \"host_port\": \"0\""), "host_port");
    expect_para(table(NULL, NULL, "\"device_id\": \"0\", \"rank_id\": \"0\", \"host_port\": 65536"), "host_port");
    expect_para(table(NULL, NULL, "\"device_id\": \"0\", \"rank_id\": \"0\", \"device_port\": \"65536\""),
                "device_port");
    expect_para(table(NULL, NULL, "\"device_id\": \"0\", \"rank_id\": \"0\", \"device_ip\": \"1.2.3\""), "device_ip");
    /* rank 0's port from HCCL_IF_BASE_PORT + device_id must be a port too */
    expect_para(table(NULL, NULL, "\"device_id\": \"70000\", \"rank_id\": \"0\""), "port");
}

static void test_strings_and_types(void **s)
{
    (void)s;
    expect_para(table("\"status\": 1, \"server_count\": \"1\", ", NULL, NULL), "status");
    expect_para(table("\"status\": \"initializing\", \"server_count\": \"1\", ", NULL, NULL), "status");
    expect_para(table("\"status\": \"completed\\u0000x\", \"server_count\": \"1\", ", NULL, NULL), "status");
    expect_para(table("\"server_count\": \"1\", ", NULL, NULL), "status"); /* required */
    expect_para(table(NULL, "\"host_ip\": \"127.0.0.1\", ", NULL), "server_id");
    expect_para(table(NULL, "\"server_id\": 5, ", NULL), "server_id");
    expect_para(write_table("v.json", "{\"status\": \"completed\", \"version\": 1.0, \"server_count\": \"1\", "
                                      "\"server_list\": []}"),
                "version");
    expect_para(write_table("l.json", "{\"status\": \"completed\", \"version\": \"1.0\", \"server_count\": \"1\", "
                                      "\"server_list\": [5]}"),
                "server_list");
    expect_para(write_table("d.json", "{\"status\": \"completed\", \"version\": \"1.0\", \"server_count\": \"1\", "
                                      "\"server_list\": [{\"server_id\": \"a\", \"device\": [\"x\"]}]}"),
                "device");
    expect_para(write_table("j.json", "{\"status\": \"completed\", "), "JSON");
}

/* A NUL byte ends the text for the JSON parser: a valid table followed by one and anything else
 * must not pass as the valid table. */
static void test_nul_byte(void **s)
{
    (void)s;
    const char *path = table(NULL, NULL, NULL);
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    static const char tail[] = "\0{\"ignored\": 1}";
    assert_int_equal(fwrite(tail, 1, sizeof tail - 1, f), sizeof tail - 1);
    fclose(f);
    expect_para(path, "NUL byte");
}

static void test_special_files(void **s)
{
    (void)s;
    char fifo[96];
    snprintf(fifo, sizeof fifo, "%s/fifo", g_dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    expect_para(fifo, "not a regular file");
    unlink(fifo);
    expect_para(g_dir, "not a regular file");
    expect_para("/dev/null", "not a regular file");
}

static void test_valid_one_rank_table(void **s)
{
    (void)s;
    /* A free port of our own: the default (HCCL_IF_BASE_PORT + device_id) may be taken. */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t l = sizeof a;
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &l), 0);
    close(fd);
    char dev0[160];
    snprintf(dev0, sizeof dev0, "\"device_id\": \"0\", \"device_ip\": \"127.0.0.1\", \"host_port\": \"%d\", "
             "\"rank_id\": \"0\"", ntohs(a.sin_port));
    const char *path = table(NULL, NULL, dev0);
    HcclComm comm = NULL;
    assert_int_equal(HcclCommInitClusterInfo(path, 0, &comm), HCCL_SUCCESS);
    uint32_t n = 0;
    assert_int_equal(HcclGetRankSize(comm, &n), HCCL_SUCCESS);
    assert_int_equal(n, 1);
    assert_int_equal(HcclCommDestroy(comm), HCCL_SUCCESS);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integers),          cmocka_unit_test(test_addresses),
        cmocka_unit_test(test_strings_and_types), cmocka_unit_test(test_special_files),
        cmocka_unit_test(test_valid_one_rank_table), cmocka_unit_test(test_nul_byte),
    };
    if (getenv("CANNON_TEST_FILTER"))
        cmocka_set_test_filter(getenv("CANNON_TEST_FILTER"));
    int rc = cmocka_run_group_tests(tests, group_setup, group_teardown);
    char path[128];
    const char *names[] = {"t.json", "v.json", "l.json", "d.json", "j.json"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", g_dir, names[i]);
        unlink(path);
    }
    rmdir(g_dir);
    return rc;
}
