/* TAU's common instrumentation macros mapped onto hyprof, so that programs already instrumented for
 * TAU compile and link against hyprof unchanged (`hyprof config --cflags --libs`). The list of what is
 * mapped, and of what is not, is in docs/tau-api.md.
 *
 * Groups are TAU's names as strings (TAU_USER -> "TAU_USER"), which is what the profile shows.
 * TAU_PROFILE_SET_CONTEXT is accepted and ignored: hyprof writes context 0 for the process itself.
 * In C++, names and types may be std::string as well as C strings (TAU_TYPE_STRING, CT). */
#ifndef HYPROF_TAU_H
#define HYPROF_TAU_H

#include <hyprof.h>

#define TAU_DEFAULT "TAU_DEFAULT"
#define TAU_USER "TAU_USER"
#define TAU_USER1 "TAU_USER1"
#define TAU_USER2 "TAU_USER2"
#define TAU_USER3 "TAU_USER3"
#define TAU_USER4 "TAU_USER4"
#define TAU_MESSAGE "TAU_MESSAGE"
#define TAU_PETE "TAU_PETE"
#define TAU_VIZ "TAU_VIZ"
#define TAU_ASSIGN "TAU_ASSIGN"
#define TAU_IO "TAU_IO"
#define TAU_FIELD "TAU_FIELD"
#define TAU_CAT "TAU_CAT"
#define TAU_PARTICLE "TAU_PARTICLE"
#define TAU_DESCRIPTOR_OVERHEAD "TAU_DESCRIPTOR_OVERHEAD"
#define TAU_ACLMPL "TAU_ACLMPL"
#define TAU_LAYOUT "TAU_LAYOUT"
#define TAU_UTILITY "TAU_UTILITY"
#define TAU_GROUP_NAME(name) name
#define TAU_GET_PROFILE_GROUP(name) name

#ifdef __cplusplus
#define HYPROF_TAU_S(s) ::hyprof::tau_c_str(s)
#else
#define HYPROF_TAU_S(s) (s)
#endif

#define TAU_PROFILE_INIT(argc, argv) ((void)(argc), (void)(argv), hyprof_init())
#define TAU_INIT(argc, argv) ((void)(argc), (void)(argv), hyprof_init())
#define TAU_PROFILE_SET_NODE(node) hyprof_set_node(node)
#define TAU_PROFILE_SET_CONTEXT(context) ((void)(context))
#define TAU_REGISTER_THREAD() hyprof_register_thread()
/* A forked child: hyprof's runtime already gives it a profile of its own without the parent's data
 * (TAU_EXCLUDE_PARENT_DATA, the one option hyprof has: TAU_INCLUDE_PARENT_DATA is not defined, so a
 * program asking for it does not compile); the child takes the node number given, as in TAU. */
#define TAU_EXCLUDE_PARENT_DATA 0
#define TAU_REGISTER_FORK(node, option) \
  ((void)sizeof(char[(option) == TAU_EXCLUDE_PARENT_DATA ? 1 : -1]), hyprof_set_node(node))
#define TAU_DB_DUMP() hyprof_flush()
#define TAU_PROFILE_EXIT(msg) hyprof_flush()
#define TAU_METADATA(name, value) hyprof_metadata(HYPROF_TAU_S(name), HYPROF_TAU_S(value))
/* TAU attaches this to the running timer's context; hyprof's metadata belongs to the whole thread
 * profile, so it is recorded as TAU_METADATA records it (docs/tau-api.md). */
#define TAU_CONTEXT_METADATA(name, value) hyprof_metadata(HYPROF_TAU_S(name), HYPROF_TAU_S(value))

/* A process-wide switch: while off, probes record nothing (hyprof.h). */
#define TAU_DISABLE_INSTRUMENTATION() hyprof_disable_instrumentation()
#define TAU_ENABLE_INSTRUMENTATION() hyprof_enable_instrumentation()

/* Timers by name. */
#define TAU_START(name) hyprof_start_named(name)
#define TAU_STOP(name) hyprof_stop_named(name)
#define TAU_STATIC_TIMER_START(name) hyprof_start_named(name)
#define TAU_STATIC_TIMER_STOP(name) hyprof_stop_named(name)
#define TAU_DYNAMIC_TIMER_START(name) hyprof_start_named(name)
#define TAU_DYNAMIC_TIMER_STOP(name) hyprof_stop_named(name)

