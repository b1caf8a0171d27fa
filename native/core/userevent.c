/* Atomic user events: a value recorded at points in time, kept per thread as count, min, max, sum and
 * sum of squares (TAU's userevents). The registry is a name list; per-thread tables grow by copy. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hyprof.h"
#include "probe.h"
#include "runtime.h"
#include "userevent.h"

#define MAX_USER_EVENTS 65536

static char *names[MAX_USER_EVENTS];
static uint32_t count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

uint32_t hp_user_event_count(void) { return __atomic_load_n(&count, __ATOMIC_ACQUIRE); }
const char *hp_user_event_name(uint32_t id) { return id < hp_user_event_count() ? names[id] : NULL; }

HP_EXPORT hyprof_user_event_t hyprof_user_event(const char *name) {
  if (!hp_init() || !name) return NULL;
  pthread_mutex_lock(&lock);
  uint32_t id;
  for (id = 0; id < count; id++)
    if (strcmp(names[id], name) == 0) break;
  if (id == count) {
    char *copy = count < MAX_USER_EVENTS ? strdup(name) : NULL;
    if (!copy) {
      pthread_mutex_unlock(&lock);
      return NULL;
    }
    names[id] = copy;
    __atomic_store_n(&count, id + 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&lock);
  return (hyprof_user_event_t)(uintptr_t)(id + 1); /* never NULL for a valid event */
}

HP_EXPORT void hyprof_user_event_trigger(hyprof_user_event_t ue, double value) {
  hp_thread *t = hp_thread_self();
  if (!t || !ue || hp_probes_off()) return;
  uint32_t id = (uint32_t)((uintptr_t)ue - 1);
  hp_tool_enter(t);
  if (id >= t->user_capacity) {
    uint32_t cap = t->user_capacity ? t->user_capacity : 16;
    while (cap <= id) cap *= 2;
    hp_user_stat *grown = calloc(cap, sizeof *grown);
    if (!grown) {
      t->drops_alloc++;
      hp_tool_leave(t);
      return;
    }
    if (t->user_stats) memcpy(grown, t->user_stats, t->user_capacity * sizeof *grown);
    /* The old table is not freed: a dump on another thread may be reading it. */
    __atomic_store_n(&t->user_stats, grown, __ATOMIC_RELEASE);
    __atomic_store_n(&t->user_capacity, cap, __ATOMIC_RELEASE);
  }
  hp_user_stat *s = &t->user_stats[id];
  if (!s->count || value < s->min) s->min = value;
  if (!s->count || value > s->max) s->max = value;
  s->sum += value;
  s->sumsqr += value * value;
  s->event = id;
  s->count++;
  s->used = 1;
  hp_tool_leave(t);
}
