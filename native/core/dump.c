/* Writes the raw measurement file (docs/raw-format.md) at exit, at hyprof_flush() and from the
 * SIGINT / SIGTERM handler. Everything here is async-signal-safe: memory from mmap (writer.c), no
 * stdio, no malloc, only system calls; other threads' tables are read as published (thread.h).
 *
 * Open timers are not touched: their time so far is added to what is written, so a flush leaves the
 * running program's measurement intact.
 *
 * The core writes INFO, THREAD, USER_EVENTS, CONTEXTS and EVENTS; the modules add their metadata,
 * their per-thread drop counters and their own sections through the module table (module.h), never
 * by name (today: SAMPLING, MAPS and SAMPLES from sampling, OMPT from the OpenMP tool).
 *
 * Other threads go on running while the file is built (at a flush, at exit, on a signal): they may
 * register events and enter new contexts meanwhile. So the sections that name contexts and events
 * (THREAD and the modules' sections) are written first, and the CONTEXTS and EVENTS tables last,
 * from a second look at every thread: everything named earlier is then in them (a context, once
 * entered, stays either open on its thread's stack or recorded in its statistics table). Counts of
 * entries are written as placeholders and patched with the number actually written. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "config.h"
#include "events.h"
#include "functions.h"
#include "fold.h"
#include "meta.h"
#include "metrics.h"
#include "module.h"
#include "runtime.h"
#include "trace.h"
#include "userevent.h"
#include "writer.h"

/* The thread list as the dump in progress saw it when it wrote the THREAD sections (thread.h). Set
 * by the dump that owns the file (one at a time); NULL-safe before the first. */
static hp_thread *dump_threads;
hp_thread *hp_dump_thread_list(void) {
  hp_thread *t = __atomic_load_n(&dump_threads, __ATOMIC_ACQUIRE);
  return t ? t : hp_thread_list();
}

/* The tid of the thread building a file, 0 when none: one dump at a time. */
static int dumping; /* minus the tid while a metadata add holds it instead (hp_dump_try_hold) */
static char last_path[4400];

const char *hp_dump_last_path(void) { return last_path; }

/* ---- small signal-safe helpers ---- */

static void append(char *dst, size_t cap, const char *s) {
  size_t n = strlen(dst);
  while (*s && n + 1 < cap) dst[n++] = *s++;
  dst[n] = 0;
}

static void append_u64(char *dst, size_t cap, uint64_t v) {
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  char out[24];
  int j = 0;
  while (n) out[j++] = tmp[--n];
  out[j] = 0;
  append(dst, cap, out);
}

static void say(const char *a, const char *b, const char *c) {
  ssize_t w = write(2, a, strlen(a));
  if (b) w = write(2, b, strlen(b));
  if (c) w = write(2, c, strlen(c));
  (void)w;
}

static const char *errno_text(int e) {
  switch (e) {
    case EACCES: return "permission denied";
    case ENOENT: return "no such directory";
    case ENOSPC: return "no space left on device";
    case EROFS: return "read-only file system";
    case EDQUOT: return "disk quota exceeded";
    case ENOTDIR: return "not a directory";
    case ENAMETOOLONG: return "the path is longer than the system's limit";
    default: return "write failed";
  }
}

/* ---- open timers: their contribution so far ---- */

typedef struct open_add {
  uint64_t context, parent;
  uint32_t event, written;
  uint32_t no_stats; /* HP_FRAME_NO_STATS: listed for the context table only */
  uint64_t calls, child_calls;
  uint64_t incl[HP_MAX_METRICS], excl[HP_MAX_METRICS]; /* [0] TIME; the others with HYPROF_METRICS */
} open_add;

/* Up to two entries per open frame (timer and parameter specialisation). */
static open_add opens[2 * HP_MAX_FRAMES];
/* The base contexts of the open frames above the root, innermost first (THREAD's open list). */
static uint64_t open_frames[HP_MAX_FRAMES];
static int n_open_frames;

/* Open detached frames (thread.h) at the time of a dump, as closing them now would count them: the
 * time of those above a frame that is anchored at it (its sub time and child time). */
static uint64_t open_sub_at[HP_MAX_FRAMES], open_child_at[HP_MAX_FRAMES];

