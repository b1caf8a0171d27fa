/* The C side of the Fortran module `hyprof` (native/include/hyprof.f90): its BIND(C) interfaces name
 * these functions. Strings arrive as Fortran 2018 C descriptors (CHARACTER(len=*) dummies), so a
 * program passes ordinary Fortran strings, trailing blanks and all; handles arrive as the module's
 * BIND(C) types, which hold one C pointer. Each start passes its own CFA (the program's stack pointer
 * at the call) so samples unwind exactly as far as for a C program's hyprof_start. */
#include <stdint.h>

#include "../core/config.h"
#include "../core/probe.h"
#include "fstring.h"
#include "hyprof.h"
#include "../core/runtime.h"

#define CALLER_CFA() ((uintptr_t)__builtin_dwarf_cfa())

/* type(hyprof_event_t) and type(hyprof_user_event_t) of the module. */
typedef struct {
  hyprof_event_t handle;
} hp_f_event;
typedef struct {
  hyprof_user_event_t handle;
} hp_f_user_event;

static int named_ok(const hp_fstring *s, const char *routine) {
  if (!s->str) return 0;
  if (*s->str) return 1;
  static int said;
  if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
    hp_warn("%s: the name is empty (blank); ignored (said once for every Fortran routine)", routine);
  return 0;
}

#define WITH_NAME(desc, var)                                       \
  hp_fstring var;                                                  \
  hp_fstring_make(&var, (const char *)(desc)->base_addr, (desc)->elem_len)

HP_EXPORT hp_f_event hyprof_f_event(const hp_cfi_string *name, const hp_cfi_string *group) {
  hp_f_event ev = {0};
  WITH_NAME(name, n);
  if (named_ok(&n, "hyprof_event")) {
    hp_fstring g = {0};
    if (group) hp_fstring_make(&g, (const char *)group->base_addr, group->elem_len);
    ev.handle = hyprof_event(n.str, g.str && *g.str ? g.str : NULL);
    hp_fstring_done(&g);
  }
  hp_fstring_done(&n);
  return ev;
}

HP_EXPORT hp_f_event hyprof_f_phase(const hp_cfi_string *name, const hp_cfi_string *group) {
  hp_f_event ev = {0};
  WITH_NAME(name, n);
  if (named_ok(&n, "hyprof_phase")) {
    hp_fstring g = {0};
    if (group) hp_fstring_make(&g, (const char *)group->base_addr, group->elem_len);
    ev.handle = hyprof_phase(n.str, g.str && *g.str ? g.str : NULL);
    hp_fstring_done(&g);
  }
  hp_fstring_done(&n);
  return ev;
}

HP_EXPORT __attribute__((noinline)) void hyprof_f_start(hp_f_event ev) { hp_start_at(ev.handle, CALLER_CFA()); }
HP_EXPORT void hyprof_f_stop(hp_f_event ev) { hyprof_stop(ev.handle); }

HP_EXPORT __attribute__((noinline)) void hyprof_f_start_named(const hp_cfi_string *name) {
  uintptr_t cfa = CALLER_CFA();
  WITH_NAME(name, n);
  if (named_ok(&n, "hyprof_start_named")) hp_start_named_at(n.str, 0, cfa);
  hp_fstring_done(&n);
}

HP_EXPORT void hyprof_f_stop_named(const hp_cfi_string *name) {
  WITH_NAME(name, n);
  if (named_ok(&n, "hyprof_stop_named")) (hyprof_stop_named)(n.str);
  hp_fstring_done(&n);
}

HP_EXPORT __attribute__((noinline)) void hyprof_f_phase_start(const hp_cfi_string *name) {
  uintptr_t cfa = CALLER_CFA();
  WITH_NAME(name, n);
  if (named_ok(&n, "hyprof_phase_start")) hp_start_named_at(n.str, 1, cfa);
  hp_fstring_done(&n);
}

HP_EXPORT void hyprof_f_phase_stop(const hp_cfi_string *name) {
  WITH_NAME(name, n);
  if (named_ok(&n, "hyprof_phase_stop")) (hyprof_phase_stop)(n.str);
  hp_fstring_done(&n);
}

HP_EXPORT void hyprof_f_param_i4(const hp_cfi_string *name, int32_t value) {
  WITH_NAME(name, n);
  if (named_ok(&n, "hyprof_param")) hyprof_param(n.str, value);
  hp_fstring_done(&n);
}

HP_EXPORT void hyprof_f_param_i8(const hp_cfi_string *name, int64_t value) {
  WITH_NAME(name, n);
  if (named_ok(&n, "hyprof_param")) hyprof_param(n.str, (long long)value);
  hp_fstring_done(&n);
}

HP_EXPORT void hyprof_f_set_thread_name(const hp_cfi_string *name) {
  WITH_NAME(name, n);
  if (named_ok(&n, "hyprof_set_thread_name")) hyprof_set_thread_name(n.str);
  hp_fstring_done(&n);
}

HP_EXPORT void hyprof_f_metadata(const hp_cfi_string *name, const hp_cfi_string *value) {
  WITH_NAME(name, n);
  WITH_NAME(value, v);
  if (named_ok(&n, "hyprof_metadata") && v.str) hyprof_metadata(n.str, v.str);
  hp_fstring_done(&v);
  hp_fstring_done(&n);
}

HP_EXPORT hp_f_user_event hyprof_f_user_event(const hp_cfi_string *name) {
  hp_f_user_event ue = {0};
  WITH_NAME(name, n);
  if (named_ok(&n, "hyprof_user_event")) ue.handle = hyprof_user_event(n.str);
  hp_fstring_done(&n);
  return ue;
}

/* The value of a trigger in each kind a program is likely to hold it in (a generic interface). */
HP_EXPORT void hyprof_f_trigger_r8(hp_f_user_event ue, double v) { hyprof_user_event_trigger(ue.handle, v); }
HP_EXPORT void hyprof_f_trigger_r4(hp_f_user_event ue, float v) { hyprof_user_event_trigger(ue.handle, v); }
HP_EXPORT void hyprof_f_trigger_i4(hp_f_user_event ue, int32_t v) { hyprof_user_event_trigger(ue.handle, v); }
HP_EXPORT void hyprof_f_trigger_i8(hp_f_user_event ue, int64_t v) { hyprof_user_event_trigger(ue.handle, (double)v); }
HP_EXPORT void hyprof_f_context_trigger_r8(hp_f_user_event ue, double v) { hyprof_context_event_trigger(ue.handle, v); }
HP_EXPORT void hyprof_f_context_trigger_r4(hp_f_user_event ue, float v) { hyprof_context_event_trigger(ue.handle, v); }
HP_EXPORT void hyprof_f_context_trigger_i4(hp_f_user_event ue, int32_t v) { hyprof_context_event_trigger(ue.handle, v); }
HP_EXPORT void hyprof_f_context_trigger_i8(hp_f_user_event ue, int64_t v) { hyprof_context_event_trigger(ue.handle, (double)v); }
