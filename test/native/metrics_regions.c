/* Regions with different costs per metric: "sleeping" waits (wall time, little CPU time, context
 * switches), "spinning" burns CPU (CPU time close to wall time), "touching" writes to fresh memory
 * (page faults), "param" carries a parameter specialisation. Used by the multi-metric tests. */
#include <hyprof.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static volatile unsigned long sink;

/* Until the thread has used `seconds` of CPU time, however loaded the machine. */
static void spin(double seconds) {
  double end = now(CLOCK_THREAD_CPUTIME_ID) + seconds;
  while (now(CLOCK_THREAD_CPUTIME_ID) < end)
    for (int i = 0; i < 1000; i++) sink += i;
}

/* Until `seconds` of wall time have passed (the sampler's signals cut sleeps short). */
static void sleep_for(double seconds) {
  double end = now(CLOCK_MONOTONIC) + seconds;
  while (now(CLOCK_MONOTONIC) < end) usleep(10000);
}

int main(void) {
  hyprof_start_named("sleeping");
  sleep_for(0.2);
  hyprof_stop_named("sleeping");

  hyprof_start_named("spinning");
  spin(0.1);
  hyprof_stop_named("spinning");

  hyprof_start_named("touching");
  /* 16384 pages of 4 KiB, each written once: one page fault each (no huge pages, which would take
   * 512 pages per fault) */
  size_t size = 64u << 20;
  volatile char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return 1;
  madvise((void *)p, size, MADV_NOHUGEPAGE);
  for (size_t i = 0; i < size; i += 4096) p[i] = 1;
  sink += p[size / 2];
  munmap((void *)p, size);
  hyprof_stop_named("touching");

  hyprof_start_named("param");
  hyprof_param("n", 3);
  spin(0.02);
  hyprof_stop_named("param");
  return 0;
}
