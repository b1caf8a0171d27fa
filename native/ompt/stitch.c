/* Samples of OpenMP threads (the sample hook of core/module.h, called by the sampling handler after
 * it unwound the interrupted stack): the thread's OMPT state and blame bookkeeping (blame.c), and the
 * call path with the OpenMP runtime's own frames cut out and replaced by what the thread was doing,
 * as HPCToolkit stitches worker contexts (seed 000, section 3.2).
 *
 * Where the runtime's frames are comes from OMPT's frame addresses, not from symbols (Debian's libomp
 * is stripped): the current task's exit frame is the runtime's frame that called the task's code,
 * its enter frame the runtime entry function the task's code called (framepointer flag: the
 * function's frame address, its canonical frame address 16 bytes higher). Comparing each unwound
 * frame's canonical frame address with them:
 *   - frames up to the enter frame (the leaf is inside a runtime call): replaced by one placeholder
 *     naming the wait (barrier, taskwait, lock, idle, overhead) or the task creation, or, for another
 *     call (loop scheduling, an API function), cut down to the entry function, which has a name;
 *   - frames beyond the exit frame (the runtime that runs the task, and the code that started the
 *     region or created the task, which the sample's context already names) are dropped; a sample
 *     in an explicit task that has no frame of its own (level basic) gets "<OpenMP task>" there
 *     instead, above the task's own code (whose outlined function names the construct).
 * The unwinder stopped near the exit frame already: the tool's frames carry it as their stack
 * address (callbacks.c, tasks.c), so samples do not unwind through the runtime and the code below.
 *
 * Async-signal-safe: ompt_get_state and ompt_get_task_info read the runtime's thread and task
 * structures (PLATFORM-FACTS: they work from the handler); every address they give is checked to lie
 * on this thread's stack above the interrupted stack pointer before it is used; the rest reads the
 * tool's own per-thread state and a table written once at initialisation. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stddef.h>
#include <string.h>

#include "../core/module.h"
#include "../core/objects.h"
#include "ompt_int.h"

/* Runtime entry functions whose frames say what the thread does better than its state. */
typedef struct entry_range {
  uintptr_t lo, hi;
  uint8_t placeholder;
} entry_range;

#define MAX_ENTRIES 24
static entry_range entries[MAX_ENTRIES];
static int n_entries;

static const struct {
  const char *name;
  uint8_t placeholder;
} entry_names[] = {
    {"__kmpc_omp_taskwait", HP_PH_TASKWAIT},  {"__kmpc_omp_taskwait_deps_51", HP_PH_TASKWAIT},
    {"GOMP_taskwait", HP_PH_TASKWAIT},        {"GOMP_taskwait_depend", HP_PH_TASKWAIT},
    {"__kmpc_end_taskgroup", HP_PH_TASKWAIT}, {"GOMP_taskgroup_end", HP_PH_TASKWAIT},
    {"__kmpc_omp_taskyield", HP_PH_TASKWAIT}, {"GOMP_taskyield", HP_PH_TASKWAIT},
    {"__kmpc_omp_task_alloc", HP_PH_TASK_CREATE}, {"__kmpc_omp_task", HP_PH_TASK_CREATE},
    {"__kmpc_omp_task_with_deps", HP_PH_TASK_CREATE}, {"__kmpc_omp_task_parts", HP_PH_TASK_CREATE},
    {"GOMP_task", HP_PH_TASK_CREATE},         {"__kmpc_taskloop", HP_PH_TASK_CREATE},
    {"__kmpc_taskloop_5", HP_PH_TASK_CREATE}, {"GOMP_taskloop", HP_PH_TASK_CREATE},
    {"GOMP_taskloop_ull", HP_PH_TASK_CREATE},
};

/* System code the runtime calls (libc, the dynamic loader, the vDSO), and hyprof's own code, whose
 * interposers it calls too (pthread_create while the master creates its workers): a leaf there with
 * the runtime right below it is the runtime's work. (hyprof's frames never reach a profile.) */
#define MAX_SYSTEM 5
static uintptr_t system_lo[MAX_SYSTEM], system_hi[MAX_SYSTEM];
static int n_system;

