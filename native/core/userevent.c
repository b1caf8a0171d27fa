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

int hp_user_stat_read(const hp_thread *t, const hp_user_stat *us, uint32_t i, hp_user_stat *out, int *stuck) {
  /* The owner may be writing (user_seq odd) or write between the two readings of user_seq: read
   * again. A dump in a signal handler on the owner's own thread finds it stopped mid-write for good,
   * and a writer descheduled for long keeps us waiting: after a bounded number of tries the last
   * reading is taken as it is. */
  for (int tries = 0;; tries++) {
    uint32_t before = __atomic_load_n(&t->user_seq, __ATOMIC_ACQUIRE);
    out->used = __atomic_load_n(&us[i].used, __ATOMIC_ACQUIRE);
    out->event = __atomic_load_n(&us[i].event, __ATOMIC_ACQUIRE);
    out->count = __atomic_load_n(&us[i].count, __ATOMIC_ACQUIRE);
    __atomic_load(&us[i].min, &out->min, __ATOMIC_ACQUIRE);
    __atomic_load(&us[i].max, &out->max, __ATOMIC_ACQUIRE);
    __atomic_load(&us[i].sum, &out->sum, __ATOMIC_ACQUIRE);
    __atomic_load(&us[i].sumsqr, &out->sumsqr, __ATOMIC_ACQUIRE);
    uint32_t after = __atomic_load_n(&t->user_seq, __ATOMIC_RELAXED);
    if ((before == after && !(before & 1)) || t == hp_thread_current()) return out->used != 0;
    if (*stuck || tries >= 100000) {
      *stuck = 1;
      return out->used != 0;
    }
  }
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
    if (t->user_stats) {
      memcpy(grown, t->user_stats, t->user_capacity * sizeof *grown);
      /* The old table is not freed: a dump on another thread may be reading it. It stays reachable
       * (a leak checker sees it kept, not lost); capacities double, so the slots suffice. */
      for (unsigned k = 0; k < sizeof t->user_retired / sizeof *t->user_retired; k++)
        if (!t->user_retired[k]) {
          t->user_retired[k] = t->user_stats;
          break;
        }
    }
    __atomic_store_n(&t->user_stats, grown, __ATOMIC_RELEASE);
    __atomic_store_n(&t->user_capacity, cap, __ATOMIC_RELEASE);
  }
  /* A dump on another thread (hyprof_flush) may read this entry meanwhile: the writes are bracketed
   * by the thread's user_seq (odd while writing), each a release store so that none is seen before
   * the odd user_seq (plain stores on x86; no fence, which ThreadSanitizer cannot follow). The
   * reader takes one moment's five values or reads again (hp_user_stat_read), never a mix. Only
   * this thread writes. */
  hp_user_stat *s = &t->user_stats[id];
  uint64_t n = __atomic_load_n(&s->count, __ATOMIC_RELAXED);
  double lo, hi, sum, sq;
  __atomic_load(&s->min, &lo, __ATOMIC_RELAXED);
  __atomic_load(&s->max, &hi, __ATOMIC_RELAXED);
  __atomic_load(&s->sum, &sum, __ATOMIC_RELAXED);
  __atomic_load(&s->sumsqr, &sq, __ATOMIC_RELAXED);
  if (!n || value < lo) lo = value;
  if (!n || value > hi) hi = value;
  sum += value;
  sq += value * value;
  n++;
  uint32_t seq = __atomic_load_n(&t->user_seq, __ATOMIC_RELAXED);
  __atomic_store_n(&t->user_seq, seq + 1, __ATOMIC_RELAXED);
  __atomic_store(&s->min, &lo, __ATOMIC_RELEASE);
  __atomic_store(&s->max, &hi, __ATOMIC_RELEASE);
  __atomic_store(&s->sum, &sum, __ATOMIC_RELEASE);
  __atomic_store(&s->sumsqr, &sq, __ATOMIC_RELEASE);
  __atomic_store_n(&s->event, id, __ATOMIC_RELEASE);
  __atomic_store_n(&s->count, n, __ATOMIC_RELEASE);
  __atomic_store_n(&s->used, 1, __ATOMIC_RELEASE);
  __atomic_store_n(&t->user_seq, seq + 2, __ATOMIC_RELEASE);
  hp_tool_leave(t);
}
