/* mpi_allreduce.c - the reference point for `make bench`: Open MPI's MPI_Allreduce of a
 * 64 MiB fp32 buffer (SUM, in place) across the processes mpirun starts, timed the way the
 * lecture times its benchmark and collviz times its own: warm-up, barrier, clock, a timed
 * loop, barrier, clock. Prints nccl-tests' figures (GB = 1e9 bytes):
 *   algbw = S / t,  busbw = algbw * 2(n-1)/n
 * and checks the result of one run from fresh inputs (#wrong).
 *
 * usage: mpirun -np 4 ./mpi_allreduce [BYTES] [ITERS] [WARMUP] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void fill(float *buf, size_t n, int rank)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = (float)((rank + (int)(i % 7)) % 5);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    size_t bytes = argc > 1 ? strtoull(argv[1], NULL, 10) : (size_t)64 << 20;
    int iters = argc > 2 ? atoi(argv[2]) : 20;
    int warmup = argc > 3 ? atoi(argv[3]) : 5;
    size_t count = bytes / sizeof(float);
    if (count == 0 || count > (size_t)2147483647 || iters < 1 || warmup < 0) {
        if (rank == 0) fprintf(stderr, "mpi_allreduce: bad arguments\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    float *buf = malloc(count * sizeof(float));
    if (!buf) MPI_Abort(MPI_COMM_WORLD, 1);
    fill(buf, count, rank);

    for (int i = 0; i < warmup; i++)
        MPI_Allreduce(MPI_IN_PLACE, buf, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++)
        MPI_Allreduce(MPI_IN_PLACE, buf, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double mine = (MPI_Wtime() - t0) / iters, t;
    /* nccl-tests averages the per-rank times; after the closing barrier they agree to
     * within the barrier's skew, so take the mean the same way. */
    MPI_Allreduce(&mine, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    t /= n;

    /* One run from fresh inputs: element i sums (r + i%7) % 5 over ranks r. */
    fill(buf, count, rank);
    MPI_Allreduce(MPI_IN_PLACE, buf, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    long wrong = 0, all_wrong;
    for (size_t i = 0; i < count; i++) {
        float want = 0;
        for (int r = 0; r < n; r++)
            want += (float)((r + (int)(i % 7)) % 5);
        if (buf[i] != want) wrong++;
    }
    MPI_Reduce(&wrong, &all_wrong, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        double S = (double)(count * sizeof(float));
        double algbw = S / t / 1e9;
        double busbw = algbw * 2.0 * (n - 1) / n;
        printf("MPI_Allreduce: %d processes, %.0f B fp32 sum in place, %d iters after %d "
               "warm-up: time %.1f us, algbw %.3f GB/s, busbw %.3f GB/s, #wrong %ld\n",
               n, S, iters, warmup, t * 1e6, algbw, busbw, all_wrong);
        printf("mpi_busbw_gbs=%.6f\n", busbw);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
