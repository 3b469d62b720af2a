/*
 * launch_env.c - reads rank / size / device from whichever launcher started this process.
 * See include/cannon/launch_env.h for the sources and the precedence rules.
 */
#include "cannon/launch_env.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "env.h" /* src/common */

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (err == NULL || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static const char *real_getenv(const char *name, void *ctx)
{
    (void)ctx;
    return cannon_env_get(name);
}

/* One launcher's naming of rank and size. */
typedef struct family {
    cannon_launch_source source;
    const char *rank_var;
    const char *size_var;
    /* How far the family's values can be trusted to describe this very process:
     *   HAND   - often exported by hand or by scripts, so a stale value is the usual bug;
     *            compared with the chosen family whenever present;
     *   EXACT  - set per process by an MPI launcher; compared with a chosen HAND family;
     *   OUTER  - Slurm: under mpirun or cannonrun inside an allocation they describe the
     *            launcher process, so never compared. */
    enum { HAND, EXACT, OUTER } trust;
} family;

static const family k_families[] = {
    {CANNON_LAUNCH_SOURCE_CANN, "RANK_ID", "RANK_SIZE", HAND},
    {CANNON_LAUNCH_SOURCE_TORCH, "RANK", "WORLD_SIZE", HAND},
    {CANNON_LAUNCH_SOURCE_OMPI, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", EXACT},
    {CANNON_LAUNCH_SOURCE_PMI, "PMI_RANK", "PMI_SIZE", EXACT},
    {CANNON_LAUNCH_SOURCE_SLURM, "SLURM_PROCID", "SLURM_NTASKS", OUTER},
};
#define N_FAMILIES (sizeof k_families / sizeof k_families[0])

/* Parses a whole decimal integer in [lo, hi]. Empty strings, signs on unsigned ranges,
 * trailing garbage and overflow all fail, because a typo here would otherwise become rank 0. */
static int parse_int(const char *s, long lo, long hi, int *out)
{
    if (s == NULL || *s == '\0')
        return -1;
    while (*s == ' ' || *s == '\t')
        s++;
    errno = 0;
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s)
        return -1;
    while (*end == ' ' || *end == '\t' || *end == '\n')
        end++;
    if (*end != '\0' || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

/* Reads an optional integer variable: 0 = unset, 1 = set (value in *out), -1 = malformed. */
static int get_int(cannon_launch_getenv_fn get, void *ctx, const char *name, long lo, long hi,
                   int *out, char *err, size_t errlen)
{
    const char *s = get(name, ctx);
    if (s == NULL)
        return 0;
    if (parse_int(s, lo, hi, out) != 0) {
        set_err(err, errlen, "%s='%s' is not an integer in [%ld, %ld]", name, s, lo, hi);
        return -1;
    }
    return 1;
}

/* Slurm's task layout string, e.g. "2(x3),1": 2 tasks on each of the first 3 nodes, 1 on the
 * 4th. Returns the task count of node @p node, or -1 if the string is malformed or too short. */
static int slurm_tasks_on_node(const char *s, int node)
{
    int seen = 0;
    while (*s != '\0') {
        char *end = NULL;
        long tasks = strtol(s, &end, 10);
        if (end == s || tasks < 0 || tasks > INT_MAX)
            return -1;
        long reps = 1;
        s = end;
        if (*s == '(') {
            if (s[1] != 'x')
                return -1;
            errno = 0;
            reps = strtol(s + 2, &end, 10);
            if (end == s + 2 || *end != ')' || reps <= 0 || errno == ERANGE)
                return -1;
            s = end + 1;
        }
        /* seen <= node always (a group is passed only when the node lies beyond it), so neither
         * node - seen nor seen + reps below can overflow, however large reps is. */
        if (reps > node - seen)
            return (int)tasks;
        seen += (int)reps;
        if (*s == ',')
            s++;
        else if (*s != '\0')
            return -1;
    }
    return -1;
}

const char *cannon_launch_source_name(cannon_launch_source source)
{
    switch (source) {
    case CANNON_LAUNCH_SOURCE_NONE: return "none";
    case CANNON_LAUNCH_SOURCE_CANN: return "cann";
    case CANNON_LAUNCH_SOURCE_TORCH: return "torch";
    case CANNON_LAUNCH_SOURCE_OMPI: return "ompi";
    case CANNON_LAUNCH_SOURCE_PMI: return "pmi";
    case CANNON_LAUNCH_SOURCE_SLURM: return "slurm";
    }
    return "unknown";
}

/* Copies the value of variable @p name (NULL: unset, gives "") into @p dst. A value that does
 * not fit is an error, never cut short: a truncated job id or path names another job's file. */
static int copy_var(char *dst, size_t cap, const char *name, const char *src, char *err,
                    size_t errlen)
{
    if (src == NULL)
        src = "";
    size_t n = strlen(src);
    if (n >= cap) {
        set_err(err, errlen, "%s is %zu bytes long; at most %zu are supported", name, n, cap - 1);
        dst[0] = '\0';
        return CANNON_LAUNCH_E_INVALID;
    }
    memcpy(dst, src, n + 1);
    return CANNON_LAUNCH_OK;
}

/* Local rank and size from whichever family knows them. The chosen source's own variables
 * come first so that, e.g., an Open MPI job does not pick up a stale LOCAL_RANK export. */
static int read_local(cannon_launch_env *env, cannon_launch_getenv_fn get, void *ctx, char *err,
                      size_t errlen)
{
    static const struct {
        cannon_launch_source source;
        const char *rank_var, *size_var;
    } locals[] = {
        {CANNON_LAUNCH_SOURCE_OMPI, "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
        {CANNON_LAUNCH_SOURCE_PMI, "MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
        {CANNON_LAUNCH_SOURCE_SLURM, "SLURM_LOCALID", NULL},
        {CANNON_LAUNCH_SOURCE_NONE, "LOCAL_RANK", "LOCAL_WORLD_SIZE"},
    };
    const size_t n = sizeof locals / sizeof locals[0];
    /* Two passes: the chosen source's variables, then the generic ones. */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n; i++) {
            int own = locals[i].source == env->source;
            int generic = locals[i].source == CANNON_LAUNCH_SOURCE_NONE;
            if ((pass == 0 && !own) || (pass == 1 && !generic))
                continue;
            int lr = -1, ls = -1;
            int r = get_int(get, ctx, locals[i].rank_var, 0, INT_MAX, &lr, err, errlen);
            if (r < 0)
                return CANNON_LAUNCH_E_INVALID;
            if (r == 0)
                continue;
            if (locals[i].size_var != NULL) {
                int s = get_int(get, ctx, locals[i].size_var, 1, INT_MAX, &ls, err, errlen);
                if (s < 0)
                    return CANNON_LAUNCH_E_INVALID;
                if (s == 0) {
                    set_err(err, errlen, "%s is set but %s is missing", locals[i].rank_var,
                            locals[i].size_var);
                    return CANNON_LAUNCH_E_MISSING;
                }
            } else {
                /* Slurm: tasks on this node from the layout string and SLURM_NODEID. */
                const char *layout_var = "SLURM_STEP_TASKS_PER_NODE";
                const char *layout = get(layout_var, ctx);
                if (layout == NULL) {
                    layout_var = "SLURM_TASKS_PER_NODE";
                    layout = get(layout_var, ctx);
                }
                int node = 0;
                if (get_int(get, ctx, "SLURM_NODEID", 0, INT_MAX, &node, err, errlen) < 0)
                    return CANNON_LAUNCH_E_INVALID;
                if (layout != NULL) {
                    ls = slurm_tasks_on_node(layout, node);
                    if (ls <= 0) {
                        set_err(err, errlen, "%s='%s' has no task count for SLURM_NODEID=%d",
                                layout_var, layout, node);
                        return CANNON_LAUNCH_E_INVALID;
                    }
                }
            }
            if (ls >= 0 && lr >= ls) {
                set_err(err, errlen, "%s=%d is not below the local size %d", locals[i].rank_var,
                        lr, ls);
                return CANNON_LAUNCH_E_INCONSISTENT;
            }
            /* Without a local size (Slurm with no layout) the job size still bounds it. */
            if (lr >= env->size) {
                set_err(err, errlen, "%s=%d is not below the job size %d", locals[i].rank_var, lr,
                        env->size);
                return CANNON_LAUNCH_E_INCONSISTENT;
            }
            env->local_rank = lr;
            env->local_size = ls;
            return CANNON_LAUNCH_OK;
        }
    }
    return CANNON_LAUNCH_OK;
}

int cannon_launch_env_read_with(cannon_launch_env *env, cannon_launch_getenv_fn get, void *ctx,
                                char *err, size_t errlen)
{
    if (env == NULL || get == NULL) {
        set_err(err, errlen, "cannon_launch_env_read: NULL argument");
        return CANNON_LAUNCH_E_INVALID;
    }
    memset(env, 0, sizeof *env);
    env->local_rank = -1;
    env->local_size = -1;
    if (err != NULL && errlen > 0)
        err[0] = '\0';

    int rank[N_FAMILIES], size[N_FAMILIES], has_rank[N_FAMILIES], has_size[N_FAMILIES];
    int chosen = -1;
    for (size_t i = 0; i < N_FAMILIES; i++) {
        has_rank[i] = get_int(get, ctx, k_families[i].rank_var, 0, INT_MAX, &rank[i], err, errlen);
        if (has_rank[i] < 0)
            return CANNON_LAUNCH_E_INVALID;
        has_size[i] = get_int(get, ctx, k_families[i].size_var, 1, INT_MAX, &size[i], err, errlen);
        if (has_size[i] < 0)
            return CANNON_LAUNCH_E_INVALID;
        if (chosen < 0 && has_rank[i] && has_size[i])
            chosen = (int)i;
    }
    if (chosen < 0) {
        /* A half-set family with nothing else to go on is a launch-script bug: say which. */
        for (size_t i = 0; i < N_FAMILIES; i++) {
            if (has_rank[i] != has_size[i]) {
                const char *have = has_rank[i] ? k_families[i].rank_var : k_families[i].size_var;
                const char *miss = has_rank[i] ? k_families[i].size_var : k_families[i].rank_var;
                set_err(err, errlen, "%s is set but %s is missing", have, miss);
                return CANNON_LAUNCH_E_MISSING;
            }
        }
        env->source = CANNON_LAUNCH_SOURCE_NONE;
        env->rank = 0;
        env->size = 1;
    } else {
        env->source = k_families[chosen].source;
        env->rank = rank[chosen];
        env->size = size[chosen];
        if (env->rank >= env->size) {
            set_err(err, errlen, "%s=%d is not below %s=%d", k_families[chosen].rank_var,
                    env->rank, k_families[chosen].size_var, env->size);
            return CANNON_LAUNCH_E_INCONSISTENT;
        }
        for (size_t i = 0; i < N_FAMILIES; i++) {
            int compare = k_families[i].trust == HAND ||
                          (k_families[i].trust == EXACT && k_families[chosen].trust == HAND);
            if ((int)i == chosen || !compare)
                continue;
            if (has_rank[i] && rank[i] != env->rank) {
                set_err(err, errlen, "%s=%d disagrees with %s=%d", k_families[i].rank_var,
                        rank[i], k_families[chosen].rank_var, env->rank);
                return CANNON_LAUNCH_E_INCONSISTENT;
            }
            if (has_size[i] && size[i] != env->size) {
                set_err(err, errlen, "%s=%d disagrees with %s=%d", k_families[i].size_var,
                        size[i], k_families[chosen].size_var, env->size);
                return CANNON_LAUNCH_E_INCONSISTENT;
            }
        }
    }

    int rc = read_local(env, get, ctx, err, errlen);
    if (rc != CANNON_LAUNCH_OK)
        return rc;
    if (env->local_size > env->size) {
        set_err(err, errlen, "local size %d exceeds the job size %d", env->local_size, env->size);
        return CANNON_LAUNCH_E_INCONSISTENT;
    }

    int dev = -1, adev = -1;
    int hd = get_int(get, ctx, "DEVICE_ID", 0, INT_MAX, &dev, err, errlen);
    int ha = get_int(get, ctx, "ASCEND_DEVICE_ID", 0, INT_MAX, &adev, err, errlen);
    if (hd < 0 || ha < 0)
        return CANNON_LAUNCH_E_INVALID;
    if (hd && ha && dev != adev) {
        set_err(err, errlen, "DEVICE_ID=%d disagrees with ASCEND_DEVICE_ID=%d", dev, adev);
        return CANNON_LAUNCH_E_INCONSISTENT;
    }
    if (hd)
        env->device_id = dev;
    else if (ha)
        env->device_id = adev;
    else if (env->local_rank >= 0)
        env->device_id = env->local_rank;
    else
        env->device_id = env->rank;

    const char *job_var = "CANNONRUN_JOB_ID";
    const char *job = get(job_var, ctx);
    env->launched_by_cannonrun = job != NULL;
    if (job == NULL)
        job = get(job_var = "PMIX_NAMESPACE", ctx);
    if (job == NULL)
        job = get(job_var = "OMPI_MCA_ess_base_jobid", ctx);
    if (job != NULL) {
        rc = copy_var(env->job_id, sizeof env->job_id, job_var, job, err, errlen);
    } else {
        const char *sj = get("SLURM_JOB_ID", ctx), *ss = get("SLURM_STEP_ID", ctx);
        if (sj != NULL) {
            int w = snprintf(env->job_id, sizeof env->job_id, "slurm-%s.%s", sj, ss ? ss : "0");
            if (w < 0 || (size_t)w >= sizeof env->job_id) {
                set_err(err, errlen, "SLURM_JOB_ID and SLURM_STEP_ID make a job id longer than %zu bytes",
                        sizeof env->job_id - 1);
                env->job_id[0] = '\0';
                rc = CANNON_LAUNCH_E_INVALID;
            }
        }
    }
    if (rc == CANNON_LAUNCH_OK)
        rc = copy_var(env->root_info_file, sizeof env->root_info_file, CANNON_HCCL_ROOT_INFO_FILE_ENV,
                      get(CANNON_HCCL_ROOT_INFO_FILE_ENV, ctx), err, errlen);
    if (rc == CANNON_LAUNCH_OK)
        rc = copy_var(env->rank_table_file, sizeof env->rank_table_file, "RANK_TABLE_FILE",
                      get("RANK_TABLE_FILE", ctx), err, errlen);
    return rc;
}

int cannon_launch_env_read(cannon_launch_env *env, char *err, size_t errlen)
{
    return cannon_launch_env_read_with(env, real_getenv, NULL, err, errlen);
}

int cannon_launch_publish_file(const char *path, const void *data, size_t size, char *err,
                               size_t errlen)
{
    char tmp[4200];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp) {
        set_err(err, errlen, "path too long: %s", path);
        return CANNON_LAUNCH_E_IO;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        set_err(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
        return CANNON_LAUNCH_E_IO;
    }
    const char *p = data;
    size_t left = size;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            set_err(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
            close(fd);
            unlink(tmp);
            return CANNON_LAUNCH_E_IO;
        }
        p += w;
        left -= (size_t)w;
    }
    /* fsync matters when the directory is on a shared file system read by other hosts. */
    if (fsync(fd) != 0 && errno != EINVAL) {
        set_err(err, errlen, "cannot fsync %s: %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        return CANNON_LAUNCH_E_IO;
    }
    close(fd);
    if (rename(tmp, path) != 0) {
        set_err(err, errlen, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
        unlink(tmp);
        return CANNON_LAUNCH_E_IO;
    }
    return CANNON_LAUNCH_OK;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cannon_launch_wait_file(const char *path, void *data, size_t size, double timeout_s,
                            char *err, size_t errlen)
{
    const double start = now_s();
    long sleep_us = 200;
    for (;;) {
        struct stat st;
        if (stat(path, &st) == 0 && st.st_size == (off_t)size) {
            int fd = open(path, O_RDONLY | O_CLOEXEC);
            if (fd >= 0) {
                char *p = data;
                size_t left = size;
                while (left > 0) {
                    ssize_t r = read(fd, p, left);
                    if (r < 0 && errno == EINTR)
                        continue;
                    if (r <= 0)
                        break;
                    p += r;
                    left -= (size_t)r;
                }
                close(fd);
                if (left == 0)
                    return CANNON_LAUNCH_OK;
            }
        } else if (stat(path, &st) == 0 && st.st_size > (off_t)size) {
            set_err(err, errlen, "%s has %lld bytes, expected %zu", path,
                    (long long)st.st_size, size);
            return CANNON_LAUNCH_E_IO;
        }
        if (timeout_s > 0 && now_s() - start > timeout_s) {
            set_err(err, errlen, "timed out after %.1f s waiting for %s (did rank 0 start?)",
                    timeout_s, path);
            return CANNON_LAUNCH_E_TIMEOUT;
        }
        /* Back off to 20 ms: rank 0 usually publishes within milliseconds, but a slow start
         * must not turn the waiters into busy loops on a shared 2-core machine. */
        usleep((useconds_t)sleep_us);
        if (sleep_us < 20000)
            sleep_us *= 2;
    }
}

int cannon_launch_share_root_info(const cannon_launch_env *env, cannon_launch_produce_fn produce,
                                  void *ctx, void *buf, size_t size, double timeout_s,
                                  char *created, size_t created_cap, char *err, size_t errlen)
{
    if (created != NULL && created_cap > 0)
        created[0] = '\0';
    if (env->size == 1)
        return produce(buf, size, ctx, err, errlen) == 0 ? CANNON_LAUNCH_OK : CANNON_LAUNCH_E_IO;
    char path[4200];
    int derived = env->root_info_file[0] == '\0';
    if (!derived) {
        snprintf(path, sizeof path, "%s", env->root_info_file);
    } else {
        if (env->job_id[0] == '\0') {
            set_err(err, errlen,
                    "%s is not set and the launcher gives no job id: set it to a path all ranks "
                    "can read that does not exist yet",
                    CANNON_HCCL_ROOT_INFO_FILE_ENV);
            return CANNON_LAUNCH_E_MISSING;
        }
        const char *tmp = cannon_env_get("TMPDIR");
        if (tmp == NULL || *tmp == '\0')
            tmp = "/tmp";
        /* The job id may contain '/' or spaces (PMIx namespaces); keep the name flat. */
        char id[sizeof env->job_id];
        snprintf(id, sizeof id, "%s", env->job_id);
        for (char *c = id; *c != '\0'; c++)
            if (*c == '/' || *c == ' ')
                *c = '_';
        snprintf(path, sizeof path, "%s/cannon_hccl_root_info.%s", tmp, id);
    }
    struct stat st;
    if (stat(path, &st) == 0 || env->rank != 0)
        return cannon_launch_wait_file(path, buf, size, timeout_s, err, errlen);
    if (produce(buf, size, ctx, err, errlen) != 0)
        return CANNON_LAUNCH_E_IO;
    int rc = cannon_launch_publish_file(path, buf, size, err, errlen);
    if (rc == CANNON_LAUNCH_OK && derived && created != NULL)
        snprintf(created, created_cap, "%s", path);
    return rc;
}
