/* The measured program's own memory with many dynamic phases:
 *   phase_memory N   N dynamic phases "Iteration <i>", each with a timer "work" inside (2N contexts
 *                    on the main thread), then a flush (the dump's memory counted too)
 * Prints "rss_start_kb <k> peak_kb <k>": the resident set before the first probe and the process's
 * peak (VmHWM) after the flush. */
#include <hyprof.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile double sink;

static long status_kb(const char *field) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  size_t n = strlen(field);
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, field, n) == 0 && line[n] == ':') kb = atol(line + n + 1);
  if (f) fclose(f);
  return kb;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000;
  long start = status_kb("VmRSS");
  char name[48];
  hyprof_start_named("main");
  for (long i = 0; i < n; i++) {
    snprintf(name, sizeof name, "Iteration %ld", i);
    hyprof_phase_start(name);
    hyprof_start_named("work");
    for (int k = 0; k < 10; k++) sink += k;
    hyprof_stop_named("work");
    hyprof_phase_stop(name);
  }
  hyprof_stop_named("main");
  hyprof_flush();
  printf("rss_start_kb %ld peak_kb %ld\n", start, status_kb("VmHWM"));
  return 0;
}
