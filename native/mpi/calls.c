/* The MPI calls whose wrappers are written by hand, in C and in Fortran:
 *  - MPI_Init / MPI_Init_thread: after them, this process's rank (node = rank) and the library;
 *  - MPI_Finalize; MPI_Abort, which writes the measurements first (the job is killed next);
 *  - MPI_Start / MPI_Startall / MPI_Request_free: persistent requests;
 *  - the Wait and Test family: a receive posted earlier (MPI_Irecv ...) is counted when one of them
 *    completes it, from its status. When the program ignores statuses and a tracked receive is among
 *    the requests, statuses of our own are passed instead (only then: otherwise the arguments go
 *    through untouched).
 * Fortran requests and statuses are converted with MPI's own f2c functions; the Fortran entries call
 * the library's Fortran entries (pmpi_wait_ ...), so Fortran semantics (1-based indices, MPI_STATUS
 * arrays) stay the library's. */
#include <stdlib.h>
#include <string.h>

#include "hyprof.h"
#include "mpi_int.h"

#define RA HP_MPI_RETURN_ADDRESS()
#define CFA HP_MPI_CFA()

/* ---- Init and Finalize ---- */

HP_MPI_EXPORT int MPI_Init(int *argc, char ***argv) {
  if (!PMPI_Init) return MPI_ERR_INTERN;
  hp_mpi_call c;
  int measured = hp_mpi_begin(&c, HP_MPI_Init, RA, CFA);
  int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) {
    int level = MPI_THREAD_SINGLE;
    if (PMPI_Query_thread) PMPI_Query_thread(&level);
    hp_mpi_after_init(level);
  }
  if (measured) hp_mpi_end(&c);
  return rc;
}

HP_MPI_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  if (!PMPI_Init_thread) return MPI_ERR_INTERN;
  hp_mpi_call c;
  int measured = hp_mpi_begin(&c, HP_MPI_Init_thread, RA, CFA);
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) hp_mpi_after_init(*provided);
  if (measured) hp_mpi_end(&c);
  return rc;
}

HP_MPI_EXPORT int MPI_Finalize(void) {
  if (!PMPI_Finalize) return MPI_ERR_INTERN;
  hp_mpi_call c;
  if (!hp_mpi_begin(&c, HP_MPI_Finalize, RA, CFA)) return PMPI_Finalize();
  int rc = PMPI_Finalize();
  hp_mpi_end(&c);
  return rc;
}

/* A rank that aborts writes its measurements first: the launcher then kills the job, and an aborted
 * process may not run its exit handlers. */
HP_MPI_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode) {
  if (!PMPI_Abort) return MPI_ERR_INTERN;
  hp_mpi_call c;
  if (hp_mpi_begin(&c, HP_MPI_Abort, RA, CFA)) hp_mpi_end(&c);
  hyprof_flush();
  return PMPI_Abort(comm, errorcode);
}

void pmpi_init_(MPI_Fint *ierr) __attribute__((weak));
void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr) __attribute__((weak));
void pmpi_finalize_(MPI_Fint *ierr) __attribute__((weak));
void pmpi_abort_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr) __attribute__((weak));

static void mpi_abort_f(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr) {
  if (!pmpi_abort_) {
    *ierr = MPI_ERR_INTERN;
    return;
  }
  hp_mpi_call c;
  if (hp_mpi_begin(&c, HP_MPI_Abort, RA, CFA)) hp_mpi_end(&c);
  hyprof_flush();
  pmpi_abort_(comm, errorcode, ierr);
}
HP_MPI_FORTRAN(mpi_abort, MPI_ABORT, mpi_abort_f, (MPI_Fint * comm, MPI_Fint *errorcode, MPI_Fint *ierr))

/* The bodies are inlined into each entry (mpif.h / `use mpi`, and `use mpi_f08`), so that RA and CFA
 * are the entry's: its caller in the program. */
static inline __attribute__((always_inline)) void init_f(void (*real)(MPI_Fint *), MPI_Fint *ierr) {
  if (!real) {
    *ierr = MPI_ERR_INTERN;
    return;
  }
  hp_mpi_call c;
  int measured = hp_mpi_begin(&c, HP_MPI_Init, RA, CFA);
  real(ierr);
  if (*ierr == MPI_SUCCESS) {
    int level = MPI_THREAD_SINGLE;
    if (PMPI_Query_thread) PMPI_Query_thread(&level);
    hp_mpi_after_init(level);
  }
  if (measured) hp_mpi_end(&c);
}

