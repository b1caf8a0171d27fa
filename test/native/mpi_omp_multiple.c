/* MPI + OpenMP with MPI_THREAD_MULTIPLE (test/mpi-report.test.ts): each rank runs one parallel
 * region of 2 threads, and each thread makes 3 MPI_Allreduce calls on its own duplicate of
 * MPI_COMM_WORLD, all from the one line below. Per rank: 6 calls of one call site, made by 2 threads. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (provided < MPI_THREAD_MULTIPLE) {
    fprintf(stderr, "mpi_omp_multiple: the MPI library gives thread level %d, not MPI_THREAD_MULTIPLE\n", provided);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm comm[2];
  MPI_Comm_dup(MPI_COMM_WORLD, &comm[0]);
  MPI_Comm_dup(MPI_COMM_WORLD, &comm[1]);
#pragma omp parallel num_threads(2)
  {
    int me = omp_get_thread_num();
    double x = me, y = 0;
    for (int i = 0; i < 3; i++) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, comm[me]);
  }
  MPI_Comm_free(&comm[0]);
  MPI_Comm_free(&comm[1]);
  MPI_Finalize();
  return 0;
}
