/*
 * test_rank - the rank program driven by test_cannonrun.sh.
 *
 *   test_rank env                 print what launch_env read and the raw variables
 *   test_rank exit C0 C1 ...      rank r exits with status C<r>
 *   test_rank kill R SIG          rank R raises SIG after 0.2 s; the others sleep 30 s
 *   test_rank trap DIR            trap SIGINT/SIGTERM (print, exit 40+signo), touch DIR/ready.<r>, wait
 *   test_rank ignore [DIR]        ignore SIGTERM, touch DIR/ready.<r>, sleep 30 s
 *   test_rank sleep S             sleep S seconds
 */
#include "cannon/launch_env.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t g_sig;

static void on_sig(int s)
{
    g_sig = s;
}

static void nap(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && g_sig == 0) {
    }
}

static const char *env_or(const char *name)
{
    const char *v = getenv(name);
    return v ? v : "(unset)";
}

int main(int argc, char **argv)
{
    cannon_launch_env e;
    char err[512];
    if (cannon_launch_env_read(&e, err, sizeof err) != 0) {
        fprintf(stderr, "launch_env: %s\n", err);
        return 90;
    }
    const char *mode = argc > 1 ? argv[1] : "env";
    if (strcmp(mode, "env") == 0) {
        printf("rank=%d size=%d local=%d/%d device=%d source=%s cannonrun=%d\n", e.rank, e.size,
               e.local_rank, e.local_size, e.device_id, cannon_launch_source_name(e.source),
               e.launched_by_cannonrun);
        static const char *vars[] = {"RANK_ID", "RANK_SIZE", "DEVICE_ID", "ASCEND_DEVICE_ID",
                                     "LOCAL_RANK", "LOCAL_WORLD_SIZE", "RANK", "WORLD_SIZE",
                                     "MASTER_ADDR", "MASTER_PORT", "RANK_TABLE_FILE",
                                     "CANNON_HCCL_ROOT_INFO_FILE", "CANNON_CPU_THREADS"};
        for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
            printf("r%d %s=%s\n", e.rank, vars[i], env_or(vars[i]));
        if (e.rank == 0 && e.rank_table_file[0] != '\0') {
            FILE *f = fopen(e.rank_table_file, "r");
            if (f == NULL) {
                printf("rank table missing\n");
                return 1;
            }
            char line[512];
            while (fgets(line, sizeof line, f) != NULL)
                printf("table: %s", line);
            fclose(f);
        }
        return 0;
    }
    if (strcmp(mode, "exit") == 0) {
        int idx = 2 + e.rank;
        return idx < argc ? atoi(argv[idx]) : 0;
    }
    if (strcmp(mode, "kill") == 0 && argc > 3) {
        if (e.rank == atoi(argv[2])) {
            nap(0.2);
            raise(atoi(argv[3]));
            return 0;
        }
        nap(30);
        return 0;
    }
    if (strcmp(mode, "trap") == 0 && argc > 2) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_sig;
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        char path[4096];
        snprintf(path, sizeof path, "%s/ready.%d", argv[2], e.rank);
        FILE *f = fopen(path, "w");
        if (f != NULL)
            fclose(f);
        nap(30);
        if (g_sig != 0) {
            printf("rank %d got signal %d\n", e.rank, (int)g_sig);
            fflush(stdout);
            return 40 + g_sig;
        }
        return 0;
    }
    if (strcmp(mode, "ignore") == 0) {
        signal(SIGTERM, SIG_IGN);
        if (argc > 2) {
            char path[4096];
            snprintf(path, sizeof path, "%s/ready.%d", argv[2], e.rank);
            FILE *f = fopen(path, "w");
            if (f != NULL)
                fclose(f);
        }
        nap(30);
        return 0;
    }
    if (strcmp(mode, "sleep") == 0 && argc > 2) {
        nap(atof(argv[2]));
        return 0;
    }
    fprintf(stderr, "test_rank: bad arguments\n");
    return 2;
}
