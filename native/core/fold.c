/* Folding (fold.h, docs/fold.md): per thread and per series, the instances of the folded timers
 * (start, duration, extra-metric deltas) and the samples taken inside them (offset from the
 * instance's start, innermost context and program counters, extra-metric offsets).
 *
 * Memory: one anonymous mapping per thread, reserved when the thread starts (MAP_NORESERVE: pages
 * cost memory only once written), `samples` and `instances` records per series. What does not fit is
 * counted (`lost_*`, written in the section and said by the report), never dropped silently.
 *
 * Writers and readers. A thread's records are written by that thread only: instances by its probe
 * (inside the tool, so its own sampling handler drops any sample that lands meanwhile), samples by
 * its sampling handler (which no other signal interrupts: sigchain.c blocks them). Each record is
 * written whole, then its count is raised with a release store; a dump on another thread loads the
 * count with acquire and reads the records below it, which never change again.
 *
 * Series running on another thread. An OpenMP worker runs the parallel loop of an iteration whose
 * timer lives on the primary thread's stack, not its own. So each series has one process-wide slot:
 * the first thread to start an instance of the series while the slot is free claims it (a CAS) and
 * publishes the instance's start under a sequence counter; a thread sampled with no instance of the
 * series on its own stack places its sample in the slot's instance, tagged with the owner's thread
 * index. Readers (handlers on other threads) take the start only when the counter was even and
 * unchanged around the read: lock-free, nothing waits. */
#define _GNU_SOURCE
#include "fold.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "clock.h"
#include "config.h"
#include "events.h"
#include "metrics.h"
#include "runtime.h"
#include "select.h"

uint32_t hp_fold_series;
static char patterns[HP_FOLD_MAX_SERIES][256];
static uint32_t cap_samples = 16384, cap_instances = 8192;

typedef struct fold_inst {
  uint32_t event;
  uint32_t reserved;
  uint64_t start_ns, dur_ns;
  uint64_t delta[HP_MAX_METRICS - 1];   /* extra metrics over the instance */
} fold_inst;

typedef struct fold_samp {
  uint32_t owner;                       /* thread index of the instance (this thread's or another's) */
  uint32_t depth;                       /* program counters kept in pc[] */
  uint64_t inst_start_ns, offset_ns, context;
  uint64_t pc[HP_FOLD_PCS];
  uint64_t mdelta[HP_MAX_METRICS - 1];  /* extra metrics from the instance's start; UINT64_MAX unknown */
} fold_samp;

typedef struct fold_series {
  fold_inst *inst;
  fold_samp *samp;
  uint32_t n_inst, n_samp;              /* written by the thread (release), read by a dump (acquire) */
  uint64_t lost_inst, lost_samp;
  int32_t claimed_level;                /* the frame that holds the process-wide slot, -1 none */
} fold_series;

typedef struct hp_fold_thread {
  size_t bytes;
  fold_series s[HP_FOLD_MAX_SERIES];
  uint64_t part_start[HP_MAX_FRAMES];   /* by level: the instance start of a HP_FRAME_FOLD_PART frame */
  uint64_t part_m[HP_MAX_FRAMES][HP_MAX_METRICS];   /* and the thread's metrics then (UINT64_MAX unknown) */
} hp_fold_thread;

/* The process-wide slot of a series (see the file comment). */
static struct {
  uint32_t busy;                        /* CAS 0 -> 1 by the claimer */
  uint32_t gen;                         /* odd while the claimer writes */
  uint32_t owner;
  uint64_t start_ns;
} slot[HP_FOLD_MAX_SERIES];

/* ---- configuration ---- */

/* Parse `v` into patterns; on a mistake, say it once and fold nothing (a partial set would fold
 * something else than asked). */
