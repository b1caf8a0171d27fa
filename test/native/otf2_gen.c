/*
 * Writes OTF2 archives that follow hyprof's trace conventions (docs/trace.md), through the real OTF2
 * library's writer, for the trace readers' tests and benchmarks: the readers must work on archives
 * the OTF2 library wrote, whatever writes them in a run.
 *
 *   otf2_gen DIR run          a known run: 4 MPI ranks ("rank <r>") of one host; each runs main,
 *                             3 phases "Iteration <i>", solve with a parameter specialisation
 *                             (`solve  [ <n> = <512> ]  `, attribute param:n), point-to-point
 *                             messages (rank 0 → 1 MPI_Send/MPI_Recv, rank 0 late by LATE_NS in
 *                             iteration 1; rank 2 → 3 a late receiver by LATE_RECV_NS; rank 1 → 2
 *                             Isend/Irecv/Wait), MPI_Allreduce (rank r enters r×ALLRED_STEP_NS after
 *                             rank 0) and MPI_Bcast (root 0 enters BCAST_LATE_NS after the others);
 *                             rank 0 then forks an OpenMP team of 3 whose tasks are suspended and
 *                             resumed on another thread; rank 0's thread 0 has calling-context samples.
 *                             Every time is a fixed number: the tests know each wait exactly.
 *   otf2_gen DIR misnested    one thread whose Leave does not match its innermost Enter (event 3): an
 *                             archive the readers refuse (OTF2's writer itself refuses time going back).
 *   otf2_gen DIR cut          a run cut short: thread 0 of rank 0 ends with 2 regions never left, and
 *                             its location says 123 events were lost (hyprof:lost_events, _reason).
 *   otf2_gen DIR big N        about N events over 4 ranks × 2 threads (nested regions, a message
 *                             every few regions): the 10-million-event benchmark archive.
 *
 * Times are nanoseconds from BASE (the clock's global offset is the earliest event).
 */
#include <otf2/otf2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BASE 1000000000ull
#define MS 1000000ull
#define US 1000ull
#define LATE_NS (2 * MS)          /* rank 0's send to rank 1 in iteration 1 */
#define LATE_RECV_NS (1 * MS)     /* rank 3's receive from rank 2, every iteration */
#define ALLRED_STEP_NS (500 * US) /* rank r enters the Allreduce r × this after rank 0 */
#define BCAST_LATE_NS (700 * US)  /* the Bcast's root enters this after the others */

static void check(OTF2_ErrorCode e, const char *what) {
  if (e != OTF2_SUCCESS) {
    fprintf(stderr, "otf2_gen: %s: %s\n", what, OTF2_Error_GetDescription(e));
    exit(1);
  }
}

static OTF2_FlushType pre_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l, void *c, bool final) {
  return OTF2_FLUSH;
}
static OTF2_TimeStamp post_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l) { return 0; }
static OTF2_FlushCallbacks flush_callbacks = {.otf2_pre_flush = pre_flush, .otf2_post_flush = post_flush};

/* Strings: a small table, deduplicated by content. */
static const char *strings[4096];
static uint32_t nstrings;
static uint32_t str(const char *s) {
  for (uint32_t i = 0; i < nstrings; i++)
    if (strcmp(strings[i], s) == 0) return i;
  strings[nstrings] = strdup(s);
  return nstrings++;
}

struct region {
  const char *name, *group, *file;
  OTF2_RegionRole role;
  OTF2_Paradigm paradigm;
  uint32_t line;
};
static struct region regions[256];
static uint32_t nregions;
static uint32_t region(const char *name, const char *group, OTF2_RegionRole role, OTF2_Paradigm p, const char *file,
                       uint32_t line) {
  regions[nregions] = (struct region){strdup(name), group, file, role, p, line};
  return nregions++;
}

struct location {
  uint64_t id;
  char name[64];
  uint32_t group;
  uint64_t events;
  OTF2_EvtWriter *w;
};
static struct location locs[64];
static uint32_t nlocs;

static OTF2_Archive *archive;
static uint64_t t_min = UINT64_MAX, t_max;

