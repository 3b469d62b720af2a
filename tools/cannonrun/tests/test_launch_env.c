/*
 * Unit tests of cannon_launch_env_read_with(): each case feeds a fake environment (a NULL-
 * terminated list of "NAME=value" strings) and checks the fields or the error.
 */
#include "cannon/launch_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int g_failures;

static const char *fake_get(const char *name, void *ctx)
{
    const char *const *kv = ctx;
    size_t l = strlen(name);
    for (; *kv != NULL; kv++)
        if (strncmp(*kv, name, l) == 0 && (*kv)[l] == '=')
            return *kv + l + 1;
    return NULL;
}

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            g_failures++;                                                                      \
            fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #cond);                         \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
        }                                                                                      \
    } while (0)

static int produce_test(void *buf, size_t size, void *ctx, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    int *calls = ctx;
    ++*calls;
    memset(buf, 0x5a + *calls, size);
    return 0;
}

static int run(const char *const *vars, cannon_launch_env *e, char *err, size_t errlen)
{
    return cannon_launch_env_read_with(e, fake_get, (void *)vars, err, errlen);
}

/* Expects success with the given rank/size/local/device/source. */
static void expect_ok(const char *name, const char *const *vars, int rank, int size, int lr,
                      int ls, int dev, cannon_launch_source src)
{
    cannon_launch_env e;
    char err[256] = "";
    int rc = run(vars, &e, err, sizeof err);
    CHECK(rc == 0, "%s: rc %d (%s)", name, rc, err);
    if (rc != 0)
        return;
    CHECK(e.rank == rank && e.size == size, "%s: rank/size %d/%d", name, e.rank, e.size);
    CHECK(e.local_rank == lr && e.local_size == ls, "%s: local %d/%d", name, e.local_rank,
          e.local_size);
    CHECK(e.device_id == dev, "%s: device %d", name, e.device_id);
    CHECK(e.source == src, "%s: source %s", name, cannon_launch_source_name(e.source));
}

/* Expects failure code @p code with a message containing every word in @p words. */
static void expect_err(const char *name, const char *const *vars, int code, const char *w1,
                       const char *w2)
{
    cannon_launch_env e;
    char err[256] = "";
    int rc = run(vars, &e, err, sizeof err);
    CHECK(rc == code, "%s: rc %d, want %d (%s)", name, rc, code, err);
    CHECK(w1 == NULL || strstr(err, w1) != NULL, "%s: '%s' lacks %s", name, err, w1);
    CHECK(w2 == NULL || strstr(err, w2) != NULL, "%s: '%s' lacks %s", name, err, w2);
}