static inline __attribute__((always_inline)) void init_thread_f(void (*real)(MPI_Fint *, MPI_Fint *, MPI_Fint *),
                                                                MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr) {
  if (!real) {
    *ierr = MPI_ERR_INTERN;
    return;
  }
  hp_mpi_call c;
  int measured = hp_mpi_begin(&c, HP_MPI_Init_thread, RA, CFA);
  real(required, provided, ierr);
  if (*ierr == MPI_SUCCESS) hp_mpi_after_init((int)*provided);
  if (measured) hp_mpi_end(&c);
}

static inline __attribute__((always_inline)) void finalize_f(void (*real)(MPI_Fint *), MPI_Fint *ierr) {
  if (!real) {
    *ierr = MPI_ERR_INTERN;
    return;
  }
  hp_mpi_call c;
  if (!hp_mpi_begin(&c, HP_MPI_Finalize, RA, CFA)) {
    real(ierr);
    return;
  }
  real(ierr);
  hp_mpi_end(&c);
}

static void mpi_init_f(MPI_Fint *ierr) { init_f(pmpi_init_, ierr); }
HP_MPI_FORTRAN(mpi_init, MPI_INIT, mpi_init_f, (MPI_Fint * ierr))

static void mpi_init_thread_f(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr) {
  init_thread_f(pmpi_init_thread_, required, provided, ierr);
}
HP_MPI_FORTRAN(mpi_init_thread, MPI_INIT_THREAD, mpi_init_thread_f,
               (MPI_Fint * required, MPI_Fint *provided, MPI_Fint *ierr))

static void mpi_finalize_f(MPI_Fint *ierr) { finalize_f(pmpi_finalize_, ierr); }
HP_MPI_FORTRAN(mpi_finalize, MPI_FINALIZE, mpi_finalize_f, (MPI_Fint * ierr))

/* `use mpi_f08` (gfortran, Open MPI's libmpi_usempif08): the same integers, ierror optional (NULL when
 * absent: the library then writes none, and the layer reads its own). docs/mpi.md, "Fortran". */
void pmpi_init_f08_(MPI_Fint *ierr) __attribute__((weak));
void pmpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr) __attribute__((weak));
void pmpi_finalize_f08_(MPI_Fint *ierr) __attribute__((weak));

HP_MPI_EXPORT void mpi_init_f08_(MPI_Fint *ierr) {
  MPI_Fint own = MPI_SUCCESS;
  init_f(pmpi_init_f08_, ierr ? ierr : &own);
}
HP_MPI_EXPORT void mpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr) {
  MPI_Fint own = MPI_SUCCESS;
  init_thread_f(pmpi_init_thread_f08_, required, provided, ierr ? ierr : &own);
}
HP_MPI_EXPORT void mpi_finalize_f08_(MPI_Fint *ierr) {
  MPI_Fint own = MPI_SUCCESS;
  finalize_f(pmpi_finalize_f08_, ierr ? ierr : &own);
}

/* ---- persistent requests ---- */

HP_MPI_EXPORT int MPI_Start(MPI_Request *request) {
  if (!PMPI_Start) return MPI_ERR_INTERN;
  hp_mpi_call c;
  if (!hp_mpi_begin(&c, HP_MPI_Start, RA, CFA)) return PMPI_Start(request);
  MPI_Request r = *request;
  int rc = PMPI_Start(request);
  if (rc == MPI_SUCCESS) hp_req_started(r);
  hp_mpi_end(&c);
  return rc;
}

HP_MPI_EXPORT int MPI_Startall(int count, MPI_Request array_of_requests[]) {
  if (!PMPI_Startall) return MPI_ERR_INTERN;
  hp_mpi_call c;
  if (!hp_mpi_begin(&c, HP_MPI_Startall, RA, CFA)) return PMPI_Startall(count, array_of_requests);
  int rc = PMPI_Startall(count, array_of_requests);
  if (rc == MPI_SUCCESS && hp_req_any())
    for (int i = 0; i < count; i++) hp_req_started(array_of_requests[i]);
  hp_mpi_end(&c);
  return rc;
}

