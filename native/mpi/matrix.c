/* The communication matrix (TAU_COMM_MATRIX / HYPROF_COMM_MATRIX): what this rank sent to each other
 * rank of MPI_COMM_WORLD, as TAU writes it - one atomic user event per destination, "Message size sent
 * to node <N>" (count, min, max, mean, sum of squares of the message sizes in bytes, per thread), the
 * events ParaProf's communication matrix window and TAU's analysis scripts read. Off by default, as in
 * TAU.
 *
 * What counts (docs/mpi.md): point-to-point sends (blocking, non-blocking, Sendrecv, persistent sends
 * at each MPI_Start) to their destination; the rooted collectives as TAU accounts them, by root:
 * Bcast and Scatter(v) from the root to every other rank, Reduce and Gather(v) from every other rank
 * to the root; Alltoall(v) from each rank to every other. Collectives without a root (Allreduce,
 * Allgather, Reduce_scatter, Scan) move data along the library's own algorithm and are not in the
 * matrix. Ranks of another communicator are translated to MPI_COMM_WORLD.
 *
 * Bounded cost: the row is sparse, a fixed open-addressed table of ROW_PEERS destinations (twice as
 * many slots, so probes stay short), filled without a lock (compare-and-swap of the key; the user
 * event's handle is registered once per destination). A destination beyond ROW_PEERS is not lost:
 * its messages go to one event, "Message size sent beyond the communication matrix row", which the
 * report names. Not called from signal handlers. */
#include <stdio.h>
#include <stdlib.h>

#include "hyprof.h"
#include "mpi_int.h"

#define ROW_PEERS 4096
#define ROW_SLOTS (2 * ROW_PEERS) /* a power of two */

static int enabled;
static uint32_t keys[ROW_SLOTS]; /* destination + 1; 0: free */
static hyprof_user_event_t handles[ROW_SLOTS];
static uint32_t peers;            /* keys taken */
static hyprof_user_event_t beyond;

void hp_cm_enable(void) {
  enabled = hyprof_ext_env_bool("HYPROF_COMM_MATRIX", "TAU_COMM_MATRIX", 0);
  if (!enabled) return;
  char row[64];
  snprintf(row, sizeof row, "on (a row of up to %d destinations per rank)", ROW_PEERS);
  hyprof_ext_meta_add("hyprof Communication Matrix", row);
}

int hp_cm_on(void) { return enabled; }

static hyprof_user_event_t named(const char *name) {
  return hyprof_user_event(name); /* the same name gives the same handle on every thread */
}

/* The user event of destination `world` (a rank of MPI_COMM_WORLD), NULL when the row is full. */
static hyprof_user_event_t row_event(int world) {
  uint32_t k = (uint32_t)world + 1;
  size_t i = (size_t)((k * 2654435761u) & (ROW_SLOTS - 1));
  for (;;) {
    uint32_t cur = __atomic_load_n(&keys[i], __ATOMIC_ACQUIRE);
    if (cur == 0) {
      /* A new destination: reserve room, then claim the slot. Threads racing may each reserve one
       * over ROW_PEERS; the slots (twice ROW_PEERS) keep room for them. */
      if (__atomic_load_n(&peers, __ATOMIC_RELAXED) >= ROW_PEERS) return NULL;
      if (__atomic_compare_exchange_n(&keys[i], &cur, k, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        __atomic_fetch_add(&peers, 1, __ATOMIC_RELAXED);
        break;
      }
      /* another thread took it: cur now holds its key */
    }
    if (cur == k) break;
    i = (i + 1) & (ROW_SLOTS - 1);
  }
  hyprof_user_event_t h = __atomic_load_n(&handles[i], __ATOMIC_ACQUIRE);
  if (!h) {
    char name[64];
    snprintf(name, sizeof name, "Message size sent to node %d", world);
    h = named(name);
    __atomic_store_n(&handles[i], h, __ATOMIC_RELEASE);
  }
  return h;
}

static void record(int world, double bytes) {
  if (world < 0) return;
  hyprof_user_event_t h = row_event(world);
  if (!h) {
    h = __atomic_load_n(&beyond, __ATOMIC_ACQUIRE);
    if (!h) {
      h = named("Message size sent beyond the communication matrix row");
      __atomic_store_n(&beyond, h, __ATOMIC_RELEASE);
    }
  }
  hyprof_user_event_trigger(h, bytes);
}

/* The ranks of MPI_COMM_WORLD of the n ranks `in` of comm (its remote group for an
 * inter-communicator); -1 where there is none. 1 on success. */
static int to_world(MPI_Comm comm, int n, const int *in, int *out) {
  MPI_Group g, world;
  int inter = 0;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return 0;
  if ((inter ? PMPI_Comm_remote_group(comm, &g) : PMPI_Comm_group(comm, &g)) != MPI_SUCCESS) return 0;
  if (PMPI_Comm_group(MPI_COMM_WORLD, &world) != MPI_SUCCESS) {
    PMPI_Group_free(&g);
    return 0;
  }
  int ok = PMPI_Group_translate_ranks(g, n, in, world, out) == MPI_SUCCESS;
  for (int i = 0; ok && i < n; i++)
    if (out[i] == MPI_UNDEFINED) out[i] = -1;
  PMPI_Group_free(&g);
  PMPI_Group_free(&world);
  return ok;
}

int hp_cm_peer(int rank, MPI_Comm comm) {
  if (!enabled || rank < 0 || comm == MPI_COMM_NULL) return -1; /* MPI_PROC_NULL, MPI_ANY_SOURCE */
  if (comm == MPI_COMM_WORLD) return rank;
  int world = -1;
  return to_world(comm, 1, &rank, &world) ? world : -1;
}

void hp_cm_send_bytes(int world, double bytes) {
  if (enabled) record(world, bytes);
}

void hp_acc_sent_to(int count, MPI_Datatype datatype, int dest, MPI_Comm comm) {
  double bytes = hp_bytes(count, datatype);
  hp_acc_sent_bytes(bytes);
  if (enabled) record(hp_cm_peer(dest, comm), bytes);
}

/* This rank's place in an intra-communicator and its size; 0 for an inter-communicator (whose
 * collectives name roots as MPI_ROOT / MPI_PROC_NULL and are not in the matrix). */
static int place(MPI_Comm comm, int *me, int *n) {
  int inter = 0;
  if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) return 0;
  return PMPI_Comm_rank(comm, me) == MPI_SUCCESS && PMPI_Comm_size(comm, n) == MPI_SUCCESS;
}