int main(void)
{
    {
        const char *v[] = {NULL};
        expect_ok("empty", v, 0, 1, -1, -1, 0, CANNON_LAUNCH_SOURCE_NONE);
    }
    {
        const char *v[] = {"RANK_ID=2", "RANK_SIZE=4", "DEVICE_ID=6", "ASCEND_DEVICE_ID=6",
                           "LOCAL_RANK=2", "LOCAL_WORLD_SIZE=4", "RANK=2", "WORLD_SIZE=4",
                           "CANNONRUN_JOB_ID=j1", "CANNON_HCCL_ROOT_INFO_FILE=/tmp/x",
                           "RANK_TABLE_FILE=/tmp/rt.json", NULL};
        expect_ok("cannonrun", v, 2, 4, 2, 4, 6, CANNON_LAUNCH_SOURCE_CANN);
        cannon_launch_env e;
        char err[128];
        CHECK(run(v, &e, err, sizeof err) == 0, "cannonrun rerun");
        CHECK(e.launched_by_cannonrun == 1, "launched_by_cannonrun");
        CHECK(strcmp(e.job_id, "j1") == 0, "job id '%s'", e.job_id);
        CHECK(strcmp(e.root_info_file, "/tmp/x") == 0, "root info '%s'", e.root_info_file);
        CHECK(strcmp(e.rank_table_file, "/tmp/rt.json") == 0, "rank table");
    }
    {
        const char *v[] = {"RANK=3", "WORLD_SIZE=8", "LOCAL_RANK=1", "LOCAL_WORLD_SIZE=2", NULL};
        expect_ok("torchrun", v, 3, 8, 1, 2, 1, CANNON_LAUNCH_SOURCE_TORCH);
    }
    {
        /* mpirun: device defaults to the local rank. */
        const char *v[] = {"OMPI_COMM_WORLD_RANK=5", "OMPI_COMM_WORLD_SIZE=8",
                           "OMPI_COMM_WORLD_LOCAL_RANK=1", "OMPI_COMM_WORLD_LOCAL_SIZE=4",
                           "OMPI_MCA_ess_base_jobid=1234", NULL};
        expect_ok("ompi", v, 5, 8, 1, 4, 1, CANNON_LAUNCH_SOURCE_OMPI);
        cannon_launch_env e;
        char err[128];
        run(v, &e, err, sizeof err);
        CHECK(strcmp(e.job_id, "1234") == 0, "ompi job id '%s'", e.job_id);
    }
    {
        /* mpirun inside a Slurm allocation: Open MPI wins, SLURM_PROCID (the daemon's) is not
         * compared; a stale LOCAL_RANK loses to Open MPI's own local rank. */
        const char *v[] = {"OMPI_COMM_WORLD_RANK=3", "OMPI_COMM_WORLD_SIZE=4",
                           "OMPI_COMM_WORLD_LOCAL_RANK=1", "OMPI_COMM_WORLD_LOCAL_SIZE=2",
                           "SLURM_PROCID=0", "SLURM_NTASKS=2", "SLURM_LOCALID=0",
                           "LOCAL_RANK=0", "LOCAL_WORLD_SIZE=2", NULL};
        expect_ok("ompi+slurm", v, 3, 4, 1, 2, 1, CANNON_LAUNCH_SOURCE_OMPI);
    }
    {
        /* srun -n 5 over 2 nodes, 3+2 tasks: the 5th task is local rank 1 of 2 on node 1. */
        const char *v[] = {"SLURM_PROCID=4", "SLURM_NTASKS=5", "SLURM_LOCALID=1",
                           "SLURM_NODEID=1", "SLURM_STEP_TASKS_PER_NODE=3,2",
                           "SLURM_TASKS_PER_NODE=9", "SLURM_JOB_ID=77", "SLURM_STEP_ID=3",
                           NULL};
        expect_ok("slurm", v, 4, 5, 1, 2, 1, CANNON_LAUNCH_SOURCE_SLURM);
        cannon_launch_env e;
        char err[128];
        run(v, &e, err, sizeof err);
        CHECK(strcmp(e.job_id, "slurm-77.3") == 0, "slurm job id '%s'", e.job_id);
    }
    {
        const char *v[] = {"SLURM_PROCID=5", "SLURM_NTASKS=7", "SLURM_LOCALID=1",
                           "SLURM_NODEID=2", "SLURM_TASKS_PER_NODE=2(x3),1", NULL};
        expect_ok("slurm repeat", v, 5, 7, 1, 2, 1, CANNON_LAUNCH_SOURCE_SLURM);
        const char *w[] = {"SLURM_PROCID=6", "SLURM_NTASKS=7", "SLURM_LOCALID=0",
                           "SLURM_NODEID=3", "SLURM_TASKS_PER_NODE=2(x3),1", NULL};
        expect_ok("slurm repeat tail", w, 6, 7, 0, 1, 0, CANNON_LAUNCH_SOURCE_SLURM);
    }
    {
        /* A repetition count as large as a long: node 4 lies inside it (seen + count must not
         * overflow on the way). A count beyond a long is malformed. */
        const char *v[] = {"SLURM_PROCID=7", "SLURM_NTASKS=8", "SLURM_LOCALID=0", "SLURM_NODEID=4",
                           "SLURM_TASKS_PER_NODE=4(x3),8(x9223372036854775807),1", NULL};
        expect_ok("slurm huge repeat", v, 7, 8, 0, 8, 0, CANNON_LAUNCH_SOURCE_SLURM);
        const char *w[] = {"SLURM_PROCID=7", "SLURM_NTASKS=8", "SLURM_LOCALID=0", "SLURM_NODEID=4",
                           "SLURM_TASKS_PER_NODE=4(x3),8(x9223372036854775808),1", NULL};
        expect_err("slurm repeat beyond a long", w, CANNON_LAUNCH_E_INVALID, "SLURM_TASKS_PER_NODE",
                   NULL);
    }
    {
        const char *v[] = {"SLURM_PROCID=0", "SLURM_NTASKS=8", "SLURM_LOCALID=0",
                           "SLURM_NODEID=4", "SLURM_TASKS_PER_NODE=2(x3),1", NULL};
        expect_err("slurm layout short", v, CANNON_LAUNCH_E_INVALID, "SLURM_TASKS_PER_NODE",
                   "SLURM_NODEID=4");
    }
    {
        const char *v[] = {"PMI_RANK=1", "PMI_SIZE=2", "MPI_LOCALRANKID=1", "MPI_LOCALNRANKS=2",
                           "ASCEND_DEVICE_ID=3", NULL};
        expect_ok("pmi", v, 1, 2, 1, 2, 3, CANNON_LAUNCH_SOURCE_PMI);
    }
    {
        /* CANN-style size exported globally next to mpirun: agrees, so accepted. */
        const char *v[] = {"RANK_SIZE=2", "OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=2",
                           NULL};
        expect_ok("ompi+RANK_SIZE", v, 1, 2, -1, -1, 1, CANNON_LAUNCH_SOURCE_OMPI);
    }
    /* Errors. */
    {
        const char *v[] = {"RANK_ID=0", NULL};
        expect_err("missing size", v, CANNON_LAUNCH_E_MISSING, "RANK_SIZE", "missing");
    }
    {
        const char *v[] = {"OMPI_COMM_WORLD_SIZE=2", NULL};
        expect_err("missing ompi rank", v, CANNON_LAUNCH_E_MISSING, "OMPI_COMM_WORLD_RANK",
                   NULL);
    }
    {
        const char *v[] = {"SLURM_PROCID=0", NULL};
        expect_err("missing slurm ntasks", v, CANNON_LAUNCH_E_MISSING, "SLURM_NTASKS", NULL);
    }
    {
        const char *v[] = {"RANK_ID=x1", "RANK_SIZE=2", NULL};
        expect_err("bad int", v, CANNON_LAUNCH_E_INVALID, "RANK_ID", "x1");
    }
    {
        const char *v[] = {"RANK_ID=-1", "RANK_SIZE=2", NULL};
        expect_err("negative", v, CANNON_LAUNCH_E_INVALID, "RANK_ID", NULL);
    }
    {
        const char *v[] = {"RANK_ID=0", "RANK_SIZE=0", NULL};
        expect_err("zero size", v, CANNON_LAUNCH_E_INVALID, "RANK_SIZE", NULL);
    }
    {
        const char *v[] = {"RANK_ID=2", "RANK_SIZE=2", NULL};
        expect_err("rank >= size", v, CANNON_LAUNCH_E_INCONSISTENT, "RANK_ID=2", "RANK_SIZE=2");
    }
    {
        /* The classic `mpirun -x RANK_ID=0` mistake. */
        const char *v[] = {"RANK_ID=0", "RANK_SIZE=2", "OMPI_COMM_WORLD_RANK=1",
                           "OMPI_COMM_WORLD_SIZE=2", NULL};
        expect_err("RANK_ID vs ompi", v, CANNON_LAUNCH_E_INCONSISTENT, "RANK_ID",
                   "OMPI_COMM_WORLD_RANK");
    }
    {
        /* cannonrun started inside an srun step: Slurm's values describe the launcher. */
        const char *v[] = {"RANK_ID=3", "RANK_SIZE=4", "SLURM_PROCID=0", "SLURM_NTASKS=1",
                           NULL};
        expect_ok("cann inside slurm", v, 3, 4, -1, -1, 3, CANNON_LAUNCH_SOURCE_CANN);
    }
    {
        const char *v[] = {"RANK_ID=1", "RANK_SIZE=4", "RANK=1", "WORLD_SIZE=2", NULL};
        expect_err("cann vs torch", v, CANNON_LAUNCH_E_INCONSISTENT, "WORLD_SIZE=2",
                   "RANK_SIZE=4");
    }
    {
        const char *v[] = {"RANK_ID=0", "RANK_SIZE=2", "DEVICE_ID=0", "ASCEND_DEVICE_ID=1", NULL};
        expect_err("device mismatch", v, CANNON_LAUNCH_E_INCONSISTENT, "DEVICE_ID=0",
                   "ASCEND_DEVICE_ID=1");
    }
    {
        const char *v[] = {"RANK_ID=0", "RANK_SIZE=2", "LOCAL_RANK=0", NULL};
        expect_err("local size missing", v, CANNON_LAUNCH_E_MISSING, "LOCAL_WORLD_SIZE", NULL);
    }
    {
        const char *v[] = {"RANK_ID=0", "RANK_SIZE=2", "LOCAL_RANK=3", "LOCAL_WORLD_SIZE=2",
                           NULL};
        expect_err("local rank too big", v, CANNON_LAUNCH_E_INCONSISTENT, "LOCAL_RANK=3", NULL);
    }
    {
        const char *v[] = {"RANK_ID=0", "RANK_SIZE=2", "LOCAL_RANK=0", "LOCAL_WORLD_SIZE=4",
                           NULL};
        expect_err("local size too big", v, CANNON_LAUNCH_E_INCONSISTENT, "local size", NULL);
    }
    {
        /* Slurm without a task layout: the local rank is still bounded by the job size (it
         * would otherwise pick device 5 in a 2-task job). */
        const char *v[] = {"SLURM_PROCID=0", "SLURM_NTASKS=2", "SLURM_LOCALID=5", NULL};
        expect_err("slurm local rank >= size", v, CANNON_LAUNCH_E_INCONSISTENT, "SLURM_LOCALID=5",
                   "job size 2");
    }
    {
        /* Job ids and paths are copied whole or refused, never cut short. */
        static char job[160 + sizeof "CANNONRUN_JOB_ID="], path[5000 + sizeof "RANK_TABLE_FILE="];
        static char sjob[130 + sizeof "SLURM_JOB_ID="];
        snprintf(job, sizeof job, "CANNONRUN_JOB_ID=%0160d", 7);
        snprintf(path, sizeof path, "RANK_TABLE_FILE=/%04999d", 7);
        snprintf(sjob, sizeof sjob, "SLURM_JOB_ID=%0130d", 7);
        const char *v[] = {"RANK_ID=0", "RANK_SIZE=2", job, NULL};
        expect_err("long job id", v, CANNON_LAUNCH_E_INVALID, "CANNONRUN_JOB_ID", "160 bytes");
        const char *w[] = {"RANK_ID=0", "RANK_SIZE=2", path, NULL};
        expect_err("long rank table path", w, CANNON_LAUNCH_E_INVALID, "RANK_TABLE_FILE", NULL);
        const char *x[] = {"SLURM_PROCID=0", "SLURM_NTASKS=1", sjob, NULL};
        expect_err("long slurm job id", x, CANNON_LAUNCH_E_INVALID, "SLURM_JOB_ID", NULL);
        /* The longest that fits is kept as it is. */
        snprintf(job, sizeof job, "CANNONRUN_JOB_ID=%0127d", 7);
        const char *y[] = {"RANK_ID=0", "RANK_SIZE=2", job, NULL};
        cannon_launch_env e;
        char err[256];
        CHECK(run(y, &e, err, sizeof err) == 0 && strcmp(e.job_id, job + strlen("CANNONRUN_JOB_ID=")) == 0,
              "127-byte job id: %s", err);
    }
    {
        /* The real environment path. */
        setenv("RANK_ID", "1", 1);
        setenv("RANK_SIZE", "3", 1);
        cannon_launch_env e;
        char err[128];
        CHECK(cannon_launch_env_read(&e, err, sizeof err) == 0, "getenv path: %s", err);
        CHECK(e.rank == 1 && e.size == 3, "getenv path values");
    }
    {
        /* File publish / wait round trip, and a timeout on a missing file. */
        char dir[] = "/tmp/launch_env_test.XXXXXX";
        CHECK(mkdtemp(dir) != NULL, "mkdtemp");
        char path[256];
        snprintf(path, sizeof path, "%s/blob", dir);
        unsigned char out[4108], in[4108];
        for (size_t i = 0; i < sizeof out; i++)
            out[i] = (unsigned char)(i * 7u);
        char err[256];
        CHECK(cannon_launch_wait_file(path, in, sizeof in, 0.05, err, sizeof err) ==
                  CANNON_LAUNCH_E_TIMEOUT,
              "missing file should time out");
        CHECK(cannon_launch_publish_file(path, out, sizeof out, err, sizeof err) == 0, "%s", err);
        CHECK(cannon_launch_wait_file(path, in, sizeof in, 1.0, err, sizeof err) == 0, "%s", err);
        CHECK(memcmp(in, out, sizeof in) == 0, "round trip bytes");
        unlink(path);
        rmdir(dir);
    }
    {
        /* Root-info sharing: rank 0 produces and publishes, rank 1 reads; an existing file
         * (the launcher's) is read by rank 0 too; a derived name is reported for removal. */
        char dir[] = "/tmp/launch_env_share.XXXXXX";
        CHECK(mkdtemp(dir) != NULL, "mkdtemp");
        cannon_launch_env r0, r1;
        memset(&r0, 0, sizeof r0);
        r0.size = 2;
        snprintf(r0.root_info_file, sizeof r0.root_info_file, "%s/ri", dir);
        r1 = r0;
        r1.rank = 1;
        int calls = 0;
        unsigned char a[64], b[64];
        char created[256], err[256];
        CHECK(cannon_launch_share_root_info(&r0, produce_test, &calls, a, sizeof a, 1.0, created,
                                            sizeof created, err, sizeof err) == 0,
              "rank 0 share: %s", err);
        CHECK(calls == 1 && created[0] == '\0', "rank 0 produced once, file not derived");
        CHECK(cannon_launch_share_root_info(&r1, produce_test, &calls, b, sizeof b, 1.0, created,
                                            sizeof created, err, sizeof err) == 0,
              "rank 1 share: %s", err);
        CHECK(calls == 1 && memcmp(a, b, sizeof a) == 0, "rank 1 read rank 0's bytes");
        /* The file exists now, as when the launcher created it: rank 0 reads, no produce. */
        CHECK(cannon_launch_share_root_info(&r0, produce_test, &calls, b, sizeof b, 1.0, created,
                                            sizeof created, err, sizeof err) == 0 && calls == 1,
              "rank 0 reads an existing file");
        unlink(r0.root_info_file);
        /* No variable, no job id: a clear error naming the variable. */
        r0.root_info_file[0] = '\0';
        CHECK(cannon_launch_share_root_info(&r0, produce_test, &calls, a, sizeof a, 1.0, created,
                                            sizeof created, err, sizeof err) ==
                      CANNON_LAUNCH_E_MISSING &&
                  strstr(err, "CANNON_HCCL_ROOT_INFO_FILE") != NULL,
              "missing variable: %s", err);
        /* Derived from the job id under $TMPDIR. */
        setenv("TMPDIR", dir, 1);
        snprintf(r0.job_id, sizeof r0.job_id, "ns/1 2");
        CHECK(cannon_launch_share_root_info(&r0, produce_test, &calls, a, sizeof a, 1.0, created,
                                            sizeof created, err, sizeof err) == 0,
              "derived: %s", err);
        CHECK(strstr(created, "cannon_hccl_root_info.ns_1_2") != NULL, "derived name '%s'",
              created);
        CHECK(access(created, R_OK) == 0, "derived file exists");
        unlink(created);
        /* Single rank: no file at all. */
        r0.size = 1;
        CHECK(cannon_launch_share_root_info(&r0, produce_test, &calls, a, sizeof a, 1.0, created,
                                            sizeof created, err, sizeof err) == 0 && calls == 3,
              "single rank produces locally");
        rmdir(dir);
    }
    if (g_failures != 0) {
        fprintf(stderr, "%d failure(s)\n", g_failures);
        return 1;
    }
    printf("launch_env: all tests passed\n");
    return 0;
}
