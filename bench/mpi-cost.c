/* bench/mpi-cost: the cost of a measured MPI call. Two ranks; rank 0 times `n` iterations of
 *   pingpong   MPI_Send + MPI_Recv of 8 bytes to rank 1 and back (rank 1 mirrors)
 *   allreduce  MPI_Allreduce of one double
 * and, beside them in the same process, the floor of the clock the runtime reads per timer
 * (CLOCK_MONOTONIC twice). Prints: <mode> <wall ns per iteration> <CPU ns per iteration of rank 0>
 * and: clock_floor <ns per two reads>. The same binary runs plain and under the runtime
 * (bench/mpi.ts), so code layout is the same in every configuration. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void loop(int allreduce, int rank, long n) {
  double x = 1, y = 0;
  for (long i = 0; i < n; i++) {
    if (allreduce) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    else if (rank == 0) {
      MPI_Send(&x, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(&y, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&y, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char *mode = argc > 1 ? argv[1] : "pingpong";
  long n = argc > 2 ? atol(argv[2]) : 100000;
  int allreduce = !strcmp(mode, "allreduce");
  loop(allreduce, rank, 1000); /* warm up the path (and the layer's event registration) */
  MPI_Barrier(MPI_COMM_WORLD);
  double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
  loop(allreduce, rank, n);
  double w1 = now(CLOCK_MONOTONIC), c1 = now(CLOCK_PROCESS_CPUTIME_ID);
  if (rank == 0) {
    printf("%s %.1f %.1f\n", mode, (w1 - w0) / (double)n, (c1 - c0) / (double)n);
    double f0 = now(CLOCK_MONOTONIC);
    volatile double sink = 0;
    for (long i = 0; i < 1000000; i++) sink += now(CLOCK_MONOTONIC) - now(CLOCK_MONOTONIC);
    printf("clock_floor %.1f\n", (now(CLOCK_MONOTONIC) - f0) / 1e6);
  }
  MPI_Finalize();
  return 0;
}