HP_MPI_EXPORT int MPI_Request_free(MPI_Request *request) {
  if (!PMPI_Request_free) return MPI_ERR_INTERN;
  hp_mpi_call c;
  if (!hp_mpi_begin(&c, HP_MPI_Request_free, RA, CFA)) return PMPI_Request_free(request);
  MPI_Request r = *request;
  int rc = PMPI_Request_free(request);
  if (rc == MPI_SUCCESS) hp_req_forget(r);
  hp_mpi_end(&c);
  return rc;
}

void pmpi_start_(MPI_Fint *request, MPI_Fint *ierr) __attribute__((weak));
void pmpi_startall_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *ierr) __attribute__((weak));
void pmpi_request_free_(MPI_Fint *request, MPI_Fint *ierr) __attribute__((weak));

static void mpi_start_f(MPI_Fint *request, MPI_Fint *ierr) {
  if (!pmpi_start_) {
    *ierr = MPI_ERR_INTERN;
    return;
  }
  hp_mpi_call c;
  if (!hp_mpi_begin(&c, HP_MPI_Start, RA, CFA)) {
    pmpi_start_(request, ierr);
    return;
  }
  pmpi_start_(request, ierr);
  if (*ierr == MPI_SUCCESS) hp_req_started(PMPI_Request_f2c(*request));
  hp_mpi_end(&c);
}
HP_MPI_FORTRAN(mpi_start, MPI_START, mpi_start_f, (MPI_Fint * request, MPI_Fint *ierr))

static void mpi_startall_f(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *ierr) {
  if (!pmpi_startall_) {
    *ierr = MPI_ERR_INTERN;
    return;
  }
  hp_mpi_call c;
  if (!hp_mpi_begin(&c, HP_MPI_Startall, RA, CFA)) {
    pmpi_startall_(count, requests, ierr);
    return;
  }
  pmpi_startall_(count, requests, ierr);
  if (*ierr == MPI_SUCCESS && hp_req_any())
    for (MPI_Fint i = 0; i < *count; i++) hp_req_started(PMPI_Request_f2c(requests[i]));
  hp_mpi_end(&c);
}
HP_MPI_FORTRAN(mpi_startall, MPI_STARTALL, mpi_startall_f, (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *ierr))

static void mpi_request_free_f(MPI_Fint *request, MPI_Fint *ierr) {
  if (!pmpi_request_free_) {
    *ierr = MPI_ERR_INTERN;
    return;
  }
  hp_mpi_call c;
  if (!hp_mpi_begin(&c, HP_MPI_Request_free, RA, CFA)) {
    pmpi_request_free_(request, ierr);
    return;
  }
  MPI_Request r = PMPI_Request_f2c(*request);
  pmpi_request_free_(request, ierr);
  if (*ierr == MPI_SUCCESS) hp_req_forget(r);
  hp_mpi_end(&c);
}
HP_MPI_FORTRAN(mpi_request_free, MPI_REQUEST_FREE, mpi_request_free_f, (MPI_Fint * request, MPI_Fint *ierr))

/* ---- completion: which of the requests are tracked receives ---- */

#define INLINE_REQS 16

typedef struct pending {
  int any;                       /* a tracked receive is among the requests */
  int *kind;                     /* per request: hp_req_kind before the call */
  MPI_Request *req;              /* per request: its C handle before the call (completion frees it) */
  int kind_buf[INLINE_REQS];
  MPI_Request req_buf[INLINE_REQS];
  void *heap;
} pending;

/* Look at `n` requests before the completion call: C handles, or Fortran ones (f != NULL). */
static void pending_take(pending *p, int n, const MPI_Request *c, const MPI_Fint *f) {
  p->any = 0;
  p->heap = NULL;
  p->kind = p->kind_buf;
  p->req = p->req_buf;
  if (n <= 0 || !hp_req_any()) return;
  if (n > INLINE_REQS) {
    p->heap = malloc((size_t)n * (sizeof(int) + sizeof(MPI_Request)));
    if (!p->heap) return; /* out of memory: these receives are not counted */
    p->req = p->heap;
    p->kind = (int *)(p->req + n);
  }
  for (int i = 0; i < n; i++) {
    p->req[i] = c ? c[i] : PMPI_Request_f2c(f[i]);
    p->kind[i] = hp_req_kind(p->req[i]);
    p->any |= p->kind[i] != 0;
  }
}