/* The extra metrics (metrics.h) of open frame i and of its parameter specialisation `pa` (or NULL),
 * as closing them now would count them; `inner` holds the open child's inclusive values and is
 * updated to frame i's. Detached frames' values are not moved to their anchors here (nor at close:
 * metrics.c), so an OpenMP task's extra metrics also count in the frames it ran above. */
static void open_metrics(const hp_frame *frames, const hp_mframe *mframes, int32_t i, open_add *a, open_add *pa,
                         const uint64_t *cur, uint64_t *inner) {
  const hp_mframe *mf = &mframes[i];
  for (uint32_t m = 1; m < hp_n_metrics; m++) {
    uint64_t start = HP_GET(mf->start[m]), child_so_far = HP_GET(mf->child[m]);
    uint64_t incl = cur[m] > start ? cur[m] - start : 0;
    uint64_t child = child_so_far + inner[m];
    a->incl[m] = incl;
    a->excl[m] = incl > child ? incl - child : 0;
    if (pa) {
      uint64_t param_start = HP_GET(mf->param_start[m]);
      uint64_t pincl = cur[m] > param_start ? cur[m] - param_start : 0;
      uint64_t pchild = child_so_far - HP_GET(mf->child_at_param[m]) + inner[m];
      pa->incl[m] = pincl;
      pa->excl[m] = pincl > pchild ? pincl - pchild : 0;
    }
    inner[m] = (HP_GET(frames[i].flags) & HP_FRAME_DETACHED) ? 0 : incl;
  }
}

/* One frame as its thread wrote it (thread.h, HP_PUT). */
static void read_frame(const hp_frame *src, hp_frame *f) {
  f->context = HP_GET(src->context);
  f->base_context = HP_GET(src->base_context);
  f->parent_context = HP_GET(src->parent_context);
  f->event = HP_GET(src->event);
  f->param_event = HP_GET(src->param_event);
  f->start_ns = HP_GET(src->start_ns);
  f->child_ns = HP_GET(src->child_ns);
  f->param_start_ns = HP_GET(src->param_start_ns);
  f->child_ns_at_param = HP_GET(src->child_ns_at_param);
  f->child_calls = HP_GET(src->child_calls);
  f->child_calls_at_param = HP_GET(src->child_calls_at_param);
  f->flags = HP_GET(src->flags);
  f->anchor = HP_GET(src->anchor);
  f->detached_at_push = HP_GET(src->detached_at_push);
  f->detached_at_param = HP_GET(src->detached_at_param);
  f->sub_ns = HP_GET(src->sub_ns);
  f->sub_at_param = HP_GET(src->sub_at_param);
}

/* Threads found stuck in a write during this dump. A second SIGTERM delivered to a thread in the
 * middle of a write holds it there (its handler waits for this dump): its sequence count stays odd.
 * Once one reading of a thread ran to the bound of tries, each of its entries is read once from then
 * on (the dump's time stays bounded by one bound per thread, not one per entry), and the entries of
 * the thread being written that were read so count as possibly torn (a drop of its THREAD section). */
#define MAX_STUCK 64
static const hp_thread *stuck[MAX_STUCK];
static uint32_t n_stuck;
static uint64_t torn;
#define MAX_TRIES 10000

static int is_stuck(const hp_thread *t) {
  for (uint32_t i = 0; i < n_stuck; i++)
    if (stuck[i] == t) return 1;
  return 0;
}

/* After a reading between seq loads `before` and `after`: 1 when it is taken (one moment's, or the
 * tries are over: then counted in `torn`, `entries` of them). */
static int reading_done(const hp_thread *t, uint32_t before, uint32_t after, int tries, uint64_t entries) {
  if ((before == after && !(before & 1)) || t == hp_thread_current()) return 1;
  if (tries < MAX_TRIES && !is_stuck(t)) return 0;
  if (!is_stuck(t) && n_stuck < MAX_STUCK) stuck[n_stuck++] = t;
  torn += entries;
  return 1;
}

/* A thread's open frames, from one moment of its stack: read again while the thread changes it
 * (its seq odd or moved: thread.h). A dump in a signal handler on the thread itself finds it
 * stopped for good, and a thread that never pauses keeps us waiting: after a bounded number of
 * tries the last reading is taken as it is (see `stuck`). */
