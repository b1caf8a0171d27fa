/* What each MPI call moved, as TAU's atomic user events (per thread: count, min, max, mean, sum of
 * squares of the message sizes in bytes). The names are TAU's, so a TAU user's scripts and ParaProf's
 * views find them: point-to-point traffic in "Message size sent to all nodes" / "Message size
 * received from all nodes", each collective in "Message size for <operation>" with what this rank
 * contributes or gets (docs/mpi.md has the rule for each call). */
#include "mpi_int.h"

#include "hyprof.h"

enum {
  UE_SENT, UE_RECEIVED, UE_BCAST, UE_REDUCE, UE_ALLREDUCE, UE_REDUCE_SCATTER, UE_SCAN, UE_GATHER, UE_SCATTER,
  UE_ALLGATHER, UE_ALLTOALL, UE_N
};

static const char *const names[UE_N] = {
  "Message size sent to all nodes", "Message size received from all nodes", "Message size for broadcast",
  "Message size for reduce", "Message size for all-reduce", "Message size for reduce-scatter",
  "Message size for scan", "Message size for gather", "Message size for scatter", "Message size for all-gather",
  "Message size for all-to-all",
};

static hyprof_user_event_t handles[UE_N];

static void trigger(int which, double bytes) {
  hyprof_user_event_t h = __atomic_load_n(&handles[which], __ATOMIC_ACQUIRE);
  if (!h) {
    /* Registered on first use; two threads racing get the same handle. */
    h = hyprof_user_event(names[which]);
    if (!h) return;
    __atomic_store_n(&handles[which], h, __ATOMIC_RELEASE);
  }
  hyprof_user_event_trigger(h, bytes);
}

double hp_bytes(int count, MPI_Datatype datatype) {
  int size = 0;
  if (count <= 0 || datatype == MPI_DATATYPE_NULL || PMPI_Type_size(datatype, &size) != MPI_SUCCESS) return 0;
  return (double)count * (double)size;
}

static int comm_size(MPI_Comm comm) {
  int n = 0;
  return PMPI_Comm_size(comm, &n) == MPI_SUCCESS ? n : 0;
}

void hp_acc_sent_bytes(double bytes) { trigger(UE_SENT, bytes); }
void hp_acc_received_bytes(double bytes) { trigger(UE_RECEIVED, bytes); }
void hp_acc_sent(int count, MPI_Datatype datatype) { trigger(UE_SENT, hp_bytes(count, datatype)); }

void hp_acc_received(const MPI_Status *status) {
  int n = MPI_UNDEFINED, cancelled = 0;
  if (status == MPI_STATUS_IGNORE) return;
  /* The message's size in bytes: its count as MPI_BYTE (the library keeps the byte count). A
   * status of a request that was cancelled, or of MPI_PROC_NULL, moved nothing. */
  if (PMPI_Get_count(status, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED || n < 0) return;
  if (status->MPI_SOURCE == MPI_PROC_NULL || (PMPI_Test_cancelled(status, &cancelled) == MPI_SUCCESS && cancelled)) return;
  trigger(UE_RECEIVED, (double)n);
}

void hp_acc_bcast(int count, MPI_Datatype datatype) { trigger(UE_BCAST, hp_bytes(count, datatype)); }
void hp_acc_reduce(int count, MPI_Datatype datatype) { trigger(UE_REDUCE, hp_bytes(count, datatype)); }
void hp_acc_allreduce(int count, MPI_Datatype datatype) { trigger(UE_ALLREDUCE, hp_bytes(count, datatype)); }
void hp_acc_scan(int count, MPI_Datatype datatype) { trigger(UE_SCAN, hp_bytes(count, datatype)); }

void hp_acc_reduce_scatter(const int recvcounts[], MPI_Datatype datatype, MPI_Comm comm) {
  long total = 0;
  int n = comm_size(comm);
  for (int i = 0; recvcounts && i < n; i++) total += recvcounts[i];
  trigger(UE_REDUCE_SCATTER, hp_bytes(1, datatype) * (double)total);
}

void hp_acc_reduce_scatter_block(int recvcount, MPI_Datatype datatype, MPI_Comm comm) {
  trigger(UE_REDUCE_SCATTER, hp_bytes(recvcount, datatype) * comm_size(comm));
}

/* Gathers: this rank's contribution (its send buffer; in place, its block of the receive buffer). */
void hp_acc_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype) {
  trigger(UE_GATHER, sendbuf == MPI_IN_PLACE ? hp_bytes(recvcount, recvtype) : hp_bytes(sendcount, sendtype));
}

void hp_acc_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype) {
  trigger(UE_ALLGATHER, sendbuf == MPI_IN_PLACE ? hp_bytes(recvcount, recvtype) : hp_bytes(sendcount, sendtype));
}

/* Scatters: what this rank gets (in place at the root: its own block). */
void hp_acc_scatter(const void *recvbuf, int sendcount, MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype) {
  trigger(UE_SCATTER, recvbuf == MPI_IN_PLACE ? hp_bytes(sendcount, sendtype) : hp_bytes(recvcount, recvtype));
}

/* All-to-all: everything this rank sends. */
void hp_acc_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype,
                     MPI_Comm comm) {
  double block = sendbuf == MPI_IN_PLACE ? hp_bytes(recvcount, recvtype) : hp_bytes(sendcount, sendtype);
  trigger(UE_ALLTOALL, block * comm_size(comm));
}

void hp_acc_alltoallv(const void *sendbuf, const int sendcounts[], MPI_Datatype sendtype, const int recvcounts[],
                      MPI_Datatype recvtype, MPI_Comm comm) {
  const int *counts = sendbuf == MPI_IN_PLACE ? recvcounts : sendcounts;
  MPI_Datatype type = sendbuf == MPI_IN_PLACE ? recvtype : sendtype;
  long total = 0;
  int n = comm_size(comm);
  for (int i = 0; counts && i < n; i++) total += counts[i];
  trigger(UE_ALLTOALL, hp_bytes(1, type) * (double)total);
}
