/* HYPROF_METRICS / TAU_METRICS: which metrics the probes record besides TIME, and reading them.
 *
 * TIME stays in the frames (hp_now_ns). The others: CPU_TIME, the thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID), and Linux perf events counted for the thread alone. A thread's perf
 * events are one group (perf_event_open with PERF_FORMAT_GROUP), so one read() gives them all. A
 * metric that cannot be measured here (no such name, no hardware counters, not permitted) is named
 * once on stderr with the reason, and the run goes on with the others. */
#define _GNU_SOURCE
#include "metrics.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "meta.h"
#include "runtime.h"
#include "stats.h"

uint32_t hp_n_metrics = 1;

enum { KIND_TIME, KIND_CPU, KIND_PERF };

typedef struct metric {
  char name[64];      /* as the user spelled it (the MULTI__<name> directory) */
  int kind;
  uint32_t type;      /* KIND_PERF: perf_event_attr.type and .config */
  uint64_t config;
  uint32_t group_at;  /* KIND_PERF: its place in the thread's group read */
} metric;

static metric metrics[HP_MAX_METRICS] = {{"TIME", KIND_TIME, 0, 0, 0}};
static uint32_t n_perf;

typedef struct known {
  const char *name;
  int kind;
  uint32_t type;
  uint64_t config;
} known;

/* TAU's names for wall-clock time and CPU time, perf's names (as `perf list` spells them), and the
 * PAPI presets that have a perf equivalent. */
