/* MPI events of the trace (HYPROF_TRACE; docs/trace.md, "What is recorded"): point-to-point messages
 * with communicator, peer, tag and bytes, non-blocking ones completed at their Wait / Test, blocking
 * collectives with root and bytes, and the communicators they use. Each is one record of the core's
 * trace (core/trace.h, HP_TREC_MPI_*), written through hyprof_ext_trace into the calling thread's
 * own buffer: no lock, no allocation on the way.
 *
 * Communicators are numbered per process, in the order this process first saw them: 0 is
 * MPI_COMM_WORLD, 1 MPI_COMM_SELF, then those made by MPI_Comm_split / _split_type / _dup / _create /
 * MPI_Cart_create as they are made (a communicator made otherwise is numbered at its first message).
 * Each gets one COMM record with its members as ranks of MPI_COMM_WORLD; the OTF2 writer
 * (native/otf2/hyprof_otf2.c) makes the ranks' numberings one: the k-th communicator with a given
 * member list on one rank is the k-th with that list on every member (communicators are made
 * collectively, in the same order on every member).
 *
 * The handle -> number table is fixed (COMMS slots), filled by compare-and-swap and read with
 * acquire loads; a communicator beyond it, and intercommunicators (whose peers are ranks of the
 * remote group), are counted and said once, and their messages are not traced. Not called from signal
 * handlers. */
#include <stdio.h>
#include <string.h>

#include "mpi_int.h"

#define COMMS 1024 /* a power of two */
#define NO_COMM 0xFFFFFFFFu
#define HP_TREC_MAX_WORDS_MPI 255 /* HP_TREC_MAX_WORDS of core/trace.h */

/* HP_TREC_MPI_* of core/trace.h */
enum { SEND = 3, ISEND = 4, ISEND_DONE = 5, IRECV_REQUEST = 6, RECV = 7, IRECV = 8, COLL_BEGIN = 9, COLL_END = 10, COMM = 11 };

static uint64_t comm_keys[COMMS]; /* handle bits + 1; 0 free */
static uint32_t comm_ids[COMMS];  /* its number + 1; 0 being made */
static uint32_t next_comm = 2;    /* 0 WORLD, 1 SELF */
static uint64_t next_request;     /* request ids, from 1 */
static int said_untraced;

int hp_tr_on(void) { return hyprof_ext_trace_on(); }

static uint64_t key_of(MPI_Comm c) {
  uint64_t k = 0;
  memcpy(&k, &c, sizeof c < sizeof k ? sizeof c : sizeof k);
  return k + 1;
}

static uint32_t slot_of(uint64_t k) { return (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 40) & (COMMS - 1); }

/* The members of c as ranks of MPI_COMM_WORLD, in COMM records of up to 254 words of two ranks. */
static void record_comm(uint32_t id, MPI_Comm c) {
  MPI_Group g, world;
  int n = 0;
  if (PMPI_Comm_group(c, &g) != MPI_SUCCESS) return;
  if (PMPI_Comm_group(MPI_COMM_WORLD, &world) != MPI_SUCCESS || PMPI_Group_size(g, &n) != MPI_SUCCESS || n <= 0) {
    PMPI_Group_free(&g);
    return;
  }
  enum { CHUNK = 2 * (HP_TREC_MAX_WORDS_MPI - 1) };
  int in[CHUNK], out[CHUNK];
  for (int first = 0; first < n; first += CHUNK) {
    int m = n - first < CHUNK ? n - first : CHUNK;
    for (int i = 0; i < m; i++) in[i] = first + i;
    if (PMPI_Group_translate_ranks(g, m, in, world, out) != MPI_SUCCESS) break;
    uint64_t words[HP_TREC_MAX_WORDS_MPI];
    words[0] = (uint64_t)(uint32_t)n | (uint64_t)(uint32_t)first << 32;
    for (int i = 0; i < m; i += 2)
      words[1 + i / 2] = (uint64_t)(uint32_t)out[i] | (i + 1 < m ? (uint64_t)(uint32_t)out[i + 1] << 32 : 0);
    hyprof_ext_trace(COMM, id, words, 1 + (uint32_t)(m + 1) / 2);
  }
  PMPI_Group_free(&world);
  PMPI_Group_free(&g);
}

