/* Open-addressing hash table context -> statistics, one per thread. Contexts are already well-mixed
 * 64-bit hashes, so the low bits index the table directly. The table grows by building a larger copy
 * and publishing it; the old one is never freed, because a dump running in a signal handler (or on
 * another thread at exit) may be reading it. */
#include "stats.h"

#include <stdlib.h>
#include <string.h>

#define INITIAL_CAPACITY 256

static hp_stat_table *table_new(uint32_t capacity) {
  hp_stat_table *tb = calloc(1, sizeof(hp_stat_table) + (size_t)capacity * sizeof(hp_stat));
  if (tb) tb->capacity = capacity;
  return tb;
}

int hp_stat_init(hp_thread *t) {
  hp_stat_table *tb = table_new(INITIAL_CAPACITY);
  if (!tb) return 0;
  __atomic_store_n(&t->stats, tb, __ATOMIC_RELEASE);
  return 1;
}

static hp_stat *probe_slot(hp_stat_table *tb, uint64_t context) {
  uint32_t mask = tb->capacity - 1;
  for (uint32_t i = (uint32_t)context & mask;; i = (i + 1) & mask) {
    hp_stat *s = &tb->slots[i];
    if (!s->used || s->context == context) return s;
  }
}

static int grow(hp_thread *t) {
  hp_stat_table *old = t->stats;
  hp_stat_table *tb = table_new(old->capacity * 2);
  if (!tb) return 0;
  for (uint32_t i = 0; i < old->capacity; i++) {
    if (!old->slots[i].used) continue;
    *probe_slot(tb, old->slots[i].context) = old->slots[i];
    tb->count++;
  }
  tb->retired = old;   /* old stays allocated (see file comment), reachable from the new one */
  __atomic_store_n(&t->stats, tb, __ATOMIC_RELEASE);
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
  tb->count++;
  __atomic_store_n(&s->used, 1, __ATOMIC_RELEASE);
  return s;
}

static uint64_t table_bytes(const hp_stat_table *tb) {
  return sizeof(hp_stat_table) + (uint64_t)tb->capacity * sizeof(hp_stat);
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
  hp_stat_table *tb = cap < old->capacity ? table_new(cap) : NULL;
  struct hp_retired *r = tb ? hp_thread_retire_record() : NULL;
  if (!r) {
    free(tb);
    return table_bytes(old);
  }
  for (uint32_t i = 0; i < old->capacity; i++) {
    if (!old->slots[i].used) continue;
    *probe_slot(tb, old->slots[i].context) = old->slots[i];
    tb->count++;
  }
  tb->retired = old->retired;
  __atomic_store_n(&t->stats, tb, __ATOMIC_RELEASE);
  hp_thread_retire(r, old, 0, NULL);
  return table_bytes(tb);
}

void hp_stat_clear(hp_thread *t) {
  hp_stat_table *tb = t->stats;
  if (!tb) return;
  memset(tb->slots, 0, (size_t)tb->capacity * sizeof(hp_stat));
  tb->count = 0;
  if (t->user_stats) memset(t->user_stats, 0, (size_t)t->user_capacity * sizeof(hp_user_stat));
}
