/* OpenMP constructs as events: one event per (construct kind, code address), with a provisional name
 * `<TAU prefix> @0x<address>` that the resolver replaces with TAU's
 * `<prefix> <function> [{<file>} {<line>, 0}]` once the address is symbolized (the OMPT section lists
 * event -> address). A per-thread cache spares the registry lock on every construct instance.
 * Also the per-thread frame stack of the tool, the per-thread region / task tables, and the code
 * addresses constructs are named by (never one inside the runtime: it would differ from run to run). */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <libunwind.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "../core/clock.h"
#include "../core/events.h"
#include "../core/objects.h"
#include "../core/stack.h"
#include "ompt_int.h"

static const char *const kind_prefix[HP_OMP_NKINDS] = {
    "OpenMP_Parallel_Region", "OpenMP_Work_Loop", "OpenMP_Work_Sections", "OpenMP_Work_Single_Executor",
    "OpenMP_Work_Single_Other", "OpenMP_Work_Workshare", "OpenMP_Work_Distribute", "OpenMP_Work_Taskloop",
    "OpenMP_Masked", "OpenMP_Sync_Region_Barrier_Implicit", "OpenMP_Sync_Region_Barrier_Explicit",
    "OpenMP_Sync_Region_Barrier_Implementation", "OpenMP_Sync_Region_Taskwait", "OpenMP_Sync_Region_Taskgroup",
    "OpenMP_Sync_Region_Reduction", "OpenMP_Task", "OpenMP_Mutex_Wait_Lock", "OpenMP_Mutex_Wait_Critical",
    "OpenMP_Mutex_Wait_Ordered", "OpenMP_Mutex_Wait_Nest_Lock", "OpenMP_Critical", "OpenMP_Lock_Held",
    "OpenMP_Ordered", "OpenMP_Nest_Lock_Held",
};

/* event -> (kind, address), in fixed chunks that never move: the dump reads them without the lock. */
typedef struct cp_entry {
  uint32_t event, kind;
  uint64_t codeptr;
} cp_entry;

#define CP_CHUNK 1024
#define CP_CHUNKS 256
static cp_entry *cp_chunks[CP_CHUNKS];
static uint32_t cp_count;
static pthread_mutex_t cp_lock = PTHREAD_MUTEX_INITIALIZER;

uint32_t hp_omp_codeptr_count(void) { return __atomic_load_n(&cp_count, __ATOMIC_ACQUIRE); }

void hp_omp_codeptr_get(uint32_t i, uint32_t *event, uint32_t *kind, uint64_t *codeptr) {
  cp_entry *e = &cp_chunks[i / CP_CHUNK][i % CP_CHUNK];
  *event = e->event;
  *kind = e->kind;
  *codeptr = e->codeptr;
}

static uint32_t intern(int kind, const void *codeptr) {
  char name[128];
  snprintf(name, sizeof name, "%s @0x%lx", kind_prefix[kind], (unsigned long)(uintptr_t)codeptr);
  hp_event *e = hp_event_intern(name, "TAU_OPENMP", HP_KIND_OPENMP, 0);
  if (!e) return HP_NO_EVENT;
  pthread_mutex_lock(&cp_lock);
  /* Another thread may have listed it meanwhile: the registry gave both the same id. */
  uint32_t n = cp_count;
  int known = 0;
  for (uint32_t i = n; i-- > 0 && !known;) known = cp_chunks[i / CP_CHUNK][i % CP_CHUNK].event == e->id;
  if (!known && n / CP_CHUNK < CP_CHUNKS) {
    if (!cp_chunks[n / CP_CHUNK]) cp_chunks[n / CP_CHUNK] = calloc(CP_CHUNK, sizeof(cp_entry));
    if (cp_chunks[n / CP_CHUNK]) {
      cp_chunks[n / CP_CHUNK][n % CP_CHUNK] = (cp_entry){e->id, (uint32_t)kind, (uint64_t)(uintptr_t)codeptr};
      __atomic_store_n(&cp_count, n + 1, __ATOMIC_RELEASE);
    }
  }
  pthread_mutex_unlock(&cp_lock);
  return e->id;
}