static const known names[] = {
    {"TIME", KIND_TIME, 0, 0},
    {"LINUX_TIMERS", KIND_TIME, 0, 0},
    {"GET_TIME_OF_DAY", KIND_TIME, 0, 0},
    {"P_WALL_CLOCK_TIME", KIND_TIME, 0, 0},
    {"CPU_TIME", KIND_CPU, 0, 0},
    {"P_VIRTUAL_TIME", KIND_CPU, 0, 0},
    {"task-clock", KIND_PERF, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {"page-faults", KIND_PERF, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"faults", KIND_PERF, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"minor-faults", KIND_PERF, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
    {"major-faults", KIND_PERF, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
    {"context-switches", KIND_PERF, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cs", KIND_PERF, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", KIND_PERF, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    {"cycles", KIND_PERF, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"cpu-cycles", KIND_PERF, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", KIND_PERF, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"cache-references", KIND_PERF, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
    {"cache-misses", KIND_PERF, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {"branches", KIND_PERF, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-misses", KIND_PERF, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    {"PAPI_TOT_CYC", KIND_PERF, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"PAPI_TOT_INS", KIND_PERF, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"PAPI_BR_INS", KIND_PERF, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"PAPI_BR_MSP", KIND_PERF, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    {"PAPI_L3_TCM", KIND_PERF, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {"PAPI_L3_TCA", KIND_PERF, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
};

/* perf's names are lower case, TAU's and PAPI's upper case; either spelling is accepted. */
static const known *lookup(const char *name) {
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (!strcasecmp(names[i].name, name)) return &names[i];
  return NULL;
}

static int perf_open(uint32_t type, uint64_t config, int group) {
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = type;
  a.config = config;
  a.read_format = PERF_FORMAT_GROUP;
  a.exclude_kernel = type == PERF_TYPE_HARDWARE; /* kernel counting needs more privilege */
  a.exclude_hv = 1;
  return (int)syscall(SYS_perf_event_open, &a, 0 /* this thread */, -1 /* any CPU */, group, PERF_FLAG_FD_CLOEXEC);
}

static void explain(int err, char *out, size_t cap) {
  if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV)
    snprintf(out, cap, "the processor exposes no such hardware counter to this system (perf_event_open: %s)", strerror(err));
  else if (err == EACCES || err == EPERM) {
    char p[16] = "?";
    hp_read_small_file("/proc/sys/kernel/perf_event_paranoid", p, sizeof p);
    snprintf(out, cap, "not permitted (perf_event_open: %s; kernel.perf_event_paranoid is %s)", strerror(err), p);
  } else
    snprintf(out, cap, "perf_event_open: %s", strerror(err));
}

/* Add `name` (one entry of the list) unless it is a repeat, unknown or not measurable here. */
static void add(const char *var, const char *value, const char *name, char *dropped, size_t cap) {
  const known *k = lookup(name);
  if (!k) {
    hp_warn("%s=%s: unknown metric '%s' (known: TIME, CPU_TIME, P_VIRTUAL_TIME, task-clock, page-faults, "
            "minor-faults, major-faults, context-switches, cpu-migrations, cycles, instructions, cache-references, "
            "cache-misses, branches, branch-misses, PAPI_TOT_CYC, PAPI_TOT_INS, PAPI_BR_INS, PAPI_BR_MSP, "
            "PAPI_L3_TCM, PAPI_L3_TCA); ignored", var, value, name);
    return;
  }
  if (k->kind == KIND_TIME) return; /* metric 0 is always TIME */
  for (uint32_t i = 1; i < hp_n_metrics; i++)
    if (metrics[i].kind == k->kind && metrics[i].type == k->type && metrics[i].config == k->config) {
      hp_warn("%s=%s: metric '%s' is listed twice (as '%s'); measured once", var, value, name, metrics[i].name);
      return;
    }
  if (k->kind == KIND_PERF) {
    int fd = perf_open(k->type, k->config, -1); /* a trial on this thread: can it be counted here? */
    if (fd < 0) {
      char why[256];
      explain(errno, why, sizeof why);
      /* one line per metric, said once the list is read (it names what the run continues with) */
      snprintf(dropped + strlen(dropped), cap - strlen(dropped), "metric %s cannot be measured on this machine: %s\n", name, why);
      return;
    }
    close(fd);
  }
  if (hp_n_metrics == HP_MAX_METRICS) {
    hp_warn("%s=%s: at most %d metrics are measured, TIME included; '%s' ignored", var, value, HP_MAX_METRICS, name);
    return;
  }
  metric *m = &metrics[hp_n_metrics++];
  snprintf(m->name, sizeof m->name, "%s", name);
  m->kind = k->kind;
  m->type = k->type;
  m->config = k->config;
  if (m->kind == KIND_PERF) m->group_at = n_perf++;
}

void hp_metrics_configure(void) {
  const char *var = getenv("HYPROF_METRICS") ? "HYPROF_METRICS" : getenv("TAU_METRICS") ? "TAU_METRICS" : NULL;
  if (!var) return;
  const char *value = getenv(var);
  if (!*value) {
    hp_warn("%s is empty; measuring TIME only", var);
    return;
  }
  char list[1024], dropped[2048] = "";
  snprintf(list, sizeof list, "%s", value);
  char *rest = list;
  unsigned empty = 0;
  for (char *name; (name = strsep(&rest, ":"));) {
    if (!*name) {
      empty++;   /* said once for the whole value, however many there are */
      continue;
    }
    add(var, value, name, dropped, sizeof dropped);
  }
  if (empty == 1) hp_warn("%s=%s: an empty metric name (two ':' in a row, or one at an end); ignored", var, value);
  else if (empty) hp_warn("%s=%s: %u empty metric names (two ':' in a row, or one at an end); ignored", var, value, empty);
  char kept[512] = "TIME";
  for (uint32_t i = 1; i < hp_n_metrics; i++) snprintf(kept + strlen(kept), sizeof kept - strlen(kept), ", %s", metrics[i].name);
  for (char *line = dropped, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
    *nl = '\0';
    hp_warn("%s; continuing with %s", line, kept);
  }
  hp_meta_add("Metrics", kept);
}

const char *hp_metric_name(uint32_t m) { return m < hp_n_metrics ? metrics[m].name : "?"; }

/* The sampling module's count of per-sample values (weak there). */
HP_EXPORT uint32_t hp_metric_count(void) { return hp_n_metrics; }

/* Open the calling thread's perf group; on failure its perf metrics read 0 (said once per thread). */
static void open_counters(hp_thread *t) {
  t->perf_fd = -1;
  uint32_t opened = 0;
  for (uint32_t i = 1; i < hp_n_metrics; i++) {
    if (metrics[i].kind != KIND_PERF) continue;
    int fd = perf_open(metrics[i].type, metrics[i].config, opened ? t->perf_fds[0] : -1);
    if (fd < 0) {
      hp_warn("metric %s cannot be counted on thread %u (perf_event_open: %s); its perf metrics read 0 there",
              metrics[i].name, t->index, strerror(errno));
      while (opened) close(t->perf_fds[--opened]);
      return;
    }
    t->perf_fds[opened++] = fd;
  }
  if (opened) t->perf_fd = t->perf_fds[0];
}

/* Threads reading another thread's counters now (hp_metrics_read: a dump). A thread closing its own
 * waits until none is, after it has withdrawn its descriptor (Dekker-style, sequentially
 * consistent): either the reader sees -1 and reads nothing, or the closer sees the reader and waits,
 * so a descriptor is never read as it closes (its number could meanwhile name another file). */
static int perf_readers;

static void close_counters(hp_thread *t) {
  if (t->perf_fd < 0) return;
  __atomic_store_n(&t->perf_fd, -1, __ATOMIC_SEQ_CST); /* a dump on another thread stops reading it */
  while (__atomic_load_n(&perf_readers, __ATOMIC_SEQ_CST) != 0) {
    struct timespec wait = {0, 50 * 1000}; /* a reader's section is one read() */
    nanosleep(&wait, NULL);
  }
  for (uint32_t i = 0; i < n_perf; i++) close(t->perf_fds[i]);
}

/* Every open frame's values start now (the root's at the thread's start; a forked child's from the
 * fork, as their TIME: thread.c). */
static void restart_open_frames(hp_thread *t) {
  uint64_t v[HP_MAX_METRICS];
  hp_metrics_read(t, v);
  for (int32_t l = 0; l <= t->top; l++)
    for (uint32_t m = 1; m < hp_n_metrics; m++) {
      t->mframes[l].start[m] = t->mframes[l].param_start[m] = v[m];
      t->mframes[l].child[m] = t->mframes[l].child_at_param[m] = 0;
    }
}

void hp_metrics_thread_start(hp_thread *t) {
  t->perf_fd = -1;
  if (hp_n_metrics < 2) return;
  t->mframes = calloc(HP_MAX_FRAMES, sizeof(hp_mframe));
  if (!t->mframes) {
    hp_warn("no memory for the metrics of thread %u; it records TIME only", t->index);
    return;
  }
  open_counters(t);
  restart_open_frames(t);
}

void hp_metrics_thread_end(hp_thread *t) {
  if (hp_n_metrics < 2 || !t->mframes) return;
  hp_metrics_read(t, t->m_end); /* before `ended` is set: readers of an ended thread take these */
  close_counters(t);
}

void hp_metrics_fork_child(hp_thread *t) {
  /* Readers counted on the parent's other threads do not exist here. */
  __atomic_store_n(&perf_readers, 0, __ATOMIC_SEQ_CST);
  if (hp_n_metrics < 2 || !t->mframes) return;
  close_counters(t); /* they count the parent's thread */
  open_counters(t);
  restart_open_frames(t);
}

void *hp_metrics_frames_copy(const hp_thread *t, int32_t cap) {
  hp_mframe *m = calloc((size_t)cap, sizeof(hp_mframe));
  if (m && t->mframes) memcpy(m, t->mframes, (size_t)(t->top + 1) * sizeof(hp_mframe));
  return m;
}

size_t hp_metrics_frame_size(void) { return sizeof(hp_mframe); }

void hp_metrics_read(const hp_thread *t, uint64_t *v) {
  if (__atomic_load_n(&t->ended, __ATOMIC_ACQUIRE)) {
    for (uint32_t m = 1; m < hp_n_metrics; m++) v[m] = t->m_end[m];
    return;
  }
  uint64_t group[1 + HP_MAX_METRICS] = {0};
  if (n_perf && t == hp_tls_thread) {
    /* Its own: only this thread closes them (at its end, in a fork child). */
    int fd = __atomic_load_n(&t->perf_fd, __ATOMIC_ACQUIRE);
    if (fd >= 0 && read(fd, group, sizeof group) < (ssize_t)sizeof(uint64_t)) group[0] = 0;
  } else if (n_perf) {
    __atomic_add_fetch(&perf_readers, 1, __ATOMIC_SEQ_CST);
    int fd = __atomic_load_n(&t->perf_fd, __ATOMIC_SEQ_CST);
    if (fd >= 0 && read(fd, group, sizeof group) < (ssize_t)sizeof(uint64_t)) group[0] = 0;
    __atomic_sub_fetch(&perf_readers, 1, __ATOMIC_SEQ_CST);
  }
  struct timespec ts = {0, 0};
  int cpu_done = 0;
  for (uint32_t m = 1; m < hp_n_metrics; m++) {
    if (metrics[m].kind == KIND_CPU) {
      if (!cpu_done) {
        /* Another thread's CPU clock: the kernel's clock id for a thread of this process. */
        clockid_t id = t == hp_tls_thread ? CLOCK_THREAD_CPUTIME_ID : (clockid_t)((~(unsigned)t->tid << 3) | 6);
        if (clock_gettime(id, &ts) != 0) ts.tv_sec = ts.tv_nsec = 0;
        cpu_done = 1;
      }
      v[m] = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    } else {
      v[m] = metrics[m].group_at < group[0] ? group[1 + metrics[m].group_at] : 0;
    }
  }
}

/* ---- probe hooks: the multi-metric branch of push / close (probe.c) ---- */

void hp_metrics_push(hp_thread *t, int32_t level) {
  if (!t->mframes) return;
  uint64_t v[HP_MAX_METRICS];
  hp_metrics_read(t, v);
  hp_mframe *f = &t->mframes[level];
  /* Before top rises to it (probe.c), but a dump that took an earlier, higher top may be reading
   * this frame (thread.h). */
  uint32_t seq = hp_write_begin(t);
  for (uint32_t m = 1; m < hp_n_metrics; m++) {
    HP_PUT(f->start[m], v[m]);
    HP_PUT(f->child[m], 0);
  }
  hp_write_end(t, seq);
}

/* Close frame `level`: its inclusive values go to frame `to_level` as child values; `record`: add
 * them to its statistics too. */
void hp_metrics_close(hp_thread *t, int32_t level, int32_t to_level, int record) {
  if (!t->mframes) return;
  uint64_t v[HP_MAX_METRICS];
  hp_metrics_read(t, v);
  hp_mframe *f = &t->mframes[level], *p = &t->mframes[to_level];
  hp_frame *fr = &t->frames[level];
  hp_stat *s = record ? hp_stat_get(t, fr->base_context, fr->parent_context, fr->event) : NULL;
  for (uint32_t m = 1; m < hp_n_metrics; m++) {
    uint64_t incl = v[m] > f->start[m] ? v[m] - f->start[m] : 0;
    HP_ADD(p->child[m], incl); /* inside close_frame's write (probe.c, thread.h) */
    if (s) {
      HP_ADD(s->metric[m].incl, incl);
      HP_ADD(s->metric[m].excl, incl > f->child[m] ? incl - f->child[m] : 0);
    }
  }
}

void hp_metrics_param_start(hp_thread *t, int32_t level, int whole_call) {
  if (!t->mframes) return;
  uint64_t v[HP_MAX_METRICS];
  hp_metrics_read(t, v);
  hp_mframe *f = &t->mframes[level];
  uint32_t seq = hp_write_begin(t);   /* a dump may be reading the frame (thread.h) */
  for (uint32_t m = 1; m < hp_n_metrics; m++) {
    HP_PUT(f->param_start[m], whole_call ? f->start[m] : v[m]);
    HP_PUT(f->child_at_param[m], whole_call ? 0 : f->child[m]);
  }
  hp_write_end(t, seq);
}

void hp_metrics_param_close(hp_thread *t, int32_t level) {
  if (!t->mframes) return;
  uint64_t v[HP_MAX_METRICS];
  hp_metrics_read(t, v);
  hp_mframe *f = &t->mframes[level];
  hp_frame *fr = &t->frames[level];
  hp_stat *s = hp_stat_get(t, fr->context, fr->parent_context, fr->param_event);
  if (!s) return;
  uint32_t seq = hp_write_begin(t);   /* a dump may be reading it (thread.h) */
  for (uint32_t m = 1; m < hp_n_metrics; m++) {
    uint64_t incl = v[m] > f->param_start[m] ? v[m] - f->param_start[m] : 0;
    uint64_t child = f->child[m] - f->child_at_param[m];
    HP_ADD(s->metric[m].incl, incl);
    HP_ADD(s->metric[m].excl, incl > child ? incl - child : 0);
  }
  hp_write_end(t, seq);
}