static int collect_open_once(const hp_thread *t, uint64_t end);
static int collect_open(const hp_thread *t, uint64_t end) {
  for (int tries = 0;; tries++) {
    uint32_t before = __atomic_load_n(&t->seq, __ATOMIC_ACQUIRE);
    int n = collect_open_once(t, end);
    uint32_t after = __atomic_load_n(&t->seq, __ATOMIC_RELAXED);
    if (reading_done(t, before, after, tries, (uint64_t)n)) return n;
  }
}

static int collect_open_once(const hp_thread *t, uint64_t end) {
  int n = 0;
  uint64_t cur[HP_MAX_METRICS] = {0}, inner_m[HP_MAX_METRICS] = {0};
  int multi = hp_n_metrics > 1 && __atomic_load_n(&t->mframes, __ATOMIC_ACQUIRE);
  if (multi) hp_metrics_read(t, cur);
  n_open_frames = 0;
  int32_t top = __atomic_load_n(&t->top, __ATOMIC_ACQUIRE);
  /* The stack's capacity around its pointers: a stack that grows is published before its capacity
   * rises, one that shrinks after its capacity falls (thread.c, resize_frames), so the smaller
   * capacity read bounds the frames loaded. After top: a stack replaced to hold more frames is
   * published before top rises (thread.h). A top beyond the capacity is a reading the stack was
   * replaced in (seq moved): nothing is read from it, and it is read again. */
  int32_t cap = __atomic_load_n(&t->frame_cap, __ATOMIC_ACQUIRE);
  const hp_frame *frames = __atomic_load_n(&t->frames, __ATOMIC_ACQUIRE);
  const hp_mframe *mframes = multi ? __atomic_load_n(&t->mframes, __ATOMIC_ACQUIRE) : NULL;
  int32_t cap_after = __atomic_load_n(&t->frame_cap, __ATOMIC_ACQUIRE);
  if (cap_after < cap) cap = cap_after;
  if (top < 0 || top >= HP_MAX_FRAMES || top >= cap) return 0;
  for (int32_t i = 0; i <= top; i++) open_sub_at[i] = open_child_at[i] = 0;
  uint64_t inner_incl = 0; /* the open child's inclusive time so far (0 when it is detached) */
  uint64_t detached = HP_GET(t->detached_ns); /* closed detached time, and that of the open ones above */
  uint64_t sub_above = 0;  /* sub time the open frame above would pass down when it closes */
  for (int32_t i = top; i >= 0; i--) {
    hp_frame copy;
    read_frame(&frames[i], &copy);
    const hp_frame *f = &copy;
    uint64_t sub = f->sub_ns + sub_above + open_sub_at[i];
    uint64_t d = detached - f->detached_at_push;
    uint64_t start = d ? f->start_ns + d - sub : f->start_ns;
    uint64_t parent = i > 0 ? f->parent_context : 0;
    if (i > 0) open_frames[n_open_frames++] = f->base_context;
    uint64_t incl = end > start ? end - start : 0;
    uint64_t inner = inner_incl + open_child_at[i];
    uint64_t child = f->child_ns + inner;
    open_add *a = &opens[n++];
    a->context = f->base_context;
    a->parent = parent;
    a->event = f->event;
    a->written = 0;
    a->no_stats = (f->flags & HP_FRAME_NO_STATS) != 0;
    a->calls = 1;
    a->child_calls = f->child_calls;
    memset(a->incl, 0, sizeof a->incl);
    memset(a->excl, 0, sizeof a->excl);
    a->incl[0] = incl;
    a->excl[0] = incl > child ? incl - child : 0;
    open_add *pa = NULL;
    if (f->param_event != HP_NO_EVENT) {
      uint64_t pstart = f->param_start_ns + (detached - f->detached_at_param) - (sub - f->sub_at_param);
      uint64_t pincl = end > pstart ? end - pstart : 0;
      uint64_t pchild = f->child_ns - f->child_ns_at_param + inner;
      open_add *p = &opens[n++];
      p->context = f->context;
      p->parent = parent;
      p->event = f->param_event;
      p->written = 0;
      p->no_stats = a->no_stats;
      p->calls = 1;
      p->child_calls = f->child_calls - f->child_calls_at_param;
      memset(p->incl, 0, sizeof p->incl);
      memset(p->excl, 0, sizeof p->excl);
      p->incl[0] = pincl;
      p->excl[0] = pincl > pchild ? pincl - pchild : 0;
      pa = p;
    }
    if (multi) open_metrics(frames, mframes, i, a, pa, cur, inner_m);
    inner_incl = incl;
    sub_above = sub;
    if ((f->flags & HP_FRAME_DETACHED) && f->anchor >= 0 && f->anchor < i) {
      /* its time goes to its anchor, and out of the frames between */
      inner_incl = 0;
      detached += incl;
      open_sub_at[f->anchor] += incl;
      open_child_at[f->anchor] += incl;
    }
  }
  return n;
}

