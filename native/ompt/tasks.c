/* Explicit tasks (seed 003), level full. (Level basic registers no task callback: a fine-grained task
 * program would pay for every task; samples taken in tasks find them through ompt_get_task_info,
 * stitch.c, as HPCToolkit does.)
 *
 * Task instances are created, switched and completed. A task runs under its creator's
 * context at creation (so it appears where it was created, whatever thread runs it), as a detached
 * frame (core/stack.h): while it runs, the frames between its anchor and it are suspended - the
 * construct it runs in (a taskwait, a barrier) and any task suspended there - so their inclusive time
 * excludes it, and its own excludes the tasks that run while it waits (Score-P's rule). No interval
 * of a thread is then in two tasks' or waits' time, nested waits included. The anchor is the
 * innermost frame its creation context belongs to: that context's frame when it is on this thread's
 * stack (a task run by its creator), else the innermost parallel region's (a task run by another
 * thread of the team).
 *
 * Per thread and task construct: instances created and executed, sum / min / max and a histogram of
 * their durations. Per thread: dispatch gaps (runtime time from a task's end or a wait's begin to the
 * next task's start; gaps over 100 us count as starvation instead: no task was available). */
#include <stdlib.h>

#include "../core/clock.h"
#include "../core/runtime.h"
#include "../core/stack.h"
#include "ompt_int.h"

#define STARVATION_NS 100000u

/* A task created by a task runs under its creator's creation context: recursive tasks (fib) would
 * otherwise make one context per recursion path. */
static void on_task_create(ompt_data_t *enc_task, const ompt_frame_t *enc_frame, ompt_data_t *new_task,
                                int flags, int has_dependences, const void *codeptr) {
  if (!new_task) return;
  new_task->ptr = NULL;
  if (!(flags & ompt_task_explicit)) return;
  hp_omp_thread *o = hp_omp_self();
  if (!o) return;
  hp_tool_enter(o->t);
  /* a taskloop's tasks are created by the runtime: named after the taskloop, without a stack walk */
  const void *fallback = o->taskloop_codeptr;
  if (!fallback && o->nitasks > 0) fallback = o->itasks[o->nitasks - 1].region_codeptr;
  const hp_omp_cached *c = hp_omp_lookup(o, HP_OMP_TASK, hp_omp_user_codeptr(codeptr, enc_frame, fallback, !o->taskloop_codeptr));
  hp_omp_task *k = o->free_tasks;
  if (k)
    o->free_tasks = k->next_free;
  else
    k = malloc(sizeof *k);
  if (k && c) {
    const hp_omp_task *creator = enc_task ? enc_task->ptr : NULL;
    k->parent_context = creator ? creator->parent_context : hp_stack_context(o->t);
    if (creator && creator->stat && creator->thread == o->t) creator->stat->spawned++;
    k->event = c->event1 - 1;
    k->ev = c->ev;
    k->level = -1;
    k->untimed = 0;
    k->thread = NULL;
    k->stat = c->task; /* the creator's record: its first run is mostly here */
    k->stat_owner = o;
    k->next_free = NULL;
    if (c->task) c->task->created++;
    new_task->ptr = k;
    if (hp_omp_tracing()) { /* its identity in the trace: only a traced run pays for it */
      k->team = hp_omp_tr_team_of(o, &k->creator_rank);
      k->gen = ++o->task_gen;
      hp_omp_tr_task(o, HP_TREC_OMP_TASK_CREATE, k);
    }
  } else if (k) {
    k->next_free = o->free_tasks;
    o->free_tasks = k;
  }
  hp_tool_leave(o->t);
}

/* The frame level where a task with this creation context is anchored on o's thread. The last
 * answer is kept: consecutive tasks mostly share their creation context (recursive tasks all do),
 * and checking it is constant work where the search walks the stack. */
static int32_t anchor_of(hp_omp_thread *o, uint64_t parent_context) {
  const hp_thread *t = o->t;
  int32_t region = hp_omp_region_level(o), a = o->anchor_level;
  if (o->anchor_context == parent_context && a >= region && a <= t->top && t->frames[a].context == parent_context &&
      o->anchor_region == region)
    return a;
  a = hp_stack_find_context(t, parent_context, region);
  o->anchor_context = parent_context;
  o->anchor_level = a >= 0 ? a : region;
  o->anchor_region = region;
  return o->anchor_level;
}

static void record(hp_omp_thread *o, const hp_omp_task *k, uint64_t incl) {
  hp_omp_taskstat *s = k->stat_owner == o && k->stat ? k->stat : hp_omp_task_stat(o, k->event);
  if (!s) return;
  s->executed++;
  s->sum_ns += incl;
  double us = (double)incl * 1e-3;
  s->sum_sq += us * us;
  if (incl > s->max_ns) s->max_ns = incl;
  if (incl < s->min_ns) s->min_ns = incl;
  s->hist[hp_omp_hist_bucket(incl)]++;
}

/* A task's own time since its first run on this thread, as its frame has it: less the tasks the
 * thread ran meanwhile (their own times, each less its nested tasks', are in task_ns). For an untimed
 * task, and for a timed one inside which untimed tasks ran (they did not suspend its frame). */