static void pending_release(pending *p) { free(p->heap); }

/* The request at index i completed with status st (NULL: unknown). */
static void pending_done(const pending *p, int i, const MPI_Status *st) {
  if (p->any && i >= 0 && p->kind[i]) hp_req_completed(p->req[i], p->kind[i], st);
}

/* Statuses of our own for n requests when the program passed MPI_STATUSES_IGNORE. */
static MPI_Status *own_statuses(int n, MPI_Status *inline_buf, int inline_n) {
  return n <= inline_n ? inline_buf : malloc((size_t)n * sizeof(MPI_Status));
}

/* Completed with MPI_ERR_IN_STATUS: each status says whether its request completed. */
static int completed(int rc, const MPI_Status *st) { return rc == MPI_SUCCESS || st->MPI_ERROR == MPI_SUCCESS; }

/* ---- the Wait and Test family, C ---- */

HP_MPI_EXPORT int MPI_Wait(MPI_Request *request, MPI_Status *status) {
  if (!PMPI_Wait) return MPI_ERR_INTERN;
  hp_mpi_call c;
  if (!hp_mpi_begin(&c, HP_MPI_Wait, RA, CFA)) return PMPI_Wait(request, status);
  pending p;
  pending_take(&p, 1, request, NULL);
  MPI_Status own;
  if (p.any && status == MPI_STATUS_IGNORE) status = &own;
  int rc = PMPI_Wait(request, status);
  if (rc == MPI_SUCCESS) pending_done(&p, 0, status);
  hp_mpi_end(&c);
  return rc;
}

HP_MPI_EXPORT int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  if (!PMPI_Test) return MPI_ERR_INTERN;
  hp_mpi_call c;
  if (!hp_mpi_begin(&c, HP_MPI_Test, RA, CFA)) return PMPI_Test(request, flag, status);
  pending p;
  pending_take(&p, 1, request, NULL);
  MPI_Status own;
  if (p.any && status == MPI_STATUS_IGNORE) status = &own;
  int rc = PMPI_Test(request, flag, status);
  if (rc == MPI_SUCCESS && *flag) pending_done(&p, 0, status);
  hp_mpi_end(&c);
  return rc;
}

HP_MPI_EXPORT int MPI_Waitany(int count, MPI_Request array_of_requests[], int *indx, MPI_Status *status) {
  if (!PMPI_Waitany) return MPI_ERR_INTERN;
  hp_mpi_call c;
  if (!hp_mpi_begin(&c, HP_MPI_Waitany, RA, CFA)) return PMPI_Waitany(count, array_of_requests, indx, status);
  pending p;
  pending_take(&p, count, array_of_requests, NULL);
  MPI_Status own;
  if (p.any && status == MPI_STATUS_IGNORE) status = &own;
  int rc = PMPI_Waitany(count, array_of_requests, indx, status);
  if (rc == MPI_SUCCESS && *indx != MPI_UNDEFINED) pending_done(&p, *indx, status);
  pending_release(&p);
  hp_mpi_end(&c);
  return rc;
}

HP_MPI_EXPORT int MPI_Testany(int count, MPI_Request array_of_requests[], int *indx, int *flag, MPI_Status *status) {
  if (!PMPI_Testany) return MPI_ERR_INTERN;
  hp_mpi_call c;
  if (!hp_mpi_begin(&c, HP_MPI_Testany, RA, CFA)) return PMPI_Testany(count, array_of_requests, indx, flag, status);
  pending p;
  pending_take(&p, count, array_of_requests, NULL);
  MPI_Status own;
  if (p.any && status == MPI_STATUS_IGNORE) status = &own;
  int rc = PMPI_Testany(count, array_of_requests, indx, flag, status);
  if (rc == MPI_SUCCESS && *flag && *indx != MPI_UNDEFINED) pending_done(&p, *indx, status);
  pending_release(&p);
  hp_mpi_end(&c);
  return rc;
}