static open_add *find_open(int n, uint64_t context) {
  for (int i = 0; i < n; i++)
    if (opens[i].context == context && !opens[i].no_stats) return &opens[i];
  return NULL;
}

/* `add` (an open frame's values so far, or NULL) is added to the table's `s`. */
static void write_stat(hp_buf *b, uint64_t context, uint64_t calls, uint64_t child_calls, const uint64_t *incl,
                       const uint64_t *excl, const open_add *add) {
  hp_buf_u64(b, context);
  hp_buf_u64(b, calls + (add ? add->calls : 0));
  hp_buf_u64(b, child_calls + (add ? add->child_calls : 0));
  for (uint32_t m = 0; m < hp_n_metrics; m++) hp_buf_u64(b, incl[m] + (add ? add->incl[m] : 0));
  for (uint32_t m = 0; m < hp_n_metrics; m++) hp_buf_u64(b, excl[m] + (add ? add->excl[m] : 0));
}

/* ---- sections ---- */

static void section_info(hp_buf *b, int why, uint64_t stop_wall) {
  size_t at = hp_buf_section_begin(b, HP_SEC_INFO);
  uint32_t flags = (hp_rt.forked_child ? 1u : 0) | (why == 1 ? 2u : 0) | (why == 2 ? 4u : 0) |
                   (hp_rt.run_root ? 8u : 0) | (hp_rt.node_set ? 16u : 0) | (hp_rt.mpi_rank ? 32u : 0) |
                   (hp_rt.rank_from_env ? 64u : 0) | (why == HP_DUMP_EXEC ? 128u : 0);
  hp_buf_i64(b, hp_rt.pid);
  hp_buf_i64(b, hp_rt.ppid);
  hp_buf_i32(b, hp_rt.node);
  hp_buf_u32(b, flags);
  hp_buf_u64(b, hp_rt.start_wall_ns);
  hp_buf_u64(b, stop_wall);
  hp_buf_u32(b, hp_n_metrics);
  for (uint32_t m = 0; m < hp_n_metrics; m++) hp_buf_str(b, hp_metric_name(m));
  unsigned n = hp_meta_count();
  hp_buf_u32(b, n);
  for (unsigned i = 0; i < n; i++) {
    const char *k, *v;
    hp_meta_get(i, &k, &v);
    hp_buf_str(b, k);
    hp_buf_str(b, v);
  }
  hp_buf_section_end(b, at);
}

static void section_events(hp_buf *b) {
  size_t at = hp_buf_section_begin(b, HP_SEC_EVENTS);
  uint32_t n = hp_event_count();
  hp_buf_u32(b, n);
  for (uint32_t i = 0; i < n; i++) {
    hp_event *e = hp_event_get(i);
    hp_buf_u32(b, e->id);
    hp_buf_u8(b, e->kind);
    hp_buf_u8(b, __atomic_load_n(&e->throttled, __ATOMIC_RELAXED) ? 1 : 0); /* flags: bit 0 throttled */
    hp_buf_u8(b, 0);
    hp_buf_u8(b, 0);
    hp_buf_u32(b, e->base);
    hp_buf_str(b, e->name);
    hp_buf_str(b, e->group);
  }
  hp_buf_section_end(b, at);
}

/* The context table is the union of every thread's contexts; a set in mmap'ed memory removes the
 * repeats (threads share contexts such as the root). */
typedef struct ctx_entry {
  uint64_t context, parent;
  uint32_t event, used;
} ctx_entry;

static ctx_entry *ctx_set;
static size_t ctx_cap, ctx_count;
static int ctx_overflow;

