/* The per-thread sample table: distinct {context, callpath} -> count and summed TIME.
 * Everything lives in one anonymous mapping made at thread start, so the signal handler never
 * allocates; pages are committed only when touched, so an idle thread costs little. The mapping
 * has room for the most records a thread may hold (HYPROF_SAMPLE_TABLE), but records and program
 * counters are written in order and the hash slots start small and double as records come (a
 * rehash in the handler, memory only), so the memory used follows the distinct stacks the run
 * makes, not the bound. Callpaths are
 * stored once each in a per-thread arena of program counters (records hold an offset and a depth)
 * rather than in fixed 128-slot arrays. A full table or arena is reported by the caller as the drop
 * reason "table_full". */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sample_int.h"

static size_t round_page(size_t n) { return (n + 4095) & ~(size_t)4095; }

/* Slots a table starts with (128 KiB): as many as the old fixed default table had. */
#define INITIAL_SLOTS 32768u

hp_sample_thread *hp_stable_new(void) {
  uint32_t entries = hp_scfg.table_entries ? hp_scfg.table_entries : 1024;
  uint32_t n_slots = 1;
  while (n_slots < entries * 2u) n_slots <<= 1;
  uint32_t first_slots = n_slots < INITIAL_SLOTS ? n_slots : INITIAL_SLOTS;
  uint32_t cap_pcs = hp_scfg.arena_pcs ? hp_scfg.arena_pcs : entries * 16u;
  size_t work_at = (sizeof(hp_sample_thread) + 63) & ~(size_t)63;
  size_t head = round_page(work_at + sizeof(hp_sample_work));
  size_t slots = round_page((size_t)n_slots * sizeof(uint32_t));
  size_t recs = round_page((size_t)entries * sizeof(hp_srec));
  size_t pcs = round_page((size_t)cap_pcs * sizeof(uint64_t));
  size_t len = head + slots + recs + pcs;
  void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return NULL;
  hp_sample_thread *st = m;   /* mmap gives zeroed memory */
  st->mem = m;
  st->mem_len = len;
  st->work = (hp_sample_work *)((char *)m + work_at);
  st->n_slots = first_slots;
  st->max_slots = n_slots;
  st->cap_recs = entries;
  st->cap_pcs = cap_pcs;
  st->slots = (uint32_t *)((char *)m + head);
  st->recs = (hp_srec *)((char *)m + head + slots);
  st->pcs = (uint64_t *)((char *)m + head + slots + recs);
  st->perf_fd = -1;
  st->perf_fd_last = -1;
  st->papi_set = -1;
  return st;
}

/* Forget every sample (after fork: the child must not report its parent's samples). Not called
 * while the handler can run on this thread's table. */
void hp_stable_clear(hp_sample_thread *st) {
  if (st->slots) memset(st->slots, 0, (size_t)st->n_slots * sizeof(uint32_t));
  st->n_recs = 0;
  st->pcs_used = 0;
  st->taken = 0;
  for (int i = 0; i < HP_DROP_NREASONS; i++) st->drops[i] = 0;
}

hp_sample_thread *hp_stable_compact(const hp_sample_thread *st, size_t *bytes) {
  uint32_t n = __atomic_load_n(&st->n_recs, __ATOMIC_ACQUIRE);
  size_t recs = (size_t)n * sizeof(hp_srec), pcs = (size_t)st->pcs_used * sizeof(uint64_t);
  size_t len = sizeof(hp_sample_thread) + recs + pcs;
  hp_sample_thread *c = malloc(len);
  if (!c) return NULL;
  memcpy(c, st, sizeof *c);
  c->recs = (hp_srec *)(c + 1);
  c->pcs = (uint64_t *)((char *)c->recs + recs);
  memcpy(c->recs, st->recs, recs);
  memcpy(c->pcs, st->pcs, pcs);
  /* Full: no sample is added to an ended thread (its source is stopped; `active` is 0). */
  c->cap_recs = n;
  c->cap_pcs = st->pcs_used;
  c->n_slots = 0;
  c->max_slots = 0;
  c->slots = NULL;
  c->work = NULL;
  c->mem = c;
  c->mem_len = len;
  *bytes = len;
  return c;
}

void hp_stable_unmap(void *mem, size_t len) { munmap(mem, len); }

static inline uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

/* Double the slots in use and put every record back by its stored hash. Async-signal-safe: memory
 * of this thread's mapping only (the room for max_slots was mapped at thread start; pages are
 * committed as they are touched). Runs in the handler, on the only writer of this table; a dump on
 * another thread reads the records and their count, never the slots. Amortised: a record is moved
 * about once per doubling, a few microseconds per thousand records. */
static void grow(hp_sample_thread *st) {
  uint32_t n = st->n_slots * 2u, mask = n - 1;
  memset(st->slots, 0, (size_t)n * sizeof(uint32_t));
  for (uint32_t k = 0; k < st->n_recs; k++) {
    uint32_t i = (uint32_t)st->recs[k].hash & mask;
    while (st->slots[i]) i = (i + 1) & mask;
    st->slots[i] = k + 1;
  }
  st->n_slots = n;
}

/* Async-signal-safe: reads and writes only this thread's mapping; called from the handler only. */
int hp_stable_add(hp_sample_thread *st, uint64_t context, const uint64_t *pcs, uint32_t depth,
                  uint64_t value, uint32_t state) {
  uint64_t h = mix(0x51ed27u, context);
  for (uint32_t i = 0; i < depth; i++) h = mix(h, pcs[i]);
  h = mix(h, depth + ((uint64_t)state << 32));
  /* at most half full, so that probes stay short (as the fixed table was) */
  if ((st->n_recs + 1u) * 2u > st->n_slots && st->n_slots < st->max_slots) grow(st);
  uint32_t mask = st->n_slots - 1;
  for (uint32_t i = (uint32_t)h & mask, probes = 0; probes < st->n_slots; i = (i + 1) & mask, probes++) {
    uint32_t s = st->slots[i];
    if (s == 0) {
      if (st->n_recs >= st->cap_recs || st->cap_pcs - st->pcs_used < depth) return -1;
      hp_srec *r = &st->recs[st->n_recs];
      r->context = context;
      r->hash = h;
      r->count = 1;
      r->value = value;
      r->pc_off = st->pcs_used;
      r->depth = (uint16_t)depth;
      r->state = (uint16_t)state;
      memcpy(&st->pcs[st->pcs_used], pcs, depth * sizeof(uint64_t));
      st->pcs_used += depth;
      /* publish the record before the slot and the count that make it visible to a dump */
      __atomic_signal_fence(__ATOMIC_SEQ_CST);
      uint32_t n = st->n_recs + 1;
      st->slots[i] = n;
      __atomic_store_n(&st->n_recs, n, __ATOMIC_RELEASE);   /* a dump on another thread reads it */
      return 0;
    }
    hp_srec *r = &st->recs[s - 1];
    if (r->hash == h && r->context == context && r->depth == depth && r->state == state &&
        memcmp(&st->pcs[r->pc_off], pcs, depth * sizeof(uint64_t)) == 0) {
      hp_count(&r->count, 1);
      hp_count(&r->value, value);
      return 0;
    }
  }
  return -1;
}