HP_MPI_EXPORT int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]) {
  if (!PMPI_Waitall) return MPI_ERR_INTERN;
  hp_mpi_call c;
  if (!hp_mpi_begin(&c, HP_MPI_Waitall, RA, CFA)) return PMPI_Waitall(count, array_of_requests, array_of_statuses);
  pending p;
  pending_take(&p, count, array_of_requests, NULL);
  MPI_Status inline_st[INLINE_REQS], *own = NULL, *st = array_of_statuses;
  if (p.any && st == MPI_STATUSES_IGNORE) st = own = own_statuses(count, inline_st, INLINE_REQS);
  int rc = PMPI_Waitall(count, array_of_requests, st ? st : MPI_STATUSES_IGNORE);
  if (p.any && st && (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS))
    for (int i = 0; i < count; i++)
      if (completed(rc, &st[i])) pending_done(&p, i, &st[i]);
  if (own != inline_st) free(own);
  pending_release(&p);
  hp_mpi_end(&c);
  return rc;
}

HP_MPI_EXPORT int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]) {
  if (!PMPI_Testall) return MPI_ERR_INTERN;
  hp_mpi_call c;
  if (!hp_mpi_begin(&c, HP_MPI_Testall, RA, CFA)) return PMPI_Testall(count, array_of_requests, flag, array_of_statuses);
  pending p;
  pending_take(&p, count, array_of_requests, NULL);
  MPI_Status inline_st[INLINE_REQS], *own = NULL, *st = array_of_statuses;
  if (p.any && st == MPI_STATUSES_IGNORE) st = own = own_statuses(count, inline_st, INLINE_REQS);
  int rc = PMPI_Testall(count, array_of_requests, flag, st ? st : MPI_STATUSES_IGNORE);
  if (p.any && st && *flag && (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS))
    for (int i = 0; i < count; i++)
      if (completed(rc, &st[i])) pending_done(&p, i, &st[i]);
  if (own != inline_st) free(own);
  pending_release(&p);
  hp_mpi_end(&c);
  return rc;
}

/* Waitsome and Testsome have the same arguments and the same completion. */
static int some(int (*call)(int, MPI_Request[], int *, int[], MPI_Status[]), enum hp_mpi_ev ev, uintptr_t ra,
                uintptr_t cfa, int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[]) {
  hp_mpi_call c;
  if (!hp_mpi_begin(&c, ev, ra, cfa)) return call(incount, reqs, outcount, indices, statuses);
  pending p;
  pending_take(&p, incount, reqs, NULL);
  MPI_Status inline_st[INLINE_REQS], *own = NULL, *st = statuses;
  if (p.any && st == MPI_STATUSES_IGNORE) st = own = own_statuses(incount, inline_st, INLINE_REQS);
  int rc = call(incount, reqs, outcount, indices, st ? st : MPI_STATUSES_IGNORE);
  if (p.any && st && (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && *outcount != MPI_UNDEFINED)
    for (int k = 0; k < *outcount; k++)
      if (completed(rc, &st[k])) pending_done(&p, indices[k], &st[k]);
  if (own != inline_st) free(own);
  pending_release(&p);
  hp_mpi_end(&c);
  return rc;
}

HP_MPI_EXPORT int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                               MPI_Status array_of_statuses[]) {
  if (!PMPI_Waitsome) return MPI_ERR_INTERN;
  return some(PMPI_Waitsome, HP_MPI_Waitsome, RA, CFA, incount, array_of_requests, outcount, array_of_indices,
              array_of_statuses);
}

HP_MPI_EXPORT int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                               MPI_Status array_of_statuses[]) {
  if (!PMPI_Testsome) return MPI_ERR_INTERN;
  return some(PMPI_Testsome, HP_MPI_Testsome, RA, CFA, incount, array_of_requests, outcount, array_of_indices,
              array_of_statuses);
}

/* ---- the Wait and Test family, Fortran ---- */

void pmpi_wait_(MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierr) __attribute__((weak));
void pmpi_test_(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr) __attribute__((weak));
void pmpi_waitany_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *status, MPI_Fint *ierr)
  __attribute__((weak));
void pmpi_testany_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag, MPI_Fint *status,
                   MPI_Fint *ierr) __attribute__((weak));
void pmpi_waitall_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *statuses, MPI_Fint *ierr) __attribute__((weak));
void pmpi_testall_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag, MPI_Fint *statuses, MPI_Fint *ierr)
  __attribute__((weak));
void pmpi_waitsome_(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices, MPI_Fint *statuses,
                    MPI_Fint *ierr) __attribute__((weak));
void pmpi_testsome_(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices, MPI_Fint *statuses,
                    MPI_Fint *ierr) __attribute__((weak));

