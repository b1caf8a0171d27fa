/* OMPT callbacks for parallel regions, implicit tasks, work-sharing, masked, synchronisation regions
 * and their waits (level basic), and mutexes (level full).
 *
 * Worker threads: the implicit task of a worker pushes the region's event under the encountering
 * thread's context at parallel begin, so its context is the very context of the master's region
 * frame: a worker's probes and samples sit under the master's phases, parameters and regions, nested
 * parallelism included (the encountering thread of an inner region is a member of the outer team).
 *
 * Overhead classes (seed 001, ompP), per region and thread:
 *   Thread management  - fork (parallel begin -> implicit task begin) and join (implicit task end ->
 *                        parallel end, on the encountering thread);
 *   Imbalance          - waiting in implicit barriers after loops, sections and at region end, and in
 *                        "implementation" barriers (how gcc-built code's loop-end barriers appear);
 *   Limited parallelism - waiting in the implicit barrier after single;
 *   Synchronization    - explicit barriers, taskwait, taskgroup, mutex waits.
 * Task execution inside a barrier is work, not waiting: it is subtracted from the wait. */
#include <stddef.h>

#include "../core/clock.h"
#include "../core/stack.h"
#include "ompt_int.h"

#define ENTER(o) hp_tool_enter((o)->t)
#define LEAVE(o) hp_tool_leave((o)->t)

static hp_omp_itask *cur_itask(hp_omp_thread *o) { return o->nitasks > 0 ? &o->itasks[o->nitasks - 1] : NULL; }

/* libomp reports a worker's wait for the next region as the end of the last region's barrier: what
 * lies after the region's end is idleness outside it (serial code), not the region's overhead. */
static uint64_t region_cap(const hp_omp_itask *it, uint64_t now) {
  if (!it || !it->par) return now;
  uint64_t end = __atomic_load_n(&it->par->end_ns, __ATOMIC_RELAXED);
  return end >= it->par_begin_ns && end < now ? end : now;
}

static hp_omp_region *cur_region(hp_omp_thread *o) {
  hp_omp_itask *it = cur_itask(o);
  return it ? it->stat : NULL;
}

/* Where samples of the encountering thread stop unwinding while it forks: at the runtime's entry
 * function (its frame is the last kept and is replaced with a placeholder), so the code that
 * encountered the region is not repeated under it. */
static uintptr_t fork_boundary(const ompt_frame_t *f) {
  if (!f || !f->enter_frame.ptr) return 0;
  uintptr_t a = (uintptr_t)f->enter_frame.ptr;
  return (f->enter_frame_flags & 0x30) == ompt_frame_cfa ? a - 1 : a + 15;
}

static void on_parallel_begin(ompt_data_t *enc_task, const ompt_frame_t *enc_frame, ompt_data_t *parallel_data,
                              unsigned int requested, int flags, const void *codeptr) {
  hp_omp_thread *o = hp_omp_self();
  if (!o) return;
  ENTER(o);
  parallel_data->ptr = NULL;
  if (o->npars < HP_OMP_LEVELS) {
    hp_omp_par *p = &o->pars[o->npars++];
    p->parent_context = hp_stack_context(o->t);
    p->codeptr = hp_omp_user_codeptr(codeptr, enc_frame, NULL, 1);
    p->event = hp_omp_event(o, HP_OMP_PARALLEL, p->codeptr);
    p->team = hp_omp_tr_new_team(o);
    if (hp_omp_tracing()) hp_omp_tr_fork(o, p->team, requested); /* before the region's Enter */
    p->level = hp_omp_push(o, HP_OMP_PARALLEL, p->event, p->parent_context);
    p->fork_stop = fork_boundary(enc_frame);
    hp_stack_set_cfa(o->t, p->level, p->fork_stop);
    p->begin_ns = hp_now_ns();
    parallel_data->ptr = p;
  } else {
    o->table_full++; /* a region nested deeper than the tool follows: counted, said at resolve */
  }
  LEAVE(o);
}

