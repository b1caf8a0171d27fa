/* The OpenMP tool's entry: ompt_start_tool (found by the OpenMP runtime in libhyprof when it is
 * linked, preloaded, or put in place by `hyprof run`), initialisation at the level chosen by
 * HYPROF_OPENMP / TAU_OMPT_SUPPORT_LEVEL, the per-thread tool state, and the module table through
 * which the core reaches the tool (fork child, the OMPT section). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/config.h"
#include "../core/meta.h"
#include "../core/objects.h"
#include "../core/module.h"
#include "../core/runtime.h"
#include "ompt_int.h"

int hp_omp_level = HP_OMP_OFF;
int hp_omp_active;
int hp_omp_finalized;
ompt_get_state_t hp_omp_get_state;
ompt_get_task_info_t hp_omp_get_task_info;
uintptr_t hp_omp_rt_lo, hp_omp_rt_hi;
volatile uint32_t hp_omp_max_team = 1;
volatile uint32_t hp_omp_in_use = 1; /* the initial thread */
char hp_omp_runtime[128];
hp_omp_flag hp_omp_flags[HP_OMP_MAX_THREADS];

/* initial-exec: one instruction to read, so the sample hook can use it in the signal handler. */
__thread hp_omp_thread *hp_omp_tls __attribute__((tls_model("initial-exec")));
static hp_omp_thread *omp_threads;
uint32_t hp_omp_nflags;

hp_omp_thread *hp_omp_current(void) { return hp_omp_tls; }
hp_omp_thread *hp_omp_thread_list(void) { return __atomic_load_n(&omp_threads, __ATOMIC_ACQUIRE); }

