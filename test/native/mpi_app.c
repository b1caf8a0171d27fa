/* An MPI program with known traffic, for the MPI tests (test/mpi-*.test.ts). Built twice: plain (run
 * under `hyprof run`, the runtime preloaded) and linked with $(hyprof config --libs --mpi).
 *
 *   mpi_app exchange       every rank: the calls and bytes listed in EXPECTED below, exactly
 *   mpi_app crash R        rank R dies of SIGSEGV after a barrier (the launcher kills the others)
 *   mpi_app abort R        rank R calls MPI_Abort after a barrier
 *   mpi_app imbalance U    rank r computes (r+1)*U units before each of 8 MPI_Allreduce calls
 *
 * EXPECTED per rank, exchange (N ranks, ring neighbours):
 *   MPI_Send 10 x 100 doubles (800 B)      MPI_Recv 10 (800 B each, status ignored)
 *   MPI_Isend 5 x 50 ints (200 B)          MPI_Irecv 6 (5 x 200 B completed by MPI_Waitall,
 *   MPI_Waitall 5                            1 x 8 B completed by MPI_Test with status ignored)
 *   MPI_Sendrecv 3 x 2 doubles (16 B out, 16 B in)
 *   MPI_Send 1 x 1 double (8 B, the message the MPI_Test loop waits for)
 *   MPI_Allreduce 20 x 1 double (8 B)      MPI_Bcast 4 x 64 bytes    MPI_Reduce 2 x 4 ints (16 B)
 *   MPI_Gather 1 x 2 ints (8 B)            MPI_Barrier 3
 *   => sent to all nodes: 19 messages, 9056 B; received from all nodes: 19 messages, 9056 B
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile double sink;

/* The work that differs between ranks in "imbalance". */
static void work(long units) {
  double s = 0;
  for (long i = 1; i <= units * 100000L; i++) s += 1.0 / (double)i;
  sink = s;
}

static void exchange(int rank, int size) {
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  double d[100] = {0}, in[100];
  for (int i = 0; i < 10; i++) {
    if (rank % 2 == 0) {
      MPI_Send(d, 100, MPI_DOUBLE, next, 1, MPI_COMM_WORLD);
      MPI_Recv(in, 100, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(in, 100, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(d, 100, MPI_DOUBLE, next, 1, MPI_COMM_WORLD);
    }
  }
  int a[50] = {0}, b[50];
  for (int i = 0; i < 5; i++) {
    MPI_Request r[2];
    MPI_Irecv(b, 50, MPI_INT, prev, 2, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(a, 50, MPI_INT, next, 2, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  }
  double s2[2] = {1, 2}, r2[2];
  for (int i = 0; i < 3; i++)
    MPI_Sendrecv(s2, 2, MPI_DOUBLE, next, 3, r2, 2, MPI_DOUBLE, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  /* One receive completed by MPI_Test. */
  double one = rank, got = -1;
  MPI_Request tr;
  MPI_Irecv(&got, 1, MPI_DOUBLE, prev, 4, MPI_COMM_WORLD, &tr);
  MPI_Send(&one, 1, MPI_DOUBLE, next, 4, MPI_COMM_WORLD);
  int flag = 0;
  while (!flag) MPI_Test(&tr, &flag, MPI_STATUS_IGNORE);
  double x = rank, y;
  for (int i = 0; i < 20; i++) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  char bytes[64] = {0};
  for (int i = 0; i < 4; i++) MPI_Bcast(bytes, 64, MPI_BYTE, 0, MPI_COMM_WORLD);
  int v4[4] = {1, 2, 3, 4}, s4[4];
  for (int i = 0; i < 2; i++) MPI_Reduce(v4, s4, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  int two[2] = {rank, rank}, *all = malloc(sizeof(int) * 2 * (size_t)size);
  MPI_Gather(two, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD);
  free(all);
  /* Three calls on one line: three return addresses, one call site (file:line) to report. */
  MPI_Barrier(MPI_COMM_WORLD); MPI_Barrier(MPI_COMM_WORLD); MPI_Barrier(MPI_COMM_WORLD);
}

static void imbalance(int rank, long units) {
  double x = rank, y;
  for (int i = 0; i < 8; i++) {
    work((rank + 1) * units);
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *mode = argc > 1 ? argv[1] : "exchange";
  if (!strcmp(mode, "exchange")) exchange(rank, size);
  if (!strcmp(mode, "imbalance")) imbalance(rank, argc > 2 ? atol(argv[2]) : 20);
  if (!strcmp(mode, "crash") || !strcmp(mode, "abort")) {
    int victim = argc > 2 ? atoi(argv[2]) : 1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == victim && mode[0] == 'c') raise(SIGSEGV);
    if (rank == victim) MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
