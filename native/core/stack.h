/* The context stack for the runtime's own event sources (the OpenMP tool, the Node addon): push a
 * frame under a given context, pop by event, record statistics whole. Not part of the public API. */
#ifndef HP_STACK_H
#define HP_STACK_H

#include <stdint.h>

#include "thread.h"

/* The innermost context of thread t (what a sample would be attributed to). */
uint64_t hp_stack_context(hp_thread *t);
/* Push `event` as a child of `parent_context` (which may belong to another thread's stack, e.g. the
 * encountering thread of an OpenMP parallel region). flags: HP_FRAME_*. cfa as in thread.h (0 =
 * unknown: samples unwind to the depth limit). */
void hp_stack_push_under(hp_thread *t, uint32_t event, uint64_t parent_context, uintptr_t cfa, uint32_t flags);
/* Stop `event` as hyprof_stop does (misuse warned the same way). */
void hp_stack_pop_event(hp_thread *t, uint32_t event);
/* Add whole statistics to a context (e.g. an async region from its start to its settlement). */
void hp_stat_record(hp_thread *t, uint64_t context, uint64_t parent, uint32_t event, uint64_t calls,
                    uint64_t child_calls, uint64_t incl_ns, uint64_t excl_ns);

#endif