static void on_parallel_end(ompt_data_t *parallel_data, ompt_data_t *enc_task, int flags, const void *codeptr) {
  hp_omp_thread *o = hp_omp_current();
  hp_omp_par *p = parallel_data ? parallel_data->ptr : NULL;
  if (!o || !p) return;
  ENTER(o);
  uint64_t now = hp_now_ns();
  hp_omp_region *r = hp_omp_region_stat(o, p->event);
  if (r && o->itask_end_ns > p->begin_ns && now > o->itask_end_ns) r->mgmt_ns += now - o->itask_end_ns;
  hp_omp_pop_kind(o, HP_OMP_PARALLEL);
  if (hp_omp_tracing()) hp_omp_tr_join(o, p->team); /* after the region's Leave */
  __atomic_store_n(&p->end_ns, now, __ATOMIC_RELAXED);
  if (o->npars > 0) o->npars--;
  LEAVE(o);
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data, ompt_data_t *task_data,
                             unsigned int actual, unsigned int index, int flags) {
  if (flags & ompt_task_initial) return; /* the program's initial task: the root frame covers it */
  hp_omp_thread *o = hp_omp_self();
  if (!o) return;
  ENTER(o);
  uint64_t now = hp_now_ns();
  if (endpoint == ompt_scope_begin) {
    task_data->ptr = NULL; /* implicit tasks carry no task record */
    /* Threads in use at once (seed 000's thread idleness baseline): the initial thread plus the
     * workers inside an implicit task, nested teams included. Once per region and thread. */
    if (o->kind == ompt_thread_worker && o->nitasks == 0) {
      uint32_t in_use = __atomic_add_fetch(&hp_omp_in_use, 1, __ATOMIC_RELAXED);
      uint32_t m = __atomic_load_n(&hp_omp_max_team, __ATOMIC_RELAXED);
      while (in_use > m && !__atomic_compare_exchange_n(&hp_omp_max_team, &m, in_use, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
      }
    }
    hp_omp_par *p = parallel_data ? parallel_data->ptr : NULL;
    if (o->nitasks < HP_OMP_LEVELS) {
      hp_omp_itask *it = &o->itasks[o->nitasks++];
      it->region_event = p ? p->event : HP_NO_EVENT;
      it->region_codeptr = p ? p->codeptr : NULL;
      it->par_begin_ns = p ? p->begin_ns : now;
      it->begin_ns = now;
      it->pushed = 0;
      it->par = p;
      it->rank = index;
      it->team = p ? p->team : UINT64_MAX; /* UINT64_MAX: not known (the encountering thread's levels were full) */
      if (p && hp_omp_tracing()) hp_omp_tr_team(o, 1, it->team, index, actual); /* before a worker's Enter */
      it->level = index == 0 && p ? p->level : -1;
      if (p && index != 0) {
        it->level = hp_omp_push(o, HP_OMP_PARALLEL, p->event, p->parent_context);
        it->pushed = 1;
      }
      /* Inside the implicit task, samples stop at its exit frame (the sample hook knows it); where
       * it has none (a worker's last barrier, after the region's code returned), at the thread's
       * entry (what the worker's frame inherited) or where the encountering thread forked. */
      hp_omp_region *r = p ? hp_omp_region_stat(o, p->event) : NULL;
      /* the waits of the region (once per taskwait in a task program) find it here */
      it->stat = it->region_event != HP_NO_EVENT ? r : NULL;
      if (r && now > p->begin_ns) r->mgmt_ns += now - p->begin_ns;
    } else {
      /* Nested deeper than the tool follows: counted (lost records, said at resolve), and its end
       * must not close the implicit task it is nested in. */
      o->itask_overflow++;
      o->table_full++;
    }
    hp_omp_set_working(o, 1);
  } else {
    if (o->itask_overflow > 0) {
      o->itask_overflow--;
    } else if (o->nitasks > 0) {
      hp_omp_itask *it = &o->itasks[--o->nitasks];
      hp_omp_region *r = it->stat;
      if (r) {
        r->count++;
        uint64_t end = region_cap(it, now);
        r->exec_ns += end > it->begin_ns ? end - it->begin_ns : 0;
      }
      if (it->pushed)
        hp_omp_pop_kind(o, HP_OMP_PARALLEL);
      else if (it->par)
        hp_stack_set_cfa(o->t, it->level, it->par->fork_stop); /* the encountering thread joins */
      if (it->team != UINT64_MAX && hp_omp_tracing()) hp_omp_tr_team(o, 0, it->team, it->rank, 0);
    }
    o->itask_end_ns = now;
    if (o->kind == ompt_thread_worker && o->nitasks == 0) {
      hp_omp_set_working(o, 0); /* back to the pool */
      __atomic_sub_fetch(&hp_omp_in_use, 1, __ATOMIC_RELAXED);
    }
  }
  LEAVE(o);
}

static int work_kind(ompt_work_t w) {
  switch (w) {
    case ompt_work_loop: return HP_OMP_LOOP;
    case ompt_work_sections: return HP_OMP_SECTIONS;
    case ompt_work_single_executor: return HP_OMP_SINGLE_EXECUTOR;
    case ompt_work_single_other: return HP_OMP_SINGLE_OTHER;
    case ompt_work_workshare: return HP_OMP_WORKSHARE;
    case ompt_work_distribute: return HP_OMP_DISTRIBUTE;
    case ompt_work_taskloop: return HP_OMP_TASKLOOP;
    default: return -1;
  }
}

static void on_work(ompt_work_t wstype, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                    ompt_data_t *task_data, uint64_t count, const void *codeptr) {
  int kind = work_kind(wstype);
  hp_omp_thread *o = hp_omp_self();
  if (!o || kind < 0) return;
  ENTER(o);
  if (endpoint == ompt_scope_begin) {
    codeptr = hp_omp_user_codeptr(codeptr, NULL, cur_itask(o) ? cur_itask(o)->region_codeptr : NULL, 1);
    hp_omp_push(o, kind, hp_omp_event(o, kind, codeptr), hp_stack_context(o->t));
    if (kind == HP_OMP_TASKLOOP) o->taskloop_codeptr = codeptr;
  } else {
    hp_omp_pop_kind(o, kind);
    o->last_work = kind;
    if (kind == HP_OMP_TASKLOOP) o->taskloop_codeptr = NULL;
  }
  LEAVE(o);
}

static void on_masked(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data, ompt_data_t *task_data,
                      const void *codeptr) {
  hp_omp_thread *o = hp_omp_self();
  if (!o) return;
  ENTER(o);
  if (endpoint == ompt_scope_begin) {
    codeptr = hp_omp_user_codeptr(codeptr, NULL, cur_itask(o) ? cur_itask(o)->region_codeptr : NULL, 1);
    hp_omp_push(o, HP_OMP_MASKED, hp_omp_event(o, HP_OMP_MASKED, codeptr), hp_stack_context(o->t));
  } else
    hp_omp_pop_kind(o, HP_OMP_MASKED);
  LEAVE(o);
}

static int sync_kind(ompt_sync_region_t k) {
  switch (k) {
    case ompt_sync_region_barrier:
    case ompt_sync_region_barrier_implicit:
    case ompt_sync_region_barrier_implicit_workshare:
    case ompt_sync_region_barrier_implicit_parallel: return HP_OMP_BARRIER_IMPLICIT;
    case ompt_sync_region_barrier_explicit: return HP_OMP_BARRIER_EXPLICIT;
    case ompt_sync_region_barrier_implementation: return HP_OMP_BARRIER_IMPLEMENTATION;
    case ompt_sync_region_taskwait: return hp_omp_level >= HP_OMP_FULL ? HP_OMP_TASKWAIT : -1;
    case ompt_sync_region_taskgroup: return hp_omp_level >= HP_OMP_FULL ? HP_OMP_TASKGROUP : -1;
    case ompt_sync_region_reduction: return hp_omp_level >= HP_OMP_FULL ? HP_OMP_REDUCTION : -1;
    default: return -1;
  }
}

uint64_t *hp_omp_wait_class(const hp_omp_thread *o, hp_omp_region *r, int sync_region_kind) {
  switch (sync_kind(sync_region_kind)) {
    case HP_OMP_BARRIER_IMPLICIT:
      return o->last_work == HP_OMP_SINGLE_EXECUTOR || o->last_work == HP_OMP_SINGLE_OTHER ? &r->limpar_ns : &r->imbalance_ns;
    case HP_OMP_BARRIER_IMPLEMENTATION:
      /* gcc-built code (through libomp's GOMP entry points) reports loop-end barriers so */
      return &r->imbalance_ns;
    case HP_OMP_BARRIER_EXPLICIT:
    case HP_OMP_TASKWAIT:
    case HP_OMP_TASKGROUP: return &r->sync_ns;
    default: return NULL;
  }
}

static void on_sync_region(ompt_sync_region_t k, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                           ompt_data_t *task_data, const void *codeptr) {
  /* a taskwait comes here at level full only (basic's entry point leaves first): once per task in a
   * recursive task program, so it is told apart before the general mapping */
  int kind = k == ompt_sync_region_taskwait ? HP_OMP_TASKWAIT : sync_kind(k);
  if (kind < 0) return; /* level basic: taskwait / taskgroup / reduction regions are not recorded */
  hp_omp_thread *o = hp_omp_self();
  if (!o) return;
  ENTER(o);
  if (endpoint == ompt_scope_begin) {
    /* Workers see no code address at the region's closing barrier (or one inside the runtime): name
     * it after the region, without walking the stack (it holds no program code there). */
    codeptr = hp_omp_user_codeptr(codeptr, NULL, cur_itask(o) ? cur_itask(o)->region_codeptr : NULL, 0);
    const hp_omp_cached *c = hp_omp_lookup(o, kind, codeptr);
    uint32_t event = c ? c->event1 - 1 : HP_NO_EVENT;
    /* a task wait whose timer is throttled: no frame (its wait is still classed below) */
    if (c && hp_omp_throttles(kind) && hp_omp_untimed(c->ev))
      hp_omp_push_untimed(o, kind, event);
    else
      hp_omp_push(o, kind, event, hp_stack_context(o->t));
  } else {
    hp_omp_pop_kind(o, kind);
  }
  LEAVE(o);
}

static void on_sync_region_wait(ompt_sync_region_t k, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                                ompt_data_t *task_data, const void *codeptr) {
  if (k != ompt_sync_region_taskwait && sync_kind(k) < 0) return; /* a taskwait: level full, as above */
  hp_omp_thread *o = hp_omp_self();
  if (!o) return;
  ENTER(o);
  uint64_t now = hp_now_ns();
  if (endpoint == ompt_scope_begin) {
    if (o->in_wait < HP_OMP_WAITS) {
      o->waits[o->in_wait].begin_ns = now;
      o->waits[o->in_wait].task_ns_at_begin = o->task_ns;
      o->waits[o->in_wait].kind = k;
      __atomic_store_n(&o->in_wait, o->in_wait + 1, __ATOMIC_RELAXED);
    } else {
      o->wait_overflow++;
    }
    o->in_runtime = 1; /* a task taken from here starts after a dispatch gap */
    o->last_sched_ns = now;
    hp_omp_set_working(o, 0);
  } else {
    if (o->wait_overflow) {
      o->wait_overflow--;
      LEAVE(o);
      return;
    }
    if (o->in_wait == 0) {
      LEAVE(o);
      return;
    }
    int32_t w = o->in_wait - 1;
    /* The wait, less the tasks this thread ran meanwhile (their time excludes their own waits). */
    uint64_t end = region_cap(cur_itask(o), now);
    uint64_t d = end > o->waits[w].begin_ns ? end - o->waits[w].begin_ns : 0;
    uint64_t tasks = o->task_ns - o->waits[w].task_ns_at_begin;
    d = d > tasks ? d - tasks : 0;
    hp_omp_region *r = cur_region(o);
    uint64_t *cls = !r ? NULL : k == ompt_sync_region_taskwait ? &r->sync_ns : hp_omp_wait_class(o, r, k);
    if (cls) *cls += d;
    if (k != ompt_sync_region_taskwait && k != ompt_sync_region_taskgroup) o->last_work = -1;
    __atomic_store_n(&o->in_wait, w, __ATOMIC_RELAXED);
    if (w == 0) {
      o->in_runtime = 0;
      hp_omp_set_working(o, 1);
    }
  }
  LEAVE(o);
}

/* ---- mutexes (level full) ---- */

static int wait_kind(ompt_mutex_t k) {
  switch (k) {
    case ompt_mutex_lock:
    case ompt_mutex_test_lock: return HP_OMP_WAIT_LOCK;
    case ompt_mutex_critical: return HP_OMP_WAIT_CRITICAL;
    case ompt_mutex_ordered: return HP_OMP_WAIT_ORDERED;
    default: return -1; /* nest locks: re-acquisition has no acquired event; atomics have none at all */
  }
}

static int held_kind(ompt_mutex_t k) {
  switch (k) {
    case ompt_mutex_lock:
    case ompt_mutex_test_lock: return HP_OMP_LOCK;
    case ompt_mutex_nest_lock:
    case ompt_mutex_test_nest_lock: return HP_OMP_NEST_LOCK;
    case ompt_mutex_critical: return HP_OMP_CRITICAL;
    case ompt_mutex_ordered: return HP_OMP_ORDERED;
    default: return -1;
  }
}

static void on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl, ompt_wait_id_t wait_id,
                             const void *codeptr) {
  hp_omp_thread *o = hp_omp_self();
  if (!o) return;
  ENTER(o);
  /* A failed test_lock leaves its wait open: close it. */
  if (o->depth > 0 && o->stack[o->depth - 1].kind == HP_OMP_WAIT_LOCK) hp_omp_pop_kind(o, HP_OMP_WAIT_LOCK);
  __atomic_store_n(&o->mutex_wait_id, wait_id, __ATOMIC_RELAXED);
  o->mutex_begin_ns = hp_now_ns();
  o->mutex_kind = kind;
  int wk = wait_kind(kind);
  if (wk >= 0) {
    codeptr = hp_omp_user_codeptr(codeptr, NULL, cur_itask(o) ? cur_itask(o)->region_codeptr : NULL, 1);
    hp_omp_push(o, wk, hp_omp_event(o, wk, codeptr), hp_stack_context(o->t));
    hp_omp_set_working(o, 0);
  }
  LEAVE(o);
}

