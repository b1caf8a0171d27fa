/* hyprof_event_totals (TAU_PROFILER_GET_*): an event's statistics on the calling thread, summed over
 * the contexts it ran in. Read on the thread that writes them, so nothing changes underneath. */
#include <stddef.h>

#include "events.h"
#include "hyprof.h"
#include "runtime.h"

HP_EXPORT void hyprof_event_totals(hyprof_event_t event, long *calls, long *child_calls, double *incl_us, double *excl_us) {
  uint64_t n = 0, children = 0, incl = 0, excl = 0;
  hp_thread *t = event ? hp_thread_self() : NULL;
  hp_stat_table *table = t ? t->stats : NULL;
  uint32_t id = event ? ((const hp_event *)event)->id : HP_NO_EVENT;
  for (uint32_t i = 0; table && i < table->capacity; i++) {
    const hp_stat *s = hp_stat_slot(table, i);
    if (!s->used || s->event != id) continue;
    n += s->calls;
    children += s->child_calls;
    incl += s->metric[0].incl;
    excl += s->metric[0].excl;
  }
  if (calls) *calls = (long)n;
  if (child_calls) *child_calls = (long)children;
  if (incl_us) *incl_us = (double)incl / 1e3;
  if (excl_us) *excl_us = (double)excl / 1e3;
}