/* Timers by handle: registered once (static), started and stopped by handle. */
#define TAU_PROFILE_TIMER(var, name, type, group) \
  static hyprof_event_t var = 0;                  \
  if (!var) var = hyprof_tau_timer(HYPROF_TAU_S(name), HYPROF_TAU_S(type), group, 0)
#define TAU_PROFILE_TIMER_DYNAMIC(var, name, type, group) \
  hyprof_event_t var = hyprof_tau_timer(HYPROF_TAU_S(name), HYPROF_TAU_S(type), group, 0)
#define TAU_PROFILE_CREATE_DYNAMIC(var, name, type, group) TAU_PROFILE_TIMER_DYNAMIC(var, name, type, group)
#define TAU_PROFILE_START(var) hyprof_start(var)
#define TAU_PROFILE_STOP(var) hyprof_stop(var)

/* Timers through a `void *` the program declares (TAU's "profiler" API). */
#define TAU_PROFILER_CREATE(ptr, name, type, group) \
  ((ptr) = (void *)hyprof_tau_timer(HYPROF_TAU_S(name), HYPROF_TAU_S(type), group, 0))
#define TAU_CREATE_PROFILER(ptr, name, type, group) TAU_PROFILER_CREATE(ptr, name, type, group)
#define TAU_PROFILER_START(ptr) hyprof_start((hyprof_event_t)(ptr))
#define TAU_PROFILER_STOP(ptr) hyprof_stop((hyprof_event_t)(ptr))
/* What the calling thread has measured of that timer so far (its stopped calls; TIME in
 * microseconds, the only counter): hyprof_event_totals. */
#define MAX_TAU_COUNTERS 25
#define TAU_MAX_COUNTERS MAX_TAU_COUNTERS /* TAU's other name for it, as its examples size arrays */
#define TAU_PROFILER_GET_CALLS(ptr, calls) hyprof_event_totals((hyprof_event_t)(ptr), (calls), 0, 0, 0)
#define TAU_PROFILER_GET_CHILD_CALLS(ptr, child_calls) hyprof_event_totals((hyprof_event_t)(ptr), 0, (child_calls), 0, 0)
#define TAU_PROFILER_GET_INCLUSIVE_VALUES(ptr, values) hyprof_event_totals((hyprof_event_t)(ptr), 0, 0, (double *)(values), 0)
#define TAU_PROFILER_GET_EXCLUSIVE_VALUES(ptr, values) hyprof_event_totals((hyprof_event_t)(ptr), 0, 0, 0, (double *)(values))
#define TAU_PROFILER_GET_COUNTER_INFO(counters, num) \
  (*(counters) = hyprof_tau_counter_names_, *(num) = 1)
static const char *hyprof_tau_counter_names_[] __attribute__((unused)) = {"TIME"};

/* Global timers: defined once, declared where used elsewhere, started and stopped by name of the
 * variable. */
#define TAU_GLOBAL_TIMER(timer, name, type, group)                                       \
  hyprof_event_t hyprof_tau_global_##timer(void) {                                       \
    static hyprof_event_t e = 0;                                                         \
    if (!e) e = hyprof_tau_timer(HYPROF_TAU_S(name), HYPROF_TAU_S(type), group, 0);      \
    return e;                                                                            \
  }
#define TAU_GLOBAL_TIMER_EXTERNAL(timer) hyprof_event_t hyprof_tau_global_##timer(void)
#define TAU_GLOBAL_TIMER_START(timer) hyprof_start(hyprof_tau_global_##timer())
#define TAU_GLOBAL_TIMER_STOP() hyprof_stop_current()

/* Phases. */
#define TAU_PHASE_CREATE_STATIC(var, name, type, group) \
  static hyprof_event_t var = 0;                        \
  if (!var) var = hyprof_tau_timer(HYPROF_TAU_S(name), HYPROF_TAU_S(type), group, 1)
#define TAU_PHASE_CREATE_DYNAMIC(var, name, type, group) \
  hyprof_event_t var = hyprof_tau_timer(HYPROF_TAU_S(name), HYPROF_TAU_S(type), group, 1)