static int parse_patterns(const char *used, const char *v) {
  uint32_t n = 0;
  const char *p = v;
  for (;;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    while (len && (*p == ' ' || *p == '\t')) p++, len--;
    while (len && (p[len - 1] == ' ' || p[len - 1] == '\t')) len--;
    if (!len) {
      hp_warn("%s=%s: an empty name (item %u); nothing is folded", used, v, n + 1);
      return 0;
    }
    if (n == HP_FOLD_MAX_SERIES) {
      hp_warn("%s=%s: more than %d names; nothing is folded", used, v, HP_FOLD_MAX_SERIES);
      return 0;
    }
    if (len >= sizeof patterns[0]) {
      hp_warn("%s=%s: name %u is longer than %zu bytes; nothing is folded", used, v, n + 1, sizeof patterns[0] - 1);
      return 0;
    }
    if (strspn(p, "*") >= len) {
      hp_warn("%s=%s: name %u is only wildcards and would fold every timer; name the timers to fold; nothing is "
              "folded", used, v, n + 1);
      return 0;
    }
    memcpy(patterns[n], p, len);
    patterns[n][len] = '\0';
    n++;
    if (!end) break;
    p = end + 1;
  }
  hp_fold_series = n;
  return 1;
}

void hp_fold_configure(void) {
  const char *used = NULL;
  const char *v = hp_env("HYPROF_FOLD", NULL, &used);
  if (!v || !*v) return;
  if (!parse_patterns(used, v)) return;
  cap_samples = (uint32_t)hp_env_long("HYPROF_FOLD_SAMPLES", NULL, 16384, 16, 1L << 24);
  cap_instances = (uint32_t)hp_env_long("HYPROF_FOLD_INSTANCES", NULL, 8192, 16, 1L << 24);
}

uint8_t hp_fold_match(const char *name) {
  for (uint32_t i = 0; i < hp_fold_series; i++)
    if (hp_glob_match(patterns[i], name, '*')) return (uint8_t)(i + 1);   /* `*` only (select.h) */
  return 0;
}

/* Series of a frame: kept in flag bits 4-7 beside HP_FRAME_FOLD (the skip count starts at bit 8). */
#define SERIES_SHIFT 4
static inline uint32_t frame_series(uint32_t flags) { return (flags >> SERIES_SHIFT) & 0xfu; }

uint32_t hp_fold_frame_flags(uint32_t event) {
  hp_event *e = hp_event_get(event);
  uint8_t s = e ? __atomic_load_n(&e->fold, __ATOMIC_RELAXED) : 0;
  return s ? HP_FRAME_FOLD | ((uint32_t)(s - 1) << SERIES_SHIFT) : 0;
}

/* ---- per thread ---- */

void hp_fold_thread_start(hp_thread *t) {
  if (!hp_fold_series) return;
  size_t per = (size_t)cap_instances * sizeof(fold_inst) + (size_t)cap_samples * sizeof(fold_samp);
  size_t bytes = sizeof(hp_fold_thread) + hp_fold_series * per;
  void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) {
    hp_warn("no memory for the fold records of thread %u; its instances and samples are not folded", t->index);
    return;
  }
  hp_fold_thread *ft = m;
  ft->bytes = bytes;
  char *at = (char *)m + sizeof(hp_fold_thread);
  for (uint32_t i = 0; i < hp_fold_series; i++) {
    ft->s[i].inst = (fold_inst *)at;
    at += (size_t)cap_instances * sizeof(fold_inst);
    ft->s[i].samp = (fold_samp *)at;
    at += (size_t)cap_samples * sizeof(fold_samp);
    ft->s[i].claimed_level = -1;
  }
  __atomic_store_n(&t->fold, ft, __ATOMIC_RELEASE);
}

void hp_fold_fork_child(hp_thread *t) {
  memset(slot, 0, sizeof slot);   /* the threads that held them are not in the child */
  hp_fold_thread *ft = t ? t->fold : NULL;
  if (!ft) return;
  for (uint32_t i = 0; i < hp_fold_series; i++) {
    ft->s[i].n_inst = ft->s[i].n_samp = 0;
    ft->s[i].lost_inst = ft->s[i].lost_samp = 0;
    ft->s[i].claimed_level = -1;
  }
}

