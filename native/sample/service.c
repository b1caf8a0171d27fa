/* Runtime service threads: threads that a communication runtime starts for itself (Open MPI's
 * progress thread in libopen-pal, PMIx's in libpmix, UCX's in libucs, ...) and that spend their life
 * blocked in poll / epoll_wait. Sampled by the wall clock like the program's threads, each takes a
 * sample every period while it waits: the samples say nothing about the program, fill the profile
 * with `__poll`, and cost the job CPU time in proportion to its wall time. So by default such a
 * thread gets a timer on its own CPU clock (HYPROF_SERVICE_THREADS=cpu): a thread blocked in poll
 * gets almost no samples, one that really works still gets them. `wall` keeps the wall clock, `off`
 * does not sample them at all.
 *
 * The rule: a thread is a service thread when the start routine it was created with
 * (hp_tls_start_routine, set by the core's pthread_create) lies in a runtime library named in
 * runtime_libs below: the MPI libraries, their launch / process-management layers, their event and
 * transport libraries. Nothing else is: not the program's own objects or libraries, not libstdc++
 * (every std::thread starts there), not OpenMP runtimes (libomp, libgomp) or TBB, whose workers do
 * the program's work.
 *
 * Races: the decision is made on the new thread itself in its thread_start, before its timer exists,
 * so no sample can come under the other clock. The start routine's object is looked up in the
 * loaded-objects snapshot (maps.c, lock-free; refreshed just before in thread_start), never with
 * dladdr: thread_start runs under the modules' lock, and dladdr takes the loader's lock, which a
 * dlopen holds while a library constructor takes the modules' lock (libhyprof_mpi's late
 * registration): opposite orders. The object cannot be unloaded meanwhile: the thread is about to
 * run code in it; so the lookup is made even while another thread is in dlclose (Open MPI closes
 * its unselected components while its progress thread starts: test/sampling-service-dlclose.test.ts).
 *
 * What is kept for the metadata is a fixed table filled without a lock (a slot claimed with an atomic
 * add, published by a release store), so the dump, also in a signal handler, reads it safely. */
#define _GNU_SOURCE
#include <link.h>
#include <string.h>

#include "../core/config.h"
#include "../core/meta.h"
#include "../core/runtime.h"
#include "sample_int.h"

/* Prefixes of the file names of runtime libraries. */
static const char *const runtime_libs[] = {
  "libmpi",       /* Open MPI, MPICH (libmpich, libmpi_mpifh, ...) */
  "libopen-pal", "libopen-rte", "libprrte", "mca_", "libmca_",   /* Open MPI's layers, components */
  "libpmix", "libpmi",                                 /* process management */
  "libevent",                                          /* Open MPI's and PMIx's event loop */
  "libucs", "libucp", "libuct", "libucm",              /* UCX */
  "libfabric", "libpsm", "libibverbs", "librdmacm", "libmlx", "libhwloc",
};

#define KEPT 64
typedef struct {
  uint32_t thread;
  uint8_t clock;              /* HP_SERVICE_* below */
  char lib[43];
} kept_rec;
static kept_rec kept[KEPT];
static volatile uint32_t kept_ready[KEPT];
static volatile uint32_t n_service;   /* service threads seen (slots claimed, may exceed KEPT) */
static volatile int said;

enum { CLOCK_CPU = 0, CLOCK_WALL, CLOCK_NONE, CLOCK_SOURCE };

static const char *const mode_names[] = {"cpu", "wall", "off", NULL};

void hp_service_config_read(void) {
  hp_scfg.service_mode = hp_env_choice("HYPROF_SERVICE_THREADS", NULL, mode_names, HP_SERVICE_CPU);
}

static int is_runtime_lib(const char *base) {
  for (size_t i = 0; i < sizeof runtime_libs / sizeof runtime_libs[0]; i++)
    if (strncmp(base, runtime_libs[i], strlen(runtime_libs[i])) == 0) return 1;
  return 0;
}

/* The file name (no directory) of the object holding `a`, into out; 0 when not found. */
static int object_name(uintptr_t a, char *out, size_t cap) {
  int found = 0;
  hp_maps_reader_enter();
  /* also while another thread is in dlclose (maps.c, hp_maps_object_of_running) */
  const struct dl_phdr_info *info = hp_maps_object_of_running(a);
  if (info && info->dlpi_name && info->dlpi_name[0]) {
    const char *slash = strrchr(info->dlpi_name, '/');
    const char *base = slash ? slash + 1 : info->dlpi_name;
    size_t n = strlen(base);
    if (n >= cap) n = cap - 1;
    memcpy(out, base, n);
    out[n] = 0;
    found = 1;
  }
  hp_maps_reader_leave();
  return found;
}

