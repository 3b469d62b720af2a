/*
 * Fuzz target: the launcher environment parser (cannon_launch_env_read, tools/cannonrun).
 *
 * Input: lines "NAME=VALUE" (the first '=' splits; a NUL ends a value, as in a real environment).
 * The process environment is cleared and set to exactly those variables, then the parser runs
 * twice: on the real environment (cannon_launch_env_read) and on a table lookup of the same
 * variables (cannon_launch_env_read_with).
 *
 * What must hold: no crash or undefined behaviour; both readers agree; the code is a
 * CANNON_LAUNCH_E_* code with a message; a success is consistent: 0 <= rank < size, the chosen
 * family's variables read back as rank and size, the local rank below the local size and the
 * job size, the local size at most the job size, a device id >= 0, and the job id and file
 * paths equal to their variables (never cut short). A smaller error buffer changes nothing but
 * the message's length.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cannon/launch_env.h"

extern char **environ;

#define MAX_VARS 64
#define MAX_TEXT 16384

typedef struct table {
    const char *name[MAX_VARS];
    const char *value[MAX_VARS];
    int n;
} table;

static const char *table_get(const char *name, void *ctx)
{
    const table *t = ctx;
    for (int i = t->n - 1; i >= 0; i--) /* the last assignment of a name counts, as with setenv */
        if (strcmp(t->name[i], name) == 0)
            return t->value[i];
    return NULL;
}

static void fail(const char *what, const char *err)
{
    fprintf(stderr, "fuzz_launch_env: %s (message: \"%s\")\n", what, err ? err : "");
    abort();
}

/* The integer value strtol gives a variable (the parser accepts what strtol accepts, with
 * blanks around); -2 when unset. */
static long var_long(const table *t, const char *name)
{
    const char *s = table_get(name, (void *)t);
    if (s == NULL)
        return -2;
    return strtol(s, NULL, 10);
}

