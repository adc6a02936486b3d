/* memcpy_bw.c - what this machine's memory can do, as the yardstick for `make bench`:
 * memcpy bandwidth (bytes copied per second, GB = 1e9) with 1, 2 and 4 threads, each
 * thread copying its own large buffer, each buffer first-touched by the thread that uses
 * it. Best of several repetitions, the threads started together behind a barrier and
 * timed from before the barrier to after the last join.
 *
 * usage: memcpy_bw [MiB] [repetitions] [total]
 *   MiB: copied by each thread (default 256: far beyond most caches); with `total`, MiB is
 *   the whole footprint instead, source and destination of all threads together, so a
 *   memcpy can be compared with a collective that touches the same number of bytes (and
 *   fits in a cache exactly when it does).
 * Prints "memcpy_1t_gbs=...", "memcpy_2t_gbs=..." and "memcpy_4t_gbs=..." for bench/run.sh
 * (4 threads: as many as the benchmark's ranks, which may get more out of the memory than
 * 2 on a machine with more cores, or share 2 cores here). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct copier {
    size_t bytes;
    char *src, *dst;
    pthread_barrier_t *go;
    double t0, t1;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *copier_alloc(void *arg)
{
    struct copier *c = arg;
    c->src = aligned_alloc(64, c->bytes);
    c->dst = aligned_alloc(64, c->bytes);
    if (c->src && c->dst) {
        memset(c->src, 1, c->bytes);
        memset(c->dst, 2, c->bytes);
    }
    return NULL;
}

static void *copier_run(void *arg)
{
    struct copier *c = arg;
    pthread_barrier_wait(c->go);
    c->t0 = now();
    memcpy(c->dst, c->src, c->bytes);
    c->t1 = now();
    return NULL;
}

/* Best copy rate (bytes copied per second) of nt threads copying together. */
static double measure(int nt, size_t bytes, int reps)
{
    struct copier c[4];
    pthread_t th[4];
    pthread_barrier_t go;
    for (int i = 0; i < nt; i++) {
        c[i] = (struct copier){.bytes = bytes};
        pthread_create(&th[i], NULL, copier_alloc, &c[i]);
    }
    for (int i = 0; i < nt; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < nt; i++)
        if (!c[i].src || !c[i].dst) {
            fprintf(stderr, "memcpy_bw: cannot allocate %zu bytes\n", bytes);
            exit(1);
        }
    double best = 0;
    for (int r = 0; r < reps; r++) {
        pthread_barrier_init(&go, NULL, (unsigned)nt);
        for (int i = 0; i < nt; i++) {
            c[i].go = &go;
            pthread_create(&th[i], NULL, copier_run, &c[i]);
        }
        for (int i = 0; i < nt; i++)
            pthread_join(th[i], NULL);
        pthread_barrier_destroy(&go);
        /* The span from the first start to the last finish: the rate both achieved
         * together, not the best single thread's. */
        double t0 = c[0].t0, t1 = c[0].t1;
        for (int i = 1; i < nt; i++) {
            t0 = c[i].t0 < t0 ? c[i].t0 : t0;
            t1 = c[i].t1 > t1 ? c[i].t1 : t1;
        }
        double rate = (double)bytes * nt / (t1 - t0);
        if (rate > best) best = rate;
    }
    for (int i = 0; i < nt; i++) {
        free(c[i].src);
        free(c[i].dst);
    }
    return best;
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? strtoull(argv[1], NULL, 10) : 256;
    int reps = argc > 2 ? atoi(argv[2]) : 7;
    int total = argc > 3 && strcmp(argv[3], "total") == 0;
    if (mib == 0 || reps < 1 || (argc > 3 && !total)) {
        fprintf(stderr, "usage: memcpy_bw [MiB] [repetitions] [total]\n");
        return 2;
    }
    size_t bytes = mib << 20;
    /* With `total`, nt threads copy bytes/(2 nt) each: the same footprint at every nt. */
    double one = measure(1, total ? bytes / 2 : bytes, reps);
    double two = measure(2, total ? bytes / 4 : bytes, reps);
    double four = measure(4, total ? bytes / 8 : bytes, reps);
    printf("memcpy: %zu MiB %s, best of %d: 1 thread %.2f GB/s, 2 threads %.2f GB/s, "
           "4 threads %.2f GB/s (bytes copied per second)\n",
           mib, total ? "in all (source + destination)" : "per thread", reps, one / 1e9,
           two / 1e9, four / 1e9);
    printf("memcpy_1t_gbs=%.6f\nmemcpy_2t_gbs=%.6f\nmemcpy_4t_gbs=%.6f\n", one / 1e9, two / 1e9,
           four / 1e9);
    return 0;
}