hp_omp_thread *hp_omp_self_create(void) {
  hp_omp_thread *o = hp_omp_tls;
  if (o) return o;
  hp_thread *t = hp_thread_self();
  if (!t) return NULL;
  o = calloc(1, sizeof *o);
  if (!o) return NULL;
  o->t = t;
  o->last_work = -1;
  for (int i = 0; i < HP_OMP_REGIONS; i++) o->regions[i].event = UINT32_MAX;
  for (int i = 0; i < HP_OMP_TASKS; i++) o->tasks[i].event = UINT32_MAX;
  o->index = __atomic_fetch_add(&hp_omp_nflags, 1, __ATOMIC_RELAXED);
  o->working = o->index < HP_OMP_MAX_THREADS ? &hp_omp_flags[o->index].working : &o->working_spare;
  if (o->index < HP_OMP_MAX_THREADS) {
    hp_omp_flags[o->index].working = 1;
    __atomic_store_n(&hp_omp_flags[o->index].used, 1, __ATOMIC_RELEASE);
  }
  hp_omp_thread *head = __atomic_load_n(&omp_threads, __ATOMIC_RELAXED);
  do o->next = head;
  while (!__atomic_compare_exchange_n(&omp_threads, &head, o, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
  hp_omp_tls = o;
  return o;
}

#ifndef HYPROF_ADDON
static const char *const level_names[] = {"off", "basic", "full", NULL};

static void on_thread_begin(ompt_thread_t type, ompt_data_t *thread_data) {
  hp_omp_thread *o = hp_omp_self();
  if (!o) return;
  o->kind = type;
  thread_data->ptr = o;
  /* A worker starts in the pool: idle until its first implicit task. */
  if (type == ompt_thread_worker) hp_omp_set_working(o, 0);
}

static void on_thread_end(ompt_data_t *thread_data) {
  hp_omp_thread *o = hp_omp_current();
  if (o) hp_omp_set_working(o, 0);
  if (o && o->index < HP_OMP_MAX_THREADS) __atomic_store_n(&hp_omp_flags[o->index].used, 0, __ATOMIC_RELEASE);
}

/* Set when the OpenMP runtime called initialize: from then on a forked child resets the tool. */
static int runtime_initialised;

/* A forked child keeps the construct table (same addresses) but none of the parent's per-thread
 * measurements; only the forking thread exists in it. The module's fork_child (the core calls it
 * after resetting its own thread state). */
static void fork_child(hp_thread *t) {
  (void)t;
  if (!runtime_initialised) return;
  hp_omp_thread *self = hp_omp_tls;
  __atomic_store_n(&omp_threads, self, __ATOMIC_RELAXED);
  for (uint32_t i = 0; i < HP_OMP_MAX_THREADS; i++) hp_omp_flags[i].used = 0;
  __atomic_store_n(&hp_omp_in_use, 1, __ATOMIC_RELAXED);
  if (!self) return;
  self->next = NULL;
  memset(self->blame, 0, sizeof self->blame);
  memset(self->cache, 0, sizeof self->cache); /* it points at task statistics, cleared below */
  for (int i = 0; i < HP_OMP_REGIONS; i++) self->regions[i] = (hp_omp_region){.event = UINT32_MAX};
  for (int i = 0; i < HP_OMP_TASKS; i++) self->tasks[i] = (hp_omp_taskstat){.event = UINT32_MAX};
  memset(self->releases, 0, sizeof self->releases);
  self->dispatch_ns = self->dispatch_count = self->starve_ns = 0;
  self->blame_full = self->table_full = 0;
  if (self->index < HP_OMP_MAX_THREADS) hp_omp_flags[self->index].used = 1;
}

/* The executable segments of the object holding `addr` (the runtime: its lookup function). */
static int runtime_code_cb(struct dl_phdr_info *info, size_t size, void *data) {
  uintptr_t lo, hi;
  if (!hp_object_holds(info, *(uintptr_t *)data)) return 0;
  /* linked into the program itself: its code is the program's too, so no frame is told apart by
   * address (OMPT's frame addresses still are) */
  if (!info->dlpi_name || !info->dlpi_name[0] || !hp_object_code(info, &lo, &hi)) return 1;
  hp_omp_rt_lo = lo;
  hp_omp_rt_hi = hi;
  return 1;
}

/* HYPROF_OPENMP_SUBSTITUTED is given to every rank of `hyprof run -- mpirun ...` and of
 * bin/hyprof-exec with a directory holding only `libgomp.so.1 -> libomp.so.5` first on
 * LD_LIBRARY_PATH (src/analysis/openmp-runtime.ts): the substitution took place only where the
 * runtime that starts this tool (which libgomp never does) was loaded under libgomp's name. */
static int loaded_as_libgomp(void *in_runtime) {
  Dl_info info;
  if (!dladdr(in_runtime, &info) || !info.dli_fname) return 0;
  const char *base = strrchr(info.dli_fname, '/');
  base = base ? base + 1 : info.dli_fname;
  return strncmp(base, "libgomp.so", 10) == 0;
}

static int initialize(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t *tool_data) {
  if (!hp_init()) return 0;
  runtime_initialised = 1;
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  hp_omp_get_state = (ompt_get_state_t)lookup("ompt_get_state");
  hp_omp_get_task_info = (ompt_get_task_info_t)lookup("ompt_get_task_info");
  if (!set) return 0;
  set(ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin);
  set(ompt_callback_thread_end, (ompt_callback_t)on_thread_end);
  hp_omp_register_basic(set);
  if (hp_omp_level >= HP_OMP_FULL) {
    hp_omp_register_full(set);
    hp_omp_register_tasks(set);
  }
  hp_omp_self(); /* the initial thread */
  __atomic_store_n(&hp_omp_active, 1, __ATOMIC_RELEASE);

  /* The runtime may have started before OpenMP (a probe first): a flush may run meanwhile. */
  hp_meta_add_live("OpenMP Tool", level_names[hp_omp_level]);
  hp_meta_add_live("OpenMP Runtime", hp_omp_runtime);
  const char *subst = getenv("HYPROF_OPENMP_SUBSTITUTED");
  if (subst && *subst && loaded_as_libgomp((void *)lookup)) hp_meta_add_live("OpenMP Runtime Substituted", subst);
  return 1; /* keep the tool */
}

static void finalize(ompt_data_t *tool_data) {
  /* Statistics stay in place: the dump at exit writes them. The runtime is shut down: ompt_get_state
   * may no longer be called, so samples from now on carry no OpenMP state (the hook still names the
   * runtime's frames of its shutdown by their addresses). */
  __atomic_store_n(&hp_omp_finalized, 1, __ATOMIC_RELEASE);
}

/* How the OpenMP runtime was told to choose a tool, read at start: when no runtime started this one,
 * `hyprof resolve` says why only when one of these explains it (a program that exits before its
 * first OpenMP construct never starts the runtime at all). */
static char omp_tool_env[64], omp_tool_libraries_env[512];
/* `hyprof run` or bin/hyprof-exec offered LLVM's libomp in libgomp's place: a process that still
 * loaded libgomp is then not told to run under them (src/analysis/openmp.ts). */
static int substitution_offered;

/* Name the runtime's frames in samples from its code's addresses (stitch.c): from the start when the
 * program is linked with an LLVM / Intel OpenMP runtime (its initialisation, before it starts the
 * tool, is then named too), else once it starts the tool. */
static void find_runtime_code(const void *in_runtime) {
  if (hp_omp_rt_hi || !in_runtime) return;
  uintptr_t a = (uintptr_t)in_runtime;
  dl_iterate_phdr(runtime_code_cb, &a);
  hp_omp_stitch_init(in_runtime);
  hp_omp_note_runtime();
  /* published after the tables it reads (handlers on other threads may run it at once) */
  __atomic_store_n(&hp_sample_state_hook, &hp_omp_sample_hook, __ATOMIC_RELEASE);
}

static void process_start(void) {
  hp_omp_level = hp_env_choice("HYPROF_OPENMP", "TAU_OMPT_SUPPORT_LEVEL", level_names, HP_OMP_BASIC);
  if (hp_omp_level != HP_OMP_OFF) find_runtime_code(dlsym(RTLD_DEFAULT, "__kmpc_fork_call"));
  const char *v = getenv("OMP_TOOL");
  if (v) snprintf(omp_tool_env, sizeof omp_tool_env, "%s", v);
  v = getenv("OMP_TOOL_LIBRARIES");
  if (v) snprintf(omp_tool_libraries_env, sizeof omp_tool_libraries_env, "%s", v);
  v = getenv("HYPROF_OPENMP_SUBSTITUTED");
  substitution_offered = v && *v;
}

/* Async-signal-safe: hp_meta_add only. */
static void add_metadata(void) {
  if (__atomic_load_n(&hp_omp_active, __ATOMIC_ACQUIRE)) return;
  if (omp_tool_env[0]) hp_meta_add("OMP_TOOL", omp_tool_env);
  if (omp_tool_libraries_env[0]) hp_meta_add("OMP_TOOL_LIBRARIES", omp_tool_libraries_env);
  if (substitution_offered) hp_meta_add("OpenMP Substitution Offered", "yes");
}
HP_EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version) {
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  if (!hp_init()) return NULL;
  if (hp_omp_level == HP_OMP_OFF) {
    hp_meta_add_live("OpenMP Tool", "off");
    return NULL;
  }
  snprintf(hp_omp_runtime, sizeof hp_omp_runtime, "%s (OpenMP %u)", runtime_version ? runtime_version : "unknown",
           omp_version);
  /* The runtime's code (we are called from inside it, while it initialises): from now on samples in
   * its frames are named, its own initialisation included (stitch.c). */
  find_runtime_code(__builtin_extract_return_addr(__builtin_return_address(0)));
  return &result;
}
#endif

#ifndef HYPROF_ADDON
#endif

const hp_module hp_ompt_module = {
  .name = "OpenMP tool",
  .thread_slot = HP_NO_SLOT, /* its per-thread state is found through its own TLS (hp_omp_tls) */
#ifndef HYPROF_ADDON
  .process_start = process_start,
  .fork_child = fork_child,
  .add_metadata = add_metadata,
#endif
  .write_sections = hp_ompt_write_sections,
};
