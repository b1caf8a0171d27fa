/* Loads and unloads a library N times (argv[2], default 2,000) while working, after 200 cycles to
 * warm up, and prints the resident memory before and after the N: memory-map snapshots retaken at
 * each dlclose must not add up. argv[1]: the library. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long rss_kb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "VmRSS:", 6)) kb = atol(line + 6);
  if (f) fclose(f);
  return kb;
}

static int cycles(const char *lib, int n) {
  for (int i = 0; i < n; i++) {
    void *h = dlopen(lib, RTLD_NOW);
    if (!h) {
      fprintf(stderr, "dlopen: %s\n", dlerror());
      return 1;
    }
    int (*f)(int) = (int (*)(int))dlsym(h, "dl_cycles_work");
    if (f) f(i);
    dlclose(h);
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  int n = argc > 2 ? atoi(argv[2]) : 2000;
  if (cycles(argv[1], 200)) return 1;
  long before = rss_kb();
  if (cycles(argv[1], n)) return 1;
  printf("cycles %d rss_kb %ld %ld\n", n, before, rss_kb());
  return 0;
}
