/*
 * cannonrun - starts N local ranks of a collective job with the environment a CANN training
 * job expects, supervises them and returns the worst exit status.
 *
 *   cannonrun -n N [--devices 0,1,..] [--timeout S] [--grace S] [--rank-table-out FILE]
 *             [--tag-output] [--bind-to none|core] [--root-info rank0|launcher] prog args...
 *
 * Per rank it exports RANK_ID, RANK_SIZE, DEVICE_ID, ASCEND_DEVICE_ID, LOCAL_RANK,
 * LOCAL_WORLD_SIZE, RANK, WORLD_SIZE, GROUP_RANK, MASTER_ADDR, MASTER_PORT, RANK_TABLE_FILE,
 * CANNON_HCCL_ROOT_INFO_FILE and CANNONRUN_JOB_ID (and CANNON_CPU_THREADS when unset); see
 * tools/cannonrun/README.md for the contract.
 *
 * Supervision rules (why: a dead rank leaves its peers blocked in a collective forever, so the
 * launcher, which sees every exit, is the cheapest place to break the hang):
 *   - SIGINT/SIGTERM/SIGHUP are forwarded to every rank's process group; ranks still alive
 *     after the grace period get SIGKILL; a second SIGINT/SIGTERM kills at once.
 *     SIGQUIT/SIGUSR1/SIGUSR2 are only forwarded.
 *   - A rank that exits non-zero or dies of a signal makes the launcher send SIGTERM to the
 *     others and SIGKILL after the grace period.
 *   - The exit status is the worst (largest) status of the ranks the launcher did not kill
 *     itself, a signal death counting as 128+signo; 124 when --timeout expired.
 */
/* Linux launcher: ppoll, pipe2, sched_*affinity, nftw and prctl are GNU/Linux interfaces. */
#define _GNU_SOURCE
#include "cannon/launch_env.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "env.h" /* src/common */

#ifdef CANNON_HAVE_HCCL
#include <hccl/hccl.h>
#endif

extern char **environ;

#define MAX_RANKS 4096
#define LINE_CAP 65536

typedef struct out_stream {
    int fd; /* read end, -1 when closed */
    int dest; /* 1 or 2 */
    size_t len;
    char buf[LINE_CAP];
} out_stream;

typedef struct rank_proc {
    pid_t pid;
    int alive;
    int killed_by_us; /* the launcher sent it SIGTERM/SIGKILL on its own initiative */
    int excluded;     /* died of a signal while killed_by_us: not the job's fault */
    int status_code;  /* exit code or 128+signo, valid when !alive */
    int device;
    char **envp;
    size_t env_own_from; /* envp[env_own_from..] were allocated by build_env */
    out_stream *out[2];
} rank_proc;

typedef struct options {
    int n;
    int *devices;
    double timeout_s;
    double grace_s;
    const char *rank_table_out;
    int tag_output;
    int bind_core;
    int root_info_launcher;
    const char *master_addr;
    int master_port;
    char **argv;
} options;

static volatile sig_atomic_t g_pending[NSIG];
static const int k_forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
#define N_FORWARDED ((int)(sizeof k_forwarded / sizeof k_forwarded[0]))

static char g_tmpdir[PATH_MAX];

static void on_signal(int sig)
{
    if (sig > 0 && sig < NSIG)
        g_pending[sig] = 1;
}

static void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void msg(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    fprintf(stderr, "cannonrun: %s\n", line);
    fflush(stderr);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cannonrun -n N [options] [--] prog [args...]\n"
            "  -n, --np N              number of local ranks (1..%d)\n"
            "  --devices LIST          device id per rank, e.g. 0,1,2,3 (default 0..N-1)\n"
            "  --timeout S             kill the job after S seconds, exit 124 (default: none)\n"
            "  --grace S               seconds between SIGTERM and SIGKILL (default 3)\n"
            "  --rank-table-out FILE   also write the generated rank table to FILE\n"
            "  --tag-output            prefix each output line with [rank]\n"
            "  --bind-to none|core     pin rank r to the r-th allowed CPU (default none)\n"
            "  --root-info rank0|launcher\n"
            "                          who creates the HCCL root info (default rank0;\n"
            "                          'launcher' needs a cannonrun built with libhccl)\n"
            "  --master-addr A         MASTER_ADDR (default 127.0.0.1)\n"
            "  --master-port P         MASTER_PORT (default: a free port)\n"
            "  -h, --help              this text\n",
            MAX_RANKS);
}

