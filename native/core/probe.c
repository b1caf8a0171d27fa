/* The probe API of hyprof.h: start / stop of regions and phases, parameters, by handle or by name.
 *
 * Fast path (hyprof_start / hyprof_stop by handle): one TLS read, one clock read, a frame push; the
 * stop adds to the context's statistics (one hash probe). No lock, no allocation once the context
 * has been seen. `in_tool` is set around each probe so a sample landing inside is dropped, counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "config.h"
#include "events.h"
#include "hyprof.h"
#include "metrics.h"
#include "runtime.h"
#include "stack.h"
#include "functions.h"
#include "stats.h"
#include "throttle.h"
#include "trace.h"
#include "fold.h"
#include "probe.h"

/* The caller's stack pointer just before it called the probe: the CFA of the probe function.
 * Samples unwind up to the frame holding it (the function in which the timer started). */
#define CALLER_CFA() ((uintptr_t)__builtin_dwarf_cfa())

static inline hp_event *handle_event(hyprof_event_t e) { return (hp_event *)e; }

/* Push a frame started at `now`; `anchor` >= 0 makes it a detached frame anchored there (flags hold
 * HP_FRAME_DETACHED, and its call is counted on the anchor), -1 an ordinary one. Returns the new
 * frame's level, or -1 when it is beyond HP_MAX_FRAMES (counted, not kept). */
static inline __attribute__((always_inline)) int32_t push_frame_at(hp_thread *t, uint32_t event, const uint64_t *under, uintptr_t cfa,
                                                                   uint32_t flags, int32_t anchor, uint64_t now) {
  int32_t top = t->top;
  /* frame_cap is HP_MAX_FRAMES but on an ended thread, which keeps its open frames only (thread.h) */
  if (__builtin_expect(top + 1 >= t->frame_cap, 0) && !hp_thread_frames_regrow(t)) {
    t->overflow_depth++;
    t->drops_depth++;
    return -1;
  }
  hp_frame *parent = &t->frames[top];
  hp_frame *f = &t->frames[top + 1];
  uint64_t parent_context = under ? *under : parent->context;
  uint64_t context = hp_context_hash(parent_context, event);
  if (__builtin_expect(hp_fold_series != 0, 0)) flags |= hp_fold_frame_flags(event); /* HYPROF_FOLD: fold.h */
  uint32_t seq = hp_write_begin(t);   /* frame top + 1 may have been read as an open one (thread.h) */
  HP_PUT(f->event, event);
  HP_PUT(f->param_event, HP_NO_EVENT);
  HP_PUT(f->parent_context, parent_context);
  HP_PUT(f->base_context, context);
  HP_PUT(f->context, context);
  HP_PUT(f->start_ns, now);
  HP_PUT(f->child_ns, 0);
  HP_PUT(f->child_calls, 0);
  HP_PUT(f->stack_addr, cfa);
  HP_PUT(f->flags, flags);
  HP_PUT(f->anchor, anchor);
  HP_PUT(f->detached_at_push, t->detached_ns);
  HP_PUT(f->sub_ns, 0);
  if (anchor >= 0)
    HP_ADD(t->frames[anchor].child_calls, 1); /* a child call of its anchor, not of the frame below */
  else if (!(flags & HP_FRAME_NO_STATS))
    HP_ADD(parent->child_calls, 1);
  hp_write_end(t, seq);
  if (__builtin_expect(hp_n_metrics > 1, 0)) hp_metrics_push(t, top + 1); /* HYPROF_METRICS: metrics.h */
  HP_TRACE(t, HP_TREC_ENTER, event, now); /* HYPROF_TRACE: trace.h */
  __atomic_store_n(&t->top, top + 1, __ATOMIC_RELEASE);
  if (__builtin_expect(flags & HP_FRAME_FOLD, 0)) hp_fold_push(t, top + 1);
  return top + 1;
}

static inline __attribute__((always_inline)) int32_t push_frame(hp_thread *t, uint32_t event, const uint64_t *under, uintptr_t cfa, uint32_t flags) {
  return push_frame_at(t, event, under, cfa, flags, -1, hp_now_ns());
}