static const struct {
    cannon_launch_source source;
    const char *rank, *size;
} k_families[] = {
    {CANNON_LAUNCH_SOURCE_CANN, "RANK_ID", "RANK_SIZE"},
    {CANNON_LAUNCH_SOURCE_TORCH, "RANK", "WORLD_SIZE"},
    {CANNON_LAUNCH_SOURCE_OMPI, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
    {CANNON_LAUNCH_SOURCE_PMI, "PMI_RANK", "PMI_SIZE"},
    {CANNON_LAUNCH_SOURCE_SLURM, "SLURM_PROCID", "SLURM_NTASKS"},
};

static void check_ok(const cannon_launch_env *e, const table *t, const char *err)
{
    if (e->size < 1 || e->rank < 0 || e->rank >= e->size)
        fail("rank / size inconsistent", err);
    if (e->source == CANNON_LAUNCH_SOURCE_NONE) {
        if (e->rank != 0 || e->size != 1)
            fail("no source but not rank 0 of 1", err);
    } else {
        size_t i = 0;
        while (i < sizeof k_families / sizeof k_families[0] && k_families[i].source != e->source)
            i++;
        if (i == sizeof k_families / sizeof k_families[0])
            fail("unknown source", err);
        if (var_long(t, k_families[i].rank) != e->rank || var_long(t, k_families[i].size) != e->size)
            fail("rank / size differ from the chosen family's variables", err);
    }
    if (e->local_size != -1 && (e->local_size < 1 || e->local_size > e->size))
        fail("local size out of [1, size]", err);
    if (e->local_rank != -1 && (e->local_rank < 0 || e->local_rank >= e->size ||
                                (e->local_size != -1 && e->local_rank >= e->local_size)))
        fail("local rank out of range", err);
    if (e->device_id < 0)
        fail("negative device id", err);
    const char *job = table_get("CANNONRUN_JOB_ID", (void *)t);
    if ((job != NULL) != (e->launched_by_cannonrun != 0))
        fail("launched_by_cannonrun disagrees with CANNONRUN_JOB_ID", err);
    if (job == NULL)
        job = table_get("PMIX_NAMESPACE", (void *)t);
    if (job == NULL)
        job = table_get("OMPI_MCA_ess_base_jobid", (void *)t);
    if (job != NULL && strcmp(job, e->job_id) != 0)
        fail("job id differs from its variable", err);
    const char *sj = table_get("SLURM_JOB_ID", (void *)t);
    if (job == NULL && sj == NULL && e->job_id[0] != '\0')
        fail("a job id without a variable", err);
    if (job == NULL && sj != NULL) {
        const char *ss = table_get("SLURM_STEP_ID", (void *)t);
        char want[3 * sizeof e->job_id];
        snprintf(want, sizeof want, "slurm-%.*s.%.*s", (int)sizeof e->job_id, sj, (int)sizeof e->job_id,
                 ss ? ss : "0");
        if (strcmp(want, e->job_id) != 0)
            fail("slurm job id differs from slurm-<SLURM_JOB_ID>.<SLURM_STEP_ID>", err);
    }
    const char *rif = table_get(CANNON_HCCL_ROOT_INFO_FILE_ENV, (void *)t);
    if (strcmp(rif ? rif : "", e->root_info_file) != 0)
        fail("root info file differs from its variable", err);
    const char *rtf = table_get("RANK_TABLE_FILE", (void *)t);
    if (strcmp(rtf ? rtf : "", e->rank_table_file) != 0)
        fail("rank table file differs from its variable", err);
    if (err[0] != '\0')
        fail("success with an error message", err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_TEXT)
        return 0;
    static char buf[MAX_TEXT + 1];
    memcpy(buf, data, size);
    buf[size] = '\0';
    table t = {.n = 0};
    char *line = buf, *end = buf + size;
    while (line < end && t.n < MAX_VARS) {
        char *nl = memchr(line, '\n', (size_t)(end - line));
        if (nl)
            *nl = '\0';
        char *eq = strchr(line, '=');
        if (eq && eq != line) {
            *eq = '\0';
            t.name[t.n] = line;
            t.value[t.n] = eq + 1;
            t.n++;
        }
        if (!nl)
            break;
        line = nl + 1;
    }
    /* The environment is this input's variables, the last assignment of a name winning as with
     * setenv. It is built in static storage and installed as environ: setenv would keep every
     * value it ever saw (glibc never frees a replaced string), and a long campaign would grow
     * without bound. */
    static char env_text[MAX_TEXT + 2 * MAX_VARS];
    static char *env_vec[MAX_VARS + 1];
    size_t used = 0;
    int nv = 0;
    for (int i = 0; i < t.n; i++) {
        int later = 0;
        for (int j = i + 1; j < t.n && !later; j++)
            later = strcmp(t.name[i], t.name[j]) == 0;
        if (later)
            continue;
        const int len = snprintf(env_text + used, sizeof env_text - used, "%s=%s", t.name[i], t.value[i]);
        if (len < 0 || (size_t)len >= sizeof env_text - used)
            fail("environment text too long", NULL);
        env_vec[nv++] = env_text + used;
        used += (size_t)len + 1;
    }
    env_vec[nv] = NULL;
    clearenv();
    environ = env_vec;

    cannon_launch_env e1, e2;
    char err1[512], err2[512], small[8];
    memset(err1, 'x', sizeof err1);
    memset(err2, 'y', sizeof err2);
    const int rc1 = cannon_launch_env_read(&e1, err1, sizeof err1);
    const int rc2 = cannon_launch_env_read_with(&e2, table_get, &t, err2, sizeof err2);
    if (memchr(err1, '\0', sizeof err1) == NULL || memchr(err2, '\0', sizeof err2) == NULL)
        fail("message not terminated", NULL);
    if (rc1 != rc2 || strcmp(err1, err2) != 0)
        fail("the environment and the table lookup disagree", err1);
    if (rc1 < CANNON_LAUNCH_OK || rc1 > CANNON_LAUNCH_E_INCONSISTENT)
        fail("not a documented code", err1);
    if (rc1 == CANNON_LAUNCH_OK) {
        if (memcmp(&e1, &e2, sizeof e1) != 0)
            fail("the environment and the table lookup give different results", err1);
        check_ok(&e1, &t, err1);
    } else if (err1[0] == '\0') {
        fail("an error without a message", err1);
    }
    /* A short message buffer, and none: the same code, the message cut to fit. */
    memset(small, 'z', sizeof small);
    const size_t want = strlen(err1) < sizeof small - 1 ? strlen(err1) : sizeof small - 1;
    if (cannon_launch_env_read(&e2, small, sizeof small) != rc1 || memchr(small, '\0', sizeof small) == NULL ||
        strlen(small) != want || strncmp(small, err1, want) != 0)
        fail("a short message buffer changes the result", err1);
    if (cannon_launch_env_read(&e2, NULL, 0) != rc1)
        fail("no message buffer changes the result", err1);
    return 0;
}