static void keep(uint32_t thread, int clock, const char *lib) {
  uint32_t i = __atomic_fetch_add(&n_service, 1, __ATOMIC_ACQ_REL);
  if (i >= KEPT) return;
  kept[i].thread = thread;
  kept[i].clock = (uint8_t)clock;
  size_t n = strnlen(lib, sizeof kept[i].lib - 1);   /* lib fits: object_name's cap is the same */
  memcpy(kept[i].lib, lib, n);
  __atomic_store_n(&kept_ready[i], 1, __ATOMIC_RELEASE);
}

static void say_once(uint32_t thread, const char *lib, int clock) {
  if (clock != CLOCK_CPU && clock != CLOCK_NONE) return;
  if (__atomic_exchange_n(&said, 1, __ATOMIC_ACQ_REL)) return;
  /* one line per job, not per rank: rank 0 or a process that is not a rank */
  if (hp_rt.rank_from_env && hp_rt.node != 0) return;
  hp_warn("thread %u starts in %s, a runtime library: runtime service threads are %s "
          "(HYPROF_SERVICE_THREADS=wall samples them like the others)",
          thread, lib, clock == CLOCK_CPU ? "sampled by their CPU time, not the wall clock" : "not sampled");
}

int hp_service_thread_clock(const hp_thread *t) {
  void *routine = hp_tls_start_routine;
  char lib[sizeof kept[0].lib];
  if (!routine || !object_name((uintptr_t)routine, lib, sizeof lib) || !is_runtime_lib(lib))
    return HP_THREAD_CLOCK_DEFAULT;
  int clock = hp_scfg.service_mode == HP_SERVICE_OFF ? CLOCK_NONE
              : hp_scfg.service_mode == HP_SERVICE_WALL ? (hp_scfg.kind == HP_SRC_ITIMER_WALL ? CLOCK_WALL : CLOCK_SOURCE)
              : hp_scfg.kind == HP_SRC_ITIMER_WALL || hp_scfg.kind == HP_SRC_ITIMER_CPU ? CLOCK_CPU
                                                                                      : CLOCK_SOURCE;
  keep(t->index, clock, lib);
  say_once(t->index, lib, clock);
  return clock == CLOCK_NONE ? HP_THREAD_CLOCK_NONE
         : clock == CLOCK_CPU ? HP_THREAD_CLOCK_CPU
                              : HP_THREAD_CLOCK_DEFAULT;
}

/* ---- metadata (in a dump, maybe in a signal handler: no stdio, no malloc) ---- */

static char *put(char *p, const char *end, const char *s) {
  while (*s && p < end) *p++ = *s++;
  return p;
}

static char *put_u32(char *p, const char *end, uint32_t v) {
  char tmp[12];
  int k = 0;
  do tmp[k++] = (char)('0' + v % 10); while ((v /= 10) && k < 11);
  while (k && p < end) *p++ = tmp[--k];
  return p;
}

void hp_service_add_metadata(void) {
  hp_meta_add("HYPROF_SERVICE_THREADS", mode_names[hp_scfg.service_mode]);
  uint32_t n = __atomic_load_n(&n_service, __ATOMIC_ACQUIRE);
  if (n == 0) return;
  static const char *const clock_names[] = {"CPU time", "wall clock", "not sampled", NULL};
  char buf[1024];
  char *p = buf, *end = buf + sizeof buf - 1;
  uint32_t shown = n < KEPT ? n : KEPT;
  for (uint32_t i = 0; i < shown; i++) {
    if (!__atomic_load_n(&kept_ready[i], __ATOMIC_ACQUIRE)) continue;
    if (p != buf) p = put(p, end, "; ");
    p = put(p, end, "thread ");
    p = put_u32(p, end, kept[i].thread);
    p = put(p, end, " (");
    p = put(p, end, kept[i].lib);
    p = put(p, end, "): ");
    p = put(p, end, kept[i].clock == CLOCK_SOURCE ? hp_scfg.source : clock_names[kept[i].clock]);
  }
  if (n > shown) {
    p = put(p, end, "; and ");
    p = put_u32(p, end, n - shown);
    p = put(p, end, " more");
  }
  *p = 0;
  hp_meta_add("hyprof service threads", buf);
  hp_meta_add("hyprof service threads rule",
              "start routine in a runtime library (libmpi*, libopen-pal, libopen-rte, libprrte, mca_*, libmca_*, libpmix, "
              "libpmi*, libevent*, UCX, libfabric, libpsm*, libibverbs, librdmacm, libmlx*, libhwloc)");
}