static struct location *location(uint64_t id, const char *name, uint32_t group) {
  struct location *l = &locs[nlocs++];
  l->id = id;
  snprintf(l->name, sizeof l->name, "%s", name);
  l->group = group;
  l->w = OTF2_Archive_GetEvtWriter(archive, id);
  if (!l->w) check(OTF2_ERROR_INVALID, "GetEvtWriter");
  return l;
}
static void seen(struct location *l, uint64_t t) {
  l->events++;
  if (t < t_min) t_min = t;
  if (t > t_max) t_max = t;
}
static void enter(struct location *l, uint64_t t, uint32_t r) {
  seen(l, t);
  check(OTF2_EvtWriter_Enter(l->w, NULL, t, r), "Enter");
}
static void leave(struct location *l, uint64_t t, uint32_t r) {
  seen(l, t);
  check(OTF2_EvtWriter_Leave(l->w, NULL, t, r), "Leave");
}

/* The run scenario's definitions beyond regions. */
enum { COMM_WORLD = 0, COMM_TEAM = 1 };
enum { GROUP_LOCS = 0, GROUP_OMP_LOCS = 1, GROUP_WORLD = 2, GROUP_TEAM = 3 };
static uint32_t attr_param_n = 0;

static uint32_t R_MAIN, R_ITER[3], R_SOLVE, R_SOLVE_N[3], R_SEND, R_RECV, R_ISEND, R_IRECV, R_WAIT, R_ALLRED, R_BCAST,
    R_PAR, R_TASK_A, R_TASK_CREATE, R_TASKWAIT, R_BARRIER, R_KERNEL;

