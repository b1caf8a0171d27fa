/* Per-thread statistics by context (the table of thread.h). */
#ifndef HP_STATS_H
#define HP_STATS_H

#include "thread.h"

/* hp_stat_get when the context is not in its home slot: probe further, insert, grow. */
hp_stat *hp_stat_get_slow(hp_thread *t, uint64_t context, uint64_t parent, uint32_t event);

/* Find or insert the statistics of `context` on thread t (only t itself calls this).
 * NULL when memory could not be had; the loss is counted in t->drops_alloc. Inline for the common
 * case of a probe stop: the context is already in its home slot (contexts are well-mixed hashes,
 * the table at most half full). */
static inline hp_stat *hp_stat_get(hp_thread *t, uint64_t context, uint64_t parent, uint32_t event) {
  hp_stat_table *tb = t->stats;
  if (__builtin_expect(tb != 0, 1)) {
    hp_stat *s = hp_stat_slot(tb, (uint32_t)context & (tb->capacity - 1));
    if (__builtin_expect(s->used && s->context == context, 1)) return s;
  }
  return hp_stat_get_slow(t, context, parent, event);
}
/* Allocate the first table of a thread. Returns 0 on failure. */
int hp_stat_init(hp_thread *t);
/* An ended thread (thread.c): the table shrinks to its used size, the tables it replaced are retired.
 * Returns the bytes it keeps. */
uint64_t hp_stat_compact(hp_thread *t);
/* Forget everything (the forked child keeps none of its parent's statistics). */
void hp_stat_clear(hp_thread *t);

#endif
