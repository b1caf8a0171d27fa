/* Known intervals timed both ways: each region is bracketed by two reads of CLOCK_MONOTONIC taken
 * just outside its probes, and the bracket is printed ("<event> <ns>"), so the test can hold the
 * profile's inclusive time against it. Kinds: sleeps (the counter runs while the thread is off the
 * CPU), spins, spins that move between CPUs every 2 ms (the counters of different CPUs), and a sleep
 * in a forked child (the child inherits the parent's conversion). Each instance is its own event.
 * Usage: core_clock [instances] [ms]   (default 7 instances of 30 ms). */
#define _GNU_SOURCE
#include <hyprof.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void do_sleep(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static void do_spin(long ms, int migrate) {
  uint64_t end = mono_ns() + (uint64_t)ms * 1000000u, next = 0;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int cpu = 0;
  while (mono_ns() < end) {
    if (migrate && cpus > 1 && mono_ns() >= next) {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(cpu, &set);
      sched_setaffinity(0, sizeof set, &set); /* moves the thread now */
      cpu = (cpu + 1) % (int)(cpus < CPU_SETSIZE ? cpus : CPU_SETSIZE);
      next = mono_ns() + 2000000u;
    }
  }
}

enum kind { SLEEP, SPIN, MIGRATING_SPIN };

/* Time one region both ways; prints "<name> <monotonic ns of the bracket>". */
static void timed(const char *kind_name, enum kind kind, int i, long ms) {
  char name[64];
  snprintf(name, sizeof name, "%s %d", kind_name, i);
  hyprof_event_t e = hyprof_event(name, NULL);
  uint64_t t0 = mono_ns();
  hyprof_start(e);
  if (kind == SLEEP)
    do_sleep(ms);
  else
    do_spin(ms, kind == MIGRATING_SPIN);
  hyprof_stop(e);
  uint64_t t1 = mono_ns();
  printf("%s %llu\n", name, (unsigned long long)(t1 - t0));
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 7;
  long ms = argc > 2 ? atol(argv[2]) : 30;
  hyprof_init();
  for (int i = 0; i < n; i++) {
    timed("sleep", SLEEP, i, ms);
    timed("spin", SPIN, i, ms);
    timed("migrating spin", MIGRATING_SPIN, i, ms);
  }
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    for (int i = 0; i < n; i++) timed("child sleep", SLEEP, i, ms);
    fflush(stdout);
    return 0;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