#define TAU_PHASE_START(var) hyprof_start(var)
#define TAU_PHASE_STOP(var) hyprof_stop(var)
#define TAU_STATIC_PHASE_START(name) hyprof_phase_start(name)
#define TAU_STATIC_PHASE_STOP(name) hyprof_phase_stop(name)
#define TAU_DYNAMIC_PHASE_START(name) hyprof_phase_start(name)
#define TAU_DYNAMIC_PHASE_STOP(name) hyprof_phase_stop(name)

/* Parameter profiles: TAU's argument order is (value, name). */
#define TAU_PROFILE_PARAM1L(value, name) hyprof_param(HYPROF_TAU_S(name), (long long)(value))

/* Atomic user events. */
#define TAU_REGISTER_EVENT(var, name)   \
  static hyprof_user_event_t var = 0;   \
  if (!var) var = hyprof_user_event(HYPROF_TAU_S(name))
#define TAU_EVENT(var, value) hyprof_user_event_trigger(var, (double)(value))
#define TAU_TRIGGER_EVENT(name, value) hyprof_user_event_trigger(hyprof_user_event(HYPROF_TAU_S(name)), (double)(value))

/* Context events: recorded under their name and under "<name> : <path of the running timers>". */
#define TAU_REGISTER_CONTEXT_EVENT(var, name) TAU_REGISTER_EVENT(var, name)
#define TAU_CONTEXT_EVENT(var, value) hyprof_context_event_trigger(var, (double)(value))
#define TAU_TRIGGER_CONTEXT_EVENT(name, value) \
  hyprof_context_event_trigger(hyprof_user_event(HYPROF_TAU_S(name)), (double)(value))

#include <hyprof_tau_metadata.h>

#ifdef __cplusplus
#include <cstdlib>
#include <cxxabi.h>
#include <string>
#include <typeinfo>

#include <hyprof.hpp>

namespace hyprof {
inline const char *tau_c_str(const char *s) { return s; }
inline const char *tau_c_str(const std::string &s) { return s.c_str(); }
/* The readable name of a type (CT): demangled where the C++ runtime can. */
inline std::string tau_type_name(const std::type_info &type) {
  int status = 0;
  char *readable = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  std::string name = status == 0 && readable ? readable : type.name();
  std::free(readable);
  return name;
}
}  // namespace hyprof

/* The type of an object as a string, and a string kept for a timer's type (TAU_PROFILE's second
 * argument). */
#define CT(obj) ::hyprof::tau_type_name(typeid(obj))
#define TAU_TYPE_STRING(var, str) static std::string var(str)

/* A timer, a dynamic timer (looked up on each pass: its name may change) and a phase for the
 * enclosing C++ scope. */
#define HYPROF_TAU_CONCAT2(a, b) a##b
#define HYPROF_TAU_CONCAT(a, b) HYPROF_TAU_CONCAT2(a, b)
#define TAU_PROFILE(name, type, group)                                                  \
  static hyprof_event_t HYPROF_TAU_CONCAT(hyprof_tau_event_, __LINE__) =                \
      hyprof_tau_timer(HYPROF_TAU_S(name), HYPROF_TAU_S(type), group, 0);               \
  ::hyprof::Region HYPROF_TAU_CONCAT(hyprof_tau_scope_, __LINE__)(HYPROF_TAU_CONCAT(hyprof_tau_event_, __LINE__))
#define TAU_DYNAMIC_PROFILE(name, type, group)                                   \
  ::hyprof::Region HYPROF_TAU_CONCAT(hyprof_tau_scope_, __LINE__)(               \
      hyprof_tau_timer(HYPROF_TAU_S(name), HYPROF_TAU_S(type), group, 0))
#define TAU_PHASE(name, type, group)                                                    \
  static hyprof_event_t HYPROF_TAU_CONCAT(hyprof_tau_phase_, __LINE__) =                \
      hyprof_tau_timer(HYPROF_TAU_S(name), HYPROF_TAU_S(type), group, 1);               \
  ::hyprof::Region HYPROF_TAU_CONCAT(hyprof_tau_scope_, __LINE__)(HYPROF_TAU_CONCAT(hyprof_tau_phase_, __LINE__))
#endif

#endif
