/* Explicit tasks (level full; seed 003): task instances are created, switched and completed.
 *
 * A task runs under its creator's context at creation (so it appears where it was created, whatever
 * thread runs it). Its frame gives samples that context but records no statistics itself
 * (HP_FRAME_NO_STATS): the task's statistics are recorded whole at completion, with the time it was
 * suspended (a tied task waiting at a taskwait while its children run on top of it) left out of its
 * inclusive time. Per thread and task construct: instances created and executed, sum / min / max of
 * their durations. Per thread: dispatch gaps (runtime time from a task's end or a wait's begin to the
 * next task's start; gaps over 100 us count as starvation instead: no task was available). */
#include <stdlib.h>
#include <string.h>

#include "../core/clock.h"
#include "../core/runtime.h"
#include "../core/stack.h"
#include "ompt_int.h"

#define STARVATION_NS 100000u

static void on_task_create(ompt_data_t *enc_task, const ompt_frame_t *enc_frame, ompt_data_t *new_task, int flags,
                           int has_dependences, const void *codeptr) {
  if (!new_task) return;
  new_task->ptr = NULL;
  if (!(flags & ompt_task_explicit)) return;
  hp_omp_thread *o = hp_omp_self();
  if (!o) return;
  hp_tool_enter(o->t);
  hp_omp_task *k = o->free_tasks;
  if (k) {
    o->free_tasks = k->next_free;
    memset(k, 0, sizeof *k);
  } else {
    k = calloc(1, sizeof *k);
  }
  if (k) {
    /* A task created by a task runs under its creator's creation context: recursive tasks (fib)
     * would otherwise make one context per recursion path. */
    hp_omp_task *creator = enc_task ? enc_task->ptr : NULL;
    k->parent_context = creator ? creator->parent_context : hp_stack_context(o->t);
    k->event = hp_omp_event(o, HP_OMP_TASK, codeptr);
    hp_omp_taskstat *s = hp_omp_task_stat(o, k->event);
    if (s) s->created++;
    new_task->ptr = k;
  }
  hp_tool_leave(o->t);
}

static void finish(hp_omp_thread *o, hp_omp_task *k, uint64_t now) {
  hp_thread *t = o->t;
  uint64_t incl_total = now - k->frame_start_ns, child = 0, child_calls = 0;
  if (k->on_stack && k->thread == t) {
    int32_t top = t->top;
    if (top > 0 && t->frames[top].event == k->event) {
      child = t->frames[top].child_ns;
      child_calls = t->frames[top].child_calls;
    }
    hp_omp_pop_kind(o, HP_OMP_TASK);
  }
  uint64_t incl = incl_total > k->susp_total_ns ? incl_total - k->susp_total_ns : 0;
  uint64_t excl = incl_total > child ? incl_total - child : 0;
  if (excl > incl) excl = incl;
  hp_stat_record(t, hp_context_hash(k->parent_context, k->event), k->parent_context, k->event, 1, child_calls, incl,
                 excl);
  hp_omp_taskstat *s = hp_omp_task_stat(o, k->event);
  if (s) {
    s->executed++;
    s->sum_ns += incl;
    if (incl > s->max_ns) s->max_ns = incl;
    if (incl < s->min_ns) s->min_ns = incl;
    int b = incl ? 63 - __builtin_clzll(incl) : 0;
    s->hist[b < HP_OMP_HIST ? b : HP_OMP_HIST - 1]++;
  }
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
    uint64_t ran = now > prior->resumed_ns ? now - prior->resumed_ns : 0;
    o->task_ns += ran;
    if (prior_status == ompt_task_complete || prior_status == ompt_task_cancel ||
        prior_status == ompt_task_late_fulfill) {
      finish(o, prior, now);
      prior_data->ptr = NULL;
    } else {
      prior->suspended_ns = now; /* its frame stays; what runs next nests on top of it */
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
    if (next->on_stack && next->thread == o->t) {
      if (next->suspended_ns) next->susp_total_ns += now - next->suspended_ns;
    } else {
      /* first run, or an untied task resumed on another thread: a frame here */
      hp_omp_push(o, HP_OMP_TASK, next->event, next->parent_context, HP_FRAME_NO_STATS);
      if (!next->on_stack) next->frame_start_ns = now;
      next->on_stack = 1;
      next->thread = o->t;
    }
    next->suspended_ns = 0;
    next->resumed_ns = now;
    hp_omp_set_working(o, 1);
  }
  hp_tool_leave(o->t);
}

void hp_omp_register_tasks(ompt_set_callback_t set) {
  set(ompt_callback_task_create, (ompt_callback_t)on_task_create);
  set(ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule);
}
