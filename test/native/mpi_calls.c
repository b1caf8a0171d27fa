/* Every family of MPI calls the MPI layer wraps, with traffic known to the byte, for
 * test/mpi-calls.test.ts (N ranks in a ring: next = rank + 1, prev = rank - 1, modulo N):
 * point-to-point blocking (Ssend, Rsend, Bsend, Recv, Sendrecv_replace, Probe, Iprobe), non-blocking
 * (Irecv, Isend, Issend) completed by each of Wait, Waitany, Waitsome, Waitall, Testall, Testany,
 * Testsome, persistent requests (Send_init, Recv_init, Start, Startall, Request_free), blocking and
 * non-blocking collectives, communicator basics and one-sided basics, between MPI_Init_thread and
 * MPI_Finalize. Receives mostly pass MPI_STATUS_IGNORE: the layer must count them all the same.
 *
 * Per rank r (the test computes the same):
 *   sent to all nodes:        21 point-to-point messages, 526 B, and 3 one-sided (Put 8, Accumulate 4,
 *                             Put 4): 24 values, 542 B
 *   received from all nodes:  21 point-to-point messages, 526 B, and 1 Get of 4 B: 22 values, 530 B
 *   (the collectives' sizes are listed where they are called)
 * A value the program receives is checked, so a wrong exchange fails the run, not only the counts. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size, next, prev;

static void check(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "mpi_calls: rank %d: %s\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

/* Blocking point-to-point: sent 8 messages / 194 B, received 8 / 194 B. */
static void blocking(void) {
  int a[10] = {0}, b[10];
  MPI_Status st;
  for (int i = 0; i < 2; i++) { /* Ssend 2 x 40 B; Recv 2 x 40 B with a status */
    if (rank % 2 == 0) {
      MPI_Ssend(a, 10, MPI_INT, next, 1, MPI_COMM_WORLD);
      MPI_Recv(b, 10, MPI_INT, prev, 1, MPI_COMM_WORLD, &st);
    } else {
      MPI_Recv(b, 10, MPI_INT, prev, 1, MPI_COMM_WORLD, &st);
      MPI_Ssend(a, 10, MPI_INT, next, 1, MPI_COMM_WORLD);
    }
  }
  /* Rsend 40 B into a receive posted before a barrier; Wait completes the receive (status ignored). */
  double d5[5] = {1, 2, 3, 4, 5}, r5[5];
  MPI_Request rq;
  MPI_Irecv(r5, 5, MPI_DOUBLE, prev, 2, MPI_COMM_WORLD, &rq);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Rsend(d5, 5, MPI_DOUBLE, next, 2, MPI_COMM_WORLD);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  check(r5[4] == 5, "Rsend");
  /* Bsend 16 B through an attached buffer; a blocking Recv with the status ignored. */
  int bsize = MPI_BSEND_OVERHEAD + 64;
  char *buf = malloc((size_t)bsize);
  MPI_Buffer_attach(buf, bsize);
  int i4[4] = {rank, rank, rank, rank}, o4[4];
  MPI_Bsend(i4, 4, MPI_INT, next, 3, MPI_COMM_WORLD);
  MPI_Recv(o4, 4, MPI_INT, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  check(o4[0] == prev, "Bsend");
  MPI_Buffer_detach(&buf, &bsize);
  free(buf);
  /* Sendrecv_replace 2 x 24 B. */
  double d3[3] = {0};
  for (int i = 0; i < 2; i++) MPI_Sendrecv_replace(d3, 3, MPI_DOUBLE, next, 4, prev, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  /* Probe, then receive what it found: 7 B; Iprobe until a 3 B message is there. */
  char seven[7] = "abcdef", got7[7];
  MPI_Send(seven, 7, MPI_CHAR, next, 5, MPI_COMM_WORLD);
  MPI_Probe(prev, 5, MPI_COMM_WORLD, &st);
  int n = 0;
  MPI_Get_count(&st, MPI_CHAR, &n);
  check(n == 7, "Probe");
  MPI_Recv(got7, n, MPI_CHAR, prev, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  char three[3] = "ab", got3[3];
  MPI_Send(three, 3, MPI_CHAR, next, 6, MPI_COMM_WORLD);
  int flag = 0;
  while (!flag) MPI_Iprobe(prev, 6, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  MPI_Recv(got3, 3, MPI_CHAR, prev, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Non-blocking point-to-point and every completion call: sent 9 messages / 76 B, received the same. */
static void nonblocking(void) {
  /* Issend + Irecv of 24 B, each completed by MPI_Wait (the receive with a status). */
  int s6[6] = {0}, r6[6];
  MPI_Request rr, sr;
  MPI_Status st;
  MPI_Irecv(r6, 6, MPI_INT, prev, 10, MPI_COMM_WORLD, &rr);
  MPI_Issend(s6, 6, MPI_INT, next, 10, MPI_COMM_WORLD, &sr);
  MPI_Wait(&rr, &st);
  MPI_Wait(&sr, MPI_STATUS_IGNORE);
  /* 3 x 8 B received by Waitany, one each, statuses ignored. */
  double out3[3] = {1, 2, 3}, in3[3];
  MPI_Request rv[3], sv[3];
  for (int i = 0; i < 3; i++) MPI_Irecv(&in3[i], 1, MPI_DOUBLE, prev, 20 + i, MPI_COMM_WORLD, &rv[i]);
  for (int i = 0; i < 3; i++) MPI_Isend(&out3[i], 1, MPI_DOUBLE, next, 20 + i, MPI_COMM_WORLD, &sv[i]);
  for (int i = 0; i < 3; i++) {
    int idx;
    MPI_Waitany(3, rv, &idx, MPI_STATUS_IGNORE);
    check(idx >= 0 && idx < 3, "Waitany");
  }
  MPI_Waitall(3, sv, MPI_STATUSES_IGNORE);
  /* 2 x 8 B received by Waitsome (once or twice), statuses ignored. */
  int out2[2][2] = {{1, 2}, {3, 4}}, in2[2][2];
  MPI_Request rw[2], sw[2];
  for (int i = 0; i < 2; i++) MPI_Irecv(in2[i], 2, MPI_INT, prev, 30 + i, MPI_COMM_WORLD, &rw[i]);
  for (int i = 0; i < 2; i++) MPI_Isend(out2[i], 2, MPI_INT, next, 30 + i, MPI_COMM_WORLD, &sw[i]);
  for (int done = 0; done < 2;) {
    int outcount, idx[2];
    MPI_Waitsome(2, rw, &outcount, idx, MPI_STATUSES_IGNORE);
    done += outcount;
  }
  MPI_Waitall(2, sw, MPI_STATUSES_IGNORE);
  /* 4 B completed by Testall (the receive and its send together). */
  int one = rank, got = -1, flag = 0;
  MPI_Request both[2];
  MPI_Irecv(&got, 1, MPI_INT, prev, 40, MPI_COMM_WORLD, &both[0]);
  MPI_Isend(&one, 1, MPI_INT, next, 40, MPI_COMM_WORLD, &both[1]);
  while (!flag) MPI_Testall(2, both, &flag, MPI_STATUSES_IGNORE);
  check(got == prev, "Testall");
  /* 4 B completed by Testany, 4 B by Testsome; their sends by MPI_Wait. */
  int idx = MPI_UNDEFINED;
  flag = 0;
  MPI_Irecv(&got, 1, MPI_INT, prev, 41, MPI_COMM_WORLD, &rr);
  MPI_Isend(&one, 1, MPI_INT, next, 41, MPI_COMM_WORLD, &sr);
  while (!flag) MPI_Testany(1, &rr, &idx, &flag, MPI_STATUS_IGNORE);
  MPI_Wait(&sr, MPI_STATUS_IGNORE);
  int outcount = 0, which[1];
  MPI_Irecv(&got, 1, MPI_INT, prev, 42, MPI_COMM_WORLD, &rr);
  MPI_Isend(&one, 1, MPI_INT, next, 42, MPI_COMM_WORLD, &sr);
  while (outcount < 1) MPI_Testsome(1, &rr, &outcount, which, MPI_STATUSES_IGNORE);
  MPI_Wait(&sr, MPI_STATUS_IGNORE);
}

/* Persistent requests: 64 B each way, started 4 times (Startall 3 times, Start twice once). */
static void persistent(void) {
  double out[8] = {0}, in[8];
  MPI_Request r[2];
  MPI_Recv_init(in, 8, MPI_DOUBLE, prev, 50, MPI_COMM_WORLD, &r[0]);
  MPI_Send_init(out, 8, MPI_DOUBLE, next, 50, MPI_COMM_WORLD, &r[1]);
  for (int i = 0; i < 3; i++) {
    MPI_Startall(2, r);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  }
  MPI_Start(&r[0]);
  MPI_Start(&r[1]);
  MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  MPI_Request_free(&r[0]);
  MPI_Request_free(&r[1]);
}

/* Blocking collectives (bytes per rank r of N, as docs/mpi.md counts them). */
static void collectives(void) {
  int *ints = calloc((size_t)size * (size_t)(size + 1) * 4, sizeof(int));
  int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
  int mine[8] = {0};
  double dm[8] = {0};
  double *dall = calloc((size_t)size * (size_t)(size + 1), sizeof(double));
  for (int i = 0, at = 0; i < size; i++) counts[i] = i + 1, displs[i] = at, at += i + 1;
  MPI_Scatter(ints, 2, MPI_INT, mine, 2, MPI_INT, 0, MPI_COMM_WORLD);                     /* scatter 8 */
  MPI_Scatterv(ints, counts, displs, MPI_INT, mine, rank + 1, MPI_INT, 0, MPI_COMM_WORLD);  /* scatter 4(r+1) */
  MPI_Gatherv(mine, rank + 1, MPI_INT, ints, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);   /* gather 4(r+1) */
  MPI_Allgather(mine, 3, MPI_INT, ints, 3, MPI_INT, MPI_COMM_WORLD);                      /* all-gather 12 */
  MPI_Allgatherv(dm, rank + 1, MPI_DOUBLE, dall, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD); /* all-gather 8(r+1) */
  MPI_Alltoall(ints, 1, MPI_INT, ints + size, 1, MPI_INT, MPI_COMM_WORLD);                /* all-to-all 4N */
  int *two = malloc(sizeof(int) * (size_t)size), *tdis = malloc(sizeof(int) * (size_t)size);
  for (int i = 0; i < size; i++) two[i] = 2, tdis[i] = 2 * i;
  MPI_Alltoallv(ints, two, tdis, MPI_INT, ints + 2 * size, two, tdis, MPI_INT, MPI_COMM_WORLD); /* all-to-all 8N */
  MPI_Reduce_scatter(ints, mine, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);              /* reduce-scatter 2N(N+1) */
  MPI_Reduce_scatter_block(dall, dm, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);           /* reduce-scatter 16N */
  int s3[3] = {1, 1, 1}, p3[3];
  MPI_Scan(s3, p3, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);                                /* scan 12 */
  check(p3[0] == rank + 1, "Scan");
  double x = 1, ex = 0;
  MPI_Exscan(&x, &ex, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);                           /* scan 8 */
  free(two), free(tdis), free(ints), free(counts), free(displs), free(dall);
}

/* Non-blocking collectives, all completed by one MPI_Waitall. */
static void nonblocking_collectives(void) {
  MPI_Request r[10];
  char b16[16] = {0};
  double a2[2] = {1, 1}, s2[2];
  int one = 1, red = 0, g[64], sc[64] = {0}, got = 0, ag[64], at_in[64] = {0}, at_out[64], rs_in[64] = {0}, rs = 0, sc1 = 0;
  check(size <= 64, "at most 64 ranks");
  MPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
  MPI_Ibcast(b16, 16, MPI_CHAR, 0, MPI_COMM_WORLD, &r[1]);                                 /* broadcast 16 */
  MPI_Iallreduce(a2, s2, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[2]);                    /* all-reduce 16 */
  MPI_Ireduce(&one, &red, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &r[3]);                   /* reduce 4 */
  MPI_Igather(&one, 1, MPI_INT, g, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[4]);                   /* gather 4 */
  MPI_Iscatter(sc, 1, MPI_INT, &got, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[5]);                 /* scatter 4 */
  MPI_Iallgather(&one, 1, MPI_INT, ag, 1, MPI_INT, MPI_COMM_WORLD, &r[6]);                  /* all-gather 4 */
  MPI_Ialltoall(at_in, 1, MPI_INT, at_out, 1, MPI_INT, MPI_COMM_WORLD, &r[7]);              /* all-to-all 4N */
  MPI_Ireduce_scatter_block(rs_in, &rs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[8]);        /* reduce-scatter 4N */
  MPI_Iscan(&one, &sc1, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[9]);                        /* scan 4 */
  MPI_Waitall(10, r, MPI_STATUSES_IGNORE);
  check(s2[0] == size && sc1 == rank + 1, "non-blocking collectives");
}

/* Communicator basics. */
static void communicators(void) {
  MPI_Comm half, dup, all, cart, node;
  MPI_Group world;
  int hr, hs;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Comm_rank(half, &hr);
  MPI_Comm_size(half, &hs);
  check(hr == rank / 2, "Comm_split");
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Barrier(dup);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Comm_create(MPI_COMM_WORLD, world, &all);
  MPI_Group_free(&world);
  int dims[1] = {size}, periods[1] = {1};
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_free(&half);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&all);
  MPI_Comm_free(&cart);
  MPI_Comm_free(&node);
}

/* One-sided basics: a window of 4 ints; Put 8 B, Get 4 B, Accumulate 4 B in fence epochs, Put 4 B
 * under a lock; a window allocated by MPI and locked by all. */
static void one_sided(void) {
  int *base = calloc(4, sizeof(int)), two[2] = {rank, rank}, got = -1, one = 1;
  MPI_Win win, win2;
  MPI_Win_create(base, 4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_fence(0, win);
  MPI_Put(two, 2, MPI_INT, next, 1, 2, MPI_INT, win);
  MPI_Win_fence(0, win);
  MPI_Get(&got, 1, MPI_INT, prev, 1, 1, MPI_INT, win);
  MPI_Win_fence(0, win);
  check(got == (prev + size - 1) % size, "Get: the value the rank before prev put there");
  MPI_Accumulate(&one, 1, MPI_INT, next, 3, 1, MPI_INT, MPI_SUM, win);
  MPI_Win_fence(0, win);
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win);
  MPI_Put(&one, 1, MPI_INT, next, 0, 1, MPI_INT, win);
  MPI_Win_unlock(next, win);
  MPI_Win_free(&win);
  free(base);
  int *mem;
  MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win2);
  MPI_Win_lock_all(0, win2);
  MPI_Win_flush(next, win2);
  MPI_Win_unlock_all(win2);
  MPI_Win_free(&win2);
}

int main(int argc, char **argv) {
  int provided = -1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  next = (rank + 1) % size;
  prev = (rank + size - 1) % size;
  blocking();
  nonblocking();
  persistent();
  collectives();
  nonblocking_collectives();
  communicators();
  one_sided();
  MPI_Finalize();
  return 0;
}
