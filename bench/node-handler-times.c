/* Preloaded by bench/node-unwind.ts beside a runtime built with -DHYPROF_BENCH_HANDLER: at the
 * process's exit, writes how many sampling signals the handler took and its median and 90th
 * percentile and mean time per signal (ns) to the file named by HYPROF_BENCH_TIMES_OUT, as
 * "<signals> <median ns> <p90 ns> <mean ns>". A separate library, so that any runtime revision with the
 * benchmark's timing (hp_bench_handler_times) can be measured in a program that cannot call it
 * (node). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

__attribute__((destructor)) static void report(void) {
  const char *out = getenv("HYPROF_BENCH_TIMES_OUT");
  if (!out) return;
  uint32_t (*times)(const uint64_t **) = (uint32_t(*)(const uint64_t **))dlsym(RTLD_DEFAULT, "hp_bench_handler_times");
  FILE *f = fopen(out, "w");
  if (!f) return;
  const uint64_t *v = NULL;
  uint32_t n = times ? times(&v) : 0;
  uint64_t *s = n ? malloc(n * sizeof *s) : NULL;
  if (n && s) {
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp);
    double sum = 0;
    for (uint32_t i = 0; i < n; i++) sum += (double)s[i];
    fprintf(f, "%u %llu %llu %.0f\n", n, (unsigned long long)s[n / 2], (unsigned long long)s[(uint64_t)n * 9 / 10], sum / n);
  } else {
    fprintf(f, "0 0 0 0\n");
  }
  free(s);
  fclose(f);
}
