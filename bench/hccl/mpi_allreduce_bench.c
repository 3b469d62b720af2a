/*
 * mpi_allreduce_bench - the Open MPI peer of hccl_bench: fp32 sum MPI_Allreduce, out of place,
 * same sweep options and the same nccl-tests columns (busbw = algbw x 2(n-1)/n).
 *
 *   mpirun -np 2 mpi_allreduce_bench -b 4K -e 256M -f 2 -n 20 -w 5 -c 1
 * time = mean per-call time of the slowest rank over -n back-to-back calls after a barrier.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int parse_size(const char *s, size_t *out)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || v < 0)
        return -1;
    double m = 1;
    if (*end == 'K' || *end == 'k')
        m = 1024.0, end++;
    else if (*end == 'M' || *end == 'm')
        m = 1024.0 * 1024, end++;
    else if (*end == 'G' || *end == 'g')
        m = 1024.0 * 1024 * 1024, end++;
    if (*end != '\0')
        return -1;
    *out = (size_t)(v * m);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    size_t minb = 32u << 20, maxb = 32u << 20;
    double factor = 2;
    int iters = 20, warmup = 5, check = 1, opt;
    while ((opt = getopt(argc, argv, "b:e:f:n:w:c:")) != -1) {
        switch (opt) {
        case 'b': if (parse_size(optarg, &minb)) MPI_Abort(MPI_COMM_WORLD, 2); break;
        case 'e': if (parse_size(optarg, &maxb)) MPI_Abort(MPI_COMM_WORLD, 2); break;
        case 'f': factor = atof(optarg); break;
        case 'n': iters = atoi(optarg); break;
        case 'w': warmup = atoi(optarg); break;
        case 'c': check = atoi(optarg); break;
        default:
            if (rank == 0)
                fprintf(stderr, "usage: mpi_allreduce_bench [-b MIN] [-e MAX] [-f F] [-n N] "
                                "[-w W] [-c 0|1]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (factor <= 1 || iters < 1 || warmup < 0)
        MPI_Abort(MPI_COMM_WORLD, 2);
    if (maxb < minb)
        maxb = minb;
    size_t maxn = maxb / sizeof(float);
    float *in = malloc((maxn ? maxn : 1) * sizeof(float));
    float *out = malloc((maxn ? maxn : 1) * sizeof(float));
    if (in == NULL || out == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (rank == 0) {
        printf("# mpi_allreduce_bench: fp32 sum  ranks %d  minBytes %zu  maxBytes %zu  warmup %d"
               "  iters %d\n",
               n, minb, maxb, warmup, iters);
        printf("#%12s %14s %8s %7s %6s %10s %8s %8s %7s\n", "size", "count", "type", "redop",
               "root", "time", "algbw", "busbw", "#wrong");
        fflush(stdout);
    }
    long total_wrong = 0;
    for (size_t bytes = minb; bytes <= maxb;) {
        size_t cnt = bytes / sizeof(float);
        if (cnt > 0) {
            /* Small integers: the sum is exact in fp32 whatever the reduction order. */
            for (size_t i = 0; i < cnt; i++) {
                in[i] = (float)(1 + (i + 3 * (size_t)rank) % 4);
                out[i] = -1;
            }
            long wrong = 0;
            MPI_Allreduce(in, out, (int)cnt, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            if (check)
                for (size_t i = 0; i < cnt; i++) {
                    float e = 0;
                    for (int r = 0; r < n; r++)
                        e += (float)(1 + (i + 3 * (size_t)r) % 4);
                    if (out[i] != e)
                        wrong++;
                }
            for (int i = 0; i < warmup; i++)
                MPI_Allreduce(in, out, (int)cnt, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < iters; i++)
                MPI_Allreduce(in, out, (int)cnt, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            double dt = (MPI_Wtime() - t0) / iters, dtmax;
            long wsum;
            MPI_Allreduce(&dt, &dtmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            MPI_Allreduce(&wrong, &wsum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
            total_wrong += wsum;
            double algbw = (double)(cnt * sizeof(float)) / dtmax / 1e9;
            if (rank == 0) {
                printf(" %12zu %14zu %8s %7s %6d %10.2f %8.2f %8.2f %7ld\n", cnt * sizeof(float),
                       cnt, "fp32", "sum", -1, dtmax * 1e6, algbw, algbw * 2.0 * (n - 1) / n,
                       check ? wsum : -1L);
                fflush(stdout);
            }
        }
        size_t nb = (size_t)((double)bytes * factor);
        bytes = nb > bytes ? nb : bytes + 1;
    }
    if (rank == 0)
        printf("# Errors with wrong values: %ld %s\n", total_wrong, total_wrong ? "FAILED" : "OK");
    free(in);
    free(out);
    MPI_Finalize();
    return total_wrong ? 1 : 0;
}
