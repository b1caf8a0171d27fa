/* Several metrics per run (HYPROF_METRICS / TAU_METRICS): metric 0 is always TIME (hp_now_ns, kept
 * in the frames themselves); metrics 1.. are read here, per thread, only when more than one metric
 * is configured. The probes' fast path tests hp_n_metrics > 1 and otherwise never comes here, so the
 * default single metric costs what it did. */
#ifndef HP_METRICS_H
#define HP_METRICS_H

#include <stdint.h>

#include "thread.h"

/* The extra metrics' values at a frame's start, its children's inclusive values so far, and the
 * same for its parameter specialisation (index 0, TIME, is unused: the frame holds it). */
typedef struct hp_mframe {
  uint64_t start[HP_MAX_METRICS];
  uint64_t child[HP_MAX_METRICS];
  uint64_t param_start[HP_MAX_METRICS];
  uint64_t child_at_param[HP_MAX_METRICS];
} hp_mframe;

/* Number of metrics measured (1 = TIME only). Set once at initialisation, before any thread state. */
extern uint32_t hp_n_metrics;

/* Read HYPROF_METRICS / TAU_METRICS; warn about what cannot be measured; record the metrics. */
void hp_metrics_configure(void);
const char *hp_metric_name(uint32_t m);

/* Thread life: open the thread's counters (thread.c); keep their last values at its end; open them
 * again in a forked child (the parent's counters count the parent's thread). */
void hp_metrics_thread_start(hp_thread *t);
void hp_metrics_thread_end(hp_thread *t);
void hp_metrics_fork_child(hp_thread *t);

/* A copy of t's extra-metric frames with room for `cap` frames, its open ones copied (thread.c: an
 * ended thread keeps its open frames only); NULL when memory could not be had. The size of one. */
void *hp_metrics_frames_copy(const hp_thread *t, int32_t cap);
size_t hp_metrics_frame_size(void);

/* The current values of t's extra metrics into v[1..]; any thread may call it for any listed thread
 * (an ended one gives its values at the end). Async-signal-safe: clock_gettime and read only. */
void hp_metrics_read(const hp_thread *t, uint64_t *v);

/* Probe hooks (probe.c), taken only when hp_n_metrics > 1. */
void hp_metrics_push(hp_thread *t, int32_t level);
void hp_metrics_close(hp_thread *t, int32_t level, int32_t to_level, int record);
/* whole_call: the parameter's interval starts at the frame's start (its first parameter, probe.c). */
void hp_metrics_param_start(hp_thread *t, int32_t level, int whole_call);
void hp_metrics_param_close(hp_thread *t, int32_t level);

#endif