/* Record an instance (the thread's own records; published with a release store). mstart: the
 * thread's metrics at the instance's start, NULL when unknown (the deltas are then 0). */
static void put_instance(hp_thread *t, fold_series *fs, uint32_t event, uint64_t start_ns, uint64_t dur_ns, const uint64_t *mstart) {
  uint32_t n = fs->n_inst;
  if (n >= cap_instances) {
    __atomic_store_n(&fs->lost_inst, fs->lost_inst + 1, __ATOMIC_RELAXED);
    return;
  }
  fold_inst *r = &fs->inst[n];
  r->event = event;
  r->start_ns = start_ns;
  r->dur_ns = dur_ns;
  memset(r->delta, 0, sizeof r->delta);
  if (hp_n_metrics > 1 && mstart) {
    uint64_t v[HP_MAX_METRICS];
    hp_metrics_read(t, v);
    for (uint32_t m = 1; m < hp_n_metrics; m++) r->delta[m - 1] = v[m] - mstart[m];
  }
  __atomic_store_n(&fs->n_inst, n + 1, __ATOMIC_RELEASE);
}

void hp_fold_push(hp_thread *t, int32_t level) {
  hp_fold_thread *ft = t->fold;
  uint32_t flags = t->frames[level].flags;
  uint32_t s = frame_series(flags);
  /* a part of an async region's instance: that instance is its thread's only (see fold.h) */
  if (!ft || (flags & HP_FRAME_FOLD_PART) || ft->s[s].claimed_level >= 0) return;
  uint32_t free_ = 0;
  if (!__atomic_compare_exchange_n(&slot[s].busy, &free_, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return;
  ft->s[s].claimed_level = level;
  __atomic_store_n(&slot[s].gen, slot[s].gen + 1, __ATOMIC_RELAXED);   /* odd: being written */
  __atomic_store_n(&slot[s].owner, t->index, __ATOMIC_RELEASE);
  __atomic_store_n(&slot[s].start_ns, t->frames[level].start_ns, __ATOMIC_RELEASE);
  __atomic_store_n(&slot[s].gen, slot[s].gen + 1, __ATOMIC_RELEASE);
}

void hp_fold_close(hp_thread *t, int32_t level, uint64_t incl) {
  hp_fold_thread *ft = t->fold;
  const hp_frame *f = &t->frames[level];
  uint32_t s = frame_series(f->flags);
  if (!ft) return;
  fold_series *fs = &ft->s[s];
  if (fs->claimed_level == level) {
    fs->claimed_level = -1;
    __atomic_store_n(&slot[s].gen, slot[s].gen + 1, __ATOMIC_RELAXED);
    __atomic_store_n(&slot[s].start_ns, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&slot[s].gen, slot[s].gen + 1, __ATOMIC_RELEASE);
    __atomic_store_n(&slot[s].busy, 0, __ATOMIC_RELEASE);
  }
  if (f->flags & HP_FRAME_FOLD_PART) return;   /* the instance is recorded at its settlement */
  put_instance(t, fs, f->event, f->start_ns, incl, t->mframes ? t->mframes[level].start : NULL);
}

void hp_fold_part_start(hp_thread *t, int32_t level, uint64_t start_ns, const uint64_t *mstart) {
  hp_fold_thread *ft = t->fold;
  if (ft && level > 0 && level < HP_MAX_FRAMES) {
    ft->part_start[level] = start_ns;
    for (uint32_t m = 0; m < HP_MAX_METRICS; m++) ft->part_m[level][m] = mstart && m < hp_n_metrics ? mstart[m] : UINT64_MAX;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);   /* written before the frame is published (fold.h) */
  }
}

void hp_fold_instance(hp_thread *t, uint32_t event, uint64_t start_ns, uint64_t dur_ns, const uint64_t *mstart) {
  hp_fold_thread *ft = t->fold;
  uint32_t flags = hp_fold_frame_flags(event);
  if (!ft || !(flags & HP_FRAME_FOLD)) return;
  put_instance(t, &ft->s[frame_series(flags)], event, start_ns, dur_ns, mstart);
}

/* The start of the instance of series s that another thread holds, 0 when none (or it changes
 * while read: the sample is then not placed, counted as lost). */
static uint64_t slot_start(uint32_t s, uint32_t *owner) {
  uint32_t g1 = __atomic_load_n(&slot[s].gen, __ATOMIC_ACQUIRE);
  if (g1 & 1u) return UINT64_MAX;
  uint32_t o = __atomic_load_n(&slot[s].owner, __ATOMIC_ACQUIRE);
  uint64_t start = __atomic_load_n(&slot[s].start_ns, __ATOMIC_ACQUIRE);
  if (__atomic_load_n(&slot[s].gen, __ATOMIC_ACQUIRE) != g1) return UINT64_MAX;
  *owner = o;
  return start;
}

static void keep(fold_series *fs, uint32_t owner, uint64_t start, uint64_t now, uint64_t context, const uint64_t *pcs,
                 uint32_t depth, const uint64_t *mdelta) {
  uint32_t n = fs->n_samp;
  if (n >= cap_samples) {
    __atomic_store_n(&fs->lost_samp, fs->lost_samp + 1, __ATOMIC_RELAXED);
    return;
  }
  fold_samp *r = &fs->samp[n];
  r->owner = owner;
  r->depth = depth < HP_FOLD_PCS ? depth : HP_FOLD_PCS;
  r->inst_start_ns = start;
  r->offset_ns = now > start ? now - start : 0;
  r->context = context;
  for (uint32_t i = 0; i < r->depth; i++) r->pc[i] = pcs[i];
  for (uint32_t m = 0; m + 1 < HP_MAX_METRICS; m++) r->mdelta[m] = mdelta[m];
  __atomic_store_n(&fs->n_samp, n + 1, __ATOMIC_RELEASE);
}

/* Async-signal-safe: reads the thread's own frames (the handler interrupts its own thread, which is
 * not inside a probe: in_tool samples never come here), the series' slots (atomic loads), writes
 * preallocated records; hp_metrics_read is clock_gettime / read() only (metrics.h). No allocation,
 * no lock, no stdio; one read() per extra perf metric when several metrics are measured. */
void hp_fold_sample(hp_thread *t, uint64_t now, uint64_t context, const uint64_t *pcs, uint32_t depth) {
  hp_fold_thread *ft = __atomic_load_n(&t->fold, __ATOMIC_ACQUIRE);
  if (!ft) return;
  uint32_t done = 0;   /* series this sample was kept for */
  uint64_t unknown[HP_MAX_METRICS - 1], mdelta[HP_MAX_METRICS - 1], v[HP_MAX_METRICS];
  for (uint32_t m = 0; m + 1 < HP_MAX_METRICS; m++) unknown[m] = UINT64_MAX;
  int have_v = 0;
  int32_t top = t->top;
  if (top >= t->frame_cap) top = t->frame_cap - 1;
  for (int32_t l = top; l > 0; l--) {   /* innermost instance of each series on this thread */
    const hp_frame *f = &t->frames[l];
    if (!(f->flags & HP_FRAME_FOLD)) continue;
    uint32_t s = frame_series(f->flags);
    if (done & (1u << s)) continue;
    done |= 1u << s;
    /* a part of an async region's instance: its start (and the metrics then) were written before the
     * frame was published; a frame of its own: the frame's */
    int part = (f->flags & HP_FRAME_FOLD_PART) && l < HP_MAX_FRAMES;
    const uint64_t *m0 = part ? ft->part_m[l] : t->mframes ? t->mframes[l].start : NULL;
    const uint64_t *md = unknown;
    if (hp_n_metrics > 1 && m0 && m0[1] != UINT64_MAX) {
      if (!have_v) hp_metrics_read(t, v), have_v = 1;
      for (uint32_t m = 1; m < hp_n_metrics; m++) mdelta[m - 1] = v[m] - m0[m];
      for (uint32_t m = hp_n_metrics; m < HP_MAX_METRICS; m++) mdelta[m - 1] = UINT64_MAX;
      md = mdelta;
    }
    keep(&ft->s[s], t->index, part ? ft->part_start[l] : f->start_ns, now, context, pcs, depth, md);
  }
  for (uint32_t s = 0; s < hp_fold_series; s++) {   /* instances held by other threads */
    if ((done & (1u << s)) || !__atomic_load_n(&slot[s].busy, __ATOMIC_ACQUIRE)) continue;
    uint32_t owner = 0;
    uint64_t start = slot_start(s, &owner);
    if (start == UINT64_MAX) {
      __atomic_store_n(&ft->s[s].lost_samp, ft->s[s].lost_samp + 1, __ATOMIC_RELAXED);
      continue;
    }
    if (!start || owner == t->index || start > now) continue;
    keep(&ft->s[s], owner, start, now, context, pcs, depth, unknown);
  }
}

/* ---- the raw file ---- */

void hp_fold_write_section(hp_buf *b) {
  if (!hp_fold_series) return;
  size_t at = hp_buf_section_begin(b, HP_SEC_FOLD);
  uint32_t extra = hp_n_metrics - 1;
  hp_buf_u32(b, 1);   /* layout */
  hp_buf_u32(b, hp_fold_series);
  for (uint32_t i = 0; i < hp_fold_series; i++) hp_buf_str(b, patterns[i]);
  hp_buf_u32(b, cap_instances);
  hp_buf_u32(b, cap_samples);
  hp_buf_u32(b, extra);
  size_t n_threads_at = b->len;
  hp_buf_u32(b, 0);
  uint32_t n_threads = 0;
  for (hp_thread *t = hp_dump_thread_list(); t; t = t->next) {
    hp_fold_thread *ft = __atomic_load_n(&t->fold, __ATOMIC_ACQUIRE);
    if (!ft) continue;
    n_threads++;
    hp_buf_u32(b, t->index);
    for (uint32_t s = 0; s < hp_fold_series; s++) {
      fold_series *fs = &ft->s[s];
      uint32_t ni = __atomic_load_n(&fs->n_inst, __ATOMIC_ACQUIRE);
      uint32_t ns = __atomic_load_n(&fs->n_samp, __ATOMIC_ACQUIRE);
      hp_buf_u64(b, __atomic_load_n(&fs->lost_inst, __ATOMIC_RELAXED));
      hp_buf_u64(b, __atomic_load_n(&fs->lost_samp, __ATOMIC_RELAXED));
      hp_buf_u32(b, ni);
      for (uint32_t i = 0; i < ni; i++) {
        const fold_inst *r = &fs->inst[i];
        hp_buf_u32(b, r->event);
        hp_buf_u64(b, r->start_ns);
        hp_buf_u64(b, r->dur_ns);
        for (uint32_t m = 0; m < extra; m++) hp_buf_u64(b, r->delta[m]);
      }
      hp_buf_u32(b, ns);
      for (uint32_t i = 0; i < ns; i++) {
        const fold_samp *r = &fs->samp[i];
        hp_buf_u32(b, r->owner);
        hp_buf_u64(b, r->inst_start_ns);
        hp_buf_u64(b, r->offset_ns);
        hp_buf_u64(b, r->context);
        for (uint32_t m = 0; m < extra; m++) hp_buf_u64(b, r->mdelta[m]);
        hp_buf_u32(b, r->depth);
        for (uint32_t d = 0; d < r->depth; d++) hp_buf_u64(b, r->pc[d]);
      }
    }
  }
  hp_buf_patch_u32(b, n_threads_at, n_threads);
  hp_buf_section_end(b, at);
}