#define FSS HP_F_STATUS_SIZE

/* The request at index i completed with the Fortran status fst. */
static void pending_done_f(const pending *p, int i, const MPI_Fint *fst) {
  MPI_Status st;
  pending_done(p, i, PMPI_Status_f2c(fst, &st) == MPI_SUCCESS ? &st : NULL);
}

/* Fortran statuses of our own for n requests. */
static MPI_Fint *own_fstatuses(int n, MPI_Fint *inline_buf, int inline_n) {
  return n <= inline_n ? inline_buf : malloc((size_t)n * FSS * sizeof(MPI_Fint));
}

typedef void (*fwait_fn)(MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierr);

/* Inlined into each entry, so that RA and CFA are the entry's: its caller in the program. */
static inline __attribute__((always_inline)) void wait_f(fwait_fn real, MPI_Fint *request, MPI_Fint *status,
                                                         MPI_Fint *ierr) {
  if (!real) {
    *ierr = MPI_ERR_INTERN;
    return;
  }
  hp_mpi_call c;
  if (!hp_mpi_begin(&c, HP_MPI_Wait, RA, CFA)) {
    real(request, status, ierr);
    return;
  }
  pending p;
  pending_take(&p, 1, NULL, request);
  MPI_Fint own[FSS];
  if (p.any && hp_mpi_f_status_ignore(status)) status = own;
  real(request, status, ierr);
  if (p.any && *ierr == MPI_SUCCESS) pending_done_f(&p, 0, status);
  hp_mpi_end(&c);
}

static void mpi_wait_f(MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierr) { wait_f(pmpi_wait_, request, status, ierr); }
HP_MPI_FORTRAN(mpi_wait, MPI_WAIT, mpi_wait_f, (MPI_Fint * request, MPI_Fint *status, MPI_Fint *ierr))

/* `use mpi_f08` (gfortran, Open MPI): the same arguments (TYPE(MPI_Request) and TYPE(MPI_Status) hold
 * the integers of the mpif.h forms), ierror optional (NULL when absent). */
void pmpi_wait_f08_(MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierr) __attribute__((weak));
HP_MPI_EXPORT void mpi_wait_f08_(MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierr) {
  MPI_Fint own_ierr = MPI_SUCCESS;
  wait_f(pmpi_wait_f08_, request, status, ierr ? ierr : &own_ierr);
}

static void mpi_test_f(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr) {
  if (!pmpi_test_) {
    *ierr = MPI_ERR_INTERN;
    return;
  }
  hp_mpi_call c;
  if (!hp_mpi_begin(&c, HP_MPI_Test, RA, CFA)) {
    pmpi_test_(request, flag, status, ierr);
    return;
  }
  pending p;
  pending_take(&p, 1, NULL, request);
  MPI_Fint own[FSS];
  if (p.any && hp_mpi_f_status_ignore(status)) status = own;
  pmpi_test_(request, flag, status, ierr);
  if (p.any && *ierr == MPI_SUCCESS && *flag) pending_done_f(&p, 0, status);
  hp_mpi_end(&c);
}
HP_MPI_FORTRAN(mpi_test, MPI_TEST, mpi_test_f, (MPI_Fint * request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr))

/* Fortran indices count from 1. */
static void mpi_waitany_f(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *status, MPI_Fint *ierr) {
  if (!pmpi_waitany_) {
    *ierr = MPI_ERR_INTERN;
    return;
  }
  hp_mpi_call c;
  if (!hp_mpi_begin(&c, HP_MPI_Waitany, RA, CFA)) {
    pmpi_waitany_(count, requests, index, status, ierr);
    return;
  }
  pending p;
  pending_take(&p, (int)*count, NULL, requests);
  MPI_Fint own[FSS];
  if (p.any && hp_mpi_f_status_ignore(status)) status = own;
  pmpi_waitany_(count, requests, index, status, ierr);
  if (p.any && *ierr == MPI_SUCCESS && *index != MPI_UNDEFINED) pending_done_f(&p, (int)*index - 1, status);
  pending_release(&p);
  hp_mpi_end(&c);
}
HP_MPI_FORTRAN(mpi_waitany, MPI_WAITANY, mpi_waitany_f,
               (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *status, MPI_Fint *ierr))

