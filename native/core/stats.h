/* Per-thread statistics by context (the table of thread.h). */
#ifndef HP_STATS_H
#define HP_STATS_H

#include "thread.h"

/* Find or insert the statistics of `context` on thread t (only t itself calls this).
 * NULL when memory could not be had; the loss is counted in t->drops_alloc. */
hp_stat *hp_stat_get(hp_thread *t, uint64_t context, uint64_t parent, uint32_t event);
/* Allocate the first table of a thread. Returns 0 on failure. */
int hp_stat_init(hp_thread *t);
/* Forget everything (the forked child keeps none of its parent's statistics). */
void hp_stat_clear(hp_thread *t);

#endif