static void run_scenario(void) {
  R_MAIN = region("main", "TAU_DEFAULT", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER, "app.c", 40);
  char name[128];
  for (int i = 0; i < 3; i++) {
    snprintf(name, sizeof name, "Iteration %d", i);
    R_ITER[i] = region(name, "TAU_PHASE", OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_USER, "app.c", 50);
  }
  R_SOLVE = region("solve", "TAU_USER", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER, "app.c", 20);
  for (int i = 0; i < 3; i++) {
    snprintf(name, sizeof name, "solve  [ <n> = <%d> ]  ", 512 << i);
    R_SOLVE_N[i] = region(name, "TAU_PARAM | TAU_USER", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER, "app.c", 20);
  }
  R_SEND = region("MPI_Send()", "MPI", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI, "", 0);
  R_RECV = region("MPI_Recv()", "MPI", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI, "", 0);
  R_ISEND = region("MPI_Isend()", "MPI", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI, "", 0);
  R_IRECV = region("MPI_Irecv()", "MPI", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI, "", 0);
  R_WAIT = region("MPI_Wait()", "MPI", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI, "", 0);
  R_ALLRED = region("MPI_Allreduce()", "MPI", OTF2_REGION_ROLE_COLL_ALL2ALL, OTF2_PARADIGM_MPI, "", 0);
  R_BCAST = region("MPI_Bcast()", "MPI", OTF2_REGION_ROLE_COLL_ONE2ALL, OTF2_PARADIGM_MPI, "", 0);
  R_PAR = region("OpenMP_Parallel_Region main [{app.c} {70, 0}]", "OpenMP", OTF2_REGION_ROLE_PARALLEL,
                 OTF2_PARADIGM_OPENMP, "app.c", 70);
  R_TASK_A = region("OpenMP_Task work [{app.c} {74, 0}]", "OpenMP", OTF2_REGION_ROLE_TASK, OTF2_PARADIGM_OPENMP,
                    "app.c", 74);
  R_TASK_CREATE = region("OpenMP_Task_Create work [{app.c} {74, 0}]", "OpenMP", OTF2_REGION_ROLE_TASK_CREATE,
                         OTF2_PARADIGM_OPENMP, "app.c", 74);
  R_TASKWAIT = region("OpenMP_Sync_Region_Taskwait work [{app.c} {76, 0}]", "OpenMP", OTF2_REGION_ROLE_TASK_WAIT,
                      OTF2_PARADIGM_OPENMP, "app.c", 76);
  R_BARRIER = region("OpenMP_Sync_Region_Barrier_Implicit main [{app.c} {70, 0}]", "OpenMP",
                     OTF2_REGION_ROLE_IMPLICIT_BARRIER, OTF2_PARADIGM_OPENMP, "app.c", 70);
  /* A sampled function, as hyprof-otf2 writes one (native/otf2/hyprof_otf2.c, "samples"): group
   * TAU_SAMPLE, paradigm SAMPLING, its file and no begin line (the sampled line is the calling
   * context's source code location). */
  R_KERNEL = region("kernel", "TAU_SAMPLE", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_SAMPLING, "app.c", 0);

  struct location *rk[4];
  for (int r = 0; r < 4; r++) rk[r] = location((uint64_t)r << 16, "thread 0", r);
  struct location *omp1 = location((0ull << 16) | 1, "thread 1", 0);
  struct location *omp2 = location((0ull << 16) | 2, "thread 2", 0);

  OTF2_AttributeList *attrs = OTF2_AttributeList_New();
  /* Each rank: main, then 3 iterations of 20 ms starting at it × 20 ms + 1 ms. */
  for (int r = 0; r < 4; r++) enter(rk[r], BASE, R_MAIN);
  for (int it = 0; it < 3; it++) {
    uint64_t t0 = BASE + 1 * MS + it * 20 * MS;
    for (int r = 0; r < 4; r++) {
      struct location *l = rk[r];
      /* Iteration 2 is the slow one on every rank (solve takes 6 ms instead of 3). */
      uint64_t solve = (it == 2 ? 6 : 3) * MS + r * 100 * US;
      enter(l, t0, R_ITER[it]);
      enter(l, t0 + 10 * US, R_SOLVE);
      OTF2_AttributeValue v;
      v.int64 = 512 << it;
      OTF2_AttributeList_AddAttribute(attrs, attr_param_n, OTF2_TYPE_INT64, v);
      seen(l, t0 + 20 * US);
      check(OTF2_EvtWriter_Enter(l->w, attrs, t0 + 20 * US, R_SOLVE_N[it]), "Enter param");
      if (r == 0) {
        for (uint64_t s = t0 + 500 * US; s < t0 + 20 * US + solve; s += MS) {
          seen(l, s);
          check(OTF2_EvtWriter_CallingContextSample(l->w, NULL, s, 1, 2, 0), "CallingContextSample");
        }
      }
      leave(l, t0 + 20 * US + solve, R_SOLVE_N[it]);
      leave(l, t0 + 30 * US + solve, R_SOLVE);
    }
    /* Point to point after solve: every rank's solve ends by t0 + 6.4 ms (iteration 2: 9.4). */
    uint64_t p = t0 + (it == 2 ? 10 : 7) * MS;
    /* rank 1 receives from 0 at p; rank 0 enters its send at p - 100 µs, or LATE_NS after p. */
    uint64_t send_at = it == 1 ? p + LATE_NS : p - 100 * US;
    uint64_t recv_done = (send_at > p ? send_at : p) + 50 * US;
    enter(rk[0], send_at, R_SEND);
    seen(rk[0], send_at + 5 * US);
    check(OTF2_EvtWriter_MpiSend(rk[0]->w, NULL, send_at + 5 * US, 1, COMM_WORLD, 7, 4096), "MpiSend");
    leave(rk[0], send_at + 20 * US, R_SEND);
    enter(rk[1], p, R_RECV);
    seen(rk[1], recv_done - 5 * US);
    check(OTF2_EvtWriter_MpiRecv(rk[1]->w, NULL, recv_done - 5 * US, 0, COMM_WORLD, 7, 4096), "MpiRecv");
    leave(rk[1], recv_done, R_RECV);
    /* rank 2 sends 1 MiB to 3 at p (blocks until the receive starts); rank 3 receives LATE_RECV_NS later. */
    uint64_t r3 = p + LATE_RECV_NS;
    enter(rk[2], p, R_SEND);
    seen(rk[2], p + 5 * US);
    check(OTF2_EvtWriter_MpiSend(rk[2]->w, NULL, p + 5 * US, 3, COMM_WORLD, 9, 1 << 20), "MpiSend");
    leave(rk[2], r3 + 300 * US, R_SEND);
    enter(rk[3], r3, R_RECV);
    seen(rk[3], r3 + 290 * US);
    check(OTF2_EvtWriter_MpiRecv(rk[3]->w, NULL, r3 + 290 * US, 2, COMM_WORLD, 9, 1 << 20), "MpiRecv");
    leave(rk[3], r3 + 300 * US, R_RECV);
    /* rank 1 → 2 non-blocking, after the above: Isend at q, Irecv at q, Wait. */
    uint64_t q = p + 3 * MS;
    uint64_t req = 100 + it;
    enter(rk[1], q, R_ISEND);
    seen(rk[1], q + 2 * US);
    check(OTF2_EvtWriter_MpiIsend(rk[1]->w, NULL, q + 2 * US, 2, COMM_WORLD, 11, 256, req), "MpiIsend");
    leave(rk[1], q + 5 * US, R_ISEND);
    enter(rk[1], q + 10 * US, R_WAIT);
    seen(rk[1], q + 15 * US);
    check(OTF2_EvtWriter_MpiIsendComplete(rk[1]->w, NULL, q + 15 * US, req), "MpiIsendComplete");
    leave(rk[1], q + 20 * US, R_WAIT);
    enter(rk[2], q, R_IRECV);
    seen(rk[2], q + 2 * US);
    check(OTF2_EvtWriter_MpiIrecvRequest(rk[2]->w, NULL, q + 2 * US, req + 50), "MpiIrecvRequest");
    leave(rk[2], q + 5 * US, R_IRECV);
    enter(rk[2], q + 10 * US, R_WAIT);
    seen(rk[2], q + 25 * US);
    check(OTF2_EvtWriter_MpiIrecv(rk[2]->w, NULL, q + 25 * US, 1, COMM_WORLD, 11, 256, req + 50), "MpiIrecv");
    leave(rk[2], q + 30 * US, R_WAIT);
    /* Allreduce at a = q + 1 ms: rank r enters at a + r × step; all leave at the last enter + 100 µs. */
    uint64_t a = q + 1 * MS, a_end = a + 3 * ALLRED_STEP_NS + 100 * US;
    for (int r = 0; r < 4; r++) {
      enter(rk[r], a + r * ALLRED_STEP_NS, R_ALLRED);
      seen(rk[r], a + r * ALLRED_STEP_NS + 1 * US);
      check(OTF2_EvtWriter_MpiCollectiveBegin(rk[r]->w, NULL, a + r * ALLRED_STEP_NS + 1 * US), "CollBegin");
      seen(rk[r], a_end - 1 * US);
      check(OTF2_EvtWriter_MpiCollectiveEnd(rk[r]->w, NULL, a_end - 1 * US, OTF2_COLLECTIVE_OP_ALLREDUCE, COMM_WORLD,
                                            OTF2_UNDEFINED_UINT32, 8, 8),
            "CollEnd");
      leave(rk[r], a_end, R_ALLRED);
    }
    /* Bcast at b: root 0 enters BCAST_LATE_NS after the others; all leave 50 µs after the root enters. */
    uint64_t b = a_end + 500 * US;
    for (int r = 0; r < 4; r++) {
      uint64_t e = r == 0 ? b + BCAST_LATE_NS : b;
      uint64_t x = b + BCAST_LATE_NS + 50 * US;
      enter(rk[r], e, R_BCAST);
      seen(rk[r], e + 1 * US);
      check(OTF2_EvtWriter_MpiCollectiveBegin(rk[r]->w, NULL, e + 1 * US), "CollBegin");
      seen(rk[r], x - 1 * US);
      check(OTF2_EvtWriter_MpiCollectiveEnd(rk[r]->w, NULL, x - 1 * US, OTF2_COLLECTIVE_OP_BCAST, COMM_WORLD, 0,
                                            r == 0 ? 1024 : 0, r == 0 ? 0 : 1024),
            "CollEnd");
      leave(rk[r], x, R_BCAST);
    }
    /* Iterations end at 17 ms, iteration 2 at 19.5 ms: the slowest instance, by 2.5 ms. */
    uint64_t end = t0 + (it == 2 ? 19500 * US : 17 * MS);
    for (int r = 0; r < 4; r++) leave(rk[r], end, R_ITER[it]);
  }
  /*
   * Rank 0's OpenMP part at o: a team of 3. Thread 0 creates tasks 1..4 (50 µs apart) and then waits
   * in the implicit barrier; task 1 runs on thread 1 for 400 µs, is suspended (switch to task 2) for
   * 1 ms, and resumes on thread 2; tasks 2..4 run whole. Task k's pieces are Enter/Leave of the task
   * region between ThreadTaskSwitch (to it) and the next switch or ThreadTaskComplete.
   */
  uint64_t o = BASE + 62 * MS;
  struct location *team[3] = {rk[0], omp1, omp2};
  enter(rk[0], o, R_PAR);
  seen(rk[0], o);
  check(OTF2_EvtWriter_ThreadFork(rk[0]->w, NULL, o, OTF2_PARADIGM_OPENMP, 3), "ThreadFork");
  for (int t = 0; t < 3; t++) {
    seen(team[t], o + 1 * US);
    check(OTF2_EvtWriter_ThreadTeamBegin(team[t]->w, NULL, o + 1 * US, COMM_TEAM), "TeamBegin");
    if (t) enter(team[t], o + 2 * US, R_PAR);
  }
  for (uint32_t k = 1; k <= 4; k++) {
    uint64_t c = o + 10 * US + (k - 1) * 50 * US;
    enter(rk[0], c, R_TASK_CREATE);
    seen(rk[0], c + 5 * US);
    check(OTF2_EvtWriter_ThreadTaskCreate(rk[0]->w, NULL, c + 5 * US, COMM_TEAM, 0, k), "TaskCreate");
    leave(rk[0], c + 10 * US, R_TASK_CREATE);
  }
  uint64_t tb = o + 300 * US;
#define SWITCH(loc, t, k) (seen(loc, t), check(OTF2_EvtWriter_ThreadTaskSwitch((loc)->w, NULL, t, COMM_TEAM, 0, k), "Switch"))
#define COMPLETE(loc, t, k) \
  (seen(loc, t), check(OTF2_EvtWriter_ThreadTaskComplete((loc)->w, NULL, t, COMM_TEAM, 0, k), "Complete"))
  /* thread 1: task 1 piece [100, 500) µs, then task 2 [510, 900), task 3 [910, 1300). */
  SWITCH(omp1, o + 100 * US, 1);
  enter(omp1, o + 100 * US, R_TASK_A);
  leave(omp1, o + 500 * US, R_TASK_A);
  SWITCH(omp1, o + 510 * US, 2);
  enter(omp1, o + 510 * US, R_TASK_A);
  leave(omp1, o + 900 * US, R_TASK_A);
  COMPLETE(omp1, o + 900 * US, 2);
  SWITCH(omp1, o + 910 * US, 3);
  enter(omp1, o + 910 * US, R_TASK_A);
  leave(omp1, o + 1300 * US, R_TASK_A);
  COMPLETE(omp1, o + 1300 * US, 3);
  /* thread 2: task 4 [200, 600), then task 1 resumed [1500, 1800) (suspended 1 ms). */
  SWITCH(omp2, o + 200 * US, 4);
  enter(omp2, o + 200 * US, R_TASK_A);
  leave(omp2, o + 600 * US, R_TASK_A);
  COMPLETE(omp2, o + 600 * US, 4);
  SWITCH(omp2, o + 1500 * US, 1);
  enter(omp2, o + 1500 * US, R_TASK_A);
  leave(omp2, o + 1800 * US, R_TASK_A);
  COMPLETE(omp2, o + 1800 * US, 1);
  uint64_t oe = o + 2 * MS;
  for (int t = 0; t < 3; t++) {
    uint64_t bs = t == 0 ? tb : t == 1 ? o + 1300 * US : o + 1800 * US;
    enter(team[t], bs, R_BARRIER);
    leave(team[t], oe - 10 * US, R_BARRIER);
    if (t) leave(team[t], oe - 5 * US, R_PAR);
    seen(team[t], oe - 2 * US);
    check(OTF2_EvtWriter_ThreadTeamEnd(team[t]->w, NULL, oe - 2 * US, COMM_TEAM), "TeamEnd");
  }
  seen(rk[0], oe);
  check(OTF2_EvtWriter_ThreadJoin(rk[0]->w, NULL, oe, OTF2_PARADIGM_OPENMP), "ThreadJoin");
  leave(rk[0], oe, R_PAR);
  for (int r = 0; r < 4; r++) leave(rk[r], BASE + 65 * MS, R_MAIN);
  OTF2_AttributeList_Delete(attrs);
}

