/* hyprof — public C API.
 *
 * Probes mark regions (timers), phases and parameters in a program; the runtime keeps a per-thread
 * stack of event contexts, times every region per context, and (when sampling is on) attributes
 * samples to the context that was running. Everything is initialised on first use; threads are
 * measured from their first probe (or from their creation when the runtime is preloaded).
 *
 * Compiled with -DHYPROF_NO_PROBES, every probe becomes an empty inline function: the same source
 * builds uninstrumented, without linking hyprof.
 *
 * Misuse never stops the program: a stop that does not match the running timer gives one warning on
 * stderr and the profile stays consistent.
 */
#ifndef HYPROF_H
#define HYPROF_H

#ifdef __cplusplus
extern "C" {
#endif

/* An event handle; stays valid for the whole life of the process. */
typedef struct hyprof_event *hyprof_event_t;
/* An atomic user event (a value recorded at points in time: count, min, max, mean, sum of squares). */
typedef struct hyprof_user_event *hyprof_user_event_t;

#ifndef HYPROF_NO_PROBES

/* Initialise now (otherwise done on first use). Idempotent. */
void hyprof_init(void);

/* Make sure the calling thread is measured (threads are numbered in order of first appearance). */
void hyprof_register_thread(void);

/* Register (or find) a region event. group NULL means "TAU_USER". Thread-safe; may lock. */
hyprof_event_t hyprof_event(const char *name, const char *group);

/* Register (or find) a phase event (group gets "|TAU_PHASE"), for hyprof_start / hyprof_stop. */
hyprof_event_t hyprof_phase(const char *name, const char *group);

/* Start / stop a region: the fast path, no lock, no allocation once the context has been seen. */
void hyprof_start(hyprof_event_t event);
void hyprof_stop(hyprof_event_t event);

/* The same by name. Where the name is a string literal, the macros below resolve it once per call
 * site; any other name is looked up on each call (a per-thread cache, then the registry). */
void hyprof_start_named(const char *name);
void hyprof_stop_named(const char *name);

/* Phases: regions whose group carries TAU_PHASE; names may be dynamic ("Iteration 3"). */
void hyprof_phase_start(const char *name);
void hyprof_phase_stop(const char *name);

/* Stop whatever timer or phase runs innermost on the calling thread (TAU_GLOBAL_TIMER_STOP). */
void hyprof_stop_current(void);

/* What the calling thread has measured of `event` so far, over every context it ran in: its stopped
 * calls, their calls of other timers, and their inclusive and exclusive time in microseconds
 * (TAU_PROFILER_GET_*). A recursive call's time is in the inclusive time of each call around it.
 * Any pointer may be NULL. */
void hyprof_event_totals(hyprof_event_t event, long *calls, long *child_calls, double *incl_us, double *excl_us);

/* Specialise the running timer by a parameter: from now until that timer stops, its time is also
 * recorded under "<timer>  [ <name> = <value> ]  ", and that specialised event is the context of
 * everything inside it (child regions and samples). */
void hyprof_param(const char *name, long long value);

/* The node (MPI rank) this process writes as: profile.<node>.0.<thread>. */
void hyprof_set_node(int node);

/* Name the calling thread: the profile labels it so (report, viewer) and records it as metadata
 * `Thread Name`. Without it, a name set with pthread_setname_np is used. */
void hyprof_set_thread_name(const char *name);

/* Write the raw measurement file now (the process goes on measuring; the file is replaced at exit). */
void hyprof_flush(void);

/* For TAU.h: a timer named "<name> <type>" (just <name> when type is empty); phase != 0 for phases. */
hyprof_event_t hyprof_tau_timer(const char *name, const char *type, const char *group, int phase);

/* Atomic user events. */
hyprof_user_event_t hyprof_user_event(const char *name);
void hyprof_user_event_trigger(hyprof_user_event_t event, double value);
/* A context event: the value is recorded under the event's name and under "<name> : <path>", the
 * path of the running timers ("main => solve", at most the callpath depth of them), as TAU does. */
void hyprof_context_event_trigger(hyprof_user_event_t event, double value);

/* A name / value pair of the program, written in the profile's metadata (TAU_METADATA). A name given
 * again replaces its value. Any thread may call it, while another flushes; not from a signal handler
 * (it may wait for a dump on another thread). */
void hyprof_metadata(const char *name, const char *value);

/* Switch the probes off and on again, for the whole process (TAU_DISABLE_INSTRUMENTATION /
 * TAU_ENABLE_INSTRUMENTATION). While off, starts and stops of timers and phases, parameters and user
 * events record nothing and cost one test; a timer started before stays running and may be stopped
 * while off. Sampling, OpenMP and MPI events are not affected. */
void hyprof_disable_instrumentation(void);
void hyprof_enable_instrumentation(void);

/* Call-site handles. hyprof_start_named("solve") and the like (and TAU.h's TAU_START, which maps
 * onto them) keep the event of a literal name in a static handle of their own call site: the name is
 * looked up on the first call only, later calls go by handle. Whether the argument is a literal is
 * decided by the compiler's front end (__builtin_choose_expr / a template argument), never after
 * inlining, so a name that is a function's parameter always takes the look-up path, even when every
 * caller passes a literal. Define HYPROF_NO_CALLSITE_CACHE to call the functions directly. A literal
 * name inside a non-static C inline function draws a warning (a static object in an inline
 * definition): call the function there, `(hyprof_start_named)(name)`. */
#if defined(__GNUC__) && !defined(HYPROF_NO_CALLSITE_CACHE)
#ifdef __cplusplus
#define HYPROF_IS_LITERAL_(s) (::hyprof_is_literal_<__builtin_constant_p(s)>::value)
#define HYPROF_CHOOSE_(c, a, b) ((c) ? (a) : (b))
#else
#define HYPROF_IS_LITERAL_(s) __builtin_constant_p(s)
#define HYPROF_CHOOSE_(c, a, b) __builtin_choose_expr(c, a, b)
#endif
/* A throttled timer (TAU_THROTTLE, docs/throttling.md) is skipped here, before any call: the runtime
 * sets the byte `throttled_` of the event once, and this header reads it (part of the ABI, checked by
 * a static assertion in the runtime). A NULL handle (measurement off) makes no call either. */
struct hyprof_event_state_ {
  unsigned int id_, base_;
  unsigned char kind_, throttled_;
};
#define HYPROF_LIVE_(e) \
  (__builtin_expect((e) != 0 && !((const volatile struct hyprof_event_state_ *)(const void *)(e))->throttled_, 1))
#define HYPROF_SITE_START_(e)       \
  (__extension__({                  \
    hyprof_event_t hyprof_live_ = (e); \
    if (HYPROF_LIVE_(hyprof_live_)) hyprof_start(hyprof_live_); \
  }))
#define HYPROF_SITE_STOP_(e)        \
  (__extension__({                  \
    hyprof_event_t hyprof_live_ = (e); \
    if (HYPROF_LIVE_(hyprof_live_)) hyprof_stop(hyprof_live_); \
  }))
#define HYPROF_SITE_EVENT_(lookup, name)                                                 \
  (__extension__({                                                                       \
    static hyprof_event_t hyprof_site_event_;                                            \
    hyprof_event_t hyprof_site_e_ = __atomic_load_n(&hyprof_site_event_, __ATOMIC_ACQUIRE); \
    if (__builtin_expect(!hyprof_site_e_, 0)) {                                          \
      hyprof_site_e_ = lookup(name, 0);                                                  \
      __atomic_store_n(&hyprof_site_event_, hyprof_site_e_, __ATOMIC_RELEASE);           \
    }                                                                                    \
    hyprof_site_e_;                                                                      \
  }))
#define hyprof_start_named(name) \
  HYPROF_CHOOSE_(HYPROF_IS_LITERAL_(name), HYPROF_SITE_START_(HYPROF_SITE_EVENT_(hyprof_event, name)), (hyprof_start_named)(name))
#define hyprof_stop_named(name) \
  HYPROF_CHOOSE_(HYPROF_IS_LITERAL_(name), HYPROF_SITE_STOP_(HYPROF_SITE_EVENT_(hyprof_event, name)), (hyprof_stop_named)(name))
#define hyprof_phase_start(name) \
  HYPROF_CHOOSE_(HYPROF_IS_LITERAL_(name), HYPROF_SITE_START_(HYPROF_SITE_EVENT_(hyprof_phase, name)), (hyprof_phase_start)(name))
#define hyprof_phase_stop(name) \
  HYPROF_CHOOSE_(HYPROF_IS_LITERAL_(name), HYPROF_SITE_STOP_(HYPROF_SITE_EVENT_(hyprof_phase, name)), (hyprof_phase_stop)(name))
#endif

#else /* HYPROF_NO_PROBES: every probe compiles to nothing (an uninstrumented build of the same source) */

static inline void hyprof_init(void) {}
static inline void hyprof_register_thread(void) {}
static inline hyprof_event_t hyprof_event(const char *name, const char *group) { (void)name; (void)group; return 0; }
static inline hyprof_event_t hyprof_phase(const char *name, const char *group) { (void)name; (void)group; return 0; }
static inline void hyprof_start(hyprof_event_t event) { (void)event; }
static inline void hyprof_stop(hyprof_event_t event) { (void)event; }
static inline void hyprof_start_named(const char *name) { (void)name; }
static inline void hyprof_stop_named(const char *name) { (void)name; }
static inline void hyprof_phase_start(const char *name) { (void)name; }
static inline void hyprof_phase_stop(const char *name) { (void)name; }
static inline void hyprof_param(const char *name, long long value) { (void)name; (void)value; }
static inline void hyprof_set_node(int node) { (void)node; }
static inline void hyprof_set_thread_name(const char *name) { (void)name; }
static inline void hyprof_flush(void) {}
static inline hyprof_event_t hyprof_tau_timer(const char *name, const char *type, const char *group, int phase) {
  (void)name; (void)type; (void)group; (void)phase; return 0;
}
static inline hyprof_user_event_t hyprof_user_event(const char *name) { (void)name; return 0; }
static inline void hyprof_user_event_trigger(hyprof_user_event_t event, double value) { (void)event; (void)value; }
static inline void hyprof_context_event_trigger(hyprof_user_event_t event, double value) { (void)event; (void)value; }
static inline void hyprof_metadata(const char *name, const char *value) { (void)name; (void)value; }
static inline void hyprof_stop_current(void) {}
static inline void hyprof_event_totals(hyprof_event_t event, long *calls, long *child_calls, double *incl_us, double *excl_us) {
  (void)event;
  if (calls) *calls = 0;
  if (child_calls) *child_calls = 0;
  if (incl_us) *incl_us = 0;
  if (excl_us) *excl_us = 0;
}
static inline void hyprof_disable_instrumentation(void) {}
static inline void hyprof_enable_instrumentation(void) {}

#endif /* HYPROF_NO_PROBES */

#ifdef __cplusplus
}
#if defined(__GNUC__) && !defined(HYPROF_NO_PROBES) && !defined(HYPROF_NO_CALLSITE_CACHE)
/* HYPROF_IS_LITERAL_: a template argument is a constant expression, evaluated by the front end. */
extern "C++" {
template <bool Literal>
struct hyprof_is_literal_ {
  static const bool value = Literal;
};
}
#endif
#endif

#endif /* HYPROF_H */
