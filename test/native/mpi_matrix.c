/* Known traffic for the communication matrix (test/mpi-matrix.test.ts), one pattern per argument:
 *   ring      5 times, rank r sends (r+1)*1000 bytes to r+1 (MPI_Isend / MPI_Recv / MPI_Wait), then
 *             once 7 bytes to r-1 through a communicator whose ranks are reversed (MPI_Sendrecv on
 *             it: the layer translates ranks to MPI_COMM_WORLD)
 *   alltoall  3 times MPI_Alltoall of 256 ints (1,024 bytes to every other rank), then once
 *             MPI_Alltoallv with (r+1)*(d+1) ints from rank r to rank d
 *   rooted    MPI_Bcast of 2,048 bytes from rank 0, MPI_Reduce of 4 doubles to rank 1, MPI_Gather
 *             of 10 ints to rank 2, MPI_Scatter of 3 ints from rank 3 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void ring(int r, int n) {
  char *out = calloc(1000 * (size_t)n, 1), *in = calloc(1000 * (size_t)n, 1);
  int to = (r + 1) % n, from = (r + n - 1) % n;
  for (int i = 0; i < 5; i++) {
    MPI_Request q;
    MPI_Isend(out, (r + 1) * 1000, MPI_BYTE, to, 1, MPI_COMM_WORLD, &q);
    MPI_Recv(in, 1000 * n, MPI_BYTE, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
  }
  MPI_Comm rev;
  MPI_Comm_split(MPI_COMM_WORLD, 0, n - 1 - r, &rev);
  int rr;
  MPI_Comm_rank(rev, &rr);
  MPI_Sendrecv(out, 7, MPI_BYTE, (rr + 1) % n, 2, in, 7, MPI_BYTE, (rr + n - 1) % n, 2, rev, MPI_STATUS_IGNORE);
  MPI_Comm_free(&rev);
  free(out);
  free(in);
}

static void alltoall(int r, int n) {
  int *out = calloc(256 * (size_t)n * (size_t)n, sizeof *out), *in = calloc(256 * (size_t)n * (size_t)n, sizeof *in);
  for (int i = 0; i < 3; i++) MPI_Alltoall(out, 256, MPI_INT, in, 256, MPI_INT, MPI_COMM_WORLD);
  int *sc = malloc(n * sizeof *sc), *sd = malloc(n * sizeof *sd), *rc = malloc(n * sizeof *rc), *rd = malloc(n * sizeof *rd);
  for (int d = 0, so = 0, ro = 0; d < n; d++) {
    sc[d] = (r + 1) * (d + 1);
    rc[d] = (d + 1) * (r + 1);
    sd[d] = so;
    rd[d] = ro;
    so += sc[d];
    ro += rc[d];
  }
  MPI_Alltoallv(out, sc, sd, MPI_INT, in, rc, rd, MPI_INT, MPI_COMM_WORLD);
  free(sc), free(sd), free(rc), free(rd), free(out), free(in);
}

static void rooted(int r, int n) {
  char b[2048] = {0};
  MPI_Bcast(b, 2048, MPI_BYTE, 0, MPI_COMM_WORLD);
  double v[4] = {1, 2, 3, 4}, s[4];
  MPI_Reduce(v, s, 4, MPI_DOUBLE, MPI_SUM, 1 % n, MPI_COMM_WORLD);
  int g[10] = {0}, *all = calloc(10 * (size_t)n, sizeof *all);
  MPI_Gather(g, 10, MPI_INT, all, 10, MPI_INT, 2 % n, MPI_COMM_WORLD);
  int mine[3];
  MPI_Scatter(all, 3, MPI_INT, mine, 3, MPI_INT, 3 % n, MPI_COMM_WORLD);
  free(all);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "ring")) ring(r, n);
    else if (!strcmp(argv[i], "alltoall")) alltoall(r, n);
    else if (!strcmp(argv[i], "rooted")) rooted(r, n);
    else {
      fprintf(stderr, "mpi_matrix: unknown pattern %s\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  MPI_Finalize();
  return 0;
}
