/* TAU's Fortran API, as TAU's Fortran examples call it (`call TAU_PROFILE_TIMER(profiler, 'name')`),
 * under gfortran's calling convention: lower-case names with a trailing underscore, every argument
 * by reference, and the length of each CHARACTER argument as a hidden size_t after all the others.
 *
 * A timer or event handle lives in the program's `integer profiler(2)` / `integer eventid(2)` (eight
 * bytes, SAVEd, zero at first), as with TAU: registered on the first call, reused afterwards. Names
 * lose their trailing blanks. Timers are in group TAU_DEFAULT, as TAU's Fortran timers are. */
#include <stddef.h>
#include <stdint.h>

#include "../core/config.h"
#include "../core/probe.h"
#include "../core/runtime.h"
#include "fstring.h"
#include "hyprof.h"

#define CALLER_CFA() ((uintptr_t)__builtin_dwarf_cfa())

static int named_ok(const hp_fstring *s, const char *routine) {
  if (!s->str) return 0;
  if (*s->str) return 1;
  static int said;
  if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
    hp_warn("%s: the name is empty (blank); ignored (said once for every TAU Fortran routine)", routine);
  return 0;
}

static void *timer(const char *chars, size_t len, int phase, const char *routine) {
  hp_fstring n;
  hp_fstring_make(&n, chars, len);
  void *h = named_ok(&n, routine) ? (void *)hyprof_tau_timer(n.str, "", "TAU_DEFAULT", phase) : NULL;
  hp_fstring_done(&n);
  return h;
}

static void *user_event(const char *chars, size_t len, const char *routine) {
  hp_fstring n;
  hp_fstring_make(&n, chars, len);
  void *h = named_ok(&n, routine) ? (void *)hyprof_user_event(n.str) : NULL;
  hp_fstring_done(&n);
  return h;
}

static hyprof_event_t handle(void *const *ptr) { return ptr ? (hyprof_event_t)__atomic_load_n(ptr, __ATOMIC_ACQUIRE) : NULL; }

