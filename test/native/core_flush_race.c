/* Flushes while another thread keeps entering contexts it has never entered before (a new parameter
 * value each time): every file written must still be complete and consistent. argv[1]: a directory
 * to copy each flushed raw file into (as flush-<k>.raw). argv[2], optional: the thread enters that
 * many contexts and stops, and the flushes go on until it has (the first 12 are copied): its table
 * grows while flushes read it, for the runs under sanitizers. */
#include <dirent.h>
#include <hyprof.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int stop, done;   /* atomic: ThreadSanitizer runs this program too */
static long limit;

static void *churn(void *arg) {
  hyprof_event_t e = hyprof_event("work", NULL);
  for (long i = 0; !__atomic_load_n(&stop, __ATOMIC_RELAXED) && (!limit || i < limit); i++) {
    hyprof_start(e);
    hyprof_param("p", i);
    hyprof_stop(e);
  }
  __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
  return arg;
}

static void copy(const char *from, const char *to) {
  FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
  char buf[65536];
  size_t n;
  while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, out);
  if (in) fclose(in);
  if (out) fclose(out);
}

int main(int argc, char **argv) {
  const char *raw_dir = getenv("HYPROF_RAW_DIR");
  pthread_t t;
  limit = argc > 2 ? atol(argv[2]) : 0;
  pthread_create(&t, NULL, churn, NULL);
  for (int k = 0; k < 12 || (limit && !__atomic_load_n(&done, __ATOMIC_ACQUIRE)); k++) {
    hyprof_flush();
    if (k >= 12) continue;
    DIR *d = opendir(raw_dir);
    struct dirent *de;
    while (d && (de = readdir(d))) {
      if (!strstr(de->d_name, ".raw") || strstr(de->d_name, ".tmp")) continue;
      char from[4096], to[4096];
      snprintf(from, sizeof from, "%s/%s", raw_dir, de->d_name);
      snprintf(to, sizeof to, "%s/flush-%02d.raw", argv[1], k);
      copy(from, to);
    }
    if (d) closedir(d);
  }
  __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
  pthread_join(t, NULL);
  return 0;
}