/* TAU_DISABLE_INSTRUMENTATION: while non-zero, starts push nothing (each is counted on the running
 * frame, so its stop is recognised and dropped too), stops of those record nothing, and parameters
 * and user events are not recorded. One load of a shared, rarely written word per probe. */
static int probes_off;

int hp_probes_off(void) { return __atomic_load_n(&probes_off, __ATOMIC_RELAXED); }

HP_EXPORT void hyprof_disable_instrumentation(void) { __atomic_store_n(&probes_off, 1, __ATOMIC_RELAXED); }
HP_EXPORT void hyprof_enable_instrumentation(void) { __atomic_store_n(&probes_off, 0, __ATOMIC_RELAXED); }

static inline __attribute__((always_inline)) void push(hp_thread *t, uint32_t event, uintptr_t cfa) {
  if (__builtin_expect(__atomic_load_n(&probes_off, __ATOMIC_RELAXED), 0)) {
    hp_frame *f = &t->frames[t->top];
    if ((f->flags & HP_FRAME_SKIPPED) != HP_FRAME_SKIPPED) HP_PUT(f->flags, f->flags + HP_FRAME_SKIP_ONE); /* saturates */
    return;
  }
  hp_tool_enter(t);
  push_frame(t, event, NULL, cfa, 0);
  hp_tool_leave(t);
}

/* Where frame f's running time started: its start, moved by the time of the detached frames that
 * ran while it was suspended (those anchored below it). */
static inline uint64_t run_start(const hp_thread *t, const hp_frame *f) {
  uint64_t d = t->detached_ns - f->detached_at_push;
  return d ? f->start_ns + d - f->sub_ns : f->start_ns;
}

/* Add the parameter specialisation's interval (from hyprof_param to `now`) to its statistics. */
static __attribute__((noinline)) void record_param(hp_thread *t, const hp_frame *f, uint64_t now) {
  uint64_t start = f->param_start_ns + (t->detached_ns - f->detached_at_param) - (f->sub_ns - f->sub_at_param);
  uint64_t pincl = now > start ? now - start : 0;
  uint64_t pchild = f->child_ns - f->child_ns_at_param;
  hp_stat *ps = hp_stat_get(t, f->context, f->parent_context, f->param_event);
  if (ps) {
    uint32_t seq = hp_write_begin(t);
    HP_ADD(ps->calls, 1);
    HP_ADD(ps->child_calls, f->child_calls - f->child_calls_at_param);
    HP_ADD(ps->metric[0].incl, pincl);
    HP_ADD(ps->metric[0].excl, pincl > pchild ? pincl - pchild : 0);
    hp_write_end(t, seq);
  }
  if (hp_n_metrics > 1) hp_metrics_param_close(t, (int32_t)(f - t->frames)); /* HYPROF_METRICS: metrics.h */
}

/* Add the interval of frame `level` (ending at `now`) to its statistics and its parent's child time
 * (a detached frame's to its anchor's: thread.h). Returns its inclusive time.
 * The frame's fields are read once into locals: the statistics are written through another pointer
 * of the same types, which the compiler must otherwise assume may alias them. */
