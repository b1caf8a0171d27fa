/* The exported entry points of ext.h (front ends in another shared object: the Node addon). Each is
 * a thin wrapper over the core's stack API; see ext.h for why they are exported. */
#include "ext.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "events.h"
#include "fold.h"
#include "metrics.h"
#include "hyprof.h"
#include "runtime.h"
#include "stack.h"

HP_EXPORT uint32_t hyprof_ext_event(const char *name, const char *group, int phase) {
  hp_event *e = (hp_event *)(phase ? hyprof_phase(name, group) : hyprof_event(name, group));
  return e ? e->id : HYPROF_EXT_NO_EVENT;
}

/* No stop address (0: samples unwind to the depth limit). The stack pointer of this call is deeper
 * than the JavaScript function that called the probe (the addon's and V8's API frames sit below it),
 * and the region's function later runs at about that depth: stopping there would cut every
 * JavaScript frame but the sampled one. */
HP_EXPORT int hyprof_ext_start(uint32_t id) {
  hp_thread *t = hp_thread_self();
  if (!t) return 1; /* measurement off: not the caller's error */
  if (!hp_event_get(id)) return 0;
  hp_stack_push_under(t, id, hp_stack_context(t), 0, 0);
  return 1;
}

HP_EXPORT int hyprof_ext_stop(uint32_t id) {
  hp_thread *t = hp_thread_self();
  if (!t) return 1;
  if (!hp_event_get(id)) return 0;
  hp_stack_pop_event(t, id);
  return 1;
}

HP_EXPORT uint64_t hyprof_ext_context(void) {
  hp_thread *t = hp_thread_self();
  return t ? hp_stack_context(t) : 0;
}

HP_EXPORT uint64_t hyprof_ext_now(void) { return hp_now_ns(); }

HP_EXPORT void hyprof_ext_count_child_call(void) {
  hp_thread *t = hp_thread_self();
  if (t) {
    uint32_t seq = hp_write_begin(t);   /* a dump may be reading it (thread.h) */
    HP_ADD(t->frames[t->top].child_calls, 1);
    hp_write_end(t, seq);
  }
}

/* No stop address, for the reason given at hyprof_ext_start. */
_Static_assert(HYPROF_EXT_MAX_METRICS == HP_MAX_METRICS, "ext.h's metric arrays are the runtime's");

HP_EXPORT void hyprof_ext_slice_begin(uint32_t id, uint64_t parent_context, uint64_t region_start_ns,
                                      const uint64_t region_mstart[HYPROF_EXT_MAX_METRICS]) {
  hp_thread *t = hp_thread_self();
  if (!t || !hp_event_get(id)) return;
  /* HYPROF_FOLD: the slice is a part of the region's instance, which starts at region_start_ns */
  if (hp_fold_series) hp_fold_part_start(t, t->top + 1, region_start_ns, hp_n_metrics > 1 ? region_mstart : NULL);
  hp_stack_push_under(t, id, parent_context, 0, HP_FRAME_NO_STATS | HP_FRAME_FOLD_PART);
}

HP_EXPORT int hyprof_ext_slice_end(uint32_t id, uint64_t *len_ns, uint64_t *child_ns, uint64_t *child_calls) {
  hp_thread *t = hp_thread_self();
  if (!t || t->overflow_depth) return 0;
  /* Normally the innermost frame; deeper when the slice started a timer it did not stop (then
   * hp_stack_pop_event stops that timer too, with a warning naming it). */
  int32_t level = t->top;
  while (level > 0 && !(t->frames[level].event == id && (t->frames[level].flags & HP_FRAME_NO_STATS))) level--;
  if (level <= 0) return 0;
  hp_frame *f = &t->frames[level];
  *len_ns = hp_now_ns() - f->start_ns;
  *child_ns = f->child_ns;
  *child_calls = f->child_calls;
  hp_stack_pop_event(t, id);
  return 1;
}