static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr) {
  hp_omp_thread *o = hp_omp_self();
  if (!o) return;
  ENTER(o);
  uint64_t now = hp_now_ns();
  int wk = wait_kind(kind);
  if (wk >= 0) hp_omp_pop_kind(o, wk);
  /* acquired: after the wait's Leave, before the held region's Enter */
  if (held_kind(kind) >= 0 && hp_omp_tracing()) hp_omp_tr_lock(o, HP_TREC_OMP_LOCK_ACQUIRE, kind, wait_id);
  hp_omp_region *r = cur_region(o);
  if (r && now > o->mutex_begin_ns) r->sync_ns += now - o->mutex_begin_ns;
  __atomic_store_n(&o->mutex_wait_id, 0, __ATOMIC_RELAXED);
  hp_omp_set_working(o, 1);
  codeptr = hp_omp_user_codeptr(codeptr, NULL, cur_itask(o) ? cur_itask(o)->region_codeptr : NULL, 1);
  int hk = held_kind(kind);
  if (hk >= 0) hp_omp_push(o, hk, hp_omp_event(o, hk, codeptr), hp_stack_context(o->t));
  o->mutex_codeptr = codeptr;
  LEAVE(o);
}

static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr) {
  hp_omp_thread *o = hp_omp_self();
  if (!o) return;
  ENTER(o);
  /* Blame first, while the context is still the one the lock was held in. */
  /* A critical section is named by its construct (libomp gives some threads no release address);
   * a lock by where it is unset. */
  hp_omp_release_blame(o, wait_id, kind == ompt_mutex_critical || !codeptr ? o->mutex_codeptr : codeptr);
  int hk = held_kind(kind);
  if (hk >= 0) hp_omp_pop_kind(o, hk);
  if (hk >= 0 && hp_omp_tracing()) hp_omp_tr_lock(o, HP_TREC_OMP_LOCK_RELEASE, kind, wait_id);
  LEAVE(o);
}

