/* How long the measured threads waited to run: the scheduler's own account per thread
 * (/proc/<pid>/task/<tid>/schedstat: time on a CPU, time runnable on a run queue, timeslices).
 * On a loaded or oversubscribed machine a thread's wall-clock intervals stretch by the time it waited
 * to run; analyses that judge durations (OpenMP diagnoses: "short" regions, task lengths) correct by
 * this share, and say when the program ran oversubscribed (docs/openmp.md, "Diagnoses under load").
 *
 * Read per thread as it is first measured (a baseline taken off), at its end (its own file) and, for
 * threads still running, at each dump. Each read is open/read/close of a small /proc file, digits
 * parsed by hand: async-signal-safe, so a dump in a signal handler (and a fork child) may run it. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <string.h>

#include "meta.h"
#include "runtime.h"
#include "thread.h"

/* "<run ns> <wait ns> <timeslices>" → run, wait. 0 on success. */
static int parse(const char *s, uint64_t *run, uint64_t *wait) {
  uint64_t v[2] = {0, 0};
  for (int i = 0; i < 2; i++) {
    while (*s == ' ') s++;
    if (*s < '0' || *s > '9') return -1;
    while (*s >= '0' && *s <= '9') v[i] = v[i] * 10 + (uint64_t)(*s++ - '0');
  }
  *run = v[0];
  *wait = v[1];
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
}

/* At start (not on a signal path): the CPUs this process may use, which a thread count is compared with. */
void hp_schedstat_process_start(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) hp_meta_add_long("CPUs Available", CPU_COUNT(&set));
}
