/* Folding (HYPROF_FOLD): the instances of chosen timers and the samples taken inside them, so that
 * thousands of short instances fold onto one synthetic instance after the run (docs/fold.md).
 *
 * Two narrow hooks feed it: the probe's frame close (one flag test on the fast path, a call only for
 * a frame of a folded timer) and the sampling handler after its unwind (a call only when folding is
 * configured). Everything is written into memory reserved when a thread starts; the section FOLD of
 * the raw file (docs/raw-format.md) carries it out. */
#ifndef HP_FOLD_H
#define HP_FOLD_H

#include <stdint.h>

#include "thread.h"
#include "writer.h"

#define HP_FOLD_MAX_SERIES 16    /* patterns in HYPROF_FOLD */
#define HP_FOLD_PCS 4            /* innermost program counters kept per folded sample */
#define HP_SEC_FOLD 13           /* the raw file's FOLD section (docs/raw-format.md) */

/* A frame of a folded timer (thread.h, hp_frame.flags), its series in bits 4-7 (fold.c): code that
 * rewrites a frame's flags keeps HP_FRAME_FOLD_BITS, or the instance would never close. */
#define HP_FRAME_FOLD 4u
/* A frame that is one part of an instance begun elsewhere: a slice of a Node async region (the code
 * up to its first await, each continuation after one), or the synchronous start of a region that
 * became async (ext.c). Its samples fold at their offset from the instance's start (set with
 * hp_fold_part_start before the frame is pushed); its close records no instance and it claims no
 * process-wide slot: the instance is recorded whole at its settlement (hp_fold_instance). */
#define HP_FRAME_FOLD_PART 8u
#define HP_FRAME_FOLD_BITS 0xfcu

/* Number of series configured (0: folding is off). Set once at initialisation, before any thread. */
extern uint32_t hp_fold_series;

/* Read HYPROF_FOLD, HYPROF_FOLD_SAMPLES, HYPROF_FOLD_INSTANCES (at initialisation). */
void hp_fold_configure(void);
/* The series (1..) a timer of this name and kind folds into, 0 for none. Called once per event, when
 * it is registered (events.c, functions.c). */
uint8_t hp_fold_match(const char *name);
/* The frame flags a new frame of `event` takes (HP_FRAME_FOLD or 0): probe.c's push. */
uint32_t hp_fold_frame_flags(uint32_t event);
/* A frame of a folded timer was pushed at `level` / is closing after `incl` ns (probe.c). */
void hp_fold_push(hp_thread *t, int32_t level);
void hp_fold_close(hp_thread *t, int32_t level, uint64_t incl);
/* A sample of thread t at `now` (hp_now_ns), with its innermost context and program counters: kept
 * once for each series whose instance is running around it. Async-signal-safe (fold.c). */
void hp_fold_sample(hp_thread *t, uint64_t now, uint64_t context, const uint64_t *pcs, uint32_t depth);

/* Thread life (thread.c) and fork (a child starts with empty buffers of its own). */
void hp_fold_thread_start(hp_thread *t);
void hp_fold_fork_child(hp_thread *t);
/* The start of the instance that the frame about to be pushed at `level` is a part of
 * (HP_FRAME_FOLD_PART) and the thread's metrics then (NULL: unknown): written by the thread before it
 * publishes the frame, read by its own sampling handler. */
void hp_fold_part_start(hp_thread *t, int32_t level, uint64_t start_ns, const uint64_t *mstart);
/* An instance of `event` recorded whole (a Node async region at its settlement): its start, its
 * length and, with several metrics, the thread's metrics at its start (mstart[1..], as
 * hp_metrics_read gives them). Nothing when the event is not folded. */
void hp_fold_instance(hp_thread *t, uint32_t event, uint64_t start_ns, uint64_t dur_ns, const uint64_t *mstart);
/* The FOLD section (dump.c); nothing when folding is off. Async-signal-safe. */
void hp_fold_write_section(hp_buf *b);

#endif
