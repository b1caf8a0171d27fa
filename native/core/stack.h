/* The context stack for the runtime's own event sources (the OpenMP tool, the Node addon): push a
 * frame under a given context, pop by event, record statistics whole. Not part of the public API. */
#ifndef HP_STACK_H
#define HP_STACK_H

#include <stdint.h>

#include "thread.h"

/* The innermost context of thread t (what a sample would be attributed to). */
static inline uint64_t hp_stack_context(hp_thread *t) { return t->frames[t->top].context; }
/* Push `event` as a child of `parent_context` (which may belong to another thread's stack, e.g. the
 * encountering thread of an OpenMP parallel region). flags: HP_FRAME_NO_STATS or 0. cfa as in
 * thread.h (0 = unknown: samples unwind to the depth limit). Returns the new frame's level, or -1
 * when the stack is full (the frame is counted, not kept). */
int32_t hp_stack_push_under(hp_thread *t, uint32_t event, uint64_t parent_context, uintptr_t cfa, uint32_t flags);
/* Push `event` under `parent_context` as a detached frame (thread.h, HP_FRAME_DETACHED): the frames
 * above level `anchor` are suspended while it runs. Its time becomes child time of the anchor and,
 * when it ends, is taken out of the inclusive time of the frames between (Score-P's rule for tasks:
 * a suspended task and its regions are not charged while another task runs on the thread). Returns
 * the new frame's level, or -1. */
int32_t hp_stack_push_detached(hp_thread *t, uint32_t event, uint64_t parent_context, uintptr_t cfa, int32_t anchor);
/* hp_stack_push_detached started at `now` (the caller's clock reading). */
int32_t hp_stack_push_detached_at(hp_thread *t, uint32_t event, uint64_t parent_context, uintptr_t cfa, int32_t anchor,
                                  uint64_t now);
/* Stop `event`, pushed at `level`, at `now`: the innermost frame's stop without a search, else as
 * hp_stack_pop_event. With `throttle`, the innermost frame's stop applies TAU's throttling rule to
 * its statistics as a probe's stop does (throttle.h). Returns the inclusive time of the frame closed
 * (0 when none was). */
uint64_t hp_stack_pop_level(hp_thread *t, int32_t level, uint32_t event, uint64_t now, int throttle);
/* Stop `event` as hyprof_stop does (misuse warned the same way). Returns the inclusive time of the
 * frame closed (0 when none was). */
uint64_t hp_stack_pop_event(hp_thread *t, uint32_t event);
/* The highest level at or above `lowest` whose frame has `context`, or -1. */
int32_t hp_stack_find_context(const hp_thread *t, uint64_t context, int32_t lowest);
/* Set the stack address of the frame at `level` (thread.h, hp_frame.stack_addr): where samples stop
 * unwinding, once it is known (an OpenMP implicit task's frame after its push). */
void hp_stack_set_cfa(hp_thread *t, int32_t level, uintptr_t cfa);
/* Add whole statistics to a context (e.g. an async region from its start to its settlement). */
void hp_stat_record(hp_thread *t, uint64_t context, uint64_t parent, uint32_t event, uint64_t calls,
                    uint64_t child_calls, uint64_t incl_ns, uint64_t excl_ns);

#endif
