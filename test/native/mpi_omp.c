/* MPI + OpenMP (test/mpi-report.test.ts): each rank runs 4 parallel regions of 2 threads; in each,
 * the master thread makes one MPI_Allreduce while the other thread computes (MPI_THREAD_FUNNELED).
 * Both layers at once: OpenMP constructs from the OpenMP tool, MPI calls from the MPI layer, the
 * MPI calls under the parallel region's context. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

static volatile double sink;

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double x = rank, y = 0;
  for (int it = 0; it < 4; it++) {
#pragma omp parallel num_threads(2)
    {
#pragma omp master
      MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      double s = 0;
      for (long i = 1; i < 2000000; i++) s += 1.0 / (double)i;
      sink = s;
    }
  }
  if (rank == 0) printf("provided %d sum %g\n", provided, y);
  MPI_Finalize();
  return 0;
}