/* Archives the OTF2 library writes without complaint but whose events do not fit together. */
static void misnested_scenario(void) {
  uint32_t ra = region("a", "TAU_USER", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER, "bad.c", 1);
  uint32_t rb = region("b", "TAU_USER", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER, "bad.c", 2);
  struct location *l = location(0, "thread 0", 0);
  enter(l, BASE, ra);
  enter(l, BASE + 10, rb);
  leave(l, BASE + 20, ra);
  leave(l, BASE + 30, rb);
}

/* A run cut short (SIGKILL): regions left open at the end of the location, losses recorded. */
static int cut;
static void cut_scenario(void) {
  uint32_t ra = region("main", "TAU_DEFAULT", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER, "cut.c", 1);
  uint32_t rb = region("work", "TAU_USER", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER, "cut.c", 2);
  struct location *l = location(0, "thread 0", 0);
  enter(l, BASE, ra);
  enter(l, BASE + 10, rb);
  leave(l, BASE + 20, rb);
  enter(l, BASE + 30, rb);
  cut = 1;
}

/* The big scenario: 4 ranks × 2 threads, each a sequence of nested regions (depth 1..4). */
static void big_scenario(uint64_t n) {
  uint32_t top = region("main", "TAU_DEFAULT", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER, "big.c", 1);
  uint32_t rs[8];
  char name[64];
  for (int i = 0; i < 6; i++) {
    snprintf(name, sizeof name, "work_%d", i);
    rs[i] = region(name, "TAU_USER", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER, "big.c", 10 + i);
  }
  rs[6] = region("MPI_Send()", "MPI", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI, "", 0);
  rs[7] = region("MPI_Recv()", "MPI", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI, "", 0);
  struct location *ls[8];
  for (int r = 0; r < 4; r++)
    for (int t = 0; t < 2; t++) {
      snprintf(name, sizeof name, "thread %d", t);
      ls[r * 2 + t] = location(((uint64_t)r << 16) | t, name, r);
    }
  uint64_t per = n / 8;
  /* Each "unit" is a pair of nested regions plus, on thread 0, every 64th unit a message: 4..8 events. */
  uint64_t units = per / 4;
  uint64_t seed = 12345;
  for (int li = 0; li < 8; li++) {
    struct location *l = ls[li];
    uint64_t t = BASE;
    enter(l, t, top);
    for (uint64_t u = 0; u < units; u++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      uint32_t a = (seed >> 33) % 6, b = (seed >> 40) % 6;
      uint64_t d = 200 + ((seed >> 20) % 2000);
      enter(l, t += 50, rs[a]);
      enter(l, t += d, rs[b]);
      leave(l, t += d / 2, rs[b]);
      leave(l, t += 30, rs[a]);
      if (li % 2 == 0 && u % 64 == 63) {
        /* rank r's thread 0 sends to rank r^1 (same step on both: the same seed sequence). */
        int r = li / 2;
        uint32_t peer = r ^ 1;
        if (r % 2 == 0) {
          enter(l, t += 10, rs[6]);
          seen(l, t + 1);
          check(OTF2_EvtWriter_MpiSend(l->w, NULL, t + 1, peer, COMM_WORLD, 1, 64), "MpiSend");
          leave(l, t += 5, rs[6]);
        } else {
          enter(l, t += 10, rs[7]);
          seen(l, t + 4);
          check(OTF2_EvtWriter_MpiRecv(l->w, NULL, t + 4, peer, COMM_WORLD, 1, 64), "MpiRecv");
          leave(l, t += 5, rs[7]);
        }
      }
    }
    leave(l, t + 10, top);
  }
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: otf2_gen DIR run | misnested | cut | big N\n");
    return 2;
  }
  archive = OTF2_Archive_Open(argv[1], "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                              OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (!archive) check(OTF2_ERROR_INVALID, "OTF2_Archive_Open");
  check(OTF2_Archive_SetFlushCallbacks(archive, &flush_callbacks, NULL), "SetFlushCallbacks");
  check(OTF2_Archive_SetSerialCollectiveCallbacks(archive), "SetSerialCollectiveCallbacks");
  check(OTF2_Archive_OpenEvtFiles(archive), "OpenEvtFiles");
  int big = strcmp(argv[2], "big") == 0;
  if (big) big_scenario(argc > 3 ? strtoull(argv[3], NULL, 10) : 10000000ull);
  else if (strcmp(argv[2], "cut") == 0) {
    cut_scenario();
    big = 1;
  } else if (strcmp(argv[2], "misnested") == 0) {
    misnested_scenario();
    big = 1; /* the definitions of the big scenario's kind: ranks and MPI_COMM_WORLD only */
  } else run_scenario();
  for (uint32_t i = 0; i < nlocs; i++) check(OTF2_Archive_CloseEvtWriter(archive, locs[i].w), "CloseEvtWriter");
  check(OTF2_Archive_CloseEvtFiles(archive), "CloseEvtFiles");
  /* Local definition files (empty: every definition is global), as OTF2's readers expect one per location. */
  check(OTF2_Archive_OpenDefFiles(archive), "OpenDefFiles");
  for (uint32_t i = 0; i < nlocs; i++) {
    OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(archive, locs[i].id);
    check(OTF2_Archive_CloseDefWriter(archive, dw), "CloseDefWriter");
  }
  check(OTF2_Archive_CloseDefFiles(archive), "CloseDefFiles");

  OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(archive);
  check(OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000ull, t_min, t_max - t_min, OTF2_UNDEFINED_TIMESTAMP),
        "ClockProperties");
  /* Strings first (every name used below goes through str() before the loop writes them). */
  uint32_t s_node = str("hostA"), s_nodeclass = str("node"), s_empty = str("");
  uint32_t s_rank[4];
  char name[64];
  for (int r = 0; r < 4; r++) {
    snprintf(name, sizeof name, "rank %d", r);
    s_rank[r] = str(name);
  }
  uint32_t s_loc[64];
  for (uint32_t i = 0; i < nlocs; i++) s_loc[i] = str(locs[i].name);
  uint32_t s_reg[256][4];
  for (uint32_t i = 0; i < nregions; i++) {
    s_reg[i][0] = str(regions[i].name);
    s_reg[i][1] = str(regions[i].group);
    s_reg[i][2] = str(regions[i].file);
  }
  uint32_t s_world = str("MPI_COMM_WORLD"), s_team = str("OpenMP team"), s_param = str("param:n");
  uint32_t s_locs = str("locations"), s_sampler = str("sampling: itimer-wall"), s_scl = str("app.c");
  uint32_t s_lost = str("hyprof:lost_events"), s_lost_reason = str("hyprof:lost_reason"), s_reason = str("disk full");
  for (uint32_t i = 0; i < nstrings; i++) check(OTF2_GlobalDefWriter_WriteString(g, i, strings[i]), "String");
  (void)s_empty;
  check(OTF2_GlobalDefWriter_WriteAttribute(g, attr_param_n, s_param, s_empty, OTF2_TYPE_INT64), "Attribute");
  check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, s_node, s_nodeclass, OTF2_UNDEFINED_SYSTEM_TREE_NODE), "Node");
  for (int r = 0; r < 4; r++)
    check(OTF2_GlobalDefWriter_WriteLocationGroup(g, r, s_rank[r], OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                  OTF2_UNDEFINED_LOCATION_GROUP),
          "LocationGroup");
  for (uint32_t i = 0; i < nlocs; i++)
    check(OTF2_GlobalDefWriter_WriteLocation(g, locs[i].id, s_loc[i], OTF2_LOCATION_TYPE_CPU_THREAD, locs[i].events,
                                             locs[i].group),
          "Location");
  for (uint32_t i = 0; i < nregions; i++)
    check(OTF2_GlobalDefWriter_WriteRegion(g, i, s_reg[i][0], s_reg[i][0], s_reg[i][1], regions[i].role,
                                           regions[i].paradigm, OTF2_REGION_FLAG_NONE, s_reg[i][2], regions[i].line,
                                           0),
          "Region");
  /* The ranks' locations first (the COMM_LOCATIONS group precedes the groups of ranks, as OTF2 wants). */
  check(OTF2_GlobalDefWriter_WriteGroup(g, GROUP_LOCS, s_locs, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, 4, (uint64_t[]){0, 1 << 16, 2 << 16, 3 << 16}),
        "Group locations");
  if (!big)
    check(OTF2_GlobalDefWriter_WriteGroup(g, GROUP_OMP_LOCS, s_locs, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                          OTF2_PARADIGM_OPENMP, OTF2_GROUP_FLAG_NONE, 3, (uint64_t[]){0, 1, 2}),
          "Group OpenMP locations");
  uint64_t world[4] = {0, 1, 2, 3};
  check(OTF2_GlobalDefWriter_WriteGroup(g, GROUP_WORLD, s_world, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, 4, world),
        "Group");
  check(OTF2_GlobalDefWriter_WriteComm(g, COMM_WORLD, s_world, GROUP_WORLD, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE),
        "Comm");
  if (!big) {
    uint64_t team[3] = {0, 1, 2};
    check(OTF2_GlobalDefWriter_WriteGroup(g, GROUP_TEAM, s_team, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_OPENMP,
                                          OTF2_GROUP_FLAG_NONE, 3, team),
          "Group team");
    check(OTF2_GlobalDefWriter_WriteComm(g, COMM_TEAM, s_team, GROUP_TEAM, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE),
          "Comm team");
    /* Samples: context 1 = kernel (app.c:12) called from context 0 = solve (app.c:22), its root. */
    check(OTF2_GlobalDefWriter_WriteSourceCodeLocation(g, 0, s_scl, 22), "SCL");
    check(OTF2_GlobalDefWriter_WriteSourceCodeLocation(g, 1, s_scl, 12), "SCL");
    check(OTF2_GlobalDefWriter_WriteCallingContext(g, 0, R_SOLVE, 0, OTF2_UNDEFINED_CALLING_CONTEXT), "CC");
    check(OTF2_GlobalDefWriter_WriteCallingContext(g, 1, R_KERNEL, 1, 0), "CC");
    check(OTF2_GlobalDefWriter_WriteInterruptGenerator(g, 0, s_sampler, OTF2_INTERRUPT_GENERATOR_MODE_TIME,
                                                       OTF2_BASE_DECIMAL, -9, 1000000),
          "InterruptGenerator");
  }
  if (cut) {
    OTF2_AttributeValue v;
    v.uint64 = 123;
    check(OTF2_GlobalDefWriter_WriteLocationProperty(g, 0, s_lost, OTF2_TYPE_UINT64, v), "LocationProperty");
    v.stringRef = s_reason;
    check(OTF2_GlobalDefWriter_WriteLocationProperty(g, 0, s_lost_reason, OTF2_TYPE_STRING, v), "LocationProperty");
  }
  check(OTF2_Archive_CloseGlobalDefWriter(archive, g), "CloseGlobalDefWriter");
  check(OTF2_Archive_Close(archive), "Archive_Close");
  return 0;
}
