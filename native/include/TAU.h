/* TAU's common instrumentation macros mapped onto hyprof, so that programs already instrumented for
 * TAU compile and link against hyprof unchanged (`hyprof config --cflags --libs`).
 *
 * Groups are TAU's names as strings (TAU_USER -> "TAU_USER"), which is what the profile shows.
 * TAU_PROFILE_SET_CONTEXT is accepted and ignored: hyprof writes context 0 for the process itself. */
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

#define TAU_PROFILE_INIT(argc, argv) ((void)(argc), (void)(argv), hyprof_init())
#define TAU_INIT(argc, argv) ((void)(argc), (void)(argv), hyprof_init())
#define TAU_PROFILE_SET_NODE(node) hyprof_set_node(node)
#define TAU_PROFILE_SET_CONTEXT(context) ((void)(context))
#define TAU_REGISTER_THREAD() hyprof_register_thread()
#define TAU_DB_DUMP() hyprof_flush()
#define TAU_PROFILE_EXIT(msg) hyprof_flush()

/* Timers by name. */
#define TAU_START(name) hyprof_start_named(name)
#define TAU_STOP(name) hyprof_stop_named(name)

/* Timers by handle: registered once (static), started and stopped by handle. */
#define TAU_PROFILE_TIMER(var, name, type, group) \
  static hyprof_event_t var = 0;                  \
  if (!var) var = hyprof_tau_timer(name, type, group, 0)
#define TAU_PROFILE_TIMER_DYNAMIC(var, name, type, group) \
  hyprof_event_t var = hyprof_tau_timer(name, type, group, 0)
#define TAU_PROFILE_START(var) hyprof_start(var)
#define TAU_PROFILE_STOP(var) hyprof_stop(var)

/* Phases. */
#define TAU_PHASE_CREATE_STATIC(var, name, type, group) \
  static hyprof_event_t var = 0;                        \
  if (!var) var = hyprof_tau_timer(name, type, group, 1)
#define TAU_PHASE_CREATE_DYNAMIC(var, name, type, group) \
  hyprof_event_t var = hyprof_tau_timer(name, type, group, 1)
#define TAU_PHASE_START(var) hyprof_start(var)
#define TAU_PHASE_STOP(var) hyprof_stop(var)
#define TAU_STATIC_PHASE_START(name) hyprof_phase_start(name)
#define TAU_STATIC_PHASE_STOP(name) hyprof_phase_stop(name)
#define TAU_DYNAMIC_PHASE_START(name) hyprof_phase_start(name)
#define TAU_DYNAMIC_PHASE_STOP(name) hyprof_phase_stop(name)

/* Parameter profiles: TAU's argument order is (value, name). */
#define TAU_PROFILE_PARAM1L(value, name) hyprof_param(name, (long long)(value))

/* Atomic user events. */
#define TAU_REGISTER_EVENT(var, name)   \
  static hyprof_user_event_t var = 0;   \
  if (!var) var = hyprof_user_event(name)
#define TAU_EVENT(var, value) hyprof_user_event_trigger(var, (double)(value))
#define TAU_TRIGGER_EVENT(name, value) hyprof_user_event_trigger(hyprof_user_event(name), (double)(value))

#ifdef __cplusplus
#include <hyprof.hpp>
/* A timer for the enclosing C++ scope. */
#define HYPROF_TAU_CONCAT2(a, b) a##b
#define HYPROF_TAU_CONCAT(a, b) HYPROF_TAU_CONCAT2(a, b)
#define TAU_PROFILE(name, type, group)                                      \
  static hyprof_event_t HYPROF_TAU_CONCAT(hyprof_tau_event_, __LINE__) =    \
      hyprof_tau_timer(name, type, group, 0);                               \
  ::hyprof::Region HYPROF_TAU_CONCAT(hyprof_tau_scope_, __LINE__)(HYPROF_TAU_CONCAT(hyprof_tau_event_, __LINE__))
#endif

#endif
