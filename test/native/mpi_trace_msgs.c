/* MPI traffic of every kind the trace records, known to the byte, for test/trace-mpi.test.ts (4 ranks;
 * next = rank + 1, prev = rank - 1, modulo the size):
 *  - blocking: rank r sends 100 * (r + 1) bytes to next with MPI_Send (tag 1), receives from prev
 *    with MPI_Recv(MPI_ANY_SOURCE, tag 1);
 *  - non-blocking: MPI_Irecv from next (tag 2), MPI_Isend of 8 ints to prev, then MPI_Waitall; an
 *    MPI_Isend + MPI_Irecv pair completed one by one with MPI_Wait and MPI_Test (tag 3);
 *  - MPI_Sendrecv in the ring (tag 4, 16 bytes);
 *  - communicators: MPI_Comm_split into even and odd ranks, MPI_Comm_dup of MPI_COMM_WORLD; a message
 *    on each (tag 5 to the other member of the half; tag 6 on the duplicate to next);
 *  - collectives: MPI_Bcast of 64 bytes from root 1 of MPI_COMM_WORLD, MPI_Reduce of 2 ints to root 1
 *    of each half, MPI_Allreduce, MPI_Barrier.
 * Every value received is checked: a wrong exchange fails the run. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int bad;
static void expect(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "mpi_trace_msgs: %s\n", what);
    bad = 1;
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  char out[400], in[400];
  memset(out, rank, sizeof out);
  MPI_Status st;

  MPI_Send(out, 100 * (rank + 1), MPI_CHAR, next, 1, MPI_COMM_WORLD);
  MPI_Recv(in, sizeof in, MPI_CHAR, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st);
  int n = 0;
  MPI_Get_count(&st, MPI_CHAR, &n);
  expect(st.MPI_SOURCE == prev && n == 100 * (prev + 1), "blocking receive");

  int iout[8], iin[8];
  for (int i = 0; i < 8; i++) iout[i] = rank * 10 + i;
  MPI_Request reqs[2];
  MPI_Irecv(iin, 8, MPI_INT, next, 2, MPI_COMM_WORLD, &reqs[0]);
  MPI_Isend(iout, 8, MPI_INT, prev, 2, MPI_COMM_WORLD, &reqs[1]);
  MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  expect(iin[7] == next * 10 + 7, "non-blocking receive");

  int one = rank, got = -1, flag = 0;
  MPI_Request r1, r2;
  MPI_Irecv(&got, 1, MPI_INT, prev, 3, MPI_COMM_WORLD, &r1);
  MPI_Isend(&one, 1, MPI_INT, next, 3, MPI_COMM_WORLD, &r2);
  MPI_Wait(&r1, MPI_STATUS_IGNORE);
  while (!flag) MPI_Test(&r2, &flag, MPI_STATUS_IGNORE);
  expect(got == prev, "Wait / Test");

  char s16[16], r16[16];
  memset(s16, rank, sizeof s16);
  MPI_Sendrecv(s16, 16, MPI_CHAR, next, 4, r16, 16, MPI_CHAR, prev, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  expect(r16[0] == prev, "Sendrecv");

  MPI_Comm half, dup;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  int hrank, hsize;
  MPI_Comm_rank(half, &hrank);
  MPI_Comm_size(half, &hsize);
  int hv = rank, hgot = -1;
  MPI_Sendrecv(&hv, 1, MPI_INT, (hrank + 1) % hsize, 5, &hgot, 1, MPI_INT, (hrank + hsize - 1) % hsize, 5, half, MPI_STATUS_IGNORE);
  expect(hsize == 1 || hgot % 2 == rank % 2, "message on the split communicator");
  int dv = rank, dgot = -1;
  MPI_Sendrecv(&dv, 1, MPI_INT, next, 6, &dgot, 1, MPI_INT, prev, 6, dup, MPI_STATUS_IGNORE);
  expect(dgot == prev, "message on the duplicate");

  char b64[64];
  memset(b64, rank == 1 ? 42 : 0, sizeof b64);
  MPI_Bcast(b64, 64, MPI_CHAR, 1, MPI_COMM_WORLD);
  expect(b64[63] == 42, "Bcast");
  int two[2] = {1, rank}, sum[2] = {0, 0};
  MPI_Reduce(two, sum, 2, MPI_INT, MPI_SUM, 1 % hsize, half);
  expect(hrank != 1 % hsize || sum[0] == hsize, "Reduce");
  int all = 0;
  MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  expect(all == size * (size - 1) / 2, "Allreduce");
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm_free(&half);
  MPI_Comm_free(&dup);
  if (rank == 0) printf("ranks %d %s\n", size, bad ? "failed" : "ok");
  MPI_Finalize();
  return bad;
}