/* ---- the program's call site when the runtime gives none of its own ----
 * gcc-built code calls libomp's GOMP_* entry points, and some of them pass no code address on (a
 * dynamic loop's start gives NULL) or their own (an address inside libomp): the event would be
 * named after the runtime, not the program. Then the stack names it: the first return address
 * outside the OpenMP runtime and hyprof is where the program called the runtime. Only such events
 * pay for the walk; the others keep their one cache probe. */

#define MAX_RANGES 8
typedef struct {
  int n;
  uintptr_t lo[MAX_RANGES], hi[MAX_RANGES];
} code_ranges;
static code_ranges own_code, libc_code;

typedef struct {
  uintptr_t base;
  code_ranges *into;
} ranges_query;

static int ranges_cb(struct dl_phdr_info *info, size_t size, void *data) {
  ranges_query *q = data;
  if (info->dlpi_addr != q->base) return 0;
  if (q->into->n < MAX_RANGES && hp_object_code(info, &q->into->lo[q->into->n], &q->into->hi[q->into->n])) q->into->n++;
  return 1;
}

/* The executable code of the object holding `addr`. */
static void ranges_of(const void *addr, code_ranges *into) {
  Dl_info di;
  if (!addr || !dladdr(addr, &di) || !di.dli_fbase) return;
  /* dlpi_addr is the load bias; dli_fbase the lowest mapped address (the same for PIC objects) */
  ranges_query q = {(uintptr_t)di.dli_fbase, into};
  dl_iterate_phdr(ranges_cb, &q);
  if (into->n == 0) {
    struct link_map *lm = NULL;
    if (dladdr1(addr, &di, (void **)&lm, RTLD_DL_LINKMAP) && lm) {
      q.base = lm->l_addr;
      dl_iterate_phdr(ranges_cb, &q);
    }
  }
}

static int in_ranges(const code_ranges *r, uintptr_t a) {
  for (int i = 0; i < r->n; i++)
    if (a >= r->lo[i] && a < r->hi[i]) return 1;
  return 0;
}

/* The runtime's own code is hp_omp_rt_lo..hi (tool.c). */
void hp_omp_note_runtime(void) {
  ranges_of((const void *)&hp_omp_note_runtime, &own_code);
  ranges_of((const void *)&abort, &libc_code); /* abort: in libc, and not interposed by hyprof */
}

/* Below this tool's own frames and the runtime's, the caller: the program, unless the walk reaches
 * the thread's start (hyprof's trampoline, libc's start_thread) first: a worker's wait at the end of
 * a region has no program code on its stack. NULL then. */
static const void *program_site(void) {
  if (!hp_omp_rt_hi) return NULL;
  void *ips[48];
  int n = unw_backtrace(ips, 48);
  int i = 1;
  while (i < n && in_ranges(&own_code, (uintptr_t)ips[i])) i++;
  while (i < n && hp_omp_in_runtime_code(ips[i])) i++;
  if (i < n && !in_ranges(&own_code, (uintptr_t)ips[i]) && !in_ranges(&libc_code, (uintptr_t)ips[i])) return ips[i];
  return NULL;
}


const hp_omp_cached *hp_omp_lookup_slow(hp_omp_thread *o, int kind, const void *codeptr) {
  hp_omp_cached *c = &o->cache[hp_omp_cache_slot(kind, codeptr)];
  uint32_t ev = intern(kind, codeptr);
  if (ev == HP_NO_EVENT) return NULL;
  c->codeptr = codeptr;
  c->kind = (uint32_t)kind;
  c->event1 = ev + 1;
  c->task = kind == HP_OMP_TASK ? hp_omp_task_stat(o, ev) : NULL;
  c->ev = hp_event_get(ev);
  return c;
}