static inline __attribute__((always_inline)) uint64_t close_frame(hp_thread *t, int32_t level, uint64_t now, int throttle) {
  hp_frame *f = &t->frames[level];
  hp_frame *p = f - 1;
  uint64_t child = f->child_ns, child_calls = f->child_calls, sub = f->sub_ns;
  uint32_t flags = f->flags, param_event = f->param_event;
  uint64_t start = run_start(t, f);
  uint64_t incl = now > start ? now - start : 0;
  if (__builtin_expect(hp_trace_on, 0)) { /* HYPROF_TRACE: the specialisation is left first (inside its timer) */
    if (param_event != HP_NO_EVENT) hp_trace_put(t, HP_TREC_LEAVE, param_event, now);
    hp_trace_put(t, HP_TREC_LEAVE, f->event, now);
  }
  uint32_t seq = hp_write_begin(t);   /* a dump may be reading these (thread.h) */
  HP_ADD(p->sub_ns, sub);
  if (__builtin_expect(flags & HP_FRAME_DETACHED, 0)) {
    hp_frame *a = &t->frames[f->anchor >= 0 && f->anchor < level ? f->anchor : level - 1];
    HP_ADD(t->detached_ns, incl);
    HP_ADD(a->sub_ns, incl);
    HP_ADD(a->child_ns, incl);
  } else {
    HP_ADD(p->child_ns, incl);
  }
  if (__builtin_expect(hp_n_metrics > 1, 0)) /* HYPROF_METRICS: metrics.h */
    hp_metrics_close(t, level, (flags & HP_FRAME_DETACHED) && f->anchor >= 0 && f->anchor < level ? f->anchor : level - 1,
                     !(flags & HP_FRAME_NO_STATS));
  if (__builtin_expect(flags & HP_FRAME_FOLD, 0)) hp_fold_close(t, level, incl); /* an instance: fold.h */
  if (flags & HP_FRAME_NO_STATS) {
    hp_write_end(t, seq);
    return incl;
  }
  uint64_t excl = incl > child ? incl - child : 0;
  hp_stat *s = hp_stat_get(t, f->base_context, f->parent_context, f->event);
  if (s) {
    HP_ADD(s->calls, 1);
    HP_ADD(s->child_calls, child_calls);
    HP_ADD(s->metric[0].incl, incl);
    HP_ADD(s->metric[0].excl, excl);
  }
  hp_write_end(t, seq);
  if (s && throttle) hp_throttle_check(f->event, s);
  if (param_event != HP_NO_EVENT) record_param(t, f, now);
  return incl;
}

static const char *event_name(uint32_t id) {
  hp_event *e = hp_event_get(id);
  return e ? e->name : "?";
}

/* Stop `event` at `now` on t, which is inside the tool; the general case (pop's fast path takes the
 * innermost frame): frames beyond HP_MAX_FRAMES, misuse. Returns the inclusive time of the frame
 * stopped (0 when none was). */
static __attribute__((noinline)) uint64_t pop_in_tool(hp_thread *t, uint32_t event, uint64_t now) {
  if (t->overflow_depth) {
    t->overflow_depth--;
    return 0;
  }
  int32_t top = t->top;
  if (top <= 0) {
    hp_thread_warn(t, "stop of '%s' while no timer is running on thread %u; ignored", event_name(event), t->index);
    return 0;
  }
  int32_t level = top;
  while (level > 0 && t->frames[level].event != event) level--;
  if (level == 0) {
    hp_thread_warn(t, "stop of '%s', which is not running on thread %u (innermost running: '%s'); ignored",
                   event_name(event), t->index, event_name(t->frames[top].event));
    return 0;
  }
  for (int32_t i = top; i > level; i--) {
    hp_event *above = hp_event_get(t->frames[i].event);
    if (above && HP_THROTTLED(above)) { /* started before it was throttled; its stop was skipped */
      close_frame(t, i, now, 0);
      continue;
    }
    hp_thread_warn(t, "stop of '%s' while '%s', started inside it, is still running on thread %u; '%s' is stopped too",
                   event_name(event), event_name(t->frames[i].event), t->index, event_name(t->frames[i].event));
    close_frame(t, i, now, 0);
  }
  uint64_t incl = close_frame(t, level, now, 0);
  __atomic_store_n(&t->top, level - 1, __ATOMIC_RELEASE);
  return incl;
}

/* The stop of a probe or of an instrumented function, which may throttle its timer. (Of the other
 * timers only OpenMP's explicit tasks and task waits are throttled, through hp_stack_pop_level:
 * ompt/tasks.c; MPI calls and the other OpenMP constructs never are: their starts do not look at
 * the flag.) */
static inline __attribute__((always_inline)) void pop(hp_thread *t, uint32_t event) {
  hp_tool_enter(t);
  uint64_t now = hp_now_ns();
  int32_t top = t->top;
  if (__builtin_expect(!t->overflow_depth && top > 0 && t->frames[top].event == event && !(t->frames[top].flags & HP_FRAME_SKIPPED), 1)) {
    close_frame(t, top, now, 1);
    __atomic_store_n(&t->top, top - 1, __ATOMIC_RELEASE);
    hp_tool_leave(t);
    return;
  }
  if (t->frames[top].flags & HP_FRAME_SKIPPED) {
    HP_PUT(t->frames[top].flags, t->frames[top].flags - HP_FRAME_SKIP_ONE); /* the stop of a start made while instrumentation was disabled */
  } else {
    pop_in_tool(t, event, now);
  }
  hp_tool_leave(t);
}

