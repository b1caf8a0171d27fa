/* Exported entry points for the runtime's own front ends that live in another shared object (the
 * Node addon). They are exported (not hidden like the rest of the core) for one reason: when
 * libhyprof.so is preloaded (`hyprof run -- node app.js`), the addon's calls must reach that one
 * runtime, not the addon's own copy, so that the process has one event registry, one set of thread
 * states and one raw file. A call from the addon through the PLT binds to the first definition in
 * the process: the preloaded library when there is one, else the addon's copy. Not a public API. */
#ifndef HP_EXT_H
#define HP_EXT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HYPROF_EXT_NO_EVENT UINT32_MAX
/* Metrics of a thread (HYPROF_METRICS), the first TIME: the size of the arrays below. */
#define HYPROF_EXT_MAX_METRICS 4

/* Register (or find) a region (phase != 0: a phase); returns its id or HYPROF_EXT_NO_EVENT. */
uint32_t hyprof_ext_event(const char *name, const char *group, int phase);
/* Start / stop by event id on the calling thread (the probe fast path). Return 0 when no event has
 * that id (1 also when measurement is off). */
int hyprof_ext_start(uint32_t id);
int hyprof_ext_stop(uint32_t id);
/* The innermost context of the calling thread. */
uint64_t hyprof_ext_context(void);
/* Monotonic clock of the probes, nanoseconds. */
uint64_t hyprof_ext_now(void);
/* Count one child call on the calling thread's innermost frame (an async region started in it). */
void hyprof_ext_count_child_call(void);
/* Push a frame for event `id` under `parent_context` that records no statistics (HP_FRAME_NO_STATS):
 * one slice of an async region's own code, whose instance started at `region_start_ns` with the
 * thread's metrics at `region_mstart` (HYPROF_FOLD: the slice's samples fold at their offset from
 * them). */
void hyprof_ext_slice_begin(uint32_t id, uint64_t parent_context, uint64_t region_start_ns,
                            const uint64_t region_mstart[HYPROF_EXT_MAX_METRICS]);
/* Pop that frame; returns 1 and its length and the time of regions it contained, or 0 when the
 * innermost frame is not a slice of `id` (nothing is popped then). */
int hyprof_ext_slice_end(uint32_t id, uint64_t *len_ns, uint64_t *child_ns, uint64_t *child_calls);
/* Turn the innermost frame, a region `id` started by hyprof_ext_start whose function returned a
 * promise, into an async region: pop it without statistics (its interval so far becomes the first
 * slice) and return what the async region needs, `mstart` the thread's metrics at its start. 0 when
 * the innermost frame is not `id`. */
int hyprof_ext_adopt(uint32_t id, uint32_t *slice_event, uint64_t *parent_context, uint64_t *start_ns,
                     uint64_t *excl_ns, uint64_t *child_calls, uint64_t mstart[HYPROF_EXT_MAX_METRICS]);
/* The calling thread's metrics now (for an async region's start), zeros when unknown. */
void hyprof_ext_metrics(uint64_t v[HYPROF_EXT_MAX_METRICS]);
/* An async region's instance at its settlement (HYPROF_FOLD; nothing when `id` is not folded): its
 * start, its length, the thread's metrics at its start. */
void hyprof_ext_fold_instance(uint32_t id, uint64_t start_ns, uint64_t dur_ns, const uint64_t mstart[HYPROF_EXT_MAX_METRICS]);
/* An async region of event `id` settled `ns` after its start (settled != 0), or was still unsettled
 * at the thread's exit `ns` after its start (settled == 0): recorded on the calling thread as the
 * atomic user event "Settle time (us) : <name>" (resp. "Unsettled at exit, time so far (us) :
 * <name>"), in microseconds, so that the profile keeps the wall time beside the region's own time. */
void hyprof_ext_settled(uint32_t id, uint64_t ns, int settled);
/* Add whole statistics to `context` (= hash(parent, id)) on the calling thread. */
void hyprof_ext_record(uint64_t context, uint64_t parent, uint32_t id, uint64_t calls, uint64_t child_calls,
                       uint64_t incl_ns, uint64_t excl_ns);
/* The context a child of `parent` for event `id` gets (hp_context_hash). */
uint64_t hyprof_ext_context_of(uint64_t parent, uint32_t id);
/* The event of `current` (a region, or a parameter event of base `base`) specialised further by one
 * parameter, named as hyprof_param names it. HYPROF_EXT_NO_EVENT when an id is unknown. */
uint32_t hyprof_ext_param_event(uint32_t current, uint32_t base, const char *name, long long value);
/* Record a misuse warning on the calling thread (kept in the profile, printed once). */
void hyprof_ext_warn(const char *text);

#ifdef __cplusplus
}
#endif

#endif
