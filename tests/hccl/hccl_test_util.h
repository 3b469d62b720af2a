/* Helpers of the libhccl tests: run a function as N ranks in forked processes.
 *
 * The parent creates the root info (so its rendezvous thread lives in the parent, which is not a
 * rank), forks the ranks, and waits for them with a deadline (killing stragglers, so a hang is a
 * failure, not a stuck test). Each child initialises ACL, picks device rank % count, creates a
 * stream, joins the communicator, runs the body, and exits 0 on success. Inside children there is
 * no cmocka: CHECK prints the failing condition and makes the body return 1.
 */
#ifndef CANNON_HCCL_TEST_UTIL_H_
#define CANNON_HCCL_TEST_UTIL_H_

#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"
#include "cannon_testutil.h"
#include "hccl/hccl.h"

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "[rank %u] %s:%d: CHECK failed: %s (recent error: %s)\n", t_rank, __FILE__,   \
                    __LINE__, #cond, aclGetRecentErrMsg());                                        \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

#define CHECK_HCCL(expr) CHECK((expr) == HCCL_SUCCESS)
#define CHECK_ACL(expr) CHECK((expr) == ACL_SUCCESS)

static uint32_t t_rank;

typedef struct rank_ctx {
    uint32_t rank, nranks;
    HcclComm comm;
    aclrtStream stream;
    void *arg;
} rank_ctx;

typedef int (*rank_fn)(rank_ctx *ctx);

static inline double t_now(void)
{
    return cn_tu_now_s();
}

/* Child body: returns the process exit code. */
static inline int rank_main(uint32_t rank, uint32_t nranks, const HcclRootInfo *ri, rank_fn fn, void *arg, int init)
{
    t_rank = rank;
    if (aclInit(NULL) != ACL_SUCCESS)
        return 90;
    uint32_t ndev = 1;
    aclrtGetDeviceCount(&ndev);
    if (aclrtSetDevice((int32_t)(rank % (ndev ? ndev : 1))) != ACL_SUCCESS)
        return 91;
    rank_ctx ctx = {.rank = rank, .nranks = nranks, .arg = arg};
    if (aclrtCreateStream(&ctx.stream) != ACL_SUCCESS)
        return 92;
    int rc = 0;
    if (init) {
        HcclResult h = HcclCommInitRootInfo(nranks, ri, rank, &ctx.comm);
        if (h != HCCL_SUCCESS) {
            fprintf(stderr, "[rank %u] HcclCommInitRootInfo: %d %s\n", rank, h, aclGetRecentErrMsg());
            return 93;
        }
    }
    rc = fn(&ctx);
    if (ctx.comm != NULL)
        HcclCommDestroy(ctx.comm);
    aclrtDestroyStream(ctx.stream);
    aclrtResetDevice((int32_t)(rank % (ndev ? ndev : 1)));
    aclFinalize();
    return rc;
}

/* Run fn on nranks forked ranks; returns the number of ranks that failed. `init` 0 leaves the
 * communicator to the body (ctx->comm NULL, the root info in ctx->arg when arg is NULL).
 * The parent starts no thread before forking (ThreadSanitizer cannot follow a fork of a threaded
 * process): rank 0 creates the root info after the fork and hands it to the others via pipes. */
static inline int run_ranks_opt(uint32_t nranks, rank_fn fn, void *arg, int init, double timeout_s)
{
    fflush(stdout);
    fflush(stderr);
    pid_t *pids = calloc(nranks, sizeof *pids);
    int (*pipes)[2] = calloc(nranks, sizeof *pipes);
    for (uint32_t r = 0; r < nranks; r++)
        if (pipe(pipes[r]) != 0)
            return (int)nranks;
    for (uint32_t r = 0; r < nranks; r++) {
        pid_t p = fork();
        if (p == 0) {
            HcclRootInfo ri;
            if (r == 0) {
                if (HcclGetRootInfo(&ri) != HCCL_SUCCESS)
                    _exit(89);
                for (uint32_t j = 1; j < nranks; j++)
                    if (write(pipes[j][1], &ri, sizeof ri) != (ssize_t)sizeof ri)
                        _exit(88);
            } else {
                size_t got = 0;
                while (got < sizeof ri) {
                    ssize_t k = read(pipes[r][0], (char *)&ri + got, sizeof ri - got);
                    if (k <= 0)
                        _exit(87);
                    got += (size_t)k;
                }
            }
            _exit(rank_main(r, nranks, &ri, fn, arg == NULL && !init ? (void *)&ri : arg, init));
        }
        pids[r] = p;
    }
    for (uint32_t r = 0; r < nranks; r++) {
        close(pipes[r][0]);
        close(pipes[r][1]);
    }
    free(pipes);
    int failed = 0;
    uint32_t left = nranks;
    double deadline = t_now() + timeout_s;
    while (left > 0) {
        int st;
        pid_t p = waitpid(-1, &st, WNOHANG);
        if (p == 0) {
            if (t_now() > deadline) {
                for (uint32_t r = 0; r < nranks; r++)
                    if (pids[r] > 0) {
                        fprintf(stderr, "rank %u (pid %d) hung: killing it\n", r, (int)pids[r]);
                        kill(pids[r], SIGKILL);
                    }
                deadline = t_now() + 1e9;
            }
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
            continue;
        }
        if (p < 0)
            break;
        for (uint32_t r = 0; r < nranks; r++)
            if (pids[r] == p) {
                pids[r] = -1;
                left--;
                if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                    fprintf(stderr, "rank %u exited with status %d%s\n", r,
                            WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), WIFEXITED(st) ? "" : " (signal)");
                    failed++;
                }
            }
    }
    free(pids);
    return failed;
}

static inline int run_ranks(uint32_t nranks, rank_fn fn, void *arg)
{
    return run_ranks_opt(nranks, fn, arg, 1, 60.0);
}

#endif /* CANNON_HCCL_TEST_UTIL_H_ */