/* Level basic records barriers only, but the runtime calls the sync-region callbacks for every
 * taskwait too: four calls per task in a recursive task program (each task's taskwait: region and
 * wait, begin and end). These entry points leave at once on the kinds basic does not record, before
 * anything else is loaded (bench/openmp-callgrind: the tool's own part of a fib task). */
static int basic_skips(ompt_sync_region_t k) {
  return k == ompt_sync_region_taskwait || k == ompt_sync_region_taskgroup || k == ompt_sync_region_reduction;
}
static void on_sync_region_basic(ompt_sync_region_t k, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                                 ompt_data_t *task_data, const void *codeptr) {
  if (basic_skips(k)) return;
  on_sync_region(k, endpoint, parallel_data, task_data, codeptr);
}
static void on_sync_region_wait_basic(ompt_sync_region_t k, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                                      ompt_data_t *task_data, const void *codeptr) {
  if (basic_skips(k)) return;
  on_sync_region_wait(k, endpoint, parallel_data, task_data, codeptr);
}

void hp_omp_register_basic(ompt_set_callback_t set) {
  int full = hp_omp_level >= HP_OMP_FULL;
  set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
  set(ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end);
  set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
  set(ompt_callback_work, (ompt_callback_t)on_work);
  set(ompt_callback_masked, (ompt_callback_t)on_masked);
  set(ompt_callback_sync_region, (ompt_callback_t)(full ? on_sync_region : on_sync_region_basic));
  set(ompt_callback_sync_region_wait, (ompt_callback_t)(full ? on_sync_region_wait : on_sync_region_wait_basic));
}

void hp_omp_register_full(ompt_set_callback_t set) {
  set(ompt_callback_mutex_acquire, (ompt_callback_t)on_mutex_acquire);
  set(ompt_callback_mutex_acquired, (ompt_callback_t)on_mutex_acquired);
  set(ompt_callback_mutex_released, (ompt_callback_t)on_mutex_released);
}
