/*
 * Fuzz target: the aclInit JSON configuration (src/runtime/config.c) and the initialisation
 * around it.
 *
 * The input is the file's content, written to a memfd and handed to aclInit as
 * /proc/self/fd/N. When aclInit succeeds a few runtime calls follow: a second aclInit (the
 * reference count, config not re-read), aclrtGetDevice before any aclrtSetDevice (the
 * configured default device or "no context"), aclrtSetDevice(0), aclrtGetDevice, aclFinalize.
 * The runtime keeps the hash of the first successful configuration for the life of the process
 * (a later aclInit with other content is refused, as in CANN); this target clears it after each
 * aclFinalize so that every input is judged on its own.
 *
 * What must hold: every return is the documented code of its API, with a message on failure
 * (aclGetRecentErrMsg); no crash, leak (LeakSanitizer) or undefined behaviour; a failed aclInit
 * leaves the runtime uninitialised, a successful one is finalised cleanly.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "acl/acl.h"
#include "internal.h"

#define MAX_TEXT (256 * 1024)

static int g_fd = -1;
static char g_path[64];

static void fail(const char *what, int rc, const char *msg)
{
    fprintf(stderr, "fuzz_config: %s: %d (%s)\n", what, rc, msg ? msg : "no message");
    abort();
}

/* aclInit's codes: CANN's reference (acl-runtime.md §1, the config keys' own codes). */
static int init_code_ok(aclError rc)
{
    switch (rc) {
    case ACL_SUCCESS:
    case ACL_ERROR_INVALID_PARAM:
    case ACL_ERROR_INVALID_FILE:
    case ACL_ERROR_INVALID_FILE_SIZE:
    case ACL_ERROR_PARSE_FILE:
    case ACL_ERROR_INVALID_DUMP_CONFIG:
    case ACL_ERROR_INVALID_PROFILING_CONFIG:
    case ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG:
    case ACL_ERROR_FAILURE:
    case ACL_ERROR_BAD_ALLOC:
        return 1;
    default:
        return 0;
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("CANNON_CPU_THREADS", "1", 0);
    g_fd = memfd_create("fuzz_config", MFD_CLOEXEC);
    if (g_fd < 0)
        abort();
    snprintf(g_path, sizeof g_path, "/proc/self/fd/%d", g_fd);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_TEXT)
        return 0;
    if (ftruncate(g_fd, 0) != 0 || pwrite(g_fd, data, size, 0) != (ssize_t)size)
        abort();
    aclError rc = aclInit(g_path);
    const char *msg = aclGetRecentErrMsg();
    if (!init_code_ok(rc))
        fail("aclInit returned an undocumented code", rc, msg);
    if (rc != ACL_SUCCESS) {
        if (msg == NULL || strstr(msg, "aclInit") == NULL)
            fail("aclInit failed without its message", rc, msg);
        /* Not initialised: aclFinalize has nothing to undo, or only the core a late failure
         * (an out-of-range default device) brought up, as any runtime call does lazily. */
        rc = aclFinalize();
        if (rc != ACL_ERROR_REPEAT_FINALIZE && rc != ACL_SUCCESS)
            fail("aclFinalize after a failed aclInit", rc, aclGetRecentErrMsg());
        (void)aclGetRecentErrMsg();
        g_rt.config_hash_set = false;
        return 0;
    }
    /* Valid JSON holds no NUL byte: a configuration accepted with one was read cut short. */
    if (memchr(data, '\0', size) != NULL)
        fail("a configuration holding a NUL byte was accepted", rc, NULL);
    rc = aclInit(g_path);
    if (rc != ACL_ERROR_REPEAT_INITIALIZE)
        fail("a second aclInit", rc, aclGetRecentErrMsg());
    (void)aclGetRecentErrMsg();
    int32_t dev = -1;
    rc = aclrtGetDevice(&dev);
    if (rc == ACL_SUCCESS) {
        uint32_t count = 0;
        if (aclrtGetDeviceCount(&count) != ACL_SUCCESS || dev < 0 || (uint32_t)dev >= count)
            fail("aclrtGetDevice gave a device out of range", dev, NULL);
    } else if (rc != ACL_ERROR_RT_CONTEXT_NULL) {
        fail("aclrtGetDevice before aclrtSetDevice", rc, aclGetRecentErrMsg());
    }
    (void)aclGetRecentErrMsg();
    rc = aclrtSetDevice(0);
    if (rc != ACL_SUCCESS)
        fail("aclrtSetDevice(0)", rc, aclGetRecentErrMsg());
    dev = -1;
    rc = aclrtGetDevice(&dev);
    if (rc != ACL_SUCCESS || dev != 0)
        fail("aclrtGetDevice after aclrtSetDevice(0)", rc, aclGetRecentErrMsg());
    rc = aclFinalize();
    if (rc != ACL_SUCCESS)
        fail("aclFinalize", rc, aclGetRecentErrMsg());
    (void)aclGetRecentErrMsg();
    /* Forget the first configuration's hash (see above). Single-threaded here: no lock needed. */
    g_rt.config_hash_set = false;
    g_rt.config_hash = 0;
    return 0;
}