/* The stop of a throttled timer (throttle.h): its starts push nothing, so its stops pop nothing, but
 * for a frame started before it was throttled (on another thread, say), still the innermost. */
static __attribute__((noinline)) void throttled_stop(hp_thread *t, uint32_t event) {
  if (t->top > 0 && !t->overflow_depth && t->frames[t->top].event == event) pop(t, event);
}

HP_EXPORT hyprof_event_t hyprof_event(const char *name, const char *group) {
  if (!hp_init() || !name) return NULL;
  return (hyprof_event_t)hp_event_intern(name, group, HP_KIND_REGION, 0);
}

HP_EXPORT hyprof_event_t hyprof_phase(const char *name, const char *group) {
  if (!hp_init() || !name) return NULL;
  char g[256];
  snprintf(g, sizeof g, "%s|TAU_PHASE", group ? group : "TAU_USER");
  return (hyprof_event_t)hp_event_intern(name, g, HP_KIND_PHASE, 0);
}

HP_EXPORT __attribute__((noinline)) void hyprof_start(hyprof_event_t e) {
  uintptr_t cfa = CALLER_CFA();
  hp_thread *t = hp_thread_self();
  if (!t || !e) return;
  hp_event *ev = handle_event(e);
  if (HP_THROTTLED(ev)) return;
  push(t, ev->id, cfa);
}

void hp_start_at(hyprof_event_t e, uintptr_t cfa) {
  hp_thread *t = hp_thread_self();
  if (t && e) push(t, handle_event(e)->id, cfa);
}

HP_EXPORT void hyprof_stop(hyprof_event_t e) {
  hp_thread *t = hp_thread_self();
  if (!t || !e) return;
  hp_event *ev = handle_event(e);
  if (!HP_THROTTLED(ev))
    pop(t, ev->id);
  else
    throttled_stop(t, ev->id);
}

/* The functions by name (hyprof.h's macros call them for names that are not literals; the names are
 * in parentheses so those macros do not expand here).
 * Names are interned once; a small per-thread cache keyed by the name's address (checked by content,
 * since a buffer may be reused for another name) spares the registry lock. It lives in the thread
 * state, not in TLS: the addon is dlopen'ed, where static TLS is scarce. */
#define NAME_CACHE (sizeof(((hp_name_cache *)0)->slot[0]) / sizeof(((hp_name_cache *)0)->slot[0][0]))

static hp_event *named(hp_thread *t, const char *name, int phase) {
  size_t k = ((uintptr_t)name >> 4) % NAME_CACHE;
  hp_name_cache *nc = t->name_cache;   /* NULL on an ended thread (thread.h) */
  hp_event *c = nc ? nc->slot[phase][k].event : NULL;
  if (c && nc->slot[phase][k].ptr == name && strcmp(c->name, name) == 0) return c;
  hp_event *e = phase ? (hp_event *)hyprof_phase(name, NULL) : (hp_event *)hyprof_event(name, NULL);
  if (nc) {
    nc->slot[phase][k].ptr = name;
    nc->slot[phase][k].event = e;
  }
  return e;
}

HP_EXPORT __attribute__((noinline)) void(hyprof_start_named)(const char *name) {
  uintptr_t cfa = CALLER_CFA();
  hp_thread *t = hp_thread_self();
  if (!t || !name) return;
  hp_event *e = named(t, name, 0);
  if (e && !HP_THROTTLED(e)) push(t, e->id, cfa);
}

void hp_start_named_at(const char *name, int phase, uintptr_t cfa) {
  hp_thread *t = hp_thread_self();
  if (!t || !name) return;
  hp_event *e = named(t, name, phase ? 1 : 0);
  if (e) push(t, e->id, cfa);
}

HP_EXPORT void(hyprof_stop_named)(const char *name) {
  hp_thread *t = hp_thread_self();
  if (!t || !name) return;
  hp_event *e = named(t, name, 0);
  if (e && !HP_THROTTLED(e))
    pop(t, e->id);
  else if (e)
    throttled_stop(t, e->id);
}