/* Number a communicator made now (or seen now for the first time); NO_COMM when it is not traced. */
static uint32_t define(MPI_Comm c) {
  int inter = 0;
  if (c == MPI_COMM_NULL || (PMPI_Comm_test_inter(c, &inter) == MPI_SUCCESS && inter)) return NO_COMM;
  uint64_t k = key_of(c);
  for (uint32_t probe = 0, i = slot_of(k); probe < COMMS; probe++, i = (i + 1) & (COMMS - 1)) {
    uint64_t cur = __atomic_load_n(&comm_keys[i], __ATOMIC_ACQUIRE);
    /* a free slot is taken by compare-and-swap; one taken meanwhile by another handle is passed */
    if (cur == 0 && __atomic_compare_exchange_n(&comm_keys[i], &cur, k, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) cur = k;
    if (cur != k) continue;
    /* this slot is c's (freshly taken, or a handle made again after MPI_Comm_free): a new number */
    uint32_t id = __atomic_fetch_add(&next_comm, 1, __ATOMIC_RELAXED);
    record_comm(id, c);
    __atomic_store_n(&comm_ids[i], id + 1, __ATOMIC_RELEASE);
    return id;
  }
  return NO_COMM;
}

static uint32_t comm_id(MPI_Comm c) {
  if (c == MPI_COMM_WORLD) return 0;
  if (c == MPI_COMM_SELF) return 1;
  uint64_t k = key_of(c);
  for (uint32_t probe = 0, i = slot_of(k); probe < COMMS; probe++, i = (i + 1) & (COMMS - 1)) {
    uint64_t cur = __atomic_load_n(&comm_keys[i], __ATOMIC_ACQUIRE);
    if (cur == 0) break;
    if (cur != k) continue;
    uint32_t id = __atomic_load_n(&comm_ids[i], __ATOMIC_ACQUIRE);
    if (id) return id - 1;
    break;
  }
  uint32_t id = define(c); /* made by a call the layer does not follow: numbered at its first use */
  if (id == NO_COMM) {
    if (!__atomic_exchange_n(&said_untraced, 1, __ATOMIC_RELAXED))
      hyprof_ext_note("HYPROF_TRACE: messages on an intercommunicator (or on more than 1024 communicators) are not "
                      "traced (their calls are)");
  }
  return id;
}

void hp_tr_after_init(void) {
  if (!hp_tr_on()) return;
  record_comm(0, MPI_COMM_WORLD);
  record_comm(1, MPI_COMM_SELF);
}

void hp_tr_comm_new(MPI_Comm c) {
  if (hp_tr_on()) (void)define(c);
}

/* Freed: its slot's number is dropped, so a handle made again by a call the layer does not follow is
 * numbered anew at its first use. */
void hp_tr_comm_free(MPI_Comm c) {
  if (!hp_tr_on() || c == MPI_COMM_NULL || c == MPI_COMM_WORLD || c == MPI_COMM_SELF) return;
  uint64_t k = key_of(c);
  for (uint32_t probe = 0, i = slot_of(k); probe < COMMS; probe++, i = (i + 1) & (COMMS - 1)) {
    uint64_t cur = __atomic_load_n(&comm_keys[i], __ATOMIC_ACQUIRE);
    if (cur == 0) return;
    if (cur == k) {
      __atomic_store_n(&comm_ids[i], 0, __ATOMIC_RELEASE);
      return;
    }
  }
}

static uint64_t peer_tag(int peer, int tag) { return (uint64_t)(uint32_t)peer | (uint64_t)(uint32_t)tag << 32; }

static uint64_t bytes_of(int count, MPI_Datatype type) {
  double b = hp_bytes(count, type);
  return b > 0 ? (uint64_t)b : 0;
}

void hp_tr_send(int dest, int tag, MPI_Comm comm, int count, MPI_Datatype type) {
  if (!hp_tr_on() || dest == MPI_PROC_NULL) return;
  uint32_t c = comm_id(comm);
  if (c == NO_COMM) return;
  uint64_t w[2] = {peer_tag(dest, tag), bytes_of(count, type)};
  hyprof_ext_trace(SEND, c, w, 2);
}

void hp_tr_isend(int dest, int tag, MPI_Comm comm, int count, MPI_Datatype type, MPI_Request request) {
  if (!hp_tr_on() || dest == MPI_PROC_NULL || request == MPI_REQUEST_NULL) return;
  uint32_t c = comm_id(comm);
  if (c == NO_COMM) return;
  uint64_t id = __atomic_add_fetch(&next_request, 1, __ATOMIC_RELAXED);
  uint64_t w[3] = {peer_tag(dest, tag), bytes_of(count, type), id};
  hyprof_ext_trace(ISEND, c, w, 3);
  hp_req_trace_isend(request, id);
}

void hp_tr_isend_done(uint64_t id) { hyprof_ext_trace(ISEND_DONE, id, NULL, 0); }

static uint64_t status_bytes(const MPI_Status *st) {
  int n = 0;
  if (PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED || n < 0) return 0;
  return (uint64_t)n;
}

void hp_tr_recv(const MPI_Status *st, MPI_Comm comm) {
  if (!hp_tr_on() || !st || st == MPI_STATUS_IGNORE || st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE < 0) return;
  uint32_t c = comm_id(comm);
  if (c == NO_COMM) return;
  uint64_t w[2] = {peer_tag(st->MPI_SOURCE, st->MPI_TAG), status_bytes(st)};
  hyprof_ext_trace(RECV, c, w, 2);
}

void hp_tr_irecv(MPI_Comm comm, MPI_Request request) {
  if (!hp_tr_on() || request == MPI_REQUEST_NULL) return;
  uint32_t c = comm_id(comm);
  if (c == NO_COMM) return;
  uint64_t id = __atomic_add_fetch(&next_request, 1, __ATOMIC_RELAXED);
  hyprof_ext_trace(IRECV_REQUEST, id, NULL, 0);
  hp_req_trace_irecv(request, id, c);
}

void hp_tr_irecv_done(const MPI_Status *st, uint32_t comm, uint64_t id) {
  if (!st || st == MPI_STATUS_IGNORE || st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE < 0) return;
  uint64_t w[3] = {peer_tag(st->MPI_SOURCE, st->MPI_TAG), status_bytes(st), id};
  hyprof_ext_trace(IRECV, comm, w, 3);
}

void hp_tr_coll_begin(void) {
  if (hp_tr_on()) hyprof_ext_trace(COLL_BEGIN, 0, NULL, 0);
}

void hp_tr_coll_end(int op, MPI_Comm comm, int root, double sent, double received) {
  if (!hp_tr_on()) return;
  uint32_t c = comm_id(comm);
  /* a collective on a communicator not traced still ends (its begin was recorded): comm NO_COMM */
  uint64_t w[3] = {(uint64_t)(uint32_t)op | (uint64_t)(uint32_t)root << 32, sent > 0 ? (uint64_t)sent : 0,
                   received > 0 ? (uint64_t)received : 0};
  hyprof_ext_trace(COLL_END, c, w, 3);
}

int hp_tr_comm_size(MPI_Comm comm) {
  int n = 0;
  return PMPI_Comm_size(comm, &n) == MPI_SUCCESS ? n : 0;
}

int hp_tr_is_root(int root, MPI_Comm comm) {
  int me = -1;
  return PMPI_Comm_rank(comm, &me) == MPI_SUCCESS && me == root;
}
