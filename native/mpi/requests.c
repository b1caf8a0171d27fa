/* Requests whose bytes are known only later: a receive counts what arrived when it completes (the
 * status says how much), a persistent send counts its message at every MPI_Start. One table for the
 * process (a request may be completed on another thread than the one that posted it), under a mutex;
 * completions look into it only when it holds anything (one atomic load otherwise). Keys are the C
 * handles' bits: a pointer in Open MPI, an int in MPICH. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_int.h"

enum { KIND_NONE = 0, KIND_RECV = 1, KIND_RECV_PERSISTENT = 2, KIND_SEND_PERSISTENT = 3, KIND_SEND_TRACED = 4 };

typedef struct entry {
  uint64_t key;   /* 0: free */
  int kind;
  double bytes;   /* persistent send: its message */
  int peer;       /* persistent send: its destination in MPI_COMM_WORLD for the matrix (-1: none) */
  uint64_t trace_id; /* traced send or receive (HYPROF_TRACE): its request id in the trace; 0 none */
  uint32_t comm;  /* traced receive: its communicator's number (tracing.c) */
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry *table;
static size_t cap;     /* power of two, or 0 */
static size_t used;    /* entries held; read without the lock by hp_req_any */

static uint64_t key_of(MPI_Request r) {
  uint64_t k = 0;
  memcpy(&k, &r, sizeof r < sizeof k ? sizeof r : sizeof k);
  return k + 1; /* never 0, even for a handle whose bits are 0 */
}

static size_t slot_of(uint64_t k) { return (size_t)((k * 0x9E3779B97F4A7C15ull) >> 17) & (cap - 1); }

/* Under the lock. The slot holding k, or the free slot where it would go. */
static size_t find(uint64_t k) {
  size_t i = slot_of(k);
  while (table[i].key && table[i].key != k) i = (i + 1) & (cap - 1);
  return i;
}

static int grow(void) {
  size_t ncap = cap ? cap * 2 : 256;
  entry *old = table, *fresh = calloc(ncap, sizeof *fresh);
  if (!fresh) return 0;
  size_t ocap = cap;
  table = fresh;
  cap = ncap;
  for (size_t i = 0; i < ocap; i++)
    if (old[i].key) table[find(old[i].key)] = old[i];
  free(old);
  return 1;
}

static void put(MPI_Request r, int kind, double bytes, int peer, uint64_t trace_id, uint32_t comm) {
  if (r == MPI_REQUEST_NULL) return;
  uint64_t k = key_of(r);
  pthread_mutex_lock(&lock);
  if ((used + 1) * 2 > cap && !grow()) {
    pthread_mutex_unlock(&lock);
    return; /* out of memory: this request's bytes are not counted */
  }
  size_t i = find(k);
  if (!table[i].key) __atomic_store_n(&used, used + 1, __ATOMIC_RELEASE);
  table[i] = (entry){k, kind, bytes, peer, trace_id, comm};
  pthread_mutex_unlock(&lock);
}

/* Under the lock: remove slot i, shifting back the entries of its probe run (no tombstones). */
static void remove_at(size_t i) {
  size_t j = i;
  for (;;) {
    table[i].key = 0;
    for (;;) {
      j = (j + 1) & (cap - 1);
      if (!table[j].key) {
        __atomic_store_n(&used, used - 1, __ATOMIC_RELEASE);
        return;
      }
      size_t home = slot_of(table[j].key);
      /* j's entry may move to i when its home is not cyclically in (i, j]. */
      if (i <= j ? (home <= i || home > j) : (home <= i && home > j)) break;
    }
    table[i] = table[j];
    i = j;
  }
}

static entry lookup(MPI_Request r, int forget) {
  entry e = {0, KIND_NONE, 0, -1, 0, 0};
  if (!hp_req_any() || r == MPI_REQUEST_NULL) return e;
  uint64_t k = key_of(r);
  pthread_mutex_lock(&lock);
  if (cap) {
    size_t i = find(k);
    if (table[i].key) {
      e = table[i];
      if (forget) remove_at(i);
    }
  }
  pthread_mutex_unlock(&lock);
  return e;
}

void hp_req_recv(MPI_Request r, int persistent) { put(r, persistent ? KIND_RECV_PERSISTENT : KIND_RECV, 0, -1, 0, 0); }
void hp_req_send_persistent(MPI_Request r, double bytes, int peer) { put(r, KIND_SEND_PERSISTENT, bytes, peer, 0, 0); }
void hp_req_trace_isend(MPI_Request r, uint64_t id) { put(r, KIND_SEND_TRACED, 0, -1, id, 0); }
void hp_req_trace_irecv(MPI_Request r, uint64_t id, uint32_t comm) { put(r, KIND_RECV, 0, -1, id, comm); }

void hp_req_started(MPI_Request r) {
  entry e = lookup(r, 0);
  if (e.kind == KIND_SEND_PERSISTENT) {
    hp_acc_sent_bytes(e.bytes);
    hp_cm_send_bytes(e.peer, e.bytes);
  }
}

void hp_req_forget(MPI_Request r) { (void)lookup(r, 1); }

int hp_req_any(void) { return __atomic_load_n(&used, __ATOMIC_ACQUIRE) != 0; }

int hp_req_kind(MPI_Request r) {
  int k = lookup(r, 0).kind;
  return k == KIND_RECV || k == KIND_RECV_PERSISTENT || k == KIND_SEND_TRACED ? k : 0;
}

void hp_req_completed(MPI_Request r, int kind, const MPI_Status *status) {
  if (kind == KIND_SEND_TRACED) {
    entry e = lookup(r, 1);
    if (e.trace_id) hp_tr_isend_done(e.trace_id);
    return;
  }
  if (status) hp_acc_received(status);
  if (kind == KIND_RECV) {
    entry e = lookup(r, 1);
    if (e.trace_id) hp_tr_irecv_done(status, e.comm, e.trace_id);
  }
}