static int system_cb(struct dl_phdr_info *info, size_t size, void *data) {
  const char *n = info->dlpi_name ? info->dlpi_name : "";
  const char *base = strrchr(n, '/');
  base = base ? base + 1 : n;
  uintptr_t lo, hi;
  if (n_system >= MAX_SYSTEM || !hp_object_code(info, &lo, &hi)) return 0;
  uintptr_t self = (uintptr_t)&system_cb;
  int own = self >= lo && self < hi;
  if (!own && strncmp(base, "libc.so", 7) && strncmp(base, "ld-linux", 8) && strncmp(base, "linux-vdso", 10) &&
      strncmp(base, "libpthread.so", 13))
    return 0;
  system_lo[n_system] = lo;
  system_hi[n_system++] = hi;
  return 0;
}

int hp_omp_in_system_code(uint64_t pc) {
  for (int i = 0; i < n_system; i++)
    if (pc >= system_lo[i] && pc < system_hi[i]) return 1;
  return 0;
}

void hp_omp_stitch_init(const void *in_runtime) {
  if (!n_system) dl_iterate_phdr(system_cb, NULL);
  Dl_info d;
  if (!dladdr(in_runtime, &d) || !d.dli_fname) return;
  void *h = dlopen(d.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (!h) return;
  for (size_t i = 0; i < sizeof entry_names / sizeof entry_names[0] && n_entries < MAX_ENTRIES; i++) {
    void *f = dlsym(h, entry_names[i].name);
    const ElfW(Sym) *sym = NULL;
    Dl_info fi;
    if (!f || !dladdr1(f, &fi, (void **)&sym, RTLD_DL_SYMENT) || !sym || !sym->st_size) continue;
    entries[n_entries++] = (entry_range){(uintptr_t)f, (uintptr_t)f + sym->st_size, entry_names[i].placeholder};
  }
  dlclose(h);
}

static int entry_placeholder(uint64_t pc) {
  for (int i = 0; i < n_entries; i++)
    if (pc >= entries[i].lo && pc < entries[i].hi) return entries[i].placeholder;
  return 0;
}

static int state_placeholder(int state) {
  if (state == ompt_state_idle) return HP_PH_IDLE;
  if (state >= ompt_state_wait_barrier && state <= ompt_state_wait_barrier_teams) return HP_PH_BARRIER;
  if (state == ompt_state_wait_taskwait || state == ompt_state_wait_taskgroup) return HP_PH_TASKWAIT;
  if (state >= ompt_state_wait_mutex && state <= ompt_state_wait_ordered) return HP_PH_LOCK;
  if (state == ompt_state_overhead) return HP_PH_OVERHEAD;
  return 0;
}

static int class_of_placeholder(int ph) {
  switch (ph) {
    case HP_PH_IDLE:
    case HP_PH_BARRIER:
    case HP_PH_TASKWAIT: return HP_CLASS_IDLE;
    case HP_PH_LOCK: return HP_CLASS_LOCK;
    default: return HP_CLASS_OVERHEAD;
  }
}

/* The canonical frame address of the runtime function an OMPT frame address names (0: none, or not
 * on this thread's stack). Frames of the task's own code have smaller ones (exit), frames inside
 * the runtime call smaller or equal ones (enter). */
static uintptr_t frame_cfa(const ompt_data_t *a, int flags, uintptr_t sp, uintptr_t hi) {
  uintptr_t p = (uintptr_t)a->ptr;
  if (!p) return 0;
  if ((flags & 0x30) != ompt_frame_cfa) p += 16; /* a frame pointer (the runtime's own kind) */
  if (p <= sp || (hi && p > hi)) return 0;
  return p;
}

/* Replace frames [from, to) of s by `with` (n_with entries, 0..2). */
static void splice(hp_sample_view *s, uint32_t from, uint32_t to, const uint64_t *with, uint32_t n_with) {
  uint64_t *pcs = s->pcs;
  uint32_t tail = s->depth - to;
  if (n_with != to - from) {
    /* cfas are not needed after this point: only pcs move */
    uint64_t *src = pcs + to, *dst = pcs + from + n_with;
    if (dst < src)
      for (uint32_t i = 0; i < tail; i++) dst[i] = src[i];
    else
      for (uint32_t i = tail; i-- > 0;) dst[i] = src[i];
  }
  for (uint32_t i = 0; i < n_with; i++) pcs[from + i] = with[i];
  s->depth = from + n_with + tail;
}

/* A thread idle in the runtime's pool, or waiting at a barrier outside any task's own code (a
 * worker's last barrier of a region, after the region's code returned): everything the unwind would
 * find is the runtime's, to be replaced by one placeholder, so it is not unwound at all (what most
 * samples of a program with many short regions are). */
static void leaf_only_if_runtime(hp_sample_view *s, int state, uintptr_t exit_cfa) {
  int waiting = state == ompt_state_idle ||
                (!exit_cfa && state >= ompt_state_wait_barrier && state <= ompt_state_wait_barrier_teams);
  if (waiting && (hp_omp_in_runtime_code((const void *)s->pc) || hp_omp_in_system_code(s->pc))) s->leaf_only = 1;
}

/* The runtime is live (initialised, not finalised): its state and task information may be asked. */
static int runtime_live(void) {
  return hp_omp_get_state != NULL && __atomic_load_n(&hp_omp_active, __ATOMIC_ACQUIRE) &&
         !__atomic_load_n(&hp_omp_finalized, __ATOMIC_ACQUIRE);
}

/* Before the unwind: the thread's state and current task, kept for after_unwind; samples of the
 * task's code stop unwinding at its exit frame (the runtime's frame that called it is the last one
 * unwound, and is cut below). */
static void before_unwind(hp_sample_view *s) {
  hp_omp_thread *o = hp_omp_current();
  if (!o || o->t != s->t) return;
  o->smp.state = ompt_state_undefined;
  o->smp.wait_id = 0;
  o->smp.task_flags = 0;
  o->smp.task_framed = 0;
  o->smp.exit_cfa = o->smp.enter_cfa = 0;
  if (!runtime_live()) return;
  ompt_get_task_info_t info = hp_omp_get_task_info;
  ompt_wait_id_t wid = 0;
  o->smp.state = hp_omp_get_state(&wid);
  o->smp.wait_id = wid;
  int flags = 0, thread_num = 0;
  ompt_data_t *task = NULL, *par = NULL;
  ompt_frame_t *frame = NULL;
  if (!info || info(0, &flags, &task, &frame, &par, &thread_num) != 2 || !frame) {
    leaf_only_if_runtime(s, o->smp.state, 0);
    return;
  }
  uintptr_t exit_cfa = frame_cfa(&frame->exit_frame, frame->exit_frame_flags, s->sp, s->stack_hi);
  uintptr_t enter_cfa = frame_cfa(&frame->enter_frame, frame->enter_frame_flags, s->sp, s->stack_hi);
  if (exit_cfa && enter_cfa >= exit_cfa) enter_cfa = 0; /* inconsistent (the runtime mid-switch) */
  o->smp.task_flags = flags;
  /* Level full gives an explicit task a frame, but not once its timer is throttled (tasks.c): the
   * task's record (ours, on this thread, never freed while the program runs; at basic the field is
   * the runtime's, not looked at) says. Plain loads. */
  const hp_omp_task *k = hp_omp_level >= HP_OMP_FULL && (flags & ompt_task_explicit) && task ? task->ptr : NULL;
  o->smp.task_framed = k && k->thread == o->t && k->level > 0;
  o->smp.exit_cfa = exit_cfa;
  o->smp.enter_cfa = enter_cfa;
  if (exit_cfa > 16 && (!s->stop || s->stop > exit_cfa - 16)) s->stop = exit_cfa - 16;
  leaf_only_if_runtime(s, o->smp.state, exit_cfa);
}

static inline int in_runtime(const hp_sample_view *s, uint32_t i) {
  return hp_omp_in_runtime_code((const void *)(uintptr_t)s->pcs[i]);
}

/* The leaf's frames that belong to the runtime: up to the entry function the task called (its enter
 * frame), else the first run of the runtime's frames when only system code (libc, the loader:
 * sched_yield while spinning, lazy binding) comes before it; and the runtime's own frames right
 * outside either (GOMP_* entry points around the __kmpc_* function that set the enter frame). */
static uint32_t leaf_runtime_frames(const hp_sample_view *s, uintptr_t enter_cfa, int live_omp_thread) {
  uint32_t r = 0;
  /* A waiting thread that was not unwound (leaf_only_if_runtime): its one frame is the runtime's,
   * or system code the runtime called (sched_yield while a team larger than its CPUs spins). */
  if (s->leaf_only) return s->depth;
  if (enter_cfa) {
    while (r < s->depth && s->cfas[r] && s->cfas[r] <= enter_cfa) r++;
  } else {
    uint32_t j = 0;
    while (j < s->depth && j < 8 && !in_runtime(s, j) && hp_omp_in_system_code(s->pcs[j])) j++;
    if (j < s->depth && j < 8 && in_runtime(s, j)) r = j + 1;
    /* Nothing but system code, the unwind stopped above it: the runtime called it (the master
     * creating its workers: pthread_create, mmap, mprotect), its own frames lying beyond the stop of
     * the region's timer, which the runtime's callback started. A program frame that calls libc is
     * always inside the stop (the task's code is unwound down to its exit frame). Two frames at
     * least: a single one may be a failed unwind of the program's call. Only on a thread of the live
     * runtime. */
    else if (live_omp_thread && j == s->depth && j >= 2) return s->depth;
  }
  if (r == 0) return 0;
  while (r < s->depth && in_runtime(s, r)) r++;
  return r;
}

static uint32_t after_unwind(hp_sample_view *s) {
  hp_omp_thread *o = hp_omp_current();
  if (o && o->t != s->t) o = NULL;
  int live = o && runtime_live();
  int state = o ? o->smp.state : ompt_state_undefined, flags = o ? o->smp.task_flags : 0;
  uintptr_t exit_cfa = o ? o->smp.exit_cfa : 0, enter_cfa = o ? o->smp.enter_cfa : 0;
  int cls = hp_omp_class_of_state(state);
  const uint64_t *cfa = s->cfas;
  uint64_t with[1];

  /* 1. the leaf inside the runtime */
  uint32_t r = leaf_runtime_frames(s, enter_cfa, live);
  if (r > 0) {
    int ph = 0;
    for (uint32_t i = 0; i < r; i++) {
      int e = entry_placeholder(s->pcs[i]);
      if (e) ph = e; /* the outermost entry function known */
    }
    int32_t w = o ? o->in_wait : 0;
    if (!ph && w > 0 && w <= HP_OMP_WAITS &&
        (o->waits[w - 1].kind == ompt_sync_region_taskwait || o->waits[w - 1].kind == ompt_sync_region_taskgroup))
      ph = HP_PH_TASKWAIT;
    if (!ph) ph = state_placeholder(state);
    if (!ph && !live) ph = HP_PH_OVERHEAD; /* the runtime starting or shutting down */
    if (!ph && enter_cfa && exit_cfa == 0 && !(flags & (ompt_task_implicit | ompt_task_explicit)))
      ph = HP_PH_OVERHEAD; /* the initial task inside the runtime: forking or joining a region */
    if (!ph && !enter_cfa && exit_cfa && cfa[0] >= exit_cfa) ph = HP_PH_DISPATCH; /* around a task */
    if (!ph && r == s->depth) ph = HP_PH_OVERHEAD; /* nothing of the program's under it: no entry to name */
    if (ph) {
      with[0] = HP_PC_PLACEHOLDER | (uint64_t)ph;
      splice(s, 0, r, with, 1);
      cls = class_of_placeholder(ph);
    } else {
      /* another runtime call (loop scheduling, an API function): its entry function names it */
      splice(s, 0, r - 1, with, 0);
      if (enter_cfa) cls = HP_CLASS_OVERHEAD;
    }
    /* cfa[i] is now frame i's again (the frames removed were r - 1) */
    cfa += r - 1;
  }

  /* 2. frames beyond the current task's exit frame, and the runtime's frames just inside it (the
   * thunk through which libomp runs a gcc-built task) */
  if (exit_cfa && s->depth > 1) {
    uint32_t k = 1;
    while (k < s->depth && !((cfa[k] && cfa[k] >= exit_cfa) || (!cfa[k] && in_runtime(s, k)))) k++;
    if (k < s->depth) {
      while (k > 1 && in_runtime(s, k - 1)) k--;
      uint32_t n_with = 0;
      /* a task without a frame of its own (level basic, or its timer throttled): say where the task
       * starts */
      if ((flags & ompt_task_explicit) && !o->smp.task_framed) with[n_with++] = HP_PC_PLACEHOLDER | HP_PH_TASK;
      splice(s, k, s->depth, with, n_with);
    }
  }
  /* 3. the runtime's frames still left (a sample while the runtime switches tasks, whose frame
   * addresses are not set yet): those at the outer end dropped, a run between the program's frames
   * named as dispatching a task */
  for (uint32_t i = 1; i < s->depth;) {
    if (!in_runtime(s, i)) {
      i++;
      continue;
    }
    uint32_t j = i;
    while (j < s->depth && in_runtime(s, j)) j++;
    if (j == s->depth) {
      s->depth = i;
      break;
    }
    with[0] = HP_PC_PLACEHOLDER | HP_PH_DISPATCH;
    splice(s, i, j, with, 1);
    i++;
  }
  if (live) hp_omp_blame_sample(o, s->context, s->value_ns, cls, o->smp.wait_id);
  return (uint32_t)state == ompt_state_undefined ? 0 : (uint32_t)state;
}

const hp_sample_hook hp_omp_sample_hook = {before_unwind, after_unwind};