static void mpi_testany_f(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag, MPI_Fint *status,
                          MPI_Fint *ierr) {
  if (!pmpi_testany_) {
    *ierr = MPI_ERR_INTERN;
    return;
  }
  hp_mpi_call c;
  if (!hp_mpi_begin(&c, HP_MPI_Testany, RA, CFA)) {
    pmpi_testany_(count, requests, index, flag, status, ierr);
    return;
  }
  pending p;
  pending_take(&p, (int)*count, NULL, requests);
  MPI_Fint own[FSS];
  if (p.any && hp_mpi_f_status_ignore(status)) status = own;
  pmpi_testany_(count, requests, index, flag, status, ierr);
  if (p.any && *ierr == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED) pending_done_f(&p, (int)*index - 1, status);
  pending_release(&p);
  hp_mpi_end(&c);
}
HP_MPI_FORTRAN(mpi_testany, MPI_TESTANY, mpi_testany_f,
               (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr))

static void mpi_waitall_f(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *statuses, MPI_Fint *ierr) {
  if (!pmpi_waitall_) {
    *ierr = MPI_ERR_INTERN;
    return;
  }
  hp_mpi_call c;
  if (!hp_mpi_begin(&c, HP_MPI_Waitall, RA, CFA)) {
    pmpi_waitall_(count, requests, statuses, ierr);
    return;
  }
  int n = (int)*count;
  pending p;
  pending_take(&p, n, NULL, requests);
  MPI_Fint inline_st[INLINE_REQS * FSS], *own = NULL;
  if (p.any && hp_mpi_f_statuses_ignore(statuses) && (own = own_fstatuses(n, inline_st, INLINE_REQS))) statuses = own;
  pmpi_waitall_(count, requests, statuses, ierr);
  if (p.any && !hp_mpi_f_statuses_ignore(statuses) && (*ierr == MPI_SUCCESS || *ierr == MPI_ERR_IN_STATUS))
    for (int i = 0; i < n; i++) {
      MPI_Status st;
      if (PMPI_Status_f2c(statuses + (size_t)i * HP_F_STATUS_STRIDE, &st) == MPI_SUCCESS && completed(*ierr, &st)) pending_done(&p, i, &st);
    }
  if (own != inline_st) free(own);
  pending_release(&p);
  hp_mpi_end(&c);
}
HP_MPI_FORTRAN(mpi_waitall, MPI_WAITALL, mpi_waitall_f,
               (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *statuses, MPI_Fint *ierr))

static void mpi_testall_f(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag, MPI_Fint *statuses, MPI_Fint *ierr) {
  if (!pmpi_testall_) {
    *ierr = MPI_ERR_INTERN;
    return;
  }
  hp_mpi_call c;
  if (!hp_mpi_begin(&c, HP_MPI_Testall, RA, CFA)) {
    pmpi_testall_(count, requests, flag, statuses, ierr);
    return;
  }
  int n = (int)*count;
  pending p;
  pending_take(&p, n, NULL, requests);
  MPI_Fint inline_st[INLINE_REQS * FSS], *own = NULL;
  if (p.any && hp_mpi_f_statuses_ignore(statuses) && (own = own_fstatuses(n, inline_st, INLINE_REQS))) statuses = own;
  pmpi_testall_(count, requests, flag, statuses, ierr);
  if (p.any && *flag && !hp_mpi_f_statuses_ignore(statuses) && (*ierr == MPI_SUCCESS || *ierr == MPI_ERR_IN_STATUS))
    for (int i = 0; i < n; i++) {
      MPI_Status st;
      if (PMPI_Status_f2c(statuses + (size_t)i * HP_F_STATUS_STRIDE, &st) == MPI_SUCCESS && completed(*ierr, &st)) pending_done(&p, i, &st);
    }
  if (own != inline_st) free(own);
  pending_release(&p);
  hp_mpi_end(&c);
}
HP_MPI_FORTRAN(mpi_testall, MPI_TESTALL, mpi_testall_f,
               (MPI_Fint * count, MPI_Fint *requests, MPI_Fint *flag, MPI_Fint *statuses, MPI_Fint *ierr))

typedef void (*fsome_fn)(MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);