int32_t hp_omp_push(hp_omp_thread *o, int kind, uint32_t event, uint64_t parent_context) {
  if (event == HP_NO_EVENT || o->depth >= HP_OMP_STACK) {
    o->overflow++;
    return -1;
  }
  hp_thread *t = o->t;
  /* -1 when beyond the core's stack: kept here all the same, so its pop lowers the core's count */
  int32_t level = hp_stack_push_under(t, event, parent_context, t->frames[t->top].stack_addr, 0);
  o->stack[o->depth++] = (hp_omp_frame){event, (uint8_t)kind, level};
  return level;
}

/* End events may carry no code address (a worker's implicit barrier) or come in a slightly different
 * order than their begins (implicit task end vs. its barrier): pop by kind, closing any tool frame
 * above it first so the core never sees an out-of-order stop. */
uint32_t hp_omp_pop_kind(hp_omp_thread *o, int kind) {
  /* Frames beyond the stack's capacity are always the innermost: their end comes first. */
  if (o->overflow) {
    o->overflow--;
    return HP_NO_EVENT;
  }
  int32_t i = o->depth - 1;
  /* an untimed task wait, innermost (a fine-grained task program's every taskwait once throttled):
   * nothing in the core's stack to close, no clock to read */
  if (i >= 0 && o->stack[i].kind == kind && o->stack[i].level == HP_OMP_UNTIMED) {
    o->depth = i;
    return o->stack[i].event;
  }
  while (i >= 0 && o->stack[i].kind != kind) i--;
  if (i < 0) return HP_NO_EVENT;
  uint64_t now = hp_now_ns();
  for (int32_t j = o->depth - 1; j >= i; j--) {
    const hp_omp_frame *f = &o->stack[j];
    if (f->level == HP_OMP_UNTIMED) continue; /* no frame in the core's stack (hp_omp_push_untimed) */
    /* the innermost task wait's stop may throttle its timer, as a task's does (tasks.c) */
    hp_stack_pop_level(o->t, f->level, f->event, now, j == i && hp_omp_throttles(kind) && !hp_omp_tracing());
  }
  o->depth = i;
  return o->stack[i].event;
}

void hp_omp_push_untimed(hp_omp_thread *o, int kind, uint32_t event) {
  if (o->depth >= HP_OMP_STACK) {
    o->overflow++; /* as hp_omp_push: its end pops nothing */
    return;
  }
  o->stack[o->depth++] = (hp_omp_frame){event, (uint8_t)kind, HP_OMP_UNTIMED};
}

const void *hp_omp_user_codeptr_slow(const void *codeptr, const void *fallback, int walk) {
  /* none, or one inside the runtime (gcc-built code's GOMP_* entry points): the stack names the call,
   * at the price of a walk for those constructs only */
  const void *site = walk ? program_site() : NULL;
  if (site) return site;
  return fallback ? fallback : codeptr;
}

hp_omp_region *hp_omp_region_stat(hp_omp_thread *o, uint32_t event) {
  for (uint32_t i = event % HP_OMP_REGIONS, n = 0; n < HP_OMP_REGIONS; i = (i + 1) % HP_OMP_REGIONS, n++) {
    hp_omp_region *r = &o->regions[i];
    if (r->event == event) return r;
    if (r->event == UINT32_MAX) {
      r->event = event;
      return r;
    }
  }
  o->table_full++;
  return NULL;
}

hp_omp_taskstat *hp_omp_task_stat(hp_omp_thread *o, uint32_t event) {
  for (uint32_t i = event % HP_OMP_TASKS, n = 0; n < HP_OMP_TASKS; i = (i + 1) % HP_OMP_TASKS, n++) {
    hp_omp_taskstat *r = &o->tasks[i];
    if (r->event == event) return r;
    if (r->event == UINT32_MAX) {
      r->min_ns = UINT64_MAX;
      __atomic_store_n(&r->event, event, __ATOMIC_RELEASE);
      return r;
    }
  }
  o->table_full++;
  return NULL;
}