HP_EXPORT __attribute__((noinline)) void(hyprof_phase_start)(const char *name) {
  uintptr_t cfa = CALLER_CFA();
  hp_thread *t = hp_thread_self();
  if (!t || !name) return;
  hp_event *e = named(t, name, 1);
  if (e && !HP_THROTTLED(e)) push(t, e->id, cfa);
}

HP_EXPORT void(hyprof_phase_stop)(const char *name) {
  hp_thread *t = hp_thread_self();
  if (!t || !name) return;
  hp_event *e = named(t, name, 1);
  if (e && !HP_THROTTLED(e))
    pop(t, e->id);
  else if (e)
    throttled_stop(t, e->id);
}

HP_EXPORT void hyprof_stop_current(void) {
  hp_thread *t = hp_thread_self();
  if (!t) return;
  if ((t->frames[t->top].flags & HP_FRAME_SKIPPED) || t->overflow_depth) {
    pop(t, HP_NO_EVENT); /* a start not kept: pop only counts it off */
    return;
  }
  if (t->top > 0) pop(t, t->frames[t->top].event);
  else hp_thread_warn(t, "stop of the running timer while no timer is running on thread %u; ignored", t->index);
}

HP_EXPORT void hyprof_param(const char *name, long long value) {
  hp_thread *t = hp_thread_self();
  if (!t || !name || hp_probes_off()) return;
  hp_tool_enter(t);
  int32_t top = t->top;
  if (top <= 0 || t->overflow_depth) {
    hp_thread_warn(t, "parameter '%s' set while no timer is running on thread %u; ignored", name, t->index);
    hp_tool_leave(t);
    return;
  }
  hp_frame *f = &t->frames[top];
  hp_event *base = hp_event_get(f->event);
  hp_event *current = f->param_event != HP_NO_EVENT ? hp_event_get(f->param_event) : base;
  /* The present specialisation's interval ends here; a name it already carries gets its new value,
   * another name specialises further (hp_param_intern). */
  int first = f->param_event == HP_NO_EVENT;
  if (!first) {
    uint64_t end = hp_now_ns();
    HP_TRACE(t, HP_TREC_LEAVE, f->param_event, end);
    record_param(t, f, end);
  }
  hp_event *pe = base ? hp_param_intern(base, current, name, value) : NULL;
  if (pe) {
    uint64_t now = hp_now_ns();
    uint32_t seq = hp_write_begin(t);   /* a dump may be reading the frame (thread.h) */
    HP_PUT(f->param_event, pe->id);
    if (first) {
      /* The timer's first parameter covers the whole call, as in TAU (which names the call by its
       * parameter however late in it the parameter is set): the interval starts where the frame
       * did, with the frame's children so far. Only statistics move back: children and samples
       * before this point stay under the timer's own path. */
      HP_PUT(f->detached_at_param, f->detached_at_push);
      HP_PUT(f->sub_at_param, 0);
      HP_PUT(f->param_start_ns, f->start_ns);
      HP_PUT(f->child_ns_at_param, 0);
      HP_PUT(f->child_calls_at_param, 0);
    } else {
      HP_PUT(f->detached_at_param, t->detached_ns);
      HP_PUT(f->sub_at_param, f->sub_ns);
      HP_PUT(f->param_start_ns, now);
      HP_PUT(f->child_ns_at_param, f->child_ns);
      HP_PUT(f->child_calls_at_param, f->child_calls);
    }
    HP_PUT(f->context, hp_context_hash(f->parent_context, pe->id));
    hp_write_end(t, seq);
    if (hp_n_metrics > 1) hp_metrics_param_start(t, top, first); /* HYPROF_METRICS: metrics.h */
    /* The trace enters the specialisation now, its records staying in time order; the profile's
     * first specialisation covers the whole call (above): docs/trace.md says so. */
    HP_TRACE(t, HP_TREC_ENTER, pe->id, now);
  }
  hp_tool_leave(t);
}

HP_EXPORT void hyprof_set_node(int node) {
  if (!hp_init()) return;
  hp_rt.node = node;
  hp_rt.node_set = 1;
}

