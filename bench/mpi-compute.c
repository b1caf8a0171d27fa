/* bench/mpi-compute: a balanced MPI job that computes most of its time, as a proxy application does:
 * `steps` times, every rank computes `units` (about a millisecond each) and then joins one
 * MPI_Allreduce. Used by bench/mpi-service.ts to measure what sampling costs the whole job (the
 * ranks and the MPI library's service threads) against the clean run. Prints nothing. */
#include <mpi.h>
#include <stdlib.h>

static volatile double sink;

static void work(long units) {
  double s = 0;
  for (long i = 1; i <= units * 300000L; i++) s += 1.0 / (double)i;
  sink = s;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  long steps = argc > 1 ? atol(argv[1]) : 50, units = argc > 2 ? atol(argv[2]) : 20;
  double x = 1, y = 0;
  for (long i = 0; i < steps; i++) {
    work(units);
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
