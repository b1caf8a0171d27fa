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

/* The same by name (interned and cached). */
void hyprof_start_named(const char *name);
void hyprof_stop_named(const char *name);

/* Phases: regions whose group carries TAU_PHASE; names may be dynamic ("Iteration 3"). */
void hyprof_phase_start(const char *name);
void hyprof_phase_stop(const char *name);

/* Specialise the running timer by a parameter: from now until that timer stops, its time is also
 * recorded under "<timer>  [ <name> = <value> ]  ", and that specialised event is the context of
 * everything inside it (child regions and samples). */
void hyprof_param(const char *name, long long value);

/* The node (MPI rank) this process writes as: profile.<node>.0.<thread>. */
void hyprof_set_node(int node);

/* Name the calling thread in the profile metadata. */
void hyprof_set_thread_name(const char *name);

/* Write the raw measurement file now (the process goes on measuring; the file is replaced at exit). */
void hyprof_flush(void);

/* For TAU.h: a timer named "<name> <type>" (just <name> when type is empty); phase != 0 for phases. */
hyprof_event_t hyprof_tau_timer(const char *name, const char *type, const char *group, int phase);

/* Atomic user events. */
hyprof_user_event_t hyprof_user_event(const char *name);
void hyprof_user_event_trigger(hyprof_user_event_t event, double value);

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

#endif /* HYPROF_NO_PROBES */

#ifdef __cplusplus
}
#endif

#endif /* HYPROF_H */
