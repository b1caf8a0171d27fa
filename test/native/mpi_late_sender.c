/* A deliberately late sender, for the traces of MPI runs (test/trace.test.ts; the wait-state analysis
 * reads the same program): rank 0 sleeps DELAY_MS, then sends 1,024 ints (tag 7) to every other rank,
 * which posted its MPI_Recv at once and so waits about DELAY_MS in it (Scalasca's "late sender").
 * Then every rank meets in an MPI_Allreduce and an MPI_Barrier.
 * Usage: mpirun -np 4 mpi_late_sender [DELAY_MS]   (default 200) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long delay_ms = argc > 1 ? atol(argv[1]) : 200;
  int buf[1024] = {0};
  if (rank == 0) {
    struct timespec d = {delay_ms / 1000, (delay_ms % 1000) * 1000000L};
    nanosleep(&d, NULL);
    for (int peer = 1; peer < size; peer++) MPI_Send(buf, 1024, MPI_INT, peer, 7, MPI_COMM_WORLD);
  } else {
    MPI_Recv(buf, 1024, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  int one = 1, sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("ranks %d\n", sum);
  MPI_Finalize();
  return 0;
}
