/* Open-addressing hash table context -> statistics, one per thread. Contexts are already well-mixed
 * 64-bit hashes, so the low bits index the table directly. The table grows by building a larger copy
 * and publishing it; the old one is retired (thread.h) and freed at once when no dump runs, else by a
 * later call once the dump is over: a dump in a signal handler (or on another thread: a flush, the
 * exit dump) may be reading it.
 *
 * Why freeing is safe. A dump reads tables only through the pointer t->stats it loads after it took
 * the dump (dump.c, `dumping`, a read-modify-write); grow publishes the new table before it retires
 * the old one, and hp_thread_release_retired frees only after a read-modify-write of the same
 * `dumping` found no dump (hp_dump_idle). The two read-modify-writes are ordered:
 *  - a dump on another thread (a flush, the exit dump, an exec's dump) that took `dumping` first is
 *    seen by the check: the old table stays retired until a later release finds no dump. One that
 *    takes it after the check synchronises with the check, so it loads the new pointer, never the old.
 *  - a dump in a signal handler on this thread runs whole between two instructions of grow: before
 *    the new table is published it reads the old one, still allocated, and is over before the check;
 *    after, it loads the new pointer. If the handler interrupted a flush of this thread, `dumping`
 *    holds this thread's id and the check keeps the table.
 *  - fork: the child resets `dumping` (a dump of a parent's thread does not exist in the child), and
 *    only the forking thread goes on; a grow the fork interrupted on another thread never resumes.
 *  - exec: its dump is a dump on this thread like a flush; other threads are the case above.
 * Readers that are not dumps read their own thread's table (totals.c) or the count of a thread's
 * statistics, kept in the thread (n_stats), never a table of another thread. When no record for
 * the retired list can be had, the old table stays reachable from the new one (`retired`) and is
 * retired when the thread ends. */
#include "stats.h"

#include "metrics.h"

#include <stdlib.h>
#include <string.h>

#define INITIAL_CAPACITY 256

static hp_stat *probe_slot(hp_stat_table *tb, uint64_t context) {
  uint32_t mask = tb->capacity - 1;
  for (uint32_t i = (uint32_t)context & mask;; i = (i + 1) & mask) {
    hp_stat *s = hp_stat_slot(tb, i);
    if (!s->used || s->context == context) return s;
  }
}

static hp_stat_table *table_new(uint32_t capacity, uint32_t stride) {
  hp_stat_table *tb = calloc(1, sizeof(hp_stat_table) + (size_t)capacity * stride);
  if (tb) {
    tb->capacity = capacity;
    tb->stride = stride;
  }
  return tb;
}

/* Copy the used slots of `from` into the empty table `to`. */
static void rehash(hp_stat_table *to, const hp_stat_table *from) {
  for (uint32_t i = 0; i < from->capacity; i++) {
    const hp_stat *s = hp_stat_slot(from, i);
    if (!s->used) continue;
    memcpy(probe_slot(to, s->context), s, from->stride);
    to->count++;
  }
}

int hp_stat_init(hp_thread *t) {
  /* The run's metrics are configured before any thread state is made (init.c), and stay. */
  hp_stat_table *tb = table_new(INITIAL_CAPACITY, (uint32_t)(sizeof(hp_stat) + hp_n_metrics * 2 * sizeof(uint64_t)));
  if (!tb) return 0;
  __atomic_store_n(&t->stats, tb, __ATOMIC_RELEASE);
  return 1;
}

static int grow(hp_thread *t) {
  hp_stat_table *old = t->stats;
  hp_stat_table *tb = table_new(old->capacity * 2, old->stride);
  if (!tb) return 0;
  struct hp_retired *r = hp_thread_retire_record();
  rehash(tb, old);
  /* Published first, then retired (see the file comment); without a record, old stays reachable. */
  tb->retired = r ? old->retired : old;
  __atomic_store_n(&t->stats, tb, __ATOMIC_RELEASE);
  if (r) {
    hp_thread_retire(r, old, 0, NULL);
    hp_thread_release_retired();
  }
  return 1;
}

hp_stat *hp_stat_get_slow(hp_thread *t, uint64_t context, uint64_t parent, uint32_t event) {
  hp_stat_table *tb = t->stats;
  if (!tb) return NULL;
  hp_stat *s = probe_slot(tb, context);
  if (s->used) return s;
  if ((tb->count + 1) * 2 > tb->capacity) {
    if (!grow(t)) {
      t->drops_alloc++;
      return NULL;
    }
    tb = t->stats;
    s = probe_slot(tb, context);
  }
  s->context = context;
  s->parent = parent;
  s->event = event;
  /* Atomic: a dump sizes its set of contexts from it meanwhile (an estimate: dump.c) */
  __atomic_store_n(&tb->count, tb->count + 1, __ATOMIC_RELAXED);
  __atomic_store_n(&t->n_stats, tb->count, __ATOMIC_RELAXED);
  __atomic_store_n(&s->used, 1, __ATOMIC_RELEASE);
  return s;
}

static uint64_t table_bytes(const hp_stat_table *tb) {
  return sizeof(hp_stat_table) + (uint64_t)tb->capacity * tb->stride;
}

uint64_t hp_stat_compact(hp_thread *t) {
  hp_stat_table *old = t->stats;
  if (!old) return 0;
  /* The tables it replaced: only a dump that loaded one before its replacement may still read it. */
  while (old->retired) {
    struct hp_retired *r = hp_thread_retire_record();
    if (!r) break;   /* the rest stay, reachable */
    hp_stat_table *gone = old->retired;
    old->retired = gone->retired;
    hp_thread_retire(r, gone, 0, NULL);
  }
  uint32_t cap = 4;
  while (cap < old->count * 2) cap *= 2;   /* at most half full, as grow keeps it */
  hp_stat_table *tb = cap < old->capacity ? table_new(cap, old->stride) : NULL;
  struct hp_retired *r = tb ? hp_thread_retire_record() : NULL;
  if (!r) {
    free(tb);
    return table_bytes(old);
  }
  rehash(tb, old);
  tb->retired = old->retired;
  __atomic_store_n(&t->stats, tb, __ATOMIC_RELEASE);
  hp_thread_retire(r, old, 0, NULL);
  return table_bytes(tb);
}

void hp_stat_clear(hp_thread *t) {
  hp_stat_table *tb = t->stats;
  if (!tb) return;
  memset(tb->slots, 0, (size_t)tb->capacity * tb->stride);
  tb->count = 0;
  t->n_stats = 0;
  if (t->user_stats) memset(t->user_stats, 0, (size_t)t->user_capacity * sizeof(hp_user_stat));
}