static void ctx_add(uint64_t context, uint64_t parent, uint32_t event) {
  if (!ctx_set) return;
  size_t mask = ctx_cap - 1;
  /* Sized from a first count of the tables; threads may have added contexts since: never loop on a
   * full set (the file is then refused by the reader as incomplete, reported, not hung). */
  if (ctx_count >= ctx_cap - 1) {
    ctx_overflow = 1;
    return;
  }
  for (size_t i = context & mask;; i = (i + 1) & mask) {
    if (!ctx_set[i].used) {
      ctx_set[i] = (ctx_entry){context, parent, event, 1};
      ctx_count++;
      return;
    }
    if (ctx_set[i].context == context) return;
  }
}

static uint64_t thread_end_mono(const hp_thread *t, uint64_t now) {
  return __atomic_load_n(&t->ended, __ATOMIC_ACQUIRE) ? t->stop_mono_ns : now;
}

static void section_contexts(hp_buf *b, uint64_t now) {
  size_t total = 0;
  for (hp_thread *t = hp_thread_list(); t; t = t->next) {
    hp_stat_table *tb = __atomic_load_n(&t->stats, __ATOMIC_ACQUIRE);
    total += (tb ? __atomic_load_n(&tb->count, __ATOMIC_RELAXED) : 0) + 2 * HP_MAX_FRAMES;
  }
  ctx_cap = 1024;
  while (ctx_cap < total * 2) ctx_cap *= 2; /* at most half full; room for contexts entered while we read */
  ctx_overflow = 0;
  void *p = mmap(NULL, ctx_cap * sizeof(ctx_entry), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ctx_set = p == MAP_FAILED ? NULL : p;
  ctx_count = 0;
  if (!ctx_set) b->failed = 1;
  /* Open frames first, then the table: a context entered before this point is either still open
   * when its stack is read, or was closed before, so its statistics are in the table read after
   * (a table read first could miss a slot filled behind the scan by a frame closing meanwhile). */
  for (hp_thread *t = hp_thread_list(); t; t = t->next) {
    int n = collect_open(t, thread_end_mono(t, now));
    for (int i = 0; i < n; i++) ctx_add(opens[i].context, opens[i].parent, opens[i].event);
    hp_stat_table *tb = __atomic_load_n(&t->stats, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; tb && i < tb->capacity; i++) {
      const hp_stat *s = hp_stat_slot(tb, i);
      if (__atomic_load_n(&s->used, __ATOMIC_ACQUIRE)) ctx_add(s->context, s->parent, s->event);
    }
  }
  size_t at = hp_buf_section_begin(b, HP_SEC_CONTEXTS);
  hp_buf_u32(b, (uint32_t)ctx_count);
  for (size_t i = 0; ctx_set && i < ctx_cap; i++) {
    if (!ctx_set[i].used) continue;
    hp_buf_u64(b, ctx_set[i].context);
    hp_buf_u64(b, ctx_set[i].parent);
    hp_buf_u32(b, ctx_set[i].event);
    hp_buf_u32(b, 0);
  }
  hp_buf_section_end(b, at);
  if (ctx_set) munmap(ctx_set, ctx_cap * sizeof(ctx_entry));
  ctx_set = NULL;
  if (ctx_overflow) {
    say("hyprof: contexts were entered faster than they could be written; this file is incomplete", NULL, "\n");
    b->failed = 1;
  }
}

/* A copy of one statistics entry (the table's slot holds the run's metrics only: thread.h). */
typedef struct stat_copy {
  uint64_t context, calls, child_calls;
  uint64_t incl[HP_MAX_METRICS], excl[HP_MAX_METRICS];
} stat_copy;

/* One statistics entry of thread t from one moment (as collect_open reads frames); into *c. */
static const stat_copy *read_stat(const hp_thread *t, const hp_stat *src, stat_copy *c) {
  c->context = src->context;   /* written once, before the entry was published (stats.c) */
  for (int tries = 0;; tries++) {
    uint32_t before = __atomic_load_n(&t->seq, __ATOMIC_ACQUIRE);
    c->calls = HP_GET(src->calls);
    c->child_calls = HP_GET(src->child_calls);
    for (uint32_t m = 0; m < hp_n_metrics; m++) {
      c->incl[m] = HP_GET(src->metric[m].incl);
      c->excl[m] = HP_GET(src->metric[m].excl);
    }
    uint32_t after = __atomic_load_n(&t->seq, __ATOMIC_RELAXED);
    if (reading_done(t, before, after, tries, 1)) return c;
  }
}

static void section_thread(hp_buf *b, hp_thread *t, uint64_t now, uint64_t now_wall) {
  size_t at = hp_buf_section_begin(b, HP_SEC_THREAD);
  int ended = __atomic_load_n(&t->ended, __ATOMIC_ACQUIRE);
  hp_buf_u32(b, t->index);
  hp_buf_i64(b, t->tid);
  /* A name from hyprof_set_thread_name, else the one pthread_setname_np gave a running thread (an
   * ended thread's was kept at its end); hp_thread_os_name is async-signal-safe. */
  char os_name[32];
  const char *name = t->name;
  if (!name[0] && !ended && hp_thread_os_name(t, os_name, sizeof os_name)) name = os_name;
  hp_buf_str(b, name);
  hp_buf_u64(b, t->start_ns);
  hp_buf_u64(b, ended ? t->stop_ns : now_wall);
  hp_buf_u32(b, ended ? 1u : 0u);

  torn = 0;
  int n_open = collect_open(t, thread_end_mono(t, now));
  hp_stat_table *tb = __atomic_load_n(&t->stats, __ATOMIC_ACQUIRE);
  size_t n_stats_at = b->len;
  hp_buf_u32(b, 0); /* patched below: the thread may add slots while we read */
  uint32_t n_stats = 0;
  for (uint32_t i = 0; tb && i < tb->capacity; i++) {
    const hp_stat *slot = hp_stat_slot(tb, i);
    if (!__atomic_load_n(&slot->used, __ATOMIC_ACQUIRE)) continue;
    stat_copy c;
    const stat_copy *s = read_stat(t, slot, &c);
    open_add *a = find_open(n_open, s->context);
    if (a) a->written = 1;
    write_stat(b, s->context, s->calls, s->child_calls, s->incl, s->excl, a);
    n_stats++;
  }
  for (int i = 0; i < n_open; i++) {
    if (opens[i].written || opens[i].no_stats) continue;
    write_stat(b, opens[i].context, opens[i].calls, opens[i].child_calls, opens[i].incl, opens[i].excl, NULL);
    n_stats++;
  }
  hp_buf_patch_u32(b, n_stats_at, n_stats);

  /* Timers open then (the root excepted: it always is), from the same reading of the stack. */
  hp_buf_u32(b, (uint32_t)n_open_frames);
  for (int i = 0; i < n_open_frames; i++) hp_buf_u64(b, open_frames[i]);

  uint32_t cap = __atomic_load_n(&t->user_capacity, __ATOMIC_ACQUIRE);
  hp_user_stat *us = __atomic_load_n(&t->user_stats, __ATOMIC_ACQUIRE);
  uint32_t n_user = 0;
  /* Counted as written: an event first triggered meanwhile is left to the next dump. */
  size_t n_user_at = b->len;
  hp_buf_u32(b, 0);
  int user_stuck = 0;
  for (uint32_t i = 0; us && i < cap; i++) {
    hp_user_stat u;
    int was_stuck = user_stuck;
    if (!hp_user_stat_read(t, us, i, &u, &user_stuck)) continue;
    if (was_stuck || user_stuck) torn++;
    hp_buf_u32(b, i);
    hp_buf_u64(b, u.count);
    hp_buf_f64(b, u.min);
    hp_buf_f64(b, u.max);
    hp_buf_f64(b, u.sum);
    hp_buf_f64(b, u.sumsqr);
    n_user++;
  }
  hp_buf_patch_u32(b, n_user_at, n_user);

  size_t n_drop_at = b->len;
  hp_buf_u32(b, 0); /* patched: the modules' entries are counted as written */
  uint32_t n_drop = 0;
  if (t->drops_depth) {
    hp_buf_str(b, "timers_nested_too_deep");
    hp_buf_u64(b, t->drops_depth);
    n_drop++;
  }
  if (t->drops_alloc) {
    hp_buf_str(b, "out_of_memory");
    hp_buf_u64(b, t->drops_alloc);
    n_drop++;
  }
  if (t->warnings_not_kept) {
    hp_buf_str(b, "warnings_not_kept");
    hp_buf_u64(b, t->warnings_not_kept);
    n_drop++;
  }
  if (torn) {
    hp_buf_str(b, "entries_possibly_torn");
    hp_buf_u64(b, torn);
    n_drop++;
  }
  n_drop += hp_trace_write_drops(t, b);
  n_drop += hp_modules_write_drops(t, b);
  hp_buf_patch_u32(b, n_drop_at, n_drop);

  uint32_t n_warn = t->n_warnings < HP_MAX_WARNINGS ? t->n_warnings : HP_MAX_WARNINGS;
  hp_buf_u32(b, n_warn);
  for (uint32_t i = 0; i < n_warn; i++) hp_buf_str(b, t->warnings[i]);
  hp_buf_section_end(b, at);
}

static void section_user_events(hp_buf *b) {
  size_t at = hp_buf_section_begin(b, HP_SEC_USER_EVENTS);
  uint32_t n = hp_user_event_count();
  hp_buf_u32(b, n);
  for (uint32_t i = 0; i < n; i++) {
    hp_buf_u32(b, i);
    hp_buf_str(b, hp_user_event_name(i));
  }
  hp_buf_section_end(b, at);
}

/* Whether any thread entered a timer (open now, or closed with statistics). */
static int entered_any_timer(void) {
  for (hp_thread *t = hp_thread_list(); t; t = t->next) {
    hp_stat_table *tb = __atomic_load_n(&t->stats, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(&t->top, __ATOMIC_ACQUIRE) > 0 || (tb && __atomic_load_n(&tb->count, __ATOMIC_RELAXED) > 0)) return 1;
  }
  return 0;
}

/* ---- the file ---- */

static void file_name(char *out, size_t cap) {
  struct utsname u;
  out[0] = 0;
  append(out, cap, hp_cfg.raw_dir);
  append(out, cap, "/hyprof.");
  append(out, cap, uname(&u) == 0 ? u.nodename : "host");
  append(out, cap, ".");
  append_u64(out, cap, (uint64_t)hp_rt.pid);
  append(out, cap, ".");
  append_u64(out, cap, hp_rt.start_wall_ns / 1000);
  append(out, cap, ".raw");
}

static int write_all(int fd, const uint8_t *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

int hp_dump(int why) {
  if (!hp_rt.initialised || hp_rt.disabled) return -1;
  int me = (int)syscall(SYS_gettid), none = 0;
  /* A read-modify-write of `dumping`, as hp_dump_idle's: see there. A metadata add holding it (on
   * another thread: hp_dump_try_hold) is a moment: waited for, bounded. */
  for (int tries = 0; !__atomic_compare_exchange_n(&dumping, &none, me, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE); tries++) {
    if (none >= 0 || none == -me || tries >= 10000) return -1;
    struct timespec wait = {0, 100 * 1000};
    nanosleep(&wait, NULL);
    none = 0;
  }
  /* The fork-and-exec of a shell or a launcher: a forked child that entered no timer has nothing of
   * its own to keep. Asked once the dump is this thread's, so no table is released under it. */
  if (why == HP_DUMP_EXEC && hp_rt.forked_child && !entered_any_timer()) {
    __atomic_store_n(&dumping, 0, __ATOMIC_RELEASE);
    return HP_DUMP_NOTHING;
  }
  int saved_errno = errno;
  n_stuck = 0;
  hp_modules_before_dump(why);
  uint64_t now = hp_now_ns(), now_wall = hp_wall_ns();
  hp_meta_add_long("Ending Timestamp", (long long)(now_wall / 1000));
  /* Ended threads stay in the profile, their states kept, compacted (thread.c): how many, how much. */
  long long n_ended = 0, ended_bytes = 0;
  for (hp_thread *t = hp_thread_list(); t; t = t->next)
    if (__atomic_load_n(&t->ended, __ATOMIC_ACQUIRE)) {
      n_ended++;
      ended_bytes += (long long)__atomic_load_n(&t->kept_bytes, __ATOMIC_RELAXED);
    }
  if (n_ended) {
    hp_meta_add_long("hyprof Ended Threads Kept", n_ended);
    hp_meta_add_long("hyprof Ended Threads Memory (bytes)", ended_bytes);
  }
  hp_trace_add_metadata();
  hp_schedstat_add_metadata();
  hp_modules_add_metadata();

  hp_buf b = {0};
  hp_buf_bytes(&b, "HYPROFRW", 8);
  hp_buf_u32(&b, 1);
  hp_buf_u32(&b, 0);
  section_info(&b, why, now_wall);
  /* The threads of this file: a thread started from here on (pushed at the list's head) has no THREAD
   * section, so the sections below that are per thread walk this same list (hp_dump_thread_list). */
  __atomic_store_n(&dump_threads, hp_thread_list(), __ATOMIC_RELEASE);
  for (hp_thread *t = dump_threads; t; t = t->next) section_thread(&b, t, now, now_wall);
  /* HYPROF_TRACE: the records not yet written, closed where the profile closes open timers. */
  for (hp_thread *t = dump_threads; t; t = t->next) hp_trace_dump_thread(t, thread_end_mono(t, now));
  section_user_events(&b);
  hp_func_write_section(&b);
  hp_fold_write_section(&b);
  hp_modules_write_sections(&b);
  /* Last, so that they hold everything the sections above name (see the file comment). */
  section_contexts(&b, hp_now_ns());
  section_events(&b);
  size_t at = hp_buf_section_begin(&b, HP_SEC_END);
  hp_buf_u32(&b, b.sections);
  hp_buf_section_end(&b, at);

  int rc = -1;
  /* Static, owned with `dumping`: a dump may run on a small alternate signal stack (SIGTERM, exec or
   * quick_exit from a handler that runs on sigaltstack's MINSIGSTKSZ / SIGSTKSZ bytes). */
  static char path[sizeof last_path], tmp[sizeof last_path + 8];
  file_name(path, sizeof path);
  tmp[0] = 0;
  append(tmp, sizeof tmp, path);
  append(tmp, sizeof tmp, ".tmp");
  if (b.failed) {
    say("hyprof: out of memory while writing the measurements of this process; nothing written", NULL, "\n");
  } else {
    /* One level, as PROFILEDIR users expect; an error shows at open. Never the private directory of a
     * `hyprof run`: once the run has removed it, re-creating it would leave a file nobody collects. */
    if (!hp_rt.under_run) mkdir(hp_cfg.raw_dir, 0777);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || write_all(fd, b.data, b.len) != 0) {
      int e = errno;
      say("hyprof: cannot write the measurements to ", hp_cfg.raw_dir, ": ");
      say(errno_text(e), "\n", NULL);
      if (fd >= 0) {
        close(fd);
        unlink(tmp);
      }
    } else if (close(fd) != 0 || rename(tmp, path) != 0) {
      say("hyprof: cannot write the measurements to ", path, "\n");
      unlink(tmp);
    } else {
      memcpy(last_path, path, strlen(path) + 1);
      rc = 0;
    }
  }
  hp_buf_free(&b);
  errno = saved_errno;
  __atomic_store_n(&dumping, 0, __ATOMIC_RELEASE);
  return rc;
}

int hp_dump_owner(void) { return __atomic_load_n(&dumping, __ATOMIC_ACQUIRE); }

/* The dump's ownership taken for a moment by a program thread that adds metadata (meta.c), so that no
 * dump reads the arena while it changes; a dump that finds it taken waits for it (hp_dump). */
int hp_dump_try_hold(void) {
  int me = (int)syscall(SYS_gettid), none = 0;
  return __atomic_compare_exchange_n(&dumping, &none, -me, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}
void hp_dump_release_hold(void) { __atomic_store_n(&dumping, 0, __ATOMIC_RELEASE); }

/* Memory an ended thread retired (thread.c) is released only when this says no dump runs. Both this
 * and the dump's start are read-modify-writes of `dumping`, so one comes first in its order: either
 * this one reads the dump's mark (and nothing is released), or the dump's start reads after it and
 * sees, through it, every pointer replaced before the memory was retired (no fence: ThreadSanitizer
 * follows this). */
int hp_dump_idle(void) { return __atomic_fetch_add(&dumping, 0, __ATOMIC_ACQ_REL) == 0; }

void hp_dump_reset_in_child(void) { __atomic_store_n(&dumping, 0, __ATOMIC_RELEASE); }