static void set_once(void **ptr, void *h) {
  void *none = NULL;
  if (ptr && h) __atomic_compare_exchange_n(ptr, &none, h, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* ---- set-up ---- */

HP_EXPORT void tau_profile_init_(void) { hyprof_init(); }
HP_EXPORT void tau_profile_set_node_(const int *node) {
  if (node) hyprof_set_node(*node);
}
/* hyprof writes context 0 for the process itself (as TAU.h's TAU_PROFILE_SET_CONTEXT). */
HP_EXPORT void tau_profile_set_context_(const int *context) { (void)context; hyprof_init(); }
HP_EXPORT void tau_register_thread_(void) { hyprof_register_thread(); }
HP_EXPORT void tau_db_dump_(void) { hyprof_flush(); }
HP_EXPORT void tau_profile_exit_(const char *msg, size_t len) {
  (void)msg;
  (void)len;
  hyprof_flush();
}
HP_EXPORT void tau_enable_instrumentation_(void) { hyprof_enable_instrumentation(); }
HP_EXPORT void tau_disable_instrumentation_(void) { hyprof_disable_instrumentation(); }

HP_EXPORT void tau_metadata_(const char *name, const char *value, size_t name_len, size_t value_len) {
  hp_fstring n, v;
  hp_fstring_make(&n, name, name_len);
  hp_fstring_make(&v, value, value_len);
  if (named_ok(&n, "TAU_METADATA") && v.str) hyprof_metadata(n.str, v.str);
  hp_fstring_done(&v);
  hp_fstring_done(&n);
}

/* ---- timers and phases by handle ---- */

HP_EXPORT void tau_profile_timer_(void **profiler, const char *name, size_t len) {
  if (profiler && !handle(profiler)) set_once(profiler, timer(name, len, 0, "TAU_PROFILE_TIMER"));
}
/* A dynamic timer is looked up on every call: the name may change between calls. */
HP_EXPORT void tau_profile_timer_dynamic_(void **profiler, const char *name, size_t len) {
  if (profiler) *profiler = timer(name, len, 0, "TAU_PROFILE_TIMER_DYNAMIC");
}
HP_EXPORT void tau_phase_create_static_(void **phase, const char *name, size_t len) {
  if (phase && !handle(phase)) set_once(phase, timer(name, len, 1, "TAU_PHASE_CREATE_STATIC"));
}
HP_EXPORT void tau_phase_create_dynamic_(void **phase, const char *name, size_t len) {
  if (phase) *phase = timer(name, len, 1, "TAU_PHASE_CREATE_DYNAMIC");
}

HP_EXPORT __attribute__((noinline)) void tau_profile_start_(void **profiler) { hp_start_at(handle(profiler), CALLER_CFA()); }
HP_EXPORT void tau_profile_stop_(void **profiler) { hyprof_stop(handle(profiler)); }
HP_EXPORT __attribute__((noinline)) void tau_phase_start_(void **phase) { hp_start_at(handle(phase), CALLER_CFA()); }
HP_EXPORT void tau_phase_stop_(void **phase) { hyprof_stop(handle(phase)); }

/* ---- timers and phases by name ---- */

static void start_named(const char *name, size_t len, int phase, uintptr_t cfa, const char *routine) {
  hp_fstring n;
  hp_fstring_make(&n, name, len);
  if (named_ok(&n, routine)) hp_start_named_at(n.str, phase, cfa);
  hp_fstring_done(&n);
}

static void stop_named(const char *name, size_t len, int phase, const char *routine) {
  hp_fstring n;
  hp_fstring_make(&n, name, len);
  if (named_ok(&n, routine)) {
    if (phase)
      (hyprof_phase_stop)(n.str);
    else
      (hyprof_stop_named)(n.str);
  }
  hp_fstring_done(&n);
}

HP_EXPORT __attribute__((noinline)) void tau_start_(const char *name, size_t len) { start_named(name, len, 0, CALLER_CFA(), "TAU_START"); }
HP_EXPORT void tau_stop_(const char *name, size_t len) { stop_named(name, len, 0, "TAU_STOP"); }
HP_EXPORT __attribute__((noinline)) void tau_static_phase_start_(const char *name, size_t len) {
  start_named(name, len, 1, CALLER_CFA(), "TAU_STATIC_PHASE_START");
}
HP_EXPORT void tau_static_phase_stop_(const char *name, size_t len) { stop_named(name, len, 1, "TAU_STATIC_PHASE_STOP"); }
HP_EXPORT __attribute__((noinline)) void tau_dynamic_phase_start_(const char *name, size_t len) {
  start_named(name, len, 1, CALLER_CFA(), "TAU_DYNAMIC_PHASE_START");
}
HP_EXPORT void tau_dynamic_phase_stop_(const char *name, size_t len) { stop_named(name, len, 1, "TAU_DYNAMIC_PHASE_STOP"); }

/* ---- parameters ---- */

/* TAU_PROFILE_PARAM1L(value, name): TAU's argument order, the value an integer(8) (a C long). */
HP_EXPORT void tau_profile_param1l_(const long *value, const char *name, size_t len) {
  hp_fstring n;
  hp_fstring_make(&n, name, len);
  if (value && named_ok(&n, "TAU_PROFILE_PARAM1L")) hyprof_param(n.str, *value);
  hp_fstring_done(&n);
}

/* TAU_PROFILE_PARAM_1L(name, value): TAU's other spelling, as TAU's Fortran examples call it, with
 * TAU's argument order for it (the name first) and TAU's type: a default integer (a C int), so
 * `call TAU_PROFILE_PARAM_1L('n', 50)` passes a literal as it does with TAU. */
HP_EXPORT void tau_profile_param_1l_(const char *name, const int *value, size_t len) {
  hp_fstring n;
  hp_fstring_make(&n, name, len);
  if (value && named_ok(&n, "TAU_PROFILE_PARAM_1L")) hyprof_param(n.str, *value);
  hp_fstring_done(&n);
}

/* ---- user events; values are real(8), as TAU reads them ---- */

HP_EXPORT void tau_register_event_(void **event, const char *name, size_t len) {
  if (event && !handle(event)) set_once(event, user_event(name, len, "TAU_REGISTER_EVENT"));
}
HP_EXPORT void tau_register_context_event_(void **event, const char *name, size_t len) {
  if (event && !handle(event)) set_once(event, user_event(name, len, "TAU_REGISTER_CONTEXT_EVENT"));
}
HP_EXPORT void tau_event_(void **event, const double *value) {
  if (event && value) hyprof_user_event_trigger((hyprof_user_event_t)handle(event), *value);
}
HP_EXPORT void tau_context_event_(void **event, const double *value) {
  if (event && value) hyprof_context_event_trigger((hyprof_user_event_t)handle(event), *value);
}
HP_EXPORT void tau_trigger_event_(const char *name, const double *value, size_t len) {
  void *h = user_event(name, len, "TAU_TRIGGER_EVENT");
  if (h && value) hyprof_user_event_trigger((hyprof_user_event_t)h, *value);
}
HP_EXPORT void tau_trigger_context_event_(const char *name, const double *value, size_t len) {
  void *h = user_event(name, len, "TAU_TRIGGER_CONTEXT_EVENT");
  if (h && value) hyprof_context_event_trigger((hyprof_user_event_t)h, *value);
}