/* A duration in seconds: a finite, non-negative decimal number. strtod alone would also take
 * "nan" (which compares false with everything, so a timeout of nan never expires), "inf", hex
 * and leading blanks or signs. */
static int parse_double(const char *s, double *out)
{
    if (!((*s >= '0' && *s <= '9') || *s == '.') || strpbrk(s, "xXpP") != NULL)
        return -1;
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno != 0 || end == s || *end != '\0' || !isfinite(v) || v < 0)
        return -1;
    *out = v;
    return 0;
}

static int parse_int_arg(const char *s, long lo, long hi, int *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_devices(const char *s, int **out, int *count)
{
    int cap = 16, n = 0;
    int *v = malloc(sizeof(int) * (size_t)cap);
    if (v == NULL)
        return -1;
    const char *p = s;
    while (*p != '\0') {
        char *end = NULL;
        errno = 0;
        long d = strtol(p, &end, 10);
        if (errno != 0 || end == p || d < 0 || d > INT_MAX || (*end != ',' && *end != '\0')) {
            free(v);
            return -1;
        }
        if (n == cap) {
            cap *= 2;
            int *nv = realloc(v, sizeof(int) * (size_t)cap);
            if (nv == NULL) {
                free(v);
                return -1;
            }
            v = nv;
        }
        v[n++] = (int)d;
        p = *end == ',' ? end + 1 : end;
    }
    if (n == 0) {
        free(v);
        return -1;
    }
    *out = v;
    *count = n;
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    enum { OPT_DEVICES = 256, OPT_TIMEOUT, OPT_GRACE, OPT_RTOUT, OPT_TAG, OPT_BIND, OPT_ROOT,
           OPT_MADDR, OPT_MPORT };
    static const struct option longopts[] = {
        {"np", required_argument, NULL, 'n'},
        {"devices", required_argument, NULL, OPT_DEVICES},
        {"timeout", required_argument, NULL, OPT_TIMEOUT},
        {"grace", required_argument, NULL, OPT_GRACE},
        {"rank-table-out", required_argument, NULL, OPT_RTOUT},
        {"tag-output", no_argument, NULL, OPT_TAG},
        {"bind-to", required_argument, NULL, OPT_BIND},
        {"root-info", required_argument, NULL, OPT_ROOT},
        {"master-addr", required_argument, NULL, OPT_MADDR},
        {"master-port", required_argument, NULL, OPT_MPORT},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->grace_s = 3.0;
    o->master_addr = "127.0.0.1";
    int ndev = 0, c;
    /* '+': stop at the first non-option so the program's own options pass through. */
    while ((c = getopt_long(argc, argv, "+n:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (parse_int_arg(optarg, 1, MAX_RANKS, &o->n) != 0) {
                msg("-n wants an integer in [1, %d], got '%s'", MAX_RANKS, optarg);
                return -1;
            }
            break;
        case OPT_DEVICES:
            free(o->devices);
            o->devices = NULL;
            if (parse_devices(optarg, &o->devices, &ndev) != 0) {
                msg("--devices wants a comma-separated list of ids, got '%s'", optarg);
                return -1;
            }
            break;
        case OPT_TIMEOUT:
            if (parse_double(optarg, &o->timeout_s) != 0) {
                msg("--timeout wants a finite number of seconds >= 0, got '%s'", optarg);
                return -1;
            }
            break;
        case OPT_GRACE:
            if (parse_double(optarg, &o->grace_s) != 0) {
                msg("--grace wants a finite number of seconds >= 0, got '%s'", optarg);
                return -1;
            }
            break;
        case OPT_RTOUT: o->rank_table_out = optarg; break;
        case OPT_TAG: o->tag_output = 1; break;
        case OPT_BIND:
            if (strcmp(optarg, "core") == 0)
                o->bind_core = 1;
            else if (strcmp(optarg, "none") == 0)
                o->bind_core = 0;
            else {
                msg("--bind-to wants none or core, got '%s'", optarg);
                return -1;
            }
            break;
        case OPT_ROOT:
            if (strcmp(optarg, "launcher") == 0)
                o->root_info_launcher = 1;
            else if (strcmp(optarg, "rank0") == 0)
                o->root_info_launcher = 0;
            else {
                msg("--root-info wants rank0 or launcher, got '%s'", optarg);
                return -1;
            }
            break;
        case OPT_MADDR: o->master_addr = optarg; break;
        case OPT_MPORT:
            if (parse_int_arg(optarg, 1, 65535, &o->master_port) != 0) {
                msg("--master-port wants a port number, got '%s'", optarg);
                return -1;
            }
            break;
        case 'h':
            usage(stdout);
            free(o->devices);
            exit(0);
        default: usage(stderr); return -1;
        }
    }
    if (o->n == 0) {
        msg("-n N is required");
        usage(stderr);
        return -1;
    }
    if (optind >= argc) {
        msg("no program to run");
        usage(stderr);
        return -1;
    }
    if (o->devices != NULL && ndev != o->n) {
        msg("--devices lists %d ids for %d ranks", ndev, o->n);
        return -1;
    }
    if (o->devices == NULL) {
        o->devices = malloc(sizeof(int) * (size_t)o->n);
        if (o->devices == NULL)
            return -1;
        for (int i = 0; i < o->n; i++)
            o->devices[i] = i;
    }
#ifndef CANNON_HAVE_HCCL
    if (o->root_info_launcher) {
        msg("--root-info launcher: this cannonrun was built without libhccl");
        return -1;
    }
#endif
    o->argv = argv + optind;
    return 0;
}

/* Reserves @p n distinct free TCP ports by binding them all at once, then releases them.
 * Another process may grab one in between (as with every launcher that picks ports), but
 * binding them simultaneously at least guarantees they differ from each other. */
static int pick_ports(int n, int *ports)
{
    int *fds = malloc(sizeof(int) * (size_t)n);
    if (fds == NULL)
        return -1;
    int ok = 0, i;
    for (i = 0; i < n; i++) {
        fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fds[i] < 0)
            break;
        struct sockaddr_in a;
        memset(&a, 0, sizeof a);
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = 0;
        socklen_t len = sizeof a;
        if (bind(fds[i], (struct sockaddr *)&a, sizeof a) != 0 ||
            getsockname(fds[i], (struct sockaddr *)&a, &len) != 0) {
            close(fds[i]);
            break;
        }
        ports[i] = ntohs(a.sin_port);
    }
    ok = i == n;
    for (int j = 0; j < i; j++)
        close(fds[j]);
    free(fds);
    return ok ? 0 : -1;
}

/* Rank table version "1.0" (CANN "AI Server mode"): one server, every value a JSON string.
 * device_ip is the loopback address because the CPU build reaches its peers over TCP/shm on
 * this host; device_port differs per rank so ranks sharing a device id never collide. */
static int write_rank_table(const char *path, const options *o, const int *ports)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        msg("cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    fprintf(f,
            "{\n  \"status\": \"completed\",\n  \"version\": \"1.0\",\n"
            "  \"server_count\": \"1\",\n  \"server_list\": [\n    {\n"
            "      \"server_id\": \"127.0.0.1\",\n      \"host_ip\": \"127.0.0.1\",\n"
            "      \"device\": [\n");
    for (int r = 0; r < o->n; r++)
        fprintf(f,
                "        {\"device_id\": \"%d\", \"device_ip\": \"127.0.0.1\", "
                "\"device_port\": \"%d\", \"rank_id\": \"%d\"}%s\n",
                o->devices[r], ports[r], r, r + 1 < o->n ? "," : "");
    fprintf(f, "      ]\n    }\n  ]\n}\n");
    if (fclose(f) != 0) {
        msg("cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static void remove_tmpdir(void)
{
    if (g_tmpdir[0] != '\0')
        nftw(g_tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    g_tmpdir[0] = '\0';
}

/* Variables the launcher owns: an inherited value (e.g. from an outer job) must not leak into
 * the ranks next to ours. */
static const char *const k_owned[] = {
    "RANK_ID", "RANK_SIZE", "DEVICE_ID", "ASCEND_DEVICE_ID", "LOCAL_RANK", "LOCAL_WORLD_SIZE",
    "RANK", "WORLD_SIZE", "GROUP_RANK", "MASTER_ADDR", "MASTER_PORT", "RANK_TABLE_FILE",
    CANNON_HCCL_ROOT_INFO_FILE_ENV, "CANNONRUN_JOB_ID",
    /* An outer launcher's per-process identity (cannonrun itself started by mpirun, an MPICH
     * launcher or srun) describes this launcher, not its ranks. */
    "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
    "OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_COMM_WORLD_NODE_RANK", "PMI_RANK", "PMI_SIZE",
    "MPI_LOCALRANKID", "MPI_LOCALNRANKS", "SLURM_PROCID", "SLURM_LOCALID",
};

static int owned(const char *kv)
{
    for (size_t i = 0; i < sizeof k_owned / sizeof k_owned[0]; i++) {
        size_t l = strlen(k_owned[i]);
        if (strncmp(kv, k_owned[i], l) == 0 && kv[l] == '=')
            return 1;
    }
    return 0;
}

static char *kv(const char *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *kv(const char *k, const char *fmt, ...)
{
    char val[PATH_MAX + 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(val, sizeof val, fmt, ap);
    va_end(ap);
    size_t len = strlen(k) + strlen(val) + 2;
    char *s = malloc(len);
    if (s != NULL)
        snprintf(s, len, "%s=%s", k, val);
    return s;
}

/* Builds a rank's whole environment before fork, so the child only calls async-signal-safe
 * functions (the launcher may be multi-threaded once libhccl created the root info). */
static char **build_env(const options *o, int r, const char *rank_table, const char *root_file,
                        const char *job_id, int master_port, int threads, size_t *own_from)
{
    size_t n = 0;
    while (environ[n] != NULL)
        n++;
    char **e = calloc(n + 32, sizeof(char *));
    if (e == NULL)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!owned(environ[i]))
            e[k++] = environ[i];
    *own_from = k;
    e[k++] = kv("RANK_ID", "%d", r);
    e[k++] = kv("RANK_SIZE", "%d", o->n);
    e[k++] = kv("RANK", "%d", r);
    e[k++] = kv("WORLD_SIZE", "%d", o->n);
    e[k++] = kv("LOCAL_RANK", "%d", r);
    e[k++] = kv("LOCAL_WORLD_SIZE", "%d", o->n);
    e[k++] = kv("GROUP_RANK", "%d", 0);
    e[k++] = kv("DEVICE_ID", "%d", o->devices[r]);
    e[k++] = kv("ASCEND_DEVICE_ID", "%d", o->devices[r]);
    e[k++] = kv("MASTER_ADDR", "%s", o->master_addr);
    e[k++] = kv("MASTER_PORT", "%d", master_port);
    e[k++] = kv("RANK_TABLE_FILE", "%s", rank_table);
    e[k++] = kv(CANNON_HCCL_ROOT_INFO_FILE_ENV, "%s", root_file);
    e[k++] = kv("CANNONRUN_JOB_ID", "%s", job_id);
    /* N ranks each starting one CPU-driver thread per core would oversubscribe the host N
     * times; split the cores unless the user chose. */
    if (cannon_env_get("CANNON_CPU_THREADS") == NULL)
        e[k++] = kv("CANNON_CPU_THREADS", "%d", threads);
    for (size_t i = 0; i < k; i++)
        if (e[i] == NULL)
            return NULL;
    e[k] = NULL;
    return e;
}

static int allowed_cpus(cpu_set_t *set)
{
    CPU_ZERO(set);
    if (sched_getaffinity(0, sizeof *set, set) != 0)
        return (int)sysconf(_SC_NPROCESSORS_ONLN);
    return CPU_COUNT(set);
}

static void child_fail(const char *what, const char *arg)
{
    /* write(2) only: this runs between fork and exec. */
    const char *p1 = "cannonrun: ";
    int e = errno;
    if (write(2, p1, strlen(p1)) < 0 || write(2, what, strlen(what)) < 0 ||
        write(2, arg, strlen(arg)) < 0 || write(2, ": ", 2) < 0 ||
        write(2, strerror(e), strlen(strerror(e))) < 0 || write(2, "\n", 1) < 0)
        _exit(127);
    _exit(127);
}

static pid_t spawn_rank(const options *o, int r, rank_proc *rp, const sigset_t *orig_mask,
                        const cpu_set_t *cpus, int ncpus, pid_t launcher)
{
    int pout[2] = {-1, -1}, perr[2] = {-1, -1};
    if (o->tag_output) {
        if (pipe2(pout, O_CLOEXEC) != 0 || pipe2(perr, O_CLOEXEC) != 0) {
            msg("pipe: %s", strerror(errno));
            return -1;
        }
    }
    /* Pick the CPU before fork: CPU_* macros are plain bit operations, but keep the child
     * minimal anyway. */
    cpu_set_t one;
    CPU_ZERO(&one);
    if (o->bind_core && ncpus > 0) {
        int want = r % ncpus, seen = 0;
        for (int c = 0; c < CPU_SETSIZE; c++) {
            if (CPU_ISSET(c, cpus)) {
                if (seen == want) {
                    CPU_SET(c, &one);
                    break;
                }
                seen++;
            }
        }
    }
    pid_t pid = fork();
    if (pid < 0) {
        msg("fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        /* Own process group: forwarding and killing reach the rank's children too, and a
         * terminal ^C reaches only the launcher, which forwards it exactly once. */
        setpgid(0, 0);
        /* If the launcher is SIGKILLed the ranks must not live on as orphans. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != launcher)
            _exit(137);
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = SIG_DFL;
        for (int i = 0; i < N_FORWARDED; i++)
            sigaction(k_forwarded[i], &sa, NULL);
        sigaction(SIGCHLD, &sa, NULL);
        sigaction(SIGPIPE, &sa, NULL);
        sigprocmask(SIG_SETMASK, orig_mask, NULL);
        /* stdin is not shared: N ranks reading one terminal would interleave at random. */
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) {
            dup2(devnull, 0);
            if (devnull != 0)
                close(devnull);
        }
        if (o->tag_output) {
            dup2(pout[1], 1);
            dup2(perr[1], 2);
        }
        if (o->bind_core && CPU_COUNT(&one) > 0)
            sched_setaffinity(0, sizeof one, &one);
        environ = rp->envp;
        execvp(o->argv[0], o->argv);
        child_fail("cannot execute ", o->argv[0]);
    }
    setpgid(pid, pid); /* both sides call it, so the group exists before any kill() below */
    rp->pid = pid;
    rp->alive = 1;
    if (o->tag_output) {
        close(pout[1]);
        close(perr[1]);
        int fds[2] = {pout[0], perr[0]};
        for (int i = 0; i < 2; i++) {
            fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
            rp->out[i] = calloc(1, sizeof(out_stream));
            if (rp->out[i] == NULL)
                return -1;
            rp->out[i]->fd = fds[i];
            rp->out[i]->dest = i + 1;
        }
    }
    return pid;
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* output closed: drop, the ranks' statuses still matter */
        p += w;
        n -= (size_t)w;
    }
}

static void emit_line(int rank, int dest, const char *p, size_t n, int add_newline)
{
    char prefix[32];
    int pl = snprintf(prefix, sizeof prefix, "[%d] ", rank);
    /* One write per line where possible, so lines of different ranks do not interleave. */
    char stackbuf[4096];
    if ((size_t)pl + n + 1 <= sizeof stackbuf) {
        memcpy(stackbuf, prefix, (size_t)pl);
        memcpy(stackbuf + pl, p, n);
        size_t t = (size_t)pl + n;
        if (add_newline)
            stackbuf[t++] = '\n';
        write_all(dest, stackbuf, t);
    } else {
        write_all(dest, prefix, (size_t)pl);
        write_all(dest, p, n);
        if (add_newline)
            write_all(dest, "\n", 1);
    }
}

/* Reads what is available; emits complete lines; at EOF emits the unterminated rest. */
static void pump(out_stream *s, int rank)
{
    for (;;) {
        if (s->len == LINE_CAP) { /* an overlong line: emit it in pieces */
            emit_line(rank, s->dest, s->buf, s->len, 1);
            s->len = 0;
        }
        ssize_t r = read(s->fd, s->buf + s->len, LINE_CAP - s->len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (r <= 0) {
            if (s->len > 0)
                emit_line(rank, s->dest, s->buf, s->len, 1);
            s->len = 0;
            close(s->fd);
            s->fd = -1;
            return;
        }
        size_t start = 0, end = s->len + (size_t)r;
        for (size_t i = s->len; i < end; i++) {
            if (s->buf[i] == '\n') {
                emit_line(rank, s->dest, s->buf + start, i + 1 - start, 0);
                start = i + 1;
            }
        }
        memmove(s->buf, s->buf + start, end - start);
        s->len = end - start;
    }
}

static void signal_group(rank_proc *rp, int sig)
{
    if (kill(-rp->pid, sig) != 0)
        kill(rp->pid, sig);
}

static int status_code(int st)
{
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return 1;
}

int main(int argc, char **argv)
{
    options o;
    if (parse_options(argc, argv, &o) != 0) {
        free(o.devices);
        return 2;
    }

    const pid_t self = getpid();
    const char *tmpbase = cannon_env_get("TMPDIR");
    if (tmpbase == NULL || *tmpbase == '\0')
        tmpbase = "/tmp";
    snprintf(g_tmpdir, sizeof g_tmpdir, "%s/cannonrun.XXXXXX", tmpbase);
    if (mkdtemp(g_tmpdir) == NULL) {
        msg("cannot create a temporary directory under %s: %s", tmpbase, strerror(errno));
        return 2;
    }
    int exit_code = 2;
    struct pollfd *pfd = NULL;
    out_stream **pfd_stream = NULL;
    int *pfd_rank = NULL;
    rank_proc *ranks = calloc((size_t)o.n, sizeof(rank_proc));
    int *ports = malloc(sizeof(int) * (size_t)(o.n + 1));
    char rank_table[PATH_MAX], root_file[PATH_MAX], job_id[64];
    if (ranks == NULL || ports == NULL)
        goto out;
    /* Checked lengths: a truncated path would name some other file. */
    if (snprintf(rank_table, sizeof rank_table, "%s/rank_table.json", g_tmpdir) >=
            (int)sizeof rank_table ||
        snprintf(root_file, sizeof root_file, "%s/hccl_root_info", g_tmpdir) >=
            (int)sizeof root_file) {
        msg("temporary directory path too long: %s", g_tmpdir);
        goto out;
    }
    snprintf(job_id, sizeof job_id, "cannonrun-%ld-%ld", (long)self, (long)time(NULL));
    if (pick_ports(o.n + 1, ports) != 0) {
        msg("cannot reserve %d local TCP ports: %s", o.n + 1, strerror(errno));
        goto out;
    }
    int master_port = o.master_port > 0 ? o.master_port : ports[o.n];
    if (write_rank_table(rank_table, &o, ports) != 0)
        goto out;
    if (o.rank_table_out != NULL && write_rank_table(o.rank_table_out, &o, ports) != 0)
        goto out;

#ifdef CANNON_HAVE_HCCL
    if (o.root_info_launcher) {
        HcclRootInfo info;
        HcclResult hr = HcclGetRootInfo(&info);
        if (hr != HCCL_SUCCESS) {
            msg("HcclGetRootInfo failed: %s (%d)", HcclGetErrorString(hr), (int)hr);
            goto out;
        }
        char err[512];
        if (cannon_launch_publish_file(root_file, &info, sizeof info, err, sizeof err) != 0) {
            msg("%s", err);
            goto out;
        }
    }
#endif

    cpu_set_t cpus;
    int ncpus = allowed_cpus(&cpus);
    int threads = ncpus / o.n > 0 ? ncpus / o.n : 1;
    for (int r = 0; r < o.n; r++) {
        ranks[r].device = o.devices[r];
        ranks[r].envp = build_env(&o, r, rank_table, root_file, job_id, master_port, threads,
                                  &ranks[r].env_own_from);
        if (ranks[r].envp == NULL) {
            msg("out of memory");
            goto out;
        }
    }

    /* Signals stay blocked except inside ppoll, so none can slip in between checking the
     * pending flags and going to sleep. */
    sigset_t block, orig, waitmask;
    sigemptyset(&block);
    for (int i = 0; i < N_FORWARDED; i++)
        sigaddset(&block, k_forwarded[i]);
    sigaddset(&block, SIGCHLD);
    sigprocmask(SIG_BLOCK, &block, &orig);
    waitmask = orig;
    for (int i = 0; i < N_FORWARDED; i++)
        sigdelset(&waitmask, k_forwarded[i]);
    sigdelset(&waitmask, SIGCHLD);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < N_FORWARDED; i++)
        sigaction(k_forwarded[i], &sa, NULL);
    sigaction(SIGCHLD, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    int alive = 0, spawn_failed = 0;
    int aborting = 0, timed_out = 0, interrupted_by = 0;
    double kill_deadline = 0; /* 0: none */
    const double start = now_s();
    for (int r = 0; r < o.n; r++) {
        if (spawn_rank(&o, r, &ranks[r], &orig, &cpus, ncpus, self) < 0) {
            /* Treat as a failed rank: the ones already started are terminated below. */
            aborting = 1;
            spawn_failed = 1;
            break;
        }
        alive++;
    }
    if (aborting) {
        for (int r = 0; r < o.n; r++)
            if (ranks[r].alive) {
                ranks[r].killed_by_us = 1;
                signal_group(&ranks[r], SIGTERM);
            }
        kill_deadline = now_s() + o.grace_s;
    }

    pfd = calloc((size_t)o.n * 2, sizeof(struct pollfd));
    pfd_stream = calloc((size_t)o.n * 2, sizeof(out_stream *));
    pfd_rank = calloc((size_t)o.n * 2, sizeof(int));
    if (pfd == NULL || pfd_stream == NULL || pfd_rank == NULL) {
        msg("out of memory");
        goto out;
    }
    double drain_deadline = 0;
    for (;;) {
        int nfds = 0;
        for (int r = 0; r < o.n; r++)
            for (int i = 0; i < 2; i++)
                if (ranks[r].out[i] != NULL && ranks[r].out[i]->fd >= 0) {
                    pfd[nfds].fd = ranks[r].out[i]->fd;
                    pfd[nfds].events = POLLIN;
                    pfd_stream[nfds] = ranks[r].out[i];
                    pfd_rank[nfds] = r;
                    nfds++;
                }
        if (alive == 0) {
            /* Output pipes may be held open by a rank's own children; drain them briefly. */
            if (nfds == 0)
                break;
            if (drain_deadline == 0)
                drain_deadline = now_s() + 1.0;
            else if (now_s() >= drain_deadline)
                break;
        }
        double t = now_s(), wait_s = 3600;
        if (kill_deadline > 0)
            wait_s = kill_deadline - t;
        if (o.timeout_s > 0 && !timed_out && start + o.timeout_s - t < wait_s)
            wait_s = start + o.timeout_s - t;
        if (drain_deadline > 0 && drain_deadline - t < wait_s)
            wait_s = drain_deadline - t;
        if (wait_s < 0)
            wait_s = 0;
        struct timespec ts = {(time_t)wait_s, (long)((wait_s - (double)(time_t)wait_s) * 1e9)};
        int pr = ppoll(pfd, (nfds_t)nfds, &ts, &waitmask);
        if (pr > 0)
            for (int i = 0; i < nfds; i++)
                if (pfd[i].revents != 0)
                    pump(pfd_stream[i], pfd_rank[i]);

        /* Forward signals. */
        for (int i = 0; i < N_FORWARDED; i++) {
            int sig = k_forwarded[i];
            if (!g_pending[sig])
                continue;
            g_pending[sig] = 0;
            int terminating = sig == SIGINT || sig == SIGTERM || sig == SIGHUP;
            int escalate = terminating && interrupted_by != 0;
            if (terminating && interrupted_by == 0)
                interrupted_by = sig;
            for (int r = 0; r < o.n; r++) {
                if (!ranks[r].alive)
                    continue;
                if (escalate)
                    ranks[r].killed_by_us = 1;
                signal_group(&ranks[r], escalate ? SIGKILL : sig);
            }
            if (terminating && kill_deadline == 0)
                kill_deadline = now_s() + o.grace_s;
        }

        /* Reap. */
        g_pending[SIGCHLD] = 0;
        for (;;) {
            int st;
            pid_t pid = waitpid(-1, &st, WNOHANG);
            if (pid <= 0)
                break;
            for (int r = 0; r < o.n; r++) {
                if (ranks[r].pid != pid || !ranks[r].alive)
                    continue;
                ranks[r].alive = 0;
                ranks[r].status_code = status_code(st);
                /* A normal exit always counts (a rank that finished with 7 just before the
                 * launcher's SIGTERM arrived still failed); only a death by the launcher's
                 * own kill signal is not the job's fault. */
                ranks[r].excluded = WIFSIGNALED(st) && ranks[r].killed_by_us;
                alive--;
                if (ranks[r].status_code != 0 && !ranks[r].killed_by_us && !aborting &&
                    interrupted_by == 0) {
                    if (WIFSIGNALED(st))
                        msg("rank %d (pid %ld) was killed by signal %d (%s); terminating the "
                            "other ranks", r, (long)pid, WTERMSIG(st), strsignal(WTERMSIG(st)));
                    else
                        msg("rank %d (pid %ld) exited with status %d; terminating the other "
                            "ranks", r, (long)pid, WEXITSTATUS(st));
                    aborting = 1;
                    for (int q = 0; q < o.n; q++)
                        if (ranks[q].alive) {
                            ranks[q].killed_by_us = 1;
                            signal_group(&ranks[q], SIGTERM);
                        }
                    kill_deadline = now_s() + o.grace_s;
                }
            }
        }

        t = now_s();
        if (o.timeout_s > 0 && !timed_out && t - start >= o.timeout_s && alive > 0) {
            msg("timeout after %.1f s; terminating %d rank(s)", o.timeout_s, alive);
            timed_out = 1;
            for (int r = 0; r < o.n; r++)
                if (ranks[r].alive) {
                    ranks[r].killed_by_us = 1;
                    signal_group(&ranks[r], SIGTERM);
                }
            kill_deadline = t + o.grace_s;
        }
        if (kill_deadline > 0 && t >= kill_deadline && alive > 0) {
            for (int r = 0; r < o.n; r++)
                if (ranks[r].alive) {
                    msg("rank %d (pid %ld) still running after %.1f s grace; sending SIGKILL", r,
                        (long)ranks[r].pid, o.grace_s);
                    ranks[r].killed_by_us = 1;
                    signal_group(&ranks[r], SIGKILL);
                }
            kill_deadline = 0;
        }
    }

    int worst = 0;
    for (int r = 0; r < o.n; r++)
        if (ranks[r].pid > 0 && !ranks[r].excluded && ranks[r].status_code > worst)
            worst = ranks[r].status_code;
    if (timed_out)
        exit_code = 124;
    else if (spawn_failed)
        exit_code = worst > 2 ? worst : 2;
    else if (worst == 0 && interrupted_by != 0)
        exit_code = 128 + interrupted_by;
    else
        exit_code = worst;
out:
    free(pfd);
    free(pfd_stream);
    free(pfd_rank);
    for (int r = 0; ranks != NULL && r < o.n; r++) {
        for (int i = 0; i < 2; i++) {
            if (ranks[r].out[i] != NULL && ranks[r].out[i]->fd >= 0)
                close(ranks[r].out[i]->fd);
            free(ranks[r].out[i]);
        }
        if (ranks[r].envp != NULL)
            for (size_t i = ranks[r].env_own_from; ranks[r].envp[i] != NULL; i++)
                free(ranks[r].envp[i]);
        free(ranks[r].envp);
    }
    free(ranks);
    free(ports);
    free(o.devices);
    remove_tmpdir();
    return exit_code;
}
