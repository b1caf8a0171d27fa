/* How long the measured threads waited to run: the scheduler's own account per thread
 * (/proc/<pid>/task/<tid>/schedstat: time on a CPU, time runnable on a run queue, timeslices).
 * On a loaded or oversubscribed machine a thread's wall-clock intervals stretch by the time it waited
 * to run; analyses that judge durations (OpenMP diagnoses: "short" regions, task lengths) correct by
 * this share, and say when the program ran oversubscribed (docs/openmp.md, "Diagnoses under load").
 *
 * Read per thread as it is first measured (a baseline taken off), at its end (its own file) and, for
 * threads still running, at each dump. Each read is open/read/close of a small /proc file, digits
 * parsed by hand: async-signal-safe, so a dump in a signal handler (and a fork child) may run it.
 *
 * Beside it, the idle time of the CPUs the process may use, from the process's start to the dump
 * (/proc/stat, idle + iowait of those CPUs): a thread may wait to run while a CPU idles, which is
 * the scheduler's placement, not load (libomp's two threads on an idle 2-CPU machine share one CPU
 * for tens of milliseconds while the other idles: 10-37 % of a 0.1-second run's thread time, and as
 * much idle time). Analyses count as load only the wait beyond that idle time (run-load.ts). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "meta.h"
#include "runtime.h"
#include "thread.h"

/* The decimal number at s after any spaces, into *v; past it, or NULL when there is none. By hand:
 * strtoull is not async-signal-safe. */
static const char *number(const char *s, uint64_t *v) {
  while (*s == ' ') s++;
  if (*s < '0' || *s > '9') return NULL;
  *v = 0;
  while (*s >= '0' && *s <= '9') *v = *v * 10 + (uint64_t)(*s++ - '0');
  return s;
}

/* "<run ns> <wait ns> <timeslices>" → run, wait. 0 on success. */
static int parse(const char *s, uint64_t *run, uint64_t *wait) {
  return (s = number(s, run)) && number(s, wait) ? 0 : -1;
}

static cpu_set_t cpus;     /* the CPUs the process may use, as at its start */
static int have_cpus;      /* 1: cpus and idle0_ticks are known */
static uint64_t tick_hz;   /* /proc/stat's unit (USER_HZ) */
static uint64_t idle0_ticks;

/* Idle + iowait ticks of the CPUs in `cpus`, from /proc/stat's "cpuN" lines (read in chunks: the
 * file is long on many CPUs and after them, and only its first lines matter). 0 on success. */
static int idle_ticks(uint64_t *out) {
  int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[1024], line[256];
  size_t len = 0;
  uint64_t sum = 0;
  int seen = 0, done = 0;
  ssize_t n;
  while (!done && (n = read(fd, buf, sizeof buf)) > 0) {
    for (ssize_t i = 0; i < n && !done; i++) {
      if (buf[i] != '\n') {
        if (len < sizeof line - 1) line[len++] = buf[i];
        continue;
      }
      line[len] = '\0';
      len = 0;
      if (line[0] != 'c' || line[1] != 'p' || line[2] != 'u') {
        done = 1; /* the per-CPU lines come first */
        break;
      }
      if (line[3] < '0' || line[3] > '9') continue; /* the "cpu" total */
      uint64_t cpu;
      const char *c = number(line + 3, &cpu);
      if (!c || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &cpus)) continue;
      /* user nice system idle iowait ...: the 4th and 5th numbers (iowait absent on old kernels) */
      uint64_t v[5] = {0, 0, 0, 0, 0};
      int k = 0;
      while (k < 5 && (c = number(c, &v[k]))) k++;
      if (k < 4) continue;
      sum += v[3] + v[4];
      seen = 1;
    }
  }
  close(fd);
  if (!seen) return -1;
  *out = sum;
  return 0;
}

/* The schedstat of thread `tid` of this process (0: the calling thread). */
static int read_tid(pid_t tid, uint64_t *run, uint64_t *wait) {
  char path[64];
  if (tid == 0) {
    memcpy(path, "/proc/thread-self/schedstat", sizeof "/proc/thread-self/schedstat");
  } else {
    hp_task_file_path(tid, "schedstat", path);
  }
  char text[96];
  if (hp_read_small_file(path, text, sizeof text) <= 0) return -1;
  return parse(text, run, wait);
}

/* The account as the thread is first measured: what it waited before (a new thread waits on its
 * creator's CPU until the scheduler moves it: milliseconds, even on an idle machine; a process waits
 * while its parent runs) is taken off, so that a short program is not called oversubscribed. */
void hp_schedstat_thread_start(hp_thread *t) {
  uint64_t run, wait;
  if (read_tid(0, &run, &wait) == 0) {
    t->sched_run0_ns = run;
    t->sched_wait0_ns = wait;
  }
}

void hp_schedstat_thread_end(hp_thread *t) {
  uint64_t run, wait;
  if (read_tid(0, &run, &wait) == 0) {
    t->sched_run_ns = run;
    t->sched_wait_ns = wait;
  }
}

/* Threads' CPU time and run-queue wait, summed over the measured threads (ended ones as they were at
 * their end), and the CPUs the process may run on. Called by the dump. */
void hp_schedstat_add_metadata(void) {
  uint64_t run = 0, wait = 0;
  long long threads = 0;
  for (hp_thread *t = hp_thread_list(); t; t = t->next) {
    uint64_t r = 0, w = 0;
    if (__atomic_load_n(&t->ended, __ATOMIC_ACQUIRE)) {
      r = t->sched_run_ns;
      w = t->sched_wait_ns;
    } else if (read_tid(t->tid, &r, &w) != 0) {
      continue;
    }
    run += r > t->sched_run0_ns ? r - t->sched_run0_ns : 0;
    wait += w > t->sched_wait0_ns ? w - t->sched_wait0_ns : 0;
    threads++;
  }
  if (threads == 0) return;
  hp_meta_add_long("Threads Run Time (ns)", (long long)run);
  hp_meta_add_long("Threads Run-Queue Wait (ns)", (long long)wait);
  uint64_t idle;
  if (have_cpus && idle_ticks(&idle) == 0 && idle >= idle0_ticks)
    hp_meta_add_long("CPUs Idle Time (ns)", (long long)((idle - idle0_ticks) * (1000000000u / tick_hz)));
}

/* At start (not on a signal path): the CPUs this process may use, which a thread count is compared with,
 * and their idle time so far. */
void hp_schedstat_process_start(void) {
  if (sched_getaffinity(0, sizeof cpus, &cpus) == 0) {
    hp_meta_add_long("CPUs Available", CPU_COUNT(&cpus));
    long hz = sysconf(_SC_CLK_TCK);
    tick_hz = hz > 0 && hz <= 1000000000 ? (uint64_t)hz : 100;
    have_cpus = 1;
    hp_schedstat_idle_start();
  }
}

/* The idle baseline: at the process's start, and again in a fork child (its run starts at the fork). */
void hp_schedstat_idle_start(void) {
  if (have_cpus && idle_ticks(&idle0_ticks) != 0) have_cpus = 0;
}
