/*
 * stream_copy - STREAM "copy" bandwidth (b[i] = a[i] over two 8-byte arrays, counted as
 * 2 x array bytes, no write-allocate traffic), measured with T threads so the collective
 * benchmarks can put a memory-bandwidth floor under their numbers in the same run.
 *
 *   hccl_stream_copy [-s BYTES_PER_ARRAY] [-t THREADS] [-n REPS]
 * prints: "copy_GBps <median> min <min> max <max> threads <T> bytes <S>"
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct worker {
    pthread_t th;
    int id, nthreads, reps;
    double *a, *b;
    size_t n;
    pthread_barrier_t *bar;
    double *times; /* filled by worker 0 */
} worker;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *run(void *arg)
{
    worker *w = arg;
    size_t lo = w->n * (size_t)w->id / (size_t)w->nthreads;
    size_t hi = w->n * (size_t)(w->id + 1) / (size_t)w->nthreads;
    /* First touch by the thread that will copy the slice (and outside the timing: fresh pages
     * cost far more than the copy on virtual machines). */
    for (size_t i = lo; i < hi; i++) {
        w->a[i] = (double)i;
        w->b[i] = 0;
    }
    for (int r = 0; r < w->reps; r++) {
        pthread_barrier_wait(w->bar);
        double t0 = now_s();
        for (size_t i = lo; i < hi; i++)
            w->b[i] = w->a[i];
        pthread_barrier_wait(w->bar);
        if (w->id == 0)
            w->times[r] = now_s() - t0;
    }
    return NULL;
}

static int cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
    size_t bytes = (size_t)256 << 20;
    int threads = (int)sysconf(_SC_NPROCESSORS_ONLN), reps = 10, opt;
    while ((opt = getopt(argc, argv, "s:t:n:")) != -1) {
        switch (opt) {
        case 's': bytes = (size_t)strtoull(optarg, NULL, 0); break;
        case 't': threads = atoi(optarg); break;
        case 'n': reps = atoi(optarg); break;
        default:
            fprintf(stderr, "usage: hccl_stream_copy [-s bytes] [-t threads] [-n reps]\n");
            return 2;
        }
    }
    if (threads < 1 || reps < 1 || bytes < 64)
        return 2;
    size_t n = bytes / sizeof(double);
    double *a = aligned_alloc(64, n * sizeof(double)), *b = aligned_alloc(64, n * sizeof(double));
    double *times = calloc((size_t)reps, sizeof(double));
    worker *ws = calloc((size_t)threads, sizeof(worker));
    pthread_barrier_t bar;
    if (a == NULL || b == NULL || times == NULL || ws == NULL ||
        pthread_barrier_init(&bar, NULL, (unsigned)threads) != 0)
        return 1;
    for (int t = 0; t < threads; t++) {
        ws[t] = (worker){.id = t, .nthreads = threads, .reps = reps, .a = a, .b = b, .n = n,
                         .bar = &bar, .times = times};
        if (t > 0 && pthread_create(&ws[t].th, NULL, run, &ws[t]) != 0)
            return 1;
    }
    run(&ws[0]);
    for (int t = 1; t < threads; t++)
        pthread_join(ws[t].th, NULL);
    /* Keep the copy observable so the compiler cannot drop it. */
    if (b[n / 2] != (double)(n / 2))
        fprintf(stderr, "stream_copy: wrong result\n");
    qsort(times, (size_t)reps, sizeof(double), cmp);
    double moved = 2.0 * (double)(n * sizeof(double));
    printf("copy_GBps %.3f min %.3f max %.3f threads %d bytes %zu\n",
           moved / times[reps / 2] / 1e9, moved / times[reps - 1] / 1e9, moved / times[0] / 1e9,
           threads, n * sizeof(double));
    pthread_barrier_destroy(&bar);
    free(a);
    free(b);
    free(times);
    free(ws);
    return 0;
}