static uint64_t own_time(const hp_omp_thread *o, const hp_omp_task *k, uint64_t now) {
  uint64_t ran = now > k->start_ns ? now - k->start_ns : 0, nested = o->task_ns - k->task_ns_at_start;
  return ran > nested ? ran - nested : 0;
}

static void finish(hp_omp_thread *o, hp_omp_task *k, uint64_t now) {
  uint64_t incl = 0;
  int32_t d = o->depth - 1;
  if (k->thread == o->t && k->level > 0 && d >= 0 && o->stack[d].kind == HP_OMP_TASK && o->stack[d].level == k->level) {
    /* the innermost tool frame (always, for well-nested tasks): popped without a search */
    o->depth = d;
    incl = hp_stack_pop_level(o->t, k->level, k->event, now, !hp_omp_tracing()); /* may throttle its timer */
    if (__builtin_expect(o->untimed_ns != k->untimed_ns_at_start, 0)) incl = own_time(o, k, now);
  } else if (k->thread == o->t && k->untimed) {
    incl = own_time(o, k, now);
    o->untimed_ns += incl;
  } else if (k->thread == o->t && k->level > 0) {
    int32_t i = o->depth - 1;
    while (i >= 0 && !(o->stack[i].kind == HP_OMP_TASK && o->stack[i].level == k->level)) i--;
    if (i >= 0) {
      /* tool frames the task left open above its own (none for well-nested tasks); an untimed one
       * has nothing in the core's stack */
      for (int32_t j = o->depth - 1; j > i; j--)
        if (o->stack[j].level != HP_OMP_UNTIMED) hp_stack_pop_event(o->t, o->stack[j].event);
      o->depth = i;
      incl = hp_stack_pop_event(o->t, k->event);
      if (o->untimed_ns != k->untimed_ns_at_start) incl = own_time(o, k, now); /* as above */
    }
  } else if (k->thread == o->t && k->level < 0) {
    hp_stack_pop_event(o->t, k->event); /* pushed beyond the core's stack: its count goes down */
  }
  record(o, k, incl);
  o->task_ns += incl; /* waits of this thread subtract it (callbacks.c) */
  k->next_free = o->free_tasks;
  o->free_tasks = k;
}

static void on_task_schedule(ompt_data_t *prior_data, ompt_task_status_t prior_status, ompt_data_t *next_data) {
  hp_omp_thread *o = hp_omp_self();
  if (!o) return;
  hp_tool_enter(o->t);
  uint64_t now = hp_now_ns();
  hp_omp_task *prior = prior_data ? prior_data->ptr : NULL;
  hp_omp_task *next = next_data ? next_data->ptr : NULL;
  /* A dispatch gap ends here only if the thread was in the runtime since an earlier event (not when
   * a child's completion resumes its parent in this same event). */
  int was_in_runtime = o->in_runtime;
  uint64_t since = o->last_sched_ns;
  if (prior) {
    if (prior_status == ompt_task_complete || prior_status == ompt_task_cancel ||
        prior_status == ompt_task_late_fulfill) {
      finish(o, prior, now);
      /* after the task's Leave; the record is still whole (only queued for reuse on this thread) */
      if (hp_omp_tracing()) hp_omp_tr_task(o, HP_TREC_OMP_TASK_COMPLETE, prior);
      prior_data->ptr = NULL;
    }
    o->in_runtime = 1;
    o->last_sched_ns = now;
    if (o->in_wait) hp_omp_set_working(o, 0);
  }
  if (next) {
    if (was_in_runtime) {
      uint64_t gap = now - since;
      if (gap <= STARVATION_NS) {
        o->dispatch_ns += gap;
        o->dispatch_count++;
      } else {
        o->starve_ns += gap;
      }
    }
    o->in_runtime = 0;
    /* the switch to it (a resumption, or its first run), before its Enter on a first run */
    if (hp_omp_tracing()) hp_omp_tr_task(o, HP_TREC_OMP_TASK_SWITCH, next);
    if (next->thread != o->t) {
      /* first run (or an untied task resumed on another thread): its frame (samples stop at the
       * task's exit frame: the sample hook knows it) */
      int32_t level = 0; /* 0: no frame (untimed, or the tool's stack is full), -1: beyond the core's stack */
      next->start_ns = now;
      next->task_ns_at_start = o->task_ns;
      next->untimed_ns_at_start = o->untimed_ns;
      if (hp_omp_untimed(next->ev))
        next->untimed = 1;
      else if (o->depth < HP_OMP_STACK)
        /* the Enter after the switch record, which read the clock itself: a traced run reads again */
        level = hp_stack_push_detached_at(o->t, next->event, next->parent_context, 0, anchor_of(o, next->parent_context),
                                          hp_omp_tracing() ? hp_now_ns() : now);
      else
        o->table_full++;
      if (level > 0) o->stack[o->depth++] = (hp_omp_frame){next->event, HP_OMP_TASK, level};
      next->level = level;
      next->thread = o->t;
      if (next->stat_owner != o) { /* run by another thread than its creator: this thread's record */
        next->stat = hp_omp_task_stat(o, next->event);
        next->stat_owner = o;
      }
    }
    hp_omp_set_working(o, 1);
  }
  hp_tool_leave(o->t);
}

void hp_omp_register_tasks(ompt_set_callback_t set) {
  set(ompt_callback_task_create, (ompt_callback_t)on_task_create);
  set(ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule);
}