HP_EXPORT int hyprof_ext_adopt(uint32_t id, uint32_t *slice_event, uint64_t *parent_context, uint64_t *start_ns,
                               uint64_t *excl_ns, uint64_t *child_calls, uint64_t mstart[HYPROF_EXT_MAX_METRICS]) {
  hp_thread *t = hp_thread_self();
  if (!t || t->overflow_depth) return 0;
  int32_t top = t->top;
  hp_frame *f = &t->frames[top];
  if (top <= 0 || f->event != id || (f->flags & HP_FRAME_NO_STATS)) return 0;
  uint64_t len = hp_now_ns() - f->start_ns;
  *slice_event = f->param_event != HP_NO_EVENT ? f->param_event : f->event;
  *parent_context = f->parent_context;
  *start_ns = f->start_ns;
  *excl_ns = len > f->child_ns ? len - f->child_ns : 0;
  *child_calls = f->child_calls;
  for (uint32_t m = 0; m < HP_MAX_METRICS; m++) mstart[m] = hp_n_metrics > 1 && t->mframes ? t->mframes[top].start[m] : 0;
  /* The parent already counted this call at the start; popping a NO_STATS frame gives it the child
   * time and records nothing else; a folded region's instance goes on (HP_FRAME_FOLD_PART): it is
   * recorded at its settlement. */
  f->flags |= HP_FRAME_NO_STATS | HP_FRAME_FOLD_PART;
  hp_stack_pop_event(t, id);
  return 1;
}

HP_EXPORT void hyprof_ext_metrics(uint64_t v[HYPROF_EXT_MAX_METRICS]) {
  hp_thread *t = hp_thread_self();
  for (uint32_t m = 0; m < HP_MAX_METRICS; m++) v[m] = 0;
  if (t && hp_n_metrics > 1) hp_metrics_read(t, v);
}

HP_EXPORT void hyprof_ext_fold_instance(uint32_t id, uint64_t start_ns, uint64_t dur_ns, const uint64_t mstart[HYPROF_EXT_MAX_METRICS]) {
  hp_thread *t = hp_thread_self();
  if (t && hp_fold_series && hp_event_get(id)) hp_fold_instance(t, id, start_ns, dur_ns, hp_n_metrics > 1 ? mstart : NULL);
}

HP_EXPORT void hyprof_ext_record(uint64_t context, uint64_t parent, uint32_t id, uint64_t calls,
                                 uint64_t child_calls, uint64_t incl_ns, uint64_t excl_ns) {
  hp_thread *t = hp_thread_self();
  if (t && hp_event_get(id)) hp_stat_record(t, context, parent, id, calls, child_calls, incl_ns, excl_ns);
}

/* The user event `prefix<name of e>`, registered once per event and kept in *slot (two threads may
 * race to register it: both get the same handle, hyprof_user_event finds it by name). */
static hyprof_user_event_t region_user_event(hp_event *e, void **slot, const char *prefix) {
  hyprof_user_event_t ue = (hyprof_user_event_t)__atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (ue) return ue;
  size_t n = strlen(prefix) + strlen(e->name) + 1;
  char *name = malloc(n);
  if (!name) return NULL;
  snprintf(name, n, "%s%s", prefix, e->name);
  ue = hyprof_user_event(name);
  free(name);
  if (ue) __atomic_store_n(slot, (void *)ue, __ATOMIC_RELEASE);
  return ue;
}

HP_EXPORT void hyprof_ext_settled(uint32_t id, uint64_t ns, int settled) {
  hp_event *e = hp_event_get(id);
  if (!e || !hp_thread_self()) return;
  /* microseconds, TAU's unit of time; the name says it, as "GPU Kernel Time (us) : <kernel>" does */
  hyprof_user_event_t ue = settled ? region_user_event(e, &e->settle_ue, "Settle time (us) : ")
                                   : region_user_event(e, &e->unsettled_ue, "Unsettled at exit, time so far (us) : ");
  hyprof_user_event_trigger(ue, (double)ns / 1e3);
}

HP_EXPORT uint64_t hyprof_ext_context_of(uint64_t parent, uint32_t id) { return hp_context_hash(parent, id); }

HP_EXPORT void hyprof_ext_warn(const char *text) {
  hp_thread *t = hp_thread_self();
  if (t) hp_thread_warn(t, "%s", text);
}

HP_EXPORT uint32_t hyprof_ext_param_event(uint32_t current, uint32_t base, const char *name, long long value) {
  if (!hp_init() || !name) return HYPROF_EXT_NO_EVENT;
  hp_event *b = hp_event_get(base), *c = hp_event_get(current);
  if (!b || !c) return HYPROF_EXT_NO_EVENT;
  /* The same names as hyprof_param (probe.c). */
  hp_event *pe = hp_param_intern(b, c, name, value);
  return pe ? pe->id : HYPROF_EXT_NO_EVENT;
}
