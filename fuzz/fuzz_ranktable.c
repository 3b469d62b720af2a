/*
 * Fuzz target: the HCCL rank-table parser (src/hccl/ranktable.c).
 *
 * The input is the table's text. hc_ranktable_parse, the validation HcclCommInitClusterInfo runs
 * before any rendezvous, is called directly for several ranks, so no socket is ever opened. The
 * public entry is driven too (every valid table, a sample of the others), on the same bytes in a
 * memfd (/proc/self/fd/N), with a rank no table can hold (HC_MAX_RANKS): it reads and validates
 * the file and must fail before the rendezvous.
 *
 * What must hold: no crash, leak or undefined behaviour; a failure is HCCL_E_PARA (or
 * HCCL_E_MEMORY) with a message; a success describes a consistent job: 1 <= nranks <= 1024, the
 * rank below nranks, rank 0's address an IPv4 address, a port in 1..65535, the text without a
 * NUL byte (a NUL would hide what follows it from the parser); the same table parses to the same
 * result for every rank it lists and fails for the rank past its end.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "acl/acl.h"
#include "hccl_internal.h"

#define MAX_TEXT (64 * 1024)

static int g_fd = -1;
static char g_path[64];

static void fail(const char *what, const char *why)
{
    fprintf(stderr, "fuzz_ranktable: %s (%s)\n", what, why ? why : "");
    abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* The default rendezvous port base, whatever the caller's environment says. */
    unsetenv("HCCL_IF_BASE_PORT");
    g_fd = memfd_create("fuzz_ranktable", MFD_CLOEXEC);
    if (g_fd < 0)
        abort();
    snprintf(g_path, sizeof g_path, "/proc/self/fd/%d", g_fd);
    return 0;
}

static int parse(const char *text, size_t n, uint32_t rank, hc_ranktable *rt, char *why, size_t wn)
{
    memset(rt, 0xa5, sizeof *rt);
    why[0] = '\0';
    const int rc = hc_ranktable_parse(text, n, rank, rt, why, wn);
    if (rc != HCCL_SUCCESS && rc != HCCL_E_PARA && rc != HCCL_E_MEMORY)
        fail("not a documented code", why);
    if (rc != HCCL_SUCCESS && why[0] == '\0')
        fail("a failure without a reason", NULL);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_TEXT)
        return 0;
    static char text[MAX_TEXT + 1];
    memcpy(text, data, size);
    text[size] = '\0';

    hc_ranktable rt, other;
    char why[320];
    const int rc0 = parse(text, size, 0, &rt, why, sizeof why);
    if (rc0 == HCCL_SUCCESS) {
        if (memchr(data, '\0', size) != NULL)
            fail("a table holding a NUL byte was accepted", NULL);
        if (rt.nranks < 1 || rt.nranks > HC_MAX_RANKS)
            fail("nranks out of [1, 1024]", NULL);
        if (memchr(rt.r0_ip, '\0', sizeof rt.r0_ip) == NULL)
            fail("rank 0's address is not terminated", NULL);
        unsigned char a[4];
        if (inet_pton(AF_INET, rt.r0_ip, a) != 1)
            fail("rank 0's address is not IPv4", rt.r0_ip);
        if (rt.r0_port == 0)
            fail("port 0", NULL);
        const uint32_t ranks[] = {1, rt.nranks / 2, rt.nranks - 1};
        for (size_t i = 0; i < sizeof ranks / sizeof ranks[0]; i++) {
            if (ranks[i] >= rt.nranks)
                continue;
            if (parse(text, size, ranks[i], &other, why, sizeof why) != HCCL_SUCCESS)
                fail("a rank the table lists is rejected", why);
            if (other.nranks != rt.nranks || strcmp(other.r0_ip, rt.r0_ip) != 0 || other.r0_port != rt.r0_port ||
                other.nonce != rt.nonce)
                fail("two ranks of one table see different jobs", NULL);
        }
        if (parse(text, size, rt.nranks, &other, why, sizeof why) == HCCL_SUCCESS)
            fail("a rank past the table's end is accepted", NULL);
    } else if (parse(text, size, 1, &other, why, sizeof why) == HCCL_SUCCESS) {
        /* Rank 0 must be in every valid table: a table valid for rank 1 lists rank 0 too. */
        fail("a table valid for rank 1 but not for rank 0", why);
    }

    /* The public entry on the same bytes: reading and validation, then a failure, since no table
     * holds rank HC_MAX_RANKS; it never reaches the rendezvous. It reads into a buffer of the
     * size limit (4 MiB), which ASan makes cost milliseconds: every valid table goes through
     * it, and one input in 32 of the others (chosen by a hash of the input, so a replay repeats
     * it). */
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 16777619u;
    if (rc0 != HCCL_SUCCESS && h % 32 != 0)
        return 0;
    if (ftruncate(g_fd, 0) != 0 || pwrite(g_fd, data, size, 0) != (ssize_t)size)
        abort();
    HcclComm comm = NULL;
    const HcclResult rc = HcclCommInitClusterInfo(g_path, HC_MAX_RANKS, &comm);
    const char *msg = aclGetRecentErrMsg();
    if (rc != HCCL_E_PARA || comm != NULL)
        fail("HcclCommInitClusterInfo with a rank outside every table did not fail with HCCL_E_PARA", msg);
    if (msg == NULL || strstr(msg, "HcclCommInitClusterInfo") == NULL)
        fail("HcclCommInitClusterInfo failed without its message", msg);
    return 0;
}