HP_EXPORT void hyprof_set_thread_name(const char *name) {
  hp_thread *t = hp_thread_self();
  if (!t || !name) return;
  snprintf(t->name, sizeof t->name, "%s", name);
}

HP_EXPORT void hyprof_flush(void) {
  hp_thread *t = hp_thread_self();
  if (!t) return;
  hp_tool_enter(t);
  hp_dump_blocking_signals(HP_DUMP_FLUSH);
  hp_tool_leave(t);
}

HP_EXPORT void hyprof_init(void) { hp_init(); }

HP_EXPORT void hyprof_register_thread(void) { hp_thread_self(); }

HP_EXPORT hyprof_event_t hyprof_tau_timer(const char *name, const char *type, const char *group, int phase) {
  if (!name) return NULL;
  char full[1024];
  if (type && *type)
    snprintf(full, sizeof full, "%s %s", name, type);
  else
    snprintf(full, sizeof full, "%s", name);
  return phase ? hyprof_phase(full, group) : hyprof_event(full, group);
}

/* ---- compiler instrumentation (-finstrument-functions): the hooks gcc, clang and gfortran call ----
 * Exported by libhyprof.so, which the dynamic linker searches before libc (linked with -lhyprof: libc
 * comes last on the link line; preloaded: first of all), so these win over glibc's empty hooks.
 * Not in the Node addon: nothing there is compiled with the flag. */
#ifndef HYPROF_ADDON
/* The thread state of a thread's first instrumented call. Creating it allocates; an instrumented
 * allocator of the program would call back in here, and finds `creating` set. */
static __thread int creating __attribute__((tls_model("initial-exec")));

static __attribute__((noinline)) hp_thread *hook_thread(void) {
  if (creating) return NULL;
  creating = 1;
  hp_thread *t = hp_thread_self();
  creating = 0;
  return t;
}

HP_EXPORT __attribute__((no_instrument_function)) void __cyg_profile_func_enter(void *fn, void *call_site) {
  (void)call_site;
  uintptr_t cfa = CALLER_CFA(); /* inside the instrumented function: samples stop at its frame */
  hp_thread *t = hp_tls_thread;
  if (__builtin_expect(!t, 0) && !(t = hook_thread())) return;
  if (__builtin_expect(t->in_tool, 0)) return; /* a function the runtime itself called (its exit returns too) */
  const hp_func *f = hp_func_find((uintptr_t)fn);
  if (__builtin_expect(!f, 0) && !(f = hp_func_register(t, (uintptr_t)fn))) return;
  hp_event *e = f->event;
  if (!e) return; /* excluded by the selective instrumentation file */
  if (HP_THROTTLED(e)) return;
  push(t, e->id, cfa);
}

HP_EXPORT __attribute__((no_instrument_function)) void __cyg_profile_func_exit(void *fn, void *call_site) {
  (void)call_site;
  hp_thread *t = hp_tls_thread;
  if (__builtin_expect(!t || t->in_tool, 0)) return;
  const hp_func *f = hp_func_find((uintptr_t)fn);
  hp_event *e = f ? f->event : NULL;
  if (!e) return;
  if (!HP_THROTTLED(e))
    pop(t, e->id);
  else
    throttled_stop(t, e->id);
}
#endif

/* ---- core/ext_module.h: the fast path for a module in another shared object (the MPI layer) ---- */

HP_EXPORT uint64_t hyprof_ext_enter(uint32_t id, uintptr_t cfa, uint64_t *context) {
  hp_thread *t = hp_thread_self();
  if (!t || !hp_event_get(id)) return 0;
  hp_tool_enter(t);
  int32_t before = t->top;
  push_frame(t, id, NULL, cfa, 0);
  uint64_t start = 0;
  if (t->top == before + 1) {
    start = t->frames[t->top].start_ns;
    *context = t->frames[t->top].context;
  }
  hp_tool_leave(t);
  return start;
}

HP_EXPORT uint64_t hyprof_ext_leave(uint32_t id) {
  hp_thread *t = hp_thread_current();
  if (!t || !hp_event_get(id)) return 0;
  hp_tool_enter(t);
  uint64_t incl = pop_in_tool(t, id, hp_now_ns());
  hp_tool_leave(t);
  return incl;
}