static void some_f(fsome_fn call, enum hp_mpi_ev ev, uintptr_t ra, uintptr_t cfa, MPI_Fint *incount,
                   MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices, MPI_Fint *statuses, MPI_Fint *ierr) {
  hp_mpi_call c;
  if (!hp_mpi_begin(&c, ev, ra, cfa)) {
    call(incount, requests, outcount, indices, statuses, ierr);
    return;
  }
  int n = (int)*incount;
  pending p;
  pending_take(&p, n, NULL, requests);
  MPI_Fint inline_st[INLINE_REQS * FSS], *own = NULL;
  if (p.any && hp_mpi_f_statuses_ignore(statuses) && (own = own_fstatuses(n, inline_st, INLINE_REQS))) statuses = own;
  call(incount, requests, outcount, indices, statuses, ierr);
  if (p.any && !hp_mpi_f_statuses_ignore(statuses) && (*ierr == MPI_SUCCESS || *ierr == MPI_ERR_IN_STATUS) &&
      *outcount != MPI_UNDEFINED)
    for (int k = 0; k < (int)*outcount; k++) {
      MPI_Status st;
      if (PMPI_Status_f2c(statuses + (size_t)k * HP_F_STATUS_STRIDE, &st) == MPI_SUCCESS && completed(*ierr, &st))
        pending_done(&p, (int)indices[k] - 1, &st);
    }
  if (own != inline_st) free(own);
  pending_release(&p);
  hp_mpi_end(&c);
}

static void mpi_waitsome_f(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices,
                           MPI_Fint *statuses, MPI_Fint *ierr) {
  if (!pmpi_waitsome_) {
    *ierr = MPI_ERR_INTERN;
    return;
  }
  some_f(pmpi_waitsome_, HP_MPI_Waitsome, RA, CFA, incount, requests, outcount, indices, statuses, ierr);
}
HP_MPI_FORTRAN(mpi_waitsome, MPI_WAITSOME, mpi_waitsome_f,
               (MPI_Fint * incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices, MPI_Fint *statuses,
                MPI_Fint *ierr))

static void mpi_testsome_f(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices,
                           MPI_Fint *statuses, MPI_Fint *ierr) {
  if (!pmpi_testsome_) {
    *ierr = MPI_ERR_INTERN;
    return;
  }
  some_f(pmpi_testsome_, HP_MPI_Testsome, RA, CFA, incount, requests, outcount, indices, statuses, ierr);
}
HP_MPI_FORTRAN(mpi_testsome, MPI_TESTSOME, mpi_testsome_f,
               (MPI_Fint * incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices, MPI_Fint *statuses,
                MPI_Fint *ierr))

/* ---- Fortran sentinels ---- */

#ifdef OPEN_MPI
/* Open MPI's Fortran MPI_IN_PLACE, MPI_BOTTOM and MPI_STATUS(ES)_IGNORE are common blocks of the
 * program (gfortran's names); weak: absent in C programs. */
extern int mpi_fortran_in_place_ __attribute__((weak));
extern int mpi_fortran_bottom_ __attribute__((weak));
extern int mpi_fortran_status_ignore_ __attribute__((weak));
extern int mpi_fortran_statuses_ignore_ __attribute__((weak));
#endif

const void *hp_mpi_fbuf(const void *buf) {
#ifdef OPEN_MPI
  if (buf && buf == (const void *)&mpi_fortran_in_place_) return MPI_IN_PLACE;
  if (buf && buf == (const void *)&mpi_fortran_bottom_) return MPI_BOTTOM;
#endif
  return buf;
}

int hp_mpi_f_status_ignore(const MPI_Fint *status) {
  if (!status) return 1;
#ifdef OPEN_MPI
  if (status == (const MPI_Fint *)&mpi_fortran_status_ignore_) return 1;
  if (&MPI_F_STATUS_IGNORE && status == MPI_F_STATUS_IGNORE) return 1;
#else
  if (status == MPI_F_STATUS_IGNORE) return 1;
#endif
  return 0;
}

int hp_mpi_f_statuses_ignore(const MPI_Fint *statuses) {
  if (!statuses) return 1;
#ifdef OPEN_MPI
  if (statuses == (const MPI_Fint *)&mpi_fortran_statuses_ignore_) return 1;
  if (&MPI_F_STATUSES_IGNORE && statuses == MPI_F_STATUSES_IGNORE) return 1;
#else
  if (statuses == MPI_F_STATUSES_IGNORE) return 1;
#endif
  return 0;
}
