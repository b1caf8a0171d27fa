/* When the GPU was busy and when the host waited for it, kept without a trace so that `hyprof report
 * --gpu` can say how much of the host's wait the GPU was idle (and how much of the GPU's idle time the
 * host was not waiting). Two sets of disjoint intervals on the run's clock — the GPU busy (any kernel,
 * copy or set of the process) and the host waiting (any synchronisation) — each sorted, at most SPANS
 * intervals. When a set is full, the time before the start of its middle interval is settled: that
 * stretch's four parts (host waiting or not × GPU busy or idle) are added up and its intervals
 * dropped, so memory stays bounded and the figures exact. CUPTI hands records over after they ran,
 * in buffers, nearly in time order; a record that arrives after the time it ran in was settled has
 * its settled part counted as `late` (the report's uncertainty) and the rest kept.
 *
 * Written by the takers of records.c under its lock (never in a signal handler); read by a dump,
 * which may be in a signal handler: a sequence count (odd while the sets change) tells the dump
 * whether what it copied is whole; if not, it says so (docs/raw-format.md, 14). */
#define _GNU_SOURCE
#include <string.h>

#include "cuda_int.h"

#define SPANS 4096u

typedef struct span_set {
  uint64_t s[SPANS], e[SPANS];
  uint32_t n;
} span_set;

static span_set sets[2];       /* HP_SPAN_BUSY, HP_SPAN_WAIT */
static uint64_t first;         /* the earliest start seen (0: none) */
static uint64_t settled;       /* the time before which everything is added up (0: nothing) */
static uint64_t parts[4];      /* settled ns: waiting & busy, waiting & idle, not waiting & busy, neither */
static uint64_t late;          /* ns of records that ran in time already settled */
static volatile uint32_t seq;  /* odd while the above change */

/* The length of x within [from, to). */
static uint64_t within(const span_set *x, uint64_t from, uint64_t to) {
  uint64_t n = 0;
  for (uint32_t i = 0; i < x->n && x->s[i] < to; i++) {
    uint64_t s = x->s[i] > from ? x->s[i] : from, e = x->e[i] < to ? x->e[i] : to;
    if (e > s) n += e - s;
  }
  return n;
}

/* The length of a ∩ b within [from, to). */
static uint64_t both_within(const span_set *a, const span_set *b, uint64_t from, uint64_t to) {
  uint64_t n = 0;
  for (uint32_t i = 0, j = 0; i < a->n && j < b->n && a->s[i] < to && b->s[j] < to;) {
    uint64_t s = a->s[i] > b->s[j] ? a->s[i] : b->s[j];
    uint64_t e = a->e[i] < b->e[j] ? a->e[i] : b->e[j];
    if (s < from) s = from;
    if (e > to) e = to;
    if (e > s) n += e - s;
    if (a->e[i] < b->e[j]) i++;
    else j++;
  }
  return n;
}

/* Drop what lies before t. */
static void drop_before(span_set *x, uint64_t t) {
  uint32_t k = 0;
  while (k < x->n && x->e[k] <= t) k++;
  memmove(&x->s[0], &x->s[k], (x->n - k) * sizeof x->s[0]);
  memmove(&x->e[0], &x->e[k], (x->n - k) * sizeof x->e[0]);
  x->n -= k;
  if (x->n && x->s[0] < t) x->s[0] = t;
}

/* Add up [from, t) and drop it. */
static void settle(uint64_t t) {
  uint64_t from = settled ? settled : first;
  if (t <= from) return;
  const span_set *busy = &sets[HP_SPAN_BUSY], *wait = &sets[HP_SPAN_WAIT];
  uint64_t b = within(busy, from, t), w = within(wait, from, t), both = both_within(busy, wait, from, t);
  parts[0] += both;
  parts[1] += w - both;
  parts[2] += b - both;
  parts[3] += (t - from) - (b + w - both);
  drop_before(&sets[0], t);
  drop_before(&sets[1], t);
  settled = t;
}

static void add(span_set *x, uint64_t start, uint64_t end) {
  /* in time order, the common case: after the last interval, or reaching into it from its start on */
  if (x->n == 0 || start > x->e[x->n - 1]) {
    x->s[x->n] = start, x->e[x->n] = end;
    x->n++;
    return;
  }
  if (start >= x->s[x->n - 1]) {
    if (end > x->e[x->n - 1]) x->e[x->n - 1] = end;
    return;
  }
  /* the first interval that ends at or after start: the new one touches it or comes before it */
  uint32_t lo = 0, hi = x->n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (x->e[mid] < start) lo = mid + 1;
    else hi = mid;
  }
  uint32_t i = lo;
  if (i == x->n || x->s[i] > end) { /* apart from its neighbours: inserted */
    memmove(&x->s[i + 1], &x->s[i], (x->n - i) * sizeof x->s[0]);
    memmove(&x->e[i + 1], &x->e[i], (x->n - i) * sizeof x->e[0]);
    x->s[i] = start, x->e[i] = end;
    x->n++;
    return;
  }
  /* merged with i and every later one it reaches */
  if (start < x->s[i]) x->s[i] = start;
  if (end > x->e[i]) x->e[i] = end;
  uint32_t j = i + 1;
  while (j < x->n && x->s[j] <= x->e[i]) {
    if (x->e[j] > x->e[i]) x->e[i] = x->e[j];
    j++;
  }
  memmove(&x->s[i + 1], &x->s[j], (x->n - j) * sizeof x->s[0]);
  memmove(&x->e[i + 1], &x->e[j], (x->n - j) * sizeof x->e[0]);
  x->n -= j - (i + 1);
}

void hp_cuda_span_add(int which, uint64_t start, uint64_t end) {
  if (end <= start) return;
  __atomic_add_fetch(&seq, 1, __ATOMIC_ACQ_REL);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  span_set *x = &sets[which];
  if (x->n == SPANS) settle(x->s[SPANS / 2]); /* frees half of x (and what the other holds before) */
  if (settled && start < settled) {           /* ran (partly) in time already added up */
    late += (end < settled ? end : settled) - start;
    start = settled;
  }
  if (end > start) {
    if (!first || start < first) first = start;
    add(x, start, end);
  }
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  __atomic_add_fetch(&seq, 1, __ATOMIC_RELEASE);
}

/* Async-signal-safe: stores into the dump's buffer only. */
void hp_cuda_spans_write(hp_buf *b) {
  uint32_t before = __atomic_load_n(&seq, __ATOMIC_ACQUIRE);
  size_t whole_at = b->len;
  hyprof_ext_buf_u32(b, 1); /* whole; patched to 0 when the sets changed while they were copied */
  int changing = before & 1; /* a taker is changing them right now (a dump in a signal handler) */
  hyprof_ext_buf_u64(b, changing ? 0 : first);
  hyprof_ext_buf_u64(b, changing ? 0 : settled);
  for (int k = 0; k < 4; k++) hyprof_ext_buf_u64(b, changing ? 0 : parts[k]);
  hyprof_ext_buf_u64(b, changing ? 0 : late);
  for (int w = 0; w < 2; w++) {
    const span_set *x = &sets[w];
    uint32_t n = changing ? 0 : x->n <= SPANS ? x->n : SPANS;
    hyprof_ext_buf_u32(b, n);
    for (uint32_t i = 0; i < n; i++) hyprof_ext_buf_u64(b, x->s[i]), hyprof_ext_buf_u64(b, x->e[i]);
  }
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  if (changing || __atomic_load_n(&seq, __ATOMIC_ACQUIRE) != before) hyprof_ext_buf_patch_u32(b, whole_at, 0);
}