/* Every rank of comm but this one receives bytes[i] (or `each`, when bytes is NULL). */
static void to_all(MPI_Comm comm, int me, int n, const double *bytes, double each) {
  if (n <= 0) return;
  if (comm == MPI_COMM_WORLD) {
    for (int r = 0; r < n; r++)
      if (r != me) record(r, bytes ? bytes[r] : each);
    return;
  }
  int *in = malloc(2 * (size_t)n * sizeof *in);
  if (!in) return;
  int *out = in + n;
  for (int r = 0; r < n; r++) in[r] = r;
  if (to_world(comm, n, in, out))
    for (int r = 0; r < n; r++)
      if (r != me) record(out[r], bytes ? bytes[r] : each);
  free(in);
}

void hp_cm_bcast(int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  int me, n;
  if (!enabled || !place(comm, &me, &n) || me != root) return;
  to_all(comm, me, n, NULL, hp_bytes(count, datatype));
}

void hp_cm_to_root(double bytes, int root, MPI_Comm comm) {
  int me, n;
  if (!enabled || !place(comm, &me, &n) || me == root) return;
  record(hp_cm_peer(root, comm), bytes);
}

void hp_cm_scatter(int sendcount, MPI_Datatype sendtype, int root, MPI_Comm comm) {
  int me, n;
  if (!enabled || !place(comm, &me, &n) || me != root) return;
  to_all(comm, me, n, NULL, hp_bytes(sendcount, sendtype));
}

/* Bytes per rank from a counts array (NULL when it cannot be allocated). */
static double *per_rank(const int *counts, MPI_Datatype type, int n) {
  double *b = counts ? malloc((size_t)n * sizeof *b) : NULL;
  double unit = hp_bytes(1, type);
  for (int r = 0; b && r < n; r++) b[r] = counts[r] > 0 ? unit * counts[r] : 0;
  return b;
}

void hp_cm_scatterv(const int sendcounts[], MPI_Datatype sendtype, int root, MPI_Comm comm) {
  int me, n;
  if (!enabled || !place(comm, &me, &n) || me != root) return;
  double *b = per_rank(sendcounts, sendtype, n);
  if (b) to_all(comm, me, n, b, 0);
  free(b);
}

void hp_cm_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype,
                    MPI_Comm comm) {
  int me, n;
  if (!enabled || !place(comm, &me, &n)) return;
  to_all(comm, me, n, NULL, sendbuf == MPI_IN_PLACE ? hp_bytes(recvcount, recvtype) : hp_bytes(sendcount, sendtype));
}

void hp_cm_alltoallv(const void *sendbuf, const int sendcounts[], MPI_Datatype sendtype, const int recvcounts[],
                     MPI_Datatype recvtype, MPI_Comm comm) {
  int me, n;
  if (!enabled || !place(comm, &me, &n)) return;
  int in_place = sendbuf == MPI_IN_PLACE;
  double *b = per_rank(in_place ? recvcounts : sendcounts, in_place ? recvtype : sendtype, n);
  if (b) to_all(comm, me, n, b, 0);
  free(b);
}