/* ---- the internal stack API of stack.h (OpenMP tool, Node addon) ---- */

int32_t hp_stack_push_under(hp_thread *t, uint32_t event, uint64_t parent_context, uintptr_t cfa, uint32_t flags) {
  int was_in_tool = t->in_tool;
  hp_tool_enter(t);
  /* No start address of its own (an OpenMP construct, a Node region): samples stop where the frame
   * below stopped them, so chains never climb through the runtime into start-up code. */
  if (!cfa) cfa = t->frames[t->top].stack_addr;
  int32_t level = push_frame(t, event, &parent_context, cfa, flags & (HP_FRAME_NO_STATS | HP_FRAME_FOLD_PART));
  if (!was_in_tool) hp_tool_leave(t);
  return level;
}

int32_t hp_stack_push_detached(hp_thread *t, uint32_t event, uint64_t parent_context, uintptr_t cfa, int32_t anchor) {
  return hp_stack_push_detached_at(t, event, parent_context, cfa, anchor, hp_now_ns());
}

/* One pass over the new frame (an OpenMP task's, once per task at level full): flags and anchor are
 * written with the rest, and the clock reading is the caller's. */
int32_t hp_stack_push_detached_at(hp_thread *t, uint32_t event, uint64_t parent_context, uintptr_t cfa, int32_t anchor,
                                  uint64_t now) {
  int was_in_tool = t->in_tool;
  hp_tool_enter(t);
  int32_t top = t->top;
  if (anchor < 0 || anchor > top) anchor = top;
  if (!cfa) cfa = t->frames[top].stack_addr; /* as hp_stack_push_under */
  int32_t level = push_frame_at(t, event, &parent_context, cfa, HP_FRAME_DETACHED, anchor, now);
  if (!was_in_tool) hp_tool_leave(t);
  return level;
}

uint64_t hp_stack_pop_event(hp_thread *t, uint32_t event) {
  int was_in_tool = t->in_tool;
  hp_tool_enter(t);
  uint64_t incl = pop_in_tool(t, event, hp_now_ns());
  if (!was_in_tool) hp_tool_leave(t);
  return incl;
}

uint64_t hp_stack_pop_level(hp_thread *t, int32_t level, uint32_t event, uint64_t now, int throttle) {
  int was_in_tool = t->in_tool;
  hp_tool_enter(t);
  uint64_t incl;
  /* the innermost frame, as pushed: what pop_in_tool would do, without its search */
  if (__builtin_expect(!t->overflow_depth && level > 0 && level == t->top && t->frames[level].event == event, 1)) {
    incl = close_frame(t, level, now, throttle);
    __atomic_store_n(&t->top, level - 1, __ATOMIC_RELEASE);
  } else {
    incl = pop_in_tool(t, event, now);
  }
  if (!was_in_tool) hp_tool_leave(t);
  return incl;
}

int32_t hp_stack_find_context(const hp_thread *t, uint64_t context, int32_t lowest) {
  if (lowest < 0) lowest = 0;
  for (int32_t i = t->top; i >= lowest; i--)
    if (t->frames[i].context == context) return i;
  return -1;
}

void hp_stack_set_cfa(hp_thread *t, int32_t level, uintptr_t cfa) {
  if (level >= 0 && level <= t->top) __atomic_store_n(&t->frames[level].stack_addr, cfa, __ATOMIC_RELAXED);
}

void hp_stat_record(hp_thread *t, uint64_t context, uint64_t parent, uint32_t event, uint64_t calls,
                    uint64_t child_calls, uint64_t incl_ns, uint64_t excl_ns) {
  int was_in_tool = t->in_tool;
  hp_tool_enter(t);
  hp_stat *s = hp_stat_get(t, context, parent, event);
  if (s) {
    uint32_t seq = hp_write_begin(t);   /* a dump may be reading it (thread.h) */
    HP_ADD(s->calls, calls);
    HP_ADD(s->child_calls, child_calls);
    HP_ADD(s->metric[0].incl, incl_ns);
    HP_ADD(s->metric[0].excl, excl_ns);
    hp_write_end(t, seq);
  }
  if (!was_in_tool) hp_tool_leave(t);
}
